#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# debian/control's Build-Depends name only packages that packaging/packages.sh lists, so the
# packages bootstrap.sh installs are all that dpkg-buildpackage (bootstrap.sh package) needs.
set -euo pipefail
src=${1:?usage: $0 SOURCE_DIR}
# shellcheck source=../packaging/packages.sh
source "$src/packaging/packages.sh"
mapfile -t listed < <(commprof_packages debian12)
# The field's lines up to the next field, without versions, profiles and the debhelper-compat
# virtual package (debhelper is listed).
mapfile -t wanted < <(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$src/debian/control" |
  sed -e 's/^Build-Depends://' -e '/^[A-Z#]/d' | tr ',' '\n' |
  sed -e 's/[(<[].*//' -e 's/[[:space:]]//g' | grep -v -e '^$' -e '^debhelper-compat$')
[ ${#wanted[@]} -gt 5 ] || { echo "could not read Build-Depends from debian/control" >&2; exit 1; }
missing=0
for p in "${wanted[@]}"; do
  # A here-string, not a pipe: under pipefail, grep -q leaving early would fail the printf.
  if ! grep -qx -- "$p" <<<"$(printf '%s\n' "${listed[@]}")"; then
    echo "debian/control Build-Depends $p, which packaging/packages.sh does not list" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] && echo "Build-Depends: ${#wanted[@]} packages, all in packaging/packages.sh"
exit "$missing"
