// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_options.h"

namespace commprof::cli {

const options::Program& commprofProgram() {
    using options::Option;
    const Option json{"--json", "", "Print one JSON document on stdout", {}};
    const Option db{"--db", "FILE", "SQLite database (default: DIR/results.sqlite)", {}};
    const Option profile{"--profile", "FILE", "Machine profile with the memory coefficients", {}};
    const Option maxTrace{"--max-trace-size",
                          "SIZE",
                          "Refuse traces larger than SIZE (4G, 512M, bytes) up front",
                          {}};
    const Option launcher{"--launcher",
                          "KIND",
                          "local (a pool on this machine) or slurm (one srun step per cell)",
                          {"local", "slurm"}};
    const Option format{"--format",
                        "FORMAT",
                        "Output as a table for reading (the default), JSON or CSV",
                        {"table", "json", "csv"}};
    static const options::Program program{
        "commprof",
        "measure what data-parallel PyTorch training spends on communication",
        "commprof plans and runs experiment matrices of data-parallel training cells, each a pool "
        "of commprof-rank processes running PyTorch's own DDP reducer over Gloo, stores the "
        "results in SQLite and turns them into tables, figures and trace summaries.\n\n"
        "Human text and errors go to stderr; with --json or --format json, one JSON document "
        "goes to stdout.",
        "",
        {{"--help", "", "Show the commands, or with a command its options", {}},
         {"--version", "", "Print the version", {}}},
        {
            {"plan",
             "MATRIX.yaml",
             "Expand a matrix and print each cell's feasibility",
             {profile,
              {"--host-budget-gib", "X", "Host memory budget in GiB", {}},
              {"--device-budget-gib", "Y", "Device memory budget in GiB", {}},
              {"--gpus", "N", "Number of GPUs to plan for", {}},
              launcher,
              json}},
            {"run",
             "MATRIX.yaml",
             "Run the feasible cells of a matrix (a live view on a terminal)",
             {options::required({"--out", "DIR", "Results folder", {}}),
              {"--resume", "", "Skip the cells that already completed", {}},
              {"--only", "CELL_ID", "Run this cell only", {}},
              {"--json-progress", "", "Print the ranks' progress as JSON lines on stdout", {}},
              profile,
              launcher}},
            {"calibrate",
             "DIR",
             "Compare predicted and measured host memory; refit the baseline",
             {profile, {"--write-profile", "FILE", "Write the refitted profile here", {}}, json}},
            {"probe",
             "",
             "Check the host, the rank worker, GPUs, ports and rank formation",
             {json,
              {"--results", "DIR", "Results folder whose disk and stale ranks to check", {}},
              {"--ports", "FIRST-LAST", "Rendezvous port range to check", {}},
              {"--cleanup", "", "End stale ranks recorded by an earlier run", {}},
              {"--no-formation", "", "Skip the two-rank formation over Gloo", {}},
              {"--compare-hosts", "REPORT...", "Other hosts' probe --json reports to compare", {}},
              {"--launcher",
               "KIND",
               "slurm: check Slurm's commands, the partition and its nodes instead",
               {"local", "slurm"}},
              {"--partition", "NAME", "With --launcher slurm: the partition to check", {}}}},
            {"ingest", "DIR", "Load a results folder into SQLite", {db}},
            {"cells",
             "DIR",
             "One row per cell of a results folder",
             {db,
              format,
              {"--json", "", "Same as --format json", {}},
              {"--csv", "", "Same as --format csv", {}}}},
            {"report",
             "DIR",
             "Write tables, LaTeX macros, fits and figures of a results folder",
             {options::required({"--out", "OUTDIR", "Where the report goes", {}}), db}},
            {"diff",
             "[RUN_A RUN_B]", // none with --arms
             "Compare two fingerprinted runs; with --arms, run both arms first",
             {json,
              {"--arms", "", "Run a base and a changed arm, then compare them", {}},
              {"--out", "DIR", "With --arms: where the arms run", {}},
              {"--change", "FLAGS", "With --arms: rank flags of the changed arm", {}},
              {"--base", "FLAGS", "With --arms: rank flags of both arms", {}},
              {"--world", "N", "With --arms: ranks per arm", {}}}},
            {"trace summarize",
             "TRACE_OR_DIR...",
             "Per-step figures of a trace; several ranks: skew and stragglers",
             {json,
              format,
              {"--hta", "", "Add HTA's temporal and communication breakdowns", {}},
              {"--window", "START:END", "Only this span of the trace, in microseconds", {}},
              maxTrace}},
            {"trace collectives",
             "TRACE",
             "One record per collective, with bytes and bandwidth",
             {json, maxTrace}},
            {"sweep run",
             "",
             "Run a collective sweep over loopback: time per message size on every rank",
             {{"--world-size", "N", "Ranks in the sweep", {}},
              options::required({"--out", "DIR", "Where sweep_rankR.json go", {}}),
              {"--kinds",
               "K,...",
               "Collectives: all_reduce,all_gather,reduce_scatter,broadcast",
               {}},
              {"--max-bytes", "B", "Largest message (default 256 MiB)", {}},
              {"--iters", "N", "Timed repetitions per size", {}},
              {"--warmup", "N", "Untimed repetitions per size", {}}}},
            {"sweep summarize",
             "DIR",
             "Per-size time, algbw and busbw, and the alpha-beta fit (or why it is refused)",
             {json, {"--ddp", "CELL_DIR", "Predict this DDP cell's step from the fit", {}}}},
            {"recommend",
             "DIR",
             "Predict each bucket cap's step from the sweep; measured beside predicted",
             {json}},
            {"model export",
             "SPEC",
             "Write a TorchScript module and its description (torchvision:resnet18, "
             "gpt:layers=6,d=512,heads=8,seq=128,vocab=32000) for a matrix to name",
             {options::required({"--out", "FILE.pt", "The module; FILE.json beside it", {}}),
              {"--input-shape", "C,H,W", "torchvision: the image input (default 3,224,224)", {}},
              {"--classes", "N", "torchvision: classes of the head (default 1000)", {}},
              {"--seed", "N", "Seed of the initial weights (default 0)", {}}}},
        },
        {{"ENVIRONMENT",
          "COMMPROF_RANK: the commprof-rank program to run; without it, the one next to "
          "commprof, else the first on PATH."},
         {"EXIT STATUS",
          "0 success; 1 the command ran but something is not fine (a cell failed, probe "
          "issues); 2 bad input or usage."},
         {"SEE ALSO", "commprof-rank(1), commprof-workbench(1)"}},
    };
    return program;
}

} // namespace commprof::cli
