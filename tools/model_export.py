#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""commprof model export: a TorchScript file a matrix can name, and its description.

Usage: model_export.py SPEC --out FILE.pt [--input-shape C,H,W] [--classes N] [--seed N]

SPEC is one of
  torchvision:resnet18, torchvision:resnet50 (any torchvision.models builder name), with
      --input-shape (default 3,224,224) and --classes (default 1000)
  gpt:layers=L,d=D,heads=H,seq=S,vocab=V   a decoder-only transformer written here with
      torch.nn (pre-norm blocks, causal self-attention, untied output head)

Writes FILE.pt (torch.jit.script of the model, in train mode, weights from --seed) and
FILE.json beside it (docs/formats.md, "model description"): every parameter's name, shape,
dtype and requires_grad, the buffers, the input and target spec, and the activation bytes
that one forward saved for backward, measured at batch 2 and 4.

Describe mode: model_export.py --describe FILE.pt [--input-shape C,H,W] [--classes N]
[--tokens N --vocab V] [--out FILE.json] loads a module of the user's own, saved with
torch.jit.script(m).save(FILE.pt), with torch.jit.load and writes the same description for it
(FILE.json beside it unless --out says where), so that a matrix can name the file. The module
is not written again. Without --classes, an image model's classes are the last dimension of
its output.

Exit status: 0 written; 2 bad spec or arguments (a file that is not TorchScript among them);
3 this Python has no torch (or torchvision) and the message says which Debian package to
install.
"""
import argparse
import json
import math
import os
import sys

try:
    import torch
    import torch.nn as nn
except ImportError:
    sys.stderr.write("commprof model export needs PyTorch for Python 3: "
                     "apt-get install python3-torch (Debian 12: 1.13)\n")
    sys.exit(3)


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.size(0), x.size(1), x.size(2)
        hd = d // self.heads
        parts = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        att = torch.matmul(parts[0], parts[1].transpose(-2, -1)) / math.sqrt(hd)
        causal = torch.triu(torch.full([s, s], float("-inf"), device=x.device), 1)
        att = torch.softmax(att + causal, dim=-1)
        y = torch.matmul(att, parts[2]).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


class Gpt(nn.Module):
    """Token and position embeddings, pre-norm blocks, a final norm and an untied head: the
    shapes of GPT-2 (layers=12,d=768,heads=12,seq=1024,vocab=50257 is GPT-2 small's)."""

    def __init__(self, layers: int, d: int, heads: int, seq: int, vocab: int):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.size(1), device=tokens.device)
        x = self.tok(tokens) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


PROG = "commprof model export"  # the command the messages name; describe mode sets its own


def fail(message):
    sys.stderr.write("%s: %s\n" % (PROG, message))
    sys.exit(2)


def attempt(make, what):
    """make(), or exit 2 saying what could not be done and the error's first line: a spec the
    model cannot take is a bad spec, not a traceback."""
    try:
        return make()
    except Exception as e:  # any error of the model's own code
        fail("%s: %s" % (what, (str(e).strip().splitlines() or [type(e).__name__])[0]))


def gpt_args(text):
    keys = {"layers": None, "d": None, "heads": None, "seq": None, "vocab": None}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        if key not in keys:
            fail("gpt: unknown key '%s' (layers, d, heads, seq, vocab)" % key)
        try:
            keys[key] = int(value)
        except ValueError:
            fail("gpt: %s=%s is not an integer" % (key, value))
        if keys[key] <= 0:
            fail("gpt: %s must be positive" % key)
    missing = [k for k, v in keys.items() if v is None]
    if missing:
        fail("gpt: missing %s (gpt:layers=6,d=512,heads=8,seq=128,vocab=32000)" %
             ", ".join(missing))
    if keys["d"] % keys["heads"]:
        fail("gpt: d=%d is not a multiple of heads=%d" % (keys["d"], keys["heads"]))
    return keys


def build(spec, a):
    """The eager model, its input spec, target spec and an example input of `batch` samples."""
    kind, _, rest = spec.partition(":")
    if kind == "torchvision":
        try:
            import torchvision
        except ImportError:
            sys.stderr.write("commprof model export: %s needs torchvision: "
                             "apt-get install python3-torchvision (Debian 12: 0.14)\n" % spec)
            sys.exit(3)
        # Only the builders of classification models: a class (VGG), a helper (get_weight) or
        # a detection model is callable too, and fails on num_classes or the image input.
        names = torchvision.models.list_models(module=torchvision.models) \
            if hasattr(torchvision.models, "list_models") else \
            [n for n in dir(torchvision.models) if n.islower() and not n.startswith("_")]
        builder = getattr(torchvision.models, rest, None)
        if rest not in names or not callable(builder):
            fail("torchvision has no classification model '%s' (%s)" %
                 (rest, ", ".join(n for n in names if n.startswith("resnet")) or "resnet18"))
        model = attempt(lambda: builder(num_classes=a.classes),  # no weights: nothing downloaded
                        "%s cannot be built with %d classes" % (spec, a.classes))
        shape = a.input_shape
        return model, {"shape": shape}, {"classes": a.classes}, \
            lambda n: torch.randn([n] + shape)
    if kind == "gpt":
        g = gpt_args(rest)
        model = Gpt(g["layers"], g["d"], g["heads"], g["seq"], g["vocab"])
        return model, {"tokens": g["seq"], "vocab": g["vocab"]}, {"next_token": True}, \
            lambda n: torch.randint(0, g["vocab"], [n, g["seq"]])
    fail("unknown model spec '%s' (torchvision:NAME or gpt:layers=..,d=..,heads=..,seq=..,"
         "vocab=..)" % spec)


def saved_bytes(model, example, batch):
    """Bytes of the tensors autograd keeps for backward in one forward of `batch` samples,
    each storage once, the parameters' own storages left out (they are counted as such)."""
    params = {p.data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        ptr = t.storage().data_ptr()
        if ptr not in params:
            seen[ptr] = max(seen.get(ptr, 0), t.storage().nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(example(batch))
    del out
    return sum(seen.values())


def is_sparse_embedding(m):
    """An nn.Embedding / nn.EmbeddingBag with sparse=True, eager or loaded from TorchScript
    (where it is a RecursiveScriptModule that keeps the class name and the constant)."""
    if isinstance(m, (nn.Embedding, nn.EmbeddingBag)):
        return bool(m.sparse)
    if getattr(m, "original_name", None) in ("Embedding", "EmbeddingBag"):
        try:
            return bool(getattr(m, "sparse", False))
        except Exception:  # a loaded module may lack the attribute: then it is not sparse
            return False
    return False


def sparse_gradient_names(model):
    """Parameters of nn.Embedding / nn.EmbeddingBag with sparse=True: a sparse gradient, which
    DDP cannot be told of once the module is scripted (plan and the rank refuse them)."""
    return {prefix + ("." if prefix else "") + n
            for prefix, m in model.named_modules()
            if is_sparse_embedding(m)
            for n, _ in m.named_parameters(recurse=False)}


def describe(model, input_spec, target_spec, example, spec, pt_name):
    named = list(model.named_parameters())
    sparse = sparse_gradient_names(model)
    # Batch 2 and 4, not 1: batch norm refuses one value per channel in training.
    shape = input_spec.get("shape")
    what = "%s does not take an input of shape %s" % (
        spec, ",".join(map(str, shape))) if shape else "%s does not run" % spec
    b2 = attempt(lambda: saved_bytes(model, example, 2), what)
    b4 = attempt(lambda: saved_bytes(model, example, 4), what)
    return {
        "format": "commprof-model-description",
        "version": 1,
        "spec": spec,
        "torchscript": pt_name,
        "torch_version": torch.__version__,
        "input": input_spec,
        "target": target_spec,
        "params_total": sum(p.numel() for _, p in named),
        "params_trainable": sum(p.numel() for _, p in named if p.requires_grad),
        "parameters": [{"name": n, "shape": list(p.shape), "dtype": str(p.dtype)[6:],
                        "requires_grad": p.requires_grad,
                        "bytes": p.numel() * p.element_size(),
                        **({"sparse_gradient": True} if n in sparse else {})}
                       for n, p in named],
        "buffers": [{"name": n, "shape": list(b.shape), "dtype": str(b.dtype)[6:],
                     "bytes": b.numel() * b.element_size()}
                    for n, b in model.named_buffers()],
        "activations": {
            "method": "tensors saved for backward by one forward, measured at export",
            "bytes_batch2": b2,
            "bytes_batch4": b4,
            "bytes_per_sample": max(0, (b4 - b2) // 2),
            "bytes_fixed": max(0, 2 * b2 - b4),
        },
    }


def writable(path):
    """Exit 2 unless `path` is absent or a regular file, which the export may replace."""
    if os.path.lexists(path) and not os.path.isfile(path):
        fail("%s exists and is not a regular file: nothing written" % path)


def write_both(out, json_path, scripted, description):
    """The module and its description, each through a .part renamed over it, or neither: on a
    failure whatever this made (the .part files, folders) is removed before exit 2."""
    for path in (out, json_path):
        writable(path)  # again: something may have taken the name meanwhile
        writable(path + ".part")  # a file left by an export that was killed is replaced
    made = []
    folder = os.path.dirname(os.path.abspath(out))
    while not os.path.exists(folder):
        made.insert(0, folder)
        folder = os.path.dirname(folder)
    parts = []
    try:
        for d in made:
            os.mkdir(d)
        parts.append(out + ".part")
        scripted.save(parts[-1])
        parts.append(json_path + ".part")
        with open(parts[-1], "w") as f:
            json.dump(description, f, indent=1)
            f.write("\n")
        os.replace(json_path + ".part", json_path)
        os.replace(out + ".part", out)
    except (OSError, RuntimeError) as e:  # torch reports a failed save as RuntimeError
        for part in parts:
            if os.path.lexists(part):
                os.remove(part)
        for d in reversed(made):
            if os.path.isdir(d) and not os.listdir(d):
                os.rmdir(d)
        where = getattr(e, "filename", None) or out
        fail("%s: %s: nothing written" % (where, getattr(e, "strerror", None) or
                                           str(e).splitlines()[0]))


def write_description(json_path, description):
    """The description through a .part renamed over it, or nothing (exit 2, the .part
    removed)."""
    writable(json_path)
    writable(json_path + ".part")
    part = json_path + ".part"
    try:
        with open(part, "w") as f:
            json.dump(description, f, indent=1)
            f.write("\n")
        os.replace(part, json_path)
    except OSError as e:
        if os.path.lexists(part):
            os.remove(part)
        fail("%s: %s: nothing written" % (getattr(e, "filename", None) or json_path,
                                           e.strerror or str(e)))


def positive_list(text, flag):
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        fail("%s: expected comma-separated integers, got '%s'" % (flag, text))
    if not values or any(x <= 0 for x in values):
        fail("%s: every value must be positive, got '%s'" % (flag, text))
    return values


def describe_main(argv):
    """A module the user scripted and saved: its description, for a matrix to name it."""
    global PROG
    PROG = "commprof model describe"
    ap = argparse.ArgumentParser(prog="commprof model describe")
    ap.add_argument("module")
    ap.add_argument("--out")
    ap.add_argument("--input-shape")
    ap.add_argument("--classes", type=int)
    ap.add_argument("--tokens", type=int)
    ap.add_argument("--vocab", type=int)
    a = ap.parse_args(argv)
    path = a.module
    if not path.endswith(".pt"):
        fail("%s: expected a FILE.pt saved with torch.jit.script(model).save(FILE.pt)" % path)
    json_path = a.out or path[:-3] + ".json"
    if not json_path.endswith(".json"):
        fail("--out: expected a FILE.json")
    if not os.path.isfile(path):
        fail("%s: cannot open (%s)" % (path, "not a regular file" if os.path.lexists(path)
                                       else "no such file"))
    tokens = a.tokens is not None or a.vocab is not None
    if tokens and (a.tokens is None or a.vocab is None):
        fail("--tokens and --vocab go together")
    if tokens and (a.input_shape or a.classes is not None):
        fail("either --input-shape (an image model) or --tokens and --vocab, not both")
    if tokens and (a.tokens <= 0 or a.vocab < 2):
        fail("--tokens must be positive and --vocab at least 2")
    if a.classes is not None and a.classes <= 0:
        fail("--classes must be positive")
    writable(json_path)  # before the module is loaded: refused at once
    try:
        model = torch.jit.load(path, map_location="cpu")
    except Exception as e:  # a pickle of an eager model, a zip of something else, not a zip
        fail("%s is not a TorchScript module (torch.jit.load: %s); save one with "
             "torch.jit.script(model).save(FILE.pt)" %
             (path, (str(e).strip().splitlines() or [type(e).__name__])[0]))
    model.train()
    torch.manual_seed(0)
    if tokens:
        input_spec, target_spec = {"tokens": a.tokens, "vocab": a.vocab}, {"next_token": True}
        example = lambda n: torch.randint(0, a.vocab, [n, a.tokens])  # noqa: E731
    else:
        shape = positive_list(a.input_shape or "3,224,224", "--input-shape")
        example = lambda n: torch.randn([n] + shape)  # noqa: E731
        input_spec = {"shape": shape}
        classes = a.classes
        if classes is None:
            out = attempt(lambda: model(example(2)),
                          "%s does not take an input of shape %s" % (path, ",".join(map(str, shape))))
            if not isinstance(out, torch.Tensor) or out.dim() != 2 or out.size(0) != 2:
                fail("%s: its output is not one row of class scores per sample: give --classes" %
                     path)
            classes = int(out.size(1))
        target_spec = {"classes": classes}
    description = describe(model, input_spec, target_spec, example,
                           "torchscript:" + os.path.basename(path), os.path.basename(path))
    write_description(json_path, description)
    sys.stderr.write("wrote %s (%d parameters in %d tensors)\n" % (
        json_path, description["params_total"], len(description["parameters"])))


def main():
    if sys.argv[1:2] == ["--describe"]:
        describe_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(prog="commprof model export")
    ap.add_argument("spec")
    ap.add_argument("--out", required=True)
    ap.add_argument("--input-shape", default="3,224,224")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    try:
        a.input_shape = [int(x) for x in a.input_shape.split(",")]
    except ValueError:
        fail("--input-shape: expected C,H,W integers, got '%s'" % a.input_shape)
    if any(x <= 0 for x in a.input_shape) or a.classes <= 0:
        fail("--input-shape and --classes must be positive")
    if not a.out.endswith(".pt"):
        fail("--out: expected a FILE.pt (the description goes to FILE.json beside it)")
    json_path = a.out[:-3] + ".json"
    for path in (a.out, json_path):  # before the model is built: refused at once
        writable(path)
    torch.manual_seed(a.seed)
    model, input_spec, target_spec, example = build(a.spec, a)
    model.train()
    description = describe(model, input_spec, target_spec, example, a.spec,
                           os.path.basename(a.out))
    try:
        scripted = torch.jit.script(model)
    except Exception as e:  # a model TorchScript cannot compile: said, not a traceback
        fail("%s cannot be scripted: %s" % (a.spec, str(e).splitlines()[0]))
    write_both(a.out, json_path, scripted, description)
    sys.stderr.write("wrote %s (%d parameters in %d tensors) and %s\n" % (
        a.out, description["params_total"], len(description["parameters"]), json_path))


if __name__ == "__main__":
    main()
