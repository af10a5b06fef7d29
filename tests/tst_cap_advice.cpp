// SPDX-License-Identifier: GPL-3.0-or-later
// What `commprof recommend` tells a user to do, on groups written here by hand: the saving a step
// and its uncertainty worked out on paper from the candidates' steps, standard errors and the
// MAPE; no recommendation where the saving is inside the noise, none for `hook: local`; the
// current cap from the matrix's text; and "Apply to matrix" as the edit of the defaults' cap.

#include "analysis/cap_advice.h"
#include "analysis/recommendation.h"
#include "inputs/matrix_cap.h"
#include "matrix/matrix.h"
#include "matrix/matrix_text_edit.h"
#include "report/recommendation_text.h"

#include <QJsonArray>
#include <QTest>

#include <cmath>

using namespace commprof;
using namespace commprof::analysis;

namespace {

CapCandidate candidate(double cap, double predicted, std::optional<double> measured = {},
                       std::optional<double> se = {}) {
    CapCandidate c;
    c.capMb = cap;
    c.predictedStepMs = predicted;
    c.measuredStepMs = measured;
    c.stepStandardErrorMs = se;
    return c;
}

// Caps 1 and 25 run (20 and 24 ms, standard errors 0.3 and 0.4 ms), 4 predicted only; the
// fastest cap by the model's rule is 1 MiB; held-out MAPE 5 %.
CapGroup study(const QString& hook = "allreduce") {
    CapGroup g;
    g.model = "mlp2m";
    g.layer = "gloo_cpu";
    g.hook = hook;
    g.worldSize = 2;
    g.measuredCapsMb = {1, 25};
    g.candidates = {candidate(1, 21, 20.0, 0.3), candidate(4, 22), candidate(25, 23, 24.0, 0.4)};
    g.fastestCapMb = 1;
    g.mape = 0.05;
    g.heldOut = true;
    return g;
}

bool near(std::optional<double> got, double want) {
    return got && std::abs(*got - want) < 1e-9;
}

} // namespace

class TstCapAdvice : public QObject {
    Q_OBJECT

private slots:
    // The sample standard deviation over sqrt(n), of the repeats where there are two or more,
    // else of the iterations.
    void standardErrorByHand() {
        // 10, 12, 14, 16: mean 13, squares 9+1+1+9 = 20, variance 20/3, sd 2.5820, / sqrt(4).
        const StepError it = stepStandardErrorMs({13}, {10, 12, 14, 16});
        QVERIFY(near(it.standardErrorMs, std::sqrt(20.0 / 3.0) / 2.0));
        QCOMPARE(it.from, QString("iterations"));
        // Repeats 10 and 14: mean 12, variance 8, sd 2.8284, / sqrt(2) = 2.
        const StepError rep = stepStandardErrorMs({10, 14}, {1, 100, 1000});
        QVERIFY(near(rep.standardErrorMs, 2.0));
        QCOMPARE(rep.from, QString("repeats"));
        QVERIFY(!stepStandardErrorMs({13}, {13}).standardErrorMs);
    }

    // Both caps measured: 24 - 20 = 4 ms saved, sqrt(0.3^2 + 0.4^2) = 0.5 ms uncertain.
    void measuredSavingAgainstDdpDefault() {
        CapGroup g = study();
        const auto [cap, from] = currentCapOf(g, {});
        QCOMPARE(cap, 25.0);
        QCOMPARE(from, QString("ddp_default"));
        applyAdvice(g, cap, from);
        QVERIFY(near(g.advice.savingMs, 4.0));
        QVERIFY(near(g.advice.uncertaintyMs, 0.5));
        QCOMPARE(g.advice.savingFrom, QString("measured"));
        QVERIFY(near(g.recommendedCapMb, 1.0));
        QVERIFY(g.advice.reason.isEmpty());
        QCOMPARE(g.advice.spreadFrom, QString("iterations"));
        QCOMPARE(report::actionLine(g),
                 QString::fromUtf8("set bucket_cap_mb: 1 (now 25, DDP's default, assumed): -4.00 "
                                   "ms a step (±0.50 ms, measured at both caps; the drift between "
                                   "runs is not in it: add repeats)"));
    }

    // Caps of equal buckets and equal predicted steps ran the same work: their steps differ by
    // the drift between runs. Group one: 10, 11, 12 ms (mean 11, deviations -1/11, 0, 1/11);
    // group two: 20 and 22 ms (mean 21, +-1/21); a cap of other buckets, and one not run, count
    // for nothing. Pooled: sqrt((2/121 + 2/441) / (2 + 1)).
    void runDriftByHand() {
        CapGroup one = study();
        one.candidates = {candidate(0.25, 30, 10.0), candidate(0.5, 30, 11.0),
                          candidate(1, 30, 12.0), candidate(2, 30), candidate(4, 28, 9.0)};
        for (CapCandidate& c : one.candidates) {
            c.buckets = c.capMb == 4 ? 3 : 7;
        }
        CapGroup two = study();
        two.candidates = {candidate(8, 50, 20.0), candidate(16, 50, 22.0)};
        const RunDrift d = runDrift({one, two});
        QVERIFY(near(d.relative, std::sqrt((2.0 / 121 + 2.0 / 441) / 3.0)));
        QCOMPARE(d.cells, 5);
        // Equal buckets but another predicted step: another layout, no drift to measure.
        two.candidates[1].predictedStepMs = 51;
        const RunDrift none = runDrift({two});
        QVERIFY(!none.relative);
        QCOMPARE(none.cells, 0);
    }

    // With a drift of 5 % a cell: 25 MiB's spread max(0.4, 0.05 x 24) = 1.2 ms, 1 MiB's
    // max(0.3, 0.05 x 20) = 1.0 ms, sqrt(1.44 + 1) = 1.5620 ms; at 15 %, 3.6 and 3.0 ms:
    // sqrt(12.96 + 9) = 4.6862 ms, more than the 4 ms saved: no recommendation.
    void driftBetweenRunsWidensTheSaving() {
        CapGroup g = study();
        g.drift = {0.05, 6};
        applyAdvice(g, 25, "ddp_default");
        QVERIFY(near(g.advice.uncertaintyMs, std::sqrt(1.44 + 1.0)));
        QCOMPARE(g.advice.spreadFrom, QString("run drift"));
        QVERIFY(near(g.recommendedCapMb, 1.0));
        QVERIFY2(report::actionLine(g).endsWith(
                     "measured at both caps, with the drift between runs: 5.0 % "
                     "a cell, from 6 cells of equal buckets)"),
                 qPrintable(report::actionLine(g)));
        g.drift = {0.15, 6};
        applyAdvice(g, 25, "ddp_default");
        QVERIFY(near(g.advice.uncertaintyMs, std::sqrt(12.96 + 9.0)));
        QVERIFY(!g.recommendedCapMb);
        QCOMPARE(g.advice.reason, QString("the caps differ by less than the noise"));
        // Repeats hold the drift already: their standard errors stand as they are.
        for (CapCandidate& c : g.candidates) {
            c.spreadFrom = "repeats";
        }
        applyAdvice(g, 25, "ddp_default");
        QVERIFY(near(g.advice.uncertaintyMs, 0.5));
        QCOMPARE(g.advice.spreadFrom, QString("repeats"));
        QVERIFY(report::actionLine(g).endsWith("measured at both caps, spread across repeats)"));
    }

    // The current cap 4 MiB was not run: both steps predicted, 22 - 21 = 1 ms, and the model's
    // 5 % of each prediction beside 1 MiB's standard error: sqrt(0.3^2 + 1.1^2 + 1.05^2) = 1.55
    // ms, more than the saving: the caps differ by less than the noise.
    void predictedSavingInsideTheNoise() {
        CapGroup g = study();
        applyAdvice(g, 4, "named");
        QVERIFY(near(g.advice.savingMs, 1.0));
        QVERIFY(near(g.advice.uncertaintyMs, 1.55));
        QCOMPARE(g.advice.savingFrom, QString("predicted"));
        QVERIFY(!g.recommendedCapMb);
        QCOMPARE(g.advice.reason, QString("the caps differ by less than the noise"));
        QVERIFY(report::actionLine(g).startsWith(
            "no recommendation: the caps differ by less than the noise (bucket_cap_mb 4 -> 1: "
            "-1.00 ms a step"));
        // Without held-out errors the margin is 10 %: sqrt(0.09 + 2.2^2 + 2.1^2) = 3.0561 ms.
        g.heldOut = false;
        applyAdvice(g, 4, "named");
        QVERIFY(near(g.advice.uncertaintyMs, std::sqrt(0.09 + 2.2 * 2.2 + 2.1 * 2.1)));
    }

    // Measured steps 0.4 ms apart against 0.5 ms of noise.
    void measuredSavingInsideTheNoise() {
        CapGroup g = study();
        g.candidates[2].measuredStepMs = 20.4;
        applyAdvice(g, 25, "matrix");
        QVERIFY(near(g.advice.savingMs, 0.4));
        QVERIFY(!g.recommendedCapMb);
        QCOMPARE(g.advice.reason, QString("the caps differ by less than the noise"));
    }

    void keepTheFastestCap() {
        CapGroup g = study();
        applyAdvice(g, 1, "named");
        QVERIFY(near(g.recommendedCapMb, 1.0));
        QVERIFY(near(g.advice.savingMs, 0.0));
        QCOMPARE(report::actionLine(g), QString("keep bucket_cap_mb: 1: no cap is faster"));
    }

    void nothingForLocal() {
        CapGroup g = study("local");
        applyAdvice(g, 25, "ddp_default");
        QVERIFY(!g.recommendedCapMb);
        QVERIFY(!g.advice.savingMs && !g.advice.uncertaintyMs);
        QVERIFY(g.advice.reason.contains("local communicates nothing"));
        Recommendations r;
        r.groups.push_back(g);
        const QJsonObject j = report::toJson(r)["groups"].toArray()[0].toObject();
        QVERIFY(j["recommended_bucket_cap_mb"].isNull());
        QVERIFY(j["saving_ms"].isNull());
        QVERIFY(j["uncertainty_ms"].isNull());
        QVERIFY(j["reason"].toString().contains("local communicates nothing"));
        QCOMPARE(j["current_bucket_cap_mb"].toDouble(), 25.0);
        QVERIFY(r.ok()); // predicted, only nothing to recommend
    }

    void jsonCarriesTheAdvice() {
        CapGroup g = study();
        applyAdvice(g, 25, "ddp_default");
        Recommendations r;
        r.groups.push_back(g);
        const QJsonObject j = report::toJson(r)["groups"].toArray()[0].toObject();
        QCOMPARE(j["recommended_bucket_cap_mb"].toDouble(), 1.0);
        QCOMPARE(j["current_bucket_cap_mb"].toDouble(), 25.0);
        QCOMPARE(j["current_from"].toString(), QString("ddp_default"));
        QVERIFY(std::abs(j["saving_ms"].toDouble() - 4.0) < 1e-9);
        QVERIFY(std::abs(j["uncertainty_ms"].toDouble() - 0.5) < 1e-9);
        QVERIFY(!j.contains("reason"));
        QCOMPARE(j["candidates"].toArray()[0].toObject()["step_standard_error_ms"].toDouble(), 0.3);
    }

    void currentCapByOrder() {
        CapGroup g = study();
        QCOMPARE(currentCapOf(g, {8.0, 4.0}).first, 8.0);
        QCOMPARE(currentCapOf(g, {std::nullopt, 4.0}).second, QString("matrix"));
        g.measuredCapsMb = {16};
        QCOMPARE(currentCapOf(g, {}), std::make_pair(16.0, QString("measured")));
        QCOMPARE(advise(g, 3, "named").reason, QString("the current cap 3 MiB was not predicted"));
    }

    void matrixCapFromItsText() {
        QVERIFY(
            near(inputs::matrixScalarCapMb("name: a\ndefaults:\n  bucket_cap_mb: 4 # now\n"), 4.0));
        QVERIFY(!inputs::matrixScalarCapMb("defaults:\n  bucket_cap_mb: [1, 25]\n"));
        QVERIFY(!inputs::matrixScalarCapMb("defaults:\n  hook: local\n"));
        QVERIFY(!inputs::matrixScalarCapMb("defaults: [\n"));
        QVERIFY(!inputs::matrixScalarCapMb(""));
    }

    // "Apply to matrix": the defaults' list becomes the one cap; the rest as written.
    void defaultsCapEdits_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("want");
        QTest::newRow("flow list")
            << "name: t\ndefaults:\n  iterations: 12\n  bucket_cap_mb: [0.25, "
               "1, 4, 25]  # caps\n  hook: allreduce\nmodels: []\n"
            << "name: t\ndefaults:\n  iterations: 12\n  bucket_cap_mb: 4  "
               "# caps\n  hook: allreduce\nmodels: []\n";
        QTest::newRow("block list")
            << "defaults:\n  bucket_cap_mb:\n    - 1\n    - 25 # big\n  hook: local\n"
            << "defaults:\n  bucket_cap_mb: 4\n  hook: local\n";
        QTest::newRow("scalar") << "defaults:\n    bucket_cap_mb: 25 # DDP's\nmodels: []\n"
                                << "defaults:\n    bucket_cap_mb: 4 # DDP's\nmodels: []\n";
        QTest::newRow("absent key")
            << "defaults:\n  hook: local\n\nmodels: []\n"
            << "defaults:\n  hook: local\n  bucket_cap_mb: 4\n\nmodels: []\n";
        QTest::newRow("no defaults") << "name: t\n"
                                     << "name: t\ndefaults:\n  bucket_cap_mb: 4\n";
    }
    void defaultsCapEdits() {
        QFETCH(QString, yaml);
        QFETCH(QString, want);
        const matrix::TextEdit e = matrix::defaultsValueEdit(yaml, "m.yaml", "bucket_cap_mb", "4");
        QCOMPARE(matrix::applied(yaml, e), want);
    }

    void flowDefaultsAreNotEdited() {
        bool refused = false;
        try {
            matrix::defaultsValueEdit("defaults: {bucket_cap_mb: [1, 25]}\n", "m.yaml",
                                      "bucket_cap_mb", "4");
        } catch (const matrix::MatrixError& e) {
            refused = QString::fromUtf8(e.what()).contains("block mapping");
        }
        QVERIFY(refused);
    }
};

QTEST_GUILESS_MAIN(TstCapAdvice)
#include "tst_cap_advice.moc"
