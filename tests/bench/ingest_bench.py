#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reopening a 1,000-cell results folder against ingesting it the first time, side by side.

Runs smoke.yaml once (or takes --from DIR, a finished results folder), copies its world-size-2
cell under new ids until the folder holds --cells cells, then times, per round: a first
`commprof ingest` into a new database, a second one over the unchanged folder, and `commprof
cells --json` (what `report` and the workbench pay before they draw: the store brought up to
date, then every cell read from it). Reports medians and the ratios to the first ingest.
Usage: ingest_bench.py BUILD_BIN_DIR [--cells 1000] [--rounds 3] [--from DIR]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DONOR = "mlp2m_gloo_cpu_ws2_r0"


def timed(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(" ".join(cmd) + " failed: " + p.stderr.decode())
    return time.perf_counter() - t, p.stderr.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--cells", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--from", dest="source")
    a = ap.parse_args()
    commprof = os.path.join(a.bin_dir, "commprof")
    with tempfile.TemporaryDirectory() as work:
        run = os.path.join(work, "run")
        if a.source:
            shutil.copytree(a.source, run, symlinks=True)
        else:
            timed([commprof, "run", os.path.join(SOURCE_DIR, "configs/experiments/smoke.yaml"),
                   "--out", run])
        for name in ("results.sqlite", "results.sqlite-wal", "results.sqlite-shm"):
            if os.path.exists(os.path.join(run, name)):
                os.remove(os.path.join(run, name))
        cells = os.path.join(run, "cells")
        donor = os.path.join(cells, DONOR)
        n = len(os.listdir(cells))
        i = 0
        while n < a.cells:
            shutil.copytree(donor, os.path.join(cells, "copy%04d_ws2_r0" % i))
            i += 1
            n += 1
        db = os.path.join(run, "results.sqlite")
        first, second, reopen = [], [], []
        for _ in range(a.rounds):
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            t, _ = timed([commprof, "ingest", run])
            first.append(t)
            t, err = timed([commprof, "ingest", run])
            if "(0 read, %d unchanged" % n not in err:
                sys.exit("the second ingest read cells again: " + err)
            second.append(t)
            reopen.append(timed([commprof, "cells", run, "--json"])[0])
        f, s, r = (statistics.median(x) for x in (first, second, reopen))
        print("%d cells, %d rounds (medians)" % (n, a.rounds))
        print("first ingest          %7.3f s" % f)
        print("second ingest         %7.3f s  %.3fx the first" % (s, s / f))
        print("cells --json reopened %7.3f s  %.3fx the first" % (r, r / f))


if __name__ == "__main__":
    main()
