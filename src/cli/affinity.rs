//! The CPUs the process may run on, for `bench`'s per-core figures: every
//! thread of the process (RocksDB's and the pools' included) is pinned to
//! the first N CPUs it was allowed, then let go again.

/// A set of CPUs the process may run on.
#[derive(Clone)]
pub struct Cpus(libc::cpu_set_t);

impl Cpus {
    /// The CPUs the calling thread may run on now.
    pub fn current() -> std::io::Result<Self> {
        // SAFETY: cpu_set_t is plain data; the kernel fills in at most its size.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(Self(set))
        }
    }

    /// How many CPUs the set holds.
    pub fn count(&self) -> usize {
        // SAFETY: reads the set only.
        unsafe { libc::CPU_COUNT(&self.0) as usize }
    }

    /// The set's first `n` CPUs (all of them if it holds fewer).
    pub fn first(&self, n: usize) -> Self {
        // SAFETY: the CPU_* macros only read and write within the set.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let mut taken = 0;
            for cpu in 0..libc::CPU_SETSIZE as usize {
                if taken == n {
                    break;
                }
                if libc::CPU_ISSET(cpu, &self.0) {
                    libc::CPU_SET(cpu, &mut set);
                    taken += 1;
                }
            }
            Self(set)
        }
    }

    /// Pins every thread of the process to this set; threads started later
    /// inherit it from the thread that starts them.
    pub fn apply_to_process(&self) -> std::io::Result<()> {
        for entry in std::fs::read_dir("/proc/self/task")? {
            let Ok(tid) = entry?.file_name().to_string_lossy().parse::<libc::pid_t>() else {
                continue;
            };
            // SAFETY: passes a valid set of its own size; a thread that has
            // ended meanwhile makes the call fail with ESRCH, ignored.
            let r =
                unsafe { libc::sched_setaffinity(tid, std::mem::size_of_val(&self.0), &self.0) };
            if r != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::ESRCH) {
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Cpus;

    #[test]
    fn first_takes_at_most_the_cpus_the_set_holds() {
        let all = Cpus::current().unwrap();
        assert!(all.count() >= 1);
        assert_eq!(all.first(1).count(), 1);
        assert_eq!(all.first(0).count(), 0);
        assert_eq!(all.first(all.count() + 5).count(), all.count());
        // Pinning the process to what it has already changes nothing and works.
        all.apply_to_process().unwrap();
        assert_eq!(Cpus::current().unwrap().count(), all.count());
    }
}
