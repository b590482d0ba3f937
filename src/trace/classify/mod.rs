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

pub mod body;
mod jetton;
mod nft;
mod wallet;

use std::collections::{HashMap, HashSet};

use base64::Engine;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tonindex_model::{AccountStatus, ActionRecord, Address, Hash, MsgKind, TraceRecord, TxKind};

use super::TraceTx;

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

/// What the classifier may ask about an account's contract.
pub trait Interfaces {
    fn jetton_wallet(&self, account: &Address) -> Option<JettonWallet>;
    fn nft_item(&self, account: &Address) -> Option<NftItem>;
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
        || matches!(
            opcode,
            Some(
                body::OP_COMMENT
                    | body::OP_ENCRYPTED_COMMENT
                    | jetton::OP_TRANSFER
                    | jetton::OP_INTERNAL_TRANSFER
                    | jetton::OP_BURN
                    | jetton::OP_MINT
                    | jetton::OP_MINTER_MINT
                    | nft::OP_TRANSFER
                    | nft::OP_OWNERSHIP_ASSIGNED
            )
        )
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
}

/// One action in the making.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub kind: &'static str,
    /// The transactions it covers, the one that matched first.
    pub nodes: Vec<usize>,
    pub failed: bool,
    pub cols: Cols,
    pub data: Map<String, Value>,
}

impl Block {
    fn new(kind: &'static str, nodes: Vec<usize>, failed: bool, cols: Cols) -> Self {
        Self {
            kind,
            nodes,
            failed,
            cols,
            data: Map::new(),
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
        b.data.insert("content".into(), content.into());
        b.data.insert("encrypted".into(), encrypted.into());
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

/// Matching state: which transactions a composite block took.
pub(crate) struct Claims {
    taken: Vec<bool>,
}

impl Claims {
    pub fn free(&self, n: usize) -> bool {
        !self.taken[n]
    }
    fn take(&mut self, nodes: &[usize]) {
        for &n in nodes {
            self.taken[n] = true;
        }
    }
}

/// A matcher: at an unclaimed transaction, the composite block it makes
/// there (with every transaction it covers), if the flow is its.
type Matcher = fn(&Tree<'_>, &Claims, usize, &dyn Interfaces) -> Option<Block>;

/// The matchers in toncenter's order.
const MATCHERS: &[Matcher] = &[
    nft::mint,
    jetton::transfer,
    jetton::burn,
    nft::transfer,
    nft::ownership_assigned,
    jetton::mint,
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
    let mut claims = Claims {
        taken: vec![false; txs.len()],
    };
    let mut blocks = Vec::new();
    for matcher in MATCHERS {
        for &n in &tree.bfs {
            if claims.free(n) {
                if let Some(b) = matcher(&tree, &claims, n, interfaces) {
                    claims.take(&b.nodes);
                    blocks.push(b);
                }
            }
        }
    }
    for &n in &tree.bfs {
        let t = &tree.txs[n];
        if claims.free(n) && (t.in_msg.is_some() || t.kind == TxKind::TickTock) {
            blocks.push(basic_block(&tree, n));
        }
    }
    for &n in &tree.bfs {
        blocks.extend(deploy_block(&tree, n));
    }
    let mut actions: Vec<ActionRecord> = blocks
        .iter()
        .filter(|b| {
            !(b.kind == "call_contract"
                && (b.cols.source.is_none() || b.cols.destination.is_none()))
        })
        .map(|b| serialize(&tree, trace, b, None))
        .collect();
    if actions.is_empty() {
        actions = wallet::from_external(&tree, trace, interfaces);
    }
    if actions.is_empty() {
        actions.push(unknown(trace, txs));
    }
    Ok(actions)
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

/// An action row from a block.
pub(crate) fn serialize(
    tree: &Tree<'_>,
    trace: &TraceRecord,
    b: &Block,
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
        tree.parent[first]
    };
    let mut covered: Vec<usize> = b.nodes.clone();
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
    let mut accounts: Vec<Address> = b.nodes.iter().map(|&n| tree.txs[n].account).collect();
    accounts.extend(b.cols.source);
    accounts.extend(b.cols.source_secondary);
    if ghost.is_none() {
        accounts.extend(b.cols.destination);
        accounts.extend(b.cols.destination_secondary);
    }
    accounts.extend(initiator.map(|n| tree.txs[n].account));
    let mut seen = HashSet::new();
    accounts.retain(|a| seen.insert(*a));
    let key = match ghost {
        Some(g) => g.key.clone(),
        None => tree.key(earliest),
    };
    ActionRecord {
        action_id: action_id(&key, b.kind),
        trace_id: trace.trace_id,
        kind: b.kind.to_string(),
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
        data: Value::Object(b.data.clone()).to_string(),
    }
}

/// The one action of a trace nothing else describes.
fn unknown(trace: &TraceRecord, txs: &[TraceTx]) -> ActionRecord {
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
        data: "{}".into(),
    }
}

/// Excesses and bounces sent straight to `n`'s transaction's children:
/// the change a matched flow returns, merged into it.
pub(crate) fn change_of(tree: &Tree<'_>, claims: &Claims, n: usize) -> Vec<usize> {
    tree.children[n]
        .iter()
        .copied()
        .filter(|&c| claims.free(c) && matches!(tree.opcode(c), Some(OP_EXCESSES | OP_BOUNCE)))
        .collect()
}

/// The first free child of `n` whose in-message has opcode `op`.
pub(crate) fn child_with(tree: &Tree<'_>, claims: &Claims, n: usize, op: u32) -> Option<usize> {
    tree.children[n]
        .iter()
        .copied()
        .find(|&c| claims.free(c) && tree.opcode(c) == Some(op))
}

/// A decimal number as a JSON string (toncenter's numeric columns).
pub(crate) fn dec(v: impl ToString) -> Value {
    Value::String(v.to_string())
}

/// An address as a JSON raw address (or null).
pub(crate) fn addr(a: Option<Address>) -> Value {
    match a {
        Some(a) => Value::String(raw(&a)),
        None => Value::Null,
    }
}

/// `wc:HEX`, upper case, as toncenter writes raw addresses.
pub(crate) fn raw(a: &Address) -> String {
    format!("{}:{}", a.workchain, hex::encode_upper(a.id))
}

/// The root transaction, for the external-message path.
pub(crate) fn root_tx<'a>(tree: &'a Tree<'_>) -> &'a TraceTx {
    &tree.txs[tree.root]
}
