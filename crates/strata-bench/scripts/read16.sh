#!/usr/bin/env bash
# 16 KB inline readrandom right after the fill vs after compaction settles,
# both engines alternating, 3 rounds (docs/benchmarks.md, "16 KB inline reads").
# Usage: read16.sh BIN [DBDIR]   (BIN: a strata binary built with --features rocksdb)
set -u
B=$1; D=${2:-/tmp/r16db}
C="--compression_type=none --seed=1 --value_size=16384 --num=65536 --db=$D"
for rep in 1 2 3; do
  for e in strata rocksdb; do
    rm -rf "$D"
    echo "== $e rep $rep after-fill"
    "$B" bench --engine=$e $C --benchmarks=fillrandom,levelstats,readrandom 2>/dev/null | grep -E "^(fillrandom|readrandom) "
    rm -rf "$D"
    echo "== $e rep $rep settled"
    "$B" bench --engine=$e $C --benchmarks=fillrandom,waitforcompaction,readrandom 2>/dev/null | grep -E "^(fillrandom|readrandom) "
  done
done
rm -rf "$D"
