// SPDX-License-Identifier: GPL-3.0-or-later
#include "probe.h"

#include "probe/link_check.h"

#include "feasibility/machine_profile.h"
#include "files/safe_file.h"
#include "runner/process_identity.h"
#include "runner/rank_pool.h"
#include "runner/rank_program.h"
#include "runner/results_lock.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"
#include "spec/units.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTemporaryFile>

#include <algorithm>

#include <sys/statvfs.h>

namespace commprof::probe {
namespace {

QStringList ncclLibraries(const QProcessEnvironment& env) {
    QStringList dirs = env.value("LD_LIBRARY_PATH").split(':', Qt::SkipEmptyParts);
    dirs += {"/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"};
    QStringList out;
    QSet<QString> seen;
    for (const QString& d : dirs) {
        for (const QFileInfo& fi : QDir(d).entryInfoList({"libnccl.so*"}, QDir::Files)) {
            const QString canonical = fi.canonicalFilePath();
            if (!seen.contains(canonical)) {
                seen.insert(canonical);
                out << fi.absoluteFilePath();
            }
        }
    }
    return out;
}

// The process holding a listening TCP port, as "name (pid N)", from /proc; empty if not visible.
QString portHolder(int port, const QString& root) {
    const QDir r(root);
    const QString portHex = QString("%1").arg(port, 4, 16, QChar('0')).toUpper();
    QString inode;
    for (const char* table : {"proc/net/tcp", "proc/net/tcp6"}) {
        for (const QByteArray& line : platform::readSystemFile(r.filePath(table)).split('\n')) {
            const QList<QByteArray> cols = line.simplified().split(' ');
            if (cols.size() > 9 && cols[3] == "0A" && cols[1].endsWith(":" + portHex.toLatin1())) {
                inode = cols[9];
            }
        }
    }
    if (inode.isEmpty()) {
        return {};
    }
    const QString target = "socket:[" + inode + "]";
    for (const QString& pid :
         QDir(r.filePath("proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        pid.toLongLong(&numeric);
        if (!numeric) {
            continue;
        }
        const QDir fds(r.filePath("proc/" + pid + "/fd"));
        for (const QFileInfo& fd :
             fds.entryInfoList(QDir::System | QDir::Files | QDir::NoDotAndDotDot)) {
            if (fd.symLinkTarget().endsWith(target) ||
                QFile::symLinkTarget(fd.absoluteFilePath()) == target) {
                const QString comm =
                    QString(platform::readSystemFile(r.filePath("proc/" + pid + "/comm")))
                        .trimmed();
                return QString("%1 (pid %2)").arg(comm, pid);
            }
        }
    }
    return {};
}

QString gib(double bytes) {
    return QString::number(bytes / spec::kGiB, 'f', 2) + " GiB";
}

void checkHost(const ProbeOptions& o, ProbeReport& r) {
    const QDir root(o.root);
    QString cpuModel;
    int cores = 0;
    for (const QByteArray& line :
         platform::readSystemFile(root.filePath("proc/cpuinfo")).split('\n')) {
        if (line.startsWith("model name") && cpuModel.isEmpty()) {
            cpuModel = QString(line.mid(line.indexOf(':') + 1)).trimmed();
        }
        if (line.startsWith("processor")) {
            ++cores;
        }
    }
    const HostMemory mem = readHostMemory(o.root);
    QJsonObject host{{"cpu_model", cpuModel},
                     {"cores", cores},
                     {"mem_total_bytes", mem.totalBytes},
                     {"mem_available_bytes", mem.availableBytes},
                     {"results_dir", QDir(o.resultsDir).absolutePath()}};
    host["cgroup_limit_bytes"] =
        mem.cgroupLimitBytes ? QJsonValue(*mem.cgroupLimitBytes) : QJsonValue();
    if (mem.totalBytes <= 0) {
        r.issues << "cannot read memory size from " + root.filePath("proc/meminfo");
    }
    if (mem.cgroupLimitBytes) {
        r.warnings
            << QString(
                   "a cgroup memory limit of %1 applies (MemTotal says %2): budgets use the limit")
                   .arg(gib(*mem.cgroupLimitBytes), gib(mem.totalBytes));
    }
    // Disk and writability of the results directory (or the nearest existing parent).
    QString dir = QDir(o.resultsDir).absolutePath();
    while (!QDir(dir).exists() && dir != "/") {
        dir = QFileInfo(dir).path();
    }
    struct statvfs vfs {};
    double freeBytes = 0;
    if (::statvfs(dir.toLocal8Bit().constData(), &vfs) == 0) {
        freeBytes = double(vfs.f_bavail) * double(vfs.f_frsize);
    }
    QTemporaryFile probeFile(QDir(dir).filePath(".commprof-probe-XXXXXX"));
    const bool writable = probeFile.open();
    host["disk_free_bytes"] = freeBytes;
    host["writable"] = writable;
    if (!writable) {
        r.issues << QString("results directory %1 is not writable").arg(dir);
    } else if (freeBytes < 1 * spec::kGiB) {
        r.warnings << QString("only %1 free under %2").arg(gib(freeBytes), dir);
    }
    r.details["host"] = host;
}

void checkRankAndGpus(const ProbeOptions& o, ProbeReport& r) {
    QJsonObject rank;
    if (o.rankProgram.isEmpty() || !QFileInfo(o.rankProgram).isExecutable()) {
        r.issues << QString("commprof-rank not found at '%1'").arg(o.rankProgram);
    } else {
        try {
            rank = runner::rankVersion(o.rankProgram, o.env);
            if (!rank["gloo"].toBool()) {
                r.issues << "the rank worker's libtorch has no Gloo: the gloo layers cannot run";
            }
        } catch (const std::runtime_error& e) {
            r.issues << QString::fromStdString(e.what());
        }
    }
    r.details["rank"] = rank;

    const QList<GpuInfo> gpus = queryGpus(o.env);
    QJsonArray gpuJson;
    QStringList archs;
    for (const QJsonValue a : rank["cuda_archs"].toArray()) {
        archs << a.toString().split(QRegularExpression("[ ;,]"), Qt::SkipEmptyParts);
    }
    for (const GpuInfo& g : gpus) {
        gpuJson.append(QJsonObject{{"name", g.name},
                                   {"memory_bytes", g.memoryBytes},
                                   {"compute_capability", g.computeCapability}});
        if (rank["cuda_build"].toBool() && !archs.isEmpty() &&
            !archCovers(archs, g.computeCapability)) {
            r.issues
                << QString(
                       "%1 (compute capability %2) is not covered by the rank worker's CUDA archs "
                       "(%3): the first kernel would die with \"no kernel image is available\"")
                       .arg(g.name, g.computeCapability, archs.join(" "));
        }
    }
    r.details["gpus"] = gpuJson;
    if (!gpus.isEmpty() && !rank.isEmpty() && !rank["cuda_build"].toBool()) {
        r.warnings << QString("%1 GPU(s) visible, but the rank worker's libtorch %2 has no CUDA: "
                              "only gloo_cpu can run")
                          .arg(gpus.size())
                          .arg(rank["torch_version"].toString());
    }
    if (gpus.isEmpty() && rank["nccl"].toBool()) {
        r.warnings << "the rank worker has NCCL but no GPU is visible";
    }
}

// The distinct versions of a report's nccl_libraries, sorted.
QStringList versionsOf(const QJsonArray& libs) {
    QStringList v = spec::mapped<QStringList>(
        libs, [](const QJsonValue& lib) { return lib.toObject()["version"].toString(); });
    v.removeAll(QString());
    v.removeDuplicates();
    v.sort();
    return v;
}

void checkNccl(const ProbeOptions& o, ProbeReport& r) {
    QJsonArray arr;
    for (const QString& lib : ncclLibraries(o.env)) {
        arr.append(QJsonObject{{"path", lib}, {"version", ncclVersionOf(lib)}});
    }
    r.details["nccl_libraries"] = arr;
    if (const QStringList versions = versionsOf(arr); versions.size() > 1) {
        r.warnings << QString("more than one NCCL version on the library path (%1): which one "
                              "loads depends on the search order; a skew between ranks or hosts "
                              "hangs or corrupts collectives")
                          .arg(versions.join(", "));
    }
}

// In a multi-host run every host must load the same NCCL: compare this host's versions with
// the probe reports of the others.
void checkHostsAgreeOnNccl(const ProbeOptions& o, ProbeReport& r) {
    if (o.otherHosts.isEmpty()) {
        return;
    }
    const QStringList mine = versionsOf(r.details["nccl_libraries"].toArray());
    QJsonArray hosts;
    for (const QString& path : o.otherHosts) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            r.issues << QString("cannot read the probe report %1").arg(path);
            continue;
        }
        const QJsonObject other = QJsonDocument::fromJson(f.readAll()).object();
        const QString host = other["host"].toObject()["hostname"].toString(path);
        const QStringList theirs = versionsOf(other["nccl_libraries"].toArray());
        hosts.append(
            QJsonObject{{"host", host}, {"nccl_versions", QJsonArray::fromStringList(theirs)}});
        if (theirs != mine) {
            r.issues << QString("NCCL differs between hosts: this host has %1, %2 has %3; ranks on "
                                "different NCCL versions can hang or corrupt collectives")
                            .arg(mine.isEmpty() ? QString("none") : mine.join(", "), host,
                                 theirs.isEmpty() ? QString("none") : theirs.join(", "));
        }
    }
    r.details["hosts"] = hosts;
}

void checkPorts(const ProbeOptions& o, ProbeReport& r) {
    QJsonArray ports;
    for (int p = o.firstPort; p < o.firstPort + o.portCount; ++p) {
        const bool free = runner::RankPool::freeLoopbackPort(nullptr, p) == p;
        QJsonObject entry{{"port", p}, {"free", free}};
        if (!free) {
            const QString holder = portHolder(p, o.root);
            entry["holder"] = holder;
            r.warnings << QString("rendezvous port %1 is in use%2; the runner will pick another")
                              .arg(p)
                              .arg(holder.isEmpty() ? QString() : " by " + holder);
        }
        ports.append(entry);
    }
    r.details["ports"] = ports;
}

void checkStaleRanks(const ProbeOptions& o, ProbeReport& r) {
    const QString pidDir = QDir(o.resultsDir).filePath(".pids");
    QJsonArray stale;
    r.details["stale_ranks"] = stale;
    if (files::isLink(pidDir)) {
        r.issues << files::linkRefused(pidDir);
        return;
    }
    // While a run holds the folder its ranks are not stale, whatever the pid files say.
    if (const qint64 holder = runner::ResultsLock::holder(o.resultsDir); holder != 0) {
        r.warnings << QString("a commprof run (%1) is using %2: its ranks are not stale")
                          .arg(holder > 0 ? QString("pid %1").arg(holder) : QString("pid unknown"),
                               o.resultsDir);
        return;
    }
    for (const QString& f : QDir(pidDir).entryList({QString("*") + spec::files::kPidFile.suffix},
                                                   QDir::Files | QDir::System)) {
        runner::PidRecord rec;
        // Only a commprof-rank carrying the run id its pid file names is ever reported or ended.
        if (runner::readPidRecord(QDir(pidDir).filePath(f), rec) && runner::isRecordedRank(rec)) {
            stale.append(QJsonObject{{"pid", rec.pid}, {"pid_file", rec.path}});
        }
    }
    if (!stale.isEmpty()) {
        if (o.cleanup) {
            const int ended = runner::endRecordedProcesses(pidDir);
            r.warnings << QString("ended %1 commprof-rank process(es) left by an earlier launcher")
                              .arg(ended);
        } else {
            r.issues << QString("%1 commprof-rank process(es) left by an earlier launcher are "
                                "still running (see %2); end them with `commprof probe --cleanup`")
                            .arg(stale.size())
                            .arg(pidDir);
        }
    }
    r.details["stale_ranks"] = stale;
}

void checkBudgets(const ProbeOptions& o, ProbeReport& r) {
    const matrix::Matrix defaults;
    const feasibility::MachineBudget b = feasibility::resolveBudget(
        defaults, nullptr, {},
        feasibility::MachineFacts{readHostMemory(o.root), queryGpus(o.env), std::nullopt});
    r.details["budgets"] = QJsonObject{{"host_bytes", b.hostBytes},
                                       {"host_source", b.hostSource},
                                       {"device_bytes", b.deviceBytes},
                                       {"device_source", b.deviceSource},
                                       {"gpus", b.gpus}};
    if (b.hostBytes <= 0) {
        r.issues << "no host memory left for ranks after the reserve";
    }
}

// Two real ranks over gloo on loopback: rendezvous, formation check, one iteration.
void checkFormation(const ProbeOptions& o, ProbeReport& r) {
    if (!o.formation || o.rankProgram.isEmpty() || !QFileInfo(o.rankProgram).isExecutable()) {
        return;
    }
    QTemporaryDir dir;
    runner::PoolSpec spec;
    spec.program = o.rankProgram;
    spec.args = {
        "--params", "2e4",      "--iterations",           "1", "--warmup", "0", "--threads", "1",
        "--out",    dir.path(), "--rendezvous-timeout-s", "20"};
    spec.worldSize = 2;
    spec.workDir = dir.path();
    spec.env = o.env;
    spec.deadline = QDeadlineTimer(60000);
    runner::RankPool pool;
    const runner::PoolOutcome out = pool.runBlocking(spec);
    QString detail =
        out.success ? QString("2 ranks formed on 127.0.0.1:%1 and agreed on the model signature")
                          .arg(out.port)
                    : out.reason;
    if (!out.success) {
        for (const auto& rank : out.ranks) {
            if (!rank.stderrTail.isEmpty()) {
                detail += "; rank " + QString::number(rank.rank) + ": " +
                          rank.stderrTail.section('\n', -1);
            }
        }
        r.issues << "formation check failed: " + detail;
    }
    r.details["formation"] = QJsonObject{{"ok", out.success}, {"detail", detail}};
}

} // namespace

QString ProbeReport::verdict() const {
    if (!issues.isEmpty()) {
        return QString("ISSUES (%1 errors, %2 warnings)").arg(issues.size()).arg(warnings.size());
    }
    return warnings.isEmpty() ? QString("READY")
                              : QString("READY (%1 warnings)").arg(warnings.size());
}

QJsonObject ProbeReport::toJson() const {
    QJsonObject o = details;
    o["verdict"] = verdict();
    o["issues"] = QJsonArray::fromStringList(issues);
    o["warnings"] = QJsonArray::fromStringList(warnings);
    return o;
}

QString ncclVersionOf(const QString& libraryPath) {
    const QRegularExpressionMatch m =
        QRegularExpression("libnccl\\.so\\.(\\d+(?:\\.\\d+)*)$").match(libraryPath);
    return m.hasMatch() ? m.captured(1) : QString();
}

bool archCovers(const QStringList& compiledArchs, const QString& computeCapability) {
    const QString cc = QString(computeCapability).remove('.');
    // sm_90 runs on 9.0 exactly; compute_XX (PTX) can be JIT-compiled for that or newer.
    return std::ranges::any_of(compiledArchs, [&](const QString& a) {
        return a == "sm_" + cc || a == "sm_" + cc + "a" ||
               (a.startsWith("compute_") && a.mid(8).toInt() <= cc.toInt());
    });
}

ProbeReport runProbe(const ProbeOptions& options) {
    ProbeReport r;
    for (const auto check :
         {checkHost, checkRankAndGpus, checkNccl, checkHostsAgreeOnNccl, checkPorts,
          checkStaleRanks, checkLinks, checkBudgets, checkFormation}) {
        check(options, r);
    }
    return r;
}

} // namespace commprof::probe
