#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What commprof's capture (tools/capture) adds to a training step outside its traced window.

The same two-rank gloo job (tests/data/record/train_ddp.py) runs alternately without the capture
(A) and with it in record mode (B: steps SKIP..SKIP+STEPS-1 traced), A B B A A B ... so that the
machine's drift falls on both alike. Each run's figure is rank 0's median step, as the script
itself times it, over the steps after the window (the capture's per-step clock read is all that
runs there). The pairs' relative differences give the overhead and its 90 % Student-t interval.

  tests/bench/capture_overhead.py [--pairs 8] [--steps 60] [--width 512]

Outside ctest: timings are never judged there."""
import argparse
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", type=int, default=8)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--width", type=int, default=512)
    args = p.parse_args()
    after = 10  # the window is steps 3-4; the profiler's export is done by step 6
    rel = []
    for i in range(args.pairs):
        order = (False, True) if i % 2 == 0 else (True, False)
        got = {c: run(args, c, after) for c in order}
        rel.append((got[True] - got[False]) / got[False])
        print("pair %d: without %.3f ms, with %.3f ms, %+.2f %%" %
              (i + 1, got[False], got[True], 100 * rel[-1]), flush=True)
    mean = statistics.mean(rel)
    half = T90.get(len(rel) - 1, 1.7) * statistics.stdev(rel) / len(rel) ** 0.5
    print("capture overhead outside the window: %+.2f %% (90 %% interval %+.2f .. %+.2f %%), "
          "%d pairs" % (100 * mean, 100 * (mean - half), 100 * (mean + half), len(rel)))


if __name__ == "__main__":
    main()
