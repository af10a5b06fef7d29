#!/usr/bin/env bash
# Re-makes the README's screenshots from real runs, offscreen, at 1920x1080 and 1366x768:
#   docs/images/make_screenshots.sh [BUILD_DIR]   (run from the project root; takes minutes)
# The smoke matrix as `packaging/bootstrap.sh run` runs it, two fingerprinted runs with a
# planted divergence on rank 1 for the determinism view, and a run caught mid-way for the
# run monitor.
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
# The whole window at both sizes; each view as it is at 1920x1080.
cp "$work/shots_1366x768/workbench.png" "$out/workbench_1366.png"
for f in workbench designer run_monitor timeline cell_inspector results determinism probe; do
  cp "$work/shots_1920x1080/$f.png" "$out/$f.png"
done
echo "screenshots in $out (work files in $work)" >&2
