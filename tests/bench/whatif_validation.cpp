// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark, outside ctest: `commprof trace whatif` against runs it did not see, Python DDP jobs
// (Debian's python3-torch, gloo, 2 ranks) that train several DDP settings inside one job
// (tests/ddp_trace_variants.py: this machine drifts by up to 30 % between runs, far more than a
// cap moves a step), each setting's unprofiled steps timed in interleaved rounds and each one
// traced. Every setting's step is predicted from every other setting's trace, as a ratio to that
// trace's replayed step times its unprofiled median (a trace carries the profiler's overhead):
//
//   - caps 0.25 / 1 / 4 / 25 MiB and the fp16 hook for an MLP and a convolutional network on
//     loopback: the MAPE, the predicted buckets against the ones each trace recorded (a wrong
//     bucket rule is caught there), and fp16's direction;
//   - the MLP over a 2gbit and a 500mbit link between two namespaces of the test's own: each
//     link's steps from the other link's traces at --bandwidth-x 0.25 and 4 (a cost that ignored
//     the bandwidth would miss the slower link by half), and fp16's direction on each link.
//
// Per job it prints the model's MAPE beside predicting "no change" (each setting's step taken as
// the traced one's), the replays' error on their recordings, how often the measured step lands
// inside the stated 90 % interval, and fp16's direction, with the load average: live timings are
// printed, never judged (they failed a loaded ctest). Skips with the reason where python3 has no
// torch, and the link half without root or tbf. Run: build/tests/bench/whatif_validation
// (docs/measurement.md).

#include "cli_runner.h"
#include "link_helpers.h"
#include "python_ranks.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace {

using python_ranks::kPython;
const QString kLoopbackVariants = "0.25:allreduce,1:allreduce,4:allreduce,25:allreduce,"
                                  "1:fp16_compress,25:fp16_compress";
const QString kLinkVariants = "1:allreduce,25:allreduce,25:fp16_compress";

struct Variant {
    QString label;
    double capMb = 0;
    QString hook;
    double unprofiledMs = 0;
};

// One job's variants, as its steps.json lists them.
std::vector<Variant> variantsOf(const QString& dir) {
    QFile f(dir + "/steps.json");
    std::vector<Variant> out;
    if (!f.open(QIODevice::ReadOnly)) {
        return out;
    }
    for (const QJsonValue v : QJsonDocument::fromJson(f.readAll())["variants"].toArray()) {
        std::vector<double> steps;
        for (const QJsonValue s : v["unprofiled_ms"].toArray()) {
            steps.push_back(s.toDouble());
        }
        out.push_back({v["label"].toString(), v["bucket_cap_mb"].toDouble(), v["hook"].toString(),
                       links_test::median(steps)});
    }
    return out;
}

// `trace whatif` on one variant's trace over every cap and hook the jobs ran.
QJsonObject whatIf(const QString& dir, const Variant& v, const QStringList& extra = {}) {
    const QString traces = dir + "/" + v.label;
    const CliResult r =
        runCli("commprof",
               QStringList{"trace", "whatif", traces, "--params", traces + "/params.json",
                           "--bucket-cap-mb", "0.25,1,4,25", "--hook", "allreduce,fp16_compress",
                           "--json"} +
                   extra,
               120000);
    if (r.exitCode != 0) {
        qWarning("%s: %s", qPrintable(traces), r.err.constData());
        return {};
    }
    return r.json();
}

QJsonObject scenarioFor(const QJsonObject& whatif, const Variant& v) {
    for (const QJsonValue s : whatif["scenarios"].toArray()) {
        if (s["bucket_cap_mb"].toDouble() == v.capMb && s["hook"].toString() == v.hook) {
            return s.toObject();
        }
    }
    return {};
}

// `to`'s step predicted from `from`'s trace: the scenario's step over the replayed one, times
// `from`'s unprofiled median.
double predicted(const QJsonObject& whatif, const Variant& from, const Variant& to) {
    return from.unprofiledMs * scenarioFor(whatif, to)["step_ms"].toDouble() /
           whatif["recorded"]["replayed_step_ms"].toDouble();
}

} // namespace

class WhatIfValidation : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QStringList ns_;
    int port_ = 29400 + int(QCoreApplication::applicationPid() % 400);

    // Both ranks of one job; its folder, empty when it failed. In `hosts` (two namespaces
    // joined by cpl0) when given, else on loopback.
    QString record(const QString& name, const QString& model, const QString& variants,
                   const QStringList& hosts = {}, const QStringList& extra = {}) {
        // Debian's torch 1.13 has been seen to abort a rank now and then ("malloc(): invalid
        // size (unsorted)", once in six suite runs): once more, with the first failure shown.
        for (int attempt = 1; attempt <= 2; ++attempt) {
            const QString out =
                recordOnce(name + (attempt > 1 ? "_retry" : ""), model, variants, hosts, extra);
            if (!out.isEmpty()) {
                return out;
            }
        }
        return {};
    }

    QString recordOnce(const QString& name, const QString& model, const QString& variants,
                       const QStringList& hosts, const QStringList& extra) {
        const QString out = work_.filePath(name);
        const int port = port_++;
        std::vector<std::unique_ptr<QProcess>> ranks;
        for (int r = 0; r < 2; ++r) {
            auto p = std::make_unique<QProcess>();
            QProcessEnvironment env = python_ranks::rankEnvironment(
                r, 2, hosts.isEmpty() ? "127.0.0.1" : "169.254.88.1", port);
            if (!hosts.isEmpty()) {
                env.insert("GLOO_SOCKET_IFNAME", "cpl0");
            }
            p->setProcessEnvironment(env);
            p->setProcessChannelMode(QProcess::MergedChannels);
            const QStringList job = QStringList{COMMPROF_SOURCE_DIR "/tests/ddp_trace_variants.py",
                                                "--model",
                                                model,
                                                "--variants",
                                                variants,
                                                "--out",
                                                out} +
                                    extra;
            if (hosts.isEmpty()) {
                p->start(kPython, job);
            } else {
                p->start("ip", QStringList{"netns", "exec", hosts[r], kPython} + job);
            }
            ranks.push_back(std::move(p));
        }
        bool ok = true;
        for (auto& p : ranks) {
            ok = p->waitForFinished(300000) && p->exitCode() == 0 && ok;
            if (p->exitCode() != 0) {
                qWarning("%s", p->readAll().constData());
            }
        }
        return ok ? out : QString();
    }

    // Two namespaces of the test's own joined by a veth pair, each end shaped to `rate`.
    QString makeHosts(const QString& tag, const QString& rate, QStringList* hosts) {
        const QString base = QString("cptest-wv%1-%2").arg(::getpid()).arg(tag);
        *hosts = {base + "-a", base + "-b"};
        ns_ << *hosts;
        QStringList errors;
        const auto ip = [&](const QStringList& args) {
            int code = 0;
            const QByteArray out = links_test::run("ip", args, &code);
            if (code != 0) {
                errors << "ip " + args.join(' ') + ": " + out;
            }
        };
        for (const QString& n : *hosts) {
            ip({"netns", "add", n});
            ip({"-n", n, "link", "set", "lo", "up"});
        }
        ip({"link", "add", "cpl0", "netns", (*hosts)[0], "type", "veth", "peer", "name", "cpl0",
            "netns", (*hosts)[1]});
        for (int h = 0; h < 2; ++h) {
            ip({"-n", (*hosts)[h], "addr", "add", QString("169.254.88.%1/24").arg(h + 1), "dev",
                "cpl0"});
            ip({"-n", (*hosts)[h], "link", "set", "cpl0", "up"});
            int code = 0;
            const QByteArray out =
                links_test::run("tc",
                                {"-n", (*hosts)[h], "qdisc", "add", "dev", "cpl0", "root", "tbf",
                                 "rate", rate, "burst", "256kb", "latency", "50ms"},
                                &code);
            if (code != 0) {
                errors << "tc: " + out;
            }
        }
        return errors.join("; ");
    }

    // Every variant's step from every other's trace; the MAPE, with the checks every pair
    // makes: the predicted buckets are the ones the other trace recorded, and the replays are
    // within 5 % of their traces' median steps (the median over the job; each within 15 %).
    double crossPredictions(const QString& what, const QString& dir) {
        const std::vector<Variant> vs = variantsOf(dir);
        if (vs.size() < 2) {
            QTest::qFail(qPrintable(dir + ": no variants"), __FILE__, __LINE__);
            return 1;
        }
        std::map<QString, QJsonObject> w;
        std::vector<double> replayErrors;
        for (const Variant& v : vs) {
            w[v.label] = whatIf(dir, v);
            const QJsonObject rec = w[v.label]["recorded"].toObject();
            const double replayError =
                rec["replayed_step_ms"].toDouble() / rec["step_ms"].toDouble() - 1;
            qInfo("%s %s: traced median %.1f ms, replayed %.1f ms (%+.1f %%), unprofiled %.1f ms",
                  qPrintable(what), qPrintable(v.label), rec["step_ms"].toDouble(),
                  rec["replayed_step_ms"].toDouble(), replayError * 100, v.unprofiledMs);
            replayErrors.push_back(std::abs(replayError));
        }
        // Beside the model's errors, those of predicting "no change" (each setting's step as
        // the source's own unprofiled step), and both over the caps alone (allreduce to
        // allreduce), where the step barely moves.
        double sum = 0, sumNone = 0, sumCaps = 0, sumCapsNone = 0;
        int n = 0, nCaps = 0, covered = 0, bucketsOff = 0;
        for (const Variant& from : vs) {
            for (const Variant& to : vs) {
                if (from.label == to.label) {
                    continue;
                }
                const int buckets = scenarioFor(w[from.label], to)["buckets"].toInt();
                const int recorded = w[to.label]["recorded"].toObject()["buckets"].toInt();
                if (buckets != recorded) {
                    ++bucketsOff;
                    qInfo("%s from %s's trace: %d buckets, its own trace recorded %d",
                          qPrintable(to.label), qPrintable(from.label), buckets, recorded);
                }
                const double p = predicted(w[from.label], from, to);
                // The stated interval, as a share of the replayed step, around the prediction.
                const double interval =
                    from.unprofiledMs *
                    scenarioFor(w[from.label], to)["uncertainty_ms"].toDouble() /
                    w[from.label]["recorded"].toObject()["replayed_step_ms"].toDouble();
                covered += std::abs(p - to.unprofiledMs) <= interval;
                const double error = std::abs(p - to.unprofiledMs) / to.unprofiledMs;
                const double none = std::abs(from.unprofiledMs - to.unprofiledMs) / to.unprofiledMs;
                sum += error;
                sumNone += none;
                ++n;
                if (from.hook == "allreduce" && to.hook == "allreduce") {
                    sumCaps += error;
                    sumCapsNone += none;
                    ++nCaps;
                }
            }
        }
        const double mape = sum / n;
        qInfo("%s: MAPE %.1f %% over %d predictions, \"no change\" %.1f %%; caps alone %.1f %%, "
              "\"no change\" %.1f %%; replay error median %.1f %%; 90 %% interval covers %d of "
              "%d (%.0f %%); buckets unlike the recorded %d (load average %s)",
              qPrintable(what), mape * 100, n, sumNone / n * 100,
              nCaps ? sumCaps / nCaps * 100 : 0.0, nCaps ? sumCapsNone / nCaps * 100 : 0.0,
              links_test::median(replayErrors) * 100, covered, n, 100.0 * covered / n, bucketsOff,
              qPrintable(links_test::loadAverage()));
        return mape;
    }

    // fp16's direction at `cap` on this job: predicted from the allreduce trace as measured.
    void checkFp16Direction(const QString& dir, double cap) {
        const std::vector<Variant> vs = variantsOf(dir);
        const auto at = [&](const QString& hook) {
            return *std::find_if(vs.begin(), vs.end(), [&](const Variant& v) {
                return v.capMb == cap && v.hook == hook;
            });
        };
        const Variant plain = at("allreduce"), fp16 = at("fp16_compress");
        const double p = predicted(whatIf(dir, plain), plain, fp16);
        qInfo("%s: fp16 at %g MiB measured %.1f ms against allreduce's %.1f ms, predicted %.1f ms",
              qPrintable(QDir(dir).dirName()), cap, fp16.unprofiledMs, plain.unprofiledMs, p);
        qInfo("%s: fp16's direction %s", qPrintable(QDir(dir).dirName()),
              (p > plain.unprofiledMs) == (fp16.unprofiledMs > plain.unprofiledMs) ? "right"
                                                                                   : "wrong");
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        if (qEnvironmentVariableIsSet("KEEP_WORK")) {
            work_.setAutoRemove(false);
            qInfo("jobs kept in %s", qPrintable(work_.path()));
        }
        if (!python_ranks::hasTorch()) {
            QSKIP("/usr/bin/python3 has no torch (apt-get install python3-torch)");
        }
    }

    void cleanupTestCase() {
        for (const QString& n : ns_) {
            links_test::run("ip", {"netns", "del", n});
        }
    }

    void loopbackCapsAndHooks() {
        for (const QString& model : {QString("mlp"), QString("convnet")}) {
            const QString dir = record("loopback_" + model, model, kLoopbackVariants);
            QVERIFY2(!dir.isEmpty(), "a Python DDP job failed");
            crossPredictions(model + " on loopback", dir);
            checkFp16Direction(dir, 25);
        }
    }

    void linksPredictEachOther() {
        if (const QString why = links_test::skipReason(); !why.isEmpty()) {
            QSKIP(qPrintable(why));
        }
        QStringList fast, slow;
        QString error = makeHosts("f", "2gbit", &fast);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = makeHosts("s", "500mbit", &slow);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString fastDir = record("link_2gbit", "mlp", kLinkVariants, fast);
        const QString slowDir = record("link_500mbit", "mlp", kLinkVariants, slow);
        QVERIFY2(!fastDir.isEmpty() && !slowDir.isEmpty(), "a Python DDP job failed");
        for (const QString& dir : {fastDir, slowDir}) {
            crossPredictions(QDir(dir).dirName(), dir);
            checkFp16Direction(dir, 25);
        }
        // Each link's steps from the other link's traces: the bandwidth through the ring. The
        // two links are two jobs, a drift apart: each is run once more, alternating, and each
        // setting's unprofiled step taken as the mean of its two runs.
        std::vector<Variant> onFast = variantsOf(fastDir), onSlow = variantsOf(slowDir);
        const QStringList again{"--traced", "0"}; // steps only: its traces are not read
        const std::vector<Variant> fast2 =
            variantsOf(record("link_2gbit_again", "mlp", kLinkVariants, fast, again));
        const std::vector<Variant> slow2 =
            variantsOf(record("link_500mbit_again", "mlp", kLinkVariants, slow, again));
        QVERIFY2(fast2.size() == onFast.size() && slow2.size() == onSlow.size(),
                 "a Python DDP job failed");
        for (std::size_t i = 0; i < onFast.size(); ++i) {
            onFast[i].unprofiledMs = (onFast[i].unprofiledMs + fast2[i].unprofiledMs) / 2;
            onSlow[i].unprofiledMs = (onSlow[i].unprofiledMs + slow2[i].unprofiledMs) / 2;
        }
        double worstWhole = 0, worstOverlapped = 0;
        double leastChangeShare = 1e9; // of the measured change, the predicted one (25 MiB)
        for (std::size_t i = 0; i < onFast.size(); ++i) {
            for (const auto& [from, fromDir, to, k] :
                 {std::tuple{onFast[i], fastDir, onSlow[i], "0.25"},
                  std::tuple{onSlow[i], slowDir, onFast[i], "4"}}) {
                const double p = predicted(whatIf(fromDir, from, {"--bandwidth-x", k}), from, to);
                const double error = (p - to.unprofiledMs) / to.unprofiledMs;
                qInfo("%s from %s x%s: predicted %.1f ms, measured %.1f ms (%+.1f %%)",
                      qPrintable(to.label), qPrintable(QDir(fromDir).dirName()), k, p,
                      to.unprofiledMs, error * 100);
                if (from.hook == "allreduce") {
                    double& worst = from.capMb >= 25 ? worstWhole : worstOverlapped;
                    worst = std::max(worst, std::abs(error));
                }
                if (from.hook == "allreduce" && from.capMb >= 25) {
                    const double measured = to.unprofiledMs - from.unprofiledMs;
                    leastChangeShare =
                        std::min(leastChangeShare, (p - from.unprofiledMs) / measured);
                }
            }
        }
        qInfo("bandwidth: worst allreduce error %.1f %% at 25 MiB, %.1f %% at 1 MiB; at 25 MiB "
              "the predicted change is at least %.2f of the measured (load average %s)",
              worstWhole * 100, worstOverlapped * 100, leastChangeShare,
              qPrintable(links_test::loadAverage()));
        // At 25 MiB the gradients go in two buckets, the larger after the backward: the link
        // sets their exposure, and the predicted change carries at least half the measured one
        // in quiet runs (docs/cli.md). Printed above, judged by whoever reads it.
    }
};

QTEST_GUILESS_MAIN(WhatIfValidation)
#include "whatif_validation.moc"
