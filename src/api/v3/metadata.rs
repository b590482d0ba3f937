//! The `metadata` wrapper of v3 list responses (spec v3 §1.8): what the
//! index knows about the token contracts among a response's addresses.
//!
//! On-chain content is the index's own. Content behind a `uri` is shown
//! when the off-chain fetcher has it (`[serve.offchain_metadata]`), merged
//! with the on-chain keys (which win, as TEP-64 has it for semi-chain
//! content); until then — and always where fetching is off — the token is
//! shown as not indexed (`is_indexed: false`, its type only), never with
//! made-up fields.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};
use tonindex_model::Address;

use super::address_book::AddressesRequest;
use super::{BookMetadataArgs, V3Error};
use crate::api::encoding::raw_upper;
use crate::api::params::Params;
use crate::api::Ctx;
use crate::offchain::{Lookup, Offchain};
use crate::query;

/// Keyed by raw address.
pub type Metadata = BTreeMap<String, Json>;

/// How [`Metadata`] appears in the documents.
pub struct MetadataDoc;

impl utoipa::PartialSchema for MetadataDoc {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Object)
            .description(Some(
                "Token metadata by raw address: `is_indexed` and `token_info` (name, symbol, \
                 description, image, extra) of Jetton masters and wallets, NFT collections and items",
            ))
            .into()
    }
}
impl utoipa::ToSchema for MetadataDoc {}

/// TokenInfo fields with columns of their own; other content keys go to `extra`.
const COLUMNS: &[&str] = &["name", "symbol", "description", "image"];

/// The document behind a token's content, if it has a `uri`: `None` when
/// the content is on-chain only.
pub fn offchain_document(
    offchain: Option<&Offchain>,
    content: &[(String, String)],
) -> Option<Lookup> {
    let (_, uri) = content.iter().find(|(k, _)| k == "uri")?;
    Some(match offchain {
        Some(o) => o.lookup(uri),
        None => Lookup::Pending,
    })
}

/// The entry of a token with content `content` (`None`: unreadable).
fn from_content(
    offchain: Option<&Offchain>,
    kind: &str,
    content: Option<&[(String, String)]>,
) -> Json {
    let invalid = || json!({"is_indexed": true, "token_info": [{"valid": false, "type": kind}]});
    let Some(content) = content else {
        return invalid();
    };
    let mut fields = Map::new();
    match offchain_document(offchain, content) {
        None => {}
        Some(Lookup::Pending) => {
            return json!({"is_indexed": false, "token_info": [{"type": kind}]})
        }
        Some(Lookup::Invalid) => return invalid(),
        Some(Lookup::Ready(doc)) => match doc.as_object() {
            Some(doc) => fields.extend(doc.iter().map(|(k, v)| (k.clone(), v.clone()))),
            None => return invalid(),
        },
    }
    // On-chain keys over the document's.
    for (k, v) in content {
        fields.insert(k.clone(), json!(v));
    }
    let mut info = Map::new();
    info.insert("valid".into(), json!(true));
    info.insert("type".into(), json!(kind));
    let mut extra = Map::new();
    for (k, v) in fields {
        match v {
            Json::String(_) if COLUMNS.contains(&k.as_str()) => {
                info.insert(k, v);
            }
            Json::Null if COLUMNS.contains(&k.as_str()) => {}
            _ => {
                extra.insert(k, v);
            }
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
    shape: &BookMetadataArgs,
    addresses: impl IntoIterator<Item = Address>,
) -> Result<Metadata, V3Error> {
    if shape.x_no_metadata.unwrap_or(false) {
        return Ok(Metadata::new());
    }
    of_addresses(ctx, addresses)
}

/// The metadata of the token contracts among `addresses` (and the masters
/// of the Jetton wallets among them). Each kind of token is read for all
/// the addresses not found yet in one batch: a page names a hundred
/// addresses, nearly none of them tokens, and four point reads each were
/// a fifth of an actions page.
fn of_addresses(
    ctx: &Ctx<'_>,
    addresses: impl IntoIterator<Item = Address>,
) -> Result<Metadata, V3Error> {
    let r = &ctx.reader;
    let content = |kind: &'static str| {
        move |c: Option<&[(String, String)]>| from_content(ctx.offchain, kind, c)
    };
    let (masters, collections, items) = (
        content("jetton_masters"),
        content("nft_collections"),
        content("nft_items"),
    );
    let mut out = Metadata::new();
    let mut seen = std::collections::HashSet::new();
    let left: Vec<Address> = addresses.into_iter().filter(|a| seen.insert(*a)).collect();
    let found = query::jettons::masters_of(r, &left)?;
    let left = take_found(&mut out, &left, found, |m| masters(m.content.as_deref()));
    let found = query::nfts::collections_of(r, &left)?;
    let left = take_found(&mut out, &left, found, |c| {
        collections(c.content.as_deref())
    });
    let found = query::nfts::items_of(r, &left)?;
    let left = take_found(&mut out, &left, found, |i| {
        let mut entry = items(i.content.as_deref());
        let index = num_bigint::BigUint::from_bytes_be(&i.index).to_string();
        if let Some(info) = entry["token_info"][0].as_object_mut() {
            info.insert("nft_index".into(), json!(index));
        }
        entry
    });
    let found = query::jettons::wallets_of(r, &left)?;
    let mut their_masters = Vec::new();
    take_found(&mut out, &left, found, |w| {
        if seen.insert(w.jetton) {
            their_masters.push(w.jetton);
        }
        json!({"is_indexed": true, "token_info": [{
            "valid": true,
            "type": "jetton_wallets",
            "extra": {
                "owner": raw_upper(&w.owner),
                "jetton": raw_upper(&w.jetton),
                "balance": w.balance.to_string(),
            },
        }]})
    });
    let found = query::jettons::masters_of(r, &their_masters)?;
    take_found(&mut out, &their_masters, found, |m| {
        masters(m.content.as_deref())
    });
    Ok(out)
}

/// Files the entry (`entry`) of each of `asked` that a batch found (`found`,
/// in the same order) and returns those it did not.
fn take_found<R>(
    out: &mut Metadata,
    asked: &[Address],
    found: Vec<Option<R>>,
    mut entry: impl FnMut(R) -> Json,
) -> Vec<Address> {
    let mut rest = Vec::new();
    for (a, row) in asked.iter().zip(found) {
        match row {
            Some(row) => {
                out.insert(raw_upper(a), entry(row));
            }
            None => rest.push(*a),
        }
    }
    rest
}

/// `GET /metadata?address=…` (spec v3 §3.2): the metadata object itself,
/// keyed by raw address; addresses that are not token contracts (or not
/// addresses at all) are absent.
/// `/metadata`'s answer: the metadata object itself.
#[derive(serde::Serialize)]
#[serde(transparent)]
pub struct MetadataResponse(Metadata);

impl utoipa::PartialSchema for MetadataResponse {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        MetadataDoc::schema()
    }
}
impl utoipa::ToSchema for MetadataResponse {}

pub fn metadata(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AddressesRequest,
) -> Result<MetadataResponse, V3Error> {
    if q.address.is_empty() {
        return Err(V3Error::invalid("at least 1 address required"));
    }
    let addresses = q
        .address
        .iter()
        .filter_map(|s| crate::api::encoding::parse_address(s))
        .map(|parsed| parsed.address);
    Ok(MetadataResponse(of_addresses(ctx, addresses)?))
}
