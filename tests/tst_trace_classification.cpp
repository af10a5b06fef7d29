// SPDX-License-Identifier: GPL-3.0-or-later
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

// The class of the first event named `name`.
EventClass classOf(const Trace& t, const QString& name) {
    for (const auto& e : t.events) {
        if (t.name(e) == name.toStdString()) {
            return e.cls;
        }
    }
    return EventClass(255);
}

EventClass classIn(const QString& json, const QString& name) {
    return classOf(parseTraceText(json.toStdString(), "hand-built"), name);
}
} // namespace

class TstTraceClassification : public QObject {
    Q_OBJECT
private slots:
    // Rows of the device table that depend only on the event itself, in a trace that is
    // neither host-staged nor has launch links.
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
        QTest::newRow("rccl kernel") << "kernel"
                                     << "rcclGenericKernel" << int(EventClass::Communication);
        QTest::newRow("symmetric memory")
            << "kernel"
            << "multimem_all_reduce_kernel" << int(EventClass::Communication);
        QTest::newRow("custom all-reduce") << "kernel"
                                           << "void vllm::cross_device_allreduce_1stage<float, 8>"
                                           << int(EventClass::Communication);
        QTest::newRow("custom reduce-scatter")
            << "kernel"
            << "reduce_scatter_kernel" << int(EventClass::Communication);
        QTest::newRow("gemm") << "kernel"
                              << "ampere_sgemm_128x64_tn" << int(EventClass::Compute);
        QTest::newRow("DtoD") << "gpu_memcpy"
                              << "Memcpy DtoD (Device -> Device)" << int(EventClass::Bookkeeping);
        QTest::newRow("HtoD") << "gpu_memcpy"
                              << "Memcpy HtoD (Pageable -> Device)" << int(EventClass::Memory);
        QTest::newRow("DtoH") << "gpu_memcpy"
                              << "Memcpy DtoH (Device -> Pinned)" << int(EventClass::Memory);
        QTest::newRow("PtoP") << "gpu_memcpy"
                              << "Memcpy PtoP (Device -> Device)" << int(EventClass::Memory);
        QTest::newRow("memset") << "gpu_memset"
                                << "Memset (Device)" << int(EventClass::Bookkeeping);
        QTest::newRow("2021 Kernel") << "Kernel"
                                     << "volta_sgemm_128x64_nn" << int(EventClass::Compute);
        QTest::newRow("2021 Memcpy DtoD")
            << "Memcpy"
            << "Memcpy DtoD (Device -> Device)" << int(EventClass::Bookkeeping);
        QTest::newRow("2021 Memcpy HtoD")
            << "Memcpy"
            << "Memcpy HtoD (Pageable -> Device)" << int(EventClass::Memory);
        QTest::newRow("2021 Memset") << "Memset"
                                     << "Memset (Device)" << int(EventClass::Bookkeeping);
        QTest::newRow("MTIA work") << "mtia_ccp_events"
                                   << "job_exe_subgraph" << int(EventClass::Compute);
    }
    void deviceTable() {
        QFETCH(QString, cat);
        QFETCH(QString, name);
        QFETCH(int, cls);
        const QString json = TraceBuilder()
                                 .complete("aten::mm", 0, 5, "cpu_op")
                                 .complete(name, 1, 2, cat, 7, true)
                                 .object();
        const Trace t = parseTraceText(json.toStdString(), "hand-built");
        QCOMPARE(t.regime, Regime::Device);
        QCOMPARE(int(classOf(t, name)), cls);
    }

    void hostSpansInTheDeviceRegime_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("cls");
        QTest::newRow("host gloo") << "gloo:all_reduce" << int(EventClass::Communication);
        QTest::newRow("host nccl") << "nccl:all_reduce" << int(EventClass::Communication);
        QTest::newRow("host c10d") << "c10d::allreduce_" << int(EventClass::Communication);
        QTest::newRow("record_param_comms")
            << "record_param_comms" << int(EventClass::Communication);
        QTest::newRow("host aten") << "aten::mm" << int(EventClass::NotCounted);
        QTest::newRow("runtime") << "cudaLaunchKernel" << int(EventClass::NotCounted);
    }
    void hostSpansInTheDeviceRegime() {
        QFETCH(QString, name);
        QFETCH(int, cls);
        const QString json = TraceBuilder()
                                 .complete(name, 0, 5, "cpu_op")
                                 .kernel("ncclDevKernel_AllReduce", 10, 2)
                                 .object();
        QCOMPARE(int(classIn(json, name)), cls);
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
        // commprof-rank's own hook span: counting it would compare the hook with itself.
        QTest::newRow("hook span") << "c10d::allreduce_bucket#3" << int(EventClass::NotCounted);
    }
    void hostTable() {
        QFETCH(QString, name);
        QFETCH(int, cls);
        const Trace t = parseTraceText(TraceBuilder().complete(name, 0, 5).object().toStdString(),
                                       "hand-built");
        QCOMPARE(t.regime, Regime::Host);
        QCOMPARE(int(classOf(t, name)), cls);
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

    // ROCm writes "stream":"0x0" on hipLaunchKernel: a host call, not device work.
    void runtimeCallsNamingAStreamStayHost() {
        const QString json =
            TraceBuilder()
                .complete("aten::mm", 0, 10, "cpu_op")
                .raw(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","ts":2,"dur":3,)"
                     R"("pid":1,"tid":1,"args":{"stream":"0x0","correlation":5}})")
                .raw(R"({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","ts":6,"dur":1,)"
                     R"("pid":1,"tid":1,"args":{"stream":7}})")
                .object();
        const Trace t = parseTraceText(json.toStdString(), "rocm");
        QCOMPARE(t.regime, Regime::Host);
        for (const auto& e : t.events) {
            QVERIFY(!e.deviceWork());
        }
    }

    // A kernel whose launch lies inside a collective's host span on the same thread is part
    // of that collective; the same kernel launched elsewhere, or from another thread while the
    // collective runs, is compute.
    void kernelLaunchedByACollectiveByCorrelation() {
        const QString json = TraceBuilder()
                                 .complete("record_param_comms", 0, 20, "cpu_op", 1)
                                 .launched("kernel", "reduce_kernel_in", 22, 5, 42, 5, 1)
                                 .launched("kernel", "reduce_kernel_out", 40, 5, 43, 30, 1)
                                 .launched("kernel", "reduce_kernel_other_thread", 50, 5, 44, 6, 2)
                                 .object();
        const Trace t = parseTraceText(json.toStdString(), "by correlation");
        QCOMPARE(classOf(t, "reduce_kernel_in"), EventClass::Communication);
        QCOMPARE(classOf(t, "reduce_kernel_out"), EventClass::Compute);
        QCOMPARE(classOf(t, "reduce_kernel_other_thread"), EventClass::Compute);
    }

    // Without args.correlation, the ac2g flow joins launch and kernel.
    void kernelLaunchedByACollectiveByFlow() {
        const QString json =
            TraceBuilder()
                .complete("nccl:all_reduce", 0, 20, "user_annotation", 1)
                .complete("cudaLaunchKernel", 5, 1, "cuda_runtime", 1)
                .raw(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":9,"ts":5,"pid":1,"tid":1})")
                .raw(R"({"ph":"X","cat":"kernel","name":"copy_kernel","ts":25,"dur":4,)"
                     R"("pid":0,"tid":7,"args":{"stream":7}})")
                .raw(R"({"ph":"f","cat":"ac2g","name":"ac2g","id":9,"ts":25,"pid":0,"tid":7,)"
                     R"("bp":"e"})")
                .kernel("sgemm", 40, 4)
                .object();
        const Trace t = parseTraceText(json.toStdString(), "by flow");
        QCOMPARE(t.flows.size(), std::size_t(1));
        QCOMPARE(classOf(t, "copy_kernel"), EventClass::Communication);
        QCOMPARE(classOf(t, "sgemm"), EventClass::Compute);
    }

    // The same host-to-device copy is traffic between ranks in a host-staged trace (gloo over
    // CUDA tensors: host collective spans, no collective kernels), input loading in a
    // single-device trace and in an NCCL trace, and part of a collective when one launched it.
    void hostToDeviceCopy_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("cls");
        QTest::addColumn<bool>("hostStaged");
        const QString copy = "Memcpy HtoD (Pageable -> Device)";
        QTest::newRow("host-staged")
            << TraceBuilder()
                   .complete("gloo:all_reduce", 0, 30, "user_annotation", 3)
                   .kernel("sgemm", 0, 10)
                   .memcpy(copy, 12, 4)
                   .object()
            << int(EventClass::Communication) << true;
        QTest::newRow("single device") << TraceBuilder()
                                              .complete("aten::copy_", 0, 30, "cpu_op")
                                              .kernel("sgemm", 0, 10)
                                              .memcpy(copy, 12, 4)
                                              .object()
                                       << int(EventClass::Memory) << false;
        // hta_tests/trace_compare/base: nccl: host spans whose kernels were not captured,
        // and pinned input copies. Not host-staged: only gloo stages through the host.
        QTest::newRow("nccl spans, no kernels")
            << TraceBuilder()
                   .complete("nccl:all_reduce", 20, 10, "user_annotation", 3)
                   .kernel("sgemm", 0, 10)
                   .memcpy(copy, 12, 4)
                   .object()
            << int(EventClass::Memory) << false;
        QTest::newRow("nccl") << TraceBuilder()
                                     .complete("nccl:all_reduce", 20, 10, "user_annotation", 3)
                                     .kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 20, 8)
                                     .memcpy(copy, 12, 4)
                                     .object()
                              << int(EventClass::Memory) << false;
        QTest::newRow("nccl, launched by the collective")
            << TraceBuilder()
                   .complete("record_param_comms", 0, 10, "cpu_op", 1)
                   .kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 20, 8)
                   .launched("gpu_memcpy", copy, 12, 4, 77, 3, 1)
                   .object()
            << int(EventClass::Communication) << false;
    }
    void hostToDeviceCopy() {
        QFETCH(QString, json);
        QFETCH(int, cls);
        QFETCH(bool, hostStaged);
        const Trace t = parseTraceText(json.toStdString(), "copy");
        QCOMPARE(t.regime, Regime::Device);
        QCOMPARE(traceContext(t, NameFacts(t)).hostStaged, hostStaged);
        QCOMPARE(int(classOf(t, "Memcpy HtoD (Pageable -> Device)")), cls);
        const TraceSummary s = summarize(t);
        const double expectedMemory = cls == int(EventClass::Memory) ? 4.0 : 0.0;
        QCOMPARE(s.totals.memoryUs, expectedMemory);
    }

    // Memory is its own figure: never folded into compute or communication.
    void memoryIsItsOwnFigure() {
        const auto s = summarizeText(TraceBuilder()
                                         .complete("ProfilerStep#1", 0, 100, "user_annotation")
                                         .kernel("sgemm", 0, 40)
                                         .memcpy("Memcpy HtoD (Pinned -> Device)", 30, 20)
                                         .memcpy("Memcpy DtoH (Device -> Pinned)", 60, 10)
                                         .object());
        QCOMPARE(s.totals.memoryUs, 30.0);
        QCOMPARE(s.totals.computeUs, 40.0);
        QCOMPARE(s.totals.commUs, 0.0);
    }
};

QTEST_APPLESS_MAIN(TstTraceClassification)
#include "tst_trace_classification.moc"
