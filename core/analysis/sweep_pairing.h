// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one rule that pairs a DDP cell with the sweep its collectives are priced from, for
// `recommend` and for ingest's per-cell prediction alike: the sweep of the same network (layer and
// link, results::networkOf) and world size, complete, that timed all_reduce; where repeats give
// several, the first offered (callers offer them by cell id).

#include <QString>

#include <map>
#include <utility>

namespace commprof::analysis {

// The network (results::networkOf: the layer, and the link when it is not loopback) and world
// size that pair a DDP cell with a sweep.
using SweepShape = std::pair<QString, int>;

template <typename Source> class SweepPairing {
public:
    // Keeps `source` for `shape` when the sweep qualifies and none was kept before; true if kept.
    bool offer(const SweepShape& shape, bool complete, bool timedAllReduce, Source source) {
        if (!complete || !timedAllReduce || bySweep_.count(shape)) {
            return false;
        }
        bySweep_.emplace(shape, std::move(source));
        return true;
    }
    // The sweep a DDP cell of `shape` pairs with; nullptr when none.
    const Source* find(const SweepShape& shape) const {
        const auto it = bySweep_.find(shape);
        return it == bySweep_.end() ? nullptr : &it->second;
    }
    Source* find(const SweepShape& shape) {
        const auto it = bySweep_.find(shape);
        return it == bySweep_.end() ? nullptr : &it->second;
    }

private:
    std::map<SweepShape, Source> bySweep_;
};

} // namespace commprof::analysis
