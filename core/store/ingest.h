// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Loads a results directory into SQLite: one transaction per cell, so a crash mid-ingest
// leaves every cell either as it was or as it now is. Ingesting twice changes nothing.

#include <QString>

#include <functional>

namespace commprof::store {

struct IngestSummary {
    int cells = 0;
    int complete = 0;
    int incomplete = 0;
    int failed = 0;
    int skippedInfeasible = 0;
};

// progress(done, total, cellId) after each cell is committed.
IngestSummary ingest(const QString& resultsDir, const QString& dbPath,
                     const std::function<void(int, int, const QString&)>& progress = {});

QString defaultDbPath(const QString& resultsDir);

} // namespace commprof::store
