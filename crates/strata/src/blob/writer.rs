//! [`BlobFileBuilder`]: writes one blob file front to back.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::fs::WritableFile;
use crate::sstable::compression::compress_block;
use crate::sstable::CompressionType;
use crate::stats::{Histogram, Statistics, Ticker};
use crate::version::edit::BlobFileAddition;

use super::format::{
    record_checksum, BlobFileFooter, BlobFileHeader, RecordHeader, FOOTER_SIZE, HEADER_SIZE,
};
use super::index::BlobIndex;

/// What a finished blob file holds; goes into the MANIFEST as a
/// `BlobFileAddition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobFileInfo {
    /// File number (`NNNNNN.blob`).
    pub number: u64,
    /// Number of records.
    pub blob_count: u64,
    /// Sum of the record sizes (header + key + stored value + trailer).
    pub blob_bytes: u64,
    /// Size of the file: header + `blob_bytes` + footer.
    pub file_size: u64,
    /// CRC32C (unmasked) of every byte of the file, footer included.
    pub checksum: u32,
}

impl BlobFileInfo {
    /// The MANIFEST record that makes this file live.
    pub fn to_addition(&self) -> BlobFileAddition {
        BlobFileAddition {
            number: self.number,
            total_blob_count: self.blob_count,
            total_blob_bytes: self.blob_bytes,
            checksum: self.checksum,
        }
    }
}

/// Appends blobs to a new blob file and writes its footer.
///
/// The file header is written with the first blob (or by `finish` for an
/// empty file). After a failed write every later call fails; the caller
/// then `abandon`s the builder and deletes the file.
pub struct BlobFileBuilder {
    file: Box<dyn WritableFile>,
    file_number: u64,
    file_name: String,
    compression: CompressionType,
    column_family_id: u32,
    stats: Option<Arc<Statistics>>,
    offset: u64,
    blob_count: u64,
    blob_bytes: u64,
    crc: u32,
    scratch: Vec<u8>,
    failed: bool,
}

impl std::fmt::Debug for BlobFileBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobFileBuilder")
            .field("file_name", &self.file_name)
            .field("blob_count", &self.blob_count)
            .field("offset", &self.offset)
            .finish()
    }
}

impl BlobFileBuilder {
    /// Starts blob file `file_number`, written to `file` (named `file_name`
    /// in errors), compressing values with `compression` where that saves at
    /// least 12.5% (otherwise a record is stored uncompressed).
    pub fn new(
        file: Box<dyn WritableFile>,
        file_number: u64,
        file_name: String,
        compression: CompressionType,
        stats: Option<Arc<Statistics>>,
    ) -> Self {
        BlobFileBuilder {
            file,
            file_number,
            file_name,
            compression,
            column_family_id: 0,
            stats,
            offset: 0,
            blob_count: 0,
            blob_bytes: 0,
            crc: 0,
            scratch: Vec::new(),
            failed: false,
        }
    }

    /// Records column family `id` in the file's header.
    pub fn with_column_family(mut self, id: u32) -> Self {
        self.column_family_id = id;
        self
    }

    /// Bytes written so far (header and records; 0 before the first blob).
    pub fn file_size(&self) -> u64 {
        self.offset
    }

    /// Blobs added so far.
    pub fn blob_count(&self) -> u64 {
        self.blob_count
    }

    /// Record bytes added so far.
    pub fn blob_bytes(&self) -> u64 {
        self.blob_bytes
    }

    fn check_ok(&self) -> Result<()> {
        if self.failed {
            return Err(Error::InvalidArgument(format!(
                "{}: an earlier write to this blob file failed",
                self.file_name
            )));
        }
        Ok(())
    }

    fn append(&mut self, parts: &[&[u8]]) -> Result<()> {
        for p in parts {
            if let Err(e) = self.file.append(p) {
                self.failed = true;
                return Err(e);
            }
            self.crc = crc32c::crc32c_append(self.crc, p);
            self.offset += p.len() as u64;
        }
        if let Some(s) = &self.stats {
            let n: usize = parts.iter().map(|p| p.len()).sum();
            s.record_tick(Ticker::BlobDbBlobFileBytesWritten, n as u64);
        }
        Ok(())
    }

    fn ensure_header(&mut self) -> Result<()> {
        if self.offset == 0 {
            let header = BlobFileHeader {
                column_family_id: self.column_family_id,
                ..BlobFileHeader::new(self.compression)
            }
            .encode();
            self.append(&[&header])?;
        }
        Ok(())
    }

    /// Appends one blob for `key` (a user key) and returns the index that
    /// points at it. `value` is compressed with the file's codec if that
    /// pays; the index says how it is stored.
    pub fn add(&mut self, key: &[u8], value: &[u8]) -> Result<BlobIndex> {
        self.check_ok()?;
        let key_len = u32::try_from(key.len()).map_err(|_| {
            Error::InvalidArgument(format!("blob key of {} bytes is too long", key.len()))
        })?;
        self.ensure_header()?;
        let mut scratch = std::mem::take(&mut self.scratch);
        let ctype = if self.compression == CompressionType::None {
            CompressionType::None
        } else {
            let _t = self
                .stats
                .as_ref()
                .map(|s| s.start_timer(Histogram::BlobDbCompressionMicros));
            compress_block(self.compression, value, &mut scratch)
        };
        let stored: &[u8] = if ctype == CompressionType::None {
            value
        } else {
            &scratch
        };
        let header = RecordHeader {
            key_len,
            value_size: stored.len() as u64,
            compression: ctype,
        }
        .encode();
        let crc = record_checksum(&header, key, stored).to_le_bytes();
        let record_offset = self.offset;
        let size = stored.len() as u64;
        let result = {
            let stats = self.stats.clone();
            let _t = stats
                .as_ref()
                .map(|s| s.start_timer(Histogram::BlobDbBlobFileWriteMicros));
            self.append(&[&header, key, stored, &crc])
        };
        self.scratch = scratch;
        result?;
        let index = BlobIndex::for_record(self.file_number, record_offset, key.len(), size, ctype);
        self.blob_count += 1;
        self.blob_bytes += index.record_size(key.len());
        Ok(index)
    }

    /// Writes the footer, syncs the file and describes it. The file must be
    /// durable before a MANIFEST edit names it; this sync is that step.
    pub fn finish(mut self) -> Result<BlobFileInfo> {
        self.check_ok()?;
        self.ensure_header()?;
        let footer = BlobFileFooter {
            blob_count: self.blob_count,
            blob_bytes: self.blob_bytes,
        }
        .encode();
        self.append(&[&footer])?;
        {
            let stats = self.stats.clone();
            let _t = stats
                .as_ref()
                .map(|s| s.start_timer(Histogram::BlobDbBlobFileSyncMicros));
            self.file.sync()?;
        }
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::BlobDbBlobFileSynced, 1);
        }
        crate::sync_point::hit(crate::sync_point::SyncPoint::BlobFinished);
        debug_assert_eq!(
            self.offset,
            (HEADER_SIZE + FOOTER_SIZE) as u64 + self.blob_bytes
        );
        Ok(BlobFileInfo {
            number: self.file_number,
            blob_count: self.blob_count,
            blob_bytes: self.blob_bytes,
            file_size: self.offset,
            checksum: self.crc,
        })
    }

    /// Stops writing without a footer; the caller deletes the file (a blob
    /// file without a footer is never valid).
    pub fn abandon(self) {}
}
