#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a DDP comm hook costs besides the bytes it puts on the wire, measured on this machine.

Run as two ranks of one gloo process group on loopback (RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT in the environment, as torchrun sets them), one thread each as DDP's CPU jobs here
run. For fp16_compress (and bf16_compress, the same in bfloat16), as PyTorch's
fp16_compress_hook does it per bucket:

  pre   buffer.to(torch.float16).div_(world_size), on the backward's thread (per gradient byte)
  wire  an all-reduce of the float16 tensor, against a float32 all-reduce of the same bytes
  post  the copy of the reduced float16 tensor back into the float32 bucket (per gradient byte)

and the contention: the share of a float32 all-reduce's time a compute thread of the same
process loses beside it (what the backward loses beside a bucket's collective).

Every measurement is repeated in interleaved rounds (this machine's speed drifts between runs,
so the ratios are taken inside one round) and the medians kept. Rank 0 writes --out (default
stdout) in the format `commprof trace whatif --hook-calibration` reads (docs/formats.md):

  {"backend": "gloo", "device": "cpu", "torch": "1.13.1", "world_size": 2, "load": 1.2,
   "fp32_ns_per_byte": 1.1, "contention": 0.4,
   "hooks": {"fp16_compress": {"pre_ns_per_byte", "post_ns_per_byte",
                               "collective_factor",
                               "sizes": [{"wire_bytes", "fp32_us", "hook_us", "pre_us",
                                          "post_us"}]}}}
"""
import argparse
import json
import os
import statistics
import sys
import time

try:
    import torch
    import torch.distributed as dist
except ImportError:
    sys.stderr.write("hook calibration needs PyTorch for Python 3: "
                     "apt-get install python3-torch (Debian 12: 1.13)\n")
    sys.exit(3)


def timed(fn, reps):
    fn()  # warm: the first call pays for buffers and connections
    out = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(out)


def measure_contention(a):
    """The share of a float32 all-reduce's time that a compute thread beside it loses: small
    matrix products timed alone, then counted while an asynchronous all-reduce runs (gloo's
    own thread does its copies and sums); 1 - (products done x their time alone) / its time."""
    x = torch.randn(128, 128)
    tensor = torch.randn(int(float(a.wire_mib.split(",")[-1]) * 1024 * 1024) // 4)
    shares = []
    for _ in range(a.rounds * a.reps):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(50):
            torch.mm(x, x)
        alone = (time.perf_counter() - t0) / 50
        dist.barrier()
        work = dist.all_reduce(tensor, async_op=True)
        t0 = time.perf_counter()
        done = 0
        while not work.is_completed():
            torch.mm(x, x)
            done += 1
        beside = time.perf_counter() - t0
        work.wait()
        if beside > 0:
            shares.append(min(1.0, max(0.0, 1 - done * alone / beside)))
    return statistics.median(shares)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    # DDP's buckets are MiBs: smaller messages time gloo's per-call latency, not its sums.
    ap.add_argument("--wire-mib", default="2,4,8")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    world = dist.get_world_size()
    hooks = {}
    fp32_per_byte = []
    for name, dtype in (("fp16_compress", torch.float16), ("bf16_compress", torch.bfloat16)):
        try:
            dist.all_reduce(torch.zeros(2, dtype=dtype))
        except RuntimeError:
            continue  # gloo before torch 2.x sums no bfloat16: the hook cannot run here
        sizes = []
        for mib in (float(x) for x in a.wire_mib.split(",")):
            wire = int(mib * 1024 * 1024)
            half = torch.randn(wire // 2).to(dtype)
            single_wire = torch.randn(wire // 4)
            grad = torch.randn(wire // 2)  # float32: twice the wire bytes
            rows = {"fp32_us": [], "hook_us": [], "pre_us": [], "post_us": []}
            for _ in range(a.rounds):
                rows["fp32_us"].append(timed(lambda: dist.all_reduce(single_wire), a.reps))
                rows["hook_us"].append(timed(lambda: dist.all_reduce(half), a.reps))
                rows["pre_us"].append(timed(lambda: grad.to(dtype).div_(world), a.reps))
                rows["post_us"].append(timed(lambda: grad.copy_(half), a.reps))
            row = {k: statistics.median(v) for k, v in rows.items()}
            row["wire_bytes"] = wire
            sizes.append(row)
        grad_bytes = [2 * s["wire_bytes"] for s in sizes]
        fp32_per_byte += [s["fp32_us"] * 1e3 / s["wire_bytes"] for s in sizes]
        hooks[name] = {
            "pre_ns_per_byte": statistics.median(
                s["pre_us"] * 1e3 / b for s, b in zip(sizes, grad_bytes)),
            "post_ns_per_byte": statistics.median(
                s["post_us"] * 1e3 / b for s, b in zip(sizes, grad_bytes)),
            "collective_factor": statistics.median(s["hook_us"] / s["fp32_us"] for s in sizes),
            "sizes": sizes,
        }
    contention = measure_contention(a)
    if dist.get_rank() == 0:
        doc = {"backend": "gloo", "device": "cpu", "torch": torch.__version__.split("+")[0],
               "world_size": world, "load": os.getloadavg()[0],
               "fp32_ns_per_byte": statistics.median(fp32_per_byte),
               "contention": contention,
               "hooks": hooks}
        text = json.dumps(doc, indent=1) + "\n"
        if a.out:
            with open(a.out, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
