//! [`VersionEdit`]: one change to the set of live files, and its MANIFEST
//! encoding (one edit per log record; see `docs/formats/manifest.md`).
//!
//! An edit is a sequence of fields, each a varint32 tag followed by the
//! field's body. Tags below [`FIRST_SKIPPABLE_TAG`] must be understood by the
//! reader; tags at or above it are followed by a varint32 length and that
//! many bytes, so that a reader that does not know them can skip them.

use std::fmt;

use crate::coding::{put_length_prefixed, put_varint32, put_varint64, Decoder};
use crate::error::{Error, Result};
use crate::types::parse_internal_key;
use crate::wal::{DroppedBytes, Reader, WalRecoveryMode};

/// Tags at or above this value carry a length-prefixed body and may be
/// skipped by readers that do not know them.
pub const FIRST_SKIPPABLE_TAG: u32 = 64;

/// Levels an edit may name (`0..MAX_LEVELS`); larger values are corruption.
pub const MAX_LEVELS: usize = 64;

/// Field tags (all "must understand").
mod tag {
    pub const COMPARATOR: u32 = 1;
    pub const LOG_NUMBER: u32 = 2;
    pub const NEXT_FILE_NUMBER: u32 = 3;
    pub const LAST_SEQUENCE: u32 = 4;
    pub const COMPACT_CURSOR: u32 = 5;
    pub const DELETED_FILE: u32 = 6;
    pub const NEW_FILE: u32 = 7;
    pub const BLOB_FILE_ADDITION: u32 = 8;
    pub const BLOB_FILE_GARBAGE: u32 = 9;
    pub const DELETED_BLOB_FILE: u32 = 10;
    pub const COLUMN_FAMILY: u32 = 11;
    pub const COLUMN_FAMILY_ADD: u32 = 12;
    pub const COLUMN_FAMILY_DROP: u32 = 13;
    pub const MAX_COLUMN_FAMILY: u32 = 14;
    pub const FAMILY_LOG_NUMBER: u32 = 15;
    /// Skippable: `lp` of varint64 file number, varint64 newest key time,
    /// for a file added by the same edit.
    pub const NEWEST_KEY_TIME: u32 = 64;
}

/// What the MANIFEST records about one table file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileMetaData {
    /// File number (`NNNNNN.sst`).
    pub number: u64,
    /// Size of the file in bytes.
    pub file_size: u64,
    /// Smallest internal key in the file.
    pub smallest: Vec<u8>,
    /// Largest internal key in the file.
    pub largest: Vec<u8>,
    /// Smallest sequence number in the file.
    pub smallest_seq: u64,
    /// Largest sequence number in the file.
    pub largest_seq: u64,
    /// Number of entries (puts, deletes, blob indexes).
    pub num_entries: u64,
    /// Number of deletion entries.
    pub num_deletions: u64,
    /// Lowest-numbered blob file referenced by the table; 0 = none.
    pub oldest_blob_file: u64,
    /// Unix time (seconds) by which every entry of the table had been
    /// written: a flush's time for a flushed table, the newest of the
    /// inputs' for a compaction output; 0 = unknown (tables from before
    /// this field, or a merge with such an input). FIFO's TTL deletes a
    /// table once this is older than `ttl`. Skippable tag 64 in the MANIFEST.
    pub newest_key_time: u64,
    /// Reads of the table that found no answer in it while a later table
    /// held one: what read-triggered compaction charges
    /// (`compaction/read_triggered.rs`). In memory only, never in the
    /// MANIFEST; not part of the table's identity.
    pub wasted_reads: super::wasted_reads::WastedReads,
}

/// A blob file that becomes live.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlobFileAddition {
    /// File number (`NNNNNN.blob`).
    pub number: u64,
    /// Number of blobs in the file.
    pub total_blob_count: u64,
    /// Bytes of blob records in the file.
    pub total_blob_bytes: u64,
    /// Checksum of the file's contents, as computed by the blob writer.
    pub checksum: u32,
}

/// Blobs of a blob file that became garbage (their keys were overwritten or
/// deleted and compacted away). Garbage accumulates over edits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlobFileGarbage {
    /// File number (`NNNNNN.blob`).
    pub number: u64,
    /// Newly garbage blobs.
    pub garbage_blob_count: u64,
    /// Bytes of those blobs.
    pub garbage_blob_bytes: u64,
}

/// One atomic change to the DB's file set, as stored in a MANIFEST record.
/// Applying the edits of a MANIFEST in order rebuilds the current version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionEdit {
    /// Name of the user-key comparator (written in a MANIFEST's first edit).
    pub comparator: Option<String>,
    /// WALs numbered below this are no longer needed for recovery.
    pub log_number: Option<u64>,
    /// Next unused file number.
    pub next_file_number: Option<u64>,
    /// Last sequence number used by a write that is in a table file.
    pub last_sequence: Option<u64>,
    /// Per level: the key at which the next round-robin compaction starts.
    pub compact_cursors: Vec<(usize, Vec<u8>)>,
    /// Table files removed: (level, file number).
    pub deleted_files: Vec<(usize, u64)>,
    /// Table files added: (level, metadata).
    pub new_files: Vec<(usize, FileMetaData)>,
    /// Blob files that became live.
    pub blob_file_additions: Vec<BlobFileAddition>,
    /// Garbage newly found in blob files.
    pub blob_file_garbage: Vec<BlobFileGarbage>,
    /// Blob files removed.
    pub deleted_blob_files: Vec<u64>,
    /// The column family the edit's log number, files and blob files
    /// belong to (0 = "default").
    pub column_family: u32,
    /// Creates the edit's column family with this name.
    pub add_column_family: Option<String>,
    /// Drops the edit's column family.
    pub drop_column_family: bool,
    /// The largest column family id ever given (ids are never reused).
    pub max_column_family: Option<u32>,
    /// Log numbers of other column families that this edit advances
    /// (families with nothing unflushed when a flush is recorded).
    pub family_log_numbers: Vec<(u32, u64)>,
}

impl VersionEdit {
    /// An edit that changes nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the addition of a table file at `level`.
    pub fn add_file(&mut self, level: usize, meta: FileMetaData) {
        self.new_files.push((level, meta));
    }

    /// Records the removal of table file `number` from `level`.
    pub fn delete_file(&mut self, level: usize, number: u64) {
        self.deleted_files.push((level, number));
    }

    /// Encodes the edit as one MANIFEST record payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Some(c) = &self.comparator {
            put_varint32(&mut out, tag::COMPARATOR);
            put_length_prefixed(&mut out, c.as_bytes());
        }
        for (t, v) in [
            (tag::LOG_NUMBER, self.log_number),
            (tag::NEXT_FILE_NUMBER, self.next_file_number),
            (tag::LAST_SEQUENCE, self.last_sequence),
        ] {
            if let Some(v) = v {
                put_varint32(&mut out, t);
                put_varint64(&mut out, v);
            }
        }
        for (level, key) in &self.compact_cursors {
            put_varint32(&mut out, tag::COMPACT_CURSOR);
            put_varint64(&mut out, *level as u64);
            put_length_prefixed(&mut out, key);
        }
        for (level, number) in &self.deleted_files {
            put_varint32(&mut out, tag::DELETED_FILE);
            put_varint64(&mut out, *level as u64);
            put_varint64(&mut out, *number);
        }
        for (level, f) in &self.new_files {
            put_varint32(&mut out, tag::NEW_FILE);
            put_varint64(&mut out, *level as u64);
            put_varint64(&mut out, f.number);
            put_varint64(&mut out, f.file_size);
            put_length_prefixed(&mut out, &f.smallest);
            put_length_prefixed(&mut out, &f.largest);
            for v in [
                f.smallest_seq,
                f.largest_seq,
                f.num_entries,
                f.num_deletions,
                f.oldest_blob_file,
            ] {
                put_varint64(&mut out, v);
            }
        }
        for (_, f) in &self.new_files {
            if f.newest_key_time != 0 {
                let mut body = Vec::new();
                put_varint64(&mut body, f.number);
                put_varint64(&mut body, f.newest_key_time);
                put_varint32(&mut out, tag::NEWEST_KEY_TIME);
                put_length_prefixed(&mut out, &body);
            }
        }
        for b in &self.blob_file_additions {
            put_varint32(&mut out, tag::BLOB_FILE_ADDITION);
            put_varint64(&mut out, b.number);
            put_varint64(&mut out, b.total_blob_count);
            put_varint64(&mut out, b.total_blob_bytes);
            put_varint32(&mut out, b.checksum);
        }
        for g in &self.blob_file_garbage {
            put_varint32(&mut out, tag::BLOB_FILE_GARBAGE);
            put_varint64(&mut out, g.number);
            put_varint64(&mut out, g.garbage_blob_count);
            put_varint64(&mut out, g.garbage_blob_bytes);
        }
        for n in &self.deleted_blob_files {
            put_varint32(&mut out, tag::DELETED_BLOB_FILE);
            put_varint64(&mut out, *n);
        }
        if self.column_family != 0 {
            put_varint32(&mut out, tag::COLUMN_FAMILY);
            put_varint32(&mut out, self.column_family);
        }
        if let Some(name) = &self.add_column_family {
            put_varint32(&mut out, tag::COLUMN_FAMILY_ADD);
            put_length_prefixed(&mut out, name.as_bytes());
        }
        if self.drop_column_family {
            put_varint32(&mut out, tag::COLUMN_FAMILY_DROP);
        }
        if let Some(m) = self.max_column_family {
            put_varint32(&mut out, tag::MAX_COLUMN_FAMILY);
            put_varint32(&mut out, m);
        }
        for (cf, n) in &self.family_log_numbers {
            put_varint32(&mut out, tag::FAMILY_LOG_NUMBER);
            put_varint32(&mut out, *cf);
            put_varint64(&mut out, *n);
        }
        out
    }

    /// Decodes a MANIFEST record read from `file_name` at `offset`. Malformed
    /// input, an unknown tag below `FIRST_SKIPPABLE_TAG`, a level of
    /// [`MAX_LEVELS`] or more, or a file key that is not an internal key is
    /// `Corruption` naming that file and offset. Unknown skippable tags are
    /// ignored.
    pub fn decode(data: &[u8], file_name: &str, offset: u64) -> Result<VersionEdit> {
        let mut edit = VersionEdit::default();
        let mut times = Vec::new();
        let mut d = Decoder::new(data);
        while !d.is_empty() {
            let at = d.position();
            let fail = |what: &str| {
                Error::corruption(
                    file_name,
                    offset,
                    format!("version edit: {what} at byte {at} of the record"),
                )
            };
            let t = d.varint32().ok_or_else(|| fail("bad tag"))?;
            let ok = if t == tag::NEWEST_KEY_TIME {
                decode_time(&mut d).map(|nt| times.push(nt))
            } else {
                decode_field(&mut edit, t, &mut d)
            };
            if ok.is_none() {
                return Err(fail(&format!("bad or truncated field with tag {t}")));
            }
        }
        // Times name files added by this edit, in any field order; one for
        // a file the edit does not add is ignored.
        for (number, time) in times {
            if let Some((_, f)) = edit.new_files.iter_mut().find(|(_, f)| f.number == number) {
                f.newest_key_time = time;
            }
        }
        Ok(edit)
    }
}

/// Reads every edit of a MANIFEST file's contents, in order, as replay must
/// apply them. A torn last record (a crash while appending an edit) is
/// dropped and reported in the returned list; any other damage, and any
/// checksum-valid record that is not a valid edit, is `Corruption` naming
/// `file_name` and the offset. Whether a torn tail is acceptable (only in the
/// newest MANIFEST) is the caller's decision.
pub fn read_manifest(
    data: Vec<u8>,
    file_name: &str,
) -> Result<(Vec<VersionEdit>, Vec<DroppedBytes>)> {
    let mut reader = Reader::new(
        data,
        file_name.to_string(),
        WalRecoveryMode::TolerateCorruptedTailRecords,
    );
    let mut edits = Vec::new();
    while let Some(record) = reader.read_record()? {
        edits.push(VersionEdit::decode(
            &record,
            file_name,
            reader.last_record_offset(),
        )?);
    }
    Ok((edits, reader.dropped().to_vec()))
}

/// Decodes the body of one field into `edit`; `None` if it is malformed.
fn decode_field(edit: &mut VersionEdit, t: u32, d: &mut Decoder<'_>) -> Option<()> {
    match t {
        tag::COMPARATOR => {
            let name = std::str::from_utf8(d.length_prefixed()?).ok()?;
            edit.comparator = Some(name.to_string());
        }
        tag::LOG_NUMBER => edit.log_number = Some(d.varint64()?),
        tag::NEXT_FILE_NUMBER => edit.next_file_number = Some(d.varint64()?),
        tag::LAST_SEQUENCE => edit.last_sequence = Some(d.varint64()?),
        tag::COMPACT_CURSOR => {
            let level = level(d)?;
            edit.compact_cursors
                .push((level, d.length_prefixed()?.to_vec()));
        }
        tag::DELETED_FILE => {
            let level = level(d)?;
            edit.deleted_files.push((level, d.varint64()?));
        }
        tag::NEW_FILE => {
            let level = level(d)?;
            let number = d.varint64()?;
            let file_size = d.varint64()?;
            let smallest = internal_key(d)?;
            let largest = internal_key(d)?;
            let f = FileMetaData {
                number,
                file_size,
                smallest,
                largest,
                smallest_seq: d.varint64()?,
                largest_seq: d.varint64()?,
                num_entries: d.varint64()?,
                num_deletions: d.varint64()?,
                oldest_blob_file: d.varint64()?,
                newest_key_time: 0,
                wasted_reads: Default::default(),
            };
            edit.new_files.push((level, f));
        }
        tag::BLOB_FILE_ADDITION => edit.blob_file_additions.push(BlobFileAddition {
            number: d.varint64()?,
            total_blob_count: d.varint64()?,
            total_blob_bytes: d.varint64()?,
            checksum: d.varint32()?,
        }),
        tag::BLOB_FILE_GARBAGE => edit.blob_file_garbage.push(BlobFileGarbage {
            number: d.varint64()?,
            garbage_blob_count: d.varint64()?,
            garbage_blob_bytes: d.varint64()?,
        }),
        tag::DELETED_BLOB_FILE => edit.deleted_blob_files.push(d.varint64()?),
        tag::COLUMN_FAMILY => edit.column_family = d.varint32()?,
        tag::COLUMN_FAMILY_ADD => {
            let name = std::str::from_utf8(d.length_prefixed()?).ok()?;
            edit.add_column_family = Some(name.to_string());
        }
        tag::COLUMN_FAMILY_DROP => edit.drop_column_family = true,
        tag::MAX_COLUMN_FAMILY => edit.max_column_family = Some(d.varint32()?),
        tag::FAMILY_LOG_NUMBER => {
            let cf = d.varint32()?;
            edit.family_log_numbers.push((cf, d.varint64()?));
        }
        t if t >= FIRST_SKIPPABLE_TAG => {
            d.length_prefixed()?;
        }
        _ => return None,
    }
    Some(())
}

/// The body of a [`tag::NEWEST_KEY_TIME`] field: (file number, time).
/// Bytes after the two varints are ignored: a later version may append
/// fields to this body.
fn decode_time(d: &mut Decoder<'_>) -> Option<(u64, u64)> {
    let mut body = Decoder::new(d.length_prefixed()?);
    Some((body.varint64()?, body.varint64()?))
}

fn level(d: &mut Decoder<'_>) -> Option<usize> {
    let l = usize::try_from(d.varint64()?).ok()?;
    (l < MAX_LEVELS).then_some(l)
}

fn internal_key(d: &mut Decoder<'_>) -> Option<Vec<u8>> {
    let k = d.length_prefixed()?;
    parse_internal_key(k)?;
    Some(k.to_vec())
}

/// Writes an internal key as `'user_key' @ seq : type` (bytes escaped).
fn fmt_ikey(f: &mut fmt::Formatter<'_>, k: &[u8]) -> fmt::Result {
    match parse_internal_key(k) {
        Some(p) => write!(
            f,
            "'{}' @ {} : {:?}",
            p.user_key.escape_ascii(),
            p.seq,
            p.value_type
        ),
        None => write!(f, "(bad key '{}')", k.escape_ascii()),
    }
}

/// A multi-line dump for `strata inspect` (in the spirit of RocksDB's
/// `VersionEdit::DebugString`).
impl fmt::Display for VersionEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "VersionEdit {{")?;
        if self.column_family != 0 {
            writeln!(f, "  ColumnFamily: {}", self.column_family)?;
        }
        if let Some(name) = &self.add_column_family {
            writeln!(f, "  ColumnFamilyAdd: {name}")?;
        }
        if self.drop_column_family {
            writeln!(f, "  ColumnFamilyDrop")?;
        }
        if let Some(m) = self.max_column_family {
            writeln!(f, "  MaxColumnFamily: {m}")?;
        }
        for (cf, n) in &self.family_log_numbers {
            writeln!(f, "  FamilyLogNumber: {cf} {n}")?;
        }
        if let Some(c) = &self.comparator {
            writeln!(f, "  Comparator: {c}")?;
        }
        if let Some(n) = self.log_number {
            writeln!(f, "  LogNumber: {n}")?;
        }
        if let Some(n) = self.next_file_number {
            writeln!(f, "  NextFileNumber: {n}")?;
        }
        if let Some(n) = self.last_sequence {
            writeln!(f, "  LastSeq: {n}")?;
        }
        for (level, key) in &self.compact_cursors {
            write!(f, "  CompactCursor: L{level} ")?;
            fmt_ikey(f, key)?;
            writeln!(f)?;
        }
        for (level, n) in &self.deleted_files {
            writeln!(f, "  DeleteFile: L{level} #{n}")?;
        }
        for (level, m) in &self.new_files {
            write!(
                f,
                "  AddFile: L{level} #{} {} bytes [",
                m.number, m.file_size
            )?;
            fmt_ikey(f, &m.smallest)?;
            write!(f, " .. ")?;
            fmt_ikey(f, &m.largest)?;
            write!(
                f,
                "] seqs {}..{} entries {} deletions {} oldest_blob_file {}",
                m.smallest_seq, m.largest_seq, m.num_entries, m.num_deletions, m.oldest_blob_file
            )?;
            if m.newest_key_time != 0 {
                write!(f, " newest_key_time {}", m.newest_key_time)?;
            }
            writeln!(f)?;
        }
        for b in &self.blob_file_additions {
            writeln!(
                f,
                "  BlobFileAddition: #{} blobs {} bytes {} checksum {:#010x}",
                b.number, b.total_blob_count, b.total_blob_bytes, b.checksum
            )?;
        }
        for g in &self.blob_file_garbage {
            writeln!(
                f,
                "  BlobFileGarbage: #{} blobs {} bytes {}",
                g.number, g.garbage_blob_count, g.garbage_blob_bytes
            )?;
        }
        for n in &self.deleted_blob_files {
            writeln!(f, "  DeleteBlobFile: #{n}")?;
        }
        write!(f, "}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{make_internal_key, ValueType};
    use proptest::prelude::*;

    fn sample() -> VersionEdit {
        let mut e = VersionEdit::new();
        e.comparator = Some("leveldb.BytewiseComparator".into());
        e.log_number = Some(12);
        e.next_file_number = Some(40);
        e.last_sequence = Some(1 << 40);
        e.compact_cursors
            .push((2, make_internal_key(b"m", 5, ValueType::Value)));
        e.delete_file(1, 7);
        e.add_file(
            3,
            FileMetaData {
                number: 39,
                file_size: 4096,
                smallest: make_internal_key(b"a\x00", 1, ValueType::Value),
                largest: make_internal_key(b"z", 9, ValueType::Deletion),
                smallest_seq: 1,
                largest_seq: 9,
                num_entries: 100,
                num_deletions: 3,
                oldest_blob_file: 30,
                newest_key_time: 1_700_000_000,
                wasted_reads: Default::default(),
            },
        );
        e.blob_file_additions.push(BlobFileAddition {
            number: 30,
            total_blob_count: 10,
            total_blob_bytes: 10_000,
            checksum: 0xdead_beef,
        });
        e.blob_file_garbage.push(BlobFileGarbage {
            number: 30,
            garbage_blob_count: 2,
            garbage_blob_bytes: 2_000,
        });
        e.deleted_blob_files.push(25);
        e
    }

    #[test]
    fn round_trip_all_fields() {
        let e = sample();
        let enc = e.encode();
        assert_eq!(VersionEdit::decode(&enc, "MANIFEST-000001", 0).unwrap(), e);
        assert!(VersionEdit::decode(&[], "m", 0).unwrap() == VersionEdit::default());
    }

    #[test]
    fn every_truncation_is_corruption_naming_file_and_offset() {
        let enc = sample().encode();
        let mut boundaries = 0;
        for cut in 1..enc.len() {
            match VersionEdit::decode(&enc[..cut], "MANIFEST-000005", 321) {
                Err(Error::Corruption { file, offset, .. }) => {
                    assert_eq!((file.as_str(), offset), ("MANIFEST-000005", 321));
                }
                // A cut between two fields is a valid (shorter) edit.
                Ok(_) => boundaries += 1,
                Err(other) => panic!("{other:?}"),
            }
        }
        assert!(boundaries > 0 && boundaries < 12, "{boundaries}");
    }

    #[test]
    fn unknown_tags_skippable_only_above_threshold() {
        let mut enc = sample().encode();
        put_varint32(&mut enc, 200);
        put_length_prefixed(&mut enc, b"future field");
        put_varint32(&mut enc, tag::LOG_NUMBER);
        put_varint64(&mut enc, 99);
        let mut want = sample();
        want.log_number = Some(99);
        assert_eq!(VersionEdit::decode(&enc, "m", 0).unwrap(), want);

        let mut enc = sample().encode();
        put_varint32(&mut enc, 63);
        put_varint64(&mut enc, 1);
        assert!(VersionEdit::decode(&enc, "m", 0)
            .unwrap_err()
            .is_corruption());
    }

    #[test]
    fn bad_levels_and_keys_are_rejected() {
        let mut enc = Vec::new();
        put_varint32(&mut enc, tag::DELETED_FILE);
        put_varint64(&mut enc, MAX_LEVELS as u64);
        put_varint64(&mut enc, 1);
        assert!(VersionEdit::decode(&enc, "m", 0).is_err());

        let mut e = sample();
        e.new_files[0].1.smallest = b"short".to_vec();
        assert!(VersionEdit::decode(&e.encode(), "m", 0).is_err());

        let mut enc = Vec::new();
        put_varint32(&mut enc, tag::COMPARATOR);
        put_length_prefixed(&mut enc, &[0xff, 0xfe]);
        assert!(VersionEdit::decode(&enc, "m", 0).is_err());
    }

    #[test]
    fn display_dump() {
        let s = sample().to_string();
        for want in [
            "Comparator: leveldb.BytewiseComparator",
            "LogNumber: 12",
            "DeleteFile: L1 #7",
            "AddFile: L3 #39 4096 bytes ['a\\x00' @ 1 : Value .. 'z' @ 9 : Deletion]",
            "BlobFileAddition: #30 blobs 10 bytes 10000 checksum 0xdeadbeef",
            "DeleteBlobFile: #25",
        ] {
            assert!(s.contains(want), "missing {want:?} in\n{s}");
        }
    }

    #[test]
    fn manifest_replay_tolerates_only_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let fs = crate::fs::PosixFileSystem;
        let p = dir.path().join("MANIFEST-000001");
        let mut w = crate::wal::Writer::new(crate::fs::FileSystem::create(&fs, &p).unwrap());
        let mut edits = vec![sample()];
        for n in 0..5u64 {
            let mut e = VersionEdit::new();
            e.last_sequence = Some(100 + n);
            e.delete_file(0, n);
            edits.push(e);
        }
        for e in &edits {
            w.add_record(&e.encode()).unwrap();
        }
        w.sync().unwrap();
        let data = crate::fs::FileSystem::read_all(&fs, &p).unwrap();
        let (got, dropped) = read_manifest(data.clone(), "MANIFEST-000001").unwrap();
        assert_eq!(got, edits);
        assert!(dropped.is_empty());

        let (got, dropped) = read_manifest(data[..data.len() - 3].to_vec(), "M").unwrap();
        assert_eq!(got, edits[..5].to_vec());
        assert_eq!(dropped.len(), 1);

        let mut mid = data.clone();
        mid[30] ^= 0x40;
        match read_manifest(mid, "MANIFEST-000001") {
            Err(Error::Corruption { file, offset, .. }) => {
                assert_eq!((file.as_str(), offset), ("MANIFEST-000001", 0));
            }
            other => panic!("{other:?}"),
        }

        // A checksum-valid record that is not an edit is corruption even last.
        let mut w = crate::wal::Writer::new(crate::fs::FileSystem::create(&fs, &p).unwrap());
        w.add_record(&sample().encode()).unwrap();
        let at = w.size();
        w.add_record(&[63, 1]).unwrap();
        w.sync().unwrap();
        let data = crate::fs::FileSystem::read_all(&fs, &p).unwrap();
        match read_manifest(data, "MANIFEST-000001") {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, at),
            other => panic!("{other:?}"),
        }
    }

    /// A newest-key-time field may grow: extra body bytes are skipped, and
    /// a time for a file the edit does not add is ignored.
    #[test]
    fn newest_key_time_body_may_grow() {
        let mut e = sample();
        e.new_files[0].1.newest_key_time = 0;
        let mut data = e.encode();
        let number = e.new_files[0].1.number;
        let mut body = Vec::new();
        put_varint64(&mut body, number);
        put_varint64(&mut body, 1234);
        put_varint64(&mut body, 99); // a later field
        put_varint32(&mut data, tag::NEWEST_KEY_TIME);
        put_length_prefixed(&mut data, &body);
        let mut other = Vec::new();
        put_varint64(&mut other, number + 1000);
        put_varint64(&mut other, 5);
        put_varint32(&mut data, tag::NEWEST_KEY_TIME);
        put_length_prefixed(&mut data, &other);
        let d = VersionEdit::decode(&data, "MANIFEST-000001", 0).unwrap();
        assert_eq!(d.new_files[0].1.newest_key_time, 1234);
        // Re-encoded, it is the one field again.
        let mut want = e.clone();
        want.new_files[0].1.newest_key_time = 1234;
        assert_eq!(d, want);
    }

    fn ikey() -> impl Strategy<Value = Vec<u8>> {
        (
            proptest::collection::vec(any::<u8>(), 0..12),
            0u64..(1 << 56),
            0u8..3,
        )
            .prop_map(|(k, s, t)| {
                make_internal_key(&k, s, ValueType::from_u8(t).unwrap_or(ValueType::Value))
            })
    }

    fn meta() -> impl Strategy<Value = FileMetaData> {
        (any::<[u64; 8]>(), ikey(), ikey()).prop_map(|(n, smallest, largest)| FileMetaData {
            number: n[0],
            file_size: n[1],
            smallest,
            largest,
            smallest_seq: n[2],
            largest_seq: n[3],
            num_entries: n[4],
            num_deletions: n[5],
            oldest_blob_file: n[6],
            newest_key_time: n[7],
            wasted_reads: Default::default(),
        })
    }

    fn edit() -> impl Strategy<Value = VersionEdit> {
        (
            proptest::option::of("[a-zA-Z.]{0,20}"),
            any::<[Option<u64>; 3]>(),
            proptest::collection::vec((0..MAX_LEVELS, ikey()), 0..3),
            proptest::collection::vec((0..MAX_LEVELS, any::<u64>()), 0..4),
            proptest::collection::vec((0..MAX_LEVELS, meta()), 0..4),
            proptest::collection::vec(any::<(u64, u64, u64, u32)>(), 0..3),
            proptest::collection::vec(any::<(u64, u64, u64)>(), 0..3),
            proptest::collection::vec(any::<u64>(), 0..3),
            (
                any::<u32>(),
                proptest::option::of("[a-z_]{0,12}"),
                any::<bool>(),
                any::<Option<u32>>(),
                proptest::collection::vec(any::<(u32, u64)>(), 0..3),
            ),
        )
            .prop_map(|(c, nums, cursors, del, new, add, garbage, del_blob, cf)| {
                VersionEdit {
                    comparator: c,
                    log_number: nums[0],
                    next_file_number: nums[1],
                    last_sequence: nums[2],
                    compact_cursors: cursors,
                    deleted_files: del,
                    new_files: new,
                    blob_file_additions: add
                        .into_iter()
                        .map(|(a, b, c, d)| BlobFileAddition {
                            number: a,
                            total_blob_count: b,
                            total_blob_bytes: c,
                            checksum: d,
                        })
                        .collect(),
                    blob_file_garbage: garbage
                        .into_iter()
                        .map(|(a, b, c)| BlobFileGarbage {
                            number: a,
                            garbage_blob_count: b,
                            garbage_blob_bytes: c,
                        })
                        .collect(),
                    deleted_blob_files: del_blob,
                    column_family: cf.0,
                    add_column_family: cf.1,
                    drop_column_family: cf.2,
                    max_column_family: cf.3,
                    family_log_numbers: cf.4,
                }
            })
    }

    proptest! {
        #[test]
        fn round_trip(e in edit()) {
            let enc = e.encode();
            prop_assert_eq!(VersionEdit::decode(&enc, "m", 0).unwrap(), e);
        }

        #[test]
        fn damaged_input_never_panics(e in edit(), flips in proptest::collection::vec(any::<(usize, u8)>(), 1..4)) {
            let mut enc = e.encode();
            if !enc.is_empty() {
                for (i, x) in flips {
                    let n = enc.len();
                    enc[i % n] ^= x | 1;
                }
            }
            let _ = VersionEdit::decode(&enc, "m", 0);
        }

        #[test]
        fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..100)) {
            let _ = VersionEdit::decode(&data, "m", 0);
        }
    }
}
