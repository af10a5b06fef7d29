// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The names of a table's rows, for messages that list what is allowed. Plain C++17.

#include <string>

namespace commprof::spec {

// "gloo_cpu, gloo_cuda, nccl" for any table whose rows have a `name`.
template <typename Rows> std::string namesOf(const Rows& rows) {
    std::string out;
    for (const auto& row : rows) {
        out += (out.empty() ? "" : ", ") + std::string(row.name);
    }
    return out;
}

} // namespace commprof::spec
