# SPDX-License-Identifier: GPL-3.0-or-later
"""A small DDP training job for `commprof record` / `confirm` tests: gloo on CPU, synthetic
data, an MLP whose gradients fill several buckets at a small cap. It is started as a user's
script is (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment) and knows nothing of
commprof. Flags plant what the capture must refuse: --profile (runs torch.profiler itself, with
tensorboard_trace_handler into --tb-dir), --no-ddp, --two-ddp."""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=12)
parser.add_argument("--width", type=int, default=256)
parser.add_argument("--bucket-cap-mb", type=float, default=0.25)
parser.add_argument("--profile", action="store_true")
parser.add_argument("--tb-dir", default="tb_logs")
parser.add_argument("--no-ddp", action="store_true")
parser.add_argument("--two-ddp", action="store_true")
parser.add_argument("--fp16", action="store_true")
args = parser.parse_args()

torch.set_num_threads(1)
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
w = args.width
model = nn.Sequential(
    nn.Linear(64, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(),
    nn.Linear(w, 10),
)
if args.no_ddp:
    net = model
else:
    net = DDP(model, bucket_cap_mb=args.bucket_cap_mb)
    if args.fp16:
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

        net.register_comm_hook(None, default_hooks.fp16_compress_hook)
if args.two_ddp:
    other = DDP(nn.Linear(8, 8))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
g = torch.Generator().manual_seed(rank)


def step(i):
    x = torch.randn(32, 64, generator=g)
    y = torch.randint(0, 10, (32,), generator=g)
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    if args.no_ddp:  # what DDP would do, by hand
        for p in model.parameters():
            dist.all_reduce(p.grad)
    opt.step()
    return loss.item()


if args.profile:
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=torch.profiler.schedule(wait=1, warmup=2, active=3),
        on_trace_ready=torch.profiler.tensorboard_trace_handler(args.tb_dir, "rank%d" % rank),
    ) as prof:
        for i in range(args.steps):
            loss = step(i)
            prof.step()
            print("train: rank %d step %d loss %.4f" % (rank, i, loss), flush=True)
else:
    last = time.perf_counter()
    for i in range(args.steps):
        loss = step(i)
        now = time.perf_counter()
        print("train: rank %d step %d loss %.4f ms %.3f" % (rank, i, loss, (now - last) * 1e3),
              flush=True)
        last = now
print("train: rank %d done" % rank, flush=True)
dist.destroy_process_group()
