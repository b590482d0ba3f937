//! Transactions: records and BoCs by id, with their in- and out-messages
//! resolved; ids by hash, by account and lt, by lt across accounts, and by
//! the masterchain block that commits them.

use tonindex_model::{Address, Hash, TransactionRecord};
use tonindex_storage::tables::{
    AccountLtKey, LtAccountKey, McLtAccountKey, TimeLtAccountKey, TraceOfTx, Transactions, TxBocs,
    TxByAccount, TxByHash, TxByLt, TxByMcBlock, TxByNow,
};
use tonindex_storage::{prefix_successor, Error, Key, Reader};

use super::messages::{message, messages, tx_message_cells, with_contents, Message, MISSING_TX};

/// A transaction with its messages resolved.
pub struct FullTx {
    pub tx: TransactionRecord,
    pub in_msg: Option<Message>,
    pub out_msgs: Vec<Message>,
    /// The transaction BoC.
    pub boc: Vec<u8>,
    /// The trace it belongs to, once assembled.
    pub trace_id: Option<Hash>,
}

/// Loads one transaction record.
pub fn tx_record(r: &Reader<'_>, id: u64) -> Result<TransactionRecord, Error> {
    r.get::<Transactions>(&id)?.ok_or(MISSING_TX)
}

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

/// Resolves the BoCs and the in- and out-messages (out-messages by
/// `created_lt`) of loaded `(tx_id, record)` pairs.
pub fn with_messages(
    r: &Reader<'_>,
    records: impl IntoIterator<Item = (u64, TransactionRecord)>,
) -> Result<Vec<FullTx>, Error> {
    let records: Vec<_> = records.into_iter().collect();
    let ids: Vec<u64> = records.iter().map(|(id, _)| *id).collect();
    let bocs = r.multi_get::<TxBocs>(&ids)?;
    let traces = r.multi_get::<TraceOfTx>(&ids)?;
    records
        .into_iter()
        .zip(bocs)
        .zip(traces)
        .map(|(((_, tx), boc), trace_id)| {
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
                trace_id,
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
    let key = |lt| {
        AccountLtKey {
            account: *account,
            lt,
        }
        .encode()
    };
    let upper = match hi.checked_add(1) {
        Some(lt) => Some(key(lt)),
        None => prefix_successor(&AccountLtKey::prefix(account)),
    };
    r.range::<TxByAccount>(&key(lo), upper, desc)
        .map(|x| x.map(|(_, id)| id))
}

/// The lt and time of `account`'s first transaction at or after lt `lt`.
fn first_tx_from(r: &Reader<'_>, account: &Address, lt: u64) -> Result<Option<(u64, u32)>, Error> {
    match account_tx_ids_iter(r, account, lt, u64::MAX, false).next() {
        Some(id) => {
            let t = tx_record(r, id?)?;
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

/// Every account's transaction ids with `lo <= lt <= hi`, by lt (then
/// account), oldest or newest first.
pub fn lt_tx_ids_iter<'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
) -> impl Iterator<Item = Result<u64, Error>> + 'a {
    let key = |lt| {
        LtAccountKey {
            lt,
            account: Address {
                workchain: i32::MIN,
                id: [0; 32],
            },
        }
        .encode()
    };
    let upper = hi.checked_add(1).map(key);
    r.range::<TxByLt>(&key(lo), upper, desc)
        .map(|x| x.map(|(_, id)| id))
}

/// Every account's transaction ids with `lo <= now <= hi`, by time (then
/// lt, then account), oldest or newest first: v3's order with a time filter.
pub fn now_tx_ids_iter<'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Box<dyn Iterator<Item = Result<u64, Error>> + 'a> {
    let key = |now: u32| {
        TimeLtAccountKey {
            now,
            lt: 0,
            account: Address {
                workchain: i32::MIN,
                id: [0; 32],
            },
        }
        .encode()
    };
    let Some((lo, past)) = super::u32_time_bounds(lo, hi) else {
        return Box::new(std::iter::empty());
    };
    let upper = past.map(key);
    Box::new(
        r.range::<TxByNow>(&key(lo), upper, desc)
            .map(|x| x.map(|(_, id)| id)),
    )
}

/// Ids of the transactions of one masterchain block and the shard blocks
/// it commits.
pub fn mc_block_tx_ids(r: &Reader<'_>, mc_seqno: u32) -> Result<Vec<u64>, Error> {
    r.prefix::<TxByMcBlock>(&McLtAccountKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(_, id)| id))
        .collect()
}
