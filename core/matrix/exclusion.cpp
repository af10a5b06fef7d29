// SPDX-License-Identifier: GPL-3.0-or-later
#include "exclusion.h"

#include "matrix/knobs.h"

#include <QHash>

namespace commprof::matrix {
namespace {

QString valueOf(const std::vector<std::pair<QString, QString>>& axes, const QString& key) {
    for (const auto& [k, v] : axes) {
        if (k == key) {
            return v;
        }
    }
    return {};
}

// An axis' value, or a setting's where it is no axis of this cell.
QString settingOf(const Cell& cell, const QString& key) {
    if (QString v = valueOf(cell.axes, key); !v.isNull()) {
        return v;
    }
    const Knob* k = cell.isSweep() ? nullptr : findKnob(key);
    return k ? k->valueOf(cell.config) : QString();
}

} // namespace

ExcludeIndex::ExcludeIndex(const std::vector<ExcludeRule>& rules) {
    QHash<QStringList, std::size_t> groupOf;
    for (const ExcludeRule& r : rules) {
        QStringList keys, values;
        for (const auto& [key, value] : r.match) {
            keys << key;
            values << value;
        }
        auto g = groupOf.find(keys);
        if (g == groupOf.end()) {
            g = groupOf.insert(keys, groups_.size());
            groups_.push_back({keys, {}});
        }
        groups_[*g].valueLists.insert(values);
    }
}

bool ExcludeIndex::excludes(const Cell& cell) const {
    QStringList values;
    for (const Group& g : groups_) {
        values.clear();
        for (const QString& key : g.keys) {
            values << settingOf(cell, key);
        }
        if (g.valueLists.contains(values)) {
            return true;
        }
    }
    return false;
}

} // namespace commprof::matrix
