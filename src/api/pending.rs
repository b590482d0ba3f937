//! Pending traces: what an accepted external message will do, emulated on
//! the current state when it is sent (the chain's executor, the index's
//! assembler and classifier), held in memory until its real trace is
//! committed (the commit feed says so), its message is refused (the
//! devnet says so) or its time is up — the last two announced as
//! invalidated (the streams' `trace_invalidated`). This is what
//! toncenter's trace emulator and Redis do for `/pendingTraces`,
//! `/pendingActions` and `/pendingTransactions`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tonindex_model::{ActionRecord, Address, BlockId, Hash, TraceRecord};
use tycho_types::cell::Cell;

use crate::chain::link::Emulated;
use crate::decode::message::MessageContents;
use crate::decode::transaction::decode_transaction;
use crate::index::feed::Committed;
use crate::query::messages::Message;
use crate::query::transactions::FullTx;
use crate::trace::assembly::Assembly;
use crate::trace::classify;
use crate::trace::trace_tx;
use crate::tvm::emulate::message_destination;

/// How long an emulated trace is shown when its real one never comes.
pub const PENDING_TTL: Duration = Duration::from_secs(120);

/// How often traces whose time is up are looked for.
pub const SWEEP: Duration = Duration::from_secs(5);

/// How far a trace not yet committed has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Emulated from a message the node accepted: no block holds it yet.
    Emulated,
    /// In shard blocks no masterchain block has committed yet.
    Confirmed,
}

impl Level {
    /// v3's `finality` of what is at this level.
    pub fn finality(self) -> &'static str {
        match self {
            Level::Emulated => "pending",
            Level::Confirmed => "confirmed",
        }
    }
}

/// One trace not committed yet: emulated, or confirmed.
pub struct PendingTrace {
    pub created: Instant,
    pub level: Level,
    pub trace: TraceRecord,
    /// Its transactions in execution order, as the index would hold them.
    pub txs: Vec<FullTx>,
    pub actions: Vec<ActionRecord>,
    pub accounts: HashSet<Address>,
}

impl PendingTrace {
    /// Whether it answers a lookup by external message hash (or its TEP-467 form).
    pub fn has_external(&self, h: &Hash) -> bool {
        self.trace.external_hash.as_ref() == Some(h)
            || self.trace.external_hash_norm.as_ref() == Some(h)
    }
}

/// The emulated traces of one process.
pub struct PendingTraces {
    traces: Mutex<Vec<Arc<PendingTrace>>>,
    ttl: Duration,
    /// Each trace kept, as it is kept (the streams' `pending` level).
    added: tokio::sync::broadcast::Sender<Arc<PendingTrace>>,
    /// Each trace dropped without its real one committed.
    invalidated: tokio::sync::broadcast::Sender<Arc<PendingTrace>>,
}

impl PendingTraces {
    pub fn new(ttl: Duration) -> Self {
        Self {
            traces: Mutex::new(Vec::new()),
            ttl,
            added: tokio::sync::broadcast::channel(1024).0,
            invalidated: tokio::sync::broadcast::channel(1024).0,
        }
    }

    /// Follows every trace dropped without its real one committed.
    pub fn subscribe_invalidated(&self) -> tokio::sync::broadcast::Receiver<Arc<PendingTrace>> {
        self.invalidated.subscribe()
    }

    /// Removes the traces `gone` selects; announces those `invalid` says
    /// did not come true.
    fn drop_where(
        &self,
        gone: impl Fn(&PendingTrace) -> bool,
        invalid: impl Fn(&PendingTrace) -> bool,
    ) {
        let Ok(mut all) = self.traces.lock() else {
            return;
        };
        let mut dropped = Vec::new();
        all.retain(|t| {
            let keep = !gone(t);
            if !keep && invalid(t) {
                dropped.push(Arc::clone(t));
            }
            keep
        });
        drop(all);
        for t in dropped {
            tracing::debug!(
                external = %crate::api::encoding::b64(&t.trace.external_hash.unwrap_or_default()),
                "an emulated trace did not come true"
            );
            // Nobody following is fine.
            let _ = self.invalidated.send(t);
        }
    }

    /// Drops (and announces) the traces whose time is up.
    pub fn expire(&self) {
        let ttl = self.ttl;
        self.drop_where(|t| t.created.elapsed() >= ttl, |_| true);
    }

    /// Follows every trace kept from now on.
    pub fn subscribe_added(&self) -> tokio::sync::broadcast::Receiver<Arc<PendingTrace>> {
        self.added.subscribe()
    }

    /// Builds a trace from emulated transaction cells (the external
    /// message's transaction first) and keeps it.
    /// `version` is the global version the chain runs (how message headers read).
    pub fn add_emulated(
        &self,
        emulated: &Emulated,
        hash_norm: Hash,
        version: u32,
        interfaces: &dyn classify::Interfaces,
    ) -> Result<(), String> {
        self.keep(build_emulated(emulated, hash_norm, version, interfaces)?)
    }

    /// Builds a confirmed trace (its transactions in shard blocks no
    /// masterchain block commits yet) and keeps it in place of the
    /// emulated one of its message.
    ///
    /// `next_mc` is the masterchain block after the newest the index holds:
    /// the soonest that can commit these shard blocks, which their
    /// transactions name as toncenter's do.
    pub fn add_confirmed(
        &self,
        confirmed: &crate::chain::link::ConfirmedTrace,
        next_mc: Option<u32>,
        version: u32,
        interfaces: &dyn classify::Interfaces,
    ) -> Result<(), String> {
        let txs: Vec<(&Cell, Option<BlockId>)> =
            confirmed.txs.iter().map(|(c, b)| (c, Some(*b))).collect();
        let trace = build(
            &txs,
            (&[], next_mc),
            confirmed.external_hash_norm,
            version,
            interfaces,
            Level::Confirmed,
        )?;
        self.keep(trace)
    }

    fn keep(&self, trace: PendingTrace) -> Result<(), String> {
        let trace = Arc::new(trace);
        let mut all = self.traces.lock().map_err(|_| "poisoned")?;
        all.retain(|t| t.trace.external_hash != trace.trace.external_hash);
        all.push(Arc::clone(&trace));
        drop(all);
        // Nobody following is fine.
        let _ = self.added.send(trace);
        Ok(())
    }

    /// Drops the traces whose external message's real trace a commit
    /// wrote, and (announced) those whose message was refused.
    pub fn evict(&self, committed: &Committed) {
        let landed: HashSet<Hash> = committed.traced_in_msgs.iter().copied().collect();
        let refused: HashSet<Hash> = committed.dropped_externals.iter().copied().collect();
        let of = |t: &PendingTrace, set: &HashSet<Hash>| {
            t.trace.external_hash.is_some_and(|h| set.contains(&h))
        };
        self.drop_where(|t| of(t, &landed) || of(t, &refused), |t| !of(t, &landed));
    }

    /// The live traces that `keep` selects.
    pub fn select(&self, keep: impl Fn(&PendingTrace) -> bool) -> Vec<Arc<PendingTrace>> {
        self.expire();
        let Ok(all) = self.traces.lock() else {
            return Vec::new();
        };
        all.iter().filter(|t| keep(t)).cloned().collect()
    }
}

/// Keeps each trace `confirmed` announces in `store`, built against what
/// `db` holds (the global version, the token tables' contract roles).
pub fn spawn_confirmed(
    db: Arc<tonindex_storage::Db>,
    store: Arc<PendingTraces>,
    mut confirmed: tokio::sync::broadcast::Receiver<crate::chain::link::ConfirmedRound>,
) {
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let round = match confirmed.recv().await {
                Ok(r) => r,
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(rounds = n, "confirmed traces were missed (not shown)");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let (db, store) = (Arc::clone(&db), Arc::clone(&store));
            let kept = tokio::task::spawn_blocking(move || {
                let reader = db.reader();
                let newest = crate::query::blocks::mc_block_range(&reader)
                    .ok()
                    .flatten()
                    .map(|(_, last)| last);
                let version = newest.as_ref().map_or(0, |b| b.gen_software_version);
                let next_mc = newest.map(|b| b.id.id.seqno.saturating_add(1));
                let interfaces = crate::query::tokens::StoredInterfaces(&reader);
                for t in round.traces.iter() {
                    // A follower may see a shard block only after its
                    // commit: a trace already final is not shown again
                    // at a lower level.
                    let root = t.txs.first().map(|(c, _)| c.repr_hash().0);
                    if root.is_some_and(|h| {
                        crate::query::transactions::tx_id_by_hash(&reader, &h)
                            .ok()
                            .flatten()
                            .is_some()
                    }) {
                        continue;
                    }
                    if let Err(e) = store.add_confirmed(t, next_mc, version, &interfaces) {
                        tracing::warn!(
                            external = %crate::api::encoding::b64(&t.external_hash_norm),
                            "a confirmed trace could not be kept: {e}"
                        );
                    }
                }
            })
            .await;
            if let Err(e) = kept {
                tracing::error!(error = %e, "keeping confirmed traces panicked");
            }
        }
    });
}

/// An emulated trace (its transaction cells, the external message's
/// first) as the pending store keeps it, and Emulate API v1 shows it.
pub fn build_emulated(
    emulated: &Emulated,
    hash_norm: Hash,
    version: u32,
    interfaces: &dyn classify::Interfaces,
) -> Result<PendingTrace, String> {
    let txs: Vec<(&Cell, Option<BlockId>)> = emulated.txs.iter().map(|c| (c, None)).collect();
    // The masterchain block the emulation ran on, as toncenter's emulator
    // names it.
    let mc = emulated
        .bases
        .iter()
        .find(|b| b.workchain == -1)
        .map(|b| b.seqno);
    build(
        &txs,
        (&emulated.bases, mc),
        hash_norm,
        version,
        interfaces,
        Level::Emulated,
    )
}

/// Transactions (emulated, or from shard blocks) → records, trace and
/// actions. A transaction from a shard block is in that block; an
/// emulated one names the block whose state its emulation started from
/// (of `bases`), as toncenter's emulator does. Both name the masterchain
/// block `mc` (the one emulated on; the next, for shard blocks no
/// masterchain block commits yet).
fn build(
    cells: &[(&Cell, Option<BlockId>)],
    (bases, mc): (&[BlockId], Option<u32>),
    hash_norm: Hash,
    version: u32,
    interfaces: &dyn classify::Interfaces,
    level: Level,
) -> Result<PendingTrace, String> {
    let mut txs = Vec::new();
    let mut trace_txs = Vec::new();
    for &(cell, in_block) in cells {
        let tx: tycho_types::models::Transaction = cell.parse().map_err(|e| e.to_string())?;
        let in_msg = tx
            .in_msg
            .as_ref()
            .ok_or("an emulated transaction without a message")?;
        let (dst, _) = message_destination(in_msg).map_err(|e| e.to_string())?;
        let workchain = i32::from(dst.workchain);
        let block = match in_block {
            Some(block) => block,
            None => {
                let account = Address {
                    workchain,
                    id: dst.address.0,
                };
                Emulated::base_of(bases, &account).ok_or_else(|| {
                    format!(
                        "no block the emulation started from holds {workchain}:{}",
                        hex::encode(account.id)
                    )
                })?
            }
        };
        let d =
            decode_transaction(cell, workchain, block, mc, version).map_err(|e| e.to_string())?;
        let mut t = trace_tx(&d.record, d.in_msg.as_ref(), &d.out_msgs, None);
        t.fill_bodies(d.msg_contents.iter().map(Some));
        let message = |rec: &tonindex_model::MessageRecord, c: &MessageContents| Message {
            record: rec.clone(),
            contents: c.clone(),
        };
        let mut contents = d.msg_contents.iter();
        let in_full = match &d.in_msg {
            Some(m) => Some(message(m, contents.next().ok_or("message contents")?)),
            None => None,
        };
        let out_full: Vec<_> = d
            .out_msgs
            .iter()
            .zip(contents)
            .map(|(m, c)| message(m, c))
            .collect();
        txs.push(FullTx {
            tx: d.record.clone(),
            in_msg: in_full,
            out_msgs: out_full,
            boc: d.boc.clone(),
            trace_id: None,
            trace_external_hash: None,
        });
        trace_txs.push(t);
    }
    let mut asm = Assembly::new(Default::default(), Default::default(), Vec::new());
    let mut ids = Vec::new();
    for t in &trace_txs {
        ids.push(asm.add(t));
    }
    let changes = asm.finish();
    let mut trace = changes
        .traces
        .into_iter()
        .find(|t| Some(t.trace_id) == ids.first().copied())
        .ok_or("no trace assembled")?;
    trace.external_hash_norm = Some(hash_norm);
    let in_trace: Vec<_> = trace_txs
        .iter()
        .zip(&ids)
        .filter(|(_, id)| **id == trace.trace_id)
        .map(|(t, _)| t.clone())
        .collect();
    let actions = classify::classify(&trace, &in_trace, interfaces).unwrap_or_default();
    trace.classification = tonindex_model::ClassificationState::Ok;
    for t in &mut txs {
        t.trace_id = Some(trace.trace_id);
        t.trace_external_hash = trace.external_hash;
    }
    let accounts = txs.iter().map(|t| t.tx.account).collect();
    Ok(PendingTrace {
        created: Instant::now(),
        level,
        trace,
        txs,
        actions,
        accounts,
    })
}
