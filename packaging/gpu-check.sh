#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GPU validation of the nccl and gloo_cuda layers, on a machine with a CUDA PyTorch wheel and
# no Qt. Builds commprof-rank alone against the wheel's libtorch, runs
#   nccl at world size 1, gloo_cuda at world sizes 1, 2 and 4 (a ~50M-parameter MLP),
#   and one traced cell,
#   the comm hooks on CUDA tensors (a ~10M-parameter MLP): fp16_compress, bf16_compress,
#   powersgd and local over nccl at world size 1, fp16_compress, bf16_compress and powersgd
#   over gloo_cuda at world size 2 (a hook the backend cannot run fails its cell with the
#   reason in stderr{R}.log, which the archive keeps),
# with plain shell rendezvous, and packs rank files, traces and the machine's facts into one
# small archive for `commprof ingest` and the tests/data/gpu fixtures.
#
#   packaging/gpu-check.sh OUT_DIR      (default: ./gpu-check)
# Must finish well inside 6 minutes on one H200.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/gpu-check}
BUILD=${COMMPROF_GPU_BUILD:-/tmp/commprof-rank-gpu}
mkdir -p "$OUT"
start=$(date +%s)

TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())' | tee "$OUT/torch.txt"
nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader,nounits | tee "$OUT/nvidia-smi.csv" || true

cmake -S "$ROOT" -B "$BUILD" -DCOMMPROF_RANK_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" > "$OUT/configure.log" 2>&1
cmake --build "$BUILD" -j "$(nproc)" > "$OUT/build.log" 2>&1
RANK_BIN="$BUILD/bin/commprof-rank"
"$RANK_BIN" --version --json | tee "$OUT/rank_version.json"

# One cell: WORLD ranks of commprof-rank with torchrun-style environment on 127.0.0.1.
run_cell() {
  local id=$1 world=$2; shift 2
  local dir="$OUT/cells/$id"
  mkdir -p "$dir"
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  local pids=()
  for ((r = 0; r < world; r++)); do
    RANK=$r LOCAL_RANK=$r WORLD_SIZE=$world MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      timeout 240 "$RANK_BIN" --cell-id "$id" --out "$dir" "$@" > "$dir/stdout$r.log" 2> "$dir/stderr$r.log" &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  echo "$id: exit $rc ($(( $(date +%s) - start )) s since start)"
  rm -f "$dir"/stdout*.log
  return 0
}

COMMON=(--model mlp50m --family mlp --params 5e7 --iterations 30 --warmup 5 --batch-size 32 --threads 4)
run_cell mlp50m_nccl_ws1_r0 1 "${COMMON[@]}" --backend nccl --device cuda --layer nccl --trace --trace-first-step 10 --trace-steps 5
for ws in 1 2 4; do
  run_cell "mlp50m_gloo_cuda_ws${ws}_r0" "$ws" "${COMMON[@]}" --backend gloo --device cuda --layer gloo_cuda \
    $([ "$ws" = 2 ] && echo --trace --trace-first-step 10 --trace-steps 5)
done

# The hooks on CUDA tensors. PowerSGD starts at the first recorded iteration (3).
HOOKS=(--model mlp10m --family mlp --params 1e7 --iterations 12 --warmup 3 --batch-size 32 --threads 4)
for hook in fp16_compress bf16_compress powersgd local; do
  run_cell "mlp10m_nccl_ws1_${hook}_r0" 1 "${HOOKS[@]}" --backend nccl --device cuda --layer nccl --hook "$hook"
done
for hook in fp16_compress bf16_compress powersgd; do
  run_cell "mlp10m_gloo_cuda_ws2_${hook}_r0" 2 "${HOOKS[@]}" --backend gloo --device cuda --layer gloo_cuda --hook "$hook"
done

tar -C "$OUT" -czf "$OUT/gpu-check.tar.gz" cells torch.txt nvidia-smi.csv rank_version.json
ls -la "$OUT/gpu-check.tar.gz"
echo "done in $(( $(date +%s) - start )) s"
