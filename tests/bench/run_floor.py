#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The two floors of issue 42 in one run, each as ratios of processes paired side by side:

1. the trace parser: `commprof trace summarize FILE --json` against `zcat FILE`, both as whole
   processes with stdout to /dev/null; wall, CPU (user + system) and system time of each from
   wait4, the ratio taken pair by pair and its median reported;
2. a run of 12 tiny 2-rank cells (`commprof run`): with the rank fork server (the default)
   against without it (the default), interleaved pairs, median of the per-pair
   wall ratios; and, for scale, `/usr/bin/python3 -c 'import torch'`.

Usage: tests/bench/run_floor.py BIN_DIR [--trace FILE] [--pairs N] [--run-pairs M]
The load average is printed before and after: the figures mean something only beside it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                       "fixtures", "traces", "kineto_nccl_ddp_ws2_large_rank1.json.gz")

MATRIX = """name: floor
defaults: {iterations: 8, warmup: 1, batch_size: 8, timeout_s: 300}
repeats: 12
models: [{name: tiny, params: 1e5}]
layers: [{name: gloo_cpu}]
world_sizes: [2]
"""


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def measured(argv, env=None):
    """wall, user + system, system seconds and peak RSS (MiB) of one process, from wait4."""
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(argv), proc.returncode, err[-2000:]))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "sys": usage.ru_stime,
            "rss": usage.ru_maxrss / 1024.0}


def parser_floor(bin_dir, trace, pairs):
    cli = os.path.join(bin_dir, "commprof")
    rows = []
    for _ in range(pairs):
        z = measured(["zcat", trace])
        c = measured([cli, "trace", "summarize", trace, "--json"])
        rows.append((z, c))
    print("parser: `commprof trace summarize FILE --json` against `zcat FILE`, %d pairs, %s"
          % (pairs, os.path.basename(trace)))
    for key, label in (("wall", "wall"), ("cpu", "CPU (user + system)"), ("sys", "system time")):
        z = statistics.median(r[0][key] for r in rows)
        c = statistics.median(r[1][key] for r in rows)
        ratio = statistics.median(r[1][key] / max(r[0][key], 1e-4) for r in rows)
        print("  %-20s zcat %.3f s  commprof %.3f s  ratio %.2fx (median of pairs)"
              % (label, z, c, ratio))
    print("  peak RSS of commprof: %.1f MiB" % statistics.median(r[1]["rss"] for r in rows))


def run_floor(bin_dir, run_pairs):
    cli = os.path.join(bin_dir, "commprof")
    on = {k: v for k, v in os.environ.items() if k != "COMMPROF_FORK_SERVER"}
    off = dict(os.environ, COMMPROF_FORK_SERVER="0")
    walls = {"server": [], "exec": []}
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        matrix = os.path.join(tmp, "floor.yaml")
        with open(matrix, "w") as f:
            f.write(MATRIX)
        for i in range(run_pairs):
            # Alternate which goes first, so neither always follows the other's cache warm-up.
            order = ["server", "exec"] if i % 2 == 0 else ["exec", "server"]
            pair = {}
            for kind in order:
                out = os.path.join(tmp, "%s%d" % (kind, i))
                pair[kind] = measured([cli, "run", matrix, "--out", out],
                                      env=on if kind == "server" else off)["wall"]
                walls[kind].append(pair[kind])
            ratios.append(pair["server"] / pair["exec"])
        torch_import = statistics.median(
            measured(["/usr/bin/python3", "-c", "import torch"])["wall"] for _ in range(3))
    server, execd = statistics.median(walls["server"]), statistics.median(walls["exec"])
    print("12 tiny 2-rank cells (`commprof run`), %d interleaved pairs:" % run_pairs)
    print("  with the fork server %.2f s (%.3f s a cell), without %.2f s (%.3f s a cell)"
          % (server, server / 12, execd, execd / 12))
    print("  with / without: %.2fx (median of pairs; goal <= 0.3x)" % statistics.median(ratios))
    print("  a cell with the server / `python3 -c 'import torch'` (%.2f s): %.2fx (goal <= 0.25x)"
          % (torch_import, server / 12 / torch_import))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bin_dir")
    ap.add_argument("--trace", default=os.path.normpath(FIXTURE))
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--run-pairs", type=int, default=3,
                    help="pairs of 12-cell runs with and without the fork server (0: none)")
    args = ap.parse_args()
    print("load average before: %s" % load_average())
    parser_floor(args.bin_dir, args.trace, args.pairs)
    if args.run_pairs > 0:
        run_floor(args.bin_dir, args.run_pairs)
    print("load average after: %s" % load_average())


if __name__ == "__main__":
    main()
