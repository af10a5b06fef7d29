// SPDX-License-Identifier: GPL-3.0-or-later
#include "bucket_timer.h"
#include "chrome_trace.h"
#include "ddp_logging.h"
#include "fingerprint.h"
#include "hooks/hook_factory.h"
#include "json_writer.h"
#include "models.h"
#include "rank_result.h"
#include "rendezvous.h"
#include "spec/layers.h"
#include "spec/rank_contract.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <set>
#include <thread>

namespace commprof::rank {
namespace {

double msSince(std::int64_t startNs) {
    return double(monotonicNs() - startNs) / 1e6;
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

// --dump-grads (test only): every iteration's reduced gradients (and, in params_rankR.pt, the
// parameters after the last step), written once at the end in the format torch.load reads, so
// a test can compare them with Python DDP's element by element.
class GradDump {
public:
    enum class Of { Grads, Values };
    // Copies every grad (or the parameters' values) to the CPU.
    void add(const std::vector<torch::Tensor>& params, Of of = Of::Grads) {
        at::DisableRecordFunctionGuard notTheModel; // instrumentation, not ops to trace
        c10::List<at::Tensor> grads;
        for (const auto& p : params) {
            // An unused parameter's gradient stays undefined under find_unused_parameters:
            // zeros, as Python's None is read on the other side.
            const at::Tensor& t = of == Of::Values ? p : p.grad();
            grads.push_back(t.defined() ? t.detach().to(torch::kCPU).clone()
                                        : torch::zeros_like(p, torch::kCPU));
        }
        iterations_.push_back(grads);
    }
    // A list (per iteration) of lists (per parameter) of tensors. Throws on a write error.
    void write(const std::string& path) const {
        const std::vector<char> bytes = torch::pickle_save(c10::IValue(iterations_));
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), std::streamsize(bytes.size()));
        if (!out) {
            throw std::runtime_error("cannot write " + path);
        }
    }

private:
    c10::List<c10::List<at::Tensor>> iterations_;
};

// Threads, then the device this rank trains on, refused up front when this libtorch or this
// machine cannot give it.
torch::Device chooseDevice(const RankOptions& o, RankResult& result) {
    if (o.threads > 0) {
        torch::set_num_threads(o.threads);
    }
    result.intraOpThreads = torch::get_num_threads();
    if (o.backend == "nccl" && !kHasNccl) {
        throw std::runtime_error("this libtorch (" + std::string(TORCH_VERSION) +
                                 ") was built without NCCL: --backend nccl is not available here");
    }
    if (o.device == "cuda" && !torch::cuda::is_available()) {
        throw std::runtime_error(
            std::string("--device cuda: ") +
            (kHasCudaBuild ? "no CUDA device is visible" : "this libtorch was built without CUDA"));
    }
    const torch::Device device =
        o.device == "cuda"
            ? torch::Device(torch::kCUDA,
                            o.localRank % std::max<int>(1, int(torch::cuda::device_count())))
            : torch::Device(torch::kCPU);
    result.deviceName = o.device == "cuda" ? "cuda:" + std::to_string(device.index()) : "cpu";
    return device;
}

// What the rank trains: the model, and the parameters DDP reduces with their names.
struct Trainee {
    TrainingModel model;
    std::vector<torch::Tensor> params;                  // those that require a gradient
    std::unordered_map<std::size_t, std::string> names; // by index into params
    std::vector<torch::Tensor> buffers;
};

// The model, checked against every other rank's (the same signature or no run), and its
// parameters as DDP takes them: only those that require a gradient are the Reducer's (and the
// optimizer's); frozen ones stay as they are.
Trainee loadTrainee(const RankOptions& o, const torch::Device& device, const RankGroup& group,
                    RankResult& result) {
    torch::manual_seed(o.seed);
    const bool scripted = !o.torchscript.empty();
    Trainee t{
        scripted ? loadTorchScript(o, device) : makeModel(o.family, o.params, device), {}, {}, {}};
    result.modelDescription = t.model.description;
    result.actualParams = countParameters(t.model.parameters);
    const auto signature = modelSignature(t.model.parameters, t.model.buffers);
    result.signatureHash = signatureHash(signature);
    checkFormation(*group.store, o, signature);
    for (const auto& [name, p] : t.model.parameters) {
        if (!p.requires_grad()) {
            result.frozenParams += p.numel();
            continue;
        }
        t.names[t.params.size()] = name;
        result.params.push_back(
            {name, p.sizes().vec(), p.numel() * std::int64_t(p.element_size())});
        t.params.push_back(p);
    }
    if (t.params.empty()) {
        throw ModelFileError((scripted ? o.torchscript : o.model) +
                             ": no parameter requires a gradient: DDP has nothing to reduce");
    }
    for (const auto& [name, b] : t.model.buffers) {
        t.buffers.push_back(b);
    }
    return t;
}

// PyTorch's own Reducer over the parameters, bucketed as Python DDP's constructor buckets them.
std::shared_ptr<c10d::Reducer> buildReducer(const RankOptions& o, const Trainee& t,
                                            const ProcessGroupPtr& pg, RankResult& result) {
    const auto firstCap = std::size_t(o.firstBucketMb * 1024 * 1024);
    const auto cap = std::size_t(o.bucketCapMb * 1024 * 1024);
    // As Python DDP's constructor (1.13 and 2.x): without find_unused_parameters, or with
    // static_graph, the first iteration runs with one bucket, since registration order need not
    // be the order of use; the rebuild after it applies the caps in gradient-ready order.
    const auto unbounded = std::size_t(std::numeric_limits<std::int64_t>::max()); // sys.maxsize
    const bool oneFirstBucket = o.staticGraph || !o.findUnusedParameters;
    const BucketAssignment buckets = oneFirstBucket ? assignBuckets(t.params, unbounded, unbounded)
                                                    : assignBuckets(t.params, firstCap, cap);
    result.initialBuckets = buckets.indices;
    // Shared: the DDP logger holds the Reducer as Python's DDP object does.
    std::shared_ptr<c10d::Reducer> reducer =
        makeReducer(t.params, buckets, pg, firstCap, cap, t.names, o.gradientAsBucketView,
                    o.findUnusedParameters);
    if (o.staticGraph) {
        reducer->set_static_graph(); // before the first iteration, as DDP's _set_static_graph
    }
    return reducer;
}

// DDP around the trainee: the Reducer with its comm hook and bucket log, DDP's logging, the
// optimizer. Members are destroyed in reverse order, the Reducer last.
struct Ddp {
    std::shared_ptr<c10d::Reducer> reducer;
    std::shared_ptr<BucketLog> log;
    std::shared_ptr<const PowerSgdCounters> powersgd; // null for the other hooks
    DdpLoggingRecorder ddpLogging;
    GradDump gradDump;
    std::unique_ptr<torch::optim::Optimizer> optimizer;
};

Ddp setUpDdp(const RankOptions& o, const Trainee& t, const ProcessGroupPtr& pg,
             const torch::Device& device, RankResult& result) {
    std::shared_ptr<c10d::Reducer> reducer = buildReducer(o, t, pg, result);
    auto log = std::make_shared<BucketLog>();
    log->setRecordFrom(o.recordFromIteration);
    // Braced: built in this order, in place (the logger is neither copied nor moved).
    return Ddp{reducer,
               log,
               installHook(*reducer, o, pg, log, device),
               DdpLoggingRecorder(reducer, o.hook, device),
               GradDump(),
               makeOptimizer(o.optimizer, t.params)};
}

// The timed part of one iteration as Python DDP's forward, backward and optimizer step run it;
// `loss` is left for the progress line.
IterationTimes trainStep(const RankOptions& o, int it, Trainee& t, Ddp& d,
                         const ProcessGroupPtr& pg, const torch::Tensor& input,
                         const torch::Tensor& target, torch::Tensor& loss) {
    IterationTimes times;
    times.iter = it;
    const std::int64_t t0 = monotonicNs();
    if (o.delayRank == o.rank && o.delayMs > 0) { // a planted straggler (--delay-rank)
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.delayMs));
    }
    d.ddpLogging.beforeForward();
    d.reducer->prepare_for_forward();
    d.reducer->rebuild_buckets(); // a collective: every rank calls it at the same point
    // DDP's broadcast_buffers (its default), after the rebuild as there.
    if (!t.buffers.empty() && o.worldSize > 1) {
        broadcastBuffers(pg, t.buffers);
    }
    torch::Tensor output;
    if (!o.torchscript.empty() && it == 0) {
        // The first forward tells whether the module takes the input spec at all.
        try {
            output = t.model.forward(input);
            checkOutput(o, output, o.batchSize);
        } catch (const std::exception& e) {
            throw forwardFailure(o, e);
        }
    } else {
        output = t.model.forward(input);
    }
    loss = t.model.loss(output, target);
    // With find_unused_parameters the Reducer walks the graph from the outputs, as DDP's.
    d.reducer->prepare_for_backward(o.findUnusedParameters ? std::vector<torch::Tensor>{output}
                                                           : std::vector<torch::Tensor>{});
    times.forwardMs = msSince(t0);

    const std::int64_t t1 = monotonicNs();
    loss.backward();
    times.backwardMs = msSince(t1);

    const std::int64_t t2 = monotonicNs();
    d.optimizer->step();
    times.optimizerMs = msSince(t2);
    Fingerprinter& fp = Fingerprinter::instance();
    if (fp.captureSemantic()) {
        for (std::size_t i = 0; i < t.params.size(); ++i) {
            fp.record("optim::param_after_step:" + t.names[i], {t.params[i]});
        }
    }
    times.stepMs = msSince(t0);
    ChromeTrace::instance().addSpan("ProfilerStep#" + std::to_string(it), "user_annotation", t0,
                                    monotonicNs(), it);
    return times;
}

// Outside the timed region: checksum, then zero gradients in place.
void afterStep(const RankOptions& o, Trainee& t, Ddp& d, IterationTimes& times) {
    times.gradChecksum = checksum(t.params, true);
    if (o.dumpGrads) {
        d.gradDump.add(t.params);
    }
    d.ddpLogging.collect();
    for (auto& p : t.params) {
        if (p.grad().defined()) {
            p.mutable_grad().zero_();
        }
    }
}

// The launcher's progress lines: the iteration, then its buckets as the hook timed them.
void emitIteration(const RankOptions& o, const IterationTimes& times, const torch::Tensor& loss,
                   BucketLog& log) {
    at::DisableRecordFunctionGuard notTheModel;
    JsonWriter j;
    j.beginObject();
    j.field(spec::progress::kEvent, spec::progress::kIteration);
    j.field(spec::progress::kRank, o.rank);
    j.field(spec::progress::kIter, times.iter);
    j.field(spec::progress::kOf, o.iterations);
    j.field(spec::progress::kStepMs, times.stepMs);
    j.field(spec::progress::kLoss, loss.item<double>());
    j.endObject();
    emit(j.str());
    for (const auto& b : log.takeNew()) {
        JsonWriter bj;
        bj.beginObject();
        bj.field(spec::progress::kEvent, spec::progress::kBucket);
        bj.field(spec::progress::kRank, o.rank);
        bj.field(spec::progress::kIter, b.iteration);
        bj.field(spec::progress::kIndex, b.index);
        bj.field(spec::progress::kBytes, b.bytes);
        bj.field(spec::progress::kMs, double(b.endNs - b.startNs) / 1e6);
        bj.endObject();
        emit(bj.str());
    }
}

// The iterations, the trace switched on for the traced steps only.
void train(const RankOptions& o, Trainee& t, Ddp& d, const ProcessGroupPtr& pg,
           RankResult& result) {
    // Batches exist on the device before any timing starts, seeded per rank.
    at::Generator gen = at::detail::createCPUGenerator(o.seed * 1000003ULL + std::uint64_t(o.rank));
    auto [input, target] = t.model.makeBatch(o.batchSize, gen);
    ChromeTrace& trace = ChromeTrace::instance();
    if (o.trace) {
        trace.install();
    }
    Fingerprinter& fp = Fingerprinter::instance();
    fp.configure(o);
    const int traceEnd = o.traceFirstStep + o.traceSteps;
    for (int it = 0; it < o.iterations; ++it) {
        d.log->setIteration(it);
        fp.setIteration(it);
        trace.setActive(o.trace && it >= o.traceFirstStep && it < traceEnd);
        torch::Tensor loss;
        IterationTimes times = trainStep(o, it, t, d, pg, input, target, loss);
        trace.setActive(false);
        afterStep(o, t, d, times);
        result.iterations.push_back(times);
        emitIteration(o, times, loss, *d.log);
    }
}

// What the loop leaves besides its iterations: DDP's buckets and logging, PowerSGD's counts,
// the gradient dumps, the bucket counts per iteration (two: DDP rebuilt its buckets).
void collectRun(const RankOptions& o, const Trainee& t, Ddp& d, RankResult& result) {
    result.finalBuckets = currentBuckets(*d.reducer, t.params);
    Fingerprinter& fp = Fingerprinter::instance();
    fp.setIteration(-1); // nothing after the loop is captured
    fp.close();
    result.ddpLogging = d.ddpLogging.finish();
    if (d.powersgd) {
        result.powersgdNumelBefore = d.powersgd->numelBefore.load();
        result.powersgdNumelAfter = d.powersgd->numelAfter.load();
        result.powersgdCompressedBuckets = d.powersgd->compressedBuckets.load();
    }
    if (o.dumpGrads) {
        d.gradDump.write(o.outDir + "/grads_rank" + std::to_string(o.rank) + ".pt");
        GradDump values;
        values.add(t.params, GradDump::Of::Values);
        values.write(o.outDir + "/params_rank" + std::to_string(o.rank) + ".pt");
    }
    result.buckets = d.log->all();
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
}

// The checks and peaks that end the run, and the trace file.
void finishRun(const RankOptions& o, const Trainee& t, ProcessGroupPtr& pg,
               const torch::Device& device, RankResult& result) {
    result.gradChecksumsAgree =
        checksumsAgree(pg, result.iterations, o.worldSize, result.gradChecksumNote);
    {
        torch::NoGradGuard noGrad;
        result.paramChecksum = checksum(t.params, false);
    }
    result.peakHostBytes = peakHostBytes();
    result.peakDeviceBytes = peakDeviceBytes(device);
    if (o.trace) {
        std::string error;
        result.traceFile = spec::files::kTrace.of(o.rank);
        if (!ChromeTrace::instance().write(o.outDir + "/" + result.traceFile, o.rank, o.worldSize,
                                           error)) {
            throw std::runtime_error(error);
        }
    }
}

} // namespace

RankResult runDdp(const RankOptions& o) {
    const std::int64_t wallStart = monotonicNs();
    RankResult result;
    result.options = o;
    const spec::Layer* layer = spec::layerOf(o.backend, o.device);
    result.interconnect =
        layer ? std::string(spec::interconnectAt(*layer, o.worldSize)) : "unknown";
    const torch::Device device = chooseDevice(o, result);
    RankGroup group = joinGroup(o); // the store lives as long as the group
    Trainee trainee = loadTrainee(o, device, group, result);
    syncParamsFromRank0(group.pg, trainee.params);
    Ddp ddp = setUpDdp(o, trainee, group.pg, device, result);
    train(o, trainee, ddp, group.pg, result);
    collectRun(o, trainee, ddp, result);
    finishRun(o, trainee, group.pg, device, result);
    // Every rank reaches the end before any declares success.
    group.pg->barrier()->wait();
    result.wallS = double(monotonicNs() - wallStart) / 1e9;
    return result;
}

} // namespace commprof::rank
