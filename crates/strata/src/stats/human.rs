//! RocksDB's human-readable number helpers (`util/string_util.cc`,
//! `logging/logging.h`), used by the `rocksdb.stats` text.

/// RocksDB's `NumberToHumanString`: the number itself below 10,000, else
/// truncated thousands `K` below 10 million, millions `M` below 10 billion,
/// else billions `G` (e.g. 20000 -> `20K`, 489123 -> `489K`).
pub fn number_to_human_string(num: i64) -> String {
    let abs = num.unsigned_abs();
    if abs < 10_000 {
        format!("{num}")
    } else if abs < 10_000_000 {
        format!("{}K", num / 1_000)
    } else if abs < 10_000_000_000 {
        format!("{}M", num / 1_000_000)
    } else {
        format!("{}G", num / 1_000_000_000)
    }
}

/// [`number_to_human_string`] for unsigned counters (saturating at `i64::MAX`).
pub fn count_to_human_string(num: u64) -> String {
    number_to_human_string(i64::try_from(num).unwrap_or(i64::MAX))
}

/// RocksDB's `BytesToHumanString`: bytes in KB, MB, GB or TB (1024-based,
/// always at least KB) with two decimals, e.g. `232.22 KB`, `1.86 MB`.
pub fn bytes_to_human_string(bytes: u64) -> String {
    const NAMES: [&str; 4] = ["KB", "MB", "GB", "TB"];
    let mut size = bytes as f64 / 1024.0;
    let mut idx = 0;
    while idx < 3 && size >= 1024.0 {
        size /= 1024.0;
        idx += 1;
    }
    format!("{size:.2} {}", NAMES[idx])
}

/// RocksDB's `AppendHumanMicros` in its fixed format, as the stall lines use
/// it: `HH:MM:SS.sss H:M:S` (e.g. 967957 -> `00:00:0.968 H:M:S`; the seconds
/// field is `%05.3f`, so it is not zero-padded to two digits).
pub fn micros_to_hms(micros: u64) -> String {
    let hours = micros / 1_000_000 / 3600;
    let minutes = (micros / 1_000_000 / 60) % 60;
    let seconds = (micros % 60_000_000) as f64 / 1_000_000.0;
    format!("{hours:02}:{minutes:02}:{seconds:05.3} H:M:S")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(number_to_human_string(0), "0");
        assert_eq!(number_to_human_string(9999), "9999");
        assert_eq!(number_to_human_string(10_000), "10K");
        assert_eq!(number_to_human_string(489_999), "489K");
        assert_eq!(number_to_human_string(9_999_999), "9999K");
        assert_eq!(number_to_human_string(10_000_000), "10M");
        assert_eq!(number_to_human_string(12_000_000_000), "12G");
        assert_eq!(number_to_human_string(-20_000), "-20K");
        assert_eq!(count_to_human_string(u64::MAX), "9223372036G");
    }

    #[test]
    fn bytes() {
        assert_eq!(bytes_to_human_string(0), "0.00 KB");
        assert_eq!(bytes_to_human_string(237_793), "232.22 KB");
        assert_eq!(bytes_to_human_string(1024 * 1024), "1.00 MB");
        assert_eq!(bytes_to_human_string(3 << 30), "3.00 GB");
        assert_eq!(bytes_to_human_string(5 << 40), "5.00 TB");
        assert_eq!(bytes_to_human_string(5000 << 40), "5000.00 TB");
    }

    #[test]
    fn hms() {
        assert_eq!(micros_to_hms(0), "00:00:0.000 H:M:S");
        assert_eq!(micros_to_hms(967_957), "00:00:0.968 H:M:S");
        assert_eq!(micros_to_hms(12_345_678), "00:00:12.346 H:M:S");
        assert_eq!(micros_to_hms(3_723_500_000), "01:02:3.500 H:M:S");
    }
}
