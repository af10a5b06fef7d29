# SPDX-License-Identifier: GPL-3.0-or-later
"""What the Python benchmarks share: a free loopback port and launching commprof-rank ranks."""
import os
import socket
import subprocess
import sys


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_ranks(binary, world, args):
    """Runs WORLD commprof-rank processes with torchrun-style rendezvous; exits on failure."""
    port = free_port()
    procs = [subprocess.Popen([binary] + args,
                              env=dict(os.environ, RANK=str(r), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                                       MASTER_PORT=str(port)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for r in range(world)]
    for p in procs:
        if p.wait() != 0:
            sys.exit("commprof-rank failed: " + p.stderr.read().decode())
