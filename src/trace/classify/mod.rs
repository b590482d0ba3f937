//! Classification: a complete trace → actions (spec v3 §4), the way
//! toncenter's classifier reads traces, so that clients see the same
//! actions from tonindex.
//!
//! Every transaction with an in-message first becomes a basic block — a
//! TON transfer, a contract call, or a tick-tock — plus a contract deploy
//! when it brought an account to life. Matchers then run in a fixed order
//! over the tree, breadth first, and merge the blocks of a known protocol
//! flow (a Jetton transfer: transfer → internal_transfer → notification →
//! excesses) into one composite action; what no matcher claims stays a
//! basic action. A trace that yields nothing is read from its wallet's
//! external message (what it tried to send), or becomes one `unknown`.
//!
//! Contract roles (which account is a Jetton wallet of which master, which
//! is an NFT item of which collection) come from [`Interfaces`]: the index
//! feeds what its token tables know, the corpus test feeds the corpus's
//! records.

mod auction;
pub mod body;
#[cfg(test)]
pub(crate) mod built;
mod cocoon;
mod coffee;
mod dedust_liquidity;
mod dns;
mod elections;
mod evaa;
mod ghost_actions;
mod graph;
pub(crate) mod jetton;
mod jvault;
mod layerzero;
mod liquid_staking;
mod liquidity;
mod multisig;
pub(crate) mod nft;
mod staking;
mod stonfi_liquidity;
mod swap;
mod tgbtc;
mod vesting;
mod wallet_plugins;

use std::collections::{HashMap, HashSet};

use base64::Engine;
use sha2::{Digest, Sha256};
use tonindex_model::{AccountStatus, ActionRecord, Address, Hash, MsgKind, TraceRecord, TxKind};

use super::action_data::{ActionData, Comment};
use super::TraceTx;
pub(crate) use graph::{BlockId, Graph};

/// A Jetton wallet: whose it is and of which Jetton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JettonWallet {
    pub owner: Address,
    pub jetton: Address,
}

/// An NFT item: its collection (none for a standalone item) and index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NftItem {
    pub collection: Option<Address>,
    /// Decimal.
    pub index: String,
}

/// A fixed-price sale or an auction of one NFT (Getgems contracts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NftSale {
    pub nft: Address,
    /// The seller.
    pub owner: Option<Address>,
    pub marketplace: Option<Address>,
    /// The full price of a sale, the last bid of an auction.
    pub price: u128,
    /// A sale's marketplace fee and royalty: where they go and what the
    /// contract says of them (v4 sales say factors).
    pub fee_address: Option<Address>,
    pub fee: Option<u128>,
    pub royalty_address: Option<Address>,
    pub royalty: Option<u128>,
    /// An auction's terms, as its contract gives them.
    pub terms: Option<AuctionTerms>,
}

/// What an auction contract says of its fees and bids (decimal strings).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuctionTerms {
    pub mp_fee_factor: Option<String>,
    pub mp_fee_base: Option<String>,
    pub royalty_fee_base: Option<String>,
    pub max_bid: Option<String>,
    pub min_bid: Option<String>,
}

/// A multisig v2 order the index confirmed with its multisig.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultisigOrder {
    /// Who may approve it (each is an account of the order's actions).
    pub signers: Vec<Address>,
}

/// What the classifier may ask about an account's contract.
pub trait Interfaces {
    fn jetton_wallet(&self, account: &Address) -> Option<JettonWallet>;
    fn nft_item(&self, account: &Address) -> Option<NftItem>;
    /// A fixed-price sale contract.
    fn nft_sale(&self, _account: &Address) -> Option<NftSale> {
        None
    }
    /// An auction contract.
    fn nft_auction(&self, _account: &Address) -> Option<NftSale> {
        None
    }
    /// Whether the account is a Telemint item (Fragment's usernames and
    /// numbers), whose own auction takes bids.
    fn teleitem(&self, _account: &Address) -> bool {
        false
    }
    /// A DeDust pool's two assets (`None` for TON).
    fn dedust_pool(&self, _account: &Address) -> Option<[Option<Address>; 2]> {
        None
    }
    /// The code hash of an active account.
    fn code_hash(&self, _account: &Address) -> Option<Hash> {
        None
    }
    /// A multisig v2 order.
    fn multisig_order(&self, _account: &Address) -> Option<MultisigOrder> {
        None
    }
    /// An account's data cell, for the contracts whose roles are read
    /// from their state (JVault stake wallets and pools).
    fn account_data(&self, _account: &Address) -> Option<tycho_types::cell::Cell> {
        None
    }
}

/// Knows no contract: every Jetton or NFT flow stays contract calls.
pub struct NoInterfaces;

impl Interfaces for NoInterfaces {
    fn jetton_wallet(&self, _: &Address) -> Option<JettonWallet> {
        None
    }
    fn nft_item(&self, _: &Address) -> Option<NftItem> {
        None
    }
}

/// A trace the classifier cannot read (a message whose receiver is not in
/// it, no root).
#[derive(Debug, thiserror::Error)]
#[error("trace cannot be classified: {0}")]
pub struct ClassifyError(pub String);

/// Whether the classifier reads the body of a message of this kind and
/// opcode (the rest it knows by opcode alone): wallet externals,
/// comments, and the flows its matchers parse.
pub fn reads_body(kind: MsgKind, opcode: Option<u32>) -> bool {
    kind == MsgKind::ExternalIn
        || opcode.is_some_and(|op| {
            [
                &[body::OP_COMMENT, body::OP_ENCRYPTED_COMMENT][..],
                jetton::BODY_OPS,
                nft::BODY_OPS,
                dns::BODY_OPS,
                vesting::BODY_OPS,
                multisig::BODY_OPS,
                wallet_plugins::BODY_OPS,
                jvault::BODY_OPS,
                layerzero::BODY_OPS,
                tgbtc::BODY_OPS,
                swap::BODY_OPS,
                swap::TONCO_BODY_OPS,
                liquidity::BODY_OPS,
                liquidity::COFFEE_BODY_OPS,
                liquidity::TONCO_DEPOSIT_BODY_OPS,
                swap::COFFEE_BODY_OPS,
                swap::DEDUST_BODY_OPS,
                swap::STONFI_V2_BODY_OPS,
                coffee::BODY_OPS,
                coffee::TONCO_BODY_OPS,
                coffee::STAKING_BODY_OPS,
                cocoon::BODY_OPS,
                auction::BODY_OPS,
                evaa::BODY_OPS,
                liquid_staking::BODY_OPS,
                dedust_liquidity::BODY_OPS,
                dedust_liquidity::WITHDRAW_BODY_OPS,
                stonfi_liquidity::BODY_OPS,
            ]
            .iter()
            .any(|ops| ops.contains(&op))
                || evaa::is_user_command(op)
        })
}

pub(crate) const OP_EXCESSES: u32 = 0xd532_76db;
pub(crate) const OP_BOUNCE: u32 = 0xffff_ffff;

/// The trace as a tree of transactions.
pub(crate) struct Tree<'a> {
    pub txs: &'a [TraceTx],
    pub parent: Vec<Option<usize>>,
    pub children: Vec<Vec<usize>>,
    pub root: usize,
    /// Breadth-first from the root.
    pub bfs: Vec<usize>,
}

impl<'a> Tree<'a> {
    fn build(txs: &'a [TraceTx], root_hash: &Hash) -> Result<Self, ClassifyError> {
        let by_in_msg: HashMap<Hash, usize> = txs
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.in_msg.as_ref().map(|m| (m.hash, i)))
            .collect();
        let mut parent = vec![None; txs.len()];
        let mut children = vec![Vec::new(); txs.len()];
        for (i, t) in txs.iter().enumerate() {
            for m in t.out_msgs.iter().filter(|m| m.kind == MsgKind::Internal) {
                let Some(&c) = by_in_msg.get(&m.hash) else {
                    return Err(ClassifyError(
                        "a message's receiver is not in the trace".into(),
                    ));
                };
                parent[c] = Some(i);
                children[i].push(c);
            }
        }
        let root = txs
            .iter()
            .position(|t| &t.hash == root_hash)
            .ok_or_else(|| ClassifyError("the root transaction is missing".into()))?;
        let mut bfs = vec![root];
        let mut seen = HashSet::from([root]);
        let mut i = 0;
        while i < bfs.len() {
            for &c in &children[bfs[i]] {
                if seen.insert(c) {
                    bfs.push(c);
                }
            }
            i += 1;
        }
        Ok(Self {
            txs,
            parent,
            children,
            root,
            bfs,
        })
    }

    pub fn opcode(&self, n: usize) -> Option<u32> {
        self.txs[n].in_msg.as_ref().and_then(|m| m.opcode)
    }

    /// Where the node's action starts: its in-message's creation (the
    /// transaction itself for external-in messages and tick-tocks).
    fn lt(&self, n: usize) -> u64 {
        let t = &self.txs[n];
        t.in_msg.as_ref().and_then(|m| m.created_lt).unwrap_or(t.lt)
    }

    fn utime(&self, n: usize) -> u32 {
        let t = &self.txs[n];
        match t.in_msg.as_ref() {
            Some(m) if m.created_lt.is_some() => m.created_at.unwrap_or(t.now),
            _ => t.now,
        }
    }

    /// The key an action id is derived from: the in-message hash, or the
    /// transaction hash without one.
    fn key(&self, n: usize) -> String {
        let t = &self.txs[n];
        b64(&t.in_msg.as_ref().map_or(t.hash, |m| m.hash))
    }
}

/// Generic action columns (toncenter's action row).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cols {
    pub source: Option<Address>,
    pub source_secondary: Option<Address>,
    pub destination: Option<Address>,
    pub destination_secondary: Option<Address>,
    pub asset: Option<Address>,
    pub asset_secondary: Option<Address>,
    pub opcode: Option<u32>,
    pub value: Option<u128>,
    pub amount: Option<u128>,
    /// Accounts the action concerns beyond those it names (a multisig
    /// order's signers).
    pub accounts: Vec<Address>,
    /// The type the row shows when it is not the matcher's own (toncenter
    /// shows its nominator pool blocks as `stake_*`); the action id is
    /// still derived from the matcher's type, as toncenter derives it.
    pub shown_type: Option<&'static str>,
}

/// One action in the making: what a matcher makes of leaves (`nodes`,
/// transactions whose basic block it takes) and blocks (`members`).
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub kind: &'static str,
    /// The transactions it covers, the one that matched first.
    pub nodes: Vec<usize>,
    /// Blocks of the graph it takes whole.
    pub members: Vec<BlockId>,
    pub failed: bool,
    pub cols: Cols,
    /// The type's own fields.
    pub data: ActionData,
}

impl Block {
    fn new(kind: &'static str, nodes: Vec<usize>, failed: bool, cols: Cols) -> Self {
        Self {
            kind,
            nodes,
            members: Vec::new(),
            failed,
            cols,
            data: ActionData::default(),
        }
    }

    /// A composite of graph blocks.
    pub(crate) fn of(kind: &'static str, members: Vec<BlockId>, failed: bool, cols: Cols) -> Self {
        Self {
            members,
            ..Self::new(kind, Vec::new(), failed, cols)
        }
    }
}

fn is_ton_transfer_op(op: Option<u32>) -> bool {
    matches!(
        op,
        None | Some(body::OP_COMMENT | body::OP_ENCRYPTED_COMMENT)
    )
}

/// The failure rule of a contract call: the transaction aborted, unless
/// the message was a zero-value notification (an opcode and no coins).
pub(crate) fn call_failed(tree: &Tree<'_>, n: usize) -> bool {
    let t = &tree.txs[n];
    let m = t.in_msg.as_ref();
    let notification =
        m.is_some_and(|m| m.value == 0 && !m.extra_currencies && m.opcode.is_some_and(|o| o != 0));
    t.aborted && !notification
}

/// The failure rule of a TON transfer: an aborted receiver failed it,
/// unless the coins stayed (a non-bounceable message to an account that
/// is still uninit, or one that ran out of gas).
fn transfer_failed(t: &TraceTx) -> bool {
    if !t.aborted {
        return false;
    }
    let m = t.in_msg.as_ref();
    if m.is_some_and(|m| m.bounce) {
        return true;
    }
    if t.end_status == AccountStatus::Uninit {
        return false;
    }
    !(m.is_some_and(|m| m.source.is_some()) && t.no_gas)
}

/// The basic block of a transaction (before any matcher).
fn basic_block(tree: &Tree<'_>, n: usize) -> Block {
    let t = &tree.txs[n];
    if t.kind == TxKind::TickTock {
        let cols = Cols {
            source: Some(t.account),
            ..Cols::default()
        };
        return Block::new("tick_tock", vec![n], t.aborted, cols);
    }
    let m = t.in_msg.as_ref();
    let cols = Cols {
        source: m.and_then(|m| m.source),
        destination: m.and_then(|m| m.destination),
        opcode: m.and_then(|m| m.opcode),
        value: m.map(|m| m.value),
        ..Cols::default()
    };
    let op = m.and_then(|m| m.opcode);
    if is_ton_transfer_op(op) && cols.source.is_some() && cols.destination.is_some() {
        let mut b = Block::new("ton_transfer", vec![n], transfer_failed(t), cols);
        let (content, encrypted) = body::transfer_comment(m.and_then(|m| m.body.as_ref()));
        b.data = ActionData::Comment(Comment { content, encrypted });
        b
    } else {
        Block::new("call_contract", vec![n], call_failed(tree, n), cols)
    }
}

/// The contract a transaction deployed, as its own block: an account
/// that was not active (nor frozen) before and is active after.
fn deploy_block(tree: &Tree<'_>, n: usize) -> Option<Block> {
    let t = &tree.txs[n];
    let deployed = t.end_status == AccountStatus::Active
        && !matches!(t.orig_status, AccountStatus::Active | AccountStatus::Frozen);
    if !deployed || t.kind == TxKind::TickTock {
        return None;
    }
    let m = t.in_msg.as_ref();
    let cols = Cols {
        source: m.and_then(|m| m.source),
        destination: Some(t.account),
        opcode: m.and_then(|m| m.opcode),
        value: m.map(|m| m.value),
        ..Cols::default()
    };
    Some(Block::new("contract_deploy", vec![n], t.aborted, cols))
}

/// Whether a transaction brought its account to life (what an NFT mint is
/// recognised by; unlike [`deploy_block`], a frozen account counts).
pub(crate) fn deployed_here(t: &TraceTx) -> bool {
    t.end_status == AccountStatus::Active && t.orig_status != AccountStatus::Active
}

/// A matcher: at an unclaimed block, the composite it makes there (with
/// every leaf and block it covers), if the flow is its.
pub(crate) type Matcher = fn(&Graph<'_>, BlockId, &dyn Interfaces) -> Option<Block>;

/// The matchers in toncenter's order.
const MATCHERS: &[Matcher] = &[
    nft::mint,
    liquid_staking::tonstakers_delayed_withdrawal,
    dedust_liquidity::deposit,
    dedust_liquidity::deposit_first_asset,
    liquid_staking::tonstakers_deposit,
    liquid_staking::tonstakers_withdraw,
    dns::change_record,
    dns::release,
    multisig::create_order,
    multisig::approve,
    multisig::execute,
    vesting::send_message,
    vesting::add_whitelist,
    staking::nominator_deposit,
    staking::nominator_withdraw,
    staking::nominator_payout,
    jetton::transfer,
    jetton::pton_transfer,
    dedust_liquidity::withdraw,
    jetton::burn,
    swap::dedust,
    swap::stonfi,
    swap::stonfi_v2,
    swap::tonco,
    liquidity::tonco_deposit,
    coffee::tonco_deploy_pool,
    liquidity::tonco_withdraw,
    liquidity::coffee_deposit,
    swap::coffee,
    liquidity::coffee_withdraw,
    coffee::create_vault,
    coffee::create_pool_creator,
    coffee::create_pool,
    coffee::mev_protect_hold_funds,
    coffee::mev_protect_failed_swap,
    coffee::staking_deposit,
    coffee::staking_withdraw,
    coffee::staking_claim_rewards,
    dns::purchase,
    nft::update_sale,
    nft::transfer,
    nft::telegram_purchase,
    nft::getgems_purchase,
    nft::put_on_sale,
    auction::teleitem_start_auction,
    auction::teleitem_cancel_auction,
    nft::discovery,
    elections::deposit,
    elections::recover,
    wallet_plugins::subscribe,
    wallet_plugins::unsubscribe,
    auction::bid,
    auction::outbid,
    nft::cancel_sale,
    auction::finish,
    auction::cancel,
    liquid_staking::ethena_withdrawal_request,
    jetton::mint,
    liquid_staking::ethena_deposit,
    stonfi_liquidity::provide,
    stonfi_liquidity::withdraw,
    jvault::stake,
    jvault::unstake,
    jvault::claim,
    jvault::unstake_request,
    evaa::supply,
    evaa::withdraw,
    evaa::liquidate,
    tgbtc::mint,
    tgbtc::burn,
    tgbtc::new_key,
    tgbtc::mint_fallback,
    tgbtc::burn_fallback,
    tgbtc::new_key_fallback,
    tgbtc::dkg_log_fallback,
    layerzero::send,
    layerzero::send_tokens,
    layerzero::receive,
    layerzero::commit_packet,
    layerzero::dvn_verify,
    cocoon::worker_payout,
    cocoon::proxy_payout,
    cocoon::proxy_charge,
    cocoon::client_top_up,
    cocoon::register_proxy,
    cocoon::unregister_proxy,
    cocoon::client_register,
    cocoon::client_change_secret_hash,
    cocoon::client_request_refund,
    cocoon::grant_refund,
    cocoon::client_increase_stake,
    cocoon::client_withdraw,
];

/// Types whose members are not listed as actions of their own (toncenter's
/// v1 set: their parts say nothing the action does not).
const OPAQUE_TYPES: &[&str] = &[
    "call_contract",
    "contract_deploy",
    "jetton_burn",
    "tick_tock",
    "jetton_transfer",
    "nft_transfer",
    "nft_mint",
    "jetton_mint",
    "ton_transfer",
    "stake_deposit",
    "stake_withdrawal",
    "stake_withdrawal_request",
    "dex_deposit_liquidity",
    "jetton_swap",
    "change_dns",
    "delete_dns",
    "renew_dns",
    "subscribe",
    "dex_withdraw_liquidity",
    "unsubscribe",
    "election_deposit",
    "election_recover",
    "auction_bid",
    "nominator_pool_deposit",
    "nominator_pool_withdraw_request",
    "dedust_deposit_liquidity",
    "dedust_deposit_liquidity_partial",
    "tonstakers_deposit",
    "tonstakers_withdraw_request",
    "tonstakers_withdraw",
    "ethena_withdrawal_request",
    "ethena_deposit",
    "tonco_deposit_liquidity",
    "tonco_withdraw_liquidity",
    "coffee_deposit_liquidity",
];

/// The actions of a complete trace (its transactions in any order).
pub fn classify(
    trace: &TraceRecord,
    txs: &[TraceTx],
    interfaces: &dyn Interfaces,
) -> Result<Vec<ActionRecord>, ClassifyError> {
    if txs.is_empty() {
        return Ok(Vec::new());
    }
    if txs.len() == 1 && txs[0].kind == TxKind::TickTock {
        return Ok(Vec::new());
    }
    let tree = Tree::build(txs, &trace.trace_id)?;
    let mut actions = run(&tree, trace, interfaces, MATCHERS);
    let mut ids = HashSet::new();
    if !actions.iter().all(|a| ids.insert(a.action_id)) {
        // Two actions with one id: the flows overlap in a way the matchers
        // do not foresee; the basic actions alone are still true.
        actions = run(&tree, trace, interfaces, &[]);
    }
    if actions.is_empty() {
        actions = ghost_actions::from_external(&tree, trace, interfaces);
    }
    if actions.is_empty() {
        actions.push(unknown(trace, txs));
    }
    Ok(actions)
}

/// The matchers over the graph, then its blocks as rows.
fn run(
    tree: &Tree<'_>,
    trace: &TraceRecord,
    interfaces: &dyn Interfaces,
    matchers: &[Matcher],
) -> Vec<ActionRecord> {
    let mut g = Graph::new(tree);
    // Each matcher walks the top blocks in BFS order as the graph stands
    // when it starts; only a merge changes that order, so it is walked
    // again only after a matcher merged.
    let mut order = g.top_bfs();
    for matcher in matchers {
        let mut merged = false;
        for &b in &order {
            if g.top(b) {
                if let Some(made) = matcher(&g, b, interfaces) {
                    g.merge(made);
                    merged = true;
                }
            }
        }
        if merged {
            order = g.top_bfs();
        }
    }
    if dedust_liquidity::merge_partial_deposits(&mut g).is_err() {
        // toncenter's post-processing refuses the trace's DeDust deposits:
        // its basic actions stay.
        return run(tree, trace, interfaces, &[]);
    }
    let mut actions = Vec::new();
    for b in g.top_bfs() {
        emit(&g, trace, b, None, &[], &mut actions);
    }
    for &n in &tree.bfs {
        if let Some(d) = deploy_block(tree, n) {
            let row = Row {
                kind: d.kind,
                nodes: &d.nodes,
                initiating: tree.parent[n],
                failed: d.failed,
                cols: &d.cols,
                data: &d.data,
            };
            actions.push(serialize(tree, trace, &row, None));
        }
    }
    actions
}

/// A block's row and, for a type whose parts are actions of their own,
/// its members' rows under it.
fn emit(
    g: &Graph<'_>,
    trace: &TraceRecord,
    b: BlockId,
    parent: Option<Hash>,
    ancestors: &[&'static str],
    out: &mut Vec<ActionRecord>,
) {
    let blk = g.block(b);
    if blk.kind == "call_contract" && (blk.cols.source.is_none() || blk.cols.destination.is_none())
    {
        return;
    }
    let row = Row {
        kind: blk.kind,
        nodes: &blk.nodes,
        initiating: blk.initiating,
        failed: blk.failed,
        cols: &blk.cols,
        data: &blk.data,
    };
    let mut action = serialize(g.tree, trace, &row, None);
    if let Some(p) = parent {
        if p == action.action_id {
            return;
        }
        action.parent_action_id = Some(p);
        action.ancestor_type = ancestors.iter().map(|s| s.to_string()).collect();
    }
    let opaque = OPAQUE_TYPES.contains(&blk.kind);
    let id = action.action_id;
    out.push(action);
    if !opaque {
        let mut below = vec![blk.kind];
        below.extend_from_slice(ancestors);
        for &c in &blk.children {
            emit(g, trace, c, Some(id), &below, out);
        }
    }
}

pub(crate) fn b64(h: &Hash) -> String {
    base64::engine::general_purpose::STANDARD.encode(h)
}

/// `action_id` = sha256 of the earliest node's key and the type.
pub(crate) fn action_id(key: &str, kind: &str) -> Hash {
    let mut h = Sha256::new();
    h.update(key.as_bytes());
    h.update(kind.as_bytes());
    h.finalize().into()
}

/// A ghost block's own identity (see `wallet`): its key, and that its
/// destination is no account of the trace.
pub(crate) struct Ghost {
    pub key: String,
}

/// What a row is made from.
pub(crate) struct Row<'b> {
    pub kind: &'static str,
    /// The transactions covered.
    pub nodes: &'b [usize],
    /// The transaction that sent the earliest covered message.
    pub initiating: Option<usize>,
    pub failed: bool,
    pub cols: &'b Cols,
    pub data: &'b ActionData,
}

/// An action row.
pub(crate) fn serialize(
    tree: &Tree<'_>,
    trace: &TraceRecord,
    b: &Row<'_>,
    ghost: Option<&Ghost>,
) -> ActionRecord {
    let first = b.nodes[0];
    let earliest = b
        .nodes
        .iter()
        .copied()
        .min_by_key(|&n| tree.lt(n))
        .unwrap_or(first);
    let initiator = if ghost.is_some() {
        None
    } else {
        b.initiating.filter(|i| !b.nodes.contains(i))
    };
    let mut covered: Vec<usize> = b.nodes.to_vec();
    covered.extend(initiator);
    covered.sort_by_key(|&n| tree.txs[n].order_key());
    covered.dedup();
    let (start_lt, start_utime) = match ghost {
        Some(_) => (tree.txs[first].lt, tree.txs[first].now),
        None => (
            b.nodes.iter().map(|&n| tree.lt(n)).min().unwrap_or(0),
            b.nodes.iter().map(|&n| tree.utime(n)).min().unwrap_or(0),
        ),
    };
    let mut by_order: Vec<usize> = b.nodes.to_vec();
    by_order.sort_by_key(|&n| tree.txs[n].order_key());
    let mut accounts: Vec<Address> = by_order.iter().map(|&n| tree.txs[n].account).collect();
    accounts.extend(b.cols.source);
    accounts.extend(b.cols.source_secondary);
    if ghost.is_none() {
        accounts.extend(b.cols.destination);
        accounts.extend(b.cols.destination_secondary);
    }
    accounts.extend(b.cols.accounts.iter().copied());
    accounts.extend(
        initiator
            .filter(|&n| tree.txs[n].kind != TxKind::TickTock)
            .map(|n| tree.txs[n].account),
    );
    let mut seen = HashSet::new();
    accounts.retain(|a| seen.insert(*a));
    let key = match ghost {
        Some(g) => g.key.clone(),
        None => tree.key(earliest),
    };
    ActionRecord {
        action_id: action_id(&key, b.kind),
        trace_id: trace.trace_id,
        kind: b.cols.shown_type.unwrap_or(b.kind).to_string(),
        start_lt,
        end_lt: b.nodes.iter().map(|&n| tree.txs[n].lt).max().unwrap_or(0),
        start_utime,
        end_utime: b.nodes.iter().map(|&n| tree.txs[n].now).max().unwrap_or(0),
        success: !b.failed,
        tx_hashes: covered.iter().map(|&n| tree.txs[n].hash).collect(),
        accounts,
        source: b.cols.source,
        source_secondary: b.cols.source_secondary,
        destination: b.cols.destination,
        destination_secondary: b.cols.destination_secondary,
        asset: b.cols.asset,
        asset_secondary: b.cols.asset_secondary,
        opcode: b.cols.opcode,
        value: b.cols.value.map(|v| v.to_string()),
        amount: b.cols.amount.map(|v| v.to_string()),
        ancestor_type: Vec::new(),
        parent_action_id: None,
        data: b.data.to_text(),
    }
}

/// The one action of a trace nothing else describes.
pub(crate) fn unknown(trace: &TraceRecord, txs: &[TraceTx]) -> ActionRecord {
    let mut ordered: Vec<&TraceTx> = txs.iter().collect();
    ordered.sort_by_key(|t| t.order_key());
    let mut accounts: Vec<Address> = ordered.iter().map(|t| t.account).collect();
    let mut seen = HashSet::new();
    accounts.retain(|a| seen.insert(*a));
    ActionRecord {
        action_id: trace.trace_id,
        trace_id: trace.trace_id,
        kind: "unknown".into(),
        start_lt: trace.start_lt,
        end_lt: trace.end_lt,
        start_utime: trace.start_utime,
        end_utime: trace.end_utime,
        success: txs.iter().all(|t| !t.aborted),
        tx_hashes: ordered.iter().map(|t| t.hash).collect(),
        accounts,
        source: None,
        source_secondary: None,
        destination: None,
        destination_secondary: None,
        asset: None,
        asset_secondary: None,
        opcode: None,
        value: None,
        amount: None,
        ancestor_type: Vec::new(),
        parent_action_id: None,
        data: ActionData::default().to_text(),
    }
}

/// Excesses and bounces sent straight to `n`'s transaction's children:
/// the change a matched flow returns, merged into it.
pub(crate) fn change_of(g: &Graph<'_>, n: usize) -> Vec<usize> {
    g.tree.children[n]
        .iter()
        .copied()
        .filter(|&c| g.free(c) && matches!(g.tree.opcode(c), Some(OP_EXCESSES | OP_BOUNCE)))
        .collect()
}

/// The first free child of `n` whose in-message has opcode `op`.
pub(crate) fn child_with(g: &Graph<'_>, n: usize, op: u32) -> Option<usize> {
    g.tree.children[n]
        .iter()
        .copied()
        .find(|&c| g.free(c) && g.tree.opcode(c) == Some(op))
}

/// A raw `wc:HEX` address back (as [`raw`] writes it).
pub(crate) fn parse_raw(s: &str) -> Option<Address> {
    let (wc, hex_id) = s.split_once(':')?;
    let id: [u8; 32] = hex::decode(hex_id).ok()?.try_into().ok()?;
    Some(Address {
        workchain: wc.parse().ok()?,
        id,
    })
}

/// `wc:HEX`, upper case, as toncenter writes raw addresses.
pub(crate) fn raw(a: &Address) -> String {
    format!("{}:{}", a.workchain, hex::encode_upper(a.id))
}

/// The root transaction, for the external-message path.
pub(crate) fn root_tx<'a>(tree: &'a Tree<'_>) -> &'a TraceTx {
    &tree.txs[tree.root]
}
