// SPDX-License-Identifier: GPL-3.0-or-later
#include "repeat_groups.h"

#include "spec/mapped.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace commprof::report {

QString repeatGroupKey(const store::CellRow& c) {
    QStringList parts{c.kind, c.layer, c.model, QString::number(c.worldSize)};
    for (auto it = c.axes.begin(); it != c.axes.end(); ++it) { // a QVariantMap: sorted by key
        if (it.key() != "repeat") {
            parts << it.key() + "=" + it.value().toString();
        }
    }
    return parts.join('\x1f'); // a separator no value holds
}

bool RepeatGroup::contains(const QString& cellId) const {
    return std::any_of(cells.begin(), cells.end(),
                       [&](const store::CellRow* c) { return c->id == cellId; });
}

std::vector<RepeatGroup> repeatGroups(const std::vector<const store::CellRow*>& cells) {
    std::vector<RepeatGroup> out;
    QHash<QString, std::size_t> at;
    for (const store::CellRow* c : cells) {
        const QString key = repeatGroupKey(*c);
        const auto it = at.constFind(key);
        if (it == at.constEnd()) {
            at.insert(key, out.size());
            out.push_back({key, {c}});
        } else {
            out[*it].cells.push_back(c);
        }
    }
    return out;
}

std::vector<RepeatGroup> singleCellGroups(const std::vector<const store::CellRow*>& cells) {
    return spec::mapped<std::vector<RepeatGroup>>(cells, [](const store::CellRow* c) {
        return RepeatGroup{c->id, {c}};
    });
}

std::optional<Spread> spreadOf(const RepeatGroup& g, const CellValue& value) {
    std::vector<std::pair<double, const store::CellRow*>> values;
    for (const store::CellRow* c : g.cells) {
        if (!c->complete()) {
            continue; // flagged, never averaged in
        }
        if (const auto v = value(*c); v && std::isfinite(*v)) {
            values.emplace_back(*v, c);
        }
    }
    if (values.empty()) {
        return std::nullopt;
    }
    std::stable_sort(values.begin(), values.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t n = values.size();
    return Spread{.median = n % 2 ? values[n / 2].first
                                  : (values[n / 2 - 1].first + values[n / 2].first) / 2,
                  .low = values.front().first,
                  .high = values.back().first,
                  .repeats = int(n),
                  .representative = values[(n - 1) / 2].second};
}

} // namespace commprof::report
