#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What commprof's capture (tools/capture) adds to a training step outside its traced window.

The same two-rank gloo job (tests/data/record/train_ddp.py) runs alternately without the capture
(A) and with it in record mode (B: steps SKIP..SKIP+STEPS-1 traced), A B B A A B ... so that the
machine's drift falls on both alike. Each run's figure is rank 0's median step, as the script
itself times it, over the steps after the window (the capture's per-step clock read is all that
runs there). The pairs' relative differences give the overhead and its 90 % Student-t interval.
The capture's hook is also timed alone (hook_cost_us), as a share of the fastest median step:
on a loaded machine the runs' spread hides a cost that small.

  tests/bench/capture_overhead.py [--pairs 8] [--steps 60] [--width 512]

Outside ctest: timings are never judged there."""
import argparse
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(SRC, "tests", "data", "record", "train_ddp.py")
CAPTURE = os.path.join(SRC, "tools", "capture")
T90 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833,
       10: 1.812, 11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args, captured, after):
    port = free_port()
    out = tempfile.mkdtemp(prefix="capture-bench-")
    procs = []
    for r in range(2):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE="2", LOCAL_RANK=str(r),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OMP_NUM_THREADS="1")
        if captured:
            env.update(PYTHONPATH=CAPTURE, COMMPROF_CAPTURE_DIR=out, COMMPROF_CAPTURE_SKIP="3",
                       COMMPROF_CAPTURE_STEPS="2")
        procs.append(subprocess.Popen(
            ["/usr/bin/python3", SCRIPT, "--steps", str(args.steps), "--width", str(args.width)],
            env=env, stdout=subprocess.PIPE, text=True))
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        sys.exit("a rank failed")
    ms = [float(m) for i, m in re.findall(r"rank 0 step (\d+) loss \S+ ms (\S+)", outs[0])
          if int(i) >= after]
    if captured and not os.path.exists(os.path.join(out, "trace_rank0.json")):
        sys.exit("the capture recorded nothing")
    return statistics.median(ms)


def hook_cost_us(calls=200000):
    """The capture's own work per step outside the window, timed alone: its forward pre-hook
    on a real one-rank DDP wrapper, called `calls` times past the window (no profiler, no
    progress file), in microseconds a call. Robust to a loaded machine, unlike the paired runs."""
    import torch
    import torch.distributed as dist
    out = tempfile.mkdtemp(prefix="capture-hook-")
    os.environ.update(COMMPROF_CAPTURE_DIR=out, COMMPROF_CAPTURE_SKIP="-10",
                      COMMPROF_CAPTURE_STEPS="0", MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(free_port()))
    sys.path.insert(0, CAPTURE)
    import commprof_capture
    commprof_capture._patch(sys.modules["torch.nn.parallel.distributed"])
    dist.init_process_group("gloo", rank=0, world_size=1)
    ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8))
    import time
    best = None
    for _ in range(5):
        commprof_capture._state["times"].clear()
        t0 = time.perf_counter()
        for _ in range(calls):
            commprof_capture._on_forward(ddp, ())
        per = (time.perf_counter() - t0) / calls * 1e6
        best = per if best is None else min(best, per)
    dist.destroy_process_group()
    return best


def median_confidence(n):
    """The confidence of median_interval's order statistics: a run here sometimes lands in a
    slower mode for its whole length (the two ranks' threads sharing a core, 28 against 40 ms
    a step) whichever variant it is, and one such pair moves the mean by several points; the
    median and its sign-test interval are not moved by it."""
    k = order_rank(n)
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n


def order_rank(n):
    """The largest k (1-based) whose order statistics x(k) .. x(n+1-k) cover the median
    with at least 90 % confidence (a sign test), or 1 for n too small for that."""
    k = 1
    while k < n // 2 and 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n >= 0.90:
        k += 1
    return k


def median_interval(rel):
    xs = sorted(rel)
    k = order_rank(len(xs))
    return xs[k - 1], statistics.median(xs), xs[len(xs) - k]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", type=int, default=8)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--width", type=int, default=512)
    args = p.parse_args()
    after = 10  # the window is steps 3-4; the profiler's export is done by step 6
    cost = hook_cost_us() if args.pairs >= 0 else 0
    rel = []
    fastest = float("inf")
    for i in range(args.pairs):
        order = (False, True) if i % 2 == 0 else (True, False)
        got = {c: run(args, c, after) for c in order}
        rel.append((got[True] - got[False]) / got[False])
        fastest = min(fastest, got[False])
        print("pair %d: without %.3f ms, with %.3f ms, %+.2f %%" %
              (i + 1, got[False], got[True], 100 * rel[-1]), flush=True)
    mean = statistics.mean(rel)
    half = T90.get(len(rel) - 1, 1.7) * statistics.stdev(rel) / len(rel) ** 0.5
    print("capture overhead outside the window: %+.2f %% (90 %% interval %+.2f .. %+.2f %%), "
          "%d pairs" % (100 * mean, 100 * (mean - half), 100 * (mean + half), len(rel)))
    lo, mid, hi = median_interval(rel)
    print("median of the pairs: %+.2f %% (distribution-free interval %+.2f .. %+.2f %%, %.0f %%)"
          % (100 * mid, 100 * lo, 100 * hi, 100 * median_confidence(len(rel))))
    print("the capture's hook alone: %.2f us a step, %.4f %% of the fastest run's median step "
          "(%.3f ms)" % (cost, 100 * cost / 1e3 / fastest, fastest))


if __name__ == "__main__":
    main()
