// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix_describing.h"

#include "cli_common.h"
#include "model_exporter.h"

#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace commprof::cli {

namespace {

bool describeInto(const matrix::TorchScriptModel& m) {
    if (!QFileInfo(m.file).isFile()) {
        printError(QString("cannot describe %1 for the matrix: there is no such file").arg(m.file));
        return false;
    }
    const QString folder = QFileInfo(m.description).absolutePath();
    if (::access(folder.toLocal8Bit().constData(), W_OK) != 0) {
        printError(QString("cannot describe %1 for the matrix: its folder %2 is not writable (%3), "
                           "so %4 cannot be written there")
                       .arg(m.file, folder, QString::fromLocal8Bit(std::strerror(errno)),
                            QFileInfo(m.description).fileName()));
        return false;
    }
    const QStringList flags = matrix::describeArguments(m);
    // Said before, not after: a large module takes Python minutes, and the plan would sit
    // silent until then.
    printError(QString("describing %1 with Python's PyTorch at the matrix entry's input (%2) "
                       "into %3")
                   .arg(m.file, flags.join(' '), m.description));
    // Held, not forwarded: Python's messages would interleave with the plan, and its stdout
    // with `plan --json`'s document. Shown only when describing fails.
    if (describeModule("describing " + m.file, m.file, flags + QStringList{"--out", m.description},
                       ExporterOutput::OnFailure) != Ok) {
        printError(QString("could not describe %1 with Python's PyTorch at the matrix entry's "
                           "input (%2)")
                       .arg(m.file, flags.join(' ')));
        return false;
    }
    return true;
}

void removePartOf(const QString& description) {
    // Python writes the description to FILE.json.part and renames it; killed past its time (or
    // crashed) it leaves the .part, which no later command reads or removes. Only a regular file:
    // what is there under the name otherwise is not what Python left.
    const QFileInfo part(description + ".part");
    if (part.isFile() && !part.isSymLink()) {
        QFile::remove(part.filePath());
    }
}

} // namespace

bool describeForMatrix(const matrix::TorchScriptModel& m) {
    if (describeInto(m)) {
        return true;
    }
    removePartOf(m.description);
    return false;
}

} // namespace commprof::cli
