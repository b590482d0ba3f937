//! The `confirmed` level (`tonindex dev --block-interval --confirm-gap`, and
//! a follower whose lite servers list pending shard blocks): the traces a
//! round's shard blocks hold and the accounts they change, announced before
//! the masterchain block that commits them is indexed.

use std::collections::HashMap;

use tonindex_model::{Address, Hash, MsgKind};

use tycho_types::models::ShardAccount;

use crate::chain::link::{Confirmed, ConfirmedState, ConfirmedTrace};
use crate::decode::accounts_after::changed_shard_accounts;
use crate::decode::{DecodedBlock, StateUpdate};

/// What `blocks` (shard blocks of one round, in any order) announce.
pub fn confirmed_round(blocks: &[DecodedBlock]) -> Confirmed {
    Confirmed {
        traces: confirmed_traces(blocks),
        states: confirmed_states(blocks),
    }
}

/// Each account `blocks`' basechain blocks changed, as the newest of them
/// (by logical time) that changed it left it, in account order.
pub fn confirmed_states(blocks: &[DecodedBlock]) -> Vec<ConfirmedState> {
    let mut newest: HashMap<Address, (u64, ConfirmedState)> = HashMap::new();
    for b in blocks.iter().filter(|b| b.record.id.id.workchain != -1) {
        let mut whole: HashMap<Address, ShardAccount> = match &b.state_update {
            StateUpdate::Kept(update) => {
                let changed: Vec<Address> = b.accounts_after.iter().map(|(a, _)| *a).collect();
                changed_shard_accounts(&update.new, &changed)
                    .into_iter()
                    .filter_map(|(a, sa)| Some((a, sa?)))
                    .collect()
            }
            _ => HashMap::new(),
        };
        for (account, after) in &b.accounts_after {
            let state = ConfirmedState {
                account: *account,
                block: b.record.id.id,
                gen_utime: b.record.gen_utime,
                after: after.clone(),
                shard_account: whole.remove(account),
            };
            match newest.get(account) {
                Some((lt, _)) if *lt >= b.record.end_lt => {}
                _ => {
                    newest.insert(*account, (b.record.end_lt, state));
                }
            }
        }
    }
    let mut out: Vec<ConfirmedState> = newest.into_values().map(|(_, s)| s).collect();
    out.sort_by_key(|s| s.account);
    out
}

/// The traces that start in `blocks`' basechain blocks with an external
/// message, each with the transactions of it those blocks hold, in lt
/// order (the root first). Parts of traces that started in earlier rounds
/// are left to their commit (`finalized`).
pub fn confirmed_traces(blocks: &[DecodedBlock]) -> Vec<ConfirmedTrace> {
    let txs: Vec<_> = blocks
        .iter()
        .filter(|b| b.record.id.id.workchain != -1)
        .flat_map(|b| b.transactions.iter().map(move |t| (t, b.record.id.id)))
        .collect();
    let by_in_msg: HashMap<Hash, usize> = txs
        .iter()
        .enumerate()
        .filter_map(|(i, (t, _))| t.record.in_msg.map(|h| (h, i)))
        .collect();
    let mut out = Vec::new();
    for (t, _) in &txs {
        let Some(m) = &t.in_msg else { continue };
        if m.kind != MsgKind::ExternalIn {
            continue;
        }
        let mut members = Vec::new();
        let mut todo = vec![by_in_msg[&m.hash]];
        while let Some(i) = todo.pop() {
            members.push(i);
            todo.extend(
                txs[i]
                    .0
                    .record
                    .out_msgs
                    .iter()
                    .filter_map(|h| by_in_msg.get(h).copied()),
            );
        }
        members.sort_by_key(|&i| txs[i].0.record.lt);
        let cells: Option<Vec<_>> = members
            .iter()
            .map(|&i| {
                tycho_types::boc::Boc::decode(&txs[i].0.boc)
                    .ok()
                    .map(|c| (c, txs[i].1))
            })
            .collect();
        // Cells decoded from blocks just built always parse.
        if let Some(txs) = cells {
            out.push(ConfirmedTrace {
                txs,
                external_hash_norm: m.hash_norm.unwrap_or(m.hash),
            });
        }
    }
    out
}
