#!/bin/sh
# A stand-in for db_bench used by the lab's tests where no real bench exists
# (CI): it accepts db_bench flags and prints db_bench-format output with
# deterministic figures. Inline throughput falls with value size, blob stays
# flat, so blob overtakes inline between 256 B and 2 KB.
#
# Two flags of its own shape the figures for tests of the lab's verdicts:
# --fake_scale=F multiplies throughput by F (one variant faster than
# another), and --fake_noise=N spreads repeats: repeat r (read from the
# job directory, `..._rR/db`) runs at (1 + N * j) times, with j cycling
# through -1, 0, 1, -0.5, 0.5, so that a study's repeats differ by a known
# amount.
benchmarks=fillseq; value_size=100; num=1000; blob=false; db=""; scale=1; noise=0
for a in "$@"; do
  case "$a" in
    --benchmarks=*) benchmarks=${a#--benchmarks=} ;;
    --value_size=*) value_size=${a#--value_size=} ;;
    --num=*) num=${a#--num=} ;;
    --enable_blob_files=*) blob=${a#--enable_blob_files=} ;;
    --db=*) db=${a#--db=} ;;
    --fake_scale=*) scale=${a#--fake_scale=} ;;
    --fake_noise=*) noise=${a#--fake_noise=} ;;
    --engine=*) echo "ERROR: unknown command line flag 'engine'" >&2; exit 1 ;;
    --*) ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
[ -n "$db" ] && mkdir -p "$db"
echo "FakeBench:    version 1.0" >&2
echo "Keys:       16 bytes each"
echo "------------------------------------------------"
user=$((num * (value_size + 16)))
rep=$(printf '%s' "$db" | sed -n 's/.*_r\([0-9][0-9]*\)\/db$/\1/p')
[ -n "$rep" ] || rep=0
factor=$(awk -v s="$scale" -v n="$noise" -v r="$rep" 'BEGIN { split("-1 0 1 -0.5 0.5", j, " "); printf "%.6f", s * (1 + n * j[(r % 5) + 1]) }')
IFS=,
for b in $benchmarks; do
  case "$b" in
    stats|compact|flush|waitforcompaction|resetstats) continue ;;
  esac
  ops=$(awk -v v="$value_size" -v blob="$blob" -v f="$factor" 'BEGIN { if (blob == "true" || blob == "1") o = 500000; else o = int(400000000 / v); print int(o * f) }')
  awk -v b="$b" -v ops="$ops" -v n="$num" -v v="$value_size" 'BEGIN {
    us = 1000000 / ops; secs = n / ops; mb = ops * (v + 16) / 1048576;
    printf "%-12s : %11.3f micros/op %d ops/sec %.3f seconds %d operations; %6.1f MB/s\n", b, us, ops, secs, n, mb;
    printf "Microseconds per write:\nCount: %d Average: %.4f  StdDev: 1.00\nMin: 1  Median: %.4f  Max: 100\n", n, us, us;
    printf "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f\n", us, us * 1.2, us * 3, us * 10, us * 20;
    print "------------------------------------------------------";
    print "[       0,       1 ]        1  50.000%  50.000% ##########";
  }'
done
unset IFS
echo ""
echo "STATISTICS:"
echo "rocksdb.bytes.written COUNT : $user"
echo "rocksdb.wal.bytes COUNT : $user"
echo "rocksdb.flush.write.bytes COUNT : $user"
echo "rocksdb.compact.write.bytes COUNT : $((user / 2))"
echo "rocksdb.stall.micros COUNT : 0"
echo "rocksdb.db.get.micros P50 : 2.000000 P95 : 5.000000 P99 : 9.000000 P100 : 50.000000 COUNT : $num SUM : $((num * 3))"
echo "rocksdb.compaction.times.cpu_micros P50 : 10.000000 P95 : 20.000000 P99 : 30.000000 P100 : 40.000000 COUNT : 3 SUM : $((value_size * 100))"
