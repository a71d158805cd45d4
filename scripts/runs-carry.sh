#!/usr/bin/env bash
# Carries unfinished lab runs between machines, so a study longer than a
# machine lives (study 4 at its published size runs about three hours)
# finishes over several: `save` keeps what a resumed `lab run` needs of each
# study directory in OUT (meta.json, study.toml and every finished run's
# result file, gzipped) in DIR, which is committed; `restore` puts it back
# into OUT on the next machine, and `lab run ... --out OUT --resume` goes on
# from the first run without a result. A run in flight when `save` copies
# has no result file yet and runs again. Engines of one repeat run
# together, so a repeat's ratios never pair machines; the report names
# every commit its rows come from.
#
# Usage: scripts/runs-carry.sh save OUT DIR      (DIR/NAME replaced per study)
#        scripts/runs-carry.sh restore DIR OUT   (runs OUT already has are kept)
#        scripts/runs-carry.sh drop DIR NAME     (a study stored in docs/results)
set -euo pipefail
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -eq 3 ] || usage
run_file=result.jsonl
case $1 in
save)
  out=$2 dir=$3
  found=0
  for s in "$out"/*/; do
    s=${s%/}
    [ -f "$s/meta.json" ] || continue
    name=$(basename "$s")
    dst="$dir/$name"
    rm -rf "$dst"
    mkdir -p "$dst/runs"
    cp "$s/meta.json" "$dst"/
    [ -f "$s/study.toml" ] && cp "$s/study.toml" "$dst"/
    n=0
    for r in "$s"/runs/*/; do
      r=${r%/}
      [ -f "$r/$run_file" ] || continue
      mkdir -p "$dst/runs/$(basename "$r")"
      gzip -9 -c "$r/$run_file" > "$dst/runs/$(basename "$r")/$run_file.gz"
      n=$((n + 1))
    done
    echo "$name: $n finished runs kept in $dst ($(du -sh "$dst" | cut -f1))" >&2
    found=1
  done
  [ $found = 1 ] || { echo "$out: no study directory (no */meta.json)" >&2; exit 1; }
  ;;
restore)
  dir=$2 out=$3
  for s in "$dir"/*/; do
    s=${s%/}
    [ -f "$s/meta.json" ] || continue
    name=$(basename "$s")
    dst="$out/$name"
    mkdir -p "$dst/runs"
    [ -f "$dst/meta.json" ] || cp "$s/meta.json" "$dst"/
    [ -f "$s/study.toml" ] && [ ! -f "$dst/study.toml" ] && cp "$s/study.toml" "$dst"/
    n=0
    for r in "$s"/runs/*/; do
      r=${r%/}
      to="$dst/runs/$(basename "$r")"
      [ -f "$to/$run_file" ] && continue
      mkdir -p "$to"
      gunzip -c "$r/$run_file.gz" > "$to/$run_file"
      n=$((n + 1))
    done
    echo "$name: $n runs restored into $dst" >&2
  done
  ;;
drop)
  dir=$2 name=$3
  rm -rf "${dir:?}/${name:?}"
  ;;
*) usage ;;
esac
