//! [`BlobFileReader`]: reads single blobs by index, or scans a whole file.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::sstable::compression::decompress_block;
use crate::sstable::CompressionType;
use crate::stats::{Histogram, Statistics, Ticker};

use super::format::{
    record_checksum, record_offset, BlobFileFooter, BlobFileHeader, RecordHeader, FOOTER_SIZE,
    HEADER_SIZE, RECORD_HEADER_SIZE, RECORD_TRAILER_SIZE,
};
use super::index::BlobIndex;

/// Bytes a whole-file scan reads at a time.
const SCAN_READAHEAD: usize = 1 << 20;

/// An open, validated blob file.
pub struct BlobFileReader {
    file: Arc<dyn RandomAccessFile>,
    file_number: u64,
    file_name: String,
    file_size: u64,
    header: BlobFileHeader,
    footer: BlobFileFooter,
    stats: Option<Arc<Statistics>>,
}

impl std::fmt::Debug for BlobFileReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobFileReader")
            .field("file_name", &self.file_name)
            .field("file_size", &self.file_size)
            .field("blob_count", &self.footer.blob_count)
            .finish()
    }
}

/// One record found by a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRecord {
    /// Offset of the record's first byte.
    pub record_offset: u64,
    /// The user key stored with the blob.
    pub key: Vec<u8>,
    /// The index that points at this blob.
    pub index: BlobIndex,
    /// The value, decompressed.
    pub value: Vec<u8>,
}

/// A read-ahead buffer for reading blobs of one file in increasing offset
/// order (compaction's `blob_compaction_readahead_size`): a read that misses
/// the buffer fetches at least `size` bytes from the record's start.
#[derive(Debug, Default)]
pub struct BlobReadahead {
    size: usize,
    file_number: u64,
    start: u64,
    buf: Vec<u8>,
}

impl BlobReadahead {
    /// A buffer reading `size` bytes ahead; 0 reads exactly what is asked.
    pub fn new(size: usize) -> Self {
        BlobReadahead {
            size,
            ..Default::default()
        }
    }

    /// Bytes `[offset, offset + len)` of `reader`'s file, which must end at
    /// or before `limit`.
    fn fetch(
        &mut self,
        reader: &BlobFileReader,
        offset: u64,
        len: usize,
        limit: u64,
    ) -> Result<&[u8]> {
        let end = offset.saturating_add(len as u64);
        let hit = self.file_number == reader.file_number
            && offset >= self.start
            && end <= self.start + self.buf.len() as u64;
        if !hit {
            let want = (len.max(self.size) as u64).min(limit.saturating_sub(offset));
            let want = usize::try_from(want).unwrap_or(len).max(len);
            self.buf = reader.read_raw(offset, want)?;
            self.start = offset;
            self.file_number = reader.file_number;
        }
        let from = (offset - self.start) as usize;
        self.buf
            .get(from..from + len)
            .ok_or_else(|| Error::corruption(&reader.file_name, offset, "short read"))
    }
}

impl BlobFileReader {
    /// Opens blob file `file_number` (named `file_name` in errors), checking
    /// its header and footer. A file without a valid footer (never finished,
    /// or truncated) is `Corruption`.
    pub fn open(
        file: Arc<dyn RandomAccessFile>,
        file_number: u64,
        file_name: String,
    ) -> Result<Self> {
        let file_size = file.size();
        let min = (HEADER_SIZE + FOOTER_SIZE) as u64;
        if file_size < min {
            return Err(Error::corruption(
                &file_name,
                file_size,
                format!("blob file of {file_size} bytes is shorter than header + footer ({min})"),
            ));
        }
        let header = BlobFileHeader::decode(&file.read_at(0, HEADER_SIZE)?, &file_name)?;
        let footer_offset = file_size - FOOTER_SIZE as u64;
        let footer = BlobFileFooter::decode(
            &file.read_at(footer_offset, FOOTER_SIZE)?,
            &file_name,
            footer_offset,
        )?;
        let data = footer_offset - HEADER_SIZE as u64;
        if footer.blob_bytes != data {
            return Err(Error::corruption(
                &file_name,
                footer_offset,
                format!(
                    "footer says {} bytes of records but the file holds {data}",
                    footer.blob_bytes
                ),
            ));
        }
        Ok(BlobFileReader {
            file,
            file_number,
            file_name,
            file_size,
            header,
            footer,
            stats: None,
        })
    }

    /// Records read latency and bytes into `stats`.
    pub fn with_statistics(mut self, stats: Option<Arc<Statistics>>) -> Self {
        self.stats = stats;
        self
    }

    /// The file number.
    pub fn file_number(&self) -> u64 {
        self.file_number
    }

    /// The file name used in errors.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// Size of the file in bytes.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The decoded file header.
    pub fn header(&self) -> &BlobFileHeader {
        &self.header
    }

    /// Number of records (from the footer).
    pub fn blob_count(&self) -> u64 {
        self.footer.blob_count
    }

    /// Bytes of records (from the footer).
    pub fn blob_bytes(&self) -> u64 {
        self.footer.blob_bytes
    }

    /// Offset where the footer starts (records end here).
    fn data_end(&self) -> u64 {
        self.file_size - FOOTER_SIZE as u64
    }

    fn corruption(&self, offset: u64, msg: impl Into<String>) -> Error {
        Error::corruption(&self.file_name, offset, msg)
    }

    /// Reads bytes, recording latency and bytes read.
    fn read_raw(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let _t = self
            .stats
            .as_ref()
            .map(|s| s.start_timer(Histogram::BlobDbBlobFileReadMicros));
        let data = self.file.read_at(offset, len)?;
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::BlobDbBlobFileBytesRead, len as u64);
        }
        Ok(data)
    }

    /// The record span `[start, end)` that `index` points at for a key of
    /// `key_len` bytes, checked against the file's bounds.
    fn locate(&self, key_len: usize, index: &BlobIndex) -> Result<(u64, usize)> {
        if index.file_number != self.file_number {
            return Err(Error::InvalidArgument(format!(
                "blob index for file {} used with {}",
                index.file_number, self.file_name
            )));
        }
        let start = record_offset(index.offset, key_len as u64).ok_or_else(|| {
            self.corruption(
                index.offset,
                format!(
                    "blob index offset {} lies before the first record",
                    index.offset
                ),
            )
        })?;
        let end = index
            .value_end()
            .checked_add(RECORD_TRAILER_SIZE as u64)
            .filter(|&e| e <= self.data_end())
            .ok_or_else(|| {
                self.corruption(
                    index.offset,
                    format!(
                        "blob of {} bytes at offset {} runs past the last record (ends at {})",
                        index.size,
                        index.offset,
                        self.data_end()
                    ),
                )
            })?;
        let len = usize::try_from(end - start)
            .map_err(|_| self.corruption(start, "blob record too large for memory"))?;
        Ok((start, len))
    }

    /// The value for `key` (a user key) stored at `index`.
    ///
    /// Always checks the record header's checksum, that the header agrees
    /// with the index, and that the stored key equals `key`; with
    /// `verify_checksums` also checks the record checksum. Any mismatch is
    /// `Corruption` naming this file and the offset, never a wrong value.
    pub fn get(&self, key: &[u8], index: &BlobIndex, verify_checksums: bool) -> Result<Vec<u8>> {
        let (start, len) = self.locate(key.len(), index)?;
        let mut rec = self.read_raw(start, len)?;
        let (from, to) = self.check_record(key, index, start, &rec, verify_checksums)?;
        // Reuse the read buffer for the value instead of copying it out.
        rec.truncate(to);
        rec.drain(..from);
        self.decompress(index.compression, rec, index.offset)
    }

    /// Like [`get`](Self::get), reading through `readahead` (for blobs read
    /// in increasing offset order, as compaction does).
    pub fn get_with_readahead(
        &self,
        key: &[u8],
        index: &BlobIndex,
        verify_checksums: bool,
        readahead: &mut BlobReadahead,
    ) -> Result<Vec<u8>> {
        let (start, len) = self.locate(key.len(), index)?;
        let rec = readahead.fetch(self, start, len, self.data_end())?;
        let (from, to) = self.check_record(key, index, start, rec, verify_checksums)?;
        let stored = rec.get(from..to).unwrap_or_default().to_vec();
        self.decompress(index.compression, stored, index.offset)
    }

    /// Checks the record `rec` read at `start` against `key` and `index`;
    /// returns the range of the stored value within `rec`.
    fn check_record(
        &self,
        key: &[u8],
        index: &BlobIndex,
        start: u64,
        rec: &[u8],
        verify_checksums: bool,
    ) -> Result<(usize, usize)> {
        let h = RecordHeader::decode(rec, &self.file_name, start)?;
        if h.key_len as usize != key.len()
            || h.value_size != index.size
            || h.compression != index.compression
        {
            return Err(self.corruption(
                start,
                format!(
                    "blob record (key {} bytes, value {} bytes, {}) does not match its index \
                     (key {} bytes, value {} bytes, {})",
                    h.key_len,
                    h.value_size,
                    h.compression.short_name(),
                    key.len(),
                    index.size,
                    index.compression.short_name()
                ),
            ));
        }
        let key_end = RECORD_HEADER_SIZE + key.len();
        let value_end = rec.len().saturating_sub(RECORD_TRAILER_SIZE);
        let (header, stored_key, stored, trailer) = match (
            rec.get(..RECORD_HEADER_SIZE),
            rec.get(RECORD_HEADER_SIZE..key_end),
            rec.get(key_end..value_end),
            rec.get(value_end..),
        ) {
            (Some(a), Some(b), Some(c), Some(d)) => (a, b, c, d),
            _ => return Err(self.corruption(start, "blob record is truncated")),
        };
        if verify_checksums {
            let want = u32::from_le_bytes(trailer.try_into().unwrap_or([0; 4]));
            if record_checksum(header, stored_key, stored) != want {
                return Err(self.corruption(start, "blob record checksum mismatch"));
            }
        }
        if stored_key != key {
            return Err(self.corruption(
                start + RECORD_HEADER_SIZE as u64,
                "blob record holds a different key than the one that references it",
            ));
        }
        Ok((key_end, key_end + stored.len()))
    }

    fn decompress(&self, c: CompressionType, stored: Vec<u8>, offset: u64) -> Result<Vec<u8>> {
        if c == CompressionType::None {
            return Ok(stored);
        }
        let _t = self
            .stats
            .as_ref()
            .map(|s| s.start_timer(Histogram::BlobDbDecompressionMicros));
        decompress_block(c, stored).map_err(|m| self.corruption(offset, m))
    }

    /// Iterates over every record in file order, decompressing values and
    /// (with `verify_checksums`) checking record checksums. After the last
    /// record it checks that the count matches the footer. The iterator
    /// stops after the first error.
    pub fn iter(&self, verify_checksums: bool) -> BlobFileIter<'_> {
        BlobFileIter {
            reader: self,
            verify: verify_checksums,
            offset: HEADER_SIZE as u64,
            seen: 0,
            readahead: BlobReadahead::new(SCAN_READAHEAD),
            done: false,
        }
    }

    /// Calls `f` with every record in file order; stops at the first error
    /// (from the file or from `f`).
    pub fn for_each_record(
        &self,
        verify_checksums: bool,
        mut f: impl FnMut(&BlobRecord) -> Result<()>,
    ) -> Result<()> {
        for rec in self.iter(verify_checksums) {
            f(&rec?)?;
        }
        Ok(())
    }

    /// Reads the whole file and checks every record checksum, that every
    /// value decompresses, and that the records add up to the footer.
    pub fn verify_checksums(&self) -> Result<()> {
        self.for_each_record(true, |_| Ok(()))
    }

    /// CRC32C of every byte of the file (what `BlobFileAddition::checksum`
    /// records); compare to detect a replaced or damaged file.
    pub fn file_checksum(&self) -> Result<u32> {
        let mut crc = 0u32;
        let mut off = 0u64;
        while off < self.file_size {
            let n = (self.file_size - off).min(SCAN_READAHEAD as u64) as usize;
            crc = crc32c::crc32c_append(crc, &self.read_raw(off, n)?);
            off += n as u64;
        }
        Ok(crc)
    }
}

/// Iterator over the records of a blob file; see [`BlobFileReader::iter`].
pub struct BlobFileIter<'a> {
    reader: &'a BlobFileReader,
    verify: bool,
    offset: u64,
    seen: u64,
    readahead: BlobReadahead,
    done: bool,
}

impl BlobFileIter<'_> {
    fn next_record(&mut self) -> Result<Option<BlobRecord>> {
        let r = self.reader;
        let end = r.data_end();
        if self.offset == end {
            if self.seen != r.footer.blob_count {
                return Err(r.corruption(
                    end,
                    format!(
                        "footer says {} blobs but the file holds {}",
                        r.footer.blob_count, self.seen
                    ),
                ));
            }
            return Ok(None);
        }
        let start = self.offset;
        if end - start < (RECORD_HEADER_SIZE + RECORD_TRAILER_SIZE) as u64 {
            return Err(r.corruption(start, "truncated blob record before the footer"));
        }
        let hbytes = self
            .readahead
            .fetch(r, start, RECORD_HEADER_SIZE, end)?
            .to_vec();
        let h = RecordHeader::decode(&hbytes, &r.file_name, start)?;
        let total = (RECORD_HEADER_SIZE as u64 + RECORD_TRAILER_SIZE as u64)
            .checked_add(u64::from(h.key_len))
            .and_then(|n| n.checked_add(h.value_size))
            .filter(|&n| n <= end - start)
            .ok_or_else(|| r.corruption(start, "blob record runs past the footer"))?;
        let len = usize::try_from(total)
            .map_err(|_| r.corruption(start, "blob record too large for memory"))?;
        let rec = self.readahead.fetch(r, start, len, end)?;
        let key_end = RECORD_HEADER_SIZE + h.key_len as usize;
        let key = rec
            .get(RECORD_HEADER_SIZE..key_end)
            .ok_or_else(|| r.corruption(start, "blob record is truncated"))?
            .to_vec();
        let index =
            BlobIndex::for_record(r.file_number, start, key.len(), h.value_size, h.compression);
        let (from, to) = r.check_record(&key, &index, start, rec, self.verify)?;
        let stored = rec.get(from..to).unwrap_or_default().to_vec();
        let value = r.decompress(index.compression, stored, index.offset)?;
        self.offset = start + total;
        self.seen += 1;
        Ok(Some(BlobRecord {
            record_offset: start,
            key,
            index,
            value,
        }))
    }
}

impl Iterator for BlobFileIter<'_> {
    type Item = Result<BlobRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
