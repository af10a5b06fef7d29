// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_loop.h"

#include "bucket_timer.h"
#include "chrome_trace.h"
#include "ddp_logging.h"
#include "fingerprint.h"
#include "grad_dump.h"
#include "hooks/hook_factory.h"
#include "json_writer.h"
#include "models.h"
#include "process_group.h"
#include "rendezvous.h"
#include "spec/layers.h"
#include "spec/rank_contract.h"
#include "torchscript_model.h"

#include <ATen/record_function.h>

#include <algorithm>
#ifdef USE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif
#include <chrono>
#include <cstdio>
#include <limits>
#include <set>
#include <thread>

namespace commprof::rank {
namespace {

double msSince(std::int64_t startNs) {
    return double(monotonicNs() - startNs) / 1e6;
}

void emit(const std::string& line) {
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void emitBuckets(BucketLog& log, int rank) {
    for (const auto& b : log.takeNew()) {
        JsonWriter j;
        j.beginObject();
        j.field(spec::progress::kEvent, spec::progress::kBucket);
        j.field(spec::progress::kRank, rank);
        j.field(spec::progress::kIter, b.iteration);
        j.field(spec::progress::kIndex, b.index);
        j.field(spec::progress::kBytes, b.bytes);
        j.field(spec::progress::kMs, double(b.endNs - b.startNs) / 1e6);
        j.endObject();
        emit(j.str());
    }
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const std::string& name,
                                                       std::vector<torch::Tensor> params) {
    if (name == "adam") {
        return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-4));
    }
    return std::make_unique<torch::optim::SGD>(params,
                                               torch::optim::SGDOptions(1e-4).momentum(0.9));
}

double checksum(const std::vector<torch::Tensor>& tensors, bool grads) {
    at::DisableRecordFunctionGuard notTheModel; // instrumentation, not ops to trace or fingerprint
    double total = 0;
    for (const auto& p : tensors) {
        const auto& t = grads ? p.grad() : p;
        if (t.defined()) {
            total += t.to(torch::kDouble).sum().item<double>();
        }
    }
    return total;
}

// After the run, one all-gather of every rank's per-iteration gradient checksums: an
// all-reduced gradient must be bit-identical on every rank.
bool checksumsAgree(ProcessGroupPtr& pg, const std::vector<IterationTimes>& its, int world,
                    std::string& note) {
    auto mine = torch::empty({std::int64_t(its.size())}, torch::kDouble);
    for (std::size_t i = 0; i < its.size(); ++i) {
        mine[std::int64_t(i)] = its[i].gradChecksum;
    }
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < world; ++r) {
        out[0].push_back(torch::empty_like(mine));
    }
    std::vector<at::Tensor> in{mine};
    pg->allgather(out, in)->wait();
    for (int r = 0; r < world; ++r) {
        if (!torch::equal(out[0][std::size_t(r)], mine)) {
            auto diff = (out[0][std::size_t(r)] != mine).nonzero();
            note = "rank " + std::to_string(r) + " differs first at iteration " +
                   std::to_string(diff.numel() ? diff[0][0].item<std::int64_t>() : -1);
            return false;
        }
    }
    note = "identical on all " + std::to_string(world) + " ranks for every iteration";
    return true;
}

std::string interconnectFor(const RankOptions& o) {
    const spec::Layer* layer = spec::layerOf(o.backend, o.device);
    return layer ? std::string(spec::interconnectAt(*layer, o.worldSize)) : "unknown";
}

} // namespace

RankResult runDdp(const RankOptions& o) {
    const std::int64_t wallStart = monotonicNs();
    RankResult result;
    result.options = o;
    result.interconnect = interconnectFor(o);
    if (o.threads > 0) {
        torch::set_num_threads(o.threads);
    }
    result.intraOpThreads = torch::get_num_threads();
    if (o.backend == "nccl" && !kHasNccl) {
        throw RunFailure("this libtorch (" + std::string(TORCH_VERSION) +
                         ") was built without NCCL: --backend nccl is not available here");
    }
    if (o.device == "cuda" && !torch::cuda::is_available()) {
        throw RunFailure(
            std::string("--device cuda: ") +
            (kHasCudaBuild ? "no CUDA device is visible" : "this libtorch was built without CUDA"));
    }
    const torch::Device device =
        o.device == "cuda"
            ? torch::Device(torch::kCUDA,
                            o.localRank % std::max<int>(1, int(torch::cuda::device_count())))
            : torch::Device(torch::kCPU);
    result.deviceName = o.device == "cuda" ? "cuda:" + std::to_string(device.index()) : "cpu";

    RankGroup group = joinGroup(o); // the store lives as long as the group
    ProcessGroupPtr& pg = group.pg;

    torch::manual_seed(o.seed);
    const bool scripted = !o.torchscript.empty();
    TrainingModel model =
        scripted ? loadTorchScript(o, device) : makeModel(o.family, o.params, device);
    result.modelDescription = model.description;
    result.actualParams = countParameters(model.parameters);
    const auto signature = modelSignature(model.parameters, model.buffers);
    result.signatureHash = signatureHash(signature);
    checkFormation(*group.store, o, signature);

    // As DDP: only the parameters that require a gradient are the Reducer's (and the
    // optimizer's); frozen ones stay as they are.
    std::vector<torch::Tensor> params;
    std::unordered_map<std::size_t, std::string> names;
    for (const auto& [name, p] : model.parameters) {
        if (!p.requires_grad()) {
            result.frozenParams += p.numel();
            continue;
        }
        names[params.size()] = name;
        result.params.push_back(
            {name, p.sizes().vec(), p.numel() * std::int64_t(p.element_size())});
        params.push_back(p);
    }
    if (params.empty()) {
        throw ModelFileError((scripted ? o.torchscript : o.model) +
                             ": no parameter requires a gradient: DDP has nothing to reduce");
    }
    std::vector<torch::Tensor> buffers;
    for (const auto& [name, b] : model.buffers) {
        buffers.push_back(b);
    }

    syncParamsFromRank0(pg, params);

    const auto firstCap = std::size_t(o.firstBucketMb * 1024 * 1024);
    const auto cap = std::size_t(o.bucketCapMb * 1024 * 1024);
    // As Python DDP's constructor (1.13 and 2.x): without find_unused_parameters, or with
    // static_graph, the first iteration runs with one bucket, since registration order need not
    // be the order of use; the rebuild after it applies the caps in gradient-ready order.
    const auto unbounded = std::size_t(std::numeric_limits<std::int64_t>::max()); // sys.maxsize
    const bool oneFirstBucket = o.staticGraph || !o.findUnusedParameters;
    const BucketAssignment buckets = oneFirstBucket ? assignBuckets(params, unbounded, unbounded)
                                                    : assignBuckets(params, firstCap, cap);
    result.initialBuckets = buckets.indices;
    // Shared: the DDP logger holds the Reducer as Python's DDP object does.
    const std::shared_ptr<c10d::Reducer> reducerPtr = makeReducer(
        params, buckets, pg, firstCap, cap, names, o.gradientAsBucketView, o.findUnusedParameters);
    c10d::Reducer& reducer = *reducerPtr;
    if (o.staticGraph) {
        reducer.set_static_graph(); // before the first iteration, as DDP's _set_static_graph
    }
    auto log = std::make_shared<BucketLog>();
    log->setRecordFrom(o.recordFromIteration);
    const InstalledHook hook = installHook(reducer, o, pg, log, device);
    DdpLoggingRecorder ddpLogging(reducerPtr, o.hook, device);
    GradDump gradDump;

    auto optimizer = makeOptimizer(o.optimizer, params);
    // Batches exist on the device before any timing starts, seeded per rank.
    at::Generator gen = at::detail::createCPUGenerator(o.seed * 1000003ULL + std::uint64_t(o.rank));
    auto [input, target] = model.makeBatch(o.batchSize, gen);

    ChromeTrace& trace = ChromeTrace::instance();
    if (o.trace) {
        trace.install();
    }
    Fingerprinter& fp = Fingerprinter::instance();
    fp.configure(o);
    const int traceEnd = o.traceFirstStep + o.traceSteps;

    for (int it = 0; it < o.iterations; ++it) {
        log->setIteration(it);
        fp.setIteration(it);
        const bool traced = o.trace && it >= o.traceFirstStep && it < traceEnd;
        trace.setActive(traced);
        IterationTimes times;
        times.iter = it;
        const std::int64_t t0 = monotonicNs();
        if (o.delayRank == o.rank && o.delayMs > 0) { // a planted straggler (--delay-rank)
            std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.delayMs));
        }

        ddpLogging.beforeForward();
        reducer.prepare_for_forward();
        reducer.rebuild_buckets(); // a collective: every rank calls it at the same point
        // DDP's broadcast_buffers (its default), after the rebuild as there.
        if (!buffers.empty() && o.worldSize > 1) {
            broadcastBuffers(pg, buffers);
        }
        torch::Tensor output;
        if (scripted && it == 0) {
            // The first forward tells whether the module takes the input spec at all.
            try {
                output = model.forward(input);
                checkOutput(o, output, o.batchSize);
            } catch (const std::exception& e) {
                throw forwardFailure(o, e);
            }
        } else {
            output = model.forward(input);
        }
        auto loss = model.loss(output, target);
        // With find_unused_parameters the Reducer walks the graph from the outputs, as DDP's.
        reducer.prepare_for_backward(o.findUnusedParameters ? std::vector<torch::Tensor>{output}
                                                            : std::vector<torch::Tensor>{});
        times.forwardMs = msSince(t0);

        const std::int64_t t1 = monotonicNs();
        loss.backward();
        times.backwardMs = msSince(t1);

        const std::int64_t t2 = monotonicNs();
        optimizer->step();
        times.optimizerMs = msSince(t2);
        if (fp.captureSemantic()) {
            for (std::size_t i = 0; i < params.size(); ++i) {
                fp.record("optim::param_after_step:" + names[i], {}, {params[i]});
            }
        }
        times.stepMs = msSince(t0);
        const std::int64_t tEnd = monotonicNs();
        trace.addSpan("ProfilerStep#" + std::to_string(it), "user_annotation", t0, tEnd, it);
        trace.setActive(false);

        // Outside the timed region: checksum, then zero gradients in place.
        times.gradChecksum = checksum(params, true);
        if (o.dumpGrads) {
            gradDump.add(params);
        }
        ddpLogging.collect();
        for (auto& p : params) {
            if (p.grad().defined()) {
                p.mutable_grad().zero_();
            }
        }
        result.iterations.push_back(times);

        at::DisableRecordFunctionGuard notTheModel;
        JsonWriter j;
        j.beginObject();
        j.field(spec::progress::kEvent, spec::progress::kIteration);
        j.field(spec::progress::kRank, o.rank);
        j.field(spec::progress::kIter, it);
        j.field(spec::progress::kOf, o.iterations);
        j.field(spec::progress::kStepMs, times.stepMs);
        j.field(spec::progress::kLoss, loss.item<double>());
        j.endObject();
        emit(j.str());
        emitBuckets(*log, o.rank);
    }

    result.finalBuckets = currentBuckets(reducer, params);
    fp.setIteration(-1); // nothing after the loop is captured
    fp.close();
    result.ddpLogging = ddpLogging.finish();
    if (hook.powersgd) {
        result.powersgdNumelBefore = hook.powersgd->numelBefore.load();
        result.powersgdNumelAfter = hook.powersgd->numelAfter.load();
        result.powersgdCompressedBuckets = hook.powersgd->compressedBuckets.load();
    }
    if (o.dumpGrads) {
        gradDump.write(o.outDir + "/grads_rank" + std::to_string(o.rank) + ".pt");
        GradDump values;
        values.add(params, GradDump::Of::Values);
        values.write(o.outDir + "/params_rank" + std::to_string(o.rank) + ".pt");
    }
    result.buckets = log->all();
    std::set<int> countsSeen;
    std::map<int, int> perIteration;
    for (const auto& b : result.buckets) {
        perIteration[b.iteration]++;
    }
    for (const auto& [iteration, count] : perIteration) {
        countsSeen.insert(count);
    }
    result.bucketCountsSeen.assign(countsSeen.begin(), countsSeen.end());
    result.rebuildDetected = countsSeen.size() > 1;
    result.gradChecksumsAgree =
        checksumsAgree(pg, result.iterations, o.worldSize, result.gradChecksumNote);
    {
        torch::NoGradGuard noGrad;
        result.paramChecksum = checksum(params, false);
    }
    result.peakHostBytes = peakHostBytes();
#ifdef USE_CUDA
    if (device.is_cuda()) {
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
        result.peakDeviceBytes =
            stats.reserved_bytes[std::size_t(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
                .peak;
    }
#endif
    if (o.trace) {
        std::string error;
        result.traceFile = spec::files::kTrace.of(o.rank);
        if (!trace.write(o.outDir + "/" + result.traceFile, o.rank, o.worldSize, error)) {
            throw RunFailure(error);
        }
    }
    // Every rank reaches the end before any declares success.
    pg->barrier()->wait();
    result.wallS = double(monotonicNs() - wallStart) / 1e9;
    return result;
}

} // namespace commprof::rank
