//! The `confirmed` level of `tonindex dev --block-interval --confirm-gap`:
//! the traces a round's shard blocks hold, announced before the
//! masterchain block that commits them is indexed.

use std::collections::HashMap;

use tonindex_model::{Hash, MsgKind};

use crate::chain::link::ConfirmedTrace;
use crate::decode::DecodedBlock;

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
