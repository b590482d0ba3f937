//! Messages: by hash (and TEP-467 normalized hash), an account's sent
//! messages in lt order, every message — or those of one destination, body
//! hash or opcode — in creation order, and the transactions on each side of one.
//! A message's row, under its hash's tag, holds only the ids of the
//! transactions at its two ends; every field of the message is read from
//! its cell in the BoC of one of them (the sender's when the index holds
//! it), and those BoCs tell apart messages whose hashes share the tag.

use std::collections::{BTreeMap, HashMap};

use tonindex_model::{Address, Hash, MessageRecord};
use tonindex_storage::tables::{
    hash_tag, AccountLtTagKey, GroupOrderKey, HashTag, MessageGroupKey, Messages, MsgByBodyHash,
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

/// A stored message: what its cell says, the ids of the transactions at
/// its two ends, and those transactions' hashes (read from the same BoCs
/// that tell the message from another whose hash shares its tag).
pub struct Stored {
    pub message: Message,
    pub links: Linked<()>,
    /// The hashes of the transactions of `links`, end by end, in order.
    pub tx_hashes: [Vec<Hash>; 2],
}

impl Stored {
    /// The first transaction at one end, if the index holds one.
    pub fn first_tx(&self, side: Side) -> Option<u64> {
        self.links.at(end_of(side)).first().copied()
    }

    /// The hash of [`Self::first_tx`].
    pub fn first_tx_hash(&self, side: Side) -> Option<Hash> {
        self.tx_hashes[end_of(side)].first().copied()
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

/// A transaction a [`Messages`] row links, as read to check the link:
/// its block's version, its hash, and its message cells by end (its
/// in-message for [`RECEIVED_BY`], its out-messages for [`SENT_BY`]).
struct LinkedTx {
    version: u32,
    hash: Hash,
    cells: [Vec<Cell>; 2],
}

/// Reads the transactions of `ids` (one batched read of places and BoCs,
/// each BoC parsed once).
fn linked_txs(r: &Reader<'_>, ids: &[u64]) -> Result<HashMap<u64, LinkedTx>, Error> {
    let read = super::transactions::places_and_bocs(r, ids)?;
    let mut out = HashMap::with_capacity(ids.len());
    for (&id, (place, boc)) in ids.iter().zip(read) {
        let root = tycho_types::boc::Boc::decode(&boc).map_err(|_| CORRUPT_TX_BOC)?;
        let (in_msg, out_msgs) = message_cells(&root).map_err(|_| CORRUPT_TX_BOC)?;
        let mut cells: [Vec<Cell>; 2] = Default::default();
        cells[RECEIVED_BY] = in_msg.into_iter().collect();
        cells[SENT_BY] = out_msgs;
        let tx = LinkedTx {
            version: place.global_version,
            hash: *root.repr_hash().as_array(),
            cells,
        };
        out.insert(id, tx);
    }
    Ok(out)
}

/// One message found under a tag while its row is read: its ends, and the
/// cell it is decoded from (the first sender's, else the first receiver's)
/// with that block's version.
struct Found {
    ends: [Vec<u64>; 2],
    tx_hashes: [Vec<Hash>; 2],
    cell: Option<(Cell, u32, usize)>,
}

/// The messages of one [`Messages`] row (`tag`'s), in hash order: every
/// id it links must hold, at its end, a message whose hash starts with the
/// tag, and messages that share the tag are told apart by those hashes.
fn messages_of_row(
    tag: &[u8],
    row: &Linked<()>,
    txs: &HashMap<u64, LinkedTx>,
) -> Result<Vec<Stored>, Error> {
    let mut found: BTreeMap<Hash, Found> = BTreeMap::new();
    for (end, ids) in row.ends.iter().enumerate() {
        for id in ids {
            let tx = txs.get(id).ok_or(MISSING_TX)?;
            let mut held = false;
            for cell in &tx.cells[end] {
                let hash = *cell.repr_hash().as_array();
                if !hash.starts_with(tag) {
                    continue;
                }
                held = true;
                let f = found.entry(hash).or_insert_with(|| Found {
                    ends: Default::default(),
                    tx_hashes: Default::default(),
                    cell: None,
                });
                f.ends[end].push(*id);
                f.tx_hashes[end].push(tx.hash);
                // The sender's cell, as it was made, over a receiver's.
                if f.cell
                    .as_ref()
                    .is_none_or(|c| c.2 != SENT_BY && end == SENT_BY)
                {
                    f.cell = Some((cell.clone(), tx.version, end));
                }
            }
            if !held {
                return Err(MISSING_MSG);
            }
        }
    }
    found
        .into_values()
        .map(|f| {
            let (cell, version, _) = f.cell.ok_or(NO_HOLDER)?;
            let (record, contents) =
                decode_message_with_contents(&cell, version).map_err(|_| CORRUPT_TX_BOC)?;
            Ok(Stored {
                message: Message { record, contents },
                links: Linked {
                    record: Some(()),
                    ends: f.ends,
                },
                tx_hashes: f.tx_hashes,
            })
        })
        .collect()
}

/// The stored messages under each tag, in hash order: one batched read of
/// the rows, one of the transactions they link. Every row yields at least
/// one message (a row whose links hold none is an error).
pub fn under_tags(r: &Reader<'_>, tags: &[HashTag]) -> Result<Vec<Vec<Stored>>, Error> {
    let rows = r.multi_get::<Messages>(tags)?;
    let mut ids: Vec<u64> = rows
        .iter()
        .flatten()
        .flat_map(|row| row.ends.iter().flatten().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let txs = linked_txs(r, &ids)?;
    rows.iter()
        .zip(tags)
        .map(|(row, tag)| match row {
            Some(row) => messages_of_row(tag.as_slice(), row, &txs),
            None => Ok(Vec::new()),
        })
        .collect()
}

/// Loads messages by hash, in the order given; hashes the index does not
/// hold are skipped.
pub fn stored_messages(r: &Reader<'_>, hashes: &[Hash]) -> Result<Vec<Stored>, Error> {
    let tags: Vec<HashTag> = hashes.iter().map(hash_tag).collect();
    let found = under_tags(r, &tags)?;
    Ok(found
        .into_iter()
        .zip(hashes)
        .filter_map(|(under, hash)| under.into_iter().find(|m| &m.message.record.hash == hash))
        .collect())
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
/// found by its tag (the key of its [`Messages`] row) among the stored
/// messages that share it, checked against the row (see [`select`]). The
/// candidates of all rows are decoded in one batch.
pub fn load_indexed(
    r: &Reader<'_>,
    index: &MsgIndex<'_>,
    rows: &[IndexedMsg],
    desc: bool,
) -> Result<Vec<Stored>, Error> {
    let tags: Vec<HashTag> = rows.iter().map(|row| row.tag).collect();
    let candidates = under_tags(r, &tags)?.into_iter().map(|mut found| {
        if desc {
            found.reverse();
        }
        found
    });
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
    Ok(stored_messages(r, std::slice::from_ref(msg))?
        .pop()
        .map(|m| m.links.ends[end_of(side)].clone())
        .unwrap_or_default())
}

/// The id of the first transaction at one end of a message (see
/// [`txs_of_message`]).
pub fn first_tx_of_message(r: &Reader<'_>, msg: &Hash, side: Side) -> Result<Option<u64>, Error> {
    Ok(txs_of_message(r, msg, side)?.first().copied())
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

    /// An external-in message to `wc:0707…07` whose body is `n`.
    fn ext_in(n: u32) -> Cell {
        use tycho_types::cell::{CellBuilder, HashBytes};
        use tycho_types::models::{ExtInMsgInfo, IntAddr, MsgInfo, StdAddr};
        let mut body = CellBuilder::new();
        body.store_u32(n).unwrap();
        let body = body.build().unwrap();
        let msg = tycho_types::models::Message {
            info: MsgInfo::ExtIn(ExtInMsgInfo {
                src: None,
                dst: IntAddr::Std(StdAddr::new(0, HashBytes([7; 32]))),
                import_fee: Default::default(),
            }),
            init: None,
            body: body.as_slice().unwrap(),
            layout: None,
        };
        CellBuilder::build_from(msg).unwrap()
    }

    /// A `messages` row stands for every message whose hash starts with
    /// its tag: each linked transaction must hold one at its end, and the
    /// messages come back told apart, in hash order, each with its own
    /// ends and their transactions' hashes. (Real hashes cannot be made to
    /// share 8 bytes, so the row here is read under a shorter tag, which
    /// every message shares.) A link to a transaction that holds no such
    /// message, as a doctored row would have, is refused.
    #[test]
    fn a_row_under_a_shared_tag_tells_its_messages_apart() {
        let (m1, m2, m3) = (ext_in(1), ext_in(2), ext_in(3));
        let tx = |n: u8, received: Option<&Cell>, sent: &[&Cell]| LinkedTx {
            version: 11,
            hash: [n; 32],
            cells: [
                received.into_iter().cloned().collect(),
                sent.iter().map(|c| (*c).clone()).collect(),
            ],
        };
        let txs: HashMap<u64, LinkedTx> = [
            (1, tx(1, Some(&m1), &[])),
            (2, tx(2, None, &[&m2, &m3])),
            (3, tx(3, Some(&m2), &[])),
        ]
        .into_iter()
        .collect();
        let row = Linked {
            record: None,
            ends: [vec![1, 3], vec![2]],
        };
        let found = messages_of_row(&[], &row, &txs).unwrap();
        let hash = |c: &Cell| *c.repr_hash().as_array();
        let mut expected = vec![
            (hash(&m1), [vec![1], vec![]], [vec![[1; 32]], vec![]]),
            (
                hash(&m2),
                [vec![3], vec![2]],
                [vec![[3; 32]], vec![[2; 32]]],
            ),
            (hash(&m3), [vec![], vec![2]], [vec![], vec![[2; 32]]]),
        ];
        expected.sort_by_key(|e| e.0);
        let got: Vec<_> = found
            .iter()
            .map(|m| {
                (
                    m.message.record.hash,
                    m.links.ends.clone(),
                    m.tx_hashes.clone(),
                )
            })
            .collect();
        assert_eq!(got, expected);
        for m in &found {
            assert_eq!(m.message.record.kind, MsgKind::ExternalIn);
        }
        // Under m1's own tag, the row may link m1's receiver only.
        let tag = hash_tag(&hash(&m1));
        let one = messages_of_row(
            &tag,
            &Linked {
                record: None,
                ends: [vec![1], vec![]],
            },
            &txs,
        );
        assert_eq!(one.unwrap().len(), 1);
        for doctored in [[vec![1, 3], vec![]], [vec![1], vec![2]]] {
            let row = Linked {
                record: None,
                ends: doctored,
            };
            assert!(messages_of_row(&tag, &row, &txs).is_err());
        }
    }
}
