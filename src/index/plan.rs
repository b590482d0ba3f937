//! Groups decoded blocks into units: each masterchain block with the shard
//! blocks it commits; shard blocks no masterchain block claims become
//! standalone units.

use std::collections::BTreeMap;

use tonindex_model::BlockId;

use super::commit::committed_blocks;
use super::{prev_ids, Unit};
use crate::decode::DecodedBlock;

/// A shard block under the id a masterchain block commits that is not the
/// block it commits (its hashes differ): another chain's, or doctored.
#[derive(Debug, thiserror::Error)]
#[error("shard block ({},{:016x},{}) is not the one masterchain block {mc_seqno} commits: its hashes are {found}, the chain names {named}", .id.workchain, .id.shard, .id.seqno)]
pub struct Unlinked {
    pub id: BlockId,
    pub mc_seqno: u32,
    pub named: String,
    pub found: String,
}

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
    /// A masterchain block's claimed shard blocks must be the very blocks
    /// its shard hashes and their predecessors' references name.
    pub fn push(&mut self, blocks: Vec<DecodedBlock>) -> Result<Vec<Unit>, Unlinked> {
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
            self.check_links(&mc, &claimed)?;
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
        Ok(units)
    }

    /// Every claimed block is the one named by a top of `mc` or by the
    /// previous-block reference of a claimed block.
    fn check_links(&self, mc: &DecodedBlock, claimed: &[BlockId]) -> Result<(), Unlinked> {
        let named = mc.shards.iter().map(|s| s.block).chain(
            claimed
                .iter()
                .filter_map(|id| self.pending.get(id))
                .flat_map(|b| b.record.prev_blocks.iter().map(|p| p.block)),
        );
        for want in named {
            let Some(held) = self.pending.get(&want.id) else {
                continue;
            };
            if held.record.id != want && claimed.contains(&want.id) {
                let hashes = |id: &tonindex_model::BlockIdExt| {
                    format!(
                        "{}…/{}…",
                        &hex::encode_upper(id.root_hash)[..8],
                        &hex::encode_upper(id.file_hash)[..8]
                    )
                };
                return Err(Unlinked {
                    id: want.id,
                    mc_seqno: mc.record.id.id.seqno,
                    named: hashes(&want),
                    found: hashes(&held.record.id),
                });
            }
        }
        Ok(())
    }

    /// The shard blocks no masterchain block claimed, one unit each.
    pub fn finish(self) -> Vec<Unit> {
        self.pending
            .into_values()
            .map(|b| Unit { blocks: vec![b] })
            .collect()
    }
}
