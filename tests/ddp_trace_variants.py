#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# One rank of a Python DDP job (Debian's torch, gloo, CPU) that trains several DDP settings side
# by side, so that they are compared inside one run: this machine's speed drifts by up to 30 %
# between runs, far more than a bucket cap moves a step. Each variant is a DDP wrapper of its own
# (a fresh copy of the same model, so no reducer's hooks outlive it) over one process group.
#
#   1. every variant warms up (DDP rebuilds its buckets in ready order after the first step);
#   2. `--rounds` rounds, each timing `--steps` unprofiled steps of every variant in turn: the
#      variants' medians are measured under the same drift;
#   3. every variant traced with torch.profiler for `--traced` steps: OUT/<label>/trace_rank{R}.json
#      (.json.gz with --gzip), and OUT/<label>/params.json in the format `commprof trace whatif
#      --params` reads (docs/formats.md) except with --kineto (trace_variant says how each
#      profiler marks the steps); with `--traced 0` none.
#
# Eight model families (FAMILIES, model_of): mlp, convnet, torchvision's resnet18 and
# mobilenet_v2 and a small ViT, a transformer encoder, a GPT-style LM and an EmbeddingBag
# recommendation model. Hooks: allreduce, fp16_compress, bf16_compress (where torch has it).
# Rank 0 writes OUT/steps.json: {"variants": [{"label", "bucket_cap_mb", "hook",
# "unprofiled_ms": [...]}], "world_size", "torch", "model", "params", "load_average_1min" (at
# the start and after each round), "traced_steps", "kineto", "rounds", "steps_per_round"}.
#
#   RANK=r WORLD_SIZE=2 MASTER_ADDR=a MASTER_PORT=p ddp_trace_variants.py --model FAMILY \
#       --variants 0.25:allreduce,25:fp16_compress --out DIR [--gzip] [--kineto]
import argparse
import gzip
import json
import os
import shutil
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


FAMILIES = ("mlp", "convnet", "resnet18", "mobilenet_v2", "vit", "transformer", "gpt", "embbag")


class Gpt(nn.Module):
    """A GPT-style causal LM: a large token embedding, learned positions, pre-norm decoder
    blocks and an untied head as large as the embedding (the two largest gradients, one ready
    first in the backward, the other last)."""

    def __init__(self, vocab=8192, dim=256, layers=2, heads=4, seq=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        block = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(block, layers)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, ids):
        h = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        h = self.blocks(h, mask=self.mask[:ids.shape[1], :ids.shape[1]])
        # Next-token logits flattened for CrossEntropyLoss against targets of the same length.
        return self.head(self.norm(h)).flatten(0, 1)


class Encoder(nn.Module):
    """A transformer encoder classifier (BERT-like, post-norm) over token ids."""

    def __init__(self, vocab=4096, dim=256, layers=4, heads=4, classes=10):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        block = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(block, layers)
        self.cls = nn.Linear(dim, classes)

    def forward(self, ids):
        return self.cls(self.enc(self.tok(ids)).mean(1))


class EmbBag(nn.Module):
    """A recommendation-style model (DLRM-like): sparse features pooled by EmbeddingBag tables
    (dense gradients, so DDP all-reduces every table whole), dense features through a bottom
    MLP, both concatenated into a top MLP."""

    def __init__(self, tables=4, rows=40000, dim=32, dense=13, bag=8):
        super().__init__()
        self.bag = bag
        self.tables = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        self.bottom = nn.Sequential(nn.Linear(dense, 256), nn.ReLU(), nn.Linear(256, dim),
                                    nn.ReLU())
        self.top = nn.Sequential(nn.Linear(dim * (tables + 1), 512), nn.ReLU(),
                                 nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 2))

    def forward(self, x):
        dense, ids = x
        pooled = [t(ids[:, i].reshape(-1), torch.arange(0, ids.shape[0] * self.bag, self.bag))
                  for i, t in enumerate(self.tables)]
        return self.top(torch.cat([self.bottom(dense)] + pooled, 1))


def model_of(name):
    """The family's model, its input batch and its targets (classes), seeded the same on every
    rank so that DDP starts from one set of weights. Batches are small: a CPU step stays well
    under a second, and the whole corpus records in half an hour."""
    torch.manual_seed(0)
    if name == "mlp":
        layers = []
        for _ in range(8):
            layers += [nn.Linear(512, 512), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(512, 10)), lambda: torch.randn(64, 512), (64, 10)
    if name == "convnet":
        # Gradients from 0.25 KiB to 8 MiB, so that every cap makes other buckets.
        return nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(128, 256, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(256 * 4 * 4, 512), nn.ReLU(),
            nn.Linear(512, 10)), lambda: torch.randn(16, 3, 32, 32), (16, 10)
    if name in ("resnet18", "mobilenet_v2", "vit"):
        # torchvision's own definitions (Debian's python3-torchvision): ResNet-18 with its
        # BatchNorm (11.7M parameters; DDP broadcasts the running statistics every forward),
        # MobileNetV2's depthwise blocks (many small gradients), a small ViT.
        import torchvision.models as tvm
        if name == "resnet18":
            return tvm.resnet18(num_classes=10), lambda: torch.randn(8, 3, 32, 32), (8, 10)
        if name == "mobilenet_v2":
            return tvm.mobilenet_v2(num_classes=10), lambda: torch.randn(8, 3, 32, 32), (8, 10)
        from torchvision.models.vision_transformer import VisionTransformer
        return VisionTransformer(image_size=32, patch_size=8, num_layers=4, num_heads=4,
                                 hidden_dim=256, mlp_dim=512, num_classes=10), \
            lambda: torch.randn(2, 3, 32, 32), (2, 10)
    if name == "transformer":
        return Encoder(), lambda: torch.randint(0, 4096, (2, 16)), (2, 10)
    if name == "gpt":
        return Gpt(), lambda: torch.randint(0, 8192, (2, 16)), (2 * 16, 8192)
    if name == "embbag":
        return EmbBag(), lambda: (torch.randn(32, 13), torch.randint(0, 40000, (32, 4, 8))), \
            (32, 2)
    raise SystemExit("unknown model %s (one of %s)" % (name, ", ".join(FAMILIES)))


HOOKS = {"allreduce": None, "fp16_compress": "fp16_compress_hook",
         "bf16_compress": "bf16_compress_hook"}


class Variant:
    def __init__(self, model_name, cap, hook, rank):
        self.cap, self.hook = cap, hook
        self.label = "cap%g_%s" % (cap, hook)
        model, make_input, (targets, classes) = model_of(model_name)
        self.model = model
        self.ddp = DDP(model, bucket_cap_mb=cap)
        if hook not in HOOKS or (HOOKS[hook] and not hasattr(default_hooks, HOOKS[hook])):
            raise SystemExit("unknown hook %s for torch %s" % (hook, torch.__version__))
        if HOOKS[hook]:
            self.ddp.register_comm_hook(None, getattr(default_hooks, HOOKS[hook]))
        self.opt = torch.optim.SGD(self.ddp.parameters(), lr=0.01)
        torch.manual_seed(rank)
        self.x = make_input()
        self.y = torch.randint(0, classes, (targets,))
        self.loss_fn = nn.CrossEntropyLoss()
        self.unprofiled_ms = []

    def step(self):
        self.opt.zero_grad()
        self.loss_fn(self.ddp(self.x), self.y).backward()
        self.opt.step()


def trace_variant(v, a, rank, world):
    """`--traced` steps of one variant under torch.profiler, written to OUT/<label>/. The legacy
    exporter (Debian 12's 1.13, no Kineto) writes no step marks: each step is wrapped in
    record_function("ProfilerStep#N"). With --kineto (2.x) the profiler's own schedule marks the
    steps, record_shapes=True puts each gloo all-reduce's element count in its Input Dims, and no
    params.json is written: `trace whatif` sizes the buckets from the trace alone."""
    out = os.path.join(a.out, v.label)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "trace_rank%d.json" % rank)
    if a.kineto:
        sched = torch.profiler.schedule(wait=0, warmup=1, active=a.traced)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    record_shapes=True, schedule=sched,
                                    on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
            for _ in range(1 + a.traced):
                v.step()
                prof.step()
    else:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            for i in range(a.traced):
                with torch.profiler.record_function("ProfilerStep#%d" % (a.warmup + i)):
                    v.step()
        prof.export_chrome_trace(path)
    if a.gzip:  # compressed as written, the JSON itself untouched
        with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(path)
    if rank == 0 and not a.kineto:
        params = [{"name": n, "shape": list(p.shape), "dtype": str(p.dtype)}
                  for n, p in v.model.named_parameters() if p.requires_grad]
        with open(os.path.join(out, "params.json"), "w") as f:
            json.dump({"params": params, "bucket_cap_mb": v.cap, "first_bucket_mb": 1,
                       "hook": v.hook, "world_size": world}, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mlp", choices=FAMILIES)
    ap.add_argument("--variants", required=True, help="CAP:HOOK,...")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--traced", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--kineto", action="store_true",
                    help="torch 2.x: Kineto's schedule, record_shapes=True, no params.json")
    ap.add_argument("--gzip", action="store_true", help="write trace_rank{R}.json.gz")
    a = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    variants = []
    for item in a.variants.split(","):
        cap, hook = item.split(":")
        variants.append(Variant(a.model, float(cap), hook, rank))
    for v in variants:
        for _ in range(a.warmup):
            v.step()
    load = [os.getloadavg()[0]]
    for _ in range(a.rounds):
        for v in variants:
            for _ in range(a.steps):
                t0 = time.perf_counter()
                v.step()
                v.unprofiled_ms.append((time.perf_counter() - t0) * 1e3)
        load.append(os.getloadavg()[0])
    for v in variants if a.traced > 0 else []:  # --traced 0: the unprofiled steps alone
        trace_variant(v, a, rank, world)
    if rank == 0:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "steps.json"), "w") as f:
            json.dump({"world_size": world, "torch": torch.__version__, "model": a.model,
                       "params": sum(p.numel() for p in variants[0].model.parameters()),
                       "load_average_1min": load, "traced_steps": a.traced,
                       "kineto": a.kineto, "rounds": a.rounds, "steps_per_round": a.steps,
                       "variants": [{"label": v.label, "bucket_cap_mb": v.cap, "hook": v.hook,
                                     "unprofiled_ms": v.unprofiled_ms} for v in variants]}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
