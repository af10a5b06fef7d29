#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds and tests commprof on another Debian release, in a root of its own made with mmdebstrap
# from that release's packages (the list in packages.sh, shared with bootstrap.sh). Today that
# is Debian 13 (trixie: Qt 6.8, libtorch 2.6 and python3-torch 2.6, both without Kineto).
#
#   packaging/platform-check.sh debian13            build and run the suites whose outcome
#                                                   depends on PyTorch (ctest label pytorch),
#                                                   a 2-rank cell checked against Python DDP,
#                                                   and the same cell's ranks started by torchrun
#   packaging/platform-check.sh debian13 test-all   the same with every target and suite
#   packaging/platform-check.sh debian13 torchrun   build commprof-rank alone and run that
#                                                   torchrun step
#   packaging/platform-check.sh debian13 run CMD..  one command in the root, where /src is this
#                                                   tree, /build its build and /shared ../shared
#   packaging/platform-check.sh debian13 shell      a shell there
#
# The root is kept in ${COMMPROF_CACHE:-~/.cache/commprof}/debian13/ and reused while the
# package list is unchanged: nothing is downloaded then. Making or updating it needs the mirror
# (COMMPROF_MIRROR, default http://deb.debian.org/debian); when that cannot be reached the check
# fails and says so. The root shares the host's ccache directory. Needs root (chroot, mounts).
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$(pwd)
RELEASE=${1:-}
ACTION=${2:-test}
case "$RELEASE" in
  debian13) SUITE=trixie ;;
  *)
    echo "usage: $0 debian13 [test | test-all | torchrun | run CMD... | shell]" >&2
    exit 2
    ;;
esac
shift $(($# >= 2 ? 2 : $#))
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=COMMPROF_CACHE,COMMPROF_MIRROR,COMMPROF_JOBS,COMMPROF_CTEST_JOBS,CCACHE_DISABLE bash "$0" "$RELEASE" "$ACTION" "$@"
fi

CACHE=${COMMPROF_CACHE:-$HOME/.cache/commprof}/$RELEASE
ROOTFS=$CACHE/root
BUILD_DIR=$CACHE/build
MIRROR=${COMMPROF_MIRROR:-http://deb.debian.org/debian}
JOBS=${COMMPROF_JOBS:-$(nproc)}
CTEST_JOBS=${COMMPROF_CTEST_JOBS:-$((2 * JOBS))} # as in bootstrap.sh: suites mostly wait on ranks

# shellcheck source=packages.sh
source "$SRC/packaging/packages.sh"
mapfile -t WANTED < <(commprof_packages "$RELEASE")

say() { echo "platform-check[$RELEASE]: $*" >&2; }
die() {
  say "FAILED: $*"
  exit 1
}

host_ccache_setting() {
  command -v ccache >/dev/null && ccache -k "$1" 2>/dev/null || true
}
CCACHE=$(host_ccache_setting cache_dir)
CCACHE=${CCACHE:-$CACHE/ccache}
CCACHE_SIZE=$(host_ccache_setting max_size)

# in_root CMD...: CMD in the root, with this tree, the build, ccache, /proc, /sys and /dev
# mounted in a mount namespace of its own (nothing stays mounted afterwards).
in_root() {
  local shared=""
  [ -d "$SRC/../shared" ] && shared=$(cd "$SRC/../shared" && pwd -P)
  mkdir -p "$BUILD_DIR" "$CCACHE" "$ROOTFS/src" "$ROOTFS/build" "$ROOTFS/shared" "$ROOTFS/ccache"
  unshare --mount --propagation private -- /bin/bash -euc '
    root=$1 src=$2 build=$3 ccache=$4 shared=$5
    shift 5
    # The root shares the host network, so it resolves the host names as the host does (a
    # Slurm node is named by the host name, and the ranks rendezvous at it).
    [ -e "$root/etc/hosts" ] || : >"$root/etc/hosts" # a fresh root has none to mount over
    mount --bind /etc/hosts "$root/etc/hosts"
    mount --bind "$src" "$root/src"
    mount --bind "$build" "$root/build"
    mount --bind "$ccache" "$root/ccache"
    [ -z "$shared" ] || mount --bind "$shared" "$root/shared"
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" "$@"
  ' in_root "$ROOTFS" "$SRC" "$BUILD_DIR" "$CCACHE" "$shared" \
    /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive CCACHE_DIR=/ccache \
    CCACHE_MAXSIZE="${CCACHE_SIZE:-10G}" \
    CCACHE_SLOPPINESS=include_file_ctime,include_file_mtime,pch_defines,time_macros \
    ${CCACHE_DISABLE:+CCACHE_DISABLE=$CCACHE_DISABLE} COMMPROF_JOBS="$JOBS" "$@"
}

make_root() {
  if ! command -v mmdebstrap >/dev/null; then
    say "installing mmdebstrap"
    { apt-get install -y -qq --no-install-recommends mmdebstrap ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends mmdebstrap; }; } >&2 ||
      die "cannot install mmdebstrap on this host"
  fi
  local partial=$ROOTFS.partial
  rm -rf "$partial"
  mkdir -p "$CACHE"
  say "making a $SUITE root from $MIRROR in $ROOTFS"
  if ! mmdebstrap --variant=apt --quiet "$SUITE" "$partial" "$MIRROR" >&2; then
    rm -rf "$partial"
    die "mmdebstrap could not make a $SUITE root from $MIRROR: is the mirror reachable?"
  fi
  mv "$partial" "$ROOTFS"
}

installed_in_root() {
  in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

install_packages() {
  local stamp=$ROOTFS/.commprof-packages
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(printf '%s\n' "${WANTED[@]}")" ]; then
    say "reusing $ROOTFS: the package list is unchanged"
    return
  fi
  say "installing the package list into the root"
  in_root /bin/true || die "cannot enter the $SUITE root in $ROOTFS (the lines above say why)"
  in_root apt-get update -qq >&2 ||
    die "apt-get update in the $SUITE root failed: the mirror $MIRROR cannot be reached"
  local available=() p
  for p in "${WANTED[@]}"; do
    if in_root apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
      available+=("$p")
    fi
  done
  in_root apt-get install -y -qq --no-install-recommends "${available[@]}" >&2 ||
    die "apt-get install in the $SUITE root failed (mirror $MIRROR)"
  in_root apt-get clean
  printf '%s\n' "${WANTED[@]}" >"$stamp"
}

# Sets CMAKE_FLAGS, RUN_CTEST and HAVE_PYTORCH from what is missing, and says what is skipped.
plan_build() {
  CMAKE_FLAGS=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
  RUN_CTEST=1
  HAVE_PYTORCH=1
  local p lost missing=0
  for p in "${WANTED[@]}"; do
    installed_in_root "$p" && continue
    missing=1
    lost=$(commprof_without "$p")
    [ "$lost" = fatal ] && die "$p is not in Debian $SUITE: nothing can be built"
    say "SKIPPED: $p is not in Debian $SUITE, so ${lost:-nothing} is built or tested without it"
    case "$p" in
      libtorch-dev | libgloo-dev) CMAKE_FLAGS+=(-DCOMMPROF_BUILD_RANK=OFF) ;;
      python3-torch) HAVE_PYTORCH=0 ;;
      ccache | pkg-config | fonts-dejavu-core | man-db | zsh | bsdutils | dpkg-dev) ;;
      texlive-latex-base) ;;
      debhelper | lintian | reuse | appstream | desktop-file-utils) ;;
      *)
        CMAKE_FLAGS+=(-DCOMMPROF_RANK_ONLY=ON)
        RUN_CTEST=0
        ;;
    esac
  done
  [ "$missing" -eq 1 ] || say "every package of the list is in Debian $SUITE: nothing skipped"
}

# SCOPE pytorch: only the suites labelled pytorch (what depends on the PyTorch release) and what
# they need; all: every target and suite.
build_and_test() {
  local scope=$1 targets=() labels=()
  plan_build
  in_root cmake -S /src -B /build "${CMAKE_FLAGS[@]}" >&2
  if [ "$scope" = pytorch ] && [ "$RUN_CTEST" -eq 1 ]; then
    mapfile -t targets < <(in_root ctest --test-dir /build -N -L pytorch |
      sed -n 's/^ *Test *#[0-9]*: *//p')
    [ ${#targets[@]} -gt 0 ] || die "no suite is labelled pytorch in /build"
    say "building commprof and the ${#targets[@]} suites labelled pytorch (-j $JOBS)"
    targets=(--target commprof "${targets[@]}")
    labels=(-L pytorch)
  else
    say "building /src in /build (-j $JOBS)"
  fi
  in_root cmake --build /build -j "$JOBS" "${targets[@]}" >&2
  if [ -x "$BUILD_DIR/bin/commprof-rank" ]; then
    echo "Debian $SUITE commprof-rank --version --json: $(in_root /build/bin/commprof-rank --version --json)"
  fi
  if [ "$RUN_CTEST" -eq 1 ]; then
    say "ctest (-j $CTEST_JOBS${labels[*]:+, ${labels[*]}})"
    in_root env COMMPROF_REQUIRE_PYTORCH="$HAVE_PYTORCH" ctest --test-dir /build \
      --output-on-failure -j "$CTEST_JOBS" "${labels[@]}"
  fi
  if [ "$RUN_CTEST" -eq 1 ] && [ "$HAVE_PYTORCH" -eq 1 ] && [ -x "$BUILD_DIR/bin/commprof-rank" ]; then
    say "a 2-rank gloo cell, checked against Python DDP"
    in_root /bin/bash -euc '
      out=$(mktemp -d)
      /build/bin/commprof run /src/configs/experiments/smoke.yaml --out "$out" \
        --only mlp2m_gloo_cpu_ws2_r0 >&2
      python3 /src/packaging/cell_check.py "$out" mlp2m_gloo_cpu_ws2_r0 /build/bin/commprof
      rm -rf "$out"'
    torchrun_cell
  fi
}

# The smoke matrix's 2-rank cell with its ranks started by torchrun --no-python instead of
# commprof run (Debian 12's torchrun, torch 1.13 on Python 3.11, does not start), checked like
# the cell above minus what needs commprof run's manifest. torchrun serves the rendezvous store
# (TORCHELASTIC_USE_AGENT_STORE), so this is the one path where commprof-rank is a TCPStore
# client. Debian's torch 2.6 has no libuv, and torchrun's own store asks for it with nothing to
# turn that off: torchrun_without_libuv.py is torchrun's main with the classic store.
torchrun_cell() {
  say "torchrun --nproc-per-node 2 --no-python commprof-rank: the same cell's ranks"
  say "(plain torchrun, to show why the wrapper: $(in_root /bin/bash -c 'cd /tmp && timeout 120 torchrun --nproc-per-node 1 --no-python /bin/true 2>&1 | grep -m1 -o "RuntimeError: .*" || echo "it started"'))"
  in_root /bin/bash -euc '
    out=$(mktemp -d)
    port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
    cell=mlp2m_gloo_cpu_ws2_r0
    mkdir -p "$out/cells/$cell" # commprof run makes the cell folder; here nothing does
    timeout 300 python3 /src/packaging/torchrun_without_libuv.py --nnodes 1 --nproc-per-node 2 \
      --master-addr 127.0.0.1 --master-port "$port" --no-python \
      /build/bin/commprof-rank --cell-id "$cell" --model mlp2m --family mlp --params 2e6 \
      --iterations 30 --warmup 5 --batch-size 32 --threads 1 --out "$out/cells/$cell" >&2
    python3 /src/packaging/cell_check.py --ranks-only "$out" "$cell"
    rm -rf "$out"'
}

# Only what the torchrun step needs: commprof-rank.
build_rank_and_torchrun() {
  plan_build
  [ "$HAVE_PYTORCH" -eq 1 ] || die "python3-torch (torchrun) is not in Debian $SUITE"
  say "building commprof-rank in /build (-j $JOBS)"
  in_root cmake -S /src -B /build "${CMAKE_FLAGS[@]}" >&2
  in_root cmake --build /build -j "$JOBS" --target commprof-rank >&2
  echo "Debian $SUITE commprof-rank --version --json: $(in_root /build/bin/commprof-rank --version --json)"
  torchrun_cell
}

[ -d "$ROOTFS" ] || make_root
install_packages
case "$ACTION" in
  test) build_and_test pytorch ;;
  test-all) build_and_test all ;;
  torchrun) build_rank_and_torchrun ;;
  run) in_root "$@" ;;
  shell) in_root /bin/bash -l ;;
  *) die "unknown action '$ACTION' (test, test-all, torchrun, run or shell)" ;;
esac
