//! TON's account storage dictionary. An account with at least
//! [`MIN_CELLS`] cells carries `storage_extra_info$001 dict_hash:uint256`
//! in its `StorageInfo`: the root hash of a `HashmapE 256` from each
//! distinct cell of its storage (code, data, libraries) to
//! `refcnt:uint32 max_merkle_depth:(## 2)`. A node recomputes it whenever
//! the storage changes, so an emulated transaction must too, or the new
//! account state (and with it the transaction hash) differs from the
//! network's.

use std::collections::HashMap;

use tycho_types::cell::{
    Cell, CellBuilder, CellContext, CellFamily, CellType, DynCell, HashBytes, Store,
};
use tycho_types::error::Error;
use tycho_types::models::{Account, AccountState, StorageExtra};

/// `acc_state_cells_for_storage_dict`: its default, which mainnet uses
/// (mainnet's config carries no param 43).
pub const MIN_CELLS: u64 = 26;

/// Merkle nesting depth is counted up to this value.
const MERKLE_DEPTH_LIMIT: u8 = 3;

struct Entry {
    refcnt: u32,
    merkle_depth: u8,
}

impl Store for Entry {
    fn store_into(&self, b: &mut CellBuilder, _: &dyn CellContext) -> Result<(), Error> {
        b.store_u32(self.refcnt)?;
        b.store_small_uint(self.merkle_depth, 2)
    }
}

/// Counts one more reference to `cell`; a cell seen for the first time
/// adds its children. Returns the cell's Merkle depth.
fn add(cell: &DynCell, entries: &mut HashMap<HashBytes, Entry>) -> u8 {
    if let Some(e) = entries.get_mut(cell.repr_hash()) {
        e.refcnt += 1;
        return e.merkle_depth;
    }
    let mut depth = 0;
    for child in cell.references() {
        depth = depth.max(add(child, entries));
    }
    if matches!(
        cell.cell_type(),
        CellType::MerkleProof | CellType::MerkleUpdate
    ) {
        depth += 1;
    }
    let depth = depth.min(MERKLE_DEPTH_LIMIT);
    entries.insert(
        *cell.repr_hash(),
        Entry {
            refcnt: 1,
            merkle_depth: depth,
        },
    );
    depth
}

/// The roots the dictionary counts from: the state's code, data and
/// libraries (extra currencies are not part of storage since v10).
fn roots(account: &Account) -> Vec<Cell> {
    match &account.state {
        AccountState::Active(init) => init
            .code
            .iter()
            .chain(init.data.iter())
            .chain(init.libraries.root().iter())
            .cloned()
            .collect(),
        AccountState::Uninit | AccountState::Frozen(_) => Vec::new(),
    }
}

/// The dictionary's root hash for `account`'s storage.
pub fn dict_hash(account: &Account) -> Result<HashBytes, Error> {
    let mut entries = HashMap::new();
    for root in roots(account) {
        add(root.as_ref(), &mut entries);
    }
    let mut sorted: Vec<(HashBytes, Entry)> = entries.into_iter().collect();
    sorted.sort_unstable_by_key(|(hash, _)| *hash);
    let root = tycho_types::dict::build_dict_from_sorted_iter(sorted, Cell::empty_context())?;
    Ok(root.map(|c| *c.repr_hash()).unwrap_or(HashBytes::ZERO))
}

/// The `storage_extra` a node writes for `account` as it now stands.
pub fn storage_extra(account: &Account) -> Result<StorageExtra, Error> {
    if account.storage_stat.used.cells.into_inner() >= MIN_CELLS {
        Ok(StorageExtra::DictHash(dict_hash(account)?))
    } else {
        Ok(StorageExtra::None)
    }
}
