//! The code of each account a block changed, read from the new side of the
//! block's state update — so that an index that holds no shard state still
//! knows which accounts are standard wallets (their friendly form is
//! non-bounceable) and what interfaces their code has.
//!
//! The update's new tree keeps every cell on the path from the state's root
//! to each changed account (their hashes changed) and prunes the rest; an
//! account's code cell, unchanged, is usually a pruned branch, whose stored
//! level-0 hash is the code's own hash.

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{AccountState, ShardAccounts};

use tonindex_model::{Address, Hash};

/// The code hash of each of `accounts` (sorted, distinct) after the block:
/// `Some(None)` where the account is not active or has no code, absent
/// where the tree does not show it (an account the block did not change,
/// a layout the decoder cannot read).
pub fn changed_codes(new_state: &Cell, accounts: &[Address]) -> Vec<(Address, Option<Hash>)> {
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
        let Ok(account) = shard_account.load_account() else {
            continue;
        };
        let code = account.and_then(|a| match a.state {
            AccountState::Active(init) => init.code.map(|c| *c.hash(0).as_array()),
            _ => None,
        });
        out.push((*addr, code));
    }
    out
}
