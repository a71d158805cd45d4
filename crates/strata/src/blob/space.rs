//! Blob space accounting for RocksDB's blob DB properties
//! (`rocksdb.num-blob-files`, `rocksdb.blob-stats`,
//! `rocksdb.live-blob-file-size`, `rocksdb.live-blob-file-garbage-size`).
//! Pure functions of the version's blob file metadata.

use super::format::{FOOTER_SIZE, HEADER_SIZE};
use super::gc_policy::BlobFileState;

/// Size of a blob file holding `total_blob_bytes` of records (header +
/// records + footer): what RocksDB calls the blob file size.
pub fn blob_file_size(total_blob_bytes: u64) -> u64 {
    total_blob_bytes.saturating_add((HEADER_SIZE + FOOTER_SIZE) as u64)
}

/// Totals over a set of blob files (RocksDB's `VersionStorageInfo::
/// GetBlobStats`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BlobSpaceStats {
    /// Number of blob files.
    pub num_blob_files: u64,
    /// Sum of the files' sizes (`rocksdb.live-blob-file-size` for the
    /// current version).
    pub total_file_size: u64,
    /// Sum of their garbage bytes (`rocksdb.live-blob-file-garbage-size`).
    pub total_garbage_size: u64,
    /// `total_file_size / (total_file_size - total_garbage_size)`, 0 when
    /// everything is garbage or there are no files.
    pub space_amp: f64,
}

impl BlobSpaceStats {
    /// Totals over `files`.
    pub fn from_files(files: &[BlobFileState]) -> Self {
        let mut s = BlobSpaceStats {
            num_blob_files: files.len() as u64,
            ..Default::default()
        };
        for f in files {
            s.total_file_size = s
                .total_file_size
                .saturating_add(blob_file_size(f.total_blob_bytes));
            s.total_garbage_size = s.total_garbage_size.saturating_add(f.garbage_blob_bytes);
        }
        if s.total_file_size > s.total_garbage_size {
            s.space_amp =
                s.total_file_size as f64 / (s.total_file_size - s.total_garbage_size) as f64;
        }
        s
    }

    /// The text of `rocksdb.blob-stats`, in RocksDB's layout.
    pub fn to_property_string(&self) -> String {
        format!(
            "Number of blob files: {}\nTotal size of blob files: {}\n\
             Total size of garbage in blob files: {}\nBlob file space amplification: {}\n",
            self.num_blob_files,
            self.total_file_size,
            self.total_garbage_size,
            format_double(self.space_amp)
        )
    }
}

/// A double as C++ streams print it by default (`%g`, 6 significant digits):
/// `1`, `1.5`, `1.33333`, `1e+06`.
pub fn format_double(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", exp.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    trim_zeros(&format!("{x:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_like_cpp_streams() {
        let golden = [
            (1.0, "1"),
            (1.5, "1.5"),
            (4.0 / 3.0, "1.33333"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (99.99999, "100"),
            (-2.5, "-2.5"),
        ];
        for (x, want) in golden {
            assert_eq!(format_double(x), want, "{x}");
        }
    }

    #[test]
    fn stats_golden() {
        let files = [
            BlobFileState {
                number: 3,
                total_blob_count: 10,
                total_blob_bytes: 950,
                garbage_blob_count: 5,
                garbage_blob_bytes: 500,
            },
            BlobFileState {
                number: 4,
                total_blob_count: 10,
                total_blob_bytes: 950,
                garbage_blob_count: 0,
                garbage_blob_bytes: 0,
            },
        ];
        let s = BlobSpaceStats::from_files(&files);
        assert_eq!(s.num_blob_files, 2);
        assert_eq!(s.total_file_size, 2 * (950 + 50));
        assert_eq!(s.total_garbage_size, 500);
        assert_eq!(
            s.to_property_string(),
            "Number of blob files: 2\nTotal size of blob files: 2000\n\
             Total size of garbage in blob files: 500\n\
             Blob file space amplification: 1.33333\n"
        );
        let empty = BlobSpaceStats::from_files(&[]);
        assert_eq!(empty.space_amp, 0.0);
        assert!(empty.to_property_string().ends_with("amplification: 0\n"));
    }
}
