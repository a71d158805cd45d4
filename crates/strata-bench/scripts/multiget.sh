#!/usr/bin/env bash
# readrandom against multireadrandom (--batch_size keys per MultiGet) on
# existing DBs, Strata and RocksDB (its vector MultiGet API, db_bench's default)
# alternating per round (docs/benchmarks.md, "MultiGet").
# Usage: multiget.sh RDB_BIN ROUNDS VALUE_SIZE NUM BATCH
#   The DBs must exist as for read_ab.sh: /tmp/abstrata-V and /tmp/abrocksdb-V.
set -u
B=$1; R=$2; V=$3; N=$4; K=$5
C="--compression_type=none --seed=1 --value_size=$V --num=$N --use_existing_db=1 --reads=$N"
for r in $(seq 1 "$R"); do
  for e in strata rocksdb; do
    for b in readrandom multireadrandom; do
      printf "%s %s %s " "$r" $e $b
      "$B" bench --engine=$e $C --batch_size=$K --db=/tmp/ab$e-$V --benchmarks=$b 2>/dev/null \
        | grep -E "^$b " | sed 's/.*micros\/op //' | awk '{print $1}'
    done
  done
done
