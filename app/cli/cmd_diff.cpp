// SPDX-License-Identifier: GPL-3.0-or-later
// commprof diff: the first op whose output differs between two fingerprinted runs; with --arms
// it runs a base and a changed arm twice each first, to prove a change makes a run repeat.

#include "cli_common.h"

#include "determinism/divergence.h"
#include "files/safe_file.h"
#include "runner/rank_pool.h"
#include "runner/rank_program.h"

#include <QDir>
#include <QFileInfo>

namespace commprof::cli {
namespace {

constexpr int kMaxWorld = 1024; // ranks on one host, as a matrix allows

// Runs one arm: a pool of ranks with fingerprinting on, into dir.
QString runArm(const QString& dir, const QStringList& flags, int world) {
    runner::PoolSpec spec;
    spec.program = runner::defaultRankProgram();
    spec.args = flags + QStringList{"--out", dir, "--fingerprint", "semantic"};
    spec.worldSize = world;
    spec.workDir = dir;
    spec.deadline = QDeadlineTimer(600000);
    runner::RankPool pool;
    const runner::PoolOutcome out = pool.runBlocking(spec);
    return out.success
               ? QString()
               : out.reason + (out.ranks.empty() ? QString() : ": " + out.ranks.front().stderrTail);
}

// The flags that only mean something with --arms.
constexpr const char* kArmsFlags[] = {"--out", "--change", "--base", "--world"};

int armsCommand(const Args& args) {
    if (!args.operands().isEmpty()) {
        return args.usageError("--arms runs its own RUN_A and RUN_B; none may be named");
    }
    for (const char* flag : {"--out", "--change"}) {
        if (args.value(flag).isEmpty()) {
            return args.usageError(QString("--arms needs %1").arg(flag));
        }
    }
    // The ranks run in their arm's folder.
    const QString out = QFileInfo(args.value("--out")).absoluteFilePath();
    const QString change = args.value("--change");
    // An empty --base is a base of the rank's own defaults.
    const QString base = args.has("--base")
                             ? args.value("--base")
                             : "--params 2e5 --iterations 8 --warmup 1 --threads 1 --batch-size 8";
    const int world = args.has("--world") ? args.value("--world").toInt() : 2;
    if (world < 1 || world > kMaxWorld) {
        return args.usageError(
            QString("--world: expected 1..%1, got '%2'").arg(kMaxWorld).arg(args.value("--world")));
    }
    const QStringList baseFlags = base.split(' ', Qt::SkipEmptyParts);
    const QStringList changedFlags = baseFlags + change.split(' ', Qt::SkipEmptyParts);
    for (const auto& [name, flags] : {std::pair{QString("unchanged_1"), baseFlags},
                                      std::pair{QString("unchanged_2"), baseFlags},
                                      std::pair{QString("changed_1"), changedFlags},
                                      std::pair{QString("changed_2"), changedFlags}}) {
        const QString dir = QDir(out).filePath(name);
        if (files::isLink(dir)) { // removing through it would empty another folder
            return badInput(files::linkRefused(dir));
        }
        QDir(dir).removeRecursively();
        if (const QString e = files::makeDirs(dir); !e.isEmpty()) {
            return badInput(e);
        }
        const QString failure = runArm(dir, flags, world);
        if (!failure.isEmpty()) {
            return notFine(QString("arm %1 failed: %2").arg(name, failure));
        }
    }
    try {
        const auto unchanged = determinism::diffDirs(QDir(out).filePath("unchanged_1"),
                                                     QDir(out).filePath("unchanged_2"));
        const auto changed =
            determinism::diffDirs(QDir(out).filePath("changed_1"), QDir(out).filePath("changed_2"));
        const bool live = unchanged.diverged();
        const bool fixed = !changed.diverged();
        const QJsonObject doc{
            {"repro_live", live},
            {"changed_bit_identical", fixed},
            {"verdict", live && fixed ? "the change makes the run deterministic"
                        : !live       ? "the unchanged runs do not diverge: nothing to fix here"
                                      : "the change does not make the run deterministic"},
            {"unchanged", determinism::toJson(unchanged)},
            {"changed", determinism::toJson(changed)}};
        if (args.has("--json")) {
            printJson(doc);
        } else {
            printText(doc["verdict"].toString() + "\n");
        }
        return live && fixed ? Ok : NotFine;
    } catch (const std::exception& e) {
        return badInput(e);
    }
}

} // namespace

int diffCommand(const Args& args) {
    if (args.has("--arms")) {
        return armsCommand(args);
    }
    for (const char* flag : kArmsFlags) {
        if (args.has(flag)) {
            return args.usageError(QString("%1 needs --arms").arg(flag));
        }
    }
    const QStringList dirs = args.operands();
    if (dirs.size() != 2) {
        return args.usageError("expected RUN_A and RUN_B, or --arms");
    }
    try {
        const determinism::DiffReport r = determinism::diffDirs(dirs[0], dirs[1]);
        if (args.has("--json")) {
            printJson(determinism::toJson(r));
        } else {
            QString text = r.summary + "\n";
            for (const auto& d : r.ranks) {
                text += QString("rank %1: %2").arg(d.rank).arg(determinism::toString(d.verdict));
                if (d.first) {
                    text += QString(" at %1 (iteration %2, %3 layer, inputs %4)")
                                .arg(d.first->id)
                                .arg(d.first->iteration)
                                .arg(d.first->layer, d.inputsMatched ? "matched" : "differed");
                }
                text += d.note.isEmpty() ? "\n" : "; " + d.note + "\n";
            }
            printText(text);
        }
        return r.diverged() ? NotFine : Ok;
    } catch (const std::exception& e) {
        return badInput(e);
    }
}

} // namespace commprof::cli
