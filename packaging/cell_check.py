#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks one multi-rank cell that `commprof run` wrote, on this platform's PyTorch:
DDP's bucket rule (the buckets after the rebuild against Python DDP's own, from
tests/pytorch_reference.py), gradients that agree across ranks, and the hook against trace
agreement as `commprof cells` reports it. Prints one line per check; exit 1 if one fails.

Usage: packaging/cell_check.py RESULTS_DIR CELL_ID COMMPROF_BINARY
       packaging/cell_check.py --ranks-only RESULTS_DIR CELL_ID
(--ranks-only: ranks that another launcher started, torchrun, with no manifest for `commprof
cells` to read: the first two checks, and that the ranks were RANK 0..N-1 of WORLD_SIZE N.)
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import pytorch_reference  # noqa: E402


def main():
    ranks_only = sys.argv[1:2] == ["--ranks-only"]
    if ranks_only:
        results, cell = sys.argv[2:4]
    else:
        results, cell, commprof = sys.argv[1:4]
    cell_dir = os.path.join(results, "cells", cell)
    ranks = []
    r = 0
    while os.path.exists(os.path.join(cell_dir, "rank%d.json" % r)):
        with open(os.path.join(cell_dir, "rank%d.json" % r)) as f:
            ranks.append(json.load(f))
        r += 1
    failures = []

    def check(ok, line):
        print(("ok      " if ok else "FAILED  ") + line)
        if not ok:
            failures.append(line)

    check(len(ranks) >= 2, "cell %s: %d rank files, libtorch %s" %
          (cell, len(ranks), ranks[0]["torch_version"] if ranks else "?"))
    if len(ranks) < 2:
        sys.exit(1)

    rank0 = ranks[0]
    cfg = rank0["config"]
    last = max(b["iter"] for b in rank0["buckets"])
    got = [b["bytes"] for b in rank0["buckets"] if b["iter"] == last]
    cap = None if cfg["bucket_cap_mb"] == 25 and cfg["first_bucket_mb"] == 1 else cfg["bucket_cap_mb"]
    ref = pytorch_reference.reference(rank0, cap)
    check(got == ref["ddp_rebuilt_bucket_bytes"],
          "bucket rule: commprof-rank %s, Python DDP (torch %s) %s" %
          (got, ref["torch_version"], ref["ddp_rebuilt_bucket_bytes"]))

    agree = all(f["grad_checksums_agree"] for f in ranks)
    params = {repr(f["param_checksum"]) for f in ranks}
    check(agree and len(params) == 1,
          "gradients: %s; parameters after the last step identical on %d ranks: %s" %
          (rank0["grad_checksum_note"], len(ranks), len(params) == 1))

    if ranks_only:
        seen = sorted((f["rank"], f["world_size"]) for f in ranks)
        check(seen == [(r, len(ranks)) for r in range(len(ranks))],
              "ranks: (rank, world size) %s" % seen)
        sys.exit(1 if failures else 0)

    cells = json.loads(subprocess.run([commprof, "cells", results, "--json"], check=True,
                                      capture_output=True, text=True).stdout)["cells"]
    row = next((c for c in cells if c["id"] == cell), None)
    agreement = row and row.get("hook_trace_agreement")
    check(row is not None and row["status"] == "complete" and agreement is not None,
          "hook against trace: status %s, trace/hook communication %s (hook %s ms, trace %s ms)%s" %
          (row and row["status"], agreement, row and row.get("hook_comm_ms"),
           row and row.get("trace_comm_ms"),
           ", FLAGGED beyond +-10 %" if row and row.get("agreement_flagged") else ", within +-10 %"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
