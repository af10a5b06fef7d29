#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# One rank of a data-parallel job that does not use DDP's reducer: 6 Linear(256,256) layers over
# gloo, each gradient all-reduced by the script itself, either after the backward (`--mode
# after`, a loop over the parameters) or as it is computed (`--mode hooks`, a tensor hook per
# parameter, as a compiled job reduces each gradient). 4 steps traced, each marked
# ProfilerStep#N, to OUT/trace_rank{R}.json, and OUT/params.json (docs/formats.md).
#
#   RANK=r WORLD_SIZE=2 MASTER_ADDR=a MASTER_PORT=p manual_allreduce_job.py --mode after --out DIR
import argparse
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["after", "hooks"], required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(256, 256) for _ in range(6)])
    if a.mode == "hooks":
        for p in model.parameters():
            p.register_hook(lambda g: (dist.all_reduce(g), g)[1])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 256)

    def step():
        opt.zero_grad()
        model(x).sum().backward()
        if a.mode == "after":
            for p in model.parameters():
                dist.all_reduce(p.grad)
        opt.step()

    for _ in range(3):
        step()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for i in range(4):
            with torch.profiler.record_function("ProfilerStep#%d" % (3 + i)):
                step()
    os.makedirs(a.out, exist_ok=True)
    prof.export_chrome_trace(os.path.join(a.out, "trace_rank%d.json" % rank))
    if rank == 0:
        with open(os.path.join(a.out, "params.json"), "w") as f:
            json.dump({"params": [{"name": n, "shape": list(p.shape), "dtype": "float32"}
                                  for n, p in model.named_parameters()],
                       "world_size": dist.get_world_size()}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
