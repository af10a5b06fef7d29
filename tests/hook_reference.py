#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python DDP with PyTorch's own comm hook against commprof-rank's C++ hook of the same name.

Reads a cell directory that `commprof-rank --dump-grads` wrote at world size 2 (rank{R}.json,
grads_rank{R}.pt), rebuilds the same MLP from the same seed, the same per-rank batches, bucket
caps, optimizer and threads, runs two gloo processes of Python DDP with the hook registered
(fp16_compress_hook, bf16_compress_hook, powerSGD_hook with PowerSGDState, or no hook for
allreduce), and compares every iteration's reduced gradient of every parameter on every rank.

Usage: tests/hook_reference.py CELL_DIR
Prints one JSON object:
  torch_version, hook, world_size, iterations, elements   what was compared
  bitwise_equal          every gradient element identical
  max_abs_diff           the largest |rank - python| over all of them
  max_rel_diff           the same divided by max |python gradient| of that tensor
  first_difference       {rank, iteration, parameter, rank_value, python_value} or null
  python_error           set instead when Python DDP itself could not run the hook
"""
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_reference import Mlp, mlp_shapes  # noqa: E402


def register_hook(model, cfg):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
    hook = cfg["hook"]
    if hook == "fp16_compress":
        model.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif hook == "bf16_compress":
        # The hook itself under another name: PyTorch 2.x's register_comm_hook refuses the name
        # bf16_compress_hook without CUDA 11 and NCCL 2.10, though its gloo reduces bfloat16.
        def bf16_compress(state, bucket):
            return default_hooks.bf16_compress_hook(state, bucket)
        model.register_comm_hook(None, bf16_compress)
    elif hook == "powersgd":
        p = cfg["powersgd"]
        state = psgd.PowerSGDState(
            process_group=None,
            matrix_approximation_rank=p["matrix_approximation_rank"],
            start_powerSGD_iter=p["start_powerSGD_iter"],
            min_compression_rate=p["min_compression_rate"],
            use_error_feedback=p["use_error_feedback"],
            warm_start=p["warm_start"],
            orthogonalization_epsilon=p["orthogonalization_epsilon"],
            random_seed=p["random_seed"],
            batch_tensors_with_same_shape=p["batch_tensors_with_same_shape"])
        model.register_comm_hook(state, psgd.powerSGD_hook)
    elif hook != "allreduce":
        raise SystemExit("hook_reference: no Python hook for '%s'" % hook)


def worker(rank, world, init_file, shapes, cfg, out_path):
    torch.set_num_threads(max(1, cfg["threads"]))
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank,
                            world_size=world)
    seed = cfg["seed"]
    torch.manual_seed(seed)  # commprof-rank seeds before it builds the model
    kwargs = {"bucket_cap_mb": cfg["bucket_cap_mb"]}
    model = nn.parallel.DistributedDataParallel(Mlp(shapes), **kwargs)
    if cfg["optimizer"] == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    g = torch.Generator().manual_seed(seed * 1000003 + rank)  # commprof-rank's batch seed
    x = torch.randn(cfg["batch_size"], shapes[0][1], generator=g)
    y = torch.randn(cfg["batch_size"], shapes[-1][0], generator=g)
    grads = []
    error = None
    try:
        register_hook(model, cfg)
        for _ in range(cfg["iterations"]):
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            grads.append([p.grad.detach().clone() for p in model.parameters()])
            opt.step()
            for p in model.parameters():
                p.grad.zero_()
    except Exception as e:  # a hook this backend cannot run: reported, not compared
        error = str(e).splitlines()[0]
    torch.save({"grads": grads, "error": error}, out_path % rank)


def compare(cell_dir, world, python):
    result = {"bitwise_equal": True, "max_abs_diff": 0.0, "max_rel_diff": 0.0,
              "first_difference": None, "elements": 0}
    for rank in range(world):
        mine = torch.load(os.path.join(cell_dir, "grads_rank%d.pt" % rank), weights_only=False)
        theirs = python[rank]
        if len(mine) != len(theirs):
            raise SystemExit("hook_reference: %d iterations from the rank, %d from Python" %
                             (len(mine), len(theirs)))
        for it, (a_list, b_list) in enumerate(zip(mine, theirs)):
            for pi, (a, b) in enumerate(zip(a_list, b_list)):
                result["elements"] += a.numel()
                diff = (a.double() - b.double()).abs()
                d = diff.max().item()
                scale = b.double().abs().max().item() or 1.0
                result["max_abs_diff"] = max(result["max_abs_diff"], d)
                result["max_rel_diff"] = max(result["max_rel_diff"], d / scale)
                if not torch.equal(a, b) and result["first_difference"] is None:
                    result["bitwise_equal"] = False
                    at = int(diff.argmax())
                    result["first_difference"] = {
                        "rank": rank, "iteration": it, "parameter": pi,
                        "rank_value": a.flatten()[at].item(),
                        "python_value": b.flatten()[at].item()}
    return result


def main():
    cell_dir = sys.argv[1]
    rank0 = json.load(open(os.path.join(cell_dir, "rank0.json")))
    world = rank0["world_size"]
    shapes = mlp_shapes(rank0)
    cfg = dict(rank0["config"])
    if rank0["torch_version"].split(".")[0] == "1" and cfg["first_bucket_mb"] != 1:
        raise SystemExit("hook_reference: Python DDP 1.13 always has a 1 MiB first bucket")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "grads%d.pt")
        mp.spawn(worker, args=(world, os.path.join(tmp, "init"), shapes, cfg, out),
                 nprocs=world, join=True)
        runs = [torch.load(out % r, weights_only=False) for r in range(world)]
    report = {"torch_version": torch.__version__, "hook": cfg["hook"], "world_size": world,
              "iterations": cfg["iterations"]}
    errors = [r["error"] for r in runs if r["error"]]
    if errors:
        report["python_error"] = errors[0]
    else:
        report.update(compare(cell_dir, world, [r["grads"] for r in runs]))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
