#pragma once
// The results database's schema and its migrations, numbered by PRAGMA user_version and
// mirrored in the schema_version table.

#include "store/sqlite_db.h"

namespace commprof::store {

constexpr int kSchemaVersion = 2;

// Brings the database to kSchemaVersion, one migration per transaction. Throws StoreError for
// a database newer than this build.
void migrate(Database& db);

} // namespace commprof::store
