// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `commprof record` and `commprof confirm` share: their flags (--skip, --steps, --nproc),
// checked, a fresh folder for what they write, and running a user's command, unmodified,
// with commprof's Python capture (tools/capture, compiled into this program) loaded at Python
// start-up through PYTHONPATH: one layer on the plain rank launcher (rank_launch.h), which
// starts the command as its own launcher would (torchrun, srun) or, with --nproc N, as N ranks
// with the environment torchrun's standalone mode sets. The ranks' output is theirs and goes
// straight to this terminal.

#include "cli_common.h"
#include "rank_launch.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::cli {

struct RecordFlags {
    int skip = 5;  // steps left out first: DDP rebuilds its buckets after step 0
    int steps = 5; // steps traced (record) after them
    int nproc = 0; // 0: the command launches its ranks itself
};

// Empty when every flag given is within its range; else the message naming the flag.
QString parseRecordFlags(const Args& args, RecordFlags* out);

// An integer flag within [low, high] into OUT (left as it is when the flag is absent), or the
// message saying what it must be.
QString intFlag(const Args& args, const char* flag, int low, int high, int* out);

// Makes DIR, which must be missing or empty: a record never mixes its files with others.
// Empty on success, else the reason naming DIR.
QString prepareFreshFolder(const QString& dir);

// The command as the user typed it, its env holding the other COMMPROF_CAPTURE_* settings.
struct CaptureRun : RankLaunch {
    QString outDir; // COMMPROF_CAPTURE_DIR: where the capture writes
};

using CaptureRunResult = RankLaunchResult;

// Throws std::runtime_error when the capture cannot be put in place or the command not started
// (launchRanks).
CaptureRunResult runWithCapture(const CaptureRun& run);

// One rank's (or one Python process's) capture/rank{R}.json (docs/formats.md, "Record folder").
struct RankCapture {
    QString file;
    QString status; // recorded, timed, no_ddp, several_ddp, already_profiles, too_few_steps, ...
    QString message;
    int rank = -1;
    std::vector<double> stepMs;
    QJsonObject json;
};

// Every capture file under DIR/capture, ranks first in rank order. Throws std::runtime_error
// naming a file that is not one.
std::vector<RankCapture> readCaptures(const QString& dir);

// The verdict over all processes: "recorded"/"timed" when every process that built a DDP wrapper
// did so cleanly, else the first refusal (several_ddp, already_profiles, capture_failed,
// too_few_steps), else no_ddp when no process built one (a launcher's own process never does).
// `why` gets the refusing file's message.
QString verdictOf(const std::vector<RankCapture>& captures, QString* why);

// Exit codes of record and confirm for a verdict (docs/cli.md): 0, 3 no DDP, 4 already
// profiles, 5 several wrappers, 6 too few steps, 1 otherwise.
int exitCodeOf(const QString& verdict);

} // namespace commprof::cli
