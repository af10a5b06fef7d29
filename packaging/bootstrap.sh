#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what commprof needs (Debian 12 packages, listed in packages.sh), builds it, and
# either runs the default experiment or the test suite.
#
#   packaging/bootstrap.sh run    build, run configs/experiments/smoke.yaml into ./results/,
#                                 write the report, open the workbench on it
#   packaging/bootstrap.sh test   build and run the ctest suite
#   packaging/bootstrap.sh models build, and make the TorchScript files that
#                                 configs/experiments/real_models.yaml names (commprof model
#                                 export, with python3-torch and python3-torchvision)
#   packaging/bootstrap.sh package  make the Debian package (debian/, dpkg-buildpackage) from a
#                                 copy of the tree, and put commprof_*.deb and its -dbgsym into
#                                 the build folder; packaging/deb-check.sh lints it and installs
#                                 it into a clean Debian 12 root
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${COMMPROF_BUILD_DIR:-$ROOT/build}
JOBS=${COMMPROF_JOBS:-$(nproc)}
# Two suites a core: most of a suite's time is spent waiting on its rank processes and their
# deadlines, and every suite is isolated to run beside three others (CI's 2 cores, ctest -j4).
CTEST_JOBS=${COMMPROF_CTEST_JOBS:-$((2 * JOBS))}

# shellcheck source=packages.sh
source "$ROOT/packaging/packages.sh"
mapfile -t PACKAGES < <(commprof_packages debian12)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return
  fi
  echo "bootstrap: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

build() {
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build "$BUILD" -j "$JOBS" >&2
}

# dpkg-buildpackage builds in the tree it is given and writes the packages beside it: it gets a
# copy of the project's files (tracked and new, never build output) in the build folder, so the
# checkout stays clean and nothing lands in its parent. The tests are not built or run there
# (nocheck): `bootstrap.sh test` runs them. Set DEB_BUILD_OPTIONS to choose otherwise.
package() {
  local version out src
  version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
  out=$BUILD/debian-package
  src=$out/commprof-$version
  mkdir -p "$out"
  rm -rf "$src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
  mkdir -p "$src"
  if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
      (cd "$ROOT" && xargs -0 cp --parents -P -t "$src" 2>/dev/null || true)
  else
    tar -C "$ROOT" --exclude=./build --exclude=./results --exclude=./.git -c . | tar -C "$src" -x
  fi
  [ -x "$src/debian/rules" ] || { echo "bootstrap: could not copy the tree to $src" >&2; exit 1; }
  local options=${DEB_BUILD_OPTIONS-"nocheck parallel=$JOBS"} profiles=""
  case " $options " in *" nocheck "*) profiles=nocheck ;; esac
  (cd "$src" &&
    DEB_BUILD_OPTIONS=$options DEB_BUILD_PROFILES=$profiles dpkg-buildpackage -us -uc -b >&2)
  cp "$out"/*.deb "$BUILD"/
}

# The modules of real_models.yaml, each exported once: SPEC, then its file and export flags.
make_models() {
  local dir="$ROOT/configs/experiments/models"
  local -a models=(
    "torchvision:resnet18|resnet18.pt|--input-shape 3,64,64 --classes 1000"
    "gpt:layers=6,d=512,heads=8,seq=128,vocab=32000|gpt6.pt|"
  )
  local entry spec file flags
  for entry in "${models[@]}"; do
    IFS='|' read -r spec file flags <<<"$entry"
    if [ -f "$dir/$file" ]; then
      continue
    fi
    # shellcheck disable=SC2086 # flags are words
    "$BUILD/bin/commprof" model export "$spec" --out "$dir/$file" $flags
  done
}

has_command() {
  "$BUILD/bin/commprof" --help 2>/dev/null | grep -q "^  $1 "
}

run_default_matrix() {
  local out="$ROOT/results"
  local bin="$BUILD/bin"
  mkdir -p "$out"
  if has_command probe; then "$bin/commprof" probe || true; fi
  "$bin/commprof" plan "$ROOT/configs/experiments/smoke.yaml"
  "$bin/commprof" run "$ROOT/configs/experiments/smoke.yaml" --out "$out/smoke" --resume
  "$bin/commprof" calibrate "$out/smoke" || true
  if has_command ingest; then "$bin/commprof" ingest "$out/smoke"; fi
  if has_command cells; then "$bin/commprof" cells "$out/smoke"; fi
  if has_command report; then "$bin/commprof" report "$out/smoke" --out "$out/smoke/report"; fi
  for trace in "$out"/smoke/cells/*/trace_rank0.json.gz; do
    [ -f "$trace" ] && "$bin/commprof" trace summarize "$trace"
  done
  local trace="$out/smoke/cells/mlp2m_gloo_cpu_ws2_r0/trace_rank0.json.gz"
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    "$bin/commprof-workbench" --results "$out/smoke" --trace "$trace"
  else
    echo
    echo "No display: results are in $out/smoke (one folder per cell under cells/)."
    if has_command report; then echo "Figures and cells.csv are in $out/smoke/report."; fi
    echo "Open them later with: $bin/commprof-workbench --results $out/smoke --trace $trace"
  fi
}

case "${1:-}" in
  run)
    install_packages
    build
    run_default_matrix
    ;;
  test)
    install_packages
    build
    # python3-torch is in the list: the Python DDP reference must run, never skip.
    COMMPROF_REQUIRE_PYTORCH=1 ctest --test-dir "$BUILD" --output-on-failure -j "$CTEST_JOBS"
    ;;
  models)
    install_packages
    build
    make_models
    ;;
  package)
    install_packages
    package
    ls "$BUILD"/commprof_*.deb
    ;;
  *)
    echo "usage: $0 run|test|models|package" >&2
    exit 2
    ;;
esac
