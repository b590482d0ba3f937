//! Each account a block changed as the block left it, read from the new
//! side of the block's state update — so that an index that holds no shard
//! state still knows which accounts are standard wallets (their friendly
//! form is non-bounceable) and what interfaces their code has, and so that
//! the streams can say how a shard block no masterchain block commits yet
//! left an account (`account_state_change` at `confirmed`).
//!
//! The update's new tree keeps every cell on the path from the state's root
//! to each changed account (their hashes changed) and prunes the rest; an
//! account's code cell, unchanged, is usually a pruned branch. Every hash
//! here is a cell's level-0 hash: that of the cell in the real state, which
//! a pruned branch stores and which a cell above one (whose own hash in the
//! update is of a higher level) computes.

use tycho_types::cell::{Cell, CellBuilder, HashBytes};
use tycho_types::models::{AccountState, OptionalAccount, ShardAccount, ShardAccounts};

use tonindex_model::{AccountStatus, Address, Hash};

/// An account after a block, as far as the state update shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountAfter {
    /// The hash of its `Account` cell (what its last transaction's
    /// `HASH_UPDATE` names as the new state).
    pub state_hash: Hash,
    pub status: AccountStatus,
    /// Nanotons (0 for an account that does not exist).
    pub balance: u128,
    pub code_hash: Option<Hash>,
    pub data_hash: Option<Hash>,
    pub frozen_hash: Option<Hash>,
}

/// Each of `accounts` (sorted, distinct) after the block (one it deleted as
/// `nonexist`), absent where the tree does not show it (an account the
/// block did not change, a layout the decoder cannot read).
pub fn changed_accounts(new_state: &Cell, accounts: &[Address]) -> Vec<(Address, AccountAfter)> {
    changed_shard_accounts(new_state, accounts)
        .into_iter()
        .filter_map(|(addr, sa)| match sa {
            Some(sa) => Some((addr, after(&sa)?)),
            None => Some((addr, deleted())),
        })
        .collect()
}

/// An account the state no longer holds (its transaction deleted it, or
/// a message found nothing there): its state is `account_none`.
fn deleted() -> AccountAfter {
    static NONE_HASH: std::sync::OnceLock<Hash> = std::sync::OnceLock::new();
    let state_hash = *NONE_HASH.get_or_init(|| {
        let none =
            CellBuilder::build_from(&OptionalAccount::EMPTY).expect("account_none is one bit");
        *none.repr_hash().as_array()
    });
    AccountAfter {
        state_hash,
        status: AccountStatus::Nonexist,
        balance: 0,
        code_hash: None,
        data_hash: None,
        frozen_hash: None,
    }
}

/// Each of `accounts` (sorted, distinct) as the tree shows it after the
/// block, its unchanged cells pruned (a shard block's confirmed state, to
/// complete from the cell store); `None` for one the tree shows is not
/// there (deleted).
pub fn changed_shard_accounts(
    new_state: &Cell,
    accounts: &[Address],
) -> Vec<(Address, Option<ShardAccount>)> {
    // shard_state#9023afe2 … out_msg_queue_info:^OutMsgQueueInfo … accounts:^ShardAccounts …
    let Some(accounts_cell) = new_state.reference_cloned(1) else {
        return Vec::new();
    };
    let Ok(dict) = accounts_cell.parse::<ShardAccounts>() else {
        return Vec::new();
    };
    accounts
        .iter()
        // A pruned branch on the way: the account did not change here.
        .filter_map(|addr| match dict.get(HashBytes(addr.id)) {
            Ok(found) => Some((*addr, found.map(|(_, sa)| sa))),
            Err(_) => None,
        })
        .collect()
}

/// What `sa` (whole or pruned) says of the account; `None` for a layout
/// the decoder cannot read.
pub fn after(sa: &ShardAccount) -> Option<AccountAfter> {
    let state_hash = *sa.account.inner().hash(0).as_array();
    let account = sa.load_account().ok()?;
    let level0 = |c: &Cell| *c.hash(0).as_array();
    let mut after = AccountAfter {
        state_hash,
        ..deleted()
    };
    let Some(a) = account else {
        return Some(after);
    };
    after.status = AccountStatus::Uninit;
    after.balance = a.balance.tokens.into_inner();
    match a.state {
        AccountState::Uninit => {}
        AccountState::Frozen(h) => {
            after.status = AccountStatus::Frozen;
            after.frozen_hash = Some(*h.as_array());
        }
        AccountState::Active(init) => {
            after.status = AccountStatus::Active;
            after.code_hash = init.code.as_ref().map(level0);
            after.data_hash = init.data.as_ref().map(level0);
        }
    }
    Some(after)
}
