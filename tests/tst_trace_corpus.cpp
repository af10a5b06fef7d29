// SPDX-License-Identifier: GPL-3.0-or-later
// Every trace of the public corpus (data/traces/corpus: HTA's own test data, the TensorBoard
// plugin's samples, AMD, MTIA, Triton, 2021-era Kineto) against what HTA 0.6.1 printed for it
// (hta_reference.json): the four temporal figures within 1 us, the overlap within 0.05
// percentage points. Every trace gets an answer, and no figure anywhere is negative. The same
// for data/traces/synthetic, small traces written for HTA paths no corpus trace reaches (its
// MTIA filter), with what HTA 0.6.1 printed for them.

#include "step_figures.h"
#include "trace/hta_figures.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTest>

using namespace commprof::trace;

namespace {

const QString kTraces = COMMPROF_TEST_DATA "/traces";

// The entries of one reference file, their paths made relative to data/traces.
QJsonArray referenceEntries(const QString& set) {
    QFile f(kTraces + "/" + set + "/hta_reference.json");
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    QJsonArray out;
    for (const auto& v : QJsonDocument::fromJson(f.readAll()).object()["traces"].toArray()) {
        QJsonObject e = v.toObject();
        e["path"] = set + "/" + e["path"].toString();
        out.append(e);
    }
    return out;
}

bool within(const std::optional<double>& got, const QJsonValue& want, double tolerance) {
    if (want.isNull()) {
        return !got.has_value();
    }
    return got && std::abs(*got - want.toDouble()) <= tolerance;
}

QString show(const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 3) : QString("null");
}

// Every figure a summary prints, with its name: the fixed ones and those a step may lack.
QList<QPair<QString, double>> figures(const StepMetrics& m) {
    QList<QPair<QString, double>> out = stepFigures(m);
    if (m.overlapEfficiency) {
        out.append({"overlap_efficiency", *m.overlapEfficiency});
    }
    if (m.commOverheadFraction) {
        out.append({"comm_overhead_fraction", *m.commOverheadFraction});
    }
    if (m.commBytes) {
        out.append({"comm_bytes", *m.commBytes});
    }
    return out;
}

} // namespace

class TstTraceCorpus : public QObject {
    Q_OBJECT
private:
    QMap<QString, int> agreed_; // per set: corpus, synthetic
    QMap<QString, int> compared_;

private slots:
    void corpusIsComplete() {
        const QJsonArray entries = referenceEntries("corpus");
        QCOMPARE(entries.size(), 44);
        for (const auto& v : entries) {
            const QString path = kTraces + "/" + v.toObject()["path"].toString();
            QVERIFY2(QFile::exists(path), qPrintable(path));
        }
        QVERIFY(!referenceEntries("synthetic").isEmpty());
    }

    void agreesWithHta_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonObject>("entry");
        for (const QString& set : {"corpus", "synthetic"}) {
            for (const auto& v : referenceEntries(set)) {
                const QJsonObject e = v.toObject();
                QTest::newRow(qPrintable(e["path"].toString())) << e["path"].toString() << e;
            }
        }
    }
    void agreesWithHta() {
        QFETCH(QString, path);
        QFETCH(QJsonObject, entry);
        const std::string file = (kTraces + "/" + path).toStdString();
        Trace t;
        try {
            t = readTraceFile(file);
        } catch (const TraceError& e) {
            // The one file that is no Chrome trace: an execution trace, refused by name.
            const QString msg = e.what();
            QVERIFY2(path.contains("_et.json"), qPrintable(msg));
            QVERIFY2(msg.contains(QString::fromStdString(file)), qPrintable(msg));
            QVERIFY2(msg.contains("not a Chrome trace"), qPrintable(msg));
            return;
        }
        // An answer: figures for some steps.
        const TraceSummary s = summarize(t);
        QVERIFY2(!s.steps.empty(), qPrintable(path));
        // No negative figure anywhere.
        for (const StepMetrics& m : s.steps) {
            for (const auto& [name, value] : figures(m)) {
                QVERIFY2(
                    value >= 0,
                    qPrintable(
                        QString("%1: step %2 %3 = %4").arg(path).arg(m.step).arg(name).arg(value)));
            }
        }
        for (const auto& [name, value] : figures(s.totals)) {
            QVERIFY2(value >= 0, qPrintable(path + ": total " + name));
        }
        for (const auto& c : t.collectives) {
            QVERIFY(c.durationUs >= 0);
            QVERIFY(!c.bytes || *c.bytes >= 0);
            QVERIFY(!c.busbwGBps || *c.busbwGBps >= 0);
        }
        const HtaFigures h = htaFigures(t);
        for (const auto& v : {h.idleTimeUs, h.computeTimeUs, h.nonComputeTimeUs, h.kernelTimeUs,
                              h.compCommOverlapPctg}) {
            QVERIFY2(!v || *v >= 0, qPrintable(path + ": a negative HTA figure"));
        }
        if (!entry.contains("hta")) {
            const QString error = entry["hta_error"].toString();
            QVERIFY(!h.warnings.empty());
            if (error.startsWith("AttributeError")) {
                // HTA's loader cannot read a bare array of events; its rules still apply.
                QVERIFY(t.htaFacts.rootIsArray);
                QVERIFY(h.kernelTimeUs.has_value());
            } else {
                // No device events, or HTA's own checks fail: no HTA figures, and why.
                QVERIFY2(!h.kernelTimeUs.has_value(), qPrintable(path + " " + error));
            }
            return;
        }
        const QString set = path.section('/', 0, 0);
        ++compared_[set];
        const QJsonObject ref = entry["hta"].toObject();
        const QString got =
            QString("idle %1 compute %2 non-compute %3 kernel %4 overlap %5")
                .arg(show(h.idleTimeUs), show(h.computeTimeUs), show(h.nonComputeTimeUs),
                     show(h.kernelTimeUs), show(h.compCommOverlapPctg));
        QVERIFY2(within(h.idleTimeUs, ref["idle_time_us"], 1.0), qPrintable(got));
        QVERIFY2(within(h.computeTimeUs, ref["compute_time_us"], 1.0), qPrintable(got));
        QVERIFY2(within(h.nonComputeTimeUs, ref["non_compute_time_us"], 1.0), qPrintable(got));
        QVERIFY2(within(h.kernelTimeUs, ref["kernel_time_us"], 1.0), qPrintable(got));
        QVERIFY2(within(h.compCommOverlapPctg, ref["comp_comm_overlap_pct"], 0.05),
                 qPrintable(got));
        ++agreed_[set];
    }

    void cleanupTestCase() {
        for (auto it = compared_.begin(); it != compared_.end(); ++it) {
            qInfo("%s: agreement with HTA 0.6.1 on %d of %d traces HTA read", qPrintable(it.key()),
                  agreed_.value(it.key()), it.value());
        }
    }
};

QTEST_APPLESS_MAIN(TstTraceCorpus)
#include "tst_trace_corpus.moc"
