#!/usr/bin/env bash
# Runs again what docs/results keeps of the studies and the engine sweeps,
# each at its published size (`full`), on every engine that has what its
# cells need: Strata, release RocksDB, LevelDB's own release db_bench and
# fjall. The studies' claims get `--until-decided` within a budget; the
# sweeps have no claims and run their repeats. Each run resumes what is in
# OUT, so a second call after an interruption (or a session's end)
# continues where the first stopped; a finished run is only re-reported.
#
# Usage: scripts/results-rerun.sh BIN OUT [NAME...]
#   BIN    a `strata` built with `--features rocksdb,leveldb-db-bench`
#   OUT    where the runs go (OUT/NAME-full)
#   NAME   blob bloom write_buffer write_buffer_workloads subcompactions
#          wal_compaction hot_cold engines suite gets ycsb mixgraph embedding
#          (default: all, in this order)
# Environment:
#   SCALE  the scale to run (default full; `quick` tries the script out)
#   KEEP   1: copy each finished run into docs/results (scripts/study-keep.sh,
#          replacing that study's folders of other scales) and re-index
#   CARRY  a folder of unfinished runs (scripts/runs-carry.sh): restored into
#          OUT first, and a study's entry removed once its run finishes; keep
#          what OUT holds there with `scripts/runs-carry.sh save OUT CARRY`
#          before the machine goes, and commit it
#
# Engines per study: LevelDB and fjall run the cells whose flags they have
# and skip the others, naming the flag. wal_compaction and subcompactions
# leave them out: every claim there is on bytes written (which neither
# engine reports) or on subcompactions and level sizes (which neither has).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
fi
bin=$1
out=$2
shift 2
scale=${SCALE:-full}
here=$(cd "$(dirname "$0")/.." && pwd)

all4=strata,rocksdb,leveldb,fjall
# NAME: the study (a name under studies/ or a sweep file), then its options.
declare -A args=(
  [blob]="blob --engines $all4 --repeats 5 --until-decided --max-repeats 10 --budget 240"
  [bloom]="bloom --engines $all4 --repeats 10 --until-decided --max-repeats 20 --budget 120"
  [write_buffer]="write_buffer --engines $all4 --repeats 3 --until-decided --max-repeats 12 --budget 90"
  [write_buffer_workloads]="write_buffer_workloads --engines strata,rocksdb --repeats 3 --until-decided --max-repeats 12 --budget 120"
  [subcompactions]="subcompactions --engines strata,rocksdb --repeats 3 --until-decided --max-repeats 6 --budget 180"
  [wal_compaction]="wal_compaction --engines strata,rocksdb --repeats 3 --until-decided --max-repeats 6 --budget 240"
  [hot_cold]="hot_cold --engines strata,rocksdb --repeats 3 --until-decided --max-repeats 12 --budget 120"
  [engines]="sweeps/engines.toml --engines $all4 --repeats 3"
  [suite]="sweeps/suite.toml --engines $all4 --repeats 3"
  [gets]="sweeps/gets.toml --engines strata,leveldb,rocksdb --repeats 3"
  [ycsb]="sweeps/ycsb.toml --engines $all4 --repeats 3 --timeout 1800"
  [mixgraph]="sweeps/mixgraph.toml --engines $all4 --repeats 3"
  [embedding]="sweeps/embedding.toml --engines strata,rocksdb --repeats 3"
)
order=(blob bloom write_buffer write_buffer_workloads subcompactions wal_compaction hot_cold
  engines suite gets ycsb mixgraph embedding)
[ $# -gt 0 ] && order=("$@")
for name in "${order[@]}"; do
  [ -n "${args[$name]:-}" ] || { echo "unknown name '$name' (one of: ${!args[*]})" >&2; exit 2; }
done

cd "$here"
if [ -n "${CARRY:-}" ] && [ -d "$CARRY" ]; then
  scripts/runs-carry.sh restore "$CARRY" "$out"
fi
for name in "${order[@]}"; do
  read -r -a a <<<"${args[$name]}"
  # LevelDB through its own db_bench where a study runs it; the sweeps run
  # it in process (a release build of the same sources), since its db_bench
  # lacks their ycsb_*, mixgraph and waitforcompaction and fails those runs.
  case "${args[$name]}" in sweeps/*) ;; *leveldb*) a+=(--leveldb-bench bundled) ;; esac
  echo "== $name ($scale): $bin lab run ${a[*]} --scale $scale --out $out --resume" >&2
  start=$(date +%s)
  "$bin" lab run "${a[@]}" --scale "$scale" --out "$out" --resume
  echo "== $name: $(( ($(date +%s) - start) / 60 )) min" >&2
  study=$(basename "${a[0]}" .toml)
  if [ -n "${CARRY:-}" ]; then
    scripts/runs-carry.sh drop "$CARRY" "$study-$scale"
  fi
  if [ "${KEEP:-0}" = 1 ]; then
    src="$out/$study-$scale"
    for old in docs/results/"$study"-*; do
      [ -d "$old" ] && [ "$old" != "docs/results/$study-$scale" ] && rm -rf "$old"
    done
    scripts/study-keep.sh "$src" "docs/results/$study-$scale"
  fi
done
if [ "${KEEP:-0}" = 1 ]; then
  "$bin" lab index docs/results
fi
