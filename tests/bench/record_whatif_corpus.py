#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Records the what-if validation corpus (tests/data/whatif_corpus/, read by
tests/bench/whatif_validation and tests/tst_whatif_corpus): Python DDP jobs, 2 ranks over gloo on
a CPU, each training every variant round-robin inside one job (tests/ddp_trace_variants.py) so
that the variants' unprofiled steps are timed under the same drift, then tracing each variant.

  - torch 1.13 (Debian 12's /usr/bin/python3, the legacy profiler, params.json beside each
    trace): every family of FAMILIES over every link of LINKS; the variants are the five caps
    with allreduce and fp16_compress at 25 MiB (bf16_compress is refused by DDP on a CPU in
    1.13 and 2.6 alike: "BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+").
  - torch 2.6 (the Debian 13 root of packaging/platform-check.sh, Kineto, record_shapes=True,
    no params.json: `trace whatif` sizes the buckets from each c10d::allreduce_'s Input Dims):
    KINETO_FAMILIES on loopback.

Links: loopback (127.0.0.1), and two network namespaces of this script's own joined by a veth
pair whose ends are shaped by tbf to 2gbit or 500mbit (as tests/bench/whatif_validation did,
rate/burst 256kb/latency 50ms). Needs root for the namespaces and the Debian 13 root. One job at
a time (the machine's 2 cores are shared); each job is retried once (Debian's 1.13 aborts a rank
now and then). Traces are gzipped as written (their JSON untouched).

The family split is fixed here, before any result was seen, and written into the manifest:
SPLIT_WHY says why.

  tests/bench/record_whatif_corpus.py [--out DIR] [--families a,b] [--links l1,l2] [--no-kineto]
      [--repeat N]

Writes DIR/<torch>/<link>/<family>/{steps.json,<variant>/trace_rank{0,1}.json.gz[,params.json]}
and DIR/manifest.json (every job: family, half, link, torch, date, load average, traced steps,
variants with their unprofiled samples and medians, files and bytes; a repetition names the job
it repeats in repeat_of). Jobs already in DIR are kept unless --redo.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
JOB = os.path.join(SRC, "tests", "ddp_trace_variants.py")
PYTHON = "/usr/bin/python3"

FAMILIES = ["mlp", "convnet", "resnet18", "mobilenet_v2", "vit", "transformer", "gpt", "embbag"]
SPLIT = {
    "develop": ["mlp", "convnet", "resnet18", "gpt"],
    "judge": ["mobilenet_v2", "vit", "transformer", "embbag"],
}
SPLIT_WHY = (
    "Fixed before any recording was read. The develop half holds every family the what-if has "
    "already been shaped on: the MLP and the convnet of the project's own validation, and the "
    "ResNet-18 and GPT jobs whose figures issue 49 quotes. The judge half holds the families "
    "nobody working on the model has seen. Each half has a CNN with BatchNorm (resnet18 / "
    "mobilenet_v2), a transformer (gpt / vit and the encoder), a dense network (mlp / "
    "transformer's classifier) and embedding-heavy gradients (gpt's embedding and head / "
    "embbag's tables), so that neither half is the easy one. Constants and rules are developed "
    "on the develop half only; the judge half is reported, never tuned to.")
LINKS = ["loopback", "2gbit", "500mbit"]
VARIANTS = "0.25:allreduce,1:allreduce,4:allreduce,10:allreduce,25:allreduce,25:fp16_compress"
KINETO_FAMILIES = ["gpt", "transformer"]
KINETO_VARIANTS = "0.25:allreduce,1:allreduce,4:allreduce,10:allreduce,25:allreduce," \
                  "25:fp16_compress"
# Timed: 3 interleaved rounds of 4 steps per variant after 2 warm-up steps; 5 traced steps.
JOB_ARGS = ["--rounds", "3", "--steps", "4", "--warmup", "2", "--traced", "5", "--gzip"]
DEBIAN13 = os.path.join(SRC, "packaging", "platform-check.sh")


def sh(*cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise SystemExit("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return p


class Hosts:
    """Two namespaces joined by veth cpl0 (169.254.88.1 and .2), each end shaped to `rate`."""

    def __init__(self, rate):
        base = "cpcorpus%d-%s" % (os.getpid(), rate)
        self.names = [base + "-a", base + "-b"]
        for n in self.names:
            sh("ip", "netns", "add", n)
            sh("ip", "-n", n, "link", "set", "lo", "up")
        sh("ip", "link", "add", "cpl0", "netns", self.names[0], "type", "veth", "peer", "name",
           "cpl0", "netns", self.names[1])
        for h, n in enumerate(self.names):
            sh("ip", "-n", n, "addr", "add", "169.254.88.%d/24" % (h + 1), "dev", "cpl0")
            sh("ip", "-n", n, "link", "set", "cpl0", "up")
            sh("tc", "-n", n, "qdisc", "add", "dev", "cpl0", "root", "tbf", "rate", rate,
               "burst", "256kb", "latency", "50ms")

    def close(self):
        for n in self.names:
            sh("ip", "netns", "del", n, check=False)


def run_job(family, out, variants, port, hosts=None, kineto=False, traced=True):
    """Both ranks of one job; True when both exited 0. Untraced: the timed steps alone."""
    args = ["--model", family, "--variants", variants] + JOB_ARGS + ([] if traced else
                                                                     ["--traced", "0"])
    procs = []
    if kineto:
        # Inside the Debian 13 root: /src is this tree, /build the root's build folder.
        tmp = os.path.join(os.path.expanduser("~/.cache/commprof/debian13/build"), "corpus_job")
        shutil.rmtree(tmp, ignore_errors=True)
        rank = ("env RANK=%d WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=%d USE_LIBUV=0 "
                "python3 /src/tests/ddp_trace_variants.py " + " ".join(args) +
                " --kineto --out /build/corpus_job")
        both = "%s & r0=$!; %s & r1=$!; wait $r0 && wait $r1" % (rank % (0, port),
                                                                  rank % (1, port))
        p = subprocess.run(["bash", DEBIAN13, "debian13", "run", "bash", "-c", both],
                           capture_output=True, text=True)
        ok = p.returncode == 0 and os.path.exists(os.path.join(tmp, "steps.json"))
        if not ok:
            sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
            return False
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(tmp, out)
        shutil.rmtree(tmp, ignore_errors=True)
        return True
    for r in range(2):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE="2", MASTER_PORT=str(port),
                   MASTER_ADDR="169.254.88.1" if hosts else "127.0.0.1")
        cmd = [PYTHON, JOB] + args + ["--out", out]
        if hosts:
            env["GLOO_SOCKET_IFNAME"] = "cpl0"
            cmd = ["ip", "netns", "exec", hosts.names[r]] + cmd
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    ok = True
    for p in procs:
        text, _ = p.communicate(timeout=1800)
        if p.returncode != 0:
            ok = False
            sys.stderr.write(text[-3000:])
    return ok


def job_entry(root, rel, family, link, started, repeat_of=None):
    d = os.path.join(root, rel)
    with open(os.path.join(d, "steps.json")) as f:
        steps = json.load(f)
    files = {}
    for dirpath, _, names in os.walk(d):
        for n in sorted(names):
            p = os.path.join(dirpath, n)
            files[os.path.relpath(p, root)] = os.path.getsize(p)
    half = [h for h, fams in SPLIT.items() if family in fams][0]
    return {
        "dir": rel, "family": family, "half": half, "link": link, "torch": steps["torch"],
        "kineto": steps.get("kineto", False), "params_json": not steps.get("kineto", False),
        "world_size": steps["world_size"], "params": steps.get("params"), "date": started,
        "load_average_1min": steps.get("load_average_1min"),
        "traced_steps": steps.get("traced_steps"), "rounds": steps.get("rounds"),
        "steps_per_round": steps.get("steps_per_round"),
        "variants": [{"label": v["label"], "bucket_cap_mb": v["bucket_cap_mb"], "hook": v["hook"],
                      "unprofiled_median_ms": statistics.median(v["unprofiled_ms"]),
                      "unprofiled_ms": v["unprofiled_ms"]} for v in steps["variants"]],
        "files": files,
        "repeat_of": repeat_of,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(SRC, "tests", "data", "whatif_corpus"))
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--links", default=",".join(LINKS))
    ap.add_argument("--no-kineto", action="store_true")
    ap.add_argument("--redo", action="store_true")
    ap.add_argument("--repeat", type=int, default=0,
                    help="also record repetition N of each torch 1.13 job, timed steps only "
                         "(<job>/repeatN/steps.json): how far the same ratios move between runs")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    manifest_path = os.path.join(a.out, "manifest.json")
    manifest = {"jobs": []}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    manifest.update({
        "description": "what-if validation corpus: Python DDP jobs, 2 ranks, gloo on a CPU, "
                       "variants trained round-robin inside one job (tests/ddp_trace_variants.py),"
                       " recorded by tests/bench/record_whatif_corpus.py",
        "families": FAMILIES, "links": LINKS, "split": SPLIT, "split_why": SPLIT_WHY,
        "caps_mb": [0.25, 1, 4, 10, 25], "hooks": ["allreduce", "fp16_compress"],
        "hooks_unavailable": {"bf16_compress": "DDP refuses it on a CPU in torch 1.13 and 2.6: "
                                               "\"BF16 all reduce communication hook required "
                                               "CUDA 11+ and NCCL 2.10+\""},
        "job_args": JOB_ARGS, "machine": {"cores": os.cpu_count(), "uname": " ".join(os.uname())},
    })
    jobs = {j["dir"]: j for j in manifest["jobs"]}
    plan = []
    for link in a.links.split(","):
        for fam in a.families.split(","):
            plan.append(("torch1.13/%s/%s" % (link, fam), fam, link, False))
            if a.repeat:
                plan.append(("torch1.13/%s/%s/repeat%d" % (link, fam, a.repeat), fam, link,
                             False))
    if not a.no_kineto:
        for fam in KINETO_FAMILIES:
            if fam in a.families.split(","):
                plan.append(("torch2.6/loopback/%s" % fam, fam, "loopback", True))
    port = 29500 + os.getpid() % 300
    hosts = {}
    try:
        for rel, fam, link, kineto in plan:
            if rel in jobs and not a.redo:
                continue
            if link != "loopback" and link not in hosts:
                hosts[link] = Hosts(link)
            out = os.path.join(a.out, rel)
            started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
            for attempt in range(2):
                shutil.rmtree(out, ignore_errors=True)
                port += 1
                print("%s: recording %s (try %d)" % (started, rel, attempt + 1), flush=True)
                if run_job(fam, out, KINETO_VARIANTS if kineto else VARIANTS, port,
                           hosts.get(link), kineto, traced="/repeat" not in rel):
                    break
            else:
                print("%s: failed twice, left out" % rel, flush=True)
                continue
            jobs[rel] = job_entry(a.out, rel, fam, link, started,
                                  rel.rsplit("/repeat", 1)[0] if "/repeat" in rel else None)
            manifest["jobs"] = [jobs[k] for k in sorted(jobs)]
            with open(manifest_path, "w") as f:
                json.dump(manifest, f, indent=1)
    finally:
        for h in hosts.values():
            h.close()
    total = sum(sum(j["files"].values()) for j in manifest["jobs"])
    print("%d jobs, %.1f MB" % (len(manifest["jobs"]), total / 1e6))


if __name__ == "__main__":
    main()
