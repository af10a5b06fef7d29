// SPDX-License-Identifier: GPL-3.0-or-later
#include "statistics.h"

#include <algorithm>

namespace commprof::trace {

std::optional<double> median(std::vector<double> values) {
    if (values.empty()) {
        return std::nullopt;
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

} // namespace commprof::trace
