// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a cell's rows in the store were made from, in one string, so that a later ingest can
// tell an unchanged cell from one that has changed without reading it: every entry of the cell
// folder (name, type, size, modification time to the nanosecond), the content of its two small
// records (cell.json and manifest.json, which the runner may rewrite within one clock tick and
// at the same size) and what else decides how the files are read (the schema, the size limits
// set in the environment, the ingest's own revision).

#include <QString>

namespace commprof::store {

// Taken before the files are read: a file that changes while the cell is read then differs
// from the fingerprint stored with it, and the next ingest reads the cell again.
QString cellFingerprint(const QString& cellDir);

} // namespace commprof::store
