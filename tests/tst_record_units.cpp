// SPDX-License-Identifier: GPL-3.0-or-later
// The values behind record and confirm, against hand calculations: the window chosen in a
// tensorboard_trace_handler folder, the paired difference and its Student-t interval (quantiles
// from scipy.stats.t.ppf), a run's steady-state step and the confirmation's JSON round trip.

#include "analysis/confirmation.h"
#include "analysis/paired_difference.h"
#include "inputs/confirmation_json.h"
#include "runner/record_job.h"
#include "trace/trace_windows.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace commprof;

class TstRecordUnits : public QObject {
    Q_OBJECT
private slots:
    void handlerNames() {
        const auto h = trace::handlerName("/x/rank0.1733480000123.pt.trace.json");
        QVERIFY(h);
        QCOMPARE(QString::fromStdString(h->worker), QString("rank0"));
        QCOMPARE(h->time, 1733480000123ULL);
        const auto g = trace::handlerName("host_42.17.pt.trace.json.gz");
        QVERIFY(g);
        QCOMPARE(QString::fromStdString(g->worker), QString("host_42"));
        QVERIFY(!trace::handlerName("trace_rank0.json"));
        QVERIFY(!trace::handlerName("rank0.pt.trace.json"));
        QVERIFY(!trace::handlerName("rank0.12a.pt.trace.json"));
    }

    void latestCompleteWindow() {
        // Two workers, three cycles each; the third is the partial one written at exit.
        const std::vector<std::string> files{"d/rank0.100.pt.trace.json",
                                             "d/rank0.200.pt.trace.json",
                                             "d/rank0.300.pt.trace.json",
                                             "d/rank1.101.pt.trace.json",
                                             "d/rank1.201.pt.trace.json",
                                             "d/rank1.301.pt.trace.json",
                                             "d/params.json"};
        const std::vector<int> steps{3, 3, 1, 3, 3, 1, -1};
        const auto choice = trace::latestCompleteWindows(files, [&](std::size_t i) {
            return steps[i] < 0 ? std::nullopt : std::optional<int>(steps[i]);
        });
        QCOMPARE(choice.keep, (std::vector<std::size_t>{1, 4, 6}));
        QVERIFY(choice.note.find("read window 2 of 3, the latest complete one") !=
                std::string::npos);
        // One worker's second window short too: the first is the latest complete everywhere.
        const std::vector<int> uneven{3, 2, 1, 3, 3, 1, -1};
        const auto first = trace::latestCompleteWindows(files, [&](std::size_t i) {
            return uneven[i] < 0 ? std::nullopt : std::optional<int>(uneven[i]);
        });
        QCOMPARE(first.keep, (std::vector<std::size_t>{0, 3, 6}));
        // One file per worker: nothing to choose, nothing said.
        const std::vector<std::string> plain{"d/trace_rank0.json", "d/trace_rank1.json"};
        const auto none = trace::latestCompleteWindows(plain, [](std::size_t) { return 3; });
        QCOMPARE(none.keep, (std::vector<std::size_t>{0, 1}));
        QVERIFY(none.note.empty());
    }

    void studentQuantiles() {
        QCOMPARE(*analysis::studentT(0.9, 3), 2.353);
        QCOMPARE(*analysis::studentT(0.95, 10), 2.228);
        QCOMPARE(*analysis::studentT(0.9, 30), 1.697);
        // Between 40 (1.684) and 60 (1.671): scipy gives 1.6759 at 50.
        QVERIFY(std::abs(*analysis::studentT(0.9, 50) - 1.6759) < 0.001);
        QVERIFY(!analysis::studentT(0.5, 3));
        QVERIFY(!analysis::studentT(0.9, 0));
    }

    void pairedDifferenceByHand() {
        // d = {-2, -1, -3, -1}: mean -1.75, sd sqrt(2.75 / 3), half 2.353 * sd / 2.
        const auto d = analysis::pairedDifference({100, 110, 120, 130}, {98, 109, 117, 129});
        QVERIFY(d);
        QCOMPARE(d->pairs, 4);
        QCOMPARE(d->meanMs, -1.75);
        const double half = 2.353 * std::sqrt(2.75 / 3) / 2;
        QVERIFY(std::abs(d->lowMs - (-1.75 - half)) < 1e-12);
        QVERIFY(std::abs(d->highMs - (-1.75 + half)) < 1e-12);
        QVERIFY(!analysis::pairedDifference({1}, {2}));
        QVERIFY(!analysis::pairedDifference({1, 2}, {2}));
        QVERIFY(!analysis::pairedDifference({1, std::nan("")}, {2, 3}));
    }

    void steadyStep() {
        // Rank 0 after 2 steps: {3, 10, 20, 30}, median 15; rank 1: {5, 6, 7}, median 6.
        QCOMPARE(*analysis::steadyStepMs({{1, 2, 3, 10, 20, 30}, {1, 1, 5, 6, 7}}, 2), 10.5);
        QVERIFY(!analysis::steadyStepMs({{1, 2}}, 2));
    }

    // The What if page's "Confirm on this job": the recorded command comes back word for word,
    // quotes, spaces and empty words included.
    void confirmRequestFromARecord() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("capture"));
        const QStringList words{"/usr/bin/python3", "my train.py", "--name", "a\"b", "", "x'y"};
        QFile f(dir.filePath("capture/command.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(QJsonObject{{"command", QJsonArray::fromStringList(words)},
                                          {"nproc", 2},
                                          {"skip", 4},
                                          {"working_directory", "/tmp"}})
                    .toJson());
        f.close();
        QString error;
        const auto c = runner::RecordJob::confirmRequestFor(dir.path(), 4, "fp16_compress", &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->command, words);
        QCOMPARE(c->nproc, 2);
        QCOMPARE(c->skip, 4);
        QCOMPARE(c->workingDirectory, QString("/tmp"));
        const QStringList args = runner::RecordJob::confirmArguments(*c);
        QCOMPARE(args.mid(args.indexOf("--") + 1), words);
        QVERIFY(args.contains("fp16_compress") && args.contains("--json"));
        QVERIFY(!runner::RecordJob::confirmRequestFor(dir.filePath("nothing"), 4, "", &error));
        QVERIFY(error.contains("command.json"));
    }

    void confirmationRoundTrip() {
        analysis::Confirmation c;
        c.recorded = {0.25, "allreduce"};
        c.candidate = {4, "fp16_compress"};
        c.aMs = {100, 110, 120, 130};
        c.bMs = {98, 109, 117, 129};
        c.measured = analysis::pairedDifference(c.aMs, c.bMs);
        c.predicted = analysis::PredictedDifference{-1, -2, 0, 50, 49};
        QCOMPARE(*c.predictionHeld(), true); // -1.75 in [-2, 0]
        const QJsonObject o = inputs::toJson(c);
        QCOMPARE(o["prediction_held"].toBool(), true);
        const auto back = inputs::confirmationFromJson(o);
        QVERIFY(back);
        QCOMPARE(back->candidate.hook, QString("fp16_compress"));
        QCOMPARE(back->bMs, c.bMs);
        QCOMPARE(back->measured->meanMs, -1.75);
        QCOMPARE(inputs::toJson(*back), o);
        c.predicted->highMs = -1.8; // the measured -1.75 now outside
        QCOMPARE(*c.predictionHeld(), false);
        c.predicted.reset();
        QVERIFY(!c.predictionHeld());
    }
};

QTEST_GUILESS_MAIN(TstRecordUnits)
#include "tst_record_units.moc"
