// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small real studies for the advice and report tests: one DDP model over gloo on CPU beside an
// all_reduce sweep, run by `commprof run`, so that every such test runs what `recommend` and
// `report` meet in a user's study.

#include "cli_runner.h"
#include "run_helpers.h"

// The matrix NAME: DEFAULTS (the lines under `defaults:`, indented), the DDP model entry MODEL
// and an all_reduce sweep up to SWEEP_BYTES, at WORLD_SIZES.
inline QString sweptStudy(const QString& name, const QString& defaults, const QString& model,
                          qint64 sweepBytes, const QString& worldSizes = "[2]") {
    return QString("name: %1\ndefaults:\n%2models:\n  - %3\n"
                   "  - {name: sweep, kind: sweep, collectives: [all_reduce], max_bytes: %4, "
                   "iterations: 5}\n"
                   "layers:\n  - {name: gloo_cpu, backend: gloo, device: cpu}\n"
                   "world_sizes: %5\n")
        .arg(name, defaults, model)
        .arg(sweepBytes)
        .arg(worldSizes);
}

// `commprof run` of the matrix TEXT, written into WORK, into RESULTS.
inline CliResult runStudy(const QTemporaryDir& work, const QString& text, const QString& results,
                          int timeoutMs) {
    return runCli("commprof", {"run", writeMatrix(work, text), "--out", results}, timeoutMs);
}
