// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_options.h"

namespace commprof::cli {

const options::Program& commprofProgram() {
    using options::Option;
    const Option json{"--json", "", "Print one JSON document on stdout"};
    const Option db{"--db", "FILE", "SQLite database (default: DIR/results.sqlite)"};
    const Option profile{"--profile", "FILE", "Machine profile with the memory coefficients"};
    const Option maxTrace{"--max-trace-size", "SIZE",
                          "Refuse traces larger than SIZE (4G, 512M, bytes) up front"};
    const Option launcher{"--launcher",
                          "KIND",
                          "local (a pool on this machine) or slurm (one srun step per cell)",
                          {"local", "slurm"}};
    const Option params{"--params", "FILE",
                        "The model's parameters and DDP settings (docs/formats.md), for traces "
                        "without shapes or sizes"};
    const Option hta{"--hta", "", "Add HTA's temporal and communication breakdowns"};
    const Option window{"--window", "START:END", "Only this span of the trace, in microseconds"};
    const Option format{"--format",
                        "FORMAT",
                        "Output as a table for reading (the default), JSON or CSV",
                        {"table", "json", "csv"}};
    // trace ddp and whatif print one job's document: there are no rows a CSV could hold.
    const Option tableOrJson{"--format",
                             "FORMAT",
                             "Output as a table for reading (the default) or JSON",
                             {"table", "json"}};
    const Option skip{"--skip", "K",
                      "Steps left out first, at least 2: DDP rebuilds its buckets in step 1 "
                      "(default 5)"};
    const Option nproc{"--nproc", "N",
                       "Start N local ranks as torchrun's standalone mode would (RANK, "
                       "WORLD_SIZE, MASTER_ADDR, ...); without it the command launches them"};
    static const options::Program program{
        "commprof",
        "measure what data-parallel PyTorch training spends on communication",
        "commprof plans and runs experiment matrices of data-parallel training cells, each a pool "
        "of commprof-rank processes running PyTorch's own DDP reducer over Gloo, stores the "
        "results in SQLite and turns them into tables, figures and trace summaries.\n\n"
        "Human text and errors go to stderr; with --json or --format json, one JSON document "
        "goes to stdout.",
        "",
        {{"--help", "", "Show the commands, or with a command its options"},
         {"--version", "", "Print the version"}},
        {
            {"plan",
             "MATRIX.yaml",
             "Expand a matrix and print each cell's feasibility",
             {profile,
              {"--host-budget-gib", "X", "Host memory budget in GiB"},
              {"--device-budget-gib", "Y", "Device memory budget in GiB"},
              {"--gpus", "N", "Number of GPUs to plan for"},
              launcher,
              json}},
            {"run",
             "MATRIX.yaml",
             "Run the feasible cells of a matrix (a live view on a terminal)",
             {options::required({"--out", "DIR", "Results folder"}),
              {"--resume", "", "Skip the cells that already completed"},
              {"--only", "CELL_ID", "Run this cell only"},
              {"--json-progress", "", "Print the ranks' progress as JSON lines on stdout"},
              profile,
              launcher}},
            {"calibrate",
             "DIR|FILE.pt",
             "Compare predicted and measured host memory; refit the baseline; or measure a "
             "TorchScript module's activations into its description",
             {profile,
              {"--write-profile", "FILE", "Write the refitted profile here"},
              {"--batch-size", "B", "FILE.pt: measure at batch B and 2B (default 16)"},
              json}},
            {"calibrate hooks",
             "",
             "Measure in seconds, with two gloo ranks of Python's PyTorch on loopback, what a "
             "comm hook's casts and 16-bit sums and a collective beside the backward cost this "
             "machine; every trace whatif here reads it",
             {{"--out", "FILE",
               "Where to store it (default: $XDG_DATA_HOME/commprof/"
               "hook-calibration.json)"}}},
            {"probe",
             "",
             "Check the host, the rank worker, GPUs, ports, emulated links and rank formation",
             {json,
              {"--results", "DIR", "Results folder whose disk and stale ranks to check"},
              {"--ports", "FIRST-LAST", "Rendezvous port range to check"},
              {"--cleanup", "",
               "End stale ranks and remove emulated hosts recorded by an earlier run"},
              {"--no-formation", "", "Skip the two-rank formation over Gloo"},
              {"--compare-hosts", "REPORT...", "Other hosts' probe --json reports to compare"},
              {"--launcher",
               "KIND",
               "slurm: check Slurm's commands, the partition and its nodes instead",
               {"local", "slurm"}},
              {"--partition", "NAME", "With --launcher slurm: the partition to check"}}},
            {"ingest", "DIR", "Load a results folder into SQLite", {db}},
            {"cells",
             "DIR",
             "One row per cell of a results folder",
             {db,
              format,
              {"--json", "", "Same as --format json"},
              {"--csv", "", "Same as --format csv"}}},
            {"report",
             "DIR",
             "Write tables, LaTeX macros, fits and figures of a results folder (or the what-if "
             "figure and macros of a DDP job's trace folder)",
             {options::required({"--out", "OUTDIR", "Where the report goes"}),
              db,
              {"--params", "FILE",
               "A trace folder's model parameters (default: its params.json, if any)"},
              {"--width-in", "W",
               "Figure width in inches: 3.3 for a paper's single column, 7 (default) for two"},
              {"--font-pt", "P", "Every text of the figures at P points (default 9)"}}},
            {"diff",
             "[RUN_A RUN_B]", // none with --arms
             "Compare two fingerprinted runs; with --arms, run both arms first",
             {json,
              {"--arms", "", "Run a base and a changed arm, then compare them"},
              {"--out", "DIR", "With --arms: where the arms run"},
              {"--change", "FLAGS", "With --arms: rank flags of the changed arm"},
              {"--base", "FLAGS", "With --arms: rank flags of both arms"},
              {"--world", "N", "With --arms: ranks per arm"}}},
            {"trace summarize",
             "TRACE_OR_DIR...",
             "Per-step figures of a trace; several ranks: skew and stragglers",
             {json,
              format,
              hta,
              window,
              maxTrace,
              {"--launcher",
               "KIND",
               "local (the default) or slurm: each rank reduced by a task of one Slurm job array",
               {"local", "slurm"}},
              {"--partition", "NAME", "With --launcher slurm: the partition of the job"},
              {"--reduced", "DIR",
               "With --launcher slurm: keep the ranks' reductions here (default: a temporary "
               "folder in the current one, removed after the merge)"}}},
            {"trace reduce",
             "TRACE",
             "Reduce one rank's trace to what a job's summary merges (a Slurm task's work)",
             {options::required({"--out", "REDUCED.json", "Where the reduction goes"}), hta, window,
              maxTrace}},
            {"trace collectives",
             "TRACE",
             "One record per collective, with bytes and bandwidth",
             {json, maxTrace}},
            {"trace ddp",
             "TRACE_OR_DIR...",
             "A DDP job's steps from its rank traces: phases, gradient-ready times, buckets, the "
             "critical path across ranks and its culprits",
             {json, tableOrJson, maxTrace, params}},
            {"trace whatif",
             "TRACE_OR_DIR...",
             "A DDP job's recorded step replayed, then predicted under other bucket caps, hooks, "
             "bandwidths and world sizes",
             {json,
              tableOrJson,
              maxTrace,
              params,
              {"--bucket-cap-mb", "LIST",
               "Caps to predict, in MiB (default: the recorded cap and "
               "0.25 .. 64)"},
              {"--first-bucket-mb", "X", "The first bucket's cap in MiB (default: as recorded)"},
              {"--hook", "LIST",
               "Hooks to predict: allreduce,fp16_compress,bf16_compress,"
               "powersgd,local (default: the recorded one)"},
              {"--bandwidth-x", "K", "The link's bandwidth times K (default 1)"},
              {"--world-size", "N", "Ranks to predict for (default: as recorded)"},
              {"--recorded-bucket-cap-mb", "X",
               "The cap the job ran with, where the trace and "
               "--params do not say"},
              {"--compute-contention", "K",
               "The share of a collective's time the backward loses beside it, 0 to 1 "
               "(default: gloo on a CPU 1, less where a slow link holds the collective; else 0)"},
              {"--hook-calibration", "FILE",
               "A hook's own work as tools/hook_calibrate.py measured it "
               "(default: the one `commprof calibrate hooks` stored on this machine)"},
              {"--sweep", "RUN",
               "A results folder (or cell) with a kind: sweep cell of the job's world size, "
               "layer and link: its all_reduce line prices the collectives where the trace's "
               "own do not pin the cost down"}}},
            {"sweep run",
             "",
             "Run a collective sweep over loopback: time per message size on every rank",
             {{"--world-size", "N", "Ranks in the sweep"},
              options::required({"--out", "DIR", "Where sweep_rankR.json go"}),
              {"--kinds", "K,...", "Collectives: all_reduce,all_gather,reduce_scatter,broadcast"},
              {"--max-bytes", "B", "Largest message (default 256 MiB)"},
              {"--iters", "N", "Timed repetitions per size"},
              {"--warmup", "N", "Untimed repetitions per size"}}},
            {"sweep summarize",
             "DIR",
             "Per-size time, algbw and busbw, and the alpha-beta fit (or why it is refused)",
             {json, {"--ddp", "CELL_DIR", "Predict this DDP cell's step from the fit"}}},
            {"recommend",
             "DIR",
             "Predict each bucket cap's step from the sweep; measured beside predicted; the cap "
             "to set and what it saves a step",
             {json,
              {"--current-cap-mb", "X",
               "The bucket cap you run at now (default: the matrix's bucket_cap_mb where it is "
               "one value, else a group's one cap run, else DDP's 25)"}}},
            {"model export",
             "SPEC",
             "Write a TorchScript module and its description (torchvision:resnet18, "
             "gpt:layers=6,d=512,heads=8,seq=128,vocab=32000) for a matrix to name",
             {options::required({"--out", "FILE.pt", "The module; FILE.json beside it"}),
              {"--input-shape", "C,H,W", "torchvision: the image input (default 3,224,224)"},
              {"--classes", "N", "torchvision: classes of the head (default 1000)"},
              {"--seed", "N", "Seed of the initial weights (default 0)"}}},
            {"model describe",
             "FILE.pt",
             "Write the description of a module saved with torch.jit.script(model).save(FILE.pt), "
             "so that a matrix can name it",
             {{"--input-shape", "C,H,W", "An image model's input (default 3,224,224)"},
              {"--classes", "N", "An image model's classes (default: its output's width)"},
              {"--tokens", "N", "A token model's sequence length (with --vocab)"},
              {"--vocab", "V", "A token model's vocabulary size (with --tokens)"},
              {"--out", "FILE.json", "Where to write it (default: FILE.json beside FILE.pt)"}}},
            {"record",
             "COMMAND...",
             "Run your unmodified DDP training (after --) with commprof's capture: a trace of N "
             "steps per rank and the wrapper's parameters and settings, for trace whatif DIR",
             {{"--out", "DIR", "A new or empty folder (default: commprof-record-TIME)"},
              skip,
              {"--steps", "N", "Steps traced after the skipped ones (default 5)"},
              nproc}},
            {"confirm",
             "DIR COMMAND...",
             "Run a recorded job (after --) under its settings and a candidate, alternating, and "
             "print the measured difference beside trace whatif's prediction",
             {options::required({"--bucket-cap-mb", "X", "The candidate's bucket cap in MiB"}),
              {"--hook",
               "H",
               "The candidate's comm hook (default: the recorded one)",
               {"allreduce", "fp16_compress", "bf16_compress"}},
              {"--rounds", "R", "Alternations A B (default 4, at least 2)"},
              skip,
              nproc,
              json}},
        },
        {{"ENVIRONMENT",
          "COMMPROF_RANK: the commprof-rank program to run; without it, the one next to "
          "commprof, else the first on PATH."},
         {"EXIT STATUS",
          "0 success; 1 the command ran but something is not fine (a cell failed, probe "
          "issues); 2 bad input or usage. record and confirm: 3 the job built no DDP wrapper, 4 "
          "it runs a profiler of its own, 5 it builds several DDP wrappers, 6 it ran too few "
          "steps."},
         {"SEE ALSO", "commprof-rank(1), commprof-workbench(1)"}},
    };
    return program;
}

} // namespace commprof::cli
