// SPDX-License-Identifier: GPL-3.0-or-later
// Emulated links, for real: `commprof run` over hosts that are network namespaces joined by a
// tbf-shaped veth pair. The sweep over 1gbit is checked against the configured rate; a runner
// stopped by a signal, or killed with SIGKILL and followed by the next run (or probe
// --cleanup), leaves this machine's namespaces and interfaces as they were; probe says which
// shapers the kernel has, as tc itself does. Skips with the reason without root or tbf.

#include "cli_runner.h"
#include "link_helpers.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cmath>
#include <csignal>

namespace {

QByteArray ddpMatrix(const QByteArray& link, int iterations) {
    return links_test::ddpMatrix("link_ddp", link, iterations);
}

using links_test::networkAside;
using links_test::runToken;

} // namespace

class TstLinks : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QProcessEnvironment env_ = QProcessEnvironment::systemEnvironment();

    QString write(const QString& name, const QByteArray& yaml) {
        const QString path = work_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(yaml) != yaml.size()) {
            qFatal("cannot write %s", qPrintable(path));
        }
        return path;
    }

    // Starts `commprof run` and waits until its cell's hosts exist; their names' token.
    QString startRunUntilHostsExist(QProcess& p, const QString& matrix, const QString& out) {
        p.setProcessEnvironment(env_);
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(COMMPROF_BIN_DIR "/commprof", {"run", matrix, "--out", out});
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 120000) {
            const QString token = runToken(out);
            if (!token.isEmpty() && links_test::namespacesWith(token).size() == 2) {
                return token;
            }
            QThread::msleep(100);
        }
        return {};
    }

private slots:
    void initTestCase() {
        if (const QString why = links_test::skipReason(); !why.isEmpty()) {
            QSKIP(qPrintable(why));
        }
        QVERIFY(work_.isValid());
        // Records of this test's own: another test's live run is never this test's business.
        env_.insert("COMMPROF_LINK_RECORD_DIR", work_.filePath("records"));
    }

    // At world size 2 an all-reduce moves its whole message through each rank's link once
    // (busbw = algbw), so the largest one's busbw is bounded by 1 Gbit/s = 125 MB/s and the fit's
    // beta by 8 ns per byte, whatever loopback does (about 0.4 ns per byte). The tbf shape kept
    // (a peak bucket at 1.1x, for the fit to see the link at small sizes) reached 55-90 % of the
    // rate and a beta of 10.3-12.7 ns/B on the loaded development machine, and 96 % and 8.25
    // ns/B on the quiet one (load 1.6, 2026-12-03), within the 80-100 % and 8 +- 20 % aimed at
    // (docs/measurement.md). A loaded machine leaves the link idle between gloo's chunks, so
    // this checks the link is the rate's, not loopback's, and not slower than half of it.
    void sweepOverOneGbitIsShapedAtTheRate() {
        const QString before = networkAside({});
        const QString matrix =
            write("sweep.yaml", "name: link_sweep\n"
                                "defaults: {link: 1gbit}\n"
                                "models: [{name: sweep, kind: sweep, collectives: "
                                "[all_reduce], max_bytes: 33554432, iterations: 5, warmup: 1}]\n"
                                "layers: [{name: gloo_cpu}]\n"
                                "world_sizes: [2]\n");
        const QString out = work_.filePath("sweep");
        const CliResult run = runCli("commprof", {"run", matrix, "--out", out}, 300000, env_);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString cell = QDir(out).filePath("cells/sweep_gloo_cpu_ws2_link1gbit_r0");
        const CliResult s = runCli("commprof", {"sweep", "summarize", cell, "--json"}, 60000);
        QCOMPARE(s.exitCode, 0);
        const QJsonObject series = s.json()["series"].toArray().first().toObject();
        const QJsonArray points = series["points"].toArray();
        const QJsonObject largest = points.last().toObject();
        QCOMPARE(largest["bytes"].toDouble(), 33554432.0);
        const double busbwMBps = largest["busbw_GBps"].toDouble() * 1000.0;
        const double betaNsPerByte = series["fit"].toObject()["beta_us_per_byte"].toDouble() * 1e3;
        qInfo("1gbit: busbw of the largest all_reduce %.1f MB/s (%.0f %% of 125), beta %.2f ns/B",
              busbwMBps, busbwMBps / 1.25, betaNsPerByte);
        QVERIFY2(busbwMBps >= 0.5 * 125 && busbwMBps <= 1.0 * 125, qPrintable(s.out));
        QVERIFY2(betaNsPerByte >= 0.8 * 8.0 && betaNsPerByte <= 2.0 * 8.0, qPrintable(s.out));
        // The manifest says where the cell ran; nothing of it is left.
        const std::optional<QJsonObject> manifestLink = links_test::manifestLink(cell);
        QVERIFY(manifestLink);
        const QJsonObject& link = *manifestLink;
        QCOMPARE(link["rate"].toString(), QString("1gbit"));
        QCOMPARE(link["hosts"].toInt(), 2);
        QCOMPARE(networkAside(runToken(out)), before);
    }

    // SIGKILL mid-cell leaves the hosts (nothing of the runner is left to remove them); the
    // next run removes them through the record, and probe --cleanup does for a second kill.
    void killedRunnerIsCleanedByTheNextRun() {
        const QString before = networkAside({});
        const QString matrix = write("long.yaml", ddpMatrix("500mbit", 100000));
        for (const QString& next : {QString("run"), QString("probe")}) {
            QProcess runner;
            const QString out = work_.filePath("killed_" + next);
            const QString token = startRunUntilHostsExist(runner, matrix, out);
            QVERIFY2(!token.isEmpty(), "the cell's hosts never appeared");
            ::kill(pid_t(runner.processId()), SIGKILL);
            runner.waitForFinished(10000);
            QThread::msleep(500); // the ranks die of their parent's death (PR_SET_PDEATHSIG)
            QCOMPARE(links_test::namespacesWith(token).size(), 2);
            if (next == "run") {
                const QString quick = write("quick.yaml", ddpMatrix("loopback", 3));
                const CliResult r = runCli(
                    "commprof", {"run", quick, "--out", work_.filePath("next")}, 300000, env_);
                QVERIFY2(r.exitCode == 0, r.err.constData());
            } else {
                const CliResult r = runCli(
                    "commprof", {"probe", "--cleanup", "--no-formation", "--json"}, 120000, env_);
                QVERIFY2(r.out.contains("removed 2 emulated host"), r.out.constData());
            }
            QVERIFY2(links_test::namespacesWith(token).isEmpty(), qPrintable(token));
            QCOMPARE(networkAside(token), before);
        }
    }

    // SIGINT, SIGTERM, SIGHUP stop the run: its cell's hosts go with it.
    void stoppedRunnerRemovesItsHosts_data() { links_test::addStopSignalRows(); }
    void stoppedRunnerRemovesItsHosts() {
        QFETCH(int, signal);
        const QString before = networkAside({});
        QProcess runner;
        const QString out = work_.filePath(QString("stopped%1").arg(signal));
        const QString token =
            startRunUntilHostsExist(runner, write("long.yaml", ddpMatrix("500mbit", 100000)), out);
        QVERIFY2(!token.isEmpty(), "the cell's hosts never appeared");
        ::kill(pid_t(runner.processId()), signal);
        QVERIFY(runner.waitForFinished(60000));
        QVERIFY2(links_test::namespacesWith(token).isEmpty(), qPrintable(token));
        QCOMPARE(networkAside(token), before);
        QVERIFY(QDir(work_.filePath("records")).entryList({"*.json"}, QDir::Files).isEmpty());
    }

    // probe's shapers are the ones tc itself takes in a namespace of this test's own.
    void probeNamesTheKernelsShapers() {
        const CliResult r = runCli("commprof", {"probe", "--json", "--no-formation"}, 120000, env_);
        const QJsonObject links = r.json()["links"].toObject();
        QVERIFY2(links["available"].toBool(), r.out.constData());
        const QJsonObject shapers = links["shapers"].toObject();
        const QString ns = QString("cptest-shapers-%1").arg(::getpid());
        links_test::run("ip", {"netns", "add", ns});
        for (const auto& [name, args] : links_test::triedShapers()) {
            int code = 0;
            links_test::run(
                "tc", QStringList{"-n", ns, "qdisc", "replace", "dev", "lo", "root", name} + args,
                &code);
            QVERIFY2(shapers[name].toBool() == (code == 0), qPrintable(name));
        }
        links_test::run("ip", {"netns", "del", ns});
    }
};

QTEST_GUILESS_MAIN(TstLinks)
#include "tst_links.moc"
