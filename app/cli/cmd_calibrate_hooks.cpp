// SPDX-License-Identifier: GPL-3.0-or-later
// commprof calibrate hooks: what a comm hook's own work and a collective beside the backward
// cost this machine, measured in seconds by two gloo ranks of tools/hook_calibrate.py (compiled
// into this program) and stored where every what-if on this machine finds it. The ranks are
// started by the plain rank launcher: the script is commprof's own and needs no capture.

#include "cli_common.h"
#include "rank_launch.h"

#include "files/safe_file.h"
#include "results/hook_calibration.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

namespace commprof::cli {

int calibrateHooksCommand(const Args& args) {
    const QString out =
        args.has("--out") ? args.value("--out") : results::storedHookCalibrationPath();
    // Where it goes is checked first: a calibration measured and then lost costs its time.
    const QString outDir = QFileInfo(out).absolutePath();
    if (!QDir().mkpath(outDir) || !QFileInfo(outDir).isWritable()) {
        return badInput("calibrate hooks: cannot write " + out +
                        " (its folder cannot be made or written)");
    }
    QTemporaryDir tmp;
    QFile script(":/tools/hook_calibrate.py");
    if (!tmp.isValid() || !script.open(QIODevice::ReadOnly)) {
        return notFine("calibrate hooks: cannot put tools/hook_calibrate.py in a temporary folder");
    }
    const QString copy = tmp.filePath("hook_calibrate.py");
    if (const QString err = files::writeAtomically(copy, script.readAll()); !err.isEmpty()) {
        return notFine("calibrate hooks: " + err);
    }
    const QString measured = tmp.filePath("calibration.json");
    RankLaunch launch;
    launch.command = {pythonProgram(), copy, "--out", measured};
    launch.nproc = 2;
    launch.stdoutToStderr = true;
    RankLaunchResult result;
    try {
        result = launchRanks(launch);
    } catch (const std::exception& e) {
        return notFine(QString("calibrate hooks: %1").arg(e.what()));
    }
    if (result.exitCode != 0) {
        return notFine("calibrate hooks: " + result.failure +
                       (result.exitCode == 3 ? " (PyTorch for Python 3 is needed: apt-get install "
                                               "python3-torch, or set COMMPROF_PYTHON)"
                                             : ""));
    }
    QString why;
    const std::optional<results::HookCalibration> c = results::readHookCalibration(measured, &why);
    if (!c) {
        return notFine("calibrate hooks: the calibration wrote no calibration: " + why);
    }
    QFile in(measured);
    if (!in.open(QIODevice::ReadOnly)) {
        return badInput("calibrate hooks: cannot write " + out);
    }
    if (const QString err = files::writeAtomically(out, in.readAll()); !err.isEmpty()) {
        return badInput("calibrate hooks: " + err);
    }
    QString text = QString("stored in %1 (every trace whatif on this machine reads it)\n").arg(out);
    text += QString("float32 all-reduce alone on loopback: %1 ns per byte\n")
                .arg(c->float32UsPerByte * 1e3, 0, 'g', 3);
    if (c->contention) {
        text += QString("a compute thread beside it loses %1 % of its time\n")
                    .arg(*c->contention * 100, 0, 'f', 1);
    }
    for (const auto& [name, w] : c->hooks) {
        text += QString("%1: casts %2 ns per gradient byte, its collective %3x a float32 "
                        "all-reduce of its bytes, the copy back %4 ns per byte\n")
                    .arg(name)
                    .arg(w.preUsPerByte * 1e3, 0, 'g', 3)
                    .arg(w.collectiveFactor, 0, 'g', 3)
                    .arg(w.postUsPerByte * 1e3, 0, 'g', 3);
    }
    printText(text);
    return Ok;
}

} // namespace commprof::cli
