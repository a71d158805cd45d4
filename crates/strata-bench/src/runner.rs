//! Runs the `--benchmarks` list in order, as db_bench's `RunBenchmarks`:
//! fresh DB for the fill benchmarks, client threads started together, merged
//! stats reported in db_bench's format.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};

use crate::dbbench_text::histogram::format_histograms;
use crate::dbbench_text::result_line::format_result_line;
use crate::dbbench_text::statistics::format_statistics;
use crate::dbdir;
use crate::engine::{explain_open_error, BenchEngine, EngineFactory};
use crate::flags::Flags;
use crate::intervals::{Board, Clock};
use crate::keygen::KeyOrder;
use crate::options_map::{engine_options, write_options, OptionSetting, WriteOpts};
use crate::pacer::Pacer;
use crate::progress::Progress;
use crate::report_csv::ReportCsv;
use crate::rng::Random64;
use crate::sampler::{Interval, Point, Sampler};
use crate::stats::Stats;
use crate::workloads::{self, ThreadCtx};

/// The benchmarks `strata bench` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bench {
    /// write N values in sequential key order
    FillSeq,
    /// write N values in random key order (fresh DB)
    FillRandom,
    /// write N values in sequential key order, 1000 per write batch (fresh DB)
    FillBatch,
    /// overwrite N values in random key order (existing DB)
    Overwrite,
    /// synced random writes over N/1000 keys (fresh DB)
    FillSync,
    /// read N times in random order
    ReadRandom,
    /// read N keys in random order, `--batch_size` per MultiGet
    MultiReadRandom,
    /// read N times sequentially
    ReadSeq,
    /// read N times in reverse order
    ReadReverse,
    /// read N missing keys in random order
    ReadMissing,
    /// N random seeks
    SeekRandom,
    /// delete N keys in random order
    DeleteRandom,
    /// deletes of keys in order
    DeleteSeq,
    /// mixed random gets and puts
    ReadRandomWriteRandom,
    /// 1 writer, N threads doing random reads
    ReadWhileWriting,
    /// read-modify-write of random keys
    UpdateRandom,
    /// merges into random keys through `--merge_operator`
    MergeRandom,
    /// random gets and merges, `--mergereadpercent`% merges
    ReadRandomMergeRandom,
    /// compact the whole DB
    Compact,
    /// flush the memtable
    Flush,
    /// wait until compactions are done
    WaitForCompaction,
    /// print `rocksdb.stats`
    Stats,
    /// print `rocksdb.levelstats`
    LevelStats,
    /// insert YCSB's records
    YcsbLoad,
    /// one of YCSB's core workloads
    Ycsb(crate::ycsb::Workload),
    /// db_bench's mix of Gets, Puts and Seeks with modelled keys and sizes
    MixGraph,
    /// [strata] writes skewed to the hot keys (`--hot_write_fraction`)
    UpdateHotCold,
    /// [strata] random reads of the hot keys
    ReadHot,
    /// [strata] random reads of the cold keys
    ReadCold,
}

impl Bench {
    /// Parses a db_bench benchmark name.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "fillseq" => Self::FillSeq,
            "fillrandom" => Self::FillRandom,
            "fillbatch" => Self::FillBatch,
            "overwrite" => Self::Overwrite,
            "fillsync" => Self::FillSync,
            "readrandom" => Self::ReadRandom,
            "multireadrandom" => Self::MultiReadRandom,
            "readseq" => Self::ReadSeq,
            "readreverse" => Self::ReadReverse,
            "readmissing" => Self::ReadMissing,
            "seekrandom" => Self::SeekRandom,
            "deleterandom" => Self::DeleteRandom,
            "deleteseq" => Self::DeleteSeq,
            "readrandomwriterandom" => Self::ReadRandomWriteRandom,
            "readwhilewriting" => Self::ReadWhileWriting,
            "updaterandom" => Self::UpdateRandom,
            "mergerandom" => Self::MergeRandom,
            "readrandommergerandom" => Self::ReadRandomMergeRandom,
            "compact" => Self::Compact,
            "flush" => Self::Flush,
            "waitforcompaction" => Self::WaitForCompaction,
            "stats" => Self::Stats,
            "levelstats" => Self::LevelStats,
            "ycsb_load" => Self::YcsbLoad,
            "mixgraph" => Self::MixGraph,
            "updatehotcold" => Self::UpdateHotCold,
            "readhot" => Self::ReadHot,
            "readcold" => Self::ReadCold,
            other => return crate::ycsb::Workload::parse(other).map(Self::Ycsb),
        })
    }

    fn fresh_db(self) -> bool {
        matches!(
            self,
            Self::FillSeq | Self::FillRandom | Self::FillSync | Self::FillBatch | Self::YcsbLoad
        )
    }

    fn writes(self) -> bool {
        matches!(
            self,
            Self::FillSeq
                | Self::FillBatch
                | Self::FillRandom
                | Self::Overwrite
                | Self::FillSync
                | Self::DeleteRandom
                | Self::DeleteSeq
                | Self::ReadRandomWriteRandom
                | Self::ReadWhileWriting
                | Self::UpdateRandom
                | Self::MergeRandom
                | Self::ReadRandomMergeRandom
                | Self::YcsbLoad
                | Self::Ycsb(_)
                | Self::MixGraph
                | Self::UpdateHotCold
        )
    }
}

/// The outcome of one benchmark, for the JSON report.
#[derive(Debug, Clone)]
pub struct BenchResult {
    /// Benchmark name as given.
    pub name: String,
    /// Client threads whose stats were merged.
    pub threads: usize,
    /// Merged measurements.
    pub stats: Stats,
    /// The target rate in force over all threads; `None`: closed loop.
    pub target_ops_per_sec: Option<f64>,
    /// The largest DB-directory size sampled (at each interval and at the end).
    pub peak_disk_bytes: u64,
    /// The largest resident set size of the process sampled.
    pub peak_rss_bytes: u64,
    /// The largest of the process's own memory sampled (RSS without the
    /// pages of mapped files, [`crate::sysinfo::Resident::own_bytes`]).
    pub peak_own_memory_bytes: u64,
    /// The intervals of `--report_interval_seconds` (empty without it).
    pub intervals: Vec<Interval>,
}

/// One `strata bench` invocation.
pub struct Runner<'a> {
    flags: Flags,
    factory: &'a dyn EngineFactory,
    settings: Vec<OptionSetting>,
    db_path: PathBuf,
    db: Option<Arc<dyn BenchEngine>>,
    seed_base: u64,
    total_thread_count: u64,
    /// Results of the benchmarks run so far.
    pub results: Vec<BenchResult>,
}

/// Default DB path when `--db` is empty (db_bench: `/tmp/rocksdbtest-<uid>/dbbench`,
/// LevelDB's db_bench: `/tmp/leveldbtest-<uid>/dbbench`).
pub fn default_db_path(engine: &str) -> PathBuf {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let dir = match engine {
        "rocksdb" => "rocksdbtest",
        "leveldb" => "leveldbtest",
        "fjall" => "fjalltest",
        _ => "stratatest",
    };
    PathBuf::from(format!("/tmp/{dir}-{uid}/dbbench"))
}

impl<'a> Runner<'a> {
    /// Prepares a run; `seed_base` is `--seed` or the clock when it is 0.
    pub fn new(flags: Flags, factory: &'a dyn EngineFactory, seed_base: u64) -> Self {
        let settings = engine_options(&flags);
        let db_path = if flags.db.is_empty() {
            default_db_path(&flags.engine)
        } else {
            PathBuf::from(&flags.db)
        };
        Self {
            flags,
            factory,
            settings,
            db_path,
            db: None,
            seed_base,
            total_thread_count: 0,
            results: Vec::new(),
        }
    }

    /// The DB directory.
    pub fn db_path(&self) -> &std::path::Path {
        &self.db_path
    }

    /// The open DB, if any.
    pub fn db(&self) -> Option<&Arc<dyn BenchEngine>> {
        self.db.as_ref()
    }

    fn open(&mut self) -> anyhow::Result<()> {
        if self.db.is_none() {
            // db_bench opens with create_if_missing = !use_existing_db: a
            // mistyped --db must not read an empty, new database.
            if self.flags.use_existing_db && !has_files(&self.db_path) {
                anyhow::bail!(
                    "--use_existing_db is true but there is no database at {} \
                     (it is opened with create_if_missing=false)",
                    self.db_path.display()
                );
            }
            if let Some(parent) = self.db_path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let db = self
                .factory
                .open(&self.db_path, &self.settings)
                .map_err(|e| anyhow::anyhow!(explain_open_error(&e, &self.settings)))?;
            self.db = Some(db);
        }
        Ok(())
    }

    fn destroy(&mut self) -> anyhow::Result<()> {
        self.db = None;
        dbdir::destroy_db(&self.db_path)?;
        Ok(())
    }

    /// Runs every benchmark, writing db_bench's stdout text to `out`.
    pub fn run(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        let mut benches = Vec::new();
        for name in &self.flags.benchmarks {
            match Bench::parse(name) {
                Some(b) => benches.push((name.clone(), b)),
                None => anyhow::bail!("unknown benchmark '{name}'"),
            }
        }
        if !self.flags.use_existing_db {
            self.destroy()?;
        }
        for (name, bench) in benches {
            if bench.fresh_db() {
                if self.flags.use_existing_db {
                    writeln!(out, "{name:<12} : skipped (--use_existing_db is true)")?;
                    continue;
                }
                self.destroy()?;
            }
            self.open()?;
            let db = self
                .db
                .clone()
                .ok_or_else(|| anyhow::anyhow!("database not open"))?;
            match bench {
                Bench::Stats | Bench::LevelStats => {
                    let prop = if bench == Bench::Stats {
                        "rocksdb.stats"
                    } else {
                        "rocksdb.levelstats"
                    };
                    let text = db.property(prop).unwrap_or_else(|| "(failed)".into());
                    write!(out, "\n{text}\n")?;
                }
                Bench::Flush => {
                    db.flush()?;
                    writeln!(out, "flush memtable")?;
                }
                Bench::WaitForCompaction => {
                    let p = self.db_path.display();
                    writeln!(out, "waitforcompaction({p}): started")?;
                    db.wait_for_compaction()?;
                    writeln!(out, "waitforcompaction({p}): finished")?;
                }
                _ => {
                    writeln!(out, "DB path: [{}]", self.db_path.display())?;
                    out.flush()?;
                    let result = self.run_threads(&name, bench, &db)?;
                    let s = result.stats.summary();
                    out.write_all(format_result_line(&name, &s).as_bytes())?;
                    if self.flags.histogram {
                        out.write_all(format_histograms(&result.stats).as_bytes())?;
                    }
                    out.flush()?;
                    self.results.push(result);
                }
            }
        }
        if self.flags.statistics {
            if let Some(dump) = self.db.as_ref().and_then(|d| d.statistics_dump()) {
                out.write_all(format_statistics(&dump).as_bytes())?;
            }
        }
        Ok(())
    }

    fn run_threads(
        &mut self,
        name: &str,
        bench: Bench,
        db: &Arc<dyn BenchEngine>,
    ) -> anyhow::Result<BenchResult> {
        let f = &self.flags;
        let mut wo: WriteOpts = write_options(f);
        let mut key_range = f.key_range();
        if bench == Bench::FillSync {
            wo.sync = true;
            key_range = (key_range / 1000).max(1);
        }
        if bench.writes() && wo.sync && wo.disable_wal {
            anyhow::bail!("put error: Invalid argument: Sync writes has to enable WAL.");
        }
        let n = if bench == Bench::ReadWhileWriting {
            f.threads + 1
        } else {
            f.threads
        };
        if bench == Bench::Compact {
            // db_bench runs meta benchmarks on one thread.
            return self.run_n(name, bench, db, 1, wo, key_range);
        }
        self.run_n(name, bench, db, n, wo, key_range)
    }

    fn run_n(
        &mut self,
        name: &str,
        bench: Bench,
        db: &Arc<dyn BenchEngine>,
        n: usize,
        wo: WriteOpts,
        key_range: u64,
    ) -> anyhow::Result<BenchResult> {
        let f = &self.flags;
        let target = f.target_rate(matches!(bench, Bench::Ycsb(_) | Bench::YcsbLoad));
        // Each client thread paces itself at its share of the rate (the
        // background writer of readwhilewriting is not a client).
        let per_thread = target.map_or(0.0, |r| r / f.threads as f64);
        let sampling = f.report_interval_seconds > 0;
        let record_latency =
            f.histogram || !f.json_report.is_empty() || sampling || target.is_some();
        let csv = if sampling {
            Some(ReportCsv::create(std::path::Path::new(&f.report_file))?)
        } else {
            None
        };
        let clock = Clock {
            start: std::time::Instant::now(),
            period: std::time::Duration::from_secs(f.report_interval_seconds.max(1)),
        };
        let board = Board::new(clock, n);
        let sampler = sampling.then(|| {
            let start = Point::take(db.as_ref(), &self.db_path);
            Sampler::new(&board, db.as_ref(), &self.db_path, start, csv)
        });
        let seeds: Vec<u64> = (0..n)
            .map(|_| {
                let seed = self.seed_base.wrapping_add(self.total_thread_count);
                self.total_thread_count += 1;
                seed
            })
            .collect();
        let barrier = Barrier::new(n);
        let readers_done = AtomicBool::new(false);
        let readers_left = std::sync::atomic::AtomicUsize::new(n.saturating_sub(1));
        let outcomes: Vec<anyhow::Result<Stats>> = std::thread::scope(|scope| {
            let sampling_thread = sampler.as_ref().map(|s| scope.spawn(move || s.run()));
            let board = &board;
            let handles: Vec<_> = seeds
                .iter()
                .enumerate()
                .map(|(tid, seed)| {
                    let barrier = &barrier;
                    let readers_done = &readers_done;
                    let readers_left = &readers_left;
                    let seed = *seed;
                    scope.spawn(move || {
                        let progress = Progress::new(
                            tid,
                            f.stats_interval,
                            f.stats_interval_seconds,
                            f.stats_per_interval > 0,
                            Some(Arc::clone(db)),
                        );
                        barrier.wait();
                        let mut ctx = ThreadCtx {
                            tid,
                            db,
                            flags: f,
                            wo,
                            key_range,
                            rand: Random64::new(seed),
                            stats: Stats::start(record_latency),
                            progress,
                            readers_done,
                            pacer: Pacer::new(per_thread),
                            intervals: sampling.then(|| board.recorder(tid)),
                        };
                        let r = match bench {
                            Bench::FillSeq => {
                                workloads::write(&mut ctx, KeyOrder::Sequential, f.batch_size)
                            }
                            // db_bench's fillbatch: fillseq, 1000 keys per batch.
                            Bench::FillBatch => {
                                workloads::write(&mut ctx, KeyOrder::Sequential, 1000)
                            }
                            Bench::FillRandom | Bench::Overwrite | Bench::FillSync => {
                                workloads::write(&mut ctx, KeyOrder::Random, f.batch_size)
                            }
                            Bench::ReadRandom => workloads::read_random(&mut ctx, false),
                            Bench::MultiReadRandom => workloads::multi_read_random(&mut ctx),
                            Bench::ReadMissing => workloads::read_random(&mut ctx, true),
                            Bench::ReadSeq => workloads::read_sequential(&mut ctx, false),
                            Bench::ReadReverse => workloads::read_sequential(&mut ctx, true),
                            Bench::SeekRandom => workloads::seek_random(&mut ctx),
                            Bench::DeleteRandom => workloads::delete_random(&mut ctx),
                            Bench::DeleteSeq => workloads::delete_seq(&mut ctx),
                            Bench::ReadRandomWriteRandom => {
                                workloads::read_random_write_random(&mut ctx)
                            }
                            Bench::UpdateRandom => workloads::update_random(&mut ctx),
                            Bench::MergeRandom => workloads::merge_random(&mut ctx),
                            Bench::ReadRandomMergeRandom => {
                                workloads::read_random_merge_random(&mut ctx)
                            }
                            Bench::YcsbLoad => crate::ycsb::load(&mut ctx, n),
                            Bench::Ycsb(w) => crate::ycsb::run(&mut ctx, w, n),
                            Bench::MixGraph => crate::mixgraph::run(&mut ctx, n),
                            Bench::UpdateHotCold => workloads::update_hot_cold(&mut ctx),
                            Bench::ReadHot => workloads::read_hot_cold(&mut ctx, true),
                            Bench::ReadCold => workloads::read_hot_cold(&mut ctx, false),
                            Bench::ReadWhileWriting if tid == 0 => {
                                workloads::background_writer(&mut ctx)
                            }
                            Bench::ReadWhileWriting => {
                                let r = workloads::read_random(&mut ctx, false);
                                if readers_left.fetch_sub(1, Ordering::AcqRel) == 1 {
                                    readers_done.store(true, Ordering::Release);
                                }
                                r
                            }
                            Bench::Compact => workloads::compact(&mut ctx),
                            Bench::Flush
                            | Bench::WaitForCompaction
                            | Bench::Stats
                            | Bench::LevelStats => Ok(()),
                        };
                        if r.is_err() {
                            readers_done.store(true, Ordering::Release);
                        }
                        ctx.stats.stop();
                        r.map(|()| ctx.stats)
                    })
                })
                .collect();
            let outcomes = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(anyhow::anyhow!("benchmark thread panicked")))
                })
                .collect();
            if let Some(s) = sampler.as_ref() {
                s.stop();
            }
            if let Some(h) = sampling_thread {
                let _ = h.join();
            }
            outcomes
        });
        let end = Point::take(db.as_ref(), &self.db_path);
        let intervals = sampler.map_or_else(Vec::new, |s| s.finish(end));
        let mut merged: Option<Stats> = None;
        let mut counted = 0;
        for outcome in outcomes {
            let s = outcome?;
            if s.exclude_from_merge {
                continue;
            }
            counted += 1;
            match merged.as_mut() {
                Some(m) => m.merge(&s),
                None => merged = Some(s),
            }
        }
        let stats = merged.ok_or_else(|| anyhow::anyhow!("no benchmark thread reported"))?;
        let peak =
            |f: fn(&Interval) -> u64, at_end: u64| intervals.iter().map(f).fold(at_end, u64::max);
        Ok(BenchResult {
            name: name.to_string(),
            threads: counted,
            stats,
            target_ops_per_sec: target,
            peak_disk_bytes: peak(|i| i.disk_bytes, end.disk_bytes),
            peak_rss_bytes: peak(|i| i.rss_bytes, end.resident.rss_bytes),
            peak_own_memory_bytes: peak(
                |i| i.rss_bytes.saturating_sub(i.rss_file_bytes),
                end.resident.own_bytes(),
            ),
            intervals,
        })
    }
}

/// Whether `dir` is a directory with at least one entry.
fn has_files(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}
