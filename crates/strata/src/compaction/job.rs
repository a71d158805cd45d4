//! Runs a [`CompactionTask`]: merges its inputs, applies the drop rules and
//! writes the outputs; returns the version edit and the job's statistics.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::drop_rules::{Decision, DropRules};
use super::output::OutputWriter;
use super::picker::CompactionTask;
use crate::error::{Error, Result};
use crate::filename::FileNumber;
use crate::fs::FileSystem;
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::sstable::{ReadOpts, TableCache, TableOptions};
use crate::stats::Statistics;
use crate::types::SequenceNumber;
use crate::version::edit::VersionEdit;
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
    /// Output files written.
    pub output_files: u64,
    /// Entries read.
    pub keys_in: u64,
    /// Entries dropped as shadowed.
    pub dropped_shadowed: u64,
    /// Entries dropped as obsolete tombstones.
    pub dropped_obsolete: u64,
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
fn input_iterator(ctx: &JobContext<'_>, task: &CompactionTask) -> Result<MergingIterator> {
    let opts = ReadOpts {
        verify_checksums: ctx.verify_checksums,
        fill_cache: false,
    };
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    if task.level == 0 {
        for f in &task.inputs {
            let t = ctx.table_cache.get(f.number)?;
            children.push(Box::new(t.iter(opts)));
        }
    } else {
        children.push(Box::new(LevelIterator::new(
            task.inputs.clone(),
            ctx.table_cache.clone(),
            opts,
        )));
    }
    if !task.output_level_inputs.is_empty() {
        children.push(Box::new(LevelIterator::new(
            task.output_level_inputs.clone(),
            ctx.table_cache.clone(),
            opts,
        )));
    }
    Ok(MergingIterator::new(children))
}

/// Runs the task. `version` is the version the task was picked from (used
/// to decide whether a tombstone can be dropped); `snapshots` are the live
/// snapshot sequence numbers at the start of the job.
///
/// # Errors
/// Any read, corruption or write error; output files already written are
/// listed in the error path's cleanup by the caller (they are not in any
/// version and are deleted as obsolete).
pub fn run_compaction(
    ctx: &JobContext<'_>,
    task: &CompactionTask,
    version: &Version,
    snapshots: Vec<SequenceNumber>,
    new_file_number: &mut dyn FnMut() -> FileNumber,
) -> Result<(VersionEdit, JobStats)> {
    let start = Instant::now();
    let cpu_start = thread_cpu_micros();
    let mut stats = JobStats::default();
    let mut edit = VersionEdit::default();
    for f in &task.inputs {
        edit.deleted_files.push((task.level, f.number));
    }
    for f in &task.output_level_inputs {
        edit.deleted_files.push((task.output_level, f.number));
    }
    if task.trivial_move {
        for f in &task.inputs {
            edit.new_files.push((task.output_level, (**f).clone()));
            stats.moved_bytes += f.file_size;
        }
        stats.micros = start.elapsed().as_micros() as u64;
        return Ok((edit, stats));
    }
    stats.read_bytes_level = task.inputs.iter().map(|f| f.file_size).sum();
    stats.read_bytes_next = task.output_level_inputs.iter().map(|f| f.file_size).sum();

    let mut input = input_iterator(ctx, task)?;
    let mut rules = DropRules::new(snapshots);
    let mut out = OutputWriter::new(
        ctx.dir,
        ctx.fs,
        ctx.table_opts,
        task.target_file_size,
        ctx.stats,
    )
    .with_direct_writes(ctx.direct_writes);
    let out_level = task.output_level;
    input.seek_to_first();
    while input.valid() {
        if ctx.shutting_down.load(Ordering::Relaxed) {
            return Err(Error::ShutdownInProgress);
        }
        stats.keys_in += 1;
        let key = input.key();
        match rules.decide(key, |uk| version.is_bottommost_for_key(out_level, uk)) {
            Decision::Keep => out.add(key, input.value(), new_file_number)?,
            Decision::DropShadowed => stats.dropped_shadowed += 1,
            Decision::DropObsolete => stats.dropped_obsolete += 1,
        }
        input.next();
    }
    input.status()?;
    let (files, bytes) = out.finish()?;
    stats.write_bytes = bytes;
    stats.output_files = files.len() as u64;
    for f in files {
        edit.new_files.push((out_level, f));
    }
    stats.micros = start.elapsed().as_micros() as u64;
    stats.cpu_micros = thread_cpu_micros().saturating_sub(cpu_start);
    Ok((edit, stats))
}
