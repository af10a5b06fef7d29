#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The two instruments of one commprof-rank rank, read by hand from its files with nothing but
the standard library: the independent reference for analysis/instrument_agreement.

Usage: tests/instrument_reference.py RANK_FILE TRACE_FILE
Per traced step (a ProfilerStep#N span; N is the hook's iteration), clipped to the step:
  hook_us      the union of the rank file's bucket intervals (start_ns, end_ns)
  backend_us   the union of the trace's gloo:* spans
  hook_span_us the union of the hook's own c10d::allreduce_bucket#N spans in the trace
Prints one JSON object with those sums, the step count and the number of gloo:* spans.
"""
import gzip
import json
import sys


def union_within(spans, lo, hi):
    total = 0.0
    cur = None
    for s, e in sorted((max(s, lo), min(e, hi)) for s, e in spans):
        if e <= s:
            continue
        if cur is None or s > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    if cur:
        total += cur[1] - cur[0]
    return total


def main():
    rank = json.load(open(sys.argv[1]))
    opener = gzip.open if sys.argv[2].endswith(".gz") else open
    with opener(sys.argv[2], "rt") as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    steps = {}
    for e in spans:
        if e["name"].startswith("ProfilerStep#"):
            steps[int(e["name"].split("#")[1])] = (e["ts"], e["ts"] + e["dur"])
    gloo = [(e["ts"], e["ts"] + e["dur"]) for e in spans if e["name"].startswith("gloo:")]
    own = [(e["ts"], e["ts"] + e["dur"]) for e in spans
           if e["name"].startswith("c10d::allreduce_bucket#")]
    hook = {}
    for b in rank["buckets"]:
        hook.setdefault(b["iter"], []).append((b["start_ns"] / 1000.0, b["end_ns"] / 1000.0))
    out = {"steps": 0, "hook_us": 0.0, "backend_us": 0.0, "hook_span_us": 0.0,
           "gloo_spans": len(gloo)}
    for step, (lo, hi) in sorted(steps.items()):
        if step not in hook:
            continue
        out["steps"] += 1
        out["hook_us"] += union_within(hook[step], lo, hi)
        out["backend_us"] += union_within(gloo, lo, hi)
        out["hook_span_us"] += union_within(own, lo, hi)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
