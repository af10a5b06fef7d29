// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One slice of a stacked timeline: which rank (index into TimelineStack::ranks) and which
// event of that rank's trace.

#include <cstdint>

namespace commprof::timeline {

struct SliceRef {
    int rank = -1;
    std::uint32_t event = 0;
    bool valid() const { return rank >= 0; }
    friend bool operator==(const SliceRef&, const SliceRef&) = default;
};

} // namespace commprof::timeline
