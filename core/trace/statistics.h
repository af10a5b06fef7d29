// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one median every figure of commprof is quoted at (steps, skews, bandwidths, instruments).

#include <algorithm>
#include <optional>
#include <vector>

namespace commprof::trace {

// The middle value, or the mean of the two middle values; nullopt for no values.
inline std::optional<double> median(std::vector<double> values) {
    if (values.empty()) {
        return std::nullopt;
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

} // namespace commprof::trace
