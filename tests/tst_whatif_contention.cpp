// SPDX-License-Identifier: GPL-3.0-or-later
// The backward's loss beside a collective, read from a trace's own steps (analysis/
// contention.h), against a least-squares fit worked by hand; and on the shared fixture's real
// job, carried into the what-if's interval and named as the trace's. The same job's what-if in
// its steps (replay, predict, decide) against the CLI's.

#include "analysis/contention.h"
#include "analysis/whatif.h"
#include "cli_runner.h"
#include "ddp_fixtures.h"
#include "inputs/ddp_job_files.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;
using namespace ddp_fixtures;

namespace {

// One rank, four steps. Gradient 0 is ready 100 us into the backward with nothing beside it;
// its bucket's collective runs from 100 us (launched at 90 us, before gloo started it) for
// `lengths[s]`; gradient 1 takes 200 us + half the collective's time + noise of +-2 us that is
// orthogonal to the lengths.
std::vector<trace::DdpRankSteps> handJob(const std::vector<double>& lengths) {
    const double noise[] = {2, -2, -2, 2};
    trace::DdpRankSteps rank;
    for (std::size_t s = 0; s < lengths.size(); ++s) {
        trace::DdpIteration it;
        it.step = int(s);
        it.backwardStartUs = 0;
        trace::BucketCollective b;
        b.launchUs = 90;
        b.startUs = 100;
        b.endUs = 100 + lengths[s];
        it.buckets.push_back(b);
        it.gradientReadyUs = {100, 100 + 200 + 0.5 * lengths[s] + noise[s % 4]};
        it.computeEndUs = it.gradientReadyUs.back();
        rank.iterations.push_back(it);
    }
    return {rank};
}

} // namespace

class TstWhatIfContention : public QObject {
    Q_OBJECT

private slots:
    // x~ = -10, 30, -30, 10 (mean 50); y~ = -3, 13, -17, 7 (mean 225): slope 1000 / 2000 =
    // 0.5; residuals +-2, 16 in all over 8 gap-steps, 2 gaps and a slope: 5 degrees of
    // freedom, se = sqrt(16 / 5 / 2000) = 0.04, 90 %: 0.5 -+ 1.645 x 0.04.
    void slopeAndIntervalByHand() {
        const std::vector<trace::DdpRankSteps> job = handJob({40, 80, 20, 60});
        const analysis::ContentionEstimate e = analysis::contentionFromTraces({&job[0]});
        QVERIFY(e.determined);
        QCOMPARE(e.samples, 8);
        QCOMPARE(e.gaps, 1);
        QVERIFY2(qAbs(e.share - 0.5) < 1e-9, qPrintable(QString::number(e.share)));
        QVERIFY2(qAbs(e.low - (0.5 - 1.645 * 0.04)) < 1e-9, qPrintable(QString::number(e.low)));
        QVERIFY2(qAbs(e.high - (0.5 + 1.645 * 0.04)) < 1e-9, qPrintable(QString::number(e.high)));
    }

    // Every step with the same collective beside the same gradient: no slope can be told, and
    // the whole range is carried.
    void sameOverlapEveryStepTellsNothing() {
        const std::vector<trace::DdpRankSteps> job = handJob({50, 50, 50, 50});
        const analysis::ContentionEstimate e = analysis::contentionFromTraces({&job[0]});
        QVERIFY(!e.determined);
        QCOMPARE(e.low, 0.0);
        QCOMPARE(e.high, 1.0);
        QVERIFY2(e.detail.contains("cannot tell"), qPrintable(e.detail));
    }

    // The real job: the what-if's contention is the trace's, inside [0, 1], and its interval
    // widens the scenarios' (a given contention has none of its own).
    void fixtureJobCarriesItsContention() {
        const QStringList job{"trace",       "whatif",          kLegacy0, kLegacy1, "--params",
                              kLegacyParams, "--bucket-cap-mb", "1",      "--json"};
        const CliResult r = runCli("commprof", job);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject cost = r.json()["cost"].toObject();
        QCOMPARE(cost["compute_contention_from"].toString(), QString("trace"));
        const double low = cost["compute_contention_low"].toDouble(-1);
        const double high = cost["compute_contention_high"].toDouble(-1);
        const double c = cost["compute_contention"].toDouble(-1);
        QVERIFY2(low >= 0 && low <= c && c <= high && high <= 1,
                 qPrintable(QString("%1 %2 %3").arg(low).arg(c).arg(high)));
        const CliResult given =
            runCli("commprof", job + QStringList{"--compute-contention", QString::number(c)});
        QCOMPARE(given.json()["cost"].toObject()["compute_contention_from"].toString(),
                 QString("given"));
        const double wide =
            r.json()["scenarios"].toArray()[0].toObject()["uncertainty_ms"].toDouble();
        const double narrow =
            given.json()["scenarios"].toArray()[0].toObject()["uncertainty_ms"].toDouble();
        QVERIFY2(high == low || wide > narrow,
                 qPrintable(QString("%1 <= %2").arg(wide).arg(narrow)));
    }

    // whatIf() in its steps: the job replayed once, each scenario predicted from the replay
    // and the recommendation decided over them give what `commprof trace whatif` prints for
    // the same settings in a process of its own.
    void replayPredictDecideAreTheWhatIf() {
        const analysis::DdpJob job =
            inputs::readDdpJob({kLegacy0, kLegacy1}, trace::ReadOptions{}, kLegacyParams);
        const analysis::DdpStepGraph graph = job.graph();
        QString why;
        const std::optional<analysis::Replay> r =
            analysis::replay(graph, job.params ? &*job.params : nullptr, {}, &why);
        QVERIFY2(r, qPrintable(why));
        // No hook calibration stored for the CLI either (its data folder an empty one).
        const QTemporaryDir data;
        qputenv("XDG_DATA_HOME", data.path().toUtf8());
        const CliResult cli =
            runCli("commprof", {"trace", "whatif", kLegacy0, kLegacy1, "--params", kLegacyParams,
                                "--bucket-cap-mb", "0.25,1,4", "--bandwidth-x", "0.5",
                                "--world-size", "4", "--json"});
        QCOMPARE(cli.exitCode, 0);
        const QJsonArray expected = cli.json()["scenarios"].toArray();
        QCOMPARE(expected.size(), 3);
        std::vector<analysis::Scenario> scenarios;
        for (const QJsonValue e : expected) {
            const std::optional<analysis::Scenario> s = analysis::predict(
                *r, {e["bucket_cap_mb"].toDouble(), std::nullopt, "allreduce", 0.5, 4}, &why);
            QVERIFY2(s, qPrintable(why));
            QCOMPARE(s->buckets, e["buckets"].toInt());
            QCOMPARE(s->noChange, e["no_change"].toBool());
            QVERIFY(qAbs(s->stepMs - e["step_ms"].toDouble()) <= 1e-9 * s->stepMs);
            QVERIFY(qAbs(s->uncertaintyMs - e["uncertainty_ms"].toDouble()) <=
                    1e-9 * s->uncertaintyMs);
            scenarios.push_back(*s);
        }
        const analysis::WhatIfRecommendation rec = analysis::decide(*r, scenarios);
        const QJsonObject cliRec = cli.json()["recommendation"].toObject();
        QCOMPARE(rec.reason, cliRec["reason"].toString());
        QCOMPARE(rec.keep, cliRec["keep"].toBool());
        QVERIFY(qAbs(rec.baseline.stepMs - cliRec["baseline"]["step_ms"].toDouble()) <=
                1e-9 * rec.baseline.stepMs);
        // A hook with no model is refused, naming it.
        QVERIFY(!analysis::predict(*r, {1, std::nullopt, "nosuchhook", 1, std::nullopt}, &why));
        QVERIFY2(why.contains("nosuchhook"), qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(TstWhatIfContention)
#include "tst_whatif_contention.moc"
