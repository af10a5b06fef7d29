// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Interval algebra on sorted, disjoint spans: the only way trace metrics combine time.

#include <vector>

namespace commprof::trace {

struct Span {
    double start = 0.0;
    double end = 0.0;
    double length() const { return end - start; }
};

// Sorted by start, non-overlapping, no empty spans.
class SpanSet {
public:
    SpanSet() = default;
    // Merges overlapping and touching spans; the input need not be sorted.
    static SpanSet unionOf(std::vector<Span> spans);

    const std::vector<Span>& spans() const { return spans_; }
    bool empty() const { return spans_.empty(); }
    double length() const;

    SpanSet intersect(const SpanSet& other) const;
    SpanSet subtract(const SpanSet& other) const;
    SpanSet clip(Span window) const;
    // |this ∩ window| without building the clipped set.
    double lengthWithin(Span window) const;

private:
    std::vector<Span> spans_;
};

} // namespace commprof::trace
