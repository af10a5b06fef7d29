#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""torchrun for a PyTorch built without libuv, such as Debian 13's python3-torch 2.6.

torchrun's agent serves its rendezvous store with TCPStore(...), whose use_libuv defaults to
True; where torch was built without libuv that fails ("use_libuv was requested but PyTorch was
build without libuv support") before any worker starts, and in 2.6 neither a torchrun flag nor
USE_LIBUV=0 (read only by init_process_group's env:// rendezvous) reaches it. This asks for the
classic store unless told otherwise, then runs torchrun's own main with the same arguments:

    packaging/torchrun_without_libuv.py --nproc-per-node 2 --no-python commprof-rank ...
"""
import sys

import torch.distributed as dist

_TCPStore = dist.TCPStore


def _classic_tcp_store(*args, **kwargs):
    kwargs.setdefault("use_libuv", False)
    return _TCPStore(*args, **kwargs)


# The rendezvous modules import the name from torch.distributed when torchrun creates them,
# after this runs.
dist.TCPStore = _classic_tcp_store

if __name__ == "__main__":
    from torch.distributed.run import main

    sys.argv[0] = "torchrun"
    sys.exit(main())
