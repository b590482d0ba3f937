//! A follower's readers against its catch-ups with the writer.
//!
//! RocksDB keeps no snapshots on a follower, so a catch-up must wait until
//! no reader is reading, and readers must wait while it runs: each reader
//! sees one committed state. A catch-up that waits must not hold back
//! every request behind the longest one in flight, though (with a
//! writer-preferring lock a point lookup waited for a page of traces):
//! *short* readers — those with a small row budget, a request's first try
//! on the async worker — still enter while a catch-up waits for a long
//! one, and wait only for the catch-up itself (under a millisecond). Long
//! readers queue behind a waiting catch-up, so it is not starved by them.
//! Once only short readers are left in, they still pass for
//! [`SHORT_GRACE`] and then queue too: a steady stream of overlapping
//! point lookups never leaves the gate empty by itself.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long short readers still pass a catch-up that waits for short
/// readers alone. A catch-up then waits for the long readers in when it
/// began waiting, plus at most this and the longest short read.
pub(super) const SHORT_GRACE: Duration = Duration::from_millis(20);

/// The gate between a follower's readers and its catch-ups.
#[derive(Default)]
pub(super) struct CatchUpGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    readers: usize,
    /// Of `readers`, those that are not short.
    long_readers: usize,
    /// A catch-up waits for the readers in.
    waiting: bool,
    /// While a catch-up waits: since when only short readers are in.
    short_only_since: Option<Instant>,
    /// A catch-up runs.
    running: bool,
}

impl GateState {
    /// Whether a reader must wait before it enters.
    fn holds_back(&self, short: bool) -> bool {
        if self.running {
            return true;
        }
        if !self.waiting {
            return false;
        }
        !short
            || self
                .short_only_since
                .is_some_and(|since| since.elapsed() >= SHORT_GRACE)
    }
}

/// A reader inside the gate; leaves it when dropped. Not `Send`, as the
/// lock guard before it was not: a reader held across an `.await` could
/// keep a catch-up waiting while the task waits for a read behind it.
pub(super) struct GateGuard<'a> {
    gate: &'a CatchUpGate,
    short: bool,
    _not_send: std::marker::PhantomData<MutexGuard<'static, ()>>,
}

impl CatchUpGate {
    fn state(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'a>(&self, s: MutexGuard<'a, GateState>) -> MutexGuard<'a, GateState> {
        self.changed.wait(s).unwrap_or_else(|p| p.into_inner())
    }

    /// Lets a reader in once no catch-up runs (a `short` one, while a
    /// catch-up waits for a long reader or for [`SHORT_GRACE`] at most), or
    /// once none runs or waits (any other).
    pub(super) fn enter(&self, short: bool) -> GateGuard<'_> {
        let mut s = self.state();
        while s.holds_back(short) {
            s = self.wait(s);
        }
        s.readers += 1;
        s.long_readers += usize::from(!short);
        GateGuard {
            gate: self,
            short,
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
        if s.long_readers == 0 {
            s.short_only_since = Some(Instant::now());
        }
        while s.readers > 0 {
            s = self.wait(s);
        }
        s.waiting = false;
        s.short_only_since = None;
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
        if !self.short {
            s.long_readers -= 1;
            if s.waiting && s.long_readers == 0 {
                // Long readers queue behind a waiting catch-up, so none
                // comes in after this: the grace for short ones starts.
                s.short_only_since = Some(Instant::now());
            }
        }
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
            // While a long reader is in, a short reader enters at once and
            // sees the old state, however long the catch-up has waited.
            std::thread::sleep(SHORT_GRACE * 2);
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

    /// Short readers that overlap without a pause hold a catch-up back for
    /// the grace alone, not for as long as they keep coming.
    #[test]
    fn a_steady_stream_of_short_readers_does_not_starve_a_catch_up() {
        let gate = CatchUpGate::default();
        let stop = AtomicBool::new(false);
        let waited = std::thread::scope(|s| {
            // Four readers, each inside 2 ms at a time and entering again at
            // once: the gate is never empty while they all pass.
            for _ in 0..4 {
                s.spawn(|| {
                    let until = Instant::now() + Duration::from_secs(5);
                    while !stop.load(Ordering::SeqCst) && Instant::now() < until {
                        let _r = gate.enter(true);
                        std::thread::sleep(Duration::from_millis(2));
                    }
                });
            }
            std::thread::sleep(Duration::from_millis(20));
            let start = Instant::now();
            gate.catch_up(|| ());
            let waited = start.elapsed();
            stop.store(true, Ordering::SeqCst);
            waited
        });
        assert!(
            waited < Duration::from_secs(1),
            "the catch-up waited {waited:?} behind short readers"
        );
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
