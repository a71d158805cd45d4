//! The human-readable `LOG` file: options at open, flush and compaction
//! events (as text and as RocksDB's `EVENT_LOG_v1` JSON lines), stalls, and
//! periodic `rocksdb.stats` dumps. Each open renames the previous LOG to
//! `LOG.old.<micros>` and deletes the oldest rotated files past
//! `keep_log_file_num`.

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
    /// Rotates any existing LOG, deletes the oldest rotated LOGs so that at
    /// most `keep` info LOG files remain with the new one, and opens a new
    /// LOG. Failures are ignored, like every LOG write.
    pub fn open(fs: &Arc<dyn FileSystem>, dir: &Path, keep: usize) -> Self {
        let path = info_log_file_name(dir);
        if fs.exists(&path) {
            let micros = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_micros());
            let _ = fs.rename(&path, &dir.join(format!("LOG.old.{micros}")));
        }
        if let Ok(names) = fs.list(dir) {
            for name in rotated_to_delete(&names, keep) {
                let _ = fs.remove(&dir.join(name));
            }
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
        self.log_lines(std::iter::once(msg));
    }

    /// Writes each message as a line with one timestamp, in a single write:
    /// the options dump at open is some 200 lines, and a write for each
    /// would be a noticeable part of a small DB's open.
    pub fn log_lines<S: AsRef<str>>(&self, msgs: impl IntoIterator<Item = S>) {
        let mut g = self.file.lock();
        if let Some(f) = g.as_mut() {
            let ts = timestamp();
            let mut buf = String::new();
            for m in msgs {
                buf.push_str(&ts);
                buf.push(' ');
                buf.push_str(m.as_ref());
                buf.push('\n');
            }
            let _ = f.append(buf.as_bytes());
            let _ = f.flush();
        }
    }
}

/// The rotated LOGs (`LOG.old.<micros>`) among `names` to delete so that
/// `keep - 1` of them remain beside the current LOG: the oldest first.
fn rotated_to_delete(names: &[String], keep: usize) -> Vec<&str> {
    let mut rotated: Vec<(u128, &str)> = names
        .iter()
        .filter_map(|n| {
            let micros = n.strip_prefix("LOG.old.")?.parse().ok()?;
            Some((micros, n.as_str()))
        })
        .collect();
    rotated.sort_unstable();
    let extra = rotated.len().saturating_sub(keep.saturating_sub(1));
    rotated.into_iter().take(extra).map(|(_, n)| n).collect()
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
    fn rotation_keeps_the_newest_rotated_logs() {
        let names: Vec<String> = [
            "LOG",
            "LOG.old.30",
            "LOG.old.4",
            "LOG.old.200",
            "000001.log",
            "LOG.old.x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(rotated_to_delete(&names, 3), vec!["LOG.old.4"]);
        assert_eq!(
            rotated_to_delete(&names, 1),
            vec!["LOG.old.4", "LOG.old.30", "LOG.old.200"]
        );
        assert!(rotated_to_delete(&names, 4).is_empty());
        assert!(rotated_to_delete(&names, 1000).is_empty());
    }

    #[test]
    fn reopening_deletes_logs_past_keep_log_file_num() {
        use crate::fs::PosixFileSystem;
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
        let rotated = || {
            let mut v: Vec<String> = fs
                .list(dir.path())
                .unwrap()
                .into_iter()
                .filter(|n| n.starts_with("LOG.old."))
                .collect();
            v.sort_by_key(|n| n["LOG.old.".len()..].parse::<u128>().unwrap());
            v
        };
        let mut seen = Vec::new();
        for i in 0..6 {
            let log = InfoLog::open(&fs, dir.path(), 3);
            log.log(&format!("open {i}"));
            drop(log);
            seen = rotated();
            // Distinct microsecond names for each rotation.
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert_eq!(seen.len(), 2, "{seen:?}");
        let text = |n: &str| String::from_utf8(std::fs::read(dir.path().join(n)).unwrap()).unwrap();
        assert!(text(&seen[0]).contains("open 3"), "{}", text(&seen[0]));
        assert!(text(&seen[1]).contains("open 4"));
        assert!(text("LOG").contains("open 5"));
    }

    #[test]
    fn log_lines_writes_each_message_as_a_timestamped_line() {
        use crate::fs::PosixFileSystem;
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
        let log = InfoLog::open(&fs, dir.path(), 3);
        log.log("first");
        log.log_lines(["a: 1", "b: 2"]);
        log.log_lines(Vec::<String>::new());
        drop(log);
        let text = String::from_utf8(std::fs::read(dir.path().join("LOG")).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        for (line, msg) in lines.iter().zip(["first", "a: 1", "b: 2"]) {
            let (ts, rest) = line.split_once(' ').unwrap();
            assert_eq!(rest, msg);
            // YYYY/MM/DD-HH:MM:SS.micros
            assert_eq!(ts.len(), 26, "{ts}");
            assert_eq!(&ts[4..5], "/");
        }
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_413), (2025, 11, 21));
    }
}
