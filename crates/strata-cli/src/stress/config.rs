//! Command-line flags of `strata stress`.

use std::path::PathBuf;

use clap::Parser;
use strata::sync_point::SyncPoint;

/// `strata stress`: random operations from several threads, verified
/// against an expected state kept in `<DB>.expected/`; with
/// `--crash-test`, a loop of kill -9 / reopen / verify.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "strata stress",
    version,
    about = "Randomized multi-threaded load on a DB, verified against an expected state; \
             --crash-test kills and verifies in a loop",
    after_help = "Exit status: 0 no violation, 1 a violation (DB and expected state kept), \
                  2 usage or other error. See docs/stress.md."
)]
pub struct Config {
    /// The DB directory (created if missing). The expected state lives in
    /// `<DB>.expected/`.
    #[arg(long)]
    pub db: PathBuf,
    /// Worker threads.
    #[arg(long, default_value_t = 4)]
    pub threads: usize,
    /// Total operations (all threads); 0 = until `--duration`.
    #[arg(long, default_value_t = 0)]
    pub ops: u64,
    /// Seconds to run (normal mode: 0 = until `--ops`; crash mode: total).
    #[arg(long, default_value_t = 0)]
    pub duration: u64,
    /// Size of the key space.
    #[arg(long, default_value_t = 10_000)]
    pub keys: u32,
    /// Smallest value (at least 27 bytes are always written).
    #[arg(long, default_value_t = 32)]
    pub value_size_min: usize,
    /// Largest value.
    #[arg(long, default_value_t = 256)]
    pub value_size_max: usize,
    /// DB options in RocksDB's `name=value;...` syntax.
    #[arg(long, default_value = "")]
    pub options: String,
    /// Options of the column family `cf{N}`, for N = 1, 2, ... in the
    /// order given, applied after `--options` (repeat the flag once per
    /// family; families without one have `--options`).
    #[arg(long)]
    pub family_options: Vec<String>,
    /// `WriteOptions::sync` for every write (0 or 1).
    #[arg(long, default_value_t = 0)]
    pub sync: u8,
    /// `WriteOptions::disable_wal` for every write (0 or 1).
    #[arg(long, default_value_t = 0)]
    pub disable_wal: u8,
    /// Random seed (0: from the clock).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Keys per write batch.
    #[arg(long, default_value_t = 4)]
    pub batch_size: usize,
    /// Share of puts in the operation mix (relative weight).
    #[arg(long, default_value_t = 35)]
    pub puts: u32,
    /// Share of deletes.
    #[arg(long, default_value_t = 10)]
    pub deletes: u32,
    /// Share of write batches.
    #[arg(long, default_value_t = 10)]
    pub batches: u32,
    /// Share of point gets.
    #[arg(long, default_value_t = 25)]
    pub gets: u32,
    /// Share of range scans.
    #[arg(long, default_value_t = 10)]
    pub scans: u32,
    /// Share of snapshot operations (take, or read back and compare).
    #[arg(long, default_value_t = 10)]
    pub snapshots: u32,
    /// Share of merges: a merge in each family whose merge operator is
    /// `put`, `uint64add` or `stringappend` (operands in `codec.rs`), a put
    /// in the others.
    #[arg(long, default_value_t = 0)]
    pub merges: u32,
    /// Share of range deletions (`delete_range`) of up to `--scan-length`
    /// keys.
    #[arg(long, default_value_t = 0)]
    pub range_deletes: u32,
    /// Longest range scan, in keys.
    #[arg(long, default_value_t = 20)]
    pub scan_length: u32,
    /// Each operation calls `flush()` with probability 1/N (0: never).
    #[arg(long, default_value_t = 2000)]
    pub flush_one_in: u64,
    /// Each operation compacts a random key range with probability 1/N
    /// (0: never).
    #[arg(long, default_value_t = 10_000)]
    pub compact_one_in: u64,
    /// Each operation takes a checkpoint with probability 1/N, with the
    /// other operations held, and verifies it (every key of every family)
    /// while they go on (0: never).
    #[arg(long, default_value_t = 0)]
    pub checkpoint_one_in: u64,
    /// Treat every acknowledged write as durable across a process kill
    /// (true when the WAL is on: its bytes reach the OS before the write is
    /// acknowledged). 0 checks only synced and flushed writes.
    #[arg(long)]
    pub acked_durable: Option<u8>,
    /// Column families: "default" plus "cf1" .. "cf{N-1}". Each write goes
    /// to one family, to several or to all of them (the same key and value
    /// in each, in one atomic batch).
    #[arg(long, default_value_t = 1)]
    pub column_families: usize,
    /// With `--column-families` above 1: each operation drops a random
    /// family other than "default" and creates it again (empty) with
    /// probability 1/N (0: never; default 10000). An error with one family.
    #[arg(long)]
    pub drop_cf_one_in: Option<u64>,
    /// Crash mode: run children and kill them with SIGKILL in a loop.
    #[arg(long)]
    pub crash_test: bool,
    /// Crash mode: draw the options at random (`draw.rs`): a new option
    /// set every `--kills-per-set` kills (a fresh DB), and new values of
    /// the options that may change at each reopen. Overrides the workload
    /// flags it draws; `--options` and `--family-options` are refused.
    #[arg(long)]
    pub random_options: bool,
    /// Crash mode with `--random-options`: kills per option set.
    #[arg(long, default_value_t = 25)]
    pub kills_per_set: u64,
    /// Crash mode: shortest time a child runs before the kill, ms.
    #[arg(long, default_value_t = 1000)]
    pub kill_min_ms: u64,
    /// Crash mode: longest time a child runs before the kill, ms.
    #[arg(long, default_value_t = 8000)]
    pub kill_max_ms: u64,
    /// Crash mode: kill each child at a named sync point of the engine
    /// instead of at a random moment: a point's name, or `random-point`
    /// for every point in turn (docs/stress.md lists them). Needs the
    /// `sync-points` feature (on by default).
    #[arg(long, value_name = "POINT|random-point")]
    pub kill_at: Option<String>,
    /// Crash mode with `--kill-at`: stop once every point aimed at was
    /// killed at this many times, or at `--duration` (0: at `--duration`).
    #[arg(long, default_value_t = 0)]
    pub kills_per_point: u64,
    /// Internal: a crash-test child dies on this hit of `--kill-at`.
    #[arg(long, hide = true, default_value_t = 1)]
    pub kill_hit: u64,
    /// Internal: this process is a crash-test child (the parent verified
    /// the DB just before).
    #[arg(long, hide = true)]
    pub child: bool,
}

/// `--kill-at`'s value that aims at every sync point in turn.
pub const RANDOM_POINT: &str = "random-point";

/// The sync point named `name`, or an error listing the valid names.
///
/// # Errors
/// `name` names no sync point.
pub fn sync_point(name: &str) -> anyhow::Result<SyncPoint> {
    SyncPoint::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = SyncPoint::ALL.iter().map(|p| p.name()).collect();
        anyhow::anyhow!(
            "--kill-at {name}: no such sync point (valid: {RANDOM_POINT}, {})",
            names.join(", ")
        )
    })
}

impl Config {
    /// `--seed`, or one from the clock when it is 0 (each run then differs).
    pub fn effective_seed(&self) -> u64 {
        if self.seed != 0 {
            return self.seed;
        }
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    }

    /// Whether acknowledged writes count as durable after a process kill.
    pub fn acked_durable(&self) -> bool {
        match self.acked_durable {
            Some(v) => v != 0,
            None => self.disable_wal == 0,
        }
    }

    /// The options the DB is opened with (with several column families,
    /// the missing ones are created).
    ///
    /// # Errors
    /// The option string does not parse (naming the option).
    pub fn db_options(&self) -> anyhow::Result<strata::Options> {
        let mut o = self.family_options(0)?;
        if self.column_families > 1 {
            o.create_missing_column_families = true;
        }
        Ok(o)
    }

    /// The options of column family `f` (0 = "default"): `--options`, then
    /// the family's `--family-options` if it has one.
    ///
    /// # Errors
    /// An option string does not parse (naming the option).
    pub fn family_options(&self, f: usize) -> anyhow::Result<strata::Options> {
        match f.checked_sub(1).and_then(|i| self.family_options.get(i)) {
            None => self
                .options
                .parse::<strata::Options>()
                .map_err(|e| anyhow::anyhow!("--options: {e}")),
            Some(extra) => format!("{};{extra}", self.options)
                .parse::<strata::Options>()
                .map_err(|e| anyhow::anyhow!("--options with --family-options (cf{f}): {e}")),
        }
    }

    /// How each column family's values are written and read back, by its
    /// merge operator ("default" first).
    ///
    /// # Errors
    /// An option string does not parse (naming the option).
    pub fn codecs(&self) -> anyhow::Result<Vec<super::codec::Codec>> {
        (0..self.column_families.max(1))
            .map(|f| {
                let o = self.family_options(f)?;
                Ok(super::codec::Codec {
                    op: super::codec::Operator::from_name(
                        o.merge_operator.as_ref().map(|m| m.name()),
                    ),
                    min: self.value_size_min,
                    max: self.value_size_max,
                })
            })
            .collect()
    }

    /// The column family names: "default", "cf1", ... (index = the bit of
    /// a family in a log record).
    pub fn family_names(&self) -> Vec<String> {
        (0..self.column_families.max(1))
            .map(|i| {
                if i == 0 {
                    "default".to_string()
                } else {
                    format!("cf{i}")
                }
            })
            .collect()
    }

    /// The sync points `--kill-at` aims at, in the order they take turns
    /// (empty without `--kill-at`).
    ///
    /// # Errors
    /// A name that is no sync point (the message lists the valid ones).
    pub fn kill_points(&self) -> anyhow::Result<Vec<SyncPoint>> {
        match self.kill_at.as_deref() {
            None => Ok(Vec::new()),
            Some(RANDOM_POINT) if !self.child => Ok(SyncPoint::ALL.to_vec()),
            Some(name) => Ok(vec![sync_point(name)?]),
        }
    }

    /// `--drop-cf-one-in`, or its default of 10000.
    pub fn drop_cf_one_in(&self) -> u64 {
        self.drop_cf_one_in.unwrap_or(10_000)
    }

    /// `WriteOptions` for every write.
    pub fn write_options(&self) -> strata::WriteOptions {
        strata::WriteOptions::default()
            .sync(self.sync != 0)
            .disable_wal(self.disable_wal != 0)
    }

    /// Checks flag combinations.
    ///
    /// # Errors
    /// A message naming the bad flag.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.keys == 0 {
            anyhow::bail!("--keys must be at least 1");
        }
        if self.threads == 0 {
            anyhow::bail!("--threads must be at least 1");
        }
        if self.value_size_max < self.value_size_min {
            anyhow::bail!("--value-size-max is below --value-size-min");
        }
        if self.sync != 0 && self.disable_wal != 0 {
            anyhow::bail!("--sync 1 cannot be combined with --disable-wal 1");
        }
        if self.column_families == 0 || self.column_families > 16 {
            anyhow::bail!("--column-families must be 1 to 16");
        }
        if self.drop_cf_one_in.is_some_and(|n| n > 0) && self.column_families < 2 {
            anyhow::bail!(
                "--drop-cf-one-in needs --column-families 2 or more (the default family is never dropped)"
            );
        }
        if self.crash_test && self.duration == 0 {
            anyhow::bail!("--crash-test needs --duration SECONDS");
        }
        if self.family_options.len() >= self.column_families {
            anyhow::bail!(
                "--family-options given {} times for {} column families (one per family after \"default\")",
                self.family_options.len(),
                self.column_families
            );
        }
        if self.random_options && !self.crash_test {
            anyhow::bail!("--random-options needs --crash-test");
        }
        if self.random_options && (!self.options.is_empty() || !self.family_options.is_empty()) {
            anyhow::bail!(
                "--random-options draws the options: drop --options and --family-options"
            );
        }
        if self.kills_per_set == 0 {
            anyhow::bail!("--kills-per-set must be at least 1");
        }
        if self.kill_max_ms < self.kill_min_ms {
            anyhow::bail!("--kill-max-ms is below --kill-min-ms");
        }
        if self.kill_at.is_some() && !self.crash_test && !self.child {
            anyhow::bail!("--kill-at needs --crash-test");
        }
        self.kill_points()?;
        if self.kill_at.is_some() && !cfg!(feature = "sync-points") {
            anyhow::bail!(
                "--kill-at needs a build with the engine's sync points \
                 (this one was built with --no-default-features; \
                 rebuild with --features sync-points)"
            );
        }
        if self.kills_per_point > 0 && self.kill_at.is_none() {
            anyhow::bail!("--kills-per-point needs --kill-at");
        }
        if self.kill_hit == 0 {
            anyhow::bail!("--kill-hit must be at least 1");
        }
        let mix = [
            self.puts,
            self.deletes,
            self.batches,
            self.gets,
            self.scans,
            self.snapshots,
            self.merges,
            self.range_deletes,
        ];
        if mix.iter().map(|&w| u64::from(w)).sum::<u64>() == 0 {
            anyhow::bail!("the operation mix is empty");
        }
        Ok(())
    }
}
