// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one median every figure of commprof is quoted at (steps, skews, bandwidths, instruments).

#include <optional>
#include <vector>

namespace commprof::trace {

// The middle value, or the mean of the two middle values; nullopt for no values.
std::optional<double> median(std::vector<double> values);

} // namespace commprof::trace
