//! TEP-74 Jettons, read the way toncenter's worker reads them (spec v3
//! §6.3): a master by `get_jetton_data`, a wallet by `get_wallet_data`,
//! and a wallet believed only when its master's `get_wallet_address(owner)`
//! gives the wallet's own address (anyone can deploy a contract that
//! claims to be a wallet of a real Jetton).

use num_bigint::BigInt;
use tycho_types::cell::{Cell, CellBuilder, Load};
use tycho_types::models::{IntAddr, StdAddr};
use tycho_vm::{OwnedCellSlice, RcStackValue, SafeRc};

use crate::tvm::getmethod::RunOutput;

/// What `get_wallet_data` says of a Jetton wallet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletData {
    /// TEP-74 balances are `Coins` (at most 120 bits).
    pub balance: u128,
    pub owner: StdAddr,
    pub jetton: StdAddr,
    pub wallet_code: Cell,
}

/// What `get_jetton_data` says of a Jetton master.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasterData {
    pub total_supply: u128,
    pub mintable: bool,
    /// `None` when the admin slice is `addr_none` (an immutable Jetton).
    pub admin: Option<StdAddr>,
    pub content: Cell,
    pub wallet_code: Cell,
}

pub(super) fn ok_stack(out: &RunOutput, len: usize) -> Option<&[RcStackValue]> {
    (out.exit_code == 0 || out.exit_code == 1)
        .then_some(out.stack.as_slice())
        .filter(|s| s.len() == len)
}

fn amount(v: &RcStackValue) -> Option<u128> {
    let n = v.as_int()?;
    u128::try_from(n).ok()
}

/// A slice holding a message address: `Some(Some(addr))` for `addr_std`,
/// `Some(None)` for `addr_none`, `None` for anything else.
pub(super) fn address(v: &RcStackValue) -> Option<Option<StdAddr>> {
    let slice = v.as_cell_slice()?;
    let mut cs = slice.apply();
    if cs.size_bits() == 2 && cs.load_small_uint(2).ok()? == 0 {
        return Some(None);
    }
    match IntAddr::load_from(&mut cs).ok()? {
        IntAddr::Std(a) if a.anycast.is_none() => Some(Some(a)),
        _ => None,
    }
}

/// `is_claimed` of a mintless-airdrop Jetton wallet → whether its owner
/// has claimed the airdrop (`None`: no such answer, not a mintless wallet).
pub fn is_claimed(out: &RunOutput) -> Option<bool> {
    let n = ok_stack(out, 1)?[0].as_int()?;
    Some(n.sign() != num_bigint::Sign::NoSign)
}

/// `get_wallet_data` → `(balance, owner, jetton, wallet_code)`.
pub fn wallet_data(out: &RunOutput) -> Option<WalletData> {
    let s = ok_stack(out, 4)?;
    Some(WalletData {
        balance: amount(&s[0])?,
        owner: address(&s[1])??,
        jetton: address(&s[2])??,
        wallet_code: s[3].as_cell()?.clone(),
    })
}

/// `get_jetton_data` → `(total_supply, mintable, admin, content, wallet_code)`.
pub fn master_data(out: &RunOutput) -> Option<MasterData> {
    let s = ok_stack(out, 5)?;
    Some(MasterData {
        total_supply: amount(&s[0])?,
        mintable: s[1].as_int()? != &BigInt::ZERO,
        admin: address(&s[2])?,
        content: s[3].as_cell()?.clone(),
        wallet_code: s[4].as_cell()?.clone(),
    })
}

/// The argument of `get_wallet_address(owner)`: a slice with the address.
pub fn owner_arg(owner: &StdAddr) -> Option<RcStackValue> {
    let cell = CellBuilder::build_from(owner).ok()?;
    Some(SafeRc::new_dyn_value(OwnedCellSlice::new_allow_exotic(
        cell,
    )))
}

/// The address `get_wallet_address` (or any getter returning one address) gave.
pub fn address_result(out: &RunOutput) -> Option<StdAddr> {
    let s = ok_stack(out, 1)?;
    address(&s[0])?
}
