#!/usr/bin/env bash
# Runs the five studies' own db_bench command lines (testdata/study-cmdlines.txt)
# three ways at a small scale and checks that every output parses alike with
# the lab's parser (`strata lab parse`, the RocksDB 7.8.3 output parser):
#   strata   BIN_STRATA bench ARGS                    (Strata engine)
#   rocksdb  $STRATA_ROCKSDB_BIN bench --engine=rocksdb ARGS
#   db_bench DB_BENCH ARGS                            (Debian rocksdb-tools 7.8.3)
#
# Usage: study_cmdlines.sh BIN_STRATA [DB_BENCH]
#   BIN_STRATA          a `strata` binary (runs the Strata engine and `lab parse`)
#   DB_BENCH            default /usr/bin/db_bench; "-" to skip
# Environment:
#   STRATA_ROCKSDB_BIN  `strata` built with --features rocksdb (default BIN_STRATA;
#                       the rocksdb engine is skipped when it lacks the feature)
#   CMDLINES            command file (default: crates/strata-bench/testdata/study-cmdlines.txt)
#   OUT                 where stdout/stderr/parsed JSON are kept (default /tmp/study-cmdlines)
#   SHRINK              divisor for --write_buffer_size, --max_bytes_for_level_base,
#                       --target_file_size_base (default 128, floor 65536)
#   WB                  --write_buffer_size added to lines without one (default 1048576,
#                       so 5000-op runs flush and compact; "" to add nothing)
#   TIMEOUT             seconds per run (default 60)
#   KNOWN               space-separated +/- fields not counted as mismatches (default:
#                       "+compaction:WPreComp(GB)", a column RocksDB 10.x prints and 7.8.3
#                       does not; the lab reads the table by header name, so it parses alike)
#
# Each line runs on a fresh --db directory under $TMPDIR (deleted afterwards);
# a line with --use_existing_db=1 reuses the previous line's directory.
# The reference field set is db_bench's (or, without db_bench, the rocksdb
# engine's); a mismatch is a field the reference has and the run lacks (-) or
# the other way round (+). Exit status: 0 when every run exits 0 and parses
# alike, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=${1:?usage: study_cmdlines.sh BIN_STRATA [DB_BENCH]}
DBB=${2:-/usr/bin/db_bench}
ROCKS=${STRATA_ROCKSDB_BIN:-$BIN}
CMDLINES=${CMDLINES:-$here/../crates/strata-bench/testdata/study-cmdlines.txt}
OUT=${OUT:-/tmp/study-cmdlines}
SHRINK=${SHRINK:-128}
WB=${WB-1048576}
TIMEOUT=${TIMEOUT:-60}
KNOWN=${KNOWN-+compaction:WPreComp(GB)}
rm -rf "$OUT" && mkdir -p "$OUT"
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/study-cmdlines-db.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

engines=(strata)
if "$ROCKS" bench --engine=rocksdb --benchmarks=fillseq --num=1 --db="$ROOT/probe" >/dev/null 2>&1; then
  engines+=(rocksdb)
else
  echo "note: $ROCKS has no rocksdb engine; skipping --engine=rocksdb" >&2
fi
rm -rf "$ROOT/probe"
if [ "$DBB" != "-" ] && [ -x "$DBB" ]; then engines+=(db_bench); else echo "note: no db_bench ($DBB)" >&2; fi
ref=${engines[-1]}

# Scales the byte-size flags of one line; adds --write_buffer_size=$WB if absent.
scale() {
  local out=() a k v has_wb=0
  for a in "$@"; do
    case $a in
      --write_buffer_size=* | --max_bytes_for_level_base=* | --target_file_size_base=*)
        k=${a%%=*}; v=${a#*=}; v=$((v / SHRINK)); [ "$v" -lt 65536 ] && v=65536
        [ "$k" = --write_buffer_size ] && has_wb=1
        out+=("$k=$v") ;;
      *) out+=("$a") ;;
    esac
  done
  [ $has_wb = 0 ] && [ -n "$WB" ] && out+=("--write_buffer_size=$WB")
  printf '%s\n' "${out[@]}"
}

run() { # engine dbdir args... -> exit code
  local e=$1 db=$2; shift 2
  local args=("${@//@DB@/$db}")
  case $e in
    strata) nice -n 19 timeout "$TIMEOUT" "$BIN" bench "${args[@]}" ;;
    rocksdb) nice -n 19 timeout "$TIMEOUT" "$ROCKS" bench --engine=rocksdb "${args[@]}" ;;
    db_bench) nice -n 19 timeout "$TIMEOUT" "$DBB" "${args[@]}" ;;
  esac
}

mapfile -t lines < <(grep -v '^[[:space:]]*\(#\|$\)' "$CMDLINES")
fail=0
printf '| # | command | engine | exit | fields | mismatches vs %s |\n|---|---|---|---|---|---|\n' "$ref"
for e in "${engines[@]}"; do
  db=""
  for i in "${!lines[@]}"; do
    n=$((i + 1))
    read -r -a words <<<"${lines[$i]}"
    mapfile -t args < <(scale "${words[@]}")
    if [[ " ${args[*]} " != *" --use_existing_db=1 "* ]] || [ -z "$db" ]; then
      [ -n "$db" ] && rm -rf "$db"
      db="$ROOT/$e-$n"
    fi
    base="$OUT/$n.$e"
    printf '%s\n' "${args[*]}" >"$base.cmd"
    run "$e" "$db" "${args[@]}" >"$base.stdout" 2>"$base.stderr"
    echo $? >"$base.rc"
    "$BIN" lab parse "$base.stdout" --stderr "$base.stderr" >"$base.json" 2>"$base.parse-err" ||
      echo '{"fields":[]}' >"$base.json"
    jq -r '.fields[]' "$base.json" >"$base.fields"
  done
  [ -n "$db" ] && rm -rf "$db"
done

for i in "${!lines[@]}"; do
  n=$((i + 1))
  label=$(tr ' ' '\n' <"$OUT/$n.$ref.cmd" | grep -E '^--(benchmarks|value_size|enable_blob_files|bloom_bits|write_buffer_size|subcompactions|compaction_style|disable_wal|max_bytes_for_level_multiplier)=' |
    sed 's/^--//' | tr '\n' ' ' | sed 's/ $//')
  for e in "${engines[@]}"; do
    b="$OUT/$n.$e"
    rc=$(cat "$b.rc")
    nf=$(wc -l <"$b.fields")
    if [ "$e" = "$ref" ]; then
      mm="(reference)"
    else
      miss=$(comm -23 "$OUT/$n.$ref.fields" "$b.fields" | sed 's/^/-/')
      extra=$(comm -13 "$OUT/$n.$ref.fields" "$b.fields" | sed 's/^/+/')
      all=$(printf '%s\n%s\n' "$miss" "$extra" | grep .)
      known=$(grep -xF -f <(tr ' ' '\n' <<<"$KNOWN" | grep .) <<<"$all" | tr '\n' ' ' | sed 's/ $//')
      mm=$(grep -vxF -f <(tr ' ' '\n' <<<"$KNOWN" | grep . || echo '@none@') <<<"$all" | tr '\n' ' ' | sed 's/ $//')
      printf '%s\n' "$all" >"$b.mismatch"
      [ -n "$mm" ] && fail=1
      mm=${mm:-none}
      [ -n "$known" ] && mm="$mm (known: $known)"
    fi
    [ "$rc" != 0 ] && fail=1
    if [ "$rc" != 0 ]; then
      err=$(grep -v '^\s*$' "$b.stderr" | tail -1 | cut -c1-80)
      rc="$rc ($err)"
    fi
    printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "$label" "$e" "$rc" "$nf" "$mm"
  done
done
echo "outputs: $OUT" >&2
exit $fail
