//! Groups decoded blocks into units: each masterchain block with the shard
//! blocks it commits; shard blocks no masterchain block claims become
//! standalone units.

use std::collections::BTreeMap;

use tonindex_model::BlockId;

use super::commit::committed_blocks;
use super::{prev_ids, Unit};
use crate::decode::DecodedBlock;

/// Holds shard blocks until the masterchain block that commits them arrives.
pub struct Planner {
    pending: BTreeMap<BlockId, DecodedBlock>,
    max_pending: usize,
}

impl Planner {
    /// `max_pending` bounds memory: beyond it the lowest shard blocks are
    /// released as standalone units (a later masterchain block still adopts them).
    pub fn new(max_pending: usize) -> Self {
        Self {
            pending: BTreeMap::new(),
            max_pending,
        }
    }

    /// Adds blocks and returns the units that are ready, in apply order.
    pub fn push(&mut self, blocks: Vec<DecodedBlock>) -> Vec<Unit> {
        let mut masters = Vec::new();
        for b in blocks {
            if b.record.id.id.workchain == -1 {
                masters.push(b);
            } else {
                self.pending.insert(b.record.id.id, b);
            }
        }
        masters.sort_by_key(|b| b.record.id.id.seqno);
        let mut units = Vec::new();
        for mc in masters {
            let tops = mc.shards.iter().map(|s| s.block.id);
            let pending = &self.pending;
            let mut claimed =
                committed_blocks(tops, |id| pending.get(id).map(|b| prev_ids(&b.record)));
            // By seqno: a block's predecessors (a split's parent, a
            // merge's halves) always have lower seqnos than it, so each
            // block's state update finds the state before it.
            claimed.sort_by_key(|id| (id.seqno, id.workchain, id.shard));
            let mut blocks: Vec<DecodedBlock> = claimed
                .iter()
                .filter_map(|id| self.pending.remove(id))
                .collect();
            blocks.push(mc);
            units.push(Unit { blocks });
        }
        while self.pending.len() > self.max_pending {
            if let Some((_, b)) = self.pending.pop_first() {
                units.push(Unit { blocks: vec![b] });
            }
        }
        units
    }

    /// The shard blocks no masterchain block claimed, one unit each.
    pub fn finish(self) -> Vec<Unit> {
        self.pending
            .into_values()
            .map(|b| Unit { blocks: vec![b] })
            .collect()
    }
}
