// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The names of a table's rows, for messages that list what is allowed, and the row of a name.
// Plain C++17.

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

namespace commprof::spec {

// "gloo_cpu, gloo_cuda, nccl" for any table whose rows have a `name`.
template <typename Rows> std::string namesOf(const Rows& rows) {
    std::string out;
    for (const auto& row : rows) {
        out += (out.empty() ? "" : ", ") + std::string(row.name);
    }
    return out;
}

// The first row of `rows` that `pred` holds for; nullptr: none.
template <typename Rows, typename Pred> auto rowWhere(const Rows& rows, Pred pred) {
    const auto it = std::find_if(std::begin(rows), std::end(rows), pred);
    return it == std::end(rows) ? nullptr : &*it;
}

// The row of `rows` whose `name` is `name`; nullptr: none.
template <typename Rows> auto rowNamed(const Rows& rows, std::string_view name) {
    return rowWhere(rows, [&](const auto& row) { return row.name == name; });
}

} // namespace commprof::spec
