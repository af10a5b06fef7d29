// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where two fingerprinted runs first differ: per rank, aligned by op identity (never by
// position), then a verdict across ranks (docs/cli.md, `commprof diff`).

#include "determinism/fingerprint_stream.h"

#include <QJsonObject>
#include <optional>

namespace commprof::determinism {

enum class Verdict { Clean, Origin, Receiver, ControlFlow };
const char* toString(Verdict v);

struct RankDivergence {
    int rank = 0;
    Verdict verdict = Verdict::Clean;
    std::optional<FpRecord> first; // run A's record at the first divergence
    std::optional<FpRecord> other; // run B's counterpart, when there is one
    bool inputsMatched = false;
    QString note;
};

struct Discriminator {
    QString signature;
    int clean = 0;
    int divergent = 0;
};

struct DiffReport {
    std::vector<RankDivergence>
        ranks;       // origins first, then control flow, then receivers, then clean
    QString pattern; // none | op_nondeterministic | input_distribution | outside_window
    QList<int> tracedRanks;
    int worldSize = 0;
    QString summary;
    std::vector<Discriminator> discriminators; // same op name as the first origin, by shapes/dtypes
    bool diverged() const { return pattern != "none"; }
};

// Both runs' streams, loaded once: the report and the view are built from the same reads.
struct LoadedRuns {
    QMap<int, FpStream> a;
    QMap<int, FpStream> b;
    int worldSize = 0; // how many ranks the runs had (to know whether every rank was traced)
};
LoadedRuns loadRuns(const QString& dirA, const QString& dirB); // throws std::runtime_error
DiffReport diff(const LoadedRuns& runs);
DiffReport diffDirs(const QString& dirA, const QString& dirB); // throws std::runtime_error
QJsonObject toJson(const DiffReport& r);
QJsonObject toJson(const FpRecord& r);

} // namespace commprof::determinism
