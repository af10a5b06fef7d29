// SPDX-License-Identifier: GPL-3.0-or-later
#include "slice_search.h"

#include "spec/mapped.h"

#include <QRegularExpression>

#include <algorithm>
#include <tuple>

namespace commprof::timeline {

std::size_t SearchMatches::nextAfter(double us, bool forward) const {
    if (slices.empty()) {
        return 0;
    }
    if (forward) {
        const auto it = std::upper_bound(startsUs.begin(), startsUs.end(), us);
        return it == startsUs.end() ? 0 : std::size_t(it - startsUs.begin());
    }
    const auto it = std::lower_bound(startsUs.begin(), startsUs.end(), us);
    return it == startsUs.begin() ? startsUs.size() - 1 : std::size_t(it - startsUs.begin()) - 1;
}

std::size_t SearchMatches::indexOf(const SliceRef& slice) const {
    return std::size_t(std::ranges::find(slices, slice) - slices.begin());
}

SearchMatches searchSlices(const TimelineStack& stack, const QString& pattern, bool regex) {
    SearchMatches out;
    out.perRank.assign(stack.ranks.size(), 0);
    if (pattern.isEmpty()) {
        return out;
    }
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            out.error = QString("invalid regular expression at offset %1: %2")
                            .arg(re.patternErrorOffset())
                            .arg(re.errorString());
            return out;
        }
    }
    struct Found {
        double start;
        SliceRef slice;
    };
    std::vector<Found> found;
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const trace::Trace& t = stack.ranks[r]->trace;
        std::vector<char> matches(t.strings.size(), 0);
        for (std::uint32_t id = 1; id < t.strings.size(); ++id) {
            const QString name = QString::fromStdString(t.strings.at(id));
            matches[id] =
                regex ? re.match(name).hasMatch() : name.contains(pattern, Qt::CaseInsensitive);
        }
        for (std::uint32_t i = 0; i < t.events.size(); ++i) {
            if (matches[t.events[i].name]) {
                found.push_back({stack.toDisplay(r, t.events[i].startUs), {int(r), i}});
                ++out.perRank[r];
            }
        }
    }
    std::ranges::sort(
        found, {}, [](const Found& f) { return std::tuple(f.start, f.slice.rank, f.slice.event); });
    out.slices = spec::mapped<std::vector<SliceRef>>(found, [](const Found& f) { return f.slice; });
    out.startsUs = spec::mapped<std::vector<double>>(found, [](const Found& f) { return f.start; });
    return out;
}

} // namespace commprof::timeline
