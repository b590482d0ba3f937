//! The Merkle update a devnet block carries from the state before it to
//! the state after it.

use std::collections::HashSet;

use tycho_types::cell::{Cell, CellFamily, DynCell, HashBytes};
use tycho_types::error::Error as TlbError;
use tycho_types::merkle::{FilterAction, MerkleFilter, MerkleProofBuilder, MerkleUpdate};

/// The Merkle update from `old` to `new`, laid out as a node's: the new
/// side carries every new cell and prunes each cell it shares with the old
/// state; the old side carries what the block changed — every old cell a
/// new one replaced in its place (the state header, the masterchain extra,
/// dictionary paths to touched accounts) and every ancestor of a shared
/// cell — and prunes the rest.
///
/// After a split, `old` is this shard's half of the parent's state, and a
/// follower holds the parent's cells (`parent`), not the half's new ones
/// (its dictionary root, its header): only cells of both are pruned.
pub(super) fn state_update(
    old: &DynCell,
    new: &DynCell,
    parent: Option<&DynCell>,
) -> Result<MerkleUpdate, TlbError> {
    let cells_of = |root: &DynCell| {
        let mut cells = HashSet::new();
        let mut stack = vec![root];
        while let Some(cell) = stack.pop() {
            if cells.insert(*cell.repr_hash()) {
                stack.extend(cell.references());
            }
        }
        cells
    };
    // The old cells a follower holds: the new side may prune these.
    let mut known = cells_of(old);
    if let Some(parent) = parent {
        let held = cells_of(parent);
        known.retain(|h| held.contains(h));
    }
    // Old cells the new state reuses, where its walk first meets them.
    let mut reused = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![new];
    while let Some(cell) = stack.pop() {
        let hash = *cell.repr_hash();
        if known.contains(&hash) {
            reused.insert(hash);
        } else if seen.insert(hash) {
            stack.extend(cell.references());
        }
    }
    let mut keep = HashSet::new();
    replaced(old, new, &mut keep);
    let mut memo = std::collections::HashMap::new();
    above_reused(old, &reused, &mut keep, &mut memo);

    let cx = Cell::empty_context();
    let new_proof = MerkleProofBuilder::new(new, NotIn(&known))
        .allow_different_root(true)
        .build_raw_ext(cx)?;
    let old_proof = MerkleProofBuilder::new(old, keep)
        .allow_different_root(true)
        .build_raw_ext(cx)?;
    Ok(MerkleUpdate {
        old_hash: *old.repr_hash(),
        new_hash: *new.repr_hash(),
        old_depth: old.repr_depth(),
        new_depth: new.repr_depth(),
        old: old_proof,
        new: new_proof,
    })
}

/// Marks the old cells that new cells replaced in the same place.
fn replaced(old: &DynCell, new: &DynCell, keep: &mut HashSet<HashBytes>) {
    if old.repr_hash() == new.repr_hash() || !keep.insert(*old.repr_hash()) {
        return;
    }
    for (o, n) in old.references().zip(new.references()) {
        replaced(o, n, keep);
    }
}

/// Marks the old cells above a reused cell; returns whether `cell` is or
/// holds one.
fn above_reused(
    cell: &DynCell,
    reused: &HashSet<HashBytes>,
    keep: &mut HashSet<HashBytes>,
    memo: &mut std::collections::HashMap<HashBytes, bool>,
) -> bool {
    let hash = *cell.repr_hash();
    if let Some(r) = memo.get(&hash) {
        return *r;
    }
    let mut below = false;
    for child in cell.references() {
        below |= above_reused(child, reused, keep, memo);
    }
    if below {
        keep.insert(hash);
    }
    let r = below || reused.contains(&hash);
    memo.insert(hash, r);
    r
}

/// A Merkle filter keeping the cells not in a set.
struct NotIn<'a>(&'a HashSet<HashBytes>);

impl MerkleFilter for NotIn<'_> {
    fn check(&self, cell: &HashBytes) -> FilterAction {
        if self.0.contains(cell) {
            FilterAction::Skip
        } else {
            FilterAction::Include
        }
    }
}
