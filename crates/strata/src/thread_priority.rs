//! Sets the CPU priority of the calling thread
//! ([`Options::compaction_cpu_priority`](crate::Options)), as RocksDB's
//! `port::SetCpuPriority` does for its thread pools: `kIdle` is Linux's
//! `SCHED_IDLE`, `kLow` nice 19, `kHigh` nice -20, `kNormal` changes
//! nothing. On Linux a nice level is a thread's own (`setpriority` on its
//! thread id), so the rest of the process keeps its priority.

use crate::options::CpuPriority;

/// Sets the calling thread's CPU priority to `p`.
///
/// # Errors
/// The OS refuses (raising a priority needs `CAP_SYS_NICE`), or the
/// platform has no per-thread priority (not Linux).
pub(crate) fn set_current(p: CpuPriority) -> std::io::Result<()> {
    imp::set_current(p)
}

#[cfg(target_os = "linux")]
mod imp {
    use super::CpuPriority;

    fn check(rc: libc::c_int) -> std::io::Result<()> {
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    pub(super) fn set_current(p: CpuPriority) -> std::io::Result<()> {
        let nice = match p {
            CpuPriority::Normal => return Ok(()),
            CpuPriority::Idle => {
                let param = libc::sched_param { sched_priority: 0 };
                // SAFETY: pid 0 is the calling thread; `param` outlives the call.
                return check(unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) });
            }
            CpuPriority::Low => 19,
            CpuPriority::High => -20,
        };
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        // SAFETY: setpriority only reads its arguments; a thread id is a
        // valid `who` for PRIO_PROCESS on Linux.
        check(unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn nice_of_this_thread() -> i32 {
            // SAFETY: as above.
            let tid = unsafe { libc::gettid() };
            // SAFETY: as above. -1 is also a valid nice level, so errno
            // is not checked: the test threads are never at -1.
            unsafe { libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t) }
        }

        #[test]
        fn low_lowers_only_the_calling_thread() {
            let before = nice_of_this_thread();
            let (inner, after) = std::thread::spawn(|| {
                let start = nice_of_this_thread();
                set_current(CpuPriority::Low).unwrap();
                (start, nice_of_this_thread())
            })
            .join()
            .unwrap();
            assert_eq!(inner, before);
            assert_eq!(after, 19);
            assert_eq!(
                nice_of_this_thread(),
                before,
                "the caller's thread is unchanged"
            );
        }

        #[test]
        fn idle_switches_the_thread_to_sched_idle() {
            let policy = std::thread::spawn(|| {
                set_current(CpuPriority::Idle).unwrap();
                // SAFETY: pid 0 is the calling thread.
                unsafe { libc::sched_getscheduler(0) }
            })
            .join()
            .unwrap();
            assert_eq!(policy, libc::SCHED_IDLE);
        }

        #[test]
        fn normal_changes_nothing() {
            let before = nice_of_this_thread();
            set_current(CpuPriority::Normal).unwrap();
            assert_eq!(nice_of_this_thread(), before);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::CpuPriority;

    pub(super) fn set_current(p: CpuPriority) -> std::io::Result<()> {
        match p {
            CpuPriority::Normal => Ok(()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "per-thread CPU priority is only set on Linux",
            )),
        }
    }
}
