//! v2 `getTokenData` (spec v2 §4.2): what a Jetton master or wallet, or an
//! NFT collection or item says of itself, from its get-methods run on the
//! state the node holds, checked as the C++ server checks it (a wallet
//! against its master, an item against its collection).

use crate::contracts::address::from_std;
use serde::Serialize;
use serde_json::{json, Value as Json};
use tycho_types::cell::Cell;
use tycho_types::models::StdAddr;
use tycho_vm::RcStackValue;

use super::accounts::{locate, locate_at, Located};
use super::{AccountAtArgs, V2Error};
use crate::api::encoding::{b64, friendly_bounceable};
use crate::api::getmethod;
use crate::api::params::Params;
use crate::api::Ctx;
use crate::contracts::content::{self, Tep64};
use crate::contracts::{jetton, nft};
use crate::tvm::getmethod::{Method, RunOutput};

fn run(
    ctx: &Ctx<'_>,
    l: &Located,
    method: &str,
    stack: Vec<RcStackValue>,
) -> Result<RunOutput, V2Error> {
    Ok(getmethod::run(
        ctx,
        &l.account,
        l.at,
        &Method::Name(method.into()),
        stack,
    )?)
}

fn friendly(a: &StdAddr) -> String {
    friendly_bounceable(&from_std(a))
}

fn boc(c: &Cell) -> String {
    b64(&crate::boc::encode_crc(c.as_ref()))
}

/// TEP-64 content as the C++ server shows it.
fn content_json(c: &Cell) -> Json {
    match content::parse_layout(c) {
        Some(Tep64::Offchain(uri)) => json!({"type": "offchain", "data": uri}),
        Some(Tep64::Onchain(map)) => json!({"type": "onchain", "data": map}),
        None => Json::Null,
    }
}

/// An address in the C++ server's friendly form, when there is one.
fn shown(a: &Option<StdAddr>) -> Option<String> {
    a.as_ref().map(friendly)
}

/// What `getTokenData` says a contract is.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum TokenData {
    JettonMaster(JettonMasterData),
    JettonWallet(JettonWalletData),
    NftCollection(NftCollectionData),
    NftItem(NftItemData),
}

/// TEP-64 content: `{"type": "offchain"|"onchain", "data"}`, or null.
type Content = Json;

/// `ext.tokens.jettonMasterData`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonMasterData {
    #[serde(rename = "@type")]
    ty: &'static str,
    /// The address as given
    address: String,
    contract_type: &'static str,
    total_supply: String,
    mintable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    admin_address: Option<String>,
    jetton_content: Content,
    jetton_wallet_code: String,
}

/// `ext.tokens.jettonWalletData`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonWalletData {
    #[serde(rename = "@type")]
    ty: &'static str,
    /// The address as given
    address: String,
    contract_type: &'static str,
    balance: String,
    owner: String,
    jetton: String,
    jetton_wallet_code: String,
}

/// `ext.tokens.nftCollectionData`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct NftCollectionData {
    #[serde(rename = "@type")]
    ty: &'static str,
    /// The address as given
    address: String,
    contract_type: &'static str,
    next_item_index: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner_address: Option<String>,
    collection_content: Content,
}

/// `ext.tokens.nftItemData`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct NftItemData {
    #[serde(rename = "@type")]
    ty: &'static str,
    /// The address as given
    address: String,
    contract_type: &'static str,
    init: bool,
    index: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    collection_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner_address: Option<String>,
    content: Content,
}

/// The same masterchain block as `l`'s (the newest when `l` is).
fn locate_beside(ctx: &Ctx<'_>, l: &Located, address: &StdAddr) -> Result<Located, V2Error> {
    locate_at(ctx, from_std(address), l.at.map(|a| a.mc_seqno))
}

/// The address as the request gave it (`address` is declared by the
/// request's `AccountAtArgs`).
fn given_address(p: &Params) -> String {
    p.get("address").unwrap_or_default().to_string()
}

pub fn get_token_data(ctx: &Ctx<'_>, p: &Params, q: AccountAtArgs) -> Result<TokenData, V2Error> {
    let given = given_address(p);
    let l = locate(ctx, &q)?;
    let me = l.account.address;

    if let Some(m) = jetton::master_data(&run(ctx, &l, "get_jetton_data", vec![])?) {
        return Ok(TokenData::JettonMaster(JettonMasterData {
            ty: "ext.tokens.jettonMasterData",
            address: given,
            contract_type: "jetton_master",
            total_supply: m.total_supply.to_string(),
            mintable: m.mintable,
            admin_address: shown(&m.admin),
            jetton_content: content_json(&m.content),
            jetton_wallet_code: boc(&m.wallet_code),
        }));
    }
    if let Some(w) = jetton::wallet_data(&run(ctx, &l, "get_wallet_data", vec![])?) {
        let master = locate_beside(ctx, &l, &w.jetton)?;
        let arg = jetton::owner_arg(&w.owner)
            .ok_or_else(|| V2Error::new(409, "Verification with Jetton master failed"))?;
        let derived = jetton::address_result(&run(ctx, &master, "get_wallet_address", vec![arg])?);
        if derived.as_ref().map(from_std) != Some(me) {
            return Err(V2Error::new(409, "Verification with Jetton master failed"));
        }
        return Ok(TokenData::JettonWallet(JettonWalletData {
            ty: "ext.tokens.jettonWalletData",
            address: given,
            contract_type: "jetton_wallet",
            balance: w.balance.to_string(),
            owner: friendly(&w.owner),
            jetton: friendly(&w.jetton),
            jetton_wallet_code: boc(&w.wallet_code),
        }));
    }
    if let Some(c) = nft::collection_data(&run(ctx, &l, "get_collection_data", vec![])?) {
        return Ok(TokenData::NftCollection(NftCollectionData {
            ty: "ext.tokens.nftCollectionData",
            address: given,
            contract_type: "nft_collection",
            next_item_index: c.next_item_index.to_string(),
            owner_address: shown(&c.owner),
            collection_content: content_json(&c.content),
        }));
    }
    if let Some(item) = nft::item_data(&run(ctx, &l, "get_nft_data", vec![])?) {
        let content = match &item.collection {
            Some(coll) => {
                let collection = locate_beside(ctx, &l, coll)?;
                let derived = jetton::address_result(&run(
                    ctx,
                    &collection,
                    "get_nft_address_by_index",
                    vec![nft::index_arg(&item.index)],
                )?);
                if derived.as_ref().map(from_std) != Some(me) {
                    return Err(V2Error::new(409, "Verification with NFT collection failed"));
                }
                let full = nft::content_result(&run(
                    ctx,
                    &collection,
                    "get_nft_content",
                    nft::content_args(&item),
                )?);
                full.as_ref().map_or(Json::Null, content_json)
            }
            None => content_json(&item.individual_content),
        };
        return Ok(TokenData::NftItem(NftItemData {
            ty: "ext.tokens.nftItemData",
            address: given,
            contract_type: "nft_item",
            init: item.init,
            index: item.index.to_string(),
            collection_address: shown(&item.collection),
            owner_address: shown(&item.owner),
            content,
        }));
    }
    Err(V2Error::new(
        409,
        format!("Smart contract {given} is not Jetton or NFT"),
    ))
}
