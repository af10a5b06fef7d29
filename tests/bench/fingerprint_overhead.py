#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Cost of determinism capture in commprof-rank, side by side in one run.

Runs world size 2 over gloo three ways, interleaved per round: no capture, the semantic layer,
the op layer (every ATen op's inputs and outputs digested). Reports the median step time of
each and the ratios to no capture. Usage: fingerprint_overhead.py BUILD_BIN_DIR [--rounds 3]
"""
import argparse
import json
import os
import statistics
import tempfile

from benchlib import run_ranks


def run(binary, extra, args):
    with tempfile.TemporaryDirectory() as out:
        run_ranks(binary, 2, ["--out", out] + args + extra)
        f = json.load(open(os.path.join(out, "rank0.json")))
        fp = os.path.join(out, "fp_rank0.jsonl")
        size = os.path.getsize(fp) if os.path.exists(fp) else 0
        steps = [i["step_ms"] for i in f["iterations"][f["record_from_iteration"]:]]
        return statistics.median(steps), size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--params", default="2e6")
    a = ap.parse_args()
    binary = os.path.join(a.bin_dir, "commprof-rank")
    args = ["--params", a.params, "--iterations", "20", "--warmup", "3", "--threads", "1", "--batch-size", "32"]
    modes = {"off": [], "semantic": ["--fingerprint", "semantic"], "op": ["--fingerprint", "op"]}
    med = {m: [] for m in modes}
    sizes = {}
    for rnd in range(a.rounds):
        for m, extra in modes.items():
            step, size = run(binary, extra, args)
            med[m].append(step)
            sizes[m] = size
        print("round %d: " % rnd + ", ".join("%s %.1f ms" % (m, med[m][-1]) for m in modes), flush=True)
    result = {m: statistics.median(v) for m, v in med.items()}
    print(json.dumps({"median_step_ms": result,
                      "semantic_over_off": result["semantic"] / result["off"],
                      "op_over_off": result["op"] / result["off"],
                      "fp_rank0_bytes_for_17_iterations": sizes}, indent=1))


if __name__ == "__main__":
    main()
