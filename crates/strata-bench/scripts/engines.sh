#!/usr/bin/env bash
# Strata against LevelDB and fjall (docs/benchmarks.md, "Strata, LevelDB and
# fjall"): db_bench's core benchmarks on each engine, engines alternating
# within each round, then per benchmark the median ops/s of each engine with
# its range over the rounds, and Strata's median over each other engine's.
#
# Usage: engines.sh BIN ROUNDS NUM VALUE_SIZE [EXTRA_FLAGS]
#   BIN: a release `strata` binary (LevelDB and fjall are in the default
#   build). Every engine gets the same flags: no compression, a 64 MiB write
#   buffer, a 10 bits/key bloom filter and an 8 MiB block cache; the rest
#   are each engine's own defaults. Per round and engine: fillseq on a fresh
#   DB; fillrandom on a fresh DB, then on it overwrite, waitforcompaction,
#   readrandom, readseq, seekrandom and readwhilewriting (its writer limited
#   to 2 MiB/s), each its own process. Raw lines ("round engine benchmark
#   ops/s") go to stderr, the table to stdout. ENGINES_DIR (default
#   /tmp/engines-bench) holds the DBs; it is removed at the end.
set -u
B=$1; R=$2; N=$3; V=$4; X=${5:-}
ENGINES=${ENGINES:-"strata leveldb fjall"}
C="--compression_type=none --seed=1 --value_size=$V --num=$N --write_buffer_size=67108864 --bloom_bits=10 --cache_size=8388608 $X"
D=${ENGINES_DIR:-/tmp/engines-bench}
STEPS=(
  "overwrite"
  "waitforcompaction"
  "readrandom --reads=$((N / 4))"
  "readseq --reads=$N"
  "seekrandom --reads=$((N / 10))"
  "readwhilewriting --reads=$((N / 4)) --benchmark_write_rate_limit=2097152"
)
RAW=$(mktemp)
one() { # engine, round, flags... : runs one benchmark, appends its ops/s
  local e=$1 r=$2; shift 2
  # shellcheck disable=SC2086
  "$B" bench --engine="$e" $C --db="$D/$e" "$@" 2>/dev/null |
    awk -v r="$r" -v e="$e" '/ micros\/op / {print r, e, $1, $5}' | tee -a "$RAW" >&2
}
for r in $(seq 1 "$R"); do
  for e in $ENGINES; do
    rm -rf "${D:?}/$e"
    one "$e" "$r" --benchmarks=fillseq
    rm -rf "${D:?}/$e"
    one "$e" "$r" --benchmarks=fillrandom
    for s in "${STEPS[@]}"; do
      # shellcheck disable=SC2086
      one "$e" "$r" --use_existing_db=1 --benchmarks=$s
    done
    rm -rf "${D:?}/$e"
  done
done
rm -rf "$D"
# The table: median (min-max) per engine, Strata's median over each other's,
# and "below" or "above" when the two ranges do not overlap.
awk -v engines="$ENGINES" -v v="$V" -v n="$N" '
  { k = $3 SUBSEP $2; vals[k] = vals[k] " " $4; if (!($3 in seen)) { seen[$3] = 1; order[++nb] = $3 } }
  function med(s,   a, m, i, j, t) {
    m = split(s, a, " ");
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    lo = a[1]; hi = a[m];
    return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    ne = split(engines, en, " ");
    printf "value %d B, num %d\n\n| benchmark |", v, n;
    for (i = 1; i <= ne; i++) printf " %s ops/s |", en[i];
    for (i = 2; i <= ne; i++) printf " Strata / %s |", en[i];
    printf "\n|---|"; for (i = 1; i < 2 * ne; i++) printf "---|"; printf "\n";
    for (b = 1; b <= nb; b++) {
      name = order[b]; printf "| %s |", name;
      for (i = 1; i <= ne; i++) {
        m[i] = med(vals[name SUBSEP en[i]]); l[i] = lo; h[i] = hi;
        printf " %d (%d-%d) |", m[i], l[i], h[i]
      }
      for (i = 2; i <= ne; i++) {
        if (m[i] <= 0) { printf " n/a |"; continue }
        mark = (h[1] < l[i]) ? " below" : (l[1] > h[i]) ? " above" : "";
        printf " %.2f%s |", m[1] / m[i], mark
      }
      printf "\n"
    }
  }' "$RAW"
rm -f "$RAW"
