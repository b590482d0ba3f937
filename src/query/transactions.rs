//! Transactions: records and BoCs by id, with their in- and out-messages
//! resolved; ids by hash, by account and lt, by lt across accounts, and by
//! the masterchain block that commits them.

use tycho_types::cell::Cell;

use tonindex_model::{Address, Hash, TransactionRecord};
use tonindex_storage::tables::{
    hash_tag, AccountNumbers, LtAccountKey, McLtAccountKey, NumLtKey, TimeLtAccountKey,
    Transactions, TxBocs, TxByHash, TxByLt, TxByMcBlock, TxByNow, TxTail,
};
use tonindex_storage::{prefix_successor, Error, Key, Reader, TxBoc, TxPlace};

use super::messages::{Message, CORRUPT_TX_BOC, MISSING_TX};
use super::traces::TxTrace;
use crate::decode::message::decode_message_with_contents;
use crate::decode::transaction::stored_transaction;

/// A transaction with its messages resolved.
pub struct FullTx {
    pub tx: TransactionRecord,
    pub in_msg: Option<Message>,
    pub out_msgs: Vec<Message>,
    /// The transaction BoC.
    pub boc: Vec<u8>,
    /// The trace it belongs to, once assembled.
    pub trace_id: Option<Hash>,
    /// That trace's `external_hash` (the message that started it, as
    /// trace assembly records it).
    pub trace_external_hash: Option<Hash>,
}

/// A stored transaction as readers use it: its id, its record (rebuilt
/// from the BoC and the stored place, see `tables::Transactions`), the
/// BoC, its message cells (the in-message first, then the out-messages in
/// `out_msgs` order), and its place, whose block version decides how
/// those cells' records read.
pub struct LoadedTx {
    pub id: u64,
    pub record: TransactionRecord,
    pub boc: Vec<u8>,
    pub message_cells: Vec<Cell>,
    pub place: TxPlace,
}

/// The places and BoCs of transactions by id, in the order given: one
/// batched read of the places, then one of the BoCs they name. Each BoC
/// row must name the id it was read for.
pub fn places_and_bocs(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<(TxPlace, Vec<u8>)>, Error> {
    let places = r
        .multi_get::<Transactions>(ids)?
        .into_iter()
        .map(|p| p.ok_or(MISSING_TX))
        .collect::<Result<Vec<TxPlace>, Error>>()?;
    let keys: Vec<NumLtKey> = places.iter().map(TxPlace::boc_key).collect();
    let bocs = r.multi_get::<TxBocs>(&keys)?;
    ids.iter()
        .zip(places)
        .zip(bocs)
        .map(|((&id, place), row)| match row {
            Some(row) if row.tx_id == id => Ok((place, row.boc)),
            Some(_) => Err(Error::Corrupt("a transaction's place names another's BoC")),
            None => Err(MISSING_TX),
        })
        .collect()
}

/// Loads transactions by id (one batched read of places, one of BoCs, one
/// decode each), in the order given.
pub fn load_txs(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<LoadedTx>, Error> {
    ids.iter()
        .zip(places_and_bocs(r, ids)?)
        .map(|(&id, (place, boc))| loaded(id, place, boc))
        .collect()
}

/// Loads transactions whose BoC rows a range of an account's history has
/// read already ([`account_txs_iter`]): only their places are looked up.
pub fn load_rows(r: &Reader<'_>, rows: Vec<TxBoc>) -> Result<Vec<LoadedTx>, Error> {
    let ids: Vec<u64> = rows.iter().map(|row| row.tx_id).collect();
    let places = r.multi_get::<Transactions>(&ids)?;
    rows.into_iter()
        .zip(places)
        .map(|(row, place)| loaded(row.tx_id, place.ok_or(MISSING_TX)?, row.boc))
        .collect()
}

/// A transaction decoded from its BoC and place.
fn loaded(id: u64, place: TxPlace, boc: Vec<u8>) -> Result<LoadedTx, Error> {
    let stored =
        stored_transaction(&boc, place.block, place.mc_block_seqno).map_err(|_| CORRUPT_TX_BOC)?;
    Ok(LoadedTx {
        id,
        record: stored.record,
        boc,
        message_cells: stored.message_cells,
        place,
    })
}

/// Loads one transaction (see [`load_txs`]).
pub fn load_tx(r: &Reader<'_>, id: u64) -> Result<LoadedTx, Error> {
    load_txs(r, &[id])?.pop().ok_or(MISSING_TX)
}

/// Loads one transaction record.
pub fn tx_record(r: &Reader<'_>, id: u64) -> Result<TransactionRecord, Error> {
    Ok(load_tx(r, id)?.record)
}

/// Loads transaction records by id, in the order given.
pub fn tx_records(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<TransactionRecord>, Error> {
    Ok(load_txs(r, ids)?.into_iter().map(|t| t.record).collect())
}

/// Loads transactions by id with their in- and out-messages.
pub fn full_txs(r: &Reader<'_>, ids: &[u64]) -> Result<Vec<FullTx>, Error> {
    with_messages(r, load_txs(r, ids)?)
}

/// [`with_messages`] without the traces, for answers that do not show a
/// transaction's trace (API v2): finding it is a read for about half of
/// a wallet's transactions, a third of a hot v2 `getTransactions`.
pub fn with_messages_untraced(
    txs: impl IntoIterator<Item = LoadedTx>,
) -> Result<Vec<FullTx>, Error> {
    txs.into_iter().map(|t| resolve((t, None))).collect()
}

/// Resolves the in- and out-messages (out-messages by `created_lt`) and
/// the traces of loaded transactions.
pub fn with_messages(
    r: &Reader<'_>,
    txs: impl IntoIterator<Item = LoadedTx>,
) -> Result<Vec<FullTx>, Error> {
    let txs: Vec<LoadedTx> = txs.into_iter().collect();
    let ids: Vec<u64> = txs.iter().map(|t| t.id).collect();
    let tags: Vec<_> = txs.iter().map(|t| t.place.trace_tag).collect();
    let hashes: Vec<Hash> = txs.iter().map(|t| t.record.hash).collect();
    let traces = super::traces::trace_ids_of_loaded_txs(r, &ids, &tags, &hashes)?;
    txs.into_iter().zip(traces).map(resolve).collect()
}

/// Loads the transactions of one trace by id (see [`full_txs`]) in v3's
/// order (lt, then account): their trace is known, so it is not looked up
/// transaction by transaction.
pub fn full_txs_of_trace(
    r: &Reader<'_>,
    ids: &[u64],
    trace: TxTrace,
) -> Result<Vec<FullTx>, Error> {
    Ok(full_txs_of_traces(r, &[(ids, trace)])?
        .pop()
        .unwrap_or_default())
}

/// [`full_txs_of_trace`] of many traces (each one's transaction ids and
/// id), in order: every transaction of a page of traces read in one batch.
pub fn full_txs_of_traces(
    r: &Reader<'_>,
    traces: &[(&[u64], TxTrace)],
) -> Result<Vec<Vec<FullTx>>, Error> {
    let ids: Vec<u64> = traces
        .iter()
        .flat_map(|(ids, _)| ids.iter().copied())
        .collect();
    let mut loaded = load_txs(r, &ids)?.into_iter();
    traces
        .iter()
        .map(|(ids, trace)| {
            let mut txs: Vec<LoadedTx> = loaded.by_ref().take(ids.len()).collect();
            txs.sort_by_key(|t| {
                let (rec, tag) = (&t.record, hash_tag(&t.record.account.id));
                (rec.lt, rec.account.workchain, tag, t.id)
            });
            txs.into_iter()
                .map(|t| resolve((t, Some(*trace))))
                .collect()
        })
        .collect()
}

/// A loaded transaction with its messages, each decoded from the BoC's
/// own message cell as the indexer decoded it (the block's version
/// given): every field a page shows is in the cell, so a page reads no
/// `messages` row (those were a few hundred random block reads a
/// 100-transaction page). Only the v2-envelope metadata is not in the
/// cell, and no page shows it.
fn resolve((loaded, trace): (LoadedTx, Option<TxTrace>)) -> Result<FullTx, Error> {
    let LoadedTx {
        record: tx,
        boc,
        message_cells,
        place,
        ..
    } = loaded;
    let mut messages = message_cells.iter().map(|cell| {
        let (record, contents) =
            decode_message_with_contents(cell, place.global_version).map_err(|_| CORRUPT_TX_BOC)?;
        Ok(Message { record, contents })
    });
    let in_msg = match tx.in_msg {
        Some(_) => Some(messages.next().ok_or(CORRUPT_TX_BOC)??),
        None => None,
    };
    let mut out_msgs = messages.collect::<Result<Vec<_>, Error>>()?;
    out_msgs.sort_by_key(|m| m.record.created_lt);
    let trace_external_hash = match trace {
        Some(TxTrace::Known { external_hash, .. }) => external_hash,
        Some(TxTrace::Root(_)) => in_msg.as_ref().map(|m| m.record.hash),
        None => None,
    };
    Ok(FullTx {
        tx,
        in_msg,
        out_msgs,
        boc,
        trace_id: trace.map(|t| t.id()),
        trace_external_hash,
    })
}

/// The transaction with `hash`, loaded: of the ids its tag lists
/// ([`TxByHash`]), the one whose BoC's root hash it is. Pages by hash use
/// it as loaded, so its BoC is decoded once.
pub fn tx_by_hash(r: &Reader<'_>, hash: &Hash) -> Result<Option<LoadedTx>, Error> {
    for row in r.prefix::<TxByHash>(&hash_tag(hash), false) {
        let tx = load_tx(r, row?.0.id)?;
        if tx.record.hash == *hash {
            return Ok(Some(tx));
        }
    }
    Ok(None)
}

/// The id of the transaction with `hash` (see [`tx_by_hash`]).
pub fn tx_id_by_hash(r: &Reader<'_>, hash: &Hash) -> Result<Option<u64>, Error> {
    Ok(tx_by_hash(r, hash)?.map(|t| t.id))
}

/// The number [`AccountNumbers`] gives `account`, if it has transactions.
pub fn account_num(r: &Reader<'_>, account: &Address) -> Result<Option<u64>, Error> {
    r.get::<AccountNumbers>(account)
}

/// An account's transactions with `lo <= lt <= hi`, oldest or newest first:
/// each one's lt and row (its id and BoC), read from its history in one
/// range.
pub fn account_txs_iter<'a>(
    r: &Reader<'a>,
    account: &Address,
    lo: u64,
    hi: u64,
    desc: bool,
) -> impl Iterator<Item = Result<(u64, TxBoc), Error>> + 'a {
    let (num, failed) = match account_num(r, account) {
        Ok(num) => (num, None),
        Err(e) => (None, Some(e)),
    };
    let rows = num.map(|num| {
        let key = |lt| NumLtKey { num, lt }.encode();
        let upper = match hi.checked_add(1) {
            Some(lt) => Some(key(lt)),
            None => prefix_successor(&NumLtKey::prefix(num)),
        };
        r.range::<TxBocs>(&key(lo), upper, desc)
            .map(|x| x.map(|(k, row)| (k.lt, row)))
    });
    failed
        .map(Err)
        .into_iter()
        .chain(rows.into_iter().flatten())
}

/// An account's transaction ids with `lo <= lt <= hi`, oldest or newest first.
pub fn account_tx_ids_iter<'a>(
    r: &Reader<'a>,
    account: &Address,
    lo: u64,
    hi: u64,
    desc: bool,
) -> impl Iterator<Item = Result<u64, Error>> + 'a {
    account_txs_iter(r, account, lo, hi, desc).map(|x| x.map(|(_, row)| row.tx_id))
}

/// The lt of `account`'s newest indexed transaction.
pub fn newest_tx_lt(r: &Reader<'_>, account: &Address) -> Result<Option<u64>, Error> {
    Ok(account_txs_iter(r, account, 0, u64::MAX, true)
        .next()
        .transpose()?
        .map(|(lt, _)| lt))
}

/// The lt and time of `account`'s first transaction at or after lt `lt`.
fn first_tx_from(r: &Reader<'_>, account: &Address, lt: u64) -> Result<Option<(u64, u32)>, Error> {
    match account_txs_iter(r, account, lt, u64::MAX, false).next() {
        Some(row) => {
            let (_, row) = row?;
            let t = load_rows(r, vec![row])?.pop().ok_or(MISSING_TX)?.record;
            Ok(Some((t.lt, t.now)))
        }
        None => Ok(None),
    }
}

/// The lt of the first row at or after time `utime` in a history whose
/// rows are in time order as in lt order (one account's transactions, or
/// the messages it sent); `first_from(x)` gives the lt and time of the
/// first row at lt `x` or later. A binary search over lts: at most 64
/// probes, however long the history.
pub fn first_lt_at(
    first_from: impl Fn(u64) -> Result<Option<(u64, u32)>, Error>,
    utime: u64,
) -> Result<Option<u64>, Error> {
    // Whether the first row from `x` on is at `utime` or later (or is
    // none): false, then true, as `x` grows.
    let at_or_after = |x: u64| -> Result<bool, Error> {
        Ok(first_from(x)?.is_none_or(|(_, now)| u64::from(now) >= utime))
    };
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at_or_after(mid)? {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(first_from(lo)?
        .filter(|(_, now)| u64::from(*now) >= utime)
        .map(|(lt, _)| lt))
}

/// An lt range `lo..=hi` of a history in time order (see
/// [`first_lt_at`]) narrowed to its rows made at `start..=end` (either
/// open); `None` when none of them can match.
pub fn lt_range_in_time(
    first_from: impl Fn(u64) -> Result<Option<(u64, u32)>, Error>,
    (lo, hi): (u64, u64),
    (start, end): (Option<u64>, Option<u64>),
) -> Result<Option<(u64, u64)>, Error> {
    let mut range = (lo, hi);
    if let Some(start) = start {
        match first_lt_at(&first_from, start)? {
            Some(lt) => range.0 = range.0.max(lt),
            None => return Ok(None),
        }
    }
    if let Some(after) = end.and_then(|e| e.checked_add(1)) {
        if let Some(lt) = first_lt_at(&first_from, after)? {
            match lt.checked_sub(1) {
                Some(last) => range.1 = range.1.min(last),
                None => return Ok(None),
            }
        }
    }
    Ok((range.0 <= range.1).then_some(range))
}

/// `account`'s lt range `lo..=hi` narrowed to its transactions made at
/// `start..=end`: an account's transactions are in time order as in lt
/// order.
pub fn account_lt_range_in_time(
    r: &Reader<'_>,
    account: &Address,
    lts: (u64, u64),
    window: (Option<u64>, Option<u64>),
) -> Result<Option<(u64, u64)>, Error> {
    lt_range_in_time(|lt| first_tx_from(r, account, lt), lts, window)
}

/// A transaction as a list index keys it: what filters and orders a page
/// of every account's transactions without reading the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexedTx {
    /// Its time, where the index is by time.
    pub now: Option<u32>,
    pub lt: u64,
    /// Its account's workchain and tag (ties of lt go by account), and its id.
    pub tx: TxTail,
}

/// Every account's transactions with `lo <= lt <= hi`, by lt (then
/// account), oldest or newest first.
pub fn lt_txs_iter<'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
) -> impl Iterator<Item = Result<IndexedTx, Error>> + 'a {
    let key = |lt| {
        LtAccountKey {
            lt,
            tx: TxTail::MIN,
        }
        .encode()
    };
    let upper = hi.checked_add(1).map(key);
    r.range::<TxByLt>(&key(lo), upper, desc).map(|x| {
        x.map(|(k, ())| IndexedTx {
            now: None,
            lt: k.lt,
            tx: k.tx,
        })
    })
}

/// Every account's transactions with `lo <= now <= hi`, by time (then
/// lt, then account), oldest or newest first: v3's order with a time filter.
pub fn now_txs_iter<'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Box<dyn Iterator<Item = Result<IndexedTx, Error>> + 'a> {
    let key = |now: u32| {
        TimeLtAccountKey {
            now,
            lt: 0,
            tx: TxTail::MIN,
        }
        .encode()
    };
    let Some((lo, past)) = super::u32_time_bounds(lo, hi) else {
        return Box::new(std::iter::empty());
    };
    let upper = past.map(key);
    Box::new(r.range::<TxByNow>(&key(lo), upper, desc).map(|x| {
        x.map(|(k, ())| IndexedTx {
            now: Some(k.now),
            lt: k.lt,
            tx: k.tx,
        })
    }))
}

/// Ids of the transactions of one masterchain block and the shard blocks
/// it commits.
pub fn mc_block_tx_ids(r: &Reader<'_>, mc_seqno: u32) -> Result<Vec<u64>, Error> {
    r.prefix::<TxByMcBlock>(&McLtAccountKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(k, ())| k.tx.tx_id))
        .collect()
}
