// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The collective sweep of commprof-rank --sweep (sweep_rank{R}.json, docs/formats.md): per
// collective kind and message size, each rank's median time, the slowest rank, and nccl-tests'
// algorithmic and bus bandwidth; and the latency-bandwidth fit time = alpha + bytes * beta where
// the sizes can determine it.

#include "analysis/collective_cost.h"
#include "results/cell_files.h"
#include "results/rank_record.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <vector>

namespace commprof::analysis {

struct SweepPoint {
    double bytes = 0;         // nccl-tests' size: all_gather's output, reduce_scatter's input
    std::map<int, double> us; // per rank: the fastest timed iteration
    int slowestRank = 0;
    double slowestUs = 0; // the time the point is quoted at: the slowest rank's
    double algbwGBps = 0; // bytes / slowestUs
    // The slowest rank's median repetition: what the size typically takes on this host, the
    // figure a DDP bucket's all-reduce (a median over steps) is predicted from.
    double typicalUs = 0;
    std::optional<double> busbwGBps; // algbw * nccl-tests' factor for the kind and world size
};

struct SweepSeries {
    QString layer, kind;
    int worldSize = 0;
    std::vector<SweepPoint> points; // by size
    QString unsupported;            // the backend refused this kind: why
};

// time = alpha + bytes * beta at the sweep's world size, or a refusal that says why: a fit whose
// cost (collective_cost.h) is what a model prices a collective with.
struct LinearFit {
    bool refused = true;
    QString reason; // why it was refused
    QString method;
    double alphaUs = 0;
    double betaUsPerByte = 0;
    double r2 = 0;
    int sizes = 0;
    double fromBytes = 0, toBytes = 0;      // the sizes fitted
    std::optional<double> leftOutFromBytes; // sizes from here on were another regime
    QString note;                           // why they were left out
    double predictUs(double bytes) const { return cost(2).fittedUs(bytes); }
    // The fitted collective at the world size the sweep ran at.
    CollectiveCost cost(int worldSize) const { return {alphaUs, betaUsPerByte, worldSize, 1}; }
    // 1 / beta, in GB/s: the bandwidth the fit approaches at large sizes.
    double asymptoticGBps() const { return betaUsPerByte > 0 ? 1e-3 / betaUsPerByte : 0.0; }
};

// At least this many distinct sizes, spanning at least this factor, for a fit to be made.
inline constexpr int kMinFitSizes = 3;
inline constexpr double kMinFitSpan = 10.0;
// From the first size whose bandwidth, and every larger size's, is below this fraction of the
// peak reached at smaller sizes, another regime: those sizes are left out of the fit.
inline constexpr double kRegimeDrop = 0.8;

// One point from every rank's median time; bandwidths by nccl-tests' definitions.
SweepPoint sweepPoint(const QString& kind, double bytes, int worldSize,
                      const std::map<int, double>& usByRank,
                      const std::map<int, double>& typicalUsByRank = {});

// The typical time (typicalUs) of a message of `bytes`, from the points around it: linear in
// log(time) against log(bytes) between the two measured sizes that bracket it; below the
// smallest size that size's time (latency-bound), above the largest that time scaled by the
// bytes (bandwidth-bound); nullopt without points.
std::optional<double> typicalUsAt(const std::vector<SweepPoint>& points, double bytes);

// The sweep_rank*.json files of a cell (results::CellFiles::sweeps, or
// inputs/sweep_files.h), by rank, merged across ranks. Problems (ranks that disagree on sizes)
// are added to *problems.
std::vector<SweepSeries> mergeSweep(const QMap<int, results::SweepRecord>& docs,
                                    QStringList* problems = nullptr);
// Whether a cell is complete, the one judge of ingest and the what-if's sweep offers:
// results::judge's rule on its files (docs/formats.md), then what reading them further finds. A
// sweep whose ranks' files do not merge into one series per kind (merged into *series), or a
// trace that cannot be read (traceError, analyzeCell's), is missing data, not a reason to quote
// the hook's figure: its cell is incomplete with that said.
results::Completeness judgeRead(const results::CellFiles& f, const QString& traceError = {},
                                std::vector<SweepSeries>* series = nullptr);
// The all_reduce points of a sweep's files (what DDP's buckets are predicted from); empty when
// the sweep has none.
std::vector<SweepPoint> allReducePoints(const QMap<int, results::SweepRecord>& docs);

// Least squares of time against bytes, each point weighted by 1 / time: timing noise grows
// with the time but less than in proportion (a busy host adds whole scheduler slices to the
// smallest sizes), and under 1 / time^2 those outliers at the bottom decided the line, under
// equal weights the largest sizes alone did (measured on this host, docs/measurement.md);
// R^2 is that of the same
// weighted problem. Sizes from the first whose bandwidth stays below kRegimeDrop of the peak
// before it are left out (note says so). Refused with fewer than kMinFitSizes sizes, a span under
// kMinFitSpan, or a fit that does not describe the data (R^2 below 0, or a negative beta).
LinearFit fitLinear(const std::vector<SweepPoint>& points);
// A series' fit: refused at world size 1, where nothing moves between ranks and the times are
// a local copy's (its "bandwidth" would be memory's), else fitLinear of its points.
LinearFit fitSeries(const SweepSeries& series);

} // namespace commprof::analysis
