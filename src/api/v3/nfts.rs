//! v3 NFT endpoints (spec v3 §3.7): collections, items and transfers from
//! the index's token tables.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use serde::Serialize;
use tonindex_model::Address;
use tonindex_storage::tables::NftRole;
use tonindex_storage::{NftCollectionRecord, NftItemRecord, SaleDetail, SaleKind};

use super::address_book::{self, AddressBook};
use super::jettons::{addresses, event_filter, BothWords, WindowArgs};
use super::metadata::{self, Metadata};
use super::models::decoded_payload;
use super::{BookMetadataArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, raw_upper, Dec, ParsedAddress, B64};
use crate::api::params::Params;
use crate::api::request::{request, Word};
use crate::api::Ctx;
use crate::query::nfts::{self, CollectionFilter, ItemFilter};
use serde_json::Value as Json;

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct NftCollection {
    address: String,
    owner_address: Option<String>,
    last_transaction_lt: Dec<u64>,
    next_item_index: String,
    collection_content: Option<BTreeMap<String, String>>,
    data_hash: B64,
    code_hash: B64,
}

fn collection_json(a: &Address, c: NftCollectionRecord) -> NftCollection {
    NftCollection {
        address: raw_upper(a),
        owner_address: c.owner.as_ref().map(raw_upper),
        last_transaction_lt: Dec(c.last_tx_lt),
        next_item_index: c.next_item_index,
        collection_content: c.content.map(|c| c.into_iter().collect()),
        data_hash: B64(c.data_hash),
        code_hash: B64(c.code_hash),
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct CollectionsResponse {
    nft_collections: Vec<NftCollection>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

request! {
    /// `/nft/collections`' filters.
    pub struct NftCollectionsRequest {
        /// Collections
        collection_address: Vec<ParsedAddress>,
        /// Their owners
        owner_address: Vec<ParsedAddress>,
    }
    with { paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /nft/collections`.
pub fn nft_collections(
    ctx: &Ctx<'_>,
    _: &Params,
    q: NftCollectionsRequest,
) -> Result<CollectionsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let f = CollectionFilter {
        addresses: addresses(&q.collection_address),
        owners: addresses(&q.owner_address),
    };
    let rows = nfts::collections(&ctx.reader, &f, paging.offset, paging.limit)?;
    let mentioned: Vec<Address> = rows
        .iter()
        .flat_map(|(a, c)| std::iter::once(*a).chain(c.owner))
        .collect();
    Ok(CollectionsResponse {
        nft_collections: rows
            .into_iter()
            .map(|(a, c)| collection_json(&a, c))
            .collect(),
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct NftItem {
    address: String,
    init: bool,
    index: String,
    collection_address: Option<String>,
    owner_address: Option<String>,
    content: Option<BTreeMap<String, String>>,
    last_transaction_lt: Dec<u64>,
    code_hash: B64,
    data_hash: B64,
    collection: Option<NftCollection>,
    /// Whether the item's owner is a GetGems sale or auction selling it.
    on_sale: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    sale_contract_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    auction_contract_address: Option<String>,
    /// The seller, while the item is on sale.
    #[serde(skip_serializing_if = "Option::is_none")]
    real_owner: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ItemsResponse {
    nft_items: Vec<NftItem>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

/// An index parameter: digits only.
fn index_key(v: &str) -> Option<[u8; 32]> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: BigUint = v.parse().ok()?;
    let bytes = n.to_bytes_be();
    if bytes.len() > 32 {
        return None;
    }
    let mut out = [0u8; 32];
    out[32 - bytes.len()..].copy_from_slice(&bytes);
    Some(out)
}

request! {
    /// `/nft/items`' filters.
    pub struct NftItemsRequest {
        /// Items
        address: Vec<ParsedAddress>,
        /// Their owners
        owner_address: Vec<ParsedAddress>,
        /// Their collections
        collection_address: Vec<ParsedAddress>,
        /// Item indexes (decimal; with collection_address)
        index: Vec<String>,
        /// Owners include items they sell through a sale contract
        include_on_sale: Option<bool>,
        /// Order by the items' last transaction
        sort_by_last_transaction_lt: Option<bool>,
    }
    with { paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /nft/items`.
pub fn nft_items(ctx: &Ctx<'_>, _: &Params, q: NftItemsRequest) -> Result<ItemsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let indexes = q
        .index
        .iter()
        .map(|v| index_key(v).ok_or_else(|| V3Error::invalid("index should contain digits only")))
        .collect::<Result<Vec<_>, _>>()?;
    let f = ItemFilter {
        addresses: addresses(&q.address),
        owners: addresses(&q.owner_address),
        real_owner: q.include_on_sale.unwrap_or(false),
        collections: addresses(&q.collection_address),
        indexes,
        by_last_tx_lt: q.sort_by_last_transaction_lt.unwrap_or(false),
    };
    if !f.indexes.is_empty() && f.collections.is_empty() {
        return Err(V3Error::invalid(
            "index parameter is not allowed without the collection_address",
        ));
    }
    if f.collections.len() > 1 && f.owners.len() != 1 {
        return Err(V3Error::invalid(
            "exact one owner_address required for multiple collection_address",
        ));
    }
    let rows = nfts::items(&ctx.reader, &f, paging.offset, paging.limit)?;
    let mut mentioned = Vec::new();
    let mut nft_items = Vec::with_capacity(rows.len());
    for (a, i) in rows {
        mentioned.push(a);
        mentioned.extend(i.owner);
        mentioned.extend(i.collection);
        if let Some((_, sale)) = nfts::sale_of(&ctx.reader, &a, &i)? {
            mentioned.extend(sale.owner);
        }
        nft_items.push(item_json(ctx, &a, i)?);
    }
    Ok(ItemsResponse {
        nft_items,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}

/// An item as v3 shows it: with its collection, and with its sale while
/// its owner is a GetGems sale or auction contract selling it.
fn item_json(ctx: &Ctx<'_>, a: &Address, i: NftItemRecord) -> Result<NftItem, V3Error> {
    let collection = match i.collection {
        Some(c) => nfts::collection(&ctx.reader, &c)?.map(|rec| collection_json(&c, rec)),
        None => None,
    };
    let sale = nfts::sale_of(&ctx.reader, a, &i)?;
    let (sale_contract, auction_contract) = match &sale {
        Some((s, rec)) if rec.kind != SaleKind::FixedPrice => (None, Some(raw_upper(s))),
        Some((s, _)) => (Some(raw_upper(s)), None),
        None => (None, None),
    };
    Ok(NftItem {
        address: raw_upper(a),
        init: i.init,
        index: BigUint::from_bytes_be(&i.index).to_string(),
        collection_address: i.collection.as_ref().map(raw_upper),
        owner_address: i.owner.as_ref().map(raw_upper),
        content: i.content.map(|c| c.into_iter().collect()),
        last_transaction_lt: Dec(i.last_tx_lt),
        code_hash: B64(i.code_hash),
        data_hash: B64(i.data_hash),
        collection,
        on_sale: sale.is_some(),
        sale_contract_address: sale_contract,
        auction_contract_address: auction_contract,
        real_owner: sale.and_then(|(_, s)| s.owner).as_ref().map(raw_upper),
    })
}

request! {
    /// Sale and auction contracts.
    pub struct NftSalesRequest {
        /// Sale or auction contracts (up to 1000)
        [required] address: Vec<ParsedAddress>,
    }
    with { shape: BookMetadataArgs }
}

/// `GET /nft/sales`: GetGems sale and auction contracts by address, as
/// they describe themselves, with the item they sell.
pub fn nft_sales(ctx: &Ctx<'_>, _: &Params, q: NftSalesRequest) -> Result<SalesResponse, V3Error> {
    let wanted = addresses(&q.address);
    if wanted.is_empty() {
        return Err(V3Error::invalid("at least 1 address required"));
    }
    if wanted.len() > 1000 {
        return Err(V3Error::invalid("maximum 1000 addresses allowed"));
    }
    let mut mentioned = Vec::new();
    let mut nft_sales = Vec::new();
    for (a, s) in nfts::sales(&ctx.reader, &wanted)? {
        mentioned.push(a);
        mentioned.push(s.nft);
        mentioned.extend(s.owner);
        mentioned.extend(s.marketplace);
        let nft_item = match nfts::item(&ctx.reader, &s.nft)? {
            Some(i) => Some(item_json(ctx, &s.nft, i)?),
            None => None,
        };
        let mut details = serde_json::Map::new();
        for (name, value) in &s.details {
            let v = match value {
                SaleDetail::Bool(b) => serde_json::json!(b),
                SaleDetail::Int(i) => serde_json::json!(i),
                SaleDetail::Amount(a) | SaleDetail::Text(a) => serde_json::json!(a),
                SaleDetail::Address(Some(a)) => {
                    mentioned.push(*a);
                    serde_json::json!(raw_upper(a))
                }
                // Null fields are left out of a sale.
                SaleDetail::Address(None) => continue,
            };
            details.insert(name.clone(), v);
        }
        nft_sales.push(NftSale {
            kind: match s.kind {
                SaleKind::FixedPrice => "getgems_sale",
                SaleKind::Auction => "getgems_auction",
                SaleKind::Telemint => "telemint",
            },
            address: raw_upper(&a),
            nft_address: raw_upper(&s.nft),
            nft_owner_address: s.owner.as_ref().map(raw_upper),
            marketplace_address: s.marketplace.as_ref().map(raw_upper),
            created_at: s.created_at,
            last_transaction_lt: Dec(s.last_tx_lt),
            code_hash: B64(s.code_hash),
            data_hash: B64(s.data_hash),
            details,
            nft_item,
        });
    }
    Ok(SalesResponse {
        nft_sales,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct NftSale {
    #[serde(rename = "type")]
    kind: &'static str,
    address: String,
    nft_address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    nft_owner_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    marketplace_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_at: Option<i64>,
    last_transaction_lt: Dec<u64>,
    code_hash: B64,
    data_hash: B64,
    details: serde_json::Map<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nft_item: Option<NftItem>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct SalesResponse {
    nft_sales: Vec<NftSale>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct NftTransfer {
    query_id: Dec<u64>,
    nft_address: String,
    nft_collection: Option<String>,
    transaction_hash: B64,
    transaction_lt: Dec<u64>,
    transaction_now: u32,
    transaction_aborted: bool,
    old_owner: Option<String>,
    new_owner: Option<String>,
    response_destination: Option<String>,
    custom_payload: Option<String>,
    decoded_custom_payload: Option<Json>,
    forward_amount: Option<Dec<u128>>,
    forward_payload: Option<String>,
    decoded_forward_payload: Option<Json>,
    trace_id: Option<B64>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct TransfersResponse {
    nft_transfers: Vec<NftTransfer>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

request! {
    /// `/nft/transfers`' filters.
    pub struct NftTransfersRequest {
        /// Owners (old or new, as direction says)
        owner_address: Vec<ParsedAddress>,
        /// Same as owner_address (when it is not given)
        address: Vec<ParsedAddress>,
        /// Items
        item_address: Vec<ParsedAddress>,
        /// Their collection
        collection_address: Option<ParsedAddress>,
        /// in: to the owners; out: from them; both (default)
        direction: Option<Word<BothWords>>,
    }
    with { window: WindowArgs, paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /nft/transfers` (aborted transfers included, as the spec says).
pub fn nft_transfers(
    ctx: &Ctx<'_>,
    _: &Params,
    q: NftTransfersRequest,
) -> Result<TransfersResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let mut f = event_filter(&q.window, &paging, false);
    f.wallets = addresses(&q.item_address);
    f.master = q.collection_address.map(|a| a.address);
    let mut owners = addresses(&q.owner_address);
    if owners.is_empty() {
        owners = addresses(&q.address);
    }
    let roles = match q.direction.as_ref().map(|d| d.as_str()) {
        None | Some("both") => NftRole::OLD_OWNER | NftRole::NEW_OWNER,
        Some("in") => NftRole::NEW_OWNER,
        Some("out") => NftRole::OLD_OWNER,
        Some(_) => {
            return Err(V3Error::invalid(
                "direction should be one of: in, out, both",
            ))
        }
    };
    f.by = if !owners.is_empty() {
        owners.iter().map(|o| (*o, roles)).collect()
    } else if !f.wallets.is_empty() {
        f.wallets.iter().map(|w| (*w, NftRole::ITEM)).collect()
    } else if let Some(c) = f.master {
        vec![(c, NftRole::COLLECTION)]
    } else {
        Vec::new()
    };
    let rows = nfts::transfers(&ctx.reader, &f, paging.offset, paging.limit)?;
    let mentioned: Vec<Address> = rows
        .iter()
        .flat_map(|(t, _)| {
            [
                Some(t.nft),
                t.collection,
                t.old_owner,
                t.new_owner,
                t.response_destination,
            ]
        })
        .flatten()
        .collect();
    let nft_transfers = rows
        .into_iter()
        .map(|(t, trace)| NftTransfer {
            query_id: Dec(t.query_id),
            nft_address: raw_upper(&t.nft),
            nft_collection: t.collection.as_ref().map(raw_upper),
            transaction_hash: B64(t.tx_hash),
            transaction_lt: Dec(t.tx_lt),
            transaction_now: t.tx_now,
            transaction_aborted: t.tx_aborted,
            old_owner: t.old_owner.as_ref().map(raw_upper),
            new_owner: t.new_owner.as_ref().map(raw_upper),
            response_destination: t.response_destination.as_ref().map(raw_upper),
            custom_payload: t.custom_payload.as_deref().map(b64),
            decoded_custom_payload: decoded_payload(t.custom_payload.as_deref()),
            forward_amount: Some(Dec(t.forward_amount)),
            forward_payload: t.forward_payload.as_deref().map(b64),
            decoded_forward_payload: decoded_payload(t.forward_payload.as_deref()),
            trace_id: trace.map(B64),
        })
        .collect();
    Ok(TransfersResponse {
        nft_transfers,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}
