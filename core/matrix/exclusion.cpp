// SPDX-License-Identifier: GPL-3.0-or-later
#include "exclusion.h"

#include "matrix/knobs.h"
#include "spec/mapped.h"

#include <QSet>
#include <QStringList>

#include <algorithm>
#include <iterator>
#include <map>

namespace commprof::matrix {
namespace {

qint64 addUpTo(qint64 a, qint64 b, qint64 cap) {
    return b >= cap - a ? cap : a + b;
}

qint64 mulUpTo(qint64 a, qint64 b, qint64 cap) {
    return a == 0 || b == 0 ? 0 : a > cap / b ? cap : std::min(cap, a * b);
}

// `into` narrowed to `values` (both ascending); false when nothing is left.
bool narrow(std::vector<std::size_t>& into, std::vector<std::size_t> values) {
    if (!into.empty()) {
        std::vector<std::size_t> both;
        std::set_intersection(into.begin(), into.end(), values.begin(), values.end(),
                              std::back_inserter(both));
        values = std::move(both);
    }
    into = std::move(values);
    return !into.empty();
}

} // namespace

std::vector<ExcludeRule> distinctRules(const std::vector<ExcludeRule>& rules) {
    std::vector<ExcludeRule> out;
    QSet<QStringList> seen;
    for (const ExcludeRule& r : rules) {
        QStringList key;
        for (const auto& [k, v] : r.match) {
            key << k << v;
        }
        if (!seen.contains(key)) {
            seen.insert(key);
            out.push_back(r);
        }
    }
    return out;
}

ModelExclusions::ModelExclusions(const std::vector<ExcludeRule>& rules, const ModelSpec& model,
                                 const std::vector<Axis>& axes) {
    sizes_ =
        spec::mapped<std::vector<std::size_t>>(axes, [](const Axis& a) { return a.values.size(); });
    const auto axisOf = [&axes](const QString& key) {
        return std::size_t(std::ranges::find(axes, key, &Axis::key) - axes.begin());
    };
    const std::size_t layerAxis = axisOf("layer");
    // A setting that is no axis of the model takes the value of each layer's run settings.
    const auto layersWith = [&](const Knob& knob, const QString& value) {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; layerAxis < axes.size() && i < sizes_[layerAxis]; ++i) {
            Cell scratch;
            axes[layerAxis].apply(scratch, i);
            if (knob.valueOf(scratch.config) == value) {
                out.push_back(i);
            }
        }
        return out;
    };
    for (const ExcludeRule& r : rules) {
        Bound b;
        b.at.resize(axes.size());
        bool possible = true;
        for (const auto& [key, value] : r.match) {
            if (key == QLatin1String("model")) {
                possible = possible && value == model.name;
                continue;
            }
            if (const std::size_t k = axisOf(key); k < axes.size()) {
                const auto& values = axes[k].values;
                const auto i = std::ranges::find(values, value, &AxisValue::text);
                possible = possible && i != values.end() &&
                           narrow(b.at[k], {std::size_t(i - values.begin())});
                continue;
            }
            // A sweep has no DDP settings: a rule on one never matches it.
            const Knob* knob = model.isSweep() ? nullptr : findKnob(key);
            possible = possible && knob && layerAxis < axes.size() &&
                       narrow(b.at[layerAxis], layersWith(*knob, value));
        }
        if (!possible) {
            continue;
        }
        for (std::size_t k = 0; k < b.at.size(); ++k) {
            b.decidedAfter = b.at[k].empty() ? b.decidedAfter : k + 1;
        }
        rules_.push_back(std::move(b));
    }
}

ModelExclusions::Split ModelExclusions::split(std::size_t d, const Live& live) const {
    Split s;
    std::map<std::size_t, Live> named;
    for (const Bound* r : live) {
        if (r->at[d].empty()) {
            s.others.push_back(r);
        }
        for (const std::size_t i : r->at[d]) {
            named[i].push_back(r);
        }
    }
    for (auto& [i, rules] : named) {
        rules.insert(rules.end(), s.others.begin(), s.others.end());
        s.named.emplace_back(i, std::move(rules));
    }
    return s;
}

qint64 ModelExclusions::count(std::size_t d, const Live& live, qint64 cap) const {
    // Every live rule took its value on the axes before `d`: one that fixes no later axis
    // removes every cell from here on.
    if (cap <= 0 ||
        std::ranges::any_of(live, [d](const Bound* r) { return r->decidedAfter <= d; })) {
        return 0;
    }
    if (live.empty()) {
        qint64 n = 1;
        for (std::size_t k = d; k < sizes_.size(); ++k) {
            n = mulUpTo(n, qint64(sizes_[k]), cap);
        }
        return std::min(n, cap);
    }
    // Not at the last axis: a live rule that fixes nothing further would have excluded.
    const Split s = split(d, live);
    qint64 total = 0;
    for (const auto& [i, rules] : s.named) {
        total = addUpTo(total, count(d + 1, rules, cap - total), cap);
    }
    const auto rest = qint64(sizes_[d] - s.named.size());
    if (rest > 0 && total < cap) {
        total = addUpTo(total, mulUpTo(rest, count(d + 1, s.others, cap - total), cap), cap);
    }
    return total;
}

bool ModelExclusions::walk(
    std::size_t d, const Live& live, std::vector<std::size_t>& at,
    const std::function<bool(const std::vector<std::size_t>&)>& visit) const {
    if (d == sizes_.size()) {
        return visit(at);
    }
    const Split s = split(d, live);
    // The values no rule names share their rules, so whether they keep any cell is asked once.
    const bool othersKept = sizes_[d] > s.named.size() && count(d + 1, s.others, 1) > 0;
    auto named = s.named.begin();
    for (std::size_t i = 0; i < sizes_[d]; ++i) {
        const Live* rules = &s.others;
        if (named != s.named.end() && named->first == i) {
            rules = &(named++)->second;
            if (count(d + 1, *rules, 1) == 0) {
                continue;
            }
        } else if (!othersKept) {
            continue;
        }
        at[d] = i;
        if (!walk(d + 1, *rules, at, visit)) {
            return false;
        }
    }
    return true;
}

qint64 ModelExclusions::countUpTo(qint64 cap) const {
    return count(0, spec::mapped<Live>(rules_, [](const Bound& r) { return &r; }), cap);
}

void ModelExclusions::forEachKept(
    const std::function<bool(const std::vector<std::size_t>&)>& visit) const {
    const Live all = spec::mapped<Live>(rules_, [](const Bound& r) { return &r; });
    if (count(0, all, 1) == 0) {
        return;
    }
    std::vector<std::size_t> at(sizes_.size(), 0);
    walk(0, all, at, visit);
}

} // namespace commprof::matrix
