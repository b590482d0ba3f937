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

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{AccountState, ShardAccounts};

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

/// Each of `accounts` (sorted, distinct) after the block, absent where the
/// tree does not show it (an account the block did not change, a layout
/// the decoder cannot read).
pub fn changed_accounts(new_state: &Cell, accounts: &[Address]) -> Vec<(Address, AccountAfter)> {
    // shard_state#9023afe2 … out_msg_queue_info:^OutMsgQueueInfo … accounts:^ShardAccounts …
    let Some(accounts_cell) = new_state.reference_cloned(1) else {
        return Vec::new();
    };
    let Ok(dict) = accounts_cell.parse::<ShardAccounts>() else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(accounts.len());
    for addr in accounts {
        // A pruned branch on the way: the account did not change here.
        let Ok(Some((_, shard_account))) = dict.get(HashBytes(addr.id)) else {
            continue;
        };
        let state_hash = *shard_account.account.inner().hash(0).as_array();
        let Ok(account) = shard_account.load_account() else {
            continue;
        };
        let level0 = |c: &Cell| *c.hash(0).as_array();
        let after = match account {
            None => AccountAfter {
                state_hash,
                status: AccountStatus::Nonexist,
                balance: 0,
                code_hash: None,
                data_hash: None,
                frozen_hash: None,
            },
            Some(a) => {
                let mut after = AccountAfter {
                    state_hash,
                    status: AccountStatus::Uninit,
                    balance: a.balance.tokens.into_inner(),
                    code_hash: None,
                    data_hash: None,
                    frozen_hash: None,
                };
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
                after
            }
        };
        out.push((*addr, after));
    }
    out
}
