#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python DDP on the TorchScript module a commprof-rank cell trained: the independent reference
for its bucket assignments and its parameters after the run.

Reads a cell directory that `commprof-rank --torchscript FILE --dump-grads` wrote (rank{R}.json,
params_rank{R}.pt), loads the same FILE with torch.jit.load on as many gloo processes, wraps it
in torch.nn.parallel.DistributedDataParallel with the same bucket cap and
find_unused_parameters, feeds each rank the batch commprof-rank drew (same generator seed, same
draws), trains the same iterations with the same optimizer and threads, and prints one JSON
object:
  torch_version
  initial_buckets   what DDP's constructor assigned (its own call of
                    _compute_bucket_assignment_by_size, reversed as DDP reverses it)
  initial_bucket_bytes  DDP's logging data's bucket_sizes
  rebuilt_buckets   DDP's logging data's rebuilt_per_bucket_param_indices (the initial ones
                    where DDP did not rebuild, as under find_unused_parameters)
  params_compared   elements compared, over every rank
  max_abs_diff, max_rel_diff   |rank - python| of the parameters after the last step (rel: over
                    the largest |python| of that tensor)
  worst             {rank, parameter, rank_value, python_value} of the largest difference
"""
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


def parse_buckets(text):
    return [[int(i) for i in b.split()] for b in str(text).split(",") if b.strip()]


def batch(cfg, model, rank):
    g = torch.Generator().manual_seed(cfg["seed"] * 1000003 + rank)  # commprof-rank's seed
    spec = model["input"]
    b = cfg["batch_size"]
    if "tokens" in spec:
        ids = torch.randint(0, spec["vocab"], (b, spec["tokens"] + 1), generator=g)
        return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()
    x = torch.randn([b] + spec["shape"], generator=g)
    y = torch.randint(0, spec["classes"], (b,), generator=g)
    return x, y


def loss_of(model, out, y):
    """commprof-rank's loss: next-token cross entropy for token models, else cross entropy."""
    if "tokens" in model["input"]:
        return F.cross_entropy(out.reshape(-1, model["input"]["vocab"]), y.reshape(-1))
    return F.cross_entropy(out, y)


def worker(rank, world, init_file, rank0, out_path):
    cfg, model = rank0["config"], rank0["model"]
    if cfg["threads"] > 0:
        torch.set_num_threads(cfg["threads"])
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank,
                            world_size=world)
    module = torch.jit.load(model["torchscript"])
    module.train()
    captured = []
    assign = dist._compute_bucket_assignment_by_size

    def recording(*args, **kwargs):
        result = assign(*args, **kwargs)
        captured.append(result[0])
        return result

    dist._compute_bucket_assignment_by_size = recording
    ddp = nn.parallel.DistributedDataParallel(
        module, find_unused_parameters=cfg["find_unused_parameters"], **bucket_arguments(cfg))
    dist._compute_bucket_assignment_by_size = assign
    params = [p for p in ddp.parameters() if p.requires_grad]
    if cfg["optimizer"] == "adam":
        opt = torch.optim.Adam(params, lr=1e-4)
    else:
        opt = torch.optim.SGD(params, lr=1e-4, momentum=0.9)
    x, y = batch(cfg, model, rank)
    for _ in range(cfg["iterations"]):
        loss_of(model, ddp(x), y).backward()
        opt.step()
        for p in params:
            if p.grad is not None:
                p.grad.zero_()
    data = ddp._get_ddp_logging_data()
    torch.save({
        "initial": list(reversed(captured[0])) if captured else None,
        "initial_bytes": [int(s) for s in str(data["bucket_sizes"]).split(",")],
        # Without a rebuild (find_unused_parameters keeps the first layout) the buckets DDP
        # holds at the end are the initial ones.
        "rebuilt": parse_buckets(data["rebuilt_per_bucket_param_indices"])
        if int(data.get("has_rebuilt_buckets", 0)) else list(reversed(captured[0])),
        "params": [p.detach().clone() for p in params],
    }, out_path % rank)
    dist.destroy_process_group()


def bucket_arguments(cfg):
    """The DistributedDataParallel arguments that give the rank's first bucket and cap.

    PyTorch 1.x: the first bucket is always dist._DEFAULT_FIRST_BUCKET_BYTES (1 MiB). PyTorch
    2.x: it is bucket_cap_mb when that is given, and 1 MiB only when bucket_cap_mb is left to
    its default (25 MiB), in the constructor's assignment and the rebuild alike.
    """
    cap, first = cfg["bucket_cap_mb"], cfg["first_bucket_mb"]
    major = int(torch.__version__.split(".")[0])
    if major < 2:
        if first != 1:
            raise SystemExit("torchscript_reference: Python DDP %s has a 1 MiB first bucket, "
                             "the rank %g MiB" % (torch.__version__, first))
        return {"bucket_cap_mb": cap}
    if first == cap:
        return {"bucket_cap_mb": cap}
    if first == 1 and cap == 25:
        return {}
    raise SystemExit("torchscript_reference: Python DDP %s's first bucket is bucket_cap_mb when "
                     "it is given (1 MiB only under the default 25 MiB); the rank's %g MiB first "
                     "bucket under a %g MiB cap has no Python twin" % (torch.__version__, first,
                                                                        cap))


def main():
    cell_dir = sys.argv[1]
    rank0 = json.load(open(os.path.join(cell_dir, "rank0.json")))
    world = rank0["world_size"]
    bucket_arguments(rank0["config"])  # refuses a layout Python DDP cannot be given
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ddp%d.pt")
        mp.spawn(worker, args=(world, os.path.join(tmp, "init"), rank0, out), nprocs=world,
                 join=True)
        runs = [torch.load(out % r, weights_only=False) for r in range(world)]
    report = {"torch_version": torch.__version__,
              "initial_buckets": [[int(i) for i in b] for b in runs[0]["initial"]],
              "initial_bucket_bytes": runs[0]["initial_bytes"],
              "rebuilt_buckets": runs[0]["rebuilt"],
              "params_compared": 0, "max_abs_diff": 0.0, "max_rel_diff": 0.0, "worst": None}
    for rank in range(world):
        mine = torch.load(os.path.join(cell_dir, "params_rank%d.pt" % rank), weights_only=False)[0]
        theirs = runs[rank]["params"]
        if len(mine) != len(theirs):
            raise SystemExit("torchscript_reference: %d parameters from the rank, %d from "
                             "Python DDP" % (len(mine), len(theirs)))
        for i, (a, b) in enumerate(zip(mine, theirs)):
            report["params_compared"] += a.numel()
            diff = (a.double() - b.double()).abs()
            d = diff.max().item()
            rel = d / (b.double().abs().max().item() or 1.0)
            if rel > report["max_rel_diff"] or report["worst"] is None:
                at = int(diff.argmax())
                report["worst"] = {"rank": rank, "parameter": i,
                                   "rank_value": a.flatten()[at].item(),
                                   "python_value": b.flatten()[at].item()}
            report["max_abs_diff"] = max(report["max_abs_diff"], d)
            report["max_rel_diff"] = max(report["max_rel_diff"], rel)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
