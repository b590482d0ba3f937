//! v2 `getTokenData` (spec v2 §4.2): what a Jetton master or wallet, or an
//! NFT collection or item says of itself, from its get-methods run on the
//! state the node holds, checked as the C++ server checks it (a wallet
//! against its master, an item against its collection).

use serde_json::{json, Map, Value as Json};
use tonindex_model::Address;
use tycho_types::cell::Cell;
use tycho_types::models::StdAddr;
use tycho_vm::RcStackValue;

use super::accounts::{locate, locate_at, Located};
use super::{to_json, V2Error, V2Result};
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

fn model(a: &StdAddr) -> Address {
    Address {
        workchain: a.workchain as i32,
        id: *a.address.as_array(),
    }
}

fn friendly(a: &StdAddr) -> String {
    friendly_bounceable(&model(a))
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

fn put_address(out: &mut Map<String, Json>, key: &str, a: &Option<StdAddr>) {
    if let Some(a) = a {
        out.insert(key.into(), json!(friendly(a)));
    }
}

/// The same masterchain block as `l`'s (the newest when `l` is).
fn locate_beside(ctx: &Ctx<'_>, l: &Located, address: &StdAddr) -> Result<Located, V2Error> {
    locate_at(ctx, model(address), l.at.map(|a| a.mc_seqno))
}

pub fn get_token_data(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let given = p.get("address").unwrap_or_default().to_string();
    let l = locate(ctx, p)?;
    let me = l.account.address;
    let mut out = Map::new();

    if let Some(m) = jetton::master_data(&run(ctx, &l, "get_jetton_data", vec![])?) {
        out.insert("@type".into(), json!("ext.tokens.jettonMasterData"));
        out.insert("address".into(), json!(given));
        out.insert("contract_type".into(), json!("jetton_master"));
        out.insert("total_supply".into(), json!(m.total_supply.to_string()));
        out.insert("mintable".into(), json!(m.mintable));
        put_address(&mut out, "admin_address", &m.admin);
        out.insert("jetton_content".into(), content_json(&m.content));
        out.insert("jetton_wallet_code".into(), json!(boc(&m.wallet_code)));
        return to_json(&Json::Object(out));
    }
    if let Some(w) = jetton::wallet_data(&run(ctx, &l, "get_wallet_data", vec![])?) {
        let master = locate_beside(ctx, &l, &w.jetton)?;
        let arg = jetton::owner_arg(&w.owner)
            .ok_or_else(|| V2Error::new(409, "Verification with Jetton master failed"))?;
        let derived = jetton::address_result(&run(ctx, &master, "get_wallet_address", vec![arg])?);
        if derived.as_ref().map(model) != Some(me) {
            return Err(V2Error::new(409, "Verification with Jetton master failed"));
        }
        out.insert("@type".into(), json!("ext.tokens.jettonWalletData"));
        out.insert("address".into(), json!(given));
        out.insert("contract_type".into(), json!("jetton_wallet"));
        out.insert("balance".into(), json!(w.balance.to_string()));
        out.insert("owner".into(), json!(friendly(&w.owner)));
        out.insert("jetton".into(), json!(friendly(&w.jetton)));
        out.insert("jetton_wallet_code".into(), json!(boc(&w.wallet_code)));
        return to_json(&Json::Object(out));
    }
    if let Some(c) = nft::collection_data(&run(ctx, &l, "get_collection_data", vec![])?) {
        out.insert("@type".into(), json!("ext.tokens.nftCollectionData"));
        out.insert("address".into(), json!(given));
        out.insert("contract_type".into(), json!("nft_collection"));
        out.insert(
            "next_item_index".into(),
            json!(c.next_item_index.to_string()),
        );
        put_address(&mut out, "owner_address", &c.owner);
        out.insert("collection_content".into(), content_json(&c.content));
        return to_json(&Json::Object(out));
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
                if derived.as_ref().map(model) != Some(me) {
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
        out.insert("@type".into(), json!("ext.tokens.nftItemData"));
        out.insert("address".into(), json!(given));
        out.insert("contract_type".into(), json!("nft_item"));
        out.insert("init".into(), json!(item.init));
        out.insert("index".into(), json!(item.index.to_string()));
        put_address(&mut out, "collection_address", &item.collection);
        put_address(&mut out, "owner_address", &item.owner);
        out.insert("content".into(), content);
        return to_json(&Json::Object(out));
    }
    Err(V2Error::new(
        409,
        format!("Smart contract {given} is not Jetton or NFT"),
    ))
}
