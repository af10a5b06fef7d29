// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a results folder is (docs/formats.md): the entries commprof keeps at its top, none of
// which may be a symbolic link (through one, a run or an ingest would read, write, move or delete
// files somewhere else); whether a folder is one at all, checked before anything is written into
// it, so opening a folder that is not one never leaves a results.sqlite behind; and the matrix a
// run was made from, as the run recorded it in run.json.

#include <QString>
#include <QStringList>

namespace commprof::results {

// Where a run keeps the files of the cell `cellId`: DIR/cells/ID.
QString cellDir(const QString& resultsDir, const QString& cellId);

// The first of DIR's entries (and of DIR/cells/*) that is a symbolic link, as a message saying
// so; empty when there is none.
QString linkInFolder(const QString& dir);

struct FolderCheck {
    bool ok = false;
    QString reason; // why not, naming the folder
};

// A results folder holds run.json, or a cells/ folder whose entries hold cell.json or rank
// files. Reads only.
FolderCheck checkResultsFolder(const QString& dir);

// Why a run may not write into DIR: it exists and holds entries other than a results folder's
// own (run.json, cells/, its database, ...) without being a results folder; a run writes only
// into a new folder, an empty one or one it can continue. Empty when it may. Reads only.
QString foreignFolder(const QString& dir);

struct RunMatrix {
    QString yaml;       // empty when run.json has no copy
    QString sourceFile; // the path the run was started with
};
RunMatrix matrixOfRun(const QString& dir);

} // namespace commprof::results
