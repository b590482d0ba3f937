//! Reads of chain records that both APIs make: blocks, transactions with
//! their messages, account histories, shard states and config.

use std::collections::HashMap;

use tonindex_model::{
    Address, BlockId, BlockRecord, Hash, MessageRecord, ShardDescrRecord, TransactionRecord,
};
use tonindex_storage::tables::{
    self, AccountLtKey, BlockByHash, Blocks, KeyBlockConfig, McShardState, Messages, MsgByBodyHash,
    MsgByHashNorm, MsgByOpcode, OpcodeLtHashKey, Transactions, TxBocs, TxByAccount, TxByHash,
};
use tonindex_storage::{prefix_successor, Error, Key, Reader};
use tycho_types::cell::Cell;

use crate::decode::message::{message_contents, MessageContents};
use crate::decode::transaction::message_cells;

/// The masterchain's only shard.
pub const MASTER_SHARD: u64 = 0x8000_0000_0000_0000;

/// A message as the APIs show it: its record, and its body and init state
/// read from the BoC of a transaction that holds it (the index stores them
/// only there).
pub struct Message {
    pub record: MessageRecord,
    pub contents: MessageContents,
}

/// A transaction with its messages resolved.
pub struct FullTx {
    pub tx: TransactionRecord,
    pub in_msg: Option<Message>,
    pub out_msgs: Vec<Message>,
    /// The transaction BoC.
    pub boc: Vec<u8>,
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

/// The message hashes a v3 `msg_hash` filter means: each hash itself and
/// every external-in message whose TEP-467 normalized hash it is. Deduplicated,
/// in the order given.
pub fn msg_hashes_or_norm(r: &Reader<'_>, hashes: &[Hash]) -> Result<Vec<Hash>, Error> {
    let mut out: Vec<Hash> = Vec::with_capacity(hashes.len());
    for h in hashes {
        if !out.contains(h) {
            out.push(*h);
        }
        for row in r.prefix::<MsgByHashNorm>(h, false) {
            let (key, ()) = row?;
            if !out.contains(&key.msg_hash) {
                out.push(key.msg_hash);
            }
        }
    }
    Ok(out)
}

/// Hashes of the messages whose body has hash `body_hash`.
pub fn msg_hashes_by_body(r: &Reader<'_>, body_hash: &Hash) -> Result<Vec<Hash>, Error> {
    r.prefix::<MsgByBodyHash>(body_hash, false)
        .map(|row| row.map(|(k, ())| k.msg_hash))
        .collect()
}

/// Hashes of the messages with body opcode `opcode` whose ordering lt
/// (created_lt; an external-in message's transaction lt) is in `lo..=hi`,
/// ascending.
pub fn msg_hashes_by_opcode(
    r: &Reader<'_>,
    opcode: u32,
    lo: u64,
    hi: u64,
) -> Result<Vec<Hash>, Error> {
    let key = |lt| {
        OpcodeLtHashKey {
            opcode,
            lt,
            hash: [0; 32],
        }
        .encode()
    };
    let upper = match hi.checked_add(1) {
        Some(lt) => Some(key(lt)),
        None => prefix_successor(&OpcodeLtHashKey::prefix(opcode)),
    };
    r.range::<MsgByOpcode>(&key(lo), upper, false)
        .map(|row| row.map(|(k, ())| k.hash))
        .collect()
}

pub fn message(r: &Reader<'_>, hash: &Hash) -> Result<Option<MessageRecord>, Error> {
    r.get::<Messages>(hash)
}

const MISSING_TX: Error = Error::Corrupt("index points to a missing transaction");

/// Loads one transaction record.
pub fn tx_record(r: &Reader<'_>, id: u64) -> Result<TransactionRecord, Error> {
    r.get::<Transactions>(&id)?.ok_or(MISSING_TX)
}

const CORRUPT_TX_BOC: Error = Error::Corrupt("a stored transaction BoC does not parse");
const MISSING_MSG: Error = Error::Corrupt("a transaction lacks a message the index links to it");

/// Loads transactions by id with their in- and out-messages.
pub fn full_txs(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<FullTx>, Error> {
    let records = r.multi_get::<Transactions>(ids)?;
    let loaded = ids
        .iter()
        .zip(records)
        .map(|(&id, rec)| rec.map(|rec| (id, rec)).ok_or(MISSING_TX))
        .collect::<Result<Vec<_>, _>>()?;
    with_messages(r, loaded)
}

/// The message cells of a stored transaction BoC, by hash.
fn tx_message_cells(boc: &[u8]) -> Result<HashMap<Hash, Cell>, Error> {
    let root = tycho_types::boc::Boc::decode(boc).map_err(|_| CORRUPT_TX_BOC)?;
    let cells = message_cells(&root).map_err(|_| CORRUPT_TX_BOC)?;
    Ok(cells
        .into_iter()
        .map(|c| (*c.repr_hash().as_array(), c))
        .collect())
}

/// A record with the contents of its message cell.
fn with_contents(record: MessageRecord, cell: Option<&Cell>) -> Result<Message, Error> {
    let contents = message_contents(cell.ok_or(MISSING_MSG)?).map_err(|_| CORRUPT_TX_BOC)?;
    Ok(Message { record, contents })
}

/// Resolves the BoCs and the in- and out-messages (out-messages by
/// `created_lt`) of loaded `(tx_id, record)` pairs.
pub fn with_messages(
    r: &Reader<'_>,
    records: impl IntoIterator<Item = (u64, TransactionRecord)>,
) -> Result<Vec<FullTx>, Error> {
    let records: Vec<_> = records.into_iter().collect();
    let ids: Vec<u64> = records.iter().map(|(id, _)| *id).collect();
    let bocs = r.multi_get::<TxBocs>(&ids)?;
    records
        .into_iter()
        .zip(bocs)
        .map(|((_, tx), boc)| {
            let boc = boc.ok_or(MISSING_TX)?.0;
            let cells = tx_message_cells(&boc)?;
            let in_msg = match &tx.in_msg {
                Some(h) => message(r, h)?
                    .map(|m| with_contents(m, cells.get(h)))
                    .transpose()?,
                None => None,
            };
            let mut out_msgs = messages(r, &tx.out_msgs)?
                .into_iter()
                .map(|m| {
                    let cell = cells.get(&m.hash);
                    with_contents(m, cell)
                })
                .collect::<Result<Vec<_>, _>>()?;
            out_msgs.sort_by_key(|m| m.record.created_lt);
            Ok(FullTx {
                tx,
                in_msg,
                out_msgs,
                boc,
            })
        })
        .collect()
}

/// A message record with its contents, read from the BoC of transaction
/// `holder`, one that sent or received it.
pub fn message_with_contents(
    r: &Reader<'_>,
    record: MessageRecord,
    holder: u64,
) -> Result<Message, Error> {
    let boc = r.get::<TxBocs>(&holder)?.ok_or(MISSING_TX)?.0;
    let cells = tx_message_cells(&boc)?;
    let cell = cells.get(&record.hash);
    with_contents(record, cell)
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
