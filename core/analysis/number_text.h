// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A number of MiB as every output of the analyses writes it (a bucket cap, a first bucket): up
// to six significant digits, no trailing zeros ("0.25", "25").

#include <QString>

namespace commprof::analysis {

inline QString mb(double mib) {
    return QString::number(mib, 'g', 6);
}

} // namespace commprof::analysis
