//! `strata inspect sst FILE`: a table's properties, index entries and
//! (optionally) every entry.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::filename::{parse_file_name, FileType};
use strata::tools::sstable::{ReadOpts, Table};
use strata::tools::InternalIterator;

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
    let tombstones = table.range_tombstones();
    if !tombstones.is_empty() {
        let n = tombstones.tombstones().count();
        writeln!(
            out,
            "Range deletions ({n}; fragment [begin, end) @ sequence):"
        )?;
        for t in tombstones.tombstones().take(limit) {
            writeln!(
                out,
                "  [{}, {}) @ {}",
                args.fmt.show(&t.begin),
                args.fmt.show(&t.end),
                t.seq
            )?;
        }
        if n > limit {
            writeln!(out, "  ... ({} more, --limit {limit})", n - limit)?;
        }
    }
    let index = table.index_entries()?;
    let user_keys = table.properties().index_key_is_user_key;
    writeln!(
        out,
        "Index ({} data blocks; separator {} -> block offset, size):",
        index.len(),
        if user_keys { "user key" } else { "key" }
    )?;
    for (key, handle) in index.iter().take(limit) {
        let sep = if user_keys {
            args.fmt.user_key(key)
        } else {
            args.fmt.internal_key(key)
        };
        writeln!(
            out,
            "  {sep} -> offset {} size {}",
            handle.offset, handle.size
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
        ..ReadOpts::default()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table_of(dir: &Path) -> std::path::PathBuf {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "sst"))
            .unwrap()
    }

    #[test]
    fn dump_prints_the_range_deletion_block() {
        use strata::tools::range_del::{FragmentedTombstones, RangeTombstone};
        use strata::tools::sstable::{TableBuilder, TableOptions};
        use strata::tools::types::{make_internal_key, ValueType};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000009.sst");
        let file = strata::fs::default_fs().create(&path).unwrap();
        let mut b = TableBuilder::new(&TableOptions::default(), file, "000009.sst".into());
        b.set_range_tombstones(FragmentedTombstones::new(&[
            RangeTombstone::new("b", "f", 7),
            RangeTombstone::new("d", "h", 9),
        ]));
        b.add(&make_internal_key(b"a", 3, ValueType::Value), b"v")
            .unwrap();
        b.finish().unwrap();
        let mut out = Vec::new();
        dump(&path, &SstArgs::default(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("rocksdb.num.range-deletions: 4"), "{text}");
        assert!(text.contains("Range deletions (4;"), "{text}");
        for line in [
            "['b', 'd') @ 7",
            "['d', 'f') @ 9",
            "['d', 'f') @ 7",
            "['f', 'h') @ 9",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }

    #[test]
    fn dump_prints_entries_in_order_with_limit() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let path = table_of(dir.path());
        let t = open_table(&path).unwrap();
        assert_ne!(t.file_number(), 0, "number parsed from the name");
        let args = SstArgs {
            entries: true,
            ..SstArgs::default()
        };
        let mut out = Vec::new();
        dump(&path, &args, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let keys: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  '") && l.contains(" => "))
            .map(|l| l.trim().split(' ').next().unwrap())
            .collect();
        // The flush keeps only the newest version of `c`: its tombstone.
        assert_eq!(keys, ["'a'", "'b'", "'c'", "'d'", "'e'"], "{text}");
        assert!(text.contains("'c' @ 6 : Deletion => ''"), "{text}");
        assert!(text.contains("(5 entries)"), "{text}");

        let args = SstArgs {
            entries: true,
            limit: Some(1),
            ..SstArgs::default()
        };
        let mut out = Vec::new();
        dump(&path, &args, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("  '") && l.contains(" => "))
                .count(),
            1
        );
    }

    #[test]
    fn truncated_table_is_corruption() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let path = table_of(dir.path());
        let data = std::fs::read(&path).unwrap();
        for cut in [0, 10, data.len() / 2, data.len() - 1] {
            std::fs::write(&path, &data[..cut]).unwrap();
            let e = open_table(&path).unwrap_err();
            assert!(e.is_corruption(), "cut {cut}: {e}");
        }
    }
}
