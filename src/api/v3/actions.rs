//! `/actions` (spec v3 §4.2) and how an action row becomes its JSON —
//! shared with `/traces?include_actions=true`. Its per-type `details`
//! (§4.5) are built in `action_details`, the action-type sets clients ask
//! for (§4.4) in `action_types`.

use std::collections::HashSet;

use serde::Serialize;
use tonindex_model::{ActionRecord, Hash, TraceRecord};

use super::action_details::{details, ActionDetails};
use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::models::{AccountState, Transaction};
use super::{BookMetadataArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, raw_upper, ParsedAddress};
use crate::api::params::Params;
use crate::api::request::{request, Utime};
use crate::api::Ctx;
use crate::query::traces::TraceOrder;
use crate::query::{self, messages::Side};

use super::action_types::type_list;
pub use super::action_types::{supported_types, visible};

/// One action as v3 shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ActionJson {
    trace_id: String,
    action_id: String,
    start_lt: String,
    end_lt: String,
    start_utime: u32,
    end_utime: u32,
    trace_end_lt: String,
    trace_end_utime: u32,
    trace_mc_seqno_end: Option<u32>,
    transactions: Vec<String>,
    success: bool,
    #[serde(rename = "type")]
    kind: String,
    details: ActionDetails,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_external_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_external_hash_norm: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accounts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transactions_full: Option<Vec<Transaction>>,
    finality: &'static str,
}

impl ActionJson {
    /// The action of a trace not committed yet, at its level.
    pub fn at(self, level: crate::api::pending::Level) -> Self {
        Self {
            finality: level.finality(),
            ..self
        }
    }
}

/// An action row as v3 shows it, with its trace's fields.
pub fn action_json(r: &ActionRecord, trace: &TraceRecord, accounts: bool) -> ActionJson {
    ActionJson {
        trace_id: b64(&r.trace_id),
        action_id: b64(&r.action_id),
        start_lt: r.start_lt.to_string(),
        end_lt: r.end_lt.to_string(),
        start_utime: r.start_utime,
        end_utime: r.end_utime,
        trace_end_lt: trace.end_lt.to_string(),
        trace_end_utime: trace.end_utime,
        trace_mc_seqno_end: trace.mc_seqno_end,
        transactions: r.tx_hashes.iter().map(|h| b64(h)).collect(),
        success: r.success,
        kind: r.kind.clone(),
        details: details(r),
        trace_external_hash: trace.external_hash.as_ref().map(|h| b64(h)),
        trace_external_hash_norm: trace.external_hash_norm.as_ref().map(|h| b64(h)),
        accounts: accounts.then(|| r.accounts.iter().map(raw_upper).collect()),
        transactions_full: None,
        finality: "finalized",
    }
}

request! {
    /// The action types a client understands.
    pub struct ActionTypesArgs {
        /// Action types or shortcuts the client understands (also the X-Actions-Version header; default latest)
        supported_action_types: Vec<String>,
    }
}

request! {
    /// `/actions`' filters.
    pub struct ActionsRequest {
        /// Actions involving this account
        account: Option<ParsedAddress>,
        /// Actions of these transactions
        tx_hash: Vec<[u8; 32]>,
        /// Actions of the traces of these messages
        msg_hash: Vec<[u8; 32]>,
        /// Actions by id
        action_id: Vec<[u8; 32]>,
        /// Actions of these traces
        trace_id: Vec<[u8; 32]>,
        /// Traces completed in this masterchain block
        mc_seqno: Option<u32>,
        /// Only these action types
        action_type: Vec<String>,
        /// Leave out these action types
        exclude_action_type: Vec<String>,
        /// Attach each action's accounts
        include_accounts: Option<bool>,
        /// Attach each action's transactions
        include_transactions: Option<bool>,
        /// Traces ending not before this unix time
        start_utime: Option<Utime>,
        /// Traces ending not after this unix time
        end_utime: Option<Utime>,
        /// Traces ending not below this logical time
        start_lt: Option<u64>,
        /// Traces ending not above this logical time
        end_lt: Option<u64>,
    }
    with { types: ActionTypesArgs, paging: PagingArgs, shape: BookMetadataArgs }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ActionsResponse {
    actions: Vec<ActionJson>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

/// The traces whose actions a request looks at: those it names (a list,
/// sorted later), or every trace in an lt window, by account or all, in
/// answer order from an index (read only as far as the page needs).
enum Candidates<'a> {
    Named(Vec<Hash>),
    Ordered(query::traces::TraceIds<'a>),
}

fn candidate_traces<'a>(
    ctx: &'a Ctx<'_>,
    q: &ActionsRequest,
    paging: &Paging,
    types: Option<&[String]>,
) -> Result<Candidates<'a>, V3Error> {
    let r = &ctx.reader;
    let action_ids = &q.action_id;
    if !action_ids.is_empty() {
        let mut out = Vec::new();
        for id in action_ids {
            out.extend(query::traces::trace_of_action(r, id)?);
        }
        return Ok(Candidates::Named(out));
    }
    let (tx_hashes, msg_hashes) = (&q.tx_hash, &q.msg_hash);
    if !q.trace_id.is_empty() {
        return Ok(Candidates::Named(q.trace_id.clone()));
    }
    if !tx_hashes.is_empty() {
        return Ok(Candidates::Named(traces_of_txs(ctx, tx_hashes)?));
    }
    if !msg_hashes.is_empty() {
        return Ok(Candidates::Named(traces_of_messages(ctx, msg_hashes)?));
    }
    if let Some(mc) = q.mc_seqno {
        if query::blocks::mc_block(r, mc)?.is_none() {
            return Err(V3Error::not_found(format!(
                "masterchain block {mc} not found"
            )));
        }
        let traces = query::traces::completed_in_mc_block(r, mc, paging.desc)?;
        return Ok(Candidates::Named(
            traces.into_iter().map(|t| t.trace_id).collect(),
        ));
    }
    // A time window is a key range of the end-time indexes (whose order v3
    // then answers in), else the lt window one of the end-lt indexes; the
    // records are checked against both.
    let (start_utime, end_utime) = (q.start_utime.map(|t| t.0), q.end_utime.map(|t| t.0));
    let (order, lo, hi) = if start_utime.is_some() || end_utime.is_some() {
        let (lo, hi) = (start_utime.unwrap_or(0), end_utime.unwrap_or(u64::MAX));
        (TraceOrder::EndUtime, lo, hi)
    } else {
        let lo = q.start_lt.unwrap_or(0);
        let hi = q.end_lt.unwrap_or(u64::MAX);
        (TraceOrder::EndLt, lo, hi)
    };
    let account = q.account.map(|a| a.address);
    if let Some(types) = types {
        // The types' indexes name only traces with such an action.
        return Ok(Candidates::Ordered(query::traces::typed_trace_ids(
            r,
            account.as_ref(),
            order,
            types,
            lo,
            hi,
            paging.desc,
        )));
    }
    Ok(Candidates::Ordered(match &account {
        Some(acc) => query::traces::action_trace_ids(r, acc, order, lo, hi, paging.desc),
        None => query::traces::settled_trace_ids(r, None, order, lo, hi, paging.desc),
    }))
}

/// The traces of transactions given by hash.
pub fn traces_of_txs(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Hash>, V3Error> {
    let mut ids = Vec::new();
    for h in hashes {
        ids.extend(query::transactions::tx_id_by_hash(&ctx.reader, h)?);
    }
    let mut out = Vec::new();
    for t in query::traces::traces_of_tx_ids(&ctx.reader, &ids)? {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// The traces holding messages given by hash (or TEP-467 normalized hash).
pub fn traces_of_messages(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Hash>, V3Error> {
    let r = &ctx.reader;
    let msgs = query::messages::msg_hashes_or_norm(r, hashes)?;
    let mut ids = Vec::new();
    for m in &msgs {
        for side in [Side::Sender, Side::Receiver] {
            ids.extend(query::messages::txs_of_message(r, m, side)?);
        }
    }
    let mut out = Vec::new();
    for t in query::traces::traces_of_tx_ids(r, &ids)? {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// `GET /api/v3/actions`.
pub fn actions(ctx: &Ctx<'_>, _: &Params, q: ActionsRequest) -> Result<ActionsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let supported = supported_types(&q.types.supported_action_types)?;
    let include: Vec<String> = type_list(&q.action_type)?;
    let exclude: Vec<String> = type_list(&q.exclude_action_type)?;
    let include_accounts = q.include_accounts.unwrap_or(false);
    let include_txs = q.include_transactions.unwrap_or(false);
    let account = q.account.map(|a| a.address);
    let start_utime = q.start_utime.map(|t| t.0);
    let end_utime = q.end_utime.map(|t| t.0);
    let tx_filter = &q.tx_hash;
    let action_filter = &q.action_id;
    let start_lt = q.start_lt.unwrap_or(0);
    let end_lt = q.end_lt.unwrap_or(u64::MAX);
    // v3's order: `trace_end_lt, trace_id, end_lt, action_id`, by times
    // instead of lts when the request filters by time.
    let by_utime = start_utime.is_some() || end_utime.is_some();
    let trace_end = |t: &TraceRecord| {
        if by_utime {
            u64::from(t.end_utime)
        } else {
            t.end_lt
        }
    };
    let action_end = |a: &ActionRecord| {
        if by_utime {
            u64::from(a.end_utime)
        } else {
            a.end_lt
        }
    };
    // One trace's actions that pass every filter, in answer order.
    let keep_actions = |trace: TraceRecord,
                        acts: Vec<ActionRecord>,
                        rows: &mut Vec<(TraceRecord, ActionRecord)>| {
        let mut kept: Vec<ActionRecord> = acts
            .into_iter()
            .filter(|act| {
                let shown = if include.is_empty() {
                    visible(act, &supported)
                } else {
                    include.contains(&act.kind)
                };
                shown
                    && !exclude.contains(&act.kind)
                    && account.is_none_or(|acc| act.accounts.contains(&acc))
                    && (tx_filter.is_empty() || act.tx_hashes.iter().any(|h| tx_filter.contains(h)))
                    && (action_filter.is_empty() || action_filter.contains(&act.action_id))
            })
            .collect();
        // Within a trace, in answer order too.
        kept.sort_by_key(|a| (action_end(a), a.action_id));
        if paging.desc {
            kept.reverse();
        }
        rows.extend(kept.into_iter().map(|a| (trace.clone(), a)));
    };
    // The traces' actions that pass every filter, each trace's read
    // together.
    let take = |r: &tonindex_storage::Reader<'_>,
                traces: Vec<TraceRecord>,
                rows: &mut Vec<(TraceRecord, ActionRecord)>|
     -> Result<(), tonindex_storage::Error> {
        let traces: Vec<TraceRecord> = traces
            .into_iter()
            .filter(|trace| {
                !(start_utime.is_some_and(|u| u64::from(trace.end_utime) < u)
                    || end_utime.is_some_and(|u| u64::from(trace.end_utime) > u)
                    || !(start_lt..=end_lt).contains(&trace.end_lt))
            })
            .collect();
        let ids: Vec<_> = traces.iter().map(|t| t.trace_id).collect();
        let actions = query::traces::traces_actions(r, &ids)?;
        for (trace, acts) in traces.into_iter().zip(actions) {
            keep_actions(trace, acts, rows);
        }
        Ok(())
    };
    // The type indexes to walk: the types named, or with only exclusions
    // the types a client sees less those excluded (a shown action's type
    // is in `supported`), so that traces holding only excluded actions
    // are never read.
    let index_types: Option<Vec<String>> = if !include.is_empty() {
        Some(include.clone())
    } else if !exclude.is_empty() {
        let mut types: Vec<String> = supported
            .iter()
            .filter(|t| !exclude.contains(t))
            .cloned()
            .collect();
        types.sort();
        Some(types)
    } else {
        None
    };
    let mut rows = match candidate_traces(ctx, &q, &paging, index_types.as_deref())? {
        Candidates::Named(mut ids) => {
            // Two named actions of one trace name it once.
            let mut seen = HashSet::new();
            ids.retain(|id| seen.insert(*id));
            let mut rows = Vec::new();
            take(
                &ctx.reader,
                query::traces::traces(&ctx.reader, &ids)?,
                &mut rows,
            )?;
            rows
        }
        Candidates::Ordered(ids) => {
            query::traces::fill_page(&ctx.reader, ids, paging.needed(), paging.desc, take)?
        }
    };
    let key = |(t, a): &(TraceRecord, ActionRecord)| {
        (trace_end(t), t.trace_id, action_end(a), a.action_id)
    };
    rows.sort_by_key(key);
    if paging.desc {
        rows.reverse();
    }
    let rows = paging.page(rows);
    let mut addresses = Vec::new();
    let mut out = Vec::with_capacity(rows.len());
    for (trace, act) in &rows {
        addresses.extend(act.accounts.iter().copied());
        let mut j = action_json(act, trace, include_accounts);
        if include_txs {
            j.transactions_full = Some(full_transactions(ctx, &act.tx_hashes)?);
        }
        out.push(j);
    }
    let address_book = address_book::build(ctx, &q.shape.book, addresses.iter().copied())?;
    Ok(ActionsResponse {
        actions: out,
        address_book,
        metadata: metadata::build(ctx, &q.shape, addresses)?,
    })
}

/// Transactions by hash as v3 shows them.
pub fn full_transactions(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Transaction>, V3Error> {
    let mut ids = Vec::new();
    for h in hashes {
        ids.extend(query::transactions::tx_id_by_hash(&ctx.reader, h)?);
    }
    let txs = query::transactions::full_txs(&ctx.reader, &ids)?;
    let mut out: Vec<Transaction> = txs.iter().map(Transaction::from).collect();
    AccountState::fill_all(
        out.iter_mut()
            .flat_map(|t| [&mut t.account_state_before, &mut t.account_state_after]),
        &ctx.reader,
    )?;
    Ok(out)
}

request! {
    /// `/pendingActions`' filters.
    pub struct PendingActionsRequest {
        /// Attach each action's transactions
        include_transactions: Option<bool>,
    }
    with { select: super::traces::PendingRequest, types: ActionTypesArgs, shape: BookMetadataArgs }
}

/// `GET /api/v3/pendingActions`: the actions of emulated traces.
pub fn pending_actions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: PendingActionsRequest,
) -> Result<ActionsResponse, V3Error> {
    let supported = supported_types(&q.types.supported_action_types)?;
    let include_txs = q.include_transactions.unwrap_or(false);
    let account = q.select.account.map(|a| a.address);
    let mut out = Vec::new();
    let mut addresses = Vec::new();
    for t in super::traces::pending_selected(ctx, account, &q.select.ext_msg_hash)? {
        for act in t.actions.iter().filter(|a| visible(a, &supported)) {
            if account.is_some_and(|acc| !act.accounts.contains(&acc)) {
                continue;
            }
            addresses.extend(act.accounts.iter().copied());
            let mut j = action_json(act, &t.trace, false).at(t.level);
            if include_txs {
                let full = t
                    .txs
                    .iter()
                    .filter(|f| act.tx_hashes.contains(&f.tx.hash))
                    .map(|f| super::traces::transaction_json(f, Some(t.level)))
                    .collect::<Result<Vec<_>, _>>()?;
                j.transactions_full = Some(full);
            }
            out.push(j);
        }
    }
    let address_book = address_book::build(ctx, &q.shape.book, addresses.iter().copied())?;
    Ok(ActionsResponse {
        actions: out,
        address_book,
        metadata: metadata::build(ctx, &q.shape, addresses)?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::action_types::expand;
    use super::*;

    fn set(name: &str) -> HashSet<String> {
        let mut out = HashSet::new();
        expand(name, &mut out, 0);
        out
    }

    #[test]
    fn shortcuts_expand_to_the_spec_sets() {
        // v1 23 types, v2 23 more (with unknown), v3 17 more, v4 the 12 cocoon types.
        assert_eq!(set("v1").len(), 23);
        assert_eq!(set("v2").len(), 46);
        assert_eq!(set("v3").len(), 63);
        assert_eq!(set("latest").len(), 75);
        assert!(set("latest").is_superset(&set("nft.v3")));
        assert!(set("nft.v3").contains("nft_mint") && set("nft.v3").contains("dns_release"));
        assert_eq!(set("layerzero").len(), 5);
        assert!(
            !set("latest").contains("tgbtc_mint"),
            "tgBTC is asked for by name"
        );
        assert_eq!(
            set("jetton_transfer").len(),
            1,
            "any other string is a type"
        );
    }
}
