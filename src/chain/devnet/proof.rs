//! Merkle proofs of the devnet's blocks, for v2 `getShardBlockProof`:
//! each proof keeps the cells a checker reads — the rest pruned — as a
//! liteserver's `liteServer.shardBlockProof` does:
//!
//! - a *link*: the masterchain block, down to the shard hashes that list the
//!   shard block;
//! - a *link back* from a newer masterchain block to an older one: the older
//!   block's header (`dest_proof`), the newer block's header with its state
//!   update (`proof`), and the newer block's state down to the entry of its
//!   `prev_blocks` that names the older block (`state_proof`).
//!
//! Blocks are read from the BoC files the devnet keeps beside its database;
//! states from the cell store.

use std::path::Path;

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, HashBytes, UsageTree, UsageTreeMode};
use tycho_types::error::Error;
use tycho_types::merkle::MerkleProof;
use tycho_types::models::{Block, ShardAccount, ShardStateUnsplit};

use crate::state::cells::{CellRows, Loader};

/// The Merkle proof cell of `root` keeping what `visit` reads of it.
pub(crate) fn proof_cell_of(
    root: &Cell,
    visit: impl FnOnce(&Cell) -> Result<(), Error>,
) -> Result<Cell, Error> {
    let usage = UsageTree::new(UsageTreeMode::OnDataAccess);
    let tracked = usage.track(root);
    visit(&tracked)?;
    let proof = MerkleProof::create(root.as_ref(), usage).build()?;
    CellBuilder::build_from(&proof)
}

/// The BoC of a Merkle proof of `root` keeping what `visit` reads of it.
fn proof_of(root: &Cell, visit: impl FnOnce(&Cell) -> Result<(), Error>) -> Result<Vec<u8>, Error> {
    Ok(crate::boc::encode(proof_cell_of(root, visit)?.as_ref()))
}

/// A BoC of two roots, as liteservers send a block proof and a state proof
/// together (`getAllShardsInfo`, `getAccountState`).
pub fn two_roots(first: &[u8], second: &Cell) -> anyhow::Result<Vec<u8>> {
    Ok(many_roots(&[Boc::decode(first)?, second.clone()]))
}

/// A BoC of several roots in their order (`getTransactions` sends one
/// root per transaction).
pub fn many_roots(roots: &[Cell]) -> Vec<u8> {
    let mut iter = roots.iter();
    let Some(first) = iter.next() else {
        return Vec::new();
    };
    let mut header =
        tycho_types::boc::ser::BocHeader::<std::collections::hash_map::RandomState>::with_root(
            first.as_ref(),
        );
    for root in iter {
        header.add_root(root.as_ref());
    }
    let mut out = Vec::new();
    header.encode(&mut out);
    out
}

/// The masterchain state `state_root` (read from the cell store) down to
/// its shard hashes: the proof cell, and the shard hashes as a cell
/// holding the `HashmapE` (what `getAllShardsInfo` calls `data`), as a BoC.
pub fn shard_hashes(
    rows: &dyn CellRows,
    state_root: &HashBytes,
) -> anyhow::Result<(Cell, Vec<u8>)> {
    let state = Loader::new(rows).whole(state_root)?;
    let mut data = None;
    let proof = proof_cell_of(&state, |root| {
        let state: ShardStateUnsplit = root.parse()?;
        if let Some(extra) = state.load_custom()? {
            // Read the whole dictionary: the proof keeps every shard's entry.
            for shard in extra.shards.iter() {
                shard?;
            }
            data = Some(CellBuilder::build_from(&extra.shards)?);
        }
        Ok(())
    })?;
    let data = data.ok_or_else(|| anyhow::anyhow!("not a masterchain state"))?;
    Ok((proof, crate::boc::encode(data.as_ref())))
}

/// A masterchain block's root from the files the devnet keeps.
pub fn masterchain_block_root(dir: &Path, seqno: u32) -> anyhow::Result<Cell> {
    let path = dir.join(super::node::block_file_name(
        -1,
        0x8000_0000_0000_0000,
        seqno,
    ));
    let bytes = std::fs::read(&path).map_err(|e| {
        anyhow::anyhow!(
            "the devnet keeps no file of this block ({}): {e}",
            path.display()
        )
    })?;
    Ok(Boc::decode(bytes)?)
}

/// Masterchain block `mc` lists its shard blocks: a proof down to its shard hashes.
pub fn shard_link(mc: &Cell) -> Result<Vec<u8>, Error> {
    proof_of(mc, |root| {
        let block: Block = root.parse()?;
        block.load_info()?;
        let extra = block.load_extra()?;
        if let Some(custom) = extra.load_custom()? {
            for shard in custom.shards.iter() {
                shard?;
            }
        }
        Ok(())
    })
}

/// A masterchain block's header.
pub fn header(block: &Cell) -> Result<Vec<u8>, Error> {
    proof_of(block, |root| {
        root.parse::<Block>()?.load_info()?;
        Ok(())
    })
}

/// A masterchain block's header with its state update (whose new hash is
/// the state `state_proof` starts from).
pub fn header_and_state(block: &Cell) -> Result<(Vec<u8>, HashBytes), Error> {
    let mut new_state = HashBytes::ZERO;
    let proof = proof_of(block, |root| {
        let block: Block = root.parse()?;
        block.load_info()?;
        new_state = block.state_update.load()?.new_hash;
        Ok(())
    })?;
    Ok((proof, new_state))
}

/// The masterchain state `state_root` (read from the cell store) down to
/// the `prev_blocks` entry of masterchain block `seqno`.
pub fn prev_block_entry(
    rows: &dyn CellRows,
    state_root: &HashBytes,
    seqno: u32,
) -> anyhow::Result<Vec<u8>> {
    let state = Loader::new(rows).whole(state_root)?;
    let mut found = false;
    let proof = proof_of(&state, |root| {
        let state: ShardStateUnsplit = root.parse()?;
        if let Some(extra) = state.load_custom()? {
            found = extra.prev_blocks.get(seqno)?.is_some();
        }
        Ok(())
    })?;
    if !found {
        return Err(anyhow::anyhow!(
            "the state does not list masterchain block {seqno} among its previous blocks"
        ));
    }
    Ok(proof)
}

/// A shard state `state_root` (read from the cell store) down to the entry
/// of account `id` in its accounts dictionary: the proof cell, and the
/// account's `ShardAccount` (its `Account` cell and last transaction)
/// when the state has the account.
pub fn account_entry(
    rows: &dyn CellRows,
    state_root: &HashBytes,
    id: &HashBytes,
) -> anyhow::Result<(Cell, Option<ShardAccount>)> {
    let mut loader = Loader::new(rows);
    let state = loader.whole(state_root)?;
    let mut account = None;
    let proof = proof_cell_of(&state, |root| {
        let state: ShardStateUnsplit = root.parse()?;
        if let Some((_, shard_account)) = state.load_accounts()?.get(id)? {
            account = Some(shard_account);
        }
        Ok(())
    })?;
    // The entry was read through the proof's usage tree: its cells are
    // taken again from the loaded (untracked) state, so that later reads
    // neither touch that tree nor go back to the store.
    let account = match account {
        Some(sa) => {
            let cell = loader.whole(sa.account.inner().repr_hash())?;
            Some(ShardAccount {
                account: tycho_types::cell::Lazy::from_raw(cell)?,
                last_trans_hash: sa.last_trans_hash,
                last_trans_lt: sa.last_trans_lt,
            })
        }
        None => None,
    };
    Ok((proof, account))
}

/// `getAllShardsInfo`'s proof and data for the masterchain block whose BoC
/// is `mc_block`: its header down to the state update and its state down
/// to the shard hashes (two roots), and the shard hashes cell.
pub fn shards_of(rows: &dyn CellRows, mc_block: &[u8]) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let (header, state_hash) = header_and_state(&Boc::decode(mc_block)?)?;
    let (state, data) = shard_hashes(rows, &state_hash)?;
    Ok((two_roots(&header, &state)?, data))
}

/// `getAccountState`'s proof for account `id` in the shard block whose BoC
/// is `block`: its header down to the state update and its state down to
/// the account's entry (two roots), and its `ShardAccount` if any.
pub fn account_of(
    rows: &dyn CellRows,
    block: &[u8],
    id: &HashBytes,
) -> anyhow::Result<(Vec<u8>, Option<ShardAccount>)> {
    let (header, state_hash) = header_and_state(&Boc::decode(block)?)?;
    let (state, account) = account_entry(rows, &state_hash, id)?;
    Ok((two_roots(&header, &state)?, account))
}

/// One transaction of a block as `listBlockTransactions` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockTx {
    pub account: HashBytes,
    pub lt: u64,
    pub hash: HashBytes,
}

/// What `listBlockTransactions` asks of a block: up to `count`
/// transactions, by account then lt (or the reverse), after a given
/// `(account, lt)`.
#[derive(Debug, Clone, Copy)]
pub struct TxPage {
    pub count: usize,
    pub after: Option<(HashBytes, u64)>,
    pub reverse: bool,
}

/// The transactions of the block `block` that `page` asks for, whether
/// more follow, and a Merkle proof of the block keeping its header and
/// the account blocks with each listed transaction whole (the rest pruned).
pub fn block_transactions(
    block: &Cell,
    page: TxPage,
) -> Result<(Vec<BlockTx>, bool, Vec<u8>), Error> {
    let mut listed = Vec::new();
    let mut incomplete = false;
    let proof = proof_of(block, |root| {
        let block: Block = root.parse()?;
        block.load_info()?;
        let account_blocks = block.load_extra()?.account_blocks.load()?;
        let mut all = Vec::new();
        for entry in account_blocks.iter() {
            let (account, _, account_block) = entry?;
            for tx in account_block.transactions.iter() {
                let (lt, _, tx) = tx?;
                all.push((account, lt, tx.inner().clone()));
            }
        }
        if page.reverse {
            all.reverse();
        }
        let after = |a: &HashBytes, lt: u64| match page.after {
            None => true,
            Some(k) if page.reverse => (*a, lt) < k,
            Some(k) => (*a, lt) > k,
        };
        let mut selected = all.into_iter().filter(|(a, lt, _)| after(a, *lt));
        let mut seen = std::collections::HashSet::new();
        for (account, lt, cell) in selected.by_ref().take(page.count) {
            // Listed transactions go into the proof whole: checkers hash
            // them, and some (pytoniq) parse them too.
            read_whole(&cell, &mut seen);
            listed.push(BlockTx {
                account,
                lt,
                hash: *cell.repr_hash(),
            });
        }
        incomplete = selected.next().is_some();
        Ok(())
    })?;
    Ok((listed, incomplete, proof))
}

/// The transaction of `account` at `lt` in block `block`, if it has one,
/// and a Merkle proof of the block keeping its header and the path to the
/// transaction, whole (or to where it would be).
pub fn one_transaction(
    block: &Cell,
    account: &HashBytes,
    lt: u64,
) -> Result<(Option<Cell>, Vec<u8>), Error> {
    let mut found = None;
    let proof = proof_of(block, |root| {
        let block: Block = root.parse()?;
        block.load_info()?;
        let account_blocks = block.load_extra()?.account_blocks.load()?;
        if let Some((_, account_block)) = account_blocks.get(account)? {
            if let Some((_, tx)) = account_block.transactions.get(lt)? {
                let cell = tx.inner().clone();
                read_whole(&cell, &mut std::collections::HashSet::new());
                found = Some(cell);
            }
        }
        Ok(())
    })?;
    Ok((found, proof))
}

/// The masterchain state of block `mc_block` (a BoC) with its config: the
/// block's header down to the state update (`state_proof`), and the state
/// down to the config — its entries for `params` only, or the whole
/// dictionary (`config_proof`).
pub fn config_of(
    rows: &dyn CellRows,
    mc_block: &[u8],
    params: Option<&[u32]>,
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let (header, state_hash) = header_and_state(&Boc::decode(mc_block)?)?;
    let state = Loader::new(rows).whole(&state_hash)?;
    let mut seen = std::collections::HashSet::new();
    let proof = proof_of(&state, |root| {
        let state: ShardStateUnsplit = root.parse()?;
        let extra = state.load_custom()?.ok_or(Error::InvalidData)?;
        let dict = extra.config.params.as_dict();
        match params {
            Some(params) => {
                for &p in params {
                    if let Some(value) = dict.get(p)? {
                        read_whole(&value, &mut seen);
                    }
                }
            }
            None => {
                for entry in dict.iter() {
                    read_whole(&entry?.1, &mut seen);
                }
            }
        }
        Ok(())
    })?;
    Ok((header, proof))
}

/// Reads the data of every cell under `cell` (each once), so that a proof
/// keeps the whole subtree: a checker parses config params in full.
fn read_whole(cell: &Cell, seen: &mut std::collections::HashSet<HashBytes>) {
    if !seen.insert(*cell.repr_hash()) {
        return;
    }
    let _ = cell.data();
    for child in cell.references().cloned() {
        read_whole(&child, seen);
    }
}

/// The config params a forward block link's checker reads from the key
/// block (or zero state) it starts at: the catchain settings (28) and the
/// current validators (34, or 35 while temporary ones are in force).
const VALIDATOR_PARAMS: [u32; 3] = [28, 34, 35];

/// `config_proof` of a forward block link from key block `block`: its
/// header, and its extra's config down to the validator params, each whole.
pub fn key_block_config(block: &Cell) -> Result<Vec<u8>, Error> {
    let mut seen = std::collections::HashSet::new();
    proof_of(block, |root| {
        let block: Block = root.parse()?;
        block.load_info()?;
        let config = block
            .load_extra()?
            .load_custom()?
            .and_then(|mc| mc.config)
            .ok_or(Error::InvalidData)?;
        let dict = config.params.as_dict();
        for p in VALIDATOR_PARAMS {
            if let Some(value) = dict.get(p)? {
                read_whole(&value, &mut seen);
            }
        }
        Ok(())
    })
}

/// `config_proof` of a forward block link from the zero state
/// `state_root` (read from the cell store): the state down to the
/// validator params, each whole.
pub fn zero_state_config(rows: &dyn CellRows, state_root: &HashBytes) -> anyhow::Result<Vec<u8>> {
    let state = Loader::new(rows).whole(state_root)?;
    let mut seen = std::collections::HashSet::new();
    Ok(proof_of(&state, |root| {
        let state: ShardStateUnsplit = root.parse()?;
        let extra = state.load_custom()?.ok_or(Error::InvalidData)?;
        let dict = extra.config.params.as_dict();
        for p in VALIDATOR_PARAMS {
            if let Some(value) = dict.get(p)? {
                read_whole(&value, &mut seen);
            }
        }
        Ok(())
    })?)
}

/// The masterchain state `state_root` (read from the cell store) down to
/// its `last_key_block` reference: a backward link's `state_proof` to the
/// key block before the state's block.
pub fn last_key_block_entry(
    rows: &dyn CellRows,
    state_root: &HashBytes,
) -> anyhow::Result<Vec<u8>> {
    let state = Loader::new(rows).whole(state_root)?;
    Ok(proof_of(&state, |root| {
        let state: ShardStateUnsplit = root.parse()?;
        let extra = state.load_custom()?.ok_or(Error::InvalidData)?;
        extra.last_key_block.ok_or(Error::InvalidData)?;
        Ok(())
    })?)
}
