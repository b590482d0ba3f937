//! A trace's transactions as a tree: each transaction hangs under the one
//! that sent its in-message (v3 `TraceNode`), and the flat order v3 lists
//! them in (`transactions_order`: by lt, then account).

use std::collections::HashMap;

use tonindex_model::{Hash, MsgKind};

use super::TraceTx;

/// One node of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub tx_hash: Hash,
    pub in_msg_hash: Option<Hash>,
    /// `None` when the transaction sent internal messages none of whose
    /// receivers is in the trace (yet); `Some(vec![])` for a leaf.
    pub children: Option<Vec<Node>>,
}

/// The trace's transactions in v3's order (lt, then account).
pub fn order(txs: &[TraceTx]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..txs.len()).collect();
    idx.sort_by_key(|&i| txs[i].order_key());
    idx
}

/// The tree rooted at `root` (the trace id), or `None` when the root is
/// not among `txs`. Transactions no edge reaches are left out.
pub fn build(txs: &[TraceTx], root: &Hash) -> Option<Node> {
    let ordered = order(txs);
    // Sender of each internal message, in order.
    let mut sender: HashMap<Hash, usize> = HashMap::new();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); txs.len()];
    let mut root_idx = None;
    for &i in &ordered {
        let tx = &txs[i];
        if &tx.hash == root {
            root_idx = Some(i);
        } else if let Some(parent) = tx.in_msg.as_ref().and_then(|m| sender.get(&m.hash)) {
            children[*parent].push(i);
        }
        for m in &tx.out_msgs {
            if m.kind == MsgKind::Internal {
                sender.insert(m.hash, i);
            }
        }
    }
    let root_idx = root_idx?;
    Some(node(txs, &children, root_idx, 0))
}

/// Deeper than this is a malformed trace (a real one is bounded by the
/// message depth limit); the rest of the branch is cut.
const MAX_DEPTH: usize = 1024;

fn node(txs: &[TraceTx], children: &[Vec<usize>], i: usize, depth: usize) -> Node {
    let tx = &txs[i];
    let kids = &children[i];
    let sends_internal = tx.out_msgs.iter().any(|m| m.kind == MsgKind::Internal);
    let children = if kids.is_empty() && sends_internal {
        None
    } else if depth >= MAX_DEPTH {
        Some(Vec::new())
    } else {
        Some(
            kids.iter()
                .map(|&k| node(txs, children, k, depth + 1))
                .collect(),
        )
    };
    Node {
        tx_hash: tx.hash,
        in_msg_hash: tx.in_msg.as_ref().map(|m| m.hash),
        children,
    }
}
