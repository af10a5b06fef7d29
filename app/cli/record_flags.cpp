// SPDX-License-Identifier: GPL-3.0-or-later
#include "record_flags.h"

#include "files/safe_file.h"

#include <QDir>
#include <QFileInfo>

namespace commprof::cli {
namespace {

// An integer flag within [low, high], or the message saying what it must be.
QString intFlag(const Args& args, const char* flag, int low, int high, int* out) {
    if (!args.has(flag)) {
        return {};
    }
    bool ok = false;
    const int v = args.value(flag).toInt(&ok);
    if (!ok || v < low || v > high) {
        return QString("%1: expected a whole number from %2 to %3, got '%4'")
            .arg(flag)
            .arg(low)
            .arg(high)
            .arg(args.value(flag));
    }
    *out = v;
    return {};
}

} // namespace

QString parseRecordFlags(const Args& args, RecordFlags* out) {
    // The window starts at step 2 at the earliest: step 0 runs with one bucket and DDP
    // rebuilds its buckets during step 1 (docs/cli.md, `record`).
    for (const QString& err : {intFlag(args, "--skip", 2, 1000000, &out->skip),
                               intFlag(args, "--steps", 1, 10000, &out->steps),
                               intFlag(args, "--nproc", 1, 1024, &out->nproc)}) {
        if (!err.isEmpty()) {
            return err;
        }
    }
    if (args.operands().isEmpty()) {
        return "missing the command to run after --";
    }
    return {};
}

QString prepareFreshFolder(const QString& dir) {
    const QFileInfo info(dir);
    if (files::isLink(dir)) {
        return files::linkRefused(dir);
    }
    if (info.exists() && !info.isDir()) {
        return dir + ": exists and is not a folder";
    }
    if (info.isDir() &&
        !QDir(dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
        return dir + ": the folder is not empty; give a new or empty one (nothing there is "
                     "replaced)";
    }
    return files::makeDirs(dir);
}

} // namespace commprof::cli
