// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// macros.tex of `commprof report` on a DDP job's trace folder: what `trace whatif` finds, as
// \newcommand lines a paper quotes (docs/cli.md lists them).

#include "analysis/whatif.h"

#include <QString>

namespace commprof::report {

// The scenario the recommendation names (its cap and hook at the recorded bandwidth and world
// size); w.scenarios.size() when none does.
std::size_t recommendedScenario(const analysis::WhatIf& w);
// `source` (the trace folder) goes into a comment only.
QString whatIfMacrosTex(const analysis::WhatIf& w, const QString& source);

} // namespace commprof::report
