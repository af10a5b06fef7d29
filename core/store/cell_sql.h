// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The `cells` table's SQL, derived from the column table (store/cell_columns.h): the INSERT, the
// SELECT and the ALTER TABLE of the columns added after the migrations that spell theirs out.

#include "store/cell_columns.h"
#include "store/sqlite_db.h"

#include <vector>

namespace commprof::store {

enum class CellColumnsWritten {
    All,
    Identity, // a cell the store could not take: its figures stay null
};

void insertCellRow(Database& db, const CellRow& row,
                   CellColumnsWritten written = CellColumnsWritten::All);

// The stored columns, comma-separated, in the order cellRowFrom reads them.
QString cellsSelectList();
CellRow cellRowFrom(const Statement& selected);

// `ALTER TABLE cells ADD COLUMN` for each of `columns` added in schema version `version`.
QString cellsColumnsAddedIn(int version, const std::vector<CellColumn>& columns);

} // namespace commprof::store
