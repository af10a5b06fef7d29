// SPDX-License-Identifier: GPL-3.0-or-later
// commprof model export: a TorchScript module and its description, made by PyTorch's Python
// (tools/model_export.py, compiled into this program), so that a matrix can name the file.

#include "cli_common.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>

namespace commprof::cli {
namespace {

// Debian's python3 has torch; a python3 earlier on PATH may not. COMMPROF_PYTHON overrides.
QString pythonProgram() {
    const QString chosen = qEnvironmentVariable("COMMPROF_PYTHON");
    if (!chosen.isEmpty()) {
        return chosen;
    }
    return QFileInfo::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

constexpr int kExportMinutes = 30; // ResNet-50 scripts in seconds; a huge GPT takes longer

} // namespace

int modelExportCommand(const Args& args) {
    QFile script(":/tools/model_export.py");
    if (!script.open(QIODevice::ReadOnly)) {
        printError("model export: this build lacks its exporter script");
        return NotFine;
    }
    // A file, not stdin: torch.jit.script reads the classes' source through inspect.
    QTemporaryDir tmp;
    const QString copy = tmp.filePath("model_export.py");
    QFile out(copy);
    if (!tmp.isValid() || !out.open(QIODevice::WriteOnly) || out.write(script.readAll()) < 0 ||
        !out.flush()) {
        printError("model export: cannot write the exporter to a temporary folder (" +
                   tmp.errorString() + ")");
        return NotFine;
    }
    out.close();
    QStringList pyArgs{copy, args.operands().first(), "--out", args.value("--out")};
    for (const char* flag : {"--input-shape", "--classes", "--seed"}) {
        if (args.has(flag)) {
            pyArgs << flag << args.value(flag);
        }
    }
    const QString python = pythonProgram();
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedChannels);
    p.start(python, pyArgs);
    if (!p.waitForStarted()) {
        printError(QString("model export: cannot start %1 (%2): install Python 3 with PyTorch, "
                           "apt-get install python3-torch python3-torchvision, or set "
                           "COMMPROF_PYTHON")
                       .arg(python, p.errorString()));
        return NotFine;
    }
    p.closeWriteChannel();
    if (!p.waitForFinished(kExportMinutes * 60 * 1000)) {
        p.kill();
        p.waitForFinished();
        printError(QString("model export: %1 did not finish in %2 minutes")
                       .arg(python)
                       .arg(kExportMinutes));
        return NotFine;
    }
    if (p.exitStatus() != QProcess::NormalExit) {
        printError(QString("model export: %1 crashed").arg(python));
        return NotFine;
    }
    // The script's own message is already on stderr: 2 a bad spec, 3 no torch for Python.
    return p.exitCode() == 0 ? Ok : p.exitCode() == 2 ? BadInput : NotFine;
}

} // namespace commprof::cli
