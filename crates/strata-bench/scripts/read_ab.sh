#!/usr/bin/env bash
# readrandom on existing DBs, two Strata binaries and RocksDB alternating per
# round (docs/benchmarks.md, "16 KB inline reads again").
# Usage: read_ab.sh OLD_BIN NEW_BIN RDB_BIN ROUNDS VALUE_SIZE NUM
#   The DBs must exist: /tmp/abstrata-VALUE_SIZE (Strata) and
#   /tmp/abrocksdb-VALUE_SIZE (RocksDB), e.g. made with
#   BIN bench --engine=E --compression_type=none --seed=1 --value_size=V \
#     --num=N --db=/tmp/abE-V --benchmarks=fillrandom,compact
#   RDB_BIN is a strata binary built with --features rocksdb.
set -u
OLD=$1; NEW=$2; RDB=$3; R=$4; V=$5; N=$6
C="--compression_type=none --seed=1 --value_size=$V --num=$N --use_existing_db=1 --reads=$((N*3))"
for r in $(seq 1 "$R"); do
  for x in old new rocks; do
    case $x in old) B=$OLD; e=strata;; new) B=$NEW; e=strata;; rocks) B=$RDB; e=rocksdb;; esac
    printf "%s %s " "$r" $x
    "$B" bench --engine=$e $C --db=/tmp/ab$e-$V --benchmarks=readrandom 2>/dev/null | grep -E "^readrandom" | awk '{print $5}'
  done
done
