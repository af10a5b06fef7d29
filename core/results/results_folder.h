#pragma once
// The entries commprof keeps at the top of a results folder (docs/formats.md). None of them may
// be a symbolic link: through one, a run or an ingest would read, write, move or delete files
// somewhere else.

#include <QString>
#include <QStringList>

namespace commprof::results {

const QStringList& folderEntries();

// The first of DIR's entries (and of DIR/cells/*) that is a symbolic link, as a message saying
// so; empty when there is none.
QString linkInFolder(const QString& dir);

} // namespace commprof::results
