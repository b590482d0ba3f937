//! A standard NFT collection on the devnet (ton-blockchain/token-contract's
//! editable collection and item, compiled as the MIT-licensed
//! @ton-community/assets-sdk 0.0.5 ships them — the codes the devnet NFT
//! tests deploy): the collection's state init, its items' addresses, and
//! the bodies of an item's deploy and transfer, for `bench-dev --profile
//! mainnet`'s NFT traffic.

use base64::Engine as _;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, Store};
use tycho_types::models::{StateInit, StdAddr};
use tycho_types::num::Tokens;

/// The collection's code.
const COLLECTION_CODE: &str = "te6ccgECFAEAAh8AART/APSkE/S88sgLAQIBYgIDAgLNBAUCASAODwTn0QY4BIrfAA6GmBgLjYSK3wfSAYAOmP6Z/2omh9IGmf6mpqGEEINJ6cqClAXUcUG6+CgOhBCFRlgFa4QAhkZYKoAueLEn0BCmW1CeWP5Z+A54tkwCB9gHAbKLnjgvlwyJLgAPGBEuABcYES4AHxgRgZgeACQGBwgJAgEgCgsAYDUC0z9TE7vy4ZJTE7oB+gDUMCgQNFnwBo4SAaRDQ8hQBc8WE8s/zMzMye1Ukl8F4gCmNXAD1DCON4BA9JZvpSCOKQakIIEA+r6T8sGP3oEBkyGgUyW78vQC+gDUMCJUSzDwBiO6kwKkAt4Ekmwh4rPmMDJQREMTyFAFzxYTyz/MzMzJ7VQALDI0AfpAMEFEyFAFzxYTyz/MzMzJ7VQAPI4V1NQwEDRBMMhQBc8WE8s/zMzMye1U4F8EhA/y8AIBIAwNAD1FrwBHAh8AV3gBjIywVYzxZQBPoCE8trEszMyXH7AIAC0AcjLP/gozxbJcCDIywET9AD0AMsAyYAAbPkAdMjLAhLKB8v/ydCACASAQEQAlvILfaiaH0gaZ/qamoYLehqGCxABDuLXTHtRND6QNM/1NTUMBAkXwTQ1DHUMNBxyMsHAc8WzMmAIBIBITAC+12v2omh9IGmf6mpqGDYg6GmH6Yf9IBhAALbT0faiaH0gaZ/qamoYCi+CeAI4APgCw";
/// The item's code.
const ITEM_CODE: &str = "te6ccgECDgEAAdwAART/APSkE/S88sgLAQIBYgIDAgLOBAUACaEfn+AFAgEgBgcCASAMDQLPDIhxwCSXwPg0NMDAXGwkl8D4PpA+kAx+gAxcdch+gAx+gAwc6m0APACBLOOFDBsIjRSMscF8uGVAfpA1DAQI/AD4AbTH9M/ghBfzD0UUjC64wIwNDQ1NYIQL8smohK64wJfBIQP8vCAICQARPpEMHC68uFNgAqwyEDdeMkATUTXHBfLhkfpAIfAB+kDSADH6ACDXScIA8uLEggr68IAboSGUUxWgod4i1wsBwwAgkgahkTbiIML/8uGSIZQQKjdb4w0CkzAyNOMNVQLwAwoLAHJwghCLdxc1BcjL/1AEzxYQJIBAcIAQyMsFUAfPFlAF+gIVy2oSyx/LPyJus5RYzxcBkTLiAckB+wAAfIIQBRONkchQCc8WUAvPFnEkSRRURqBwgBDIywVQB88WUAX6AhXLahLLH8s/Im6zlFjPFwGRMuIByQH7ABBHAGom8AGCENUydtsQN0QAbXFwgBDIywVQB88WUAX6AhXLahLLH8s/Im6zlFjPFwGRMuIByQH7AAA7O1E0NM/+kAg10nCAJp/AfpA1DAQJBAj4DBwWW1tgAB0A8jLP1jPFgHPFszJ7VSA=";

fn code(b64: &str) -> Cell {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("embedded NFT code is base64");
    Boc::decode(bytes).expect("embedded NFT code is a BoC")
}

/// `transfer#5fcc3d14`.
const TRANSFER: u32 = 0x5fcc_3d14;
/// The collection's `deploy_new_nft` op.
const DEPLOY_ITEM: u32 = 1;

/// A snake-less string cell (`storeStringTail` of a short string).
fn text(s: &str) -> Result<Cell, tycho_types::error::Error> {
    let mut b = CellBuilder::new();
    b.store_raw(s.as_bytes(), (s.len() * 8) as u16)?;
    b.build()
}

/// One collection: its address and state init, and its items' code.
#[derive(Debug, Clone)]
pub struct Collection {
    pub address: StdAddr,
    pub init: StateInit,
    item_code: Cell,
}

impl Collection {
    /// A collection owned by `owner` (royalty 0/1 to it), off-chain
    /// content at `uri`, items' content under `item_prefix`, no item yet.
    pub fn new(
        owner: &StdAddr,
        uri: &str,
        item_prefix: &str,
    ) -> Result<Self, tycho_types::error::Error> {
        let ctx = Cell::empty_context();
        let item_code = code(ITEM_CODE);
        let mut offchain = CellBuilder::new();
        offchain.store_u8(1)?;
        offchain.store_raw(uri.as_bytes(), (uri.len() * 8) as u16)?;
        let mut content = CellBuilder::new();
        content.store_reference(offchain.build()?)?;
        content.store_reference(text(item_prefix)?)?;
        let mut royalty = CellBuilder::new();
        royalty.store_u16(0)?;
        royalty.store_u16(1)?;
        owner.store_into(&mut royalty, ctx)?;
        // owner next_item_index:u64 ^content ^item_code ^royalty
        let mut data = CellBuilder::new();
        owner.store_into(&mut data, ctx)?;
        data.store_u64(0)?;
        data.store_reference(content.build()?)?;
        data.store_reference(item_code.clone())?;
        data.store_reference(royalty.build()?)?;
        let init = StateInit {
            code: Some(code(COLLECTION_CODE)),
            data: Some(data.build()?),
            ..Default::default()
        };
        let address = StdAddr::new(0, *CellBuilder::build_from(&init)?.repr_hash());
        Ok(Self {
            address,
            init,
            item_code,
        })
    }

    /// Item `index`'s address: its state init (the index and the collection).
    pub fn item(&self, index: u64) -> Result<StdAddr, tycho_types::error::Error> {
        let mut data = CellBuilder::new();
        data.store_u64(index)?;
        self.address.store_into(&mut data, Cell::empty_context())?;
        let init = StateInit {
            code: Some(self.item_code.clone()),
            data: Some(data.build()?),
            ..Default::default()
        };
        Ok(StdAddr::new(
            0,
            *CellBuilder::build_from(&init)?.repr_hash(),
        ))
    }

    /// The owner's deploy of item `index` to `owner`, content `<index>.json`.
    pub fn deploy_item(
        &self,
        index: u64,
        owner: &StdAddr,
    ) -> Result<Cell, tycho_types::error::Error> {
        let ctx = Cell::empty_context();
        let mut item = CellBuilder::new();
        owner.store_into(&mut item, ctx)?;
        item.store_reference(text(&format!("{index}.json"))?)?;
        let mut b = CellBuilder::new();
        b.store_u32(DEPLOY_ITEM)?;
        b.store_u64(0)?;
        b.store_u64(index)?;
        Tokens::new(50_000_000).store_into(&mut b, ctx)?;
        b.store_reference(item.build()?)?;
        b.build()
    }
}

/// An item owner's `transfer` to `new_owner`, the excess to `response`,
/// nothing forwarded.
pub fn transfer_body(
    query_id: u64,
    new_owner: &StdAddr,
    response: &StdAddr,
) -> Result<Cell, tycho_types::error::Error> {
    let ctx = Cell::empty_context();
    let mut b = CellBuilder::new();
    b.store_u32(TRANSFER)?;
    b.store_u64(query_id)?;
    new_owner.store_into(&mut b, ctx)?;
    response.store_into(&mut b, ctx)?;
    b.store_bit(false)?; // no custom payload
    Tokens::ZERO.store_into(&mut b, ctx)?;
    b.store_bit(false)?; // an empty forward payload in place
    b.build()
}
