//! The bodies of the benchmarks, one function per db_bench method, run by
//! every client thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use crate::engine::{BatchOp, BenchEngine};
use crate::flags::Flags;
use crate::intervals::Recorder;
use crate::keygen::{generate_key_from_int, KeyGenerator, KeyOrder};
use crate::options_map::WriteOpts;
use crate::pacer::Pacer;
use crate::progress::Progress;
use crate::rng::Random64;
use crate::stats::{OpType, Stats};
use crate::valuegen::ValueGenerator;

/// What one client thread gets.
pub struct ThreadCtx<'a> {
    /// Thread index (0..n).
    pub tid: usize,
    /// The open DB.
    pub db: &'a Arc<dyn BenchEngine>,
    /// Run flags.
    pub flags: &'a Flags,
    /// Write options of this benchmark.
    pub wo: WriteOpts,
    /// Key range of this benchmark (`--num`, or `--num / 1000` for fillsync).
    pub key_range: u64,
    /// This thread's key RNG (`seed_base + thread counter`).
    pub rand: Random64,
    /// This thread's measurements.
    pub stats: Stats,
    /// Progress reporter.
    pub progress: Progress,
    /// Set when all readers of readwhilewriting are done.
    pub readers_done: &'a AtomicBool,
    /// Paces the thread's operations (`--target_ops_per_sec`).
    pub pacer: Pacer,
    /// Sorts the thread's operations into intervals
    /// (`--report_interval_seconds`).
    pub intervals: Option<Recorder<'a>>,
}

impl ThreadCtx<'_> {
    /// Counts `n` finished ops of kind `op` (a write batch of `n` keys is
    /// timed as one); under a target rate, then waits for the next op's
    /// slot, from which that op is timed.
    pub(crate) fn finished(&mut self, n: u64, op: OpType) {
        if let Some((now, nanos)) = self.stats.finished_ops(n, op) {
            self.pacer.done(n);
            let behind = self.pacer.behind(now);
            self.stats.behind_schedule = behind;
            if let Some(r) = self.intervals.as_mut() {
                r.record(now, nanos, n, op, behind);
            }
            if self.pacer.is_paced() {
                let slot = self.pacer.wait();
                self.stats.next_op_starts_at(slot);
            }
        }
        self.progress.tick(self.stats.done);
    }

    fn key(&self, v: u64, buf: &mut [u8]) {
        generate_key_from_int(v, buf);
    }

    /// A key drawn from this thread's RNG over the key range into `buf`.
    fn random_key(&mut self, buf: &mut [u8]) {
        generate_key_from_int(self.rand.next_u64() % self.key_range, buf);
    }

    /// Reads `key`, counting it in `found` and its key and value bytes in
    /// `bytes` when it is there.
    pub(crate) fn get_counted(
        &self,
        key: &[u8],
        found: &mut u64,
        bytes: &mut u64,
    ) -> anyhow::Result<()> {
        match self.db.get(key, self.flags.verify_checksum) {
            Ok(Some(len)) => {
                *found += 1;
                *bytes += (key.len() + len) as u64;
            }
            Ok(None) => {}
            Err(e) => anyhow::bail!("Get returned an error: {e:#}"),
        }
        Ok(())
    }

    /// Ends a read benchmark as db_bench does: the `bytes` read count
    /// towards its MB/s, and its message is `(F of R found)`.
    fn report_found(&mut self, read: u64, found: u64, bytes: u64) {
        self.stats.add_bytes(bytes);
        self.stats
            .add_message(&format!("({found} of {read} found)\n"));
    }
}

/// Reads up to `len` entries from the iterator's position on, adding their
/// key and value bytes to `bytes`; returns how many it read.
pub(crate) fn scan_from(
    it: &mut (dyn crate::engine::BenchIter + '_),
    len: u64,
    bytes: &mut u64,
) -> anyhow::Result<u64> {
    let mut n = 0;
    while n < len && it.valid() {
        *bytes += (it.key().len() + it.value_len()) as u64;
        it.next()?;
        n += 1;
    }
    Ok(n)
}

/// db_bench's `Duration`: stop after `max_ops`, or after `max_seconds` when
/// non-zero (checked every 1000 ops).
pub struct Duration {
    max_seconds: u64,
    max_ops: u64,
    ops: u64,
    start: Instant,
}

impl Duration {
    /// A new budget.
    pub fn new(max_seconds: u64, max_ops: u64) -> Self {
        Self {
            max_seconds,
            max_ops,
            ops: 0,
            start: Instant::now(),
        }
    }

    /// Counts `inc` ops; true when the budget is spent.
    pub fn done(&mut self, inc: u64) -> bool {
        let inc = inc.max(1);
        self.ops += inc;
        if self.max_seconds > 0 {
            if self.ops / 1000 != (self.ops - inc) / 1000 {
                return self.start.elapsed().as_secs() >= self.max_seconds;
            }
            false
        } else {
            self.ops > self.max_ops
        }
    }
}

/// Sleeps to keep a thread under `limit` bytes/s (0: no limit).
struct RateLimit {
    limit: u64,
    start: Instant,
    bytes: u64,
}

impl RateLimit {
    fn new(limit: u64) -> Self {
        Self {
            limit,
            start: Instant::now(),
            bytes: 0,
        }
    }
    fn request(&mut self, bytes: u64) {
        if self.limit == 0 {
            return;
        }
        self.bytes += bytes;
        let due = self.bytes as f64 / self.limit as f64;
        let ahead = due - self.start.elapsed().as_secs_f64();
        if ahead > 0.0 {
            std::thread::sleep(StdDuration::from_secs_f64(ahead));
        }
    }
}

/// `put error: ...` as db_bench reports a failed write.
fn put_error(e: anyhow::Error) -> anyhow::Error {
    anyhow::anyhow!("put error: {e:#}")
}

/// fillseq, fillrandom, overwrite, fillsync and fillbatch: `batch` keys
/// per write (db_bench's `entries_per_batch_`: `--batch_size`, or 1000 for
/// fillbatch), each batch counted as `batch` operations, as db_bench does.
pub fn write(ctx: &mut ThreadCtx<'_>, order: KeyOrder, batch: u64) -> anyhow::Result<()> {
    let f = ctx.flags;
    let secs = if order == KeyOrder::Random {
        f.duration
    } else {
        0
    };
    let mut duration = Duration::new(secs, f.writes_per_thread());
    let mut gen = KeyGenerator::new(order, ctx.key_range);
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut limiter = RateLimit::new(f.benchmark_write_rate_limit);
    let n = usize::try_from(batch).unwrap_or(usize::MAX);
    let mut keys = vec![vec![0u8; f.key_size]; n];
    // Values are copied out of the generator only for batches of more
    // than one key; a single put writes the generator's slice.
    let mut vals: Vec<Vec<u8>> = vec![Vec::new(); if n > 1 { n } else { 0 }];
    let batch_bytes = (f.key_size + f.value_size) as u64 * batch;
    let mut bytes = 0u64;
    // db_bench's range tombstones: after the write that makes
    // `num_written - writes_before_delete_range` a multiple of
    // `writes_per_range_tombstone`, up to `max_num_range_tombstones`, a
    // DeleteRange of `range_tombstone_width` keys from the next key of the
    // generator joins the batch (point deletes with
    // `--expand_range_tombstones`).
    let mut num_written: i64 = 0;
    let per = f.writes_per_range_tombstone;
    let before = f.writes_before_delete_range;
    let width = u64::try_from(f.range_tombstone_width).unwrap_or(0);
    let mut range_keys: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut expanded: Vec<Vec<u8>> = Vec::new();
    while !duration.done(batch) {
        range_keys.clear();
        expanded.clear();
        // Pushes the tombstone due after this write, if one is.
        let mut tombstone_due = |ctx: &mut ThreadCtx<'_>,
                                 gen: &mut KeyGenerator,
                                 range_keys: &mut Vec<(Vec<u8>, Vec<u8>)>,
                                 expanded: &mut Vec<Vec<u8>>| {
            num_written += 1;
            let since = num_written - before;
            if per > 0 && since > 0 && since / per <= f.max_num_range_tombstones && since % per == 0
            {
                let begin = gen.next(&mut ctx.rand);
                if f.expand_range_tombstones {
                    for k in begin..begin.saturating_add(width) {
                        let mut key = vec![0u8; f.key_size];
                        ctx.key(k, &mut key);
                        expanded.push(key);
                    }
                } else {
                    let mut b = vec![0u8; f.key_size];
                    let mut e = vec![0u8; f.key_size];
                    ctx.key(begin, &mut b);
                    ctx.key(begin.saturating_add(width), &mut e);
                    range_keys.push((b, e));
                }
            }
        };
        if n == 1 {
            let k = gen.next(&mut ctx.rand);
            ctx.key(k, &mut keys[0]);
            tombstone_due(ctx, &mut gen, &mut range_keys, &mut expanded);
            let value = values.generate(f.value_size);
            limiter.request(batch_bytes);
            if range_keys.is_empty() && expanded.is_empty() {
                ctx.db.put(&keys[0], value, ctx.wo).map_err(put_error)?;
            } else {
                let mut ops = vec![BatchOp::Put(&keys[0], value)];
                ops.extend(range_keys.iter().map(|(b, e)| BatchOp::DeleteRange(b, e)));
                ops.extend(expanded.iter().map(|k| BatchOp::Delete(k)));
                ctx.db.write_batch(&ops, ctx.wo).map_err(put_error)?;
            }
        } else {
            // Each tombstone follows the put that made it due.
            let mut after: Vec<(usize, usize, usize)> = Vec::new();
            for (i, (key, val)) in keys.iter_mut().zip(vals.iter_mut()).enumerate() {
                let k = gen.next(&mut ctx.rand);
                ctx.key(k, key);
                val.clear();
                val.extend_from_slice(values.generate(f.value_size));
                let (r, x) = (range_keys.len(), expanded.len());
                tombstone_due(ctx, &mut gen, &mut range_keys, &mut expanded);
                if range_keys.len() > r || expanded.len() > x {
                    after.push((i, r, x));
                }
            }
            limiter.request(batch_bytes);
            let mut ops: Vec<BatchOp<'_>> = Vec::with_capacity(n + after.len());
            let mut next = after.iter().peekable();
            for (i, (k, v)) in keys.iter().zip(&vals).enumerate() {
                ops.push(BatchOp::Put(k, v));
                if let Some(&(_, r, x)) = next.next_if(|a| a.0 == i) {
                    let r_end = next.peek().map_or(range_keys.len(), |a| a.1);
                    let x_end = next.peek().map_or(expanded.len(), |a| a.2);
                    ops.extend(
                        range_keys[r..r_end]
                            .iter()
                            .map(|(b, e)| BatchOp::DeleteRange(b, e)),
                    );
                    ops.extend(expanded[x..x_end].iter().map(|k| BatchOp::Delete(k)));
                }
            }
            ctx.db.write_batch(&ops, ctx.wo).map_err(put_error)?;
        }
        bytes += batch_bytes;
        ctx.finished(batch, OpType::Write);
    }
    ctx.stats.add_bytes(bytes);
    if ctx.key_range != f.key_range() {
        ctx.stats.add_message(&format!("({} ops)", ctx.key_range));
    }
    Ok(())
}

/// multireadrandom: `--batch_size` keys per MultiGet, random, or from a
/// random start every `--multiread_stride` keys; db_bench's message
/// `(F of R found)`.
pub fn multi_read_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    if !ctx.db.has_multi_get() {
        anyhow::bail!(
            "Not supported: benchmark 'multireadrandom' is not supported by {}: it has no MultiGet",
            f.engine
        );
    }
    let batch = f.batch_size;
    let n = usize::try_from(batch).unwrap_or(usize::MAX);
    let mut duration = Duration::new(f.duration, f.reads_per_thread());
    let mut keys = vec![vec![0u8; f.key_size]; n];
    let (mut read, mut found, mut bytes) = (0u64, 0u64, 0u64);
    while !duration.done(batch) {
        if f.multiread_stride > 0 {
            let stride = f.multiread_stride;
            let mut k = ctx.rand.next_u64() % ctx.key_range;
            let span = (batch - 1).saturating_mul(stride);
            if k.saturating_add(span) >= ctx.key_range {
                k = ctx.key_range.saturating_sub(batch.saturating_mul(stride));
            }
            for key in &mut keys {
                generate_key_from_int(k, key);
                k = k.saturating_add(stride);
            }
        } else {
            for key in &mut keys {
                ctx.random_key(key);
            }
        }
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let got = ctx
            .db
            .multi_get(&refs, f.verify_checksum, f.multiread_batched)
            .map_err(|e| anyhow::anyhow!("MultiGet returned an error: {e:#}"))?;
        read += batch;
        for len in got.into_iter().flatten() {
            found += 1;
            bytes += (f.key_size + len) as u64;
        }
        ctx.finished(batch, OpType::Read);
    }
    ctx.report_found(read, found, bytes);
    Ok(())
}

/// readrandom and readmissing (a missing key is the key plus one byte).
pub fn read_random(ctx: &mut ThreadCtx<'_>, missing: bool) -> anyhow::Result<()> {
    let f = ctx.flags;
    let mut key = vec![0u8; f.key_size + usize::from(missing)];
    if missing {
        if let Some(last) = key.last_mut() {
            *last = b'.';
        }
    }
    get_keys(ctx, key, |ctx, key| ctx.random_key(&mut key[..f.key_size]))
}

/// The loop of readrandom, readmissing, readhot and readcold: until
/// `--reads` (or `--duration`) runs out, `next_key` writes the next key into
/// `key` and it is read; then db_bench's `(F of R found)`.
fn get_keys(
    ctx: &mut ThreadCtx<'_>,
    mut key: Vec<u8>,
    mut next_key: impl FnMut(&mut ThreadCtx<'_>, &mut [u8]),
) -> anyhow::Result<()> {
    let f = ctx.flags;
    let mut duration = Duration::new(f.duration, f.reads_per_thread());
    let (mut read, mut found, mut bytes) = (0u64, 0u64, 0u64);
    while !duration.done(1) {
        next_key(ctx, &mut key);
        read += 1;
        ctx.get_counted(&key, &mut found, &mut bytes)?;
        ctx.finished(1, OpType::Read);
    }
    ctx.report_found(read, found, bytes);
    Ok(())
}

/// readseq and readreverse: one iterator pass over up to `--reads` entries.
pub fn read_sequential(ctx: &mut ThreadCtx<'_>, reverse: bool) -> anyhow::Result<()> {
    let limit = ctx.flags.reads_per_thread();
    let db = Arc::clone(ctx.db);
    let mut it = db.iter(ctx.flags.verify_checksum)?;
    if reverse {
        it.seek_to_last()?;
    } else {
        it.seek_to_first()?;
    }
    let (mut i, mut bytes) = (0u64, 0u64);
    while i < limit && it.valid() {
        bytes += (it.key().len() + it.value_len()) as u64;
        ctx.finished(1, OpType::Read);
        i += 1;
        if reverse {
            it.prev()?;
        } else {
            it.next()?;
        }
    }
    ctx.stats.add_bytes(bytes);
    Ok(())
}

/// seekrandom: seek to a random key, then `--seek_nexts` steps.
pub fn seek_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    let db = Arc::clone(ctx.db);
    let mut it = db.iter(f.verify_checksum)?;
    let mut duration = Duration::new(f.duration, f.reads_per_thread());
    let mut key = vec![0u8; f.key_size];
    let (mut read, mut found, mut bytes) = (0u64, 0u64, 0u64);
    while !duration.done(1) {
        ctx.random_key(&mut key);
        read += 1;
        it.seek(&key)?;
        if it.valid() && it.key() == key.as_slice() {
            found += 1;
        }
        for _ in 0..f.seek_nexts {
            if !it.valid() {
                break;
            }
            it.next()?;
            bytes += (it.key().len() + it.value_len()) as u64;
        }
        ctx.finished(1, OpType::Seek);
    }
    ctx.report_found(read, found, bytes);
    Ok(())
}

/// deleterandom.
pub fn delete_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    let mut duration = Duration::new(f.duration, f.deletes_per_thread());
    let batch = f.batch_size;
    if batch > 1 {
        // db_bench's DoDelete: `--batch_size` deletes per write batch.
        let n = usize::try_from(batch).unwrap_or(usize::MAX);
        let mut keys = vec![vec![0u8; f.key_size]; n];
        while !duration.done(batch) {
            for key in &mut keys {
                ctx.random_key(key);
            }
            let ops: Vec<BatchOp<'_>> = keys.iter().map(|k| BatchOp::Delete(k)).collect();
            ctx.db
                .write_batch(&ops, ctx.wo)
                .map_err(|e| anyhow::anyhow!("del error: {e:#}"))?;
            ctx.finished(batch, OpType::Delete);
        }
        return Ok(());
    }
    let mut key = vec![0u8; f.key_size];
    while !duration.done(1) {
        ctx.random_key(&mut key);
        ctx.db
            .delete(&key, ctx.wo)
            .map_err(|e| anyhow::anyhow!("del error: {e:#}"))?;
        ctx.finished(1, OpType::Delete);
    }
    Ok(())
}

/// deleteseq: deletes of keys 0, 1, 2, ... in order, `--batch_size` per write
/// batch (db_bench's `DoDelete` with `seq`: `--deletes` keys per thread, each
/// thread from key 0; `--duration` does not apply).
pub fn delete_seq(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    let mut duration = Duration::new(0, f.deletes_per_thread());
    let batch = f.batch_size;
    let n = usize::try_from(batch).unwrap_or(usize::MAX);
    let mut keys = vec![vec![0u8; f.key_size]; n];
    let mut next = 0u64;
    while !duration.done(batch) {
        for key in &mut keys {
            generate_key_from_int(next, key);
            next += 1;
        }
        if n == 1 {
            ctx.db.delete(&keys[0], ctx.wo)
        } else {
            let ops: Vec<BatchOp<'_>> = keys.iter().map(|k| BatchOp::Delete(k)).collect();
            ctx.db.write_batch(&ops, ctx.wo)
        }
        .map_err(|e| anyhow::anyhow!("del error: {e:#}"))?;
        ctx.finished(batch, OpType::Delete);
    }
    Ok(())
}

/// readrandomwriterandom: per 100 ops, `--readwritepercent` gets then puts.
pub fn read_random_write_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    let mut duration = Duration::new(f.duration, f.readwrites_per_thread());
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = vec![0u8; f.key_size];
    let (mut reads, mut writes, mut found) = (0u64, 0u64, 0u64);
    let (mut get_weight, mut put_weight) = (0i64, 0i64);
    while !duration.done(1) {
        ctx.random_key(&mut key);
        if get_weight == 0 && put_weight == 0 {
            get_weight = f.readwritepercent;
            put_weight = 100 - get_weight;
        }
        if get_weight > 0 {
            match ctx.db.get(&key, f.verify_checksum) {
                Ok(Some(_)) => found += 1,
                Ok(None) => {}
                Err(e) => anyhow::bail!("get error: {e:#}"),
            }
            get_weight -= 1;
            reads += 1;
            ctx.finished(1, OpType::Read);
        } else if put_weight > 0 {
            let v = values.generate(f.value_size);
            ctx.db.put(&key, v, ctx.wo).map_err(put_error)?;
            put_weight -= 1;
            writes += 1;
            ctx.finished(1, OpType::Write);
        }
    }
    ctx.stats.add_message(&format!(
        "( reads:{reads} writes:{writes} total:{} found:{found})",
        ctx.stats.done
    ));
    Ok(())
}

/// The error of a merge benchmark on an engine without merges.
fn no_merge(ctx: &ThreadCtx<'_>, bench: &str) -> anyhow::Result<()> {
    if ctx.db.has_merge() {
        return Ok(());
    }
    anyhow::bail!(
        "Not supported: benchmark '{bench}' is not supported by {}: it has no merge operator",
        ctx.flags.engine
    )
}

/// mergerandom (db_bench's `MergeRandom`): `readwrites` merges of
/// `--value_size` operands into keys drawn uniformly from
/// `--merge_keys` (or `--num`), through `--merge_operator`; db_bench's
/// message `( updates:N)`.
pub fn merge_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    no_merge(ctx, "mergerandom")?;
    let f = ctx.flags;
    let merge_keys = f.merge_key_range();
    let mut duration = Duration::new(f.duration, f.readwrites_per_thread());
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = vec![0u8; f.key_size];
    let mut bytes = 0u64;
    while !duration.done(1) {
        generate_key_from_int(ctx.rand.next_u64() % merge_keys, &mut key);
        let v = values.generate(f.value_size);
        ctx.db
            .merge(&key, v, ctx.wo)
            .map_err(|e| anyhow::anyhow!("merge error: {e:#}"))?;
        bytes += (key.len() + v.len()) as u64;
        ctx.finished(1, OpType::Merge);
    }
    ctx.stats.add_bytes(bytes);
    ctx.stats
        .add_message(&format!("( updates:{})", f.readwrites_per_thread()));
    Ok(())
}

/// readrandommergerandom (db_bench's `ReadRandomMergeRandom`): `readwrites`
/// operations on keys from `--merge_keys` (or `--num`), each a merge with
/// probability `--mergereadpercent`% and a get otherwise; db_bench's
/// message `(reads:R merges:M total:T hits:H maxlength:L)`.
pub fn read_random_merge_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    no_merge(ctx, "readrandommergerandom")?;
    let f = ctx.flags;
    let merge_keys = f.merge_key_range();
    let mut duration = Duration::new(f.duration, f.readwrites_per_thread());
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = vec![0u8; f.key_size];
    let (mut gets, mut merges, mut hits, mut max_length) = (0u64, 0u64, 0u64, 0usize);
    while !duration.done(1) {
        generate_key_from_int(ctx.rand.next_u64() % merge_keys, &mut key);
        let do_merge = (ctx.rand.next_u64() % 100) < f.mergereadpercent as u64;
        if do_merge {
            let v = values.generate(f.value_size);
            ctx.db
                .merge(&key, v, ctx.wo)
                .map_err(|e| anyhow::anyhow!("merge error: {e:#}"))?;
            merges += 1;
            ctx.finished(1, OpType::Merge);
        } else {
            match ctx.db.get(&key, f.verify_checksum) {
                Ok(Some(len)) => {
                    hits += 1;
                    max_length = max_length.max(len);
                }
                Ok(None) => {}
                Err(e) => anyhow::bail!("get error: {e:#}"),
            }
            gets += 1;
            ctx.finished(1, OpType::Read);
        }
    }
    ctx.stats.add_message(&format!(
        "(reads:{gets} merges:{merges} total:{} hits:{hits} maxlength:{max_length})",
        f.readwrites_per_thread()
    ));
    Ok(())
}

/// updaterandom: read-modify-write of random keys.
pub fn update_random(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    let mut duration = Duration::new(f.duration, f.readwrites_per_thread());
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = vec![0u8; f.key_size];
    let (mut found, mut bytes) = (0u64, 0u64);
    while !duration.done(1) {
        ctx.random_key(&mut key);
        ctx.get_counted(&key, &mut found, &mut bytes)?;
        let v = values.generate(f.value_size);
        ctx.db.put(&key, v, ctx.wo).map_err(put_error)?;
        bytes += (key.len() + v.len()) as u64;
        ctx.finished(1, OpType::Update);
    }
    ctx.stats.add_bytes(bytes);
    ctx.stats
        .add_message(&format!("( updates:{} found:{found})", ctx.stats.done));
    Ok(())
}

/// The hot keys of the hot/cold split: key numbers below this.
fn hot_keys(ctx: &ThreadCtx<'_>) -> anyhow::Result<u64> {
    let f = ctx.flags;
    let hot = (f.hot_key_fraction * ctx.key_range as f64) as u64;
    if f.hot_key_fraction <= 0.0 {
        anyhow::bail!("updatehotcold, readhot and readcold need --hot_key_fraction");
    }
    if hot == 0 || hot >= ctx.key_range {
        anyhow::bail!(
            "--hot_key_fraction={} leaves no hot or no cold key of --num={}",
            f.hot_key_fraction,
            ctx.key_range
        );
    }
    Ok(hot)
}

/// A key number drawn uniformly from the hot keys (`hot`) or the cold ones.
fn hot_cold_key(ctx: &mut ThreadCtx<'_>, hot_keys: u64, hot: bool) -> u64 {
    let r = ctx.rand.next_u64();
    if hot {
        r % hot_keys
    } else {
        hot_keys + r % (ctx.key_range - hot_keys)
    }
}

/// updatehotcold: `--writes` puts, each to a hot key with probability
/// `--hot_write_fraction` and to a cold key otherwise, uniform within each
/// (the update-skewed workload of the hot/cold column families).
pub fn update_hot_cold(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    let hot_keys = hot_keys(ctx)?;
    let mut duration = Duration::new(f.duration, f.writes_per_thread());
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = vec![0u8; f.key_size];
    let (mut hot_writes, mut bytes) = (0u64, 0u64);
    // Fixed point: the fraction in millionths, drawn from the key RNG.
    let threshold = (f.hot_write_fraction * 1e6) as u64;
    while !duration.done(1) {
        let hot = ctx.rand.next_u64() % 1_000_000 < threshold;
        let k = hot_cold_key(ctx, hot_keys, hot);
        generate_key_from_int(k, &mut key);
        let v = values.generate(f.value_size);
        ctx.db.put(&key, v, ctx.wo).map_err(put_error)?;
        hot_writes += u64::from(hot);
        bytes += (key.len() + v.len()) as u64;
        ctx.finished(1, OpType::Write);
    }
    ctx.stats.add_bytes(bytes);
    ctx.stats
        .add_message(&format!("( hot writes:{hot_writes} of {})", ctx.stats.done));
    Ok(())
}

/// readhot and readcold: `--reads` random Gets of the hot (or cold) keys.
pub fn read_hot_cold(ctx: &mut ThreadCtx<'_>, hot: bool) -> anyhow::Result<()> {
    let hot_keys = hot_keys(ctx)?;
    let key = vec![0u8; ctx.flags.key_size];
    get_keys(ctx, key, |ctx, key| {
        generate_key_from_int(hot_cold_key(ctx, hot_keys, hot), key);
    })
}

/// The background writer of readwhilewriting: random puts until the readers
/// finish (or the op budget runs out), excluded from the merged stats.
pub fn background_writer(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    let f = ctx.flags;
    ctx.stats.exclude_from_merge = true;
    // Not a client of the benchmark: neither in its intervals nor paced.
    ctx.intervals = None;
    let mut values = ValueGenerator::new(f.compression_ratio, f.value_size);
    let mut key = vec![0u8; f.key_size];
    let mut limiter = RateLimit::new(f.benchmark_write_rate_limit);
    while !ctx.readers_done.load(Ordering::Acquire) {
        ctx.random_key(&mut key);
        let v = values.generate(f.value_size);
        limiter.request((f.key_size + f.value_size) as u64);
        ctx.db.put(&key, v, ctx.wo).map_err(put_error)?;
        ctx.stats.finished_ops(1, OpType::Write);
    }
    Ok(())
}

/// compact: one full-range manual compaction.
pub fn compact(ctx: &mut ThreadCtx<'_>) -> anyhow::Result<()> {
    ctx.db.compact_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_by_ops() {
        let mut d = Duration::new(0, 3);
        let n = (0..10).take_while(|_| !d.done(1)).count();
        assert_eq!(n, 3);
    }

    #[test]
    fn duration_by_seconds_ignores_op_count() {
        let mut d = Duration::new(3600, 3);
        assert!((0..5000).all(|_| !d.done(1)));
    }
}
