//! `strata inspect db DIR`: the shape of a DB (files per level, sizes, key
//! and sequence ranges, WALs, options), read without opening it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};
use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::filename::options_file_name;
use strata::tools::options_file;
use strata::tools::version::{FileMetaData, MAX_LEVELS};

use super::format::{human_bytes, BytesFmt};
use super::shape::{list_dir, load_manifest, used_levels, DirListing, ManifestState};

/// Levels shown when the OPTIONS file cannot tell how many there are.
const DEFAULT_LEVELS: usize = 7;

/// The options of an OPTIONS file as `name=value` pairs, or why it could
/// not be read.
type OptionPairs = Result<Vec<(&'static str, String)>, String>;

/// Everything `inspect db` reports.
struct Report {
    manifest: ManifestState,
    listing: DirListing,
    /// Name of the newest OPTIONS file and its options (or why not).
    options: Option<(String, OptionPairs)>,
    num_levels: usize,
}

fn gather(dir: &Path) -> anyhow::Result<Report> {
    let manifest = load_manifest(dir)?;
    let listing = list_dir(dir)?;
    let mut num_levels = DEFAULT_LEVELS;
    let options = match listing.options.last() {
        None => None,
        Some(f) => {
            let path = options_file_name(dir, f.number);
            let parsed = PosixFileSystem
                .read_all(&path)
                .and_then(|data| options_file::parse(&data, &path.display().to_string()));
            Some((
                f.name.clone(),
                match parsed {
                    Ok(o) => {
                        num_levels = o.num_levels.min(MAX_LEVELS);
                        Ok(o.to_pairs())
                    }
                    Err(e) => Err(e.to_string()),
                },
            ))
        }
    };
    let num_levels = num_levels.max(used_levels(&manifest.version));
    Ok(Report {
        manifest,
        listing,
        options,
        num_levels,
    })
}

/// Prints the shape of the DB in `dir` to `out`, as text or JSON.
///
/// # Errors
/// A clear error when `dir` is not a DB; I/O errors; `Corruption` in
/// CURRENT or the MANIFEST; failures writing to `out`.
pub fn show(dir: &Path, fmt: BytesFmt, as_json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let r = gather(dir)?;
    if as_json {
        let v = to_json(dir, &r, fmt);
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        write_text(dir, &r, fmt, out)?;
    }
    Ok(())
}

fn present_tables(r: &Report) -> BTreeSet<u64> {
    r.listing.tables.iter().map(|f| f.number).collect()
}

fn write_text(dir: &Path, r: &Report, fmt: BytesFmt, out: &mut dyn Write) -> anyhow::Result<()> {
    let m = &r.manifest;
    writeln!(out, "DB {}", dir.display())?;
    let dropped: u64 = m.dropped.iter().map(|d| d.bytes).sum();
    writeln!(
        out,
        "  CURRENT -> MANIFEST-{:06} ({} edits{})",
        m.number,
        m.edits,
        if dropped > 0 {
            format!(", torn tail of {dropped} bytes ignored")
        } else {
            String::new()
        }
    )?;
    writeln!(
        out,
        "  comparator {}, log number {}, next file number {}, last sequence {}",
        m.comparator.as_deref().unwrap_or("(none)"),
        m.log_number,
        m.next_file_number,
        m.last_sequence
    )?;
    if m.families.len() > 1 {
        let names: Vec<String> = m
            .families
            .iter()
            .map(|(id, n)| format!("{n} (id {id})"))
            .collect();
        writeln!(out, "  column families: {}", names.join(", "))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<6} {:>6} {:>12} {:>14} {:>10} {:>10}",
        "Level", "Files", "Size", "Bytes", "Entries", "Deletions"
    )?;
    let (mut tf, mut tb, mut te, mut td) = (0usize, 0u64, 0u64, 0u64);
    for level in 0..r.num_levels {
        let files = m.version.files(level);
        let bytes = m.version.level_bytes(level);
        let entries: u64 = files.iter().map(|f| f.num_entries).sum();
        let dels: u64 = files.iter().map(|f| f.num_deletions).sum();
        writeln!(
            out,
            "{:<6} {:>6} {:>12} {:>14} {:>10} {:>10}",
            format!("L{level}"),
            files.len(),
            human_bytes(bytes),
            bytes,
            entries,
            dels
        )?;
        tf += files.len();
        tb += bytes;
        te += entries;
        td += dels;
    }
    writeln!(
        out,
        "{:<6} {:>6} {:>12} {:>14} {:>10} {:>10}",
        "Total",
        tf,
        human_bytes(tb),
        tb,
        te,
        td
    )?;
    let present = present_tables(r);
    for level in 0..r.num_levels {
        let files = m.version.files(level);
        if files.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "L{level} ({} files):", files.len())?;
        for f in files {
            writeln!(out, "  {}", file_line(f, fmt, present.contains(&f.number)))?;
        }
    }
    writeln!(out)?;
    writeln!(out, "WAL files:")?;
    if r.listing.wals.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for w in &r.listing.wals {
        let role = if w.number >= m.log_number {
            "live, replayed on open"
        } else {
            "obsolete, below the log number"
        };
        writeln!(out, "  {} {} ({role})", w.name, size_text(w.size))?;
    }
    let live: BTreeSet<u64> = (0..m.version.num_levels())
        .flat_map(|l| m.version.files(l).iter().map(|f| f.number))
        .collect();
    let orphans: Vec<&str> = r
        .listing
        .tables
        .iter()
        .filter(|f| !live.contains(&f.number))
        .map(|f| f.name.as_str())
        .collect();
    if !orphans.is_empty() {
        writeln!(
            out,
            "Table files not in the current version: {}",
            orphans.join(" ")
        )?;
    }
    if !m.version.blob_files.is_empty() {
        writeln!(
            out,
            "Blob files (number, blobs, bytes, garbage blobs, garbage bytes, garbage %):"
        )?;
        for b in m.version.blob_files.values() {
            let s = &b.state;
            let pct = if s.total_blob_bytes > 0 {
                100.0 * s.garbage_blob_bytes as f64 / s.total_blob_bytes as f64
            } else {
                0.0
            };
            writeln!(
                out,
                "  {:06}.blob {} blobs {} bytes, garbage {} blobs {} bytes ({pct:.1}%)",
                s.number,
                s.total_blob_count,
                s.total_blob_bytes,
                s.garbage_blob_count,
                s.garbage_blob_bytes
            )?;
        }
        let space = strata::tools::blob::BlobSpaceStats::from_files(&m.version.blob_file_states());
        writeln!(out, "{}", space.to_property_string().trim_end())?;
    }
    writeln!(out)?;
    match &r.options {
        None => writeln!(out, "Options: no OPTIONS file")?,
        Some((name, Err(e))) => writeln!(out, "Options ({name}): unreadable: {e}")?,
        Some((name, Ok(pairs))) => {
            writeln!(out, "Options ({name}):")?;
            for (k, v) in pairs {
                writeln!(out, "  {k}={v}")?;
            }
        }
    }
    Ok(())
}

fn size_text(size: Option<u64>) -> String {
    match size {
        Some(s) => format!("{} ({s} bytes)", human_bytes(s)),
        None => "(vanished while listing)".to_string(),
    }
}

/// One table's line: number, size, counts, sequence and key ranges.
fn file_line(f: &FileMetaData, fmt: BytesFmt, present: bool) -> String {
    format!(
        "{:06}.sst {} ({} bytes) entries {} deletions {} seqs {}..{} keys [{} .. {}]{}",
        f.number,
        human_bytes(f.file_size),
        f.file_size,
        f.num_entries,
        f.num_deletions,
        f.smallest_seq,
        f.largest_seq,
        fmt.user_key(&f.smallest),
        fmt.user_key(&f.largest),
        if present {
            ""
        } else {
            " MISSING FROM DIRECTORY"
        }
    )
}

fn to_json(dir: &Path, r: &Report, fmt: BytesFmt) -> Value {
    let m = &r.manifest;
    let present = present_tables(r);
    let levels: Vec<Value> = (0..r.num_levels)
        .map(|level| {
            let files = m.version.files(level);
            json!({
                "level": level,
                "num_files": files.len(),
                "bytes": m.version.level_bytes(level),
                "entries": files.iter().map(|f| f.num_entries).sum::<u64>(),
                "deletions": files.iter().map(|f| f.num_deletions).sum::<u64>(),
                "files": files.iter().map(|f| json!({
                    "number": f.number,
                    "name": format!("{:06}.sst", f.number),
                    "bytes": f.file_size,
                    "entries": f.num_entries,
                    "deletions": f.num_deletions,
                    "smallest_seq": f.smallest_seq,
                    "largest_seq": f.largest_seq,
                    "smallest_key": fmt.bare_user_key(&f.smallest),
                    "largest_key": fmt.bare_user_key(&f.largest),
                    "present": present.contains(&f.number),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let wals: Vec<Value> = r
        .listing
        .wals
        .iter()
        .map(|w| json!({"name": w.name, "number": w.number, "bytes": w.size, "live": w.number >= m.log_number}))
        .collect();
    let options = match &r.options {
        None => Value::Null,
        Some((name, Ok(pairs))) => json!({
            "file": name,
            "options": pairs.iter().map(|(k, v)| (k.to_string(), Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
        }),
        Some((name, Err(e))) => json!({"file": name, "error": e}),
    };
    json!({
        "dir": dir.display().to_string(),
        "manifest": format!("MANIFEST-{:06}", m.number),
        "manifest_edits": m.edits,
        "comparator": m.comparator,
        "log_number": m.log_number,
        "column_families": m.families.iter().map(|(id, n)| json!({"id": id, "name": n})).collect::<Vec<_>>(),
        "next_file_number": m.next_file_number,
        "last_sequence": m.last_sequence,
        "total_files": (0..r.num_levels).map(|l| m.version.files(l).len()).sum::<usize>(),
        "total_bytes": m.version.total_bytes(),
        "levels": levels,
        "wal_files": wals,
        "blob_files": m.blob_files.keys().collect::<Vec<_>>(),
        "options": options,
    })
}
