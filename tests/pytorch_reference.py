#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch's own Python DDP on the model a commprof-rank rank file describes: the independent
reference for commprof-rank's bucket layout, on whatever torch this python3 has (1.13 on
Debian 12, 2.6 on Debian 13).

Usage: tests/pytorch_reference.py RANK_FILE [--bucket-cap-mb C]
Without --bucket-cap-mb, DDP is built with its default caps, as most users build it. Prints one
JSON object:
  torch_version
  ddp_rebuilt_bucket_bytes   the buckets Python DDP itself rebuilt after its first iteration
                             (world size 1, gloo), in gradient-ready order
  ready_order                the order autograd made the gradients ready (parameter indices)
  assignment_bucket_bytes    torch.distributed._compute_bucket_assignment_by_size over that order
                             with [first_bucket_bytes, cap_bytes], as the Reducer's rebuild calls it
  first_bucket_bytes, cap_bytes   the caps Python DDP used
"""
import argparse
import json
import sys

import torch
import torch.distributed as dist
import torch.nn as nn


class Mlp(nn.Module):
    """commprof-rank's MLP family: Linear layers with ReLU between them, from (out, in) shapes."""

    def __init__(self, shapes):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(i, o) for o, i in shapes)

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x)


def mlp_shapes(rank_file):
    """The (out, in) shape of every Linear of an MLP rank file, in registration order."""
    if rank_file["model"]["family"] != "mlp":
        sys.exit("pytorch_reference: only the mlp family can be rebuilt in Python")
    return [p["shape"] for p in rank_file["parameters"] if p["name"].endswith("weight")]


def ready_order(model, x):
    """Parameter indices in the order autograd makes their gradients ready."""
    order = []
    handles = [p.register_hook(lambda g, i=i: order.append(i) or g)
               for i, p in enumerate(model.parameters())]
    model(x).sum().backward()
    for h in handles:
        h.remove()
    model.zero_grad()
    return order


def reference(rank_file, bucket_cap_mb):
    torch.manual_seed(0)
    shapes = mlp_shapes(rank_file)
    batch = rank_file["config"]["batch_size"]
    x = torch.randn(batch, shapes[0][1])
    model = Mlp(shapes)
    params = list(model.parameters())
    order = ready_order(model, x)

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    kwargs = {} if bucket_cap_mb is None else {"bucket_cap_mb": bucket_cap_mb}
    ddp = nn.parallel.DistributedDataParallel(model, **kwargs)
    for _ in range(3):  # the first iteration records the order, the second rebuilds
        ddp(x).sum().backward()
    data = ddp._get_ddp_logging_data()
    rebuilt = [int(s) for s in str(data["rebuilt_bucket_sizes"]).split(",")]
    cap = int(data["bucket_cap_bytes"])
    # The first bucket's cap is not in the logging data: the one rebuilt bucket whose size the
    # Reducer would have closed earlier under the other rule tells which was used.
    first_default = dist._DEFAULT_FIRST_BUCKET_BYTES
    candidates = {}
    for first in (first_default, cap):
        indices, _ = dist._compute_bucket_assignment_by_size(
            [params[i] for i in order], [first, cap], [False] * len(params), order)
        candidates[first] = [sum(params[i].numel() * params[i].element_size() for i in b)
                             for b in indices]
    used = [f for f, sizes in candidates.items() if sizes == rebuilt]
    dist.destroy_process_group()
    return {
        "torch_version": torch.__version__,
        "ddp_rebuilt_bucket_bytes": rebuilt,
        "ready_order": order,
        "first_bucket_bytes": used[0] if used else None,
        "cap_bytes": cap,
        "assignment_bucket_bytes": candidates[used[0]] if used else None,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rank_file")
    ap.add_argument("--bucket-cap-mb", type=float)
    a = ap.parse_args()
    with open(a.rank_file) as f:
        rank_file = json.load(f)
    print(json.dumps(reference(rank_file, a.bucket_cap_mb)))


if __name__ == "__main__":
    main()
