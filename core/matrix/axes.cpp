// SPDX-License-Identifier: GPL-3.0-or-later
#include "axes.h"

#include "matrix/knobs.h"
#include "matrix/matrix.h"

#include <numeric>

namespace commprof::matrix {

std::vector<Axis> axesOf(const Matrix& m, const ModelSpec& model) {
    Axis layer{"layer", "layers", {}, true, [&m](Cell& c, std::size_t i) {
                   c.layer = m.layers[i];
                   c.config = c.layer.overrides ? *c.layer.overrides : m.defaults;
               }};
    for (const LayerSpec& l : m.layers) {
        layer.values.push_back({l.name, l.name, l.line, l.column});
    }
    Axis world{"world_size", "world sizes", {}, true, [&m](Cell& c, std::size_t i) {
                   c.worldSize = m.worldSizes[i];
               }};
    for (std::size_t i = 0; i < m.worldSizes.size(); ++i) {
        const auto mark = i < m.worldSizeMarks.size() ? m.worldSizeMarks[i] : std::make_pair(0, 0);
        world.values.push_back({QString::number(m.worldSizes[i]),
                                QString("ws%1").arg(m.worldSizes[i]), mark.first, mark.second});
    }
    Axis repeat{"repeat", "repeats", {}, true, [](Cell& c, std::size_t i) { c.repeat = int(i); }};
    for (int r = 0; r < m.repeats; ++r) {
        repeat.values.push_back({QString::number(r), QString("r%1").arg(r), 0, 0});
    }
    std::vector<Axis> out{std::move(layer), std::move(world)};
    // A sweep has no buckets: only the settings of where ranks run multiply its cells.
    for (const Knob& k : knobs()) {
        const KnobList* list = knobListOf(m, model, k.key);
        if (!list || (model.isSweep() && !k.sweepToo)) {
            continue;
        }
        Axis a{k.key, k.plural, {}, false, [list, &k](Cell& c, std::size_t i) {
                   k.apply(c.config, list->values[i]);
               }};
        for (std::size_t i = 0; i < list->values.size(); ++i) {
            a.values.push_back({list->values[i], k.idPart(list->values[i]), list->marks[i].first,
                                list->marks[i].second});
        }
        out.push_back(std::move(a));
    }
    out.push_back(std::move(repeat));
    return out;
}

const KnobList* knobListOf(const Matrix& m, const ModelSpec& model, const QString& key) {
    const KnobList* own = findList(model.knobs, key);
    return own ? own : findList(m.defaultKnobLists, key);
}

double combinations(const std::vector<Axis>& axes) {
    return std::accumulate(axes.begin(), axes.end(), 1.0,
                           [](double n, const Axis& a) { return n * double(a.values.size()); });
}

} // namespace commprof::matrix
