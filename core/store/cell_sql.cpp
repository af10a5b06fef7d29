// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_sql.h"

#include "results/json_kind.h"

#include <QJsonArray>
#include <QJsonObject>

namespace commprof::store {
namespace {

// SQLite has no list or map type: a list is stored as its JSON array, a map as its object.
QVariant sqlValue(const QVariant& v) {
    if (v.typeId() == QMetaType::QStringList) {
        return results::compactJson(QJsonArray::fromStringList(v.toStringList()));
    }
    if (v.typeId() == QMetaType::QVariantMap) {
        return results::compactJson(QJsonObject::fromVariantMap(v.toMap()));
    }
    return v;
}

} // namespace

void insertCellRow(Database& db, const CellRow& row, CellColumnsWritten written) {
    QStringList names, marks;
    QVariantList values;
    for (const CellColumn& c : cellColumns()) {
        if (c.stored() && (written == CellColumnsWritten::All || c.identity)) {
            names << c.name;
            marks << "?";
            values << sqlValue(c.get(row, {}));
        }
    }
    // Columns named: a database keeps the columns of the migrations in the order they came.
    db.prepare(QString("INSERT INTO cells(%1) VALUES (%2)").arg(names.join(", "), marks.join(",")))
        .bindAll(values)
        .run();
}

QString cellsSelectList() {
    QStringList names;
    for (const CellColumn& c : cellColumns()) {
        if (c.stored()) {
            names << c.name;
        }
    }
    return names.join(", ");
}

CellRow cellRowFrom(const Statement& selected) {
    CellRow row;
    int i = 0;
    for (const CellColumn& c : cellColumns()) {
        if (c.stored()) {
            c.set(row, selected.column(i++));
        }
    }
    return row;
}

QString cellsColumnsAddedIn(int version, const std::vector<CellColumn>& columns) {
    QString sql;
    for (const CellColumn& c : columns) {
        if (c.stored() && c.since == version) {
            sql += QString("ALTER TABLE cells ADD COLUMN %1 %2;\n").arg(c.name, c.sqlType);
        }
    }
    return sql;
}

} // namespace commprof::store
