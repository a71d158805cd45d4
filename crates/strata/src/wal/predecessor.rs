//! The predecessor record: the first logical record of every WAL started by a
//! memtable switch names the WAL before it and the last sequence number
//! logged there. Spec: `docs/formats/wal.md`, "Predecessor record".
//!
//! A memtable switch does not sync the WAL it closes (that sync would stall
//! the writer for as long as the device takes to write a whole write
//! buffer). The OS may then persist the new WAL while losing the old one's
//! tail; replaying both would skip the lost writes and apply later ones, which
//! is not a prefix. Recovery compares what it read from the predecessor with
//! this record and stops before the gap.

use crate::coding::{decode_fixed64, put_fixed64};
use crate::error::{Error, Result};

/// A write batch header (sequence, count) of all zeros: no write batch has
/// sequence 0 and no empty batch is logged, so it marks a non-batch record.
const MARKER: [u8; 12] = [0; 12];
/// Kind byte after the marker: a predecessor record.
const KIND_PREDECESSOR: u8 = 1;
/// Encoded length: marker, kind, log number, last sequence.
const ENCODED_LEN: usize = MARKER.len() + 1 + 16;

/// What a new WAL records about the WAL it follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Predecessor {
    /// File number of the previous WAL.
    pub log_number: u64,
    /// Highest sequence number of a batch logged in it; 0 when it holds
    /// none (every write went with `disable_wal`).
    pub last_sequence: u64,
}

impl Predecessor {
    /// The record's payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ENCODED_LEN);
        out.extend_from_slice(&MARKER);
        out.push(KIND_PREDECESSOR);
        put_fixed64(&mut out, self.log_number);
        put_fixed64(&mut out, self.last_sequence);
        out
    }

    /// `None` when `record` is a write batch; the predecessor, or a
    /// `Corruption` naming `file_name` and `offset`, when it carries the
    /// marker.
    pub fn decode(record: &[u8], file_name: &str, offset: u64) -> Option<Result<Predecessor>> {
        if record.len() < MARKER.len() || record[..MARKER.len()] != MARKER {
            return None;
        }
        let bad = |m: &str| Error::corruption(file_name, offset, format!("WAL marker: {m}"));
        if record.len() != ENCODED_LEN {
            return Some(Err(bad(&format!(
                "{} bytes, a predecessor record has {ENCODED_LEN}",
                record.len()
            ))));
        }
        if record[MARKER.len()] != KIND_PREDECESSOR {
            return Some(Err(bad(&format!("unknown kind {}", record[MARKER.len()]))));
        }
        let body = &record[MARKER.len() + 1..];
        match (decode_fixed64(body), decode_fixed64(&body[8..])) {
            (Some(log_number), Some(last_sequence)) => Some(Ok(Predecessor {
                log_number,
                last_sequence,
            })),
            _ => Some(Err(bad("truncated"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::WriteBatch;

    #[test]
    fn round_trips_and_is_not_a_batch() {
        let p = Predecessor {
            log_number: 42,
            last_sequence: 1_000_007,
        };
        let enc = p.encode();
        assert_eq!(enc.len(), ENCODED_LEN);
        assert_eq!(Predecessor::decode(&enc, "f", 0).unwrap().unwrap(), p);
        // A real batch (sequence >= 1) is never taken for a marker.
        let mut b = WriteBatch::default();
        b.put(b"k", b"v");
        b.set_sequence(1);
        assert!(Predecessor::decode(b.data(), "f", 0).is_none());
    }

    #[test]
    fn damaged_marker_is_corruption_naming_file_and_offset() {
        let mut enc = Predecessor {
            log_number: 1,
            last_sequence: 2,
        }
        .encode();
        enc.pop();
        let e = Predecessor::decode(&enc, "000007.log", 99)
            .unwrap()
            .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("000007.log") && s.contains("99"), "{s}");
        enc.push(0);
        enc[12] = 9;
        assert!(Predecessor::decode(&enc, "f", 0).unwrap().is_err());
    }
}
