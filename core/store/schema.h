// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The results database's schema and its migrations, numbered by PRAGMA user_version and
// mirrored in the schema_version table.

#include "store/sqlite_db.h"

namespace commprof::store {

// A new `cells` column raises it: the column's ALTER TABLE derives from its line in
// cell_columns.cpp, whose `since` is the new version.
constexpr int kSchemaVersion = 7;

// Brings the database to kSchemaVersion in one exclusive transaction, so concurrent callers
// never apply a migration twice. Throws StoreError for a database newer than this build.
void migrate(Database& db);

} // namespace commprof::store
