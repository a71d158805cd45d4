//! `--report_file`: db_bench's CSV of `--report_interval_seconds`. As
//! db_bench 7.8.3's `ReporterAgent` writes it: created anew for each
//! benchmark, the header `secs_elapsed,interval_qps`, then one row per full
//! interval: the seconds from the benchmark's start to the interval's end,
//! rounded, and the operations finished in the interval (a count, not a
//! rate, despite the name; the last, partial interval gets no row).

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// The header line.
pub const HEADER: &str = "secs_elapsed,interval_qps";

/// One row.
pub fn row(t_end_s: f64, ops: u64) -> String {
    format!("{},{ops}\n", t_end_s.round() as u64)
}

/// The open report file of one benchmark.
#[derive(Debug)]
pub struct ReportCsv {
    file: File,
    broken: bool,
}

impl ReportCsv {
    /// Creates (truncates) `path` and writes the header; the error is
    /// db_bench's `Can't open`.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        let mut file = File::create(path)
            .map_err(|e| anyhow::anyhow!("Can't open {}: {e}", path.display()))?;
        writeln!(file, "{HEADER}")
            .map_err(|e| anyhow::anyhow!("Can't open {}: {e}", path.display()))?;
        Ok(Self {
            file,
            broken: false,
        })
    }

    /// Appends the row of an interval; after a failed write, as db_bench,
    /// says so on stderr once and stops writing.
    pub fn append(&mut self, t_end_s: f64, ops: u64) {
        if self.broken {
            return;
        }
        if let Err(e) = self.file.write_all(row(t_end_s, ops).as_bytes()) {
            eprintln!("Can't write to report file ({e}), stopping the reporting");
            self.broken = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_db_bench_rows() {
        assert_eq!(row(1.0, 1234), "1,1234\n");
        assert_eq!(row(2.4999, 0), "2,0\n");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.csv");
        let mut r = ReportCsv::create(&p).unwrap();
        r.append(1.0, 5);
        r.append(2.0, 7);
        drop(r);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "secs_elapsed,interval_qps\n1,5\n2,7\n"
        );
        let e = ReportCsv::create(&dir.path().join("no/such/dir.csv")).unwrap_err();
        assert!(e.to_string().starts_with("Can't open "), "{e}");
    }
}
