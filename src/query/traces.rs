//! Traces and actions: by id, by account, by end lt, by the masterchain
//! block that completed them, and the transactions and actions of each.

use tonindex_model::{ActionRecord, Address, Hash, TraceRecord};
use tonindex_storage::tables::Table;
use tonindex_storage::tables::{
    AccountLtHashKey, ActionByAccount, ActionByAccountUtime, ActionById, Actions, LtHashKey,
    OpcodeLtHashKey, TraceByAccount, TraceByAccountUtime, TraceByEndLt, TraceByEndUtime,
    TraceByMcBlock, TraceOfTx, Traces, TxByTrace,
};
use tonindex_storage::{Error, Key, KeyWriter, Reader};

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
    Ok(r.multi_get::<TraceOfTx>(ids)?
        .into_iter()
        .flatten()
        .collect())
}

/// The trace's transaction ids in v3's order (lt, then account).
pub fn trace_tx_ids(r: &Reader<'_>, id: &Hash) -> Result<Vec<u64>, Error> {
    let prefix = KeyWriter::with_capacity(32).hash(id).finish();
    r.prefix::<TxByTrace>(&prefix, false)
        .map(|x| x.map(|(_, tx)| tx))
        .collect()
}

/// Which of a trace's ends a listing is ordered by: v3 orders by end lt,
/// or by end time when the request filters by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceOrder {
    EndLt,
    EndUtime,
}

/// `(end, trace id)` of settled traces with `lo <= end <= hi` (`end`:
/// their end lt or end time, as `order` says) that `account` took part in
/// (`None`: every account), oldest or newest first.
pub fn settled_trace_ids<'a>(
    r: &Reader<'a>,
    account: Option<&Address>,
    order: TraceOrder,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Box<dyn Iterator<Item = Result<(u64, Hash), Error>> + 'a> {
    match (account, order) {
        (Some(a), TraceOrder::EndLt) => by_account::<TraceByAccount>(r, a, lo, hi, desc),
        (Some(a), TraceOrder::EndUtime) => by_account::<TraceByAccountUtime>(r, a, lo, hi, desc),
        (None, TraceOrder::EndLt) => by_end::<TraceByEndLt>(r, lo, hi, desc),
        (None, TraceOrder::EndUtime) => by_end::<TraceByEndUtime>(r, lo, hi, desc),
    }
}

/// `(end, trace id)` rows of an `account | end | trace id` table.
fn by_account<'a, T: Table<Key = AccountLtHashKey, Value = ()> + 'a>(
    r: &Reader<'a>,
    account: &Address,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Box<dyn Iterator<Item = Result<(u64, Hash), Error>> + 'a> {
    let (lower, upper) = AccountLtHashKey::lt_range(account, lo, hi);
    Box::new(
        r.range::<T>(&lower, upper, desc)
            .map(|x| x.map(|(k, ())| (k.lt, k.hash))),
    )
}

/// `(end, trace id)` rows of an `end | trace id` table.
fn by_end<'a, T: Table<Key = LtHashKey, Value = ()> + 'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Box<dyn Iterator<Item = Result<(u64, Hash), Error>> + 'a> {
    let key = |lt| LtHashKey { lt, hash: [0; 32] }.encode();
    let upper = hi.checked_add(1).map(key);
    Box::new(
        r.range::<T>(&key(lo), upper, desc)
            .map(|x| x.map(|(k, ())| (k.lt, k.hash))),
    )
}

/// `(end_lt, trace id)` of the traces masterchain block `mc_seqno` completed, by end lt.
pub fn completed_in_mc_block(
    r: &Reader<'_>,
    mc_seqno: u32,
    desc: bool,
) -> Result<Vec<(u64, Hash)>, Error> {
    let prefix = OpcodeLtHashKey::prefix(mc_seqno);
    r.prefix::<TraceByMcBlock>(&prefix, desc)
        .map(|x| x.map(|(k, ())| (k.lt, k.hash)))
        .collect()
}

/// `(trace end, trace id)` of traces with actions involving `account`,
/// by the traces' end lt or end time.
pub fn action_trace_ids<'a>(
    r: &Reader<'a>,
    account: &Address,
    order: TraceOrder,
    lo: u64,
    hi: u64,
    desc: bool,
) -> Box<dyn Iterator<Item = Result<(u64, Hash), Error>> + 'a> {
    match order {
        TraceOrder::EndLt => by_account::<ActionByAccount>(r, account, lo, hi, desc),
        TraceOrder::EndUtime => by_account::<ActionByAccountUtime>(r, account, lo, hi, desc),
    }
}

/// Every action of a trace, by action id.
pub fn trace_actions(r: &Reader<'_>, trace_id: &Hash) -> Result<Vec<ActionRecord>, Error> {
    let prefix = KeyWriter::with_capacity(32).hash(trace_id).finish();
    r.prefix::<Actions>(&prefix, false)
        .map(|x| x.map(|(_, a)| a))
        .collect()
}

/// The trace an action belongs to.
pub fn trace_of_action(r: &Reader<'_>, action_id: &Hash) -> Result<Option<Hash>, Error> {
    r.get::<ActionById>(action_id)
}

/// Trace records read together while a page fills: a point read each
/// would cost a round of lookups per trace.
const PAGE_READ_BATCH: usize = 64;

/// Walks traces in answer order (`(end_lt, id)` from an index), handing
/// each record to `take`, until the items it kept reach `wanted`. The
/// trace that reaches it is taken whole, so that a caller that sorts
/// within a trace (actions) pages exactly as over every trace. Complete
/// however selective `take` is: it reads on until the index ends, or the
/// reader's deadline stops it (an error), never a window of candidates.
pub fn fill_page<T>(
    r: &Reader<'_>,
    ids: impl Iterator<Item = Result<(u64, Hash), Error>>,
    wanted: usize,
    mut take: impl FnMut(&Reader<'_>, TraceRecord, &mut Vec<T>) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    let mut out = Vec::new();
    let mut ids = ids.peekable();
    while out.len() < wanted && ids.peek().is_some() {
        // Read no further ahead than the page can still use.
        let batch: Vec<Hash> = ids
            .by_ref()
            .take((wanted - out.len()).clamp(1, PAGE_READ_BATCH))
            .map(|x| x.map(|(_, h)| h))
            .collect::<Result<_, _>>()?;
        for trace in traces(r, &batch)? {
            if out.len() >= wanted {
                break;
            }
            take(r, trace, &mut out)?;
        }
    }
    Ok(out)
}
