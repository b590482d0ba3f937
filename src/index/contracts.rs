//! The contracts step of a unit: what the index reads from the account
//! states the unit writes. Each contract code is read once — its get-method
//! ids go to [`Codes`], the interface cache — in the batch that first
//! stores a state with that code, so a known code costs one point lookup.

use std::collections::HashSet;

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{AccountState, ShardAccount};

use tonindex_model::Address;
use tonindex_storage::tables::Codes;
use tonindex_storage::{Batch, CodeRecord, Db};

use crate::contracts::methods::method_ids;

/// The code of an active account's `ShardAccount` cell.
pub(crate) fn code_of(shard_account: &Cell) -> Option<Cell> {
    let sa: ShardAccount = shard_account.parse().ok()?;
    match sa.load_account().ok()??.state {
        AccountState::Active(init) => init.code,
        _ => None,
    }
}

/// Writes a [`Codes`] row for every code among `accounts` that the index
/// has not read before. Returns how many codes were new.
pub(crate) fn index_codes(
    db: &Db,
    batch: &mut Batch<'_>,
    accounts: &[(Address, Cell)],
) -> Result<usize, tonindex_storage::Error> {
    let mut seen: HashSet<HashBytes> = HashSet::new();
    let mut new = 0;
    for (_, shard_account) in accounts {
        let Some(code) = code_of(shard_account) else {
            continue;
        };
        let hash = *code.repr_hash();
        if !seen.insert(hash) || db.contains::<Codes>(hash.as_array())? {
            continue;
        }
        let record = CodeRecord {
            methods: method_ids(&code),
        };
        batch.put::<Codes>(hash.as_array(), &record);
        new += 1;
    }
    Ok(new)
}
