#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Lints the Debian package and installs it with apt into a clean Debian 12 root made with
# mmdebstrap, and checks that the installed programs work there: `commprof --version`,
# `commprof plan` on an installed example and a one-cell `commprof run`. lintian (Debian 12's,
# on the host) runs on the package and its -dbgsym beside it, and fails the check on any error
# or warning; its info and pedantic tags are printed (docs/platforms.md says why each remains).
#
#   packaging/bootstrap.sh package && packaging/deb-check.sh [PATH/TO/commprof_*.deb]
#
# The clean root (mmdebstrap --variant=apt bookworm, nothing else installed) is made once and
# kept in ${COMMPROF_CACHE:-~/.cache/commprof}/debian12-deb/root; every check installs into a
# throwaway copy of it, so apt starts from a clean system each time and must pull every
# dependency itself. The packages apt downloads are kept in .../archives, so only the first
# check downloads them. Needs the mirror (COMMPROF_MIRROR, default http://deb.debian.org/debian)
# for the root and apt's index, and root (chroot, mounts). Prints how long each step took.
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$(pwd)
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=COMMPROF_CACHE,COMMPROF_MIRROR,COMMPROF_BUILD_DIR bash "$0" "$@"
fi
DEB=${1:-}
if [ -z "$DEB" ]; then
  DEB=$(ls -t "${COMMPROF_BUILD_DIR:-$SRC/build}"/commprof_*.deb 2>/dev/null | head -n 1 || true)
fi
say() { echo "deb-check[debian12]: $*" >&2; }
die() {
  say "FAILED: $*"
  exit 1
}
[ -n "$DEB" ] && [ -f "$DEB" ] || {
  say "no package: run packaging/bootstrap.sh package first, or name the .deb"
  exit 2
}
DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")

CACHE=${COMMPROF_CACHE:-$HOME/.cache/commprof}/debian12-deb
BASE=$CACHE/root
ARCHIVES=$CACHE/archives
MIRROR=${COMMPROF_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$CACHE" "$ARCHIVES/partial"

# step NAME CMD...: runs CMD and records how long it took.
TIMES=()
step() {
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$@" || die "$name"
  end=$(date +%s.%N)
  TIMES+=("$(printf '%-34s %7.1f s' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')")")
}

make_base() {
  [ -d "$BASE" ] && return
  command -v mmdebstrap >/dev/null || apt-get install -y -qq --no-install-recommends mmdebstrap >&2
  rm -rf "$BASE.partial"
  say "making a clean bookworm root from $MIRROR in $BASE"
  mmdebstrap --variant=apt --quiet bookworm "$BASE.partial" "$MIRROR" >&2 ||
    { rm -rf "$BASE.partial"; return 1; }
  mv "$BASE.partial" "$BASE"
}

WORK=$(mktemp -d "$CACHE/work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root

copy_base() {
  cp -a --reflink=auto "$BASE" "$ROOT"
  cp "$DEB" "$ROOT/tmp/"
}

# in_root CMD...: CMD in the copy, with apt's download cache, /proc, /sys and /dev mounted in a
# mount namespace of its own (nothing stays mounted afterwards).
in_root() {
  unshare --mount --propagation private -- /bin/bash -euc '
    root=$1 archives=$2
    shift 2
    mount --bind "$archives" "$root/var/cache/apt/archives"
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$root" "$@"
  ' in_root "$ROOT" "$ARCHIVES" \
    /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

install_deb() {
  in_root apt-get update -qq >&2 &&
    in_root apt-get install -y -qq -o APT::Keep-Downloaded-Packages=true \
      -o Dpkg::Options::=--force-unsafe-io \
      "/tmp/$(basename "$DEB")" >&2
}

# What a user runs first, as a user would: from their home, the example the package installs.
use_installed() {
  in_root /bin/bash -euc '
    cd /tmp
    commprof --version
    test "$(command -v commprof-rank)" = /usr/bin/commprof-rank
    commprof plan /usr/share/commprof/configs/experiments/smoke.yaml
    commprof run /usr/share/commprof/configs/experiments/smoke.yaml --out /tmp/results \
      --only mlp2m_gloo_cpu_ws1_r0
    test -s /tmp/results/cells/mlp2m_gloo_cpu_ws1_r0/manifest.json
    commprof cells /tmp/results --format csv
    test -s /usr/share/man/man1/commprof.1.gz -o -s /usr/share/man/man1/commprof.1
    test -s /usr/share/bash-completion/completions/commprof
    test -s /usr/share/doc/commprof/copyright
    test -s /usr/share/doc/commprof/changelog.gz
  '
}

lint() {
  command -v lintian >/dev/null ||
    apt-get install -y -qq --no-install-recommends lintian >&2 ||
    { say "lintian is not installed and cannot be"; return 1; }
  local debs=("$DEB") dbgsym
  dbgsym=$(dirname "$DEB")/$(basename "$DEB" | sed 's/^commprof_/commprof-dbgsym_/')
  [ -f "$dbgsym" ] && debs+=("$dbgsym")
  say "lintian $(lintian --print-version) on ${debs[*]##*/}"
  lintian --display-info --pedantic --fail-on error,warning "${debs[@]}" >&2
}

step "lintian: no error, no warning" lint
step "clean Debian 12 root (cached)" make_base
step "copy of the root" copy_base
step "apt-get install ./$(basename "$DEB")" install_deb
step "version, plan, one-cell run" use_installed
say "passed: $(basename "$DEB") installs with apt on a clean Debian 12 and runs a cell"
printf '%s\n' "${TIMES[@]}" >&2
