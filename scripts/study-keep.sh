#!/usr/bin/env bash
# Copies the part of a study directory that docs/results keeps: the report
# (report.md, and report.html with the charts inline), the SVG charts the
# Markdown report shows, the rows each verdict rests on (claims/), the main
# metrics (results.csv), the study file and host facts (study.toml,
# meta.json), and every figure of every run as results.jsonl.gz, from which
# `strata lab report DEST` writes the report again. The PNG charts and the
# runs' own folders (bench output, per-run JSON) are left out.
#
# Usage: scripts/study-keep.sh SRC DEST   (DEST is replaced)
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 SRC DEST" >&2
  exit 2
fi
src=$1
dst=$2
[ -f "$src/report.md" ] && [ -f "$src/meta.json" ] ||
  { echo "$src: not a study directory (no report.md and meta.json)" >&2; exit 1; }
rm -rf "$dst"
mkdir -p "$dst/charts"
cp "$src"/report.md "$src"/report.html "$src"/meta.json "$src"/results.csv "$src"/study.toml "$dst"/
cp "$src"/charts/*.svg "$dst"/charts/
if [ -d "$src/claims" ]; then cp -r "$src/claims" "$dst"/; fi
if [ -f "$src/results.jsonl" ]; then
  gzip -9 -c "$src/results.jsonl" > "$dst/results.jsonl.gz"
elif [ -f "$src/results.jsonl.gz" ]; then
  cp "$src/results.jsonl.gz" "$dst"/
else
  echo "$src: no results.jsonl" >&2
  exit 1
fi
du -sh "$dst"
