// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_flags.h"

#include "flag_values.h"

#include <cmath>
#include <cstdint>
#include <random>

namespace commprof::rank {

const std::vector<RankFlag>& rankFlags() {
    // A switch's setter ignores its value: "--trace=1" is "--trace", as it always was.
    static const std::vector<RankFlag> flags{
        {{"--help", "", "Show the flags and exit"}, [](auto& o, auto&, auto&) { o.help = true; }},
        {{"--version", "", "Print libtorch, CUDA, Gloo and NCCL versions and exit"},
         [](auto& o, auto&, auto&) { o.version = true; }},
        {{"--json", "", "With --version: one JSON document"},
         [](auto& o, auto&, auto&) { o.json = true; }},
        {{"--model", "NAME", "Model preset (mlp2m, mlp50m, transformer400m, ...)"},
         [](auto& o, auto&, auto& v) { o.model = v; }},
        {{"--family", "FAMILY", "Model family", {"mlp", "transformer"}},
         [](auto& o, auto& f, auto& v) { o.family = oneOf(f, v); }},
        {{"--params", "N", "Parameter count, 1e4..2e9"},
         [](auto& o, auto& f, auto& v) { o.params = toDouble(f.flag, v); }},
        {{"--torchscript", "FILE", "Train this TorchScript module instead of a synthetic family"},
         [](auto& o, auto&, auto& v) { o.torchscript = v; }},
        {{"--input-shape", "C,H,W", "With --torchscript: one sample's input shape"},
         [](auto& o, auto& f, auto& v) { readInputShape(f.flag, v, o); }},
        {{"--classes", "N", "With --input-shape: class count of the cross-entropy target"},
         [](auto& o, auto& f, auto& v) { o.classes = toInt(f.flag, v); }},
        {{"--tokens", "N", "With --torchscript: tokens per sample (next-token loss)"},
         [](auto& o, auto& f, auto& v) { o.tokens = toInt(f.flag, v); }},
        {{"--vocab", "V", "With --tokens: token ids are below V"},
         [](auto& o, auto& f, auto& v) { o.vocab = toInt(f.flag, v); }},
        {{"--find-unused-parameters", "",
          "Parameters a forward may leave unused (DDP's find_unused_parameters)"},
         [](auto& o, auto&, auto&) { o.findUnusedParameters = true; }},
        {{"--described-params", "N",
          "With --torchscript: the parameter count its description gives; another is refused"},
         // Read as a number so that descriptions may write 1.1e7, but a count all the same.
         [](auto& o, auto& f, auto& v) {
             o.describedParams = toDouble(f.flag, v);
             if (o.describedParams < 0 || o.describedParams != std::floor(o.describedParams)) {
                 throw UsageError(f.flag + ": expected a whole number >= 0, got '" + v + "'");
             }
         }},
        {{"--described-tensors", "N",
          "With --torchscript: the parameter tensors its description lists; another count is "
          "refused"},
         [](auto& o, auto& f, auto& v) {
             o.describedTensors = toInt(f.flag, v);
             if (o.describedTensors < 0) {
                 throw UsageError(f.flag + ": expected a whole number >= 0, got '" + v + "'");
             }
         }},
        {{"--check-module", "",
          "With --torchscript: load the module, check it against the flags above, and exit"},
         [](auto& o, auto&, auto&) { o.checkModule = true; }},
        {{"--backend", "BACKEND", "Process group backend", {"gloo", "nccl"}},
         [](auto& o, auto& f, auto& v) { o.backend = oneOf(f, v); }},
        {{"--device", "DEVICE", "Where the model lives", {"cpu", "cuda"}},
         [](auto& o, auto& f, auto& v) { o.device = oneOf(f, v); }},
        {{"--layer", "LABEL", "Label travelling with every number (default from backend)"},
         [](auto& o, auto&, auto& v) { o.layer = v; }},
        {{"--cell-id", "ID", "Cell this rank belongs to"},
         [](auto& o, auto&, auto& v) { o.cellId = v; }},
        {{"--iterations", "N", "Iterations to run"},
         [](auto& o, auto& f, auto& v) { o.iterations = toInt(f.flag, v); }},
        {{"--warmup", "N", "Iterations not recorded"},
         [](auto& o, auto& f, auto& v) { o.warmup = toInt(f.flag, v); }},
        {{"--record-from-iteration", "N", "First recorded iteration (default: --warmup)"},
         [](auto& o, auto& f, auto& v) { o.recordFromIteration = toInt(f.flag, v); }},
        {{"--batch-size", "N", "Samples per rank and step"},
         [](auto& o, auto& f, auto& v) { o.batchSize = toInt(f.flag, v); }},
        {{"--bucket-cap-mb", "X", "DDP bucket size cap in MB"},
         [](auto& o, auto& f, auto& v) { o.bucketCapMb = toDouble(f.flag, v); }},
        {{"--first-bucket-mb", "X", "DDP first bucket size in MB"},
         [](auto& o, auto& f, auto& v) { o.firstBucketMb = toDouble(f.flag, v); }},
        {{"--optimizer", "NAME", "Optimizer", {"sgd", "adam"}},
         [](auto& o, auto& f, auto& v) { o.optimizer = oneOf(f, v); }},
        {{"--gradient-as-bucket-view", "",
          "Gradients are views into the buckets (DDP's gradient_as_bucket_view)"},
         [](auto& o, auto&, auto&) { o.gradientAsBucketView = true; }},
        {{"--static-graph", "", "The graph never changes (DDP's static_graph)"},
         [](auto& o, auto&, auto&) { o.staticGraph = true; }},
        {{"--hook",
          "HOOK",
          "Comm hook timed per bucket (default allreduce); 'default' is DDP's own, untimed; "
          "'timing' means allreduce",
          {"allreduce", "fp16_compress", "bf16_compress", "powersgd", "local", "default",
           "timing"}},
         // "timing" is allreduce's older name, in scripts and results made before.
         [](auto& o, auto& f, auto& v) { o.hook = oneOf(f, v) == "timing" ? "allreduce" : v; }},
        {{"--powersgd-rank", "R", "PowerSGD matrix approximation rank (default 1)"},
         [](auto& o, auto& f, auto& v) { o.powersgdRank = toInt(f.flag, v); }},
        {{"--powersgd-start-iter", "N",
          "First PowerSGD iteration, >= 2 (default: first recorded, at least 2)"},
         [](auto& o, auto& f, auto& v) { o.powersgdStartIter = toInt(f.flag, v); }},
        {{"--seed", "N", "Random seed, or 'random'"},
         // "random": a different seed every run, the classic source of a run that will not repeat.
         [](auto& o, auto& f, auto& v) {
             o.seed = v == "random"
                          ? (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}()
                          : static_cast<std::uint64_t>(toDouble(f.flag, v));
         }},
        {{"--threads", "N", "Intra-op threads (0: libtorch's default)"},
         [](auto& o, auto& f, auto& v) { o.threads = toInt(f.flag, v); }},
        {{"--trace", "", "Write a Chrome trace of the profiled steps"},
         [](auto& o, auto&, auto&) { o.trace = true; }},
        {{"--trace-first-step", "N", "First traced step (default: first recorded)"},
         [](auto& o, auto& f, auto& v) { o.traceFirstStep = toInt(f.flag, v); }},
        {{"--trace-steps", "N", "Steps traced"},
         [](auto& o, auto& f, auto& v) { o.traceSteps = toInt(f.flag, v); }},
        {{"--out", "DIR", "Where rankN.json and the trace go"},
         [](auto& o, auto&, auto& v) { o.outDir = v; }},
        {{"--rendezvous-timeout-s", "S", "Seconds to wait for every rank to join"},
         [](auto& o, auto& f, auto& v) { o.rendezvousTimeoutS = toDouble(f.flag, v); }},
        {{"--collective-timeout-s", "S", "Seconds a collective may take"},
         [](auto& o, auto& f, auto& v) { o.collectiveTimeoutS = toDouble(f.flag, v); }},
        {{"--listen-all", "", "Bind rank 0's store on every interface (multi-host)"},
         [](auto& o, auto&, auto&) { o.listenAll = true; }},
        {{"--fingerprint",
          "LAYERS",
          "Record digests: semantic, op or semantic,op",
          {"semantic", "op", "semantic,op"}},
         [](auto& o, auto& f, auto& v) {
             o.fpSemantic = o.fpSemantic || v.find("semantic") != std::string::npos;
             o.fpOp = o.fpOp || v.find("op") != std::string::npos;
             if (!o.fpOp && !o.fpSemantic) {
                 // Looser than its choices ("op,semantic" too), so refused in their words.
                 throw UsageError(options::choiceError(f, v));
             }
         }},
        {{"--fp-iters", "START:END[:EVERY]", "Iterations fingerprinted"},
         [](auto& o, auto& f, auto& v) { readFpIters(f.flag, v, o); }},
        {{"--fp-ranks", "RANKS", "Ranks fingerprinted: all, or 0,3,8-15"},
         [](auto& o, auto& f, auto& v) { o.fpRanks = parseRanks(f.flag, v); }},
        {{"--fp-max-records", "N", "At most N fingerprint records"},
         [](auto& o, auto& f, auto& v) {
             o.fpMaxRecords = static_cast<long long>(toDouble(f.flag, v));
         }},
        {{"--fp-max-bytes", "N", "At most N bytes of fingerprints"},
         [](auto& o, auto& f, auto& v) {
             o.fpMaxBytes = static_cast<long long>(toDouble(f.flag, v));
         }},
        {{"--fp-chunk-dim", "D", "Chunk digests along dimension D"},
         [](auto& o, auto& f, auto& v) { o.fpChunkDim = toInt(f.flag, v); }},
        {{"--perturb", "OP@RANKS:ITER", "Perturb OP on RANKS (1, 0,3, 8-15, all) at ITER"},
         [](auto& o, auto& f, auto& v) { readPerturb(f.flag, v, o); }},
        {{"--delay-rank", "R:MS", "Rank R sleeps MS before each forward (a planted straggler)"},
         [](auto& o, auto& f, auto& v) { readDelay(f.flag, v, o); }},
        {{"--hook-delay-ms", "MS",
          "Test only: the timing hook completes MS later, so it over-measures"},
         [](auto& o, auto& f, auto& v) { o.hookDelayMs = parseHookDelay(f.flag, v); }},
        {{"--sweep", "KINDS",
          "Collective sweep instead of training: all_reduce,all_gather,reduce_scatter,broadcast"},
         [](auto& o, auto& f, auto& v) { readSweepKinds(f.flag, v, o); }},
        {{"--sweep-max-bytes", "N", "Largest message of the sweep (default 256 MiB)"},
         [](auto& o, auto& f, auto& v) {
             const double b = toDouble(f.flag, v);
             if (!(b >= 8 && b <= double(std::int64_t(1) << 40))) {
                 throw UsageError(f.flag + ": expected 8 to 2^40 bytes, got '" + v + "'");
             }
             o.sweepMaxBytes = std::int64_t(b);
         }},
        {{"--sweep-warmup", "N", "Untimed repetitions per size (default 2)"},
         [](auto& o, auto& f, auto& v) { o.sweepWarmup = toInt(f.flag, v); }},
        {{"--sweep-iters", "N", "Timed repetitions per size (default 11)"},
         [](auto& o, auto& f, auto& v) { o.sweepIterations = toInt(f.flag, v); }},
        {{"--digest-selftest", "", "Print the digest self-test as JSON and exit"},
         [](auto& o, auto&, auto&) { o.digestSelftest = true; }},
        {{"--fork-server", "SOCKET",
          "Serve the runner on this unix socket, forking ranks from one libtorch start-up "
          "(alone on the line)"},
         // main.cpp serves it before a rank's flags are read: here only when it is not alone on
         // the line.
         [](auto&, auto& f, auto&) {
             throw UsageError(f.flag + " takes its socket and nothing else: commprof-rank " +
                              f.flag + " SOCKET");
         }},
        {{"--dump-grads", "",
          "Test only: every iteration's reduced gradients to grads_rankR.pt, the last "
          "parameters to params_rankR.pt (torch.load)"},
         [](auto& o, auto&, auto&) { o.dumpGrads = true; }},
    };
    return flags;
}

const options::Program& rankProgram() {
    static const options::Program program{
        "commprof-rank",
        "one rank of a data-parallel (DDP) communication measurement",
        "commprof-rank trains a synthetic model (or a TorchScript module) with PyTorch's own DDP "
        "reducer (c10d::Reducer) "
        "and records, per iteration, the step time and every gradient bucket's all-reduce. "
        "commprof run starts one per rank; it also runs under torchrun or srun.\n\n"
        "Flags also take the form --flag=value.",
        "",
        [] {
            std::vector<options::Option> rows;
            for (const RankFlag& f : rankFlags()) {
                rows.push_back(f.option);
            }
            return rows;
        }(),
        {},
        {{"ENVIRONMENT",
          "RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT as torchrun sets them, else "
          "SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID.\n\n"
          "COMMPROF_STORE_TOKEN: rank 0's store admits only clients that present it.\n\n"
          "COMMPROF_DELAY_RANK=R:MS: as --delay-rank.\n\n"
          "COMMPROF_HOOK_DELAY_MS=MS: as --hook-delay-ms."},
         {"EXIT STATUS",
          "0 success; 1 the run failed; 2 bad usage; 3 rendezvous failed (port in use, peer "
          "missing, model mismatch)."},
         {"SEE ALSO", "commprof(1), commprof-workbench(1)"}},
    };
    return program;
}

} // namespace commprof::rank
