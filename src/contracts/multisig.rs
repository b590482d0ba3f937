//! Multisig v2 (ton-blockchain/multisig-contract-v2) and the standard TON
//! vesting wallet, read the way toncenter's worker reads them (spec v3
//! §6.5): a multisig by `get_multisig_data`, an order by `get_order_data`
//! and believed only when its multisig's `get_order_address(seqno)` gives
//! the order's address, a vesting wallet (by its exact code hash) by
//! `get_vesting_data`.

use num_bigint::BigInt;
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::dict::{Dict, RawDict};
use tycho_types::models::{IntAddr, StdAddr};
use tycho_vm::{RcStackValue, SafeRc};

use super::jetton::{address, ok_stack};
use crate::tvm::getmethod::RunOutput;

/// The one vesting wallet code v3 indexes (spec v3 §3.10).
pub const VESTING_CODE_HASH: HashBytes = HashBytes([
    0xb4, 0x8b, 0x53, 0x1a, 0xbe, 0xc3, 0xb7, 0x14, 0x63, 0x82, 0x91, 0xf7, 0xd7, 0x7e, 0xd6, 0xdc,
    0x9f, 0x6a, 0x27, 0x29, 0xef, 0xca, 0x20, 0x47, 0x71, 0x37, 0x37, 0x4d, 0x4a, 0xe8, 0xb5, 0x90,
]);

/// What `get_multisig_data` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultisigData {
    /// `-1` when the multisig accepts arbitrary order seqnos.
    pub next_order_seqno: BigInt,
    pub threshold: u32,
    pub signers: Vec<StdAddr>,
    pub proposers: Vec<StdAddr>,
}

/// What `get_order_data` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderData {
    pub multisig: StdAddr,
    pub order_seqno: BigInt,
    pub threshold: u32,
    pub sent_for_execution: bool,
    pub signers: Vec<StdAddr>,
    pub approvals_mask: BigInt,
    pub approvals_num: u32,
    pub expiration_date: u64,
    /// The order's actions: `Hashmap 8 ^Action` (v3 `parse_actions` reads it).
    pub order: Cell,
}

/// What `get_vesting_data` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VestingData {
    pub start_time: u64,
    pub total_duration: u64,
    pub unlock_period: u64,
    pub cliff_duration: u64,
    pub total_amount: u128,
    pub sender: Option<StdAddr>,
    pub owner: Option<StdAddr>,
    pub whitelist: Vec<StdAddr>,
}

fn small<T: TryFrom<BigInt>>(v: &RcStackValue) -> Option<T> {
    T::try_from(v.as_int()?.clone()).ok()
}

/// A `Hashmap 8 MsgAddressInt` (signers, proposers) in key order; a null
/// is the empty map.
pub fn address_map(v: &RcStackValue) -> Option<Vec<StdAddr>> {
    if v.is_null() {
        return Some(Vec::new());
    }
    let dict = Dict::<u8, IntAddr>::from_raw(Some(v.as_cell()?.clone()));
    let mut out = Vec::new();
    for entry in dict.iter() {
        match entry.ok()?.1 {
            IntAddr::Std(a) => out.push(a),
            IntAddr::Var(_) => return None,
        }
    }
    Some(out)
}

/// `get_multisig_data` → `(next_order_seqno, threshold, signers, proposers)`.
pub fn multisig_data(out: &RunOutput) -> Option<MultisigData> {
    let s = ok_stack(out, 4)?;
    Some(MultisigData {
        next_order_seqno: s[0].as_int()?.clone(),
        threshold: small(&s[1])?,
        signers: address_map(&s[2])?,
        proposers: address_map(&s[3])?,
    })
}

/// `get_order_data` → `(multisig, order_seqno, threshold,
/// sent_for_execution, signers, approvals_mask, approvals_num,
/// expiration_date, order)`.
pub fn order_data(out: &RunOutput) -> Option<OrderData> {
    let s = ok_stack(out, 9)?;
    Some(OrderData {
        multisig: address(&s[0])??,
        order_seqno: s[1].as_int()?.clone(),
        threshold: small(&s[2])?,
        sent_for_execution: s[3].as_int()? != &BigInt::ZERO,
        signers: address_map(&s[4])?,
        approvals_mask: s[5].as_int()?.clone(),
        approvals_num: small(&s[6])?,
        expiration_date: small(&s[7])?,
        order: s[8].as_cell()?.clone(),
    })
}

/// The argument of `get_order_address(order_seqno)`.
pub fn seqno_arg(seqno: &BigInt) -> RcStackValue {
    SafeRc::new_dyn_value(seqno.clone())
}

/// `get_vesting_data` → `(start_time, total_duration, unlock_period,
/// cliff_duration, total_amount, sender, owner, whitelist)`; the whitelist
/// is a dictionary keyed by `wc:int8 hash:bits256`.
pub fn vesting_data(out: &RunOutput) -> Option<VestingData> {
    let s = ok_stack(out, 8)?;
    let whitelist = if s[7].is_null() {
        Vec::new()
    } else {
        let dict = RawDict::<264>::from(Some(s[7].as_cell()?.clone()));
        let mut out = Vec::new();
        for key in dict.keys() {
            let key = key.ok()?;
            let mut cs = key.as_data_slice();
            let wc = cs.load_u8().ok()? as i8;
            out.push(StdAddr::new(wc, cs.load_u256().ok()?));
        }
        out
    };
    Some(VestingData {
        start_time: small(&s[0])?,
        total_duration: small(&s[1])?,
        unlock_period: small(&s[2])?,
        cliff_duration: small(&s[3])?,
        total_amount: small(&s[4])?,
        sender: address(&s[5])?,
        owner: address(&s[6])?,
        whitelist,
    })
}
