// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Numbers as every output of the analyses writes them.

#include <QString>

namespace commprof::analysis {

// A number of MiB (a bucket cap, a first bucket): up to six significant digits, no trailing
// zeros ("0.25", "25").
inline QString mb(double mib) {
    return QString::number(mib, 'g', 6);
}

// "1 bucket", "3 buckets": a count and its noun, in the number the count needs.
inline QString countText(qint64 n, const QString& noun) {
    return QString("%1 %2%3").arg(n).arg(noun, n == 1 ? "" : "s");
}

} // namespace commprof::analysis
