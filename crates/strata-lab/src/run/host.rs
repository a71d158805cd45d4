//! Gathers the host facts recorded with every result row, and the git commit.

use std::path::Path;
use std::process::Command;

use crate::data::results::HostInfo;

fn read(p: &str) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// Collects host facts; `dir` is the output directory (for its file system).
pub(crate) fn host_info(dir: &Path) -> HostInfo {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    let mem_bytes = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| {
            v.split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0);
    let cpu_model = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_default();
    HostInfo {
        hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
        cores,
        mem_bytes,
        kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
        cpu_model,
        fs_type: fs_type(dir),
    }
}

/// File system type of `dir` from `/proc/self/mounts` (longest matching mount point).
pub(crate) fn fs_type(dir: &Path) -> String {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mounts = read("/proc/self/mounts");
    let mut best: (usize, String) = (0, "unknown".into());
    for l in mounts.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if let (Some(mp), Some(ty)) = (f.get(1), f.get(2)) {
            if dir.starts_with(mp) && mp.len() >= best.0 {
                best = (mp.len(), (*ty).to_string());
            }
        }
    }
    best.1
}

/// The commit this binary was built from (recorded at build time, with
/// `-dirty` for uncommitted changes), so a run outside a checkout still
/// names it; for a binary built outside a checkout, the current
/// directory's `git rev-parse HEAD` (plus `-dirty`), if available.
pub(crate) fn git_commit() -> Option<String> {
    match strata_bench::build_info::GIT_COMMIT {
        "unknown" => checkout_commit(),
        c => Some(c.to_string()),
    }
}

/// `git rev-parse HEAD` (plus `-dirty` when the tree has changes), if available.
pub(crate) fn checkout_commit() -> Option<String> {
    let o = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    if !o.status.success() {
        return None;
    }
    let mut c = String::from_utf8_lossy(&o.stdout).trim().to_string();
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .map(|o| o.status.success() && !o.stdout.is_empty())
        .unwrap_or(false);
    if dirty {
        c.push_str("-dirty");
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_is_the_binarys_outside_a_checkout() {
        let dir = tempfile::tempdir().unwrap();
        let c = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "run::host::tests::print_commit", "--nocapture"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&c.stdout);
        let built = strata_bench::build_info::GIT_COMMIT;
        assert!(out.contains(&format!("commit={built}")), "{out}");
    }

    #[test]
    fn print_commit() {
        println!("commit={}", git_commit().unwrap_or_else(|| "none".into()));
    }

    #[test]
    fn host_info_is_filled() {
        let h = host_info(Path::new("/"));
        assert!(h.cores >= 1);
        assert!(h.mem_bytes > 0);
        assert!(!h.kernel.is_empty());
        assert_ne!(h.fs_type, "unknown");
    }
}
