//! Process resource usage for the JSON report (getrusage, and the resident
//! set size of `/proc/self/status` for the interval samples).

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

/// The resident set size of this process now (`VmRSS` of
/// `/proc/self/status`), or, where that file is missing, the peak so far.
pub fn current_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| vm_rss_bytes(&s))
        .unwrap_or_else(|| process_usage().peak_rss_bytes)
}

/// `VmRSS:  1234 kB` of a `/proc/<pid>/status` text, in bytes.
fn vm_rss_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line["VmRSS:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
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
    fn rss_is_read_from_status() {
        assert_eq!(
            vm_rss_bytes("Name:\tx\nVmHWM:\t   900 kB\nVmRSS:\t   812 kB\n"),
            Some(812 * 1024)
        );
        assert_eq!(vm_rss_bytes("Name: x\n"), None);
        assert!(current_rss_bytes() > 1 << 20);
    }
}
