#!/bin/bash
# Alternating paced overwrite runs of two strata builds under universal
# compaction (1,000,000 x 1 KB, a fresh fill each run, 80 s paced at RATE),
# printing per run the largest per-second write P99 and the longest gap
# between a thread's writes after the first 20 s.
#   scripts/overwrite-tail-ab.sh BEFORE_BINARY AFTER_BINARY ROUNDS RATE [DIR]
set -euo pipefail
before=$1; after=$2; rounds=$3; rate=$4; out=${5:-$(mktemp -d)}
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for v in before after; do
    bin=$before; [ "$v" = after ] && bin=$after
    d=$out/db-$v
    rm -rf "$d"
    "$bin" bench --benchmarks=fillrandom --compaction_style=1 --key_size=16 --num=1000000 \
      --seed=1 --value_size=1000 --db="$d" > /dev/null
    "$bin" bench --benchmarks=overwrite --compaction_style=1 --duration=80 --key_size=16 \
      --num=1000000 --seed=1 --statistics=1 --value_size=1000 --writes=1000000000 \
      --use_existing_db=1 --report_interval_seconds=1 --report_file="$out/$v.csv" \
      --json_report="$out/$v-$r.json" --target_ops_per_sec="$rate" --db="$d" > /dev/null
    python3 - "$out/$v-$r.json" "$v" "$r" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
iv = [x for x in j["benchmarks"][0]["intervals"] if x["t_end_s"] > 20]
p = max(x["latency"]["write"]["p99_us"] for x in iv)
g = max(x["max_gap_ms"] for x in iv)
print(f"{sys.argv[2]} round {sys.argv[3]}: max per-second write P99 {p:.0f} us, max gap {g:.1f} ms")
PY
    rm -rf "$d"
  done
done
