// SPDX-License-Identifier: GPL-3.0-or-later
// commprof model export: a TorchScript module and its description; commprof model describe: the
// description of a module the user scripted. Both made by PyTorch's Python
// (tools/model_export.py, compiled into this program), so that a matrix can name the file and
// this program stays free of torch.

#include "archive_bounds.h"
#include "cli_common.h"
#include "files/safe_file.h"
#include "matrix/input_bounds.h"
#include "matrix/yaml_fields.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <cmath>
#include <cstdio>
#include <optional>
#include <tuple>

#include <unistd.h>

namespace commprof::cli {
namespace {

constexpr int kExportMinutes = 30; // ResNet-50 scripts in seconds; a huge GPT takes longer

// Runs the exporter script with `scriptArgs`; `what` names the command in messages. The
// script's own message is on stderr: exit 2 a bad spec or file, 3 no torch for Python.
int runExporter(const QString& what, const QStringList& scriptArgs) {
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
    p.setProcessChannelMode(QProcess::ForwardedChannels);
    p.start(python, QStringList{copy} + scriptArgs);
    if (!p.waitForStarted()) {
        return notFine(QString("%1: cannot start %2 (%3): install Python 3 with PyTorch, "
                               "apt-get install python3-torch python3-torchvision, or set "
                               "COMMPROF_PYTHON")
                           .arg(what, python, p.errorString()));
    }
    p.closeWriteChannel();
    if (!p.waitForFinished(kExportMinutes * 60 * 1000)) {
        p.kill();
        p.waitForFinished();
        return notFine(
            QString("%1: %2 did not finish in %3 minutes").arg(what, python).arg(kExportMinutes));
    }
    if (p.exitStatus() != QProcess::NormalExit) {
        return notFine(QString("%1: %2 crashed").arg(what, python));
    }
    return p.exitCode() == 0 ? Ok : p.exitCode() == 2 ? BadInput : NotFine;
}

QStringList passed(const Args& args, std::initializer_list<const char*> flags) {
    QStringList out;
    for (const char* flag : flags) {
        if (args.has(flag)) {
            out << flag << args.value(flag);
        }
    }
    return out;
}

} // namespace

int modelExportCommand(const Args& args) {
    return runExporter("model export",
                       QStringList{args.operands().first(), "--out", args.value("--out")} +
                           passed(args, {"--input-shape", "--classes", "--seed"}));
}

int modelDescribeCommand(const Args& args) {
    // The bounds a description is read back with (matrix/model_description.cpp), so describe
    // never writes one that calibrate and the plan then refuse.
    const auto count = [&](const char* flag, const QString& text, qint64 min,
                           qint64 max) -> std::optional<QString> {
        bool ok = false;
        const double v = text.trimmed().toDouble(&ok);
        if (ok && v == std::floor(v) && v >= double(min) && v <= double(max)) {
            return std::nullopt;
        }
        return QString("%1: expected a whole number from %2 to %3, got '%4'")
            .arg(flag)
            .arg(min)
            .arg(max)
            .arg(text);
    };
    std::optional<QString> bad;
    if (args.has("--input-shape")) {
        for (const QString& d : args.value("--input-shape").split(',')) {
            bad = bad ? bad : count("--input-shape", d, 1, matrix::kMaxCount);
        }
    }
    for (const auto& [flag, min, max] : {std::tuple{"--classes", 1, matrix::kMaxCount},
                                         std::tuple{"--tokens", 1, matrix::kMaxCount},
                                         std::tuple{"--vocab", 2, matrix::kMaxVocab}}) {
        if (args.has(flag)) {
            bad = bad ? bad : count(flag, args.value(flag), min, max);
        }
    }
    if (bad) {
        return args.usageError(*bad);
    }
    // The archive's declared sizes before Python unpacks it: a 1 MB file declaring a 1 GiB
    // record would take the process to that size before torch refused it.
    const QString file = args.operands().first();
    try {
        ::close(files::openRegularFile(file, files::Links::Follow)); // a FIFO would block the read
    } catch (const files::FileError& e) {
        return badInput("model describe: " + QString::fromUtf8(e.what()));
    }
    if (const std::string why = archiveTooLarge(file.toStdString()); !why.empty()) {
        return badInput("model describe: " + QString::fromStdString(why));
    }
    return runExporter("model describe", QStringList{"--describe", args.operands().first()} +
                                             passed(args, {"--input-shape", "--classes", "--tokens",
                                                           "--vocab", "--out"}));
}

} // namespace commprof::cli
