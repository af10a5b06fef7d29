// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Loads a results directory into SQLite: one transaction per cell, so a crash mid-ingest
// leaves every cell either as it was or as it now is. Ingesting twice changes nothing, and
// reads only what changed: a cell whose fingerprint (cell_fingerprint.h) is the one stored with
// its rows is not read again, a changed or new one is, and a cell folder that is gone takes its
// rows with it.

#include "store/sqlite_db.h"

#include <QString>

#include <functional>

namespace commprof::store {

struct IngestSummary {
    int cells = 0;
    int complete = 0;
    int incomplete = 0;
    int failed = 0;
    int skippedInfeasible = 0;
    int read = 0;    // cells read from their files this time; the others were unchanged
    int removed = 0; // cells whose folder was gone
};

// Throws StoreError, naming the folder, unless it is a results folder (the rule of
// results::checkResultsFolder, which the workbench applies too) with no link among its entries.
// Reads only: a folder that is refused is left as it was.
void requireResultsFolder(const QString& resultsDir);

// progress(done, total, cellId) after each cell is committed (or found unchanged).
IngestSummary ingest(const QString& resultsDir, const QString& dbPath,
                     const std::function<void(int, int, const QString&)>& progress = {});
// Into an open database, brought to the current schema first.
IngestSummary ingest(const QString& resultsDir, Database& db,
                     const std::function<void(int, int, const QString&)>& progress = {});

// True when an ingest would change nothing: the schema is current and every cell is as the
// store last saw it. Reads only, so it can be asked of a read-only database.
bool isCurrent(const QString& resultsDir, Database& db);

QString defaultDbPath(const QString& resultsDir);

} // namespace commprof::store
