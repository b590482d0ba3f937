//! Traces in the index step. A unit's transactions are assembled into
//! traces over what earlier units left pending, every trace they settle
//! (all its messages delivered) is listed by account and lt, and the
//! complete ones are classified into actions, in a batch of their own:
//! beside the next unit's work and committed before it (`Deferred`), or
//! at once when no unit follows. The batch that commits a unit names its
//! transactions as not assembled yet, and the batch of their traces clears
//! that, so a restart (even kill -9) between two blocks of one trace
//! resumes from exactly what was committed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use tonindex_model::{
    ActionRecord, Address, ClassificationState, Hash, MessageRecord, TraceRecord, TraceState,
};
use tonindex_storage::tables::{
    hash_tag, AccountLtTagKey, AccountNumbers, ActionByAccount, ActionByAccountType,
    ActionByAccountUtime, ActionById, ActionByType, Actions, HashMsgKey, LtTagKey, McLtTagKey,
    TagPairKey, TraceByAccount, TraceByAccountUtime, TraceByEndLt, TraceByEndUtime, TraceByMcBlock,
    TraceEdges, TraceOrphans, Traces, TypeEndKey,
};
use tonindex_storage::{Db, EncodedRows};

use super::{IndexError, NewBlock, RowEncoding, Step, StepClock};
use crate::decode::message::{message_contents, MessageContents};
use crate::trace::assembly::Assembly;
use crate::trace::classify::{self, Interfaces};
use crate::trace::{trace_tx, TraceTx};

/// What the last committed unit leaves to the next: its transactions,
/// whose traces are assembled (and the complete ones classified) beside
/// the next unit's work and written in a batch of their own, committed
/// before that unit's. The writer then waits for them only where they
/// outlast that work; assembled beside the unit's own states and
/// contracts, they kept the writer waiting on units that change few
/// states, and written in the next unit's batch, their rows lengthened the
/// writer's commit. Assembly reads the trace tables and
/// the stored transactions as the unit's commit left them (only this step
/// writes the trace tables), so the traces are those assembling within the
/// unit would give; the unit's batch names its transactions
/// ([`tonindex_storage::Batch::put_unassembled`]), so a restart reads them
/// back from the database.
#[derive(Default)]
pub(super) struct Deferred {
    /// The unit's transactions (bodies in) with their tx ids, in assembly
    /// order.
    txs: Vec<(TraceTx, u64)>,
    /// Complete traces that a database written by an earlier build lists as
    /// not classified.
    unclassified: Vec<Unclassified>,
}

impl Deferred {
    /// A unit's new transactions, with the bodies classification reads
    /// (the cells decoding kept: shared, not copied).
    pub(super) fn of_unit(blocks: &[NewBlock<'_>]) -> Self {
        let mut txs = Vec::with_capacity(blocks.iter().map(|b| b.block.transactions.len()).sum());
        for b in blocks {
            for (i, tx) in b.block.transactions.iter().enumerate() {
                let mut t = trace_tx(&tx.record, tx.in_msg.as_ref(), &tx.out_msgs, b.mc_seqno);
                t.fill_bodies(tx.msg_contents.iter().map(Some));
                txs.push((t, b.first_tx_id + i as u64));
            }
        }
        txs.sort_by_key(|(t, _)| t.order_key());
        Self {
            txs,
            unclassified: Vec::new(),
        }
    }

    /// Whether there is nothing to do.
    pub(super) fn is_empty(&self) -> bool {
        self.txs.is_empty() && self.unclassified.is_empty()
    }

    /// The tx ids the batch names (the first, and the one after the last:
    /// a unit's ids are consecutive); `None` without transactions.
    pub(super) fn tx_range(&self) -> Option<(u64, u64)> {
        let first = self.txs.iter().map(|(_, id)| *id).min()?;
        let last = self.txs.iter().map(|(_, id)| *id).max()?;
        Some((first, last + 1))
    }

    /// What the database says the last committed unit left: its
    /// transactions read back, and the complete traces an earlier build
    /// left unclassified.
    pub(super) fn load(db: &Db) -> Result<Self, IndexError> {
        let reader = db.reader();
        let mut txs = match reader.unassembled()? {
            Some((first, end)) => {
                stored_trace_txs(&reader, (first..end).collect(), &HashSet::new())?
            }
            None => Vec::new(),
        };
        txs.sort_by_key(|(t, _)| t.order_key());
        Ok(Self {
            txs,
            unclassified: load_unclassified(db)?,
        })
    }
}

/// A deferred unit's traces and actions, for the batch of their own that
/// writes them.
#[derive(Default)]
pub(super) struct TraceWork {
    /// The trace rows, then the classified traces' actions and records.
    pub rows: EncodedRows,
    /// Traces settled (every message delivered).
    pub settled: Vec<Hash>,
    /// Complete traces classified.
    pub classified: Vec<Hash>,
    /// In-message hashes of the transactions assembled: emulated traces
    /// give way to them.
    pub traced_in_msgs: Vec<Hash>,
    /// What [`PendingTxs`] learns once the batch is committed.
    pub pending: PendingUpdate,
    /// Whether the database names a unit as not assembled, or lists
    /// unclassified traces: the batch clears them.
    pub clears_unassembled: bool,
    pub clears_unclassified: bool,
}

impl TraceWork {
    /// Assembles the deferred unit's traces (`assemble`) and classifies
    /// the complete ones (`classify`).
    pub(super) fn run(
        deferred: Deferred,
        assemble: impl FnOnce(&[(TraceTx, u64)]) -> Result<UnitTraces, IndexError>,
        classify: impl FnOnce(Vec<Unclassified>) -> Result<Classified, IndexError>,
    ) -> Result<Self, IndexError> {
        let Deferred { txs, unclassified } = deferred;
        let clears_unclassified = !unclassified.is_empty();
        let unit = if txs.is_empty() {
            UnitTraces::default()
        } else {
            assemble(&txs)?
        };
        let mut todo = unclassified;
        todo.extend(unit.complete);
        let classified = classify(todo)?;
        let mut rows = unit.rows;
        for r in classified.rows {
            rows.extend(r);
        }
        Ok(Self {
            rows,
            settled: unit.settled,
            classified: classified.traces,
            traced_in_msgs: txs
                .iter()
                .filter_map(|(t, _)| Some(t.in_msg.as_ref()?.hash))
                .collect(),
            pending: unit.pending,
            clears_unassembled: !txs.is_empty(),
            clears_unclassified,
        })
    }
}

/// What assembly decided for a unit's transactions.
#[derive(Default)]
pub(super) struct UnitTraces {
    /// The rows of the traces, edges, orphans and listings the unit
    /// changes, for its batch.
    pub rows: EncodedRows,
    /// Traces the unit settled (for the commit feed).
    pub settled: Vec<Hash>,
    /// What [`PendingTxs`] learns once the batch writing these rows is committed.
    pub pending: PendingUpdate,
    /// The complete traces it settled, to classify in the same batch
    /// (their records are not in `rows`: classifying writes them).
    pub complete: Vec<Unclassified>,
}

/// A complete trace whose actions are not written yet, with its
/// transactions as classification reads them (bodies decoded): classified
/// in the batch that settles it, against the database its unit's commit
/// left (see [`Deferred`]).
pub(super) struct Unclassified {
    trace: TraceRecord,
    txs: Vec<TraceTx>,
}

/// The rows of classified traces, for the batch that writes them.
#[derive(Default)]
pub(super) struct Classified {
    /// Each trace's actions and its record, now classified.
    pub rows: Vec<EncodedRows>,
    /// Their ids (for the commit feed).
    pub traces: Vec<Hash>,
}

/// Classifies complete traces (on `pool` when there is one) into the rows
/// of their actions and records. The actions' rows name accounts by their
/// numbers ([`tonindex_storage::StoredAction`]), read in one batch for all the traces.
pub(super) fn classify_traces(
    db: &Db,
    todo: Vec<Unclassified>,
    interfaces: &(dyn Interfaces + Sync),
    pool: Option<&rayon::ThreadPool>,
) -> Result<Classified, IndexError> {
    let one = |u: Unclassified| -> (TraceRecord, Vec<ActionRecord>) {
        let mut trace = u.trace;
        let actions = classify::classify(&trace, &u.txs, interfaces);
        trace.classification = match &actions {
            Ok(_) => ClassificationState::Ok,
            Err(_) => ClassificationState::Failed,
        };
        (trace, actions.unwrap_or_default())
    };
    let parallel = |n: usize| pool.is_some() && n >= 2;
    let done: Vec<(TraceRecord, Vec<ActionRecord>)> = match pool {
        Some(pool) if parallel(todo.len()) => {
            pool.install(|| todo.into_par_iter().map(one).collect())
        }
        _ => todo.into_iter().map(one).collect(),
    };
    let mut accounts: Vec<Address> = done
        .iter()
        .flat_map(|(_, actions)| actions.iter().flat_map(action_accounts))
        .collect();
    accounts.sort_unstable();
    accounts.dedup();
    let found = db.reader().multi_get::<AccountNumbers>(&accounts)?;
    let numbers: HashMap<Address, u64> = accounts
        .into_iter()
        .zip(found)
        .filter_map(|(a, n)| Some((a, n?)))
        .collect();
    let encode = |(trace, actions): &(TraceRecord, Vec<ActionRecord>)| -> EncodedRows {
        let mut rows = EncodedRows::default();
        // An account in several of the trace's actions is listed once:
        // its row's key names the trace, not the action.
        let mut listed = Listed::default();
        for action in actions {
            write_action(&mut rows, trace, action, &numbers, &mut listed);
        }
        rows.put::<Traces>(&trace.trace_id, trace);
        rows
    };
    let rows: Vec<EncodedRows> = match pool {
        Some(pool) if parallel(done.len()) => {
            pool.install(|| done.par_iter().map(encode).collect())
        }
        _ => done.iter().map(encode).collect(),
    };
    Ok(Classified {
        rows,
        traces: done.into_iter().map(|(t, _)| t.trace_id).collect(),
    })
}

/// Every account field of an action (its listed accounts and the
/// source, destination and asset columns).
fn action_accounts(a: &ActionRecord) -> impl Iterator<Item = Address> + '_ {
    let singles = [
        a.source,
        a.source_secondary,
        a.destination,
        a.destination_secondary,
        a.asset,
        a.asset_secondary,
    ];
    a.accounts
        .iter()
        .copied()
        .chain(singles.into_iter().flatten())
}

/// The complete traces that the database lists as not classified yet
/// (left by an earlier build, see [`Deferred`]), with their stored
/// transactions.
fn load_unclassified(db: &Db) -> Result<Vec<Unclassified>, IndexError> {
    let reader = db.reader();
    let ids = reader.unclassified()?;
    let mut out = Vec::with_capacity(ids.len());
    for (id, trace) in ids.iter().zip(reader.multi_get::<Traces>(&ids)?) {
        let Some(trace) = trace else {
            tracing::error!(trace = %hex::encode(id), "an unclassified trace is missing");
            return Err(
                tonindex_storage::Error::Corrupt("an unclassified trace is missing").into(),
            );
        };
        if trace.state != TraceState::Complete
            || trace.classification != ClassificationState::Unclassified
        {
            continue;
        }
        let mut txs = stored_transactions(db, &trace.tx_ids, &[])?;
        txs.sort_by_key(TraceTx::order_key);
        out.push(Unclassified { trace, txs });
    }
    Ok(out)
}

/// The transactions of traces that earlier units left pending, as
/// classification reads them (bodies decoded), kept by the writer: a trace
/// that spans units is settled from them instead of reading its stored
/// transactions back and decoding their BoCs again, which cost more than
/// classifying it (100-200 µs a trace) on the writer's path. An entry holds
/// every transaction stored under its trace id, or is absent: a restart
/// starts empty, and a miss reads the database as before. Only
/// transactions whose trace rows are committed enter it (`PendingUpdate`
/// is applied after the commit of the batch that writes them). Bounded by the memory it takes (estimated: the structs and the
/// cells of the bodies); the oldest entries go first (traces that never
/// settle, or whose messages leave the index).
pub struct PendingTxs {
    /// By trace id: when it was held (for eviction) and its transactions.
    entries: HashMap<Hash, (u64, Chunks)>,
    /// Insertion order, for eviction.
    order: BTreeMap<u64, Hash>,
    next_seq: u64,
    /// Bytes held (estimated) and the most it may hold.
    held: usize,
    cap: usize,
}

impl Default for PendingTxs {
    fn default() -> Self {
        Self::with_capacity(Self::DEFAULT_CAP)
    }
}

impl PendingTxs {
    /// Bytes held at most by default.
    pub const DEFAULT_CAP: usize = 256 << 20;

    /// An empty cache holding at most `cap` bytes (estimated).
    pub fn with_capacity(cap: usize) -> Self {
        Self {
            entries: HashMap::new(),
            order: BTreeMap::new(),
            next_seq: 0,
            held: 0,
            cap,
        }
    }

    /// Bytes held (estimated).
    pub fn held(&self) -> usize {
        self.held
    }

    /// Every transaction stored under the `parts` trace ids, if all are held.
    fn get(&self, parts: &[Hash]) -> Option<Chunks> {
        let mut out = Vec::new();
        for part in parts {
            out.extend(self.entries.get(part)?.1.iter().cloned());
        }
        Some(out)
    }

    fn remove(&mut self, id: &Hash) {
        if let Some((seq, chunks)) = self.entries.remove(id) {
            self.order.remove(&seq);
            self.held -= chunks.iter().map(|c| c.bytes).sum::<usize>();
        }
    }

    /// Applies what a committed unit changed.
    pub(super) fn apply(&mut self, update: PendingUpdate) {
        for id in &update.removed {
            self.remove(id);
        }
        for (id, chunks) in update.pending {
            self.remove(&id);
            let n: usize = chunks.iter().map(|c| c.bytes).sum();
            if n > self.cap {
                continue;
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            self.order.insert(seq, id);
            self.entries.insert(id, (seq, chunks));
            self.held += n;
        }
        while self.held > self.cap {
            let Some((_, id)) = self.order.pop_first() else {
                break;
            };
            self.remove(&id);
        }
    }

    /// Forgets everything (a commit failed: what the update described may
    /// not be in the database).
    pub(super) fn clear(&mut self) {
        *self = Self::with_capacity(self.cap);
    }
}

/// A trace's transactions as units added them.
type Chunks = Vec<Chunk>;

/// One unit's transactions of a pending trace, and the memory they take.
#[derive(Clone)]
pub(super) struct Chunk {
    txs: Arc<[TraceTx]>,
    bytes: usize,
}

impl Chunk {
    /// Cells a held transaction's bodies may have: a trace with a bigger
    /// body (a deploy of a large contract, say) is read back when it
    /// settles rather than held.
    const MAX_CELLS: usize = 1024;

    /// `None` when a body is too big to hold.
    fn new(txs: Vec<TraceTx>) -> Option<Self> {
        let mut bytes = 0;
        for t in &txs {
            bytes += std::mem::size_of::<TraceTx>();
            for m in t.in_msg.iter().chain(&t.out_msgs) {
                bytes += std::mem::size_of::<crate::trace::TraceMsg>();
                for cell in m.body.iter().chain(&m.init_state) {
                    let stats = cell.compute_unique_stats(Self::MAX_CELLS)?;
                    // A cell's header, hashes and references, and its data.
                    bytes += stats.cell_count as usize * 112 + stats.bit_count as usize / 8;
                }
            }
        }
        Some(Self {
            txs: txs.into(),
            bytes,
        })
    }
}

/// What a unit changes in [`PendingTxs`] once committed.
#[derive(Default)]
pub(super) struct PendingUpdate {
    /// Trace ids whose stored rows moved (merged) or that settled.
    removed: Vec<Hash>,
    /// Traces still pending after the unit, with all their transactions;
    /// a pending trace whose stored parts were not all held is in `removed`.
    pending: Vec<(Hash, Chunks)>,
}

/// Stored trace ids whose records list each trace's transactions: its own (when it
/// was stored before the unit) and those of stored traces merged into it.
type StoredParts = HashMap<Hash, Vec<Hash>>;

/// Assembles a committed unit's transactions (`unit`, in assembly order)
/// into the rows of the traces, edges, orphans and listings it changes;
/// the traces it completes are handed back for classification
/// ([`Unclassified`]). It reads the trace tables, which nothing but this
/// step writes, and stored transactions, so it runs beside the writer's
/// work on the next unit ([`Deferred`]).
pub(super) fn index_traces(
    db: &Db,
    unit: &[(TraceTx, u64)],
    encoding: &RowEncoding,
    held: &PendingTxs,
    clock: &StepClock,
) -> Result<UnitTraces, IndexError> {
    if unit.is_empty() {
        return Ok(UnitTraces::default());
    }

    let mut batch = EncodedRows::default();
    let (stored_edges, stored_orphans, stored_traces) = stored_of_unit(db, unit)?;
    let stored_ids: HashSet<Hash> = stored_traces.iter().map(|t| t.trace_id).collect();
    let stored_tx_ids: HashMap<Hash, Vec<u64>> = stored_traces
        .iter()
        .map(|t| (t.trace_id, t.tx_ids.clone()))
        .collect();

    let mut asm = Assembly::new(stored_edges, stored_orphans, stored_traces);
    let ids: Vec<Hash> = unit.iter().map(|(t, _)| asm.add(t)).collect();
    let ids: Vec<Hash> = ids.into_iter().map(|id| asm.resolve(id)).collect();
    let changes = asm.finish();
    for ((_, tx_id), trace_id) in unit.iter().zip(&ids) {
        batch.set_trace_tag(*tx_id, &hash_tag(trace_id));
    }
    let consumed: HashSet<Hash> = changes.consumed_edges.iter().copied().collect();
    for (msg, trace) in &changes.new_edges {
        batch.put::<TraceEdges>(msg, trace);
    }
    for msg in &consumed {
        batch.delete::<TraceEdges>(msg);
    }
    for (msg, trace) in &changes.new_orphans {
        batch.put::<TraceOrphans>(msg, trace);
    }
    for msg in &changes.consumed_orphans {
        batch.delete::<TraceOrphans>(msg);
    }
    let mut parts: StoredParts = HashMap::new();
    for id in &stored_ids {
        parts.entry(*id).or_default().push(*id);
    }
    for (old, into) in &changes.merged {
        if stored_ids.contains(&old.trace_id) {
            move_stored(db, &mut batch, old, *into, &consumed)?;
            let moved = parts.remove(&old.trace_id).unwrap_or_default();
            parts.entry(*into).or_default().extend(moved);
        }
    }
    // The unit's transactions of each trace, found once for all traces.
    let mut members: HashMap<Hash, Vec<&(TraceTx, u64)>> = HashMap::new();
    for (entry, trace_id) in unit.iter().zip(&ids) {
        members.entry(*trace_id).or_default().push(entry);
    }
    // Each trace's rows are independent of the others': encoded where the
    // unit's other rows are. A complete trace hands its transactions
    // (bodies decoded) on for classification; one that stays pending hands
    // them to `held`.
    type Encoded = (EncodedRows, Option<Option<Chunks>>, Option<Unclassified>);
    let encode = |trace: &TraceRecord| -> Result<Encoded, IndexError> {
        let mut rows = EncodedRows::default();
        let stored = parts.get(&trace.trace_id).map_or(&[][..], Vec::as_slice);
        let in_unit = members.get(&trace.trace_id).map_or(&[][..], Vec::as_slice);
        let stored_txs: Vec<u64> = stored
            .iter()
            .flat_map(|part| stored_tx_ids.get(part).into_iter().flatten().copied())
            .collect();
        let trace = &with_tx_ids(trace, &stored_txs, in_unit);
        let cached = if stored.is_empty() {
            Some(Vec::new())
        } else {
            held.get(stored)
        };
        if trace.pending_messages == 0 {
            let txs = settle(db, &mut rows, trace, &stored_txs, cached, in_unit)?;
            // A complete trace's record is written once, classified.
            let complete = match trace.state {
                TraceState::Complete => Some(Unclassified {
                    trace: trace.clone(),
                    txs,
                }),
                _ => {
                    rows.put::<Traces>(&trace.trace_id, trace);
                    None
                }
            };
            Ok((rows, None, complete))
        } else {
            rows.put::<Traces>(&trace.trace_id, trace);
            let pending = cached.and_then(|mut chunks| {
                chunks.push(Chunk::new(owned_txs(in_unit))?);
                Some(chunks)
            });
            Ok((rows, Some(pending), None))
        }
    };
    let traces = &changes.traces;
    let parallel = || traces.par_iter().map(encode).collect::<Vec<_>>();
    let encoded = clock.time(Step::Settle, || match encoding {
        RowEncoding::Parallel(Some(pool)) if traces.len() >= 2 => pool.install(parallel),
        RowEncoding::Parallel(None) if traces.len() >= 2 => parallel(),
        _ => traces.iter().map(encode).collect(),
    });
    let mut update = PendingUpdate::default();
    update
        .removed
        .extend(changes.merged.iter().map(|(old, _)| old.trace_id));
    let mut complete = Vec::new();
    for (trace, encoded) in traces.iter().zip(encoded) {
        let (rows, pending, settled) = encoded?;
        batch.extend(rows);
        match pending {
            Some(Some(chunks)) => update.pending.push((trace.trace_id, chunks)),
            _ => update.removed.push(trace.trace_id),
        }
        complete.extend(settled);
    }
    Ok(UnitTraces {
        rows: batch,
        settled: traces
            .iter()
            .filter(|t| t.pending_messages == 0)
            .map(|t| t.trace_id)
            .collect(),
        pending: update,
        complete,
    })
}

/// What the stored trace tables know of a unit's transactions: the traces
/// that sent their in-messages (edges), those of stored transactions
/// waiting for a message the unit sends (orphans), and the records of
/// those traces.
#[allow(clippy::type_complexity)]
fn stored_of_unit(
    db: &Db,
    unit: &[(TraceTx, u64)],
) -> Result<(HashMap<Hash, Hash>, HashMap<Hash, Hash>, Vec<TraceRecord>), IndexError> {
    let reader = db.reader();
    let lookup = |keys: Vec<Hash>, found: Vec<Option<Hash>>| -> HashMap<Hash, Hash> {
        keys.into_iter()
            .zip(found)
            .filter_map(|(m, t)| Some((m, t?)))
            .collect()
    };
    let needed = Assembly::edges_needed(unit.iter().map(|(t, _)| t));
    let found = reader.multi_get::<TraceEdges>(&needed)?;
    let stored_edges = lookup(needed, found);
    let needed = Assembly::orphans_needed(unit.iter().map(|(t, _)| t));
    let found = reader.multi_get::<TraceOrphans>(&needed)?;
    let stored_orphans = lookup(needed, found);
    let mut trace_ids: Vec<Hash> = stored_edges
        .values()
        .chain(stored_orphans.values())
        .copied()
        .collect();
    trace_ids.sort();
    trace_ids.dedup();
    let stored_traces: Vec<TraceRecord> = reader
        .multi_get::<Traces>(&trace_ids)?
        .into_iter()
        .flatten()
        .collect();
    Ok((stored_edges, stored_orphans, stored_traces))
}

/// A trace's record as this unit leaves it, listing its transactions: the
/// ids stored under it and under traces merged into it (`stored`), and
/// the unit's. A count that disagrees with the assembled one is logged
/// with the trace's id.
fn with_tx_ids(trace: &TraceRecord, stored: &[u64], in_unit: &[&(TraceTx, u64)]) -> TraceRecord {
    let mut ids: Vec<u64> = stored.to_vec();
    ids.extend(in_unit.iter().map(|(_, id)| *id));
    ids.sort_unstable();
    ids.dedup();
    if ids.len() != trace.transactions as usize {
        tracing::warn!(
            trace = %hex::encode(trace.trace_id),
            listed = ids.len(),
            assembled = trace.transactions,
            "a trace's transaction ids disagree with its count"
        );
    }
    TraceRecord {
        tx_ids: ids,
        ..trace.clone()
    }
}

/// The unit's transactions of a trace (bodies in), owned: for classification
/// or for the held transactions of pending traces.
fn owned_txs(in_unit: &[&(TraceTx, u64)]) -> Vec<TraceTx> {
    in_unit.iter().map(|(t, _)| t.clone()).collect()
}

/// Moves a stored trace merged into `into`: its transactions' trace, its
/// pending edges (those this unit did not deliver) and, if it was settled,
/// its listings go; its record is deleted.
fn move_stored(
    db: &Db,
    batch: &mut EncodedRows,
    old: &TraceRecord,
    into: Hash,
    consumed: &HashSet<Hash>,
) -> Result<(), IndexError> {
    let reader = db.reader();
    let ids = &old.tx_ids;
    let mut accounts = HashSet::new();
    let mut sent = Vec::new();
    for rec in crate::query::transactions::tx_records(&reader, ids)? {
        accounts.insert(rec.account);
        sent.extend(rec.out_msgs);
    }
    // The trace `into` lists these ids in its record (written in this
    // batch); each names its new trace.
    for id in ids {
        batch.set_trace_tag(*id, &hash_tag(&into));
    }
    for (msg, edge) in sent.iter().zip(reader.multi_get::<TraceEdges>(&sent)?) {
        if edge == Some(old.trace_id) && !consumed.contains(msg) {
            batch.put::<TraceEdges>(msg, &into);
        }
    }
    if old.pending_messages == 0 {
        for account in accounts {
            let key = AccountLtTagKey {
                account,
                lt: old.end_lt,
                tag: hash_tag(&old.trace_id),
            };
            batch.delete::<TraceByAccount>(&key);
            batch.delete::<TraceByAccountUtime>(&AccountLtTagKey {
                lt: u64::from(old.end_utime),
                ..key
            });
        }
        batch.delete::<TraceByEndLt>(&LtTagKey {
            lt: old.end_lt,
            tag: hash_tag(&old.trace_id),
        });
        batch.delete::<TraceByEndUtime>(&LtTagKey {
            lt: u64::from(old.end_utime),
            tag: hash_tag(&old.trace_id),
        });
    }
    batch.delete::<Traces>(&old.trace_id);
    Ok(())
}

/// The traces of transactions a masterchain block committed after they
/// were stored (`adopted`: tx id and the block's seqno): their records
/// take the block into `mc_seqno_start`/`_end`, and a settled complete
/// trace moves to the block's listing ([`TraceByMcBlock`]), as assembly
/// would have done had the block been known. Called once the previous
/// unit's trace rows are committed, so that it reads them.
pub(super) fn adopt_traces(
    db: &Db,
    batch: &mut tonindex_storage::Batch<'_>,
    adopted: &[(u64, u32)],
) -> Result<(), IndexError> {
    if adopted.is_empty() {
        return Ok(());
    }
    let reader = db.reader();
    let ids: Vec<u64> = adopted.iter().map(|(id, _)| *id).collect();
    let traces = crate::query::traces::trace_ids_of_txs(&reader, &ids)?;
    let mut spans: BTreeMap<Hash, (u32, u32)> = BTreeMap::new();
    for ((_, mc), trace) in adopted.iter().zip(traces) {
        if let Some(id) = trace {
            let span = spans.entry(id).or_insert((*mc, *mc));
            *span = (span.0.min(*mc), span.1.max(*mc));
        }
    }
    for (id, (lo, hi)) in spans {
        let Some(mut rec) = reader.get::<Traces>(&id)? else {
            continue;
        };
        let before = (rec.mc_seqno_start, rec.mc_seqno_end);
        rec.mc_seqno_start = Some(before.0.map_or(lo, |s| s.min(lo)));
        rec.mc_seqno_end = Some(before.1.map_or(hi, |e| e.max(hi)));
        if (rec.mc_seqno_start, rec.mc_seqno_end) == before {
            continue;
        }
        if rec.pending_messages == 0 && rec.state == TraceState::Complete {
            let key = |mc_seqno| McLtTagKey {
                mc_seqno,
                lt: rec.end_lt,
                tag: hash_tag(&id),
            };
            if let Some(old) = before.1 {
                batch.delete::<TraceByMcBlock>(&key(old));
            }
            if let Some(end) = rec.mc_seqno_end {
                batch.put::<TraceByMcBlock>(&key(end), &());
            }
        }
        batch.put::<Traces>(&id, &rec);
    }
    Ok(())
}

/// Lists a settled trace by account, end lt and (when it is complete)
/// masterchain block; hands back its transactions, for classification.
fn settle(
    db: &Db,
    batch: &mut EncodedRows,
    trace: &TraceRecord,
    stored: &[u64],
    cached: Option<Chunks>,
    in_unit: &[&(TraceTx, u64)],
) -> Result<Vec<TraceTx>, IndexError> {
    let tag = hash_tag(&trace.trace_id);
    let txs = trace_transactions(db, stored, cached, in_unit)?;
    let accounts: HashSet<Address> = txs.iter().map(|t| t.account).collect();
    for account in &accounts {
        let key = AccountLtTagKey {
            account: *account,
            lt: trace.end_lt,
            tag,
        };
        batch.put::<TraceByAccount>(&key, &());
        let by_time = AccountLtTagKey {
            lt: u64::from(trace.end_utime),
            ..key
        };
        batch.put::<TraceByAccountUtime>(&by_time, &());
    }
    batch.put::<TraceByEndLt>(
        &LtTagKey {
            lt: trace.end_lt,
            tag,
        },
        &(),
    );
    batch.put::<TraceByEndUtime>(
        &LtTagKey {
            lt: u64::from(trace.end_utime),
            tag,
        },
        &(),
    );
    if trace.state == TraceState::Complete {
        if let Some(mc) = trace.mc_seqno_end {
            let key = McLtTagKey {
                mc_seqno: mc,
                lt: trace.end_lt,
                tag,
            };
            batch.put::<TraceByMcBlock>(&key, &());
        }
    }
    Ok(txs)
}

/// What a trace's listing rows already name: an account in several of its
/// actions, or a type (by account or not) in several, is listed once —
/// the rows' keys name the trace, not the action.
#[derive(Default)]
struct Listed {
    accounts: HashSet<Address>,
    types: HashSet<(Option<Address>, String)>,
}

/// An action's rows, and the listings by account and by type its trace
/// does not have yet.
fn write_action(
    batch: &mut EncodedRows,
    trace: &TraceRecord,
    action: &ActionRecord,
    numbers: &HashMap<Address, u64>,
    listed: &mut Listed,
) {
    let stored = tonindex_storage::stored_action::to_stored(action, |a| numbers.get(a).copied());
    batch.put::<Actions>(
        &HashMsgKey {
            hash: trace.trace_id,
            msg_hash: action.action_id,
        },
        &stored,
    );
    let by_id = TagPairKey {
        tag: hash_tag(&action.action_id),
        other: hash_tag(&trace.trace_id),
    };
    batch.put::<ActionById>(&by_id, &());
    for account in &action.accounts {
        if listed.accounts.insert(*account) {
            let key = AccountLtTagKey {
                account: *account,
                lt: trace.end_lt,
                tag: hash_tag(&trace.trace_id),
            };
            batch.put::<ActionByAccount>(&key, &());
            let by_time = AccountLtTagKey {
                lt: u64::from(trace.end_utime),
                ..key
            };
            batch.put::<ActionByAccountUtime>(&by_time, &());
        }
    }
    let owners = std::iter::once(None).chain(action.accounts.iter().copied().map(Some));
    for account in owners {
        if !listed.types.insert((account, action.kind.clone())) {
            continue;
        }
        for (order, end) in [(0, trace.end_lt), (1, u64::from(trace.end_utime))] {
            let key = TypeEndKey {
                order,
                account,
                kind: action.kind.clone(),
                end,
                tag: hash_tag(&trace.trace_id),
            };
            match account {
                Some(_) => batch.put::<ActionByAccountType>(&key, &()),
                None => batch.put::<ActionByType>(&key, &()),
            }
        }
    }
}

/// Every transaction of a trace with message bodies: those earlier units
/// stored (the `stored` tx ids; `cached` when [`PendingTxs`] held them
/// all) and this unit's (`in_unit`).
fn trace_transactions(
    db: &Db,
    stored: &[u64],
    cached: Option<Chunks>,
    in_unit: &[&(TraceTx, u64)],
) -> Result<Vec<TraceTx>, IndexError> {
    let mut txs = match cached {
        _ if stored.is_empty() => Vec::with_capacity(in_unit.len()),
        Some(chunks) => {
            let unit_hashes: HashSet<Hash> = in_unit.iter().map(|(t, _)| t.hash).collect();
            let mut txs = Vec::with_capacity(
                chunks.iter().map(|c| c.txs.len()).sum::<usize>() + in_unit.len(),
            );
            for chunk in &chunks {
                let earlier = chunk.txs.iter().filter(|t| !unit_hashes.contains(&t.hash));
                txs.extend(earlier.cloned());
            }
            txs
        }
        None => stored_transactions(db, stored, in_unit)?,
    };
    txs.extend(owned_txs(in_unit));
    txs.sort_by_key(TraceTx::order_key);
    Ok(txs)
}

/// The transactions of the `stored` ids (those earlier units stored under
/// a trace), but those of this unit.
fn stored_transactions(
    db: &Db,
    stored: &[u64],
    in_unit: &[&(TraceTx, u64)],
) -> Result<Vec<TraceTx>, IndexError> {
    let reader = db.reader();
    let ids = stored.to_vec();
    let unit_hashes: HashSet<Hash> = in_unit.iter().map(|(t, _)| t.hash).collect();
    let txs = stored_trace_txs(&reader, ids, &unit_hashes)?;
    Ok(txs.into_iter().map(|(t, _)| t).collect())
}

/// Stored transactions as assembly and classification read them (bodies
/// decoded from their BoCs), with their ids; those in `skip` are left out.
fn stored_trace_txs(
    reader: &tonindex_storage::Reader<'_>,
    ids: Vec<u64>,
    skip: &HashSet<Hash>,
) -> Result<Vec<(TraceTx, u64)>, IndexError> {
    let mut txs = Vec::with_capacity(ids.len());
    if ids.is_empty() {
        return Ok(txs);
    }
    for loaded in crate::query::transactions::load_txs(reader, &ids)? {
        let (rec, id) = (&loaded.record, loaded.id);
        if skip.contains(&rec.hash) {
            continue;
        }
        let (in_msg, out) = stored_messages(&loaded)?;
        let mut t = trace_tx(rec, in_msg.as_ref(), &out, rec.mc_block_seqno);
        let contents: Vec<Option<MessageContents>> = loaded
            .message_cells
            .iter()
            .map(|c| message_contents(c).ok())
            .collect();
        t.fill_bodies(contents.iter().map(Option::as_ref));
        txs.push((t, id));
    }
    Ok(txs)
}

/// A stored transaction's message records, decoded from its own message
/// cells (the in-message first) with its block's version.
fn stored_messages(
    loaded: &crate::query::transactions::LoadedTx,
) -> Result<(Option<MessageRecord>, Vec<MessageRecord>), IndexError> {
    let corrupt =
        || tonindex_storage::Error::Corrupt("a stored transaction's message does not parse");
    let mut records = loaded.message_cells.iter().map(|cell| {
        crate::decode::message::decode_message(cell, loaded.place.global_version)
            .map_err(|_| corrupt())
    });
    let in_msg = match loaded.record.in_msg {
        Some(_) => Some(records.next().ok_or_else(corrupt)??),
        None => None,
    };
    let out = records.collect::<Result<Vec<_>, _>>()?;
    Ok((in_msg, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::classify::built::{msg, tx};

    fn chunk(first: u8, n: u8) -> Chunk {
        let txs = (first..first + n)
            .map(|i| tx(i, i, msg(i, 0, i, 0, None), Vec::new()))
            .collect();
        Chunk::new(txs).unwrap()
    }

    fn id(n: u8) -> Hash {
        [n; 32]
    }

    #[test]
    fn held_trace_transactions_follow_commits_and_stay_under_their_cap() {
        // Bodiless transactions weigh alike: the cap is ten of them.
        let one = chunk(0, 1).bytes;
        let mut held = PendingTxs::with_capacity(10 * one);
        held.apply(PendingUpdate {
            removed: Vec::new(),
            pending: vec![(id(1), vec![chunk(1, 3)]), (id(2), vec![chunk(10, 4)])],
        });
        assert_eq!(held.held(), 7 * one);
        // A trace is held whole or not at all: one part missing, no answer.
        assert_eq!(held.get(&[id(1), id(2)]).map(|c| c.len()), Some(2));
        assert!(held.get(&[id(1), id(3)]).is_none());
        // Trace 2 merged into 1, which grows; then 3 arrives and the
        // oldest entry goes to keep 10 transactions at most.
        let mut grown = held.get(&[id(1), id(2)]).unwrap();
        grown.push(chunk(20, 1));
        held.apply(PendingUpdate {
            removed: vec![id(2)],
            pending: vec![(id(1), grown)],
        });
        assert_eq!(held.held(), 8 * one);
        assert!(held.get(&[id(2)]).is_none());
        held.apply(PendingUpdate {
            removed: Vec::new(),
            pending: vec![(id(3), vec![chunk(30, 5)])],
        });
        assert_eq!(held.held(), 5 * one, "the older trace 1 went to make room");
        assert!(held.get(&[id(1)]).is_none());
        // A trace larger than the cap is never held; settling one removes it.
        held.apply(PendingUpdate {
            removed: vec![id(3)],
            pending: vec![(id(4), vec![chunk(40, 11)])],
        });
        assert_eq!(held.held(), 0);
        assert!(held.get(&[id(4)]).is_none());
        // A body of more cells than a held transaction may have: not held.
        let mut big = tycho_types::cell::CellBuilder::new().build().unwrap();
        for _ in 0..Chunk::MAX_CELLS {
            let mut b = tycho_types::cell::CellBuilder::new();
            b.store_u32(0).unwrap();
            b.store_reference(big).unwrap();
            big = b.build().unwrap();
        }
        let deploy = tx(60, 60, msg(60, 0, 60, 0, Some(big)), Vec::new());
        assert!(Chunk::new(vec![deploy]).is_none());
        held.apply(PendingUpdate {
            removed: Vec::new(),
            pending: vec![(id(5), vec![chunk(50, 2)])],
        });
        held.clear();
        assert_eq!(held.held(), 0);
    }
}
