// SPDX-License-Identifier: GPL-3.0-or-later
// commprof recommend on a real run: a 2M-parameter MLP at world size 2 on gloo_cpu at two bucket
// caps (7 buckets at 1 MiB, 2 at 25 MiB) x hooks allreduce and powersgd, and an all_reduce sweep
// of the same layer and world size; both caps measured, every candidate predicted, and the
// model's every figure against tests/recommend_reference.py, the model written again in Python.

#include "analysis/bucket_schedule.h"
#include "rank_files.h"
#include "study_helpers.h"

#include <QJsonDocument>
#include <QProcess>

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

class TstRecommend : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString results_;

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        const QString defaults = R"(  iterations: 12
  warmup: 3
  batch_size: 8
  bucket_cap_mb: [1, 25]
  hook: [allreduce, powersgd]
  first_bucket_mb: 1
  trace: {enabled: true, first_step: 6, steps: 4}
  timeout_s: 240
)";
        results_ = work_.filePath("results");
        const CliResult run =
            runStudy(work_,
                     sweptStudy("recommend_small", defaults,
                                "{name: mlp2m, family: mlp, params: 2.0e6}", 16777216),
                     results_, 280000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }

    void recommendsFromBothCaps() {
        const CliResult r = runCli("commprof", {"recommend", results_, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray groups = r.json()["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        for (const QJsonValue& group : groups) {
            const QJsonObject g = group.toObject();
            const QString hook = g["hook"].toString();
            QVERIFY2(hook == "allreduce" || hook == "powersgd", qPrintable(hook));
            QCOMPARE(g["model"].toString(), QString("mlp2m"));
            QCOMPARE(g["layer"].toString(), QString("gloo_cpu"));
            QCOMPARE(g["world_size"].toInt(), 2);
            QCOMPARE(g["ready_times_from"].toString(),
                     QString("mlp2m_gloo_cpu_ws2_cap1_%1_r0").arg(hook));
            QCOMPARE(g["measured"].toInt(), 2);
            QVERIFY(g["held_out"].toBool());
            QVERIFY(std::isfinite(g["mape"].toDouble()) && g["mape"].toDouble() >= 0);
            // Inside the backward a bucket runs slower than the sweep's all-reduce alone.
            QVERIFY2(g["scale"].toDouble() > 1, qPrintable(QString::number(g["scale"].toDouble())));
            int measured = 0;
            for (const QJsonValue& v : g["candidates"].toArray()) {
                const QJsonObject c = v.toObject();
                const double cap = c["bucket_cap_mb"].toDouble();
                QVERIFY(std::isfinite(c["predicted_step_ms"].toDouble()));
                QVERIFY(c["predicted_step_ms"].toDouble() > 0);
                QVERIFY(c["predicted_exposed_ms"].toDouble() >= 0);
                if (cap == 1 || cap == 25) {
                    QCOMPARE(c["buckets"].toInt(), cap == 1 ? 7 : 2);
                    QVERIFY(c["measured_step_ms"].toDouble() > 0);
                    QVERIFY(c["held_out_step_ms"].toDouble() > 0);
                    QVERIFY(std::isfinite(c["error"].toDouble()));
                    ++measured;
                    qInfo("%s cap %g MiB: predicted %.2f ms, held out %.2f ms, measured %.2f ms, "
                          "error %.1f %%",
                          qPrintable(hook), cap, c["predicted_step_ms"].toDouble(),
                          c["held_out_step_ms"].toDouble(), c["measured_step_ms"].toDouble(),
                          c["error"].toDouble() * 100);
                } else {
                    QVERIFY(c["measured_step_ms"].isNull());
                    QVERIFY(c["held_out_step_ms"].isNull());
                    QVERIFY(c["error"].isNull());
                }
            }
            QCOMPARE(measured, 2);
        }

        const CliResult text = runCli("commprof", {"recommend", results_});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(
            "ready times from mlp2m_gloo_cpu_ws2_cap1_allreduce_r0's bucket launches"));
        QVERIFY(text.out.contains("fastest: "));
        // What to do comes first: a line per group, each the JSON's own.
        const QStringList lines = QString::fromUtf8(text.out).split('\n');
        for (const QJsonValue& group : groups) {
            const QString line =
                QString("  mlp2m on gloo_cpu, world size 2, hook %1: %2")
                    .arg(group["hook"].toString(), group["recommendation"].toString());
            QVERIFY2(lines.mid(0, 2).contains(line), text.out.left(400).constData());
            qInfo("%s", qPrintable(line));
        }
        QVERIFY(text.out.contains("over 2 measured caps, each predicted from the other caps' "
                                  "cells"));
    }

    // Every figure of every group as the model written again in Python computes it from the same
    // rank files and the group's fit: buckets, predicted step and exposed communication, the
    // held-out steps, the scale, the MAPE and the recommended cap.
    void agreesWithTheReferenceModel_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("DDP's default as the current cap") << QStringList{};
        QTest::newRow("current cap named") << QStringList{"--current-cap-mb", "1"};
    }
    void agreesWithTheReferenceModel() {
        QFETCH(QStringList, extra);
        const CliResult r =
            runCli("commprof", QStringList{"recommend", results_, "--json"} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto near = [](const QJsonValue& a, const QJsonValue& b) {
            if (a.isNull() || b.isNull()) {
                return a.isNull() && b.isNull();
            }
            return std::abs(a.toDouble() - b.toDouble()) <= 1e-9 * std::max(1.0, b.toDouble());
        };
        for (const QJsonValue& group : r.json()["groups"].toArray()) {
            const QString groupFile = work_.filePath("group.json");
            QFile f(groupFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(group.toObject()).toJson());
            f.close();
            QProcess p;
            p.start("/usr/bin/python3",
                    {COMMPROF_SOURCE_DIR "/tests/recommend_reference.py", results_, groupFile});
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            const QJsonObject want = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
            const QJsonObject got = group.toObject();
            QVERIFY(near(got["scale"], want["scale"]));
            QVERIFY(near(got["mape"], want["mape"]));
            QCOMPARE(got["held_out"].toBool(), want["held_out"].toBool());
            QCOMPARE(got["fastest_bucket_cap_mb"].toDouble(),
                     want["fastest_bucket_cap_mb"].toDouble());
            // What to change, against the current cap: the saving and its uncertainty, and no
            // cap where the saving is inside it.
            QCOMPARE(got["current_bucket_cap_mb"].toDouble(), extra.isEmpty() ? 25.0 : 1.0);
            QCOMPARE(got["current_bucket_cap_mb"].toDouble(),
                     want["current_bucket_cap_mb"].toDouble());
            for (const char* key : {"recommended_bucket_cap_mb", "saving_ms", "uncertainty_ms"}) {
                QVERIFY2(near(got[key], want[key]), qPrintable(QString("%1 %2: %3 against %4")
                                                                   .arg(got["hook"].toString(), key)
                                                                   .arg(got[key].toDouble())
                                                                   .arg(want[key].toDouble())));
            }
            QCOMPARE(got["reason"].toString() == "the caps differ by less than the noise",
                     want["recommended_bucket_cap_mb"].isNull());
            qInfo("%s: now %g MiB, fastest %g MiB, saving %.3f ms +- %.3f ms: %s",
                  qPrintable(got["hook"].toString()), got["current_bucket_cap_mb"].toDouble(),
                  got["fastest_bucket_cap_mb"].toDouble(), got["saving_ms"].toDouble(),
                  got["uncertainty_ms"].toDouble(), qPrintable(got["recommendation"].toString()));
            const QJsonArray a = got["candidates"].toArray(), b = want["candidates"].toArray();
            QCOMPARE(a.size(), b.size());
            for (qsizetype i = 0; i < a.size(); ++i) {
                QCOMPARE(a[i]["bucket_cap_mb"].toDouble(), b[i]["bucket_cap_mb"].toDouble());
                QCOMPARE(a[i]["buckets"].toInt(), b[i]["buckets"].toInt());
                QVERIFY(near(a[i]["step_standard_error_ms"], b[i]["se"]));
                for (const char* key : {"predicted_step_ms", "predicted_exposed_ms",
                                        "held_out_step_ms", "measured_step_ms"}) {
                    QVERIFY2(near(a[i][key], b[i][key]),
                             qPrintable(QString("%1 cap %2 %3: %4 against %5")
                                            .arg(got["hook"].toString())
                                            .arg(a[i]["bucket_cap_mb"].toDouble())
                                            .arg(key)
                                            .arg(a[i][key].toDouble())
                                            .arg(b[i][key].toDouble())));
                }
            }
        }
    }

    // What the model says each hook sends for a bucket is what the rank's hook sent: its
    // recorded wire_bytes, bucket by bucket, for the rebuilt buckets of both hooks.
    void hookWireIsWhatTheRankSent() {
        for (const QString hook : {"allreduce", "powersgd"}) {
            const QString cell =
                QString("%1/cells/mlp2m_gloo_cpu_ws2_cap1_%2_r0").arg(results_, hook);
            QFile f(cell + "/rank0.json");
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
            std::vector<commprof::analysis::ReadyParam> params;
            const QJsonArray registered = doc["parameters"].toArray();
            for (qsizetype i = registered.size() - 1; i >= 0; --i) {
                commprof::analysis::ReadyParam p;
                p.bytes = registered[i]["bytes"].toDouble();
                for (const QJsonValue d : registered[i]["shape"].toArray()) {
                    p.shape.push_back(d.toDouble());
                }
                params.push_back(p);
            }
            const auto model = commprof::analysis::hookModel(
                hook, doc["powersgd"]["matrix_approximation_rank"].toInt(1));
            QVERIFY(model);
            const int iter = doc["buckets"][0]["iter"].toInt();
            std::size_t next = 0;
            int checked = 0;
            for (const QJsonValue b : doc["buckets"].toArray()) {
                if (b["iter"].toInt() != iter) {
                    continue;
                }
                std::vector<const commprof::analysis::ReadyParam*> members;
                for (int k = 0; k < b["nparams"].toInt(); ++k) {
                    members.push_back(&params.at(next++));
                }
                QCOMPARE(model->wire(members).bytes, b["wire_bytes"].toDouble());
                ++checked;
            }
            QCOMPARE(next, params.size());
            QVERIFY(checked >= 2);
        }
    }

    // Rank files that say odd but valid things are no silent zeros: allreduce cells whose buckets
    // end the moment they start (nothing exposed) cannot calibrate a bucket's cost, and are said
    // to be left out, not calibrated to a scale of ~0 that makes communication free at every cap;
    // a cell whose rank 0 steps are all 0 ms is no measurement, so it is neither the fastest cap
    // nor in the MAPE.
    void exposedNothingAndZeroStepsAreNoSilentZeros() {
        const QString copy = work_.filePath("odd");
        QVERIFY(copyDir(results_, copy));
        for (const QString cap : {"1", "25"}) {
            for (const int rank : {0, 1}) {
                const QString path =
                    QString("%1/cells/mlp2m_gloo_cpu_ws2_cap%2_allreduce_r0/rank%3.json")
                        .arg(copy, cap)
                        .arg(rank);
                QJsonObject doc = readJsonFile(path);
                QJsonArray buckets = doc["buckets"].toArray();
                for (qsizetype i = 0; i < buckets.size(); ++i) {
                    QJsonObject bucket = buckets[i].toObject();
                    bucket["end_ns"] = bucket["start_ns"];
                    buckets[i] = bucket;
                }
                doc["buckets"] = buckets;
                QVERIFY(writeJsonFile(path, doc));
            }
        }
        const QString stepless = copy + "/cells/mlp2m_gloo_cpu_ws2_cap1_powersgd_r0/rank0.json";
        QJsonObject doc = readJsonFile(stepless);
        QJsonArray iterations = doc["iterations"].toArray();
        for (qsizetype i = 0; i < iterations.size(); ++i) {
            QJsonObject it = iterations[i].toObject();
            it["step_ms"] = 0.0;
            iterations[i] = it;
        }
        doc["iterations"] = iterations;
        QVERIFY(writeJsonFile(stepless, doc));

        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        QVERIFY2(r.exitCode == 1, r.err.constData()); // a group lacks what it needs
        for (const QJsonValue& g : r.json()["groups"].toArray()) {
            if (g["hook"].toString() == "allreduce") {
                QVERIFY(g["recommended_bucket_cap_mb"].isNull());
                QVERIFY2(g["reason"].toString().contains("exposed no communication, so they "
                                                         "cannot calibrate"),
                         qPrintable(g["reason"].toString()));
            } else {
                QCOMPARE(g["measured"].toInt(), 1);
                QCOMPARE(g["recommended_bucket_cap_mb"].toDouble(), 25.0);
                for (const QJsonValue& c : g["candidates"].toArray()) {
                    if (c["bucket_cap_mb"].toDouble() == 1) {
                        QVERIFY(c["measured_step_ms"].isNull());
                    }
                }
            }
        }
    }

    // The hook against the trace's backend work is judged where the hook's span is its
    // collective (allreduce), and not under PowerSGD, whose span also holds its compression: its
    // ratio is shown, never a flag.
    void instrumentsJudgedOnlyWhereTheyMeasureTheSameThing() {
        const CliResult r = runCli("commprof", {"cells", results_, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        int powersgd = 0, allreduce = 0;
        for (const QJsonValue& c : r.json()["cells"].toArray()) {
            const QString id = c["id"].toString();
            if (id.contains("_powersgd_")) {
                ++powersgd;
                QVERIFY2(!c["agreement_flagged"].toBool(), qPrintable(id));
                QVERIFY2(c["agreement_reason"].toString().startsWith(
                             "not judged: the powersgd hook's span holds its compression"),
                         qPrintable(c["agreement_reason"].toString()));
                QVERIFY(c["hook_trace_agreement"].toDouble() > 0);
                // The sweep times float32 all-reduces of the bucket's bytes: not what PowerSGD
                // sends, so not predicted from it.
                QVERIFY2(c["prediction_note"].toString().startsWith(
                             "not predicted: the sweep times float32 all-reduces"),
                         qPrintable(c["prediction_note"].toString()));
            } else if (id.contains("_allreduce_")) {
                ++allreduce;
                QVERIFY(c["hook_trace_agreement"].toDouble() > 0);
                QVERIFY2(!c["agreement_reason"].toString().contains("not judged"),
                         qPrintable(c["agreement_reason"].toString()));
                QVERIFY2(!c["prediction_note"].toString().startsWith("not predicted"),
                         qPrintable(c["prediction_note"].toString()));
            }
        }
        QCOMPARE(powersgd, 2);
        QCOMPARE(allreduce, 2);
        // `sweep summarize --ddp` says the same of a PowerSGD cell.
        const CliResult one =
            runCli("commprof", {"sweep", "summarize", results_ + "/cells/sweep_gloo_cpu_ws2_r0",
                                "--ddp", results_ + "/cells/mlp2m_gloo_cpu_ws2_cap1_powersgd_r0"});
        QCOMPARE(one.exitCode, 1);
        QVERIFY2(one.err.contains("not predicted: the sweep times float32 all-reduces"),
                 one.err.constData());
    }

    // Without the sweep the group says what it lacks and recommends nothing.
    void withoutASweepSaysWhatItLacks() {
        const QString copy = work_.filePath("nosweep");
        QVERIFY(QDir().mkpath(copy + "/cells"));
        for (const QString& id :
             QDir(results_ + "/cells").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (id.startsWith("sweep")) {
                continue;
            }
            QDir().mkpath(copy + "/cells/" + id);
            const QDir from(results_ + "/cells/" + id);
            for (const QString& f : from.entryList(QDir::Files)) {
                QVERIFY(QFile::copy(from.filePath(f), copy + "/cells/" + id + "/" + f));
            }
        }
        QVERIFY(QFile::copy(results_ + "/run.json", copy + "/run.json"));
        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject g = r.json()["groups"].toArray()[0].toObject();
        QVERIFY(g["recommended_bucket_cap_mb"].isNull());
        QVERIFY(g["reason"].toString().contains("no complete all_reduce sweep"));
        // Read from the store, which it brings up to date first as `report` does.
        QVERIFY(QFile::exists(copy + "/results.sqlite"));
    }

    // A current cap that is no cap is refused, naming the option; one the run did not measure
    // is predicted, and the saving is against it.
    void currentCapMustBeACap() {
        const CliResult bad = runCli("commprof", {"recommend", results_, "--current-cap-mb", "x"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--current-cap-mb: 'x' is not a bucket cap"),
                 bad.err.constData());
        const CliResult r =
            runCli("commprof", {"recommend", results_, "--json", "--current-cap-mb", "3"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const QJsonValue& group : r.json()["groups"].toArray()) {
            QCOMPARE(group["current_bucket_cap_mb"].toDouble(), 3.0);
            QCOMPARE(group["saving_from"].toString(), QString("predicted"));
            double predicted3 = 0, predictedFastest = 0;
            for (const QJsonValue& c : group["candidates"].toArray()) {
                predicted3 = c["bucket_cap_mb"].toDouble() == 3 ? c["predicted_step_ms"].toDouble()
                                                                : predicted3;
                predictedFastest =
                    c["bucket_cap_mb"].toDouble() == group["fastest_bucket_cap_mb"].toDouble()
                        ? c["predicted_step_ms"].toDouble()
                        : predictedFastest;
            }
            QVERIFY(predicted3 > 0);
            QVERIFY(std::abs(group["saving_ms"].toDouble() - (predicted3 - predictedFastest)) <
                    1e-9);
        }
    }

    void notAResultsFolderIsRefused() {
        const QString empty = work_.filePath("empty");
        QVERIFY(QDir().mkpath(empty));
        const CliResult r = runCli("commprof", {"recommend", empty});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(empty.toUtf8()));
        QVERIFY(QDir(empty).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstRecommend)
#include "tst_recommend.moc"
