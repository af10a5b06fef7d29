// SPDX-License-Identifier: GPL-3.0-or-later
#include "series_names.h"

#include <QSet>

#include <algorithm>

namespace commprof::report {

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
    return out;
}

QString seriesName(const store::CellRow& c, const QStringList& varying, bool withLayer) {
    QStringList parts{c.model};
    if (withLayer) {
        parts << c.layer;
    }
    for (const QString& k : varying) {
        if (k != "model" && k != "layer") {
            parts << QString("%1=%2").arg(k, c.axes.value(k).toString());
        }
    }
    return parts.join(' ');
}

} // namespace commprof::report
