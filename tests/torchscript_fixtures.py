#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Small TorchScript modules that each break one of commprof-rank's expectations, for
tst_rank_torchscript. Usage: torchscript_fixtures.py DIR. Writes into DIR:
  frozen.pt       Linear(12, 16) frozen (requires_grad False), then a trainable Linear(16, 4)
  unused.pt       as frozen.pt all trainable, plus a Linear(16, 16) that forward never uses
  nograd.pt       every parameter frozen
  features.pt     forward takes [batch, 10] features, not an image
  pair.pt         forward returns a tuple, not one tensor
  wrongwidth.pt   forward returns [batch, 3] where 4 classes are asked for
  sparse.pt       nn.Embedding(50, 16, sparse=True) and a Linear(16, 50) head, fed tokens
                  [batch, 8] below 50; with sparse.json, its description as the exporter writes it
The others take (or is fed) images [batch, 3, 2, 2], flattened to 12 features, with 4 classes.
"""
import json
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import model_export  # noqa: E402


class Net(nn.Module):
    def __init__(self, out=4, unused=False):
        super().__init__()
        self.a = nn.Linear(12, 16)
        self.b = nn.Linear(16, out)
        if unused:
            self.extra = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.relu(self.a(x.flatten(1))))


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(10, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a(x)


class Pair(Net):
    def forward(self, x: torch.Tensor):
        y = self.b(torch.relu(self.a(x.flatten(1))))
        return y, y


class SparseTokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16, sparse=True)
        self.head = nn.Linear(16, 50)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.emb(x))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    frozen = Net()
    frozen.a.weight.requires_grad_(False)
    frozen.a.bias.requires_grad_(False)
    nograd = Net()
    for p in nograd.parameters():
        p.requires_grad_(False)
    for name, model in [("frozen", frozen), ("unused", Net(unused=True)), ("nograd", nograd),
                        ("features", Features()), ("pair", Pair()),
                        ("wrongwidth", Net(out=3))]:
        torch.jit.script(model).save(os.path.join(out, name + ".pt"))
    sparse = SparseTokens()
    torch.jit.script(sparse).save(os.path.join(out, "sparse.pt"))
    with open(os.path.join(out, "sparse.json"), "w") as f:
        json.dump(model_export.describe(sparse, {"tokens": 8, "vocab": 50}, {"next_token": True},
                                        lambda n: torch.randint(0, 50, [n, 8]), "fixture",
                                        "sparse.pt"), f)


if __name__ == "__main__":
    main()
