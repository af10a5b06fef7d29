// SPDX-License-Identifier: GPL-3.0-or-later
// docs/formats.md's list of the cell columns, from the table itself (tst_cell_columns checks
// that the document holds exactly this).

#include "cell_columns.h"

#include <QStringList>

namespace commprof::store {
namespace {

QString code(const char* name) {
    return name ? QString("`%1`").arg(name) : QString();
}

} // namespace

QString cellColumnsMarkdown() {
    QString out = "| column | SQL (since version) | `cells --json` | cells.csv (position) | "
                  "results view | meaning |\n|---|---|---|---|---|---|\n";
    for (const CellColumn& c : cellColumns()) {
        const QString sql =
            c.stored() ? QString("%1 (%2)").arg(c.sqlType).arg(c.since) : QString("derived");
        const QString csv =
            c.csv() ? QString("%1 (%2)").arg(code(c.csv())).arg(c.csvPosition + 1) : QString();
        const QString view = c.view ? QString("\"%1\"").arg(c.view) : QString();
        out += QStringList{"", code(c.name), sql, code(c.json()), csv, view, c.doc, ""}
                   .join(" | ")
                   .trimmed() +
               "\n";
    }
    return out;
}

} // namespace commprof::store
