//! The human-readable `LOG` file: options at open, flush and compaction
//! events (as text and as RocksDB's `EVENT_LOG_v1` JSON lines), stalls, and
//! periodic `rocksdb.stats` dumps. The previous LOG is
//! kept as `LOG.old.<micros>`.

use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

use crate::filename::info_log_file_name;
use crate::fs::{FileSystem, WritableFile};

/// Appends timestamped lines to `LOG`. Write failures are ignored: the LOG
/// is diagnostic and must never fail a user operation.
pub struct InfoLog {
    file: Mutex<Option<Box<dyn WritableFile>>>,
}

impl InfoLog {
    /// Rotates any existing LOG and opens a new one.
    pub fn open(fs: &Arc<dyn FileSystem>, dir: &Path) -> Self {
        let path = info_log_file_name(dir);
        if fs.exists(&path) {
            let micros = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_micros());
            let _ = fs.rename(&path, &dir.join(format!("LOG.old.{micros}")));
        }
        InfoLog {
            file: Mutex::new(fs.create(&path).ok()),
        }
    }

    /// Writes a structured event (`EVENT_LOG_v1 {...}`, event_log.rs).
    pub fn event(&self, e: &crate::event_log::Event) {
        self.log(&e.to_line());
    }

    /// Writes one line (or several) with a timestamp.
    pub fn log(&self, msg: &str) {
        let mut g = self.file.lock();
        if let Some(f) = g.as_mut() {
            let line = format!("{} {msg}\n", timestamp());
            let _ = f.append(line.as_bytes());
            let _ = f.flush();
        }
    }
}

/// `YYYY/MM/DD-HH:MM:SS.micros` in UTC, as RocksDB's LOG prints.
fn timestamp() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (y, m, day) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}/{m:02}/{day:02}-{:02}:{:02}:{:02}.{:06}",
        s / 3600,
        (s / 60) % 60,
        s % 60,
        d.subsec_micros()
    )
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_413), (2025, 11, 21));
    }
}
