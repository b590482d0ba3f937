//! Public libraries of the held masterchain state, for code that names a
//! library cell instead of carrying itself (USDT wallets and other
//! contracts deployed with library code).
//!
//! `ShardStateUnsplit` keeps them in its third reference:
//! `^[overload_history:uint64 underload_history:uint64
//!   total_balance:CurrencyCollection total_validator_fees:CurrencyCollection
//!   libraries:(HashmapE 256 LibDescr) master_ref:(Maybe BlkMasterInfo)]`.
//! That cell changes with every block (balances); the dictionary rarely
//! does, so readers key their cache on the dictionary's root hash, found
//! without loading anything below it.

use tonindex_storage::tables::{Cells, FetchedLibraries, ShardKey, ShardStates};
use tonindex_storage::Reader;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellSlice, HashBytes};
use tycho_types::dict::Dict;
use tycho_types::models::LibDescr;

use crate::state::cells::{CellError, CellRows, Loader};

/// The masterchain's only shard.
const MASTERCHAIN: ShardKey = ShardKey {
    workchain: -1,
    shard: 0x8000_0000_0000_0000,
};

impl CellRows for Reader<'_> {
    fn row(&self, hash: &HashBytes) -> Result<Option<Vec<u8>>, CellError> {
        Ok(self.get::<Cells>(hash.as_array())?.map(|r| r.bytes))
    }

    fn held(&self, hashes: &[HashBytes]) -> Result<Vec<bool>, CellError> {
        let keys: Vec<[u8; 32]> = hashes.iter().map(|h| h.0).collect();
        Ok(self
            .multi_get::<Cells>(&keys)?
            .into_iter()
            .map(|r| r.is_some())
            .collect())
    }
}

/// Skips a `CurrencyCollection` (`grams:VarUInteger 16 other:ExtraCurrencyCollection`)
/// and returns how many references it used (its extra-currency dictionary).
pub(super) fn skip_currency(cs: &mut CellSlice<'_>) -> Result<u8, tycho_types::error::Error> {
    let len = cs.load_small_uint(4)?;
    cs.skip_first(u16::from(len) * 8, 0)?;
    Ok(u8::from(cs.load_bit()?))
}

/// The root hash of the held masterchain state's library dictionary:
/// `Ok(None)` when no masterchain state is held or it has no libraries.
pub fn root_hash(r: &Reader<'_>) -> Result<Option<HashBytes>, CellError> {
    let Some(state) = r.get::<ShardStates>(&MASTERCHAIN)? else {
        return Ok(None);
    };
    root_hash_in(r, &HashBytes(state.root_hash))
}

/// The root hash of the library dictionary of the masterchain state whose
/// root is `state_root` (an earlier state the cell store keeps):
/// `CellError::Missing` when that state is not held.
pub fn root_hash_in(
    r: &Reader<'_>,
    state_root: &HashBytes,
) -> Result<Option<HashBytes>, CellError> {
    let loader = Loader::new(r);
    let root = loader.shallow(state_root)?;
    let corrupt = |_| CellError::Corrupt(*state_root);
    let Some(extra_hash) = root.as_ref().reference_repr_hash(2) else {
        return Err(CellError::Corrupt(*state_root));
    };
    let extra = loader.shallow(&extra_hash)?;
    let mut cs = extra.as_slice_allow_exotic();
    cs.skip_first(128, 0).map_err(corrupt)?;
    let mut refs = skip_currency(&mut cs).map_err(corrupt)?;
    refs += skip_currency(&mut cs).map_err(corrupt)?;
    if !cs.load_bit().map_err(corrupt)? {
        return Ok(None);
    }
    Ok(extra.as_ref().reference_repr_hash(refs))
}

/// The library dictionary whose root is `root` (from [`root_hash`]).
pub fn load(r: &Reader<'_>, root: &HashBytes) -> Result<Dict<HashBytes, LibDescr>, CellError> {
    let cell = Loader::new(r).whole(root)?;
    Ok(Dict::from_raw(Some(cell)))
}

/// A library cell a source fetched before (a follower holds no masterchain
/// state), as the index stored it; a row whose cell does not hash to its
/// key is not used.
pub fn fetched(r: &Reader<'_>, hash: &HashBytes) -> Option<Cell> {
    let row = r.get::<FetchedLibraries>(hash.as_array()).ok()??;
    let cell = Boc::decode(&row.0).ok()?;
    (cell.repr_hash() == hash).then_some(cell)
}
