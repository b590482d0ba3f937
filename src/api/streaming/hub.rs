//! The clients of the streams and what reaches them: one task follows the
//! commit feed, builds each commit's notifications for the subscriptions
//! in force, and queues them per client. A client whose queue is full is
//! not given less without a word: its stream ends with a notification
//! naming the first masterchain block it missed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{broadcast, mpsc};

use super::notify;
use super::subscription::Subscription;
use crate::api::pending::PendingTrace;
use crate::api::v3::V3Error;
use crate::api::Api;
use crate::index::feed::Committed;

/// Notifications a client may have waiting before it is cut off.
pub const QUEUE: usize = 256;

/// Every client of the streams of one server.
pub struct Hub {
    clients: Mutex<HashMap<u64, Slot>>,
    next_id: AtomicU64,
    /// Whether commits reach this process (it writes the index).
    live: bool,
    /// `gen_utime` of the newest masterchain block a commit announced.
    newest_mc_time: AtomicU64,
    /// The newest masterchain seqno a commit announced.
    newest_mc: AtomicU64,
}

struct Slot {
    sub: Arc<Subscription>,
    tx: mpsc::Sender<Arc<str>>,
    cut: Arc<AtomicU64>,
}

/// One client's end: its notifications, and why they stopped.
pub struct Client {
    pub id: u64,
    pub rx: mpsc::Receiver<Arc<str>>,
    /// Set (to the first masterchain seqno it missed, plus one) when the
    /// client was cut off for not keeping up.
    cut: Arc<AtomicU64>,
    hub: Arc<Hub>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.hub.remove(self.id);
    }
}

impl Client {
    /// The last notification of a stream that was cut off, if it was.
    pub fn closing_notification(&self) -> Option<String> {
        let missed = self.cut.load(Ordering::Relaxed).checked_sub(1)?;
        Some(
            serde_json::json!({
                "type": "stream_overflow",
                "error": format!(
                    "the client did not keep up ({QUEUE} notifications waiting): its stream ends \
                     here; what masterchain block {missed} and later committed was not sent"
                ),
                "missed_from_mc_seqno": missed,
            })
            .to_string(),
        )
    }
}

impl Hub {
    /// A hub; `live` when this process sees commits as they happen.
    pub fn new(live: bool) -> Self {
        Self {
            clients: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            live,
            newest_mc_time: AtomicU64::new(0),
            newest_mc: AtomicU64::new(0),
        }
    }

    pub fn live(&self) -> bool {
        self.live
    }

    /// The `gen_utime` of the newest masterchain block announced (0: none yet).
    pub fn newest_mc_time(&self) -> u64 {
        self.newest_mc_time.load(Ordering::Relaxed)
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Slot>> {
        self.clients.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a client with its subscription.
    pub fn register(self: &Arc<Self>, sub: Subscription) -> Client {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(QUEUE);
        let cut = Arc::new(AtomicU64::new(0));
        self.slots().insert(
            id,
            Slot {
                sub: Arc::new(sub),
                tx,
                cut: Arc::clone(&cut),
            },
        );
        Client {
            id,
            rx,
            cut,
            hub: Arc::clone(self),
        }
    }

    /// Replaces a client's subscription.
    pub fn update(&self, id: u64, sub: Subscription) {
        if let Some(slot) = self.slots().get_mut(&id) {
            slot.sub = Arc::new(sub);
        }
    }

    fn remove(&self, id: u64) {
        self.slots().remove(&id);
    }

    /// Clients now subscribed.
    pub fn clients(&self) -> usize {
        self.slots().len()
    }

    fn snapshot(&self) -> Vec<(u64, Arc<Subscription>)> {
        self.slots()
            .iter()
            .map(|(id, s)| (*id, Arc::clone(&s.sub)))
            .collect()
    }

    /// Queues a commit's notifications; a client whose queue is full is cut off.
    fn deliver(&self, outbox: notify::Outbox, mc_seqno: u32) {
        let mut slots = self.slots();
        for (id, texts) in outbox {
            let Some(slot) = slots.get(&id) else {
                continue;
            };
            let full = texts
                .into_iter()
                .any(|t| slot.tx.try_send(Arc::from(t)).is_err());
            if full {
                self.cut_off(&mut slots, id, mc_seqno);
            }
        }
    }

    fn cut_off(&self, slots: &mut HashMap<u64, Slot>, id: u64, mc_seqno: u32) {
        if let Some(slot) = slots.remove(&id) {
            slot.cut.store(u64::from(mc_seqno) + 1, Ordering::Relaxed);
            tracing::warn!(
                client = id,
                mc_seqno,
                "a streaming client did not keep up and was cut off"
            );
        }
    }

    /// Cuts off every client: the hub itself missed commits.
    fn cut_all(&self, mc_seqno: u32) {
        let mut slots = self.slots();
        let ids: Vec<u64> = slots.keys().copied().collect();
        for id in ids {
            self.cut_off(&mut slots, id, mc_seqno);
        }
    }
}

/// Follows `commits` for `api`'s hub until the feed closes or the API is gone.
pub fn spawn(api: Weak<Api>, mut commits: broadcast::Receiver<Arc<Committed>>) {
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        let mut last_mc = 0u32;
        loop {
            let commit = match commits.recv().await {
                Ok(c) => c,
                Err(RecvError::Lagged(n)) => {
                    let Some(api) = api.upgrade() else { break };
                    tracing::warn!(
                        missed_commits = n,
                        "the streams fell behind the commit feed"
                    );
                    api.streams().cut_all(last_mc + 1);
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let Some(api) = api.upgrade() else { break };
            let hub = Arc::clone(api.streams());
            if let Some(mc) = commit.mc_seqno {
                last_mc = mc;
                hub.newest_mc.store(u64::from(mc), Ordering::Relaxed);
            }
            if let Some(t) = commit_time(&api, &commit).await {
                hub.newest_mc_time.store(t, Ordering::Relaxed);
            }
            let clients = hub.snapshot();
            if clients.is_empty() {
                continue;
            }
            let mc = commit.mc_seqno.unwrap_or(last_mc);
            let built = {
                let commit = Arc::clone(&commit);
                api.read_background(move |ctx| notify::notifications(ctx, &commit, &clients))
                    .await
            };
            hand_out(&hub, built, mc);
        }
    });
}

/// Queues what was built; when it could not be (logged), every client
/// missed it and is cut off.
fn hand_out(hub: &Hub, built: Option<Result<notify::Outbox, V3Error>>, mc: u32) {
    match built {
        Some(Ok(outbox)) => hub.deliver(outbox, mc),
        Some(Err(e)) => {
            tracing::warn!(mc_seqno = mc, error = ?e, "stream notifications could not be built");
            hub.cut_all(mc);
        }
        None => hub.cut_all(mc),
    }
}

/// Follows the traces emulated for accepted messages: the `pending` level.
pub fn spawn_pending(api: Weak<Api>, mut added: broadcast::Receiver<Arc<PendingTrace>>) {
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let received = added.recv().await;
            let Some(api) = api.upgrade() else { break };
            let hub = Arc::clone(api.streams());
            // Before any block, a client that misses something misses it
            // from the next masterchain block on.
            let next_mc =
                u32::try_from(hub.newest_mc.load(Ordering::Relaxed) + 1).unwrap_or(u32::MAX);
            let trace = match received {
                Ok(t) => t,
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(
                        missed_traces = n,
                        "the streams fell behind the pending traces"
                    );
                    hub.cut_all(next_mc);
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let clients = hub.snapshot();
            if clients.is_empty() {
                continue;
            }
            let built = api
                .read_background(move |ctx| notify::pending_notifications(ctx, &trace, &clients))
                .await;
            hand_out(&hub, built, next_mc);
        }
    });
}

/// The `gen_utime` of a commit's masterchain block.
async fn commit_time(api: &Arc<Api>, commit: &Committed) -> Option<u64> {
    let seqno = commit.mc_seqno?;
    api.read_background(move |ctx| {
        crate::query::blocks::mc_block(&ctx.reader, seqno)
            .ok()
            .flatten()
            .map(|b| u64::from(b.gen_utime))
    })
    .await
    .flatten()
}
