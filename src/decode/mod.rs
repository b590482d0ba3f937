//! Block BoC → records. Pure: no I/O, no RocksDB, no HTTP.
//!
//! Parallel with rayon across the transactions of a busy block; callers
//! decode many blocks in parallel with [`decode_block`] from a rayon pool.

pub mod accounts_after;
mod block;
pub mod body;
pub mod message;
pub mod msg_descr;
pub mod state;
pub mod transaction;

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::merkle::MerkleUpdate;
use tycho_types::models::{Block, BlockExtra, CurrencyCollection};

use tonindex_model::{Address, BlockRecord, Coins, Hash, ShardDescrRecord};

pub use block::block_record;
pub use msg_descr::{DescrEntry, DescrKind};
pub use transaction::DecodedTransaction;

/// Why a block (or a piece of it that we need) could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("not a valid bag of cells: {0}")]
    Boc(String),
    #[error("the BoC is not a block: {0}")]
    NotABlock(tycho_types::error::Error),
    #[error("block {0}: {1}")]
    Block(String, tycho_types::error::Error),
    #[error("transaction {0}: {1}")]
    Transaction(String, tycho_types::error::Error),
    #[error("message {0}: {1}")]
    Message(String, tycho_types::error::Error),
    #[error("{0}")]
    State(String),
    /// A package entry decoded to another block than its name gives.
    #[error("the entry names block {named}, but its data is block {found}")]
    NotNamed { named: String, found: String },
    /// The decoder panicked on the input: a bug of ours or of tycho-types,
    /// reported as this file's error instead of taking the import down.
    #[error("the decoder failed unexpectedly: {0}")]
    Panic(String),
}

impl DecodeError {
    /// The error for a caught panic, with its message when it has one.
    pub fn from_panic(panic: Box<dyn std::any::Any + Send>) -> Self {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Self::Panic(message)
    }
}

/// Everything the index needs from one block.
#[derive(Debug, Clone)]
pub struct DecodedBlock {
    pub record: BlockRecord,
    /// Top shard blocks listed by a masterchain block.
    pub shards: Vec<ShardDescrRecord>,
    /// ConfigParams dictionary BoC of a key block.
    pub config_boc: Option<Vec<u8>>,
    /// Sorted by (account, lt).
    pub transactions: Vec<DecodedTransaction>,
    pub in_msg_descr: Vec<DescrEntry>,
    pub out_msg_descr: Vec<DescrEntry>,
    /// The state update (old state → new state), for shards whose state is held.
    pub state_update: StateUpdate,
    /// Each account the block changed, as the block left it, by account:
    /// read from the state update whether or not the shard's state is held.
    pub accounts_after: Vec<(Address, accounts_after::AccountAfter)>,
    /// Optional structures that could not be read; the block is indexed regardless.
    pub warnings: Vec<String>,
}

impl DecodedBlock {
    /// `account`'s code hash after the block, where the state update shows it.
    pub fn code_after(&self, account: &Address) -> Option<Option<Hash>> {
        let i = self
            .accounts_after
            .binary_search_by(|(a, _)| a.cmp(account))
            .ok()?;
        Some(self.accounts_after[i].1.code_hash)
    }
}

/// A block's state update, as far as the decode kept it.
///
/// Only a shard whose state is held uses the update, and holding it keeps a
/// large part of the block's cells (the changed accounts' paths) alive
/// until the unit is written: a decode for an import that holds no state
/// skips it.
#[derive(Debug, Clone)]
pub enum StateUpdate {
    Kept(MerkleUpdate),
    /// Not kept: no shard state was held when the block was decoded.
    Skipped,
    /// Present but unreadable; the block's warnings say why.
    Unreadable,
}

/// Below this many transactions a block is decoded on the calling thread.
const PARALLEL_TX_THRESHOLD: usize = 64;

/// Decodes a block from its BoC bytes, state update kept. The file hash is
/// the SHA-256 of `boc`.
pub fn decode_block(boc: &[u8]) -> Result<DecodedBlock, DecodeError> {
    let root = tycho_types::boc::Boc::decode(boc).map_err(|e| DecodeError::Boc(e.to_string()))?;
    decode_block_cell(&root, file_hash(boc), true)
}

/// A block's file hash: the SHA-256 of its BoC file.
pub fn file_hash(boc: &[u8]) -> Hash {
    Sha256::digest(boc).into()
}

/// What a chain file holds.
#[derive(Debug, Clone)]
pub enum ChainItem {
    Block(Box<DecodedBlock>),
    State(Box<state::StateFile>),
}

/// Decodes a block, shard state or account BoC, told apart by its root.
/// `file_hash` is [`file_hash`] of `boc` (an import computes it while it
/// reads the file, off the decode pool); a block keeps its state update if
/// `keep_state_update`.
pub fn decode_chain_boc(
    boc: &[u8],
    file_hash: Hash,
    keep_state_update: bool,
) -> Result<ChainItem, DecodeError> {
    let root = tycho_types::boc::Boc::decode(boc).map_err(|e| DecodeError::Boc(e.to_string()))?;
    if state::is_block(&root) {
        decode_block_cell(&root, file_hash, keep_state_update)
            .map(|b| ChainItem::Block(Box::new(b)))
    } else {
        state::decode_state_file(&root).map(|s| ChainItem::State(Box::new(s)))
    }
}

/// A block's header, and a masterchain block's shard tops and key-block
/// config, without its transactions: what an import reads of every block
/// before it decodes them, to put them in chain order and check their
/// signatures.
#[derive(Debug, Clone)]
pub struct BlockHead {
    pub record: BlockRecord,
    pub shards: Vec<ShardDescrRecord>,
    pub config_boc: Option<Vec<u8>>,
    /// Structures that could not be read (as [`DecodedBlock::warnings`]).
    pub warnings: Vec<String>,
}

/// Reads a block's head from its root cell and file hash.
pub fn decode_block_head(root: &Cell, file_hash: Hash) -> Result<BlockHead, DecodeError> {
    let block: Block = root.parse().map_err(DecodeError::NotABlock)?;
    let info = block.load_info().map_err(DecodeError::NotABlock)?;
    let extra: BlockExtra = block.load_extra().map_err(DecodeError::NotABlock)?;
    let record = block_record(root, file_hash, &block, &info, &extra)?;
    let mut warnings = Vec::new();
    let (shards, config_boc) = block::masterchain_extra(&extra, &mut warnings);
    Ok(BlockHead {
        record,
        shards,
        config_boc,
        warnings,
    })
}

/// Decodes a block from its root cell and known file hash; see
/// [`StateUpdate`] for when to keep the state update.
pub fn decode_block_cell(
    root: &Cell,
    file_hash: Hash,
    keep_state_update: bool,
) -> Result<DecodedBlock, DecodeError> {
    let block: Block = root.parse().map_err(DecodeError::NotABlock)?;
    let info = block.load_info().map_err(DecodeError::NotABlock)?;
    let extra: BlockExtra = block.load_extra().map_err(DecodeError::NotABlock)?;
    let mut record = block_record(root, file_hash, &block, &info, &extra)?;
    let id = record.id.id;
    let ctx = |e| {
        DecodeError::Block(
            format!("({},{:016x},{})", id.workchain, id.shard, id.seqno),
            e,
        )
    };
    let mut warnings = Vec::new();

    // Transaction cells in (account, lt) order.
    let mut cells = Vec::new();
    let account_blocks = extra.account_blocks.load().map_err(ctx)?;
    for entry in account_blocks.iter() {
        let (_, _, account_block) = entry.map_err(ctx)?;
        for tx in account_block.transactions.iter() {
            let (_, _, tx) = tx.map_err(ctx)?;
            cells.push(tx.into_inner());
        }
    }
    record.tx_count = cells.len() as u32;
    let version = record.gen_software_version;
    let mc_seqno = record.mc_block_seqno;
    let decode = |c: &Cell| transaction::decode_transaction(c, id.workchain, id, mc_seqno, version);
    let mut transactions = if cells.len() >= PARALLEL_TX_THRESHOLD {
        cells
            .par_iter()
            .with_min_len(16)
            .map(decode)
            .collect::<Result<Vec<_>, _>>()?
    } else {
        cells.iter().map(decode).collect::<Result<Vec<_>, _>>()?
    };

    let in_msg_descr = msg_descr::load_in_msg_descr(extra.in_msg_description.inner())
        .unwrap_or_else(|e| {
            warnings.push(format!("InMsgDescr unreadable: {e}"));
            Vec::new()
        });
    let out_msg_descr = msg_descr::load_out_msg_descr(extra.out_msg_description.inner())
        .unwrap_or_else(|e| {
            warnings.push(format!("OutMsgDescr unreadable: {e}"));
            Vec::new()
        });
    attach_metadata(&mut transactions, &in_msg_descr, &out_msg_descr);

    let (shards, config_boc) = block::masterchain_extra(&extra, &mut warnings);
    let (state_update, accounts_after) = match block.load_state_update() {
        Ok(update) => {
            let mut changed: Vec<Address> = transactions.iter().map(|t| t.record.account).collect();
            changed.dedup();
            let after = accounts_after::changed_accounts(&update.new, &changed);
            let kept = if keep_state_update {
                StateUpdate::Kept(update)
            } else {
                StateUpdate::Skipped
            };
            (kept, after)
        }
        Err(e) => {
            warnings.push(format!("state update unreadable: {e}"));
            let kept = if keep_state_update {
                StateUpdate::Unreadable
            } else {
                StateUpdate::Skipped
            };
            (kept, Vec::new())
        }
    };
    Ok(DecodedBlock {
        record,
        shards,
        config_boc,
        transactions,
        in_msg_descr,
        out_msg_descr,
        state_update,
        accounts_after,
        warnings,
    })
}

/// Copies v2-envelope metadata onto the messages it describes.
fn attach_metadata(txs: &mut [DecodedTransaction], inm: &[DescrEntry], outm: &[DescrEntry]) {
    let meta: std::collections::HashMap<Hash, _> = inm
        .iter()
        .chain(outm)
        .filter_map(|e| e.metadata.map(|m| (e.key, m)))
        .collect();
    if meta.is_empty() {
        return;
    }
    for tx in txs {
        for m in tx.in_msg.iter_mut().chain(tx.out_msgs.iter_mut()) {
            if let Some(md) = meta.get(&m.hash) {
                m.metadata = Some(*md);
            }
        }
    }
}

/// TON coins with extra currencies as a record.
pub fn coins(c: &CurrencyCollection) -> Result<Coins, tycho_types::error::Error> {
    let mut extra = Vec::new();
    for item in c.other.as_dict().iter() {
        let (id, amount) = item?;
        extra.push((id, amount.to_string()));
    }
    Ok(Coins {
        grams: c.tokens.into_inner(),
        extra,
    })
}

fn hash(h: &HashBytes) -> Hash {
    *h.as_array()
}
