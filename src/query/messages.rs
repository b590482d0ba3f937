//! Messages: by hash (and TEP-467 normalized hash), an account's sent
//! messages in lt order, every message — or those of one destination, body
//! hash or opcode — in creation order, and the transactions on each side of one.
//! A message's row holds only the ids of the transactions at its two ends;
//! every field of the message is read from its cell in the BoC of one of
//! them (the sender's when the index holds it).

use std::collections::HashMap;

use tonindex_model::{Address, Hash, MessageRecord};
use tonindex_storage::tables::{
    AccountLtTagKey, GroupOrderKey, HashTag, MessageGroupKey, Messages, MsgByBodyHash,
    MsgByBodyHashUtime, MsgByCreatedAt, MsgByCreatedLt, MsgByDestination, MsgByDestinationUtime,
    MsgByHashNorm, MsgByOpcode, MsgByOpcodeUtime, MsgBySource, NullableOrderKey, RECEIVED_BY,
    SENT_BY,
};
use tonindex_storage::{prefix_successor, Error, Linked, Reader};
use tycho_types::cell::Cell;

use crate::decode::message::{decode_message_with_contents, MessageContents};
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
const NO_HOLDER: Error = Error::Corrupt("a message row links no transaction");

/// A stored message: what its cell says, and the ids of the transactions
/// at its two ends (its row).
pub struct Stored {
    pub message: Message,
    pub links: Linked<()>,
}

impl Stored {
    /// The first transaction at one end, if the index holds one.
    pub fn first_tx(&self, side: Side) -> Option<u64> {
        self.links.at(end_of(side)).first().copied()
    }

    pub fn record(&self) -> &MessageRecord {
        &self.message.record
    }
}

fn end_of(side: Side) -> usize {
    match side {
        Side::Receiver => RECEIVED_BY,
        Side::Sender => SENT_BY,
    }
}

/// The transaction a message is read from: the one that sent it (its cell
/// as it was made, read with the sender's block's version), else the first
/// that took it in. Every row the indexer writes links one.
fn holder(links: &Linked<()>) -> Result<u64, Error> {
    let sent = links.at(SENT_BY).first();
    sent.or(links.at(RECEIVED_BY).first())
        .copied()
        .ok_or(NO_HOLDER)
}

/// Decodes stored messages (hash and row) from their holders' BoCs: one
/// batched read of the holders' places and BoCs, each BoC parsed once.
fn decode_rows(r: &Reader<'_>, rows: Vec<(Hash, Linked<()>)>) -> Result<Vec<Stored>, Error> {
    let ids = rows
        .iter()
        .map(|(_, links)| holder(links))
        .collect::<Result<Vec<u64>, _>>()?;
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    let read = super::transactions::places_and_bocs(r, &unique)?;
    let mut held: HashMap<u64, (u32, HashMap<Hash, Cell>)> = HashMap::with_capacity(unique.len());
    for (id, (place, boc)) in unique.into_iter().zip(read) {
        held.insert(id, (place.global_version, tx_message_cells(&boc)?));
    }
    rows.into_iter()
        .zip(ids)
        .map(|((hash, links), id)| {
            let (version, cells) = &held[&id];
            let cell = cells.get(&hash).ok_or(MISSING_MSG)?;
            let (record, contents) =
                decode_message_with_contents(cell, *version).map_err(|_| CORRUPT_TX_BOC)?;
            Ok(Stored {
                message: Message { record, contents },
                links,
            })
        })
        .collect()
}

/// Loads messages by hash, in the order given; hashes the index does not
/// hold are skipped.
pub fn stored_messages(r: &Reader<'_>, hashes: &[Hash]) -> Result<Vec<Stored>, Error> {
    let rows = r
        .multi_get::<Messages>(hashes)?
        .into_iter()
        .zip(hashes)
        .filter_map(|(row, hash)| row.map(|row| (*hash, row)))
        .collect();
    decode_rows(r, rows)
}

/// The records of messages by hash (see [`stored_messages`]).
pub fn messages(r: &Reader<'_>, hashes: &[Hash]) -> Result<Vec<MessageRecord>, Error> {
    Ok(stored_messages(r, hashes)?
        .into_iter()
        .map(|m| m.message.record)
        .collect())
}

pub fn message(r: &Reader<'_>, hash: &Hash) -> Result<Option<MessageRecord>, Error> {
    Ok(messages(r, std::slice::from_ref(hash))?.pop())
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

/// A row of a message index: the message's [`HashTag`] and the value the
/// index orders it by (none for an external-in message), what is needed
/// to page without reading messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexedMsg {
    pub tag: HashTag,
    pub value: Option<u64>,
}

/// The index a row was read from: what its message must match, which tells
/// it from another stored message whose hash starts with the same tag.
#[derive(Debug, Clone, Copy)]
pub enum MsgIndex<'g> {
    /// `/messages` order ([`rows_in_order`]), of every message or of a group.
    Ordered {
        order: MessageOrder,
        group: Option<&'g MessageGroup>,
    },
    /// The messages an account sent, by `created_lt` ([`sent_rows`]).
    Sent(&'g Address),
}

impl MsgIndex<'_> {
    /// Whether `m` is the message of `row`: the row's value, and for a
    /// group its member ([`Self::in_group`]).
    fn fits(&self, row: &IndexedMsg, m: &MessageRecord) -> bool {
        match *self {
            MsgIndex::Ordered { order, .. } => {
                let value = match order {
                    MessageOrder::CreatedLt => m.created_lt,
                    MessageOrder::CreatedAt => m.created_at.map(u64::from),
                };
                value == row.value
            }
            // A message with a source has a created_lt; the row of one
            // without holds its transaction's lt instead.
            MsgIndex::Sent(account) => {
                m.source.as_ref() == Some(account)
                    && m.created_lt.is_none_or(|lt| Some(lt) == row.value)
            }
        }
    }

    /// Whether `m` belongs to the walked group: a body hash's rows are
    /// keyed by its tag, which another body's may share.
    fn in_group(&self, m: &MessageRecord) -> bool {
        match *self {
            MsgIndex::Ordered { group, .. } => match group {
                None => true,
                Some(MessageGroup::Destination(a)) => m.destination.as_ref() == Some(a),
                Some(MessageGroup::BodyHash(h)) => &m.body_hash == h,
                Some(MessageGroup::Opcode(op)) => m.opcode == Some(*op),
            },
            MsgIndex::Sent(_) => true,
        }
    }
}

const MISSING_INDEXED: Error = Error::Corrupt("a message index row names no stored message");

/// The messages of index rows read from `index`, in the rows' order: each
/// found by its tag (a key prefix of [`Messages`]) among the stored
/// messages that share it, checked against the row (see [`select`]). The
/// candidates of all rows are decoded in one batch.
pub fn load_indexed(
    r: &Reader<'_>,
    index: &MsgIndex<'_>,
    rows: &[IndexedMsg],
    desc: bool,
) -> Result<Vec<Stored>, Error> {
    let mut tagged = Vec::with_capacity(rows.len());
    let mut counts = Vec::with_capacity(rows.len());
    for row in rows {
        let before = tagged.len();
        for x in r.prefix::<Messages>(&row.tag, desc) {
            tagged.push(x?);
        }
        counts.push(tagged.len() - before);
    }
    let mut decoded = decode_rows(r, tagged)?.into_iter();
    let candidates = counts
        .into_iter()
        .map(|n| decoded.by_ref().take(n).collect::<Vec<_>>());
    select(index, rows, candidates, Stored::record)
}

/// Of each row's `candidates` (the stored messages whose hashes start
/// with its tag, in hash order, or the reverse when the walk is), those
/// that fit the row and belong to the walked group. Two messages whose
/// keys are equal up to the tag (a 64-bit hash prefix: one pair in
/// billions of equal keys, or one made on purpose) share one row; it
/// stands for both, so neither is lost, though an offset counts them as
/// one. A row of another body whose hash shares the walked body's tag is
/// passed over.
fn select<T>(
    index: &MsgIndex<'_>,
    rows: &[IndexedMsg],
    candidates: impl IntoIterator<Item = Vec<T>>,
    record: impl Fn(&T) -> &MessageRecord,
) -> Result<Vec<T>, Error> {
    let mut out = Vec::with_capacity(rows.len());
    for (row, found) in rows.iter().zip(candidates) {
        let mut fitting = 0;
        for m in found {
            if index.fits(row, record(&m)) {
                fitting += 1;
                if index.in_group(record(&m)) {
                    out.push(m);
                }
            }
        }
        if fitting == 0 {
            return Err(MISSING_INDEXED);
        }
    }
    Ok(out)
}

/// Hashes of every message of `group`, in its index order (values
/// ascending, then those without one).
fn group_hashes(r: &Reader<'_>, group: &MessageGroup) -> Result<Vec<Hash>, Error> {
    let order = MessageOrder::CreatedLt;
    let rows = rows_in_order(r, order, Some(group), (0, u64::MAX), true, true, false)
        .collect::<Result<Vec<_>, _>>()?;
    let index = MsgIndex::Ordered {
        order,
        group: Some(group),
    };
    Ok(load_indexed(r, &index, &rows, false)?
        .into_iter()
        .map(|m| m.message.record.hash)
        .collect())
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

/// The messages `account` sent with `lo <= created_lt <= hi`, ascending.
pub fn sent_messages(
    r: &Reader<'_>,
    account: &Address,
    lo: u64,
    hi: u64,
) -> Result<Vec<MessageRecord>, Error> {
    let rows = sent_rows(r, account, (lo, hi), false).collect::<Result<Vec<_>, _>>()?;
    Ok(load_indexed(r, &MsgIndex::Sent(account), &rows, false)?
        .into_iter()
        .map(|m| m.message.record)
        .collect())
}

/// The index rows of the messages `account` sent with `lo <= created_lt
/// <= hi`, by lt then hash, oldest or newest first, read as they are used
/// (their records: [`load_indexed`] with [`MsgIndex::Sent`]).
pub fn sent_rows<'a>(
    r: &Reader<'a>,
    account: &Address,
    (lo, hi): (u64, u64),
    desc: bool,
) -> impl Iterator<Item = Result<IndexedMsg, Error>> + 'a {
    let (lower, upper) = AccountLtTagKey::lt_range(account, lo, hi);
    r.range::<MsgBySource>(&lower, upper, desc).map(|x| {
        x.map(|(k, ())| IndexedMsg {
            tag: k.tag,
            value: Some(k.lt),
        })
    })
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
        let Some(row) = sent_rows(r, source, (lt, u64::MAX), false).next() else {
            return Ok(None);
        };
        let m = load_indexed(r, &MsgIndex::Sent(source), &[row?], false)?;
        Ok(m.first()
            .and_then(|m| m.record().created_lt.zip(m.record().created_at)))
    };
    super::transactions::lt_range_in_time(first_from, lts, window)
}

/// The order [`rows_in_order`] walks messages in.
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

/// Index rows in one order, of every message or of one `group`: those
/// whose ordering value is in `lo..=hi` (when `with_value`), then those
/// without one (external-in messages have no `created_lt`/`created_at`;
/// when `without_value`), ascending, or the reverse when `desc`. Their
/// records: [`load_indexed`] with [`MsgIndex::Ordered`].
pub fn rows_in_order<'a>(
    r: &Reader<'a>,
    order: MessageOrder,
    group: Option<&MessageGroup>,
    (lo, hi): (u64, u64),
    with_value: bool,
    without_value: bool,
    desc: bool,
) -> impl Iterator<Item = Result<IndexedMsg, Error>> + 'a {
    type Walk<'a> = Box<dyn Iterator<Item = Result<IndexedMsg, Error>> + 'a>;
    fn walk<'a, T>(
        r: &Reader<'a>,
        (lower, upper): (Vec<u8>, Option<Vec<u8>>),
        desc: bool,
    ) -> Walk<'a>
    where
        T: tonindex_storage::tables::Table<Value = ()> + 'a,
        T::Key: OrderedMsgKey,
    {
        Box::new(
            r.range::<T>(&lower, upper, desc)
                .map(|k| k.map(|(k, ())| k.row())),
        )
    }
    let group_key = group.map(|g| match g {
        MessageGroup::Destination(a) => MessageGroupKey::Account(a).encode(),
        MessageGroup::BodyHash(h) => MessageGroupKey::BodyHash(h).encode(),
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

/// Keys of the `/messages` order indexes.
trait OrderedMsgKey {
    fn row(&self) -> IndexedMsg;
}

impl OrderedMsgKey for NullableOrderKey {
    fn row(&self) -> IndexedMsg {
        IndexedMsg {
            tag: self.tag,
            value: self.value,
        }
    }
}

impl OrderedMsgKey for GroupOrderKey {
    fn row(&self) -> IndexedMsg {
        self.order.row()
    }
}

/// The ids of the transactions at one end of a message: the receiver's
/// (that took it in) or the sender's (that sent it out), ascending; none
/// for a message the index does not hold.
pub fn txs_of_message(r: &Reader<'_>, msg: &Hash, side: Side) -> Result<Vec<u64>, Error> {
    Ok(r.get::<Messages>(msg)?
        .map(|row| row.ends[end_of(side)].clone())
        .unwrap_or_default())
}

/// The id of the first transaction at one end of a message (see
/// [`txs_of_message`]).
pub fn first_tx_of_message(r: &Reader<'_>, msg: &Hash, side: Side) -> Result<Option<u64>, Error> {
    Ok(txs_of_message(r, msg, side)?.first().copied())
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

#[cfg(test)]
mod tests {
    use super::*;
    use tonindex_model::MsgKind;
    use tonindex_storage::{Db, DbOptions, EncodedRows};

    fn address(n: u8) -> Address {
        Address {
            workchain: 0,
            id: [n; 32],
        }
    }

    fn record(hash: Hash, lt: Option<u64>, destination: u8, body: u8) -> MessageRecord {
        MessageRecord {
            hash,
            kind: if lt.is_some() {
                MsgKind::Internal
            } else {
                MsgKind::ExternalIn
            },
            source: lt.map(|_| address(200)),
            destination: Some(address(destination)),
            value: None,
            fwd_fee: None,
            ihr_fee: None,
            extra_flags: None,
            import_fee: None,
            created_lt: lt,
            created_at: lt.map(|lt| lt as u32 / 10),
            ihr_disabled: None,
            bounce: None,
            bounced: None,
            opcode: Some(u32::from(body)),
            body_hash: [body; 32],
            init_state_hash: None,
            metadata: None,
            hash_norm: None,
        }
    }

    /// Messages whose hashes share their first 8 bytes (the tag the
    /// indexes keep) are each found by every index that lists them, and
    /// in hash order where their keys are otherwise equal. (Real message
    /// hashes cannot be made to share a tag, so the stored messages under
    /// each tag are given here; the walks over the fixture's messages in
    /// `tests/it` read them from the store.)
    #[test]
    fn messages_sharing_a_tag_resolve_to_the_one_each_row_lists() {
        let hash = |last: u8| {
            let mut h = [0x5a; 32];
            h[31] = last;
            h
        };
        // Same created_lt and destination, other body; other lt; an
        // external-in; and one with its own tag.
        let msgs = [
            record(hash(3), Some(100), 1, 7),
            record(hash(1), Some(100), 1, 8),
            record(hash(2), Some(150), 2, 7),
            record(hash(4), None, 1, 7),
            record([9; 32], Some(120), 1, 7),
            // Another body whose hash shares the first's tag.
            MessageRecord {
                body_hash: std::array::from_fn(|i| if i == 31 { 1 } else { 7 }),
                ..record(hash(5), Some(300), 1, 7)
            },
        ];
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let mut rows = EncodedRows::default();
        for m in &msgs {
            crate::index::message_rows(&mut rows, m, 0);
        }
        let mut batch = db.batch();
        batch.append(rows);
        db.write(batch).unwrap();
        let r = db.reader();
        // The stored messages under each row's tag, as `load_indexed`
        // reads them from the `messages` rows and the BoCs: in hash order,
        // reversed for a descending walk.
        let load = |index: &MsgIndex<'_>, rows: &[IndexedMsg], desc: bool| -> Vec<Hash> {
            let candidates = rows.iter().map(|row| {
                let mut v: Vec<MessageRecord> = msgs
                    .iter()
                    .filter(|m| tonindex_storage::tables::hash_tag(&m.hash) == row.tag)
                    .cloned()
                    .collect();
                v.sort_by_key(|m| m.hash);
                if desc {
                    v.reverse();
                }
                v
            });
            fn itself(m: &MessageRecord) -> &MessageRecord {
                m
            }
            let found = select(index, rows, candidates, itself).unwrap();
            found.into_iter().map(|m| m.hash).collect()
        };
        let walk = |order, group: Option<&MessageGroup>, desc| -> Vec<Hash> {
            let rows = rows_in_order(&r, order, group, (0, u64::MAX), true, true, desc)
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            load(&MsgIndex::Ordered { order, group }, &rows, desc)
        };
        // What a scan of every message gives: by value (nulls last), then hash.
        let scan = |order, keep: &dyn Fn(&MessageRecord) -> bool, desc: bool| -> Vec<Hash> {
            let mut v: Vec<&MessageRecord> = msgs.iter().filter(|m| keep(m)).collect();
            v.sort_by_key(|m| {
                let value = match order {
                    MessageOrder::CreatedLt => m.created_lt,
                    MessageOrder::CreatedAt => m.created_at.map(u64::from),
                };
                (value.is_none(), value, m.hash)
            });
            if desc {
                v.reverse();
            }
            v.into_iter().map(|m| m.hash).collect()
        };
        let groups = [
            None,
            Some(MessageGroup::Destination(address(1))),
            Some(MessageGroup::BodyHash([7; 32])),
            Some(MessageGroup::Opcode(8)),
        ];
        for order in [MessageOrder::CreatedLt, MessageOrder::CreatedAt] {
            for group in &groups {
                let keep = |m: &MessageRecord| match group {
                    None => true,
                    Some(MessageGroup::Destination(a)) => m.destination == Some(*a),
                    Some(MessageGroup::BodyHash(h)) => m.body_hash == *h,
                    Some(MessageGroup::Opcode(op)) => m.opcode == Some(*op),
                };
                for desc in [false, true] {
                    let got = walk(order, group.as_ref(), desc);
                    assert_eq!(got, scan(order, &keep, desc), "{order:?} {group:?} {desc}");
                }
            }
        }
        let sent = |lo, hi| {
            let rows = sent_rows(&r, &address(200), (lo, hi), false)
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            load(&MsgIndex::Sent(&address(200)), &rows, false)
        };
        assert_eq!(
            sent(0, u64::MAX),
            vec![hash(1), hash(3), [9; 32], hash(2), hash(5)]
        );
        assert_eq!(sent(150, 150), vec![hash(2)]);
    }
}
