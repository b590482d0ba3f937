//! Which shard blocks a masterchain block commits.
//!
//! A masterchain block lists the top block of every shard. It commits that
//! block and every earlier block of the shard not yet committed by an
//! earlier masterchain block: walking back through `prev_blocks` until a
//! block is unknown or already committed.

use std::collections::HashSet;

use tonindex_model::BlockId;

/// A walk longer than this is a broken chain, not a real shard history.
const MAX_WALK: usize = 100_000;

/// Blocks committed by a masterchain block with the given top shard blocks.
///
/// `lookup(id)` returns the block's previous blocks when the block is known
/// and not yet committed, and `None` otherwise (which ends that branch).
/// The result is in walk order, tops first; each block appears once.
pub fn committed_blocks(
    tops: impl IntoIterator<Item = BlockId>,
    mut lookup: impl FnMut(&BlockId) -> Option<Vec<BlockId>>,
) -> Vec<BlockId> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut stack: Vec<BlockId> = tops.into_iter().collect();
    while let Some(id) = stack.pop() {
        if out.len() >= MAX_WALK || !seen.insert(id) {
            continue;
        }
        if let Some(prevs) = lookup(&id) {
            out.push(id);
            stack.extend(prevs);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn id(shard: u64, seqno: u32) -> BlockId {
        BlockId {
            workchain: 0,
            shard,
            seqno,
        }
    }

    #[test]
    fn walks_back_until_unknown_and_through_merges() {
        let root = 0x8000_0000_0000_0000;
        let (l, r) = (0x4000_0000_0000_0000, 0xc000_0000_0000_0000);
        // l:5 and r:7 merge into root:8; root:9 is the top. l:4 is unknown.
        let known: HashMap<BlockId, Vec<BlockId>> = [
            (id(root, 9), vec![id(root, 8)]),
            (id(root, 8), vec![id(l, 5), id(r, 7)]),
            (id(l, 5), vec![id(l, 4)]),
            (id(r, 7), vec![id(r, 6)]),
            (id(r, 6), vec![]),
        ]
        .into();
        let got: HashSet<_> = committed_blocks([id(root, 9)], |b| known.get(b).cloned())
            .into_iter()
            .collect();
        let want: HashSet<_> = [id(root, 9), id(root, 8), id(l, 5), id(r, 7), id(r, 6)].into();
        assert_eq!(got, want);
        assert!(committed_blocks([id(l, 1)], |b| known.get(b).cloned()).is_empty());
    }
}
