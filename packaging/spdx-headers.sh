#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Gives every tracked source file the project's licence line, as REUSE asks: `// SPDX-...` in
# C++, `# SPDX-...` in shell, Python and CMake (after a shebang, and after Python's coding
# line). Files that already carry one anywhere in their first lines are left as they are, so
# running it again, or after a merge brought new files, changes only those. Data (tests/data/,
# images, YAML, docs) is licensed in debian/copyright, which .reuse/dep5 links to.
#
#   packaging/spdx-headers.sh          add the line where it is missing
#   packaging/spdx-headers.sh --check  list the files that lack it; exit 1 if there are any
set -euo pipefail

cd "$(dirname "$0")/.."
# Spelt in two parts so that reuse, which reads this file too, finds no licence tag here.
TAG="SPDX-License""-Identifier:"
LICENSE=GPL-3.0-or-later

# comment_of FILE: the line comment of FILE's language, nothing for a file that is not source.
comment_of() {
  case "$1" in
    tests/data/*) ;;
    *.cpp | *.h | *.hpp | *.cc | *.c) echo "//" ;;
    *.sh | *.py | *.cmake | CMakeLists.txt | */CMakeLists.txt | debian/rules | .ci/run) echo "#" ;;
  esac
}

has_tag() { head -n 5 "$1" | grep -qF "$TAG"; }

# add_tag FILE COMMENT: the line goes first, or after the lines that must stay first.
add_tag() {
  local file=$1 line="$2 $TAG $LICENSE" keep=0 tmp
  if head -n 1 "$file" | grep -q '^#!'; then
    keep=1
    sed -n 2p "$file" | grep -qE '^#.*coding[:=]' && keep=2
  fi
  tmp=$(mktemp)
  { head -n "$keep" "$file"; echo "$line"; tail -n "+$((keep + 1))" "$file"; } >"$tmp"
  cat "$tmp" >"$file" # into the file itself: its mode (executable scripts) stays
  rm -f "$tmp"
}

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac

missing=0
while IFS= read -r -d '' file; do
  [ -f "$file" ] && [ ! -L "$file" ] || continue
  comment=$(comment_of "$file")
  [ -n "$comment" ] || continue
  has_tag "$file" && continue
  missing=$((missing + 1))
  if [ "$check" -eq 1 ]; then
    echo "$file"
  else
    add_tag "$file" "$comment"
  fi
done < <(git ls-files -z)

if [ "$check" -eq 1 ] && [ "$missing" -gt 0 ]; then
  echo "spdx-headers: $missing file(s) lack '$TAG $LICENSE': run packaging/spdx-headers.sh" >&2
  exit 1
fi
[ "$check" -eq 1 ] || echo "spdx-headers: added the line to $missing file(s)" >&2
