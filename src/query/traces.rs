//! Traces and actions: by id, by account, by end lt, by the masterchain
//! block that completed them, and the transactions and actions of each.

use std::collections::HashMap;

use tonindex_model::{ActionRecord, Address, Hash, TraceRecord};
use tonindex_storage::stored_action;
use tonindex_storage::tables::Table;
use tonindex_storage::tables::{
    hash_tag, AccountAddresses, AccountLtTagKey, ActionByAccount, ActionByAccountType,
    ActionByAccountUtime, ActionById, ActionByType, Actions, HashMsgKey, HashTag, LtTagKey,
    McLtTagKey, TraceByAccount, TraceByAccountUtime, TraceByEndLt, TraceByEndUtime, TraceByMcBlock,
    Traces, Transactions, TypeEndKey,
};
use tonindex_storage::{Error, Key, KeyWriter, Reader, StoredAction};

/// A trace by its id.
pub fn trace(r: &Reader<'_>, id: &Hash) -> Result<Option<TraceRecord>, Error> {
    r.get::<Traces>(id)
}

/// Traces by id, in the order asked (missing ones left out).
pub fn traces(r: &Reader<'_>, ids: &[Hash]) -> Result<Vec<TraceRecord>, Error> {
    Ok(r.multi_get::<Traces>(ids)?.into_iter().flatten().collect())
}

/// The traces of transactions by id (those with none left out).
pub fn traces_of_tx_ids(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<Hash>, Error> {
    Ok(trace_ids_of_txs(r, ids)?.into_iter().flatten().collect())
}

/// The trace id of each transaction by id (`None`: the index holds none):
/// its place names the trace's tag.
pub fn trace_ids_of_txs(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<Option<Hash>>, Error> {
    let tags: Vec<Option<HashTag>> = r
        .multi_get::<Transactions>(ids)?
        .into_iter()
        .map(|place| place.and_then(|p| p.trace_tag))
        .collect();
    Ok(trace_ids(r, ids, &tags, None)?
        .into_iter()
        .map(|t| t.map(|t| t.id()))
        .collect())
}

/// A transaction's trace as a page shows it: its id and where the hash
/// of the external message that started it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxTrace {
    /// The transaction is its trace's root: the trace's id is its own
    /// hash, and the message that started the trace its own in-message, as
    /// trace assembly records it (nothing was read to find either).
    Root(Hash),
    /// The trace's record was read (or is at hand).
    Known {
        id: Hash,
        external_hash: Option<Hash>,
    },
}

impl TxTrace {
    /// The trace's id.
    pub fn id(&self) -> Hash {
        match self {
            TxTrace::Root(id) | TxTrace::Known { id, .. } => *id,
        }
    }

    /// The trace as its record says it.
    pub fn of(t: &TraceRecord) -> Self {
        TxTrace::Known {
            id: t.trace_id,
            external_hash: t.external_hash,
        }
    }
}

/// [`trace_ids_of_txs`] for transactions loaded with their places: `tags`
/// (the places' trace tags) and `hashes` in the order of `ids`. One whose
/// trace tag is its own hash's is its trace's root, whose id is that hash,
/// so its trace row is not read (a random read of `traces` for about half
/// of a wallet's transactions). A transaction that is not its trace's
/// root yet shares that trace's tag would take a 2^64 search for a hash
/// prefix, against the 2^32 of the tag collisions between traces that
/// [`trace_by_tag`] resolves.
pub fn trace_ids_of_loaded_txs(
    r: &Reader<'_>,
    ids: &[u64],
    tags: &[Option<HashTag>],
    hashes: &[Hash],
) -> Result<Vec<Option<TxTrace>>, Error> {
    trace_ids(r, ids, tags, Some(hashes))
}

fn trace_ids(
    r: &Reader<'_>,
    ids: &[u64],
    tags: &[Option<HashTag>],
    hashes: Option<&[Hash]>,
) -> Result<Vec<Option<TxTrace>>, Error> {
    let mut out = vec![None; ids.len()];
    // The transactions whose trace is read, and that trace's tag: all the
    // page's traces under one iterator.
    let mut asked: Vec<(usize, HashTag)> = Vec::new();
    for (i, tag) in tags.iter().enumerate() {
        let Some(tag) = tag else { continue };
        match hashes.and_then(|h| h.get(i)) {
            Some(own) if hash_tag(own) == *tag => out[i] = Some(TxTrace::Root(*own)),
            _ => asked.push((i, *tag)),
        }
    }
    let prefixes: Vec<Vec<u8>> = asked.iter().map(|(_, tag)| tag.to_vec()).collect();
    let found = r.prefixes::<Traces>(&prefixes)?;
    for ((i, tag), rows) in asked.into_iter().zip(found) {
        let tx_id = ids[i];
        let holds = |_: &Reader<'_>, t: &TraceRecord| Ok(t.tx_ids.binary_search(&tx_id).is_ok());
        let records = rows.into_iter().map(|(_, t)| t).collect();
        out[i] = one_trace(r, &tag, records, holds)?.map(|t| TxTrace::of(&t));
    }
    Ok(out)
}

/// The stored trace whose id starts with `tag`: the only one, or of
/// several, the first that `owns` (the row that named the tag belongs to
/// it). A tag no stored trace has is logged: the index is damaged there.
fn trace_by_tag(
    r: &Reader<'_>,
    tag: &HashTag,
    owns: impl Fn(&Reader<'_>, &TraceRecord) -> Result<bool, Error>,
) -> Result<Option<Hash>, Error> {
    let mut found = Vec::with_capacity(1);
    for x in r.prefix::<Traces>(tag, false) {
        found.push(x?.1);
    }
    Ok(one_trace(r, tag, found, owns)?.map(|t| t.trace_id))
}

/// Of the stored traces whose ids start with `tag` ([`trace_by_tag`]),
/// the one that `owns` the row asking when there are several.
fn one_trace(
    r: &Reader<'_>,
    tag: &HashTag,
    mut found: Vec<TraceRecord>,
    owns: impl Fn(&Reader<'_>, &TraceRecord) -> Result<bool, Error>,
) -> Result<Option<TraceRecord>, Error> {
    if found.len() > 1 {
        for t in found {
            if owns(r, &t)? {
                return Ok(Some(t));
            }
        }
        return Ok(None);
    }
    if found.is_empty() {
        tracing::warn!(tag = %hex::encode(tag), "an index row names no stored trace");
    }
    Ok(found.pop())
}

/// The trace's transaction ids, ascending (none for a trace the index
/// does not hold): its record lists them. Pages order the transactions
/// they load ([`crate::query::transactions::full_txs_of_trace`]).
pub fn trace_tx_ids(r: &Reader<'_>, id: &Hash) -> Result<Vec<u64>, Error> {
    Ok(r.get::<Traces>(id)?.map(|t| t.tx_ids).unwrap_or_default())
}

/// `(end, trace tag)` rows of a trace listing, in its order, and what
/// they say of their traces ([`Listing`]).
pub struct TraceIds<'a> {
    rows: Box<dyn Iterator<Item = Result<(u64, HashTag), Error>> + 'a>,
    listing: Listing,
}

impl TraceIds<'_> {
    /// The rows' traces, read as they are used.
    pub fn listing(&self) -> Listing {
        self.listing
    }
}

impl Iterator for TraceIds<'_> {
    type Item = Result<(u64, HashTag), Error>;
    fn next(&mut self) -> Option<Self::Item> {
        self.rows.next()
    }
}

/// What the rows of a trace listing say of their traces: the end they are
/// ordered by and, for listings by participant, the account. A row names
/// its trace by the id's [`HashTag`]; this tells the trace from another
/// stored one whose id starts with the same 8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listing {
    pub order: TraceOrder,
    /// The masterchain block that completed the listed traces.
    pub mc_seqno: Option<u32>,
    /// An account every listed trace has a transaction of.
    pub participant: Option<Address>,
}

/// The traces of listing rows, in the rows' order: each found by its tag
/// (a key prefix of [`Traces`]) among the stored traces that share it and
/// fit the row (a row with none is logged and left out). Two traces whose rows are equal up to the tag (made on
/// purpose: 2^32 tries) share one row; it stands for both, in id order
/// (`desc`: the reverse), so neither is lost.
pub fn listed_traces(
    r: &Reader<'_>,
    listing: &Listing,
    rows: &[(u64, HashTag)],
    desc: bool,
) -> Result<Vec<TraceRecord>, Error> {
    let mut out = Vec::with_capacity(rows.len());
    let prefixes: Vec<Vec<u8>> = rows.iter().map(|(_, tag)| tag.to_vec()).collect();
    let stored = r.prefixes::<Traces>(&prefixes)?;
    for ((end, tag), mut under) in rows.iter().zip(stored) {
        if desc {
            under.reverse();
        }
        let mut found: Vec<TraceRecord> = Vec::new();
        for (_, t) in under {
            let at = match listing.order {
                TraceOrder::EndLt => t.end_lt,
                TraceOrder::EndUtime => u64::from(t.end_utime),
            };
            if at == *end && listing.mc_seqno.is_none_or(|mc| t.mc_seqno_end == Some(mc)) {
                found.push(t);
            }
        }
        if found.len() > 1 {
            if let Some(account) = &listing.participant {
                let mut with = Vec::with_capacity(found.len());
                for t in found {
                    if has_participant(r, &t, account)? {
                        with.push(t);
                    }
                }
                found = with;
            }
        }
        if found.is_empty() {
            // An index row without its trace: the index is damaged there.
            tracing::warn!(
                tag = %hex::encode(tag),
                end,
                ?listing,
                "a trace listing names no stored trace: left out of the answer"
            );
        }
        out.extend(found);
    }
    Ok(out)
}

/// Whether trace `t` has a transaction of `account`: the account's number
/// is in the places of the trace's transactions.
fn has_participant(r: &Reader<'_>, t: &TraceRecord, account: &Address) -> Result<bool, Error> {
    let Some(num) = super::transactions::account_num(r, account)? else {
        return Ok(false);
    };
    let places = r.multi_get::<tonindex_storage::tables::Transactions>(&t.tx_ids)?;
    Ok(places.into_iter().flatten().any(|p| p.account_num == num))
}

/// Which of a trace's ends a listing is ordered by: v3 orders by end lt,
/// or by end time when the request filters by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceOrder {
    EndLt,
    EndUtime,
}

/// `(end, trace tag)` of settled traces with `lo <= end <= hi` (`end`:
/// their end lt or end time, as `order` says) that `account` took part in
/// (`None`: every account), oldest or newest first.
pub fn settled_trace_ids<'a>(
    r: &Reader<'a>,
    account: Option<&Address>,
    order: TraceOrder,
    lo: u64,
    hi: u64,
    desc: bool,
) -> TraceIds<'a> {
    let rows = match (account, order) {
        (Some(a), TraceOrder::EndLt) => by_account::<TraceByAccount>(r, a, lo, hi, desc),
        (Some(a), TraceOrder::EndUtime) => by_account::<TraceByAccountUtime>(r, a, lo, hi, desc),
        (None, TraceOrder::EndLt) => by_end::<TraceByEndLt>(r, lo, hi, desc),
        (None, TraceOrder::EndUtime) => by_end::<TraceByEndUtime>(r, lo, hi, desc),
    };
    TraceIds {
        rows,
        listing: Listing {
            order,
            mc_seqno: None,
            participant: account.copied(),
        },
    }
}

type Rows<'a> = Box<dyn Iterator<Item = Result<(u64, HashTag), Error>> + 'a>;

/// `(end, trace tag)` rows of an `account | end | trace tag` table.
fn by_account<'a, T: Table<Key = AccountLtTagKey, Value = ()> + 'a>(
    r: &Reader<'a>,
    account: &Address,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Rows<'a> {
    let (lower, upper) = AccountLtTagKey::lt_range(account, lo, hi);
    Box::new(
        r.range::<T>(&lower, upper, desc)
            .map(|x| x.map(|(k, ())| (k.lt, k.tag))),
    )
}

/// `(end, trace tag)` rows of an `end | trace tag` table.
fn by_end<'a, T: Table<Key = LtTagKey, Value = ()> + 'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Rows<'a> {
    let key = |lt| LtTagKey { lt, tag: [0; 8] }.encode();
    let upper = hi.checked_add(1).map(key);
    Box::new(
        r.range::<T>(&key(lo), upper, desc)
            .map(|x| x.map(|(k, ())| (k.lt, k.tag))),
    )
}

/// The traces masterchain block `mc_seqno` completed, by end lt (then id).
pub fn completed_in_mc_block(
    r: &Reader<'_>,
    mc_seqno: u32,
    desc: bool,
) -> Result<Vec<TraceRecord>, Error> {
    let prefix = McLtTagKey::prefix(mc_seqno);
    let rows = r
        .prefix::<TraceByMcBlock>(&prefix, desc)
        .map(|x| x.map(|(k, ())| (k.lt, k.tag)))
        .collect::<Result<Vec<_>, _>>()?;
    let listing = Listing {
        order: TraceOrder::EndLt,
        mc_seqno: Some(mc_seqno),
        participant: None,
    };
    listed_traces(r, &listing, &rows, desc)
}

/// `(trace end, trace tag)` of traces with actions involving `account`,
/// by the traces' end lt or end time.
pub fn action_trace_ids<'a>(
    r: &Reader<'a>,
    account: &Address,
    order: TraceOrder,
    lo: u64,
    hi: u64,
    desc: bool,
) -> TraceIds<'a> {
    let rows = match order {
        TraceOrder::EndLt => by_account::<ActionByAccount>(r, account, lo, hi, desc),
        TraceOrder::EndUtime => by_account::<ActionByAccountUtime>(r, account, lo, hi, desc),
    };
    // An account in a trace's actions need not have a transaction in it.
    TraceIds {
        rows,
        listing: Listing {
            order,
            mc_seqno: None,
            participant: None,
        },
    }
}

/// `(trace end, trace tag)` of traces with an action of one of `kinds`
/// (involving `account`, when given), by end lt or end time: the types'
/// index ranges merged in answer order, each trace once.
pub fn typed_trace_ids<'a>(
    r: &Reader<'a>,
    account: Option<&Address>,
    order: TraceOrder,
    kinds: &[String],
    lo: u64,
    hi: u64,
    desc: bool,
) -> TraceIds<'a> {
    let flag = match order {
        TraceOrder::EndLt => 0,
        TraceOrder::EndUtime => 1,
    };
    let mut each: Vec<Rows<'a>> = Vec::new();
    for kind in kinds {
        let (lower, upper) = TypeEndKey::end_range(flag, account, kind, lo, hi);
        let pairs = |x: Result<(TypeEndKey, ()), Error>| x.map(|(k, ())| (k.end, k.tag));
        each.push(match account {
            Some(_) => Box::new(
                r.range::<ActionByAccountType>(&lower, upper, desc)
                    .map(pairs),
            ),
            None => Box::new(r.range::<ActionByType>(&lower, upper, desc).map(pairs)),
        });
    }
    TraceIds {
        rows: Box::new(Merged::new(each, desc)),
        listing: Listing {
            order,
            mc_seqno: None,
            participant: None,
        },
    }
}

/// Ordered streams of `(end, id)` merged into one ordered stream, each
/// pair once (a trace with actions of two types the filter names).
struct Merged<'a> {
    streams: Vec<std::iter::Peekable<Rows<'a>>>,
    desc: bool,
}

impl<'a> Merged<'a> {
    fn new(streams: Vec<Rows<'a>>, desc: bool) -> Self {
        Self {
            streams: streams.into_iter().map(Iterator::peekable).collect(),
            desc,
        }
    }
}

impl Iterator for Merged<'_> {
    type Item = Result<(u64, HashTag), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut best: Option<(u64, HashTag)> = None;
        for s in &mut self.streams {
            match s.peek() {
                Some(Err(_)) => return s.next(),
                Some(Ok(head)) => {
                    let better = best.is_none_or(|b| if self.desc { *head > b } else { *head < b });
                    if better {
                        best = Some(*head);
                    }
                }
                None => {}
            }
        }
        let best = best?;
        // Every stream at that pair moves past it.
        for s in &mut self.streams {
            if matches!(s.peek(), Some(Ok(head)) if *head == best) {
                s.next();
            }
        }
        Some(Ok(best))
    }
}

/// Every action of a trace, by action id.
pub fn trace_actions(r: &Reader<'_>, trace_id: &Hash) -> Result<Vec<ActionRecord>, Error> {
    Ok(traces_actions(r, std::slice::from_ref(trace_id))?
        .pop()
        .unwrap_or_default())
}

/// [`trace_actions`] of many traces, in order: their rows read under one
/// iterator and their accounts in one batch (a page of actions read these
/// a trace at a time, three lookups each).
pub fn traces_actions(r: &Reader<'_>, trace_ids: &[Hash]) -> Result<Vec<Vec<ActionRecord>>, Error> {
    let prefixes: Vec<Vec<u8>> = trace_ids
        .iter()
        .map(|id| KeyWriter::with_capacity(32).hash(id).finish())
        .collect();
    let stored = r.prefixes::<Actions>(&prefixes)?;
    let counts: Vec<usize> = stored.iter().map(Vec::len).collect();
    let mut records =
        action_records(r, stored.into_iter().flatten().map(|(_, a)| a).collect())?.into_iter();
    Ok(counts
        .into_iter()
        .map(|n| records.by_ref().take(n).collect())
        .collect())
}

/// Stored actions as records: the accounts they name by number read back
/// in one batch ([`AccountAddresses`]).
pub fn action_records(
    r: &Reader<'_>,
    stored: Vec<StoredAction>,
) -> Result<Vec<ActionRecord>, Error> {
    let mut numbers: Vec<u64> = stored.iter().flat_map(stored_action::numbers).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let found = r.multi_get::<AccountAddresses>(&numbers)?;
    let addresses: HashMap<u64, Address> = numbers
        .into_iter()
        .zip(found)
        .filter_map(|(n, a)| Some((n, a?)))
        .collect();
    stored
        .into_iter()
        .map(|a| stored_action::from_stored(a, |n| addresses.get(&n).copied()))
        .collect()
}

/// The trace an action belongs to: of the traces its id's tag names
/// ([`ActionById`]), the one whose actions hold the whole id.
pub fn trace_of_action(r: &Reader<'_>, action_id: &Hash) -> Result<Option<Hash>, Error> {
    let holds = |r: &Reader<'_>, id: &Hash| -> Result<bool, Error> {
        let key = HashMsgKey {
            hash: *id,
            msg_hash: *action_id,
        };
        Ok(r.get::<Actions>(&key)?.is_some())
    };
    for row in r.prefix::<ActionById>(&hash_tag(action_id), false) {
        let trace_tag = row?.0.other;
        // `trace_by_tag` checks only between traces sharing the tag; an
        // action id that shares a tag with a stored one is checked here.
        let owns = |r: &Reader<'_>, t: &TraceRecord| holds(r, &t.trace_id);
        if let Some(id) = trace_by_tag(r, &trace_tag, owns)? {
            if holds(r, &id)? {
                return Ok(Some(id));
            }
        }
    }
    Ok(None)
}

/// Trace records read together while a page fills: a point read each
/// would cost a round of lookups per trace.
const PAGE_READ_BATCH: usize = 64;

/// Walks traces in answer order (a listing's rows), handing the records
/// to `take` a batch at a time (in order, never more traces than items
/// still wanted, so that `take` reads what a batch needs together), until
/// the items it kept reach `wanted`. A batch is taken whole, so that a
/// caller that sorts within a trace (actions) pages exactly as over every
/// trace: what is kept past `wanted` sorts after the rest and the caller's
/// paging leaves it out. Complete however selective
/// `take` is: it reads on until the index ends, or the reader's deadline
/// stops it (an error), never a window of candidates.
pub fn fill_page<T>(
    r: &Reader<'_>,
    ids: TraceIds<'_>,
    wanted: usize,
    desc: bool,
    mut take: impl FnMut(&Reader<'_>, Vec<TraceRecord>, &mut Vec<T>) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    let listing = ids.listing();
    let mut out = Vec::new();
    let mut ids = ids.peekable();
    while out.len() < wanted && ids.peek().is_some() {
        // Read no further ahead than the page can still use.
        let batch: Vec<(u64, HashTag)> = ids
            .by_ref()
            .take((wanted - out.len()).clamp(1, PAGE_READ_BATCH))
            .collect::<Result<_, _>>()?;
        take(r, listed_traces(r, &listing, &batch, desc)?, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_streams_come_out_in_order_each_pair_once() {
        let stream = |v: Vec<u64>| -> Rows<'static> {
            Box::new(v.into_iter().map(|e| Ok((e, [e as u8; 8]))))
        };
        let asc: Vec<u64> = Merged::new(
            vec![stream(vec![1, 4, 6]), stream(vec![2, 4, 9]), stream(vec![])],
            false,
        )
        .map(|x| x.unwrap().0)
        .collect();
        assert_eq!(asc, [1, 2, 4, 6, 9]);
        let desc: Vec<u64> = Merged::new(vec![stream(vec![6, 4, 1]), stream(vec![9, 4, 2])], true)
            .map(|x| x.unwrap().0)
            .collect();
        assert_eq!(desc, [9, 6, 4, 2, 1]);
    }

    fn trace(last: u8, end_lt: u64, end_utime: u32, mc: u32) -> TraceRecord {
        let mut trace_id = [0x5a; 32];
        trace_id[31] = last;
        TraceRecord {
            trace_id,
            external_hash: None,
            external_hash_norm: None,
            mc_seqno_start: Some(mc),
            mc_seqno_end: Some(mc),
            start_lt: end_lt - 1,
            start_utime: end_utime,
            end_lt,
            end_utime,
            state: tonindex_model::TraceState::Complete,
            transactions: 1,
            messages: 1,
            pending_messages: 0,
            classification: tonindex_model::ClassificationState::Ok,
            tx_ids: Vec::new(),
        }
    }

    /// Traces whose ids share their first 8 bytes (the tag listings keep)
    /// are each found by the rows that list them: by end, by masterchain
    /// block and by participant, in (end, id) order either way.
    #[test]
    fn traces_sharing_a_tag_resolve_to_the_ones_each_row_lists() {
        use tonindex_storage::tables::{AccountNumbers, Transactions};
        use tonindex_storage::{Db, DbOptions, TxPlace};
        let traces = [
            trace(1, 100, 10, 7),
            trace(2, 100, 11, 8),
            trace(3, 200, 10, 8),
            trace(4, 150, 12, 7),
        ];
        let account = Address {
            workchain: 0,
            id: [1; 32],
        };
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let mut batch = db.batch();
        for (n, t) in traces.iter().enumerate() {
            let tag = tonindex_storage::tables::hash_tag(&t.trace_id);
            // Transaction `n` is the trace's only one.
            let t = &TraceRecord {
                tx_ids: vec![n as u64],
                ..t.clone()
            };
            batch.put::<Traces>(&t.trace_id, t);
            batch.put::<TraceByEndLt>(&LtTagKey { lt: t.end_lt, tag }, &());
            let at = u64::from(t.end_utime);
            batch.put::<TraceByEndUtime>(&LtTagKey { lt: at, tag }, &());
            let mc = McLtTagKey {
                mc_seqno: t.mc_seqno_end.unwrap(),
                lt: t.end_lt,
                tag,
            };
            batch.put::<TraceByMcBlock>(&mc, &());
            // The account takes part in the first trace only.
            let who = if n == 0 {
                account
            } else {
                Address {
                    workchain: 0,
                    id: [2; 32],
                }
            };
            // Accounts numbered 1 (`account`) and 2; the transaction's place
            // names its account's.
            let num = u64::from(who.id[0]);
            batch.put::<AccountNumbers>(&who, &num);
            let place = TxPlace {
                block: tonindex_model::BlockId {
                    workchain: 0,
                    shard: 1 << 63,
                    seqno: 1,
                },
                mc_block_seqno: None,
                global_version: 11,
                account_num: num,
                lt: t.end_lt,
                trace_tag: Some(tag),
            };
            batch.put::<Transactions>(&(n as u64), &place);
            let by = AccountLtTagKey {
                account: who,
                lt: t.end_lt,
                tag,
            };
            batch.put::<TraceByAccount>(&by, &());
        }
        // An action of the second trace.
        let action = HashMsgKey {
            hash: traces[1].trace_id,
            msg_hash: [8; 32],
        };
        let record = ActionRecord {
            action_id: [8; 32],
            ..crate::trace::classify::unknown(&traces[1], &[])
        };
        batch.put::<Actions>(&action, &stored_action::to_stored(&record, |_| None));
        let by_id = tonindex_storage::tables::TagPairKey {
            tag: hash_tag(&[8; 32]),
            other: hash_tag(&traces[1].trace_id),
        };
        batch.put::<ActionById>(&by_id, &());
        db.write(batch).unwrap();
        let r = db.reader();
        let page = |account: Option<&Address>, order, desc| -> Vec<u8> {
            let ids = settled_trace_ids(&r, account, order, 0, u64::MAX, desc);
            fill_page(&r, ids, 100, desc, |_, traces, out| {
                out.extend(traces.iter().map(|t| t.trace_id[31]));
                Ok(())
            })
            .unwrap()
        };
        assert_eq!(page(None, TraceOrder::EndLt, false), [1, 2, 4, 3]);
        assert_eq!(page(None, TraceOrder::EndLt, true), [3, 4, 2, 1]);
        assert_eq!(page(None, TraceOrder::EndUtime, false), [1, 3, 2, 4]);
        assert_eq!(page(None, TraceOrder::EndUtime, true), [4, 2, 3, 1]);
        // The second trace ends with the first and shares its tag, but the
        // account has no transaction in it.
        assert_eq!(page(Some(&account), TraceOrder::EndLt, false), [1]);
        let mc = |seqno| -> Vec<u8> {
            completed_in_mc_block(&r, seqno, false)
                .unwrap()
                .iter()
                .map(|t| t.trace_id[31])
                .collect()
        };
        assert_eq!(mc(7), [1, 4]);
        assert_eq!(mc(8), [2, 3]);
        // Each transaction's trace, and the action's, though three traces
        // share the tag.
        let of_txs = trace_ids_of_txs(&r, &[0, 1, 2, 3, 4]).unwrap();
        let want: Vec<Option<Hash>> = traces.iter().map(|t| Some(t.trace_id)).collect();
        assert_eq!(of_txs[..4], want[..]);
        assert_eq!(of_txs[4], None);
        // Roots known by their own hash give the same; the others still
        // resolve by their rows.
        let hashes = [
            traces[0].trace_id,
            [0xee; 32],
            traces[2].trace_id,
            [0xef; 32],
            [0xf0; 32],
        ];
        let ids = [0, 1, 2, 3, 4];
        let tags: Vec<Option<HashTag>> = r
            .multi_get::<Transactions>(&ids)
            .unwrap()
            .into_iter()
            .map(|p| p.and_then(|p| p.trace_tag))
            .collect();
        let loaded = trace_ids_of_loaded_txs(&r, &ids, &tags, &hashes).unwrap();
        let loaded_ids: Vec<Option<Hash>> = loaded.iter().map(|t| t.map(|t| t.id())).collect();
        assert_eq!(loaded_ids, of_txs);
        // Roots are not read; the others come with their record's external
        // message.
        assert_eq!(loaded[0], Some(TxTrace::Root(traces[0].trace_id)));
        assert_eq!(loaded[1], Some(TxTrace::of(&traces[1])));
        assert_eq!(
            trace_of_action(&r, &[8; 32]).unwrap(),
            Some(traces[1].trace_id)
        );
        assert_eq!(trace_of_action(&r, &[7; 32]).unwrap(), None);
    }
}
