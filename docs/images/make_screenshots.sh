#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Re-makes the README's screenshots from real runs, offscreen, at 1920x1080 and 1366x768:
#   docs/images/make_screenshots.sh [BUILD_DIR]   (run from the project root; takes minutes)
# The smoke matrix as `packaging/bootstrap.sh run` runs it, two fingerprinted runs with a
# planted divergence on rank 1 for the determinism view, a run caught mid-way for the run
# monitor, and the tuning study for the bucket cap study's page.
set -euo pipefail
keep=${KEEP_WORK:-}
build=${1:-build}
bin=$build/bin
work=$(mktemp -d /tmp/commprof-shots.XXXXXX)
out=docs/images

"$bin/commprof" run configs/experiments/smoke.yaml --out "$work/smoke" >&2
"$bin/commprof" ingest "$work/smoke" >&2

arm() { # arm NAME [extra commprof-rank flags]: two ranks over gloo with fingerprints
  local dir=$work/$1; shift
  local port=$((29600 + RANDOM % 300))
  for rank in 0 1; do
    RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      "$bin/commprof-rank" --params 1e5 --iterations 5 --warmup 1 --threads 1 --batch-size 4 \
      --out "$dir" --fingerprint semantic,op "$@" > /dev/null &
  done
  wait
}
arm fp_a
arm fp_b --perturb aten::addmm@1:2

for size in 1920x1080 1366x768; do
  shots=$work/shots_$size
  QT_QPA_PLATFORM=offscreen "$bin/commprof-workbench" --size "$size" \
    --results "$work/smoke" --compare "$work/fp_a,$work/fp_b" --probe --screenshot "$shots"
  QT_QPA_PLATFORM=offscreen "$bin/commprof-workbench" --size "$size" \
    --matrix configs/experiments/smoke.yaml --output "$work/midrun_$size" --run \
    --screenshot "$shots/midrun"
  cp "$shots/midrun/run_monitor.png" "$shots/run_monitor.png"
done
# The whole window at both sizes, in the Inspect and the Results workspaces; each view as it
# is at 1920x1080.
cp "$work/shots_1920x1080/workbench_inspect.png" "$out/workbench.png"
cp "$work/shots_1920x1080/workbench_results.png" "$out/workbench_results.png"
cp "$work/shots_1366x768/workbench_inspect.png" "$out/workbench_1366.png"
cp "$work/shots_1366x768/workbench_results.png" "$out/workbench_results_1366.png"
cp "$work/shots_1920x1080/workbench_whatif.png" "$out/workbench_whatif.png"
cp "$work/shots_1366x768/workbench_whatif.png" "$out/workbench_whatif_1366.png"
for f in designer run_monitor timeline cell_inspector results determinism probe; do
  cp "$work/shots_1920x1080/$f.png" "$out/$f.png"
done
# The results with the world-size-2 sweep selected: its bandwidth figure comes forward.
QT_QPA_PLATFORM=offscreen "$bin/commprof-workbench" --size 1920x1080 \
  --results "$work/smoke" --select sweep_gloo_cpu_ws2_r0 --screenshot "$work/shots_sweep"
cp "$work/shots_sweep/results.png" "$out/results_sweep.png"
# The trace timeline on its own: the 54 MB Kineto fixture, and every rank of a world-size-3 cell.
cat > "$work/ws3.yaml" <<'YAML'
name: timeline_ws3
defaults:
  iterations: 14
  warmup: 3
  batch_size: 32
  trace: {enabled: true, first_step: 6, steps: 4}
  timeout_s: 300
models:
  - {name: mlp2m, family: mlp, params: 2.0e6}
layers:
  - {name: gloo_cpu, backend: gloo, device: cpu}
world_sizes: [3]
YAML
"$bin/commprof" run "$work/ws3.yaml" --out "$work/ws3" >&2
kineto=${COMMPROF_FIXTURES:-../shared/fixtures}/traces/kineto_nccl_ddp_ws2_large_rank1.json.gz
for size in 1920x1080 1366x768; do
  suffix=$([ "$size" = 1920x1080 ] || echo _1366)
  QT_QPA_PLATFORM=offscreen "$bin/timeline_shots" "$out/timeline_kineto$suffix.png" "$size" \
    "$kineto" --step 1 --select nccl
  QT_QPA_PLATFORM=offscreen "$bin/timeline_shots" "$out/timeline_ws3$suffix.png" "$size" \
    "$work/ws3/cells/mlp2m_gloo_cpu_ws3_r0" --step 1 --select allreduce
done
# The bucket cap study's page: configs/experiments/tuning.yaml (about 2 minutes; a folder of it
# already run can be given as COMMPROF_TUNING_RESULTS).
tuning=${COMMPROF_TUNING_RESULTS:-$work/tuning}
[ -d "$tuning/cells" ] || "$bin/commprof" run configs/experiments/tuning.yaml --out "$tuning" >&2
for size in 1920x1080 1366x768; do
  suffix=$([ "$size" = 1920x1080 ] || echo _1366)
  QT_QPA_PLATFORM=offscreen "$bin/commprof-workbench" --size "$size" --results "$tuning" \
    --select mlp2m_gloo_cpu_ws2_cap1_allreduce_r0 --screenshot "$work/shots_tuning_$size"
  cp "$work/shots_tuning_$size/workbench_results_bucket_cap_study.png" \
    "$out/workbench_tuning$suffix.png"
done
echo "screenshots in $out (work files in $work)" >&2
