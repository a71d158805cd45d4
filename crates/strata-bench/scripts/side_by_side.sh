#!/usr/bin/env bash
# Side-by-side Strata vs RocksDB (release, same harness): the issue-3
# performance table. Each cell is the median ops/sec of REPS runs; engines
# alternate within each repetition so machine load hits both alike.
#
# Usage: side_by_side.sh BIN DBDIR [NUM_1K] [NUM_16K] [REPS] [EXTRA_FLAGS]
#   EXTRA_FLAGS: e.g. "--enable_blob_files=true --min_blob_size=0" for the blob rows.
#   BIN: a binary running `strata bench` with the rocksdb feature, e.g.
#        target/release/examples/strata_bench (or `strata bench` once wired).
set -euo pipefail
BIN=$1; DB=$2; NUM1K=${3:-1000000}; NUM16K=${4:-65536}; REPS=${5:-3}; EXTRA=${6:-}
COMMON="--compression_type=none --seed=1 --db=$DB $EXTRA"

run() { # engine, args... -> prints "name ops_per_sec" lines
  local engine=$1; shift
  "$BIN" --engine="$engine" $COMMON "$@" 2>/dev/null | awk '/ micros\/op /{print $1, $5}'
}

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -A R
for size in 1024 16384; do
  num=$NUM1K; [ "$size" = 16384 ] && num=$NUM16K
  for rep in $(seq 1 "$REPS"); do
    for engine in strata rocksdb; do
      # fill (fresh DB), then reads on the filled DB
      while read -r name ops; do R[$engine,$size,$name]+="$ops "; done < <(
        run "$engine" --benchmarks=fillseq --value_size=$size --num=$num
        run "$engine" --benchmarks=fillrandom,readrandom --value_size=$size --num=$num
        run "$engine" --benchmarks=readrandomwriterandom --readwritepercent=95 --use_existing_db=1 --value_size=$size --num=$num)
    done
  done
done

printf '| value | benchmark | Strata ops/s | RocksDB ops/s | Strata / RocksDB |\n|---|---|---|---|---|\n'
for size in 1024 16384; do
  for name in fillseq fillrandom readrandom readrandomwriterandom; do
    s=$(echo ${R[strata,$size,$name]:-0} | tr ' ' '\n' | grep . | median)
    r=$(echo ${R[rocksdb,$size,$name]:-0} | tr ' ' '\n' | grep . | median)
    ratio=$(awk -v s="$s" -v r="$r" 'BEGIN{ if (r>0) printf "%.2f", s/r; else print "n/a" }')
    printf '| %s | %s | %s | %s | %s |\n' "$size" "$name" "$s" "$r" "$ratio"
  done
done
