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
#
# `stats` prints a compaction stats table (L0 and Sum rows) of the tree the
# DB holds: every writing step writes the same num keys, so the tree is its
# user bytes. `compact` prints a result line of one operation taking the
# tree's size at 100 MB/s; a step of meta benchmarks only (`compact,stats`)
# writes no user bytes and leaves the tree it found (kept in the DB
# directory, `FAKE_TREE`, between steps).
benchmarks=fillseq; value_size=100; num=1000; blob=false; db=""; scale=1; noise=0; existing=0
for a in "$@"; do
  case "$a" in
    --benchmarks=*) benchmarks=${a#--benchmarks=} ;;
    --value_size=*) value_size=${a#--value_size=} ;;
    --num=*) num=${a#--num=} ;;
    --enable_blob_files=*) blob=${a#--enable_blob_files=} ;;
    --db=*) db=${a#--db=} ;;
    --fake_scale=*) scale=${a#--fake_scale=} ;;
    --fake_noise=*) noise=${a#--fake_noise=} ;;
    --use_existing_db=*) existing=${a#--use_existing_db=} ;;
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
tree=0
if [ -n "$db" ] && [ -f "$db/FAKE_TREE" ] && { [ "$existing" = 1 ] || [ "$existing" = true ]; }; then
  tree=$(cat "$db/FAKE_TREE")
fi
wrote=0; stats=0; compacted=0
IFS=,
for b in $benchmarks; do
  case "$b" in
    stats) stats=1; continue ;;
    compact)
      compacted=1
      awk -v t="$tree" 'BEGIN { secs = t / 100000000; if (secs < 0.001) secs = 0.001;
        printf "%-12s : %11.3f micros/op %d ops/sec %.3f seconds %d operations;\n", "compact", secs * 1000000, int(1 / secs), secs, 1 }'
      continue ;;
    flush|waitforcompaction|resetstats) continue ;;
  esac
  wrote=1
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
[ "$wrote" = 1 ] && tree=$user
[ -n "$db" ] && echo "$tree" > "$db/FAKE_TREE"
if [ "$stats" = 1 ]; then
  # W-Amp (flush + compaction) / flush: 1.5 for a writing step, 0 without a flush.
  awk -v t="$tree" -v w="$wrote" 'BEGIN { mb = t / 1048576; wamp = (w == 1) ? 1.5 : 0;
    print ""; print "** Compaction Stats [default] **";
    print "Level    Files   Size     Score Write(GB) W-Amp";
    print "------------------------------------------------";
    printf "  L0      1/0   %.2f MB   0.2      %.1f   1.0\n", mb / 4, t / 4e9;
    printf " Sum      4/0   %.2f MB   0.0      %.1f   %.1f\n", mb, t * 1.5e-9, wamp;
    print "" }'
fi
echo ""
echo "STATISTICS:"
if [ "$wrote" = 1 ]; then
echo "rocksdb.bytes.written COUNT : $user"
echo "rocksdb.wal.bytes COUNT : $user"
echo "rocksdb.flush.write.bytes COUNT : $user"
echo "rocksdb.compact.write.bytes COUNT : $((user / 2))"
echo "rocksdb.stall.micros COUNT : 0"
echo "rocksdb.block.cache.hit COUNT : $((num * 3))"
echo "rocksdb.block.cache.miss COUNT : $num"
echo "rocksdb.db.get.micros P50 : 2.000000 P95 : 5.000000 P99 : 9.000000 P100 : 50.000000 COUNT : $num SUM : $((num * 3))"
echo "rocksdb.compaction.times.cpu_micros P50 : 10.000000 P95 : 20.000000 P99 : 30.000000 P100 : 40.000000 COUNT : 3 SUM : $((value_size * 100))"
flushes=$((user / 4194304 + 1))
echo "rocksdb.db.flush.micros P50 : 9000.000000 P95 : 15000.000000 P99 : 20000.000000 P100 : 25000.000000 COUNT : $flushes SUM : $((flushes * 10000))"
echo "rocksdb.sst.write.micros P50 : 0.800000 P95 : 4.000000 P99 : 12.000000 P100 : 300.000000 COUNT : $((user / 4096 + 1)) SUM : $((user / 2048 + 2))"
if [ "$blob" = true ] || [ "$blob" = 1 ]; then
echo "rocksdb.blobdb.blob.file.write.micros P50 : 1.500000 P95 : 9.000000 P99 : 20.000000 P100 : 400.000000 COUNT : $num SUM : $((num * 2))"
fi
else
# Meta benchmarks only: no user bytes; compact rewrites the tree.
echo "rocksdb.bytes.written COUNT : 0"
echo "rocksdb.wal.bytes COUNT : 0"
echo "rocksdb.flush.write.bytes COUNT : 0"
echo "rocksdb.compact.write.bytes COUNT : $((tree * compacted))"
echo "rocksdb.stall.micros COUNT : 0"
echo "rocksdb.compaction.times.cpu_micros P50 : 10.000000 P95 : 20.000000 P99 : 30.000000 P100 : 40.000000 COUNT : $compacted SUM : $((tree * compacted / 100))"
fi
