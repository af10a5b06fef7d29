// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_exporter.h"

#include "archive_bounds.h"
#include "cli_common.h"
#include "files/safe_file.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <unistd.h>

namespace commprof::cli {
namespace {

constexpr int kExportMinutes = 30; // ResNet-50 scripts in seconds; a huge GPT takes longer

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

} // namespace

int runExporter(const QString& what, const QStringList& scriptArgs, ExporterOutput output) {
    QFile script(":/tools/model_export.py");
    if (!script.open(QIODevice::ReadOnly)) {
        return notFine(what + ": this build lacks its exporter script");
    }
    // A file, not stdin: torch.jit.script reads the classes' source through inspect.
    QTemporaryDir tmp;
    const QString copy = tmp.filePath("model_export.py");
    QFile out(copy);
    if (!tmp.isValid() || !out.open(QIODevice::WriteOnly) || out.write(script.readAll()) < 0 ||
        !out.flush()) {
        return notFine(what + ": cannot write the exporter to a temporary folder (" +
                       tmp.errorString() + ")");
    }
    out.close();
    const QString python = pythonProgram();
    QProcess p;
    p.setProcessChannelMode(output == ExporterOutput::Forwarded ? QProcess::ForwardedChannels
                                                                : QProcess::MergedChannels);
    p.start(python, QStringList{copy} + scriptArgs);
    if (!p.waitForStarted()) {
        return notFine(QString("%1: cannot start %2 (%3): install Python 3 with PyTorch, "
                               "apt-get install python3-torch python3-torchvision, or set "
                               "COMMPROF_PYTHON")
                           .arg(what, python, p.errorString()));
    }
    p.closeWriteChannel();
    const bool finished = p.waitForFinished(kExportMinutes * 60 * 1000);
    if (!finished) {
        p.kill();
        p.waitForFinished();
    }
    const bool ok = finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    if (!ok && output == ExporterOutput::OnFailure) {
        const QByteArray said = p.readAll();
        std::fwrite(said.constData(), 1, std::size_t(said.size()), stderr);
    }
    if (!finished) {
        return notFine(
            QString("%1: %2 did not finish in %3 minutes").arg(what, python).arg(kExportMinutes));
    }
    if (p.exitStatus() != QProcess::NormalExit) {
        return notFine(QString("%1: %2 crashed").arg(what, python));
    }
    return p.exitCode() == 0 ? Ok : p.exitCode() == 2 ? BadInput : NotFine;
}

int describeModule(const QString& what, const QString& file, const QStringList& flags,
                   ExporterOutput output) {
    // The archive's declared sizes before Python unpacks it: a 1 MB file declaring a 1 GiB
    // record would take the process to that size before torch refused it.
    try {
        ::close(files::openRegularFile(file, files::Links::Follow)); // a FIFO would block the read
    } catch (const files::FileError& e) {
        return badInput(what + ": " + QString::fromUtf8(e.what()));
    }
    if (const std::string why = archiveTooLarge(file.toStdString()); !why.empty()) {
        return badInput(what + ": " + QString::fromStdString(why));
    }
    return runExporter(what, QStringList{"--describe", file} + flags, output);
}

bool describeForMatrix(const matrix::TorchScriptModel& m) {
    if (describeInto(m)) {
        return true;
    }
    // Python writes the description to FILE.json.part and renames it; killed past its time (or
    // crashed) it leaves the .part, which no later command reads or removes. Only a regular file:
    // what is there under the name otherwise is not what Python left.
    const QFileInfo part(m.description + ".part");
    if (part.isFile() && !part.isSymLink()) {
        QFile::remove(part.filePath());
    }
    return false;
}

} // namespace commprof::cli
