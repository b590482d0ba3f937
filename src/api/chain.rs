//! Reads of chain records that both APIs make: blocks, transactions with
//! their messages, account histories, shard states and config.

use tonindex_model::{Address, BlockId, BlockRecord, Hash, MessageRecord, ShardDescrRecord};
use tonindex_storage::tables::{
    self, AccountLtKey, BlockByHash, Blocks, KeyBlockConfig, McShardState, Messages, Transactions,
    TxByAccount, TxByHash,
};
use tonindex_storage::{prefix_successor, Error, Key, Reader, TxRow};

/// The masterchain's only shard.
pub const MASTER_SHARD: u64 = 0x8000_0000_0000_0000;

/// A transaction with its messages resolved.
#[derive(Debug, Clone)]
pub struct FullTx {
    pub row: TxRow,
    pub in_msg: Option<MessageRecord>,
    pub out_msgs: Vec<MessageRecord>,
}

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
    r.prefix::<McShardState>(&tables::McBlockKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(_, v)| v))
        .collect()
}

/// The config dictionary BoC of the newest key block at or below `mc_seqno`
/// (any when `None`), with that block's seqno.
pub fn config_at(r: &Reader<'_>, mc_seqno: Option<u32>) -> Result<Option<(u32, Vec<u8>)>, Error> {
    let upper = mc_seqno.and_then(|s| s.checked_add(1)).map(|s| s.encode());
    let newest = r
        .range::<KeyBlockConfig>(&[], upper, true)
        .next()
        .transpose()?;
    Ok(newest.map(|(seqno, boc)| (seqno, boc.0)))
}

/// Loads messages by hash; hashes the index does not hold are skipped.
pub fn messages(r: &Reader<'_>, hashes: &[Hash]) -> Result<Vec<MessageRecord>, Error> {
    Ok(r.multi_get::<Messages>(hashes)?
        .into_iter()
        .flatten()
        .collect())
}

pub fn message(r: &Reader<'_>, hash: &Hash) -> Result<Option<MessageRecord>, Error> {
    r.get::<Messages>(hash)
}

/// Loads one transaction row.
pub fn tx_row(r: &Reader<'_>, id: u64) -> Result<TxRow, Error> {
    r.get::<Transactions>(&id)?
        .ok_or(Error::Corrupt("index points to a missing transaction"))
}

/// Loads transactions by id with their in- and out-messages.
pub fn full_txs(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<FullTx>, Error> {
    let rows = r.multi_get::<Transactions>(ids)?;
    let loaded = rows
        .into_iter()
        .map(|row| row.ok_or(Error::Corrupt("index points to a missing transaction")))
        .collect::<Result<Vec<_>, _>>()?;
    with_messages(r, loaded)
}

/// Resolves the in- and out-messages of loaded transactions (out-messages
/// by `created_lt`).
pub fn with_messages(
    r: &Reader<'_>,
    rows: impl IntoIterator<Item = TxRow>,
) -> Result<Vec<FullTx>, Error> {
    rows.into_iter()
        .map(|row| {
            let in_msg = match &row.record.in_msg {
                Some(h) => message(r, h)?,
                None => None,
            };
            let mut out_msgs = messages(r, &row.record.out_msgs)?;
            out_msgs.sort_by_key(|m| m.created_lt);
            Ok(FullTx {
                row,
                in_msg,
                out_msgs,
            })
        })
        .collect()
}

pub fn tx_id_by_hash(r: &Reader<'_>, hash: &Hash) -> Result<Option<u64>, Error> {
    r.get::<TxByHash>(hash)
}

/// An account's transaction ids with `lo <= lt <= hi`, oldest or newest first.
pub fn account_tx_ids_iter<'a>(
    r: &Reader<'a>,
    account: &Address,
    lo: u64,
    hi: u64,
    desc: bool,
) -> impl Iterator<Item = Result<u64, Error>> + 'a {
    let lower = AccountLtKey {
        account: *account,
        lt: lo,
    }
    .encode();
    let upper = match hi.checked_add(1) {
        Some(lt) => Some(
            AccountLtKey {
                account: *account,
                lt,
            }
            .encode(),
        ),
        None => prefix_successor(&AccountLtKey::prefix(account)),
    };
    r.range::<TxByAccount>(&lower, upper, desc)
        .map(|x| x.map(|(_, id)| id))
}
