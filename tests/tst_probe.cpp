// SPDX-License-Identifier: GPL-3.0-or-later
// The environment probe. On this machine it runs for real; the checks for hardware this
// machine lacks (GPUs, a CUDA build, several NCCL installs, a container's memory ceiling) run
// against test doubles of the machine: a fake /proc-style root, a fake nvidia-smi on PATH,
// fake libnccl files on LD_LIBRARY_PATH.

#include "cli_runner.h"
#include "probe/probe.h"
#include "rank_files.h"
#include "runner/process_identity.h"
#include "runner/rank_pool.h"
#include "waiting_rank.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace commprof;

namespace {

void writeFile(const QString& path, const QByteArray& content, bool executable = false) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content);
    f.close();
    if (executable) {
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
    }
}

// A /proc-style root: 16 GiB of RAM, 12 GiB available, a 6 GiB cgroup ceiling.
QString fakeRoot(const QTemporaryDir& dir) {
    const QString root = dir.filePath("root");
    writeFile(root + "/proc/meminfo",
              "MemTotal:       16777216 kB\nMemFree:  1000 kB\nMemAvailable:   12582912 kB\n");
    writeFile(root + "/proc/cpuinfo", "processor\t: 0\nmodel name\t: Fake CPU 9000\nprocessor\t: "
                                      "1\nmodel name\t: Fake CPU 9000\n");
    writeFile(root + "/sys/fs/cgroup/memory.max", "6442450944\n");
    return root;
}

probe::ProbeOptions baseOptions(const QTemporaryDir& dir) {
    probe::ProbeOptions o;
    o.root = fakeRoot(dir);
    o.rankProgram = rankBinary();
    o.resultsDir = dir.filePath("results");
    o.formation = false;
    o.firstPort = runner::RankPool::freeLoopbackPort();
    o.portCount = 1;
    return o;
}

} // namespace

class TstProbe : public QObject {
    Q_OBJECT
private slots:
    void thisMachine() {
        QTemporaryDir dir;
        const CliResult r =
            runCli("commprof", {"probe", "--json", "--results", dir.path(), "--ports",
                                QString::number(runner::RankPool::freeLoopbackPort())});
        const QJsonObject p = r.json();
        QVERIFY2(!p.isEmpty(), r.err.constData());
        const bool ready = p["verdict"].toString().startsWith("READY");
        QCOMPARE(r.exitCode, ready ? 0 : 1);
        QCOMPARE(p["issues"].toArray().isEmpty(), ready);
        QVERIFY(p["gpus"].toArray().isEmpty());
        const QJsonObject rank = p["rank"].toObject();
        QCOMPARE(rank["torch_version"].toString(), QString(COMMPROF_TORCH_VERSION));
        QCOMPARE(rank["gloo"].toBool(), true);
        QCOMPARE(rank["nccl"].toBool(), false);
        const QJsonObject b = p["budgets"].toObject();
        QVERIFY(b["host_bytes"].toDouble() > 0);
        QVERIFY(!b["host_source"].toString().isEmpty());
        QCOMPARE(b["device_bytes"].toDouble(), 0.0);
        QVERIFY(b["device_source"].toString().contains("no GPU"));
        QCOMPARE(p["formation"].toObject()["ok"].toBool(), true);
        QVERIFY(p["host"].toObject()["writable"].toBool());
    }

    void cgroupCeilingIsTheHostBudget() {
        QTemporaryDir dir;
        const probe::ProbeReport r = probe::runProbe(baseOptions(dir));
        const QJsonObject host = r.details["host"].toObject();
        QCOMPARE(host["cpu_model"].toString(), QString("Fake CPU 9000"));
        QCOMPARE(host["cores"].toInt(), 2);
        QCOMPARE(host["cgroup_limit_bytes"].toDouble(), 6442450944.0);
        const QJsonObject b = r.details["budgets"].toObject();
        QCOMPARE(b["host_bytes"].toDouble(),
                 6442450944.0 - 1073741824.0); // minus the 1 GiB reserve
        QVERIFY(b["host_source"].toString().contains("cgroup"));
        QVERIFY(r.warnings.filter("cgroup memory limit").size() == 1);
    }

    void gpuArchNotCoveredIsAnIssue() {
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        writeFile(dir.filePath("bin/nvidia-smi"),
                  "#!/bin/sh\necho 'NVIDIA H200, 143771, 9.0'\necho 'NVIDIA H200, 143771, 9.0'\n",
                  true);
        // Stands in for a CUDA build of commprof-rank compiled for Ampere only.
        writeFile(dir.filePath("bin/commprof-rank"),
                  "#!/bin/sh\necho "
                  "'{\"torch_version\":\"2.4.0\",\"cuda\":true,\"cuda_build\":true,\"cuda_archs\":["
                  "\"sm_80\",\"sm_86\"],"
                  "\"gloo\":true,\"nccl\":true,\"nccl_version\":\"2.20.5\",\"kineto\":true}'\n",
                  true);
        o.rankProgram = dir.filePath("bin/commprof-rank");
        o.env.insert("PATH", dir.filePath("bin") + ":" + o.env.value("PATH"));
        const probe::ProbeReport r = probe::runProbe(o);
        QCOMPARE(r.details["gpus"].toArray().size(), 2);
        QCOMPARE(r.issues.filter("no kernel image is available").size(), 2);
        QVERIFY(r.verdict().startsWith("ISSUES (2 errors"));
        // With a device budget from nvidia-smi: 143771 MiB minus the reserve.
        QCOMPARE(r.details["budgets"].toObject()["gpus"].toInt(), 2);
        QVERIFY(r.details["budgets"].toObject()["device_bytes"].toDouble() > 130e9);

        QVERIFY(probe::archCovers({"sm_80", "sm_90"}, "9.0"));
        QVERIFY(probe::archCovers({"compute_80"}, "9.0"));
        QVERIFY(!probe::archCovers({"sm_80", "sm_86"}, "9.0"));
    }

    void gpuWithoutCudaBuildIsAWarning() {
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        writeFile(dir.filePath("bin/nvidia-smi"),
                  "#!/bin/sh\necho 'NVIDIA GeForce RTX 5070, 12227, 12.0'\n", true);
        o.env.insert("PATH", dir.filePath("bin") + ":" + o.env.value("PATH"));
        const probe::ProbeReport r = probe::runProbe(o);
        QVERIFY(r.issues.isEmpty());
        QCOMPARE(r.warnings.filter("has no CUDA").size(), 1);
        QVERIFY(r.verdict().startsWith("READY ("));
    }

    void twoNcclVersionsWarnAboutSkew() {
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        writeFile(dir.filePath("a/libnccl.so.2.18.3"), "");
        writeFile(dir.filePath("b/libnccl.so.2.21.5"), "");
        o.env.insert("LD_LIBRARY_PATH", dir.filePath("a") + ":" + dir.filePath("b"));
        const probe::ProbeReport r = probe::runProbe(o);
        QVERIFY(r.details["nccl_libraries"].toArray().size() >= 2);
        QCOMPARE(r.warnings.filter("2.18.3, 2.21.5").size(), 1);
        QCOMPARE(probe::ncclVersionOf("/x/libnccl.so.2.21.5"), QString("2.21.5"));
    }

    void nccLVersionsMustAgreeAcrossHosts() {
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        writeFile(dir.filePath("lib/libnccl.so.2.21.5"), "");
        o.env.insert("LD_LIBRARY_PATH", dir.filePath("lib"));
        // The other hosts' `commprof probe --json` reports: one agrees, one does not.
        writeFile(
            dir.filePath("node1.json"),
            R"({"host":{"hostname":"node1"},"nccl_libraries":[{"path":"/x/libnccl.so.2.21.5","version":"2.21.5"}]})");
        writeFile(
            dir.filePath("node2.json"),
            R"({"host":{"hostname":"node2"},"nccl_libraries":[{"path":"/x/libnccl.so.2.18.3","version":"2.18.3"}]})");
        o.otherHosts = {dir.filePath("node1.json"), dir.filePath("node2.json")};
        const probe::ProbeReport r = probe::runProbe(o);
        const QStringList hits = r.issues.filter("NCCL differs between hosts");
        QCOMPARE(hits.size(), 1);
        QVERIFY(hits[0].contains("node2 has 2.18.3"));
        QCOMPARE(r.details["hosts"].toArray().size(), 2);
    }

    void occupiedPortIsNamedAndTheRunnerMovesOn() {
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        o.root = "/"; // the holder is found in the real /proc
        o.firstPort = squatter.serverPort();
        const probe::ProbeReport r = probe::runProbe(o);
        const QStringList hits = r.warnings.filter(QString("port %1 is in use").arg(o.firstPort));
        QCOMPARE(hits.size(), 1);
        QVERIFY2(hits[0].contains(QString("(pid %1)").arg(QCoreApplication::applicationPid())),
                 qPrintable(hits[0]));

        runner::PoolSpec spec;
        spec.program = rankBinary();
        spec.args = {"--params",  "2e4", "--iterations", "1",       "--warmup", "0",
                     "--threads", "1",   "--out",        dir.path()};
        spec.worldSize = 2;
        spec.workDir = dir.path();
        spec.firstPort = o.firstPort;
        spec.deadline = QDeadlineTimer(60000);
        runner::RankPool pool;
        const runner::PoolOutcome out = pool.runBlocking(spec);
        QVERIFY2(out.success, qPrintable(out.reason));
        QVERIFY(out.port != o.firstPort);
    }

    void staleRanksAreFoundAndCleanedUp() {
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        const QString runId = runner::randomToken();
        const qint64 pid = startWaitingRank(runId, dir.path());
        QVERIFY(pid > 0);
        QTRY_VERIFY(runner::processStartTime(pid) != 0);
        QDir().mkpath(o.resultsDir + "/.pids");
        QVERIFY(
            runner::writePidRecord(o.resultsDir + "/.pids/cell_rank0.pid", pid, runId).isEmpty());
        const probe::ProbeReport found = probe::runProbe(o);
        QCOMPARE(found.issues.filter("left by an earlier launcher").size(), 1);
        QCOMPARE(found.details["stale_ranks"].toArray().size(), 1);
        o.cleanup = true;
        const probe::ProbeReport cleaned = probe::runProbe(o);
        QVERIFY(cleaned.issues.isEmpty());
        QCOMPARE(cleaned.warnings.filter("ended 1").size(), 1);
        QTRY_COMPARE(runner::processStartTime(pid), quint64(0));
    }

    void unwritableResultsDirIsAnIssue() {
        QTemporaryDir dir;
        probe::ProbeOptions o = baseOptions(dir);
        o.resultsDir = "/proc/commprof-results";
        const probe::ProbeReport r = probe::runProbe(o);
        QCOMPARE(r.issues.filter("not writable").size(), 1);
    }
};

QTEST_GUILESS_MAIN(TstProbe)
#include "tst_probe.moc"
