// SPDX-License-Identifier: GPL-3.0-or-later
#include "series_names.h"

#include "analysis/number_text.h"
#include "spec/mapped.h"

#include <QMap>
#include <QSet>

#include <algorithm>
#include <functional>

namespace commprof::report {
namespace {

// Where an axis goes among the varying ones: the hook leads (it gets the colour), the placement
// (layer, model) comes last, so a colour and a marker go to the settings a study compares.
int axisRank(const QString& key) {
    return key == "hook" ? 0 : key == "layer" ? 2 : key == "model" ? 3 : 1;
}

QString valueOf(const store::CellRow& c, const QString& axis) {
    return c.axes.value(axis).toString();
}

QStringList sortedValues(const std::vector<const store::CellRow*>& cells,
                         const std::function<QString(const store::CellRow&)>& of) {
    QStringList out;
    for (const store::CellRow* c : cells) {
        if (const QString v = of(*c); !out.contains(v)) {
            out << v;
        }
    }
    std::sort(out.begin(), out.end(), valueLess);
    return out;
}

} // namespace

QStringList varyingAxes(const std::vector<const store::CellRow*>& cells,
                        const QStringList& leaveOut) {
    QStringList keys;
    QMap<QString, QSet<QString>> values;
    for (const store::CellRow* c : cells) {
        for (auto it = c->axes.begin(); it != c->axes.end(); ++it) {
            if (!keys.contains(it.key())) {
                keys << it.key();
            }
            values[it.key()].insert(it.value().toString());
        }
    }
    QStringList out;
    for (const QString& k : keys) {
        // An axis some cells lack (a sweep has no DDP settings) varies too.
        const bool everywhere = std::all_of(cells.begin(), cells.end(),
                                            [&](const auto* c) { return c->axes.contains(k); });
        if (!leaveOut.contains(k) && (values[k].size() > 1 || !everywhere)) {
            out << k;
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const QString& a, const QString& b) { return axisRank(a) < axisRank(b); });
    return out;
}

bool valueLess(const QString& a, const QString& b) {
    bool aNumber = false, bNumber = false;
    const double x = a.toDouble(&aNumber);
    const double y = b.toDouble(&bNumber);
    return aNumber && bNumber ? x < y || (x == y && a < b) : aNumber != bNumber ? aNumber : a < b;
}

QString seriesName(const store::CellRow& c, const QStringList& varying, bool withLayer) {
    QStringList parts{c.model};
    if (withLayer) {
        parts << c.layer;
    }
    for (const QString& k : varying) {
        if (k != "model" && k != "layer") {
            parts << QString("%1=%2").arg(k, valueOf(c, k));
        }
    }
    return parts.join(' ');
}

QString distinguishingLabel(const store::CellRow& c, const QStringList& varying,
                            const QString& separator) {
    const auto part = [&](const QString& k) {
        return k == "world_size" ? "ws" + QString::number(c.worldSize) : valueOf(c, k);
    };
    return spec::mapped<QStringList>(varying, part).join(separator);
}

QString axisValueText(const QString& axis, const QString& value) {
    if (axis == "model" || axis == "layer" || axis == "hook") { // names that say what they are
        return value;
    }
    if (axis == "world_size") {
        bool number = false;
        const int ranks = value.toInt(&number);
        return number ? ranksText(ranks) : value + " ranks";
    }
    return QString("%1=%2").arg(axis, value);
}

QString ranksText(int worldSize) {
    return analysis::countText(worldSize, "rank");
}

SeriesStyles seriesStyles(const std::vector<const store::CellRow*>& cells,
                          const QStringList& varying) {
    SeriesStyles s;
    if (varying.isEmpty()) {
        return s;
    }
    s.colourAxis = varying.front();
    s.markerAxis = varying.value(1);
    s.shadeAxes = varying.mid(2);
    s.colourValues =
        sortedValues(cells, [&](const store::CellRow& c) { return valueOf(c, s.colourAxis); });
    s.shadeValues = sortedValues(cells, [&](const store::CellRow& c) { return s.shadeKey(c); });
    if (!s.markerAxis.isEmpty()) {
        s.markerValues =
            sortedValues(cells, [&](const store::CellRow& c) { return valueOf(c, s.markerAxis); });
    }
    return s;
}

int SeriesStyles::colourIndex(const store::CellRow& c) const {
    return std::max(0, int(colourValues.indexOf(valueOf(c, colourAxis))));
}

int SeriesStyles::shadeIndex(const store::CellRow& c) const {
    return std::max(0, int(shadeValues.indexOf(shadeKey(c))));
}

int SeriesStyles::markerIndex(const store::CellRow& c) const {
    return markerAxis.isEmpty() ? 0
                                : std::max(0, int(markerValues.indexOf(valueOf(c, markerAxis))));
}

QString SeriesStyles::shadeKey(const store::CellRow& c) const {
    const auto part = [&](const QString& k) { return valueOf(c, k); };
    return spec::mapped<QStringList>(shadeAxes, part).join(" \u00b7 ");
}

QString SeriesStyles::seriesKey(const store::CellRow& c) const {
    const QChar zero('0');
    return QString("%1|%2|%3")
        .arg(colourIndex(c), 4, 10, zero)
        .arg(shadeIndex(c), 4, 10, zero)
        .arg(markerIndex(c), 4, 10, zero);
}

QString SeriesStyles::colourName(int colour) const {
    return axisValueText(colourAxis, colourValues.value(colour));
}

QString SeriesStyles::shadeName(int shade) const {
    QStringList parts;
    const QStringList values = shadeValues.value(shade).split(" \u00b7 ");
    for (int i = 0; i < shadeAxes.size(); ++i) {
        parts << axisValueText(shadeAxes[i], values.value(i));
    }
    return parts.join(" \u00b7 ");
}

} // namespace commprof::report
