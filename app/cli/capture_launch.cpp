// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture_launch.h"

#include "files/safe_file.h"
#include "runner/rank_pool.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace commprof::cli {
namespace {

constexpr qint64 kMaxCaptureBytes = 256LL * 1024 * 1024; // a huge model's parameter list
constexpr int kGraceMs = 5000; // a rank's peers get this long to end after it failed

// The capture's two files from this program's resources into `dir`.
void extractCapture(const QString& dir) {
    for (const char* name : {"sitecustomize.py", "commprof_capture.py"}) {
        QFile in(QString(":/tools/capture/") + name);
        if (!in.open(QIODevice::ReadOnly)) {
            throw std::runtime_error("this build lacks its capture (tools/capture)");
        }
        const QString err = files::writeAtomically(QDir(dir).filePath(name), in.readAll());
        if (!err.isEmpty()) {
            throw std::runtime_error(err.toStdString());
        }
    }
}

QProcessEnvironment environmentFor(const CaptureRun& run, const QString& captureDir) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString old = env.value("PYTHONPATH");
    env.insert("PYTHONPATH", captureDir + (old.isEmpty() ? "" : ":" + old));
    env.insert("COMMPROF_CAPTURE_DIR", QDir(run.outDir).absolutePath());
    for (auto it = run.env.begin(); it != run.env.end(); ++it) {
        env.insert(it.key(), it.value());
    }
    return env;
}

// What torchrun's standalone mode gives each rank (torch.distributed.run, elastic's agent),
// plus USE_LIBUV=0: torch 2.x as Debian builds it has no libuv for the rendezvous store.
void addRankEnvironment(QProcessEnvironment& env, int rank, int world, int port) {
    const QString r = QString::number(rank), w = QString::number(world);
    env.insert("RANK", r);
    env.insert("LOCAL_RANK", r);
    env.insert("GROUP_RANK", "0");
    env.insert("ROLE_RANK", r);
    env.insert("ROLE_NAME", "default");
    env.insert("WORLD_SIZE", w);
    env.insert("LOCAL_WORLD_SIZE", w);
    env.insert("ROLE_WORLD_SIZE", w);
    env.insert("GROUP_WORLD_SIZE", "1");
    env.insert("MASTER_ADDR", "127.0.0.1");
    env.insert("MASTER_PORT", QString::number(port));
    env.insert("TORCHELASTIC_RESTART_COUNT", "0");
    env.insert("TORCHELASTIC_MAX_RESTARTS", "0");
    env.insert("TORCHELASTIC_RUN_ID", "commprof-record");
    env.insert("USE_LIBUV", "0");
    if (!env.contains("OMP_NUM_THREADS") && world > 1) {
        env.insert("OMP_NUM_THREADS", "1"); // as torchrun sets it for several local ranks
    }
}

QString endedHow(const QProcess& p, int rank) {
    const QString who = rank < 0 ? QString("the command") : QString("rank %1").arg(rank);
    if (p.exitStatus() == QProcess::CrashExit) {
        return who + " was killed by a signal";
    }
    return QString("%1 exited %2").arg(who).arg(p.exitCode());
}

} // namespace

CaptureRunResult runWithCapture(const CaptureRun& run) {
    if (run.command.isEmpty()) {
        throw std::runtime_error("no command to run");
    }
    QTemporaryDir captureDir;
    if (!captureDir.isValid()) {
        throw std::runtime_error("cannot make a temporary folder: " +
                                 captureDir.errorString().toStdString());
    }
    extractCapture(captureDir.path());
    const QProcessEnvironment base = environmentFor(run, captureDir.path());
    std::vector<std::unique_ptr<QProcess>> procs;
    const int count = run.nproc > 0 ? run.nproc : 1;
    int port = 0;
    if (run.nproc > 0) {
        QString why;
        port = runner::RankPool::freeLoopbackPort(&why);
        if (port == 0) {
            throw std::runtime_error("no free port on 127.0.0.1 for the ranks' rendezvous: " +
                                     why.toStdString());
        }
    }
    for (int i = 0; i < count; ++i) {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = base;
        if (run.nproc > 0) {
            addRankEnvironment(env, i, run.nproc, port);
        }
        p->setProcessEnvironment(env);
        if (run.stdoutToStderr) {
            p->setProcessChannelMode(QProcess::ForwardedErrorChannel);
            p->setStandardOutputFile("/proc/self/fd/2", QIODevice::Append);
        } else {
            p->setProcessChannelMode(QProcess::ForwardedChannels);
        }
        p->setInputChannelMode(QProcess::ForwardedInputChannel);
        p->start(run.command.first(), run.command.mid(1));
        if (!p->waitForStarted(30000)) {
            const QString err = p->errorString();
            for (auto& q : procs) {
                q->kill();
                q->waitForFinished(kGraceMs);
            }
            throw std::runtime_error("cannot start " + run.command.first().toStdString() + ": " +
                                     err.toStdString());
        }
        procs.push_back(std::move(p));
    }
    CaptureRunResult result;
    QElapsedTimer sinceFailure;
    bool terminated = false;
    for (;;) {
        bool allDone = true;
        for (std::size_t i = 0; i < procs.size(); ++i) {
            QProcess& p = *procs[i];
            if (p.state() != QProcess::NotRunning) {
                p.waitForFinished(50);
            }
            if (p.state() != QProcess::NotRunning) {
                allDone = false;
                continue;
            }
            const bool failed = p.exitStatus() == QProcess::CrashExit || p.exitCode() != 0;
            if (failed && result.failure.isEmpty()) {
                result.failure = endedHow(p, run.nproc > 0 ? int(i) : -1);
                result.exitCode = p.exitStatus() == QProcess::CrashExit ? 1 : p.exitCode();
                sinceFailure.start();
            }
        }
        if (allDone) {
            break;
        }
        // As torchrun does: one rank failing ends its peers, which would wait for it forever.
        if (!result.failure.isEmpty() && !terminated) {
            for (auto& p : procs) {
                p->terminate();
            }
            terminated = true;
        } else if (terminated && sinceFailure.elapsed() > kGraceMs) {
            for (auto& p : procs) {
                p->kill();
            }
        }
    }
    return result;
}

std::vector<RankCapture> readCaptures(const QString& dir) {
    std::vector<RankCapture> out;
    const QDir folder(QDir(dir).filePath("capture"));
    for (const QFileInfo& f : folder.entryInfoList({"rank*.json", "pid*.json"}, QDir::Files)) {
        const QString path = f.filePath();
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(
            files::readRegularFile(path, kMaxCaptureBytes, files::Links::Refuse), &pe);
        if (!doc.isObject() || doc["format"].toString() != "commprof-capture") {
            throw std::runtime_error(path.toStdString() + ": not a commprof capture file" +
                                     (pe.error ? ": " + pe.errorString().toStdString() : ""));
        }
        RankCapture c;
        c.file = path;
        c.json = doc.object();
        c.status = c.json["status"].toString();
        c.message = c.json["message"].toString();
        c.rank = c.json["rank"].isDouble() ? c.json["rank"].toInt() : -1;
        for (const QJsonValue v : c.json["step_ms"].toArray()) {
            c.stepMs.push_back(v.toDouble());
        }
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const RankCapture& a, const RankCapture& b) {
        return (a.rank < 0) != (b.rank < 0) ? a.rank >= 0 : a.rank < b.rank;
    });
    return out;
}

QString verdictOf(const std::vector<RankCapture>& captures, QString* why) {
    // A refusal on any rank is the job's: the order says which reason is told first.
    for (const char* refusal :
         {"several_ddp", "already_profiles", "capture_failed", "too_few_steps"}) {
        for (const RankCapture& c : captures) {
            if (c.status == refusal) {
                *why = c.message;
                return c.status;
            }
        }
    }
    for (const RankCapture& c : captures) {
        if (c.status == "recorded" || c.status == "timed") {
            return c.status;
        }
    }
    *why = captures.empty()
               ? QString("no Python process of the command loaded the capture (not a Python "
                         "program, or Python started with -E or -I, which ignore PYTHONPATH)")
               : QString("the command built no torch.nn.parallel.DistributedDataParallel in any "
                         "Python process it started");
    return "no_ddp";
}

int exitCodeOf(const QString& verdict) {
    if (verdict == "recorded" || verdict == "timed") {
        return 0;
    }
    if (verdict == "no_ddp") {
        return 3;
    }
    if (verdict == "already_profiles") {
        return 4;
    }
    if (verdict == "several_ddp") {
        return 5;
    }
    if (verdict == "too_few_steps") {
        return 6;
    }
    return 1;
}

} // namespace commprof::cli
