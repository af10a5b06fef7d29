#include "matrix_runner.h"

#include "matrix/cell_json.h"
#include "runner/process_identity.h"

#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QThread>
#include <QTimer>

namespace commprof::runner {
namespace {

QJsonObject readJson(const QString& path, QString* error = nullptr) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) {
            *error = "cannot open";
        }
        return {};
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error) {
            *error = pe.errorString();
        }
        return {};
    }
    return doc.object();
}

} // namespace

const char* toString(CellState s) {
    switch (s) {
    case CellState::Pending:
        return "pending";
    case CellState::Running:
        return "running";
    case CellState::Complete:
        return "complete";
    case CellState::Failed:
        return "failed";
    case CellState::SkippedInfeasible:
        return "skipped_infeasible";
    case CellState::Skipped:
        return "skipped";
    }
    return "unknown";
}

bool writeJsonAtomically(const QString& path, const QJsonObject& doc) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return false;
    }
    f.write(QJsonDocument(doc).toJson(QJsonDocument::Indented));
    return f.commit();
}

QString verifyRankFiles(const QString& dir, int worldSize) {
    for (int r = 0; r < worldSize; ++r) {
        const QString path = QDir(dir).filePath(QString("rank%1.json").arg(r));
        QString error;
        const QJsonObject o = readJson(path, &error);
        if (o.isEmpty()) {
            return QString("rank%1.json %2")
                .arg(r)
                .arg(QFile::exists(path) ? "unparseable: " + error : QString("missing"));
        }
        if (o["world_size"].toInt() != worldSize || o["rank"].toInt() != r) {
            return QString("rank%1.json says rank %2 of %3, expected rank %1 of %4")
                .arg(r)
                .arg(o["rank"].toInt())
                .arg(o["world_size"].toInt())
                .arg(worldSize);
        }
    }
    return {};
}

MatrixRunner::MatrixRunner(feasibility::Plan plan, RunOptions options, QObject* parent)
    : QObject(parent), plan_(std::move(plan)), options_(std::move(options)) {
    qRegisterMetaType<commprof::runner::CellState>();
    qRegisterMetaType<commprof::runner::RunSummary>();
}

QString MatrixRunner::cellDir(const QString& id) const {
    return QDir(options_.outDir).filePath("cells/" + id);
}

void MatrixRunner::writeRunJson() {
    QFile yaml(plan_.matrix.file);
    const QString yamlText =
        yaml.open(QIODevice::ReadOnly) ? QString::fromUtf8(yaml.readAll()) : QString();
    QJsonObject doc = feasibility::toJson(plan_);
    doc.remove("cells");
    doc["matrix_yaml"] = yamlText;
    doc["started_at"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    doc["host"] = QSysInfo::machineHostName();
    doc["cpu_cores"] = QThread::idealThreadCount();
    writeJsonAtomically(QDir(options_.outDir).filePath("run.json"), doc);
}

void MatrixRunner::start() {
    QDir().mkpath(QDir(options_.outDir).filePath("cells"));
    // Ranks left by a launcher that was killed: end them before anything else starts.
    const int stale = endRecordedProcesses(QDir(options_.outDir).filePath(".pids"));
    if (stale > 0) {
        emit logLine({},
                     QString("ended %1 rank process(es) left by an earlier launcher").arg(stale));
    }
    writeRunJson();
    nextIndex_ = 0;
    QTimer::singleShot(0, this, &MatrixRunner::next);
}

void MatrixRunner::stop() {
    stopRequested_ = true;
    if (pool_) {
        pool_->stop();
    }
}

void MatrixRunner::next() {
    while (nextIndex_ < plan_.cells.size()) {
        if (stopRequested_ || pauseRequested_) {
            summary_.stopped = true;
            break;
        }
        const feasibility::PlannedCell& pc = plan_.cells[nextIndex_++];
        if (!options_.onlyCell.isEmpty() && pc.cell.id != options_.onlyCell) {
            continue;
        }
        const QString dir = cellDir(pc.cell.id);
        if (options_.resume && QFile::exists(QDir(dir).filePath("manifest.json"))) {
            ++summary_.resumed;
            emit cellStateChanged(pc.cell.id, CellState::Skipped, "complete in an earlier run");
            continue;
        }
        if (QDir(dir).exists()) {
            // Never mix new files with what an earlier, interrupted attempt left.
            const QString aside =
                QDir(options_.outDir)
                    .filePath(QString(".aside/%1.%2")
                                  .arg(pc.cell.id, QDateTime::currentDateTimeUtc().toString(
                                                       "yyyyMMddThhmmsszzz")));
            QDir().mkpath(QFileInfo(aside).path());
            QDir().rename(dir, aside);
            emit logLine(pc.cell.id, "moved an earlier attempt aside to " + aside);
        }
        QDir().mkpath(dir);
        QJsonObject cellDoc = matrix::cellJson(pc.cell, pc.estimate);
        if (!pc.estimate.feasible) {
            cellDoc["status"] = "skipped_infeasible";
            writeJsonAtomically(QDir(dir).filePath("cell.json"), cellDoc);
            ++summary_.skippedInfeasible;
            emit cellStateChanged(pc.cell.id, CellState::SkippedInfeasible, pc.estimate.reason);
            continue;
        }
        runCell(pc);
        return;
    }
    emit finished(summary_);
}

QStringList MatrixRunner::rankArgs(const feasibility::PlannedCell& pc, const QString& dir) const {
    const matrix::Cell& c = pc.cell;
    const int threads = std::max(1, QThread::idealThreadCount() / std::max(1, c.worldSize));
    QStringList a{"--cell-id",
                  c.id,
                  "--model",
                  c.model.name,
                  "--family",
                  c.model.family,
                  "--params",
                  QString::number(c.model.params, 'g', 12),
                  "--backend",
                  c.layer.backend,
                  "--device",
                  c.layer.device,
                  "--layer",
                  c.layer.name,
                  "--iterations",
                  QString::number(c.config.iterations),
                  "--warmup",
                  QString::number(c.config.warmup),
                  "--batch-size",
                  QString::number(c.config.batchSize),
                  "--bucket-cap-mb",
                  QString::number(c.config.bucketCapMb),
                  "--first-bucket-mb",
                  QString::number(c.config.firstBucketMb),
                  "--optimizer",
                  c.config.optimizer,
                  "--threads",
                  QString::number(threads),
                  "--seed",
                  QString::number(1234 + c.repeat),
                  "--out",
                  dir,
                  "--rendezvous-timeout-s",
                  QString::number(std::min(60.0, c.config.timeoutS)),
                  "--collective-timeout-s",
                  QString::number(std::min(60.0, c.config.timeoutS))};
    if (c.config.trace.enabled) {
        a << "--trace"
          << "--trace-steps" << QString::number(c.config.trace.steps);
        if (c.config.trace.firstStep >= 0) {
            a << "--trace-first-step" << QString::number(c.config.trace.firstStep);
        }
    }
    return a;
}

void MatrixRunner::runCell(const feasibility::PlannedCell& pc) {
    const QString dir = cellDir(pc.cell.id);
    QJsonObject cellDoc = matrix::cellJson(pc.cell, pc.estimate);
    cellDoc["status"] = "running";
    writeJsonAtomically(QDir(dir).filePath("cell.json"), cellDoc);

    PoolSpec spec;
    spec.program = options_.rankProgram;
    spec.args = rankArgs(pc, dir);
    spec.worldSize = pc.cell.worldSize;
    spec.workDir = dir;
    spec.pidDir = QDir(options_.outDir).filePath(".pids");
    spec.pidTag = pc.cell.id + "_";
    spec.graceMs = options_.graceMs;
    // One absolute deadline, computed once: port retries inside the pool never extend it.
    spec.deadline = QDeadlineTimer(qint64(pc.cell.config.timeoutS * 1000));

    pool_ = new RankPool(this);
    const QString id = pc.cell.id;
    connect(pool_, &RankPool::progress, this,
            [this, id](int rank, const QJsonObject& e) { emit rankProgress(id, rank, e); });
    connect(pool_, &RankPool::logLine, this,
            [this, id](const QString& line) { emit logLine(id, line); });
    const std::size_t index = nextIndex_ - 1;
    connect(pool_, &RankPool::finished, this,
            [this, index](const PoolOutcome& o) { onPoolFinished(plan_.cells[index], o); });
    cellStartMs_ = QDateTime::currentMSecsSinceEpoch();
    emit cellStateChanged(
        id, CellState::Running,
        QString("%1 rank(s), deadline %2 s").arg(pc.cell.worldSize).arg(pc.cell.config.timeoutS));
    pool_->start(spec);
}

void MatrixRunner::onPoolFinished(const feasibility::PlannedCell& pc, const PoolOutcome& outcome) {
    const QString dir = cellDir(pc.cell.id);
    const double wallS = double(QDateTime::currentMSecsSinceEpoch() - cellStartMs_) / 1000.0;
    QString log = QString("cell %1: %2 rank(s), port %3, %4 attempt(s), %5 s, %6\n")
                      .arg(pc.cell.id)
                      .arg(pc.cell.worldSize)
                      .arg(outcome.port)
                      .arg(outcome.attempts)
                      .arg(wallS, 0, 'f', 1)
                      .arg(outcome.success ? "all ranks exited 0" : "FAILED: " + outcome.reason);
    if (outcome.timedOut) {
        log += QString("deadline of %1 s passed\n").arg(pc.cell.config.timeoutS);
    }
    for (const RankExit& r : outcome.ranks) {
        log += QString("rank %1: %2\n")
                   .arg(r.rank)
                   .arg(r.crashed ? QString("killed by a signal")
                                  : QString("exit code %1").arg(r.exitCode));
        if (!r.stderrTail.isEmpty()) {
            log += "  stderr tail:\n    " + QString(r.stderrTail).replace("\n", "\n    ") + "\n";
        }
    }
    QString failure = outcome.success ? verifyRankFiles(dir, pc.cell.worldSize) : outcome.reason;
    if (outcome.success && !failure.isEmpty()) {
        log += "rank files: " + failure + "\n";
    }
    QFile lf(QDir(dir).filePath("launcher.log"));
    if (lf.open(QIODevice::WriteOnly | QIODevice::Append)) {
        lf.write(log.toUtf8());
    }
    QJsonObject cellDoc = matrix::cellJson(pc.cell, pc.estimate);
    if (failure.isEmpty()) {
        QJsonArray ranks;
        for (int r = 0; r < pc.cell.worldSize; ++r) {
            ranks.append(QString("rank%1.json").arg(r));
        }
        // Last, atomically, and only now: its presence is what "complete" means.
        writeJsonAtomically(QDir(dir).filePath("manifest.json"),
                            QJsonObject{{"cell_id", pc.cell.id},
                                        {"world_size", pc.cell.worldSize},
                                        {"rank_files", ranks},
                                        {"finished_at", QDateTime::currentDateTimeUtc().toString(
                                                            Qt::ISODateWithMs)},
                                        {"wall_s", wallS},
                                        {"port", outcome.port},
                                        {"attempts", outcome.attempts}});
        cellDoc["status"] = "complete";
        writeJsonAtomically(QDir(dir).filePath("cell.json"), cellDoc);
        ++summary_.complete;
        emit cellStateChanged(pc.cell.id, CellState::Complete,
                              QString("%1 s").arg(wallS, 0, 'f', 1));
    } else {
        cellDoc["status"] = "failed";
        cellDoc["failure"] = failure;
        cellDoc["stopped"] = outcome.stopped;
        writeJsonAtomically(QDir(dir).filePath("cell.json"), cellDoc);
        ++summary_.failed;
        emit cellStateChanged(pc.cell.id, CellState::Failed, failure);
    }
    pool_->deleteLater();
    pool_ = nullptr;
    QTimer::singleShot(0, this, &MatrixRunner::next);
}

RunSummary MatrixRunner::runBlocking() {
    QEventLoop loop;
    RunSummary result;
    connect(this, &MatrixRunner::finished, &loop, [&](const RunSummary& s) {
        result = s;
        loop.quit();
    });
    start();
    loop.exec();
    return result;
}

} // namespace commprof::runner
