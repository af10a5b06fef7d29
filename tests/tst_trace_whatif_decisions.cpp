// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof trace whatif`'s decisions, on the legacy export of Debian's torch 1.13 (a 2-rank
// gloo job of 7 Linear(256,256) layers at bucket_cap_mb 0.25, 4 buckets of two sizes) and a
// Kineto NCCL trace: what a user is told to do must be something to do (never `local`), be
// weighed against the recorded settings at the same link and world size, agree in sign with its
// numbers, read a results cell's traces with its cell.json, and rest on no collective cost the
// trace cannot support. Every check is on stored traces: nothing here is timed.

#include "cli_runner.h"
#include "ddp_fixtures.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace {

using namespace ddp_fixtures;

QJsonObject whatIf(const QStringList& args) {
    const CliResult r =
        runCli("commprof", QStringList{"trace", "whatif"} + args + QStringList{"--json"}, 120000);
    if (r.exitCode != 0) {
        qWarning("%s", r.err.constData());
    }
    return r.json();
}

QJsonObject legacy(const QStringList& extra) {
    return whatIf(QStringList{kLegacy0, kLegacy1, "--params", kLegacyParams} + extra);
}

// The scenario at cap and hook; an empty object when there is none.
QJsonObject scenarioOf(const QJsonObject& w, double capMb, const QString& hook) {
    for (const QJsonValue& s : w["scenarios"].toArray()) {
        if (s["bucket_cap_mb"].toDouble() == capMb && s["hook"].toString() == hook) {
            return s.toObject();
        }
    }
    return {};
}

// The reason's words agree with its numbers: a gain said is the gain computed, above zero;
// "inside" its interval only when it is, "beyond" only when it is; nothing negative is called
// a gain.
void checkReasonAgrees(const QJsonObject& w) {
    const QJsonObject r = w["recommendation"].toObject();
    const QString reason = r["reason"].toString();
    const double gain = r["gain_ms"].toDouble(), u = r["uncertainty_ms"].toDouble();
    QVERIFY2(!reason.contains(QRegularExpression("-\\d")), qPrintable(reason));
    QVERIFY2(gain >= 0, qPrintable(reason));
    if (reason.contains("ms a step faster")) {
        QVERIFY2(gain > 0, qPrintable(reason));
        QVERIFY2(reason.contains(QString::number(gain, 'f', 2) + " ms a step faster"),
                 qPrintable(reason));
    }
    if (reason.contains("inside")) {
        QVERIFY2(gain <= u && r["keep"].toBool(), qPrintable(reason));
    }
    if (reason.contains("beyond")) {
        QVERIFY2(gain > u && !r["keep"].toBool(), qPrintable(reason));
    }
}

} // namespace

class TstTraceWhatIfDecisions : public QObject {
    Q_OBJECT
    QTemporaryDir work_;

    // A results cell's folder: the legacy job's two traces, its parameters and a cell.json
    // written as the runner writes one (docs/formats.md), with `config` and `layer` as given.
    QString cell(const QString& name, const QJsonObject& config, const QString& layer,
                 const QStringList& traces = {kLegacy0, kLegacy1}) {
        const QString dir = work_.filePath(name);
        if (!QDir().mkpath(dir)) {
            return {};
        }
        for (const QString& t : traces) {
            QFile::copy(t, dir + "/" + QFileInfo(t).fileName());
        }
        if (traces.size() == 2) {
            QFile::copy(kLegacyParams, dir + "/params.json");
        }
        QFile f(dir + "/cell.json");
        if (!f.open(QIODevice::WriteOnly)) {
            return {};
        }
        f.write(QJsonDocument(QJsonObject{{"id", name},
                                          {"kind", "ddp"},
                                          {"status", "complete"},
                                          {"model", "mlp"},
                                          {"layer", layer},
                                          {"world_size", 2},
                                          {"config", config}})
                    .toJson());
        return dir;
    }

private slots:
    // Where DDP's rule at the recorded cap does not make the recorded buckets (the NCCL fixture:
    // rule_reproduces_buckets false), a scenario differs from the replay by what the rule says
    // its setting changes, not by the rule's miss on the recording as well: 25.001 MiB, whose
    // rule makes the same buckets as at the recorded 25, is the replayed step itself.
    void ruleMissIsNotAChange() {
        const QJsonObject w = whatIf({kNccl, "--bucket-cap-mb", "25,25.001"});
        const QJsonObject rec = w["recorded"].toObject();
        QCOMPARE(rec["bucket_cap_mb"].toDouble(), 25.0);
        QVERIFY(!rec["rule_reproduces_buckets"].toBool());
        const QJsonObject near = scenarioOf(w, 25.001, "allreduce");
        QVERIFY(!near.isEmpty() && !near["recorded_layout"].toBool());
        qInfo("replayed %.4f ms, 25.001 MiB %.4f ms", rec["replayed_step_ms"].toDouble(),
              near["step_ms"].toDouble());
        QVERIFY(std::abs(near["step_ms"].toDouble() - rec["replayed_step_ms"].toDouble()) <=
                1e-9 * rec["replayed_step_ms"].toDouble());
    }

    // `local` sends nothing: it is shown (the no-communication baseline) but never advised,
    // even over a link a hundred times slower, where dropping the gradients' sync would be far
    // faster than any interval.
    void localIsNeverRecommended() {
        const QJsonObject w = legacy(
            {"--bucket-cap-mb", "0.25,1", "--hook", "allreduce,local", "--bandwidth-x", "0.01"});
        const QJsonObject local = scenarioOf(w, 0.25, "local");
        QVERIFY(!local.isEmpty());
        const QJsonObject base = w["recommendation"]["baseline"].toObject();
        QVERIFY2(base["step_ms"].toDouble() - local["step_ms"].toDouble() >
                     2 * local["uncertainty_ms"].toDouble(),
                 "the plant would not show: local must be far faster here");
        const QJsonObject r = w["recommendation"].toObject();
        QVERIFY2(r["hook"].toString() != "local", qPrintable(r["reason"].toString()));
        QVERIFY2(!r["reason"].toString().contains("local"), qPrintable(r["reason"].toString()));
        checkReasonAgrees(w);

        const QJsonObject only = legacy({"--hook", "local", "--bandwidth-x", "0.01"});
        QVERIFY(only["recommendation"]["keep"].toBool());
        QVERIFY2(only["recommendation"]["reason"].toString().contains("no-communication baseline"),
                 qPrintable(only["recommendation"]["reason"].toString()));
    }

    // At the recorded settings, 1x and the recorded world size, the scenario is the replay
    // (its buckets the recorded ones); at another bandwidth or world size every scenario is
    // weighed against the recorded settings there, not against the replay.
    void recordedSettingsAreTheReplayAndTheBaseline() {
        const QJsonObject w = legacy({"--bucket-cap-mb", "0.25,1,25"});
        const QJsonObject rec = w["recorded"].toObject();
        const QJsonObject at =
            scenarioOf(w, rec["bucket_cap_mb"].toDouble(), rec["hook"].toString());
        QVERIFY(at["recorded_layout"].toBool());
        QCOMPARE(at["step_ms"].toDouble(), rec["replayed_step_ms"].toDouble());
        QCOMPARE(at["uncertainty_ms"].toDouble(), rec["replayed_uncertainty_ms"].toDouble());
        QCOMPARE(at["buckets"].toInt(), rec["buckets"].toInt());
        QCOMPARE(w["recommendation"]["baseline"]["step_ms"].toDouble(),
                 rec["replayed_step_ms"].toDouble());
        checkReasonAgrees(w);

        for (const QStringList& elsewhere :
             {QStringList{"--bandwidth-x", "0.25"}, QStringList{"--world-size", "8"}}) {
            const QJsonObject o = legacy(QStringList{"--bucket-cap-mb", "0.25,1,25"} + elsewhere);
            const QJsonObject base = o["recommendation"]["baseline"].toObject();
            const QJsonObject same = scenarioOf(o, 0.25, "allreduce");
            QCOMPARE(base["bandwidth_x"].toDouble(), same["bandwidth_x"].toDouble());
            QCOMPARE(base["world_size"].toInt(), same["world_size"].toInt());
            QCOMPARE(base["step_ms"].toDouble(), same["step_ms"].toDouble());
            // A slower link or more ranks make the recorded settings slower than the replay: a
            // comparison with the replay would weigh every scenario against the wrong step.
            QVERIFY2(base["step_ms"].toDouble() > o["recorded"]["replayed_step_ms"].toDouble(),
                     qPrintable(elsewhere.join(' ')));
            double best = 1e300;
            for (const QJsonValue& s : o["scenarios"].toArray()) {
                best = std::min(best, s["step_ms"].toDouble());
            }
            QCOMPARE(o["recommendation"]["gain_ms"].toDouble(),
                     std::max(0.0, base["step_ms"].toDouble() - best));
            checkReasonAgrees(o);
        }
    }

    // No scenario faster than the recorded settings: the reason says so, with no negative gain
    // called "inside its uncertainty". fp16_compress is slower on this gloo CPU job under a
    // calibration whose float16 sums are 12x a float32 all-reduce (as one measured on a loaded
    // 2-core machine), and 64 MiB buckets overlap nothing.
    void reasonAgreesInSignWithItsNumbers() {
        QFile calibration(work_.filePath("calibration.json"));
        QVERIFY(calibration.open(QIODevice::WriteOnly));
        calibration.write(R"({"backend":"gloo","device":"cpu","fp32_ns_per_byte":1.28,
            "hooks":{"fp16_compress":{"pre_ns_per_byte":1.03,"post_ns_per_byte":0.05,
            "collective_factor":12.2}}})");
        calibration.close();
        const QJsonObject w = legacy({"--bucket-cap-mb", "64", "--hook", "fp16_compress",
                                      "--hook-calibration", calibration.fileName()});
        const QJsonObject r = w["recommendation"].toObject();
        QVERIFY(w["scenarios"][0]["step_ms"].toDouble() > r["baseline"]["step_ms"].toDouble());
        QVERIFY(r["keep"].toBool());
        QVERIFY2(r["reason"].toString().contains("no scenario is predicted faster"),
                 qPrintable(r["reason"].toString()));
        checkReasonAgrees(w);
    }

    // The interval is said, in the JSON and the text, and holds the replay's own error.
    void intervalIsStated() {
        const QJsonObject w = legacy({"--bucket-cap-mb", "0.25"});
        QVERIFY(w["interval"].toString().startsWith("90 %"));
        const QJsonObject rec = w["recorded"].toObject();
        const double replayError =
            std::fabs(rec["replayed_step_ms"].toDouble() / rec["step_ms"].toDouble() - 1);
        QVERIFY(std::fabs(rec["replay_error"].toDouble() - replayError) < 1e-9);
        QVERIFY(rec["replayed_uncertainty_ms"].toDouble() >=
                replayError * rec["replayed_step_ms"].toDouble() - 1e-9);
        const CliResult text = runCli(
            "commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams}, 120000);
        QVERIFY2(text.out.contains("+- is a 90 % interval"), text.out.constData());
        // The parameters were read: no note asks for them.
        const QByteArray notes = QJsonDocument(w["notes"].toArray()).toJson();
        QVERIFY2(!notes.contains("need --params"), notes.constData());
        QVERIFY2(notes.contains("read from the parameters file"), notes.constData());
    }

    // Four buckets of two sizes cannot pin a latency down: the line through the two sizes is
    // the central cost, and every latency from none to the shortest collective's is in the
    // interval. No latency is ever beyond the shortest collective `trace ddp` shows.
    void noFitTheTraceCannotSupport() {
        const QJsonObject w = legacy({"--bucket-cap-mb", "0.0625,0.25"});
        const QJsonObject cost = w["cost"].toObject();
        QVERIFY2(cost["method"].toString().contains("through the 2 sizes"),
                 qPrintable(cost["method"].toString()));
        QVERIFY2(cost["method"].toString().contains("cannot pin the latency down"),
                 qPrintable(cost["method"].toString()));
        QCOMPARE(cost["latency_low_us"].toDouble(), 0.0);
        for (const QStringList& traces :
             {QStringList{kLegacy0, kLegacy1, "--params", kLegacyParams}, QStringList{kNccl}}) {
            const QJsonObject o = whatIf(traces);
            const CliResult ddp = runCli(
                "commprof", QStringList{"trace", "ddp"} + traces + QStringList{"--json"}, 120000);
            double shortest = 1e300;
            for (const QJsonValue& rank : ddp.json()["ranks"].toArray()) {
                for (const QJsonValue& it : rank["iterations"].toArray()) {
                    for (const QJsonValue& b : it["buckets"].toArray()) {
                        if (b["start_us"].isDouble() && b["end_us"].isDouble()) {
                            shortest = std::min(shortest,
                                                b["end_us"].toDouble() - b["start_us"].toDouble());
                        }
                    }
                }
            }
            const QJsonObject c = o["cost"].toObject();
            qInfo("%s: latency %.1f us (%.1f..%.1f), shortest collective %.1f us: %s",
                  qPrintable(traces.first()), c["alpha_us"].toDouble(),
                  c["latency_low_us"].toDouble(), c["latency_high_us"].toDouble(), shortest,
                  qPrintable(c["method"].toString()));
            QVERIFY(c["alpha_us"].toDouble() <= shortest);
            QVERIFY(c["latency_high_us"].toDouble() <= shortest);
            QVERIFY(c["latency_low_us"].toDouble() <= c["alpha_us"].toDouble());
            QVERIFY(c["alpha_us"].toDouble() <= c["latency_high_us"].toDouble());
        }
        QVERIFY(cost["latency_high_us"].toDouble() > 0);
    }

    // A results cell's traces are read with its cell.json: the cap, first bucket, hook and
    // backend are the cell's, not the trace's guesses, the rule's other buckets are said and
    // the recorded ones replayed at the recorded settings.
    void cellSettingsAreTheRecordedOnes() {
        const QString dir =
            cell("mlp_gloo_cpu_ws2_r0",
                 QJsonObject{{"bucket_cap_mb", 4}, {"first_bucket_mb", 1}, {"hook", "allreduce"}},
                 "gloo_cpu");
        QJsonObject w = whatIf({dir});
        QJsonObject rec = w["recorded"].toObject();
        QCOMPARE(rec["bucket_cap_mb"].toDouble(), 4.0);
        QVERIFY(rec["bucket_cap_from"].toString().endsWith("cell.json"));
        QCOMPARE(rec["first_bucket_mb"].toDouble(), 1.0);
        QCOMPARE(rec["backend"].toString(), QString("gloo"));
        // At 4 MiB DDP's rule puts the 14 gradients in 2 buckets; the job recorded 4 (it ran
        // at 0.25 MiB): the scenario at the recorded settings is the replay all the same.
        QVERIFY(!rec["rule_reproduces_buckets"].toBool());
        QVERIFY2(rec["rule_differs"].toString().contains("the job recorded 4"),
                 qPrintable(rec["rule_differs"].toString()));
        const QJsonObject at4 = scenarioOf(w, 4, "allreduce");
        QVERIFY(at4["recorded_layout"].toBool());
        QCOMPARE(at4["buckets"].toInt(), 4);
        QCOMPARE(at4["step_ms"].toDouble(), rec["replayed_step_ms"].toDouble());
        checkReasonAgrees(w);

        // An fp16_compress cell is replayed as fp16_compress, its first bucket the cell's.
        const QString fp16 =
            cell("mlp_fp16",
                 QJsonObject{
                     {"bucket_cap_mb", 0.25}, {"first_bucket_mb", 0.5}, {"hook", "fp16_compress"}},
                 "gloo_cpu");
        rec = whatIf({fp16})["recorded"].toObject();
        QCOMPARE(rec["hook"].toString(), QString("fp16_compress"));
        QCOMPARE(rec["first_bucket_mb"].toDouble(), 0.5);

        // A gloo_cpu cell whose trace the model would take for NCCL's is modelled as gloo.
        const QString nccl =
            cell("nccl_as_gloo", QJsonObject{{"bucket_cap_mb", 25}}, "gloo_cpu", {kNccl});
        w = whatIf({nccl});
        QCOMPARE(w["recorded"].toObject()["backend"].toString(), QString("gloo"));
        QVERIFY2(QJsonDocument(w["notes"].toArray()).toJson().contains("one at a time (gloo)"),
                 QJsonDocument(w["notes"].toArray()).toJson().constData());
        const QJsonObject plain = whatIf({kNccl});
        QCOMPARE(plain["recorded"]["backend"].toString(), QString("nccl"));

        // A `local` cell is the no-communication baseline, said as such.
        const QString local = cell("mlp_local", QJsonObject{{"hook", "local"}}, "gloo_cpu");
        CliResult r = runCli("commprof", {"trace", "whatif", local}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no-communication baseline") && r.err.contains("cell.json"),
                 r.err.constData());
        QVERIFY(!r.err.contains("carry no sizes"));
        QVERIFY(r.out.isEmpty());

        // A cell.json that is not a cell's record is refused with its field.
        const QString bad = cell("bad_cell", QJsonObject{{"bucket_cap_mb", "four"}}, "gloo_cpu");
        r = runCli("commprof", {"trace", "whatif", bad}, 120000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QDir(bad).filePath("cell.json").toUtf8()) &&
                     r.err.contains("config.bucket_cap_mb"),
                 r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstTraceWhatIfDecisions)
#include "tst_trace_whatif_decisions.moc"
