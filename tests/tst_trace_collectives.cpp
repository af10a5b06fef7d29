// SPDX-License-Identifier: GPL-3.0-or-later
// Collectives as records: bytes and bandwidth by hand for every kind at world sizes 2, 3
// and 8 (nccl-tests' definitions: algbw = size / time; busbw = algbw x 2(n-1)/n for
// all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast and
// reduce; size is the larger of input and output for all-gather and reduce-scatter), the
// sources of sizes, and the per-kind summary.

#include "trace/collectives.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"

#include <QTest>

using namespace commprof::trace;

namespace {

// One NCCL kernel of 1000 us carrying PyTorch 2.x's message args.
QString ncclKernel(const QString& collective, qint64 in, qint64 out, int group,
                   const QString& dtype = "Float", double ts = 100) {
    return QString(R"({"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic","ts":%1,"dur":1000,)"
                   R"("pid":0,"tid":7,"args":{"stream":7,"correlation":-5,)"
                   R"("Collective name":"%2","In msg nelems":%3,"Out msg nelems":%4,)"
                   R"("Group size":%5,"dtype":"%6","Process Group Name":"0"}})")
        .arg(ts)
        .arg(collective)
        .arg(in)
        .arg(out)
        .arg(group)
        .arg(dtype);
}

// A host record_param_comms span at 0 on thread 1 with PyTorch 2.x's message args.
QString paramComms(double dur, qint64 nelems, int group) {
    return QString(R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","ts":0,"dur":%1,)"
                   R"("pid":1,"tid":1,"args":{"Collective name":"allreduce","dtype":"Float",)"
                   R"("In msg nelems":%2,"Out msg nelems":%2,"Group size":%3}})")
        .arg(dur)
        .arg(nelems)
        .arg(group);
}

Trace parsed(const TraceBuilder& b) {
    return parseTraceText(b.object().toStdString(), "hand-built");
}

CollectiveRecord only(const QString& json) {
    const Trace t = parseTraceText(json.toStdString(), "hand-built");
    if (t.collectives.size() != 1) {
        return {};
    }
    return t.collectives.front();
}

} // namespace

class TstTraceCollectives : public QObject {
    Q_OBJECT
private slots:
    void bandwidthByHand_data() {
        QTest::addColumn<QString>("collective");
        QTest::addColumn<qint64>("in");
        QTest::addColumn<qint64>("out");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<double>("algbw");
        QTest::addColumn<double>("busbw");
        // all-reduce of 1e6 floats: 4e6 bytes in 1 ms = 4 GB/s; busbw 4 x 2(n-1)/n.
        QTest::newRow("allreduce n=2")
            << "allreduce" << 1000000LL << 1000000LL << 2 << "all_reduce" << 4e6 << 4.0 << 4.0;
        QTest::newRow("allreduce n=3") << "allreduce" << 1000000LL << 1000000LL << 3 << "all_reduce"
                                       << 4e6 << 4.0 << 16.0 / 3.0;
        QTest::newRow("allreduce n=8")
            << "allreduce" << 1000000LL << 1000000LL << 8 << "all_reduce" << 4e6 << 4.0 << 7.0;
        // all-gather of 250,000 floats per rank: size = the n x 250,000 output.
        QTest::newRow("allgather n=2")
            << "_allgather_base" << 250000LL << 500000LL << 2 << "all_gather" << 2e6 << 2.0 << 1.0;
        QTest::newRow("allgather n=3")
            << "_allgather_base" << 250000LL << 750000LL << 3 << "all_gather" << 3e6 << 3.0 << 2.0;
        QTest::newRow("allgather n=8") << "allgather_into_tensor_coalesced" << 250000LL << 2000000LL
                                       << 8 << "all_gather" << 8e6 << 8.0 << 7.0;
        // reduce-scatter to 250,000 floats per rank: size = the n x 250,000 input.
        QTest::newRow("reducescatter n=2") << "_reduce_scatter_base" << 500000LL << 250000LL << 2
                                           << "reduce_scatter" << 2e6 << 2.0 << 1.0;
        QTest::newRow("reducescatter n=3") << "reduce_scatter_tensor" << 750000LL << 250000LL << 3
                                           << "reduce_scatter" << 3e6 << 3.0 << 2.0;
        QTest::newRow("reducescatter n=8") << "reduce_scatter_tensor" << 2000000LL << 250000LL << 8
                                           << "reduce_scatter" << 8e6 << 8.0 << 7.0;
        // all-to-all of 1e6 floats: busbw 4 x (n-1)/n.
        QTest::newRow("alltoall n=2")
            << "all_to_all" << 1000000LL << 1000000LL << 2 << "all_to_all" << 4e6 << 4.0 << 2.0;
        QTest::newRow("alltoall n=3") << "alltoall_base" << 1000000LL << 1000000LL << 3
                                      << "all_to_all" << 4e6 << 4.0 << 8.0 / 3.0;
        QTest::newRow("alltoall n=8")
            << "all_to_all" << 1000000LL << 1000000LL << 8 << "all_to_all" << 4e6 << 4.0 << 3.5;
        // broadcast and reduce: busbw = algbw whatever n.
        for (int n : {2, 3, 8}) {
            QTest::newRow(qPrintable(QString("broadcast n=%1").arg(n)))
                << "broadcast" << 1000000LL << 1000000LL << n << "broadcast" << 4e6 << 4.0 << 4.0;
            QTest::newRow(qPrintable(QString("reduce n=%1").arg(n)))
                << "reduce" << 1000000LL << 1000000LL << n << "reduce" << 4e6 << 4.0 << 4.0;
        }
    }
    void bandwidthByHand() {
        QFETCH(QString, collective);
        QFETCH(qint64, in);
        QFETCH(qint64, out);
        QFETCH(int, n);
        QFETCH(QString, kind);
        QFETCH(double, bytes);
        QFETCH(double, algbw);
        QFETCH(double, busbw);
        const CollectiveRecord r =
            only(TraceBuilder().raw(ncclKernel(collective, in, out, n)).object());
        QCOMPARE(QString::fromStdString(r.kind), kind);
        QVERIFY(r.onDevice);
        QCOMPARE(r.durationUs, 1000.0);
        QCOMPARE(r.bytes, std::optional<double>(bytes));
        QVERIFY(r.algbwGBps && std::abs(*r.algbwGBps - algbw) < 1e-9);
        QVERIFY2(r.busbwGBps && std::abs(*r.busbwGBps - busbw) < 1e-9,
                 qPrintable(QString::number(r.busbwGBps.value_or(-1), 'f', 6)));
    }

    // One rank moves nothing over a bus: nccl-tests' factor 2(n-1)/n is 0 at n = 1, and the
    // bus bandwidth is no figure (null, "n/a" in the tables), not 0 GB/s; algbw stays.
    void oneRankHasNoBusBandwidth() {
        for (const QString& collective : {QString("allreduce"), QString("all_to_all")}) {
            const CollectiveRecord r =
                only(TraceBuilder().raw(ncclKernel(collective, 1000000, 1000000, 1)).object());
            QVERIFY(r.algbwGBps && std::abs(*r.algbwGBps - 4.0) < 1e-9);
            QVERIFY2(!r.busbwGBps, qPrintable(QString::number(r.busbwGBps.value_or(-1))));
        }
    }

    void dtypeSetsTheElementSize() {
        // 1e6 bf16 elements: 2e6 bytes in 1 ms = 2 GB/s; busbw at n=8: 2 x 14/8 = 3.5.
        const CollectiveRecord r = only(
            TraceBuilder().raw(ncclKernel("allreduce", 1000000, 1000000, 8, "BFloat16")).object());
        QCOMPARE(r.bytes, std::optional<double>(2e6));
        QVERIFY(std::abs(*r.busbwGBps - 3.5) < 1e-9);
    }

    void withoutSizesBandwidthIsNull() {
        const Trace t =
            parsed(TraceBuilder().kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 0, 10));
        QCOMPARE(t.collectives.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(t.collectives[0].kind), QString("all_reduce"));
        QVERIFY(!t.collectives[0].bytes && !t.collectives[0].algbwGBps &&
                !t.collectives[0].busbwGBps);
        const auto kinds = summarizeByKind(t.collectives);
        QCOMPARE(kinds.size(), std::size_t(1));
        QCOMPARE(kinds[0].sized, std::int64_t(0));
        QVERIFY(!kinds[0].totalBytes); // null, not 0: no record of the kind has a size
        QVERIFY(!kinds[0].medianBusbwGBps);
        // Unknown dtype: the same.
        QVERIFY(!only(TraceBuilder().raw(ncclKernel("allreduce", 10, 10, 2, "Mystery")).object())
                     .bytes);
    }

    // A kernel without args takes its size from the record_param_comms span that launched it.
    void kernelTakesSizesFromItsLaunchingSpan() {
        const QString json =
            TraceBuilder()
                .raw(paramComms(20, 500000, 3))
                .launched("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 30, 500, 11, 5, 1)
                .object();
        const Trace t = parseTraceText(json.toStdString(), "launch");
        QCOMPARE(t.collectives.size(), std::size_t(1));
        const auto& r = t.collectives[0];
        QVERIFY(r.onDevice);
        // 2e6 bytes in 500 us = 4 GB/s; busbw 4 x 4/3.
        QCOMPARE(r.bytes, std::optional<double>(2e6));
        QVERIFY(std::abs(*r.busbwGBps - 16.0 / 3.0) < 1e-9);
    }

    // Without collective kernels (gloo), host spans are the records: the sized
    // record_param_comms spans, not the gloo: spans nested in them.
    void hostRecordsPreferSizedSpans() {
        const QString json = TraceBuilder()
                                 .raw(paramComms(100, 250000, 2))
                                 .complete("gloo:all_reduce", 10, 80, "user_annotation", 1)
                                 .complete("gloo:all_reduce", 10, 80, "user_annotation", 2)
                                 .object();
        const Trace t = parseTraceText(json.toStdString(), "gloo");
        QCOMPARE(t.collectives.size(), std::size_t(1));
        // 1e6 bytes in 100 us = 10 GB/s; busbw 10 x 2(1)/2.
        QVERIFY(!t.collectives[0].onDevice);
        QVERIFY(std::abs(*t.collectives[0].busbwGBps - 10.0) < 1e-9);
        // With no sized spans, the outermost gloo: span per thread; never the hook's own span.
        const Trace plain = parsed(TraceBuilder()
                                       .complete("c10d::allreduce_bucket#0", 0, 100)
                                       .complete("gloo:all_reduce", 10, 80));
        QCOMPARE(plain.collectives.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(plain.collectives[0].written), QString("gloo:all_reduce"));
    }

    void perKindSummaryAndBytesPerStep() {
        const QString json = TraceBuilder()
                                 .complete("ProfilerStep#1", 0, 5000, "user_annotation")
                                 .raw(ncclKernel("allreduce", 1000000, 1000000, 2, "Float", 100))
                                 .raw(ncclKernel("allreduce", 500000, 500000, 2, "Float", 2000))
                                 .raw(ncclKernel("broadcast", 250000, 250000, 2, "Float", 3500))
                                 .object();
        const Trace t = parseTraceText(json.toStdString(), "kinds");
        const auto kinds = summarizeByKind(t.collectives);
        QCOMPARE(kinds.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(kinds[0].kind), QString("all_reduce"));
        QCOMPARE(kinds[0].count, std::int64_t(2));
        QCOMPARE(kinds[0].totalBytes, std::optional<double>(6e6));
        // busbw of the two all-reduces at n=2: 4 and 2 GB/s; median 3.
        QCOMPARE(kinds[0].medianBusbwGBps, std::optional<double>(3.0));
        const TraceSummary s = summarize(t);
        QCOMPARE(s.steps[0].collectives, std::size_t(3));
        QCOMPARE(s.steps[0].commBytes, std::optional<double>(7e6));
    }
};

QTEST_APPLESS_MAIN(TstTraceCollectives)
#include "tst_trace_collectives.moc"
