// SPDX-License-Identifier: GPL-3.0-or-later
// Traces from PyTorch 2.6's torch.profiler (Debian 13: Kineto without CUPTI, so host events
// only), recorded by data/traces/recorded_2_6/record_ddp_traces.py, against the totals of that
// script's independent reading of docs/trace-semantics.md.

#include "rank_files.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace commprof::trace;

namespace {

const QString kDir = COMMPROF_TEST_DATA "/traces/recorded_2_6/";

bool close(double got, double want) {
    return std::abs(got - want) <= std::max(1.0, std::abs(want) * 1e-4);
}

QJsonObject expectedTotals() {
    return readJsonFile(kDir + "expected.json");
}

} // namespace

class TstTraceTorch26 : public QObject {
    Q_OBJECT
private slots:
    void recordedWithTorch2() {
        const QString version = expectedTotals()["torch_version"].toString();
        QVERIFY2(version.startsWith("2."), qPrintable(version));
    }

    void totalsMatchTheIndependentReading_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QJsonObject>("expected");
        const QJsonObject all = expectedTotals();
        const QStringList traces = QDir(kDir).entryList({"*.json.gz"}, QDir::Files);
        QCOMPARE(traces.size(), 6);
        for (const QString& file : traces) {
            QVERIFY2(all.contains(file), qPrintable(file + " has no expected totals"));
            QTest::newRow(qPrintable(file)) << file << all[file].toObject();
        }
    }
    void totalsMatchTheIndependentReading() {
        QFETCH(QString, file);
        QFETCH(QJsonObject, expected);
        const Trace t = readTraceFile((kDir + file).toStdString());
        QVERIFY(t.warnings.empty());
        const TraceSummary s = summarize(t);
        QCOMPARE(s.regime, Regime::Host);
        QVERIFY(s.stepsMarked);
        const int steps = expected["steps"].toInt();
        QCOMPARE(int(s.steps.size()), steps);
        // The profiler's schedule records after one warmup step: ProfilerStep#1..N.
        for (int i = 0; i < steps; ++i) {
            QCOMPARE(s.steps[std::size_t(i)].step, i + 1);
        }
        QVERIFY2(close(s.totals.computeUs, expected["compute_us"].toDouble()),
                 qPrintable(QString::number(s.totals.computeUs, 'f', 3)));
        QVERIFY2(close(s.totals.commUs, expected["comm_us"].toDouble()),
                 qPrintable(QString::number(s.totals.commUs, 'f', 3)));
        QVERIFY2(close(s.totals.bookkeepingUs, expected["bookkeeping_us"].toDouble()),
                 qPrintable(QString::number(s.totals.bookkeepingUs, 'f', 3)));
        QVERIFY2(close(s.totals.overlapUs, expected["overlap_us"].toDouble()),
                 qPrintable(QString::number(s.totals.overlapUs, 'f', 3)));
        QVERIFY(s.totals.commUs > 0);
        QVERIFY(s.totals.bookkeepingUs > 0);
    }
};

QTEST_GUILESS_MAIN(TstTraceTorch26)
#include "tst_trace_torch26.moc"
