// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_flags.h"

namespace commprof::rank {

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
        {
            {"--help", "", "Show the flags and exit", {}},
            {"--version", "", "Print libtorch, CUDA, Gloo and NCCL versions and exit", {}},
            {"--json", "", "With --version: one JSON document", {}},
            {"--model", "NAME", "Model preset (mlp2m, mlp50m, transformer400m, ...)", {}},
            {"--family", "FAMILY", "Model family", {"mlp", "transformer"}},
            {"--params", "N", "Parameter count, 1e4..2e9", {}},
            {"--torchscript",
             "FILE",
             "Train this TorchScript module instead of a synthetic family",
             {}},
            {"--input-shape", "C,H,W", "With --torchscript: one sample's input shape", {}},
            {"--classes", "N", "With --input-shape: class count of the cross-entropy target", {}},
            {"--tokens", "N", "With --torchscript: tokens per sample (next-token loss)", {}},
            {"--vocab", "V", "With --tokens: token ids are below V", {}},
            {"--find-unused-parameters",
             "",
             "Parameters a forward may leave unused (DDP's find_unused_parameters)",
             {}},
            {"--backend", "BACKEND", "Process group backend", {"gloo", "nccl"}},
            {"--device", "DEVICE", "Where the model lives", {"cpu", "cuda"}},
            {"--layer", "LABEL", "Label travelling with every number (default from backend)", {}},
            {"--cell-id", "ID", "Cell this rank belongs to", {}},
            {"--iterations", "N", "Iterations to run", {}},
            {"--warmup", "N", "Iterations not recorded", {}},
            {"--record-from-iteration", "N", "First recorded iteration (default: --warmup)", {}},
            {"--batch-size", "N", "Samples per rank and step", {}},
            {"--bucket-cap-mb", "X", "DDP bucket size cap in MB", {}},
            {"--first-bucket-mb", "X", "DDP first bucket size in MB", {}},
            {"--optimizer", "NAME", "Optimizer", {"sgd", "adam"}},
            {"--gradient-as-bucket-view",
             "",
             "Gradients are views into the buckets (DDP's gradient_as_bucket_view)",
             {}},
            {"--static-graph", "", "The graph never changes (DDP's static_graph)", {}},
            {"--hook",
             "HOOK",
             "Comm hook timed per bucket (default allreduce); 'default' is DDP's own, untimed; "
             "'timing' means allreduce",
             {"allreduce", "fp16_compress", "bf16_compress", "powersgd", "local", "default",
              "timing"}},
            {"--powersgd-rank", "R", "PowerSGD matrix approximation rank (default 1)", {}},
            {"--powersgd-start-iter",
             "N",
             "First PowerSGD iteration, >= 2 (default: first recorded, at least 2)",
             {}},
            {"--seed", "N", "Random seed, or 'random'", {}},
            {"--threads", "N", "Intra-op threads (0: libtorch's default)", {}},
            {"--trace", "", "Write a Chrome trace of the profiled steps", {}},
            {"--trace-first-step", "N", "First traced step (default: first recorded)", {}},
            {"--trace-steps", "N", "Steps traced", {}},
            {"--out", "DIR", "Where rankN.json and the trace go", {}},
            {"--rendezvous-timeout-s", "S", "Seconds to wait for every rank to join", {}},
            {"--collective-timeout-s", "S", "Seconds a collective may take", {}},
            {"--listen-all", "", "Bind rank 0's store on every interface (multi-host)", {}},
            {"--fingerprint",
             "LAYERS",
             "Record digests: semantic, op or semantic,op",
             {"semantic", "op", "semantic,op"}},
            {"--fp-iters", "START:END[:EVERY]", "Iterations fingerprinted", {}},
            {"--fp-ranks", "RANKS", "Ranks fingerprinted: all, or 0,3,8-15", {}},
            {"--fp-max-records", "N", "At most N fingerprint records", {}},
            {"--fp-max-bytes", "N", "At most N bytes of fingerprints", {}},
            {"--fp-chunk-dim", "D", "Chunk digests along dimension D", {}},
            {"--perturb", "OP@RANKS:ITER", "Perturb OP on RANKS (1, 0,3, 8-15, all) at ITER", {}},
            {"--delay-rank",
             "R:MS",
             "Rank R sleeps MS before each forward (a planted straggler)",
             {}},
            {"--hook-delay-ms",
             "MS",
             "Test only: the timing hook completes MS later, so it over-measures",
             {}},
            {"--sweep",
             "KINDS",
             "Collective sweep instead of training: all_reduce,all_gather,reduce_scatter,broadcast",
             {}},
            {"--sweep-max-bytes", "N", "Largest message of the sweep (default 256 MiB)", {}},
            {"--sweep-warmup", "N", "Untimed repetitions per size (default 2)", {}},
            {"--sweep-iters", "N", "Timed repetitions per size (default 11)", {}},
            {"--digest-selftest", "", "Print the digest self-test as JSON and exit", {}},
            {"--dump-grads",
             "",
             "Test only: every iteration's reduced gradients to grads_rankR.pt, the last "
             "parameters to params_rankR.pt (torch.load)",
             {}},
        },
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
