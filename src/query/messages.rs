//! Messages: by hash (and TEP-467 normalized hash), by body hash and
//! opcode, an account's sent or received messages in lt order, every
//! message in creation order, and the transactions on each side of one.
//! Bodies and init states live only in the BoCs of the transactions that
//! hold the messages, and are read from there.

use std::collections::HashMap;

use tonindex_model::{Address, Hash, MessageRecord};
use tonindex_storage::tables::{
    AccountLtHashKey, HashTxKey, Messages, MsgByBodyHash, MsgByCreatedAt, MsgByCreatedLt,
    MsgByDestination, MsgByHashNorm, MsgByOpcode, MsgBySource, NullableOrderKey, OpcodeLtHashKey,
    TxBocs, TxByInMsg, TxByOutMsg,
};
use tonindex_storage::{prefix_successor, Error, Key, Reader};
use tycho_types::cell::Cell;

use crate::decode::message::{message_contents, MessageContents};
use crate::decode::transaction::message_cells;

/// A message as the APIs show it: its record, and its body and init state
/// read from the BoC of a transaction that holds it (the index stores them
/// only there).
pub struct Message {
    pub record: MessageRecord,
    pub contents: MessageContents,
}

pub(super) const MISSING_TX: Error = Error::Corrupt("index points to a missing transaction");
pub(super) const CORRUPT_TX_BOC: Error = Error::Corrupt("a stored transaction BoC does not parse");
const MISSING_MSG: Error = Error::Corrupt("a transaction lacks a message the index links to it");

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

/// One end of a message: the account that sent it or the one it went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Sender,
    Receiver,
}

/// Hashes of the messages `account` sent or received (by `side`) with
/// `lo <= created_lt <= hi`, ascending.
pub fn account_msg_hashes(
    r: &Reader<'_>,
    account: &Address,
    side: Side,
    lo: u64,
    hi: u64,
) -> Result<Vec<Hash>, Error> {
    let (lower, upper) = AccountLtHashKey::lt_range(account, lo, hi);
    let hashes = |x: Result<(AccountLtHashKey, ()), Error>| x.map(|(k, ())| k.hash);
    match side {
        Side::Sender => r
            .range::<MsgBySource>(&lower, upper, false)
            .map(hashes)
            .collect(),
        Side::Receiver => r
            .range::<MsgByDestination>(&lower, upper, false)
            .map(hashes)
            .collect(),
    }
}

/// Hashes of the messages `account` sent (or received) with `lo <= lt <=
/// hi`, by lt then hash, oldest or newest first, read as they are used.
pub fn account_msg_hashes_iter<'a>(
    r: &Reader<'a>,
    account: &Address,
    side: Side,
    (lo, hi): (u64, u64),
    desc: bool,
) -> Box<dyn Iterator<Item = Result<Hash, Error>> + 'a> {
    let (lower, upper) = AccountLtHashKey::lt_range(account, lo, hi);
    let hashes = |x: Result<(AccountLtHashKey, ()), Error>| x.map(|(k, ())| k.hash);
    match side {
        Side::Sender => Box::new(r.range::<MsgBySource>(&lower, upper, desc).map(hashes)),
        Side::Receiver => Box::new(r.range::<MsgByDestination>(&lower, upper, desc).map(hashes)),
    }
}

/// The `created_lt` range `lo..=hi` of the messages `source` sent,
/// narrowed to those created at `start..=end`: one account's messages are
/// in time order as in lt order (its own history, whether or not the
/// index holds the transactions that sent them).
pub fn sent_lt_range_in_time(
    r: &Reader<'_>,
    source: &Address,
    lts: (u64, u64),
    window: (Option<u64>, Option<u64>),
) -> Result<Option<(u64, u64)>, Error> {
    let first_from = |lt: u64| -> Result<Option<(u64, u32)>, Error> {
        let Some(hash) =
            account_msg_hashes_iter(r, source, Side::Sender, (lt, u64::MAX), false).next()
        else {
            return Ok(None);
        };
        let m = message(r, &hash?)?.ok_or(Error::Corrupt("a listed message is missing"))?;
        Ok(m.created_lt.zip(m.created_at))
    };
    super::transactions::lt_range_in_time(first_from, lts, window)
}

/// The order [`hashes_in_order`] walks messages in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageOrder {
    /// By `created_at`.
    CreatedAt,
    /// By `created_lt`.
    CreatedLt,
}

/// Message hashes in one order: those whose ordering value is in
/// `lo..=hi` (when `with_value`), then those without one (external
/// messages have no `created_lt`/`created_at`; when `without_value`),
/// ascending, or the reverse when `desc`.
pub fn hashes_in_order<'a>(
    r: &Reader<'a>,
    order: MessageOrder,
    (lo, hi): (u64, u64),
    with_value: bool,
    without_value: bool,
    desc: bool,
) -> impl Iterator<Item = Result<Hash, Error>> + 'a {
    let mut segments = Vec::with_capacity(2);
    if with_value && lo <= hi {
        segments.push(NullableOrderKey::value_range(lo, hi));
    }
    if without_value {
        let nulls = NullableOrderKey::null_prefix();
        let end = prefix_successor(&nulls);
        segments.push((nulls, end));
    }
    if desc {
        segments.reverse();
    }
    // The iterators read nothing until walked.
    let walks: Vec<Box<dyn Iterator<Item = Result<Hash, Error>> + 'a>> = segments
        .into_iter()
        .map(
            |(lower, upper)| -> Box<dyn Iterator<Item = Result<Hash, Error>> + 'a> {
                match order {
                    MessageOrder::CreatedAt => Box::new(
                        r.range::<MsgByCreatedAt>(&lower, upper, desc)
                            .map(|k| k.map(|(k, ())| k.hash)),
                    ),
                    MessageOrder::CreatedLt => Box::new(
                        r.range::<MsgByCreatedLt>(&lower, upper, desc)
                            .map(|k| k.map(|(k, ())| k.hash)),
                    ),
                }
            },
        )
        .collect();
    walks.into_iter().flatten()
}

/// The ids of the transactions at one end of a message: the receiver's
/// (that took it in) or the sender's (that sent it out), in key order.
pub fn txs_of_message(r: &Reader<'_>, msg: &Hash, side: Side) -> Result<Vec<u64>, Error> {
    let prefix = HashTxKey::prefix(msg);
    let ids = |x: Result<(HashTxKey, ()), Error>| x.map(|(k, ())| k.tx_id);
    match side {
        Side::Receiver => r.prefix::<TxByInMsg>(&prefix, false).map(ids).collect(),
        Side::Sender => r.prefix::<TxByOutMsg>(&prefix, false).map(ids).collect(),
    }
}

/// The id of the first transaction at one end of a message (see
/// [`txs_of_message`]).
pub fn first_tx_of_message(r: &Reader<'_>, msg: &Hash, side: Side) -> Result<Option<u64>, Error> {
    let prefix = HashTxKey::prefix(msg);
    let first = match side {
        Side::Receiver => r.prefix::<TxByInMsg>(&prefix, false).next(),
        Side::Sender => r.prefix::<TxByOutMsg>(&prefix, false).next(),
    };
    Ok(first.transpose()?.map(|(k, ())| k.tx_id))
}

/// The message cells of a stored transaction BoC, by hash.
pub(super) fn tx_message_cells(boc: &[u8]) -> Result<HashMap<Hash, Cell>, Error> {
    let root = tycho_types::boc::Boc::decode(boc).map_err(|_| CORRUPT_TX_BOC)?;
    let cells = message_cells(&root).map_err(|_| CORRUPT_TX_BOC)?;
    Ok(cells
        .into_iter()
        .map(|c| (*c.repr_hash().as_array(), c))
        .collect())
}

/// A record with the contents of its message cell.
pub(super) fn with_contents(record: MessageRecord, cell: Option<&Cell>) -> Result<Message, Error> {
    let contents = message_contents(cell.ok_or(MISSING_MSG)?).map_err(|_| CORRUPT_TX_BOC)?;
    Ok(Message { record, contents })
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
