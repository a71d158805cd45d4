//! [`WalRecoveryMode`]: what a log reader does with damage it finds.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// How log replay treats damaged data (RocksDB's `WALRecoveryMode`).
///
/// Damage is classified as a *torn tail* when no valid physical record
/// follows it anywhere in the file (what a crash in the middle of a write
/// leaves: a truncated header or payload, an unfinished fragmented record,
/// zero-filled or garbage space at the end), and as *mid-log corruption*
/// when a valid record does follow it. See `docs/formats/wal.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WalRecoveryMode {
    /// Drop a torn tail (reported); mid-log corruption is an error.
    TolerateCorruptedTailRecords,
    /// Any damage, torn tail included, is an error: for logs known to have
    /// been closed cleanly.
    AbsoluteConsistency,
    /// RocksDB's default: recover everything before the first damage of any
    /// kind and drop (and report) the rest of the file.
    #[default]
    PointInTimeRecovery,
    /// Skip every damaged region (reported) and keep reading: recovers the
    /// most data but can leave holes in the write history.
    SkipAnyCorruptedRecords,
}

impl WalRecoveryMode {
    /// Every mode, in RocksDB's numeric order (0..=3).
    pub const ALL: [WalRecoveryMode; 4] = [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::AbsoluteConsistency,
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::SkipAnyCorruptedRecords,
    ];

    /// RocksDB's name, e.g. `kPointInTimeRecovery`.
    pub fn name(self) -> &'static str {
        match self {
            WalRecoveryMode::TolerateCorruptedTailRecords => "kTolerateCorruptedTailRecords",
            WalRecoveryMode::AbsoluteConsistency => "kAbsoluteConsistency",
            WalRecoveryMode::PointInTimeRecovery => "kPointInTimeRecovery",
            WalRecoveryMode::SkipAnyCorruptedRecords => "kSkipAnyCorruptedRecords",
        }
    }
}

impl fmt::Display for WalRecoveryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WalRecoveryMode {
    type Err = Error;

    /// Accepts RocksDB's names (`kPointInTimeRecovery`) and numbers (`0`..`3`).
    fn from_str(s: &str) -> Result<Self, Error> {
        let t = s.trim();
        for (i, m) in Self::ALL.iter().enumerate() {
            if t == m.name() || t == i.to_string() {
                return Ok(*m);
            }
        }
        Err(Error::InvalidArgument(format!(
            "unknown wal_recovery_mode '{s}' (expected one of kTolerateCorruptedTailRecords, \
             kAbsoluteConsistency, kPointInTimeRecovery, kSkipAnyCorruptedRecords)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_default_is_point_in_time() {
        for m in WalRecoveryMode::ALL {
            assert_eq!(m.name().parse::<WalRecoveryMode>().unwrap(), m);
        }
        assert_eq!(
            "3".parse::<WalRecoveryMode>().unwrap(),
            WalRecoveryMode::SkipAnyCorruptedRecords
        );
        assert_eq!(
            WalRecoveryMode::default(),
            WalRecoveryMode::PointInTimeRecovery
        );
        assert!("kBogus".parse::<WalRecoveryMode>().is_err());
    }
}
