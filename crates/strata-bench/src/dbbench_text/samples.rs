//! LevelDB texts the readers' tests share.

/// A LevelDB histogram block (`Histogram::ToString` of LevelDB 1.23's
/// db_bench: no percentiles line, `[ a, b )` buckets), ended by its blank
/// line.
pub(crate) const LEVELDB_HISTOGRAM: &str = "Count: 1000  Average: 4.0000  StdDev: 2.00
Min: 1.0000  Median: 2.7500  Max: 20.0000
------------------------------------------------------
[       1,       2 )     200  20.000%  20.000% ####
[       2,       3 )     400  40.000%  60.000% ########
[       3,       4 )     300  30.000%  90.000% ######
[      10,      12 )      90   9.000%  99.000% ##
[      18,      20 )      10   1.000% 100.000%

";

/// `leveldb.stats` from Debian's LevelDB 1.23 after `strata bench
/// --engine=leveldb --benchmarks=fillrandom,stats --num=200000
/// --write_buffer_size=1048576 --seed=1`, with the LOG line `strata
/// bench` prints after it.
pub(crate) const LEVELDB_STATS: &str = "                               Compactions
Level  Files Size(MB) Time(sec) Read(MB) Write(MB)
--------------------------------------------------
  0        5        2         0        0        12
  1        4        7         0       27        24
  2        1        0         0        0         0
LOG: 28 flushes 13413408 bytes 0.231 s, 5 compactions 24673778 bytes 0.544 s, W-Amp 2.84
Approximate size of all keys: 10238654 bytes
";
