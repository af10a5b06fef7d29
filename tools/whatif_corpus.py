#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Replays every trace of the shared fixtures and their corpus with `commprof trace whatif` and
prints a Markdown table: the recorded median step, the replayed step and its error, or the
reason the trace was not replayed (commprof's own message). docs/whatif-corpus.md holds its
output; rerun it when the step model or the importer changes:

    tools/whatif_corpus.py build/bin/commprof ../shared/fixtures/traces > docs/whatif-corpus.md

The run's wall time grows with the corpus (each trace is read once, 44 of them in a minute or
two here).
"""
import json
import os
import subprocess
import sys

HEADER = """# What-if replay over the trace fixtures and their corpus

Every trace of `../shared/fixtures/traces` (and its `corpus/`) given alone to `commprof trace
whatif`: the recorded median step, the recorded scenario replayed by the step model, and the
replay's error against the recording; or, for a trace that cannot be replayed, the reason
commprof gives. Pairs of ranks of one job are also given together where the fixtures hold both.
Made by `tools/whatif_corpus.py` ({when}); the goal is a replay within 5 %.

| trace | result | recorded step (ms) | replayed (ms) | error |
|---|---|---|---|---|
"""


def replay(commprof, files):
    try:
        p = subprocess.run([commprof, "trace", "whatif", *files, "--json"], capture_output=True,
                           text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "did not finish in 300 s"
    if p.returncode != 0:
        lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
        why = lines[-1] if lines else "exit %d" % p.returncode
        # The row names the file already: keep what commprof says about it.
        for prefix in ["commprof: "] + ["%s: " % f for f in files]:
            if why.startswith(prefix):
                why = why[len(prefix):]
        return None, why
    rec = json.loads(p.stdout)["recorded"]
    return rec, None


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    commprof, root = sys.argv[1], sys.argv[2]
    traces = []
    for d, _, names in os.walk(root):
        for n in sorted(names):
            if n.endswith((".json", ".json.gz")) and n != "hta_reference.json":
                traces.append(os.path.join(d, n))
    traces.sort()
    groups = [[t] for t in traces]
    legacy = [t for t in traces if os.path.basename(t).startswith("legacy_gloo_ddp_rank")]
    # The legacy export records no shapes: the parameters come from the test data's file.
    here = os.path.dirname(os.path.abspath(__file__))
    params = os.path.join(here, "..", "tests", "data", "legacy_gloo_ddp_params.json")
    if len(legacy) == 2:
        groups.insert(0, legacy + (["--params", params] if os.path.exists(params) else []))
    import datetime
    out = [HEADER.format(when=datetime.date.today().isoformat())]
    replayed = 0
    for g in groups:
        names = ", ".join("`%s`" % os.path.relpath(f, root) for f in g if not f.startswith("--")
                          and not f.endswith("params.json"))
        rec, why = replay(commprof, g)
        if rec is None:
            out.append("| %s | not replayed: %s | | | |\n" % (names, cell(why)))
            continue
        replayed += 1
        step, rep = rec.get("step_ms"), rec.get("replayed_step_ms")
        err = (rep - step) / step * 100 if step and rep is not None else None
        out.append("| %s | replayed | %.2f | %.2f | %s |\n" %
                   (names, step, rep, "%+.1f %%" % err if err is not None else ""))
    out.append("\n%d of %d inputs replayed.\n" % (replayed, len(groups)))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
