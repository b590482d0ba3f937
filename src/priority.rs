//! Scheduling priorities of our own threads (Linux nice levels): work that
//! may wait — decoding ahead of the import writer, big API reads — runs
//! below work that must not (the writer; the async workers that accept
//! connections and answer health checks and point lookups).

/// Lowers the calling thread's priority by `by` nice levels (capped at 19).
/// Elsewhere than Linux it does nothing.
#[cfg(target_os = "linux")]
pub fn lower_current_thread(by: i32) {
    // SAFETY: plain syscalls on the calling thread's own id; a failure
    // leaves its priority as it was.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (current + by).min(19));
    }
}

#[cfg(not(target_os = "linux"))]
pub fn lower_current_thread(_by: i32) {}
