#!/usr/bin/env bash
# Strata's Gets and fills without a memtable key filter (`off`,
# --memtable_bloom_size_ratio=0) and with one (`on`, whole keys, ratio
# RATIO), alternating within each of 3 rounds, each side on a fresh DB with
# the page cache dropped first (needs root for that). The raw lines behind
# docs/results/reads-ab/memtable-filter.md.
#
#   scripts/memtable-filter-ab.sh large STRATA DIR [RATIO]   # 2 KB values, cases r and f
#   scripts/memtable-filter-ab.sh small STRATA DIR [RATIO]   # 100-byte values
#   scripts/memtable-filter-ab.sh leveldb STRATA DIR          # 2 KB, r and f: Strata's defaults
#                                                           # against --engine=leveldb
#
# STRATA is a release `strata` binary; DIR holds the DB and each run's
# output (the DB is removed at the end). RATIO defaults to 0.02. Prints
# `case round side step micros/op` lines (step `fill`: fillrandom; for
# `leveldb` the side is the engine), and
# for `large` the run's memtable hits and misses as comment lines.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 large|small|leveldb STRATA DIR [RATIO]" >&2
  exit 2
fi
kind=$1
bin=$2
dir=$3
ratio=${4:-0.02}
mkdir -p "$dir"
db=$dir/db
on="--memtable_whole_key_filtering=true --memtable_bloom_size_ratio=$ratio"
off="--memtable_bloom_size_ratio=0"
drop() {
  rm -rf "$db"
  sync
  echo 3 > /proc/sys/vm/drop_caches
}
# The steps of case r (the reads compact the tree to one run; the fill's
# last memtable is still searched first) and f (Gets straight after the
# fill), in $benches and $extra.
case_steps() {
  if [ "$1" = r ]; then
    benches="fillrandom,waitforcompaction$(printf ',readrandom%.0s' {1..10}),waitforcompaction,readrandom,readrandom,readrandom"
    extra="--read_sampling_multiplier=16"
  else
    benches="fillrandom,readrandom,readrandom,readrandom"
    extra=""
  fi
}
large_common="--num=1000000 --value_size=2000 --compression_ratio=1 --compression_type=none --cache_size=8388608 --reads=250000 --bloom_bits=-1 --seed=1 --statistics=1 --verify_checksum=0"
case $kind in
leveldb)
  for round in 1 2 3; do
    for e in strata leveldb; do
      for c in r f; do
        drop
        case_steps "$c"
        log=$dir/$c-$e.log
        # shellcheck disable=SC2086
        "$bin" bench --engine="$e" --db="$db" $large_common $extra --benchmarks="$benches" > "$log" 2>&1
        grep -E '^fillrandom ' "$log" | awk -v c="$c" -v r="$round" -v s="$e" '{print c, r, s, "fill", $3}'
        grep -E '^readrandom ' "$log" | tail -3 | awk -v c="$c" -v r="$round" -v s="$e" '{n++; print c, r, s, n, $3}'
      done
    done
  done
  ;;
large)
  common=$large_common
  for round in 1 2 3; do
    for side in off on; do
      flags=$off
      [ "$side" = on ] && flags=$on
      for c in r f; do
        drop
        case_steps "$c"
        log=$dir/$c-$side.log
        # shellcheck disable=SC2086
        "$bin" bench --db="$db" $common $extra $flags --benchmarks="$benches" > "$log" 2>&1
        grep -E '^fillrandom ' "$log" | awk -v c="$c" -v r="$round" -v s="$side" '{print c, r, s, "fill", $3}'
        grep -E '^readrandom ' "$log" | tail -3 | awk -v c="$c" -v r="$round" -v s="$side" '{n++; print c, r, s, n, $3}'
        { grep -E 'memtable\.(hit|miss)' "$log" || true; } | tail -2 | sed "s/^/# $c $round $side /"
      done
    done
  done
  ;;
small)
  common="--num=5000000 --value_size=100 --compression_ratio=1 --compression_type=none --cache_size=8388608 --reads=1000000 --bloom_bits=10 --seed=1 --statistics=1"
  for round in 1 2 3; do
    for side in off on; do
      flags=$off
      [ "$side" = on ] && flags=$on
      drop
      log=$dir/small-$side.log
      # shellcheck disable=SC2086
      "$bin" bench --db="$db" $common $flags --benchmarks=fillrandom,readrandom,readrandom,readrandom > "$log" 2>&1
      grep -E '^fillrandom ' "$log" | awk -v r="$round" -v s="$side" '{print "s", r, s, "fill", $3}'
      grep -E '^readrandom ' "$log" | awk -v r="$round" -v s="$side" '{n++; print "s", r, s, n, $3}'
    done
  done
  ;;
*)
  echo "$0: the first argument is large, small or leveldb, not $kind" >&2
  exit 2
  ;;
esac
rm -rf "$db"
