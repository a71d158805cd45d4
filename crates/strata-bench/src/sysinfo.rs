//! Process resource usage for the JSON report (getrusage, and the resident
//! memory of `/proc/self/status` for the interval samples).

use serde::Serialize;

/// CPU time and peak memory of this process so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ProcessUsage {
    /// User-mode CPU seconds (all threads, including the engine's).
    pub user_cpu_seconds: f64,
    /// Kernel-mode CPU seconds.
    pub system_cpu_seconds: f64,
    /// Peak resident set size in bytes (`ru_maxrss`).
    pub peak_rss_bytes: u64,
}

/// Reads `getrusage(RUSAGE_SELF)`.
pub fn process_usage() -> ProcessUsage {
    // SAFETY: `rusage` is plain data and getrusage only writes into it.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut ru) != 0 {
            return ProcessUsage::default();
        }
        ru
    };
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    ProcessUsage {
        user_cpu_seconds: secs(ru.ru_utime),
        system_cpu_seconds: secs(ru.ru_stime),
        peak_rss_bytes: (ru.ru_maxrss.max(0) as u64) * 1024, // Linux reports KiB
    }
}

/// The resident memory of this process at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resident {
    /// Resident set size (`VmRSS`).
    pub rss_bytes: u64,
    /// Of it, pages of files mapped into the process (`RssFile`): the
    /// executable and, under `allow_mmap_reads`, the DB's table files. The
    /// OS page cache holds those pages whether an engine maps them or reads
    /// them with `pread` (where they count in no process's RSS), so
    /// comparisons of engines' memory leave them out
    /// ([`own_bytes`](Self::own_bytes)).
    pub file_bytes: u64,
}

impl Resident {
    /// Memory the process holds of its own: `VmRSS - RssFile` (anonymous
    /// and shared-memory pages: memtables, caches, buffers, stacks).
    pub fn own_bytes(&self) -> u64 {
        self.rss_bytes.saturating_sub(self.file_bytes)
    }
}

/// This process's resident memory now (`/proc/self/status`), or, where
/// that file is missing, the peak RSS so far with no file pages known.
pub fn current_resident() -> Resident {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| resident_of(&s))
        .unwrap_or_else(|| Resident {
            rss_bytes: process_usage().peak_rss_bytes,
            file_bytes: 0,
        })
}

/// `VmRSS` and `RssFile` (0 when absent) of a `/proc/<pid>/status` text,
/// in bytes.
fn resident_of(status: &str) -> Option<Resident> {
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    };
    Some(Resident {
        rss_bytes: field("VmRSS:")?,
        file_bytes: field("RssFile:").unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_grows_with_work() {
        let before = process_usage();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let after = process_usage();
        assert!(
            after.user_cpu_seconds + after.system_cpu_seconds
                > before.user_cpu_seconds + before.system_cpu_seconds
        );
        assert!(after.peak_rss_bytes > 1 << 20);
    }

    #[test]
    fn rss_and_file_pages_are_read_from_status() {
        let r = resident_of(
            "Name:\tx\nVmHWM:\t   900 kB\nVmRSS:\t   812 kB\nRssAnon:\t 500 kB\nRssFile:\t   300 kB\n",
        )
        .unwrap();
        assert_eq!(r.rss_bytes, 812 * 1024);
        assert_eq!(r.file_bytes, 300 * 1024);
        assert_eq!(r.own_bytes(), 512 * 1024);
        let old_kernel = resident_of("VmRSS:\t 10 kB\n").unwrap();
        assert_eq!((old_kernel.rss_bytes, old_kernel.file_bytes), (10240, 0));
        assert_eq!(resident_of("Name: x\n"), None);
        let now = current_resident();
        assert!(now.rss_bytes > 1 << 20 && now.file_bytes < now.rss_bytes);
    }
}
