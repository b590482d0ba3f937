//! Blocks: by id and hash, the indexed masterchain range, the shard blocks
//! a masterchain block commits, a shard's blocks in order, and the
//! transactions of one block.

use tonindex_model::{BlockId, BlockRecord, Hash, ShardDescrRecord};
use tonindex_storage::tables::{
    self, BlockByHash, BlockTxKey, Blocks, McBlockKey, McBlocks, McShardState, TxByBlock,
};
use tonindex_storage::{Error, Reader};

/// The masterchain's only shard.
pub const MASTER_SHARD: u64 = 0x8000_0000_0000_0000;

/// The lowest and highest indexed masterchain blocks.
pub fn mc_block_range(r: &Reader<'_>) -> Result<Option<(BlockRecord, BlockRecord)>, Error> {
    let prefix = tables::shard_blocks_prefix(-1, MASTER_SHARD);
    let first = r.prefix::<Blocks>(&prefix, false).next().transpose()?;
    let last = r.prefix::<Blocks>(&prefix, true).next().transpose()?;
    Ok(first.zip(last).map(|((_, f), (_, l))| (f, l)))
}

pub fn block(r: &Reader<'_>, id: &BlockId) -> Result<Option<BlockRecord>, Error> {
    r.get::<Blocks>(id)
}

/// A block by its root or file hash.
pub fn block_by_hash(r: &Reader<'_>, hash: &Hash) -> Result<Option<BlockRecord>, Error> {
    match r.get::<BlockByHash>(hash)? {
        Some(id) => block(r, &id),
        None => Ok(None),
    }
}

/// The masterchain block `seqno`.
pub fn mc_block(r: &Reader<'_>, seqno: u32) -> Result<Option<BlockRecord>, Error> {
    block(
        r,
        &BlockId {
            workchain: -1,
            shard: MASTER_SHARD,
            seqno,
        },
    )
}

/// The top shard blocks fixed by masterchain block `seqno` (empty when unknown).
pub fn shard_state(r: &Reader<'_>, mc_seqno: u32) -> Result<Vec<ShardDescrRecord>, Error> {
    r.prefix::<McShardState>(&McBlockKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(_, v)| v))
        .collect()
}

/// The indexed blocks among `ids` (in their order; those not indexed are
/// left out).
pub fn blocks(r: &Reader<'_>, ids: &[BlockId]) -> Result<Vec<BlockRecord>, Error> {
    Ok(r.multi_get::<Blocks>(ids)?.into_iter().flatten().collect())
}

/// Every indexed block that masterchain block `mc_seqno` commits (itself
/// included), in key order.
pub fn blocks_of_mc_block(r: &Reader<'_>, mc_seqno: u32) -> Result<Vec<BlockRecord>, Error> {
    let ids: Vec<BlockId> = r
        .prefix::<McBlocks>(&McBlockKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(k, ())| k.block))
        .collect::<Result<_, _>>()?;
    blocks(r, &ids)
}

/// Which blocks [`blocks_iter`] walks.
#[derive(Debug, Clone, Copy)]
pub enum BlockScope {
    /// Every indexed block.
    All,
    /// One workchain's blocks.
    Workchain(i32),
    /// One shard's blocks.
    Shard(i32, u64),
}

/// The blocks of a scope in key order (workchain, shard, seqno).
pub fn blocks_iter<'a>(
    r: &Reader<'a>,
    scope: BlockScope,
) -> impl Iterator<Item = Result<BlockRecord, Error>> + 'a {
    let prefix = match scope {
        BlockScope::All => Vec::new(),
        BlockScope::Workchain(w) => tables::workchain_prefix(w),
        BlockScope::Shard(w, s) => tables::shard_blocks_prefix(w, s),
    };
    r.prefix::<Blocks>(&prefix, false)
        .map(|x| x.map(|(_, b)| b))
}

/// The ids of one block's transactions, in `(account, lt)` order.
pub fn block_tx_ids(r: &Reader<'_>, block: &BlockId) -> Result<Vec<u64>, Error> {
    r.prefix::<TxByBlock>(&BlockTxKey::prefix(block), false)
        .map(|x| x.map(|(k, ())| k.tx_id))
        .collect()
}
