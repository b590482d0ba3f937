//! The block graph the matchers work on.
//!
//! Every transaction starts as a leaf block (its basic action), linked to
//! the block of the transaction that sent its in-message (`prev`) and to
//! the blocks of the transactions its messages reached (`next`). A matcher
//! that recognises a flow merges the blocks it covers into one composite:
//! the composite takes their place in the graph (the earliest member's
//! `prev`, the members' outside `next`s), and the members become its
//! children. Later matchers see composites as blocks like any other, so a
//! swap can be made of Jetton transfers and a purchase of an NFT transfer.

use crate::trace::action_data::ActionData;
use tonindex_model::MsgKind;

use super::{basic_block, Block, Cols, Tree};
use crate::trace::{TraceMsg, TraceTx};

/// Index of a block in the graph.
pub(crate) type BlockId = usize;

/// One block: a transaction's basic action or a composite of blocks.
#[derive(Debug, Clone)]
pub(crate) struct GBlock {
    pub kind: &'static str,
    /// The transaction of a leaf block.
    pub leaf: Option<usize>,
    /// An external-out message (a log) as a block: the transaction that
    /// sent it and the message's place among its out-messages.
    pub log: Option<(usize, usize)>,
    /// Every transaction it covers (a composite: its members').
    pub nodes: Vec<usize>,
    pub children: Vec<BlockId>,
    pub parent: Option<BlockId>,
    pub prev: Option<BlockId>,
    pub next: Vec<BlockId>,
    /// The transaction that sent the earliest message (not covered).
    pub initiating: Option<usize>,
    pub failed: bool,
    pub cols: Cols,
    pub data: ActionData,
}

/// The blocks of one trace.
pub(crate) struct Graph<'a> {
    pub tree: &'a Tree<'a>,
    pub blocks: Vec<GBlock>,
    leaf_of: Vec<BlockId>,
}

impl<'a> Graph<'a> {
    /// One leaf per transaction, linked as the messages link them; each
    /// external-out message is a block of its own under its sender.
    pub fn new(tree: &'a Tree<'a>) -> Self {
        let mut blocks = Vec::with_capacity(tree.txs.len());
        for n in 0..tree.txs.len() {
            let b = basic_block(tree, n);
            blocks.push(GBlock {
                kind: b.kind,
                leaf: Some(n),
                log: None,
                nodes: vec![n],
                children: Vec::new(),
                parent: None,
                prev: tree.parent[n],
                next: Vec::new(),
                initiating: tree.parent[n],
                failed: b.failed,
                cols: b.cols,
                data: b.data,
            });
        }
        let by_in_msg: std::collections::HashMap<_, usize> = tree
            .txs
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.in_msg.as_ref().map(|m| (m.hash, i)))
            .collect();
        for n in 0..tree.txs.len() {
            for (i, m) in tree.txs[n].out_msgs.iter().enumerate() {
                let next = match m.kind {
                    MsgKind::Internal => match by_in_msg.get(&m.hash) {
                        Some(&c) if tree.parent[c] == Some(n) => c,
                        _ => continue,
                    },
                    MsgKind::ExternalOut => {
                        let id = blocks.len();
                        blocks.push(GBlock {
                            kind: "call_contract",
                            leaf: None,
                            log: Some((n, i)),
                            nodes: vec![n],
                            children: Vec::new(),
                            parent: None,
                            prev: Some(n),
                            next: Vec::new(),
                            initiating: Some(n),
                            failed: false,
                            cols: Cols {
                                source: m.source,
                                opcode: m.opcode,
                                ..Cols::default()
                            },
                            data: ActionData::default(),
                        });
                        id
                    }
                    MsgKind::ExternalIn => continue,
                };
                blocks[n].next.push(next);
            }
        }
        Self {
            tree,
            blocks,
            leaf_of: (0..tree.txs.len()).collect(),
        }
    }

    /// The message a leaf received, or a log block's message.
    pub fn msg(&self, b: BlockId) -> Option<&'a TraceMsg> {
        let blk = &self.blocks[b];
        match (blk.leaf, blk.log) {
            (Some(n), _) => self.tree.txs[n].in_msg.as_ref(),
            (None, Some((n, i))) => self.tree.txs[n].out_msgs.get(i),
            _ => None,
        }
    }

    /// The body of [`Graph::msg`].
    pub fn body(&self, b: BlockId) -> Option<&'a tycho_types::cell::Cell> {
        self.msg(b)?.body.as_ref()
    }

    /// The transaction of a leaf, or the sender of a log.
    pub fn tx(&self, b: BlockId) -> Option<&'a TraceTx> {
        let blk = &self.blocks[b];
        blk.leaf.or(blk.log.map(|l| l.0)).map(|n| &self.tree.txs[n])
    }

    pub fn block(&self, b: BlockId) -> &GBlock {
        &self.blocks[b]
    }

    /// Whether transaction `n`'s leaf is still unclaimed.
    pub fn free(&self, n: usize) -> bool {
        self.blocks[self.leaf_of[n]].parent.is_none()
    }

    /// Whether `b` is unclaimed (a block of the current graph).
    pub fn top(&self, b: BlockId) -> bool {
        self.blocks[b].parent.is_none()
    }

    /// The transaction of a leaf block.
    pub fn leaf(&self, b: BlockId) -> Option<usize> {
        self.blocks[b].leaf
    }

    pub fn kind(&self, b: BlockId) -> &'static str {
        self.blocks[b].kind
    }

    /// The opcode of a leaf `call_contract`'s message (what a contract
    /// matcher tests); logs included.
    pub fn call_op(&self, b: BlockId) -> Option<u32> {
        if self.blocks[b].kind != "call_contract" {
            return None;
        }
        self.msg(b)?.opcode
    }

    /// The next blocks of `b` that are `call_contract` leaves with `op`.
    pub fn next_calls(&self, b: BlockId, op: u32) -> impl Iterator<Item = BlockId> + '_ {
        self.blocks[b]
            .next
            .iter()
            .copied()
            .filter(move |&x| self.call_op(x) == Some(op))
    }

    /// The first next block of `b` that is a `call_contract` leaf with `op`.
    pub fn next_call(&self, b: BlockId, op: u32) -> Option<BlockId> {
        self.next_calls(b, op).next()
    }

    /// The first next block of `b` of kind `kind` not in `taken`.
    pub fn next_kind(&self, b: BlockId, kind: &str, taken: &[BlockId]) -> Option<BlockId> {
        self.blocks[b]
            .next
            .iter()
            .copied()
            .find(|&x| self.blocks[x].kind == kind && !taken.contains(&x))
    }

    /// The part of composite `b` whose message has opcode `op`.
    pub fn part(&self, b: BlockId, op: u32) -> Option<BlockId> {
        self.blocks[b]
            .children
            .iter()
            .copied()
            .find(|&c| self.msg(c).and_then(|m| m.opcode) == Some(op))
    }

    /// Excesses and bounces hanging right under `b`: the change a flow
    /// returns, merged with a matched sub-step (never with the trigger).
    pub fn change(&self, b: BlockId) -> Vec<BlockId> {
        self.blocks[b]
            .next
            .iter()
            .copied()
            .filter(|&x| matches!(self.call_op(x), Some(super::OP_EXCESSES | super::OP_BOUNCE)))
            .collect()
    }

    /// `b` with the change under it.
    pub fn with_change(&self, b: BlockId) -> Vec<BlockId> {
        let mut v = vec![b];
        v.extend(self.change(b));
        v
    }

    /// Where a block starts, as the earliest-member rule compares them: a
    /// leaf by its transaction, a composite by its earliest message.
    fn start_key(&self, b: BlockId) -> (u64, u8) {
        let blk = &self.blocks[b];
        if let (None, Some(_)) = (blk.leaf, blk.log) {
            return (self.msg(b).and_then(|m| m.created_lt).unwrap_or(0), 1);
        }
        match blk.leaf {
            Some(n) => (self.tree.txs[n].lt, 0),
            None => (
                blk.nodes
                    .iter()
                    .map(|&n| self.tree.lt(n))
                    .min()
                    .unwrap_or(0),
                2,
            ),
        }
    }

    /// The unclaimed blocks, breadth first from the root.
    pub fn top_bfs(&self) -> Vec<BlockId> {
        let mut start = self.leaf_of[self.tree.root];
        while let Some(p) = self.blocks[start].parent {
            start = p;
        }
        let mut seen = vec![false; self.blocks.len()];
        let mut order = vec![start];
        seen[start] = true;
        let mut i = 0;
        while i < order.len() {
            for &x in &self.blocks[order[i]].next {
                if !seen[x] {
                    seen[x] = true;
                    order.push(x);
                }
            }
            i += 1;
        }
        order
    }

    fn topmost(&self, mut b: BlockId) -> BlockId {
        while let Some(p) = self.blocks[b].parent {
            b = p;
        }
        b
    }

    /// Merges what a matcher made: its leaves (`nodes`) and blocks
    /// (`members`) become the children of one new block in their place.
    pub fn merge(&mut self, made: Block) -> BlockId {
        let id = self.blocks.len();
        let mut members: Vec<BlockId> = Vec::new();
        for b in made
            .nodes
            .iter()
            .map(|&n| self.leaf_of[n])
            .chain(made.members.iter().copied())
        {
            let b = self.topmost(b);
            if !members.contains(&b) {
                members.push(b);
            }
        }
        let earliest = members
            .iter()
            .copied()
            .min_by_key(|&b| self.start_key(b))
            .expect("a merge has members");
        let mut nodes: Vec<usize> = members
            .iter()
            .flat_map(|&b| self.blocks[b].nodes.iter().copied())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut next = Vec::new();
        for &m in &members {
            for &x in &self.blocks[m].next {
                if !members.contains(&x) && !next.contains(&x) {
                    next.push(x);
                }
            }
        }
        let prev = self.blocks[earliest].prev;
        let initiating = self.blocks[earliest].initiating;
        // Whatever pointed at a member now points at the composite.
        let outside_prevs: Vec<BlockId> = members
            .iter()
            .filter_map(|&m| self.blocks[m].prev)
            .filter(|p| !members.contains(p))
            .collect();
        for p in outside_prevs {
            let mut list = Vec::new();
            for &x in &self.blocks[p].next {
                let x = if members.contains(&x) { id } else { x };
                if !list.contains(&x) {
                    list.push(x);
                }
            }
            self.blocks[p].next = list;
        }
        for &x in &next {
            self.blocks[x].prev = Some(id);
        }
        for &m in &members {
            self.blocks[m].parent = Some(id);
        }
        self.blocks.push(GBlock {
            kind: made.kind,
            leaf: None,
            log: None,
            nodes,
            children: members,
            parent: None,
            prev,
            next,
            initiating,
            failed: made.failed,
            cols: made.cols,
            data: made.data,
        });
        id
    }

    /// Block `f` takes block `p` in after the matchers ran (toncenter's
    /// post-processing of DeDust deposits): `p` becomes one of its children,
    /// its transactions (and the one that initiated it) `f`'s, and what came
    /// after `p` hangs where `p` hung.
    pub fn absorb(&mut self, f: BlockId, p: BlockId) {
        let p_nodes = self.blocks[p].nodes.clone();
        let p_initiating = self.blocks[p].initiating;
        let p_prev = self.blocks[p].prev;
        let p_next = self.blocks[p].next.clone();
        let f_initiating = self.blocks[f].initiating;
        {
            let fin = &mut self.blocks[f];
            fin.nodes.extend(p_nodes);
            if let Some(i) = p_initiating {
                if Some(i) != f_initiating {
                    fin.nodes.push(i);
                }
            }
            fin.nodes.sort_unstable();
            fin.nodes.dedup();
            fin.children.push(p);
        }
        self.blocks[p].parent = Some(f);
        let host = p_prev.unwrap_or(f);
        let mut list: Vec<BlockId> = Vec::new();
        let put = |list: &mut Vec<BlockId>, x: BlockId| {
            if x != host && x != p && !list.contains(&x) {
                list.push(x);
            }
        };
        for &x in &self.blocks[host].next {
            if x == p {
                for &y in &p_next {
                    put(&mut list, y);
                }
            } else {
                put(&mut list, x);
            }
        }
        if p_prev.is_none() {
            for &y in &p_next {
                put(&mut list, y);
            }
        }
        for &y in &p_next {
            if y != host {
                self.blocks[y].prev = Some(host);
            }
        }
        self.blocks[host].next = list;
    }
}
