#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# One rank of a Python DDP job (Debian's torch, gloo, CPU) traced with torch.profiler: each
# traced step marked with record_function("ProfilerStep#N") (the legacy exporter writes no
# marks of its own), the trace written to OUT/trace_rank{R}.json and the model's parameters to
# OUT/params.json in the format `commprof trace whatif --params` reads (docs/formats.md).
#
#   RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p \
#       ddp_trace_job.py --model mlp|convnet --bucket-cap-mb X --out DIR [--steps N]
import argparse
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def model_of(name):
    torch.manual_seed(0)
    if name == "mlp":
        layers = []
        for _ in range(8):
            layers += [nn.Linear(512, 512), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(512, 10)), (64, 512)
    # A small convolutional network: gradients of very different sizes.
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 256), nn.ReLU(), nn.Linear(256, 10)), (16, 3, 32, 32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mlp")
    ap.add_argument("--bucket-cap-mb", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    model, shape = model_of(a.model)
    ddp = DDP(model, bucket_cap_mb=a.bucket_cap_mb)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    torch.manual_seed(rank)
    x = torch.randn(*shape)
    y = torch.randint(0, 10, (shape[0],))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()
        opt.step()

    for _ in range(a.warmup):
        step()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for i in range(a.steps):
            with torch.profiler.record_function("ProfilerStep#%d" % (a.warmup + i)):
                step()
    os.makedirs(a.out, exist_ok=True)
    prof.export_chrome_trace(os.path.join(a.out, "trace_rank%d.json" % rank))
    if rank == 0:
        params = [{"name": n, "shape": list(p.shape), "dtype": str(p.dtype)}
                  for n, p in model.named_parameters() if p.requires_grad]
        with open(os.path.join(a.out, "params.json"), "w") as f:
            json.dump({"params": params, "bucket_cap_mb": a.bucket_cap_mb, "first_bucket_mb": 1,
                       "hook": "allreduce", "world_size": world}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
