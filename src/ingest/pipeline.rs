//! The one road into the index. Every source — block files and archive
//! packages (`tonindex import`), the devnet's rounds, a lite server's
//! blocks — hands its units to a [`Pipeline`]: blocks in chain order (a
//! masterchain block and the shard blocks it commits), with the account
//! states and the config in force the source brought. The pipeline alone
//! drives the [`Indexer`]; a source asks an [`IndexView`] what the index
//! holds (where to resume, which shard states and blocks it has, the
//! config in force) instead of reading tables, so `src/chain/` knows
//! neither the storage crate nor the indexer.

use std::path::Path;
use std::sync::Arc;

use tycho_types::cell::{Cell, HashBytes};

use tonindex_model::{Address, BlockId, BlockRecord, Hash};
use tonindex_storage::tables::{ShardKey, ShardStates};
use tonindex_storage::Db;

use crate::decode::state::StateFile;
use crate::decode::DecodedBlock;
use crate::index::retention::KeepStates;
use crate::index::{Applied, IndexError, Indexer, IndexerState, Unit};
use crate::query;
use crate::state::cells::{CellRows, Loader};

pub use crate::index::feed::{CommitFeed, Committed};
pub use crate::index::FetchedAccount;

/// What a source hands the pipeline at a time: one commit.
#[derive(Debug, Default)]
pub struct SourceUnit {
    /// A masterchain block and the shard blocks it commits, in chain order
    /// (the masterchain block last).
    pub blocks: Vec<DecodedBlock>,
    /// States of accounts the unit changed that the source fetched (and
    /// checked) because the index holds no state of their shard.
    pub accounts: Vec<FetchedAccount>,
    /// The config (dictionary BoC) of key block `.0`, in force at this unit,
    /// where the index holds none (a follow that starts after that block).
    pub config: Option<(u32, Vec<u8>)>,
}

/// A shard state the index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldState {
    pub workchain: i32,
    pub shard: u64,
    pub seqno: u32,
    /// The `ShardStateUnsplit` root's representation hash.
    pub root_hash: [u8; 32],
}

/// What the index holds, read-only: what a source may ask before it
/// hands a unit over, and what the devnet's proofs read.
#[derive(Clone)]
pub struct IndexView {
    db: Arc<Db>,
}

impl IndexView {
    /// The database's directory (the devnet keeps its block files beside it).
    pub fn path(&self) -> &Path {
        self.db.path()
    }

    /// Whether nothing was indexed yet: no unit, no state.
    pub fn is_empty(&self) -> Result<bool, IndexError> {
        Ok(self.db.cursor()?.units == 0
            && self
                .db
                .reader()
                .prefix::<ShardStates>(&[], false)
                .next()
                .is_none())
    }

    /// The newest masterchain block indexed: a source resumes after it.
    pub fn last_mc_seqno(&self) -> Result<Option<u32>, IndexError> {
        Ok(self.db.cursor()?.last_mc_seqno)
    }

    /// The newest masterchain block's record.
    pub fn last_mc_block(&self) -> Result<Option<BlockRecord>, IndexError> {
        Ok(query::blocks::mc_block_range(&self.db.reader())?.map(|(_, last)| last))
    }

    /// An indexed block's record.
    pub fn block(&self, id: &BlockId) -> Result<Option<BlockRecord>, IndexError> {
        Ok(query::blocks::block(&self.db.reader(), id)?)
    }

    /// Every shard state the index holds (after a split the parent's too,
    /// until both children moved on).
    pub fn held_states(&self) -> Result<Vec<HeldState>, IndexError> {
        self.db
            .reader()
            .prefix::<ShardStates>(&[], false)
            .map(|r| {
                let (k, s) = r?;
                Ok(HeldState {
                    workchain: k.workchain,
                    shard: k.shard,
                    seqno: s.seqno,
                    root_hash: s.root_hash,
                })
            })
            .collect()
    }

    /// The state the index holds for one shard.
    pub fn held_state(&self, workchain: i32, shard: u64) -> Result<Option<HeldState>, IndexError> {
        Ok(self
            .db
            .get::<ShardStates>(&ShardKey { workchain, shard })?
            .map(|s| HeldState {
                workchain,
                shard,
                seqno: s.seqno,
                root_hash: s.root_hash,
            }))
    }

    /// A held state's whole cell tree, by its root hash.
    pub fn state_root(&self, root_hash: &[u8; 32]) -> Result<Cell, IndexError> {
        let reader = self.db.reader();
        Ok(Loader::new(&reader)
            .whole(&HashBytes(*root_hash))
            .map_err(crate::index::state::StateError::from)?)
    }

    /// Whether the index holds a config in force at masterchain block
    /// `seqno` (the zero state's, or a key block's at or below it).
    pub fn has_config_at(&self, seqno: u32) -> Result<bool, IndexError> {
        Ok(query::config_in_force::config_at(&self.db.reader(), Some(seqno))?.is_some())
    }

    /// Runs `f` on the index's cell store (for proofs over held states).
    pub fn with_cells<T>(&self, f: impl FnOnce(&dyn CellRows) -> T) -> T {
        let reader = self.db.reader();
        f(&reader)
    }
}

/// The ingest pipeline: the only writer of the index.
#[derive(Clone)]
pub struct Pipeline {
    view: IndexView,
    /// What the indexer keeps from one unit to the next.
    state: Arc<IndexerState>,
    feed: Option<CommitFeed>,
    keep_states: KeepStates,
}

impl Pipeline {
    pub fn new(db: Arc<Db>) -> Self {
        Self {
            view: IndexView { db },
            state: Arc::default(),
            feed: None,
            keep_states: KeepStates::DEFAULT,
        }
    }

    /// Announces every commit on `feed` (streams, pending traces, a send
    /// waiting for its transaction).
    pub fn with_feed(self, feed: CommitFeed) -> Self {
        Self {
            feed: Some(feed),
            ..self
        }
    }

    /// Announces on the feed the external messages a source's block
    /// producer refused: emulated traces of them never come true.
    pub fn announce_refused(&self, externals: Vec<Hash>) {
        if let (Some(feed), false) = (&self.feed, externals.is_empty()) {
            feed.publish(crate::index::feed::Committed {
                dropped_externals: externals,
                ..Default::default()
            });
        }
    }

    /// What the index holds.
    pub fn view(&self) -> &IndexView {
        &self.view
    }

    /// Keeps the states of so many masterchain blocks (`[index] keep_states`).
    pub fn with_keep_states(self, keep_states: KeepStates) -> Self {
        Self {
            keep_states,
            ..self
        }
    }

    fn indexer(&self) -> Indexer<'_> {
        let indexer = Indexer::new(&self.view.db)
            .with_state(Arc::clone(&self.state))
            .with_keep_states(self.keep_states);
        match &self.feed {
            Some(feed) => indexer.with_feed(feed.clone()),
            None => indexer,
        }
    }

    /// Commits one unit: its config in force first (one row), then its
    /// blocks and fetched accounts as one atomic batch. A unit fully
    /// present already is a no-op.
    pub fn apply(&self, unit: SourceUnit) -> Result<Applied, IndexError> {
        let indexer = self.indexer();
        if let Some((seqno, boc)) = unit.config {
            indexer.put_key_block_config(seqno, boc)?;
        }
        indexer.apply_with_accounts(
            &Unit {
                blocks: unit.blocks,
            },
            &unit.accounts,
        )
    }

    /// Imports a shard state (a zero state) or one account's state.
    pub fn apply_state(&self, file: &StateFile) -> Result<(), IndexError> {
        self.indexer().apply_state_file(file)
    }

    /// Writes the traces the last unit left now: a source calls it when no
    /// unit follows at once (after a devnet round, at the chain's tip).
    pub fn flush(&self) -> Result<(), IndexError> {
        self.indexer().flush()
    }

    /// Of the libraries `hashes` names, those the index's get-methods
    /// would lack: a source fetches them and hands them to
    /// [`Pipeline::add_libraries`].
    pub fn missing_libraries(&self, hashes: &[HashBytes]) -> Vec<HashBytes> {
        self.indexer().missing_libraries(hashes)
    }

    /// Library cells a source fetched (each checked against its hash).
    pub fn add_libraries(&self, cells: Vec<Cell>) -> Result<(), IndexError> {
        self.indexer().add_libraries(cells)
    }

    /// The contracts that vouch for `accounts` whose state the index does
    /// not hold, for a source to fetch with them.
    pub fn parents_to_fetch(
        &self,
        accounts: &[FetchedAccount],
        mc_seqno: u32,
        now: u32,
    ) -> Result<Vec<Address>, IndexError> {
        self.indexer().parents_to_fetch(accounts, mc_seqno, now)
    }
}
