//! db_bench's preamble: environment lines (stderr) and the run header (stdout).

use crate::flags::Flags;

fn local_tm(secs: i64) -> libc::tm {
    // SAFETY: `tm` is plain data; localtime_r writes into it and only reads `t`.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        let t: libc::time_t = secs as libc::time_t;
        libc::localtime_r(&t, &mut tm);
        tm
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// `ctime`-style date, as db_bench's `Date:` line (`Sat Nov 21 13:36:24 2026`).
pub fn ctime_string(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let tm = local_tm(secs);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS.get(tm.tm_wday as usize).unwrap_or(&"???"),
        MONTHS.get(tm.tm_mon as usize).unwrap_or(&"???"),
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        tm.tm_year + 1900
    )
}

/// RocksDB's `TimeToString` (`2026/11/21-13:36:24`), for interval lines.
pub fn now_string() -> String {
    let tm = local_tm(unix_now());
    format!(
        "{:04}/{:02}/{:02}-{:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

/// The environment block db_bench prints on stderr; `engine` replaces
/// `RocksDB` in the version line (`Strata:    version 0.1.0`, as `RocksDB:    version 7.8.3`).
pub fn environment(engine: &str, version: &str) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let mut count = 0;
    let mut model = String::new();
    let mut cache = String::new();
    for line in cpuinfo.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        match k.trim() {
            "model name" => {
                count += 1;
                model = v.trim().to_string();
            }
            "cache size" => cache = v.trim().to_string(),
            _ => {}
        }
    }
    format!(
        "{engine}:    version {version}\nDate:       {}\nCPU:        {count} * {model}\nCPUCache:   {cache}\n",
        ctime_string(unix_now())
    )
}

/// The header block db_bench prints on stdout before the first benchmark.
pub fn header(flags: &Flags) -> String {
    let num = flags.num as f64;
    let ks = flags.key_size as f64;
    let vs = flags.value_size as f64;
    let ratio = flags.compression_ratio;
    format!(
        "Keys:       {} bytes each (+ 0 bytes user-defined timestamp)\n\
         Values:     {} bytes each ({} bytes after compression)\n\
         Entries:    {}\n\
         Prefix:    0 bytes\n\
         Keys per prefix:    0\n\
         RawSize:    {:.1} MB (estimated)\n\
         FileSize:   {:.1} MB (estimated)\n\
         Write rate: {} bytes/second\n\
         Read rate: 0 ops/second\n\
         Compression: {}\n\
         Compression sampling rate: 0\n\
         Memtablerep: SkipListFactory\n\
         Perf Level: 1\n\
         ------------------------------------------------\n",
        flags.key_size,
        flags.value_size,
        (vs * ratio + 0.5) as i64,
        flags.num,
        (ks + vs) * num / 1_048_576.0,
        (ks + vs * ratio) * num / 1_048_576.0,
        flags.benchmark_write_rate_limit,
        flags.compression.header_name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_matches_rocksdb_capture() {
        let args: Vec<String> = ["--num=2000"].iter().map(|s| s.to_string()).collect();
        let f = Flags::from_args(&args).unwrap();
        let capture =
            include_str!("../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout");
        let ours = header(&f);
        for line in ours.lines() {
            assert!(
                capture.lines().any(|l| l == line),
                "line {line:?} not in the RocksDB header"
            );
        }
        let args: Vec<String> = [
            "--num=3000",
            "--value_size=200",
            "--compression_ratio=1",
            "--compression_type=none",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let f = Flags::from_args(&args).unwrap();
        let capture =
            include_str!("../testdata/rocksdb-7.8.3/threads-readwhilewriting-fillsync.stdout");
        for line in header(&f).lines() {
            assert!(
                capture.lines().any(|l| l == line),
                "line {line:?} not in the RocksDB header"
            );
        }
    }

    #[test]
    fn environment_shape() {
        let env = environment("Strata", "0.1.0");
        assert!(
            env.starts_with("Strata:    version 0.1.0\nDate:       "),
            "{env}"
        );
        let rocks = environment("RocksDB", "7.8.3");
        let capture =
            include_str!("../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stderr");
        assert_eq!(rocks.lines().next(), capture.lines().next());
        assert!(env.contains("\nCPU:        ") && env.contains("\nCPUCache:   "));
    }
}
