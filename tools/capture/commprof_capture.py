# SPDX-License-Identifier: GPL-3.0-or-later
"""commprof's capture inside a user's unmodified DDP training (docs/cli.md, `commprof record`).

Loaded at start-up by this folder's sitecustomize.py when COMMPROF_CAPTURE_DIR is set. It waits
for `torch.nn.parallel.distributed` to finish importing (wrapping the class during that import
is a circular import), then wraps `DistributedDataParallel.__init__`. The wrapper sees the
constructor's arguments (and may override `bucket_cap_mb` for `commprof confirm`), and a
forward pre-hook on it sees every step: each step is the time from one forward of the wrapper to
the next. In record mode it runs `torch.profiler` over steps SKIP .. SKIP+STEPS-1, marking each
with a `ProfilerStep#N` range (the legacy exporter of torch 1.13 writes no step marks itself).

Everything it learns goes to COMMPROF_CAPTURE_DIR/capture/rank{R}.json (docs/formats.md,
"Record folder"); rank 0 also writes params.json beside the traces. A script it cannot capture
(no DDP, several DDP wrappers, its own profiler) runs on undisturbed: the capture only writes
why into its file, and `commprof record` says so.
"""
import atexit
import importlib.abc
import importlib.machinery
import json
import os
import sys
import time

_TARGET = "torch.nn.parallel.distributed"

_state = {
    "wrappers": 0,
    "ddp": None,  # the one wrapper being captured
    "status": None,  # None while capturing; else why not
    "message": "",
    "times": [],  # perf_counter at each forward of the wrapper (a step's start)
    "profiler": None,
    "mark": None,
    "window": None,
    "trace_written": False,
    "own_profiler": False,
    "hook": "allreduce",
    "hook_overridden": False,
    "settings": {},
    "params": [],
    "buckets": None,
    "rank": None,
    "world_size": None,
    "backend": None,
    "finished": False,
}


def _env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _out_dir():
    return os.environ["COMMPROF_CAPTURE_DIR"]


def _mode():
    return _settings()["mode"]


def _settings():
    """The capture's settings, read from the environment once: the hook runs every step."""
    cached = _state.get("cached_settings")
    if cached is None:
        cached = _state["cached_settings"] = {
            "mode": os.environ.get("COMMPROF_CAPTURE_MODE", "record"),
            "skip": _env_int("COMMPROF_CAPTURE_SKIP", 5),
            "steps": _env_int("COMMPROF_CAPTURE_STEPS", 5),
        }
    return cached


def _rank():
    if _state["rank"] is not None:
        return _state["rank"]
    for name in ("RANK", "SLURM_PROCID"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return None


def _write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(value, f, indent=1)
    os.replace(tmp, path)


def _refuse(status, message):
    """Stops capturing (the run goes on untouched); the first reason is the one kept."""
    if _state["status"] is None:
        _state["status"] = status
        _state["message"] = message
    _stop_profiler(export=False)


# --- the hook names `trace whatif` knows (docs/cli.md, `--hook`) ---
_HOOK_NAMES = {
    "allreduce_hook": "allreduce",
    "fp16_compress_hook": "fp16_compress",
    "bf16_compress_hook": "bf16_compress",
    "powerSGD_hook": "powersgd",
    "batched_powerSGD_hook": "powersgd",
}


def _hook_name(hook):
    name = getattr(hook, "__name__", None) or type(hook).__name__
    return _HOOK_NAMES.get(name, name)


def _candidate_hook():
    """The hook `commprof confirm` asks for (COMMPROF_CAPTURE_HOOK), as a callable; None for
    the built-in allreduce."""
    name = os.environ.get("COMMPROF_CAPTURE_HOOK", "")
    if not name or name == "allreduce":
        return None
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    return getattr(default_hooks, name + "_hook")


# --- the profiler window ---
def _user_profiler_started():
    try:
        import torch

        return bool(torch.autograd._profiler_enabled())
    except Exception:
        return False


def _start_profiler():
    import torch

    if _user_profiler_started():
        _refuse("already_profiles", "the script runs a profiler of its own")
        return
    _state["own_profiler"] = True
    try:
        prof = torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True
        )
        prof.start()
    finally:
        _state["own_profiler"] = False
    _state["profiler"] = prof


def _close_mark():
    mark = _state["mark"]
    if mark is not None:
        _state["mark"] = None
        mark.__exit__(None, None, None)


def _open_mark(step):
    import torch

    mark = torch.autograd.profiler.record_function("ProfilerStep#%d" % step)
    mark.__enter__()
    _state["mark"] = mark


def _stop_profiler(export):
    prof = _state["profiler"]
    if prof is None:
        return
    _close_mark()
    _state["profiler"] = None
    prof.stop()
    if export:
        rank = _rank()
        path = os.path.join(_out_dir(), "trace_rank%d.json" % (rank if rank is not None else 0))
        os.makedirs(_out_dir(), exist_ok=True)
        prof.export_chrome_trace(path + ".part")
        os.replace(path + ".part", path)
        _state["trace_written"] = True


def _read_buckets(ddp):
    """The buckets as DDP's reducer holds them (after its rebuild, in gradient-ready order),
    from DDP's own logging data: indices into the reducer's parameter list, and bytes."""
    try:
        data = ddp._get_ddp_logging_data()
    except Exception:
        return None
    rebuilt = data.get("rebuilt_per_bucket_param_indices")
    sizes = data.get("rebuilt_bucket_sizes") if rebuilt else data.get("bucket_sizes")
    out = {"rebuilt": bool(rebuilt), "sizes": [], "indices": []}
    if sizes:
        out["sizes"] = [int(s) for s in str(sizes).split(",") if s.strip()]
    if rebuilt:
        out["indices"] = [[int(i) for i in b.split()] for b in str(rebuilt).split(",") if b.strip()]
    return out


def _on_forward(module, inputs):
    try:
        _step(module)
    except Exception as e:  # the capture's failure is reported, never the script's
        _refuse("capture_failed", "the capture failed: %s: %s" % (type(e).__name__, e))
    return None


def _step(module):
    import torch

    if not torch.is_grad_enabled() or not module.training:
        return None  # evaluation is not a training step
    now = time.perf_counter()
    _state["times"].append(now)
    step = len(_state["times"]) - 1
    if _state["status"] is not None or _mode() != "record":
        if _state["hook_overridden"] is False and _mode() == "time":
            _apply_candidate_hook(module)
        return None
    skip = _settings()["skip"]
    steps = _settings()["steps"]
    if step > skip + steps and _state["profiler"] is None:
        return None  # past the window: a clock read a step is all the capture costs
    if step <= skip + steps and _rank() in (0, None):
        _write_progress(step, skip + steps)
    if step == skip:
        _start_profiler()
        if _state["profiler"] is None:
            return None
        _state["window"] = [step, step]
    elif step == skip + steps and _state["profiler"] is not None:
        _state["buckets"] = _read_buckets(module)
        _stop_profiler(export=True)
        _write_capture()
        return None
    if _state["profiler"] is not None:
        _close_mark()
        _open_mark(step)
        _state["window"][1] = step
    return None


def _write_progress(step, last):
    """capture/progress: "STEP LAST", for a front end to show how far the job is (rank 0 only,
    and only until the window ends: nothing is written for the steps after it)."""
    folder = os.path.join(_out_dir(), "capture")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "progress"), "w") as f:
        f.write("%d %d\n" % (step, last))


def _apply_candidate_hook(ddp):
    """`confirm`'s candidate hook, registered before the first backward unless the script
    registered one (which the wrapper below replaced already)."""
    _state["hook_overridden"] = True
    hook = _candidate_hook()
    if hook is not None:
        _ORIGINAL["register_comm_hook"](ddp, None, hook)
        _state["hook"] = _hook_name(hook)


# --- the wrappers ---
_ORIGINAL = {}


def _reducer_params(ddp, module):
    """The parameters DDP's reducer holds, in its order (DDP's _build_params_for_reducer: each
    module's own parameters in named_modules() order, once, those that take a gradient and
    are not ignored)."""
    ignored = set(getattr(ddp, "parameters_to_ignore", []) or [])
    seen = set()
    out = []
    for mname, m in module.named_modules():
        for pname, p in m.named_parameters(recurse=False):
            fqn = "%s.%s" % (mname, pname) if mname else pname
            if not p.requires_grad or fqn in ignored or id(p) in seen:
                continue
            seen.add(id(p))
            out.append(
                {
                    "name": fqn,
                    "shape": list(p.shape),
                    "dtype": str(p.dtype).replace("torch.", ""),
                    "requires_grad": True,
                    "bytes": p.numel() * p.element_size(),
                }
            )
    return out


def _ddp_init(self, *args, **kwargs):
    import inspect

    _state["wrappers"] += 1
    if _state["wrappers"] > 1:
        _refuse("several_ddp", "the script builds more than one DistributedDataParallel wrapper")
        return _ORIGINAL["__init__"](self, *args, **kwargs)
    _patch_profilers()
    if _user_profiler_started():
        _refuse("already_profiles", "the script runs a profiler of its own")
    bound = inspect.signature(_ORIGINAL["__init__"]).bind(self, *args, **kwargs)
    cap = os.environ.get("COMMPROF_CAPTURE_BUCKET_CAP_MB")
    if cap:
        bound.arguments["bucket_cap_mb"] = float(cap)
    _ORIGINAL["__init__"](*bound.args, **bound.kwargs)
    bound.apply_defaults()
    settings = {
        name: bound.arguments.get(name)
        for name in (
            "bucket_cap_mb",
            "gradient_as_bucket_view",
            "static_graph",
            "find_unused_parameters",
            "broadcast_buffers",
        )
    }
    import torch
    import torch.distributed as dist

    if settings["bucket_cap_mb"] is None:  # 2.x: None means its default of 25
        settings["bucket_cap_mb"] = 25
    # DDP's first bucket: 1 MiB on 1.13 (dist._DEFAULT_FIRST_BUCKET_BYTES); 2.x uses the cap when
    # given one, else the same default.
    first = getattr(dist, "_DEFAULT_FIRST_BUCKET_BYTES", 1024 * 1024) / (1024.0 * 1024.0)
    settings["first_bucket_mb"] = first
    settings["static_graph"] = bool(settings["static_graph"] or getattr(self, "static_graph", False))
    _state["settings"] = settings
    pg = bound.arguments.get("process_group")
    _state["rank"] = dist.get_rank(pg)
    _state["world_size"] = dist.get_world_size(pg)
    _state["backend"] = str(dist.get_backend(pg))
    _state["torch_version"] = torch.__version__
    _state["params"] = _reducer_params(self, self.module)
    _state["ddp"] = self
    self.register_forward_pre_hook(_on_forward)


def _register_comm_hook(self, state, hook):
    if self is _state["ddp"] and os.environ.get("COMMPROF_CAPTURE_HOOK"):
        # confirm: the candidate's hook replaces the script's own
        _apply_candidate_hook(self)
        return None
    if self is _state["ddp"]:
        _state["hook"] = _hook_name(hook)
    return _ORIGINAL["register_comm_hook"](self, state, hook)


def _register_builtin_comm_hook(self, comm_hook_type):
    if self is _state["ddp"] and os.environ.get("COMMPROF_CAPTURE_HOOK"):
        _apply_candidate_hook(self)
        return None
    if self is _state["ddp"]:
        _state["hook"] = str(comm_hook_type).split(".")[-1].lower()
    return _ORIGINAL["_register_builtin_comm_hook"](self, comm_hook_type)


def _patch_profilers():
    """A profiler the script starts after the wrapper was built ends the capture (two
    profilers in one process do not mix); the script's own goes on."""
    if "profile_init" in _ORIGINAL:
        return
    import torch.autograd.profiler as legacy
    import torch.profiler as modern

    for key, cls in (("profile_init", modern.profile), ("legacy_init", legacy.profile)):
        original = cls.__init__
        _ORIGINAL[key] = original

        def init(self, *args, __original=original, **kwargs):
            if not _state["own_profiler"]:
                _refuse("already_profiles", "the script runs a profiler of its own")
            return __original(self, *args, **kwargs)

        cls.__init__ = init


def _patch(module):
    cls = module.DistributedDataParallel
    _ORIGINAL["__init__"] = cls.__init__
    _ORIGINAL["register_comm_hook"] = cls.register_comm_hook
    _ORIGINAL["_register_builtin_comm_hook"] = cls._register_builtin_comm_hook
    cls.__init__ = _ddp_init
    cls.register_comm_hook = _register_comm_hook
    cls._register_builtin_comm_hook = _register_builtin_comm_hook


class _Finder(importlib.abc.MetaPathFinder):
    """Patches DDP right after its module finished executing, never during torch's import."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module):
            original_exec(module)
            _patch(module)

        loader.exec_module = exec_module
        sys.meta_path.remove(self)
        return spec


# --- what is written ---
def _step_ms():
    t = _state["times"]
    return [round((b - a) * 1000.0, 4) for a, b in zip(t, t[1:])]


def _write_capture():
    rank = _rank()
    name = "rank%d.json" % rank if rank is not None else "pid%d.json" % os.getpid()
    status = _state["status"]
    if status is None:
        if _state["wrappers"] == 0:
            status, _state["message"] = "no_ddp", "the script built no DistributedDataParallel"
        elif _mode() == "record" and not _state["trace_written"]:
            status = "too_few_steps"
            _state["message"] = "the script ran %d steps; recording needs at least %d" % (
                len(_state["times"]),
                _env_int("COMMPROF_CAPTURE_SKIP", 5) + _env_int("COMMPROF_CAPTURE_STEPS", 5) + 1,
            )
        else:
            status = "recorded" if _mode() == "record" else "timed"
    s = _state["settings"]
    record = {
        "format": "commprof-capture",
        "version": 1,
        "status": status,
        "message": _state["message"],
        "pid": os.getpid(),
        "rank": rank,
        "world_size": _state["world_size"],
        "backend": _state["backend"],
        "torch_version": _state.get("torch_version"),
        "mode": _mode(),
        "skip": _env_int("COMMPROF_CAPTURE_SKIP", 5),
        "steps": _env_int("COMMPROF_CAPTURE_STEPS", 5),
        "window": _state["window"],
        "trace": ("trace_rank%d.json" % rank) if _state["trace_written"] else None,
        "step_ms": _step_ms(),
        "ddp_wrappers": _state["wrappers"],
        "hook": _state["hook"],
        "overrides": {
            "bucket_cap_mb": os.environ.get("COMMPROF_CAPTURE_BUCKET_CAP_MB") or None,
            "hook": os.environ.get("COMMPROF_CAPTURE_HOOK") or None,
        },
        "params": _state["params"],
        "buckets": _state["buckets"],
    }
    record.update(s)
    _write_json(os.path.join(_out_dir(), "capture", name), record)
    if rank == 0 and status == "recorded":
        params = {
            "params": [{k: p[k] for k in ("name", "shape", "dtype")} for p in _state["params"]],
            "bucket_cap_mb": s.get("bucket_cap_mb"),
            "first_bucket_mb": s.get("first_bucket_mb"),
            "hook": _state["hook"],
            "world_size": _state["world_size"],
            "backend": _state["backend"],
            "gradient_as_bucket_view": s.get("gradient_as_bucket_view"),
            "static_graph": s.get("static_graph"),
            "find_unused_parameters": s.get("find_unused_parameters"),
            "buckets": _state["buckets"],
        }
        _write_json(os.path.join(_out_dir(), "params.json"), params)


def _at_exit():
    try:
        if _state["profiler"] is not None:
            # the script ended inside the window: no full window, nothing written
            _stop_profiler(export=False)
        _write_capture()
    except Exception as e:  # never turn the user's clean exit into a failure
        sys.stderr.write("commprof capture: %s\n" % e)


def install():
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    if _TARGET in sys.modules:
        _patch(sys.modules[_TARGET])
    else:
        sys.meta_path.insert(0, _Finder())
    atexit.register(_at_exit)
