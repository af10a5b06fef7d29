// SPDX-License-Identifier: GPL-3.0-or-later
#include "cells_table.h"

#include "report/text_fields.h"
#include "spec/mapped.h"

#include <QStringList>

namespace commprof::report {
namespace {

// A column's value as cells.csv writes it: empty when absent, so never "nan" for a null;
// free text neutralised against spreadsheet formulas, numbers in the column's format.
QString csvValue(const store::CellColumn& column, const QVariant& v) {
    if (!v.isValid()) {
        return {};
    }
    switch (v.typeId()) {
    case QMetaType::Bool:
        return v.toBool() ? "1" : "0";
    case QMetaType::Int:
        return QString::number(v.toInt());
    case QMetaType::Double:
        return QString::number(v.toDouble(), column.csvFormat, column.csvPrecision);
    case QMetaType::QStringList:
        return csvField(v.toStringList().join("; "));
    default:
        return csvField(v.toString());
    }
}

} // namespace

Predictions predictionsOf(store::Database& db, const std::vector<store::CellRow>& cells) {
    Predictions out;
    for (const auto& c : cells) {
        if (c.complete() && !c.isSweep()) {
            if (auto p = store::prediction(db, c.key)) {
                out[c.id] = *p;
            }
        }
    }
    return out;
}

QString cellsCsv(const std::vector<store::CellRow>& cells, const Predictions& predictions) {
    const std::vector<const store::CellColumn*> columns = store::csvColumns();
    QString out =
        spec::mapped<QStringList>(columns, [](const auto* c) { return c->csv(); }).join(',') + "\n";
    for (const auto& cell : cells) {
        store::CellExtras extras;
        if (const auto it = predictions.find(cell.id); it != predictions.end() && it->prediction) {
            extras.prediction = &*it->prediction;
        }
        QStringList row;
        for (const store::CellColumn* c : columns) {
            row << csvValue(*c, c->get(cell, extras));
        }
        out += row.join(',') + "\n";
    }
    return out;
}

} // namespace commprof::report
