#!/usr/bin/env bash
# db_bench's other benchmarks on both engines: one fill per engine and round,
# then scans, seeks, misses, reads under a writer, updates and deletes on the
# filled DB (docs/benchmarks.md, "The rest of db_bench's benchmarks").
# Usage: suite.sh RDB_BIN ROUNDS NUM VALUE_SIZE [EXTRA_FLAGS]
#   RDB_BIN is a strata binary built with --features rocksdb; engines
#   alternate within each round. Prints "round engine benchmark ops/s".
set -u
B=$1; R=$2; N=$3; V=$4; X=${5:-}
C="--compression_type=none --seed=1 --value_size=$V --num=$N $X"
D=${SUITE_DIR:-/tmp/suite}
# benchmark and its flags; each runs on the DB the ones before it left.
STEPS=(
  "readseq --reads=$N"
  "readreverse --reads=$N"
  "seekrandom --reads=$((N / 5)) --seek_nexts=10"
  "readmissing --reads=$N"
  "readwhilewriting --reads=$N --benchmark_write_rate_limit=2097152"
  "updaterandom --reads=$((N / 2))"
  "deleterandom --reads=$((N / 2))"
)
for r in $(seq 1 "$R"); do
  for e in strata rocksdb; do
    rm -rf "$D/$e"
    "$B" bench --engine=$e $C --db="$D/$e" --benchmarks=fillrandom,waitforcompaction 2>/dev/null |
      awk -v r="$r" -v e="$e" '$1=="fillrandom" {print r, e, $1, $5}'
    for s in "${STEPS[@]}"; do
      name=${s%% *}
      # shellcheck disable=SC2086
      "$B" bench --engine=$e $C --use_existing_db=1 --db="$D/$e" --benchmarks=$s 2>/dev/null |
        awk -v r="$r" -v e="$e" -v n="$name" '$1==n {print r, e, $1, $5}'
    done
  done
done
rm -rf "$D"
