#!/usr/bin/env bash
# LevelDB in process (`strata bench --engine=leveldb`) against LevelDB's own
# db_bench, both from the build crates/strata-leveldb-sys makes: ROUNDS
# rounds, the two sides alternating (which goes first alternates too), a
# fresh DB for each run. Prints each run's micros/op, then per benchmark the
# geometric mean of in-process speed over db_bench's, with its 95% interval
# from the rounds' paired log ratios (t quantile for ROUNDS-1 degrees of
# freedom).
#
# Usage: scripts/leveldb-inproc-vs-dbbench.sh [ROUNDS] [NUM] [VALUE_SIZE]
# Needs: cargo build --release -p strata-cli --features leveldb-db-bench
set -euo pipefail
rounds=${1:-8}
num=${2:-1000000}
value_size=${3:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
strata=${STRATA:-$root/target/release/strata}
db_bench=${DB_BENCH:-$(ls "$root"/target/release/build/strata-leveldb-sys-*/out/db_bench 2>/dev/null | head -1)}
if [[ ! -x $strata || -z $db_bench || ! -x $db_bench ]]; then
    echo "error: needs $strata and LevelDB's db_bench:" >&2
    echo "  cargo build --release -p strata-cli --features leveldb-db-bench" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/leveldb-cmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/runs.tsv

# One run: side, round, benchmark list; appends "side round bench us/op".
run() {
    local side=$1 round=$2 benches=$3
    rm -rf "$work/db"
    if [[ $side == inproc ]]; then
        "$strata" bench --engine=leveldb --benchmarks="$benches" --num="$num" \
            --value_size="$value_size" --compression_type=none --db="$work/db" 2>/dev/null
    else
        "$db_bench" --benchmarks="$benches" --num="$num" --value_size="$value_size" \
            --db="$work/db" 2>/dev/null | tr '\r' '\n'
    fi | awk -v s="$side" -v r="$round" '$2 == ":" && $4 ~ /^micros\/op/ { print s, r, $1, $3 }' >>"$out"
}

for ((r = 1; r <= rounds; r++)); do
    for benches in fillseq,readrandom fillrandom; do
        if ((r % 2)); then order="inproc dbbench"; else order="dbbench inproc"; fi
        for side in $order; do run "$side" "$r" "$benches"; done
    done
    echo "round $r of $rounds done" >&2
done

echo "side round benchmark micros/op"
sort -k3,3 -k2,2n -k1,1 "$out"
echo
echo "benchmark  in-process/db_bench speed  [95% interval]  rounds"
awk '
    { us[$3, $2, $1] = $4; b[$3] = 1; if ($2 > n) n = $2 }
    END {
        # two-sided 97.5% t quantiles, df 1..30
        split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
        for (k in b) {
            m = 0; s = 0; c = 0
            for (r = 1; r <= n; r++) if ((k, r, "inproc") in us && (k, r, "dbbench") in us) {
                x[++c] = log(us[k, r, "dbbench"] / us[k, r, "inproc"]); m += x[c]
            }
            if (c < 2) continue
            m /= c
            for (i = 1; i <= c; i++) s += (x[i] - m) ^ 2
            se = sqrt(s / (c - 1) / c); q = t[(c - 1 > 30) ? 30 : c - 1]
            printf "%-10s %.3f [%.3f, %.3f] %d\n", k, exp(m), exp(m - q * se), exp(m + q * se), c
        }
    }' "$out" | sort
