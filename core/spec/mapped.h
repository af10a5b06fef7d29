// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a function makes of each element of a range, in the range's order, in a container of the
// caller's choosing: the list of names, ids or texts that a loop of four lines built in many
// places. Plain C++17, header-only: commprof-rank includes it too.

namespace commprof::spec {

template <class Out, class Range, class F> Out mapped(const Range& range, F&& f) {
    Out out;
    for (const auto& element : range) {
        out.push_back(f(element));
    }
    return out;
}

} // namespace commprof::spec
