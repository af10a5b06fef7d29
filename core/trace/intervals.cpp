// SPDX-License-Identifier: GPL-3.0-or-later
#include "intervals.h"

#include <algorithm>
#include <numeric>

namespace commprof::trace {

SpanSet SpanSet::unionOf(std::vector<Span> spans) {
    std::ranges::sort(spans, {}, &Span::start);
    SpanSet out;
    for (const Span& s : spans) {
        if (!(s.end > s.start)) {
            continue;
        }
        if (!out.spans_.empty() && s.start <= out.spans_.back().end) {
            out.spans_.back().end = std::max(out.spans_.back().end, s.end);
        } else {
            out.spans_.push_back(s);
        }
    }
    return out;
}

double SpanSet::length() const {
    return std::accumulate(spans_.begin(), spans_.end(), 0.0,
                           [](double total, const Span& s) { return total + s.length(); });
}

SpanSet SpanSet::intersect(const SpanSet& other) const {
    SpanSet out;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < spans_.size() && j < other.spans_.size()) {
        const Span& a = spans_[i];
        const Span& b = other.spans_[j];
        const double lo = std::max(a.start, b.start);
        const double hi = std::min(a.end, b.end);
        if (hi > lo) {
            out.spans_.push_back({lo, hi});
        }
        (a.end < b.end) ? ++i : ++j;
    }
    return out;
}

SpanSet SpanSet::subtract(const SpanSet& other) const {
    SpanSet out;
    std::size_t j = 0;
    for (const Span& a : spans_) {
        double cur = a.start;
        while (j < other.spans_.size() && other.spans_[j].end <= cur) {
            ++j;
        }
        for (std::size_t k = j; k < other.spans_.size() && other.spans_[k].start < a.end; ++k) {
            if (other.spans_[k].start > cur) {
                out.spans_.push_back({cur, other.spans_[k].start});
            }
            cur = std::max(cur, other.spans_[k].end);
        }
        if (cur < a.end) {
            out.spans_.push_back({cur, a.end});
        }
    }
    return out;
}

SpanSet SpanSet::clip(Span window) const {
    SpanSet out;
    // The first span that ends after the window starts.
    auto it = std::ranges::lower_bound(spans_, window.start, std::less_equal{}, &Span::end);
    for (; it != spans_.end() && it->start < window.end; ++it) {
        const double lo = std::max(it->start, window.start);
        const double hi = std::min(it->end, window.end);
        if (hi > lo) {
            out.spans_.push_back({lo, hi});
        }
    }
    return out;
}

double SpanSet::lengthWithin(Span window) const {
    double total = 0.0;
    auto it = std::ranges::lower_bound(spans_, window.start, std::less_equal{}, &Span::end);
    for (; it != spans_.end() && it->start < window.end; ++it) {
        total += std::min(it->end, window.end) - std::max(it->start, window.start);
    }
    return total;
}

} // namespace commprof::trace
