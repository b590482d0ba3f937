//! The clients of the streams and what reaches them. Notifications are
//! built per masterchain block from the index once the block and its
//! traces are written — told by the commit feed (`dev`, `run`) or found
//! by catching up with another process's writes (`serve`) — and queued
//! per client. A client that names a block to start from (`since`)
//! replays the blocks before its registration from the index, then
//! continues live: nothing lost, nothing twice. A client whose queue is
//! full is not given less without a word: its stream ends with a
//! notification naming the first masterchain block it missed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};

use tokio::sync::{broadcast, mpsc};

use super::notify;
use super::subscription::Subscription;
use crate::api::pending::PendingTrace;
use crate::api::v3::V3Error;
use crate::api::Api;
use crate::chain::link::ConfirmedRound;
use crate::index::feed::Committed;

/// Blocks (or emulated traces) whose notifications a client may have
/// waiting before it is cut off. A block's notifications are queued
/// whole or not at all, so that a client cut off resumes from a block
/// boundary.
pub const QUEUE: usize = 256;

/// One block's (or emulated trace's) notifications for one client.
type Batch = Vec<Arc<str>>;

/// Masterchain blocks one `since` may ask to replay (about 11 hours of
/// mainnet): a client further behind resynchronizes through API v3.
pub const MAX_REPLAY: u32 = 100_000;

/// Every client of the streams of one server.
pub struct Hub {
    clients: Mutex<Clients>,
    next_id: AtomicU64,
    /// Whether new masterchain blocks reach this process.
    live: bool,
    /// `gen_utime` of the newest masterchain block built.
    newest_mc_time: AtomicU64,
}

#[derive(Default)]
struct Clients {
    slots: HashMap<u64, Slot>,
    /// The newest masterchain block whose notifications are built (for
    /// the clients registered then): a client registered later hears
    /// every later block live, and replays this one and older ones.
    built: Option<u32>,
    /// Clients that got an emulated trace's notifications, by its key:
    /// those told when it is invalidated.
    pending_sent: HashMap<String, (std::time::Instant, Vec<u64>)>,
}

struct Slot {
    sub: Arc<Subscription>,
    tx: mpsc::Sender<Batch>,
    cut: Arc<Mutex<Option<Cut>>>,
}

/// Why a client's stream ended early, and from where it can resume.
#[derive(Debug, Clone)]
struct Cut {
    /// The first masterchain block whose notifications it did not get.
    missed_from: u32,
    kind: &'static str,
    why: String,
}

/// One client's end: its notifications, and why they stopped.
pub struct Client {
    pub id: u64,
    /// Live notifications, from the block after [`Client::built`].
    rx: mpsc::Receiver<Batch>,
    /// Replayed notifications, sent before the live ones while present.
    replay: Option<mpsc::Receiver<Batch>>,
    /// What is left of the batch being sent.
    ready: std::collections::VecDeque<Arc<str>>,
    /// The newest block built when the client registered (none yet: the
    /// hub has not started).
    pub built: Option<u32>,
    cut: Arc<Mutex<Option<Cut>>>,
    hub: Arc<Hub>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.hub.remove(self.id);
    }
}

impl Client {
    /// The next notification: replayed ones first, then live ones; `None`
    /// when the stream ended (see [`Client::closing_notification`]).
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Arc<str>>> {
        loop {
            if let Some(text) = self.ready.pop_front() {
                return Poll::Ready(Some(text));
            }
            let batch = match &mut self.replay {
                Some(replay) => match replay.poll_recv(cx) {
                    Poll::Ready(Some(batch)) => batch,
                    Poll::Ready(None) => {
                        self.replay = None;
                        continue;
                    }
                    Poll::Pending => return Poll::Pending,
                },
                None => match self.rx.poll_recv(cx) {
                    Poll::Ready(Some(batch)) => batch,
                    Poll::Ready(None) => return Poll::Ready(None),
                    Poll::Pending => return Poll::Pending,
                },
            };
            self.ready.extend(batch);
        }
    }

    /// [`Client::poll_recv`] as a future.
    pub async fn recv(&mut self) -> Option<Arc<str>> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// The last notification of a stream that was cut off, if it was.
    pub fn closing_notification(&self) -> Option<String> {
        let cut = lock(&self.cut).clone()?;
        Some(
            serde_json::json!({
                "type": cut.kind,
                "error": cut.why,
                "missed_from_mc_seqno": cut.missed_from,
            })
            .to_string(),
        )
    }

    /// Replays masterchain blocks `since..=built` from the index for this
    /// client (with `sub`), ahead of its live notifications. Refused when
    /// the index does not hold `since` or it is too far back.
    pub fn replay(&mut self, api: &Arc<Api>, sub: Subscription, since: u32) -> Result<(), String> {
        let Some(built) = self.built else {
            return Err("since: the streams have not started yet; subscribe without since".into());
        };
        if since > built.saturating_add(1) {
            return Err(format!(
                "since: masterchain block {since} is not committed yet (the newest is {built})"
            ));
        }
        if built.saturating_add(1) - since > MAX_REPLAY {
            return Err(format!(
                "since: masterchain block {since} is more than {MAX_REPLAY} blocks back; \
                 resynchronize through API v3"
            ));
        }
        let oldest = crate::query::blocks::mc_block_range(&api.db.reader())
            .map_err(|e| format!("internal error: {e}"))?
            .map(|(first, _)| first.id.id.seqno);
        if oldest.is_none_or(|first| since < first) {
            return Err(format!(
                "since: masterchain block {since} is older than what the index holds (from {})",
                oldest.map_or("none".into(), |f| f.to_string())
            ));
        }
        let (tx, rx) = mpsc::channel(QUEUE);
        self.replay = Some(rx);
        let (api, id, cut, hub) = (
            Arc::downgrade(api),
            self.id,
            Arc::clone(&self.cut),
            Arc::clone(&self.hub),
        );
        let sub = Arc::new(sub);
        tokio::spawn(async move {
            for mc in since..=built {
                let Some(api) = api.upgrade() else { return };
                let clients = vec![(id, Arc::clone(&sub))];
                let built = api
                    .read_background(move |ctx| notify::finalized(ctx, mc, &clients))
                    .await;
                let texts = match built {
                    Some(Ok(outbox)) => outbox.into_iter().flat_map(|(_, t)| t).map(Arc::from),
                    failed => {
                        if let Some(Err(e)) = failed {
                            tracing::warn!(mc_seqno = mc, client = id, error = ?e, "a replayed block's notifications could not be built");
                        }
                        hub.end(id, &cut, Cut {
                            missed_from: mc,
                            kind: "stream_error",
                            why: format!("masterchain block {mc} could not be replayed: its stream ends here"),
                        });
                        return;
                    }
                };
                let batch: Batch = texts.collect();
                // The client reads at its own pace; it is gone when this fails.
                if !batch.is_empty() && tx.send(batch).await.is_err() {
                    return;
                }
            }
        });
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Hub {
    /// A hub; `live` when new masterchain blocks reach this process.
    pub fn new(live: bool) -> Self {
        Self {
            clients: Mutex::new(Clients::default()),
            next_id: AtomicU64::new(1),
            live,
            newest_mc_time: AtomicU64::new(0),
        }
    }

    pub fn live(&self) -> bool {
        self.live
    }

    /// The `gen_utime` of the newest masterchain block announced (0: none yet).
    pub fn newest_mc_time(&self) -> u64 {
        self.newest_mc_time.load(Ordering::Relaxed)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Clients> {
        lock(&self.clients)
    }

    /// Adds a client with its subscription.
    pub fn register(self: &Arc<Self>, sub: Subscription) -> Client {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(QUEUE);
        let cut = Arc::new(Mutex::new(None));
        let mut state = self.state();
        state.slots.insert(
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
            replay: None,
            ready: Default::default(),
            built: state.built,
            cut,
            hub: Arc::clone(self),
        }
    }

    /// Replaces a client's subscription.
    pub fn update(&self, id: u64, sub: Subscription) {
        if let Some(slot) = self.state().slots.get_mut(&id) {
            slot.sub = Arc::new(sub);
        }
    }

    fn remove(&self, id: u64) {
        self.state().slots.remove(&id);
    }

    /// Where a client that misses something now resumes: the block after
    /// the newest built (pending data is not replayed).
    fn next_block(&self) -> u32 {
        self.state().built.map_or(0, |b| b.saturating_add(1))
    }

    /// Clients now subscribed.
    pub fn clients(&self) -> usize {
        self.state().slots.len()
    }

    /// The clients to build masterchain block `mc` for; from now on a
    /// client that registers replays `mc` rather than hearing it live.
    fn snapshot_for(&self, mc: u32) -> Vec<(u64, Arc<Subscription>)> {
        let mut state = self.state();
        state.built = Some(state.built.map_or(mc, |b| b.max(mc)));
        state
            .slots
            .iter()
            .map(|(id, s)| (*id, Arc::clone(&s.sub)))
            .collect()
    }

    /// The clients to send an emulated trace to.
    fn snapshot(&self) -> Vec<(u64, Arc<Subscription>)> {
        self.state()
            .slots
            .iter()
            .map(|(id, s)| (*id, Arc::clone(&s.sub)))
            .collect()
    }

    /// Queues a block's notifications; a client whose queue is full is cut off.
    fn deliver(&self, outbox: notify::Outbox, mc_seqno: u32) {
        let mut state = self.state();
        for (id, texts) in outbox {
            let Some(slot) = state.slots.get(&id) else {
                continue;
            };
            if texts.is_empty() {
                continue;
            }
            let batch: Batch = texts.into_iter().map(Arc::from).collect();
            if slot.tx.try_send(batch).is_err() {
                cut_off(&mut state.slots, id, overflow(mc_seqno));
            }
        }
    }

    /// Queues an emulated trace's notifications and notes who got them.
    fn deliver_pending(&self, outbox: notify::Outbox, next_mc: u32, key: String) {
        let ids: Vec<u64> = outbox
            .iter()
            .filter(|(_, texts)| !texts.is_empty())
            .map(|(id, _)| *id)
            .collect();
        self.deliver(outbox, next_mc);
        let mut state = self.state();
        // Kept past the pending store's own time, then forgotten.
        let horizon = 2 * crate::api::pending::PENDING_TTL;
        state
            .pending_sent
            .retain(|_, (at, _)| at.elapsed() < horizon);
        if !ids.is_empty() {
            let entry = state
                .pending_sent
                .entry(key)
                .or_insert_with(|| (std::time::Instant::now(), Vec::new()));
            entry.1.extend(ids);
        }
    }

    /// Tells the clients that got an emulated trace that it did not come
    /// true (`trace_invalidated`); a client whose queue is full is cut off.
    fn invalidate(&self, key: &str, next_mc: u32) {
        let mut state = self.state();
        let Some((_, ids)) = state.pending_sent.remove(key) else {
            return;
        };
        let text: Arc<str> = Arc::from(
            serde_json::json!({"type": "trace_invalidated", "trace_external_hash_norm": key})
                .to_string(),
        );
        for id in ids {
            let Some(slot) = state.slots.get(&id) else {
                continue;
            };
            if slot.tx.try_send(vec![Arc::clone(&text)]).is_err() {
                cut_off(&mut state.slots, id, overflow(next_mc));
            }
        }
    }

    /// Ends one client's stream with `cut`.
    fn end(&self, id: u64, cut: &Mutex<Option<Cut>>, why: Cut) {
        lock(cut).get_or_insert(why);
        self.state().slots.remove(&id);
    }

    /// Cuts off every client: the hub itself missed blocks.
    fn cut_all(&self, mc_seqno: u32) {
        let mut state = self.state();
        let ids: Vec<u64> = state.slots.keys().copied().collect();
        for id in ids {
            cut_off(&mut state.slots, id, overflow(mc_seqno));
        }
    }
}

fn overflow(mc_seqno: u32) -> Cut {
    Cut {
        missed_from: mc_seqno,
        kind: "stream_overflow",
        why: format!(
            "the client did not keep up ({QUEUE} blocks' notifications waiting): its stream ends \
             here; what masterchain block {mc_seqno} and later committed was not sent \
             (subscribe again with \"since\": {mc_seqno} to replay it)"
        ),
    }
}

fn cut_off(slots: &mut HashMap<u64, Slot>, id: u64, cut: Cut) {
    if let Some(slot) = slots.remove(&id) {
        tracing::warn!(
            client = id,
            mc_seqno = cut.missed_from,
            "a streaming client did not keep up and was cut off"
        );
        lock(&slot.cut).get_or_insert(cut);
    }
}

/// Builds and hands out the notifications of masterchain blocks in order.
struct Builder {
    api: Weak<Api>,
    /// The newest block built.
    last: Option<u32>,
}

impl Builder {
    /// Starts after the newest masterchain block whose traces the index
    /// holds now (a later one is built as the first live block).
    async fn start(api: Weak<Api>) -> Self {
        let mut last = None;
        if let Some(a) = api.upgrade() {
            last = a
                .read_background(|ctx| complete_through(&ctx.reader))
                .await
                .flatten();
            if let Some(mc) = last {
                a.streams().snapshot_for(mc);
                // Health names the newest block the streams start from, not
                // 0, while no newer one has come (a follower of a writer
                // that has stopped).
                if let Some(t) = commit_time(&a, mc).await {
                    a.streams().newest_mc_time.fetch_max(t, Ordering::Relaxed);
                }
            }
        }
        Self { api, last }
    }

    /// Builds every block after the last one built, through `through`.
    /// `false` once the API is gone.
    async fn build_through(&mut self, through: u32) -> bool {
        let first = self.last.map_or(through, |l| l.saturating_add(1));
        for mc in first..=through {
            let Some(api) = self.api.upgrade() else {
                return false;
            };
            let hub = Arc::clone(api.streams());
            if let Some(t) = commit_time(&api, mc).await {
                hub.newest_mc_time.fetch_max(t, Ordering::Relaxed);
            }
            let clients = hub.snapshot_for(mc);
            self.last = Some(mc);
            if clients.is_empty() {
                continue;
            }
            let built = api
                .read_background(move |ctx| notify::finalized(ctx, mc, &clients))
                .await;
            hand_out(&hub, built, mc);
        }
        true
    }
}

/// Follows `commits` for `api`'s hub until the feed closes or the API is
/// gone. A masterchain block is built once its traces are written (the
/// commit after its unit's, which carries them) or, without
/// transactions, at once.
pub fn spawn(api: Weak<Api>, mut commits: broadcast::Receiver<Arc<Committed>>) {
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        let mut builder = Builder::start(api.clone()).await;
        // A block committed whose traces are still to come.
        let mut waiting: Option<u32> = None;
        loop {
            let commit = match commits.recv().await {
                Ok(c) => c,
                Err(RecvError::Lagged(n)) => {
                    let Some(api) = api.upgrade() else { break };
                    tracing::warn!(
                        missed_commits = n,
                        "the streams fell behind the commit feed"
                    );
                    let next = builder.last.map_or(0, |l| l.saturating_add(1));
                    api.streams().cut_all(next);
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let mut ready = None;
            match commit.mc_seqno {
                Some(mc) => {
                    ready = waiting.take();
                    if commit.transactions.is_empty() {
                        ready = Some(mc);
                    } else {
                        waiting = Some(mc);
                    }
                }
                // A unit's traces; shard blocks stored ahead of their
                // masterchain block carry blocks and wait for it; refused
                // messages are the pending traces' business.
                None if commit.blocks.is_empty() && commit.dropped_externals.is_empty() => {
                    ready = waiting.take()
                }
                None => {}
            }
            let Some(through) = ready else { continue };
            if builder.last.is_some_and(|l| l >= through) {
                continue;
            }
            if !builder.build_through(through).await {
                break;
            }
        }
    });
}

/// For `serve`: builds each masterchain block whose traces the writer
/// (another process) has written, as the database catches up with it.
pub fn spawn_catching_up(api: Weak<Api>, every: std::time::Duration) {
    tokio::spawn(async move {
        let mut builder = Builder::start(api.clone()).await;
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            let Some(a) = api.upgrade() else { break };
            let ready = a
                .read_background(|ctx| complete_through(&ctx.reader))
                .await
                .flatten();
            drop(a);
            let Some(through) = ready else { continue };
            if builder.last.is_some_and(|l| l >= through) {
                continue;
            }
            if !builder.build_through(through).await {
                break;
            }
        }
    });
}

/// The newest masterchain block whose traces are written too: the newest
/// one, unless the writer's last unit still waits for its traces.
fn complete_through(r: &tonindex_storage::Reader<'_>) -> Option<u32> {
    let newest = newest_mc(r)?;
    let marks = r.unassembled().and_then(|u| Ok((u, r.unclassified()?)));
    let (unassembled, unclassified) = match marks {
        Ok(marks) => marks,
        Err(e) => {
            tracing::warn!(error = %e, "streams: cannot read whether the newest traces are written");
            return None;
        }
    };
    let settled = unassembled.is_none() && unclassified.is_empty();
    if settled {
        Some(newest)
    } else {
        newest.checked_sub(1)
    }
}

/// The newest masterchain block the index holds.
fn newest_mc(r: &tonindex_storage::Reader<'_>) -> Option<u32> {
    match crate::query::blocks::mc_block_range(r) {
        Ok(range) => range.map(|(_, last)| last.id.id.seqno),
        Err(e) => {
            tracing::warn!(error = %e, "streams: cannot read the newest masterchain block");
            None
        }
    }
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

/// Receives `feed` until it closes or the API is gone, handing each item
/// to `each` with the API, its hub and the next masterchain block. Items
/// the streams fell behind on (logged as `what`) were missed by every
/// client, which is cut off with its resume point.
fn follow<T, Fut>(
    api: Weak<Api>,
    mut feed: broadcast::Receiver<T>,
    what: &'static str,
    each: impl Fn(Arc<Api>, Arc<Hub>, u32, T) -> Fut + Send + 'static,
) where
    T: Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let received = feed.recv().await;
            let Some(api) = api.upgrade() else { break };
            let hub = Arc::clone(api.streams());
            let next_mc = hub.next_block();
            match received {
                Ok(item) => each(api, hub, next_mc, item).await,
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "the streams fell behind {what}");
                    hub.cut_all(next_mc);
                }
                Err(RecvError::Closed) => break,
            }
        }
    });
}

/// Follows the traces emulated for accepted messages: the `pending` level.
pub fn spawn_pending(api: Weak<Api>, added: broadcast::Receiver<Arc<PendingTrace>>) {
    let each = |api: Arc<Api>, hub: Arc<Hub>, next_mc, trace: Arc<PendingTrace>| async move {
        let clients = hub.snapshot();
        if clients.is_empty() {
            return;
        }
        let key = notify::trace_key(&trace.trace);
        let built = api
            .read_background(move |ctx| notify::pending_notifications(ctx, &trace, &clients))
            .await;
        match built {
            Some(Ok(outbox)) => hub.deliver_pending(outbox, next_mc, key),
            other => hand_out(&hub, other, next_mc),
        }
    };
    follow(api, added, "the pending traces", each);
}

/// Follows the shard blocks a chain announces before their commit: the
/// accounts they change, at `confirmed` (their traces reach the streams
/// through the pending store).
pub fn spawn_confirmed_states(api: Weak<Api>, confirmed: broadcast::Receiver<ConfirmedRound>) {
    let each = |api: Arc<Api>, hub: Arc<Hub>, next_mc, round: ConfirmedRound| async move {
        let clients = hub.snapshot();
        if round.states.is_empty() || clients.is_empty() {
            return;
        }
        let built = api
            .read_background(move |ctx| notify::confirmed_states(ctx, &round, &clients))
            .await;
        hand_out(&hub, built, next_mc);
    };
    follow(api, confirmed, "the confirmed shard blocks", each);
}

/// Follows the emulated traces that did not come true: each client that
/// heard one at `pending` hears `trace_invalidated` (never after
/// `finalized`: a trace whose real one was committed is not invalidated).
pub fn spawn_invalidated(api: Weak<Api>, gone: broadcast::Receiver<Arc<PendingTrace>>) {
    let each = |_: Arc<Api>, hub: Arc<Hub>, next_mc, trace: Arc<PendingTrace>| async move {
        hub.invalidate(&notify::trace_key(&trace.trace), next_mc);
    };
    follow(api, gone, "the invalidated traces", each);
}

/// The `gen_utime` of masterchain block `seqno`.
async fn commit_time(api: &Arc<Api>, seqno: u32) -> Option<u64> {
    api.read_background(move |ctx| {
        crate::query::blocks::mc_block(&ctx.reader, seqno)
            .ok()
            .flatten()
            .map(|b| u64::from(b.gen_utime))
    })
    .await
    .flatten()
}
