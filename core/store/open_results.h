// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Opening a results folder to read it, as `cells`, `report` and the workbench do: the store is
// first brought up to date with the files (a database never hides newer files), and reading
// never needs write access. Where the database cannot be written (a read-only folder or file),
// it is opened read-only when it is current; when it is stale or missing, it is copied into
// memory and brought up to date there, and nothing is written.

#include "store/ingest.h"
#include "store/sqlite_db.h"

#include <memory>

namespace commprof::store {

struct OpenedResults {
    std::unique_ptr<Database> db;
    IngestSummary ingested;
    // Empty, or what the caller should tell the user: the folder could not be written and the
    // store it shows was brought up to date in memory only.
    QString note;
};

// Throws StoreError, naming the folder, for a folder that is not a results folder; then nothing
// is written.
OpenedResults openResults(const QString& resultsDir, const QString& dbPath,
                          const std::function<void(int, int, const QString&)>& progress = {});

} // namespace commprof::store
