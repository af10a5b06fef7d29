// SPDX-License-Identifier: GPL-3.0-or-later
// Traces nobody on this project wrote, against the reference values in
// data/traces/PROVENANCE.md (totals within 1 us or 0.01 %, whichever is larger) and against
// what HTA 0.6.1 printed (0.05 percentage points, 0.1 %).

#include "shared_fixtures.h"
#include "trace/hta_figures.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace commprof::trace;

namespace {

QString fixture(const QString& name) {
    const QString local = QString(COMMPROF_TEST_DATA "/traces/%1.json.gz").arg(name);
    if (QFile::exists(local)) {
        return local;
    }
    return QString(COMMPROF_SHARED_FIXTURES "/traces/%1.json.gz").arg(name);
}

bool close(double got, double want) {
    return std::abs(got - want) <= std::max(1.0, std::abs(want) * 1e-4);
}

} // namespace

class TstTraceFixtures : public QObject {
    Q_OBJECT
private slots:
    void referenceTotals_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("regime");
        QTest::addColumn<int>("steps");
        QTest::addColumn<double>("compute");
        QTest::addColumn<double>("comm");
        QTest::addColumn<double>("bookkeeping");
        QTest::addColumn<double>("overlap");
        QTest::newRow("kineto_nccl_ddp_ws2_rank0")
            << "kineto_nccl_ddp_ws2_rank0"
            << "device" << 3 << 115655.843 << 51006.881 << 2653.570 << 8241.265;
        QTest::newRow("kineto_nccl_ddp_ws2_large_rank1")
            << "kineto_nccl_ddp_ws2_large_rank1"
            << "device" << 5 << 620516.0 << 437977.0 << 22754.0 << 1364.0;
        QTest::newRow("legacy_gloo_ddp_rank0")
            << "legacy_gloo_ddp_rank0"
            << "host" << 4 << 123651.0 << 66772.0 << 774.0 << 18425.0;
    }
    void referenceTotals() {
        QFETCH(QString, file);
        QFETCH(QString, regime);
        QFETCH(int, steps);
        QFETCH(double, compute);
        QFETCH(double, comm);
        QFETCH(double, bookkeeping);
        QFETCH(double, overlap);
        const QString path = fixture(file);
        REQUIRE_FIXTURE(path);
        const Trace t = readTraceFile(path.toStdString());
        const TraceSummary s = summarize(t);
        QCOMPARE(QString(toString(s.regime)), regime);
        QVERIFY(s.stepsMarked);
        QCOMPARE(int(s.steps.size()), steps);
        QVERIFY2(close(s.totals.computeUs, compute),
                 qPrintable(QString::number(s.totals.computeUs, 'f', 3)));
        QVERIFY2(close(s.totals.commUs, comm),
                 qPrintable(QString::number(s.totals.commUs, 'f', 3)));
        QVERIFY2(close(s.totals.bookkeepingUs, bookkeeping),
                 qPrintable(QString::number(s.totals.bookkeepingUs, 'f', 3)));
        QVERIFY2(close(s.totals.overlapUs, overlap),
                 qPrintable(QString::number(s.totals.overlapUs, 'f', 3)));
        for (const auto& m : s.steps) {
            QVERIFY(m.stepUs > 0);
            QVERIFY(m.computeUs <= m.stepUs + 1e-6);
            QVERIFY(m.overlapUs <= std::min(m.computeUs, m.commUs) + 1e-6);
        }
    }

    void htaFigures_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("pctg");
        QTest::addColumn<double>("idle");
        QTest::addColumn<double>("compute");
        QTest::addColumn<double>("nonCompute");
        QTest::addColumn<double>("kernel");
        QTest::newRow("kineto_nccl_ddp_ws2_rank0")
            << "kineto_nccl_ddp_ws2_rank0" << 14.31 << 338781.0 << 75169.0 << 21636.0 << 435586.0;
        QTest::newRow("kineto_nccl_ddp_ws2_large_rank1")
            << "kineto_nccl_ddp_ws2_large_rank1" << 0.0 << 643612.0 << 496485.0 << 256572.0
            << 1396669.0;
    }
    void htaFigures() {
        QFETCH(QString, file);
        QFETCH(double, pctg);
        QFETCH(double, idle);
        QFETCH(double, compute);
        QFETCH(double, nonCompute);
        QFETCH(double, kernel);
        const QString path = fixture(file);
        REQUIRE_FIXTURE(path);
        const HtaFigures h = commprof::trace::htaFigures(readTraceFile(path.toStdString()));
        QVERIFY(h.compCommOverlapPctg.has_value());
        QVERIFY(std::abs(*h.compCommOverlapPctg - pctg) <= 0.05);
        auto within = [](const std::optional<double>& got, double want) {
            return got && std::abs(*got - want) <= 1.0;
        };
        QVERIFY2(within(h.idleTimeUs, idle),
                 qPrintable(QString::number(h.idleTimeUs.value_or(-1))));
        QVERIFY2(within(h.computeTimeUs, compute),
                 qPrintable(QString::number(h.computeTimeUs.value_or(-1))));
        QVERIFY2(within(h.nonComputeTimeUs, nonCompute),
                 qPrintable(QString::number(h.nonComputeTimeUs.value_or(-1))));
        QVERIFY2(within(h.kernelTimeUs, kernel),
                 qPrintable(QString::number(h.kernelTimeUs.value_or(-1))));
    }

    // Traces recorded here from real PyTorch DDP (data/traces/recorded/record_ddp_traces.py),
    // against totals computed by that script's independent reading of the semantics.
    void recordedDdpTraces_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QJsonObject>("expected");
        QFile f(COMMPROF_TEST_DATA "/traces/recorded/expected.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject all = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(all.size() >= 6);
        for (auto it = all.begin(); it != all.end(); ++it) {
            QTest::newRow(qPrintable(it.key())) << it.key() << it.value().toObject();
        }
    }
    void recordedDdpTraces() {
        QFETCH(QString, file);
        QFETCH(QJsonObject, expected);
        const Trace t =
            readTraceFile(QString(COMMPROF_TEST_DATA "/traces/recorded/" + file).toStdString());
        const TraceSummary s = summarize(t);
        QCOMPARE(s.regime, Regime::Host);
        QCOMPARE(int(s.steps.size()), expected["steps"].toInt());
        QVERIFY(close(s.totals.computeUs, expected["compute_us"].toDouble()));
        QVERIFY(close(s.totals.commUs, expected["comm_us"].toDouble()));
        QVERIFY(close(s.totals.bookkeepingUs, expected["bookkeeping_us"].toDouble()));
        QVERIFY(close(s.totals.overlapUs, expected["overlap_us"].toDouble()));
        QVERIFY(s.totals.commUs > 0);
        QVERIFY(s.totals.bookkeepingUs > 0);
    }

    void otherProducersParse_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("regime");
        QTest::newRow("cpu only gloo") << "kineto_cpu_only_gloo_rank34"
                                       << "host";
        QTest::newRow("rocm") << "kineto_rocm_minitoy"
                              << "device";
        QTest::newRow("ws128 sampled") << "kineto_nccl_ws128_sampled_rank0"
                                       << "device";
        QTest::newRow("legacy rank1") << "legacy_gloo_ddp_rank1"
                                      << "host";
    }
    void otherProducersParse() {
        QFETCH(QString, file);
        QFETCH(QString, regime);
        const Trace t = readTraceFile(fixture(file).toStdString());
        QVERIFY(!t.events.empty());
        const TraceSummary s = summarize(t);
        QCOMPARE(QString(toString(s.regime)), regime);
        QVERIFY(!s.steps.empty());
        for (const auto& m : s.steps) {
            QVERIFY(std::isfinite(m.computeUs) && std::isfinite(m.commUs));
            if (m.overlapEfficiency) {
                QVERIFY(std::isfinite(*m.overlapEfficiency));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TstTraceFixtures)
#include "tst_trace_fixtures.moc"
