// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Command-line flags and rendezvous environment of one rank (docs/cli.md, commprof-rank).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace commprof::rank {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct RankOptions {
    // Model
    std::string model = "mlp2m";
    std::string family = "mlp"; // mlp | transformer
    double params = 2.0e6;
    // A TorchScript module instead of a synthetic family (--torchscript FILE): its input is
    // either an image batch of inputShape (C,H,W) with `classes` targets for cross-entropy, or
    // `tokens` token ids below `vocab` with a next-token loss.
    std::string torchscript;
    std::vector<std::int64_t> inputShape;
    int tokens = 0;
    int vocab = 0;
    int classes = 0;
    bool findUnusedParameters = false; // DDP's find_unused_parameters
    // What the module's description says it holds (--described-params, --described-tensors):
    // a module holding another count is refused as it loads. -1: not said.
    double describedParams = -1;
    int describedTensors = -1;
    bool checkModule = false; // --check-module: load the module, check it, exit
    // Measurement layer
    std::string backend = "gloo"; // gloo | nccl
    std::string device = "cpu";   // cpu | cuda
    std::string layer;            // label travelling with every number; derived when empty
    std::string cellId;
    // Loop
    int iterations = 30;
    int warmup = 5;
    int recordFromIteration = -1; // -1: the warmup count
    int batchSize = 32;
    double bucketCapMb = 25.0;
    double firstBucketMb = 1.0;
    std::string optimizer = "sgd"; // sgd | adam
    // allreduce | fp16_compress | bf16_compress | powersgd | local | default (DDP's own untimed
    // all-reduce, for comparisons); "timing", the older name of allreduce, is read as it.
    std::string hook = "allreduce";
    int powersgdRank = 1;       // PowerSGD's matrix_approximation_rank
    int powersgdStartIter = -1; // start_powerSGD_iter; -1: the first recorded iteration, >= 2
    bool dumpGrads = false;     // test only: every iteration's reduced gradients to grads_rankR.pt
    std::uint64_t seed = 1234;
    int threads = 0; // intra-op threads; 0 leaves libtorch's default
    // Tracing
    bool trace = false;
    // DDP's own options (torch.nn.parallel.DistributedDataParallel's keywords of the same names).
    bool gradientAsBucketView = false;
    bool staticGraph = false;
    int traceFirstStep = -1; // -1: the first recorded iteration
    int traceSteps = 8;
    // Determinism capture (off by default: nothing is installed without --fingerprint)
    bool fpSemantic = false;
    bool fpOp = false;
    int fpIterStart = 0;
    int fpIterEnd = 1 << 30; // exclusive
    int fpIterEvery = 1;
    std::vector<int> fpRanks; // empty: all
    long long fpMaxRecords = -1;
    long long fpMaxBytes = -1;
    int fpChunkDim = -1;
    std::string perturbOp;         // --perturb OP@RANK:ITER
    std::vector<int> perturbRanks; // empty with a perturbOp: every rank
    bool perturbsRank(int r) const;
    int perturbIter = -1;
    bool digestSelftest = false;
    // Fault injection: --delay-rank R:MS (or COMMPROF_DELAY_RANK=R:MS) sleeps MS before each
    // forward on rank R, a planted straggler.
    int delayRank = -1;
    double delayMs = 0;
    // Test only: --hook-delay-ms MS (or COMMPROF_HOOK_DELAY_MS) sleeps MS in the timing hook's
    // completion callback before it records the end, so the hook over-measures every bucket and
    // must disagree with the backend's own spans.
    double hookDelayMs = 0;
    // Collective sweep (--sweep KINDS): no DDP run; sizes from 8 B doubling to sweepMaxBytes.
    std::vector<std::string> sweepKinds;
    std::int64_t sweepMaxBytes = std::int64_t(256) << 20;
    int sweepWarmup = 2;
    int sweepIterations = 11; // the median of 11 stands against a busy host's outliers
    // Output and rendezvous
    std::string outDir = ".";
    double rendezvousTimeoutS = 60;
    double collectiveTimeoutS = 60;
    bool listenAll = false; // bind the store on every interface (multi-host); off by default
    // Modes
    bool version = false;
    bool help = false;
    bool json = false;

    // From the environment (torchrun, then SLURM)
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
    std::string storeToken; // COMMPROF_STORE_TOKEN: what a store client presents first
};

// Throws UsageError naming the flag.
RankOptions parseOptions(int argc, char** argv);
// One line naming every flag; --help prints the whole table (rank_flags.h).
std::string usageText();

} // namespace commprof::rank
