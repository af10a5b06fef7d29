#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tables of docs/measurement.md from one results folder, read from `commprof cells --json`.

    build/bin/commprof run configs/experiments/smoke.yaml --out /tmp/m/smoke
    python3 tests/bench/measurement_tables.py /tmp/m/smoke [build/bin/commprof]
"""
import json
import subprocess
import sys


def cells(results, commprof):
    out = subprocess.run([commprof, "cells", results, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["cells"]


def size(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"


def gbps(v):
    return "n/a" if v is None else f"{v:.2f} GB/s"


def main():
    results = sys.argv[1]
    commprof = sys.argv[2] if len(sys.argv) > 2 else "build/bin/commprof"
    all_cells = cells(results, commprof)
    sweeps = [c for c in all_cells if c.get("kind") == "sweep" and c["status"] == "complete"]
    ddp = [c for c in all_cells if c.get("kind") != "sweep"]

    print("| kind | world size | busbw at 64 KiB | at 1 MiB | at 16 MiB | peak busbw (size) |")
    print("|---|---|---|---|---|---|")
    for c in sweeps:
        for s in c["sweep"]:
            pts = {p["bytes"]: p for p in s["points"]}
            if s.get("unsupported") or s["world_size"] < 2:
                continue

            def near(b):
                best = min(pts, key=lambda x: abs(x - b)) if pts else None
                return gbps(pts[best]["busbw_GBps"]) if best is not None else "n/a"
            peak = max(s["points"], key=lambda p: p["busbw_GBps"] or 0)
            print(f"| {s['kind']} | {s['world_size']} | {near(65536)} | {near(1 << 20)} | "
                  f"{near(1 << 24)} | {gbps(peak['busbw_GBps'])} ({size(peak['bytes'])}) |")
    print()
    print("| kind | world size | alpha | beta (1/beta) | R^2 | sizes fitted |")
    print("|---|---|---|---|---|---|")
    for c in sweeps:
        for s in c["sweep"]:
            f = s["fit"]
            if s.get("unsupported"):
                print(f"| {s['kind']} | {s['world_size']} | not measured: {s['unsupported']} | | | |")
            elif f["refused"]:
                print(f"| {s['kind']} | {s['world_size']} | refused: {f['reason']} | | | |")
            else:
                print(f"| {s['kind']} | {s['world_size']} | {f['alpha_us']:.1f} us | "
                      f"{f['beta_us_per_byte']:.3g} us/B ({f['asymptotic_GBps']:.2f} GB/s) | "
                      f"{f['r_squared']:.3f} | {size(f['from_bytes'])} .. {size(f['to_bytes'])} |")
    print()
    print("| cell | hook | backend | backend / hook | buckets matched | verdict |")
    print("|---|---|---|---|---|---|")
    for c in ddp:
        ratio = c.get("hook_trace_agreement")
        verdict = ("flagged: " + c["agreement_reason"]) if c.get("agreement_flagged") else (
            "not judged (world size 1)" if c["world_size"] == 1 else "agree within 10 %")
        print(f"| {c['id']} | {c['hook_total_ms'] or 0:.1f} ms | {c['backend_total_ms'] or 0:.1f} ms"
              f" | {'n/a' if ratio is None else f'{ratio:.3f}'} | {c['buckets_matched']} of "
              f"{c['buckets_compared']} | {verdict} |")
    print()
    for c in ddp:
        p = c.get("prediction")
        if not p:
            print(f"{c['id']}: not predicted: {c.get('prediction_note')}")
            continue
        print(f"{c['id']} against {c['sweep_cell']}, {p['steps']} traced steps, {p['host_cpus']} cores:")
        print("| | sweep alone | CPU share | predicted | measured (own time, median) | waited | "
              "DDP reached of the sweep's bandwidth |")
        print("|---|---|---|---|---|---|---|")
        for b in p["buckets"]:
            print(f"| bucket {b['index']}, {b['bytes']:,.0f} B | {b['sweep_us'] / 1000:.2f} ms | "
                  f"{b['cpu_share'] * 100:.0f} % | {b['predicted_us'] / 1000:.2f} ms | "
                  f"{b['measured_us'] / 1000:.2f} ms | {b['wait_us'] / 1000:.2f} ms | "
                  f"{b['fraction_of_sweep_bandwidth'] * 100:.1f} % |")
        print(f"| per step | {p['sweep_ms_per_step']:.2f} ms | | {p['predicted_ms_per_step']:.2f} ms"
              f" | {p['measured_ms_per_step']:.2f} ms (range {p['measured_min_ms']:.2f} .. "
              f"{p['measured_max_ms']:.2f}) | {p['wait_ms_per_step']:.2f} ms | off by "
              f"{p['off_by'] * 100:.1f} %, {'within' if p['within_range'] else 'outside'} the range |")


if __name__ == "__main__":
    main()
