#pragma once
// Is a folder what `commprof run` writes (docs/formats.md)? Checked before anything is written
// into it, so opening a folder that is not one never leaves a results.sqlite behind. And the
// matrix a run was made from, as the run recorded it in run.json.

#include <QString>

namespace commprof::results {

struct FolderCheck {
    bool ok = false;
    QString reason; // why not, naming the folder
};

// A results folder holds run.json, or a cells/ folder whose entries hold cell.json or rank
// files. Reads only.
FolderCheck checkResultsFolder(const QString& dir);

struct RunMatrix {
    QString yaml;       // empty when run.json has no copy
    QString sourceFile; // the path the run was started with
};
RunMatrix matrixOfRun(const QString& dir);

} // namespace commprof::results
