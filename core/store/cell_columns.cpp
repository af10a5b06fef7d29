// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_columns.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace commprof::store {
namespace {

// A member as the column's value: absent is a null QVariant.
template <typename T> QVariant variantOf(const T& v) {
    return QVariant::fromValue(v);
}
template <typename T> QVariant variantOf(const std::optional<T>& v) {
    return v ? QVariant::fromValue(*v) : QVariant();
}

// A stored value back into a member, as SQLite returns it (NULL as a null QVariant): a text or
// a number converted as QVariant converts it, a list or a map parsed from its JSON text.
template <typename T> void assign(T& out, const QVariant& v) {
    out = v.value<T>();
}
void assign(QStringList& out, const QVariant& v) {
    out = QJsonDocument::fromJson(v.toString().toUtf8()).toVariant().toStringList();
}
void assign(QVariantMap& out, const QVariant& v) {
    out = QJsonDocument::fromJson(v.toString().toUtf8()).object().toVariantMap();
}
template <typename T> void assign(std::optional<T>& out, const QVariant& v) {
    out.reset();
    if (!v.isNull()) {
        assign(out.emplace(), v);
    }
}

// The SQL type of a member's column: a number as such, a bool as 0 or 1, text, a list and a map
// as text. A member of any other type stops the build: it needs a type chosen here.
template <typename T> constexpr bool kNoSqlType = false;
template <typename T>
constexpr const char* kSqlType = [] {
    static_assert(kNoSqlType<T>, "no SQL type for this member's type: add one to kSqlType");
    return "";
}();
template <> constexpr const char* kSqlType<QString> = "TEXT";
template <> constexpr const char* kSqlType<QStringList> = "TEXT";
template <> constexpr const char* kSqlType<QVariantMap> = "TEXT";
template <> constexpr const char* kSqlType<double> = "REAL";
template <> constexpr const char* kSqlType<int> = "INTEGER";
template <> constexpr const char* kSqlType<bool> = "INTEGER";
template <typename T> constexpr const char* kSqlType<std::optional<T>> = kSqlType<T>;

// A stored column of the member at Path (one of the row's, or of a struct in it such as the DDP
// logger's figures; `row .* ... .* Path` follows it): its value read from and written to it, its
// SQL type its type's.
template <auto... Path> CellColumn stored(CellColumn c) {
    c.sqlType = kSqlType<std::remove_cvref_t<decltype((std::declval<CellRow&>().*....*Path))>>;
    c.get = [](const CellRow& row, const CellExtras&) { return variantOf((row.*....*Path)); };
    c.set = [](CellRow& row, const QVariant& v) { assign((row.*....*Path), v); };
    return c;
}

// A derived column of the DDP prediction: the figure in microseconds shown in milliseconds.
template <double analysis::DdpPrediction::*Us>
QVariant predictionMs(const CellRow&, const CellExtras& e) {
    return e.prediction ? QVariant(e.prediction->*Us / 1000.0) : QVariant();
}

// Stored columns in the order of the `cells` table (its migrations in schema.cpp), then the
// derived ones; a stored column's SQL type is its member's (kSqlType). A new stored column: a line
// here with `since` the new schema version (schema.h), and the place that computes it in ingest
// (cellRowOf); the ALTER TABLE derives from the line.
const std::vector<CellColumn> kColumns = {
    stored<&CellRow::key>(
        {.name = "key",
         .identity = true,
         .inJson = false,
         .doc = "the cell folder's canonical path; the child tables' `cell_key`"}),
    stored<&CellRow::runDir>({.name = "run_dir",
                              .identity = true,
                              .inJson = false,
                              .doc = "the results folder's canonical path"}),
    stored<&CellRow::id>({.name = "id",
                          .identity = true,
                          .csvPosition = 0,
                          .view = "cell",
                          .doc = "the cell id, `<model>_<layer>_ws<N>_r<repeat>`"}),
    stored<&CellRow::status>({.name = "status",
                              .identity = true,
                              .csvPosition = 1,
                              .view = "status",
                              .doc = "`complete`, `incomplete`, `failed`, `stopped` (ended by Stop "
                                     "or SIGINT) or `skipped_infeasible`"}),
    stored<&CellRow::reasons>(
        {.name = "reasons",
         .identity = true,
         .csvPosition = 2,
         .view = "reasons / notes",
         .doc =
             "why the cell is not complete: a JSON array in SQL and JSON, joined by `; ` in CSV"}),
    stored<&CellRow::worldSize>(
        {.name = "world_size", .csvPosition = 7, .view = "ranks", .doc = "ranks of the cell"}),
    stored<&CellRow::layer>({.name = "layer",
                             .csvPosition = 5,
                             .view = "layer",
                             .doc = "measurement layer: `gloo_cpu`, `gloo_cuda` or `nccl`"}),
    stored<&CellRow::interconnect>({.name = "interconnect",
                                    .csvPosition = 6,
                                    .doc = "`host_loopback`, `pcie_host_staged` or `none`"}),
    stored<&CellRow::model>(
        {.name = "model", .csvPosition = 3, .view = "model", .doc = "model name"}),
    stored<&CellRow::family>({.name = "family", .inJson = false, .doc = "model family"}),
    stored<&CellRow::params>({.name = "params", .csvPosition = 4, .doc = "parameter count"}),
    stored<&CellRow::backend>({.name = "backend", .inJson = false, .doc = "`gloo` or `nccl`"}),
    stored<&CellRow::device>({.name = "device", .inJson = false, .doc = "`cpu` or `cuda`"}),
    stored<&CellRow::repeat>(
        {.name = "repeat", .inJson = false, .view = "repeat", .doc = "repeat index of the cell"}),
    stored<&CellRow::feasible>(
        {.name = "feasible",
         .inJson = false,
         .doc = "the plan's verdict, 0 or 1; null where cell.json has none"}),
    stored<&CellRow::binding>({.name = "binding",
                               .inJson = false,
                               .doc = "the pool closest to (or furthest past) its budget"}),
    stored<&CellRow::stepMs>({.name = "step_ms",
                              .csvPosition = 8,
                              .view = "step ms",
                              .doc = "median step over the recorded iterations of every rank"}),
    stored<&CellRow::hookCommMs>(
        {.name = "hook_comm_ms",
         .csvPosition = 9,
         .doc = "median per recorded iteration of the union of rank 0's bucket intervals"}),
    stored<&CellRow::traceCommMs>(
        {.name = "trace_comm_ms",
         .csvPosition = 10,
         .doc = "median communication per traced step of rank 0's trace"}),
    stored<&CellRow::hookTraceAgreement>({.name = "hook_trace_agreement",
                                          .csvPosition = 11,
                                          .view = "backend/hook",
                                          .doc = "`backend_total_ms` / `hook_total_ms`"}),
    stored<&CellRow::agreementFlagged>(
        {.name = "agreement_flagged",
         .csvPosition = 12,
         .doc = "the agreement is beyond ±10 %, or one instrument saw nothing"}),
    stored<&CellRow::overlapEfficiency>(
        {.name = "overlap_efficiency",
         .csvPosition = 13,
         .doc = "overlapped / all communication over rank 0's traced steps (trace-semantics.md)"}),
    stored<&CellRow::commOverheadFraction>(
        {.name = "comm_overhead_fraction",
         .csvPosition = 14,
         .view = "exposed comm",
         .doc = "exposed communication / step over rank 0's traced steps"}),
    stored<&CellRow::exposedCommMs>(
        {.name = "exposed_comm_ms",
         .csvPosition = 15,
         .doc = "median exposed communication per traced step of rank 0"}),
    stored<&CellRow::computeMs>(
        {.name = "compute_ms", .inJson = false, .doc = "median compute per traced step of rank 0"}),
    stored<&CellRow::bookkeepingMs>({.name = "bookkeeping_ms",
                                     .inJson = false,
                                     .doc = "median bookkeeping per traced step of rank 0"}),
    stored<&CellRow::peakHostBytes>({.name = "peak_host_bytes",
                                     .csvPosition = 16,
                                     .csvFormat = 'f',
                                     .csvPrecision = 0,
                                     .doc = "the largest VmHWM of the cell's ranks"}),
    stored<&CellRow::peakDeviceBytes>(
        {.name = "peak_device_bytes",
         .csvPosition = 17,
         .csvFormat = 'f',
         .csvPrecision = 0,
         .doc = "the largest peak reserved device memory of the cell's ranks (0 on CPU)"}),
    stored<&CellRow::hostDemandBytes>({.name = "host_demand_bytes",
                                       .csvPosition = 18,
                                       .csvPrecision = 12,
                                       .doc = "the plan's host demand (feasibility.md)"}),
    stored<&CellRow::deviceDemandBytes>(
        {.name = "device_demand_bytes",
         .csvPosition = 19,
         .csvPrecision = 12,
         .doc = "the plan's device demand; null without a device pool"}),
    stored<&CellRow::hookTotalMs>(
        {.name = "hook_total_ms",
         .since = 3,
         .doc = "the hook's bucket intervals, summed over every rank's compared steps"}),
    stored<&CellRow::backendTotalMs>({.name = "backend_total_ms",
                                      .since = 3,
                                      .doc = "the backend's own work, summed over the same steps"}),
    stored<&CellRow::agreementSteps>({.name = "agreement_steps",
                                      .since = 3,
                                      .inJson = false,
                                      .doc = "rank-steps the two instruments were compared over"}),
    stored<&CellRow::agreementReason>({.name = "agreement_reason",
                                       .since = 3,
                                       .doc = "why the agreement is flagged or not judged"}),
    stored<&CellRow::backendSource>({.name = "backend_source",
                                     .since = 3,
                                     .doc = "`gloo:* host spans` or `collective kernels`"}),
    stored<&CellRow::bucketsCompared>(
        {.name = "buckets_compared",
         .since = 3,
         .doc = "hook bucket intervals compared with the backend's spans"}),
    stored<&CellRow::bucketsMatched>({.name = "buckets_matched",
                                      .since = 3,
                                      .doc = "of those, the ones that contain a backend span"}),
    stored<&CellRow::slowestRank>({.name = "slowest_rank",
                                   .since = 3,
                                   .doc = "the last rank to arrive at most traced steps"}),
    stored<&CellRow::medianSkewMs>(
        {.name = "median_skew_ms",
         .since = 3,
         .doc = "median over traced steps of the longest rank's step minus the shortest"}),
    stored<&CellRow::kind>(
        {.name = "kind", .since = 4, .csvPosition = 20, .view = "kind", .doc = "`ddp` or `sweep`"}),
    stored<&CellRow::axes>(
        {.name = "axes",
         .since = 5,
         .doc = "every axis' value, as an object (`model`, `layer`, `world_size`, each DDP setting "
                "the matrix lists, `repeat`); the plots tell series apart by those that vary"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::backwardComputeMs>(
        {.name = "ddp_backward_compute_ms",
         .since = 6,
         .csvPosition = 24,
         .doc = "the Reducer's DDP logger: backward compute (prepare_for_backward to the last "
                "gradient ready), mean over every rank's sampled recorded iterations"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::backwardCommMs>(
        {.name = "ddp_backward_comm_ms",
         .since = 6,
         .csvPosition = 25,
         .doc = "the DDP logger: backward communication (first bucket launch to the last "
                "completion), the same mean"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::overlapMs>(
        {.name = "ddp_overlap_ms",
         .since = 6,
         .doc = "the DDP logger: backward compute overlapped by communication, the same mean"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::samples>(
        {.name = "ddp_samples",
         .since = 6,
         .doc = "rank-iterations the DDP logger sampled and the hook recorded"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::ratio>(
        {.name = "ddp_hook_ratio",
         .since = 6,
         .csvPosition = 26,
         .doc = "the DDP logger's backward communication over the hook's bucket extent, the same "
                "rank-iterations; empty when not judged"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::flagged>(
        {.name = "ddp_hook_flagged",
         .since = 6,
         .doc = "the DDP logger and the hook differ by more than 10 %"}),
    stored<&CellRow::ddpLogger, &analysis::DdpLoggerFigures::reason>(
        {.name = "ddp_hook_reason",
         .since = 6,
         .doc = "why the DDP logger against the hook is flagged or not judged"}),
    // Derived: computed where they are shown.
    {.name = "comm_ms",
     .view = "comm ms/step",
     .doc = "`trace_comm_ms` where there is a trace, else `hook_comm_ms`",
     .get =
         [](const CellRow& c, const CellExtras&) {
             return variantOf(c.traceCommMs ? c.traceCommMs : c.hookCommMs);
         }},
    {.name = "overlap_tax_ms",
     .csvPosition = 27,
     .doc = "backward compute (DDP logger) minus that of the cell's `hook: local` twin (same "
            "everything else): what overlapping communication costs the compute",
     .get = [](const CellRow& c, const CellExtras&) { return variantOf(c.overlapTaxMs); }},
    {.name = "overlap_tax_percent",
     .csvPosition = 28,
     .doc = "`overlap_tax_ms` over the twin's backward compute, in %",
     .get = [](const CellRow& c, const CellExtras&) { return variantOf(c.overlapTaxPercent); }},
    {.name = "overlap_twin",
     .doc = "the `hook: local` cell the overlap tax is measured against",
     .get =
         [](const CellRow& c, const CellExtras&) {
             return c.overlapTwin.isEmpty() ? QVariant() : QVariant(c.overlapTwin);
         }},
    {.name = "predicted_allreduce_ms",
     .inJson = false,
     .csvPosition = 21,
     .doc = "a DDP cell's all-reduce per step predicted from its sweep (measurement.md)",
     .get = predictionMs<&analysis::DdpPrediction::predictedUsPerStep>},
    {.name = "measured_allreduce_ms",
     .inJson = false,
     .csvPosition = 22,
     .doc = "the all-reduce per step measured, as the prediction defines it",
     .get = predictionMs<&analysis::DdpPrediction::measuredUsPerStep>},
    {.name = "prediction_off_by",
     .inJson = false,
     .csvPosition = 23,
     .doc = "predicted / measured - 1; empty without a sweep",
     .get =
         [](const CellRow&, const CellExtras& e) {
             return e.prediction ? QVariant(e.prediction->offBy()) : QVariant();
         }},
};

} // namespace

const std::vector<CellColumn>& cellColumns() {
    return kColumns;
}

const CellColumn& cellColumn(const char* name) {
    for (const CellColumn& c : kColumns) {
        if (qstrcmp(c.name, name) == 0) {
            return c;
        }
    }
    throw std::out_of_range(std::string("no cell column ") + name);
}

std::vector<const CellColumn*> csvColumns() {
    std::vector<const CellColumn*> out;
    for (const CellColumn& c : kColumns) {
        if (c.csv()) {
            out.resize(std::max(out.size(), std::size_t(c.csvPosition) + 1), nullptr);
            out[std::size_t(c.csvPosition)] = &c;
        }
    }
    return out;
}

} // namespace commprof::store
