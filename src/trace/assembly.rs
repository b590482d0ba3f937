//! Trace assembly: every transaction joins the trace of the transaction
//! that sent its in-message, or starts a trace of its own.
//!
//! Assembly is incremental, one unit at a time. What a unit leaves
//! unfinished is what the next unit needs, and the index stores it in the
//! unit's batch, so a restart resumes with exactly what was committed:
//! - pending edges: internal messages sent and not yet delivered
//!   (message hash → trace id);
//! - orphans: transactions that received an internal message from a sender
//!   the index had not seen (in-message hash → the broken trace they
//!   start). Blocks can arrive out of order (shard blocks no masterchain
//!   block commits yet, an import of files in any order): when the sender
//!   arrives, the orphan's trace is merged into the sender's, and the
//!   result is the same as if the blocks had come in order.
//!
//! [`Assembly`] takes the stored edges, orphans and traces that a unit's
//! transactions can reach, works in memory, and hands back what changed.

use std::collections::{HashMap, HashSet};

use tonindex_model::{Address, ClassificationState, Hash, MsgKind, TraceRecord, TraceState};

use super::{TraceMsg, TraceTx};

/// The system address (`-1:000…0`) that sends the masterchain's own
/// internal messages (minting, recovered stakes): a message from it starts a
/// trace of its own, as an external message does.
pub const SYSTEM_ADDRESS: Address = Address {
    workchain: -1,
    id: [0; 32],
};

/// One unit's assembly over what earlier units stored.
pub struct Assembly {
    /// Pending edges read from storage that this unit may consume.
    stored_edges: HashMap<Hash, Hash>,
    /// Edges this unit created and has not consumed yet.
    new_edges: HashMap<Hash, Hash>,
    /// Stored edges this unit consumed (to delete).
    consumed_edges: Vec<Hash>,
    /// Stored orphans whose senders may be in this unit.
    stored_orphans: HashMap<Hash, Hash>,
    new_orphans: Vec<(Hash, Hash)>,
    consumed_orphans: Vec<Hash>,
    /// Every trace this unit touched, as it stands now.
    traces: HashMap<Hash, TraceRecord>,
    /// Traces in the order this unit first touched them.
    touched: Vec<Hash>,
    /// Traces merged into others: old id → the trace it joined.
    redirect: HashMap<Hash, Hash>,
    /// The stored records of merged traces, as they were.
    merged: Vec<(TraceRecord, Hash)>,
}

/// What a unit's assembly changed, for the index to write.
#[derive(Debug, Default)]
pub struct Changes {
    /// New pending edges: message hash → trace id.
    pub new_edges: Vec<(Hash, Hash)>,
    /// Stored pending edges now delivered.
    pub consumed_edges: Vec<Hash>,
    /// New orphans: in-message hash → trace id.
    pub new_orphans: Vec<(Hash, Hash)>,
    /// Stored orphans whose sender arrived.
    pub consumed_orphans: Vec<Hash>,
    /// Every trace the unit touched, as it stands after the unit.
    pub traces: Vec<TraceRecord>,
    /// Traces merged into another: their record as it was before this
    /// unit (or as this unit created it) and the trace they joined. Their
    /// transactions and pending edges belong to the latter now.
    pub merged: Vec<(TraceRecord, Hash)>,
}

impl Assembly {
    /// The message hashes whose stored edges a unit needs: every internal
    /// in-message of its transactions that none of them sent (a message
    /// sent in the unit has its edge in the unit, never stored before).
    pub fn edges_needed<'a, I>(txs: I) -> Vec<Hash>
    where
        I: IntoIterator<Item = &'a TraceTx>,
        I::IntoIter: Clone,
    {
        let txs = txs.into_iter();
        let sent: HashSet<Hash> = internal(txs.clone().flat_map(|t| &t.out_msgs)).collect();
        internal(txs.filter_map(|t| t.in_msg.as_ref()))
            .filter(|h| !sent.contains(h))
            .collect()
    }

    /// The message hashes whose stored orphans a unit needs: every
    /// internal message its transactions sent that none of them received
    /// (a receiver in the unit was never stored as an orphan before).
    pub fn orphans_needed<'a, I>(txs: I) -> Vec<Hash>
    where
        I: IntoIterator<Item = &'a TraceTx>,
        I::IntoIter: Clone,
    {
        let txs = txs.into_iter();
        let received: HashSet<Hash> =
            internal(txs.clone().filter_map(|t| t.in_msg.as_ref())).collect();
        internal(txs.flat_map(|t| &t.out_msgs))
            .filter(|h| !received.contains(h))
            .collect()
    }

    /// Starts a unit with the stored edges and orphans its transactions
    /// may reach and the stored traces those point to.
    pub fn new(
        stored_edges: HashMap<Hash, Hash>,
        stored_orphans: HashMap<Hash, Hash>,
        stored_traces: Vec<TraceRecord>,
    ) -> Self {
        Self {
            stored_edges,
            new_edges: HashMap::new(),
            consumed_edges: Vec::new(),
            stored_orphans,
            new_orphans: Vec::new(),
            consumed_orphans: Vec::new(),
            traces: stored_traces.into_iter().map(|t| (t.trace_id, t)).collect(),
            touched: Vec::new(),
            redirect: HashMap::new(),
            merged: Vec::new(),
        }
    }

    /// The trace a (possibly merged) trace id stands for now.
    pub fn resolve(&self, mut id: Hash) -> Hash {
        while let Some(next) = self.redirect.get(&id) {
            id = *next;
        }
        id
    }

    fn touch(&mut self, id: Hash) {
        if !self.touched.contains(&id) {
            self.touched.push(id);
        }
    }

    /// Adds one transaction; transactions must come in [`TraceTx::order_key`]
    /// order (a sender before its receiver). Returns its trace id as of now
    /// (a later merge may move it: see [`Assembly::resolve`]).
    pub fn add(&mut self, tx: &TraceTx) -> Hash {
        let joined = match &tx.in_msg {
            Some(m) if m.kind == MsgKind::Internal => {
                if let Some(trace) = self.new_edges.remove(&m.hash) {
                    Some(trace)
                } else if let Some(trace) = self.stored_edges.remove(&m.hash) {
                    self.consumed_edges.push(m.hash);
                    Some(trace)
                } else {
                    None
                }
            }
            _ => None,
        };
        let joined = joined.map(|id| self.resolve(id));
        let trace_id = match joined {
            Some(id) if self.traces.contains_key(&id) => {
                let t = self.traces.get_mut(&id).expect("checked");
                t.pending_messages = t.pending_messages.saturating_sub(1);
                t.transactions += 1;
                t.start_lt = t.start_lt.min(tx.lt);
                t.end_lt = t.end_lt.max(tx.lt);
                t.start_utime = t.start_utime.min(tx.now);
                t.end_utime = t.end_utime.max(tx.now);
                if let Some(mc) = tx.mc_seqno {
                    t.mc_seqno_start = Some(t.mc_seqno_start.map_or(mc, |s| s.min(mc)));
                    t.mc_seqno_end = Some(t.mc_seqno_end.map_or(mc, |e| e.max(mc)));
                }
                id
            }
            _ => {
                let in_msg = tx.in_msg.as_ref();
                let orphan = in_msg
                    .filter(|m| m.kind == MsgKind::Internal && m.source != Some(SYSTEM_ADDRESS));
                if let Some(m) = orphan {
                    self.new_orphans.push((m.hash, tx.hash));
                }
                let t = TraceRecord {
                    trace_id: tx.hash,
                    external_hash: in_msg.map(|m| m.hash),
                    external_hash_norm: in_msg.and_then(|m| m.hash_norm),
                    mc_seqno_start: tx.mc_seqno,
                    mc_seqno_end: tx.mc_seqno,
                    start_lt: tx.lt,
                    start_utime: tx.now,
                    end_lt: tx.lt,
                    end_utime: tx.now,
                    state: if orphan.is_some() || joined.is_some() {
                        TraceState::Broken
                    } else {
                        TraceState::Complete
                    },
                    transactions: 1,
                    messages: u32::from(in_msg.is_some()),
                    pending_messages: 0,
                    classification: ClassificationState::Unclassified,
                    tx_ids: Vec::new(),
                };
                self.traces.insert(tx.hash, t);
                tx.hash
            }
        };
        self.touch(trace_id);
        for m in &tx.out_msgs {
            self.traces.get_mut(&trace_id).expect("touched").messages += 1;
            if m.kind != MsgKind::Internal {
                continue;
            }
            let orphan = self.stored_orphans.get(&m.hash).map(|o| self.resolve(*o));
            match orphan {
                Some(o) if o != trace_id && self.traces.contains_key(&o) => {
                    self.stored_orphans.remove(&m.hash);
                    self.consumed_orphans.push(m.hash);
                    self.merge(o, trace_id);
                }
                _ => {
                    self.traces
                        .get_mut(&trace_id)
                        .expect("touched")
                        .pending_messages += 1;
                    self.new_edges.insert(m.hash, trace_id);
                }
            }
        }
        self.update_state(trace_id);
        trace_id
    }

    /// Merges trace `from` (an orphan's, rooted at the receiver of a
    /// message `into` just sent) into `into`.
    fn merge(&mut self, from: Hash, into: Hash) {
        let Some(f) = self.traces.remove(&from) else {
            return;
        };
        let t = self.traces.get_mut(&into).expect("the sender's trace");
        t.transactions += f.transactions;
        // The message both counted: the sender's out-message, the orphan's root in-message.
        t.messages += f.messages.saturating_sub(1);
        t.pending_messages += f.pending_messages;
        t.start_lt = t.start_lt.min(f.start_lt);
        t.end_lt = t.end_lt.max(f.end_lt);
        t.start_utime = t.start_utime.min(f.start_utime);
        t.end_utime = t.end_utime.max(f.end_utime);
        for (mine, theirs, pick) in [
            (
                &mut t.mc_seqno_start,
                f.mc_seqno_start,
                u32::min as fn(u32, u32) -> u32,
            ),
            (&mut t.mc_seqno_end, f.mc_seqno_end, u32::max),
        ] {
            *mine = match (*mine, theirs) {
                (Some(a), Some(b)) => Some(pick(a, b)),
                (a, b) => a.or(b),
            };
        }
        for v in self.new_edges.values_mut() {
            if *v == from {
                *v = into;
            }
        }
        self.touched.retain(|x| *x != from);
        self.redirect.insert(from, into);
        self.merged.push((f, into));
    }

    /// Complete when every message is delivered; a broken trace stays
    /// broken (only a merge into its sender's trace mends it).
    fn update_state(&mut self, id: Hash) {
        let t = self.traces.get_mut(&id).expect("touched");
        if t.state == TraceState::Broken {
            return;
        }
        t.state = if t.pending_messages == 0 {
            TraceState::Complete
        } else {
            TraceState::Pending
        };
    }

    /// What the unit changed.
    pub fn finish(mut self) -> Changes {
        let ids: Vec<Hash> = self.touched.clone();
        let traces = ids.iter().filter_map(|id| self.traces.remove(id)).collect();
        let mut new_edges: Vec<(Hash, Hash)> = self.new_edges.into_iter().collect();
        new_edges.sort();
        // An orphan made and merged within the unit is no orphan.
        let merged_ids: Vec<Hash> = self.merged.iter().map(|(f, _)| f.trace_id).collect();
        let new_orphans = self
            .new_orphans
            .into_iter()
            .filter(|(_, t)| !merged_ids.contains(t))
            .collect();
        Changes {
            new_edges,
            consumed_edges: self.consumed_edges,
            new_orphans,
            consumed_orphans: self.consumed_orphans,
            traces,
            merged: self.merged,
        }
    }
}

/// The hashes of the internal messages among `msgs`.
fn internal<'a, I>(msgs: I) -> impl Iterator<Item = Hash> + use<'a, I>
where
    I: Iterator<Item = &'a TraceMsg>,
{
    msgs.filter(|m| m.kind == MsgKind::Internal).map(|m| m.hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonindex_model::{AccountStatus, TxKind};

    fn msg(hash: u8, kind: MsgKind, from: u8) -> TraceMsg {
        TraceMsg {
            hash: [hash; 32],
            kind,
            source: (kind != MsgKind::ExternalIn).then_some(Address {
                workchain: 0,
                id: [from; 32],
            }),
            destination: None,
            value: 0,
            extra_currencies: false,
            opcode: None,
            bounce: false,
            bounced: false,
            created_lt: None,
            created_at: None,
            hash_norm: None,
            body: None,
            init_state: None,
        }
    }

    fn tx(hash: u8, lt: u64, in_msg: TraceMsg, out: &[u8]) -> TraceTx {
        TraceTx {
            hash: [hash; 32],
            lt,
            account: Address {
                workchain: 0,
                id: [hash; 32],
            },
            now: lt as u32,
            mc_seqno: Some(lt as u32),
            kind: TxKind::Ord,
            in_msg: Some(in_msg),
            out_msgs: out
                .iter()
                .map(|h| msg(*h, MsgKind::Internal, hash))
                .collect(),
            orig_status: AccountStatus::Active,
            end_status: AccountStatus::Active,
            aborted: false,
            destroyed: false,
            compute: None,
            no_gas: false,
            action_result: None,
        }
    }

    /// Applies units one after another, carrying what each stored.
    fn run(units: &[Vec<TraceTx>]) -> HashMap<Hash, TraceRecord> {
        let mut edges: HashMap<Hash, Hash> = HashMap::new();
        let mut orphans: HashMap<Hash, Hash> = HashMap::new();
        let mut traces: HashMap<Hash, TraceRecord> = HashMap::new();
        for unit in units {
            let mut asm = Assembly::new(
                edges.clone(),
                orphans.clone(),
                traces.values().cloned().collect(),
            );
            for t in unit {
                asm.add(t);
            }
            let c = asm.finish();
            for m in c.consumed_edges {
                edges.remove(&m);
            }
            edges.extend(c.new_edges);
            for m in c.consumed_orphans {
                orphans.remove(&m);
            }
            orphans.extend(c.new_orphans);
            for (old, into) in c.merged {
                traces.remove(&old.trace_id);
                for v in edges.values_mut() {
                    if *v == old.trace_id {
                        *v = into;
                    }
                }
            }
            for t in c.traces {
                traces.insert(t.trace_id, t);
            }
        }
        traces
    }

    #[test]
    fn out_of_order_blocks_give_the_in_order_traces() {
        // A (external) sends 10 to B and 11 to C; B sends 12 to D.
        let a = tx(1, 1, msg(9, MsgKind::ExternalIn, 0), &[10, 11]);
        let b = tx(2, 2, msg(10, MsgKind::Internal, 1), &[12]);
        let c = tx(3, 3, msg(11, MsgKind::Internal, 1), &[]);
        let d = tx(4, 4, msg(12, MsgKind::Internal, 2), &[]);
        let in_order = run(&[vec![a.clone(), b.clone()], vec![c.clone(), d.clone()]]);
        assert_eq!(in_order.len(), 1);
        let t = &in_order[&[1; 32]];
        assert_eq!((t.transactions, t.messages, t.pending_messages), (4, 4, 0));
        assert_eq!(t.state, TraceState::Complete);
        // B and D first (orphan B, D joins it), then C, then A: one trace again.
        let shuffled = run(&[vec![b.clone(), d.clone()], vec![c.clone()], vec![a.clone()]]);
        assert_eq!(shuffled, in_order);
        // Without A, B's trace and C's stay broken.
        let partial = run(&[vec![b, d], vec![c]]);
        assert_eq!(partial.len(), 2);
        assert!(partial.values().all(|t| t.state == TraceState::Broken));
    }
}
