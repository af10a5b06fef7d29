// Each row of the classification tables in docs/trace-semantics.md, and the edge cases of
// step windows, on traces built by hand.

#include "trace/classification.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"

#include <QTest>

using namespace commprof::trace;

namespace {
TraceSummary summarizeText(const QString& json) {
    return summarize(parseTraceText(json.toStdString(), "hand-built"));
}
} // namespace

class TstTraceClassification : public QObject {
    Q_OBJECT
private slots:
    void deviceTable_data() {
        QTest::addColumn<QString>("cat");
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("cls");
        QTest::newRow("nccl kernel")
            << "kernel"
            << "ncclKernel_AllReduce_RING_LL_Sum_float" << int(EventClass::Communication);
        QTest::newRow("nccl dev kernel")
            << "kernel"
            << "ncclDevKernel_AllReduce_Sum_f32_RING_LL" << int(EventClass::Communication);
        QTest::newRow("NCCL any case") << "kernel"
                                       << "someNCCLthing" << int(EventClass::Communication);
        QTest::newRow("gemm") << "kernel"
                              << "ampere_sgemm_128x64_tn" << int(EventClass::Compute);
        QTest::newRow("DtoD") << "gpu_memcpy"
                              << "Memcpy DtoD (Device -> Device)" << int(EventClass::Bookkeeping);
        QTest::newRow("HtoD") << "gpu_memcpy"
                              << "Memcpy HtoD (Pageable -> Device)"
                              << int(EventClass::Communication);
        QTest::newRow("DtoH") << "gpu_memcpy"
                              << "Memcpy DtoH (Device -> Pinned)" << int(EventClass::Communication);
        QTest::newRow("PtoP") << "gpu_memcpy"
                              << "Memcpy PtoP (Device -> Device)" << int(EventClass::Communication);
        QTest::newRow("memset") << "gpu_memset"
                                << "Memset (Device)" << int(EventClass::Bookkeeping);
        QTest::newRow("host gloo") << "cpu_op"
                                   << "gloo:all_reduce" << int(EventClass::Communication);
        QTest::newRow("host nccl") << "cpu_op"
                                   << "nccl:all_reduce" << int(EventClass::Communication);
        QTest::newRow("host c10d") << "cpu_op"
                                   << "c10d::allreduce_" << int(EventClass::Communication);
        QTest::newRow("record_param_comms")
            << "cpu_op"
            << "record_param_comms" << int(EventClass::Communication);
        QTest::newRow("host aten") << "cpu_op"
                                   << "aten::mm" << int(EventClass::NotCounted);
        QTest::newRow("runtime") << "cuda_runtime"
                                 << "cudaLaunchKernel" << int(EventClass::NotCounted);
    }
    void deviceTable() {
        QFETCH(QString, cat);
        QFETCH(QString, name);
        QFETCH(int, cls);
        QCOMPARE(int(classify(Regime::Device, cat.toStdString(), name.toStdString())), cls);
    }

    void hostTable_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("cls");
        QTest::newRow("gloo") << "gloo:all_reduce" << int(EventClass::Communication);
        QTest::newRow("c10d") << "c10d::allreduce_" << int(EventClass::Communication);
        QTest::newRow("reducer") << "torch.distributed.ddp.reducer::copy_bucket_to_grad"
                                 << int(EventClass::Bookkeeping);
        QTest::newRow("bucket copy") << "ddp::bucket_copy_in" << int(EventClass::Bookkeeping);
        QTest::newRow("aten") << "aten::addmm" << int(EventClass::Compute);
        QTest::newRow("other") << "ProfilerStep#3" << int(EventClass::NotCounted);
        QTest::newRow("python") << "forward" << int(EventClass::NotCounted);
    }
    void hostTable() {
        QFETCH(QString, name);
        QFETCH(int, cls);
        QCOMPARE(int(classify(Regime::Host, "", name.toStdString())), cls);
    }

    void regimeFollowsDeviceCategories() {
        QCOMPARE(
            parseTraceText(TraceBuilder().complete("aten::mm", 0, 1).object().toStdString(), "t")
                .regime,
            Regime::Host);
        QCOMPARE(
            parseTraceText(TraceBuilder().memcpy("Memcpy HtoD", 0, 1).object().toStdString(), "t")
                .regime,
            Regime::Device);
    }

    void hostComputeExcludesBookkeeping() {
        // aten op of 10 us with a 3 us reducer copy inside it: compute is 7, bookkeeping 3.
        const auto s = summarizeText(TraceBuilder()
                                         .complete("ProfilerStep#1", 0, 20)
                                         .complete("aten::add_", 0, 10)
                                         .complete("torch.distributed.ddp.reducer::copy", 2, 3)
                                         .object());
        QCOMPARE(s.steps.size(), std::size_t(1));
        QCOMPARE(s.steps[0].computeUs, 7.0);
        QCOMPARE(s.steps[0].bookkeepingUs, 3.0);
    }

    void nestedEventsCountOnce() {
        const auto s = summarizeText(TraceBuilder()
                                         .complete("ProfilerStep#1", 0, 100)
                                         .complete("aten::linear", 10, 30)
                                         .complete("aten::addmm", 15, 20)
                                         .complete("aten::t", 12, 1)
                                         .object());
        QCOMPARE(s.steps[0].computeUs, 30.0);
    }

    void twoThreadsOverlapCountOnce() {
        const auto s = summarizeText(TraceBuilder()
                                         .complete("ProfilerStep#1", 0, 100)
                                         .complete("aten::mm", 0, 50, {}, 1)
                                         .complete("gloo:all_reduce", 40, 30, {}, 2)
                                         .complete("aten::mm", 60, 20, {}, 3)
                                         .object());
        const auto& m = s.steps[0];
        QCOMPARE(m.computeUs, 70.0);
        QCOMPARE(m.commUs, 30.0);
        QCOMPARE(m.overlapUs, 20.0);
        QCOMPARE(m.exposedCommUs, 10.0);
        QCOMPARE(*m.overlapEfficiency, 20.0 / 30.0);
        QCOMPARE(*m.commOverheadFraction, 10.0 / 100.0);
    }

    void stepWithoutCommunicationHasNullEfficiency() {
        const auto s = summarizeText(TraceBuilder()
                                         .complete("ProfilerStep#1", 0, 10)
                                         .complete("aten::mm", 0, 5)
                                         .complete("ProfilerStep#2", 10, 10)
                                         .complete("aten::mm", 10, 5)
                                         .complete("gloo:all_reduce", 15, 4)
                                         .object());
        QCOMPARE(s.steps.size(), std::size_t(2));
        QVERIFY(!s.steps[0].overlapEfficiency.has_value());
        QCOMPARE(*s.steps[0].commOverheadFraction, 0.0);
        QCOMPARE(*s.steps[1].overlapEfficiency, 0.0);
        QCOMPARE(s.totals.commUs, 4.0);
    }

    void deviceEventsAfterHostMarkerExtendTheStep() {
        // The host marks 0..10; its kernels run until 25, and the device projection says so.
        const auto s =
            summarizeText(TraceBuilder()
                              .complete("ProfilerStep#4", 0, 10, "user_annotation")
                              .complete("ProfilerStep#4", 2, 23, "gpu_user_annotation", 7, true)
                              .kernel("volta_sgemm", 3, 12)
                              .kernel("ncclKernel_AllReduce", 12, 13)
                              .object());
        QCOMPARE(s.regime, Regime::Device);
        QCOMPARE(s.steps.size(), std::size_t(1));
        QCOMPARE(s.steps[0].startUs, 0.0);
        QCOMPARE(s.steps[0].endUs, 25.0);
        QCOMPARE(s.steps[0].computeUs, 12.0);
        QCOMPARE(s.steps[0].commUs, 13.0);
        QCOMPARE(s.steps[0].overlapUs, 3.0);
    }

    void unmarkedTraceIsOneWindow() {
        const auto s = summarizeText(
            TraceBuilder().complete("aten::mm", 5, 5).complete("gloo:x", 20, 5).array());
        QVERIFY(!s.stepsMarked);
        QCOMPARE(s.steps.size(), std::size_t(1));
        QCOMPARE(s.steps[0].step, 0);
        QCOMPARE(s.steps[0].stepUs, 20.0);
    }

    void beginEndPairsMatchPerThread() {
        const auto s = summarizeText(TraceBuilder()
                                         .begin("ProfilerStep#1", 0)
                                         .begin("aten::mm", 1, 1)
                                         .begin("gloo:all_reduce", 2, 2)
                                         .begin("aten::relu", 3, 1)
                                         .end(4, 1) // closes aten::relu
                                         .end(6, 1) // closes aten::mm
                                         .end(9, 2) // closes gloo
                                         .end(10)   // closes the step (tid 1 stack is now empty?)
                                         .object());
        // tid 1 holds ProfilerStep, aten::mm, aten::relu: the final E closes ProfilerStep.
        QCOMPARE(s.steps.size(), std::size_t(1));
        QCOMPARE(s.steps[0].stepUs, 10.0);
        QCOMPARE(s.steps[0].computeUs, 5.0);
        QCOMPARE(s.steps[0].commUs, 7.0);
    }
};

QTEST_APPLESS_MAIN(TstTraceClassification)
#include "tst_trace_classification.moc"
