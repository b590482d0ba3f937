//! The balance index: every account whose exact state the index holds, in
//! balance order (v3 `/topAccountsByBalance`), kept current in the unit's
//! batch from the account states the unit wrote or removed.

use std::collections::HashMap;

use tycho_types::cell::Cell;
use tycho_types::models::ShardAccount;

use tonindex_model::Address;
use tonindex_storage::tables::{AccountBalances, AccountsByBalance, BalanceAccountKey};
use tonindex_storage::{BalanceRecord, Batch, Db};

/// The balance of an account in a ShardAccount cell; `None` for an account
/// that does not exist (or a cell that does not read as one).
pub(crate) fn balance_of(shard_account: &Cell) -> Option<BalanceRecord> {
    let sa: ShardAccount = shard_account.parse().ok()?;
    let account = sa.load_account().ok()??;
    Some(BalanceRecord {
        balance: account.balance.tokens.into_inner(),
        last_trans_lt: sa.last_trans_lt,
    })
}

/// Moves each changed account to its new place in the balance order (the
/// last change of an account in the unit wins); returns how many moved.
pub fn index_balances(
    db: &Db,
    batch: &mut Batch<'_>,
    changes: &[(Address, Option<Cell>)],
) -> Result<usize, tonindex_storage::Error> {
    if changes.is_empty() {
        return Ok(0);
    }
    let mut newest: HashMap<Address, Option<BalanceRecord>> = HashMap::with_capacity(changes.len());
    for (a, cell) in changes {
        newest.insert(*a, cell.as_ref().and_then(balance_of));
    }
    let accounts: Vec<Address> = newest.keys().copied().collect();
    let held = db.reader().multi_get::<AccountBalances>(&accounts)?;
    let mut moved = 0;
    for (account, old) in accounts.iter().zip(held) {
        let new = newest[account];
        if old == new {
            continue;
        }
        moved += 1;
        if let Some(old) = old {
            batch.delete::<AccountsByBalance>(&BalanceAccountKey {
                balance: old.balance,
                account: *account,
            });
        }
        match new {
            Some(new) => {
                batch.put::<AccountBalances>(account, &new);
                batch.put::<AccountsByBalance>(
                    &BalanceAccountKey {
                        balance: new.balance,
                        account: *account,
                    },
                    &(),
                );
            }
            None => batch.delete::<AccountBalances>(account),
        }
    }
    Ok(moved)
}
