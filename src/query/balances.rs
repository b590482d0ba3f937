//! What a trace, or one of its actions, did to balances (v3
//! `/balanceChanges`, spec §3.12): nanotons moved by each message and spent
//! in fees by each account, and Jetton amounts moved between owners.
//!
//! Per transaction, as toncenter's server counts it: the account pays its
//! `total_fees`; an internal in-message moves its value from source to
//! destination, and its forwarding fee is the source's when the sending
//! transaction is in the trace. Jettons: a `transfer` of a Jetton wallet the
//! index knows moves its amount from the sending owner to the receiving
//! one — counted only for what happened: nothing when the sending wallet
//! refused it, nothing when the receiving wallet refused it (the bounce
//! gives it back), and only the debit while the receiving side is not in
//! the trace yet.

use std::collections::{BTreeMap, HashMap};

use tonindex_model::{Address, Hash, MsgKind, TransactionRecord};
use tonindex_storage::tables::{JettonTransfers, LtHashKey};
use tonindex_storage::{Error, Reader};

use super::{jettons, messages, traces, transactions};

/// `internal_transfer#178d4519`: one Jetton wallet crediting another.
const INTERNAL_TRANSFER: u32 = 0x178d4519;

/// Balance changes, per account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Nanotons received minus sent by messages.
    pub value: BTreeMap<Address, i128>,
    /// Nanotons spent in fees.
    pub fees: BTreeMap<Address, i128>,
    /// Jetton units by owner, then by master.
    pub jettons: BTreeMap<Address, BTreeMap<Address, i128>>,
}

impl Changes {
    fn merge(&mut self, other: &Changes) {
        for (a, v) in &other.value {
            *self.value.entry(*a).or_default() += v;
        }
        for (a, v) in &other.fees {
            *self.fees.entry(*a).or_default() += v;
        }
        for (owner, by_master) in &other.jettons {
            let mine = self.jettons.entry(*owner).or_default();
            for (master, v) in by_master {
                *mine.entry(*master).or_default() += v;
            }
        }
    }

    /// Value less fees: each account's whole change in nanotons.
    pub fn net(&self) -> BTreeMap<Address, i128> {
        let mut out = self.value.clone();
        for (a, f) in &self.fees {
            *out.entry(*a).or_default() -= f;
        }
        out
    }
}

/// A trace's changes, and those of each transaction (by hash).
pub struct TraceChanges {
    pub total: Changes,
    pub by_tx: HashMap<Hash, Changes>,
    /// Each transaction's lt and whether its in-message is internal.
    txs: HashMap<Hash, (u64, bool)>,
}

impl TraceChanges {
    /// The changes of an action's transactions. The first one (by lt) is
    /// left out when an internal message started it: the action begins
    /// where that message arrives, as toncenter counts it.
    pub fn of_action(&self, tx_hashes: &[Hash]) -> Changes {
        let mut txs: Vec<(u64, bool, &Hash)> = tx_hashes
            .iter()
            .filter_map(|h| self.txs.get(h).map(|(lt, internal)| (*lt, *internal, h)))
            .collect();
        txs.sort();
        if txs.first().is_some_and(|(_, internal, _)| *internal) {
            txs.remove(0);
        }
        let mut out = Changes::default();
        for (_, _, h) in txs {
            if let Some(c) = self.by_tx.get(h) {
                out.merge(c);
            }
        }
        out
    }
}

fn aborted(tx: &TransactionRecord) -> bool {
    tx.description
        .as_ref()
        .and_then(|d| d.aborted)
        .unwrap_or(false)
}

/// The balance changes of trace `id` (`None`: no such trace).
pub fn of_trace(r: &Reader<'_>, id: &Hash) -> Result<Option<TraceChanges>, Error> {
    let ids = traces::trace_tx_ids(r, id)?;
    if ids.is_empty() {
        return Ok(None);
    }
    let txs: Vec<TransactionRecord> = transactions::tx_records(r, &ids)?;
    let in_hashes: Vec<Hash> = txs.iter().filter_map(|t| t.in_msg).collect();
    let in_msgs: HashMap<Hash, _> = messages::messages(r, &in_hashes)?
        .into_iter()
        .map(|m| (m.hash, m))
        .collect();
    // Which transaction sent each message, and which received it.
    let mut sent_by: HashMap<Hash, usize> = HashMap::new();
    let mut received_by: HashMap<Hash, usize> = HashMap::new();
    for (i, t) in txs.iter().enumerate() {
        for h in &t.out_msgs {
            sent_by.insert(*h, i);
        }
        if let Some(h) = t.in_msg {
            received_by.insert(h, i);
        }
    }
    let keys: Vec<LtHashKey> = txs
        .iter()
        .map(|t| LtHashKey {
            lt: t.lt,
            hash: t.hash,
        })
        .collect();
    let transfers = r.multi_get::<JettonTransfers>(&keys)?;
    let out_opcodes: HashMap<Hash, Option<u32>> = {
        let senders: Vec<Hash> = txs
            .iter()
            .zip(&transfers)
            .filter(|(_, j)| j.is_some())
            .flat_map(|(t, _)| t.out_msgs.iter().copied())
            .collect();
        messages::messages(r, &senders)?
            .into_iter()
            .map(|m| (m.hash, m.opcode))
            .collect()
    };

    let mut out = TraceChanges {
        total: Changes::default(),
        by_tx: HashMap::new(),
        txs: HashMap::new(),
    };
    for (t, transfer) in txs.iter().zip(&transfers) {
        let mut c = Changes::default();
        *c.fees.entry(t.account).or_default() += t.total_fees.grams as i128;
        let in_msg = t.in_msg.and_then(|h| in_msgs.get(&h));
        let internal = in_msg.is_some_and(|m| m.kind == MsgKind::Internal);
        if let Some(m) = in_msg.filter(|m| m.kind == MsgKind::Internal) {
            if let (Some(src), Some(dst), Some(v)) = (m.source, m.destination, &m.value) {
                *c.value.entry(src).or_default() -= v.grams as i128;
                *c.value.entry(dst).or_default() += v.grams as i128;
                if sent_by.contains_key(&m.hash) {
                    *c.fees.entry(src).or_default() += m.fwd_fee.unwrap_or(0) as i128;
                }
            }
        }
        if let Some(j) = transfer.as_ref().filter(|j| !j.tx_aborted) {
            // The wallet's internal_transfer to the receiving wallet, and
            // how the receiving wallet took it.
            let credit = t
                .out_msgs
                .iter()
                .find(|h| out_opcodes.get(*h).copied().flatten() == Some(INTERNAL_TRANSFER))
                .and_then(|h| received_by.get(h))
                .map(|&i| &txs[i]);
            let refused = credit.is_some_and(aborted);
            if !refused {
                let amount = j.amount as i128;
                if let Some(sender) = j.source {
                    *c.jettons
                        .entry(sender)
                        .or_default()
                        .entry(j.jetton_master)
                        .or_default() -= amount;
                }
                // Credited to the receiving owner only when the wallet that
                // took it is one the index confirmed for that owner.
                if let (Some(rx), Some(owner)) = (credit, j.destination) {
                    let confirmed = jettons::wallet(r, &rx.account)?
                        .is_some_and(|w| w.owner == owner && w.jetton == j.jetton_master);
                    if confirmed {
                        *c.jettons
                            .entry(owner)
                            .or_default()
                            .entry(j.jetton_master)
                            .or_default() += amount;
                    }
                }
            }
        }
        out.total.merge(&c);
        out.txs.insert(t.hash, (t.lt, internal));
        out.by_tx.insert(t.hash, c);
    }
    Ok(Some(out))
}
