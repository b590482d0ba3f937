//! The notifications one masterchain block makes for the subscribed
//! clients, read from what the index holds of it, those an emulated trace
//! makes at `pending`, and those shard blocks not committed yet make at
//! `confirmed`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::{json, Value as Json};
use tonindex_model::{ActionRecord, Address, Hash, MsgKind, TraceRecord, TransactionRecord};
use tonindex_storage::tables::JettonWallets;
use tonindex_storage::JettonWalletRecord;

use super::subscription::{Finality, Kind, Subscription};
use crate::api::encoding::{b64, raw_upper};
use crate::api::pending::{Level, PendingTrace};
use crate::api::v3::models::{AccountState, Transaction};
use crate::api::v3::{action_types, actions, address_book, metadata, traces, V3Error};
use crate::api::Ctx;
use crate::api::{account_state, getmethod};
use crate::contracts::jetton;
use crate::query;
use crate::query::messages::Side;
use crate::state;
use crate::tvm::getmethod::Method;

/// A client's notifications of one commit, as JSON texts in sending order.
pub type Outbox = Vec<(u64, Vec<String>)>;

/// Hops followed up a trace to find the message it starts with.
const MAX_TRACE_DEPTH: usize = 512;

/// Every notification masterchain block `mc_seqno` makes for `clients`,
/// read from the index once the block and its traces are written: the
/// same for a client that hears the block live and one that replays it
/// later (`since`). All of them are `finalized`.
pub fn finalized(
    ctx: &Ctx<'_>,
    mc_seqno: u32,
    clients: &[(u64, Arc<Subscription>)],
) -> Result<Outbox, V3Error> {
    let r = &ctx.reader;
    let mut out: HashMap<u64, Vec<String>> = HashMap::new();
    let finality = Finality::Finalized;
    let wants = |kind: Kind| clients.iter().any(|(_, s)| s.wants(kind, finality));
    let watched = |kind: Kind| -> HashSet<Address> {
        clients
            .iter()
            .filter(|(_, s)| s.wants(kind, finality))
            .flat_map(|(_, s)| s.addresses.iter().copied())
            .collect()
    };
    let ids = query::transactions::mc_block_tx_ids(r, mc_seqno)?;
    let records = query::transactions::tx_records(r, &ids)?;

    // transactions
    let tx_watch = watched(Kind::Transactions);
    let mine: Vec<u64> = ids
        .iter()
        .zip(&records)
        .filter(|(_, t)| tx_watch.contains(&t.account))
        .map(|(id, _)| *id)
        .collect();
    let interest = Interest::new(clients);
    if !mine.is_empty() {
        let groups = transactions_by_trace(ctx, &mine)?;
        for (key, txs) in &groups {
            let accounts = txs.iter().map(|(r, _)| &r.account);
            for (id, sub) in interest.of(clients, accounts, None) {
                if let Some(n) = transactions_notification(ctx, &sub, finality, key, txs)? {
                    out.entry(id).or_default().push(n);
                }
            }
        }
    }

    // actions and traces the block completed
    if wants(Kind::Actions) || wants(Kind::Trace) {
        // (a row without its trace is logged by the query and left out)
        for trace in query::traces::completed_in_mc_block(r, mc_seqno, false)? {
            let trace_id = trace.trace_id;
            let records = query::traces::trace_actions(r, &trace_id)?;
            let whole = || traces::tree_and_transactions(ctx, &trace);
            let found = TraceFound {
                trace: &trace,
                actions: &records,
                finality,
            };
            let accounts = records.iter().flat_map(|a| &a.accounts);
            let key = trace_key(&trace);
            let near = interest.of(clients, accounts, Some(&key));
            found.notify(ctx, &near, whole, &mut out)?;
        }
    }

    // account states and Jetton wallets: each account as its last
    // transaction in the block left it
    let state_watch = watched(Kind::AccountStateChange);
    let jetton_watch = wants(Kind::JettonsChange);
    let mut last: BTreeMap<Address, &TransactionRecord> = BTreeMap::new();
    for t in &records {
        let slot = last.entry(t.account).or_insert(t);
        if t.lt > slot.lt {
            *slot = t;
        }
    }
    for (account, t) in last {
        if state_watch.contains(&account) {
            if let Some(state) =
                account_state(ctx, &account, &t.account_state_hash_after, mc_seqno)?
            {
                let n = state_change(&account, finality, state);
                for (id, sub) in interest.of(clients, [&account].into_iter(), None) {
                    if sub.wants(Kind::AccountStateChange, finality) {
                        out.entry(id).or_default().push(n.clone());
                    }
                }
            }
        }
        if jetton_watch {
            let at = WalletAt {
                wallet: &account,
                lt: t.lt,
                mc_seqno,
            };
            jettons_change(ctx, clients, &interest, at, finality, &mut out)?;
        }
    }
    Ok(out.into_iter().collect())
}

/// `account_state_change` and `jettons_change` at `confirmed`: each account
/// `round`'s shard blocks changed, as the newest of them left it, to the
/// clients that name it (or, for a Jetton wallet, its owner) and ask at
/// that level. A block the index already holds (a follower may see a shard
/// block only after its commit) is left to `finalized`.
pub fn confirmed_states(
    ctx: &Ctx<'_>,
    round: &crate::chain::link::Confirmed,
    clients: &[(u64, Arc<Subscription>)],
) -> Result<Outbox, V3Error> {
    let finality = Finality::Confirmed;
    let interest = Interest::new(clients);
    let mut out: HashMap<u64, Vec<String>> = HashMap::new();
    let mut committed: HashMap<tonindex_model::BlockId, bool> = HashMap::new();
    for s in &round.states {
        let wanted: Vec<u64> = interest
            .of(clients, [&s.account].into_iter(), None)
            .into_iter()
            .filter(|(_, sub)| sub.wants(Kind::AccountStateChange, finality))
            .map(|(id, _)| id)
            .collect();
        if wanted.is_empty() {
            continue;
        }
        if block_held(ctx, &mut committed, &s.block)? {
            continue;
        }
        let n = state_change(&s.account, finality, confirmed_state_json(&s.after)?);
        for id in wanted {
            out.entry(id).or_default().push(n.clone());
        }
    }
    if clients
        .iter()
        .any(|(_, sub)| sub.wants(Kind::JettonsChange, finality))
    {
        for s in &round.states {
            confirmed_jetton(ctx, clients, &interest, s, &mut committed, &mut out)?;
        }
    }
    Ok(out.into_iter().collect())
}

/// `jettons_change` at `confirmed` of `s.account`, if it is a Jetton wallet
/// the index knows, for the clients subscribed to it or to its owner: its
/// `get_wallet_data` on the state the shard block left, completed from the
/// cell store (the block's update carries only the cells that changed),
/// against the newest masterchain block's config. A wallet the index does
/// not know yet (made in this block) is left to `finalized`, which checks
/// it against its master; one whose state cannot be completed or does not
/// answer as the stored wallet is logged and left to `finalized` too.
fn confirmed_jetton(
    ctx: &Ctx<'_>,
    clients: &[(u64, Arc<Subscription>)],
    interest: &Interest,
    s: &crate::chain::link::ConfirmedState,
    committed: &mut HashMap<tonindex_model::BlockId, bool>,
    out: &mut HashMap<u64, Vec<String>>,
) -> Result<(), V3Error> {
    let finality = Finality::Confirmed;
    let Some(newest) = ctx.reader.get::<JettonWallets>(&s.account)? else {
        return Ok(());
    };
    let listeners: Vec<_> = interest
        .of(clients, [&s.account, &newest.owner].into_iter(), None)
        .into_iter()
        .filter(|(_, sub)| sub.wants(Kind::JettonsChange, finality))
        .collect();
    if listeners.is_empty() || block_held(ctx, committed, &s.block)? {
        return Ok(());
    }
    match confirmed_wallet(ctx, s, &newest) {
        Ok(w) => jetton_change(ctx, &listeners, &s.account, &w, finality, out),
        Err(why) => {
            tracing::warn!(
                wallet = %raw_upper(&s.account),
                block = ?s.block,
                "a confirmed jettons_change is not sent (it comes at finalized): {why}"
            );
            Ok(())
        }
    }
}

/// The Jetton wallet's row as shard block `s.block` left it.
fn confirmed_wallet(
    ctx: &Ctx<'_>,
    s: &crate::chain::link::ConfirmedState,
    newest: &JettonWalletRecord,
) -> Result<JettonWalletRecord, String> {
    use tycho_types::cell::Lazy;
    use tycho_types::models::ShardAccount;
    let pruned = s
        .shard_account
        .as_ref()
        .ok_or("the block's state update was not kept")?;
    let mut loader = state::cells::Loader::new(&ctx.reader);
    let account = loader
        .unprune(pruned.account.inner())
        .map_err(|e| format!("its unchanged cells are not held: {e}"))?;
    let sa = ShardAccount {
        account: Lazy::from_raw(account).map_err(|e| e.to_string())?,
        last_trans_hash: pruned.last_trans_hash,
        last_trans_lt: pruned.last_trans_lt,
    };
    let view = state::account::view(&s.account, &sa, Some(s.block), s.gen_utime)
        .map_err(|e| e.to_string())?;
    let (_, last) = query::blocks::mc_block_range(&ctx.reader)
        .map_err(|e| e.to_string())?
        .ok_or("no masterchain block is indexed")?;
    let when = getmethod::At {
        mc_seqno: last.id.id.seqno,
        gen_utime: s.gen_utime,
    };
    wallet_from_state(ctx, &view, when, newest)
}

/// Whether the index holds `block` (asked once a round).
fn block_held(
    ctx: &Ctx<'_>,
    committed: &mut HashMap<tonindex_model::BlockId, bool>,
    block: &tonindex_model::BlockId,
) -> Result<bool, V3Error> {
    if let Some(held) = committed.get(block) {
        return Ok(*held);
    }
    let held = query::blocks::block(&ctx.reader, block)?.is_some();
    committed.insert(*block, held);
    Ok(held)
}

/// An `account_state_change` notification's text.
fn state_change(account: &Address, finality: Finality, state: Json) -> String {
    json!({
        "type": "account_state_change",
        "finality": finality.as_str(),
        "account": raw_upper(account),
        "state": state,
    })
    .to_string()
}

/// The `state` of a confirmed `account_state_change`, in the shape the
/// finalized one has (read from the block's state update, where the
/// finalized one is read from the cell store).
fn confirmed_state_json(a: &crate::decode::accounts_after::AccountAfter) -> Result<Json, V3Error> {
    use tonindex_model::AccountStatus;
    let status = match a.status {
        AccountStatus::Uninit => "uninit",
        AccountStatus::Frozen => "frozen",
        AccountStatus::Active => "active",
        AccountStatus::Nonexist => "nonexist",
    };
    let mut state = AccountState::hash_only(a.state_hash);
    state.balance = Some(a.balance.to_string());
    state.account_status = Some(status.into());
    state.frozen_hash = a.frozen_hash.as_ref().map(|h| b64(h));
    state.code_hash = a.code_hash.as_ref().map(|h| b64(h));
    state.data_hash = a.data_hash.as_ref().map(|h| b64(h));
    let mut j = serde_json::to_value(&state).map_err(internal)?;
    j["extra_currencies"] = Json::Null;
    Ok(j)
}

/// The notifications a trace not committed yet makes: at `pending` an
/// emulated one (what a message just accepted will do, before any block
/// holds it), at `confirmed` one in shard blocks no masterchain block
/// commits yet.
pub fn pending_notifications(
    ctx: &Ctx<'_>,
    p: &PendingTrace,
    clients: &[(u64, Arc<Subscription>)],
) -> Result<Outbox, V3Error> {
    let mut out: HashMap<u64, Vec<String>> = HashMap::new();
    let finality = match p.level {
        Level::Emulated => Finality::Pending,
        Level::Confirmed => Finality::Confirmed,
    };
    let key = trace_key(&p.trace);
    let shown = p
        .txs
        .iter()
        .map(|f| {
            let j = serde_json::to_string(&traces::transaction_json(f, Some(p.level))?)
                .map_err(internal)?;
            Ok((f.tx.clone(), j))
        })
        .collect::<Result<Vec<_>, V3Error>>()?;
    for (id, sub) in clients {
        if let Some(n) = transactions_notification(ctx, sub, finality, &key, &shown)? {
            out.entry(*id).or_default().push(n);
        }
    }
    let found = TraceFound {
        trace: &p.trace,
        actions: &p.actions,
        finality,
    };
    found.notify(
        ctx,
        clients,
        || traces::pending_tree_and_transactions(p),
        &mut out,
    )?;
    Ok(out.into_iter().collect())
}

/// A client's `transactions` notification of one trace's transactions:
/// its accounts' ones, lt descending; `None` when it has none or does not
/// ask.
fn transactions_notification(
    ctx: &Ctx<'_>,
    sub: &Subscription,
    finality: Finality,
    key: &str,
    txs: &[(TransactionRecord, String)],
) -> Result<Option<String>, V3Error> {
    if !sub.wants(Kind::Transactions, finality) {
        return Ok(None);
    }
    let mut mine: Vec<&(TransactionRecord, String)> = txs
        .iter()
        .filter(|(r, _)| sub.addresses.contains(&r.account))
        .collect();
    if mine.is_empty() {
        return Ok(None);
    }
    mine.sort_by_key(|t| std::cmp::Reverse(t.0.lt));
    // Written around the transactions' own JSON (serialized once for
    // every client), not through a JSON tree per client.
    let mut text = format!(
        r#"{{"type":"transactions","finality":"{}","trace_external_hash_norm":{},"transactions":["#,
        finality.as_str(),
        Json::from(key),
    );
    for (i, (_, j)) in mine.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(j);
    }
    text.push(']');
    // The messages' other ends are read only for a client that asked for books.
    if sub.include_address_book || sub.include_metadata {
        let mut addresses = Vec::new();
        for (r, _) in &mine {
            addresses.extend(tx_addresses(ctx, r)?);
        }
        let mut books = json!({});
        with_books(ctx, sub, &mut books, addresses)?;
        for (k, v) in books.as_object().into_iter().flatten() {
            text.push_str(&format!(",{}:{v}", Json::from(k.as_str())));
        }
    }
    text.push('}');
    Ok(Some(text))
}

/// A classified trace (committed, or emulated) and its actions.
struct TraceFound<'a> {
    trace: &'a TraceRecord,
    actions: &'a [ActionRecord],
    finality: Finality,
}

/// A trace's tree and its transactions by hash.
type Whole = (Json, BTreeMap<String, Transaction>);

impl TraceFound<'_> {
    /// Its `actions` notifications (by the actions' accounts) and `trace`
    /// notifications (by its key), built once for every client.
    fn notify(
        &self,
        ctx: &Ctx<'_>,
        clients: &[(u64, Arc<Subscription>)],
        whole: impl Fn() -> Result<Whole, V3Error>,
        out: &mut HashMap<u64, Vec<String>>,
    ) -> Result<(), V3Error> {
        let key = trace_key(self.trace);
        let finality = self.finality;
        let shown = |a: &ActionRecord| {
            let j = actions::action_json(a, self.trace, true);
            match finality {
                Finality::Finalized => j,
                Finality::Confirmed => j.at(Level::Confirmed),
                Finality::Pending => j.at(Level::Emulated),
            }
        };
        let mut tree: Option<Whole> = None;
        for (id, sub) in clients {
            let typed: Vec<&ActionRecord> = self
                .actions
                .iter()
                .filter(|a| sub.action_types.is_empty() || sub.action_types.contains(&a.kind))
                .filter(|a| action_types::visible(a, &sub.supported))
                .collect();
            if sub.wants(Kind::Actions, finality) {
                let mut mine: Vec<&ActionRecord> = typed
                    .iter()
                    .copied()
                    .filter(|a| a.accounts.iter().any(|x| sub.addresses.contains(x)))
                    .collect();
                mine.sort_by_key(|a| std::cmp::Reverse((a.end_lt, a.start_lt)));
                if !mine.is_empty() {
                    let addresses = mine
                        .iter()
                        .flat_map(|a| a.accounts.iter().copied())
                        .collect();
                    let mut n = json!({
                        "type": "actions",
                        "finality": finality.as_str(),
                        "trace_external_hash_norm": key,
                        "actions": mine.iter().map(|a| shown(a)).collect::<Vec<_>>(),
                    });
                    with_books(ctx, sub, &mut n, addresses)?;
                    out.entry(*id).or_default().push(n.to_string());
                }
            }
            if sub.wants(Kind::Trace, finality) && sub.trace_norms.contains(&key) {
                if tree.is_none() {
                    tree = Some(whole()?);
                }
                let (node, txs) = tree.as_ref().expect("just built");
                let addresses = txs.values().map(|t| t.account.0).collect();
                let mut n = json!({
                    "type": "trace",
                    "finality": finality.as_str(),
                    "trace_external_hash_norm": key,
                    "trace": node,
                    "transactions": txs,
                });
                if !typed.is_empty() {
                    n["actions"] = json!(typed.iter().map(|a| shown(a)).collect::<Vec<_>>());
                }
                with_books(ctx, sub, &mut n, addresses)?;
                out.entry(*id).or_default().push(n.to_string());
            }
        }
        Ok(())
    }
}

/// A Jetton wallet's transaction: the last of its in masterchain block
/// `mc_seqno`, at `lt`.
#[derive(Clone, Copy)]
struct WalletAt<'a> {
    wallet: &'a Address,
    lt: u64,
    mc_seqno: u32,
}

/// `jettons_change` of `at.wallet`, if it is a Jetton wallet, as its
/// transaction at `at.lt` left it, for the clients subscribed to it or to
/// its owner.
fn jettons_change(
    ctx: &Ctx<'_>,
    clients: &[(u64, Arc<Subscription>)],
    interest: &Interest,
    at: WalletAt<'_>,
    finality: Finality,
    out: &mut HashMap<u64, Vec<String>>,
) -> Result<(), V3Error> {
    let wallet = at.wallet;
    let Some(newest) = ctx.reader.get::<JettonWallets>(wallet)? else {
        return Ok(());
    };
    let listeners: Vec<_> = interest
        .of(clients, [wallet, &newest.owner].into_iter(), None)
        .into_iter()
        .filter(|(_, sub)| sub.wants(Kind::JettonsChange, finality))
        .collect();
    if listeners.is_empty() {
        return Ok(());
    }
    let Some(w) = wallet_at(ctx, at, newest) else {
        return Ok(());
    };
    jetton_change(ctx, &listeners, wallet, &w, finality, out)
}

/// Sends `w`, Jetton wallet `wallet`'s row, to `listeners` as a
/// `jettons_change` at `finality`.
fn jetton_change(
    ctx: &Ctx<'_>,
    listeners: &[(u64, Arc<Subscription>)],
    wallet: &Address,
    w: &JettonWalletRecord,
    finality: Finality,
    out: &mut HashMap<u64, Vec<String>>,
) -> Result<(), V3Error> {
    let jetton = json!({
        "address": raw_upper(wallet),
        "balance": w.balance.to_string(),
        "owner": raw_upper(&w.owner),
        "jetton": raw_upper(&w.jetton),
        "last_transaction_lt": w.last_tx_lt.to_string(),
        "code_hash": b64(&w.code_hash),
        "data_hash": b64(&w.data_hash),
    });
    for (id, sub) in listeners {
        let mut n = json!({
            "type": "jettons_change",
            "finality": finality.as_str(),
            "jetton": jetton,
        });
        with_books(ctx, sub, &mut n, vec![*wallet, w.owner, w.jetton])?;
        out.entry(*id).or_default().push(n.to_string());
    }
    Ok(())
}

/// The row of Jetton wallet `at.wallet` as its transaction at `at.lt`
/// left it, given its `newest` row.
///
/// The index keeps each wallet's newest row. When a later block has
/// changed the wallet again (the streams build this block behind the
/// writer, or replay it), the row is computed again from the wallet's
/// state after `at.mc_seqno` (kept by `[index] keep_states`), with
/// `get_wallet_data` at that block; only for a wallet some client listens
/// to. Where that state is not held or does not answer as the stored
/// wallet, the change is logged with the wallet, lt and block and not
/// sent.
fn wallet_at(
    ctx: &Ctx<'_>,
    at: WalletAt<'_>,
    newest: JettonWalletRecord,
) -> Option<JettonWalletRecord> {
    if newest.last_tx_lt == at.lt {
        return Some(newest);
    }
    match wallet_after(ctx, at, &newest) {
        Ok(w) => Some(w),
        Err(why) => {
            tracing::warn!(
                wallet = %raw_upper(at.wallet),
                lt = at.lt,
                mc_seqno = at.mc_seqno,
                "a jettons_change is not sent: {why}"
            );
            None
        }
    }
}

/// [`wallet_at`] from the wallet's state after masterchain block
/// `at.mc_seqno`: its `get_wallet_data` there, which must name the stored
/// row's owner and Jetton (the wallet its master confirmed).
fn wallet_after(
    ctx: &Ctx<'_>,
    at: WalletAt<'_>,
    newest: &JettonWalletRecord,
) -> Result<JettonWalletRecord, String> {
    let earlier =
        account_state::after_mc_block(ctx, at.wallet, at.mc_seqno).map_err(|e| e.message)?;
    let sa = earlier
        .shard_account
        .ok_or("the wallet is not in that state")?;
    let source = &earlier.source;
    let view = state::account::view(at.wallet, &sa, Some(source.id.id), source.gen_utime)
        .map_err(|e| e.to_string())?;
    if view.last_tx_lt != at.lt {
        return Err(format!(
            "the state after the block is at lt {}, not the transaction's",
            view.last_tx_lt
        ));
    }
    let when = getmethod::At {
        mc_seqno: at.mc_seqno,
        gen_utime: earlier.mc.gen_utime,
    };
    wallet_from_state(ctx, &view, when, newest)
}

/// A Jetton wallet's row from its state `view`: its `get_wallet_data` at
/// `when`, which must name `newest`'s owner and Jetton (the wallet its
/// master confirmed).
fn wallet_from_state(
    ctx: &Ctx<'_>,
    view: &state::account::AccountView,
    when: getmethod::At,
    newest: &JettonWalletRecord,
) -> Result<JettonWalletRecord, String> {
    let method = Method::parse("get_wallet_data");
    let out = getmethod::run(ctx, view, Some(when), &method, Vec::new())
        .map_err(|e| format!("get_wallet_data: {e}"))?;
    let data = jetton::wallet_data(&out).ok_or("get_wallet_data gave no wallet data")?;
    let as_model = crate::contracts::address::from_std;
    let (owner, master) = (as_model(&data.owner), as_model(&data.jetton));
    if owner != newest.owner || master != newest.jetton {
        return Err("get_wallet_data names another owner or Jetton than the stored wallet".into());
    }
    let hash = |c: &Option<tycho_types::cell::Cell>| c.as_ref().map(|c| *c.repr_hash().as_array());
    let (Some(code_hash), Some(data_hash)) = (hash(&view.code), hash(&view.data)) else {
        return Err("the state has no code or no data".into());
    };
    Ok(JettonWalletRecord {
        balance: data.balance,
        owner,
        jetton: master,
        last_tx_lt: view.last_tx_lt,
        code_hash,
        data_hash,
        // Not in the notification; the newest row's.
        mintless_is_claimed: newest.mintless_is_claimed,
    })
}

/// The clients by the addresses and trace keys they name: a block's
/// notifications go to the clients that name what they touch, found per
/// address rather than by asking every client about every trace.
struct Interest {
    by_address: HashMap<Address, Vec<usize>>,
    by_norm: HashMap<String, Vec<usize>>,
}

impl Interest {
    fn new(clients: &[(u64, Arc<Subscription>)]) -> Self {
        let mut by_address: HashMap<Address, Vec<usize>> = HashMap::new();
        let mut by_norm: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, (_, sub)) in clients.iter().enumerate() {
            for a in &sub.addresses {
                by_address.entry(*a).or_default().push(i);
            }
            for n in &sub.trace_norms {
                by_norm.entry(n.clone()).or_default().push(i);
            }
        }
        Self {
            by_address,
            by_norm,
        }
    }

    /// The clients naming any of `addresses` (or the trace key `norm`),
    /// each once, in the order of `clients`.
    fn of<'a>(
        &self,
        clients: &[(u64, Arc<Subscription>)],
        addresses: impl Iterator<Item = &'a Address>,
        norm: Option<&str>,
    ) -> Vec<(u64, Arc<Subscription>)> {
        let mut picked: Vec<usize> = addresses
            .filter_map(|a| self.by_address.get(a))
            .chain(norm.and_then(|n| self.by_norm.get(n)))
            .flatten()
            .copied()
            .collect();
        picked.sort_unstable();
        picked.dedup();
        picked
            .into_iter()
            .map(|i| (clients[i].0, Arc::clone(&clients[i].1)))
            .collect()
    }
}

/// Adds `address_book` and `metadata` of `addresses` where the client asked.
fn with_books(
    ctx: &Ctx<'_>,
    sub: &Subscription,
    n: &mut Json,
    addresses: Vec<Address>,
) -> Result<(), V3Error> {
    let shape = crate::api::v3::BookMetadataArgs::default();
    if sub.include_address_book {
        n["address_book"] = json!(address_book::build(
            ctx,
            &shape.book,
            addresses.iter().copied()
        )?);
    }
    if sub.include_metadata {
        n["metadata"] = json!(metadata::build(ctx, &shape, addresses)?);
    }
    Ok(())
}

/// The account of a transaction and the other ends of its messages.
fn tx_addresses(ctx: &Ctx<'_>, r: &TransactionRecord) -> Result<Vec<Address>, V3Error> {
    let mut out = vec![r.account];
    let msgs: Vec<Hash> = r.in_msg.iter().chain(&r.out_msgs).copied().collect();
    for m in query::messages::messages(&ctx.reader, &msgs)? {
        out.extend(m.source);
        out.extend(m.destination);
    }
    Ok(out)
}

/// The key clients name a trace by: the normalized hash of the external
/// message it starts with; a trace that starts otherwise (a tick-tock, a
/// message from outside the index) by its root transaction's hash.
pub(super) fn trace_key(t: &TraceRecord) -> String {
    b64(t.external_hash_norm.as_ref().unwrap_or(&t.trace_id))
}

/// Transactions by id as v3 shows them, grouped by their traces' keys
/// (the trace assembled for each; one not assembled is found by following
/// in-messages to the transaction that sent them).
#[allow(clippy::type_complexity)]
fn transactions_by_trace(
    ctx: &Ctx<'_>,
    ids: &[u64],
) -> Result<BTreeMap<String, Vec<(TransactionRecord, String)>>, V3Error> {
    let r = &ctx.reader;
    let full = query::transactions::full_txs(r, ids)?;
    let trace_ids = query::traces::trace_ids_of_txs(r, ids)?;
    let mut shown: Vec<Transaction> = full.iter().map(Transaction::from).collect();
    AccountState::fill_all(
        shown
            .iter_mut()
            .flat_map(|t| [&mut t.account_state_before, &mut t.account_state_after]),
        r,
    )?;
    let mut keys: HashMap<Hash, String> = HashMap::new();
    let mut groups: BTreeMap<String, Vec<(TransactionRecord, String)>> = BTreeMap::new();
    for ((f, t), trace_id) in full.iter().zip(shown).zip(trace_ids) {
        let key = match trace_id {
            Some(id) => match keys.get(&id) {
                Some(k) => k.clone(),
                None => {
                    let k = match query::traces::trace(r, &id)? {
                        Some(trace) => trace_key(&trace),
                        None => root_key(ctx, &f.tx)?,
                    };
                    keys.insert(id, k.clone());
                    k
                }
            },
            None => root_key(ctx, &f.tx)?,
        };
        let j = serde_json::to_string(&t).map_err(internal)?;
        groups.entry(key).or_default().push((f.tx.clone(), j));
    }
    Ok(groups)
}

/// [`trace_key`] of a transaction's trace, walking up its in-messages.
fn root_key(ctx: &Ctx<'_>, tx: &TransactionRecord) -> Result<String, V3Error> {
    let r = &ctx.reader;
    let mut cur = tx.clone();
    for _ in 0..MAX_TRACE_DEPTH {
        let Some(in_hash) = cur.in_msg else {
            break;
        };
        let Some(msg) = query::messages::message(r, &in_hash)? else {
            break;
        };
        if msg.kind == MsgKind::ExternalIn {
            return Ok(b64(msg.hash_norm.as_ref().unwrap_or(&msg.hash)));
        }
        let sender = query::messages::first_tx_of_message(r, &in_hash, Side::Sender)?;
        let Some(tx_id) = sender else {
            break;
        };
        cur = query::transactions::tx_record(r, tx_id)?;
    }
    Ok(b64(&cur.hash))
}

/// The `state` of an `account_state_change`: the account's state whose
/// hash its transaction names, read from the cell store (an account its
/// transaction deleted, or one still not there, is `nonexist` with a zero
/// balance, as toncenter sends it). `None` for a state the store no longer holds
/// (`[index] keep_states` released it before the block was built, as on a
/// replay with `since`): logged with the account, hash and block, not
/// sent with null fields as if they were a state.
fn account_state(
    ctx: &Ctx<'_>,
    account: &Address,
    hash: &Hash,
    mc_seqno: u32,
) -> Result<Option<Json>, V3Error> {
    let mut state = AccountState::hash_only(*hash);
    state.fill(&ctx.reader)?;
    if state.account_status.is_none() {
        tracing::warn!(
            account = %raw_upper(account),
            state_hash = %b64(hash),
            mc_seqno,
            "an account_state_change is not sent: the state is not held \
             ([index] keep_states released it)"
        );
        return Ok(None);
    }
    let mut j = serde_json::to_value(&state).map_err(internal)?;
    j["extra_currencies"] = Json::Null;
    Ok(Some(j))
}

fn internal(e: serde_json::Error) -> V3Error {
    V3Error::new(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        format!("internal error: {e}"),
    )
}
