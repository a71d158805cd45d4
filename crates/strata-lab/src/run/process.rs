//! Running one benchmark process: wall time, user/sys CPU and peak RSS of the
//! child (via `wait4`), optional CPU pinning, and free-disk checks.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./,:+".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

/// Joins argv into a shell command line.
pub(crate) fn shell_join(argv: &[String]) -> String {
    argv.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What one child process did.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProcessOutcome {
    /// Exit code; negative signal number when killed by a signal; -1000 when it could not start.
    pub exit_code: i32,
    /// Captured stdout.
    pub stdout: String,
    /// Captured stderr (or the spawn error).
    pub stderr: String,
    /// Wall seconds.
    pub wall_sec: f64,
    /// User CPU seconds of the child.
    pub user_sec: f64,
    /// System CPU seconds of the child.
    pub sys_sec: f64,
    /// Peak resident set size in KB.
    pub max_rss_kb: u64,
}

fn tv(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

/// Runs `argv`, capturing output to `out_prefix.stdout`/`.stderr`, pinned to
/// the first `cpus` cores when given.
pub(crate) fn run(argv: &[String], cpus: Option<u32>, out_prefix: &Path) -> ProcessOutcome {
    run_with_timeout(argv, cpus, out_prefix, None)
}

/// [`run`], killing the child (SIGKILL) when it runs longer than `timeout`;
/// a killed child reports exit code -9 and a note on stderr.
pub(crate) fn run_with_timeout(
    argv: &[String],
    cpus: Option<u32>,
    out_prefix: &Path,
    timeout: Option<std::time::Duration>,
) -> ProcessOutcome {
    let Some((prog, args)) = argv.split_first() else {
        return ProcessOutcome {
            exit_code: -1000,
            stderr: "empty command".into(),
            ..Default::default()
        };
    };
    let so = out_prefix.with_extension("stdout");
    let se = out_prefix.with_extension("stderr");
    let files = (std::fs::File::create(&so), std::fs::File::create(&se));
    let (Ok(fo), Ok(fe)) = files else {
        return ProcessOutcome {
            exit_code: -1000,
            stderr: format!("cannot create {}", so.display()),
            ..Default::default()
        };
    };
    let mut cmd = Command::new(prog);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(fo))
        .stderr(Stdio::from(fe));
    if let Some(n) = cpus {
        pin(&mut cmd, n);
    }
    let start = Instant::now();
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return ProcessOutcome {
                exit_code: -1000,
                stderr: format!("cannot start {prog}: {e}"),
                ..Default::default()
            }
        }
    };
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; zeroed is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let mut timed_out = false;
    let rc = loop {
        let flags = if timeout.is_some() && !timed_out {
            libc::WNOHANG
        } else {
            0
        };
        // SAFETY: pid is our own un-reaped child; pointers are to live locals.
        let rc = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
        if rc == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if rc == 0 {
            // Still running (WNOHANG).
            if timeout.is_some_and(|t| start.elapsed() > t) {
                // SAFETY: signalling our own un-reaped child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                timed_out = true;
            } else {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            continue;
        }
        break rc;
    };
    let wall_sec = start.elapsed().as_secs_f64();
    drop(child);
    let exit_code = if rc == -1 {
        -1001
    } else if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        -libc::WTERMSIG(status)
    } else {
        -1002
    };
    let mut stderr = std::fs::read_to_string(&se).unwrap_or_default();
    if timed_out {
        stderr.push_str(&format!(
            "\nstrata lab: killed after the {:.0} s timeout\n",
            timeout.map(|t| t.as_secs_f64()).unwrap_or(0.0)
        ));
    }
    ProcessOutcome {
        exit_code,
        stdout: std::fs::read_to_string(&so).unwrap_or_default(),
        stderr,
        wall_sec,
        user_sec: tv(ru.ru_utime),
        sys_sec: tv(ru.ru_stime),
        max_rss_kb: ru.ru_maxrss.max(0) as u64,
    }
}

fn pin(cmd: &mut Command, n: u32) {
    use std::os::unix::process::CommandExt;
    let n = n.max(1) as usize;
    // SAFETY: sched_setaffinity is async-signal-safe; the closure only touches
    // a stack-local cpu_set_t.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for c in 0..n {
                libc::CPU_SET(c, &mut set);
            }
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Free bytes available to an unprivileged user on the file system of `path`.
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data; the path is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    if rc != 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Fails with needed vs available space when `path` has less than `need` bytes free.
pub(crate) fn check_disk(path: &Path, need: u64) -> anyhow::Result<()> {
    match free_bytes(path) {
        Some(avail) if avail < need => anyhow::bail!(
            "not enough disk space in {}: this run needs {} but only {} is available",
            path.display(),
            gb(need),
            gb(avail)
        ),
        _ => Ok(()),
    }
}

/// Bytes as `1.23 GB` (decimal).
pub(crate) fn gb(b: u64) -> String {
    if b >= 1_000_000_000 {
        format!("{:.2} GB", b as f64 / 1e9)
    } else {
        format!("{:.1} MB", b as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn shell_join_quotes() {
        let a = vec![
            "db_bench".to_string(),
            "--db=/tmp/a b".to_string(),
            "it's".to_string(),
        ];
        assert_eq!(shell_join(&a), "db_bench '--db=/tmp/a b' 'it'\\''s'");
    }

    use super::*;

    #[test]
    fn measures_child_and_exit_code() {
        let d = tempfile::tempdir().unwrap();
        let o = run(
            &[
                "sh".into(),
                "-c".into(),
                "echo hi; echo err >&2; exit 3".into(),
            ],
            None,
            &d.path().join("x"),
        );
        assert_eq!(o.exit_code, 3);
        assert_eq!(o.stdout, "hi\n");
        assert_eq!(o.stderr, "err\n");
        assert!(o.wall_sec > 0.0);
        assert!(o.max_rss_kb > 0);
    }

    #[test]
    fn pinning_restricts_cores() {
        let d = tempfile::tempdir().unwrap();
        let o = run(
            &[
                "sh".into(),
                "-c".into(),
                "grep Cpus_allowed_list /proc/self/status".into(),
            ],
            Some(1),
            &d.path().join("x"),
        );
        assert_eq!(o.exit_code, 0);
        assert!(o.stdout.trim_end().ends_with("\t0"), "{}", o.stdout);
    }

    #[test]
    fn timeout_kills_the_child() {
        let d = tempfile::tempdir().unwrap();
        let t = std::time::Instant::now();
        let o = run_with_timeout(
            &["sleep".into(), "30".into()],
            None,
            &d.path().join("x"),
            Some(std::time::Duration::from_millis(200)),
        );
        assert_eq!(o.exit_code, -9);
        assert!(o.stderr.contains("timeout"));
        assert!(t.elapsed().as_secs() < 10);
    }

    #[test]
    fn missing_program_is_recorded() {
        let d = tempfile::tempdir().unwrap();
        let o = run(&["/nonexistent/bench".into()], None, &d.path().join("x"));
        assert_eq!(o.exit_code, -1000);
        assert!(o.stderr.contains("cannot start"));
    }

    #[test]
    fn disk_check_refuses_with_numbers() {
        let e = check_disk(Path::new("/"), u64::MAX / 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs") && e.contains("available"), "{e}");
        assert!(check_disk(Path::new("/"), 1).is_ok());
    }
}
