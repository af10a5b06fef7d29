// SPDX-License-Identifier: GPL-3.0-or-later
#include "slice_row.h"

#include <algorithm>
#include <cmath>

namespace commprof::timeline {

void SliceRow::push(double start, double end, std::uint32_t event, std::uint32_t name,
                    trace::EventClass cls) {
    pushSpan(start, end);
    events.push_back(event);
    names.push_back(name);
    classes.push_back(cls);
}

void SliceRow::pushSpan(double start, double end) {
    starts.push_back(start);
    ends.push_back(end);
}

std::size_t SliceRow::firstEndingAfter(double t) const {
    return std::size_t(std::upper_bound(ends.begin(), ends.end(), t) - ends.begin());
}

std::size_t SliceRow::firstStartingFrom(double t, std::size_t from) const {
    const std::size_t n = starts.size();
    if (from >= n || starts[from] >= t) {
        return std::min(from, n);
    }
    std::size_t bound = 1;
    while (from + bound < n && starts[from + bound] < t) {
        bound *= 2;
    }
    const auto lo = starts.begin() + std::ptrdiff_t(from + bound / 2);
    const auto hi = starts.begin() + std::ptrdiff_t(std::min(from + bound, n));
    return std::size_t(std::lower_bound(lo, hi, t) - starts.begin());
}

std::size_t SliceRow::sliceAt(double t, double slackUs) const {
    std::size_t best = size();
    double bestDistance = slackUs;
    for (std::size_t i = firstEndingAfter(t - slackUs); i < size() && starts[i] <= t + slackUs;
         ++i) {
        const double distance = t < starts[i] ? starts[i] - t : t > ends[i] ? t - ends[i] : 0.0;
        if (distance <= bestDistance) {
            best = i;
            bestDistance = distance;
            if (distance == 0) {
                break;
            }
        }
    }
    return best;
}

std::size_t SliceRow::indexOf(std::uint32_t event, double start) const {
    for (std::size_t i = firstStartingFrom(start); i < size() && starts[i] <= start; ++i) {
        if (i < events.size() && events[i] == event) {
            return i;
        }
    }
    return size();
}

double SliceRow::coveredWithin(double from, double to) const {
    double total = 0;
    for (std::size_t i = firstEndingAfter(from); i < size() && starts[i] < to; ++i) {
        total += std::max(0.0, std::min(ends[i], to) - std::max(starts[i], from));
    }
    return total;
}

namespace {

// Levels stop once a row is this short: walking it whole is already cheap.
constexpr std::size_t kSmallRow = 256;

// Where the entry starting at i ends after merging: slices shorter than a bucket that start
// in the same bucket become one entry; a longer slice always stays itself.
std::size_t mergedEnd(const SliceRow& row, std::size_t i, double bucket) {
    const std::size_t n = row.size();
    std::size_t j = i + 1;
    if (row.ends[i] - row.starts[i] < bucket) {
        const double b = std::floor(row.starts[i] / bucket);
        while (j < n && row.ends[j] - row.starts[j] < bucket &&
               std::floor(row.starts[j] / bucket) == b) {
            ++j;
        }
    }
    return j;
}

std::size_t mergedSize(const SliceRow& row, double bucket) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < row.size(); i = mergedEnd(row, i, bucket)) {
        ++count;
    }
    return count;
}

SliceRow mergeSmall(const SliceRow& row, double bucket) {
    SliceRow out;
    const bool named = !row.names.empty();
    for (std::size_t i = 0; i < row.size();) {
        const std::size_t j = mergedEnd(row, i, bucket);
        out.starts.push_back(row.starts[i]);
        out.ends.push_back(row.ends[j - 1]);
        if (named) {
            out.events.push_back(j - i == 1 ? row.events[i] : kMergedSlices);
            out.names.push_back(row.names[i]);
            out.classes.push_back(row.classes[i]);
        }
        i = j;
    }
    return out;
}

} // namespace

void SliceRow::buildLevels() {
    levels.clear();
    levelBucketUs.clear();
    auto finer = [this]() -> const SliceRow& { return levels.empty() ? *this : levels.back(); };
    for (double bucket = 1e-3; finer().size() > kSmallRow && bucket < 1e12; bucket *= 4) {
        // Keep a level only where it saves a good part of the walk.
        if (mergedSize(finer(), bucket) * 4 <= finer().size() * 3) {
            levels.push_back(mergeSmall(finer(), bucket));
            levelBucketUs.push_back(bucket);
        }
    }
}

const SliceRow& SliceRow::forResolution(double usPerPixel) const {
    const SliceRow* best = this;
    for (std::size_t k = 0; k < levels.size() && levelBucketUs[k] <= usPerPixel / 2; ++k) {
        best = &levels[k];
    }
    return *best;
}

} // namespace commprof::timeline
