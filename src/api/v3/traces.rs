//! `/traces` and `/events` (spec v3 §4.1): traces with their transactions,
//! tree and (on request) actions.

use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::{ClassificationState, Hash, TraceRecord, TraceState};

use super::actions::{self, ActionJson};
use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::models::{AccountState, Transaction};
use super::{BookArgs, BookMetadataArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, ParsedAddress};
use crate::api::params::Params;
use crate::api::pending::Level;
use crate::api::request::{request, Utime};
use crate::api::Ctx;
use crate::query;
use crate::query::traces::{TraceOrder, TxTrace};
use crate::trace::{trace_tx, tree};

/// Traces with more transactions are listed without them (toncenter's
/// `-max-trace-txs`).
const MAX_TRACE_TXS: usize = 4000;

#[derive(Serialize, utoipa::ToSchema)]
pub struct TraceInfo {
    trace_state: &'static str,
    messages: u32,
    transactions: u32,
    pending_messages: u32,
    classification_state: &'static str,
}

/// A transaction of a trace's tree, with the transactions its messages caused.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = TraceNode)]
pub struct NodeJson {
    tx_hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_msg_hash: Option<String>,
    #[schema(no_recursion)]
    children: Option<Vec<NodeJson>>,
}

impl From<&tree::Node> for NodeJson {
    fn from(n: &tree::Node) -> Self {
        Self {
            tx_hash: b64(&n.tx_hash),
            in_msg_hash: n.in_msg_hash.as_ref().map(|h| b64(h)),
            children: n
                .children
                .as_ref()
                .map(|c| c.iter().map(NodeJson::from).collect()),
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct TraceJson {
    trace_id: String,
    external_hash: Option<String>,
    mc_seqno_start: Option<String>,
    mc_seqno_end: Option<String>,
    start_lt: String,
    start_utime: u32,
    end_lt: String,
    end_utime: u32,
    trace_info: TraceInfo,
    is_incomplete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actions: Option<Vec<ActionJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<NodeJson>,
    transactions_order: Vec<String>,
    transactions: BTreeMap<String, Transaction>,
}

fn state_str(s: TraceState) -> &'static str {
    match s {
        TraceState::Complete => "complete",
        TraceState::Pending => "pending",
        TraceState::Broken => "broken",
    }
}

fn classification_str(s: ClassificationState) -> &'static str {
    match s {
        ClassificationState::Unclassified => "unclassified",
        ClassificationState::Ok => "ok",
        ClassificationState::Failed => "failed",
        ClassificationState::Broken => "broken",
    }
}

/// A trace as v3 shows it, with its transactions (and its actions with
/// the types a client sees, when asked for), all read by the caller; also
/// the accounts its transactions touch.
fn trace_json(
    t: &TraceRecord,
    txs: &[query::transactions::FullTx],
    actions: Option<(
        &[tonindex_model::ActionRecord],
        &std::collections::HashSet<String>,
    )>,
    accounts: &mut Vec<tonindex_model::Address>,
) -> Result<TraceJson, V3Error> {
    let actions = actions.map(|(acts, supported)| shown_actions(acts, t, supported, None));
    render(t, txs, actions, None, accounts)
}

/// Whether a page shows a trace whole: one of more transactions than
/// [`MAX_TRACE_TXS`] is shown as its shell.
fn shown_whole(t: &TraceRecord) -> bool {
    t.transactions as usize <= MAX_TRACE_TXS
}

/// A trace's actions a client with `supported` sees, as v3 shows them.
fn shown_actions(
    acts: &[tonindex_model::ActionRecord],
    t: &TraceRecord,
    supported: &std::collections::HashSet<String>,
    level: Option<Level>,
) -> Vec<ActionJson> {
    let mut acts: Vec<_> = acts
        .iter()
        .filter(|a| actions::visible(a, supported))
        .collect();
    acts.sort_by_key(|a| (a.start_lt, a.end_lt, a.action_id));
    acts.iter()
        .map(|a| {
            let j = actions::action_json(a, t, false);
            match level {
                Some(level) => j.at(level),
                None => j,
            }
        })
        .collect()
}

/// The trace's own fields, without transactions, tree or actions.
fn shell(t: &TraceRecord) -> TraceJson {
    let too_large = t.transactions as usize > MAX_TRACE_TXS;
    TraceJson {
        trace_id: b64(&t.trace_id),
        external_hash: t.external_hash.as_ref().map(|h| b64(h)),
        mc_seqno_start: t.mc_seqno_start.map(|s| s.to_string()),
        mc_seqno_end: t.mc_seqno_end.map(|s| s.to_string()),
        start_lt: t.start_lt.to_string(),
        start_utime: t.start_utime,
        end_lt: t.end_lt.to_string(),
        end_utime: t.end_utime,
        trace_info: TraceInfo {
            trace_state: state_str(t.state),
            messages: t.messages,
            transactions: t.transactions,
            pending_messages: t.pending_messages,
            classification_state: classification_str(t.classification),
        },
        is_incomplete: too_large || t.state != TraceState::Complete,
        warning: too_large.then_some("trace is too large"),
        actions: None,
        trace: None,
        transactions_order: Vec::new(),
        transactions: BTreeMap::new(),
    }
}

/// A trace with its transactions (emulated ones marked so), tree and order.
fn render(
    t: &TraceRecord,
    txs: &[query::transactions::FullTx],
    actions: Option<Vec<ActionJson>>,
    level: Option<Level>,
    accounts: &mut Vec<tonindex_model::Address>,
) -> Result<TraceJson, V3Error> {
    let mut out = shell(t);
    let nodes: Vec<_> = txs
        .iter()
        .map(|f| {
            let outs: Vec<_> = f.out_msgs.iter().map(|m| m.record.clone()).collect();
            trace_tx(
                &f.tx,
                f.in_msg.as_ref().map(|m| &m.record),
                &outs,
                f.tx.mc_block_seqno,
            )
        })
        .collect();
    out.trace = tree::build(&nodes, &t.trace_id)
        .as_ref()
        .map(NodeJson::from);
    out.transactions_order = tree::order(&nodes)
        .into_iter()
        .map(|i| b64(&nodes[i].hash))
        .collect();
    for f in txs {
        accounts.push(f.tx.account);
        out.transactions
            .insert(b64(&f.tx.hash), transaction_json(f, level)?);
    }
    out.actions = actions;
    Ok(out)
}

/// A committed trace's tree and its transactions (hash → Transaction, their
/// account states filled), as a streaming `trace` notification shows them.
pub fn tree_and_transactions(
    ctx: &Ctx<'_>,
    t: &TraceRecord,
) -> Result<(serde_json::Value, BTreeMap<String, Transaction>), V3Error> {
    let txs = query::transactions::full_txs_of_trace(&ctx.reader, &t.tx_ids, TxTrace::of(t))?;
    let mut accounts = Vec::new();
    let mut out = render(t, &txs, None, None, &mut accounts)?;
    AccountState::fill_all(
        out.transactions
            .values_mut()
            .flat_map(|t| [&mut t.account_state_before, &mut t.account_state_after]),
        &ctx.reader,
    )?;
    let tree = serde_json::to_value(&out.trace).unwrap_or(serde_json::Value::Null);
    Ok((tree, out.transactions))
}

/// An emulated trace's tree and its transactions (marked emulated), as a
/// streaming `trace` notification at `pending` shows them.
pub fn pending_tree_and_transactions(
    p: &crate::api::pending::PendingTrace,
) -> Result<(serde_json::Value, BTreeMap<String, Transaction>), V3Error> {
    let mut accounts = Vec::new();
    let out = render(&p.trace, &p.txs, None, Some(p.level), &mut accounts)?;
    let tree = serde_json::to_value(&out.trace).unwrap_or(serde_json::Value::Null);
    Ok((tree, out.transactions))
}

/// A transaction as v3 shows it: stored (`None`), or not committed yet —
/// an emulated one names the block whose state its emulation started
/// from and the masterchain block emulated on (it is in no block yet;
/// toncenter's emulator shows it so), a confirmed one the shard block no
/// masterchain block commits yet and the next masterchain block. A
/// stored one's account states are the caller's to fill
/// ([`AccountState::fill_all`] over the whole answer).
pub fn transaction_json(
    f: &query::transactions::FullTx,
    level: Option<Level>,
) -> Result<Transaction, V3Error> {
    let mut j = Transaction::from(f);
    if let Some(level) = level {
        j.emulated = level == Level::Emulated;
        j.finality = level.finality();
    }
    Ok(j)
}

request! {
    /// `/traces`' and `/events`' filters.
    pub struct TracesRequest {
        /// Traces involving this account
        account: Option<ParsedAddress>,
        /// Traces by id
        trace_id: Vec<[u8; 32]>,
        /// Traces of these transactions
        tx_hash: Vec<[u8; 32]>,
        /// Traces of these messages
        msg_hash: Vec<[u8; 32]>,
        /// Traces completed in this masterchain block
        mc_seqno: Option<u32>,
        /// Ending not before this unix time
        start_utime: Option<Utime>,
        /// Ending not after this unix time
        end_utime: Option<Utime>,
        /// Ending not below this logical time
        start_lt: Option<u64>,
        /// Ending not above this logical time
        end_lt: Option<u64>,
        /// Attach each trace's actions (always on for /events)
        include_actions: Option<bool>,
    }
    with { types: actions::ActionTypesArgs, paging: PagingArgs, shape: BookMetadataArgs }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct TracesResponse {
    traces: Vec<TraceJson>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct EventsResponse {
    events: Vec<TraceJson>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

/// The traces a request names, in answer order (before paging).
fn select(ctx: &Ctx<'_>, q: &TracesRequest, paging: &Paging) -> Result<Vec<TraceRecord>, V3Error> {
    let r = &ctx.reader;
    let account = q.account;
    let trace_ids = q.trace_id.clone();
    let (tx_hashes, msg_hashes) = (&q.tx_hash, &q.msg_hash);
    let given = [
        account.is_some(),
        !trace_ids.is_empty(),
        !tx_hashes.is_empty(),
        !msg_hashes.is_empty(),
    ];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(V3Error::invalid(
            "only one of account, trace_id, tx_hash, msg_hash should be specified",
        ));
    }
    let (start_utime, end_utime) = (q.start_utime.map(|t| t.0), q.end_utime.map(|t| t.0));
    let lo = q.start_lt.unwrap_or(0);
    let hi = q.end_lt.unwrap_or(u64::MAX);
    let by_utime = start_utime.is_some() || end_utime.is_some();
    let in_windows = |t: &TraceRecord| {
        (lo..=hi).contains(&t.end_lt)
            && start_utime.is_none_or(|u| u64::from(t.end_utime) >= u)
            && end_utime.is_none_or(|u| u64::from(t.end_utime) <= u)
    };
    let by_id = |mut ids: Vec<Hash>| -> Result<Vec<TraceRecord>, V3Error> {
        // A trace named twice is listed once.
        let mut seen = std::collections::HashSet::new();
        ids.retain(|id| seen.insert(*id));
        Ok(query::traces::traces(r, &ids)?)
    };
    let mut traces = if !trace_ids.is_empty() {
        by_id(trace_ids)?
    } else if !tx_hashes.is_empty() {
        by_id(actions::traces_of_txs(ctx, tx_hashes)?)?
    } else if !msg_hashes.is_empty() {
        by_id(actions::traces_of_messages(ctx, msg_hashes)?)?
    } else if let Some(mc) = q.mc_seqno {
        if query::blocks::mc_block(r, mc)?.is_none() {
            return Err(V3Error::not_found(format!(
                "masterchain block {mc} not found"
            )));
        }
        query::traces::completed_in_mc_block(r, mc, paging.desc)?
    } else {
        let account = account.map(|a| a.address);
        // A time window is a key range of the end-time index (whose order
        // v3 then answers in); an lt window of the end-lt index. The other
        // window is checked on the records: read on until the page is full
        // or the index ends (or the deadline passes).
        let ids = if by_utime {
            let (lo, hi) = (start_utime.unwrap_or(0), end_utime.unwrap_or(u64::MAX));
            query::traces::settled_trace_ids(
                r,
                account.as_ref(),
                TraceOrder::EndUtime,
                lo,
                hi,
                paging.desc,
            )
        } else {
            query::traces::settled_trace_ids(
                r,
                account.as_ref(),
                TraceOrder::EndLt,
                lo,
                hi,
                paging.desc,
            )
        };
        query::traces::fill_page(r, ids, paging.needed(), paging.desc, |_, traces, out| {
            out.extend(traces.into_iter().filter(in_windows));
            Ok(())
        })?
    };
    traces.retain(in_windows);
    // `end_utime, trace_id` with a time filter, else `end_lt, trace_id`.
    traces.sort_by_key(|t| {
        let end = if by_utime {
            u64::from(t.end_utime)
        } else {
            t.end_lt
        };
        (end, t.trace_id)
    });
    if paging.desc {
        traces.reverse();
    }
    Ok(traces)
}

/// The traces a request selects, with their actions when asked for or
/// when `with_actions` (`/events` always has them).
fn respond(
    ctx: &Ctx<'_>,
    _: &Params,
    q: &TracesRequest,
    with_actions: bool,
) -> Result<(Vec<TraceJson>, AddressBook, Metadata), V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let include_actions = q.include_actions.unwrap_or(false) || with_actions;
    let supported = actions::supported_types(&q.types.supported_action_types)?;
    let traces = paging.page(select(ctx, q, &paging)?);
    // The transactions (and actions) of every trace shown whole, read
    // together.
    let whole: Vec<&TraceRecord> = traces.iter().filter(|t| shown_whole(t)).collect();
    let ids: Vec<(&[u64], _)> = whole
        .iter()
        .map(|t| (t.tx_ids.as_slice(), TxTrace::of(t)))
        .collect();
    let mut txs = query::transactions::full_txs_of_traces(&ctx.reader, &ids)?.into_iter();
    let mut acts = if include_actions {
        let ids: Vec<_> = whole.iter().map(|t| t.trace_id).collect();
        query::traces::traces_actions(&ctx.reader, &ids)?
    } else {
        Vec::new()
    }
    .into_iter();
    let mut accounts = Vec::new();
    let mut out = Vec::with_capacity(traces.len());
    for t in &traces {
        if !shown_whole(t) {
            out.push(shell(t));
            continue;
        }
        let trace_txs = txs.next().unwrap_or_default();
        let trace_acts = acts.next();
        let actions = trace_acts.as_deref().map(|a| (a, &supported));
        out.push(trace_json(t, &trace_txs, actions, &mut accounts)?);
    }
    // The account states of every transaction of the answer, each read
    // once (an account's state after one trace is its state before the next).
    AccountState::fill_all(
        out.iter_mut()
            .flat_map(|t| t.transactions.values_mut())
            .flat_map(|tx| [&mut tx.account_state_before, &mut tx.account_state_after]),
        &ctx.reader,
    )?;
    let book = address_book::build(ctx, &q.shape.book, accounts.iter().copied())?;
    Ok((out, book, metadata::build(ctx, &q.shape, accounts)?))
}

/// `GET /api/v3/traces`.
pub fn traces(ctx: &Ctx<'_>, p: &Params, q: TracesRequest) -> Result<TracesResponse, V3Error> {
    let (traces, address_book, metadata) = respond(ctx, p, &q, false)?;
    Ok(TracesResponse {
        traces,
        address_book,
        metadata,
    })
}

/// `GET /api/v3/events`: `/traces` with `include_actions` forced on (as
/// toncenter serves it), under the key `events`.
pub fn events(ctx: &Ctx<'_>, p: &Params, q: TracesRequest) -> Result<EventsResponse, V3Error> {
    let (events, address_book, metadata) = respond(ctx, p, &q, true)?;
    Ok(EventsResponse {
        events,
        address_book,
        metadata,
    })
}

request! {
    /// Which pending traces: an account's, or those of external messages.
    pub struct PendingRequest {
        /// Traces involving this account
        account: Option<ParsedAddress>,
        /// Traces of these external messages
        ext_msg_hash: Vec<[u8; 32]>,
    }
}

/// Pending traces a request selects (`account` or `ext_msg_hash`), those
/// whose external message the index has not executed yet.
pub fn pending_selected(
    ctx: &Ctx<'_>,
    account: Option<tonindex_model::Address>,
    hashes: &[Hash],
) -> Result<Vec<std::sync::Arc<crate::api::pending::PendingTrace>>, V3Error> {
    if account.is_none() && hashes.is_empty() {
        return Err(V3Error::invalid(
            "account or ext_msg_hash should be specified",
        ));
    }
    let Some(pending) = ctx.pending else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for t in pending.select(|t| match &account {
        Some(a) => t.accounts.contains(a),
        None => hashes.iter().any(|h| t.has_external(h)),
    }) {
        // Its real trace may be committed already (the feed drops it soon).
        let landed = match t.trace.external_hash {
            Some(h) => query::messages::first_tx_of_message(
                &ctx.reader,
                &h,
                query::messages::Side::Receiver,
            )?
            .is_some(),
            None => false,
        };
        if !landed {
            out.push(t);
        }
    }
    Ok(out)
}

request! {
    /// `/pendingTraces`' filters.
    pub struct PendingTracesRequest {}
    with { select: PendingRequest, types: actions::ActionTypesArgs, shape: BookMetadataArgs }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct PendingTracesResponse {
    traces: Option<Vec<TraceJson>>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

/// `GET /api/v3/pendingTraces`: emulated traces of messages sent and not
/// yet executed; `traces` is null when there are none (as toncenter).
pub fn pending_traces(
    ctx: &Ctx<'_>,
    _: &Params,
    q: PendingTracesRequest,
) -> Result<PendingTracesResponse, V3Error> {
    let supported = actions::supported_types(&q.types.supported_action_types)?;
    let account = q.select.account.map(|a| a.address);
    let selected = pending_selected(ctx, account, &q.select.ext_msg_hash)?;
    let mut accounts = Vec::new();
    let mut traces = Vec::new();
    for t in &selected {
        let acts = shown_actions(&t.actions, &t.trace, &supported, Some(t.level));
        traces.push(render(
            &t.trace,
            &t.txs,
            Some(acts),
            Some(t.level),
            &mut accounts,
        )?);
    }
    let address_book = address_book::build(ctx, &q.shape.book, accounts.iter().copied())?;
    Ok(PendingTracesResponse {
        traces: (!traces.is_empty()).then_some(traces),
        address_book,
        metadata: metadata::build(ctx, &q.shape, accounts)?,
    })
}

request! {
    /// `/pendingTransactions`' accounts.
    pub struct PendingTransactionsRequest {
        /// Accounts
        [required] account: Vec<ParsedAddress>,
    }
    with { book: BookArgs }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct PendingTransactionsResponse {
    transactions: Vec<Transaction>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
}

/// `GET /api/v3/pendingTransactions`: the emulated transactions on the
/// accounts asked for.
pub fn pending_transactions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: PendingTransactionsRequest,
) -> Result<PendingTransactionsResponse, V3Error> {
    let accounts: Vec<tonindex_model::Address> = q.account.iter().map(|a| a.address).collect();
    if accounts.is_empty() {
        return Err(V3Error::invalid("at least 1 account address required"));
    }
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for a in &accounts {
        for t in pending_selected(ctx, Some(*a), &[])? {
            for f in t.txs.iter().filter(|f| accounts.contains(&f.tx.account)) {
                if !seen.contains(&f.tx.hash) {
                    seen.push(f.tx.hash);
                    out.push(transaction_json(f, Some(t.level))?);
                }
            }
        }
    }
    if out.is_empty() {
        return Err(V3Error::not_found("emulated traces not found"));
    }
    let address_book = address_book::build(ctx, &q.book, accounts)?;
    Ok(PendingTransactionsResponse {
        transactions: out,
        address_book,
    })
}
