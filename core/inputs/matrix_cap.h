// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The bucket cap a run's matrix set, the current cap `commprof recommend` weighs a change
// against (analysis/recommendation.h's CurrentCap).

#include <QString>

#include <optional>

namespace commprof::inputs {

// The matrix's bucket_cap_mb in `defaults` when it is one value (not a list); none when it is a
// list, the text is empty or does not parse (a results folder's run.json keeps the text).
std::optional<double> matrixScalarCapMb(const QString& matrixYaml);

} // namespace commprof::inputs
