#!/usr/bin/env python3
"""Writes mtia_three_steps.json: a small MTIA-style trace with three profiler steps, kernels
in every step (the last one too) and DMA copies written without a stream. HTA 0.6.1 reads such
a trace with its MTIA filter (filter_mtia_kernels_for_one_rank), which keeps the last step and
gives the copies their thread as a stream, unlike its NVIDIA one. Its figures on this file are
in hta_reference.json beside it (TraceAnalysis(trace_dir=<a folder holding this one file>),
get_temporal_breakdown() and get_comm_comp_overlap(), HTA 0.6.1 with Debian 12's pandas)."""
import json

events = [
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "host"}},
]
corr = 100
for step in range(3):
    t0 = 1000 * step
    events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step + 1}",
                   "ts": t0, "dur": 900, "pid": 1, "tid": 1, "args": {}})
    for k in range(3):
        corr += 1
        launch = t0 + 10 + 100 * k
        events.append({"ph": "X", "cat": "mtia_runtime",
                       "name": "runFunction - job_prep_and_submit_for_execution",
                       "ts": launch, "dur": 5, "pid": 1, "tid": 1,
                       "args": {"correlation": corr}})
        events.append({"ph": "X", "cat": "mtia_ccp_events", "name": f"fused_matmul_{k}",
                       "ts": launch + 20, "dur": 60 + 10 * k, "pid": 2, "tid": 5,
                       "args": {"stream": 5, "correlation": corr}})
    # A collective on its own stream, overlapping the second kernel.
    corr += 1
    events.append({"ph": "X", "cat": "mtia_runtime", "name": "runFunction - collective",
                   "ts": t0 + 50, "dur": 5, "pid": 1, "tid": 1, "args": {"correlation": corr}})
    events.append({"ph": "X", "cat": "mtia_ccp_events", "name": "hccl_all_reduce",
                   "ts": t0 + 120, "dur": 80, "pid": 2, "tid": 6,
                   "args": {"stream": 6, "correlation": corr}})
    # A DMA copy written without a stream.
    events.append({"ph": "X", "cat": "mtia_ccp_events", "name": "dma_transfer",
                   "ts": t0 + 400, "dur": 50, "pid": 2, "tid": 7, "args": {}})

with open("mtia_three_steps.json", "w") as f:
    json.dump({"schemaVersion": 1,
               "distributedInfo": {"backend": "mtia:hccl", "rank": 0, "world_size": 1},
               "traceEvents": events}, f, indent=1)
