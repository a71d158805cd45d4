//! `strata inspect sst FILE`: a table's properties, index entries and
//! (optionally) every entry.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use strata::filename::{parse_file_name, FileType};
use strata::fs::{FileSystem, PosixFileSystem};
use strata::iter::InternalIterator;
use strata::sstable::{ReadOpts, Table};

use super::format::{human_bytes, BytesFmt};

/// What to print besides the properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SstArgs {
    /// Print every entry.
    pub entries: bool,
    /// Print at most this many index entries and entries.
    pub limit: Option<usize>,
    /// Keys and values as hex.
    pub fmt: BytesFmt,
    /// Longest value prefix printed (`None` = whole values).
    pub max_value: Option<usize>,
}

/// Opens the table at `path` read-only (checking its footer, metaindex,
/// properties, filter and index blocks).
///
/// # Errors
/// I/O errors (missing file) and `Corruption` naming the file and offset.
pub fn open_table(path: &Path) -> strata::Result<Arc<Table>> {
    let file = PosixFileSystem.open_random(path)?;
    let number = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_file_name)
        .and_then(|t| match t {
            FileType::Table(n) => Some(n),
            _ => None,
        })
        .unwrap_or(0);
    let table = Table::open(file, number, path.display().to_string(), None, None)?;
    Ok(Arc::new(table))
}

/// Prints the table at `path` to `out`. Damage is returned as the engine's
/// `Corruption` error after whatever could be printed before it.
///
/// # Errors
/// I/O errors, `Corruption`, and failures writing to `out`.
pub fn dump(path: &Path, args: &SstArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let table = open_table(path)?;
    writeln!(
        out,
        "Table {} ({} bytes, {})",
        path.display(),
        table.file_size(),
        human_bytes(table.file_size())
    )?;
    writeln!(out, "Properties:")?;
    for line in table.properties().to_lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out, "  bloom filter present: {}", table.has_filter())?;
    let limit = args.limit.unwrap_or(usize::MAX);
    let index = table.index_entries()?;
    writeln!(
        out,
        "Index ({} data blocks; separator key -> block offset, size):",
        index.len()
    )?;
    for (key, handle) in index.iter().take(limit) {
        writeln!(
            out,
            "  {} -> offset {} size {}",
            args.fmt.internal_key(key),
            handle.offset,
            handle.size
        )?;
    }
    if index.len() > limit {
        writeln!(out, "  ... ({} more, --limit {limit})", index.len() - limit)?;
    }
    if args.entries {
        dump_entries(&table, args, limit, out)?;
    }
    Ok(())
}

/// Prints up to `limit` entries, reading every data block with checksums.
fn dump_entries(
    table: &Arc<Table>,
    args: &SstArgs,
    limit: usize,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    writeln!(out, "Entries (key @ seq : type => value):")?;
    let mut it = table.iter(ReadOpts {
        verify_checksums: true,
        fill_cache: false,
    });
    it.seek_to_first();
    let mut shown = 0usize;
    while it.valid() && shown < limit {
        let v = it.value();
        let cut = args.max_value.map_or(v.len(), |m| m.min(v.len()));
        let more = if cut < v.len() {
            format!("... ({} bytes)", v.len())
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {} => {}{more}",
            args.fmt.internal_key(it.key()),
            args.fmt.show(v.get(..cut).unwrap_or(v))
        )?;
        shown += 1;
        it.next();
    }
    it.status()?;
    if it.valid() {
        writeln!(
            out,
            "  ... (stopped after {shown} entries, --limit {limit})"
        )?;
    } else {
        writeln!(out, "  ({shown} entries)")?;
    }
    Ok(())
}
