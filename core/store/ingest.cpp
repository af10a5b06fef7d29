// SPDX-License-Identifier: GPL-3.0-or-later
#include "ingest.h"

#include "analysis/cell_metrics.h"
#include "matrix/knobs.h"
#include "results/cell_files.h"
#include "results/results_folder.h"
#include "store/cell_sql.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "store/sweep_rows.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <map>

namespace commprof::store {
namespace {

QVariant optInt(const std::optional<int>& v) {
    return v ? QVariant(*v) : QVariant();
}

// Every table that holds rows of one cell, besides `cells` itself.
constexpr const char* kPerCellTables[] = {
    "ranks",        "iterations",   "buckets",         "trace_steps",
    "estimates",    "rank_figures", "bucket_matches",  "step_spread",
    "sweep_points", "sweep_fits",   "ddp_predictions", "bucket_predictions"};

// The complete sweeps of a results folder: (layer, world size) -> the cell id and its all_reduce
// points, the first cell by id where repeats give several.
struct SweepSource {
    QString cellId;
    std::vector<analysis::SweepPoint> allReduce;
};
using SweepsByShape = std::map<std::pair<QString, int>, SweepSource>;

// What the sweep of the cell's layer and world size predicts of its buckets, or why nothing.
StoredPrediction predictFromSweep(const results::CellFiles& f, const analysis::CellMetrics& m,
                                  const SweepsByShape& sweeps, int hostCpus) {
    StoredPrediction p;
    const QString layer = f.cell["layer"].toString();
    const int world = f.cell["world_size"].toInt(int(m.ranks.size()));
    const auto it = sweeps.find({layer, world});
    if (it == sweeps.end() || it->second.allReduce.empty()) {
        p.note = QString("no complete all_reduce sweep of %1 at world size %2 in this run")
                     .arg(layer)
                     .arg(world);
        return p;
    }
    p.sweepCell = it->second.cellId;
    p.prediction =
        analysis::predictDdp(m.ranks, it->second.allReduce,
                             analysis::fitLinear(it->second.allReduce), hostCpus, &p.note);
    return p;
}

void deleteCell(Database& db, const QString& key) {
    for (const char* table : kPerCellTables) {
        db.prepare(QString("DELETE FROM %1 WHERE cell_key = ?").arg(table)).bind(key).run();
    }
    db.prepare("DELETE FROM cells WHERE key = ?").bind(key).run();
}

// Both instruments of every rank, the per-bucket match and the spread across ranks.
void insertRankFigures(Database& db, const QString& key, const analysis::CellMetrics& m) {
    Statement rankStmt = db.prepare("INSERT INTO rank_figures VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    Statement matchStmt = db.prepare("INSERT OR REPLACE INTO bucket_matches VALUES (?,?,?,?,?,?)");
    Statement stepStmt = db.prepare("INSERT INTO trace_steps VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (const analysis::RankFigures& r : m.ranks) {
        const analysis::InstrumentAgreement& a = r.agreement;
        const bool compared = a.steps > 0;
        rankStmt
            .bindAll({key, r.rank, nullable(r.stepMs), nullable(r.commMs),
                      nullable(r.exposedCommMs),
                      compared ? QVariant(a.hookUs / 1000.0) : QVariant(),
                      compared ? QVariant(a.backendUs / 1000.0) : QVariant(), nullable(a.ratio),
                      a.flagged, QString::fromStdString(a.reason), r.traceError})
            .run();
        for (const analysis::BucketMatch& b : a.buckets) {
            matchStmt.bindAll({key, r.rank, b.iteration, b.index, b.hookUs, nullable(b.backendUs)})
                .run();
        }
        for (const auto& s : r.traceSteps) {
            stepStmt
                .bindAll({key, r.rank, s.step, s.startUs, s.endUs, s.stepUs, s.computeUs, s.commUs,
                          s.bookkeepingUs, s.overlapUs, s.exposedCommUs,
                          nullable(s.overlapEfficiency), nullable(s.commOverheadFraction)})
                .run();
        }
    }
    Statement spreadStmt = db.prepare("INSERT INTO step_spread VALUES (?,?,?,?)");
    for (const analysis::StepSpread& s : m.spread) {
        spreadStmt.bindAll({key, s.step, s.skewMs, optInt(s.slowestRank)}).run();
    }
}

// The cell's row of `cells`: what cell.json planned, or rank 0 said where it did not, and the
// figures of its analysis.
CellRow cellRowOf(const QString& key, const QString& runDir, const results::CellFiles& f,
                  const results::Completeness& c, const analysis::CellMetrics& m) {
    const QJsonObject& cell = f.cell;
    const QJsonObject rank0 = f.ranks.value(0, f.ranks.isEmpty() ? QJsonObject{} : f.ranks.first());
    const QJsonObject model = rank0["model"].toObject();
    const QJsonObject pools = cell["pools"].toObject();
    CellRow r;
    r.key = key;
    r.runDir = runDir;
    r.id = f.id;
    r.kind = f.isSweep() ? "sweep" : "ddp";
    r.status = c.status;
    r.reasons = c.reasons;
    r.worldSize = c.worldSize;
    r.layer = cell["layer"].toString(rank0["layer"].toString());
    r.interconnect = cell["interconnect"].toString(rank0["interconnect"].toString());
    r.model = cell["model"].toString(model["name"].toString());
    r.family = cell["family"].toString(model["family"].toString());
    r.params = cell["params"].toDouble(model["params"].toDouble());
    r.backend = cell["backend"].toString(rank0["backend"].toString());
    r.device = cell["device"].toString(rank0["device"].toString());
    r.repeat = cell["repeat"].toInt();
    r.axes = cell["axes"].toObject().toVariantMap();
    if (r.axes.isEmpty()) { // a cell.json from before the axes were recorded
        r.axes = {{"model", r.model},
                  {"layer", r.layer},
                  {"world_size", QString::number(r.worldSize)},
                  {"repeat", QString::number(r.repeat)}};
    }
    // Every DDP setting, listed in the matrix or not, so that any of them can tell cells apart.
    if (!f.isSweep()) {
        const matrix::RunConfig config = matrix::knobsFromJson(cell["config"].toObject());
        for (const matrix::Knob& k : matrix::knobs()) {
            r.axes.insert(k.key, k.valueOf(config));
        }
    }
    if (cell.contains("feasible")) {
        r.feasible = cell["feasible"].toBool();
    }
    r.binding = cell["binding"].toString();
    r.stepMs = m.stepMs;
    r.hookCommMs = m.hookCommMs;
    r.traceCommMs = m.traceCommMs;
    r.hookTraceAgreement = m.hookTraceAgreement;
    r.agreementFlagged = m.agreementFlagged;
    r.overlapEfficiency = m.overlapEfficiency;
    r.commOverheadFraction = m.commOverheadFraction;
    r.exposedCommMs = m.exposedCommMs;
    r.computeMs = m.computeMs;
    r.bookkeepingMs = m.bookkeepingMs;
    r.peakHostBytes = m.peakHostBytes;
    r.peakDeviceBytes = m.peakDeviceBytes;
    r.hostDemandBytes = pools["host"].toObject()["demand_bytes"].toDouble();
    if (pools.contains("device")) {
        r.deviceDemandBytes = pools["device"].toObject()["demand_bytes"].toDouble();
    }
    r.hookTotalMs = m.hookTotalMs;
    r.backendTotalMs = m.backendTotalMs;
    r.agreementSteps = m.agreementSteps;
    r.agreementReason = m.agreementReason;
    r.backendSource = m.backendSource;
    r.ddpBackwardComputeMs = m.ddpLogger.backwardComputeMs;
    r.ddpBackwardCommMs = m.ddpLogger.backwardCommMs;
    r.ddpOverlapMs = m.ddpLogger.overlapMs;
    r.ddpSamples = m.ddpLogger.samples;
    r.ddpHookRatio = m.ddpLogger.ratio;
    r.ddpHookFlagged = m.ddpLogger.flagged;
    r.ddpHookReason = m.ddpLogger.reason;
    r.bucketsCompared = m.bucketsCompared;
    r.bucketsMatched = m.bucketsMatched;
    r.slowestRank = m.slowestRank;
    r.medianSkewMs = m.medianSkewMs;
    return r;
}

// Returns the cell's status.
QString insertCell(Database& db, const QString& runDir, const results::CellFiles& f,
                   const SweepsByShape& sweeps, int hostCpus) {
    results::Completeness c = results::judge(f);
    const bool hasData = !f.ranks.isEmpty();
    QStringList sweepProblems;
    const std::vector<analysis::SweepSeries> series =
        f.isSweep() ? analysis::mergeSweep(f.sweeps, &sweepProblems)
                    : std::vector<analysis::SweepSeries>{};
    if (!sweepProblems.isEmpty() && c.status == "complete") {
        c.status = "incomplete";
    }
    c.reasons << sweepProblems;
    const analysis::CellMetrics m = hasData ? analysis::analyzeCell(f) : analysis::CellMetrics{};
    // A trace that cannot be read is missing data, not a reason to quote the hook's figure.
    if (!m.traceError.isEmpty()) {
        c.reasons << "trace unreadable: " + m.traceError;
        if (c.status == "complete") {
            c.status = "incomplete";
        }
    }
    const QString key = QDir(f.dir).canonicalPath();
    const QJsonObject& cell = f.cell;

    Transaction t(db);
    deleteCell(db, key);
    insertCellRow(db, cellRowOf(key, runDir, f, c, m));
    Statement rankStmt = db.prepare("INSERT INTO ranks VALUES (?,?,?,?,?,?,?,?)");
    Statement iterStmt = db.prepare("INSERT INTO iterations VALUES (?,?,?,?,?,?,?)");
    Statement bucketStmt = db.prepare("INSERT INTO buckets VALUES (?,?,?,?,?,?,?,?)");
    for (auto it = f.ranks.begin(); it != f.ranks.end(); ++it) {
        const QJsonObject& r = it.value();
        rankStmt
            .bindAll({key, it.key(), r["torch_version"].toString(), r["param_checksum"].toDouble(),
                      r["grad_checksums_agree"].toBool(),
                      r["model"].toObject()["signature"].toString(),
                      r["peak_host_bytes"].toDouble(), r["peak_device_bytes"].toDouble()})
            .run();
        for (const QJsonValue v : r["iterations"].toArray()) {
            const QJsonObject i = v.toObject();
            iterStmt
                .bindAll({key, it.key(), i["iter"].toInt(), i["forward_ms"].toDouble(),
                          i["backward_ms"].toDouble(), i["optimizer_ms"].toDouble(),
                          i["step_ms"].toDouble()})
                .run();
        }
        for (const QJsonValue v : r["buckets"].toArray()) {
            const QJsonObject b = v.toObject();
            bucketStmt
                .bindAll({key, it.key(), b["iter"].toInt(), b["index"].toInt(),
                          b["bytes"].toInteger(), b["nparams"].toInteger(),
                          b["start_ns"].toInteger(), b["end_ns"].toInteger()})
                .run();
        }
    }
    insertRankFigures(db, key, m);
    if (f.isSweep()) {
        insertSweep(db, key, series);
    } else if (hasData && c.status == "complete") {
        insertPrediction(db, key, predictFromSweep(f, m, sweeps, hostCpus));
    }
    Statement estStmt = db.prepare("INSERT OR REPLACE INTO estimates VALUES (?,?,?,?)");
    for (const QJsonValue v : cell["terms"].toArray()) {
        const QJsonObject term = v.toObject();
        estStmt
            .bindAll(
                {key, term["pool"].toString(), term["name"].toString(), term["bytes"].toDouble()})
            .run();
    }
    t.commit();
    return c.status;
}

// A cell the store could not take as it is: recorded with the reason and no figures, so one
// bad cell never keeps the others out.
QString insertUnstorable(Database& db, const QString& runDir, const results::CellFiles& f,
                         const QString& reason) {
    const QString key = QDir(f.dir).canonicalPath();
    Transaction t(db);
    deleteCell(db, key);
    CellRow row;
    row.key = key;
    row.runDir = runDir;
    row.id = f.id;
    row.status = "incomplete";
    row.reasons = QStringList{"could not be stored: " + reason};
    insertCellRow(db, row, CellColumnsWritten::Identity);
    t.commit();
    return "incomplete";
}

} // namespace

QString defaultDbPath(const QString& resultsDir) {
    return QDir(resultsDir).filePath("results.sqlite");
}

IngestSummary ingest(const QString& resultsDir, const QString& dbPath,
                     const std::function<void(int, int, const QString&)>& progress) {
    const QDir cellsDir(QDir(resultsDir).filePath("cells"));
    if (!QDir(resultsDir).exists()) {
        throw StoreError((resultsDir + ": no such results directory").toStdString());
    }
    if (const QString link = results::linkInFolder(resultsDir); !link.isEmpty()) {
        throw StoreError(link.toStdString());
    }
    Database db(dbPath);
    migrate(db);
    const QString runDir = QDir(resultsDir).canonicalPath();
    // The cores the run's ranks shared, as the runner recorded them (run.json's cpu_cores).
    int hostCpus = 0;
    {
        const QJsonObject run = results::readRecord(QDir(resultsDir).filePath("run.json"));
        hostCpus = run["cpu_cores"].toInt();
        Transaction t(db);
        db.prepare("INSERT OR REPLACE INTO runs VALUES (?,?,?,?)")
            .bindAll({runDir, run["matrix"].toString(), run["started_at"].toString(),
                      QString::fromUtf8(QJsonDocument(run).toJson(QJsonDocument::Compact))})
            .run();
        t.commit();
    }
    IngestSummary s;
    const QStringList ids = cellsDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    // Sweeps first: the DDP cells of their layer and world size are predicted from them.
    std::vector<results::CellFiles> cells;
    for (const QString& id : ids) {
        cells.push_back(results::readCellDir(cellsDir.filePath(id)));
    }
    std::stable_partition(cells.begin(), cells.end(),
                          [](const results::CellFiles& f) { return f.isSweep(); });
    SweepsByShape sweeps;
    for (const results::CellFiles& files : cells) {
        QString status;
        try {
            status = insertCell(db, runDir, files, sweeps, hostCpus);
        } catch (const StoreError& e) {
            status = insertUnstorable(db, runDir, files, QString::fromStdString(e.what()));
        }
        if (files.isSweep() && status == "complete") {
            const std::pair<QString, int> shape{files.cell["layer"].toString(),
                                                files.cell["world_size"].toInt()};
            if (!sweeps.count(shape)) {
                if (auto points = analysis::allReducePoints(files.sweeps); !points.empty()) {
                    sweeps[shape] = {files.id, std::move(points)};
                }
            }
        }
        const QString& id = files.id;
        ++s.cells;
        s.complete += status == "complete";
        s.incomplete += status == "incomplete";
        s.failed += status == "failed";
        s.skippedInfeasible += status == "skipped_infeasible";
        if (progress) {
            progress(s.cells, int(ids.size()), id);
        }
    }
    return s;
}

} // namespace commprof::store
