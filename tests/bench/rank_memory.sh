#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Peak host memory (VmHWM) of one commprof-rank process by model size: the source of the
# feasibility model's process_baseline_mib (docs/feasibility.md).
# Usage: tests/bench/rank_memory.sh BUILD_BIN_DIR
set -euo pipefail
bin=${1:?usage: rank_memory.sh BUILD_BIN_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for params in 1e5 1e6 1e7; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  rm -f "$out/rank0.json"
  RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$bin/commprof-rank" --params "$params" --iterations 3 --warmup 1 --threads 1 --out "$out" > /dev/null
  python3 -c "import json; d=json.load(open('$out/rank0.json')); print('params %-5s actual %9d  VmHWM %.1f MiB' % ('$params', d['model']['params'], d['peak_host_bytes']/2**20))"
done
