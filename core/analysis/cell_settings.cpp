// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_settings.h"

#include "spec/comm_hooks.h"

namespace commprof::analysis {

QString localBaselineWhy(const CellSettings& cell) {
    if (!spec::sendsNothing(cell.hook.toStdString())) {
        return {};
    }
    return QString("%1 says the job ran the `local` hook, which sends nothing: it is the "
                   "no-communication baseline, and its traces time no collective to predict "
                   "another hook or cap from (open a cell that communicates)")
        .arg(cell.path);
}

} // namespace commprof::analysis
