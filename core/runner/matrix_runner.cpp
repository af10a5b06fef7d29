// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix_runner.h"

#include "feasibility/cell_json.h"
#include "files/safe_file.h"
#include "matrix/knobs.h"
#include "matrix/links.h"
#include "matrix/yaml_input.h"
#include "platform/slurm_cluster.h"
#include "platform/thread_limit.h"
#include "results/cell_files.h"
#include "results/rank_file.h"
#include "results/results_folder.h"
#include "runner/host_network.h"
#include "runner/process_identity.h"
#include "runner/rank_program.h"
#include "runner/rank_starts.h"
#include "runner/slurm_jobs.h"
#include "spec/rank_contract.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <functional>
#include <optional>

#include <sys/stat.h>

namespace commprof::runner {
namespace {

QString absoluteProgram(const QString& program) {
    if (program.contains('/')) {
        return QFileInfo(program).absoluteFilePath();
    }
    const QString found = QStandardPaths::findExecutable(program);
    return found.isEmpty() ? program : found;
}

// What the cells of a plan measure, as one digest: a folder continued with --resume must hold
// cells of the same matrix. The estimates (the host, a profile) and timeout_s (how long to
// wait, not what is measured) may differ between the runs.
QString cellsDigest(const feasibility::Plan& plan) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const feasibility::PlannedCell& pc : plan.cells) {
        QJsonObject cell = matrix::cellJson(pc.cell, feasibility::FootprintEstimate{});
        QJsonObject config = cell["config"].toObject();
        config.remove("timeout_s");
        cell["config"] = config;
        hash.addData(QJsonDocument(cell).toJson(QJsonDocument::Compact));
        hash.addData(QByteArrayView("\n"));
    }
    return QString::fromLatin1(hash.result().toHex());
}

constexpr const char* kCellsDigest = "cells_sha256";

// The folder as the run found it (device and inode): one deleted or replaced mid-run is not
// made again, which would hide that everything in it was lost.
std::pair<quint64, quint64> folderId(const QString& dir) {
    struct stat st {};
    if (::stat(QFile::encodeName(dir).constData(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return {};
    }
    return {quint64(st.st_dev), quint64(st.st_ino)};
}

// A manifest counts only as a regular file, never as a link to one.
bool hasManifest(const QString& cellDir) {
    const QFileInfo f(QDir(cellDir).filePath(spec::files::kManifest));
    return f.isFile() && !f.isSymLink();
}

// Empty when `outDir` records no run, or a run of `plan`'s cells; else why --resume refuses it.
QString otherMatrixIn(const QString& outDir, const feasibility::Plan& plan) {
    const QString path = QDir(outDir).filePath(spec::files::kRunRecord);
    if (!QFileInfo::exists(path) && !files::isLink(path)) {
        return {}; // nothing recorded yet: a new folder, or one an early refusal left
    }
    QString problem;
    const QJsonObject run = results::readRecord(path, &problem);
    if (!problem.isEmpty()) {
        return QString("%1: %2; --resume continues only a run this folder recorded")
            .arg(outDir, problem);
    }
    const QString recorded = run[kCellsDigest].toString();
    if (!recorded.isEmpty() && recorded != cellsDigest(plan)) {
        return QString("%1: %2 records a run of another matrix (field %3 differs: its cells are "
                       "not the cells of %4); resume with the matrix it was made from (its copy "
                       "is run.json's matrix_yaml) or run into another --out")
            .arg(outDir, spec::files::kRunRecord, kCellsDigest,
                 plan.matrix.file.isEmpty() ? QString("this matrix") : plan.matrix.file);
    }
    return {};
}

QString rankFileName(bool sweep, int rank) {
    return QString::fromStdString(
        (sweep ? spec::files::kSweep : spec::files::kRankResult).of(rank));
}

// The rank files of a finished cell, checked before a manifest is written. Empty on success.
QString verifyRankFiles(const QString& dir, int worldSize, bool sweep) {
    for (int r = 0; r < worldSize; ++r) {
        const QString path = QDir(dir).filePath(rankFileName(sweep, r));
        if (!QFileInfo::exists(path) && !files::isLink(path)) {
            return QString::fromStdString(spec::files::kRankResult.of(r)) + " missing";
        }
        const results::RankFile f = results::readRankFile(path);
        if (!f.ok()) {
            return f.problem;
        }
        if (f.worldSize() != worldSize || f.rank() != r) {
            return QString("%1 says rank %2 of %3, expected rank %4 of %5")
                .arg(rankFileName(sweep, r))
                .arg(f.rank())
                .arg(f.worldSize())
                .arg(r)
                .arg(worldSize);
        }
    }
    return {};
}

QString writeCellRecord(const QString& dir, const QJsonObject& doc) {
    return writeJsonAtomically(QDir(dir).filePath(spec::files::kCellRecord), doc);
}

// The cell's launcher.log lines: how its ranks ended, each rank's exit and stderr's tail.
QString launcherLogOf(const feasibility::PlannedCell& pc, const PoolOutcome& outcome,
                      const std::optional<RankStarts>& starts, double wallS) {
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
    if (starts) {
        log += starts->logLine();
    }
    log += outcome.launcherLog;
    for (const RankExit& r : outcome.ranks) {
        log += QString("rank %1: %2\n")
                   .arg(r.rank)
                   .arg(r.crashed ? QString("killed by a signal")
                                  : QString("exit code %1").arg(r.exitCode));
        if (!r.stderrTail.isEmpty()) {
            log += "  stderr tail:\n    " + QString(r.stderrTail).replace("\n", "\n    ") + "\n";
        }
    }
    return log;
}

// The manifest, then the cell record with status complete: what a complete cell has. Empty, or
// the write that failed (then no manifest is left).
QString writeCompleteCell(const QString& dir, const feasibility::PlannedCell& pc,
                          const PoolOutcome& outcome, double wallS, QJsonObject& cellDoc) {
    const QString manifest = QDir(dir).filePath(spec::files::kManifest);
    QJsonArray ranks;
    for (int r = 0; r < pc.cell.worldSize; ++r) {
        ranks.append(rankFileName(pc.cell.isSweep(), r));
    }
    // Last, atomically, and only now: its presence is what "complete" means.
    QString e = writeJsonAtomically(
        manifest,
        QJsonObject{{"cell_id", pc.cell.id},
                    {"world_size", pc.cell.worldSize},
                    {"rank_files", ranks},
                    {"finished_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                    {"wall_s", wallS},
                    {"port", outcome.port},
                    {"attempts", outcome.attempts},
                    {"launcher", outcome.launcher}});
    if (e.isEmpty()) {
        cellDoc["status"] = "complete";
        e = writeCellRecord(dir, cellDoc);
        if (!e.isEmpty()) {
            QFile::remove(manifest); // a cell whose record failed is not complete
        }
    }
    return e;
}

} // namespace

QString folderRefusal(const QString& outDir, const feasibility::Plan* plan) {
    const QString dir = QDir::cleanPath(QDir(outDir).absolutePath());
    if (QString e = results::foreignFolder(dir); !e.isEmpty()) {
        return e;
    }
    if (!QFileInfo(dir).isDir()) {
        return {}; // a new folder: the run makes it
    }
    if (QString e = results::linkInFolder(dir); !e.isEmpty()) {
        return e;
    }
    return plan ? otherMatrixIn(dir, *plan) : QString();
}

const char* toString(CellState s) {
    // In the enum's order.
    static constexpr const char* kNames[] = {
        "pending", "running", "complete", "failed", "stopped", "skipped_infeasible", "skipped"};
    return std::size_t(s) < std::size(kNames) ? kNames[std::size_t(s)] : "unknown";
}

QString writeJsonAtomically(const QString& path, const QJsonObject& doc) {
    return files::writeAtomically(path, QJsonDocument(doc).toJson(QJsonDocument::Indented));
}

MatrixRunner::MatrixRunner(feasibility::Plan plan, RunOptions options, QObject* parent)
    : QObject(parent), plan_(std::move(plan)), options_(std::move(options)) {
    qRegisterMetaType<commprof::runner::CellState>();
    qRegisterMetaType<commprof::runner::RunSummary>();
    // The ranks run in their cell's folder: a relative path would mean something else there.
    if (!options_.outDir.isEmpty()) {
        options_.outDir = QDir::cleanPath(QDir(options_.outDir).absolutePath());
    }
    options_.rankProgram = absoluteProgram(options_.rankProgram);
}

QString MatrixRunner::cellDir(const QString& id) const {
    return QDir(options_.outDir).filePath("cells/" + id);
}

QString MatrixRunner::writeRunJson() {
    QString yamlText;
    try {
        yamlText = QString::fromUtf8(matrix::readYamlFile(plan_.matrix.file));
    } catch (const matrix::MatrixError&) {
        // A plan made from the designer's text has no file; run.json still records the plan.
    }
    QJsonObject doc = feasibility::toJson(plan_);
    doc.remove("cells");
    doc["matrix_yaml"] = yamlText;
    doc["run_id"] = runId_;
    doc[kCellsDigest] = cellsDigest(plan_);
    doc["started_at"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    doc["host"] = QSysInfo::machineHostName();
    doc["cpu_cores"] = QThread::idealThreadCount();
    return writeJsonAtomically(QDir(options_.outDir).filePath(spec::files::kRunRecord), doc);
}

// Everything that must hold before the first cell; the reason the run cannot start otherwise.
QString MatrixRunner::prepare() {
    const QFileInfo program(options_.rankProgram);
    if (!program.isFile() || !program.isExecutable()) {
        return QString("commprof-rank not found or not executable at '%1' (COMMPROF_RANK names "
                       "it; by default it is beside commprof, else on PATH)")
            .arg(options_.rankProgram);
    }
    if (options_.outDir.isEmpty()) {
        return "no results folder given";
    }
    // Each TorchScript module against its description, before anything is written: every cell
    // of a module whose description disagrees would fail the same way.
    for (const matrix::ModelSpec& model : plan_.matrix.models) {
        if (model.torchscript) {
            if (QString e = checkModule(options_.rankProgram, *model.torchscript); !e.isEmpty()) {
                return e;
            }
        }
    }
    if (plan_.matrix.launcher.kind == matrix::LauncherKind::Slurm) {
        const QStringList missing =
            platform::findSlurmTools(QProcessEnvironment::systemEnvironment()).missing();
        if (!missing.isEmpty()) {
            return QString("the slurm launcher needs Slurm's client commands on PATH; not found: "
                           "%1")
                .arg(missing.join(", "));
        }
    }
    const QDir out(options_.outDir);
    const std::function<QString()> steps[] = {
        [&] { return results::foreignFolder(options_.outDir); },
        [&] { return files::makeDirs(options_.outDir); },
        [&] { return results::linkInFolder(options_.outDir); },
        // Before anything is ended, moved or written: another run may own this folder.
        [&] { return lock_.acquire(options_.outDir); },
        [&] { return options_.resume ? otherMatrixIn(options_.outDir, plan_) : QString(); },
        [&] { return files::makeDirs(out.filePath("cells"), options_.outDir); },
    };
    for (const auto& step : steps) {
        if (QString e = step(); !e.isEmpty()) {
            return e;
        }
    }
    // Ranks, jobs and steps left by a launcher that was killed: end them before anything
    // else starts.
    if (const int stale = endRecordedProcesses(pidDirOf(options_.outDir)); stale > 0) {
        emit logLine({},
                     QString("ended %1 rank process(es) left by an earlier launcher").arg(stale));
    }
    removeLeftoverHosts([this](const QString& line) { emit logLine({}, line); });
    if (QFileInfo::exists(jobDirOf(options_.outDir))) {
        const int jobs =
            endRecordedJobs(jobDirOf(options_.outDir), QProcessEnvironment::systemEnvironment());
        if (jobs > 0) {
            emit logLine({}, QString("cancelled %1 Slurm job(s) or step(s) left by an earlier "
                                     "launcher")
                                 .arg(jobs));
        }
    }
    outId_ = folderId(options_.outDir);
    return writeRunJson();
}

// Empty while the results folder is the one the run started in; otherwise why the run ends.
QString MatrixRunner::folderLost() const {
    if (folderId(options_.outDir) == outId_) {
        return {};
    }
    return QString("the results folder %1 was deleted or replaced during the run; the run "
                   "stops rather than make it again")
        .arg(options_.outDir);
}

void MatrixRunner::start() {
    runId_ = randomToken();
    summary_ = RunSummary{};
    const QString refusal = prepare();
    if (!refusal.isEmpty()) {
        summary_.refused = refusal;
        emit logLine({}, "run refused: " + refusal);
        // Never from inside start(): callers connect to finished() and then wait for it.
        QTimer::singleShot(0, this, &MatrixRunner::finish);
        return;
    }
    nextIndex_ = 0;
    QTimer::singleShot(0, this, &MatrixRunner::next);
}

void MatrixRunner::finish() {
    forkServer_.reset(); // every cell has ended: its ranks are gone
    lock_.release();
    emit finished(summary_);
}

void MatrixRunner::stop() {
    stopRequested_ = true;
    if (launcher_) {
        launcher_->stop();
    }
}

void MatrixRunner::endCell(const feasibility::PlannedCell& pc, CellState ending,
                           const QString& failure, const QStringList& writeFailures) {
    Q_ASSERT(ending == CellState::Failed || ending == CellState::Stopped);
    for (const QString& w : writeFailures) {
        summary_.writeFailures << pc.cell.id + ": " + w;
        emit logLine(pc.cell.id, "write failed: " + w);
    }
    if (ending == CellState::Stopped) {
        ++summary_.stoppedCells;
        summary_.stopped = true; // the run ended early even when this was its last cell
    } else {
        ++summary_.failed;
    }
    emit cellStateChanged(pc.cell.id, ending, failure);
}

void MatrixRunner::next() {
    const QDir out(options_.outDir);
    while (nextIndex_ < plan_.cells.size()) {
        if (stopRequested_ || pauseRequested_) {
            summary_.stopped = true;
            break;
        }
        const feasibility::PlannedCell& pc = plan_.cells[nextIndex_++];
        if (!options_.onlyCell.isEmpty() && pc.cell.id != options_.onlyCell) {
            continue;
        }
        if (const QString lost = folderLost(); !lost.isEmpty()) {
            summary_.lost = lost;
            emit logLine({}, lost);
            break;
        }
        const QString dir = cellDir(pc.cell.id);
        if (files::isLink(dir)) {
            const QString e = files::linkRefused(dir);
            endCell(pc, CellState::Failed, e, {e});
            continue;
        }
        if (options_.resume && hasManifest(dir)) {
            ++summary_.resumed;
            emit cellStateChanged(pc.cell.id, CellState::Skipped, "complete in an earlier run");
            continue;
        }
        QString e;
        if (QFileInfo::exists(dir)) {
            // Never mix new files with what an earlier, interrupted attempt left.
            const QString aside = out.filePath(
                QString(".aside/%1.%2")
                    .arg(pc.cell.id,
                         QDateTime::currentDateTimeUtc().toString("yyyyMMddThhmmsszzz")));
            e = files::makeDirs(out.filePath(".aside"), options_.outDir);
            if (e.isEmpty() && !QDir().rename(dir, aside)) {
                e = QString("cannot move %1 aside to %2").arg(dir, aside);
            }
            if (e.isEmpty()) {
                emit logLine(pc.cell.id, "moved an earlier attempt aside to " + aside);
            }
        }
        QJsonObject cellDoc = matrix::cellJson(pc.cell, pc.estimate);
        cellDoc["status"] = pc.estimate.feasible ? "running" : "skipped_infeasible";
        e = e.isEmpty() ? files::makeDirs(dir, options_.outDir) : e;
        // No rank runs where its cell cannot be recorded.
        e = e.isEmpty() ? writeCellRecord(dir, cellDoc) : e;
        if (!e.isEmpty()) {
            endCell(pc, CellState::Failed, e, {e});
            continue;
        }
        if (!pc.estimate.feasible) {
            ++summary_.skippedInfeasible;
            emit cellStateChanged(pc.cell.id, CellState::SkippedInfeasible, pc.estimate.reason);
            continue;
        }
        runCell(pc);
        return;
    }
    finish();
}

int MatrixRunner::rankThreads(const feasibility::PlannedCell& pc) const {
    const matrix::Cell& c = pc.cell;
    // The cores of the node the busiest share of the ranks runs on.
    const bool slurm = plan_.matrix.launcher.kind == matrix::LauncherKind::Slurm;
    const int ranksHere = pc.nodes.empty() ? c.worldSize : pc.nodes.front().ranks;
    const int cores = slurm ? plan_.budget.cpusPerNode : QThread::idealThreadCount();
    // A sweep has one intra-op thread: the collectives' own threads are what it measures.
    return c.isSweep() ? 1 : std::max(1, cores / std::max(1, ranksHere));
}

QStringList MatrixRunner::rankArgs(const feasibility::PlannedCell& pc, const QString& dir) const {
    const matrix::Cell& c = pc.cell;
    const int threads = rankThreads(pc);
    const QString timeout = QString::number(std::min(60.0, c.config.timeoutS));
    QStringList a;
    a << "--cell-id" << c.id << "--backend" << c.layer.backend << "--device" << c.layer.device
      << "--layer" << c.layer.name << "--threads" << QString::number(threads) << "--out" << dir
      << "--rendezvous-timeout-s" << timeout << "--collective-timeout-s" << timeout;
    if (c.isSweep()) {
        return a << "--sweep" << c.model.sweep.collectives.join(',') << "--sweep-max-bytes"
                 << QString::number(c.sweepMaxBytes, 'f', 0) << "--sweep-iters"
                 << QString::number(c.model.sweep.iterations) << "--sweep-warmup"
                 << QString::number(c.model.sweep.warmup);
    }
    a << "--model" << c.model.name;
    if (c.model.torchscript) {
        a << matrix::rankArguments(*c.model.torchscript);
    } else {
        a << "--family" << c.model.family << "--params" << QString::number(c.model.params, 'g', 12);
    }
    a << "--iterations" << QString::number(c.config.iterations) << "--warmup"
      << QString::number(c.config.warmup) << matrix::knobArguments(c.config) << "--optimizer"
      << c.config.optimizer << "--seed" << QString::number(1234 + c.repeat);
    if (c.config.trace.enabled) {
        a << "--trace"
          << "--trace-steps" << QString::number(c.config.trace.steps);
        if (c.config.trace.firstStep >= 0) {
            a << "--trace-first-step" << QString::number(c.config.trace.firstStep);
        }
    }
    return a;
}

// Local ranks that would meet RLIMIT_NPROC can wait in their thread pool until the deadline
// instead of failing, so the cell fails now, with the reason. Besides its intra-op pool a rank
// runs three threads of its own (/proc/PID/task), rank 0 one more (its store).
QString MatrixRunner::threadShortfall(const feasibility::PlannedCell& pc) const {
    if (plan_.matrix.launcher.kind != matrix::LauncherKind::Local) {
        return {}; // the ranks run on other nodes, under their limits
    }
    constexpr quint64 kThreadsBesidesThePool = 3;
    const quint64 need =
        quint64(pc.cell.worldSize) * (quint64(rankThreads(pc)) + kThreadsBesidesThePool) + 1;
    return platform::threadShortfall(platform::readThreadLimit(), need);
}

// Once per run, before its first local cell: the server's start-up is the one libtorch start-up
// the run pays; the first cell's deadline counts from after it, as it would from an exec'd
// rank's. The server has the ranks' environment and run id, so a forked rank's
// /proc/PID/environ holds the run id its pid record is checked against.
void MatrixRunner::startForkServer(const QString& cellId) {
    if (forkServer_) {
        return;
    }
    forkServer_ = std::make_unique<ForkServer>();
    QProcessEnvironment env = CellLaunch{}.env;
    env.insert("COMMPROF_RUN_ID", runId_);
    if (forkServer_->start(options_.rankProgram, env)) {
        emit logLine(cellId,
                     QString("ranks forked from a fork server (pid %1)").arg(forkServer_->pid()));
        connect(forkServer_.get(), &ForkServer::lost, this, &MatrixRunner::onForkServerLost);
    } else {
        emit logLine(cellId, "ranks started by exec: " + forkServer_->reason());
    }
}

// Said in the run's log at once; a cell whose ranks were forked from it fails naming it (its
// ranks went with the server), and every later cell's ranks are exec'd.
void MatrixRunner::onForkServerLost(const QString& why) {
    emit logLine({}, why + "; ranks are started by exec from now on");
    if (!runningCell_.isEmpty() && execReason_.isEmpty()) {
        forkLost_ = why;
        emit logLine(runningCell_, why);
    }
}

void MatrixRunner::runCell(const feasibility::PlannedCell& pc) {
    const QString dir = cellDir(pc.cell.id);
    CellLaunch launch;
    launch.cellId = pc.cell.id;
    launch.program = options_.rankProgram;
    launch.args = rankArgs(pc, dir);
    launch.worldSize = pc.cell.worldSize;
    launch.workDir = dir;
    launch.resultsDir = options_.outDir;
    launch.runId = runId_;
    launch.graceMs = options_.graceMs;
    launch.launcher = plan_.matrix.launcher;
    launch.link = pc.cell.config.link;
    launch.ranksPerHost = pc.cell.config.ranksPerHost;

    const std::size_t index = nextIndex_ - 1;
    cellClock_.start();
    if (const QString shortfall = threadShortfall(pc); !shortfall.isEmpty()) {
        const PoolOutcome o = notStarted(pc.cell.worldSize, shortfall + "; no rank was started");
        emit logLine(pc.cell.id, o.reason);
        QTimer::singleShot(0, this, [this, index, o] { onPoolFinished(plan_.cells[index], o); });
        return;
    }
    if (plan_.matrix.launcher.kind == matrix::LauncherKind::Local) {
        startForkServer(pc.cell.id);
        forkServer_->answers(); // a server killed or stopped since the last cell is named now
        // A rank over an emulated link enters its host's network namespace as the pool starts
        // it; a fork of the server, made outside, would not be in it.
        execReason_ = !forkServer_->serving() ? forkServer_->reason()
                      : launch.link != matrix::kLoopback
                          ? QString("over an emulated link the pool places each rank in its host")
                          : QString();
        if (execReason_.isEmpty()) {
            launch.args = forkServer_->arguments(launch.program, launch.args);
            launch.program = forkServer_->program();
        }
    }
    // One absolute deadline, computed once: retries (and a Slurm queue) never extend it.
    launch.deadline = QDeadlineTimer(qint64(pc.cell.config.timeoutS * 1000));
    cellClock_.start();
    forkLost_.clear();
    runningCell_ = pc.cell.id;
    launcher_ = makeLauncher(plan_.matrix.launcher.kind, this);
    const QString id = pc.cell.id;
    connect(launcher_, &CellLauncher::progress, this,
            [this, id](int rank, const QJsonObject& e) { emit rankProgress(id, rank, e); });
    connect(launcher_, &CellLauncher::logLine, this,
            [this, id](const QString& line) { emit logLine(id, line); });
    connect(launcher_, &CellLauncher::stateChanged, this,
            [this, id](const QJsonObject& state) { emit launcherState(id, state); });
    connect(launcher_, &CellLauncher::finished, this,
            [this, index](const PoolOutcome& o) { onPoolFinished(plan_.cells[index], o); });
    emit cellStateChanged(id, CellState::Running,
                          QString("%1 rank(s), %2, deadline %3 s")
                              .arg(pc.cell.worldSize)
                              .arg(matrix::toString(plan_.matrix.launcher.kind))
                              .arg(pc.cell.config.timeoutS));
    launcher_->start(launch);
}

void MatrixRunner::onPoolFinished(const feasibility::PlannedCell& pc, PoolOutcome outcome) {
    const QString dir = cellDir(pc.cell.id);
    if (!outcome.success && forkServer_ && forkServer_->serving() && execReason_.isEmpty() &&
        !runningCell_.isEmpty()) {
        forkServer_
            ->answers(); // a server gone with the cell's forked ranks is named in its failure
    }
    runningCell_.clear();
    if (launcher_) { // its cell has ended
        launcher_->deleteLater();
        launcher_ = nullptr;
    }
    std::optional<RankStarts> starts;
    if (forkServer_ && !outcome.launcher.isEmpty() &&
        plan_.matrix.launcher.kind == matrix::LauncherKind::Local) {
        // How this cell's ranks were really started, in its records: forked, or by exec and why.
        starts = rankStarts(execReason_, outcome.ranks, forkServer_->pid());
        starts->addTo(outcome.launcher);
    }
    if (!outcome.success && !forkLost_.isEmpty()) {
        outcome.reason = QString("%1; the ranks it had forked ended with it (%2)")
                             .arg(forkLost_, outcome.reason);
    }
    const double wallS = double(cellClock_.elapsed()) / 1000.0;
    QString log = launcherLogOf(pc, outcome, starts, wallS);
    QString failure = outcome.success ? verifyRankFiles(dir, pc.cell.worldSize, pc.cell.isSweep())
                                      : outcome.reason;
    if (outcome.success && !failure.isEmpty()) {
        log += "rank files: " + failure + "\n";
    }
    if (const QString lost = folderLost(); !lost.isEmpty()) {
        // Nothing is written: every write would make the deleted folders again.
        summary_.lost = lost;
        ++summary_.failed;
        emit cellStateChanged(pc.cell.id, CellState::Failed, lost);
        QTimer::singleShot(0, this, &MatrixRunner::finish);
        return;
    }
    // Every write is checked; one that fails (a full disk) leaves the cell incomplete, and the
    // reason, which may not fit on the disk, is kept for the summary.
    QStringList writeFailures;
    if (const QString e =
            files::appendTo(QDir(dir).filePath(spec::files::kLauncherLog), log.toUtf8());
        !e.isEmpty()) {
        writeFailures << e;
    }
    QJsonObject cellDoc = matrix::cellJson(pc.cell, pc.estimate);
    cellDoc["launcher"] = outcome.launcher;
    if (failure.isEmpty() && writeFailures.isEmpty()) {
        if (const QString e = writeCompleteCell(dir, pc, outcome, wallS, cellDoc); !e.isEmpty()) {
            writeFailures << e;
        }
    }
    if (failure.isEmpty() && writeFailures.isEmpty()) {
        ++summary_.complete;
        emit cellStateChanged(pc.cell.id, CellState::Complete,
                              QString("%1 s").arg(wallS, 0, 'f', 1));
    } else {
        if (failure.isEmpty()) {
            failure = "could not write the cell's records: " + writeFailures.join("; ");
        }
        // A cell ended on request is recorded as stopped, the word the results use for it;
        // "stopped" stays beside it for readers of folders written before the status existed.
        cellDoc["status"] = outcome.stopped ? "stopped" : "failed";
        cellDoc["failure"] = failure;
        cellDoc["stopped"] = outcome.stopped;
        if (const QString e = writeCellRecord(dir, cellDoc); !e.isEmpty()) {
            writeFailures << e;
        }
        endCell(pc, outcome.stopped ? CellState::Stopped : CellState::Failed, failure,
                writeFailures);
    }
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
