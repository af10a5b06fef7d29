// SPDX-License-Identifier: GPL-3.0-or-later
#include "ingest.h"

#include "analysis/cell_metrics.h"
#include "analysis/sweep_pairing.h"
#include "matrix/knobs.h"
#include "results/cell_files.h"
#include "results/json_kind.h"
#include "results/results_folder.h"
#include "store/cell_fingerprint.h"
#include "store/cell_sql.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "store/sweep_rows.h"

#include <QDir>
#include <QSet>

#include <algorithm>
#include <map>
#include <optional>

namespace commprof::store {
namespace {

// Every table that holds rows of one cell, besides `cells` itself.
constexpr const char* kPerCellTables[] = {
    "ranks",           "iterations",         "buckets",      "trace_steps",  "estimates",
    "rank_figures",    "bucket_matches",     "step_spread",  "sweep_points", "sweep_fits",
    "ddp_predictions", "bucket_predictions", "cell_sources", "parameters",   "cell_records"};

using Shape = analysis::SweepShape;

QString shapeText(const Shape& s) {
    return s.first + '\t' + QString::number(s.second);
}

Shape shapeFrom(const QString& text) {
    const qsizetype tab = text.lastIndexOf('\t');
    return {text.left(tab), text.mid(tab + 1).toInt()};
}

// The complete sweeps of a results folder: (layer, world size) -> the first cell by id (where
// repeats give several) and its all_reduce points, read only when a cell is predicted from them.
struct SweepSource {
    QString cellId;
    QString dir;
    QString files; // its fingerprint
    std::optional<std::vector<analysis::SweepPoint>> allReduce;

    const std::vector<analysis::SweepPoint>& points() {
        if (!allReduce) {
            allReduce = analysis::allReducePoints(results::readCellDir(dir).sweeps);
        }
        return *allReduce;
    }
};
using SweepsByShape = analysis::SweepPairing<SweepSource>;

// What of other files a DDP cell's rows are made from: the sweep of its shape and the host's
// cores. A cell whose sweep changed is read again though its own files did not.
QString dependsOf(const Shape& shape, const SweepsByShape& sweeps, int hostCpus) {
    const SweepSource* sweep = sweeps.find(shape);
    return QString("sweep %1 %2 cpus %3")
        .arg(sweep ? sweep->cellId : QString("none"), sweep ? sweep->files : QString())
        .arg(hostCpus);
}

// What the sweep of the cell's layer and world size predicts of its buckets, or why nothing.
StoredPrediction predictFromSweep(const Shape& shape, const QString& hook,
                                  const analysis::CellMetrics& m, SweepsByShape& sweeps,
                                  int hostCpus) {
    StoredPrediction p;
    if (p.note = analysis::notPredictedForHook(hook); !p.note.isEmpty()) {
        return p;
    }
    SweepSource* sweep = sweeps.find(shape);
    if (!sweep || sweep->points().empty()) {
        p.note = QString("no complete all_reduce sweep of %1 at world size %2 in this run")
                     .arg(shape.first)
                     .arg(shape.second);
        return p;
    }
    const std::vector<analysis::SweepPoint>& points = sweep->points();
    p.sweepCell = sweep->cellId;
    p.prediction =
        analysis::predictDdp(m.ranks, points, analysis::fitLinear(points), hostCpus, &p.note);
    return p;
}

// A cell's row of cell_sources, written in the transaction that writes its other rows.
struct CellSource {
    QString files;
    Shape shape;
    bool sweepSource = false;
    QString depends;
};

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
        spreadStmt
            .bindAll({key, s.step, s.skewMs, s.slowestRank ? QVariant(*s.slowestRank) : QVariant()})
            .run();
    }
}

// The cell's row of `cells`: what cell.json planned, or rank 0 said where it did not, and the
// figures of its analysis.
CellRow cellRowOf(const QString& key, const QString& runDir, const results::CellFiles& f,
                  const results::Completeness& c, const analysis::CellMetrics& m) {
    const QJsonObject& cell = f.cell;
    const results::RankRecord rank0 =
        f.records.value(0, f.records.isEmpty() ? results::RankRecord{} : f.records.first());
    const auto said = [&cell](const char* key, const std::string& rankSays) {
        return cell[key].toString(QString::fromStdString(rankSays));
    };
    const QJsonObject pools = cell["pools"].toObject();
    CellRow r;
    r.key = key;
    r.runDir = runDir;
    r.id = f.id;
    r.kind = f.isSweep() ? "sweep" : "ddp";
    r.status = c.status;
    r.reasons = c.reasons;
    r.worldSize = c.worldSize;
    r.layer = said("layer", rank0.layer);
    r.interconnect = said("interconnect", rank0.interconnect);
    r.model = said("model", rank0.modelName);
    r.family = said("family", rank0.family);
    r.params = cell["params"].toDouble(rank0.params);
    r.backend = said("backend", rank0.backend);
    r.device = said("device", rank0.device);
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
    r.feasible =
        cell.contains("feasible") ? std::optional(cell["feasible"].toBool()) : std::nullopt;
    r.binding = cell["binding"].toString();
    static_cast<analysis::CellFigures&>(r) = m; // the figures as the analysis made them
    r.hostDemandBytes = pools["host"].toObject()["demand_bytes"].toDouble();
    r.deviceDemandBytes = pools.contains("device")
                              ? std::optional(pools["device"].toObject()["demand_bytes"].toDouble())
                              : std::nullopt;
    return r;
}

// cell.json as parsed (results::CellRecord), which `recommend` groups the cells by.
void insertCellRecord(Database& db, const QString& key, const results::CellRecord& c) {
    db.prepare("INSERT INTO cell_records VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
        .bindAll({key, c.id, c.kind, c.status, c.model, c.layer, c.worldSize, c.config.bucketCapMb,
                  c.config.firstBucketMb, c.config.hook, c.config.link,
                  results::compactJson(c.config.all)})
        .run();
}

// A rank's parameters in registration order: what the step model lays the buckets over.
void insertParameters(Database& db, const QString& key, int rank,
                      const std::vector<results::ParameterRecord>& params) {
    Statement stmt = db.prepare("INSERT INTO parameters VALUES (?,?,?,?,?,?)");
    for (std::size_t i = 0; i < params.size(); ++i) {
        stmt.bindAll({key, rank, qint64(i), QString::fromStdString(params[i].name),
                      results::compactJson(results::jsonArray(params[i].shape)), params[i].bytes})
            .run();
    }
}

// The cell's status and source. `files` is the cell's fingerprint, taken before it was read.
std::pair<QString, CellSource> insertCell(Database& db, const QString& runDir,
                                          const results::CellFiles& f, const QString& files,
                                          SweepsByShape& sweeps, int hostCpus) {
    const bool hasData = !f.records.isEmpty();
    const analysis::CellMetrics m = hasData ? analysis::analyzeCell(f) : analysis::CellMetrics{};
    std::vector<analysis::SweepSeries> series;
    const results::Completeness c = analysis::judgeRead(f, m.traceError, &series);
    const QString key = QDir(f.dir).canonicalPath();
    const QJsonObject& cell = f.cell;
    CellSource source;
    source.files = files;
    if (f.isSweep()) {
        source.shape = {results::networkOf(cell), cell["world_size"].toInt()};
        source.sweepSource = c.status == "complete" && !analysis::allReducePoints(f.sweeps).empty();
    } else {
        source.shape = {results::networkOf(cell), cell["world_size"].toInt(int(m.ranks.size()))};
        source.depends = dependsOf(source.shape, sweeps, hostCpus);
    }

    Transaction t(db);
    deleteCell(db, key);
    insertCellRow(db, cellRowOf(key, runDir, f, c, m));
    insertCellRecord(db, key, f.record);
    Statement rankStmt = db.prepare("INSERT INTO ranks VALUES (?,?,?,?,?,?,?,?,?,?)");
    Statement iterStmt = db.prepare("INSERT INTO iterations VALUES (?,?,?,?,?,?,?)");
    Statement bucketStmt = db.prepare("INSERT INTO buckets VALUES (?,?,?,?,?,?,?,?)");
    for (auto it = f.records.begin(); it != f.records.end(); ++it) {
        const results::RankRecord& r = it.value();
        rankStmt
            .bindAll({key, it.key(), QString::fromStdString(r.torchVersion), r.paramChecksum,
                      r.gradChecksumsAgree, QString::fromStdString(r.modelSignature),
                      r.peakHostBytes, r.peakDeviceBytes, r.recordFromIteration, r.powersgdRank})
            .run();
        insertParameters(db, key, it.key(), r.parameters);
        for (const results::IterationRecord& i : r.iterations) {
            iterStmt
                .bindAll(
                    {key, it.key(), i.iter, i.forwardMs, i.backwardMs, i.optimizerMs, i.stepMs})
                .run();
        }
        // Whole numbers in the file (the reader checks them), stored as integers.
        for (const results::BucketRecord& b : r.buckets) {
            bucketStmt
                .bindAll({key, it.key(), b.iter, b.index, qint64(b.bytes), qint64(b.nparams),
                          qint64(b.startNs), qint64(b.endNs)})
                .run();
        }
    }
    insertRankFigures(db, key, m);
    if (f.isSweep()) {
        insertSweep(db, key, series);
    } else if (hasData && c.status == "complete") {
        const QString hook = cell["config"].toObject()["hook"].toString("allreduce");
        insertPrediction(db, key, predictFromSweep(source.shape, hook, m, sweeps, hostCpus));
    }
    Statement estStmt = db.prepare("INSERT OR REPLACE INTO estimates VALUES (?,?,?,?)");
    for (const QJsonValue v : cell["terms"].toArray()) {
        const QJsonObject term = v.toObject();
        estStmt
            .bindAll(
                {key, term["pool"].toString(), term["name"].toString(), term["bytes"].toDouble()})
            .run();
    }
    db.prepare("INSERT INTO cell_sources VALUES (?,?,?,?,?,?)")
        .bindAll({key, runDir, source.files, shapeText(source.shape), source.sweepSource,
                  source.depends})
        .run();
    t.commit();
    return {c.status, source};
}

// A cell the store could not take as it is: recorded with the reason and no figures, so one
// bad cell never keeps the others out. It has no cell_sources row: it is read again each time.
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

// What the store holds of a cell of this folder, as its last ingest left it.
struct Stored {
    CellSource source;
    QString status;
    bool sweep = false;
};

std::map<QString, Stored> storedCells(Database& db, const QString& runDir) {
    std::map<QString, Stored> out;
    Statement s = db.prepare(
        "SELECT s.cell_key, s.files, s.shape, s.sweep_source, s.depends, c.status, c.kind "
        "FROM cell_sources s JOIN cells c ON c.key = s.cell_key WHERE s.run_dir = ?");
    s.bind(runDir);
    while (s.step()) {
        Stored& st = out[s.column(0).toString()];
        st.source = {s.column(1).toString(), shapeFrom(s.column(2).toString()),
                     s.column(3).toBool(), s.column(4).toString()};
        st.status = s.column(5).toString();
        st.sweep = s.column(6).toString() == "sweep";
    }
    return out;
}

// One folder under cells/, fingerprinted before anything of it is read.
struct Entry {
    QString id, dir, key, files;
    const Stored* stored = nullptr; // when its files are as the store last saw them
    std::optional<results::CellFiles> read;
    bool sweep() const { return read ? read->isSweep() : stored->sweep; }
};

// One ingest, or with `stale` the question whether ingesting would change anything (then it
// writes nothing and stops at the first change: *stale). Each phase returns false to stop there.
class IngestRun {
public:
    IngestRun(Database& db, const std::function<void(int, int, const QString&)>& progress,
              bool* stale)
        : db_(db), progress_(progress), stale_(stale) {}

    IngestSummary run(const QString& resultsDir) {
        requireResultsFolder(resultsDir);
        if (stale_ ? db_.userVersion() != kSchemaVersion : (migrate(db_), false)) {
            changed();
            return s_;
        }
        runDir_ = QDir(resultsDir).canonicalPath();
        if (!storeRun(resultsDir)) {
            return s_;
        }
        const std::map<QString, Stored> stored = storedCells(db_, runDir_);
        std::vector<Entry> entries;
        QSet<QString> keys;
        if (listCells(resultsDir, stored, &entries, &keys) && removeGone(keys)) {
            storeCells(entries);
        }
        return s_;
    }

private:
    // Something would change: true when that ends a check.
    bool changed() {
        if (stale_) {
            *stale_ = true;
        }
        return stale_ != nullptr;
    }

    // run.json's record, and the cores the run's ranks shared as the runner recorded them
    // (its cpu_cores).
    bool storeRun(const QString& resultsDir) {
        const QJsonObject run = results::readRecord(QDir(resultsDir).filePath("run.json"));
        hostCpus_ = run["cpu_cores"].toInt();
        const QString runJson = results::compactJson(run);
        Statement was = db_.prepare("SELECT run_json FROM runs WHERE dir = ?");
        was.bind(runDir_);
        if (!was.step() || was.column(0).toString() != runJson) {
            if (changed()) {
                return false;
            }
            was.reset();
            Transaction t(db_);
            db_.prepare("INSERT OR REPLACE INTO runs VALUES (?,?,?,?)")
                .bindAll({runDir_, run["matrix"].toString(), run["started_at"].toString(), runJson})
                .run();
            t.commit();
        }
        return true;
    }

    // Every cell folder, fingerprinted; read only where the store does not hold it as it is.
    bool listCells(const QString& resultsDir, const std::map<QString, Stored>& stored,
                   std::vector<Entry>* entries, QSet<QString>* keys) {
        const QDir cellsDir(QDir(resultsDir).filePath("cells"));
        for (const QString& id :
             cellsDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            Entry e;
            e.id = id;
            e.dir = cellsDir.filePath(id);
            e.key = QDir(e.dir).canonicalPath();
            e.files = cellFingerprint(e.dir);
            keys->insert(e.key);
            if (const auto it = stored.find(e.key);
                it != stored.end() && it->second.source.files == e.files) {
                e.stored = &it->second;
            } else if (changed()) {
                return false;
            } else {
                e.read = results::readCellDir(e.dir);
                ++s_.read;
            }
            entries->push_back(std::move(e));
        }
        return true;
    }

    bool removeGone(const QSet<QString>& keys) {
        QStringList gone;
        Statement all = db_.prepare("SELECT key FROM cells WHERE run_dir = ?");
        all.bind(runDir_);
        while (all.step()) {
            if (!keys.contains(all.column(0).toString())) {
                gone << all.column(0).toString();
            }
        }
        if (!gone.isEmpty() && changed()) {
            return false;
        }
        for (const QString& key : gone) {
            Transaction t(db_);
            deleteCell(db_, key);
            t.commit();
            ++s_.removed;
        }
        return true;
    }

    // Sweeps first: the DDP cells of their layer and world size are predicted from them.
    void storeCells(std::vector<Entry>& entries) {
        std::stable_partition(entries.begin(), entries.end(),
                              [](const Entry& e) { return e.sweep(); });
        SweepsByShape sweeps;
        for (Entry& e : entries) {
            if (e.stored && !e.sweep() &&
                dependsOf(e.stored->source.shape, sweeps, hostCpus_) != e.stored->source.depends) {
                if (changed()) {
                    return;
                }
                e.stored = nullptr; // its sweep changed: predicted again
                e.read = results::readCellDir(e.dir);
                ++s_.read;
            }
            const auto [status, source] = storeCell(e, sweeps);
            if (e.sweep()) {
                sweeps.offer(source.shape, status == "complete", source.sweepSource,
                             {e.id, e.dir, e.files,
                              e.read ? std::optional(analysis::allReducePoints(e.read->sweeps))
                                     : std::nullopt});
            }
            e.read.reset(); // a cell's files are kept only until it is stored
            count(status);
            if (progress_) {
                progress_(s_.cells, int(entries.size()), e.id);
            }
        }
    }

    // The cell's status and source: as stored, or as it is stored now.
    std::pair<QString, CellSource> storeCell(const Entry& e, SweepsByShape& sweeps) {
        if (e.stored) {
            return {e.stored->status, e.stored->source};
        }
        try {
            return insertCell(db_, runDir_, *e.read, e.files, sweeps, hostCpus_);
        } catch (const StoreError& err) {
            return {insertUnstorable(db_, runDir_, *e.read, QString::fromStdString(err.what())),
                    {}};
        }
    }

    void count(const QString& status) {
        ++s_.cells;
        s_.complete += status == "complete";
        s_.incomplete += status == "incomplete";
        s_.failed += status == "failed";
        s_.skippedInfeasible += status == "skipped_infeasible";
    }

    Database& db_;
    const std::function<void(int, int, const QString&)> progress_;
    bool* const stale_; // a check: nothing is written
    IngestSummary s_;
    QString runDir_;
    int hostCpus_ = 0;
};

} // namespace

void requireResultsFolder(const QString& resultsDir) {
    if (const results::FolderCheck check = results::checkResultsFolder(resultsDir); !check.ok) {
        throw StoreError(check.reason.toStdString());
    }
    if (const QString link = results::linkInFolder(resultsDir); !link.isEmpty()) {
        throw StoreError(link.toStdString());
    }
}

QString defaultDbPath(const QString& resultsDir) {
    return QDir(resultsDir).filePath("results.sqlite");
}

IngestSummary ingest(const QString& resultsDir, Database& db,
                     const std::function<void(int, int, const QString&)>& progress) {
    return IngestRun(db, progress, nullptr).run(resultsDir);
}

IngestSummary ingest(const QString& resultsDir, const QString& dbPath,
                     const std::function<void(int, int, const QString&)>& progress) {
    requireResultsFolder(resultsDir); // before the database is made
    Database db(dbPath);
    return ingest(resultsDir, db, progress);
}

bool isCurrent(const QString& resultsDir, Database& db) {
    bool stale = false;
    IngestRun(db, {}, &stale).run(resultsDir);
    return !stale;
}

} // namespace commprof::store
