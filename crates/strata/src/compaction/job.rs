//! Runs a [`CompactionTask`]: merges its inputs, applies the drop rules and
//! writes the outputs; returns the version edit and the job's statistics.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::drop_rules::{settled_key, Decision, DropRules};
use super::file_cut::{Grandparent, GrandparentCutter};
use super::merge_helper::{merge_until, MergeContext};
use super::output::OutputWriter;
use super::task::CompactionTask;
use super::universal::{task_is_bottommost, task_is_bottommost_for_key};
use crate::blob::{
    BlobOutput, BlobOutputOptions, BlobSource, CompactionBlobResult, CompactionBlobs,
};
use crate::error::{Error, Result};
use crate::filename::FileNumber;
use crate::fs::FileSystem;
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::range_del::{self, CoveredSkipIter};
use crate::sstable::{ReadOpts, Readahead, TableCache, TableOptions};
use crate::stats::Statistics;
use crate::types::{
    make_internal_key, parse_internal_key, user_key, SequenceNumber, ValueType,
    MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK,
};
use crate::version::edit::{FileMetaData, VersionEdit};
use crate::version::Version;

/// What a job needs from the DB.
pub struct JobContext<'a> {
    /// DB directory.
    pub dir: &'a Path,
    /// File system.
    pub fs: &'a Arc<dyn FileSystem>,
    /// Options for output tables.
    pub table_opts: &'a TableOptions,
    /// Table cache for reading inputs.
    pub table_cache: &'a Arc<TableCache>,
    /// Statistics, when enabled.
    pub stats: Option<&'a Arc<Statistics>>,
    /// Verify input checksums.
    pub verify_checksums: bool,
    /// Set when the DB closes; the job then stops early with an error.
    pub shutting_down: &'a AtomicBool,
    /// Write outputs with O_DIRECT.
    pub direct_writes: bool,
    /// The I/O rate limiter outputs take their bytes from (low priority).
    pub rate_limiter: Option<&'a Arc<crate::rate_limiter::RateLimiter>>,
    /// Range-sync outputs every this many bytes (`bytes_per_sync`).
    pub bytes_per_sync: u64,
    /// Blob files: where relocated and separated values go, and how blobs
    /// are read.
    pub blobs: BlobJobConfig<'a>,
    /// Output file cuts at next-level boundaries (leveled style only).
    pub file_cut: Option<FileCutConfig>,
    /// Bytes of read-ahead for each input table (0 = none):
    /// `Options::effective_compaction_readahead_size`.
    pub readahead: usize,
    /// Told of each output table as it is finished (the LOG's events).
    pub on_table: Option<super::output::TableListener<'a>>,
    /// The family's merge operator, which combines merge operands
    /// (`merge_helper.rs`); `None` keeps them as they are.
    pub merge_operator: Option<&'a dyn crate::merge::MergeOperator>,
}

/// `max_compaction_bytes` and `level_compaction_dynamic_file_size` as a
/// job applies them (compaction/file_cut.rs).
#[derive(Debug, Clone, Copy)]
pub struct FileCutConfig {
    /// Bytes (already resolved: never 0).
    pub max_compaction_bytes: u64,
    /// Rules 2 and 3 of the cutter.
    pub dynamic: bool,
}

/// The blob side of a job's configuration.
pub struct BlobJobConfig<'a> {
    /// Reads blobs (for relocation) and takes prepopulated values.
    pub source: &'a BlobSource,
    /// Separate values into new blob files (blob files on and the output
    /// level at least `blob_file_starting_level`), with these options.
    pub output: Option<BlobOutputOptions>,
    /// Relocate blobs of files numbered below this (0: no GC).
    pub gc_cutoff: u64,
    /// `blob_compaction_readahead_size`.
    pub readahead: usize,
    /// The column family, recorded in new blob files' headers.
    pub column_family_id: u32,
}

/// Per-job figures for the Compaction Stats table and the tickers.
#[derive(Debug, Clone, Default)]
pub struct JobStats {
    /// Bytes read from the start level (Rn).
    pub read_bytes_level: u64,
    /// Bytes read from the output level (Rnp1).
    pub read_bytes_next: u64,
    /// Bytes written to output tables.
    pub write_bytes: u64,
    /// Bytes moved without rewriting (trivial moves).
    pub moved_bytes: u64,
    /// Blob-file bytes read to relocate blobs (Rblob).
    pub blob_bytes_read: u64,
    /// Blob-file bytes written (Wblob).
    pub blob_bytes_written: u64,
    /// Blobs relocated by garbage collection.
    pub blobs_relocated: u64,
    /// Subcompactions the job ran (1 when not split).
    pub subcompactions: u64,
    /// Output files written.
    pub output_files: u64,
    /// Entries read.
    pub keys_in: u64,
    /// Entries dropped as shadowed.
    pub dropped_shadowed: u64,
    /// Entries dropped as obsolete tombstones.
    pub dropped_obsolete: u64,
    /// Of those, the tombstones themselves dropped by a job whose key range
    /// reaches data deeper down (RocksDB's optimized deletion drops).
    pub dropped_obsolete_early: u64,
    /// Entries dropped as covered by a range tombstone in their snapshot
    /// stripe.
    pub dropped_range_del: u64,
    /// Wall time in microseconds.
    pub micros: u64,
    /// CPU time of the job's thread(s) in microseconds.
    pub cpu_micros: u64,
}

/// CPU time consumed by the calling thread, in microseconds.
pub fn thread_cpu_micros() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

/// Builds the merged input iterator of a task.
fn input_iterator(
    ctx: &JobContext<'_>,
    task: &CompactionTask,
    num_levels: usize,
) -> Result<MergingIterator> {
    let opts = ReadOpts {
        verify_checksums: ctx.verify_checksums,
        fill_cache: false,
        for_compaction: true,
        last_level: false,
        readahead: Readahead::fixed(ctx.readahead),
    };
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    // One child per L0 file (they overlap), one level iterator per sorted
    // level; a universal task may bring several levels.
    for (level, files) in task.input_levels() {
        if files.is_empty() {
            continue;
        }
        let opts = opts.at_level(level, num_levels);
        if level == 0 {
            for f in files {
                let t = ctx.table_cache.get(f.number)?;
                children.push(Box::new(t.iter(opts)));
            }
        } else {
            children.push(Box::new(LevelIterator::new(
                files.to_vec(),
                ctx.table_cache.clone(),
                opts,
            )));
        }
    }
    Ok(MergingIterator::new(children))
}

/// The newest key time of a task's outputs: the newest of its inputs',
/// or 0 (unknown) if any input's is unknown.
fn newest_key_time(task: &CompactionTask) -> u64 {
    let mut newest = 0;
    for f in task.all_inputs() {
        if f.newest_key_time == 0 {
            return 0;
        }
        newest = newest.max(f.newest_key_time);
    }
    newest
}

/// A subcompaction's user-key range `[lo, hi)`; `None` is unbounded.
type KeyRange<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// What one key range of a job produced.
struct RangeOutput {
    files: Vec<FileMetaData>,
    bytes: u64,
    blobs: CompactionBlobResult,
    keys_in: u64,
    dropped_shadowed: u64,
    dropped_obsolete: u64,
    dropped_obsolete_early: u64,
    dropped_range_del: u64,
    cpu_micros: u64,
}

/// Runs the task. `version` is the version the task was picked from (used
/// to decide whether a tombstone can be dropped); `snapshots` are the live
/// snapshot sequence numbers at the start of the job. `boundaries` (user
/// keys, ascending) split the key space into `boundaries.len() + 1`
/// subcompactions that run on parallel threads; empty runs one.
///
/// # Errors
/// Any read, corruption or write error. Output files already written are
/// in no version and are deleted as obsolete; new blob files are deleted.
pub fn run_compaction(
    ctx: &JobContext<'_>,
    task: &CompactionTask,
    version: &Version,
    snapshots: Vec<SequenceNumber>,
    boundaries: &[Vec<u8>],
    new_file_number: &(dyn Fn() -> FileNumber + Sync),
) -> Result<(VersionEdit, JobStats)> {
    let start = Instant::now();
    let mut stats = JobStats::default();
    let mut edit = VersionEdit::default();
    let levels = task.input_levels();
    if task.reason.is_deletion() {
        // FIFO: the inputs are dropped whole; nothing is read or written.
        for (level, files) in &levels {
            for f in files.iter() {
                edit.deleted_files.push((*level, f.number));
            }
        }
        stats.micros = start.elapsed().as_micros() as u64;
        return Ok((edit, stats));
    }
    if task.trivial_move {
        // Files already at the output level stay where they are; the others
        // move down unchanged.
        for (level, files) in &levels {
            if *level == task.output_level {
                continue;
            }
            for f in files.iter() {
                edit.deleted_files.push((*level, f.number));
                edit.new_files.push((task.output_level, (**f).clone()));
                stats.moved_bytes += f.file_size;
            }
        }
        stats.micros = start.elapsed().as_micros() as u64;
        return Ok((edit, stats));
    }
    for (level, files) in &levels {
        for f in files.iter() {
            edit.deleted_files.push((*level, f.number));
            if *level == task.output_level && task.output_level != task.level {
                stats.read_bytes_next += f.file_size;
            } else {
                stats.read_bytes_level += f.file_size;
            }
        }
    }

    let mut ranges: Vec<KeyRange<'_>> = Vec::new();
    let mut lo: Option<&[u8]> = None;
    for b in boundaries {
        ranges.push((lo, Some(b.as_slice())));
        lo = Some(b.as_slice());
    }
    ranges.push((lo, None));
    stats.subcompactions = ranges.len() as u64;

    let results: Vec<Result<RangeOutput>> = if ranges.len() == 1 {
        vec![run_range(
            ctx,
            task,
            version,
            &snapshots,
            ranges[0],
            new_file_number,
        )]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|&r| {
                    let snaps = &snapshots;
                    scope.spawn(move || run_range(ctx, task, version, snaps, r, new_file_number))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::InvalidArgument(
                            "a subcompaction thread panicked".into(),
                        ))
                    })
                })
                .collect()
        })
    };
    let mut first_err = None;
    let mut outputs = Vec::new();
    for r in results {
        match r {
            Ok(o) => outputs.push(o),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    for o in outputs {
        stats.write_bytes += o.bytes;
        stats.output_files += o.files.len() as u64;
        stats.keys_in += o.keys_in;
        stats.dropped_shadowed += o.dropped_shadowed;
        stats.dropped_obsolete += o.dropped_obsolete;
        stats.dropped_obsolete_early += o.dropped_obsolete_early;
        stats.dropped_range_del += o.dropped_range_del;
        stats.cpu_micros += o.cpu_micros;
        stats.blob_bytes_read += o.blobs.blob_bytes_read;
        stats.blob_bytes_written += o.blobs.blob_bytes_written;
        stats.blobs_relocated += o.blobs.relocated_blobs;
        for f in o.files {
            edit.new_files.push((task.output_level, f));
        }
        edit.blob_file_additions
            .extend(o.blobs.new_files.iter().map(|b| b.to_addition()));
        edit.blob_file_garbage.extend(o.blobs.garbage);
    }
    stats.micros = start.elapsed().as_micros() as u64;
    Ok((edit, stats))
}

/// The cutter for a leveled compaction into level `n >= 1` (the files it
/// overlaps in the first deeper level that has any are the grandparents,
/// [`Version::grandparents`]); `None` otherwise.
fn grandparent_cutter(
    ctx: &JobContext<'_>,
    task: &CompactionTask,
    version: &Version,
) -> Option<GrandparentCutter> {
    let cfg = ctx.file_cut?;
    if task.output_level == 0 {
        return None;
    }
    let (lo, hi) = task.user_key_range();
    let files = version
        .grandparents(task.output_level, &lo, &hi)
        .iter()
        .map(|f| Grandparent {
            smallest: user_key(&f.smallest).to_vec(),
            largest: user_key(&f.largest).to_vec(),
            size: f.file_size,
        })
        .collect();
    Some(GrandparentCutter::new(
        files,
        task.target_file_size,
        cfg.max_compaction_bytes,
        cfg.dynamic,
    ))
}

/// One subcompaction: the entries with user keys in `[lo, hi)`.
fn run_range(
    ctx: &JobContext<'_>,
    task: &CompactionTask,
    version: &Version,
    snapshots: &[SequenceNumber],
    (lo, hi): KeyRange<'_>,
    new_file_number: &(dyn Fn() -> FileNumber + Sync),
) -> Result<RangeOutput> {
    let cpu_start = thread_cpu_micros();
    let mut alloc = || new_file_number();
    let name = format!("compaction L{} -> L{}", task.level, task.output_level);
    let blob_out = ctx.blobs.output.map(|o| {
        BlobOutput::new(
            ctx.dir.to_path_buf(),
            ctx.fs.clone(),
            o,
            ctx.stats.cloned(),
            Some(ctx.blobs.source),
        )
        .with_rate_limiter(ctx.rate_limiter, crate::rate_limiter::IoPriority::Low)
        .with_bytes_per_sync(ctx.bytes_per_sync)
        .with_column_family(ctx.blobs.column_family_id)
    });
    let mut blobs = CompactionBlobs::new(
        name,
        blob_out,
        ctx.blobs.gc_cutoff,
        ctx.blobs.source,
        ctx.blobs.readahead,
        ctx.verify_checksums,
        ctx.stats.cloned(),
    );
    let mut out = OutputWriter::new(
        ctx.dir,
        ctx.fs,
        ctx.table_opts,
        task.target_file_size,
        ctx.stats,
    )
    .for_compaction()
    .with_rate_limiter(ctx.rate_limiter)
    .with_direct_writes(ctx.direct_writes)
    .with_bytes_per_sync(ctx.bytes_per_sync)
    .with_cutter(grandparent_cutter(ctx, task, version))
    .with_newest_key_time(newest_key_time(task))
    .with_table_listener(ctx.on_table);
    let mut rules = DropRules::new(snapshots.to_vec());
    let mut counts = (0u64, 0u64, 0u64);
    // Tombstones dropped although the job is not bottommost (every
    // obsolete drop is a tombstone; the versions under it are shadowed).
    let bottommost = task_is_bottommost(version, task);
    let mut early = 0u64;
    // At the bottom, what every snapshot sees loses its sequence number, as
    // in RocksDB (never in L0, whose files are ordered by sequence number).
    let settle = bottommost && task.output_level > 0;
    let earliest_snapshot = rules.earliest_snapshot();
    let mut settled = Vec::new();
    let merge_ctx = MergeContext {
        op: ctx.merge_operator,
        stats: ctx.stats.map(|s| &**s),
    };
    // The inputs' range tombstones in this range: they hide the entries
    // they cover in their stripe, and go to the outputs but for those a
    // bottommost job drops (in the oldest stripe, nothing older below).
    let mut dropped_range_del = 0;
    let merged = (|| -> Result<()> {
        let mut sets = Vec::new();
        for f in task.all_inputs() {
            let t = ctx.table_cache.get(f.number)?;
            if !t.range_tombstones().is_empty() {
                sets.push(t.range_tombstones().clone());
            }
        }
        if !sets.is_empty() {
            let mut t = range_del::union(sets.iter().map(|s| &**s)).truncate(lo, hi);
            t.compact(snapshots);
            if bottommost {
                t.retain_seqs(|s| rules.stripe(s) != 0);
            }
            out.set_range_tombstones(t);
        }
        let all = range_del::union(sets.iter().map(|s| &**s));
        let mut input = CoveredSkipIter::new(
            input_iterator(ctx, task, version.num_levels())?,
            Arc::new(all),
            snapshots.to_vec(),
        );
        match lo {
            Some(l) => input.seek(&make_internal_key(
                l,
                MAX_SEQUENCE_NUMBER,
                VALUE_TYPE_FOR_SEEK,
            )),
            None => input.seek_to_first(),
        }
        loop {
            // Blob values of covered entries are garbage.
            for (k, v) in input.take_skipped_blob_indexes() {
                if hi.is_none_or(|h| user_key(&k) < h) {
                    blobs.input(&k, &v)?;
                }
            }
            if !input.valid() {
                break;
            }
            if ctx.shutting_down.load(Ordering::Relaxed) {
                return Err(Error::ShutdownInProgress);
            }
            let key = input.key();
            if let Some(h) = hi {
                if user_key(key) >= h {
                    break;
                }
            }
            counts.0 += 1;
            blobs.input(key, input.value())?;
            match rules.decide(key, |uk| task_is_bottommost_for_key(version, task, uk)) {
                Decision::Keep
                    if parse_internal_key(key)
                        .is_some_and(|p| p.value_type == ValueType::Merge) =>
                {
                    // The run of merge operands from here, merged; it
                    // leaves the input after the run.
                    let m = merge_until(
                        &merge_ctx,
                        &mut input,
                        &rules,
                        &|uk| task_is_bottommost_for_key(version, task, uk),
                        &mut |uk, index| {
                            let index = crate::blob::BlobIndex::decode(index).ok_or_else(|| {
                                Error::corruption(
                                    "compaction input",
                                    0,
                                    format!(
                                        "undecodable blob index for key {}",
                                        crate::merge::show_key(uk)
                                    ),
                                )
                            })?;
                            ctx.blobs
                                .source
                                .get(uk, &index, false, ctx.verify_checksums)
                        },
                        &mut |k, v| {
                            counts.0 += 1;
                            blobs.input(k, v)
                        },
                    )?;
                    for (k, v) in &m.entries {
                        let k = if settle {
                            settled_key(k, earliest_snapshot, &mut settled)
                        } else {
                            k
                        };
                        match blobs.output(k, v, &mut alloc)? {
                            Some((k, v)) => out.add(&k, &v, &mut alloc)?,
                            None => out.add(k, v, &mut alloc)?,
                        }
                    }
                    continue;
                }
                Decision::Keep => {
                    let key = if settle {
                        settled_key(key, earliest_snapshot, &mut settled)
                    } else {
                        key
                    };
                    match blobs.output(key, input.value(), &mut alloc)? {
                        Some((k, v)) => out.add(&k, &v, &mut alloc)?,
                        None => out.add(key, input.value(), &mut alloc)?,
                    }
                }
                Decision::DropShadowed => counts.1 += 1,
                Decision::DropObsolete => {
                    counts.2 += 1;
                    if !bottommost {
                        early += 1;
                    }
                }
            }
            input.next();
        }
        dropped_range_del = input.skipped();
        input.status()
    })();
    if let Err(e) = merged {
        blobs.abandon();
        return Err(e);
    }
    let (files, bytes) = match out.finish(&mut alloc) {
        Ok(x) => x,
        Err(e) => {
            blobs.abandon();
            return Err(e);
        }
    };
    let blob_result = blobs.finish()?;
    Ok(RangeOutput {
        files,
        bytes,
        blobs: blob_result,
        keys_in: counts.0,
        dropped_shadowed: counts.1,
        dropped_obsolete: counts.2,
        dropped_obsolete_early: early,
        dropped_range_del,
        cpu_micros: thread_cpu_micros().saturating_sub(cpu_start),
    })
}
