#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# One rank of a Python DDP job (Debian's torch, gloo, CPU) that trains several DDP settings side
# by side, so that they are compared inside one run: this machine's speed drifts by up to 30 %
# between runs, far more than a bucket cap moves a step. Each variant is a DDP wrapper of its own
# (a fresh copy of the same model, so no reducer's hooks outlive it) over one process group.
#
#   1. every variant warms up (DDP rebuilds its buckets in ready order after the first step);
#   2. `--rounds` rounds, each timing `--steps` unprofiled steps of every variant in turn: the
#      variants' medians are measured under the same drift;
#   3. every variant traced with torch.profiler for `--traced` steps, each marked with
#      record_function("ProfilerStep#N") (the legacy exporter writes no marks of its own):
#      OUT/<label>/trace_rank{R}.json, and OUT/<label>/params.json in the format
#      `commprof trace whatif --params` reads (docs/formats.md); with `--traced 0` none.
#
# Rank 0 writes OUT/steps.json: {"variants": [{"label", "bucket_cap_mb", "hook",
# "unprofiled_ms": [...]}], "world_size", "torch"}.
#
#   RANK=r WORLD_SIZE=2 MASTER_ADDR=a MASTER_PORT=p ddp_trace_variants.py --model mlp|convnet \
#       --variants 0.25:allreduce,25:fp16_compress --out DIR
import argparse
import json
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


def model_of(name):
    torch.manual_seed(0)
    if name == "mlp":
        layers = []
        for _ in range(8):
            layers += [nn.Linear(512, 512), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(512, 10)), (64, 512)
    # A small convolutional network: gradients from 0.25 KiB to 8 MiB, so that every cap makes
    # other buckets.
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(128, 256, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(256 * 4 * 4, 512), nn.ReLU(), nn.Linear(512, 10)), (16, 3, 32, 32)


class Variant:
    def __init__(self, model_name, cap, hook, rank):
        self.cap, self.hook = cap, hook
        self.label = "cap%g_%s" % (cap, hook)
        model, shape = model_of(model_name)
        self.model = model
        self.ddp = DDP(model, bucket_cap_mb=cap)
        if hook == "fp16_compress":
            self.ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        elif hook != "allreduce":
            raise SystemExit("unknown hook " + hook)
        self.opt = torch.optim.SGD(self.ddp.parameters(), lr=0.01)
        torch.manual_seed(rank)
        self.x = torch.randn(*shape)
        self.y = torch.randint(0, 10, (shape[0],))
        self.loss_fn = nn.CrossEntropyLoss()
        self.unprofiled_ms = []

    def step(self):
        self.opt.zero_grad()
        self.loss_fn(self.ddp(self.x), self.y).backward()
        self.opt.step()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mlp")
    ap.add_argument("--variants", required=True, help="CAP:HOOK,...")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--traced", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    variants = []
    for item in a.variants.split(","):
        cap, hook = item.split(":")
        variants.append(Variant(a.model, float(cap), hook, rank))
    for v in variants:
        for _ in range(a.warmup):
            v.step()
    for _ in range(a.rounds):
        for v in variants:
            for _ in range(a.steps):
                t0 = time.perf_counter()
                v.step()
                v.unprofiled_ms.append((time.perf_counter() - t0) * 1e3)
    for v in variants if a.traced > 0 else []:  # --traced 0: the unprofiled steps alone
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            for i in range(a.traced):
                with torch.profiler.record_function("ProfilerStep#%d" % (a.warmup + i)):
                    v.step()
        out = os.path.join(a.out, v.label)
        os.makedirs(out, exist_ok=True)
        prof.export_chrome_trace(os.path.join(out, "trace_rank%d.json" % rank))
        if rank == 0:
            params = [{"name": n, "shape": list(p.shape), "dtype": str(p.dtype)}
                      for n, p in v.model.named_parameters() if p.requires_grad]
            with open(os.path.join(out, "params.json"), "w") as f:
                json.dump({"params": params, "bucket_cap_mb": v.cap, "first_bucket_mb": 1,
                           "hook": v.hook, "world_size": world}, f)
    if rank == 0:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "steps.json"), "w") as f:
            json.dump({"world_size": world, "torch": torch.__version__,
                       "variants": [{"label": v.label, "bucket_cap_mb": v.cap, "hook": v.hook,
                                     "unprofiled_ms": v.unprofiled_ms} for v in variants]}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
