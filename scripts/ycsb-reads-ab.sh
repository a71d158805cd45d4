#!/usr/bin/env bash
# YCSB's read workloads C, D, E and F on every engine, side by side: loads
# one DB per engine (RECORDS x 1,000-byte records, `ycsb_load`), then ROUNDS
# rounds in which the engines alternate (their order rotating each round)
# over C, D, F (OPS operations) and E (OPS/4 scans), each with the
# workload's own key choice and with uniform keys. Every measured run
# starts with `waitforcompaction` in the same process, so no run pays for
# the compactions an earlier run's writes (D's inserts, E's, F's
# read-modify-writes) left behind. Prints each run, then per workload the
# median micros/op of each engine with its range and the best other
# engine's median over Strata's (> 1: Strata faster).
#
# Usage: scripts/ycsb-reads-ab.sh [ROUNDS] [RECORDS] [OPS]
# Needs: cargo build --release -p strata-cli --features rocksdb
# (without it, set ENGINES="strata leveldb fjall"); about 10 GB of free
# disk at the default 2,000,000 records.
set -euo pipefail
rounds=${1:-3}
records=${2:-2000000}
ops=${3:-200000}
root=$(cd "$(dirname "$0")/.." && pwd)
strata=${STRATA:-$root/target/release/strata}
read -r -a engines <<<"${ENGINES:-strata leveldb rocksdb fjall}"
[[ -x $strata ]] || { echo "error: needs $strata (cargo build --release -p strata-cli --features rocksdb)" >&2; exit 1; }
work=$(mktemp -d "${WORKDIR:-${TMPDIR:-/tmp}}/ycsb-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
common=(--num="$records" --value_size=1000 --compression_type=none --seed=1 --statistics=1)
out=$work/runs.tsv

for e in "${engines[@]}"; do
    "$strata" bench --engine="$e" "${common[@]}" --db="$work/$e" \
        --benchmarks=ycsb_load,waitforcompaction | grep -E '^ycsb_load ' | sed "s/^/load $e: /"
done
n=${#engines[@]}
for r in $(seq 1 "$rounds"); do
    for i in $(seq 0 $((n - 1))); do
        e=${engines[$(((i + r) % n))]}
        for keys in own uniform; do
            dist=()
            [[ $keys == uniform ]] && dist=(--ycsb_request_distribution=uniform)
            for w in c d f e; do
                count=$ops
                [[ $w == e ]] && count=$((ops / 4))
                us=$("$strata" bench --engine="$e" "${common[@]}" "${dist[@]}" --use_existing_db=1 \
                    --db="$work/$e" --reads="$count" --benchmarks=waitforcompaction,ycsb_$w |
                    awk -v b="ycsb_$w" '$1 == b { print $3 }')
                echo "$r $e $keys ycsb_$w $us" | tee -a "$out"
            done
        done
    done
done

echo
echo "workload keys: engine median micros/op [min-max] ...; best other / Strata"
python3 - "$out" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, e, keys, w, us = line.split()
    runs[(w, keys, e)].append(float(us))
cells = sorted({(w, k) for (w, k, _) in runs})
for w, k in cells:
    meds = {e: statistics.median(v) for (w2, k2, e), v in runs.items() if (w2, k2) == (w, k)}
    parts = [f"{e} {meds[e]:.3f} [{min(runs[(w, k, e)]):.3f}-{max(runs[(w, k, e)]):.3f}]" for e in sorted(meds)]
    others = [m for e, m in meds.items() if e != "strata"]
    ratio = f"{min(others) / meds['strata']:.2f}" if others and "strata" in meds else "-"
    print(f"{w} {k}: " + "; ".join(parts) + f"; best other / Strata {ratio}")
PY
