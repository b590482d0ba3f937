//! The `metadata` wrapper of v3 list responses (spec v3 §1.8): what the
//! index knows about the token contracts among a response's addresses.
//!
//! Only on-chain content is known: tonindex does not fetch off-chain
//! `uri` content, so a token whose content points elsewhere is shown as
//! not indexed (`is_indexed: false`, its type only), never with made-up
//! fields.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};
use tonindex_model::Address;

use super::V3Error;
use crate::api::encoding::raw_upper;
use crate::api::params::Params;
use crate::api::Ctx;
use crate::query;

/// Keyed by raw address.
pub type Metadata = BTreeMap<String, Json>;

/// TokenInfo fields with columns of their own; other content keys go to `extra`.
const COLUMNS: &[&str] = &["name", "symbol", "description", "image"];

/// The entry of a token with content `content` (`None`: unreadable).
fn from_content(kind: &str, content: Option<&[(String, String)]>) -> Json {
    let Some(content) = content else {
        return json!({"is_indexed": true, "token_info": [{"valid": false, "type": kind}]});
    };
    if content.iter().any(|(k, _)| k == "uri") {
        return json!({"is_indexed": false, "token_info": [{"type": kind}]});
    }
    let mut info = Map::new();
    info.insert("valid".into(), json!(true));
    info.insert("type".into(), json!(kind));
    let mut extra = Map::new();
    for (k, v) in content {
        if COLUMNS.contains(&k.as_str()) {
            info.insert(k.clone(), json!(v));
        } else {
            extra.insert(k.clone(), json!(v));
        }
    }
    if !extra.is_empty() {
        info.insert("extra".into(), Json::Object(extra));
    }
    json!({"is_indexed": true, "token_info": [Json::Object(info)]})
}

/// The metadata of `addresses` that are token contracts; empty when the
/// client asked for none (`X-No-Metadata`).
pub fn build(
    ctx: &Ctx<'_>,
    p: &Params,
    addresses: impl IntoIterator<Item = Address>,
) -> Result<Metadata, V3Error> {
    if p.bool("x_no_metadata")?.unwrap_or(false) {
        return Ok(Metadata::new());
    }
    of_addresses(ctx, addresses)
}

/// The metadata of the token contracts among `addresses` (and the masters
/// of the Jetton wallets among them).
fn of_addresses(
    ctx: &Ctx<'_>,
    addresses: impl IntoIterator<Item = Address>,
) -> Result<Metadata, V3Error> {
    let mut out = Metadata::new();
    let mut masters = Vec::new();
    for a in addresses {
        let key = raw_upper(&a);
        if out.contains_key(&key) {
            continue;
        }
        if let Some(m) = query::jettons::master(&ctx.reader, &a)? {
            out.insert(key, from_content("jetton_masters", m.content.as_deref()));
        } else if let Some(c) = query::nfts::collection(&ctx.reader, &a)? {
            out.insert(key, from_content("nft_collections", c.content.as_deref()));
        } else if let Some(i) = query::nfts::item(&ctx.reader, &a)? {
            let mut entry = from_content("nft_items", i.content.as_deref());
            let index = num_bigint::BigUint::from_bytes_be(&i.index).to_string();
            if let Some(info) = entry["token_info"][0].as_object_mut() {
                info.insert("nft_index".into(), json!(index));
            }
            out.insert(key, entry);
        } else if let Some(w) = query::jettons::wallet(&ctx.reader, &a)? {
            out.insert(
                key,
                json!({"is_indexed": true, "token_info": [{
                    "valid": true,
                    "type": "jetton_wallets",
                    "extra": {
                        "owner": raw_upper(&w.owner),
                        "jetton": raw_upper(&w.jetton),
                        "balance": w.balance.to_string(),
                    },
                }]}),
            );
            masters.push(w.jetton);
        }
    }
    for a in masters {
        let key = raw_upper(&a);
        if out.contains_key(&key) {
            continue;
        }
        if let Some(m) = query::jettons::master(&ctx.reader, &a)? {
            out.insert(key, from_content("jetton_masters", m.content.as_deref()));
        }
    }
    Ok(out)
}

/// `GET /metadata?address=…` (spec v3 §3.2): the metadata object itself,
/// keyed by raw address; addresses that are not token contracts (or not
/// addresses at all) are absent.
pub fn metadata(ctx: &Ctx<'_>, p: &Params) -> super::V3Result {
    let sent = p.all("address");
    if sent.is_empty() {
        return Err(V3Error::invalid("at least 1 address required"));
    }
    let addresses = sent
        .iter()
        .filter_map(|s| crate::api::encoding::parse_address(s))
        .map(|parsed| parsed.address);
    super::to_json(&of_addresses(ctx, addresses)?)
}
