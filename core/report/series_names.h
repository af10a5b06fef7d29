// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How the figures tell cells apart: by every axis that varies among the cells they draw, so
// cells that differ in any setting never land on one series (or one label) and overwrite each
// other.

#include "store/cell_row.h"

#include <QStringList>

#include <vector>

namespace commprof::report {

// The axes (store::CellRow::axes keys) that take more than one value among `cells`, in the
// order the first cell lists them, less `leaveOut` (the figure's own x axis, say).
QStringList varyingAxes(const std::vector<const store::CellRow*>& cells,
                        const QStringList& leaveOut);

// "mlp2m gloo_cpu hook=powersgd": the model and (unless `withLayer` is false) the layer, as the
// figures have always named a series, then each other axis of `varying` as key=value.
QString seriesName(const store::CellRow& c, const QStringList& varying, bool withLayer = true);

} // namespace commprof::report
