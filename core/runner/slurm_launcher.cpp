// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurm_launcher.h"

#include "files/safe_file.h"
#include "runner/launcher_base.h"
#include "runner/process_identity.h"
#include "runner/slurm_jobs.h"
#include "runner/slurm_step.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <climits>

namespace commprof::runner {
namespace {

constexpr int kPollMs = 1000;
constexpr int kNoticeLines = 12;
// After scancel Slurm signals the tasks and waits KillWait (30 s by default) before SIGKILL;
// srun waits as long for the step. The client is killed only after that.
constexpr int kClientGraceMs = 70000;
// How long the end of a job is waited for once its client returned (Slurm's COMPLETING).
constexpr int kSettleTries = 240;
constexpr int kSettleMs = 500;
constexpr int kToolTimeoutMs = 30000;
constexpr int kWaiterGraceMs = 3000;

void keepLast(QStringList& lines, const QString& line) {
    lines << line;
    while (lines.size() > kNoticeLines) {
        lines.removeFirst();
    }
}

bool clientRunning(const QProcess* p) {
    return p && p->state() != QProcess::NotRunning;
}

} // namespace

SlurmLauncher::SlurmLauncher(QObject* parent)
    : CellLauncher(parent), deadlineTimer_(new QTimer(this)), pollTimer_(new QTimer(this)),
      killTimer_(new QTimer(this)) {
    qRegisterMetaType<commprof::runner::PoolOutcome>();
    deadlineTimer_->setSingleShot(true);
    connect(deadlineTimer_, &QTimer::timeout, this, [this] {
        outcome_.timedOut = true;
        cancel("the cell's deadline passed");
    });
    pollTimer_->setInterval(kPollMs);
    connect(pollTimer_, &QTimer::timeout, this, &SlurmLauncher::poll);
    killTimer_->setSingleShot(true);
    connect(killTimer_, &QTimer::timeout, this, [this] {
        if (clientRunning(client_)) {
            emit logLine("the Slurm client did not end after scancel: killing it");
            client_->kill();
        }
    });
}

SlurmLauncher::~SlurmLauncher() {
    if (clientRunning(client_)) {
        // Torn down mid-cell (the workbench closed): nothing of the cell may keep running.
        if (!target().isEmpty() &&
            platform::runTool(tools_.scancel, {target()}, launch_.env, kToolTimeoutMs).ok()) {
            removeRecord();
        }
        client_->kill();
        client_->waitForFinished(2000);
    }
}

void SlurmLauncher::start(const CellLaunch& launch) {
    launch_ = launch;
    outcome_ = PoolOutcome{};
    tools_ = platform::findSlurmTools(launch.env);
    mode_ = launch.env.contains("SLURM_JOB_ID") ? Mode::Allocation : Mode::OwnJob;
    const qint64 left = launch_.deadline.remainingTime(); // -1: forever
    deadlineTimer_->start(int(left < 0 ? INT_MAX : std::min<qint64>(left, INT_MAX)));
    pollTimer_->start();
    launchAttempt();
}

QString SlurmLauncher::stepCommand(QStringList& command, QProcessEnvironment& env, int port,
                                   int minutes) {
    const QString nodeList = launch_.env.value("SLURM_JOB_NODELIST");
    const QStringList hosts = platform::expandHostnames(nodeList, launch_.env);
    const int needed = int(matrix::ranksPerNode(launch_.launcher, launch_.worldSize).size());
    if (hosts.isEmpty()) {
        return QString("cannot list the nodes of allocation %1 (SLURM_JOB_NODELIST '%2')")
            .arg(jobId_, nodeList);
    }
    if (hosts.size() < needed) {
        return QString("allocation %1 has %2 node(s) (%3); the cell needs %4")
            .arg(jobId_)
            .arg(hosts.size())
            .arg(nodeList)
            .arg(needed);
    }
    // The step's first node holds rank 0 and its rendezvous store.
    a_.masterAddr = hosts.front();
    env.insert("MASTER_ADDR", a_.masterAddr);
    env.insert("MASTER_PORT", QString::number(port));
    command << tools_.srun
            << srunOptions(launch_.launcher, launch_.worldSize, slurmJobName(launch_.cellId),
                           minutes, hosts.mid(0, needed))
            << launch_.launcher.extraArgs << launch_.program << launch_.args;
    return {};
}

QString SlurmLauncher::jobCommand(QStringList& command, int port, int minutes) {
    const QStringList srun =
        QStringList{"srun"} +
        srunOptions(launch_.launcher, launch_.worldSize, slurmJobName(launch_.cellId), minutes) +
        QStringList{launch_.program} + launch_.args;
    const QString script = QDir(launch_.workDir).filePath("slurm_job.sh");
    const QString e = files::writeAtomically(
        script,
        batchScript(launch_.cellId, sbatchDirectives(launch_.launcher, launch_.worldSize, minutes),
                    port, srun));
    if (!e.isEmpty()) {
        return "cannot write the batch script: " + e;
    }
    // '%' starts a pattern in Slurm's file names; the folder's own ones stay literal.
    const QString output =
        QDir(QString(launch_.workDir).replace("%", "%%")).filePath("slurm-%j.out");
    command << tools_.sbatch << "--wait"
            << "--parsable"
            << "--job-name=" + slurmJobName(launch_.cellId)
            << "--comment=" + slurmJobComment(launch_.runId) << "--output=" + output
            << "--chdir=" + launch_.workDir << script;
    return {};
}

void SlurmLauncher::launchAttempt() {
    ++outcome_.attempts;
    outcome_.port = launch_.launcher.rendezvousPort + outcome_.attempts - 1;
    outcome_.ranks.assign(std::size_t(launch_.worldSize), RankExit{});
    for (int r = 0; r < launch_.worldSize; ++r) {
        outcome_.ranks[std::size_t(r)].rank = r;
    }
    a_ = Attempt();
    a_.rankErr.assign(std::size_t(launch_.worldSize), {});
    jobId_ = mode_ == Mode::Allocation ? launch_.env.value("SLURM_JOB_ID") : QString();

    QProcessEnvironment env = launch_.env;
    // srun's own variables tell commprof-rank its rank; stale torchrun ones must not win.
    for (const char* name : {"RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) {
        env.remove(name);
    }
    // A fresh secret for every rendezvous; both reach the ranks through srun --export.
    env.insert("COMMPROF_STORE_TOKEN", randomToken());
    env.insert("COMMPROF_RUN_ID", launch_.runId);
    const qint64 leftMs = launch_.deadline.remainingTime();
    const int minutes =
        slurmMinutes(launch_.launcher, leftMs < 0 ? 7 * 24 * 3600.0 : double(leftMs) / 1000.0);
    QStringList command;
    const QString problem = mode_ == Mode::Allocation
                                ? stepCommand(command, env, outcome_.port, minutes)
                                : jobCommand(command, outcome_.port, minutes);
    if (!problem.isEmpty()) {
        outcome_.reason = problem;
        QTimer::singleShot(0, this, [this] { conclude({}, {}); });
        return;
    }
    emit logLine(QString("%1 (attempt %2): %3")
                     .arg(mode_ == Mode::Allocation
                              ? QString("srun step in allocation %1").arg(jobId_)
                              : QString("sbatch of %1/slurm_job.sh").arg(launch_.workDir))
                     .arg(outcome_.attempts)
                     .arg(command.join(' ')));
    outcome_.launcherLog += "command: " + command.join(' ') + "\n";
    setState("PENDING", mode_ == Mode::Allocation ? "step not started" : "submitting", {});

    if (client_) {
        client_->deleteLater();
    }
    client_ = new QProcess(this);
    client_->setProcessEnvironment(env);
    client_->setWorkingDirectory(launch_.workDir);
    QProcess* client = client_;
    connect(client, &QProcess::readyReadStandardOutput, this,
            [this] { readClient(QProcess::StandardOutput); });
    connect(client, &QProcess::readyReadStandardError, this,
            [this] { readClient(QProcess::StandardError); });
    connect(client, &QProcess::finished, this, [this, client](int code, QProcess::ExitStatus s) {
        if (client == client_) {
            onClientFinished(code, s);
        }
    });
    connect(client, &QProcess::errorOccurred, this, [this, client](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart && client == client_) {
            keepLast(a_.srunLines,
                     QString("cannot start %1: %2").arg(client->program(), client->errorString()));
            onClientFinished(spec::exit_code::kCannotRun, QProcess::NormalExit);
        }
    });
    client->start(command.front(), command.mid(1));
}

void SlurmLauncher::readClient(QProcess::ProcessChannel channel) {
    if (!client_) {
        return;
    }
    client_->setReadChannel(channel);
    a_.clientLines[channel == QProcess::StandardOutput ? 0 : 1].feed(
        client_->readAll(), [this, channel](const QByteArray& line) {
            if (mode_ == Mode::Allocation) {
                takeLine(line); // srun's own output: labelled rank lines and its messages
            } else if (channel == QProcess::StandardOutput && jobId_.isEmpty() &&
                       !line.trimmed().isEmpty()) {
                onJobKnown(QString::fromUtf8(line.trimmed()).section(';', 0, 0));
            } else if (!line.trimmed().isEmpty()) { // sbatch's own messages
                keepLast(a_.srunLines, QString::fromUtf8(line).trimmed());
            }
        });
}

void SlurmLauncher::takeLine(const QByteArray& raw) {
    const QByteArray line = raw.endsWith('\r') ? raw.chopped(1) : raw;
    const SrunLine s = splitLabel(line);
    if (const QString notice = stepdNotice(s.text); !notice.isEmpty()) {
        if (!a_.notices.contains(notice)) {
            keepLast(a_.notices, notice);
            emit logLine(notice);
        }
    }
    if (s.rank >= 0 && s.rank < launch_.worldSize) {
        if (const QJsonObject event = progressEvent(s.text, s.rank); !event.isEmpty()) {
            emit progress(s.rank, event);
            return;
        }
        a_.rankErr[std::size_t(s.rank)].append(s.text + '\n');
        return;
    }
    if (const QString master = announcedMaster(line); !master.isEmpty()) {
        a_.masterAddr = master; // the batch script found it on the job's first node
        return;
    }
    if (const QString step = launchedStep(line); !step.isEmpty()) {
        onStepKnown(step);
        return;
    }
    if (readTaskExits(line, outcome_.ranks)) {
        keepLast(a_.srunLines, QString::fromUtf8(line).trimmed());
        return;
    }
    const QString text = QString::fromUtf8(line).trimmed();
    if (text.contains("error", Qt::CaseInsensitive) || text.contains("step creation") ||
        text.contains("aborted", Qt::CaseInsensitive) || text.startsWith("commprof:")) {
        keepLast(a_.srunLines, text);
        if (text.contains("step creation")) {
            setState("PENDING", "step creation: " + text.section(':', -1).trimmed(), nodes_);
        }
    }
}

// The job's output file (srun's labelled lines and its messages), read from where the last
// poll stopped. Never through a link; only a regular file.
void SlurmLauncher::tailJobOutput() {
    if (jobId_.isEmpty()) {
        return;
    }
    // Nothing while the job is pending: Slurm creates the file when the job starts.
    a_.jobOutputLines.feed(
        a_.jobOutput.readMore(QDir(launch_.workDir).filePath(QString("slurm-%1.out").arg(jobId_))),
        [this](const QByteArray& line) { takeLine(line); });
}

void SlurmLauncher::poll() {
    if (mode_ == Mode::OwnJob) {
        tailJobOutput();
    }
    const QString id = target();
    if (id.isEmpty() || polling_ || a_.finishing) {
        return;
    }
    polling_ = true;
    ask(tools_.scontrol, {"show", mode_ == Mode::OwnJob ? "job" : "step", "-o", id},
        [this](const platform::ToolResult& t) {
            polling_ = false;
            if (!t.ok() || a_.finishing) {
                return;
            }
            const Record r = platform::parseSlurmRecord(t.out.split('\n').value(0));
            if (mode_ == Mode::OwnJob) {
                setState(r.value("JobState"), r.value("Reason"), r.value("NodeList"));
                endWaiterOnceJobEnded(r);
            } else {
                setState(r.value("State"), {}, r.value("NodeList"));
            }
        });
}

// sbatch --wait polls the job at growing intervals (up to half a minute here) and its exit code
// is the job's. Once scontrol says the job has ended, and sbatch still waits a few seconds
// later, sbatch is ended and the job's own exit code stands for its.
void SlurmLauncher::endWaiterOnceJobEnded(const Record& job) {
    const QString state = job.value("JobState");
    if (state.isEmpty() || slurmStateActive(state) || a_.waiterEnding || !clientRunning(client_)) {
        return;
    }
    a_.waiterEnding = true;
    const QString exitCode = job.value("ExitCode"); // "CODE:SIGNAL"
    QTimer::singleShot(kWaiterGraceMs, this, [this, state, exitCode] {
        if (!clientRunning(client_) || a_.finishing) {
            return;
        }
        const int code = exitCode.section(':', 0, 0).toInt();
        const int signal = exitCode.section(':', 1, 1).toInt();
        a_.waiterExit = signal > 0 ? 128 + signal : code;
        emit logLine(QString("the job ended (%1, exit code %2); sbatch --wait was still waiting")
                         .arg(state, exitCode));
        client_->kill();
    });
}

void SlurmLauncher::setState(const QString& state, const QString& reason, const QString& nodes) {
    if (state.isEmpty() || (state == a_.state && reason == reason_ && nodes == nodes_)) {
        return;
    }
    a_.state = state;
    reason_ = reason;
    nodes_ = nodes;
    QJsonObject s{{"state", state}, {"job_id", jobId_}, {"step_id", a_.stepId}};
    if (!reason.isEmpty() && reason != "None") {
        s["reason"] = reason;
    }
    if (!nodes.isEmpty() && nodes != "(null)") {
        s["nodes"] = nodes;
    }
    emit stateChanged(s);
}

void SlurmLauncher::onJobKnown(const QString& id) {
    jobId_ = id;
    recordTarget();
    setState("PENDING", "submitted", {});
    if (a_.cancelWhenKnown) {
        a_.cancelling = false;
        cancel(outcome_.reason);
    }
}

void SlurmLauncher::onStepKnown(const QString& id) {
    a_.stepId = id;
    if (mode_ == Mode::Allocation) { // a cancel waits for the id only in a job of its own
        recordTarget();
        setState("RUNNING", {}, nodes_);
    }
}

void SlurmLauncher::recordTarget() {
    const QString dir = jobDirOf(launch_.resultsDir);
    QString e = files::makeDirs(dir, launch_.resultsDir);
    if (e.isEmpty()) {
        e = writeJobRecord(QDir(dir).filePath(launch_.cellId + ".job"),
                           {target(), slurmJobName(launch_.cellId), launch_.runId, {}});
    }
    if (!e.isEmpty()) {
        emit logLine("cannot record the Slurm job: " + e);
    }
}

void SlurmLauncher::removeRecord() {
    QFile::remove(QDir(jobDirOf(launch_.resultsDir)).filePath(launch_.cellId + ".job"));
}

void SlurmLauncher::cancel(const QString& why) {
    if (outcome_.reason.isEmpty()) {
        outcome_.reason = why;
    }
    if (a_.cancelling || !clientRunning(client_)) {
        return;
    }
    a_.cancelling = true;
    const QString id = target();
    if (!id.isEmpty()) {
        emit logLine(QString("%1: scancel %2").arg(why, id));
        ask(tools_.scancel, {id}, [this, id](const platform::ToolResult& t) {
            if (!t.ok()) {
                emit logLine(t.problem("scancel " + id));
            }
        });
    } else if (mode_ == Mode::OwnJob) {
        a_.cancelWhenKnown = true; // sbatch prints the id as soon as the job is submitted
        a_.cancelling = false;
    } else {
        client_->terminate(); // srun before its step exists: nothing to cancel yet
    }
    killTimer_->start(launch_.graceMs + kClientGraceMs);
}

void SlurmLauncher::stop() {
    outcome_.stopped = true;
    cancel("stopped on request");
}

void SlurmLauncher::ask(const QString& program, const QStringList& args,
                        const std::function<void(const platform::ToolResult&)>& done) {
    auto* p = new QProcess(this);
    auto* timer = new QTimer(p);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, p, [p] { p->kill(); });
    connect(p, &QProcess::finished, this, [p, done](int code, QProcess::ExitStatus status) {
        platform::ToolResult r;
        r.ran = status == QProcess::NormalExit;
        r.exitCode = r.ran ? code : -1;
        r.out = p->readAllStandardOutput();
        r.err = p->readAllStandardError();
        p->deleteLater();
        done(r);
    });
    connect(p, &QProcess::errorOccurred, this, [p, done](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            p->deleteLater();
            done(platform::ToolResult{});
        }
    });
    p->setProcessEnvironment(launch_.env);
    timer->start(kToolTimeoutMs);
    p->start(program, args);
}

void SlurmLauncher::onClientFinished(int exitCode, QProcess::ExitStatus status) {
    if (a_.finishing) {
        return;
    }
    a_.finishing = true;
    killTimer_->stop();
    a_.clientExit = status == QProcess::NormalExit ? exitCode : a_.waiterExit.value_or(-1);
    for (const QProcess::ProcessChannel c : {QProcess::StandardOutput, QProcess::StandardError}) {
        readClient(c);
        if (const QByteArray rest =
                a_.clientLines[c == QProcess::StandardOutput ? 0 : 1].takeRest();
            !rest.isEmpty()) {
            mode_ == Mode::Allocation ? takeLine(rest) : keepLast(a_.srunLines, tailText(rest));
        }
    }
    settle(kSettleTries);
}

// Waits until Slurm no longer counts the job as running (its tasks are gone), then reads its
// end. A step inside an allocation has ended when srun returns.
void SlurmLauncher::settle(int triesLeft) {
    if (mode_ == Mode::OwnJob) {
        tailJobOutput();
    }
    if (mode_ == Mode::Allocation || jobId_.isEmpty()) {
        readAccounting({});
        return;
    }
    ask(tools_.scontrol, {"show", "job", "-o", jobId_},
        [this, triesLeft](const platform::ToolResult& t) {
            const Record r =
                t.ok() ? platform::parseSlurmRecord(t.out.split('\n').value(0)) : Record{};
            if (slurmStateActive(r.value("JobState")) && triesLeft > 0) {
                QTimer::singleShot(kSettleMs, this, [this, triesLeft] { settle(triesLeft - 1); });
                return;
            }
            tailJobOutput();
            if (const QByteArray rest = a_.jobOutputLines.takeRest(); !rest.isEmpty()) {
                takeLine(rest);
            }
            readAccounting(r);
        });
}

// sacct where accounting runs: Slurm's own word on how the job or step ended.
void SlurmLauncher::readAccounting(const Record& slurm) {
    const QString id = target();
    if (tools_.sacct.isEmpty() || id.isEmpty()) {
        conclude(slurm, {});
        return;
    }
    ask(tools_.sacct, {"-j", id, "-n", "-P", "-X", "-o", "JobID,State,ExitCode,Reason"},
        [this, slurm, id](const platform::ToolResult& t) {
            Record acct;
            for (const QByteArray& line : t.out.split('\n')) {
                const QList<QByteArray> f = line.split('|');
                if (t.ok() && f.size() >= 3 && QString::fromUtf8(f[0]) == id) {
                    acct = {{"State", QString::fromUtf8(f[1])},
                            {"ExitCode", QString::fromUtf8(f[2])},
                            {"Reason", QString::fromUtf8(f.value(3))}};
                }
            }
            conclude(slurm, acct);
        });
}

QString SlurmLauncher::slurmAccount(const QString& state, const QString& reason,
                                    const QString& exitCode) const {
    QString s = mode_ == Mode::OwnJob ? QString("slurm job %1").arg(jobId_)
                                      : QString("slurm step %1").arg(a_.stepId);
    s += " " + (state.isEmpty() ? QString("(state unknown)") : state);
    QStringList details;
    if (!reason.isEmpty() && reason != "None") {
        details << "reason " + reason;
    }
    if (!exitCode.isEmpty() && exitCode != "0:0") {
        details << "exit code " + exitCode;
    }
    if (!details.isEmpty()) {
        s += " (" + details.join(", ") + ")";
    }
    if (!a_.notices.isEmpty()) {
        s += ": " + a_.notices.last();
    }
    return s;
}

void SlurmLauncher::conclude(const Record& slurm, const Record& accounting) {
    for (std::size_t r = 0; r < outcome_.ranks.size(); ++r) {
        RankExit& e = outcome_.ranks[r];
        if (e.exitCode == -1 && !e.crashed && a_.clientExit == 0) {
            e.exitCode = 0; // srun reports only the tasks that did not end well
        }
        e.stderrTail = a_.rankErr[r].text();
    }
    // Slurm's view: sacct, else scontrol (a job of its own), else what srun said of the step.
    QString state = accounting.value("State", slurm.value("JobState"));
    QString reason =
        accounting.contains("State") ? accounting.value("Reason") : slurm.value("Reason");
    const QString exitCode = accounting.value("ExitCode", slurm.value("ExitCode"));
    const bool cancelled = !a_.notices.filter("CANCELLED").isEmpty();
    if (state.isEmpty() && !target().isEmpty()) {
        state = cancelled ? "CANCELLED" : a_.clientExit == 0 ? "COMPLETED" : "FAILED";
    }
    const bool ranksOk = std::ranges::all_of(
        outcome_.ranks, [](const RankExit& e) { return !e.crashed && e.exitCode == 0; });
    outcome_.success = a_.clientExit == 0 && ranksOk && !outcome_.timedOut && !outcome_.stopped &&
                       !target().isEmpty() && (state.isEmpty() || state == "COMPLETED");
    const QString account = target().isEmpty() ? QString() : slurmAccount(state, reason, exitCode);
    if (!outcome_.success) {
        // A rank that exited non-zero is the cause; the ranks srun killed after it are not.
        auto failedRank =
            std::ranges::find_if(outcome_.ranks, [](const RankExit& e) { return e.exitCode > 0; });
        if (failedRank == outcome_.ranks.end()) {
            failedRank = std::ranges::find(outcome_.ranks, true, &RankExit::crashed);
        }
        QString why = outcome_.reason;
        if (why.isEmpty() && failedRank != outcome_.ranks.end() && !state.startsWith("CANCELLED")) {
            why = QString("rank %1 %2").arg(failedRank->rank).arg(rankEnd(*failedRank));
        }
        if (target().isEmpty() && why.isEmpty()) {
            why = QString("%1 exited %2%3")
                      .arg(mode_ == Mode::OwnJob ? "sbatch" : "srun")
                      .arg(a_.clientExit)
                      .arg(a_.srunLines.isEmpty() ? QString() : ": " + a_.srunLines.join("; "));
        }
        outcome_.reason = why.isEmpty() ? account : account.isEmpty() ? why : why + "; " + account;
    }
    outcome_.launcher = QJsonObject{
        {"kind", "slurm"},
        {"mode", mode_ == Mode::OwnJob ? "sbatch" : "allocation"},
        {"job_id", jobId_},
        {"step_id", a_.stepId},
        {"state", state},
        {"reason", reason},
        {"exit_code", exitCode},
        {"nodes", nodes_.isEmpty() ? slurm.value("NodeList") : nodes_},
        {"master_addr", a_.masterAddr.isEmpty() ? QJsonValue() : QJsonValue(a_.masterAddr)},
        {"port", outcome_.port},
        {"accounting", accounting.contains("State")}};
    if (mode_ == Mode::OwnJob) {
        outcome_.launcher["script"] = "slurm_job.sh";
        outcome_.launcher["output"] = jobId_.isEmpty() ? QString() : "slurm-" + jobId_ + ".out";
    }
    setState(state, reason, outcome_.launcher["nodes"].toString());
    outcome_.launcherLog += QString("slurm: %1, sbatch/srun exit %2\n")
                                .arg(account.isEmpty() ? QString("no job") : account)
                                .arg(a_.clientExit);
    for (const QString& l : a_.srunLines) {
        outcome_.launcherLog += "  " + l + "\n";
    }
    finishAttempt();
}

void SlurmLauncher::finishAttempt() {
    removeRecord();
    if (retryOnAnotherPort(outcome_, launch_.deadline)) {
        emit logLine(QString("port %1 was taken on %2: retrying on the next port")
                         .arg(outcome_.port)
                         .arg(a_.masterAddr.isEmpty() ? QString("the first node") : a_.masterAddr));
        outcome_.reason.clear();
        outcome_.success = false;
        QTimer::singleShot(0, this, &SlurmLauncher::launchAttempt);
        return;
    }
    deadlineTimer_->stop();
    pollTimer_->stop();
    killTimer_->stop();
    if (client_) {
        client_->deleteLater();
        client_ = nullptr;
    }
    emit finished(outcome_);
}

} // namespace commprof::runner
