// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof run --launcher slurm` against a real one-node Slurm started by the test itself
// (local_slurm.h): a small matrix completes with the local launcher's shape, a cell cancelled
// with scancel and one past its deadline are flagged with Slurm's word and leave no process, a
// killed run resumes, a run inside salloc uses that allocation, and plan and probe ask the
// cluster. Skipped only when Slurm's programs are not installed.

#include "cli_runner.h"
#include "feasibility/plan.h"
#include "local_slurm.h"
#include "models/cell_table_model.h"
#include "rank_files.h"
#include "run_helpers.h"
#include "runner/slurm_jobs.h"

#include <QDateTime>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <csignal>

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

QString matrixText(const QString& name, int iterations, int timeoutS, const QString& worldSizes,
                   int port, const QString& launcherExtra = {}) {
    return QString("name: %1\n"
                   "defaults: {iterations: %2, warmup: 2, batch_size: 8, timeout_s: %3}\n"
                   "models: [{name: tiny, params: 2e5}]\n"
                   "layers: [{name: gloo_cpu, backend: gloo, device: cpu}]\n"
                   "world_sizes: %4\n"
                   "launcher: {kind: slurm, partition: commprof, rendezvous_port: %5%6}\n")
        .arg(name)
        .arg(iterations)
        .arg(timeoutS)
        .arg(worldSizes)
        .arg(port)
        .arg(launcherExtra);
}

int freePort() {
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    return s.serverPort();
}

QStringList jsonKeys(const QString& path) {
    QStringList keys = readJsonFile(path).keys();
    keys.sort();
    return keys;
}

// The first --json-progress "slurm" event of a cell that carries a job id.
QString jobIdFromProgress(QProcess& run, const QString& cell, QByteArray& seen) {
    QString id;
    waitForProgress(
        run, seen,
        [&](const QJsonObject& o) {
            if (o["event"].toString() == "slurm" && o["cell"].toString() == cell &&
                !o["job_id"].toString().isEmpty()) {
                id = o["job_id"].toString();
                return true;
            }
            return false;
        },
        120000);
    return id;
}

// A job's folder of rank traces: links to the given files under their own names.
QString traceFolder(const QString& parent, const QString& name, const QStringList& files) {
    const QString folder = QDir(parent).filePath(name);
    QDir().mkpath(folder);
    for (const QString& f : files) {
        QFile::link(f, folder + "/" + QFileInfo(f).fileName());
    }
    return folder;
}

QStringList recordedRanks(const QString& set, const QString& job, int ranks) {
    QStringList out;
    for (int r = 0; r < ranks; ++r) {
        out << QString(COMMPROF_TEST_DATA "/traces/%1/%2_rank%3.json.gz").arg(set, job).arg(r);
    }
    return out;
}

} // namespace

class TstSlurm : public QObject {
    Q_OBJECT
    LocalSlurm slurm_;
    QProcessEnvironment env_;

    CliResult commprof(const QStringList& args, int timeoutMs = 600000) {
        return runCli("commprof", args, timeoutMs, env_);
    }
    QProcess* startRun(const QStringList& args) {
        auto* p = new QProcess(this);
        p->setProcessEnvironment(env_);
        p->start(COMMPROF_BIN_DIR "/commprof",
                 QStringList{"run"} + args + QStringList{"--json-progress"});
        return p;
    }

private slots:
    void initTestCase() {
        COMMPROF_START_LOCAL_SLURM(slurm_);
        env_ = slurm_.env();
    }

    void cleanupTestCase() { slurm_.stop(); }

    void matrixCompletesWithTheLocalShape() {
        QTemporaryDir dir;
        const QString matrix = writeMatrix(dir, matrixText("shape", 12, 300, "[1, 2]", freePort()));
        const CliResult s = commprof({"run", matrix, "--out", dir.filePath("slurm")});
        QVERIFY2(s.exitCode == 0, s.err.constData());
        const CliResult l =
            commprof({"run", matrix, "--out", dir.filePath("local"), "--launcher", "local"});
        QVERIFY2(l.exitCode == 0, l.err.constData());

        const QStringList cells{"tiny_gloo_cpu_ws1_r0", "tiny_gloo_cpu_ws2_r0"};
        QCOMPARE(QDir(dir.filePath("slurm/cells")).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 cells);
        QCOMPARE(QDir(dir.filePath("local/cells")).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 cells);
        QSet<QString> jobs;
        for (const QString& id : cells) {
            const QString sd = dir.filePath("slurm/cells/" + id);
            const QString ld = dir.filePath("local/cells/" + id);
            const QJsonObject sm = readJsonFile(sd + "/manifest.json");
            QCOMPARE(sm["rank_files"], readJsonFile(ld + "/manifest.json")["rank_files"]);
            const int ws = id.contains("ws2") ? 2 : 1;
            for (int r = 0; r < ws; ++r) {
                const QString rf = QString("/rank%1.json").arg(r);
                QCOMPARE(jsonKeys(sd + rf), jsonKeys(ld + rf));
                const QJsonObject sr = readJsonFile(sd + rf);
                QCOMPARE(sr["world_size"].toInt(), ws);
                QCOMPARE(sr["rank"].toInt(), r);
                QCOMPARE(sr["iterations"].toArray().size(),
                         readJsonFile(ld + rf)["iterations"].toArray().size());
            }
            // Slurm's own record of the cell's job, not commprof's.
            const QJsonObject cell = readJsonFile(sd + "/cell.json");
            QCOMPARE(cell["status"].toString(), QString("complete"));
            const QJsonObject launcher = cell["launcher"].toObject();
            QCOMPARE(launcher["kind"].toString(), QString("slurm"));
            QCOMPARE(launcher["mode"].toString(), QString("sbatch"));
            const QString job = launcher["job_id"].toString();
            QVERIFY(!job.isEmpty());
            jobs << job;
            QCOMPARE(slurm_.jobField(job, "JobState"), QString("COMPLETED"));
            QCOMPARE(slurm_.jobField(job, "NumTasks"), QString::number(ws));
            QCOMPARE(slurm_.jobField(job, "Partition"), slurm_.partition());
            QCOMPARE(slurm_.jobField(job, "WorkDir"), sd);
            QCOMPARE(launcher["master_addr"].toString(), slurm_.host());
            QVERIFY(QFileInfo(sd + "/slurm_job.sh").isFile());
            QVERIFY(QFileInfo(sd + "/slurm-" + job + ".out").isFile());
            QCOMPARE(readJsonFile(ld + "/cell.json")["launcher"].toObject()["kind"].toString(),
                     QString("local"));
        }
        QCOMPARE(jobs.size(), 2); // one job per cell
    }

    void scancelMidRunIsFlaggedAndLeavesNothing() {
        QTemporaryDir dir;
        const QString results = dir.filePath("r");
        const QString matrix =
            writeMatrix(dir, matrixText("cancel", 100000, 300, "[2]", freePort()));
        QProcess* run = startRun({matrix, "--out", results});
        QByteArray seen;
        const QString cell = "tiny_gloo_cpu_ws2_r0";
        const QString job = jobIdFromProgress(*run, cell, seen);
        QVERIFY2(!job.isEmpty(), seen.constData());
        QVERIFY(waitForIteration(*run, cell, 3));
        QVERIFY(!processesNaming(results).isEmpty()); // the ranks do run
        slurm_.run("scancel", {job});
        QVERIFY(run->waitForFinished(180000));
        QCOMPARE(run->exitCode(), 1);
        const QJsonObject cellDoc = readJsonFile(results + "/cells/" + cell + "/cell.json");
        QCOMPARE(cellDoc["status"].toString(), QString("failed"));
        QVERIFY(!QFile::exists(results + "/cells/" + cell + "/manifest.json"));
        const QJsonObject launcher = cellDoc["launcher"].toObject();
        QCOMPARE(launcher["job_id"].toString(), job);
        QVERIFY2(launcher["state"].toString().startsWith("CANCELLED"),
                 qPrintable(launcher["state"].toString()));
        QVERIFY2(cellDoc["failure"].toString().contains("CANCELLED"),
                 qPrintable(cellDoc["failure"].toString()));
        QVERIFY(slurm_.jobField(job, "JobState").startsWith("CANCELLED"));
        const QStringList left = processesNaming(results);
        QVERIFY2(left.isEmpty(), qPrintable(left.join('\n')));
        QVERIFY(QDir(results + "/.jobs").entryList(QDir::Files).isEmpty());
    }

    void deadlinePassedCancelsTheJob() {
        QTemporaryDir dir;
        const QString results = dir.filePath("r");
        const QString matrix =
            writeMatrix(dir, matrixText("deadline", 100000, 40, "[2]", freePort()));
        const CliResult r = commprof({"run", matrix, "--out", results, "--json-progress"});
        QCOMPARE(r.exitCode, 1);
        const QString cell = results + "/cells/tiny_gloo_cpu_ws2_r0";
        const QJsonObject cellDoc = readJsonFile(cell + "/cell.json");
        QCOMPARE(cellDoc["status"].toString(), QString("failed"));
        QVERIFY2(cellDoc["failure"].toString().contains("deadline"),
                 qPrintable(cellDoc["failure"].toString()));
        const QString job = cellDoc["launcher"].toObject()["job_id"].toString();
        QVERIFY(!job.isEmpty());
        QVERIFY2(slurm_.jobField(job, "JobState").startsWith("CANCELLED"),
                 qPrintable(slurm_.jobField(job, "JobState")));
        // The 40 s deadline became Slurm's --time, rounded up to whole minutes.
        QCOMPARE(slurm_.jobField(job, "TimeLimit"), QString("00:01:00"));
        const QStringList left = processesNaming(results);
        QVERIFY2(left.isEmpty(), qPrintable(left.join('\n')));
    }

    void resumeAfterKilledRunKeepsCompleteCells() {
        QTemporaryDir dir;
        const QString results = dir.filePath("r");
        // The ws1 cell ends long before the ws2 cell that follows it (no peer to wait for).
        const QString matrix =
            writeMatrix(dir, matrixText("resume", 600, 300, "[1, 2]", freePort()));
        const QString done = results + "/cells/tiny_gloo_cpu_ws1_r0/manifest.json";
        const QString longCell = "tiny_gloo_cpu_ws2_r0";
        QProcess* run = startRun({matrix, "--out", results});
        QByteArray seen;
        const QString job = jobIdFromProgress(*run, longCell, seen);
        QVERIFY2(!job.isEmpty(), seen.constData());
        QVERIFY(QFile::exists(done));
        const QDateTime doneAt = QFileInfo(done).lastModified();
        ::kill(pid_t(run->processId()), SIGKILL);
        run->waitForFinished();
        // The killed run's job outlives it: sbatch --wait was only its client.
        QVERIFY2(commprof::runner::slurmStateActive(slurm_.jobField(job, "JobState")),
                 qPrintable(slurm_.jobField(job, "JobState")));
        const CliResult resumed = commprof({"run", matrix, "--out", results, "--resume"});
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QVERIFY2(QString(resumed.err).contains("cancelled 1 Slurm job"), resumed.err.constData());
        QVERIFY2(slurm_.jobField(job, "JobState").startsWith("CANCELLED"),
                 qPrintable(slurm_.jobField(job, "JobState")));
        QCOMPARE(QFileInfo(done).lastModified(), doneAt); // not run again
        QVERIFY(QString(resumed.err).contains("complete in an earlier run"));
        const QJsonObject again = readJsonFile(results + "/cells/" + longCell + "/cell.json");
        QCOMPARE(again["status"].toString(), QString("complete"));
        QVERIFY(again["launcher"].toObject()["job_id"].toString() != job);
    }

    void runInsideSallocUsesThatAllocation() {
        QTemporaryDir dir;
        const QString results = dir.filePath("r");
        const QString matrix = writeMatrix(dir, matrixText("alloc", 12, 300, "[1, 2]", freePort()));
        // salloc holds a 2-task allocation and runs commprof inside it, on this machine.
        QProcess salloc;
        salloc.setProcessEnvironment(env_);
        const QString commprofBin = COMMPROF_BIN_DIR "/commprof";
        salloc.start("salloc", {"--ntasks=2", "--job-name=commprof_alloc_test", commprofBin, "run",
                                matrix, "--out", results});
        QVERIFY(salloc.waitForFinished(600000));
        QVERIFY2(salloc.exitCode() == 0, salloc.readAllStandardError().constData());
        QSet<QString> allocations;
        for (const QString& id :
             {QString("tiny_gloo_cpu_ws1_r0"), QString("tiny_gloo_cpu_ws2_r0")}) {
            const QJsonObject l =
                readJsonFile(results + "/cells/" + id + "/cell.json")["launcher"].toObject();
            QCOMPARE(l["mode"].toString(), QString("allocation"));
            const QString job = l["job_id"].toString();
            allocations << job;
            QVERIFY2(l["step_id"].toString().startsWith(job + "."),
                     qPrintable(l["step_id"].toString()));
            QCOMPARE(slurm_.jobField(job, "JobName"), QString("commprof_alloc_test"));
            QVERIFY(!QFile::exists(results + "/cells/" + id + "/slurm_job.sh"));
        }
        QCOMPARE(allocations.size(), 1);
    }

    void planShowsPerNodeBudgetFromScontrol() {
        QTemporaryDir dir;
        const QString matrix = writeMatrix(dir, matrixText("plan", 12, 300, "[1, 2]", freePort()));
        const CliResult r = commprof({"plan", matrix, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject budget = r.json()["budget"].toObject();
        // RealMemory as slurm.conf says, minus the default reserve the source names.
        QVERIFY2(budget["host_source"].toString().contains("scontrol show node"),
                 qPrintable(budget["host_source"].toString()));
        QCOMPARE(budget["per"].toString(), QString("node"));
        QCOMPARE(budget["cpus_per_node"].toInt(), LocalSlurm::kCpus);
        const double reserveGib =
            budget["host_source"].toString().section(" minus ", 1).section(" GiB", 0, 0).toDouble();
        QCOMPARE(budget["host_bytes"].toDouble(),
                 LocalSlurm::kRealMemoryMib * kMiB - reserveGib * 1024 * kMiB);
        const CliResult text = commprof({"plan", matrix});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(QString(text.out).contains("per node"), text.out.constData());

        // Four ranks, at most two a node: two nodes of two ranks, each node carrying what
        // the two-rank cell carries on its one node.
        const QString spread = writeMatrix(
            dir, matrixText("spread", 12, 300, "[2, 4]", freePort(), ", ntasks_per_node: 2"),
            "spread.yaml");
        const CliResult sp = commprof({"plan", spread, "--json"});
        QVERIFY2(sp.exitCode == 0, sp.err.constData());
        const QJsonArray cells = sp.json()["cells"].toArray();
        QCOMPARE(cells.size(), 2);
        const QJsonArray two = cells[0].toObject()["nodes"].toArray();
        const QJsonArray four = cells[1].toObject()["nodes"].toArray();
        QCOMPARE(two.size(), 1);
        QCOMPARE(four.size(), 2);
        for (const QJsonValue n : four) {
            QCOMPARE(n.toObject()["ranks"].toInt(), 2);
            QCOMPARE(n.toObject()["host_bytes"].toDouble(),
                     two[0].toObject()["host_bytes"].toDouble());
        }
        const CliResult spText = commprof({"plan", spread});
        QVERIFY2(QString(spText.out)
                     .contains(QRegularExpression(
                         "tiny_gloo_cpu_ws4_r0 .* on 2 node\\(s\\): ranks 2\\+2, host ")),
                 spText.out.constData());
        // The designer's table shows the same per node.
        commprof::feasibility::PlanOptions o;
        const auto plan = std::make_shared<const commprof::feasibility::Plan>(
            commprof::feasibility::makePlan(spread, o));
        commprof::models::CellTableModel table;
        table.setPlan(plan, {});
        int row = 0;
        while (row < table.rowCount() &&
               table.index(row, commprof::models::CellTableModel::Id).data() !=
                   "tiny_gloo_cpu_ws4_r0") {
            ++row;
        }
        const QString shown =
            table.index(row, commprof::models::CellTableModel::Nodes).data().toString();
        QVERIFY2(shown.startsWith("ranks 2+2, host "), qPrintable(shown));
    }

    // `trace summarize DIR --launcher slurm`: every rank reduced by a task of one job array on
    // the cluster, merged here, prints what the local run prints, byte for byte, in every
    // format. Real traces: the TensorBoard plugin's four workers (with a results cell's rank
    // file beside them, which both skip) and a recorded gloo job's two ranks, with --hta and
    // --window; and one run from a relative path, as the tasks start in the current folder.
    void summarizeOnSlurmEqualsTheLocalRun_data() {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<bool>("withRankFile");
        const QString tb =
            COMMPROF_TEST_DATA "/traces/corpus/kineto/tb_plugin/samples/resnet50_num_workers_4";
        QStringList workers;
        for (const QString& f : QDir(tb).entryList({"*.json", "*.json.gz"}, QDir::Files)) {
            workers << tb + "/" + f;
        }
        QTest::newRow("tb_plugin 4 workers --hta") << workers << QStringList{"--hta"} << true;
        QTest::newRow("recorded mlp4x512 --window")
            << recordedRanks("recorded", "mlp4x512_ws3", 2)
            << QStringList{"--window", "150000:400000"} << false;
    }

    void summarizeOnSlurmEqualsTheLocalRun() {
        QFETCH(QStringList, files);
        QFETCH(QStringList, options);
        QFETCH(bool, withRankFile);
        QVERIFY(files.size() >= 2);
        QTemporaryDir dir;
        const QString folder = traceFolder(dir.path(), "job", files);
        if (withRankFile) {
            QFile rank(folder + "/rank0.json");
            QVERIFY(rank.open(QIODevice::WriteOnly));
            rank.write(R"({"rank": 0, "iterations": []})");
        }
        const QString reduced = dir.filePath("reduced");
        const QList<QStringList> formats{{}, {"--json"}, {"--format", "csv"}};
        for (const QStringList& format : formats) {
            const QStringList args = QStringList{"trace", "summarize", folder} + options + format;
            const CliResult local = commprof(args);
            QVERIFY2(local.exitCode == 0, local.err.constData());
            QVERIFY(!local.out.isEmpty());
            const CliResult onSlurm =
                commprof(args + QStringList{"--launcher", "slurm", "--reduced", reduced});
            QVERIFY2(onSlurm.exitCode == 0, onSlurm.err.constData());
            QVERIFY2(onSlurm.out == local.out,
                     qPrintable(format.join(' ') + ": differs:\n" + onSlurm.out.left(3000) +
                                "\n--- local:\n" + local.out.left(3000)));
        }
        // One small file per rank trace (and the rank file recorded as not a trace), together
        // smaller than the traces even as gzip holds them.
        const QStringList written = QDir(reduced + "/reduced").entryList({"*.json"}, QDir::Files);
        QCOMPARE(written.size(), files.size() + (withRankFile ? 1 : 0));
        qint64 traceBytes = 0, reducedBytes = 0;
        for (const QString& f : files) {
            traceBytes += QFileInfo(f).size();
        }
        for (const QString& f : written) {
            const QJsonObject doc = readJsonFile(reduced + "/reduced/" + f);
            QCOMPARE(doc["format"].toString(), QString("commprof-trace-reduction"));
            QCOMPARE(doc["version"].toInt(), 2);
            reducedBytes += QFileInfo(reduced + "/reduced/" + f).size();
        }
        QVERIFY2(
            reducedBytes < traceBytes,
            qPrintable(
                QString("%1 reduced bytes for %2 of traces").arg(reducedBytes).arg(traceBytes)));

        // From a relative path, without --reduced: the tasks start in the current folder, and
        // the temporary work folder there is gone after the merge.
        const QStringList relative{"trace", "summarize", "job", "--json"};
        const CliResult local =
            runProgram(COMMPROF_BIN_DIR "/commprof", relative + options, 600000, env_, dir.path());
        const CliResult onSlurm = runProgram(
            COMMPROF_BIN_DIR "/commprof", relative + options + QStringList{"--launcher", "slurm"},
            600000, env_, dir.path());
        QVERIFY2(local.exitCode == 0 && onSlurm.exitCode == 0, onSlurm.err.constData());
        QVERIFY(onSlurm.out == local.out);
        QVERIFY(local.json()["ranks"].toArray().first()["source"].toString().startsWith("job/"));
        QCOMPARE(QDir(dir.path()).entryList({"commprof-reduce-*"}, QDir::Dirs), QStringList{});

        // One trace alone: its own document, reduced by a single task.
        const QStringList single = QStringList{"trace", "summarize", files.first(), "--json"};
        const CliResult alone = commprof(single + options);
        const CliResult aloneOnSlurm =
            commprof(single + options + QStringList{"--launcher", "slurm"});
        QVERIFY2(alone.exitCode == 0 && aloneOnSlurm.exitCode == 0, aloneOnSlurm.err.constData());
        QVERIFY(alone.json().contains("steps"));
        QVERIFY(aloneOnSlurm.out == alone.out);
    }

    // A task that fails (a truncated trace) is named with its file and its array task, and
    // nothing of the job is printed; its work folder is kept with the task's output.
    void aFailedTaskIsNamedAndNothingIsMerged() {
        QTemporaryDir dir;
        const QStringList good = recordedRanks("recorded", "convnet_ws2", 2);
        const QString folder = traceFolder(dir.path(), "job", good);
        QFile whole(good[1]);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QString truncated = folder + "/convnet_ws2_rank2.json.gz";
        QFile cut(truncated);
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(whole.read(64));
        cut.close();
        const CliResult local = commprof({"trace", "summarize", folder, "--json"});
        QCOMPARE(local.exitCode, 2);
        const CliResult r =
            runProgram(COMMPROF_BIN_DIR "/commprof",
                       {"trace", "summarize", folder, "--json", "--launcher", "slurm"}, 600000,
                       env_, dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.isEmpty(), r.out.constData());
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(truncated + ": array task 2 of slurm job "), qPrintable(err));
        QVERIFY2(err.contains("1 of 3 task(s) failed, nothing merged"), qPrintable(err));
        // The task's own error, from its output: the same words the local run says.
        const QString localError = QString::fromUtf8(local.err).section(": ", 1).trimmed();
        QVERIFY2(!localError.isEmpty() && err.contains(localError.left(60)),
                 qPrintable(err + "\n--- local: " + local.err));
        const QStringList kept = QDir(dir.path()).entryList({"commprof-reduce-*"}, QDir::Dirs);
        QCOMPARE(kept.size(), 1);
        QVERIFY(err.contains(kept.first()));
    }

    void probeFindsThePartitionAndItsIdleNode() {
        const CliResult r = commprof({"probe", "--launcher", "slurm", "--json"});
        QVERIFY2(r.exitCode == 0, r.out.constData());
        const QJsonObject o = r.json();
        QCOMPARE(o["partition"].toString(), slurm_.partition());
        QVERIFY(o["partition_up"].toBool());
        const QJsonArray nodes = o["nodes"].toArray();
        QCOMPARE(nodes.size(), 1);
        QCOMPARE(nodes[0].toObject()["name"].toString(), slurm_.host());
        QCOMPARE(nodes[0].toObject()["cpus"].toInt(), LocalSlurm::kCpus);
        QCOMPARE(nodes[0].toObject()["idle"].toBool(), slurm_.nodeState().startsWith("IDLE"));
        const CliResult missing =
            commprof({"probe", "--launcher", "slurm", "--partition", "nosuch", "--json"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.json()["issues"].toArray().first().toString().contains("nosuch"),
                 missing.out.constData());
    }
};

QTEST_GUILESS_MAIN(TstSlurm)
#include "tst_slurm.moc"
