// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A rank's reduction as a file (docs/formats.md, "Rank reduction"): what `commprof trace
// reduce` writes on a node of a cluster and `trace summarize DIR --launcher slurm` merges. Every
// value of the RankReduction survives the round trip exactly (doubles included, NaN and -0 too),
// so the merged job prints the same bytes as one read here.

#include "rank_reduction.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>

namespace commprof::trace {

inline constexpr const char* kReductionFormat = "commprof-trace-reduction";
// 2: a kind with no sized record writes total_bytes null (1 wrote 0, a size it never had).
inline constexpr int kReductionVersion = 2;

// What the reducing asked for; the merge refuses a file reduced under other terms.
struct ReductionTerms {
    std::optional<Span> window;
    bool withHta = false;
};

// How reducing one file ended: its reduction, or that it is valid JSON but no Chrome trace (a
// results cell's rank file beside its traces), which a directory's summary skips.
struct ReducedFile {
    std::string source;
    ReductionTerms terms;
    std::optional<RankReduction> reduction;
    std::string notATrace; // the reader's message, when it is not a trace
};

QByteArray reductionDocument(const ReducedFile& file);

// Reads and checks a reduction file. Throws TraceError naming the file and the line (a syntax
// error) or the field (a missing or mistyped value, another format or version).
ReducedFile readReductionFile(const QString& path);
ReducedFile parseReduction(const QByteArray& bytes, const QString& name);

} // namespace commprof::trace
