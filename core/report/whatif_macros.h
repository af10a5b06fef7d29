// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// macros.tex of `commprof report` on a DDP job's trace folder: what `trace whatif` finds, as
// \newcommand lines a paper quotes (docs/cli.md lists them).

#include "analysis/whatif.h"
#include "report/macro_sheet.h"
#include "report/text_fields.h"

#include <QString>

#include <algorithm>

namespace commprof::report {

// The scenario the recommendation names (its cap and hook at the recorded bandwidth and world
// size); w.scenarios.size() when none does.
inline std::size_t recommendedScenario(const analysis::WhatIf& w) {
    const auto it = std::ranges::find_if(w.scenarios, [&](const analysis::Scenario& s) {
        return s.capMb == w.recommendation.capMb && s.hook == w.recommendation.hook;
    });
    return std::size_t(it - w.scenarios.begin());
}

// `source` (the trace folder) goes into a comment only.
inline QString whatIfMacrosTex(const analysis::WhatIf& w, const QString& source) {
    const auto ms = [](double v) { return QString::number(v, 'f', 2); };
    MacroSheet tex;
    tex.comment("what if, from the traces in " + source);
    tex.define("WhatIfRecordedStepMs", ms(w.stepMs));
    tex.define("WhatIfReplayedStepMs", ms(w.replayed.stepMs));
    tex.define(
        "WhatIfReplayError",
        QString::number(w.stepMs > 0 ? (w.replayed.stepMs / w.stepMs - 1) * 100 : 0, 'f', 1) +
            "\\%");
    tex.define("WhatIfRecordedCapMb", QString::number(w.recordedCapMb, 'g', 6));
    tex.define("WhatIfRecommendedCapMb", QString::number(w.recommendation.capMb, 'g', 6));
    tex.define("WhatIfRecommendedHook", texText(w.recommendation.hook));
    tex.define("WhatIfRecommendedStepMs", ms(w.recommendation.stepMs));
    const std::size_t best = recommendedScenario(w);
    // Keeping the recording: the replay's uncertainty; else the scenario's own.
    const double uncertainty = best < w.scenarios.size() && !w.recommendation.keep
                                   ? w.scenarios[best].uncertaintyMs
                                   : w.replayed.uncertaintyMs;
    tex.define("WhatIfRecommendedUncertaintyMs", ms(uncertainty));
    tex.define("WhatIfKeep", w.recommendation.keep ? "yes" : "no");
    tex.comment(w.recommendation.reason);
    return tex.tex();
}

} // namespace commprof::report
