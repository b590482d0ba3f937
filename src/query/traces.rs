//! Traces and actions: by id, by account, by end lt, by the masterchain
//! block that completed them, and the transactions and actions of each.

use tonindex_model::{ActionRecord, Address, Hash, TraceRecord};
use tonindex_storage::tables::Table;
use tonindex_storage::tables::{
    AccountLtHashKey, ActionByAccount, ActionByAccountType, ActionByAccountUtime, ActionById,
    ActionByType, Actions, LtHashKey, OpcodeLtHashKey, TraceByAccount, TraceByAccountUtime,
    TraceByEndLt, TraceByEndUtime, TraceByMcBlock, TraceOfTx, Traces, TxByTrace, TypeEndKey,
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

/// `(end, trace id)` pairs of a trace listing, in its order.
pub type TraceIds<'a> = Box<dyn Iterator<Item = Result<(u64, Hash), Error>> + 'a>;

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
) -> TraceIds<'a> {
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
) -> TraceIds<'a> {
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
) -> TraceIds<'a> {
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
) -> TraceIds<'a> {
    match order {
        TraceOrder::EndLt => by_account::<ActionByAccount>(r, account, lo, hi, desc),
        TraceOrder::EndUtime => by_account::<ActionByAccountUtime>(r, account, lo, hi, desc),
    }
}

/// `(trace end, trace id)` of traces with an action of one of `kinds`
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
    let order = match order {
        TraceOrder::EndLt => 0,
        TraceOrder::EndUtime => 1,
    };
    let mut each: Vec<TraceIds<'a>> = Vec::new();
    for kind in kinds {
        let (lower, upper) = TypeEndKey::end_range(order, account, kind, lo, hi);
        let pairs = |x: Result<(TypeEndKey, ()), Error>| x.map(|(k, ())| (k.end, k.hash));
        each.push(match account {
            Some(_) => Box::new(
                r.range::<ActionByAccountType>(&lower, upper, desc)
                    .map(pairs),
            ),
            None => Box::new(r.range::<ActionByType>(&lower, upper, desc).map(pairs)),
        });
    }
    Box::new(Merged::new(each, desc))
}

/// Ordered streams of `(end, id)` merged into one ordered stream, each
/// pair once (a trace with actions of two types the filter names).
struct Merged<'a> {
    streams: Vec<std::iter::Peekable<TraceIds<'a>>>,
    desc: bool,
}

impl<'a> Merged<'a> {
    fn new(streams: Vec<TraceIds<'a>>, desc: bool) -> Self {
        Self {
            streams: streams.into_iter().map(Iterator::peekable).collect(),
            desc,
        }
    }
}

impl Iterator for Merged<'_> {
    type Item = Result<(u64, Hash), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut best: Option<(u64, Hash)> = None;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_streams_come_out_in_order_each_pair_once() {
        let stream = |v: Vec<u64>| -> Box<dyn Iterator<Item = Result<(u64, Hash), Error>>> {
            Box::new(v.into_iter().map(|e| Ok((e, [e as u8; 32]))))
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
}
