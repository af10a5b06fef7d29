#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""commprof-rank against PyTorch's own Python DDP, side by side on this machine.

Same model (the MLP commprof-rank builds, read back from its rank file), batch, bucket caps,
optimizer, world size and threads per rank. Runs are interleaved (python, rank with DDP's
default all-reduce hook, rank with the timing hook) so all three see the same machine load.
Reports median step times and two ratios:
  commprof-rank / Python DDP        (goal: <= 1.0)
  timing hook / DDP default hook    (goal: < 1.01)

Usage: tests/bench/ddp_vs_python.py BUILD_BIN_DIR [--params 2e6] [--world 2] [--rounds 3]
Needs Debian's python3-torch: 1.13 on Debian 12; 2.6 in the Debian 13 root, run there with
  packaging/platform-check.sh debian13 run python3 /src/tests/bench/ddp_vs_python.py /build/bin
Both sides use DDP's default caps (a 1 MiB first bucket, then 25 MiB): Python DDP is built
without bucket_cap_mb, since from 2.0 an explicit cap also caps the first bucket.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import free_port, run_ranks

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pytorch_reference import Mlp, mlp_shapes  # noqa: E402


def run_rank(binary, world, args, hook, out):
    run_ranks(binary, world, ["--out", out, "--hook", hook] + args)
    files = [json.load(open(os.path.join(out, "rank%d.json" % r))) for r in range(world)]
    return files


def median_step_ms(iterations, warmup):
    return statistics.median(i["step_ms"] for i in iterations[warmup:])


def python_worker(rank, world, port, shapes, cfg, result_path):
    # Debian's torch 2.6 is built without libuv, which its TCPStore asks for by default.
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), USE_LIBUV="0")
    torch.set_num_threads(cfg["threads"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(1234)
    model = nn.parallel.DistributedDataParallel(Mlp(shapes))
    opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(cfg["batch_size"], shapes[0][1], generator=g)
    y = torch.randn(cfg["batch_size"], shapes[-1][0], generator=g)
    steps = []
    for _ in range(cfg["iterations"]):
        t0 = time.perf_counter()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        steps.append((time.perf_counter() - t0) * 1000.0)
        for p in model.parameters():
            p.grad.zero_()
    if rank == 0:
        json.dump(steps, open(result_path, "w"))
    dist.destroy_process_group()


def run_python(world, shapes, cfg):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "steps.json")
        mp.spawn(python_worker, args=(world, free_port(), shapes, cfg, path), nprocs=world, join=True)
        return json.load(open(path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--params", default="2e6")
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    binary = os.path.join(a.bin_dir, "commprof-rank")
    warmup = 5
    args = ["--params", a.params, "--iterations", str(a.iterations), "--warmup", str(warmup),
            "--batch-size", str(a.batch_size), "--threads", str(a.threads)]
    results = {"python": [], "default": [], "timing": []}
    shapes = None
    cfg = None
    for rnd in range(a.rounds):
        for hook in ("default", "timing"):
            with tempfile.TemporaryDirectory() as out:
                files = run_rank(binary, a.world, args, hook, out)
            f = files[0]
            results[hook].append(median_step_ms(f["iterations"], warmup))
            if shapes is None:
                shapes = mlp_shapes(f)
                cfg = dict(f["config"], threads=a.threads)
        steps = run_python(a.world, shapes, cfg)
        results["python"].append(statistics.median(steps[warmup:]))
        print("round %d: python %.2f ms, rank default hook %.2f ms, rank timing hook %.2f ms" %
              (rnd, results["python"][-1], results["default"][-1], results["timing"][-1]), flush=True)
    med = {k: statistics.median(v) for k, v in results.items()}
    print(json.dumps({
        "torch_version": torch.__version__, "rank_torch_version": f["torch_version"],
        "params": a.params, "world_size": a.world, "batch_size": a.batch_size, "threads_per_rank": a.threads,
        "median_step_ms": med,
        "rank_over_python": med["timing"] / med["python"],
        "timing_hook_over_default_hook": med["timing"] / med["default"],
    }, indent=1))


if __name__ == "__main__":
    main()
