#!/bin/sh
# A stand-in for db_bench used by the lab's tests where no real bench exists
# (CI): it accepts db_bench flags and prints db_bench-format output with
# deterministic figures. Inline throughput falls with value size, blob stays
# flat, so blob overtakes inline between 256 B and 2 KB.
benchmarks=fillseq; value_size=100; num=1000; blob=false; db=""
for a in "$@"; do
  case "$a" in
    --benchmarks=*) benchmarks=${a#--benchmarks=} ;;
    --value_size=*) value_size=${a#--value_size=} ;;
    --num=*) num=${a#--num=} ;;
    --enable_blob_files=*) blob=${a#--enable_blob_files=} ;;
    --db=*) db=${a#--db=} ;;
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
IFS=,
for b in $benchmarks; do
  case "$b" in
    stats|compact|flush|waitforcompaction|resetstats) continue ;;
  esac
  ops=$(awk -v v="$value_size" -v blob="$blob" 'BEGIN { if (blob == "true" || blob == "1") print 500000; else print int(400000000 / v) }')
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
