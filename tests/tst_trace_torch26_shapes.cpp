// SPDX-License-Identifier: GPL-3.0-or-later
// PyTorch 2.6's Kineto traces of a gloo job on a CPU profiled with record_shapes=True
// (data/traces/recorded_2_6_shapes, recorded in the Debian 13 root by record_shapes.py): no
// record_param_comms sizes a collective, so each DDP bucket's elements are its
// c10d::allreduce_'s "Input Dims" and its bytes those times its gradients' dtype. Judged against
// what torch listed of the parameters and Python's json read of the same traces (expected.json).

#include "rank_files.h"
#include "trace/ddp_steps.h"
#include "trace/trace_reader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <set>

using namespace commprof::trace;

namespace {

const QString kDir = COMMPROF_TEST_DATA "/traces/recorded_2_6_shapes/";

QJsonObject expected() {
    return readJsonFile(kDir + "expected.json");
}

} // namespace

class TstTraceTorch26Shapes : public QObject {
    Q_OBJECT
private slots:
    void bucketsAreSizedFromInputDims() {
        const QJsonObject e = expected();
        QVERIFY(e["torch_version"].toString().startsWith("2."));
        // Each parameter's elements and bytes per element, in ready order (DDP fills its
        // buckets in reverse registration order), as torch listed them.
        std::vector<double> numel, size;
        const QJsonArray params = e["params"].toArray();
        for (qsizetype i = params.size() - 1; i >= 0; --i) {
            double n = 1;
            for (const QJsonValue d : params[i].toObject()["shape"].toArray()) {
                n *= d.toDouble();
            }
            numel.push_back(n);
            const QString dtype = params[i].toObject()["dtype"].toString();
            size.push_back(dtype == "float32" ? 4 : dtype == "float64" ? 8 : 2);
        }
        // Every c10d::allreduce_'s Input Dims, as Python's json read them from rank 0's trace.
        std::multiset<double> pythonDims;
        for (const QJsonValue d : e["allreduce_input_dims_rank0"].toArray()) {
            double n = 0;
            for (const QJsonValue tensor : d.toArray()[0].toArray()) {
                double t = 1;
                for (const QJsonValue k : tensor.toArray()) {
                    t *= k.toDouble();
                }
                n += t;
            }
            pythonDims.insert(n);
        }
        for (const char* rank : {"mlp7x256_ws2_rank0.json.gz", "mlp7x256_ws2_rank1.json.gz"}) {
            const DdpRankSteps s = ddpSteps(readTraceFile((kDir + rank).toStdString()));
            QVERIFY(s.sized);
            QCOMPARE(s.backend, std::string("gloo"));
            QVERIFY(!s.iterations.empty());
            std::multiset<double> read;
            for (const DdpIteration& it : s.iterations) {
                QCOMPARE(it.gradientReadyUs.size(), numel.size());
                for (const BucketCollective& b : it.buckets) {
                    QVERIFY(b.elements && b.bytes);
                    double elements = 0, bytes = 0;
                    for (int g = b.firstGradient; g < b.firstGradient + b.gradients; ++g) {
                        elements += numel[std::size_t(g)];
                        bytes += numel[std::size_t(g)] * size[std::size_t(g)];
                    }
                    QCOMPARE(double(*b.elements), elements);
                    QCOMPARE(*b.bytes, bytes);
                    read.insert(double(*b.elements));
                }
            }
            if (QString(rank).contains("rank0")) {
                // The steps read are the trace's own: every one of their buckets is one of its
                // c10d::allreduce_ ops, with the elements Python reads there.
                for (const double n : read) {
                    QVERIFY(pythonDims.count(n) > 0);
                }
                QVERIFY(read.size() <= pythonDims.size());
            }
            bool said = false;
            for (const std::string& n : s.notes) {
                said = said || n.find("Input Dims") != std::string::npos;
            }
            QVERIFY(said);
        }
    }

    // The same job without record_shapes (data/traces/recorded_2_6) stays unsized and says what
    // would size it.
    void withoutShapesTheNoteSaysSo() {
        const DdpRankSteps s = ddpSteps(readTraceFile(
            (QString(COMMPROF_TEST_DATA "/traces/recorded_2_6/mlp7x256_ws2_rank0.json.gz"))
                .toStdString()));
        QVERIFY(!s.sized);
        bool said = false;
        for (const std::string& n : s.notes) {
            said = said || n.find("record_shapes") != std::string::npos;
        }
        QVERIFY(said);
    }
};

QTEST_GUILESS_MAIN(TstTraceTorch26Shapes)
#include "tst_trace_torch26_shapes.moc"
