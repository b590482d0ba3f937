//! Messages: by hash (and TEP-467 normalized hash), an account's sent
//! messages in lt order, every message — or those of one destination, body
//! hash or opcode — in creation order, and the transactions on each side of one.
//! Bodies and init states live only in the BoCs of the transactions that
//! hold the messages, and are read from there.

use std::collections::HashMap;

use tonindex_model::{Address, Hash, MessageRecord};
use tonindex_storage::tables::{
    AccountLtHashKey, GroupOrderKey, HashTxKey, MessageGroupKey, Messages, MsgByBodyHash,
    MsgByBodyHashUtime, MsgByCreatedAt, MsgByCreatedLt, MsgByDestination, MsgByDestinationUtime,
    MsgByHashNorm, MsgByOpcode, MsgByOpcodeUtime, MsgBySource, NullableOrderKey, TxBocs, TxByInMsg,
    TxByOutMsg,
};
use tonindex_storage::{prefix_successor, Error, Reader};
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

/// Hashes of every message of `group`, in its index order (values
/// ascending, then those without one).
fn group_hashes(r: &Reader<'_>, group: &MessageGroup) -> Result<Vec<Hash>, Error> {
    hashes_in_order(
        r,
        MessageOrder::CreatedLt,
        Some(group),
        (0, u64::MAX),
        true,
        true,
        false,
    )
    .collect()
}

/// Hashes of the messages whose body has hash `body_hash`.
pub fn msg_hashes_by_body(r: &Reader<'_>, body_hash: &Hash) -> Result<Vec<Hash>, Error> {
    group_hashes(r, &MessageGroup::BodyHash(*body_hash))
}

/// Hashes of the messages with body opcode `opcode`.
pub fn msg_hashes_by_opcode(r: &Reader<'_>, opcode: u32) -> Result<Vec<Hash>, Error> {
    group_hashes(r, &MessageGroup::Opcode(opcode))
}

/// One end of a message: the account that sent it or the one it went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Sender,
    Receiver,
}

/// Hashes of the messages `account` sent with `lo <= created_lt <= hi`,
/// ascending.
pub fn sent_msg_hashes(
    r: &Reader<'_>,
    account: &Address,
    lo: u64,
    hi: u64,
) -> Result<Vec<Hash>, Error> {
    sent_msg_hashes_iter(r, account, (lo, hi), false).collect()
}

/// Hashes of the messages `account` sent with `lo <= created_lt <= hi`,
/// by lt then hash, oldest or newest first, read as they are used.
pub fn sent_msg_hashes_iter<'a>(
    r: &Reader<'a>,
    account: &Address,
    (lo, hi): (u64, u64),
    desc: bool,
) -> impl Iterator<Item = Result<Hash, Error>> + 'a {
    let (lower, upper) = AccountLtHashKey::lt_range(account, lo, hi);
    r.range::<MsgBySource>(&lower, upper, desc)
        .map(|x| x.map(|(k, ())| k.hash))
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
        let Some(hash) = sent_msg_hashes_iter(r, source, (lt, u64::MAX), false).next() else {
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

/// A set of messages with an index of its own, walked in `/messages` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageGroup {
    /// The messages an account received.
    Destination(Address),
    /// The messages with this body hash.
    BodyHash(Hash),
    /// The messages whose body starts with this opcode.
    Opcode(u32),
}

/// Message hashes in one order, of every message or of one `group`: those
/// whose ordering value is in `lo..=hi` (when `with_value`), then those
/// without one (external-in messages have no `created_lt`/`created_at`;
/// when `without_value`), ascending, or the reverse when `desc`.
pub fn hashes_in_order<'a>(
    r: &Reader<'a>,
    order: MessageOrder,
    group: Option<&MessageGroup>,
    (lo, hi): (u64, u64),
    with_value: bool,
    without_value: bool,
    desc: bool,
) -> impl Iterator<Item = Result<Hash, Error>> + 'a {
    type Walk<'a> = Box<dyn Iterator<Item = Result<Hash, Error>> + 'a>;
    fn walk<'a, T>(
        r: &Reader<'a>,
        (lower, upper): (Vec<u8>, Option<Vec<u8>>),
        desc: bool,
    ) -> Walk<'a>
    where
        T: tonindex_storage::tables::Table<Value = ()> + 'a,
        T::Key: HasMsgHash,
    {
        Box::new(
            r.range::<T>(&lower, upper, desc)
                .map(|k| k.map(|(k, ())| k.msg_hash())),
        )
    }
    let group_key = group.map(|g| match g {
        MessageGroup::Destination(a) => MessageGroupKey::Account(a).encode(),
        MessageGroup::BodyHash(h) => MessageGroupKey::Hash(h).encode(),
        MessageGroup::Opcode(op) => MessageGroupKey::Opcode(*op).encode(),
    });
    let mut segments = Vec::with_capacity(2);
    if with_value && lo <= hi {
        segments.push(match &group_key {
            None => NullableOrderKey::value_range(lo, hi),
            Some(g) => GroupOrderKey::value_range(g, lo, hi),
        });
    }
    if without_value {
        segments.push(match &group_key {
            None => {
                let nulls = NullableOrderKey::null_prefix();
                let end = prefix_successor(&nulls);
                (nulls, end)
            }
            Some(g) => GroupOrderKey::null_range(g),
        });
    }
    if desc {
        segments.reverse();
    }
    let walk_one = |bounds| -> Walk<'a> {
        match (order, group) {
            (MessageOrder::CreatedAt, None) => walk::<MsgByCreatedAt>(r, bounds, desc),
            (MessageOrder::CreatedLt, None) => walk::<MsgByCreatedLt>(r, bounds, desc),
            (MessageOrder::CreatedLt, Some(MessageGroup::Destination(_))) => {
                walk::<MsgByDestination>(r, bounds, desc)
            }
            (MessageOrder::CreatedAt, Some(MessageGroup::Destination(_))) => {
                walk::<MsgByDestinationUtime>(r, bounds, desc)
            }
            (MessageOrder::CreatedLt, Some(MessageGroup::BodyHash(_))) => {
                walk::<MsgByBodyHash>(r, bounds, desc)
            }
            (MessageOrder::CreatedLt, Some(MessageGroup::Opcode(_))) => {
                walk::<MsgByOpcode>(r, bounds, desc)
            }
            (MessageOrder::CreatedAt, Some(MessageGroup::BodyHash(_))) => {
                walk::<MsgByBodyHashUtime>(r, bounds, desc)
            }
            (MessageOrder::CreatedAt, Some(MessageGroup::Opcode(_))) => {
                walk::<MsgByOpcodeUtime>(r, bounds, desc)
            }
        }
    };
    // The iterators read nothing until walked.
    let walks: Vec<Walk<'a>> = segments.into_iter().map(walk_one).collect();
    walks.into_iter().flatten()
}

/// Keys that end in a message hash.
trait HasMsgHash {
    fn msg_hash(&self) -> Hash;
}

impl HasMsgHash for NullableOrderKey {
    fn msg_hash(&self) -> Hash {
        self.hash
    }
}

impl HasMsgHash for GroupOrderKey {
    fn msg_hash(&self) -> Hash {
        self.order.hash
    }
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
