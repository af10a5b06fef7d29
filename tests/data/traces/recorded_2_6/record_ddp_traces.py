#!/usr/bin/python3
"""Records real PyTorch 2.x DDP traces (gloo on CPU, torch.profiler) for commprof's tests.

Run in the Debian 13 root, whose python3-torch is 2.6 (built with a CPU-only Kineto):
  packaging/platform-check.sh debian13 run python3 /src/tests/data/traces/recorded_2_6/record_ddp_traces.py
The models, world sizes and bucket caps are those of ../recorded/record_ddp_traces.py (the 1.13
recording); the profiler is the one 2.x users run: torch.profiler.profile over CPU activities,
prof.step() after every iteration under a schedule (one warmup step, then the recorded ones,
marked ProfilerStep#1..N). Writes
<name>_rank<R>.json.gz and expected.json: totals from that script's independent reading of
docs/trace-semantics.md (host regime), not from commprof's parser.
"""
import gzip
import importlib.util
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "record_1_13", os.path.join(HERE, "..", "recorded", "record_ddp_traces.py"))
r113 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(r113)


def worker(rank, world, name, batch, cap, steps, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ["USE_LIBUV"] = "0"  # Debian's torch 2.6 is built without libuv
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(r113.BUILDERS[name.rsplit('_', 1)[0]](),
                                                bucket_cap_mb=cap)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = r113.input_for(name, batch)

    def train_step():
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()

    for _ in range(2):  # warm up and let DDP rebuild its buckets
        train_step()
    tmp = tempfile.mktemp(suffix=".json")
    # A schedule is what makes the profiler mark steps; one warmup step, then `steps` recorded.
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=steps),
                                on_trace_ready=lambda p: p.export_chrome_trace(tmp)) as prof:
        for _ in range(1 + steps):
            train_step()
            prof.step()
    if rank < 2:
        with open(tmp, "rb") as src, \
                gzip.open(os.path.join(HERE, "%s_rank%d.json.gz" % (name, rank)), "wb") as dst:
            dst.write(src.read())
    os.remove(tmp)
    dist.destroy_process_group()


def main():
    port = 29771
    for name, world, batch, cap, steps in r113.CONFIGS:
        mp.spawn(worker, args=(world, name, batch, cap, steps, port), nprocs=world, join=True)
        port += 1
    expected = {"torch_version": torch.__version__}
    for f in sorted(os.listdir(HERE)):
        if f.endswith(".json.gz"):
            expected[f] = r113.expected_totals(os.path.join(HERE, f))
    with open(os.path.join(HERE, "expected.json"), "w") as out:
        json.dump(expected, out, indent=1, sort_keys=True)
    print(json.dumps(expected, indent=1))


if __name__ == "__main__":
    sys.exit(main())
