//! Human-readable dump of a blob file, for `strata inspect`.

use std::io::Write;

use crate::error::{Error, Result};
use crate::sstable::dump::escape_bytes;

use super::index::BlobIndex;
use super::reader::BlobFileReader;

/// What [`dump_blob_file`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobDumpOptions {
    /// Print every record (otherwise only the header and footer summary).
    pub records: bool,
    /// Longest value prefix printed (the rest is elided).
    pub max_value_len: usize,
}

impl Default for BlobDumpOptions {
    fn default() -> Self {
        BlobDumpOptions {
            records: true,
            max_value_len: 64,
        }
    }
}

/// A table value of type `BlobIndex` as text: the decoded index, or a note
/// that it does not decode.
pub fn format_blob_index_value(value: &[u8]) -> String {
    match BlobIndex::decode(value) {
        Some(i) => i.to_string(),
        None => format!("(bad blob index) '{}'", escape_bytes(value)),
    }
}

/// Writes the blob file's header, footer and (optionally) records to `out`,
/// verifying every record checksum on the way. Stops at the first damaged
/// record and returns its `Corruption` after printing what came before.
pub fn dump_blob_file(
    reader: &BlobFileReader,
    opts: &BlobDumpOptions,
    out: &mut dyn Write,
) -> Result<()> {
    let io = |e| Error::io("write blob file dump", e);
    writeln!(
        out,
        "Blob file {} ({} bytes)",
        reader.file_name(),
        reader.file_size()
    )
    .map_err(io)?;
    let h = reader.header();
    writeln!(
        out,
        "Header: version 1, column family {}, compression {}, flags {:#04x}",
        h.column_family_id, h.compression, h.flags
    )
    .map_err(io)?;
    writeln!(
        out,
        "Footer: blob count {}, blob bytes {}",
        reader.blob_count(),
        reader.blob_bytes()
    )
    .map_err(io)?;
    if !opts.records {
        return Ok(());
    }
    writeln!(out, "Records:").map_err(io)?;
    for rec in reader.iter(true) {
        let rec = rec?;
        let v = &rec.value;
        let shown = &v[..v.len().min(opts.max_value_len)];
        let more = if v.len() > shown.len() { "..." } else { "" };
        writeln!(
            out,
            "  @{} '{}' value offset {} stored {} bytes ({}) raw {} bytes => '{}'{more}",
            rec.record_offset,
            escape_bytes(&rec.key),
            rec.index.offset,
            rec.index.size,
            rec.index.compression.short_name(),
            v.len(),
            escape_bytes(shown)
        )
        .map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blob::BlobFileBuilder;
    use crate::fs::testutil::{MemFile, MemWritable};
    use crate::sstable::CompressionType;

    fn file() -> (Vec<u8>, Vec<BlobIndex>) {
        let (f, data) = MemWritable::new();
        let mut b = BlobFileBuilder::new(f, 4, "4.blob".into(), CompressionType::Lz4, None);
        let i1 = b.add(b"k\x01", b"short").unwrap();
        let i2 = b.add(b"k2", &[b'z'; 100]).unwrap();
        b.finish().unwrap();
        let d = data.lock().clone();
        (d, vec![i1, i2])
    }

    #[test]
    fn dump_shows_header_footer_and_records() {
        let (data, idx) = file();
        let r = BlobFileReader::open(MemFile::new(data), 4, "4.blob".into()).unwrap();
        let mut out = Vec::new();
        let opts = BlobDumpOptions {
            records: true,
            max_value_len: 8,
        };
        dump_blob_file(&r, &opts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("compression kLZ4Compression"), "{text}");
        assert!(text.contains("blob count 2, blob bytes"), "{text}");
        let line1 = format!(
            "  @22 'k\\x01' value offset {} stored 5 bytes (none) raw 5 bytes => 'short'",
            idx[0].offset
        );
        assert!(text.contains(&line1), "{text}");
        assert!(
            text.contains("(lz4) raw 100 bytes => 'zzzzzzzz'..."),
            "{text}"
        );
    }

    #[test]
    fn dump_stops_at_damage_with_corruption() {
        let (mut data, idx) = file();
        data[idx[1].offset as usize] ^= 1;
        let r = BlobFileReader::open(MemFile::new(data), 4, "4.blob".into()).unwrap();
        let mut out = Vec::new();
        let e = dump_blob_file(&r, &BlobDumpOptions::default(), &mut out).unwrap_err();
        assert!(e.is_corruption());
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("'short'"), "{text}");
    }

    #[test]
    fn blob_index_values_format() {
        let (_, idx) = file();
        assert_eq!(
            format_blob_index_value(&idx[0].encode()),
            format!(
                "[blob ref] file 4 offset {} size 5 compression none",
                idx[0].offset
            )
        );
        assert!(format_blob_index_value(b"\x07").starts_with("(bad blob index)"));
    }
}
