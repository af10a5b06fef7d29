#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python DDP (PyTorch's own DistributedDataParallel over gloo) on the MLP a commprof-rank rank
file describes, timed as commprof-rank times a step (forward, backward with the reducer's
all-reduces, optimizer step): the independent reference for a cell over an emulated link.
Started by the test once per rank, each in its host's network namespace, with GLOO_SOCKET_IFNAME
naming the host's end of the link.

Usage: tests/python_ddp_link.py RANK_FILE --rank R --world W --master ADDR --port P
           [--iterations N] [--warmup K] [--batch-size B] [--bucket-cap-mb C] [--threads T]
Rank 0 prints one JSON object: {"torch_version", "step_ms": [every recorded step]}.
"""
import argparse
import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_reference import Mlp, mlp_shapes  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rank_file")
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--master", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--bucket-cap-mb", type=float, default=25.0)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    with open(a.rank_file) as f:
        shapes = mlp_shapes(json.load(f))
    dist.init_process_group("gloo", init_method=f"tcp://{a.master}:{a.port}", rank=a.rank,
                            world_size=a.world, timeout=datetime.timedelta(seconds=120))
    torch.manual_seed(1234)
    model = nn.parallel.DistributedDataParallel(Mlp(shapes), bucket_cap_mb=a.bucket_cap_mb)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(1234 * 1000003 + a.rank)
    x = torch.randn(a.batch_size, shapes[0][1], generator=gen)
    y = torch.randn(a.batch_size, shapes[-1][0], generator=gen)
    steps = []
    for it in range(a.iterations):
        t0 = time.monotonic()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        ms = (time.monotonic() - t0) * 1000.0
        optimizer.zero_grad(set_to_none=False)
        if it >= a.warmup:
            steps.append(ms)
    dist.barrier()
    dist.destroy_process_group()
    if a.rank == 0:
        print(json.dumps({"torch_version": torch.__version__, "step_ms": steps}))


if __name__ == "__main__":
    main()
