#!/usr/bin/env bash
# Study 5's 64 MB-level-base fill cell (WAL off, direct I/O), compaction
# settled; prints the compaction table's Sum row (docs/benchmarks.md, study 5).
# Usage: waf_base64.sh BIN [ENGINE] [DBDIR]   (extra flags in $X, e.g. X=--statistics=1)
set -u
B=$1; E=${2:-strata}; D=${3:-/tmp/b64db}
rm -rf "$D"
"$B" bench --engine=$E --benchmarks=fillrandom,waitforcompaction,stats ${X:-} --compaction_style=0 --disable_wal=true --key_size=16 --max_bytes_for_level_base=67108864 --max_bytes_for_level_multiplier=10 --num=1000000 --seed=1 --sync=false --use_direct_io_for_flush_and_compaction=true --value_size=1024 --db="$D" 2>/dev/null | awk '/\*\* Compaction Stats/{c++} c==1' | grep -E "^ *(L[0-9]|Sum)"
rm -rf "$D"
