#!/usr/bin/python3
"""Records real PyTorch DDP traces (gloo on CPU, legacy autograd profiler) for commprof's tests.

Run with Debian's python3-torch 1.13:  /usr/bin/python3 record_ddp_traces.py
Writes <name>_rank<R>.json.gz per configuration and expected.json: totals per trace computed
here by an independent implementation of docs/trace-semantics.md (host regime), so the C++
parser is checked against a second reading of the rule, not against itself.
"""
import gzip
import json
import os
import re
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))

def mlp(depth, width):
    return nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(width, width), nn.ReLU())])


def convnet():
    return nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Conv2d(16, 32, 3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(32 * 12 * 12, 64))


BUILDERS = {"mlp7x256": lambda: mlp(7, 256), "mlp4x512": lambda: mlp(4, 512), "convnet": convnet}

CONFIGS = [
    # name, world size, batch, bucket_cap_mb, steps
    ("mlp7x256_ws2", 2, 32, 0.25, 4),
    ("mlp4x512_ws3", 3, 16, 1.0, 3),
    ("convnet_ws2", 2, 8, 0.1, 3),
]


def input_for(name, batch):
    if name.startswith("convnet"):
        return torch.randn(batch, 3, 16, 16)
    width = 256 if "256" in name else 512
    return torch.randn(batch, width)


def worker(rank, world, name, batch, cap, steps, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(BUILDERS[name.rsplit('_', 1)[0]](), bucket_cap_mb=cap)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = input_for(name, batch)
    for _ in range(2):  # warm up and let DDP rebuild its buckets
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()
    with torch.autograd.profiler.profile(use_kineto=False) as prof:
        for step in range(2, 2 + steps):
            with torch.autograd.profiler.record_function("ProfilerStep#%d" % step):
                model(x).sum().backward()
                opt.step()
                opt.zero_grad()
    tmp = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(tmp)
    if rank < 2:
        with open(tmp, "rb") as src, gzip.open(os.path.join(HERE, "%s_rank%d.json.gz" % (name, rank)), "wb") as dst:
            dst.write(src.read())
    os.remove(tmp)
    dist.destroy_process_group()


# ---- an independent reading of docs/trace-semantics.md, host regime -------------------------
def union(spans):
    out = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def minus(a, b):
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append([cur, bs])
            cur = max(cur, be)
        if cur < e:
            out.append([cur, e])
    return out


def overlap_len(a, b):
    i = j = 0
    total = 0.0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def expected_totals(path):
    data = json.load(gzip.open(path))
    events = data["traceEvents"] if isinstance(data, dict) else data
    comp, comm, book, steps = [], [], [], {}
    for e in events:
        if e.get("ph") != "X":
            continue
        n, s = e["name"], float(e["ts"])
        end = s + float(e["dur"])
        if n.startswith(("gloo:", "nccl:", "c10d::")) or "record_param_comms" in n:
            comm.append((s, end))
        elif n.startswith("torch.distributed.ddp.reducer::") or n.startswith("ddp::bucket_copy"):
            book.append((s, end))
        elif n.startswith("aten::"):
            comp.append((s, end))
        m = re.fullmatch(r"ProfilerStep#(\d+)", n)
        if m:
            w = steps.setdefault(int(m.group(1)), [s, end])
            w[0], w[1] = min(w[0], s), max(w[1], end)
    book = union(book)
    comp = minus(union(comp), book)
    comm = union(comm)
    totals = {"steps": len(steps), "compute_us": 0.0, "comm_us": 0.0, "bookkeeping_us": 0.0, "overlap_us": 0.0}
    for s, e in steps.values():
        w = [[s, e]]
        cw = [[max(a, s), min(b, e)] for a, b in comp if min(b, e) > max(a, s)]
        totals["compute_us"] += overlap_len(comp, w)
        totals["comm_us"] += overlap_len(comm, w)
        totals["bookkeeping_us"] += overlap_len(book, w)
        totals["overlap_us"] += overlap_len(cw, comm)
    return totals


def main():
    port = 29731
    for name, world, batch, cap, steps in CONFIGS:
        mp.spawn(worker, args=(world, name, batch, cap, steps, port), nprocs=world, join=True)
        port += 1
    expected = {}
    for f in sorted(os.listdir(HERE)):
        if f.endswith(".json.gz"):
            expected[f] = expected_totals(os.path.join(HERE, f))
    with open(os.path.join(HERE, "expected.json"), "w") as out:
        json.dump(expected, out, indent=1, sort_keys=True)
    print(json.dumps(expected, indent=1))


if __name__ == "__main__":
    sys.exit(main())
