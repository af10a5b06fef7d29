#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""commprof-rank against PyTorch's Python DDP on the same TorchScript module, side by side.

The modules come from `commprof model export`: the project's 2-layer GPT decoder and, where
python3-torchvision is present, ResNet-18. Per round and model, one commprof-rank run (DDP's
default all-reduce hook) and then one Python DDP run on the same file, batches
(tests/torchscript_reference.py's draws), loss, optimizer, default bucket caps, world size and
intra-op threads. Both sides report the intra-op thread count they ran with, so a mismatch is
seen, not guessed. Prints each round's medians and ratio, then the median of the per-round
ratios per model (goal: <= 1.05).

Usage: tests/bench/ddp_vs_python_torchscript.py BUILD_BIN_DIR [--rounds 5] [--iterations 20]
       [--threads 1] [--models gpt,resnet18]
"""
import argparse
import json
import os
import shutil
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
from torchscript_reference import batch, loss_of  # noqa: E402

WARMUP = 3
PHASES = ("step_ms", "forward_ms", "backward_ms", "optimizer_ms")
MODELS = {
    "gpt": (["gpt:layers=2,d=128,heads=4,seq=32,vocab=1000"], ["--tokens", "32", "--vocab", "1000"]),
    "resnet18": (["torchvision:resnet18", "--input-shape", "3,32,32", "--classes", "10"],
                 ["--input-shape", "3,32,32", "--classes", "10"]),
}


def python_worker(rank, world, port, rank0, result_path):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), USE_LIBUV="0")
    cfg, model = rank0["config"], rank0["model"]
    if cfg["threads"] > 0:
        torch.set_num_threads(cfg["threads"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    # DDP's default caps, as the rank's (from 2.0 an explicit cap also caps the first bucket).
    ddp = nn.parallel.DistributedDataParallel(torch.jit.load(model["torchscript"]))
    params = [p for p in ddp.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=1e-4, momentum=0.9)
    x, y = batch(cfg, model, rank)
    phases = {k: [] for k in PHASES}
    for _ in range(cfg["iterations"]):
        # As the rank splits its step: forward with the loss, backward, optimizer.
        t0 = time.perf_counter()
        loss = loss_of(model, ddp(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        for k, (a, b) in zip(PHASES, [(t0, t3), (t0, t1), (t1, t2), (t2, t3)]):
            phases[k].append((b - a) * 1000.0)
        for p in params:
            p.grad.zero_()
    if rank == 0:
        json.dump({"phases": phases, "threads": torch.get_num_threads()}, open(result_path, "w"))
    dist.destroy_process_group()


def run_python(world, rank0):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "steps.json")
        mp.spawn(python_worker, args=(world, free_port(), rank0, path), nprocs=world, join=True)
        return json.load(open(path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1, help="0: each side's own default")
    ap.add_argument("--models", default="gpt,resnet18")
    a = ap.parse_args()
    binary = os.path.join(a.bin_dir, "commprof-rank")
    names = [m for m in a.models.split(",") if m != "resnet18" or _has_torchvision()]
    models_dir = tempfile.mkdtemp(prefix="commprof-bench-models-")
    for name in names:
        spec, _ = MODELS[name]
        subprocess.run([os.path.join(a.bin_dir, "commprof"), "model", "export"] + spec +
                       ["--out", os.path.join(models_dir, name + ".pt")], check=True)
    common = ["--hook", "default", "--iterations", str(a.iterations), "--warmup", str(WARMUP),
              "--batch-size", str(a.batch_size), "--threads", str(a.threads)]
    rounds = {n: [] for n in names}
    for rnd in range(a.rounds):
        for name in names:
            with tempfile.TemporaryDirectory() as out:
                run_ranks(binary, a.world, ["--out", out, "--torchscript",
                                            os.path.join(models_dir, name + ".pt")] +
                          MODELS[name][1] + common)
                rank0 = json.load(open(os.path.join(out, "rank0.json")))
            py = run_python(a.world, rank0)
            r = {"rank": {k: statistics.median(i[k] for i in rank0["iterations"][WARMUP:])
                          for k in PHASES},
                 "python": {k: statistics.median(py["phases"][k][WARMUP:]) for k in PHASES},
                 "rank_threads": rank0["config"]["intra_op_threads"],
                 "python_threads": py["threads"]}
            r["ratio"] = r["rank"]["step_ms"] / r["python"]["step_ms"]
            rounds[name].append(r)
            print("round %d %-8s: rank %.1f ms (fwd %.1f, bwd %.1f, opt %.1f; %d threads), "
                  "python %.1f ms (fwd %.1f, bwd %.1f, opt %.1f; %d threads), ratio %.3f" %
                  ((rnd, name) + tuple(r["rank"][k] for k in PHASES) + (r["rank_threads"],) +
                   tuple(r["python"][k] for k in PHASES) + (r["python_threads"], r["ratio"])),
                  flush=True)
    shutil.rmtree(models_dir)
    print(json.dumps({
        "torch_version": torch.__version__, "world_size": a.world, "batch_size": a.batch_size,
        "threads_asked": a.threads, "iterations": a.iterations, "warmup": WARMUP,
        "models": {n: {"spec": MODELS[n][0], "rounds": rounds[n],
                       "median_ratio": statistics.median(r["ratio"] for r in rounds[n])}
                   for n in names},
    }, indent=1))


def _has_torchvision():
    try:
        import torchvision  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main()
