# SPDX-License-Identifier: GPL-3.0-or-later
"""Python DDP's own bucket assignment for a captured job, for tst_record to compare with what
`commprof record` captured (capture/rank0.json). Independent of the capture: it rebuilds the
parameter list from a model named on the line, and asks torch's own
dist._compute_bucket_assignment_by_size for the buckets DDP's rebuild makes (gradient-ready
order, which for these models is reverse registration order, capped at [first bucket, cap]).

  record_reference.py MODEL CAP_MB  ->  {"params": [{name, shape, dtype}], "buckets": [[i...]]}

MODEL: "mlp:WIDTH" (tests/data/record/train_ddp.py's model) or "toy" (pytorch/examples'
ToyModel). Indices are into the registration-order list, as DDP's logging data gives them."""
import json
import sys

import torch
import torch.distributed as dist
import torch.nn as nn


def model_of(spec):
    if spec.startswith("mlp:"):
        w = int(spec.split(":")[1])
        return nn.Sequential(
            nn.Linear(64, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(),
            nn.Linear(w, 10),
        )
    if spec == "toy":
        class ToyModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.net1 = nn.Linear(10, 10)
                self.relu = nn.ReLU()
                self.net2 = nn.Linear(10, 5)

        return ToyModel()
    raise SystemExit("unknown model " + spec)


model = model_of(sys.argv[1])
cap = int(float(sys.argv[2]) * 1024 * 1024)
params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
ready = list(reversed(range(len(params))))
indices, _ = dist._compute_bucket_assignment_by_size(
    [params[i][1] for i in ready], [dist._DEFAULT_FIRST_BUCKET_BYTES, cap], [False] * len(ready),
    ready,
)
json.dump(
    {
        "params": [
            {"name": n, "shape": list(p.shape), "dtype": str(p.dtype).replace("torch.", "")}
            for n, p in params
        ],
        "buckets": [list(b) for b in indices],
    },
    sys.stdout,
)
