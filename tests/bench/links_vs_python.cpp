// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark (never run by ctest: a ratio of two live timings is no pass/fail check): DDP over
// an emulated 1gbit link against PyTorch's own Python DDP over the same link shape. commprof
// runs its cell on the hosts it makes; the benchmark makes two namespaces of its own, joined as
// commprof joins hosts (a veth pair, tbf at the rate on each end), and starts the two Python
// ranks in them itself. Runs alternate (this machine drifts by up to 30 % between runs), and the
// median of the rounds' ratios is printed with the load average (docs/measurement.md). It fails
// only where a run fails; it skips with the reason without root, tbf, or python3 with torch.
// Run it as root: build/bin/links_vs_python

#include "cli_runner.h"
#include "link_helpers.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

namespace {

constexpr int kRounds = 4;
constexpr int kIterations = 14;
constexpr int kWarmup = 4;
const QString kRate = "1gbit";
const QString kPython = "/usr/bin/python3";

} // namespace

class LinksVsPython : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QProcessEnvironment env_ = QProcessEnvironment::systemEnvironment();
    QStringList ns_;

    QString ip(const QStringList& args) {
        int code = 0;
        const QByteArray out = links_test::run("ip", args, &code);
        return code == 0 ? QString() : "ip " + args.join(' ') + ": " + out;
    }

    // Two namespaces of the test's own, joined as commprof joins two hosts.
    QString makePythonHosts() {
        const QString base = QString("cptest-py%1").arg(::getpid());
        ns_ = {base + "-a", base + "-b"};
        QStringList errors;
        for (const QString& n : ns_) {
            errors << ip({"netns", "add", n}) << ip({"-n", n, "link", "set", "lo", "up"});
        }
        errors << ip({"link", "add", "cpl0", "netns", ns_[0], "type", "veth", "peer", "name",
                      "cpl0", "netns", ns_[1]});
        for (int h = 0; h < 2; ++h) {
            errors << ip({"-n", ns_[h], "addr", "add", QString("169.254.88.%1/24").arg(h + 1),
                          "dev", "cpl0"})
                   << ip({"-n", ns_[h], "link", "set", "cpl0", "up"});
            int code = 0;
            const QByteArray out =
                links_test::run("tc",
                                {"-n", ns_[h], "qdisc", "add", "dev", "cpl0", "root", "tbf", "rate",
                                 kRate, "burst", "256kb", "latency", "50ms"},
                                &code);
            errors << (code == 0 ? QString() : QString(out));
        }
        errors.removeAll(QString());
        return errors.join("; ");
    }

    // One commprof run of the cell; rank 0's recorded steps and its rank file.
    std::vector<double> commprofSteps(int round, QString* rankFile) {
        const QString matrix = work_.filePath("ddp.yaml");
        const QString out = work_.filePath(QString("run%1").arg(round));
        const CliResult r = runCli("commprof", {"run", matrix, "--out", out}, 300000, env_);
        if (r.exitCode != 0) {
            qWarning("%s", r.err.constData());
            return {};
        }
        *rankFile = QDir(out).filePath("cells/mlp_gloo_cpu_ws2_link1gbit_r0/rank0.json");
        QFile f(*rankFile);
        std::vector<double> steps;
        if (f.open(QIODevice::ReadOnly)) {
            for (const QJsonValue v :
                 QJsonDocument::fromJson(f.readAll())["iterations"].toArray()) {
                if (v["iter"].toInt() >= kWarmup) {
                    steps.push_back(v["step_ms"].toDouble());
                }
            }
        }
        return steps;
    }

    // Python DDP's two ranks, each started in its namespace with `ip netns exec`.
    std::vector<double> pythonSteps(const QString& rankFile) {
        std::vector<std::unique_ptr<QProcess>> ranks;
        for (int r = 0; r < 2; ++r) {
            auto p = std::make_unique<QProcess>();
            QProcessEnvironment env = env_;
            env.insert("GLOO_SOCKET_IFNAME", "cpl0");
            p->setProcessEnvironment(env);
            p->start("ip", {"netns",
                            "exec",
                            ns_[r],
                            kPython,
                            COMMPROF_SOURCE_DIR "/tests/python_ddp_link.py",
                            rankFile,
                            "--rank",
                            QString::number(r),
                            "--world",
                            "2",
                            "--master",
                            "169.254.88.1",
                            "--port",
                            "29731",
                            "--iterations",
                            QString::number(kIterations),
                            "--warmup",
                            QString::number(kWarmup),
                            "--batch-size",
                            "32",
                            "--threads",
                            "1"});
            ranks.push_back(std::move(p));
        }
        for (auto& p : ranks) {
            p->waitForFinished(300000);
        }
        const QByteArray out = ranks[0]->readAllStandardOutput();
        if (ranks[0]->exitCode() != 0 || ranks[1]->exitCode() != 0) {
            qWarning("python ranks: %s %s", ranks[0]->readAllStandardError().constData(),
                     ranks[1]->readAllStandardError().constData());
            return {};
        }
        std::vector<double> steps;
        for (const QJsonValue v : QJsonDocument::fromJson(out)["step_ms"].toArray()) {
            steps.push_back(v.toDouble());
        }
        return steps;
    }

private slots:
    void initTestCase() {
        if (const QString why = links_test::skipReason(); !why.isEmpty()) {
            QSKIP(qPrintable(why));
        }
        int code = 0;
        links_test::run(kPython, {"-c", "import torch.distributed"}, &code);
        if (code != 0) {
            QSKIP("/usr/bin/python3 has no torch.distributed (Debian's python3-torch)");
        }
        QVERIFY(work_.isValid());
        env_.insert("COMMPROF_LINK_RECORD_DIR", work_.filePath("records"));
        QFile m(work_.filePath("ddp.yaml"));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write("name: link_python\n"
                "defaults: {iterations: " +
                QByteArray::number(kIterations) + ", warmup: " + QByteArray::number(kWarmup) +
                ", batch_size: 32, link: " + kRate.toUtf8() +
                "}\n"
                "models: [{name: mlp, family: mlp, params: 2.0e6}]\n"
                "layers: [{name: gloo_cpu}]\n"
                "world_sizes: [2]\n");
        m.close();
        const QString error = makePythonHosts();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase() {
        for (const QString& n : ns_) {
            ip({"netns", "del", n});
        }
    }

    void stepsMatchPythonDdpOverTheSameLink() {
        std::vector<double> ours, theirs, paired;
        QStringList rounds;
        for (int round = 0; round < kRounds; ++round) {
            QString rankFile;
            const std::vector<double> c = commprofSteps(round, &rankFile);
            QVERIFY2(!c.empty(), "commprof's cell failed");
            const std::vector<double> p = pythonSteps(rankFile);
            QVERIFY2(!p.empty(), "Python DDP failed");
            ours.push_back(links_test::median(c));
            theirs.push_back(links_test::median(p));
            paired.push_back(ours.back() / theirs.back());
            rounds << QString("%1/%2").arg(ours.back(), 0, 'f', 1).arg(theirs.back(), 0, 'f', 1);
        }
        // Each round's two runs are neighbours in time: the median of their ratios cancels the
        // machine's drift between rounds, which a ratio of the two medians keeps.
        const double ratio = links_test::median(paired);
        qInfo("over %s: commprof/python step medians per round (ms) %s; median of the rounds' "
              "ratios %.3f (ratio of medians %.3f); load average %s",
              qPrintable(kRate), qPrintable(rounds.join(", ")), ratio,
              links_test::median(ours) / links_test::median(theirs),
              qPrintable(links_test::loadAverage()));
    }
};

QTEST_GUILESS_MAIN(LinksVsPython)
#include "links_vs_python.moc"
