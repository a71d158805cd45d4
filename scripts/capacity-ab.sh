#!/usr/bin/env bash
# Runs one capacity run's own commands (its load, then its paced step) again
# with two sets of extra flags, alternating, and prints per run the largest
# per-second P99 of the judged window and how many seconds break a limit.
# Before each run the page cache is written back and dropped (as
# `strata lab capacity` settles the host) when this runs as root.
#
#   scripts/capacity-ab.sh RUN_DIR ROUNDS LIMIT_US "FLAGS_A" "FLAGS_B" [WARMUP [OUT]]
#
# RUN_DIR   a run of a capacity search (its step0.cmd and step1.cmd)
# LIMIT_US  the per-second P99 limit to count seconds against
# FLAGS_A/B extra bench flags for the two sides ("" for none)
# WARMUP    seconds left out of the judged window (default 20)
# OUT       where the databases and reports go (default: a new temp dir)
# RATE      (environment) a paced rate in place of the run's own
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
fi
run=$1; rounds=$2; limit=$3; flags_a=$4; flags_b=$5; warmup=${6:-20}
out=${7:-$(mktemp -d)}
mkdir -p "$out"
# The stored commands with their own --db, --json_report and --report_file
# taken out; each side gets its own.
strip() { sed -E 's/ --(db|json_report|report_file)=[^ ]*//g' "$1"; }
load=$(strip "$run/step0.cmd")
paced=$(strip "$run/step1.cmd")
if [ -n "${RATE:-}" ]; then
  paced=$(sed -E "s/ --target_ops_per_sec=[^ ]*/ --target_ops_per_sec=$RATE/" <<<"$paced")
fi
settle() {
  sync
  if [ "$(id -u)" = 0 ]; then echo 3 > /proc/sys/vm/drop_caches; fi
}
for r in $(seq 1 "$rounds"); do
  for side in a b; do
    extra=$flags_a; [ "$side" = b ] && extra=$flags_b
    d=$out/db-$side
    rm -rf "$d"
    # shellcheck disable=SC2086
    $load $extra --db="$d" > "$out/$side-$r.load.txt"
    settle
    # shellcheck disable=SC2086
    $paced $extra --json_report="$out/$side-$r.json" --report_file="$out/$side-$r.csv" \
      --db="$d" > "$out/$side-$r.txt"
    python3 - "$out/$side-$r.json" "$side" "$r" "$limit" "$warmup" "$extra" <<'PY'
import json, sys
path, side, rnd, limit, warmup, extra = sys.argv[1:]
j = json.load(open(path))
bench = [b for b in j["benchmarks"] if b.get("intervals")][0]
iv = [x for x in bench["intervals"] if x["t_end_s"] > float(warmup)]
p99 = [max(k["p99_us"] for k in x["latency"].values()) for x in iv if x.get("latency")]
over = sum(1 for p in p99 if p > float(limit))
gap = max(x.get("max_gap_ms", 0) for x in iv)
print(f"{side} round {rnd} ({extra or 'no extra flags'}): largest per-second P99 {max(p99):.0f} us, "
      f"{over} of {len(p99)} seconds over {limit} us, longest gap {gap:.1f} ms")
PY
    rm -rf "$d"
  done
done
