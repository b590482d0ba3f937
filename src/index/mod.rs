//! Decoded blocks → rows, one atomic `WriteBatch` per unit.
//!
//! A unit is one masterchain block with the shard blocks it commits, or one
//! standalone block. Everything a unit writes — blocks, transactions,
//! messages, indexes, latest account states and the ingest cursor — goes in
//! one batch, so after a crash the database holds whole units only, and
//! re-applying a unit that is already there changes nothing. The one thing
//! a unit leaves to the next is its traces (see `traces::Deferred`): they
//! are assembled, classified and written in a batch of their own, beside
//! the next unit's work and before its commit, or when a source calls
//! [`Indexer::flush`].

pub mod balances;
pub mod commit;
pub mod contracts;
pub mod feed;
mod plan;
pub mod retention;
pub mod state;
pub mod step_times;
pub mod token_events;
pub mod traces;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use tonindex_model::{Address, BlockId, BlockRecord, MessageRecord};
use tonindex_storage::tables::{
    hash_tag, AccountAddresses, AccountLtTagKey, AccountNumbers, BlockByHash, BlockByUtime,
    BlockTxKey, Blocks, GroupOrderKey, HashMsgKey, KeyBlockConfig, LatestAccounts, LtAccountKey,
    McBlockKey, McBlocks, McByTopShard, McLtAccountKey, McShardState, MessageGroupKey, Messages,
    MsgByBodyHash, MsgByBodyHashUtime, MsgByCreatedAt, MsgByCreatedLt, MsgByDestination,
    MsgByDestinationUtime, MsgByHashNorm, MsgByOpcode, MsgByOpcodeUtime, MsgBySource,
    NullableOrderKey, TagIdKey, TimeBlockKey, TimeLtAccountKey, Transactions, TxBocs, TxByBlock,
    TxByHash, TxByLt, TxByMcBlock, TxByNow, TxTail, RECEIVED_BY, SENT_BY,
};
use tonindex_storage::{
    Batch, Db, EncodedRows, IngestCursor, LatestAccount, Lz4Bytes, TxBoc, TxPlace,
};
use tycho_types::cell::Cell;

use crate::decode::state::StateFile;
use crate::decode::{DecodedBlock, DecodedTransaction};

pub use plan::{Planner, Unlinked};
use state::{StateError, StateStep, StateWork};
use step_times::{Step, StepClock};

/// Blocks committed together: shard blocks first, then the masterchain block (if any).
#[derive(Debug, Default)]
pub struct Unit {
    pub blocks: Vec<DecodedBlock>,
}

impl Unit {
    /// The masterchain block of the unit, if it has one.
    pub fn masterchain(&self) -> Option<&DecodedBlock> {
        self.blocks.iter().find(|b| b.record.id.id.workchain == -1)
    }
}

/// What applying a unit changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub blocks: u64,
    pub transactions: u64,
    pub messages: u64,
    /// Blocks already in the database (re-import).
    pub skipped_blocks: u64,
    /// Stored shard blocks that this unit's masterchain block committed.
    pub adopted_blocks: u64,
    /// Blocks whose state update advanced a held shard state.
    pub state_updates: u64,
    /// Blocks of a shard whose state is held that could not advance it
    /// (a gap, or decoded without their update): each is named in a warning.
    pub state_gaps: u64,
    /// What the contracts step read from the account states written.
    pub contracts: contracts::ContractsDone,
    /// Jetton transfers and burns written.
    pub token_events: token_events::TokenEvents,
    /// Older states released after the commit (`[index] keep_states`).
    pub released: retention::Released,
}

/// Index errors: storage failures, or a stored row that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Storage(#[from] tonindex_storage::Error),
    #[error(transparent)]
    State(#[from] StateError),
    #[error("assembling or classifying traces panicked")]
    ClassifierPanicked,
}

/// The traces the last committed unit left, as the next unit sees them.
enum Pending<'s, 'scope> {
    None,
    /// To assemble, classify and write on the writer's thread.
    Here(traces::Deferred),
    /// To assemble, classify and write on the encoding pool, spawned on
    /// `scope` (which outlives the unit's own jobs) right after the jobs
    /// whose rows the writer needs first: the pool starts jobs in the order
    /// they come, and the writer needs the traces written only before its
    /// own commit.
    Pool {
        scope: &'s rayon::Scope<'scope>,
        todo: traces::Deferred,
    },
}

/// The index of the calling thread in `pool` (`None`: rayon's global
/// pool), if it is one of its workers.
fn in_pool(pool: Option<&rayon::ThreadPool>) -> Option<usize> {
    match pool {
        Some(pool) => pool.current_thread_index(),
        None => rayon::current_thread_index(),
    }
}

/// Where the writer encodes a unit's rows before committing them.
pub enum RowEncoding {
    /// On the writer's own thread.
    Serial,
    /// In chunks across a rayon pool (`None`: the global one); pays off when
    /// the pool has threads to spare, since the writer waits for it.
    Parallel(Option<Arc<rayon::ThreadPool>>),
}

/// Writes units into the database. One writer at a time.
pub struct Indexer<'a> {
    db: &'a Db,
    /// Where a big unit's rows are encoded.
    encoding: RowEncoding,
    /// Where each commit is announced, if anyone follows.
    feed: Option<feed::CommitFeed>,
    /// Whether units assemble traces and classify actions.
    traces: bool,
    /// What it keeps from one unit for the next.
    state: std::sync::Arc<IndexerState>,
    /// Where the writer's time went (`tonindex bench`).
    clock: StepClock,
    /// The masterchain blocks whose states the cell store keeps.
    keep_states: retention::KeepStates,
}

/// What an indexer keeps in memory from one unit for the next: the decoded
/// config and libraries of the contracts step's get-methods, pending
/// traces' transactions (so that settling them reads no stored
/// transactions back) and the last unit's transactions, whose traces the
/// next batch writes. A source that makes an indexer per unit (the devnet,
/// one per round) hands each the same one.
#[derive(Default)]
pub struct IndexerState {
    tvm_env: contracts::TvmEnv,
    held: std::sync::Mutex<traces::PendingTxs>,
    /// What the last committed unit left to assemble and classify; `None`
    /// until read from the database (after a start, or a failed commit:
    /// the database is then the truth).
    deferred: std::sync::Mutex<Option<traces::Deferred>>,
}

impl<'a> Indexer<'a> {
    pub fn new(db: &'a Db) -> Self {
        Self {
            db,
            encoding: RowEncoding::Serial,
            feed: None,
            traces: true,
            state: Default::default(),
            clock: StepClock::default(),
            keep_states: retention::KeepStates::DEFAULT,
        }
    }

    /// Keeps the states of this many masterchain blocks (see [`retention`]).
    pub fn with_keep_states(self, keep_states: retention::KeepStates) -> Self {
        Self {
            keep_states,
            ..self
        }
    }

    /// Keeps what it learns in `state` (shared with earlier indexers).
    pub fn with_state(self, state: std::sync::Arc<IndexerState>) -> Self {
        Self { state, ..self }
    }

    fn held_traces(&self) -> std::sync::MutexGuard<'_, traces::PendingTxs> {
        // Its changes are made whole or not at all, so a lock poisoned by a
        // panic elsewhere still guards a consistent cache.
        self.state.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn deferred(&self) -> std::sync::MutexGuard<'_, Option<traces::Deferred>> {
        // Replaced whole, never changed in place.
        self.state
            .deferred
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// What the last unit left, taken: until a commit writes its traces,
    /// the database's marks stand for it.
    fn take_deferred(&self) -> Result<traces::Deferred, IndexError> {
        let held = self.deferred().take();
        match held {
            Some(d) => Ok(d),
            None => traces::Deferred::load(self.db),
        }
    }

    /// Assembles the traces of what the last unit left and classifies the
    /// complete ones, against the database as that unit's commit left it.
    fn trace_work(&self, deferred: traces::Deferred) -> Result<traces::TraceWork, IndexError> {
        traces::TraceWork::run(
            deferred,
            |txs| {
                self.clock.time(Step::Traces, || {
                    traces::index_traces(
                        self.db,
                        txs,
                        &self.encoding,
                        &self.held_traces(),
                        &self.clock,
                    )
                })
            },
            |todo| self.classify(todo),
        )
    }

    /// Classifies complete traces.
    fn classify(&self, todo: Vec<traces::Unclassified>) -> Result<traces::Classified, IndexError> {
        if todo.is_empty() {
            return Ok(traces::Classified::default());
        }
        let interfaces = contracts::IndexInterfaces { db: self.db };
        let pool = match &self.encoding {
            RowEncoding::Parallel(pool) => pool.as_deref(),
            RowEncoding::Serial => None,
        };
        self.clock.time(Step::Classify, || {
            traces::classify_traces(self.db, todo, &interfaces, pool)
        })
    }

    /// Writes the traces (and actions) of what the last unit left, in a
    /// batch of their own: otherwise the next unit writes them, beside its
    /// own work. A source calls it when no unit follows at once — at the
    /// end of an import, after a devnet round, at the chain's tip — so that
    /// answers do not wait for the next block for them. Every other write
    /// of the indexer does it first, so that traces are always assembled
    /// and classified against the database their unit left.
    pub fn flush(&self) -> Result<(), IndexError> {
        let deferred = self.take_deferred()?;
        if deferred.is_empty() {
            *self.deferred() = Some(deferred);
            return Ok(());
        }
        self.write_traces(deferred)?;
        *self.deferred() = Some(traces::Deferred::default());
        Ok(())
    }

    /// Assembles and classifies what the last unit left and commits the
    /// rows in a batch of their own, which also clears the database's marks
    /// for them, then announces it. The unit's batch came before; the next
    /// unit's comes after (its writer waits for this one), so that the
    /// traces are those assembling inside the unit would give. A batch of
    /// their own, not the next unit's: beside the writer's work on that
    /// unit, their commit runs on another core, off the writer's path.
    fn write_traces(&self, deferred: traces::Deferred) -> Result<(), IndexError> {
        let mut work = self.trace_work(deferred)?;
        let mut batch = self.db.side_batch(std::mem::take(&mut work.rows));
        let after = clear_deferred(&mut batch, work);
        if let Err(e) = self.clock.time(Step::TraceCommit, || self.db.write(batch)) {
            self.held_traces().clear();
            return Err(e.into());
        }
        self.held_traces().apply(after.update);
        if let Some(feed) = &self.feed {
            feed.publish(after.committed);
        }
        Ok(())
    }

    /// The writer's time so far, by step.
    pub fn step_times(&self) -> step_times::StepTimes {
        self.clock.read()
    }

    /// Announces every commit on `feed`.
    pub fn with_feed(self, feed: feed::CommitFeed) -> Self {
        Self {
            feed: Some(feed),
            ..self
        }
    }

    /// Turns trace assembly and classification off (on by default): a
    /// database written so has no traces, so this is for measuring their
    /// cost (`tonindex bench`), not for serving.
    pub fn with_traces(self, traces: bool) -> Self {
        Self { traces, ..self }
    }

    /// Sets where a big unit's rows are encoded (serially by default).
    pub fn with_encoding(self, encoding: RowEncoding) -> Self {
        Self { encoding, ..self }
    }

    /// Applies one unit as one atomic batch. A unit fully present already is a no-op.
    pub fn apply(&self, unit: &Unit) -> Result<Applied, IndexError> {
        self.apply_with_accounts(unit, &[])
    }

    /// [`Indexer::apply`], with the states of accounts the unit changed
    /// that a source fetched (and checked) because the index holds no
    /// state of their shard: written in the same batch, as of the block
    /// each comes from. An account whose shard state is held is left to
    /// the state replay, which is exact.
    pub fn apply_with_accounts(
        &self,
        unit: &Unit,
        accounts: &[FetchedAccount],
    ) -> Result<Applied, IndexError> {
        let todo = self.take_deferred()?;
        if todo.is_empty() {
            return self.apply_unit(unit, accounts, Pending::None);
        }
        let pool = match &self.encoding {
            // A writer that is a worker of its own pool would wait for a
            // job queued behind it: it does the work itself.
            RowEncoding::Parallel(pool) if in_pool(pool.as_deref()).is_none() => pool,
            _ => return self.apply_unit(unit, accounts, Pending::Here(todo)),
        };
        // Assembled, classified and written on the encoding pool while the
        // writer works on the unit.
        in_place_scope(pool.as_deref(), |scope| {
            self.apply_unit(unit, accounts, Pending::Pool { scope, todo })
        })
    }

    /// [`Indexer::apply_with_accounts`], with the traces the last unit
    /// left (`pending`), written before this unit's batch.
    fn apply_unit<'scope>(
        &'scope self,
        unit: &Unit,
        accounts: &[FetchedAccount],
        pending: Pending<'_, 'scope>,
    ) -> Result<Applied, IndexError> {
        let mut cursor = self.db.cursor()?;
        let mut batch = self.db.batch();
        let mut applied = Applied::default();
        let mc_seqno = unit.masterchain().map(|b| b.record.id.id.seqno);

        // Shard blocks this unit's masterchain block commits that are stored already.
        let in_unit: HashMap<BlockId, &DecodedBlock> =
            unit.blocks.iter().map(|b| (b.record.id.id, b)).collect();
        let mut to_adopt = Vec::new();
        if let Some(mc) = unit.masterchain() {
            let tops = mc.shards.iter().map(|s| s.block.id);
            to_adopt = self.stored_uncommitted(tops, &in_unit)?;
        }
        let (new_blocks, late_adopt) =
            self.take_new_blocks(unit, &in_unit, &mut batch, &mut cursor, &mut applied)?;
        let next_mc = cursor.last_mc_seqno.map_or(0, |m| m + 1);
        let prepare = |batch: &mut Batch<'_>, applied: &mut Applied| {
            self.index_states(batch, applied, unit, accounts, &new_blocks, next_mc)
        };
        let numbers = account_numbers(self.db, &mut batch, &mut cursor, &new_blocks)?;
        let encode_rows = || {
            self.clock.time(Step::Rows, || {
                tx_rows(&new_blocks, &numbers, &self.encoding)
            })
        };
        // What the next batch assembles: this unit's transactions.
        let for_traces = || match self.traces {
            true => traces::Deferred::of_unit(&new_blocks),
            false => traces::Deferred::default(),
        };
        // The last unit's traces: assembled, classified and written here,
        // now, or on the pool after the rows.
        let spawn_traces = |pending: Pending<'_, 'scope>| match pending {
            Pending::None => Ok(None),
            Pending::Here(todo) => self.write_traces(todo).map(|()| None),
            Pending::Pool { scope, todo } => {
                let (done, result) = std::sync::mpsc::sync_channel(1);
                scope.spawn(move |_| {
                    let _ = done.send(self.write_traces(todo));
                });
                Ok(Some(result))
            }
        };
        // The transactions' rows are encoded beside the writer's own work
        // when rows are encoded in parallel: the writer is what an import
        // waits for.
        let (prepared, encoded, next, trace_rows) = match &self.encoding {
            RowEncoding::Serial => {
                let prepared = prepare(&mut batch, &mut applied);
                (prepared, encode_rows(), for_traces(), spawn_traces(pending))
            }
            RowEncoding::Parallel(pool) => {
                let mut encoded = None;
                let mut next = None;
                let mut trace_rows = None;
                let (prepared, waiting) = in_place_scope(pool.as_deref(), |s| {
                    s.spawn(|_| encoded = Some(encode_rows()));
                    s.spawn(|_| next = Some(for_traces()));
                    trace_rows = Some(spawn_traces(pending));
                    (prepare(&mut batch, &mut applied), Instant::now())
                });
                self.clock.add(Step::RowsWait, waiting.elapsed());
                (
                    prepared,
                    encoded.unwrap_or_default(),
                    next.unwrap_or_default(),
                    trace_rows.expect("the scope handed the traces on"),
                )
            }
        };
        prepared?;
        let mut latest = LatestStates::default();
        for (rows, offers) in encoded {
            batch.append(rows);
            for (account, state) in offers {
                latest.offer(account, state);
            }
        }
        let adopt = mc_seqno
            .map(|mc| to_adopt.into_iter().map(move |rec| (rec, mc)))
            .into_iter()
            .flatten()
            .chain(late_adopt);
        let mut adopted_txs = Vec::new();
        for (rec, mc) in adopt {
            adopted_txs.extend(
                self.adopt(&mut batch, rec, mc)?
                    .into_iter()
                    .map(|id| (id, mc)),
            );
            applied.adopted_blocks += 1;
        }
        latest.write(self.db, &mut batch)?;
        // The traces (and actions) of the last unit, committed before this
        // unit's batch: it may replace the mark theirs cleared.
        if let Some(result) = trace_rows? {
            self.clock
                .time(Step::TracesWait, || result.recv())
                .map_err(|_| IndexError::ClassifierPanicked)??;
        }
        traces::adopt_traces(self.db, &mut batch, &adopted_txs)?;
        self.commit_unit(batch, cursor, applied, next, mc_seqno, &new_blocks)
    }

    /// The unit's blocks the index does not hold yet, their rows put in
    /// `batch` and their transactions numbered from the cursor; and the
    /// stored shard blocks a late shard block shows committed (with the
    /// masterchain block that commits them).
    fn take_new_blocks<'u>(
        &self,
        unit: &'u Unit,
        in_unit: &HashMap<BlockId, &DecodedBlock>,
        batch: &mut Batch<'_>,
        cursor: &mut IngestCursor,
        applied: &mut Applied,
    ) -> Result<(Vec<NewBlock<'u>>, Vec<LateAdoption>), IndexError> {
        let mc_seqno = unit.masterchain().map(|b| b.record.id.id.seqno);
        let mut late_adopt = Vec::new();
        let mut new_blocks = Vec::new();
        for block in &unit.blocks {
            let id = block.record.id.id;
            if self.db.contains::<Blocks>(&id)? {
                applied.skipped_blocks += 1;
                continue;
            }
            let block_mc = if id.workchain == -1 {
                for shard in &block.shards {
                    let top = shard.block.id;
                    if !self.db.contains::<McByTopShard>(&top)? {
                        batch.put::<McByTopShard>(&top, &id.seqno);
                    }
                }
                Some(id.seqno)
            } else if mc_seqno.is_some() {
                mc_seqno
            } else {
                // A shard block that arrives after the masterchain block
                // listing it as a top, or after a committed child: committed
                // by that masterchain block, together with its stored
                // ancestors nothing committed yet.
                let late = match self.db.get::<McByTopShard>(&id)? {
                    Some(mc) => Some(mc),
                    None => self.committed_by_child(id)?,
                };
                if let Some(mc) = late {
                    for rec in self.stored_uncommitted(prev_ids(&block.record), in_unit)? {
                        late_adopt.push((rec, mc));
                    }
                }
                late
            };
            let first_tx_id = cursor.next_tx_id;
            cursor.next_tx_id += block.transactions.len() as u64;
            applied.blocks += 1;
            applied.transactions += block.transactions.len() as u64;
            applied.messages += block
                .transactions
                .iter()
                .map(|t| t.in_msg.is_some() as u64 + t.out_msgs.len() as u64)
                .sum::<u64>();
            batch.append(block_rows(block, block_mc));
            new_blocks.push(NewBlock {
                block,
                mc_seqno: block_mc,
                first_tx_id,
            });
        }
        Ok((new_blocks, late_adopt))
    }

    /// The writer's own work on a unit: account states, balances,
    /// contracts and their token events.
    fn index_states(
        &self,
        batch: &mut Batch<'_>,
        applied: &mut Applied,
        unit: &Unit,
        accounts: &[FetchedAccount],
        new_blocks: &[NewBlock<'_>],
        next_mc: u32,
    ) -> Result<(), IndexError> {
        let mc_seqno = unit.masterchain().map(|b| b.record.id.id.seqno);
        // The masterchain block from which on each block's state is in
        // force: the one committing it; for a shard block none has
        // committed yet, the next one (the earliest that can).
        let in_force: HashMap<BlockId, u32> = new_blocks
            .iter()
            .map(|b| (b.block.record.id.id, b.mc_seqno.unwrap_or(next_mc)))
            .collect();
        let mut states = StateWork::new(self.db);
        for block in &unit.blocks {
            let id = block.record.id.id;
            let mc = in_force.get(&id).copied().unwrap_or(next_mc);
            match states.apply_block(batch, block, mc)? {
                StateStep::Applied { .. } => applied.state_updates += 1,
                StateStep::Gap { held_seqno } => {
                    applied.state_gaps += 1;
                    tracing::warn!(
                    block = %format!("({},{:016x},{})", id.workchain, id.shard, id.seqno),
                    held_seqno,
                    "shard state not advanced: the held state is not this block's predecessor"
                    )
                }
                StateStep::UpdateSkipped => {
                    applied.state_gaps += 1;
                    tracing::warn!(
                        block = %format!("({},{:016x},{})", id.workchain, id.shard, id.seqno),
                        "shard state not advanced: the block was decoded before its shard's \
                         state was imported; importing the blocks again advances it"
                    )
                }
                StateStep::NotTracked | StateStep::AlreadyApplied => {}
            }
        }
        let mut changes = states.take_changes();
        if !accounts.is_empty() {
            let held = self.held_shards()?;
            for a in accounts {
                let tracked = held
                    .iter()
                    .any(|(wc, shard)| *wc == a.address.workchain && a.address.in_shard(*shard));
                if !tracked {
                    state::put_account(
                        batch,
                        &a.address,
                        &a.shard_account,
                        Some(a.source),
                        a.gen_utime,
                    );
                    changes.push((a.address, Some(a.shard_account.clone())));
                }
            }
        }
        let newest_utime = unit
            .blocks
            .iter()
            .map(|b| b.record.gen_utime)
            .max()
            .unwrap_or(0);
        balances::index_balances(self.db, batch, &changes)?;
        let written = written_states(&changes);
        let step = contracts::index_contracts(
            self.db,
            &self.state.tvm_env,
            batch,
            &written,
            mc_seqno,
            newest_utime,
        )?;
        applied.contracts = step.done;
        applied.token_events = token_events::index_token_events(self.db, batch, new_blocks, &step)?;
        Ok(())
    }

    /// Commits a unit's batch (with the cursor moved past it) unless it
    /// brought nothing, publishes it to the commit feed and releases the
    /// states retention no longer keeps.
    fn commit_unit(
        &self,
        mut batch: Batch<'_>,
        mut cursor: IngestCursor,
        mut applied: Applied,
        next: traces::Deferred,
        mc_seqno: Option<u32>,
        new_blocks: &[NewBlock<'_>],
    ) -> Result<Applied, IndexError> {
        let nothing_new = applied.blocks == 0 && applied.adopted_blocks == 0;
        if nothing_new && applied.state_updates == 0 {
            *self.deferred() = Some(traces::Deferred::default());
            return Ok(applied);
        }
        if let Some(range) = next.tx_range() {
            batch.put_unassembled(Some(range));
        }
        if !nothing_new {
            cursor.units += 1;
            cursor.blocks += applied.blocks;
            cursor.transactions += applied.transactions;
            cursor.messages += applied.messages;
            if let Some(mc) = mc_seqno {
                cursor.last_mc_seqno = Some(cursor.last_mc_seqno.map_or(mc, |m| m.max(mc)));
            }
            batch.put_cursor(&cursor);
        }
        self.clock.time(Step::Commit, || self.db.write(batch))?;
        *self.deferred() = Some(next);
        if let Some(feed) = &self.feed {
            feed.publish(feed::Committed {
                mc_seqno,
                blocks: new_blocks.iter().map(|b| b.block.record.id).collect(),
                transactions: committed_txs(new_blocks),
                ..Default::default()
            });
        }
        let due = cursor
            .last_mc_seqno
            .and_then(|newest| self.keep_states.release_through(newest));
        if let Some(through) = due {
            applied.released = self.clock.time(Step::Release, || {
                retention::release_states(self.db, through)
            })?;
            if applied.released.states > 0 {
                tracing::debug!(
                    through_mc_seqno = through,
                    states = applied.released.states,
                    cells = applied.released.cells,
                    "older states released"
                );
            }
        }
        Ok(applied)
    }

    /// The shards whose state the index holds, as `(workchain, shard)`.
    fn held_shards(&self) -> Result<Vec<(i32, u64)>, IndexError> {
        let reader = self.db.reader();
        let mut out = Vec::new();
        for row in reader.prefix::<tonindex_storage::tables::ShardStates>(&[], false) {
            let (key, _) = row?;
            out.push((key.workchain, key.shard));
        }
        Ok(out)
    }

    /// The masterchain seqno that committed a stored block directly after
    /// `id` (next seqno in the same shard, or in a child shard after a
    /// split). The masterchain block that committed the child committed
    /// `id` with it, `id` being no top of an earlier one (checked first).
    /// A merge's child is not looked for: its seqno need not be `id`'s + 1.
    fn committed_by_child(&self, id: BlockId) -> Result<Option<u32>, IndexError> {
        let Some(seqno) = id.seqno.checked_add(1) else {
            return Ok(None);
        };
        let low_bit = id.shard & id.shard.wrapping_neg();
        let mut shards = vec![id.shard];
        if low_bit > 1 {
            shards.extend([id.shard - low_bit / 2, id.shard + low_bit / 2]);
        }
        for shard in shards {
            let child = BlockId {
                workchain: id.workchain,
                shard,
                seqno,
            };
            if let Some(rec) = self.db.get::<Blocks>(&child)? {
                if rec.prev_blocks.iter().any(|p| p.block.id == id) && rec.mc_block_seqno.is_some()
                {
                    return Ok(rec.mc_block_seqno);
                }
            }
        }
        Ok(None)
    }

    /// Stored blocks that a masterchain block committing `tops` commits too:
    /// walking back from the tops (through this unit's own blocks) over
    /// stored blocks no masterchain block has committed yet.
    fn stored_uncommitted(
        &self,
        tops: impl IntoIterator<Item = BlockId>,
        in_unit: &HashMap<BlockId, &DecodedBlock>,
    ) -> Result<Vec<BlockRecord>, IndexError> {
        let mut found = Vec::new();
        let mut lookup_err = None;
        commit::committed_blocks(tops, |id| {
            if let Some(b) = in_unit.get(id) {
                return Some(prev_ids(&b.record));
            }
            match self.db.get::<Blocks>(id) {
                Ok(Some(rec)) if rec.mc_block_seqno.is_none() => {
                    let prevs = prev_ids(&rec);
                    found.push(rec);
                    Some(prevs)
                }
                Ok(_) => None,
                Err(e) => {
                    lookup_err.get_or_insert(e);
                    None
                }
            }
        });
        match lookup_err {
            Some(e) => Err(e.into()),
            None => Ok(found),
        }
    }

    /// The contracts that vouch for `accounts` (Jetton masters, NFT
    /// collections, multisigs of the wallets, items and orders among them)
    /// whose state the index does not hold, run at masterchain block
    /// `mc_seqno`'s config and time `now`: a source that fetched
    /// `accounts` fetches these too, so the unit can confirm its tokens.
    pub fn parents_to_fetch(
        &self,
        accounts: &[FetchedAccount],
        mc_seqno: u32,
        now: u32,
    ) -> Result<Vec<Address>, IndexError> {
        let states: Vec<(Address, tycho_types::cell::Cell)> = accounts
            .iter()
            .map(|a| (a.address, a.shard_account.clone()))
            .collect();
        Ok(contracts::parents_wanted(
            self.db,
            &self.state.tvm_env,
            &states,
            Some(mc_seqno),
            now,
        )?)
    }

    /// Of the libraries `hashes` names, those the index's get-methods
    /// would lack (not in the held masterchain state, not fetched before).
    pub fn missing_libraries(
        &self,
        hashes: &[tycho_types::cell::HashBytes],
    ) -> Vec<tycho_types::cell::HashBytes> {
        self.state.tvm_env.missing_libraries(self.db, hashes)
    }

    /// Library cells a source fetched (each checked against its hash), for
    /// the get-methods of the units after; stored, so that a restart has
    /// them.
    pub fn add_libraries(&self, cells: Vec<tycho_types::cell::Cell>) -> Result<(), IndexError> {
        self.flush()?;
        self.state.tvm_env.add_libraries(self.db, cells)?;
        Ok(())
    }

    /// Keeps the config of key block `seqno` (its config dictionary BoC,
    /// as a key block's unit writes it): for an index that starts after
    /// that key block (a follower from the tip), which would otherwise
    /// hold no config in force until the next key block. One row, one
    /// batch; writing it again is harmless.
    pub fn put_key_block_config(&self, seqno: u32, config_boc: Vec<u8>) -> Result<(), IndexError> {
        self.flush()?;
        let mut batch = self.db.batch();
        batch.put::<KeyBlockConfig>(&seqno, &Lz4Bytes(config_boc));
        self.db.write(batch)?;
        Ok(())
    }

    /// Imports a shard state or one account's state, as one batch.
    pub fn apply_state_file(&self, file: &StateFile) -> Result<(), IndexError> {
        self.flush()?;
        let mut batch = self.db.batch();
        let mut states = StateWork::new(self.db);
        // In force from the next masterchain block.
        let in_force = self.db.cursor()?.last_mc_seqno.map_or(0, |m| m + 1);
        match file {
            StateFile::State(s) => {
                states.import_state(&mut batch, s, in_force)?;
                // The config a masterchain state holds is the one in force
                // at its seqno: served and used from there on as a key
                // block's (a zero state's is the config at genesis).
                if let Some(config) = &s.config_boc {
                    batch.put::<KeyBlockConfig>(&s.seqno, &Lz4Bytes(config.clone()));
                }
            }
            StateFile::Account(a) => states.import_account(&mut batch, a),
        }
        let now = match file {
            StateFile::State(s) => s.gen_utime,
            StateFile::Account(_) => 0,
        };
        let changes = states.take_changes();
        balances::index_balances(self.db, &mut batch, &changes)?;
        contracts::index_contracts(
            self.db,
            &self.state.tvm_env,
            &mut batch,
            &written_states(&changes),
            None,
            now,
        )?;
        self.db.write(batch)?;
        Ok(())
    }

    /// Marks a stored shard block (and its transactions) as committed by
    /// `mc_seqno`; hands back the transactions' ids (their traces follow
    /// once the previous unit's trace rows are in, [`traces::adopt_traces`]).
    fn adopt(
        &self,
        batch: &mut Batch<'_>,
        mut rec: BlockRecord,
        mc_seqno: u32,
    ) -> Result<Vec<u64>, IndexError> {
        let id = rec.id.id;
        rec.mc_block_seqno = Some(mc_seqno);
        batch.put::<Blocks>(&id, &rec);
        batch.put::<McBlocks>(
            &McBlockKey {
                mc_seqno,
                block: id,
            },
            &(),
        );
        let reader = self.db.reader();
        let keys: Vec<u64> = reader
            .prefix::<TxByBlock>(&BlockTxKey::prefix(&id), false)
            .map(|r| r.map(|(k, ())| k.tx_id))
            .collect::<Result<_, _>>()?;
        let rows = crate::query::transactions::load_txs(&reader, &keys)?;
        for (tx_id, loaded) in keys.iter().zip(rows) {
            let row = loaded.record;
            let key = McLtAccountKey {
                mc_seqno,
                lt: row.lt,
                tx: TxTail::new(&row.account, *tx_id),
            };
            batch.put::<TxByMcBlock>(&key, &());
            batch.set_mc_block(*tx_id, mc_seqno);
        }
        Ok(keys)
    }
}

/// What a batch's trace work leaves for after its commit.
struct AfterCommit {
    update: traces::PendingUpdate,
    committed: feed::Committed,
}

/// Clears in `batch` (which holds a deferred unit's trace rows) the marks
/// they answer.
fn clear_deferred(batch: &mut Batch<'_>, work: traces::TraceWork) -> AfterCommit {
    if work.clears_unassembled {
        batch.put_unassembled(None);
    }
    if work.clears_unclassified {
        batch.put_unclassified(&[]);
    }
    AfterCommit {
        update: work.pending,
        committed: feed::Committed {
            settled_traces: work.settled,
            classified_traces: work.classified,
            traced_in_msgs: work.traced_in_msgs,
            ..Default::default()
        },
    }
}

/// The feed's view of a unit's new transactions.
fn committed_txs(blocks: &[NewBlock<'_>]) -> Vec<feed::CommittedTx> {
    blocks
        .iter()
        .flat_map(|b| {
            b.block.transactions.iter().map(move |t| feed::CommittedTx {
                hash: t.record.hash,
                account: t.record.account,
                lt: t.record.lt,
                in_msg: t.record.in_msg,
                mc_seqno: b.mc_seqno,
            })
        })
        .collect()
}

/// A stored shard block a late shard block shows committed, with the
/// masterchain block that commits it.
type LateAdoption = (BlockRecord, u32);

/// A block of the unit that is not stored yet, with where its rows go.
struct NewBlock<'u> {
    block: &'u DecodedBlock,
    mc_seqno: Option<u32>,
    /// Its transactions take ids from here on, in block order.
    first_tx_id: u64,
}

/// Runs `op` on the calling thread; what it spawns runs on `pool` (`None`:
/// rayon's global pool), and the call returns when that is done too. The
/// import's decoding and the writer's encoding both hand work over so.
pub(crate) fn in_place_scope<'scope, R>(
    pool: Option<&rayon::ThreadPool>,
    op: impl FnOnce(&rayon::Scope<'scope>) -> R,
) -> R {
    match pool {
        Some(pool) => pool.in_place_scope(op),
        None => rayon::in_place_scope(op),
    }
}

/// The rows of one block itself (not of its transactions).
fn block_rows(block: &DecodedBlock, mc_seqno: Option<u32>) -> EncodedRows {
    let mut rows = EncodedRows::default();
    let mut record = block.record.clone();
    record.mc_block_seqno = mc_seqno;
    let id = record.id.id;
    rows.put::<Blocks>(&id, &record);
    rows.put::<BlockByHash>(&record.id.root_hash, &id);
    rows.put::<BlockByHash>(&record.id.file_hash, &id);
    rows.put::<BlockByUtime>(
        &TimeBlockKey {
            utime: record.gen_utime,
            block: id,
        },
        &(),
    );
    if let Some(mc) = mc_seqno {
        rows.put::<McBlocks>(
            &McBlockKey {
                mc_seqno: mc,
                block: id,
            },
            &(),
        );
    }
    if id.workchain == -1 {
        for shard in &block.shards {
            let key = McBlockKey {
                mc_seqno: id.seqno,
                block: shard.block.id,
            };
            rows.put::<McShardState>(&key, shard);
        }
        if let Some(config) = &block.config_boc {
            rows.put::<KeyBlockConfig>(&id.seqno, &Lz4Bytes(config.clone()));
        }
    }
    rows
}

/// The numbers of the accounts of the new blocks' transactions
/// ([`AccountNumbers`]): those stored, and new ones handed out from the
/// cursor in order of first appearance, their rows (both ways, with
/// [`AccountAddresses`]) queued in `batch`.
fn account_numbers(
    db: &Db,
    batch: &mut Batch<'_>,
    cursor: &mut IngestCursor,
    blocks: &[NewBlock<'_>],
) -> Result<HashMap<Address, u64>, IndexError> {
    let mut accounts = Vec::new();
    let mut seen = HashSet::new();
    for tx in blocks.iter().flat_map(|b| &b.block.transactions) {
        if seen.insert(tx.record.account) {
            accounts.push(tx.record.account);
        }
    }
    let stored = db.reader().multi_get::<AccountNumbers>(&accounts)?;
    let mut numbers = HashMap::with_capacity(accounts.len());
    for (account, num) in accounts.into_iter().zip(stored) {
        let num = match num {
            Some(num) => num,
            None => {
                let num = cursor.next_account_num;
                cursor.next_account_num += 1;
                batch.put::<AccountNumbers>(&account, &num);
                batch.put::<AccountAddresses>(&num, &account);
                num
            }
        };
        numbers.insert(account, num);
    }
    Ok(numbers)
}

/// Transactions per parallel encoding task.
const TX_CHUNK: usize = 32;

/// The rows of the new blocks' transactions and messages, with each
/// account's newest state offered, encoded in chunks as `encoding` says.
fn tx_rows(
    blocks: &[NewBlock<'_>],
    numbers: &HashMap<Address, u64>,
    encoding: &RowEncoding,
) -> Vec<(EncodedRows, Vec<(Address, LatestAccount)>)> {
    // A message seen from both ends within the unit is written once, where
    // it first appears.
    let mut seen = HashSet::new();
    let first: Vec<Vec<bool>> = blocks
        .iter()
        .flat_map(|b| &b.block.transactions)
        .map(|tx| {
            tx.in_msg
                .iter()
                .chain(&tx.out_msgs)
                .map(|m| seen.insert(m.hash))
                .collect()
        })
        .collect();
    let mut tasks = Vec::new();
    let mut tx_index = 0;
    for b in blocks {
        let n = b.block.transactions.len();
        for start in (0..n).step_by(TX_CHUNK) {
            let end = (start + TX_CHUNK).min(n);
            tasks.push((b, start..end, &first[tx_index + start..tx_index + end]));
        }
        tx_index += n;
    }
    let encode = |(b, range, first): &(&NewBlock<'_>, std::ops::Range<usize>, &[Vec<bool>])| {
        let mut rows = EncodedRows::default();
        let mut offers = Vec::with_capacity(range.len());
        for (i, write_msgs) in range.clone().zip(first.iter()) {
            let tx_id = b.first_tx_id + i as u64;
            let tx = &b.block.transactions[i];
            let num = numbers[&tx.record.account];
            offers.push(tx_rows_one(&mut rows, b, tx, (tx_id, num), write_msgs));
        }
        (rows, offers)
    };
    let parallel = || tasks.par_iter().map(encode).collect();
    match encoding {
        RowEncoding::Parallel(Some(pool)) if tx_index >= 2 * TX_CHUNK => pool.install(parallel),
        RowEncoding::Parallel(None) if tx_index >= 2 * TX_CHUNK => parallel(),
        _ => tasks.iter().map(encode).collect(),
    }
}

/// One transaction's rows (`ids`: its id and its account's number);
/// returns the account state it leaves.
fn tx_rows_one(
    rows: &mut EncodedRows,
    b: &NewBlock<'_>,
    tx: &DecodedTransaction,
    (tx_id, account_num): (u64, u64),
    write_msgs: &[bool],
) -> (Address, LatestAccount) {
    let id = b.block.record.id.id;
    let mut rec = tx.record.clone();
    rec.mc_block_seqno = b.mc_seqno;
    let account = rec.account;
    let by_hash = TagIdKey {
        tag: hash_tag(&rec.hash),
        id: tx_id,
    };
    rows.put::<TxByHash>(&by_hash, &());
    let tail = TxTail::new(&account, tx_id);
    rows.put::<TxByLt>(
        &LtAccountKey {
            lt: rec.lt,
            tx: tail,
        },
        &(),
    );
    rows.put::<TxByNow>(
        &TimeLtAccountKey {
            now: rec.now,
            lt: rec.lt,
            tx: tail,
        },
        &(),
    );
    rows.put::<TxByBlock>(&BlockTxKey { block: id, tx_id }, &());
    if let Some(mc) = b.mc_seqno {
        let key = McLtAccountKey {
            mc_seqno: mc,
            lt: rec.lt,
            tx: tail,
        };
        rows.put::<TxByMcBlock>(&key, &());
    }
    // In-message first, then out-messages: the order `write_msgs` follows.
    let msgs = tx.in_msg.iter().map(|m| (m, true));
    let msgs = msgs.chain(tx.out_msgs.iter().map(|m| (m, false)));
    for ((m, incoming), write) in
        msgs.zip(write_msgs.iter().copied().chain(std::iter::repeat(true)))
    {
        if write {
            message_rows(rows, m, rec.lt);
        }
        let end = if incoming { RECEIVED_BY } else { SENT_BY };
        rows.link::<Messages, _>(&hash_tag(&m.hash), end, tx_id);
    }
    let state = LatestAccount {
        last_tx_lt: rec.lt,
        last_tx_hash: rec.hash,
        last_tx_id: tx_id,
        status: rec.end_status,
        timestamp: rec.now,
        state_hash: rec.account_state_hash_after,
        code_hash: b.block.code_after(&account).flatten(),
    };
    let place = TxPlace {
        block: rec.block,
        mc_block_seqno: rec.mc_block_seqno,
        global_version: b.block.record.gen_software_version,
        account_num,
        lt: rec.lt,
        // Set by trace assembly once the unit is committed.
        trace_tag: None,
    };
    rows.put::<Transactions>(&tx_id, &place);
    let boc = TxBoc {
        tx_id,
        boc: tx.boc.clone(),
    };
    rows.put::<TxBocs>(&place.boc_key(), &boc);
    (account, state)
}

fn prev_ids(rec: &BlockRecord) -> Vec<BlockId> {
    rec.prev_blocks.iter().map(|p| p.block.id).collect()
}

/// A message's indexes: source, destination, normalized hash, body hash,
/// opcode, created_lt, created_at. Its `messages` row holds only the
/// transactions at its ends, linked by each.
pub(crate) fn message_rows(rows: &mut EncodedRows, m: &MessageRecord, tx_lt: u64) {
    let tag = hash_tag(&m.hash);
    let key = NullableOrderKey {
        value: m.created_lt,
        tag,
    };
    rows.put::<MsgByCreatedLt>(&key, &());
    let key = NullableOrderKey {
        value: m.created_at.map(u64::from),
        tag,
    };
    rows.put::<MsgByCreatedAt>(&key, &());
    // A message whose normalized hash is its own hash is found by that
    // hash already (most wallets' externals: 16 bytes a transaction).
    if let Some(hash_norm) = m.hash_norm.filter(|h| *h != m.hash) {
        let key = HashMsgKey {
            hash: hash_norm,
            msg_hash: m.hash,
        };
        rows.put::<MsgByHashNorm>(&key, &());
    }
    // The filtered `/messages` orders: by created_lt (or created_at), then
    // hash; external-in messages have neither and sort as nulls.
    let by_lt = NullableOrderKey {
        value: m.created_lt,
        tag,
    };
    let grouped = |group: &MessageGroupKey<'_>, order: NullableOrderKey| GroupOrderKey {
        group: group.encode(),
        order,
    };
    let by_at = NullableOrderKey {
        value: m.created_at.map(u64::from),
        tag,
    };
    let body = MessageGroupKey::BodyHash(&m.body_hash);
    rows.put::<MsgByBodyHash>(&grouped(&body, by_lt), &());
    rows.put::<MsgByBodyHashUtime>(&grouped(&body, by_at), &());
    if let Some(opcode) = m.opcode {
        let group = MessageGroupKey::Opcode(opcode);
        rows.put::<MsgByOpcode>(&grouped(&group, by_lt), &());
        rows.put::<MsgByOpcodeUtime>(&grouped(&group, by_at), &());
    }
    if let Some(source) = m.source {
        // Every message with a source has a created_lt; the importing
        // transaction's lt stands in should one not.
        let key = AccountLtTagKey {
            account: source,
            lt: m.created_lt.unwrap_or(tx_lt),
            tag,
        };
        rows.put::<MsgBySource>(&key, &());
    }
    if let Some(destination) = m.destination {
        let group = MessageGroupKey::Account(&destination);
        rows.put::<MsgByDestination>(&grouped(&group, by_lt), &());
        rows.put::<MsgByDestinationUtime>(&grouped(&group, by_at), &());
    }
}

/// An account's state as a source fetched it (a lite server, its proofs
/// checked): its `ShardAccount` cell as of block `source`.
#[derive(Debug, Clone)]
pub struct FetchedAccount {
    pub address: Address,
    pub shard_account: tycho_types::cell::Cell,
    pub source: BlockId,
    pub gen_utime: u32,
}

/// The newest transaction per account seen in a unit, merged with storage at the end.
#[derive(Default)]
struct LatestStates(HashMap<Address, LatestAccount>);

impl LatestStates {
    fn offer(&mut self, account: Address, state: LatestAccount) {
        match self.0.get(&account) {
            Some(cur) if cur.last_tx_lt >= state.last_tx_lt => {}
            _ => {
                self.0.insert(account, state);
            }
        }
    }

    fn write(self, db: &Db, batch: &mut Batch<'_>) -> Result<(), IndexError> {
        let mut entries: Vec<_> = self.0.into_iter().collect();
        entries.sort_by_key(|(a, _)| *a);
        let keys: Vec<Address> = entries.iter().map(|(a, _)| *a).collect();
        let stored = db.reader().multi_get::<LatestAccounts>(&keys)?;
        for ((account, state), old) in entries.into_iter().zip(stored) {
            if old.is_none_or(|o| o.last_tx_lt < state.last_tx_lt) {
                batch.put::<LatestAccounts>(&account, &state);
            }
        }
        Ok(())
    }
}

/// The account states among a unit's changes (removals left out).
fn written_states(changes: &[(Address, Option<Cell>)]) -> Vec<(Address, Cell)> {
    changes
        .iter()
        .filter_map(|(a, c)| c.as_ref().map(|c| (*a, c.clone())))
        .collect()
}
