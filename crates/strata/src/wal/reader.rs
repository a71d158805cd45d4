//! [`Reader`]: reads logical records back from a log held in memory, applying
//! a [`WalRecoveryMode`] to any damage it meets.

use std::fmt;

use super::format::{record_crc, unmask_crc, RecordType, BLOCK_SIZE, HEADER_SIZE};
use super::mode::WalRecoveryMode;
use crate::coding::decode_fixed32;
use crate::error::{Error, Result};

/// Upper bound on the payload bytes checksummed while searching one damaged
/// block byte by byte for a later valid record (keeps hostile input cheap).
const SCAN_BUDGET: usize = 1 << 20;

/// Whether damage can be explained by a crash in the middle of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamageKind {
    /// Nothing valid follows the damage: an interrupted final write.
    TornTail,
    /// A valid record follows the damage: data written earlier was lost.
    MidLog,
}

impl fmt::Display for DamageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DamageKind::TornTail => "torn tail",
            DamageKind::MidLog => "mid-log corruption",
        })
    }
}

/// A region of the log that replay skipped, for the info LOG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedBytes {
    /// Offset in the file where the dropped region starts.
    pub offset: u64,
    /// Length of the dropped region in bytes.
    pub bytes: u64,
    /// What was wrong at `offset`.
    pub reason: String,
    /// Torn tail or mid-log corruption.
    pub kind: DamageKind,
}

impl fmt::Display for DroppedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dropped {} bytes at offset {} ({}): {}",
            self.bytes, self.offset, self.kind, self.reason
        )
    }
}

/// One physical record, or why there is none.
enum Physical {
    Record {
        record_type: RecordType,
        offset: usize,
        start: usize,
        end: usize,
    },
    Eof,
    Damage {
        offset: usize,
        resume: usize,
        reason: String,
    },
}

/// Reads the logical records of a whole log file held in memory.
///
/// Never panics, whatever the bytes. What happens on damage depends on the
/// [`WalRecoveryMode`] (see its docs and `docs/formats/wal.md`); every region
/// dropped is listed by [`Reader::dropped`].
pub struct Reader {
    data: Vec<u8>,
    file_name: String,
    mode: WalRecoveryMode,
    /// Next physical read position.
    pos: usize,
    last_record_offset: u64,
    last_record_end: u64,
    dropped: Vec<DroppedBytes>,
    /// Set once reading has stopped (end of data, point-in-time stop, error).
    stopped_at: Option<u64>,
    finished: bool,
    /// Memo of the last forward scan: (scan start, first valid record found).
    scan_memo: Option<(usize, Option<usize>)>,
}

impl Reader {
    /// A reader over the complete contents of `file_name`.
    pub fn new(data: Vec<u8>, file_name: String, mode: WalRecoveryMode) -> Self {
        Reader {
            data,
            file_name,
            mode,
            pos: 0,
            last_record_offset: 0,
            last_record_end: 0,
            dropped: Vec::new(),
            stopped_at: None,
            finished: false,
            scan_memo: None,
        }
    }

    /// The next logical record; `Ok(None)` at the end of the usable log.
    ///
    /// Errors are `Corruption` naming the file and the offset of the damage;
    /// after an error or a point-in-time stop every call returns `Ok(None)`.
    pub fn read_record(&mut self) -> Result<Option<Vec<u8>>> {
        let mut scratch: Vec<u8> = Vec::new();
        // Offset of the FIRST fragment of a record being assembled.
        let mut fragment_start: Option<usize> = None;
        while !self.finished {
            match self.read_physical() {
                Physical::Record {
                    record_type,
                    offset,
                    start,
                    end,
                } => {
                    let payload = self.data.get(start..end).unwrap_or(&[]);
                    match (record_type, fragment_start) {
                        (RecordType::Full, None) => {
                            let out = payload.to_vec();
                            return Ok(Some(self.finish_record(offset, out)));
                        }
                        (RecordType::First, None) => {
                            scratch.clear();
                            scratch.extend_from_slice(payload);
                            fragment_start = Some(offset);
                        }
                        (RecordType::Middle, Some(_)) => scratch.extend_from_slice(payload),
                        (RecordType::Last, Some(first)) => {
                            scratch.extend_from_slice(payload);
                            let out = std::mem::take(&mut scratch);
                            return Ok(Some(self.finish_record(first, out)));
                        }
                        (RecordType::Full | RecordType::First, Some(first)) => {
                            // The fragments before this record are lost; this
                            // record itself is valid, so re-read it next.
                            self.pos = offset;
                            fragment_start = None;
                            let why = "fragmented record is missing its LAST fragment";
                            self.damage(first, offset, DamageKind::MidLog, why)?;
                        }
                        (RecordType::Middle | RecordType::Last, None) => {
                            let why = format!("{record_type:?} fragment without a preceding FIRST");
                            self.damage(offset, end, DamageKind::MidLog, &why)?;
                        }
                    }
                }
                Physical::Eof => {
                    if let Some(first) = fragment_start {
                        let end = self.data.len();
                        let why = "fragmented record is incomplete at end of file";
                        self.damage(first, end, DamageKind::TornTail, why)?;
                    }
                    self.finished = true;
                }
                Physical::Damage {
                    offset,
                    resume,
                    reason,
                } => {
                    let start = fragment_start.take().unwrap_or(offset);
                    let kind = match self.first_valid_after(offset + 1) {
                        Some(_) => DamageKind::MidLog,
                        None => DamageKind::TornTail,
                    };
                    self.pos = resume;
                    self.damage(start, resume, kind, &reason)?;
                }
            }
        }
        Ok(None)
    }

    fn finish_record(&mut self, offset: usize, payload: Vec<u8>) -> Vec<u8> {
        self.last_record_offset = offset as u64;
        self.last_record_end = self.pos as u64;
        payload
    }

    /// Applies the recovery mode to damage starting at `start`. `skip_end`
    /// is where the dropped region ends if reading continues (the caller has
    /// already positioned `self.pos` there or on a record to re-read).
    fn damage(
        &mut self,
        start: usize,
        skip_end: usize,
        kind: DamageKind,
        reason: &str,
    ) -> Result<()> {
        let len = self.data.len();
        let stop = match self.mode {
            WalRecoveryMode::SkipAnyCorruptedRecords => false,
            WalRecoveryMode::PointInTimeRecovery => true,
            WalRecoveryMode::TolerateCorruptedTailRecords => true,
            WalRecoveryMode::AbsoluteConsistency => true,
        };
        let end = if stop { len } else { skip_end.max(start) };
        self.dropped.push(DroppedBytes {
            offset: start as u64,
            bytes: end.saturating_sub(start) as u64,
            reason: reason.to_string(),
            kind,
        });
        if !stop {
            return Ok(());
        }
        self.finished = true;
        self.stopped_at = Some(start as u64);
        let fatal = match self.mode {
            WalRecoveryMode::AbsoluteConsistency => true,
            WalRecoveryMode::TolerateCorruptedTailRecords => kind == DamageKind::MidLog,
            _ => false,
        };
        if fatal {
            return Err(Error::corruption(
                &self.file_name,
                start as u64,
                format!("{reason} ({kind}; wal_recovery_mode={})", self.mode),
            ));
        }
        Ok(())
    }

    /// Parses the physical record at `self.pos`, skipping block trailers.
    fn read_physical(&mut self) -> Physical {
        let len = self.data.len();
        loop {
            let pos = self.pos;
            if pos >= len {
                return Physical::Eof;
            }
            let block_end = (pos / BLOCK_SIZE + 1) * BLOCK_SIZE;
            if block_end - pos < HEADER_SIZE {
                // Zero padding written when a header did not fit.
                self.pos = block_end.min(len);
                continue;
            }
            let Some(header) = self.data.get(pos..pos + HEADER_SIZE) else {
                return Physical::Damage {
                    offset: pos,
                    resume: len,
                    reason: format!("truncated record header ({} bytes)", len - pos),
                };
            };
            let stored_crc = decode_fixed32(header).unwrap_or(0);
            let length = usize::from(u16::from_le_bytes([header[4], header[5]]));
            let type_byte = header[6];
            if stored_crc == 0 && length == 0 && type_byte == 0 {
                return Physical::Damage {
                    offset: pos,
                    resume: block_end.min(len),
                    reason: "zero-filled (unwritten) space".to_string(),
                };
            }
            let end = pos + HEADER_SIZE + length;
            if end > block_end {
                return Physical::Damage {
                    offset: pos,
                    resume: block_end.min(len),
                    reason: format!("record length {length} runs past the end of its block"),
                };
            }
            if end > len {
                return Physical::Damage {
                    offset: pos,
                    resume: len,
                    reason: format!(
                        "truncated record: header says {length} bytes, {} remain",
                        len - pos - HEADER_SIZE
                    ),
                };
            }
            let payload = self.data.get(pos + HEADER_SIZE..end).unwrap_or(&[]);
            if unmask_crc(stored_crc) != record_crc(type_byte, payload) {
                return Physical::Damage {
                    offset: pos,
                    resume: block_end.min(len),
                    reason: "checksum mismatch".to_string(),
                };
            }
            let Some(record_type) = RecordType::from_u8(type_byte) else {
                self.pos = end;
                return Physical::Damage {
                    offset: pos,
                    resume: end,
                    reason: format!("unknown record type {type_byte}"),
                };
            };
            self.pos = end;
            return Physical::Record {
                record_type,
                offset: pos,
                start: pos + HEADER_SIZE,
                end,
            };
        }
    }

    /// True if a checksum-valid physical record of a known type starts at `p`.
    /// Adds the bytes checksummed to `spent`.
    fn valid_at(&self, p: usize, spent: &mut usize) -> bool {
        let Some(header) = self.data.get(p..p + HEADER_SIZE) else {
            return false;
        };
        if RecordType::from_u8(header[6]).is_none() {
            return false;
        }
        let length = usize::from(u16::from_le_bytes([header[4], header[5]]));
        let block_end = (p / BLOCK_SIZE + 1) * BLOCK_SIZE;
        let end = p + HEADER_SIZE + length;
        if end > block_end {
            return false;
        }
        let Some(payload) = self.data.get(p + HEADER_SIZE..end) else {
            return false;
        };
        *spent += length + 1;
        let stored = decode_fixed32(header).unwrap_or(0);
        unmask_crc(stored) == record_crc(header[6], payload)
    }

    /// Offset of the first valid physical record at or after `from`: every
    /// byte position of `from`'s block (within a checksum budget), then every
    /// later block start (where a writer always begins a record).
    fn first_valid_after(&mut self, from: usize) -> Option<usize> {
        if let Some((memo_from, found)) = self.scan_memo {
            if memo_from <= from && found.is_none_or(|f| f >= from) {
                return found;
            }
        }
        let len = self.data.len();
        let block_end = (from / BLOCK_SIZE + 1) * BLOCK_SIZE;
        let mut spent = 0usize;
        let mut found = None;
        let mut p = from;
        while p < block_end.min(len) && spent < SCAN_BUDGET {
            if self.valid_at(p, &mut spent) {
                found = Some(p);
                break;
            }
            p += 1;
        }
        if found.is_none() {
            let mut b = block_end;
            while b < len {
                if self.valid_at(b, &mut spent) {
                    found = Some(b);
                    break;
                }
                b += BLOCK_SIZE;
            }
        }
        self.scan_memo = Some((from, found));
        found
    }

    /// Offset of the first physical record of the last record returned.
    pub fn last_record_offset(&self) -> u64 {
        self.last_record_offset
    }

    /// Offset just past the last record returned: where a writer reusing
    /// this log would continue (after truncating the file there).
    pub fn last_record_end(&self) -> u64 {
        self.last_record_end
    }

    /// Every region dropped so far.
    pub fn dropped(&self) -> &[DroppedBytes] {
        &self.dropped
    }

    /// Total bytes dropped so far.
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped.iter().map(|d| d.bytes).sum()
    }

    /// Where reading stopped because of damage (point-in-time recovery, a
    /// tolerated torn tail, or an error); `None` if it did not. The engine
    /// uses this to stop replaying later WALs in point-in-time recovery.
    pub fn stopped_at(&self) -> Option<u64> {
        self.stopped_at
    }

    /// The file name given to [`Reader::new`].
    pub fn file_name(&self) -> &str {
        &self.file_name
    }
}
