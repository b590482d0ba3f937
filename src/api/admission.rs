//! Admission of big reads to the blocking pool: a fixed number run at once,
//! a bounded queue waits for them, and anything past that is refused at
//! once. Without it, a flood of large pages grew the blocking pool to
//! hundreds of threads and the process to gigabytes; with it, memory and
//! threads are bounded by the slots, and a flood gets quick 503s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The slots and the queue in front of them.
pub struct Admission {
    slots: Arc<Semaphore>,
    capacity: usize,
    waiting: AtomicUsize,
    max_waiting: usize,
}

/// A held slot; released when dropped (when the read has really ended).
#[derive(Debug)]
pub struct Slot(#[allow(dead_code)] OwnedSemaphorePermit);

/// Why a read was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The queue was full when the read arrived.
    QueueFull,
    /// The read's deadline passed while it waited.
    TimedOut,
}

impl Admission {
    /// `slots` reads at once (at least one), `max_waiting` more in the queue.
    pub fn new(slots: usize, max_waiting: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(slots.max(1))),
            capacity: slots.max(1),
            waiting: AtomicUsize::new(0),
            max_waiting,
        }
    }

    /// A slot now, or after waiting in the queue until `deadline`.
    pub async fn enter(&self, deadline: Instant) -> Result<Slot, Refused> {
        if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
            return Ok(Slot(permit));
        }
        // Join the queue only while it has room.
        let joined = self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max_waiting).then_some(n + 1)
            });
        if joined.is_err() {
            return Err(Refused::QueueFull);
        }
        let _leave = Leave(&self.waiting);
        let acquire = Arc::clone(&self.slots).acquire_owned();
        match tokio::time::timeout_at(deadline.into(), acquire).await {
            Ok(Ok(permit)) => Ok(Slot(permit)),
            // The semaphore is never closed; a deadline is the only way out.
            Ok(Err(_)) | Err(_) => Err(Refused::TimedOut),
        }
    }

    /// Reads running now.
    pub fn running(&self) -> usize {
        self.capacity - self.slots.available_permits()
    }

    /// Reads waiting now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }
}

/// Leaves the queue when the wait ends, however it ends.
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn slots_then_a_bounded_queue_then_refusal() {
        let adm = Admission::new(2, 1);
        let far = Instant::now() + Duration::from_secs(5);
        let a = adm.enter(far).await.unwrap();
        let _b = adm.enter(far).await.unwrap();
        assert_eq!(adm.running(), 2);
        // The third waits in the queue; the fourth finds it full.
        let adm = Arc::new(adm);
        let queued = {
            let adm = Arc::clone(&adm);
            tokio::spawn(async move { adm.enter(far).await.map(|_| ()) })
        };
        while adm.waiting() == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(adm.enter(far).await.unwrap_err(), Refused::QueueFull);
        drop(a);
        assert_eq!(queued.await.unwrap(), Ok(()));
        assert_eq!(adm.waiting(), 0);
        // A wait past the deadline gives up and leaves the queue.
        let _c = adm.enter(far).await.unwrap();
        let soon = Instant::now() + Duration::from_millis(30);
        assert_eq!(adm.enter(soon).await.unwrap_err(), Refused::TimedOut);
        assert_eq!(adm.waiting(), 0);
    }
}
