#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Records a PyTorch 2.6 DDP job (gloo on CPU) with torch.profiler's record_shapes=True, as a
user who wants sizes in a trace would: each gloo all-reduce's element count is then in its
c10d::allreduce_ op's "Input Dims" ([[elements]], "Input type" TensorList), with no
record_param_comms span. Run in the Debian 13 root:
  packaging/platform-check.sh debian13 run python3 /src/tests/data/traces/recorded_2_6_shapes/record_shapes.py
Writes mlp7x256_ws2_rank<R>.json.gz (7 Linear(256,256), batch 32, bucket_cap_mb 0.25, 4 steps)
and expected.json: every c10d::allreduce_'s Input Dims and each parameter's shape and dtype as
torch itself reports them, for tests/tst_trace_torch26_shapes.cpp.
"""
import gzip
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
CAP_MB = 0.25
STEPS = 4


def model():
    layers = []
    for i in range(7):
        layers.append(nn.Linear(256, 256))
        if i < 6:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ["USE_LIBUV"] = "0"  # Debian's torch 2.6 is built without libuv
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    ddp = nn.parallel.DistributedDataParallel(model(), bucket_cap_mb=CAP_MB)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(32, 256)

    def train_step():
        ddp(x).sum().backward()
        opt.step()
        opt.zero_grad()

    for _ in range(2):
        train_step()
    tmp = tempfile.mktemp(suffix=".json")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                record_shapes=True,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=STEPS),
                                on_trace_ready=lambda p: p.export_chrome_trace(tmp)) as prof:
        for _ in range(1 + STEPS):
            train_step()
            prof.step()
    with open(tmp, "rb") as src, \
            gzip.open(os.path.join(HERE, "mlp7x256_ws2_rank%d.json.gz" % rank), "wb") as dst:
        dst.write(src.read())
    os.remove(tmp)
    if rank == 0:
        params = [{"name": n, "shape": list(p.shape), "dtype": str(p.dtype).replace("torch.", "")}
                  for n, p in ddp.module.named_parameters()]
        with open(os.path.join(HERE, "params_torch.json"), "w") as out:
            json.dump({"torch_version": torch.__version__, "bucket_cap_mb": CAP_MB,
                       "params": params}, out, indent=1)
    dist.destroy_process_group()


def main():
    mp.spawn(worker, args=(2, 29871), nprocs=2, join=True)
    # The element counts as the trace's own Input Dims give them, read here with json alone.
    dims = []
    with gzip.open(os.path.join(HERE, "mlp7x256_ws2_rank0.json.gz")) as f:
        for e in json.load(f)["traceEvents"]:
            if e.get("name") == "c10d::allreduce_" and e.get("ph") == "X":
                dims.append(e["args"].get("Input Dims"))
    with open(os.path.join(HERE, "params_torch.json")) as f:
        expected = json.load(f)
    expected["allreduce_input_dims_rank0"] = dims
    with open(os.path.join(HERE, "expected.json"), "w") as out:
        json.dump(expected, out, indent=1)
    os.remove(os.path.join(HERE, "params_torch.json"))
    print(json.dumps(expected)[:2000])


if __name__ == "__main__":
    sys.exit(main())
