//! A follower's readers against its catch-ups with the writer.
//!
//! RocksDB keeps no snapshots on a follower, so a catch-up must wait until
//! no reader is reading, and readers must wait while it runs: each reader
//! sees one committed state. A catch-up that waits must not hold back
//! every request behind the longest one in flight, though (with a
//! writer-preferring lock a point lookup waited for a page of traces):
//! *short* readers — those with a small row budget, a request's first try
//! on the async worker — still enter while a catch-up waits, and wait only
//! for the catch-up itself (under a millisecond). Other readers queue
//! behind a waiting catch-up, so it is not starved by them; short readers
//! end within microseconds, so it gets its moment as soon as they pause.

use std::sync::{Condvar, Mutex, MutexGuard};

/// The gate between a follower's readers and its catch-ups.
#[derive(Default)]
pub(super) struct CatchUpGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    readers: usize,
    /// A catch-up waits for the readers in.
    waiting: bool,
    /// A catch-up runs.
    running: bool,
}

/// A reader inside the gate; leaves it when dropped. Not `Send`, as the
/// lock guard before it was not: a reader held across an `.await` could
/// keep a catch-up waiting while the task waits for a read behind it.
pub(super) struct GateGuard<'a> {
    gate: &'a CatchUpGate,
    _not_send: std::marker::PhantomData<MutexGuard<'static, ()>>,
}

impl CatchUpGate {
    fn state(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'a>(&self, s: MutexGuard<'a, GateState>) -> MutexGuard<'a, GateState> {
        self.changed.wait(s).unwrap_or_else(|p| p.into_inner())
    }

    /// Lets a reader in once no catch-up runs (a `short` one), or once
    /// none runs or waits (any other).
    pub(super) fn enter(&self, short: bool) -> GateGuard<'_> {
        let mut s = self.state();
        while s.running || (!short && s.waiting) {
            s = self.wait(s);
        }
        s.readers += 1;
        GateGuard {
            gate: self,
            _not_send: std::marker::PhantomData,
        }
    }

    /// Runs `catch_up` once no reader is inside, keeping readers out
    /// meanwhile. One catch-up at a time.
    pub(super) fn catch_up<R>(&self, catch_up: impl FnOnce() -> R) -> R {
        let mut s = self.state();
        while s.waiting || s.running {
            s = self.wait(s);
        }
        s.waiting = true;
        while s.readers > 0 {
            s = self.wait(s);
        }
        s.waiting = false;
        s.running = true;
        drop(s);
        // Readers are let in again however the catch-up ends.
        let _done = Done(self);
        catch_up()
    }
}

/// Ends a catch-up (on return or unwind) and wakes whoever waits.
struct Done<'a>(&'a CatchUpGate);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.state().running = false;
        self.0.changed.notify_all();
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        let mut s = self.gate.state();
        s.readers -= 1;
        let wake = s.readers == 0 && s.waiting;
        drop(s);
        if wake {
            self.gate.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    /// A waiting catch-up lets short readers in, holds other readers back
    /// until it has run, and runs only once every reader has left.
    #[test]
    fn short_readers_pass_a_waiting_catch_up_and_long_ones_queue() {
        let gate = CatchUpGate::default();
        let ran = AtomicBool::new(false);
        std::thread::scope(|s| {
            let long = gate.enter(false);
            let catching_up = s.spawn(|| {
                gate.catch_up(|| {
                    ran.store(true, Ordering::SeqCst);
                })
            });
            // Until the catch-up waits.
            while !gate.state().waiting {
                std::thread::yield_now();
            }
            // A short reader enters at once and sees the old state.
            let start = Instant::now();
            drop(gate.enter(true));
            assert!(start.elapsed() < Duration::from_secs(1));
            assert!(!ran.load(Ordering::SeqCst));
            // A long reader waits for the catch-up, which waits for `long`.
            let queued = s.spawn(|| {
                let _r = gate.enter(false);
                ran.load(Ordering::SeqCst)
            });
            std::thread::sleep(Duration::from_millis(50));
            assert!(!ran.load(Ordering::SeqCst));
            drop(long);
            catching_up.join().unwrap();
            assert!(queued.join().unwrap(), "the queued reader entered first");
        });
        assert_eq!(gate.state().readers, 0);
    }

    /// A catch-up that panics still opens the gate again.
    #[test]
    fn a_failed_catch_up_lets_readers_in() {
        let gate = CatchUpGate::default();
        let panicked =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| gate.catch_up(|| panic!())));
        assert!(panicked.is_err());
        drop(gate.enter(false));
    }
}
