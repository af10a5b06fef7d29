// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The columns of a results cell, declared once (cell_columns.cpp), as Perfetto declares its
// tables: ingest's INSERT, the SELECT of store::cells, `commprof cells --json`, cells.csv, the
// results view's headers, docs/formats.md's column list and the ALTER TABLE of any column added
// after schema version 4 all derive from that one list, so a column cannot go missing from one
// of them, and tst_cell_columns holds the list to the live schema.

#include "analysis/ddp_prediction.h"
#include "store/cell_row.h"

#include <QVariant>

#include <vector>

namespace commprof::store {

// What an output has besides the row: a DDP cell's all-reduce predicted from its sweep
// (cells.csv's last columns).
struct CellExtras {
    const analysis::DdpPrediction* prediction = nullptr;
};

struct CellColumn {
    // The `cells` column, or for a derived column (computed from the row where it is shown,
    // never stored) its name in the outputs.
    const char* name = nullptr;
    const char* sqlType = nullptr; // TEXT, INTEGER or REAL, from the member; nullptr when derived
    int since = 1;                 // the schema version that added it: the first, unless said
    bool identity = false;         // stored even for a cell the store could not take
    bool inJson = true;            // in `commprof cells --json`, under its name
    int csvPosition = -1;          // in cells.csv, 0-based; positions never move, new ones go last
    char csvFormat = 'g';          // how cells.csv writes a number (QString::number)
    int csvPrecision = 6;
    const char* view = nullptr; // header in the results view (models::ResultsCellModel)
    const char* doc = "";
    // The value as a QVariant: null when absent; QString, QStringList, int, double or bool.
    // SQL binds it (a QStringList as a JSON array), JSON and cells.csv write it by its type.
    QVariant (*get)(const CellRow&, const CellExtras&) = nullptr;
    void (*set)(CellRow&, const QVariant& sqlValue) = nullptr; // nullptr when derived

    bool stored() const { return sqlType != nullptr; }
    // Its key in `commprof cells --json` and its header in cells.csv: the name, where it is in
    // them; nullptr where not.
    const char* json() const { return inJson ? name : nullptr; }
    const char* csv() const { return csvPosition >= 0 ? name : nullptr; }
};

// Every column, stored ones in the `cells` table's order, then the derived ones.
const std::vector<CellColumn>& cellColumns();
// The column of that name; throws std::out_of_range for none, so a typo fails at once.
const CellColumn& cellColumn(const char* name);
// The cells.csv columns by position.
std::vector<const CellColumn*> csvColumns();

// docs/formats.md's table of the columns, Markdown.
QString cellColumnsMarkdown();

} // namespace commprof::store
