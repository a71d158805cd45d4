#!/bin/sh
# A stand-in for `strata bench` in the capacity search's tests: it prints a
# db_bench-format result line per benchmark and, with --json_report, writes
# the JSON report with per-second intervals (docs: the capacity contract)
# whose figures are known functions of the target rate R and the engine's
# capacity C, so a test can tell whether the search finds the known answer.
#   C: strata 40000, rocksdb 30000 ops/s (others 20000), times
#      0.6 + 0.4 exp(-x^2/2), x = (log2(write_buffer_size) - 25) / 2, when
#      the write buffer is set (study 3's peak at 32 MiB);
#   load rho = R / C (closed loop: R = C);
#   P99 = 200 us / (1 - rho) (100 ms at rho >= 1), P99.9 twice that;
#   stalls: rocksdb reports 150 ms of stall per second above rho 0.75;
#   behind schedule: (1 - 1/rho) x t seconds above rho 1;
#   disk: the live data x (1.1 + 0.3 rho), or 1.1 + 1.5 rho under
#      universal compaction (--compaction_style=1);
#   RSS: 40 MB + write_buffer_size x max_write_buffer_number.
# A run's capacity varies within +-2% with a hash of its DB path below the
# search's `runs/` (the run's name), so repeats differ and reruns do not.
engine=strata; benchmarks=fillrandom; target=0; json=""; duration=5; num=1000
ks=16; vs=100; wbs=""; style=0; mwbn=2; db=""
for a in "$@"; do
  case "$a" in
    --engine=*) engine=${a#--engine=} ;;
    --benchmarks=*) benchmarks=${a#--benchmarks=} ;;
    --target_ops_per_sec=*) target=${a#--target_ops_per_sec=} ;;
    --json_report=*) json=${a#--json_report=} ;;
    --duration=*) duration=${a#--duration=} ;;
    --num=*) num=${a#--num=} ;;
    --key_size=*) ks=${a#--key_size=} ;;
    --value_size=*) vs=${a#--value_size=} ;;
    --write_buffer_size=*) wbs=${a#--write_buffer_size=} ;;
    --compaction_style=*) style=${a#--compaction_style=} ;;
    --max_write_buffer_number=*) mwbn=${a#--max_write_buffer_number=} ;;
    --db=*) db=${a#--db=} ;;
    --*) ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
[ -n "$db" ] && mkdir -p "$db"
echo "FakeCapacityBench:    version 1.0" >&2
h=$(printf '%s' "${db##*/runs/}" | cksum | cut -d' ' -f1)
IFS=,
for b in $benchmarks; do
  case "$b" in stats) continue ;; esac
  case "$b" in
    ycsb_load|fill*|overwrite) kinds="write" ;;
    ycsb_*) kinds="read update" ;;
    read*) kinds="read" ;;
    *) kinds="write" ;;
  esac
  awk -v e="$engine" -v b="$b" -v R="$target" -v T="$duration" -v n="$num" \
      -v ks="$ks" -v vs="$vs" -v w="$wbs" -v st="$style" -v m="$mwbn" -v h="$h" \
      -v kinds="$kinds" -v json="$json" 'BEGIN {
    C = (e == "strata") ? 40000 : (e == "rocksdb") ? 30000 : 20000;
    if (w != "") { x = (log(w) / log(2) - 25) / 2; C = C * (0.6 + 0.4 * exp(-x * x / 2)) }
    else w = 67108864;
    C = C * (1 + 0.02 * ((h % 2001) / 1000 - 1));
    rate = (R > 0) ? R : C;
    rho = rate / C;
    achieved = (rho < 1) ? rate : C;
    p99 = (rho < 1) ? 200 / (1 - rho) : 100000;
    if (p99 > 100000) p99 = 100000;
    stall = (e == "rocksdb" && rho > 0.75) ? 150000 : 0;
    amp = 1.1 + ((st == 1) ? 1.5 : 0.3) * ((rho < 1.2) ? rho : 1.2);
    live = n * (ks + vs);
    rss = 40000000 + w * m;
    printf "%-12s : %11.3f micros/op %d ops/sec %.3f seconds %d operations;\n", b, 1000000 / achieved, int(achieved), T, int(achieved * T);
    if (json == "") exit;
    nk = split(kinds, kind, " ");
    s = sprintf("{\"name\": \"%s\", \"ops\": %d, \"ops_per_sec\": %.1f, \"latency\": {}, ", b, int(achieved * T), achieved);
    s = s sprintf("\"target_ops_per_sec\": %s, ", (R > 0) ? R : "null");
    s = s sprintf("\"peak_disk_bytes\": %d, \"peak_rss_bytes\": %d, ", live * amp, rss);
    s = s sprintf("\"behind_schedule_ms\": %.1f, \"intervals\": [", (R > 0 && rho > 1) ? (1 - 1 / rho) * T * 1000 : 0);
    for (t = 1; t <= T; t++) {
      lat = "";
      for (k = 1; k <= nk; k++) {
        lat = lat sprintf("%s\"%s\": {\"count\": %d, \"p50_us\": %.1f, \"p99_us\": %.1f, \"p99_9_us\": %.1f, \"max_us\": %.1f}",
          (k > 1) ? ", " : "", kind[k], achieved / nk, p99 / 10, p99, 2 * p99, 4 * p99);
      }
      behind = (R > 0 && rho > 1) ? (1 - 1 / rho) * t * 1000 : 0;
      s = s sprintf("%s{\"t_end_s\": %d, \"ops\": %d, \"ops_per_sec\": %.1f, \"latency\": {%s}, ", (t > 1) ? ", " : "", t, achieved, achieved, lat);
      s = s sprintf("\"max_gap_ms\": %.2f, \"behind_schedule_ms\": %.1f, \"stall_micros\": %s, ", 2 + 10 * rho, behind, (e == "strata") ? "null" : stall);
      s = s sprintf("\"l0_files\": %d, \"pending_compaction_bytes\": %d, \"disk_bytes\": %d, \"rss_bytes\": %d}",
        2 + 10 * rho, live * 0.2 * rho, live * amp * (0.9 + 0.1 * t / T), rss);
    }
    print s "]}" >> (json ".part") }' || exit 1
done
if [ -n "$json" ]; then
  { printf '{"schema_version": 1, "engine": "%s", "benchmarks": [' "$engine"
    sed '$!s/$/,/' "$json.part"
    printf ']}\n'; } > "$json"
  rm -f "$json.part"
fi
