#!/usr/bin/env bash
# Copies the part of a capacity directory that docs/results keeps: the
# report (report.md, report.html with the charts inline), the SVG charts the
# Markdown report shows, the search's log and facts (trials.jsonl,
# capacity.json, capacity.toml), the study-style rows (results.csv) and each
# run's judgement and bench command. The runs' per-second samples and bench
# output (about 0.3 MB a run) are left out: the command in capacity.json
# makes them again.
#
# Usage: scripts/capacity-keep.sh SRC DEST   (DEST is replaced)
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 SRC DEST" >&2
  exit 2
fi
src=$1
dst=$2
[ -f "$src/capacity.json" ] || { echo "$src: not a capacity directory (no capacity.json)" >&2; exit 1; }
rm -rf "$dst"
mkdir -p "$dst/charts" "$dst/runs"
cp "$src"/report.md "$src"/report.html "$src"/trials.jsonl "$src"/capacity.json \
  "$src"/capacity.toml "$src"/results.csv "$dst"/
cp "$src"/charts/*.svg "$dst"/charts/
for r in "$src"/runs/*/; do
  n=$(basename "$r")
  mkdir -p "$dst/runs/$n"
  for f in judgement.json step1.cmd; do
    if [ -f "$r/$f" ]; then cp "$r/$f" "$dst/runs/$n/"; fi
  done
done
du -sh "$dst"
