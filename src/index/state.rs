//! Exact account states: imported shard states, and every later block of a
//! held shard applied through its state-update Merkle update.
//!
//! A block's update names the old state's unchanged subtrees by hash; the
//! new state is built against shallow cells read from the `cells` table
//! and must hash to the update's `new_hash` (tycho-types checks it). Only
//! the new cells are written. The accounts that had transactions in the
//! block are then read from the new state, completed from the table, and
//! stored as ShardAccount BoCs for the API.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, HashBytes};
use tycho_types::merkle::MerkleUpdate;
use tycho_types::models::ShardAccounts;

use tonindex_model::{Address, BlockId, BlockRef};
use tonindex_storage::tables::{
    workchain_prefix, AccountStates, Cells, ShardKey, ShardStates, StateReleaseKey, StateReleases,
};
use tonindex_storage::{AccountStateRecord, Batch, Counted, Db, ShardStateRecord};

use crate::decode::state::{DecodedAccount, DecodedState};
use crate::decode::{DecodedBlock, StateUpdate};
use crate::state::cells::{encode_row, is_shallow, CellError, CellRows, Loader};

/// Why a state could not be imported or advanced.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error(transparent)]
    Cell(#[from] CellError),
    #[error(transparent)]
    Storage(#[from] tonindex_storage::Error),
    #[error("block {0}: state update does not apply: {1}")]
    Update(String, String),
}

/// What applying a block did to the state of its shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateStep {
    /// No state is held for the block's shard.
    NotTracked,
    /// The held state is already at (or past) this block.
    AlreadyApplied,
    /// The held state is older than the block's predecessor, or another
    /// chain: the state stays where it is.
    Gap { held_seqno: u32 },
    /// The block was decoded without its state update (no state was held
    /// yet when it was decoded): the state stays where it is.
    UpdateSkipped,
    /// The state advanced to this block; `accounts` rows were rewritten.
    Applied { accounts: usize },
}

/// The held state(s) a block's update starts from.
enum Start {
    /// The block's own shard.
    Same(ShardStateRecord),
    /// After a split: the parent shard's state.
    Split {
        parent: ShardKey,
        held: ShardStateRecord,
    },
    /// After a merge: the states of the two halves, joined as `split_state`.
    Merge {
        left: (ShardKey, ShardStateRecord),
        right: (ShardKey, ShardStateRecord),
    },
}

/// State work of one unit: rows queued in its batch are visible to the
/// unit's later blocks through this overlay.
pub struct StateWork<'db> {
    db: &'db Db,
    cells: HashMap<HashBytes, Vec<u8>>,
    roots: HashMap<ShardKey, ShardStateRecord>,
    /// Account states written (ShardAccount cells) or removed (`None`) so
    /// far, oldest first, for the steps that read contracts and balances
    /// from them.
    changes: Vec<(Address, Option<Cell>)>,
}

impl CellRows for StateWork<'_> {
    fn row(&self, hash: &HashBytes) -> Result<Option<Vec<u8>>, CellError> {
        if let Some(r) = self.cells.get(hash) {
            return Ok(Some(r.clone()));
        }
        Ok(self.db.get::<Cells>(hash.as_array())?.map(|r| r.bytes))
    }
}

impl<'db> StateWork<'db> {
    pub fn new(db: &'db Db) -> Self {
        Self {
            db,
            cells: HashMap::new(),
            roots: HashMap::new(),
            changes: Vec::new(),
        }
    }

    /// The account states written or removed since the last call, oldest first.
    pub fn take_changes(&mut self) -> Vec<(Address, Option<Cell>)> {
        std::mem::take(&mut self.changes)
    }

    /// Whether the database holds any shard state, so that blocks applied
    /// to it need their state updates.
    pub fn holds_any_state(db: &Db) -> Result<bool, tonindex_storage::Error> {
        let first = db.reader().prefix::<ShardStates>(&[], false).next();
        Ok(first.transpose()?.is_some())
    }

    /// Whether the store (or this unit) holds the cell `hash`.
    fn holds(&self, hash: &HashBytes) -> Result<bool, StateError> {
        Ok(self.cells.contains_key(hash) || self.db.contains::<Cells>(hash.as_array())?)
    }

    /// Counts one more reference to the tree under `root` (a state that is
    /// now kept): a cell the store holds — shallow, or found by its hash —
    /// gains one; a new cell is written with a count of one, and each of its
    /// references is counted the same way. Each new row is written once.
    fn add_tree(&mut self, batch: &mut Batch<'_>, root: &Cell) -> Result<(), StateError> {
        let mut more: HashMap<HashBytes, i32> = HashMap::new();
        let mut stack = vec![root.as_ref()];
        while let Some(cell) = stack.pop() {
            let hash = *cell.repr_hash();
            if is_shallow(cell) || self.holds(&hash)? {
                *more.entry(hash).or_default() += 1;
                continue;
            }
            let row = encode_row(cell);
            batch.put::<Cells>(
                hash.as_array(),
                &Counted {
                    count: 1,
                    bytes: row.clone(),
                },
            );
            self.cells.insert(hash, row);
            stack.extend(cell.references());
        }
        // After the rows: a count moved in the batch that puts the row.
        for (hash, n) in more {
            batch.add_refs::<Cells>(hash.as_array(), n);
        }
        Ok(())
    }

    /// Schedules the state `root` of `shard`, replaced by a newer one from
    /// masterchain block `mc_seqno` on, for release once that block is
    /// older than the states kept (see [`super::retention`]).
    fn release_later(batch: &mut Batch<'_>, root: [u8; 32], shard: ShardKey, mc_seqno: u32) {
        batch.put::<StateReleases>(&StateReleaseKey { mc_seqno, root }, &shard);
    }

    fn held(&self, key: &ShardKey) -> Result<Option<ShardStateRecord>, StateError> {
        match self.roots.get(key) {
            Some(r) => Ok(Some(r.clone())),
            None => Ok(self.db.get::<ShardStates>(key)?),
        }
    }

    /// The seqno of a state held for a shard of `workchain` that overlaps
    /// `shard` (contains it or lies in it), if any.
    fn overlapping_held(&self, workchain: i32, shard: u64) -> Result<Option<u32>, StateError> {
        let overlaps = |other: u64| {
            let span = |s: u64| {
                let low = s & s.wrapping_neg();
                (s - (low - 1), s | (low - 1))
            };
            let ((a0, a1), (b0, b1)) = (span(shard), span(other));
            a0 <= b1 && b0 <= a1
        };
        for (key, rec) in &self.roots {
            if key.workchain == workchain && overlaps(key.shard) {
                return Ok(Some(rec.seqno));
            }
        }
        for row in self
            .db
            .reader()
            .prefix::<ShardStates>(&workchain_prefix(workchain), false)
        {
            let (key, rec) = row?;
            if overlaps(key.shard) {
                return Ok(Some(rec.seqno));
            }
        }
        Ok(None)
    }

    /// Imports a full shard state: its cells, its root, every account.
    /// Account rows of the shard that the state does not list are removed.
    /// A state older than the one held for its shard is left out.
    /// A different state held for the shard is released after masterchain
    /// block `mc_seqno` (from which on the imported one is in force).
    pub fn import_state(
        &mut self,
        batch: &mut Batch<'_>,
        state: &DecodedState,
        mc_seqno: u32,
    ) -> Result<(), StateError> {
        let key = ShardKey {
            workchain: state.workchain,
            shard: state.shard,
        };
        let root_hash = *state.root.repr_hash().as_array();
        let held = self.held(&key)?;
        if let Some(held) = held.as_ref().filter(|h| h.seqno > state.seqno) {
            // Importing the files of an earlier import again: the blocks
            // after this state are applied already.
            tracing::info!(
                workchain = state.workchain,
                shard = %format!("{:016x}", state.shard),
                seqno = state.seqno,
                held_seqno = held.seqno,
                "a state older than the one held is left unimported"
            );
            return Ok(());
        }
        match held {
            // Counted already when it was first imported.
            Some(held) if held.root_hash == root_hash => {}
            held => {
                self.add_tree(batch, &state.root)?;
                if let Some(held) = held {
                    Self::release_later(batch, held.root_hash, key, mc_seqno);
                }
            }
        }
        let record = ShardStateRecord {
            seqno: state.seqno,
            root_hash,
            gen_utime: state.gen_utime,
            gen_lt: state.gen_lt,
        };
        batch.put::<ShardStates>(&key, &record);
        self.roots.insert(key, record);

        let listed: HashSet<Address> = state.accounts.iter().map(|(a, _)| *a).collect();
        let reader = self.db.reader();
        for row in reader.prefix::<AccountStates>(&workchain_prefix(state.workchain), false) {
            let (addr, _) = row?;
            if addr.in_shard(state.shard) && !listed.contains(&addr) {
                batch.delete::<AccountStates>(&addr);
                self.changes.push((addr, None));
            }
        }
        let block = BlockId {
            workchain: state.workchain,
            shard: state.shard,
            seqno: state.seqno,
        };
        for (addr, cell) in &state.accounts {
            put_account(batch, addr, cell, Some(block), state.gen_utime);
            self.changes.push((*addr, Some(cell.clone())));
        }
        Ok(())
    }

    /// Imports one account's state given on its own.
    pub fn import_account(&mut self, batch: &mut Batch<'_>, account: &DecodedAccount) {
        put_account(batch, &account.address, &account.shard_account, None, 0);
        self.changes
            .push((account.address, Some(account.shard_account.clone())));
    }

    /// The held state(s) `block`'s update starts from, if any.
    fn start_of(&self, block: &DecodedBlock, key: &ShardKey) -> Result<Option<Start>, StateError> {
        let rec = &block.record;
        let own = self.held(key)?;
        if own.as_ref().is_some_and(|h| h.seqno >= rec.id.id.seqno) {
            return Ok(own.map(Start::Same));
        }
        let held_prev = |b: &BlockRef| -> Result<Option<(ShardKey, ShardStateRecord)>, StateError> {
            let k = ShardKey {
                workchain: b.block.id.workchain,
                shard: b.block.id.shard,
            };
            Ok(self
                .held(&k)?
                .filter(|h| h.seqno == b.block.id.seqno)
                .map(|h| (k, h)))
        };
        if let (true, [l, r]) = (rec.after_merge, rec.prev_blocks.as_slice()) {
            if let (Some(left), Some(right)) = (held_prev(l)?, held_prev(r)?) {
                return Ok(Some(Start::Merge { left, right }));
            }
        }
        if let (true, [parent]) = (rec.after_split, rec.prev_blocks.as_slice()) {
            if let Some((parent, held)) = held_prev(parent)? {
                return Ok(Some(Start::Split { parent, held }));
            }
        }
        Ok(own.map(Start::Same))
    }

    /// Advances the state of the block's shard by the block's Merkle update
    /// (after a merge, the two halves' states; after a split, the parent's).
    /// The state(s) it starts from are released after masterchain block
    /// `mc_seqno`, the one that commits this block (from which on the new
    /// state is in force).
    pub fn apply_block(
        &mut self,
        batch: &mut Batch<'_>,
        block: &DecodedBlock,
        mc_seqno: u32,
    ) -> Result<StateStep, StateError> {
        let id = block.record.id.id;
        let key = ShardKey {
            workchain: id.workchain,
            shard: id.shard,
        };
        let Some(start) = self.start_of(block, &key)? else {
            // A state held for an overlapping shard that this block cannot
            // follow (its parent's, not yet at the split; a child's) is a gap.
            return Ok(match self.overlapping_held(id.workchain, id.shard)? {
                Some(held_seqno) => StateStep::Gap { held_seqno },
                None => StateStep::NotTracked,
            });
        };
        let name = || format!("({},{:016x},{})", id.workchain, id.shard, id.seqno);
        let update = match &block.state_update {
            StateUpdate::Kept(update) => update,
            StateUpdate::Skipped => {
                return Ok(match &start {
                    Start::Same(held) if id.seqno <= held.seqno => StateStep::AlreadyApplied,
                    _ => StateStep::UpdateSkipped,
                })
            }
            StateUpdate::Unreadable => {
                return Err(StateError::Update(
                    name(),
                    "the block has no readable state update".into(),
                ))
            }
        };
        let merged_halves = match self.check_start(&start, id, update)? {
            Ok(halves) => halves,
            Err(step) => return Ok(step),
        };

        let loader = Loader::new(self);
        let failure = RefCell::new(None);
        let applied = update.apply_trusted(|hash: &HashBytes| match loader.shallow(hash) {
            Ok(c) => Some(c),
            Err(e) => {
                failure.borrow_mut().get_or_insert(e);
                None
            }
        });
        let new_root = match (applied, failure.into_inner(), &start) {
            (_, Some(CellError::Missing(_)), Start::Split { held, .. }) => {
                return Ok(StateStep::Gap {
                    held_seqno: held.seqno,
                })
            }
            (_, Some(e), _) => return Err(e.into()),
            (Ok(root), None, _) => root,
            (Err(e), None, _) => return Err(StateError::Update(name(), e.to_string())),
        };
        if new_root.repr_hash() != &update.new_hash {
            return Err(StateError::Update(name(), "new state hash differs".into()));
        }

        let changed: Vec<Address> = {
            let mut seen = HashSet::new();
            block
                .transactions
                .iter()
                .map(|t| t.record.account)
                .filter(|a| seen.insert(*a))
                .collect()
        };
        let accounts = if changed.is_empty() {
            Vec::new()
        } else {
            self.changed_accounts(&new_root, &changed)
                .map_err(|e| StateError::Update(name(), e))?
        };
        self.add_tree(batch, &new_root)?;
        match &start {
            Start::Same(held) => Self::release_later(batch, held.root_hash, key, mc_seqno),
            // Both halves name the parent: one row (the same block commits
            // both halves, so the same key).
            Start::Split { parent, held } => {
                Self::release_later(batch, held.root_hash, *parent, mc_seqno)
            }
            Start::Merge { left, right } => {
                for (half, held) in [left, right] {
                    Self::release_later(batch, held.root_hash, *half, mc_seqno);
                }
            }
        }

        let mut loader = Loader::new(self);
        let mut changes = Vec::with_capacity(accounts.len());
        for (addr, cell) in &accounts {
            match cell {
                Some(cell) => {
                    let whole = loader.deepen(cell)?;
                    put_account(batch, addr, &whole, Some(id), block.record.gen_utime);
                    changes.push((*addr, Some(whole)));
                }
                None => {
                    batch.delete::<AccountStates>(addr);
                    changes.push((*addr, None));
                }
            }
        }
        self.changes.extend(changes);
        let record = ShardStateRecord {
            seqno: id.seqno,
            root_hash: *new_root.repr_hash().as_array(),
            gen_utime: block.record.gen_utime,
            gen_lt: block.record.end_lt,
        };
        batch.put::<ShardStates>(&key, &record);
        self.roots.insert(key, record);
        // The merged halves are one shard now. (A split parent's row stays:
        // its other half may still start from it.)
        for half in merged_halves {
            batch.delete::<ShardStates>(&half);
            self.roots.remove(&half);
        }
        Ok(StateStep::Applied {
            accounts: accounts.len(),
        })
    }

    /// Whether `update` starts from `start`, the state(s) held: the
    /// halves a merge joins (they go once the merged state is in), or the
    /// step that ends the block here (applied already, or a gap).
    fn check_start(
        &self,
        start: &Start,
        id: BlockId,
        update: &MerkleUpdate,
    ) -> Result<Result<Vec<ShardKey>, StateStep>, StateError> {
        match &start {
            Start::Same(held) => {
                if id.seqno <= held.seqno {
                    return Ok(Err(StateStep::AlreadyApplied));
                }
                if id.seqno != held.seqno + 1 || update.old_hash.as_array() != &held.root_hash {
                    return Ok(Err(StateStep::Gap {
                        held_seqno: held.seqno,
                    }));
                }
                Ok(Ok(Vec::new()))
            }
            Start::Merge { left, right } => {
                // split_state#5f327da5 left:^ShardStateUnsplit right:^ShardStateUnsplit
                let loader = Loader::new(self);
                let halves = [
                    loader.shallow(&HashBytes(left.1.root_hash))?,
                    loader.shallow(&HashBytes(right.1.root_hash))?,
                ];
                let joined = (|| {
                    let mut b = CellBuilder::new();
                    b.store_u32(0x5f32_7da5)?;
                    for half in halves {
                        b.store_reference(half)?;
                    }
                    b.build()
                })();
                match joined {
                    Ok(c) if c.repr_hash() == &update.old_hash => {}
                    _ => {
                        return Ok(Err(StateStep::Gap {
                            held_seqno: left.1.seqno,
                        }))
                    }
                }
                Ok(Ok(vec![left.0, right.0]))
            }
            // The update starts from this block's half of the parent's state,
            // which the index does not build: the old hash cannot be checked.
            // The unchanged subtrees it names are the parent's own cells; the
            // result is exact whenever they are all found (its hash is the
            // update's new hash by construction).
            Start::Split { .. } => Ok(Ok(Vec::new())),
        }
    }

    /// The ShardAccount cells of `accounts` in the new state (`None`: gone).
    /// An account whose state changed has its whole dictionary path new in
    /// the update; a lookup that runs into a shallow (unchanged) subtree is
    /// an account whose state did not change — one that stayed
    /// nonexistent through its transaction — and is left out.
    #[allow(clippy::type_complexity)]
    fn changed_accounts(
        &self,
        root: &Cell,
        accounts: &[Address],
    ) -> Result<Vec<(Address, Option<Cell>)>, String> {
        // shard_state#9023afe2 … out_msg_queue_info:^OutMsgQueueInfo … accounts:^ShardAccounts …
        let accounts_cell = root
            .reference_cloned(1)
            .ok_or("the new state has no accounts reference")?;
        // The whole dictionary unchanged (shallow: the update kept it from
        // the old state): the block's transactions all ran on accounts that
        // stayed nonexistent, as a bounce arriving from another shard does.
        if crate::state::cells::is_shallow(accounts_cell.as_ref()) {
            return Ok(Vec::new());
        }
        let dict: ShardAccounts = accounts_cell
            .parse()
            .map_err(|e| format!("accounts: {e}"))?;
        let mut out = Vec::with_capacity(accounts.len());
        for addr in accounts {
            let Ok(found) = dict.get(HashBytes(addr.id)) else {
                continue;
            };
            let cell = found
                .map(|(_, sa)| CellBuilder::build_from(&sa))
                .transpose()
                .map_err(|e| e.to_string())?;
            out.push((*addr, cell));
        }
        Ok(out)
    }
}

/// Writes an account's state row (its `ShardAccount` BoC, the block whose
/// state it comes from, that state's time, its code hash).
pub(crate) fn put_account(
    batch: &mut Batch<'_>,
    addr: &Address,
    shard_account: &Cell,
    state: Option<BlockId>,
    gen_utime: u32,
) {
    let record = AccountStateRecord {
        shard_account: Boc::encode(shard_account.as_ref()),
        state,
        gen_utime,
        code_hash: code_hash(shard_account),
    };
    batch.put::<AccountStates>(addr, &record);
}

/// The code hash of an active account's ShardAccount cell. A cell that
/// does not read as an account has none (the API reports the read error).
fn code_hash(shard_account: &Cell) -> Option<[u8; 32]> {
    super::contracts::code_of(shard_account).map(|c| *c.repr_hash().as_array())
}
