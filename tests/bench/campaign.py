#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Replays the fault-and-abuse campaigns of issues 20, 33 and 41 against the real binaries.

    tests/bench/campaign.py [--bin build/bin] [--only TEXT] [--list]

Each case plays a hostile user or a fault (a rank that cannot start, a planted link, a full
disk, a foreign client on a rank's store, ...) and judges the outcome: "clean" means a clear
result (the documented exit code and a message naming what was wrong, nothing written outside
the results folder, nothing lost, no stray process, bounded time and memory); anything else is
"misbehaved", with what was seen. It prints one line per case and, last,
"tried N / clean C / misbehaved M". docs/reliability.md records the figures.

Run as root for the disk-full case on a tmpfs (otherwise it uses a file-size limit). It needs
nothing but Python's standard library and the built binaries, and it is not part of ctest:
the pass/fail tests of each item live in tests/tst_*.cpp.
"""
import argparse
import contextlib
import glob
import json
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port  # noqa: E402

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GIB = 1 << 30


def matrix_text(name, iterations, warmup, timeout_s, world_size):
    """One cell of a 2e5-parameter MLP over gloo on the CPU."""
    return ("name: %s\ndefaults: {iterations: %d, warmup: %d, batch_size: 8, timeout_s: %d}\n"
            "models: [{name: tiny, params: 2e5}]\nlayers: [{name: gloo_cpu}]\n"
            "world_sizes: [%d]\n" % (name, iterations, warmup, timeout_s, world_size))


QUICK = matrix_text("quick", 6, 1, 120, 1)  # a ws1 cell of a second or two
QUICK_CELL = "tiny_gloo_cpu_ws1_r0"
LONG = matrix_text("long", 400, 2, 300, 2)  # a ws2 cell that runs for a while
LONG_CELL = "tiny_gloo_cpu_ws2_r0"
FORMULA = '=HYPERLINK("http://example.com","x")'
RESULTS_MATRIX = """name: abuse
defaults: {iterations: 12, warmup: 2, batch_size: 8, timeout_s: 300,
           trace: {enabled: true, first_step: 4, steps: 4}}
models: [{name: tiny, params: 2e5}, {name: '%s', params: 2e5}]
layers: [{name: gloo_cpu}]
world_sizes: [1, 2]
""" % FORMULA
TINY2 = "tiny_gloo_cpu_ws2_r0"
TINY1 = "tiny_gloo_cpu_ws1_r0"
FORMULA2 = "hyperlink_http_example_com_x_gloo_cpu_ws2_r0"


class Misbehaved(Exception):
    pass


def expect(condition, what):
    if not condition:
        raise Misbehaved(what)


# ---------------------------------------------------------------------------------------------
# Running things


class Result:
    def __init__(self, code, out, err, secs, rss_kb, timed_out):
        self.code, self.out, self.err = code, out, err
        self.secs, self.rss_kb, self.timed_out = secs, rss_kb, timed_out

    @property
    def text(self):
        return self.err.decode(errors="replace") + self.out.decode(errors="replace")

    def describe(self):
        if self.timed_out:
            return "still running after %.0f s" % self.secs
        if self.code < 0:
            return "killed by signal %d" % -self.code
        return "exit %d: %s" % (self.code, self.text.strip().splitlines()[-1:] or "")


# No case may take the machine's memory: every process runs under this address-space limit
# (a build that reads /dev/zero to the end fails here with bad_alloc instead).
DEFAULT_AS = 8 * GIB


def run(args, env=None, cwd=None, timeout=120, limit_as=DEFAULT_AS, stdin=None):
    """Runs ARGS to completion (or kills its process group at the timeout), with its peak RSS."""
    def limits():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
    start = time.time()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         env=dict(os.environ, **(env or {})), cwd=cwd, preexec_fn=limits,
                         start_new_session=True)
    chunks = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda f=f, k=k: chunks[k].append(f.read()), daemon=True)
               for f, k in ((p.stdout, "out"), (p.stderr, "err"))]
    for t in readers:
        t.start()
    timed_out = False
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.time() - start > timeout:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(p.pid, 0)
            break
        time.sleep(0.02)
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join(5)
    return Result(p.returncode, b"".join(chunks["out"]), b"".join(chunks["err"]),
                  time.time() - start, usage.ru_maxrss, timed_out)


class Background:
    """A process whose stdout JSON lines are collected as they come."""

    def __init__(self, args, env=None, cwd=None):
        self.p = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            env=dict(os.environ, **(env or {})), cwd=cwd,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (DEFAULT_AS, DEFAULT_AS)))
        self.events, self.err = [], []
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=lambda: self.err.append(self.p.stderr.read()), daemon=True).start()

    def _read_out(self):
        for line in self.p.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass

    def wait_for(self, pred, timeout=90):
        end = time.time() + timeout
        while time.time() < end:
            if any(pred(e) for e in list(self.events)):
                return True
            if self.p.poll() is not None:
                return any(pred(e) for e in list(self.events))
            time.sleep(0.05)
        return False

    def iteration(self, cell, at_least):
        return self.wait_for(lambda e: e.get("cell") == cell and e.get("event") == "iteration"
                             and e.get("iter", -1) >= at_least)

    def finish(self, timeout=120):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None

    def stderr(self):
        time.sleep(0.1)
        return b"".join(self.err).decode(errors="replace")


@contextlib.contextmanager
def running(c, name, matrix=LONG, iteration=3):
    """`commprof run` of MATRIX with its first cell (LONG_CELL) past ITERATION; what is still
    running afterwards is stopped with SIGTERM."""
    d = c.tmp(name)
    out = d + "/r"
    run_ = Background([c.commprof, "run", write(d + "/m.yaml", matrix), "--out", out,
                       "--json-progress"])
    try:
        expect(run_.iteration(LONG_CELL, iteration), "the cell never ran")
        yield d, out, run_
    finally:
        if run_.p.poll() is None:
            run_.p.send_signal(signal.SIGTERM)
            run_.finish(60)


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pid_records(out):
    records = []
    for path in glob.glob(os.path.join(out, ".pids", "*.pid")):
        try:
            parts = open(path).read().split()
            records.append((int(parts[0]), int(parts[1])))
        except (OSError, ValueError, IndexError):
            pass
    return records


def start_time(pid):
    try:
        stat = open("/proc/%d/stat" % pid).read()
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2:].split()
    return 0 if fields[0] == "Z" else int(fields[19])


def alive(record):
    pid, started = record
    return start_time(pid) == started


def environ(pid):
    try:
        return dict(e.split("=", 1) for e in open("/proc/%d/environ" % pid).read().split("\0")
                    if "=" in e)
    except OSError:
        return {}


def snapshot(root):
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            files[os.path.relpath(path, root)] = (
                "<dir>" if os.path.isdir(path) else open(path, "rb").read())
    return files


def rss_kb(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def threads(pid):
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except OSError:
        return 0


# ---------------------------------------------------------------------------------------------
# The campaign


class Campaign:
    def __init__(self, bindir, work):
        self.bin = bindir
        self.work = work
        self.commprof = os.path.join(bindir, "commprof")
        self.rank = os.path.join(bindir, "commprof-rank")
        self.workbench = os.path.join(bindir, "commprof-workbench")
        self._results = None
        self._count = 0

    def tmp(self, name):
        self._count += 1
        path = os.path.join(self.work, "%03d_%s" % (self._count, name))
        os.makedirs(path)
        return path

    def cli(self, *args, **kw):
        return run([self.commprof] + list(args), **kw)

    def results(self):
        """A real run of RESULTS_MATRIX (4 cells, traced), made once; cases alter copies."""
        if self._results is None:
            d = self.tmp("results")
            r = self.cli("run", write(d + "/m.yaml", RESULTS_MATRIX), "--out", d + "/r",
                         timeout=600)
            if r.code != 0:
                raise RuntimeError("the reference run failed: " + r.describe())
            self._results = d + "/r"
        return self._results

    def results_copy(self, name):
        d = self.tmp(name) + "/r"
        shutil.copytree(self.results(), d, symlinks=True)
        for db in glob.glob(d + "/results.sqlite*"):
            os.remove(db)
        return d

    def cells(self, results, *extra, env=None):
        r = self.cli("cells", results, "--json", *extra, env=env, timeout=120)
        expect(r.code == 0, "cells: " + r.describe())
        return {c["id"]: c for c in json.loads(r.out)["cells"]}

    def refused(self, r, code=2, text=None, located=None):
        """A clean refusal: the documented exit code and a message (at file:line:col)."""
        expect(not r.timed_out and r.code >= 0, r.describe())
        expect(r.code == code, "expected exit %d, got %s" % (code, r.describe()))
        if text:
            expect(re.search(text, r.text), "message lacks /%s/: %s" % (text, r.text.strip()[-300:]))
        if located:
            expect(re.search(re.escape(located) + r":\d+:\d+: ", r.text),
                   "no file:line:col in: " + r.text.strip()[-300:])


CASES = []


def case(item, name):
    def register(fn):
        CASES.append((item, name, fn))
        return fn
    return register


# --- 1: a rank that cannot start -------------------------------------------------------------

@case(1, "COMMPROF_RANK names a missing program")
def _(c):
    d = c.tmp("rank_missing")
    r = c.cli("run", write(d + "/m.yaml", QUICK), "--out", d + "/r",
              env={"COMMPROF_RANK": "/nonexistent"})
    c.refused(r, text="/nonexistent")


@case(1, "COMMPROF_RANK names a file that is not executable")
def _(c):
    d = c.tmp("rank_plain")
    plain = write(d + "/plain", "not a program\n")
    c.refused(c.cli("run", write(d + "/m.yaml", QUICK), "--out", d + "/r",
                    env={"COMMPROF_RANK": plain}), text="not executable")


@case(1, "--out names a file")
def _(c):
    d = c.tmp("out_file")
    c.refused(c.cli("run", write(d + "/m.yaml", QUICK), "--out", write(d + "/plain", "x")),
              text="not a directory")


@case(1, "--out is read-only")
def _(c):
    d = c.tmp("out_ro")
    c.refused(c.cli("run", write(d + "/m.yaml", QUICK), "--out", "/proc/commprof-results"),
              text="cannot create")


@case(1, "diff --arms with a rank that cannot start")
def _(c):
    d = c.tmp("arms_missing")
    r = c.cli("diff", "--arms", "--out", d + "/arms", "--change", "--seed 1",
              env={"COMMPROF_RANK": "/nonexistent"})
    expect(r.code == 1 and "failed to start" in r.text, r.describe())


@case(1, "probe with a rank that cannot start")
def _(c):
    d = c.tmp("probe_missing")
    r = c.cli("probe", "--json", "--results", d, "--ports", str(free_port()),
              env={"COMMPROF_RANK": "/nonexistent"})
    expect(r.code == 1 and "not found" in r.text, r.describe())


# --- 2: keys that are not names --------------------------------------------------------------

NON_SCALAR = {
    "complex key": "name: t\n? [a, b]\n: 1\n",
    "flow list key": "{[x]: 1}\n",
    "mapping key in a model": "name: t\nmodels: [{name: m, params: 1e6, {a: b}: 1}]\n"
                              "layers: [{name: gloo_cpu}]\nworld_sizes: [1]\n",
}
for _label, _text in NON_SCALAR.items():
    @case(2, "plan: " + _label)
    def _(c, text=_text):
        d = c.tmp("key")
        path = write(d + "/k.yaml", text)
        c.refused(c.cli("plan", path), located=path)


@case(2, "run: complex key")
def _(c):
    d = c.tmp("key_run")
    path = write(d + "/k.yaml", NON_SCALAR["complex key"])
    c.refused(c.cli("run", path, "--out", d + "/r"), located=path)
    expect(not os.path.exists(d + "/r"), "run wrote a results folder for a bad matrix")


@case(2, "plan --profile: a list as a key")
def _(c):
    d = c.tmp("key_profile")
    profile = write(d + "/p.yaml", "name: p\n[a]: 1\n")
    c.refused(c.cli("plan", os.path.join(SOURCE, "configs/experiments/smoke.yaml"),
                    "--profile", profile), located=profile)


@case(2, "workbench designer: a list as a key")
def _(c):
    d = c.tmp("key_workbench")
    path = write(d + "/k.yaml", NON_SCALAR["flow list key"])
    r = run([c.workbench, "--matrix", path, "--screenshot", d + "/shots"],
            env={"QT_QPA_PLATFORM": "offscreen"}, timeout=60)
    expect(r.code == 0, r.describe())


# --- 3: unbounded reads ----------------------------------------------------------------------

def big_matrix(path, size):
    with open(path, "w") as f:
        f.write("name: big\nlayers: [{name: gloo_cpu}]\nworld_sizes: [1]\nmodels:\n")
        i = 0
        while f.tell() < size:
            f.write("".join("  - {name: m%d, params: 1e5}\n" % j for j in range(i, i + 10000)))
            i += 10000
    return path


@case(3, "a 50 MB matrix")
def _(c):
    d = c.tmp("matrix_50mb")
    r = c.cli("plan", big_matrix(d + "/big.yaml", 50 << 20), timeout=120)
    c.refused(r, text="COMMPROF_MAX_MATRIX_BYTES")
    expect(r.secs < 30 and r.rss_kb < 512 * 1024,
           "%.1f s, %d MB" % (r.secs, r.rss_kb // 1024))


@case(3, "a 300-million-cell matrix")
def _(c):
    d = c.tmp("matrix_cells")
    models = "".join("  - {name: m%d, params: 1e5}\n" % i for i in range(100))
    path = write(d + "/cells.yaml",
                 "name: many\nrepeats: 1000\nmodels:\n%slayers: [{name: gloo_cpu}, {name: "
                 "gloo_cuda}, {name: nccl}]\nworld_sizes: [%s]\n"
                 % (models, ", ".join(str(i) for i in range(1, 1001))))
    r = c.cli("plan", path, timeout=120)
    c.refused(r, text="COMMPROF_MAX_CELLS")
    expect(r.secs < 30 and r.rss_kb < 512 * 1024, "%.1f s, %d MB" % (r.secs, r.rss_kb // 1024))


@case(3, "the matrix is /dev/zero")
def _(c):
    c.refused(c.cli("plan", "/dev/zero", timeout=60), text="not a regular file")


@case(3, "the matrix is a FIFO")
def _(c):
    d = c.tmp("matrix_fifo")
    os.mkfifo(d + "/m.yaml")
    c.refused(c.cli("plan", d + "/m.yaml", timeout=30), text="not a regular file")


_BOMB = {}


def gzip_bomb(c):
    """20 MB of gzip that inflates to 20 GiB of zeros (made once). After a full flush deflate
    writes the same bytes for the same block, so the block is compressed once and repeated."""
    if "path" not in _BOMB:
        path = os.path.join(c.tmp("bomb"), "trace_rank0.json.gz")
        prefix, block, copies = b'{"traceEvents":[', b"\0" * (64 << 20), (20 * GIB) // (64 << 20)
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        head = z.compress(prefix) + z.flush(zlib.Z_FULL_FLUSH)
        body = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
        crc = zlib.crc32(prefix)
        for _ in range(copies):
            crc = zlib.crc32(block, crc)
        with open(path, "wb") as f:
            f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + head)
            for _ in range(copies):
                f.write(body)
            f.write(z.flush() + struct.pack("<II", crc, (len(prefix) + copies * len(block)) & 0xFFFFFFFF))
        _BOMB["path"] = path
    return _BOMB["path"]


@case(3, "trace summarize: a gzip bomb (20 GiB inflated) [trace branch]")
def _(c):
    r = c.cli("trace", "summarize", gzip_bomb(c), "--json", timeout=300, limit_as=6 * GIB)
    c.refused(r, text="limit")
    expect(r.rss_kb < 4 * 1024 * 1024, "peak RSS %d MB" % (r.rss_kb // 1024))


@case(3, "trace summarize: a directory [trace branch]")
def _(c):
    d = c.tmp("trace_dir")
    r = c.cli("trace", "summarize", d, timeout=60, limit_as=6 * GIB)
    c.refused(r, text=re.escape(d))
    expect("bad_alloc" not in r.text, r.text.strip())


def planted_in_cell(c, name, file, plant):
    """A copy of the reference results with TINY2's FILE replaced by what PLANT makes there."""
    d = c.results_copy(name)
    path = d + "/cells/%s/%s" % (TINY2, file)
    os.remove(path)
    plant(path)
    return d


def zero(path):
    os.symlink("/dev/zero", path)


@case(3, "rank1.json is a link to /dev/zero: cells")
def _(c):
    cell = c.cells(planted_in_cell(c, "rank_zero", "rank1.json", zero))[TINY2]
    expect(cell["status"] == "incomplete" and "symbolic link" in " ".join(cell["reasons"]),
           json.dumps(cell["reasons"]))


for _label, _plant in (("a link to /dev/zero", zero), ("a FIFO", os.mkfifo)):
    @case(3, "rank1.json is %s: calibrate" % _label)
    def _(c, plant=_plant):
        r = c.cli("calibrate", planted_in_cell(c, "rank_cal", "rank1.json", plant), "--json",
                  timeout=60)
        expect(r.code in (0, 1) and not r.timed_out, r.describe())


@case(3, "trace_rank0.json.gz is a link to /dev/zero: cells")
def _(c):
    cell = c.cells(planted_in_cell(c, "trace_zero", "trace_rank0.json.gz", zero))[TINY2]
    expect(cell["status"] == "incomplete", json.dumps(cell["reasons"]))


# --- 4: the rendezvous store -----------------------------------------------------------------

def frame(body):
    return struct.pack("<I", len(body)) + body


def field(data):
    return struct.pack("<I", len(data)) + data


class WaitingRank:
    """A real rank 0 of a world of 2 whose peer never comes: its store serves until its
    rendezvous timeout, then it must exit 3. It runs under an address-space limit, so a store
    that allocates what a client asks for fails here instead of taking the machine's memory."""

    def __init__(self, c, timeout_s=20):
        self.port = free_port()
        self.timeout_s = timeout_s
        d = c.tmp("store")
        baseline = 6 * GIB
        self.p = subprocess.Popen(
            [c.rank, "--params", "2e4", "--out", d, "--rendezvous-timeout-s", str(timeout_s)],
            env=dict(os.environ, RANK="0", WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                     MASTER_PORT=str(self.port), COMMPROF_STORE_TOKEN="%032x" % 0x5eed,
                     COMMPROF_RUN_ID="campaign"),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (baseline, baseline)))
        self.started = time.time()
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        time.sleep(0.3)
        self.rss0 = rss_kb(self.p.pid)

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port), 2)
        s.settimeout(2)
        return s

    def end(self):
        """The exit code, or None when it outlived its own deadline by 20 s."""
        try:
            return self.p.wait(max(1, self.timeout_s + 20 - (time.time() - self.started)))
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None


@case(4, "store: a Get of zero keys [platform branch]")
def _(c):
    rank = WaitingRank(c)
    s = rank.connect()
    try:
        s.sendall(frame(b"g" + struct.pack("<II", 1000, 0)))
        s.recv(64)
    except OSError:
        pass
    code = rank.end()
    expect(code is not None and code >= 0, "rank 0: %s" % (
        "hung" if code is None else "killed by signal %d" % -code))


@case(4, "store: a length header of 0xFFFFFFFF [platform branch]")
def _(c):
    rank = WaitingRank(c)
    s = rank.connect()
    s.sendall(struct.pack("<I", 0xFFFFFFFF) + b"g" * 4096)
    time.sleep(2)
    grown = rss_kb(rank.p.pid) - rank.rss0
    code = rank.end()
    expect(code is not None and code >= 0 and grown < 256 * 1024,
           "rank 0 grew %d MB, then %s" % (grown // 1024, "hung" if code is None else
                                          "exit %d" % code))


@case(4, "store: a Wait of 2^32 ms [platform branch]")
def _(c):
    rank = WaitingRank(c)
    s = rank.connect()
    s.sendall(frame(b"w" + struct.pack("<II", 0xFFFFFFFF, 1) + field(b"never")))
    code = rank.end()
    expect(code is not None, "rank 0 did not exit by its deadline")


@case(4, "store: 2,000 connections [platform branch]")
def _(c):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    rank = WaitingRank(c)
    sockets = []
    for _ in range(2000):
        try:
            sockets.append(socket.create_connection(("127.0.0.1", rank.port), 1))
        except OSError:
            break
    time.sleep(1)
    n = threads(rank.p.pid)
    for s in sockets:
        s.close()
    code = rank.end()
    expect(code is not None and code >= 0 and n < 200,
           "%d threads for %d connections, then %s" % (
               n, len(sockets), "hung" if code is None else "exit %d" % code))


@case(4, "store: a foreign client sets a key without the token [platform branch]")
def _(c):
    rank = WaitingRank(c)
    s = rank.connect()
    reply = b""
    try:
        s.sendall(frame(b"s" + field(b"rank_1_arrived") + field(b"1")))
        reply = s.recv(64)
    except OSError:
        pass
    rank.end()
    expect(reply[4:5] != b"1", "the store accepted a Set from a client without the token")


@case(4, "runner: every rank gets its cell's token and the run id")
def _(c):
    with running(c, "token", iteration=2) as (d, out, run_):
        envs = [environ(pid) for pid, _ in pid_records(out)]
    tokens = {e.get("COMMPROF_STORE_TOKEN", "") for e in envs}
    ids = {e.get("COMMPROF_RUN_ID", "") for e in envs}
    token = next(iter(tokens))
    expect(len(envs) == 2 and len(tokens) == 1 and re.fullmatch("[0-9a-f]{32,}", token),
           "tokens seen: %s" % sorted(tokens))
    expect(len(ids) == 1 and (read_json(out + "/run.json") or {}).get("run_id") in ids,
           "run ids seen: %s" % sorted(ids))


# --- 5: the progress pipe and signals --------------------------------------------------------

@case(5, "--json-progress | head -n 3")
def _(c):
    d = c.tmp("pipe")
    out = d + "/r"
    m = write(d + "/m.yaml", QUICK.replace("world_sizes: [1]", "world_sizes: [1, 2]"))
    r = run(["bash", "-c", '"$0" run "$1" --out "$2" --json-progress | head -n 3 >/dev/null; '
             'exit ${PIPESTATUS[0]}', c.commprof, m, out])
    expect(r.code == 0, r.describe())
    expect(not glob.glob(out + "/.pids/*.pid"), "stale pid files")


@case(5, "stdout closed (>&-) with --json-progress")
def _(c):
    d = c.tmp("closed")
    r = run(["bash", "-c", '"$0" run "$1" --out "$2" --json-progress >&-', c.commprof,
             write(d + "/m.yaml", QUICK), d + "/r"])
    expect(r.code == 0 and os.path.exists(d + "/r/cells/%s/manifest.json" % QUICK_CELL),
           r.describe())


def stop_mid_cell(c, sig, tag, *matrix):
    """Sends SIG to a run mid-cell and checks what every stopping signal must leave: exit 1, no
    rank running, the cell recorded as stopped. Returns the results folder."""
    with running(c, tag, *matrix) as (d, out, run_):
        ranks = pid_records(out)
        run_.p.send_signal(sig)
        code = run_.finish(60)
    time.sleep(0.5)
    expect(code == 1, "exit %s" % code)
    expect(not any(alive(r) for r in ranks), "ranks left running")
    cell = read_json(out + "/cells/%s/cell.json" % LONG_CELL) or {}
    # docs/formats.md: a cell ended by Stop or a signal is "stopped" (with stopped: true).
    expect(cell.get("status") == "stopped" and cell.get("stopped"),
           "status %s, stopped %s" % (cell.get("status"), cell.get("stopped")))
    return out


for _sig in (signal.SIGINT, signal.SIGTERM):
    @case(5, "%s mid-run" % _sig.name)
    def _(c, sig=_sig):
        stop_mid_cell(c, sig, "signal")


# --- 6: a full disk --------------------------------------------------------------------------

def fill_up(mnt):
    """Writes until the file system refuses (ENOSPC): the last page of the tmpfs taken."""
    with open(mnt + "/filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"x" * 4096)
        except OSError:
            pass


def full_disk_case(c, use_tmpfs):
    d = c.tmp("full")
    mnt = d + "/mnt"
    os.makedirs(mnt)
    mounted = use_tmpfs and os.geteuid() == 0 and subprocess.call(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "commprof-full", mnt]) == 0
    if use_tmpfs and not mounted:
        raise Misbehaved("cannot mount a tmpfs here (not root?)")
    try:
        out = (mnt if mounted else d) + "/r"
        run_ = Background([c.commprof, "run",
                           write(d + "/m.yaml", QUICK.replace("iterations: 6", "iterations: 40")),
                           "--out", out, "--json-progress"])
        expect(run_.iteration(QUICK_CELL, 2), "the cell never ran")
        os.kill(run_.p.pid, signal.SIGSTOP)
        cell = out + "/cells/" + QUICK_CELL
        for _ in range(1200):
            if os.path.exists(cell + "/rank0.json"):
                break
            time.sleep(0.1)
        before = open(cell + "/cell.json", "rb").read()
        if mounted:
            fill_up(mnt)
        else:
            resource.prlimit(run_.p.pid, resource.RLIMIT_FSIZE, (0, 0))
        os.kill(run_.p.pid, signal.SIGCONT)
        code = run_.finish(120)
        err = run_.stderr()
        after = open(cell + "/cell.json", "rb").read()
        expect(after == before, "cell.json changed to %r" % after[:80])
        expect(not os.path.exists(cell + "/manifest.json"), "a manifest was written")
        expect(code == 1, "exit %s: %s" % (code, err.strip().splitlines()[-1:]))
        expect(("No space left" if mounted else "File too large") in err, err[-300:])
    finally:
        if mounted:
            subprocess.call(["umount", "-l", mnt])


@case(6, "disk full on a tiny tmpfs after the rank wrote its file")
def _(c):
    full_disk_case(c, True)


@case(6, "file-size limit on the runner after the rank wrote its file")
def _(c):
    full_disk_case(c, False)


@case(6, "disk full before the run starts")
def _(c):
    if os.geteuid() != 0:
        raise Misbehaved("needs root for a tmpfs")
    d = c.tmp("full_start")
    mnt = d + "/mnt"
    os.makedirs(mnt)
    subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=1m", "commprof-full", mnt])
    try:
        fill_up(mnt)
        c.refused(c.cli("run", write(d + "/m.yaml", QUICK), "--out", mnt + "/r"),
                  text="No space left")
    finally:
        subprocess.call(["umount", "-l", mnt])


# --- 7: relative paths -----------------------------------------------------------------------

@case(7, "relative --out")
def _(c):
    d = c.tmp("relative")
    write(d + "/m.yaml", QUICK)
    r = c.cli("run", "m.yaml", "--out", "results/rel", cwd=d)
    expect(r.code == 0 and os.path.exists(d + "/results/rel/cells/%s/manifest.json" % QUICK_CELL),
           r.describe())


@case(7, "relative COMMPROF_RANK")
def _(c):
    d = c.tmp("relative_rank")
    write(d + "/m.yaml", QUICK)
    r = c.cli("run", "m.yaml", "--out", d + "/r", cwd=d,
              env={"COMMPROF_RANK": os.path.relpath(c.rank, d)})
    expect(r.code == 0, r.describe())


def workbench_run(c, name):
    d = c.tmp("workbench_run")
    m = write(d + "/m.yaml", QUICK.replace("name: quick", "name: '%s'" % name))
    r = run([c.workbench, "--matrix", m, "--run", "--screenshot", d + "/shots"], cwd=d,
            env={"QT_QPA_PLATFORM": "offscreen", "COMMPROF_RANK": c.rank}, timeout=120)
    expect(r.code == 0, "workbench: " + r.describe())
    return d


@case(7, "workbench --run without --results")
def _(c):
    d = workbench_run(c, "quick")
    expect(glob.glob(d + "/results/*/cells/%s/manifest.json" % QUICK_CELL),
           "no complete cell under results/")


# --- 8: two runs on one folder ---------------------------------------------------------------

for _extra in ([], ["--resume"]):
    @case(8, "a second run on a folder in use" + (" with --resume" if _extra else ""))
    def _(c, extra=_extra):
        with running(c, "second") as (d, out, first):
            ranks = pid_records(out)
            r = c.cli("run", d + "/m.yaml", "--out", out, *extra, timeout=60)
            expect(all(alive(x) for x in ranks), "the first run's ranks were ended")
            expect(not os.path.exists(out + "/.aside"), "the first run's cell was moved aside")
            c.refused(r, text="pid %d" % first.p.pid)


@case(8, "the folder of a run killed with SIGKILL is free again")
def _(c):
    with running(c, "killed_lock", iteration=2) as (d, out, first):
        first.p.kill()
        first.finish(10)
    r = c.cli("run", write(d + "/q.yaml", QUICK), "--out", out, timeout=120)
    expect(r.code == 0, r.describe())


# --- 9, 10, 13: what ingest makes of damaged cells -------------------------------------------

@case(9, "ingest: a trace that cannot be read")
def _(c):
    d = c.results_copy("bad_trace")
    write(d + "/cells/%s/trace_rank0.json.gz" % TINY2, "not a trace\n")
    cell = c.cells(d)[TINY2]
    expect(cell["status"] == "incomplete" and "trace" in " ".join(cell["reasons"]),
           "%s %s" % (cell["status"], cell["reasons"]))


@case(9, "ingest: rank 0's trace is missing")
def _(c):
    d = c.results_copy("no_trace")
    os.remove(d + "/cells/%s/trace_rank0.json.gz" % TINY2)
    cell = c.cells(d)[TINY2]
    expect(cell["status"] == "incomplete", "%s %s" % (cell["status"], cell["reasons"]))


def tamper_rank(path, change):
    doc = read_json(path)
    change(doc)
    write(path, json.dumps(doc))


for _label, _change in (
        ("a duplicated iteration", lambda d: d["iterations"].append(d["iterations"][4])),
        ("an iteration number of 2^40", lambda d: d["iterations"][3].update(iter=1 << 40)),
        ("a duplicated bucket", lambda d: d["buckets"].append(d["buckets"][0])),
        ("a rank number of 2^40", lambda d: d.update(rank=1 << 40))):
    @case(10, "ingest, cells, report: " + _label)
    def _(c, change=_change):
        d = c.results_copy("bad_rank")
        tamper_rank(d + "/cells/%s/rank1.json" % TINY2, change)
        cells = c.cells(d)
        expect(cells[TINY2]["status"] == "incomplete", json.dumps(cells[TINY2]["reasons"]))
        expect(cells[TINY1]["status"] == "complete", "the other cells were not stored")
        r = c.cli("report", d, "--out", d + "/../report")
        expect(r.code == 0, "report: " + r.describe())


@case(11, "four first ingests into a new database at once, five times")
def _(c):
    d = c.results_copy("concurrent")
    for round_ in range(5):
        db = "%s/../c%d.sqlite" % (d, round_)
        procs = [subprocess.Popen([c.commprof, "ingest", d, "--db", db], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(4)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            expect(p.returncode == 0, err.decode().strip()[-200:])


@case(13, "a rank file holding [1,2,3]")
def _(c):
    d = c.results_copy("array")
    write(d + "/cells/%s/rank1.json" % TINY2, "[1,2,3]\n")
    reasons = " ".join(c.cells(d)[TINY2]["reasons"])
    expect("expected a JSON object, found an array" in reasons, reasons)


@case(13, "a duplicate name: key")
def _(c):
    d = c.tmp("dup_key")
    path = write(d + "/m.yaml", QUICK.replace("name: quick", "name: a\nname: b"))
    c.refused(c.cli("plan", path), text="given twice", located=path)


@case(13, "two unicode names that make the same id")
def _(c):
    d = c.tmp("unicode")
    path = write(d + "/m.yaml", QUICK.replace(
        "models: [{name: tiny, params: 2e5}]",
        "models:\n  - {name: caf\u00e9, params: 2e5}\n  - {name: caf\u00e8, params: 2e5}"))
    r = c.cli("plan", path)
    c.refused(r, text=re.escape(path) + ":5:12: name: .*at line 4")


# --- 12: numeric fields ----------------------------------------------------------------------

NUMBERS = {
    "timeout_s: 1e308": ("defaults: {", "defaults: {timeout_s: 1e308, "),
    "bucket_cap_mb: 1e15": ("defaults: {", "defaults: {bucket_cap_mb: 1e15, "),
    "first_bucket_mb: 1e15": ("defaults: {", "defaults: {first_bucket_mb: 1e15, "),
    "iterations: 2e9": ("iterations: 6", "iterations: 2e9"),
    "trace steps: 1e9": ("defaults: {", "defaults: {trace: {enabled: true, steps: 1e9}, "),
    "params: 1e300": ("params: 2e5", "params: 1e300"),
    "world size 1e9": ("world_sizes: [1]", "world_sizes: [1e9]"),
    "repeats: 1e9": ("world_sizes: [1]", "world_sizes: [1]\nrepeats: 1e9"),
    "budget host_gib: 1e308": ("world_sizes: [1]", "world_sizes: [1]\nbudget: {host_gib: 1e308}"),
    "budget reserve_gib: -4": ("world_sizes: [1]", "world_sizes: [1]\nbudget: {reserve_gib: -4}"),
}
for _label, (_old, _new) in NUMBERS.items():
    @case(12, "matrix " + _label)
    def _(c, old=_old, new=_new):
        d = c.tmp("number")
        path = write(d + "/m.yaml", QUICK.replace(old, new))
        c.refused(c.cli("plan", path), located=path)


@case(12, "plan --host-budget-gib 1e308")
def _(c):
    c.refused(c.cli("plan", os.path.join(SOURCE, "configs/experiments/smoke.yaml"),
                    "--host-budget-gib", "1e308"), text="usage")


@case(12, "diff --arms --world 100000")
def _(c):
    d = c.tmp("world")
    # A missing rank program: a build that accepted the world size must not start 100,000.
    c.refused(c.cli("diff", "--arms", "--out", d + "/a", "--change", "--seed 1", "--world",
                    "100000", env={"COMMPROF_RANK": "/nonexistent"}), text="usage")


# --- 14: links planted in the results folder -------------------------------------------------

def planted(c, entry, to_file):
    d = c.tmp("link")
    out, target = d + "/r", d + "/elsewhere"
    write(target + "/keep.txt", "precious\n")
    write(target + "/other_rank0.pid", "999999 1\n")
    write(target + "/file", "precious too\n")
    write(out + "/cells/%s/cell.json" % QUICK_CELL, "{}")
    if entry.startswith("cells"):
        shutil.rmtree(out + "/" + entry)
    os.symlink(target + "/file" if to_file else target, out + "/" + entry)
    return d, out, target


for _entry, _to_file in ((".pids", False), (".aside", False), ("cells", False),
                         ("run.json", True), (".lock", True), ("cells/" + QUICK_CELL, False)):
    @case(14, "run: %s is a link" % _entry)
    def _(c, entry=_entry, to_file=_to_file):
        d, out, target = planted(c, entry, to_file)
        before = snapshot(target)
        r = c.cli("run", write(d + "/m.yaml", QUICK), "--out", out)
        expect(snapshot(target) == before, "the link's target was changed")
        c.refused(r, text="symbolic link")


for _entry in ("results.sqlite", "results.sqlite-wal"):
    @case(14, "ingest: a dangling %s link" % _entry)
    def _(c, entry=_entry):
        d = c.results_copy("dangling")
        target = d + "/../planted/" + entry
        os.makedirs(os.path.dirname(target))
        os.symlink(target, d + "/" + entry)
        r = c.cli("ingest", d)
        expect(not os.path.lexists(target), "a file was created at the link's target")
        c.refused(r, text="symbolic link")


@case(14, "ingest: manifest.json is a link to another cell's manifest")
def _(c):
    d = c.results_copy("manifest_link")
    cell = d + "/cells/" + TINY2
    os.remove(cell + "/manifest.json")  # as when the runner died before writing it
    os.symlink(d + "/cells/%s/manifest.json" % TINY1, cell + "/manifest.json")
    expect(c.cells(d)[TINY2]["status"] == "incomplete", "a linked manifest counted")


for _name in ("../../x", "/tmp/commprof-campaign-elsewhere"):
    @case(14, "workbench --run: matrix name %s" % _name)
    def _(c, name=_name):
        outside = [os.path.normpath(os.path.join(c.work, "x")), "/tmp/commprof-campaign-elsewhere"]
        try:
            d = workbench_run(c, name)
            expect(not any(os.path.exists(p) for p in outside),
                   "the run was written outside results/")
            expect(glob.glob(d + "/results/*/cells/%s/manifest.json" % QUICK_CELL),
                   "the run was not written under results/")
        finally:
            for p in outside:
                shutil.rmtree(p, ignore_errors=True)


# --- 15: pid files naming other processes ----------------------------------------------------

def planted_pids(c):
    d = c.tmp("pids")
    out = d + "/r"
    sleeper = subprocess.Popen(["sleep", "600"])
    started = start_time(sleeper.pid)
    write(out + "/.pids/old_rank0.pid", "%d %d\n" % (sleeper.pid, started))
    write(out + "/.pids/new_rank0.pid", "%d %d %032x\n" % (sleeper.pid, started, 42))
    return d, out, sleeper


@case(15, "run: a planted pid file names an unrelated process")
def _(c):
    d, out, sleeper = planted_pids(c)
    try:
        r = c.cli("run", write(d + "/m.yaml", QUICK), "--out", out)
        expect(sleeper.poll() is None, "the unrelated process was signalled")
        expect(r.code == 0, r.describe())
    finally:
        sleeper.kill()
        sleeper.wait()


@case(15, "probe --cleanup: a planted pid file names an unrelated process")
def _(c):
    d, out, sleeper = planted_pids(c)
    try:
        c.cli("probe", "--json", "--results", out, "--cleanup", "--no-formation", "--ports",
              str(free_port()))
        expect(sleeper.poll() is None, "the unrelated process was signalled")
    finally:
        sleeper.kill()
        sleeper.wait()


# --- 16: what report files make of names -----------------------------------------------------

@case(16, "report: a model named =HYPERLINK(...) in cells.csv")
def _(c):
    d = c.results_copy("csv")
    r = c.cli("report", d, "--out", d + "/../report")
    expect(r.code == 0, r.describe())
    text = open(d + "/../report/cells.csv").read()
    expect(re.search(r"(^|,)\"?[=+@]", text, re.M) is None, "a field starts a formula")


@case(16, "cells --csv: a model named =HYPERLINK(...)")
def _(c):
    r = c.cli("cells", c.results_copy("csv_cli"), "--csv")
    expect(r.code == 0 and re.search(r"(^|,)\"?[=+@]", r.out.decode(), re.M) is None,
           r.describe())


@case(16, "report: a model named \\input{...} in macros.tex")
def _(c):
    d = c.results_copy("tex")
    for path in glob.glob(d + "/cells/*/cell.json"):
        doc = read_json(path)
        doc["model"] = "\\input{/etc/passwd}"
        write(path, json.dumps(doc))
    r = c.cli("report", d, "--out", d + "/../report")
    expect(r.code == 0, r.describe())
    expect("\\input{" not in open(d + "/../report/macros.tex").read(), "a LaTeX command got in")


# --- issue 33: the matrix at its limits, YAML that is not plain, unattended screenshots --------

def million_matrix(path, extra=""):
    """100 models x 100 world sizes x 100 repeats: the documented limit of 1,000,000 cells."""
    models = "".join("  - {name: m%d, params: 1e5}\n" % i for i in range(100))
    return write(path, "name: million\nrepeats: 100\nlayers: [{name: gloo_cpu}]\nworld_sizes: [%s]\n"
                 "models:\n%s%s" % (", ".join(str(w) for w in range(1, 101)), models, extra))


@case(33, "plan --json of the documented 1,000,000 cells")
def _(c):
    d = c.tmp("million")
    path = million_matrix(d + "/m.yaml")
    expect(os.path.getsize(path) < 32 * 1024, "the matrix is %d bytes" % os.path.getsize(path))
    r = run(["bash", "-c", 'exec "$0" plan --json "$1" --gpus 0 >/dev/null', c.commprof, path],
            timeout=600)
    expect(r.code == 0, r.describe())
    expect(r.rss_kb < 512 * 1024, "peak RSS %d MB in %.0f s" % (r.rss_kb // 1024, r.secs))


@case(33, "plan: 400,000 exclude rules over 1,000,000 cells (a 2 MiB matrix)")
def _(c):
    d = c.tmp("rules")
    # Aliases of one rule: the only way 400,000 rules fit in the 2 MiB a matrix may have.
    path = million_matrix(d + "/m.yaml", "exclude: [&r {model: m0, world_size: 1}%s]\n"
                          % (", *r" * 399999))
    expect(os.path.getsize(path) <= 2 << 20, "the matrix is %d bytes" % os.path.getsize(path))
    r = run(["bash", "-c", 'exec "$0" plan "$1" --gpus 0 >"$2"', c.commprof, path, d + "/plan.txt"],
            timeout=600)
    expect(r.code == 0, r.describe())
    with open(d + "/plan.txt") as f:
        head = f.readline()
    expect(head.startswith("million: 999900 cells;"), head.strip())
    expect(r.secs < 120 and r.rss_kb < 1024 * 1024,
           "%.0f s, peak RSS %d MB" % (r.secs, r.rss_kb // 1024))


MATRIX_TEXTS = {
    "a NUL (\\0 escape) in a model name": (QUICK.replace("name: tiny", 'name: "ti\\0ny"'), "NUL"),
    "invalid UTF-8 in a model name": (QUICK.replace("name: tiny", "name: ti\udcffny"), "not UTF-8"),
    "a second YAML document": (QUICK + "---\nname: other\n", "second YAML document"),
    "a merge key": (QUICK.replace("defaults: {", "defaults: {<<: {warmup: 1}, "), "merge keys"),
}
for _label, (_text, _why) in MATRIX_TEXTS.items():
    @case(33, "plan: " + _label)
    def _(c, text=_text, why=_why):
        d = c.tmp("text")
        path = d + "/m.yaml"
        with open(path, "wb") as f:
            f.write(text.encode("utf-8", "surrogateescape"))
        c.refused(c.cli("plan", path), text=why, located=path)


@case(33, "plan: aliases, a UTF-8 BOM and CRLF read as the plain matrix")
def _(c):
    d = c.tmp("plain_text")
    plain = write(d + "/plain.yaml", QUICK.replace("world_sizes: [1]", "world_sizes: [1, 2]"))
    aliased = ("name: quick\ndefaults: &d {iterations: 6, warmup: 1, batch_size: 8, timeout_s: 120}\n"
               "models: [{name: tiny, params: 2e5}]\nlayers: [{name: gloo_cpu, overrides: *d}]\n"
               "world_sizes: [1, 2]\n")
    path = d + "/other.yaml"
    with open(path, "wb") as f:
        f.write(b"\xef\xbb\xbf" + aliased.replace("\n", "\r\n").encode())

    def cells(p):
        r = c.cli("plan", p, "--json", "--gpus", "0", "--host-budget-gib", "8")
        expect(r.code == 0, r.describe())
        return [(x["id"], x["config"]) for x in json.loads(r.out)["cells"]]
    expect(cells(path) == cells(plain), "the cells differ")


@case(33, "workbench --results EMPTY --screenshot DIR")
def _(c):
    d = c.tmp("wb_empty")
    os.makedirs(d + "/empty")
    r = run([c.workbench, "--results", d + "/empty", "--screenshot", d + "/shots"],
            env={"QT_QPA_PLATFORM": "offscreen"}, timeout=60)
    c.refused(r, text=re.escape(d + "/empty"))
    expect(os.listdir(d + "/empty") == [], "written into the folder: %s" % os.listdir(d + "/empty"))


@case(33, "workbench --screenshot FILE, an existing regular file")
def _(c):
    d = c.tmp("wb_file")
    target = write(d + "/shots.png", "precious\n")
    r = run([c.workbench, "--screenshot", target], env={"QT_QPA_PLATFORM": "offscreen"},
            timeout=60)
    c.refused(r, text=re.escape(target))
    expect(open(target).read() == "precious\n", "the file was changed")


@case(33, "workbench --size 30000x30000")
def _(c):
    d = c.tmp("wb_size")
    r = run([c.workbench, "--size", "30000x30000", "--screenshot", d + "/shots"],
            env={"QT_QPA_PLATFORM": "offscreen"}, timeout=60)
    c.refused(r, text="--size")
    expect(r.secs < 10, "%.0f s to refuse" % r.secs)
# --- issue 33: fingerprint files and LaTeX names (items 5, 6 and two questionable) -------------
# Item 33 stands for the second campaign; each name says which of its items it plays.

_FINGERPRINTED = {}


def fingerprinted(c, world):
    """The unchanged arm of `diff --arms` at WORLD ranks: a folder of real fp_rank*.jsonl."""
    if world not in _FINGERPRINTED:
        d = c.tmp("fp_ws%d" % world)
        r = c.cli("diff", "--arms", "--out", d, "--change", "--seed 1", "--world", str(world),
                  timeout=600)
        if r.code not in (0, 1):
            raise RuntimeError("diff --arms failed: " + r.describe())
        _FINGERPRINTED[world] = d + "/unchanged_1"
    return _FINGERPRINTED[world]


def fingerprint_copy(c, name, world=2):
    d = c.tmp(name) + "/run"
    shutil.copytree(fingerprinted(c, world), d)
    return d


for _label, _env, _limit in (("", {}, "COMMPROF_MAX_FINGERPRINT_BYTES"),
                             (" (file limit raised to 8G)",
                              {"COMMPROF_MAX_FINGERPRINT_BYTES": str(8 * GIB)},
                              "COMMPROF_MAX_FINGERPRINT_LINE_BYTES")):
    @case(33, "issue 33/5: diff of a 3 GB fingerprint file without a newline" + _label)
    def _(c, env=_env, limit=_limit):
        d = fingerprint_copy(c, "fp_huge")
        with open(d + "/fp_rank1.jsonl", "r+b") as f:  # sparse: costs no disk
            f.truncate(3 * 10**9)
        r = c.cli("diff", fingerprinted(c, 2), d, env=env, limit_as=2 * GIB, timeout=60)
        c.refused(r, text=re.escape(d + "/fp_rank1.jsonl") + ".*" + limit + "=N")
        expect(r.rss_kb < 200 * 1024 and r.secs < 20,
               "RSS %d kB, %.1f s for a refusal" % (r.rss_kb, r.secs))


@case(33, "issue 33/questionable: diff of a world-size-1 run against a world-size-2 run")
def _(c):
    one, two = fingerprinted(c, 1), fingerprinted(c, 2)
    for a, b, says in ((one, two, "world size 1 against 2"), (two, one, "world size 2 against 1")):
        c.refused(c.cli("diff", a, b), text="not comparable: " + says)


for _name in ("fp_rank00.jsonl", "fp_rank4294967296.jsonl"):
    @case(33, "issue 33/questionable: diff with a %s beside the real files" % _name)
    def _(c, name=_name):
        d = fingerprint_copy(c, "fp_name")
        shutil.copy(d + "/fp_rank0.jsonl", d + "/" + name)
        c.refused(c.cli("diff", fingerprinted(c, 2), d), text=re.escape(d + "/" + name))


HOSTILE_NAMES = ["a\x01b\x0cc\x1bd\x7fe", "r\u00e9seau \u2713 \u65e5\u672c", "Headline",
                 "# $ % & ~ _ ^ \\ { }"]


@case(33, "issue 33/6: report with hostile model and layer names: pdflatex compiles macros.tex")
def _(c):
    expect(shutil.which("pdflatex"), "pdflatex is not installed (texlive-latex-base)")
    d = c.results_copy("tex_hostile")
    # Every cell a layer of its own: "Headline", control characters, accents and CJK, LaTeX's
    # specials; the models too.
    for path, name in zip(sorted(glob.glob(d + "/cells/*/cell.json")), HOSTILE_NAMES * 2):
        doc = read_json(path)
        doc["layer"] = name
        doc["model"] = name
        write(path, json.dumps(doc))
    out = d + "/../report"
    r = c.cli("report", d, "--out", out)
    expect(r.code == 0, r.describe())
    tex = open(out + "/macros.tex", "rb").read()
    raw = [line for line in tex.splitlines() if any(b >= 0x7F or b < 0x20 for b in line)]
    expect(not raw, "a raw byte in macros.tex: %r" % raw[:1])
    names = re.findall(rb"\\newcommand\{\\commprof([^}]*)\}", tex)
    expect(len(names) == len(set(names)), "a name defined twice")
    expect(all(re.fullmatch(rb"[A-Za-z]+", n) for n in names), "a name that is not letters")
    write(out + "/doc.tex", "\\documentclass{article}\n\\input{macros.tex}\n\\begin{document}\n"
          + "".join("\\commprof%s\\par\n" % n.decode() for n in names) + "\\end{document}\n")
    latex = run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                 "doc.tex"], cwd=out, timeout=120)
    expect(latex.code == 0, "pdflatex: " + latex.out.decode(errors="replace")[-400:])


# --- what was clean before, replayed so it stays clean ---------------------------------------

@case(0, "a rank killed mid-cell: the cell fails, the run goes on")
def _(c):
    with running(c, "kill_rank", LONG.replace("world_sizes: [2]", "world_sizes: [2, 1]")) \
            as (d, out, run_):
        os.kill(max(pid_records(out))[0], signal.SIGKILL)
        code = run_.finish(300)
    expect(code == 1, "exit %s" % code)
    expect(os.path.exists(out + "/cells/%s/manifest.json" % QUICK_CELL), "the run did not go on")


@case(0, "the runner killed, then --resume")
def _(c):
    with running(c, "kill_runner") as (d, out, run_):
        orphans = pid_records(out)
        run_.p.kill()
        run_.finish(10)
    resumed = c.cli("run", d + "/m.yaml", "--out", out, "--resume", timeout=600)
    expect(resumed.code == 0, resumed.describe())
    expect(not any(alive(o) for o in orphans), "orphan ranks left")
    expect(len(os.listdir(out + "/.aside")) == 1, "the interrupted attempt was not moved aside")


@case(0, "a rank stopped with SIGSTOP: the deadline ends the cell")
def _(c):
    with running(c, "sigstop", LONG.replace("timeout_s: 300", "timeout_s: 15"), 2) \
            as (d, out, run_):
        for pid, _ in pid_records(out):
            os.kill(pid, signal.SIGSTOP)
        code = run_.finish(60)
    expect(code == 1, "exit %s" % code)


@case(0, "an occupied rendezvous port is named by probe")
def _(c):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    port = s.getsockname()[1]
    r = c.cli("probe", "--json", "--results", c.tmp("probe_port"), "--ports", str(port),
              "--no-formation")
    s.close()
    expect("pid %d" % os.getpid() in r.text, r.describe())


@case(0, "a database locked by another process")
def _(c):
    import sqlite3
    d = c.results_copy("locked")
    expect(c.cli("ingest", d).code == 0, "first ingest")
    db = sqlite3.connect(d + "/results.sqlite", timeout=1, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    try:
        # Nothing changed: nothing to write, and the store is read as it is (incremental ingest).
        same = c.cli("ingest", d, timeout=60)
        expect(same.code == 0 and "0 read" in same.text, same.describe())
        # A changed cell must be written: the lock is then said, never waited on for ever.
        rank0 = d + "/cells/%s/rank0.json" % TINY2
        os.utime(rank0, (time.time() + 5, time.time() + 5))
        r = c.cli("ingest", d, timeout=60)
    finally:
        db.execute("ROLLBACK")
        db.close()
    c.refused(r, text="locked")


@case(0, "a corrupt database")
def _(c):
    d = c.results_copy("corrupt")
    write(d + "/results.sqlite", "this is not a database" * 100)
    c.refused(c.cli("ingest", d), text="not a database")


# The malformed matrices the project shipped before this campaign (01-15); the later ones are
# the cases of items 2, 12 and 13 above.
for _path in sorted(glob.glob(os.path.join(SOURCE, "tests/data/bad_matrices/[01]*.yaml")))[:15]:
    @case(0, "malformed matrix " + os.path.basename(_path))
    def _(c, path=_path):
        c.refused(c.cli("plan", path, "--gpus", "1"), located=path)


@case(0, "the store listens on loopback only")
def _(c):
    with running(c, "loopback", iteration=1) as (d, out, run_):
        port = int(environ(pid_records(out)[0][0]).get("MASTER_PORT", "0"))
        listeners = [line.split()[1] for line in open("/proc/net/tcp").readlines()[1:]
                     if line.split()[3] == "0A" and int(line.split()[1].split(":")[1], 16) == port]
        expect(listeners == ["0100007F:%04X" % port], "listening on %s" % listeners)


@case(0, "shell syntax in a model name is never executed")
def _(c):
    d = c.tmp("shell")
    marker = d + "/pwned"
    m = write(d + "/m.yaml", QUICK.replace("name: tiny", "name: '$(touch %s); touch %s'"
                                           % (marker, marker)))
    r = c.cli("run", m, "--out", d + "/r")
    expect(r.code == 0 and not os.path.exists(marker), r.describe())


@case(0, "a 60-cell run keeps flat memory and file descriptors")
def _(c):
    d = c.tmp("sixty")
    out = d + "/r"
    m = write(d + "/m.yaml", QUICK.replace("iterations: 6, warmup: 1", "iterations: 2, warmup: 1")
              .replace("world_sizes: [1]", "world_sizes: [1]\nrepeats: 60"))
    run_ = Background([c.commprof, "run", m, "--out", out, "--json-progress"])
    samples = {}
    for n in (10, 59):
        cell = "tiny_gloo_cpu_ws1_r%d" % n
        expect(run_.wait_for(lambda e, cell=cell: e.get("id") == cell, 600), "stalled")
        samples[n] = (rss_kb(run_.p.pid), len(os.listdir("/proc/%d/fd" % run_.p.pid)))
    code = run_.finish(120)
    expect(code == 0, "exit %s" % code)
    (rss10, fd10), (rss59, fd59) = samples[10], samples[59]
    expect(rss59 - rss10 < 20 * 1024 and abs(fd59 - fd10) <= 2,
           "RSS %d -> %d kB, fds %d -> %d" % (rss10, rss59, fd10, fd59))


# --- 33: the second campaign (issue 33): the runner's items ------------------------------------

LONGER = LONG.replace("iterations: 400", "iterations: 1000000")  # runs until it is ended


@case(33, "SIGKILL of run mid-cell: its ranks die with it")
def _(c):
    with running(c, "kill9", LONGER) as (d, out, run_):
        ranks = pid_records(out)
        for pid, _ in ranks:  # writing nothing, as a rank waiting for its peers: no SIGPIPE
            os.kill(pid, signal.SIGSTOP)
        run_.p.kill()
        run_.finish(10)
        end = time.time() + 5
        while any(alive(r) for r in ranks) and time.time() < end:
            time.sleep(0.05)
        left = [r for r in ranks if alive(r)]
        for pid, _ in left:
            os.kill(pid, signal.SIGKILL)
    expect(len(ranks) == 2 and not left, "ranks left running: %s" % left)


@case(33, "--resume ends the rank a temporary pid record (.pid.XXXXXX.tmp) names")
def _(c):
    d = c.tmp("tmp_pid")
    out = d + "/r"
    run_id = "%032x" % int.from_bytes(os.urandom(16), "big")
    env = dict(os.environ, RANK="0", WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(free_port()), COMMPROF_RUN_ID=run_id,
               COMMPROF_STORE_TOKEN="%032x" % int.from_bytes(os.urandom(16), "big"))
    rank = subprocess.Popen([c.rank, "--params", "2e4", "--out", d, "--rendezvous-timeout-s",
                             "120"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        record = (rank.pid, start_time(rank.pid))
        write(out + "/.pids/%s_rank0.pid.Ab3xYz.tmp" % QUICK_CELL,
              "%d %d %s\n" % (record[0], record[1], run_id))
        r = c.cli("run", write(d + "/m.yaml", QUICK), "--out", out, "--resume", timeout=300)
        rank.wait(10)
    except subprocess.TimeoutExpired:
        pass
    finally:
        if rank.poll() is None:
            rank.kill()
            rank.wait()
            raise Misbehaved("the rank the temporary record names was left running")
    expect(r.code == 0, r.describe())
    expect(not glob.glob(out + "/.pids/*.tmp"), "the temporary record was left")


for _sig in (signal.SIGHUP, signal.SIGQUIT):
    @case(33, "%s mid-run: the cell is recorded stopped, launcher.log written" % _sig.name)
    def _(c, sig=_sig):
        out = stop_mid_cell(c, sig, "hup", LONGER)
        expect(os.path.exists(out + "/cells/%s/launcher.log" % LONG_CELL), "no launcher.log")


@case(33, "the wall clock stepped back an hour mid-cell")
def _(c):
    d = c.tmp("clock")
    shim = d + "/clock_step_shim.so"
    built = run(["c++", "-shared", "-fPIC", "-O1", "-o", shim,
                 os.path.join(SOURCE, "tests/clock_step_shim.cpp"), "-ldl"], timeout=300)
    if built.code != 0:
        raise RuntimeError("cannot build the clock shim: " + built.describe())
    trigger = d + "/step-back"
    out = d + "/r"
    run_ = Background([c.commprof, "run", write(d + "/m.yaml", QUICK.replace(
        "iterations: 6", "iterations: 300")), "--out", out, "--json-progress"],
        env={"LD_PRELOAD": shim, "COMMPROF_TEST_STEP_BACK_FILE": trigger})
    start = time.time()
    expect(run_.iteration(QUICK_CELL, 2), "the cell never ran")
    write(trigger, "now\n")
    code = run_.finish(300)
    expect(code == 0, "exit %s" % code)
    wall = (read_json(out + "/cells/%s/manifest.json" % QUICK_CELL) or {}).get("wall_s", -1)
    expect(0 < wall <= time.time() - start + 1, "wall_s %s" % wall)


@case(33, "no free port (a network namespace with its ephemeral ports reserved)")
def _(c):
    d = c.tmp("noport")
    out = d + "/r"
    r = run(["unshare", "-rn", "sh", "-c",
             "echo '40000 40001' > /proc/sys/net/ipv4/ip_local_port_range && "
             "echo 40000-40001 > /proc/sys/net/ipv4/ip_local_reserved_ports && "
             'ip link set lo up && exec "$0" run "$1" --out "$2"',
             c.commprof, write(d + "/m.yaml", QUICK), out])
    expect(r.code == 1, r.describe())
    cell = read_json(out + "/cells/%s/cell.json" % QUICK_CELL) or {}
    expect("no free loopback port" in cell.get("failure", ""), json.dumps(cell)[:300])


@case(33, "a rank that forges progress events and prints a 3 MB line")
def _(c):
    d = c.tmp("forger")
    forger = write(d + "/commprof-rank", """#!/bin/sh
echo 'junk {not json'
echo '{"event":"iteration","rank":1000000,"iter":1,"of":5,"step_ms":1}'
echo '{"event":"iteration","rank":0,"iter":-5,"of":5,"step_ms":1}'
echo '{"event":"iteration","rank":0,"iter":1,"of":5,"step_ms":1e999}'
echo '{"event":"cell","rank":0,"id":"x","state":"complete"}'
printf '{"event":"iteration","rank":0,"iter":3,"of":5,"step_ms":1,"p":"'
head -c 3000000 /dev/zero | tr '\\0' x
echo '"}'
echo '{"event":"iteration","rank":0,"iter":2,"of":5,"step_ms":1.5,"state":"complete"}'
exit 1
""")
    os.chmod(forger, 0o755)
    r = c.cli("run", write(d + "/m.yaml", QUICK), "--out", d + "/r", "--json-progress",
              env={"COMMPROF_RANK": forger})
    expect(r.code == 1, r.describe())
    lines = r.out.splitlines()
    expect(all(len(x) < 4096 for x in lines), "a long line was relayed")
    relayed = [e for e in (json.loads(x) for x in lines) if "rank" in e]
    expect([(e["rank"], e["iter"]) for e in relayed] == [(0, 2)] and "state" not in relayed[0],
           "relayed: %s" % relayed)


@case(33, "--resume with another matrix")
def _(c):
    d = c.tmp("other_matrix")
    out = d + "/r"
    expect(c.cli("run", write(d + "/a.yaml", QUICK), "--out", out).code == 0, "first run")
    before = snapshot(out)
    before.pop(".lock", None)
    r = c.cli("run", write(d + "/b.yaml", QUICK.replace("iterations: 6", "iterations: 7")),
              "--out", out, "--resume")
    c.refused(r, text="run.json records a run of another matrix")
    after = snapshot(out)
    after.pop(".lock", None)
    expect(after == before, "the folder changed")


@case(33, "run --out a folder of unrelated files")
def _(c):
    d = c.tmp("foreign")
    out = d + "/mine"
    write(out + "/notes.txt", "mine\n")
    before = snapshot(out)
    c.refused(c.cli("run", write(d + "/m.yaml", QUICK), "--out", out),
              text=re.escape(out) + " already holds other files")
    expect(snapshot(out) == before, "the folder changed")


@case(33, "the results folder deleted mid-run")
def _(c):
    with running(c, "deleted", LONG.replace("world_sizes: [2]", "world_sizes: [2, 1]")) \
            as (d, out, run_):
        shutil.rmtree(out)
        code = run_.finish(120)
        err = run_.stderr()
    expect(code == 1, "exit %s" % code)
    expect("was deleted or replaced during the run" in err, err.strip()[-300:])
    expect(not os.path.exists(out), "the runner made the folder again")


@case(33, "RLIMIT_NPROC too low for the ranks' threads")
def _(c):
    if os.getuid() != 0:
        raise Misbehaved("run the campaign as root for this case (it runs the cell as nobody)")
    d = c.tmp("nproc")
    os.chmod(c.work, 0o711)  # nobody passes through the campaign's folder into this one
    os.chmod(d, 0o777)
    out = d + "/r"
    m = write(d + "/m.yaml", QUICK.replace("timeout_s: 120", "timeout_s: 90"))
    r = run(["prlimit", "--nproc=3", "setpriv", "--reuid=65534", "--regid=65534",
             "--clear-groups", c.commprof, "run", m, "--out", out], timeout=120)
    expect(r.code == 1 and r.secs < 30, r.describe())
    cell = read_json(out + "/cells/%s/cell.json" % QUICK_CELL) or {}
    expect("RLIMIT_NPROC" in cell.get("failure", ""), json.dumps(cell)[:300])



# --- 33: folders that are not results, read-only results, a database beside a running run ------

for _command in ("report", "cells", "ingest"):
    @case(33, "%s of an empty folder: refused, nothing written" % _command)
    def _(c, command=_command):
        d = c.tmp("empty_" + command)
        os.makedirs(d + "/empty")
        extra = ["--out", d + "/report"] if command == "report" else []
        r = c.cli(command, d + "/empty", *extra)
        c.refused(r, text=re.escape(d + "/empty") + " is not a results folder")
        expect(os.listdir(d + "/empty") == [], "written: %s" % os.listdir(d + "/empty"))
        expect(not os.path.exists(d + "/report"), "the report folder was made")


@case(33, "cells of a read-only results folder, ingested and stale")
def _(c):
    d = c.results_copy("read_only")
    expected = c.cells(d)  # ingested where it may write
    stale = os.path.dirname(d) + "/stale"
    shutil.copytree(d, stale, symlinks=True)
    os.utime(stale + "/cells/%s/rank0.json" % TINY2, (time.time() + 5, time.time() + 5))
    mounted = []
    try:
        for folder in (d, stale):
            # Root passes every permission check: only a read-only mount makes the folder so.
            bind = run(["mount", "--bind", "-o", "ro", folder, folder]) if os.getuid() == 0 \
                else run(["chmod", "-R", "a-w", folder])
            expect(bind.code == 0, "cannot make %s read-only: %s" % (folder, bind.describe()))
            mounted.append(folder)
            was = snapshot(folder)
            r = c.cli("cells", folder, "--json", timeout=120)
            expect(r.code == 0, "cells: " + r.describe())
            got = {x["id"]: x["status"] for x in json.loads(r.out)["cells"]}
            expect(got == {k: v["status"] for k, v in expected.items()}, "cells %s" % got)
            expect(snapshot(folder) == was, "the read-only folder changed")
    finally:
        for folder in mounted:
            run(["umount", "-l", folder] if os.getuid() == 0 else ["chmod", "-R", "u+w", folder])


@case(33, "the workbench opens a folder mid-run: the database hides no later file")
def _(c):
    matrix = LONG.replace("iterations: 400", "iterations: 1500").replace("world_sizes: [2]",
                                                                         "world_sizes: [2, 1]")
    with running(c, "beside_run", matrix) as (d, out, run_):
        shot = run([c.workbench, "--results", out, "--screenshot", d + "/shots"],
                   env={"QT_QPA_PLATFORM": "offscreen"}, timeout=120)
        expect(shot.code == 0, "workbench: " + shot.describe())
        import sqlite3
        db = sqlite3.connect("file:%s/results.sqlite?mode=ro" % out, uri=True)
        seen = dict(db.execute("SELECT id, status FROM cells").fetchall())
        db.close()
        # The case means something only if the database holds the running cell unfinished.
        expect(seen.get(LONG_CELL) not in (None, "complete"), "the database says %s" % seen)
        code = run_.finish(600)
    expect(code == 0, "run: exit %s" % code)
    cells = c.cells(out)
    expect(all(x["status"] == "complete" for x in cells.values()) and len(cells) == 2,
           "after the run: %s" % {k: v["status"] for k, v in cells.items()})

# --- issue 41: huge axes, descriptions that lie, exports that fail, repeated signals ------------

HUGE_LISTS = ("name: huge\ndefaults: {batch_size: [%(v)s], bucket_cap_mb: [%(v)s], "
              "first_bucket_mb: [%(v)s]}\nmodels: [{name: m, params: 1e6}]\n"
              "layers: [{name: gloo_cpu}]\nworld_sizes: [1]\nexclude:\n"
              % {"v": ", ".join(str(i) for i in range(1, 1001))})
TEN_LEFT = "".join("  - {bucket_cap_mb: %d}\n  - {first_bucket_mb: %d}\n" % (v, v)
                   for v in range(2, 1001)) + \
    "".join("  - {batch_size: %d}\n" % v for v in range(11, 1001))


def plan_ids(c, path, timeout=120):
    r = c.cli("plan", path, "--json", "--gpus", "0", timeout=timeout)
    expect(r.code == 0, r.describe())
    return [x["id"] for x in json.loads(r.out)["cells"]], r


@case(41, "plan: three 1,000-value lists, an exclude rule that removes every cell")
def _(c):
    d = c.tmp("huge_none")
    ids, r = plan_ids(c, write(d + "/m.yaml", HUGE_LISTS + "  - {hook: allreduce}\n"))
    expect(ids == [] and r.secs < 60, "%d cells in %.0f s" % (len(ids), r.secs))


@case(41, "plan: three 1,000-value lists cut to 10 cells by exclude rules")
def _(c):
    d = c.tmp("huge_ten")
    ids, r = plan_ids(c, write(d + "/m.yaml", HUGE_LISTS + TEN_LEFT))
    expect(ids == ["m_gloo_cpu_ws1_b%d_cap1_first1_r0" % b for b in range(1, 11)],
           "cells %s" % ids[:12])
    expect(r.secs < 60, "%.0f s" % r.secs)


@case(41, "workbench --matrix: three 1,000-value lists, every cell excluded")
def _(c):
    d = c.tmp("huge_workbench")
    path = write(d + "/m.yaml", HUGE_LISTS + "  - {hook: allreduce}\n")
    r = run([c.workbench, "--matrix", path, "--screenshot", d + "/shots"],
            env={"QT_QPA_PLATFORM": "offscreen"}, timeout=120)
    expect(r.code == 0 and r.secs < 90, r.describe() + " after %.0f s" % r.secs)


@case(41, "plan: bucket caps apart only beyond twelve digits")
def _(c):
    d = c.tmp("close_caps")
    ids, _ = plan_ids(c, write(d + "/m.yaml", QUICK.replace(
        "batch_size: 8", "batch_size: 8, bucket_cap_mb: [0.1000000000001, 0.1000000000002]")))
    expect(ids == ["tiny_gloo_cpu_ws1_cap0p1000000000001_r0",
                   "tiny_gloo_cpu_ws1_cap0p1000000000002_r0"], "cells %s" % ids)


EXCLUDES_OF_NOTHING = {
    "a bucket cap": ("bucket_cap_mb: [1, 25]", "{bucket_cap_mb: 3}", "no cell has bucket_cap_mb 3"),
    "a world size": ("batch_size: 8", "{world_size: 7}", "no cell has world_size 7"),
    "a hook": ("hook: [allreduce, powersgd]", "{hook: bf16_compress}",
               "no cell has hook bf16_compress"),
}
for _label, (_setting, _rule, _why) in EXCLUDES_OF_NOTHING.items():
    @case(41, "plan: an exclude rule naming %s no cell has" % _label)
    def _(c, setting=_setting, rule=_rule, why=_why):
        d = c.tmp("exclude_nothing")
        path = write(d + "/m.yaml", QUICK.replace("batch_size: 8", "batch_size: 8, " + setting)
                     if setting != "batch_size: 8" else QUICK)
        with open(path, "a") as f:
            f.write("exclude:\n  - %s\n" % rule)
        c.refused(c.cli("plan", path), text=why, located=path)


@case(41, "sweep summarize: a size one rank did not report names its bytes in full")
def _(c):
    d = c.tmp("sweep_reason")
    r = c.cli("sweep", "run", "--out", d + "/s", "--world-size", "2", "--kinds", "all_reduce",
              "--max-bytes", "2097152", timeout=300)
    expect(r.code == 0, "sweep run: " + r.describe())
    doc = read_json(d + "/s/sweep_rank1.json")
    for kind in doc["kinds"]:
        kind["sizes"] = [s for s in kind["sizes"] if s["bytes"] != 1048576]
    write(d + "/s/sweep_rank1.json", json.dumps(doc))
    r = c.cli("sweep", "summarize", d + "/s")
    expect("all_reduce at 1048576 bytes: 1 of 2 ranks reported" in r.text,
           "no whole byte count: " + r.text[-400:])


def exported_gpt(c, d, **changes):
    """A small GPT exported by `commprof model export` (Debian's python3-torch) into D, its
    description's fields replaced by CHANGES; the module and the exported parameter count."""
    r = c.cli("model", "export", "gpt:layers=1,d=16,heads=2,seq=8,vocab=50", "--out",
              d + "/gpt.pt", timeout=300)
    expect(r.code == 0, "model export: " + r.describe())
    with open(d + "/gpt.json") as f:
        description = json.load(f)
    exported = description["params_total"]
    description.update(changes)
    write(d + "/gpt.json", json.dumps(description))
    return d + "/gpt.pt", exported


@case(41, "run and calibrate: a description claiming 10 parameters for the module's 5,040")
def _(c):
    d = c.tmp("lying_description")
    pt, described = exported_gpt(c, d, params_total=10, params_trainable=10, parameters=[
        {"name": "w", "shape": [10], "requires_grad": True}])
    matrix = write(d + "/m.yaml", "name: lying\ndefaults: {iterations: 2, warmup: 1}\n"
                   "models: [{name: gpt, torchscript: gpt.pt, input: {tokens: 8, vocab: 50}}]\n"
                   "layers: [{name: gloo_cpu}]\nworld_sizes: [1]\n")
    says = "holds %d parameters in \\d+ tensors, its description .* says 10 parameters" % described
    c.refused(c.cli("run", matrix, "--out", d + "/r"), text=says)
    expect(not os.path.exists(d + "/r"), "run made its results folder")
    c.refused(c.cli("calibrate", pt, timeout=300), text=says)


@case(41, "calibrate: a described input shape of [1e30, 1e30]")
def _(c):
    d = c.tmp("huge_input")
    pt, _ = exported_gpt(c, d, input={"shape": [1e30, 1e30]}, target={"classes": 10})
    r = c.cli("calibrate", pt, timeout=300)
    c.refused(r, text=r"input\.shape\[0\]: expected a whole number from 1 to 1000000, got 1e\+30")
    expect("usage" not in r.text, "the rank's usage text: " + r.text[-300:])


for _label, _args, _why in (
        ("torchvision:VGG (a class)", ["torchvision:VGG"], "no classification model 'VGG'"),
        ("torchvision:get_weight (a helper)", ["torchvision:get_weight"],
         "no classification model 'get_weight'"),
        ("torchvision:resnet18 --input-shape 1,8,8", ["torchvision:resnet18", "--input-shape",
                                                      "1,8,8"],
         "does not take an input of shape 1,8,8")):
    @case(41, "model export " + _label)
    def _(c, args=_args, why=_why):
        d = c.tmp("export_bad")
        r = c.cli("model", "export", *args, "--out", d + "/x.pt", timeout=300)
        c.refused(r, text=re.escape(why))
        expect("Traceback" not in r.text, "a traceback: " + r.text[-300:])
        expect(os.listdir(d) == [], "written: %s" % os.listdir(d))


@case(41, "model export --out x.pt where x.json is a folder")
def _(c):
    d = c.tmp("export_json_dir")
    os.makedirs(d + "/x.json")
    r = c.cli("model", "export", "gpt:layers=1,d=16,heads=2,seq=8,vocab=50", "--out", d + "/x.pt",
              timeout=300)
    c.refused(r, text="x.json exists and is not a regular file")
    expect(sorted(os.listdir(d)) == ["x.json"] and os.listdir(d + "/x.json") == [],
           "written: %s" % os.listdir(d))


@case(41, "commprof-rank: a 1 MB zip bomb given as a .pt")
def _(c):
    d = c.tmp("zip_bomb")
    import zipfile
    with zipfile.ZipFile(d + "/bomb.pt", "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("archive/version", "w", force_zip64=True) as f:
            block = bytes(1 << 24)
            for _ in range(64):
                f.write(block)
    expect(os.path.getsize(d + "/bomb.pt") < 4 << 20, "the bomb is %d bytes"
           % os.path.getsize(d + "/bomb.pt"))
    r = run([c.rank, "--torchscript", d + "/bomb.pt", "--input-shape", "3,2,2", "--classes", "4",
             "--check-module"], timeout=120)
    c.refused(r, code=1, text="its zip records declare more than")
    expect(r.rss_kb < 512 * 1024, "peak RSS %d MB" % (r.rss_kb // 1024))


@case(41, "two SIGTERMs 50 ms apart mid-cell, three times, then a burst every 2 ms")
def _(c):
    for attempt in range(4):
        with running(c, "two_terms") as (d, out, run_):
            ranks = pid_records(out)
            run_.p.send_signal(signal.SIGTERM)
            if attempt < 3:
                time.sleep(0.05)
                run_.p.send_signal(signal.SIGTERM)
            else:
                while run_.p.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        run_.p.send_signal(signal.SIGTERM)
                    time.sleep(0.002)
            code = run_.finish(60)
        expect(code == 1, "attempt %d: exit %s" % (attempt + 1, code))
        time.sleep(0.5)
        expect(not any(alive(r) for r in ranks), "ranks left running")

# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(SOURCE, "build", "bin"))
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--item", type=int, help="run the cases of this item of issue 20 (0: "
                        "what was clean before; 33: issue 33's matrix and screenshot cases; 41: issue "
                        "41's)")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    selected = [(i, n, f) for i, n, f in CASES
                if args.only in n and (args.item is None or args.item == i)]
    if args.list:
        for item, name, _ in selected:
            print("%2s  %s" % (item or "-", name))
        return 0
    work = tempfile.mkdtemp(prefix="commprof-campaign-")
    campaign = Campaign(os.path.abspath(args.bin), work)
    clean = 0
    misbehaved = []
    try:
        for item, name, fn in selected:
            start = time.time()
            try:
                fn(campaign)
                verdict, detail = "clean", ""
                clean += 1
            except Misbehaved as e:
                verdict, detail = "MISBEHAVED", str(e)
            except Exception as e:  # the case itself broke: that counts against it too
                verdict, detail = "MISBEHAVED", "%s: %s" % (type(e).__name__, e)
            if verdict != "clean":
                misbehaved.append((item, name, detail))
            print("%-10s %5.1fs  [%s] %s%s" % (verdict, time.time() - start,
                                               "item %d" % item if item else "was clean",
                                               name, "  -- " + detail[:300] if detail else ""),
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("tried %d / clean %d / misbehaved %d" % (len(selected), clean, len(misbehaved)))
    return 0 if not misbehaved else 1


if __name__ == "__main__":
    sys.exit(main())
