#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bucket-cap model of `commprof recommend`, written again from its rule in docs/cli.md with
nothing but Python's standard library, to check the C++ against. It reads the rank files itself;
its numerical choices (the bisection's bounds and tolerance) are the C++ ones, so that every
figure can be compared to 1e-9.

    recommend_reference.py RESULTS GROUP_JSON

GROUP_JSON is one group of `commprof recommend --json` (its cells and its fit: the fit is the
sweep's, checked by tst_sweep, and not what this script checks). Prints, as JSON, each candidate
cap's buckets, predicted step and exposed communication, held-out step and standard error, and
the group's scale, MAPE, fastest cap, current cap, recommended cap (None inside the noise and for
hook local), saving and its uncertainty against the current cap (25 MiB, DDP's default, for a
group that ran several caps; the one it ran otherwise).
"""
import json
import os
import statistics
import sys

MIB = 1024.0 * 1024.0
STANDARD_CAPS = [0.25, 0.5, 1, 2, 4, 8, 16, 25, 32, 64]


def rank_files(cell_dir):
    names = sorted(n for n in os.listdir(cell_dir) if n.startswith("rank") and n.endswith(".json"))
    return [json.load(open(os.path.join(cell_dir, n))) for n in names]


def profile(cell_dir):
    """Ready times, compute figures and exposure of one measured cell."""
    ranks = rank_files(cell_dir)
    first = ranks[0]
    params = list(reversed(first["parameters"]))  # reverse registration order
    layout, launches, exposed, forward, optimizer = None, [], [], [], []
    for doc in ranks:
        frm = doc["record_from_iteration"]
        backward = {i["iter"]: i["backward_ms"] for i in doc["iterations"]}
        for i in doc["iterations"]:
            if i["iter"] >= frm:
                forward.append(i["forward_ms"] * 1e3)
                optimizer.append(i["optimizer_ms"] * 1e3)
        by_iter = {}
        for b in doc["buckets"]:
            by_iter.setdefault(b["iter"], []).append(b)
        for it in sorted(by_iter):
            buckets = sorted(by_iter[it], key=lambda b: b["index"])
            if it not in backward or buckets[-1]["index"] != len(buckets) - 1:
                continue
            last_end = max(b["end_ns"] for b in buckets)
            last_start = max(b["start_ns"] for b in buckets)
            start = last_end - backward[it] * 1e6
            if layout is None:
                layout = [b["nparams"] for b in buckets]
            if len(buckets) != len(layout):
                continue
            launches.append([(b["start_ns"] - start) / 1e3 for b in buckets])
            exposed.append(max(0.0, (last_end - last_start) / 1e3))
    ready, nxt, previous = [], 0, 0.0
    for k, n in enumerate(layout):
        launch = max(previous, statistics.median(l[k] for l in launches))
        members = params[nxt:nxt + n]
        total = sum(p["bytes"] for p in members)
        cumulative = 0
        for p in members:
            cumulative += p["bytes"]
            ready.append((p["bytes"], p["shape"], previous + cumulative / total * (launch - previous)))
        nxt += n
        previous = launch
    return {"cap": first["config"]["bucket_cap_mb"], "ready": ready, "compute_end": previous,
            "exposed": statistics.median(exposed), "forward": statistics.median(forward),
            "optimizer": statistics.median(optimizer),
            "step": statistics.median(i["step_ms"] for i in first["iterations"]
                                      if i["iter"] >= first["record_from_iteration"]),
            "steps": [i["step_ms"] for i in first["iterations"]
                      if i["iter"] >= first["record_from_iteration"]]}


def standard_error(values):
    """Sample standard deviation over sqrt(n); None from fewer than two values."""
    if len(values) < 2:
        return None
    return statistics.stdev(values) / len(values) ** 0.5


def advice(group, candidates, fastest, mape, held_out, measured_caps):
    """The saving at the fastest cap against the current one and its uncertainty (docs/cli.md):
    both measured, the standard errors; else both predicted, with the model's error beside."""
    # A cap the user named (--current-cap-mb) is an input, passed through; else worked out here.
    if group.get("current_from") == "named":
        current = group["current_bucket_cap_mb"]
    else:
        current = measured_caps[0] if len(measured_caps) == 1 else 25.0
    if group["hook"] == "local":
        return {"current": current, "recommended": None, "saving": None, "uncertainty": None}
    cur = next(c for c in candidates if c["bucket_cap_mb"] == current)
    best = next(c for c in candidates if c["bucket_cap_mb"] == fastest)
    se = (cur["se"] or 0) ** 2 + (best["se"] or 0) ** 2
    if cur["measured_step_ms"] and best["measured_step_ms"]:
        saving = cur["measured_step_ms"] - best["measured_step_ms"]
    else:
        m = mape if held_out else 0.10
        saving = cur["predicted_step_ms"] - best["predicted_step_ms"]
        se += (m * cur["predicted_step_ms"]) ** 2 + (m * best["predicted_step_ms"]) ** 2
    uncertainty = se ** 0.5
    recommended = fastest if (cur is best or saving > uncertainty) else None
    return {"current": current, "recommended": recommended, "saving": saving,
            "uncertainty": uncertainty}


def wire(hook, members, rank):
    """(collectives, bytes) the hook sends for one bucket."""
    total = sum(m[0] for m in members)
    if hook == "local":
        return 0, 0.0
    if hook in ("fp16_compress", "bf16_compress"):
        return 1, total / 2
    if hook != "powersgd":
        return 1, total
    plain, factors = 0.0, 0.0
    for nbytes, shape, _ in members:
        numel = 1.0
        for d in shape:
            numel *= d
        if not shape:
            numel = nbytes / 4
        element = nbytes / numel if numel > 0 else 4
        n = shape[0] if shape else numel
        m = numel / n if n > 0 else 0
        r = min(n, m, rank)
        if (n + m) * r * 2 < n * m:
            factors += (n + m) * r * element
        else:
            plain += nbytes
    return 3, plain + factors  # uncompressed, P, Q: the three all-reduces, whatever they hold


def simulate(ready, first_mb, cap_mb, hook, rank, alpha, beta, scale, compute_end):
    buckets, open_, size = [], [], 0.0
    for p in ready:
        open_.append(p)
        size += p[0]
        if size >= (first_mb if not buckets else cap_mb) * MIB:
            buckets.append(open_)
            open_, size = [], 0.0
    if open_:
        buckets.append(open_)
    previous_ready = previous_end = 0.0
    for b in buckets:
        ready_at = max(max(p[2] for p in b), previous_ready)
        start = max(ready_at, previous_end)
        collectives, nbytes = wire(hook, b, rank)
        previous_end = start + (max(0.0, scale * (alpha * collectives + beta * nbytes))
                                if collectives else 0)
        previous_ready = ready_at
    compute_end = max(compute_end, previous_ready)
    return len(buckets), max(0.0, previous_end - compute_end), compute_end


def calibrate(p, g):
    args = (g["first_bucket_mb"], p["cap"], g["hook"], g["rank"], g["alpha_us"], g["beta_us_per_byte"])
    exposed = lambda s: simulate(p["ready"], *args, s, p["compute_end"])[1]
    if exposed(1e5) <= 0:
        return 1.0
    target = max(0.0, p["exposed"])
    lo, hi = 0.0, 1.0
    while exposed(hi) <= target and hi < 1e5:
        hi *= 2
    for _ in range(60):
        if hi - lo <= 1e-6 * hi:
            break
        mid = (lo + hi) / 2
        if exposed(mid) <= target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def predict(reference, g, cap):
    finest = min(reference, key=lambda p: p["cap"])
    end = statistics.median(p["compute_end"] for p in reference)
    stretch = end / finest["compute_end"] if finest["compute_end"] > 0 else 1.0
    ready = [(b, s, t * stretch) for b, s, t in finest["ready"]]
    scale = statistics.median(p["scale"] for p in reference)
    buckets, exposed, compute_end = simulate(ready, g["first_bucket_mb"], cap, g["hook"], g["rank"],
                                             g["alpha_us"], g["beta_us_per_byte"], scale, end)
    step = (statistics.median(p["forward"] for p in reference) + compute_end + exposed +
            statistics.median(p["optimizer"] for p in reference))
    return buckets, step / 1e3, exposed / 1e3


def main():
    results, group = sys.argv[1], json.load(open(sys.argv[2]))
    every = [profile(os.path.join(results, "cells", c)) for c in group["cells"]]
    # Nothing exposed: nothing to calibrate against (still measured).
    profiles = [p for p in every if group["hook"] == "local" or p["exposed"] > 0]
    rank = 1
    first = rank_files(os.path.join(results, "cells", group["cells"][0]))[0]
    rank = first.get("powersgd", {}).get("matrix_approximation_rank", 1)
    group["rank"] = rank
    for p in profiles:
        p["scale"] = calibrate(p, group)
    measured_caps = sorted({p["cap"] for p in every})
    candidates = []
    for cap in sorted(set(STANDARD_CAPS) | set(measured_caps)):
        buckets, step, exposed = predict(profiles, group, cap)
        c = {"bucket_cap_mb": cap, "buckets": buckets, "predicted_step_ms": step,
             "predicted_exposed_ms": exposed, "held_out_step_ms": None, "measured_step_ms": None}
        steps = [p["step"] for p in every if p["cap"] == cap and p["step"] > 0]
        c["se"] = None
        if steps:
            c["measured_step_ms"] = statistics.median(steps)
            first_run = next(p for p in every if p["cap"] == cap and p["step"] > 0)
            c["se"] = standard_error(steps) if len(steps) >= 2 else standard_error(
                first_run["steps"])
            others = [p for p in profiles if p["cap"] != cap]
            if others:
                c["held_out_step_ms"] = predict(others, group, cap)[1]
        candidates.append(c)
    errors = [abs(((c["held_out_step_ms"] or c["predicted_step_ms"]) - c["measured_step_ms"]) /
                  c["measured_step_ms"]) for c in candidates if c["measured_step_ms"]]
    mape = sum(errors) / len(errors)
    measured = [c for c in candidates if c["measured_step_ms"]]
    held_out = all(c["held_out_step_ms"] is not None for c in measured)
    best = min(measured, key=lambda c: c["measured_step_ms"])
    unmeasured = [c for c in candidates if not c["measured_step_ms"]]
    recommended = best["bucket_cap_mb"]
    margin = mape if held_out else 0.10
    if unmeasured:
        fastest = min(unmeasured, key=lambda c: c["predicted_step_ms"])
        if fastest["predicted_step_ms"] < best["predicted_step_ms"] * (1 - margin):
            recommended = fastest["bucket_cap_mb"]
    a = advice(group, candidates, recommended, mape, held_out, measured_caps)
    print(json.dumps({"scale": statistics.median(p["scale"] for p in profiles), "mape": mape,
                      "held_out": held_out,
                      "fastest_bucket_cap_mb": recommended, "candidates": candidates,
                      "current_bucket_cap_mb": a["current"],
                      "recommended_bucket_cap_mb": a["recommended"],
                      "saving_ms": a["saving"], "uncertainty_ms": a["uncertainty"]}))


if __name__ == "__main__":
    main()
