//! Human-readable dump of a table, for `strata inspect`.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::parse_internal_key;

use super::reader::{ReadOpts, Table};

/// Bytes as text: printable ASCII as is, everything else as `\xNN`.
pub fn escape_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if (0x20..0x7f).contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            let _ = write!(s, "\\x{c:02x}");
        }
    }
    s
}

/// An internal key as `'user_key' @ seq : type`.
pub fn format_internal_key(ikey: &[u8]) -> String {
    match parse_internal_key(ikey) {
        Some(p) => format!(
            "'{}' @ {} : {:?}",
            escape_bytes(p.user_key),
            p.seq,
            p.value_type
        ),
        None => format!("(bad internal key) {}", escape_bytes(ikey)),
    }
}

/// What [`dump_table`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpOptions {
    /// Print the index entries.
    pub index: bool,
    /// Print every entry.
    pub entries: bool,
    /// Longest value prefix printed (the rest is elided).
    pub max_value_len: usize,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            index: true,
            entries: true,
            max_value_len: 64,
        }
    }
}

/// Writes the table's properties, index entries and entries to `out`.
pub fn dump_table(table: &Arc<Table>, dump: &DumpOptions, out: &mut dyn Write) -> Result<()> {
    let io = |e| Error::io("write table dump", e);
    writeln!(
        out,
        "Table {} ({} bytes)",
        table.file_name(),
        table.file_size()
    )
    .map_err(io)?;
    writeln!(out, "Properties:").map_err(io)?;
    for l in table.properties().to_lines() {
        writeln!(out, "  {l}").map_err(io)?;
    }
    if dump.index {
        let entries = table.index_entries()?;
        writeln!(out, "Index ({} data blocks):", entries.len()).map_err(io)?;
        let user_keys = table.properties().index_key_is_user_key;
        for (k, h) in entries {
            let sep = if user_keys {
                escape_bytes(crate::types::user_key(&k))
            } else {
                format_internal_key(&k)
            };
            writeln!(out, "  {sep} -> offset {} size {}", h.offset, h.size).map_err(io)?;
        }
    }
    if dump.entries {
        writeln!(out, "Entries:").map_err(io)?;
        let mut it = table.iter(ReadOpts {
            verify_checksums: true,
            fill_cache: false,
            for_compaction: false,
            last_level: false,
            readahead: 0,
        });
        it.seek_to_first();
        while it.valid() {
            let v = it.value();
            let shown = &v[..v.len().min(dump.max_value_len)];
            let more = if v.len() > shown.len() { "..." } else { "" };
            writeln!(
                out,
                "  {} => '{}'{more}",
                format_internal_key(it.key()),
                escape_bytes(shown)
            )
            .map_err(io)?;
            it.next();
        }
        it.status()?;
    }
    Ok(())
}
