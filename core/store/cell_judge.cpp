// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_judge.h"

namespace commprof::store {

results::Completeness judgeCell(const results::CellFiles& files, const FurtherReading& found) {
    results::Completeness c = results::judge(files);
    QStringList more = found.sweepProblems;
    // A trace that cannot be read is missing data, not a reason to quote the hook's figure.
    if (!found.traceError.isEmpty()) {
        more << "trace unreadable: " + found.traceError;
    }
    c.reasons << more;
    if (!more.isEmpty() && c.status == "complete") {
        c.status = "incomplete";
    }
    return c;
}

} // namespace commprof::store
