//! A standard Jetton on the devnet (TEP-74's reference minter and wallet,
//! as ton-blockchain/ton's benchmark deploys them): the state init of a
//! minter, the address of an owner's wallet, and the bodies of a mint and
//! a transfer — what `bench-dev --profile mainnet` needs to make token
//! traffic the index then reads with its own getters.

use base64::Engine as _;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, Store};
use tycho_types::models::{StateInit, StdAddr};
use tycho_types::num::Tokens;

/// The minter's code (code hash 13f5d7a3…f50e).
const MINTER_CODE: &str = "te6ccgECCwEAAe0AART/APSkE/S88sgLAQIBYgIDAgLMBAUCA3pgCQoD79mRDjgEit8GhpgYC42Eit8H0gGADpj+mf9qJofQB9IGpqGEAKqThdRxgamqiq44L5cCSA/SB9AGoYEGhAMGuQ/QAYEogaKCF4BNAqkGQoAn0BLGeLZmZk9qpwQQg97svvKThdcYEakuAB8YEYAmACcYEvgsIH+XhAYHCACTs/BQiAbgqEAmqCgHkKAJ9ASxniwDni2ZkkWRlgIl6AHoAZYBkkHyAODpkZYFlA+X/5Og7wAxkZYKsZ4soAn0BCeW1iWZmZLj9gEA/jYD+gD6QPgoVBIIcFQgE1QUA8hQBPoCWM8WAc8WzMkiyMsBEvQA9ADLAMn5AHB0yMsCygfL/8nQUAjHBfLgShKhA1AkyFAE+gJYzxbMzMntVAH6QDAg1wsBwwCOH4IQ1TJ223CAEMjLBVADzxYi+gISy2rLH8s/yYBC+wCRW+IAMDUVxwXy4En6QDBZyFAE+gJYzxbMzMntVAAuUUPHBfLgSdQwAchQBPoCWM8WzMzJ7VQAfa289qJofQB9IGpqGDYY/BQAuCoQCaoKAeQoAn0BLGeLAOeLZmSRZGWAiXoAegBlgGT8gDg6ZGWBZQPl/+ToQAAfrxb2omh9AH0gamoYP6qQQA==";
/// The wallet's code (code hash beb0683e…d0ce).
const WALLET_CODE: &str = "te6ccgECEQEAAyMAART/APSkE/S88sgLAQIBYgIDAgLMBAUAG6D2BdqJofQB9IH0gahhAgHUBgcCASAICQDDCDHAJJfBOAB0NMDAXGwlRNfA/AM4PpA+kAx+gAxcdch+gAx+gAwc6m0AALTH4IQD4p+pVIgupUxNFnwCeCCEBeNRRlSILqWMUREA/AK4DWCEFlfB7y6k1nwC+BfBIQP8vCAAET6RDBwuvLhTYAIBIAoLAIPUAQa5D2omh9AH0gfSBqGAJpj8EIC8aijKkQXUEIPe7L7wndCVj5cWLpn5j9ABgJ0CgR5CgCfQEsZ4sA54tmZPaqQB8VA9M/+gD6QCHwAe1E0PoA+kD6QNQwUTahUirHBfLiwSjC//LiwlQ0QnBUIBNUFAPIUAT6AljPFgHPFszJIsjLARL0APQAywDJIPkAcHTIywLKB8v/ydAE+kD0BDH6ACDXScIA8uLEd4AYyMsFUAjPFnD6AhfLaxPMgMAgEgDQ4AnoIQF41FGcjLHxnLP1AH+gIizxZQBs8WJfoCUAPPFslQBcwjkXKRceJQCKgToIIJycOAoBS88uLFBMmAQPsAECPIUAT6AljPFgHPFszJ7VQC9ztRND6APpA+kDUMAjTP/oAUVGgBfpA+kBTW8cFVHNtcFQgE1QUA8hQBPoCWM8WAc8WzMkiyMsBEvQA9ADLAMn5AHB0yMsCygfL/8nQUA3HBRyx8uLDCvoAUaihggiYloBmtgihggiYloCgGKEnlxBJEDg3XwTjDSXXCwGAPEADXO1E0PoA+kD6QNQwB9M/+gD6QDBRUaFSSccF8uLBJ8L/8uLCBYIJMS0AoBa88uLDghB73ZfeyMsfFcs/UAP6AiLPFgHPFslxgBjIywUkzxZw+gLLaszJgED7AEATyFAE+gJYzxYBzxbMye1UgAHBSeaAYoYIQc2LQnMjLH1Iwyz9Y+gJQB88WUAfPFslxgBDIywUkzxZQBvoCFctqFMzJcfsAECQQIwB8wwAjwgCwjiGCENUydttwgBDIywVQCM8WUAT6AhbLahLLHxLLP8ly+wCTNWwh4gPIUAT6AljPFgHPFszJ7VQ=";

fn code(b64: &str) -> Cell {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("embedded Jetton code is base64");
    Boc::decode(bytes).expect("embedded Jetton code is a BoC")
}

/// `internal_transfer#178d4519`.
const INTERNAL_TRANSFER: u32 = 0x178d_4519;
/// `transfer#0f8a7ea5`.
const TRANSFER: u32 = 0x0f8a_7ea5;
/// The reference minter's `mint` op.
const MINT: u32 = 21;

/// One Jetton: its minter and the code of its wallets.
#[derive(Debug, Clone)]
pub struct Jetton {
    pub minter: StdAddr,
    pub minter_init: StateInit,
    wallet_code: Cell,
}

impl Jetton {
    /// A minter administered by `admin`, with no supply yet and an empty
    /// on-chain content.
    pub fn new(admin: &StdAddr) -> Result<Self, tycho_types::error::Error> {
        let wallet_code = code(WALLET_CODE);
        // total_supply:Coins admin_address:MsgAddress content:^Cell jetton_wallet_code:^Cell
        let mut data = CellBuilder::new();
        Tokens::ZERO.store_into(&mut data, Cell::empty_context())?;
        admin.store_into(&mut data, Cell::empty_context())?;
        data.store_reference(Cell::empty_cell())?;
        data.store_reference(wallet_code.clone())?;
        let minter_init = StateInit {
            split_depth: None,
            special: None,
            code: Some(code(MINTER_CODE)),
            data: Some(data.build()?),
            libraries: Default::default(),
        };
        let minter = StdAddr::new(0, *CellBuilder::build_from(&minter_init)?.repr_hash());
        Ok(Self {
            minter,
            minter_init,
            wallet_code,
        })
    }

    /// The address of `owner`'s wallet: its state init with a zero balance.
    pub fn wallet_of(&self, owner: &StdAddr) -> Result<StdAddr, tycho_types::error::Error> {
        // balance:Coins owner:MsgAddress master:MsgAddress wallet_code:^Cell
        let mut data = CellBuilder::new();
        Tokens::ZERO.store_into(&mut data, Cell::empty_context())?;
        owner.store_into(&mut data, Cell::empty_context())?;
        self.minter.store_into(&mut data, Cell::empty_context())?;
        data.store_reference(self.wallet_code.clone())?;
        let init = StateInit {
            split_depth: None,
            special: None,
            code: Some(self.wallet_code.clone()),
            data: Some(data.build()?),
            libraries: Default::default(),
        };
        Ok(StdAddr::new(
            0,
            *CellBuilder::build_from(&init)?.repr_hash(),
        ))
    }

    /// The admin's `mint` of `amount` to `to`'s wallet (deployed by it),
    /// the excess to `response`.
    pub fn mint_body(
        &self,
        to: &StdAddr,
        amount: u128,
        response: &StdAddr,
    ) -> Result<Cell, tycho_types::error::Error> {
        let ctx = Cell::empty_context();
        let mut transfer = CellBuilder::new();
        transfer.store_u32(INTERNAL_TRANSFER)?;
        transfer.store_u64(0)?;
        Tokens::new(amount).store_into(&mut transfer, ctx)?;
        self.minter.store_into(&mut transfer, ctx)?;
        response.store_into(&mut transfer, ctx)?;
        Tokens::ZERO.store_into(&mut transfer, ctx)?;
        transfer.store_bit(false)?;
        let mut b = CellBuilder::new();
        b.store_u32(MINT)?;
        b.store_u64(0)?;
        to.store_into(&mut b, ctx)?;
        Tokens::new(50_000_000).store_into(&mut b, ctx)?;
        b.store_reference(transfer.build()?)?;
        b.build()
    }
}

/// A `transfer` to an owner's own Jetton wallet: `amount` units to
/// `to`'s wallet, the excess to `response`, `forward_ton` nanotons and
/// `forward` (in a reference) to `to` with the notification.
pub fn transfer_body(
    query_id: u64,
    amount: u128,
    to: &StdAddr,
    response: &StdAddr,
    forward_ton: u128,
    forward: Option<Cell>,
) -> Result<Cell, tycho_types::error::Error> {
    let ctx = Cell::empty_context();
    let mut b = CellBuilder::new();
    b.store_u32(TRANSFER)?;
    b.store_u64(query_id)?;
    Tokens::new(amount).store_into(&mut b, ctx)?;
    to.store_into(&mut b, ctx)?;
    response.store_into(&mut b, ctx)?;
    b.store_bit(false)?; // no custom payload
    Tokens::new(forward_ton).store_into(&mut b, ctx)?;
    match forward {
        Some(payload) => {
            b.store_bit(true)?;
            b.store_reference(payload)?;
        }
        None => b.store_bit(false)?,
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tycho_types::cell::HashBytes;

    /// The embedded codes are the public ones (hashes as published).
    #[test]
    fn codes_are_the_reference_ones() {
        assert_eq!(
            code(MINTER_CODE).repr_hash().to_string(),
            "13f5d7a316c6d76e1053e88ac59b5de65a072a388451371dc5c5becbba13f50e"
        );
        assert_eq!(
            code(WALLET_CODE).repr_hash().to_string(),
            "beb0683ebeb8927fe9fc8ec0a18bc7dd17899689825a121eab46c5a3a860d0ce"
        );
        let admin = StdAddr::new(0, HashBytes([7; 32]));
        let j = Jetton::new(&admin).unwrap();
        assert_ne!(j.wallet_of(&admin).unwrap(), j.minter);
    }
}
