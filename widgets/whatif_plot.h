// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The What if figure: the recorded step, its replay by the step model and one predicted
// scenario, each a horizontal bar stacked from its parts (compute, exposed communication, the
// wait for the straggler, the optimizer), the model's two with their uncertainty as an error
// bar. The workbench's What if page draws it as the controls change, and `commprof report` on a
// trace folder writes it for the recommended scenario.

#include "analysis/step_parts.h"
#include "analysis/whatif.h"
#include "plot_style.h"

#include <QString>

#include <optional>

class QCustomPlot;

namespace commprof::widgets {

struct WhatIfFigure {
    std::optional<analysis::StepParts> recorded;
    analysis::StepParts replayed;
    analysis::StepParts predicted;
    QString scenario; // "8 MiB, allreduce, 1x bandwidth, 2 ranks": the predicted bar's settings
    bool incomplete = false; // a rank's trace is cut or missing: the figure says so
};

// The figure of `scenario` (an index into w.scenarios).
WhatIfFigure whatIfFigure(const analysis::WhatIf& w,
                          const std::optional<analysis::StepParts>& recorded, std::size_t scenario);
// "8 MiB, allreduce, 1x bandwidth, 2 ranks".
QString scenarioText(const analysis::Scenario& s);
void drawWhatIf(QCustomPlot& plot, const WhatIfFigure& figure, const FigureStyle& style = {});

} // namespace commprof::widgets
