//! Traces built by hand for the matchers' unit tests, where no real trace
//! of a flow is at hand: each message is numbered in the order it was
//! created, each reaches one transaction, and the messages a transaction
//! sends are the ones built with its number as their parent.

use std::collections::HashMap;

use tonindex_model::{
    AccountStatus, ActionRecord, Address, ClassificationState, MsgKind, TraceRecord, TraceState,
    TxKind,
};
use tycho_types::cell::{Cell, CellBuilder};

use super::{Interfaces, JettonWallet};
use crate::trace::{TraceMsg, TraceTx};

/// Account `n` of a built trace.
pub(crate) fn account(n: u8) -> Address {
    Address {
        workchain: 0,
        id: [n; 32],
    }
}

/// Message `n`, created at lt `10 n` (its transaction runs at `10 n + 1`).
pub(crate) fn msg(n: u8, from: u8, to: u8, opcode: u32, body: Option<Cell>) -> TraceMsg {
    TraceMsg {
        hash: [n; 32],
        kind: MsgKind::Internal,
        source: Some(account(from)),
        destination: Some(account(to)),
        value: 1_000_000,
        extra_currencies: false,
        opcode: Some(opcode),
        bounce: false,
        bounced: false,
        created_lt: Some(u64::from(n) * 10),
        created_at: Some(1),
        hash_norm: None,
        body,
        init_state: None,
    }
}

/// The transaction message `n` caused at account `at`.
pub(crate) fn tx(n: u8, at: u8, in_msg: TraceMsg, out_msgs: Vec<TraceMsg>) -> TraceTx {
    TraceTx {
        hash: [100 + n; 32],
        lt: u64::from(n) * 10 + 1,
        account: account(at),
        now: 1,
        mc_seqno: Some(1),
        kind: TxKind::Ord,
        in_msg: Some(in_msg),
        out_msgs,
        orig_status: AccountStatus::Active,
        end_status: AccountStatus::Active,
        aborted: false,
        destroyed: false,
        compute: Some((true, 0)),
        no_gas: false,
        action_result: Some(0),
    }
}

/// The record of a complete trace of `txs` (the first is the root).
pub(crate) fn trace_of(txs: &[TraceTx]) -> TraceRecord {
    TraceRecord {
        trace_id: txs[0].hash,
        external_hash: None,
        external_hash_norm: None,
        mc_seqno_start: Some(1),
        mc_seqno_end: Some(1),
        start_lt: txs.iter().map(|t| t.lt).min().unwrap_or(0),
        start_utime: 1,
        end_lt: txs.iter().map(|t| t.lt).max().unwrap_or(0),
        end_utime: 1,
        state: TraceState::Complete,
        transactions: txs.len() as u32,
        messages: txs.len() as u32,
        pending_messages: 0,
        classification: ClassificationState::Unclassified,
        tx_ids: Vec::new(),
    }
}

/// A trace being built: messages in creation order, each with the
/// message whose transaction sent it.
#[derive(Default)]
pub(crate) struct Flow {
    msgs: Vec<(Option<u8>, TraceMsg)>,
}

impl Flow {
    /// Sends a message from `from` to `to` out of the transaction of
    /// message `parent` (`None`: the root's in-message); its number.
    pub(crate) fn send(
        &mut self,
        parent: Option<u8>,
        from: u8,
        to: u8,
        opcode: u32,
        body: Option<Cell>,
    ) -> u8 {
        let n = self.msgs.len() as u8 + 1;
        self.msgs.push((parent, msg(n, from, to, opcode, body)));
        n
    }

    /// One transaction per message, in creation order.
    pub(crate) fn txs(&self) -> Vec<TraceTx> {
        self.msgs
            .iter()
            .map(|(_, m)| {
                let n = m.hash[0];
                let out = self
                    .msgs
                    .iter()
                    .filter(|(p, _)| *p == Some(n))
                    .map(|(_, c)| c.clone())
                    .collect();
                let at = m.destination.expect("internal").id[0];
                tx(n, at, m.clone(), out)
            })
            .collect()
    }

    /// The actions the classifier makes of the trace.
    pub(crate) fn classify(&self, interfaces: &dyn Interfaces) -> Vec<ActionRecord> {
        let txs = self.txs();
        super::classify(&trace_of(&txs), &txs, interfaces).expect("classified")
    }
}

/// The transaction hash of message `n`'s transaction.
pub(crate) fn tx_hash(n: u8) -> [u8; 32] {
    [100 + n; 32]
}

/// Known Jetton wallets (account → owner and master).
#[derive(Default)]
pub(crate) struct Wallets(pub HashMap<Address, JettonWallet>);

impl Wallets {
    pub(crate) fn add(&mut self, wallet: u8, owner: u8, jetton: u8) {
        self.add_of(wallet, owner, account(jetton));
    }

    /// A wallet of a Jetton outside the built accounts (proxy TON).
    pub(crate) fn add_of(&mut self, wallet: u8, owner: u8, jetton: Address) {
        self.0.insert(
            account(wallet),
            JettonWallet {
                owner: account(owner),
                jetton,
            },
        );
    }
}

impl Interfaces for Wallets {
    fn jetton_wallet(&self, a: &Address) -> Option<JettonWallet> {
        self.0.get(a).cloned()
    }

    fn nft_item(&self, _: &Address) -> Option<super::NftItem> {
        None
    }
}

/// Cell-building shorthands for message bodies.
pub(crate) trait Store {
    fn coins(&mut self, v: u128) -> &mut Self;
    fn addr(&mut self, a: Option<Address>) -> &mut Self;
}

impl Store for CellBuilder {
    fn coins(&mut self, v: u128) -> &mut Self {
        let bytes = (128 - v.leading_zeros()).div_ceil(8);
        self.store_small_uint(bytes as u8, 4).unwrap();
        let be = v.to_be_bytes();
        self.store_raw(&be[16 - bytes as usize..], (bytes * 8) as u16)
            .unwrap();
        self
    }

    fn addr(&mut self, a: Option<Address>) -> &mut Self {
        match a {
            None => {
                self.store_small_uint(0, 2).unwrap();
            }
            Some(a) => {
                self.store_small_uint(0b100, 3).unwrap();
                self.store_u8(a.workchain as u8).unwrap();
                self.store_raw(&a.id, 256).unwrap();
            }
        }
        self
    }
}

/// A body: the opcode, the query id 0, then what `fill` stores.
pub(crate) fn body(op: u32, fill: impl FnOnce(&mut CellBuilder)) -> Cell {
    let mut b = CellBuilder::new();
    b.store_u32(op).unwrap();
    b.store_u64(0).unwrap();
    fill(&mut b);
    b.build().unwrap()
}

/// `transfer#0f8a7ea5` of `amount` to `to`, no payloads.
pub(crate) fn jetton_transfer(amount: u128, to: u8) -> Cell {
    body(super::jetton::OP_TRANSFER, |b| {
        b.coins(amount).addr(Some(account(to))).addr(None);
        b.store_bit_zero().unwrap();
        b.coins(0);
        b.store_bit_zero().unwrap();
    })
}

/// `internal_transfer#178d4519` of `amount` from `from`.
pub(crate) fn internal_transfer(amount: u128, from: u8) -> Cell {
    body(super::jetton::OP_INTERNAL_TRANSFER, |b| {
        b.coins(amount)
            .addr(Some(account(from)))
            .addr(None)
            .coins(0);
        b.store_bit_zero().unwrap();
    })
}

/// `burn#595f07bc` of `amount`, change to `response`.
pub(crate) fn jetton_burn(amount: u128, response: u8) -> Cell {
    body(super::jetton::OP_BURN, |b| {
        b.coins(amount).addr(Some(account(response)));
        b.store_bit_zero().unwrap();
    })
}

/// An account as the rows' data name it (raw form).
pub(crate) fn named(n: u8) -> serde_json::Value {
    serde_json::Value::String(super::raw(&account(n)))
}

/// Where the row of `kind` is, and that there is exactly one.
pub(crate) fn only<'a>(actions: &'a [ActionRecord], kind: &str) -> &'a ActionRecord {
    let found: Vec<_> = actions.iter().filter(|a| a.kind == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} in {actions:#?}");
    found[0]
}

/// The row's `data` as JSON.
pub(crate) fn data(a: &ActionRecord) -> serde_json::Value {
    serde_json::from_str(&a.data).expect("data is JSON")
}
