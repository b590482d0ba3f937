//! Signed-external transfers of the standard wallets, built from a
//! wallet's own data, for the emulation and fee tests.

use tycho_types::cell::{Cell, CellBuilder, CellFamily, HashBytes};
use tycho_types::models::{CurrencyCollection, IntAddr, StdAddr};

/// The external message layouts the tests build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wallet {
    /// v3r1 and v3r2.
    V3,
    V4,
    V5,
    HighloadV3,
}

/// A 0.01 TON non-bounceable transfer with a text comment, as wallets send it.
pub fn transfer_out_msg() -> Cell {
    use tycho_types::models::{RelaxedIntMsgInfo, RelaxedMessage, RelaxedMsgInfo};
    let mut comment = CellBuilder::new();
    comment.store_u32(0).unwrap();
    comment.store_raw(b"tonindex", 64).unwrap();
    let comment = comment.build().unwrap();
    CellBuilder::build_from(RelaxedMessage {
        info: RelaxedMsgInfo::Int(RelaxedIntMsgInfo {
            ihr_disabled: true,
            bounce: false,
            bounced: false,
            src: None,
            dst: IntAddr::Std(StdAddr::new(0, HashBytes([0x5a; 32]))),
            value: CurrencyCollection::new(10_000_000u128),
            extra_flags: Default::default(),
            fwd_fee: Default::default(),
            created_lt: 0,
            created_at: 0,
        }),
        init: None,
        body: comment.as_slice().unwrap(),
        layout: None,
    })
    .unwrap()
}

/// The body of a signed external transfer (signature left zero: both
/// sides run with signature checks succeeding) for `kind`, from the
/// wallet's own data (seqno, wallet id; highload: subwallet, timeout).
pub fn transfer_body(kind: Wallet, data: &Cell, now: u32) -> Cell {
    let mut cs = data.as_slice().unwrap();
    let mut b = CellBuilder::new();
    match kind {
        Wallet::V3 | Wallet::V4 => {
            let seqno = cs.load_u32().unwrap();
            let wallet_id = cs.load_u32().unwrap();
            b.store_zeros(512).unwrap();
            b.store_u32(wallet_id).unwrap();
            b.store_u32(now + 60).unwrap();
            b.store_u32(seqno).unwrap();
            if kind == Wallet::V4 {
                b.store_u8(0).unwrap(); // op: simple send
            }
            b.store_u8(3).unwrap();
            b.store_reference(transfer_out_msg()).unwrap();
        }
        Wallet::V5 => {
            cs.skip_first(1, 0).unwrap();
            let seqno = cs.load_u32().unwrap();
            let wallet_id = cs.load_u32().unwrap();
            // out_list$_ prev:^(OutList 0) action_send_msg#0ec3c86d mode:uint8 out_msg:^MessageRelaxed
            let mut actions = CellBuilder::new();
            actions.store_reference(Cell::empty_cell()).unwrap();
            actions.store_u32(0x0ec3c86d).unwrap();
            actions.store_u8(3).unwrap();
            actions.store_reference(transfer_out_msg()).unwrap();
            b.store_u32(0x7369676e).unwrap(); // "sign"
            b.store_u32(wallet_id).unwrap();
            b.store_u32(now + 60).unwrap();
            b.store_u32(seqno).unwrap();
            b.store_bit_one().unwrap();
            b.store_reference(actions.build().unwrap()).unwrap();
            b.store_bit_zero().unwrap(); // no extended actions
            b.store_zeros(512).unwrap();
        }
        Wallet::HighloadV3 => {
            cs.skip_first(256, 0).unwrap();
            let subwallet = cs.load_u32().unwrap();
            cs.skip_first(2, 0).unwrap(); // old_queries, queries (HashmapE bits)
            cs.skip_first(64, 0).unwrap(); // last_clean_time
            let timeout = cs.load_uint(22).unwrap();
            let mut inner = CellBuilder::new();
            inner.store_u32(subwallet).unwrap();
            inner.store_reference(transfer_out_msg()).unwrap();
            inner.store_u8(3).unwrap();
            inner.store_uint(8191, 13).unwrap(); // query id: shift
            inner.store_uint(1021, 10).unwrap(); // query id: bit number
            inner.store_u64(u64::from(now) - 10).unwrap();
            inner.store_uint(timeout, 22).unwrap();
            b.store_zeros(512).unwrap();
            b.store_reference(inner.build().unwrap()).unwrap();
        }
    }
    b.build().unwrap()
}
