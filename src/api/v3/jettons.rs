//! v3 Jetton endpoints (spec v3 §3.6): masters and wallets from the
//! index's token tables.

use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::Address;

use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::models::decoded_payload;
use super::{BookMetadataArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, raw_lower, raw_upper, Dec, ParsedAddress, B64};
use crate::api::params::Params;
use crate::api::request::{request, Utime};
use crate::api::Ctx;
use crate::offchain::{self, Lookup};
use crate::query::jettons::{self, EventFilter, MasterFilter, WalletFilter};
use serde_json::Value as Json;
use tonindex_storage::rows::JettonWalletRecord;
use tonindex_storage::tables::JettonRole;

/// The accounts of parsed addresses.
pub(super) fn addresses(a: &[ParsedAddress]) -> Vec<Address> {
    a.iter().map(|a| a.address).collect()
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonMaster {
    address: String,
    total_supply: Dec<u128>,
    mintable: bool,
    admin_address: Option<String>,
    jetton_content: Option<BTreeMap<String, String>>,
    jetton_wallet_code_hash: B64,
    code_hash: B64,
    data_hash: B64,
    last_transaction_lt: Dec<u64>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonMastersResponse {
    jetton_masters: Vec<JettonMaster>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

request! {
    /// `/jetton/masters`' filters.
    pub struct JettonMastersRequest {
        /// Jetton masters
        address: Vec<ParsedAddress>,
        /// Their admins
        admin_address: Vec<ParsedAddress>,
    }
    with { paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /jetton/masters`.
pub fn jetton_masters(
    ctx: &Ctx<'_>,
    _: &Params,
    q: JettonMastersRequest,
) -> Result<JettonMastersResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let filter = MasterFilter {
        addresses: addresses(&q.address),
        admins: addresses(&q.admin_address),
    };
    let rows = jettons::masters(&ctx.reader, &filter, paging.offset, paging.limit)?;
    let mentioned = rows
        .iter()
        .flat_map(|(a, m)| std::iter::once(*a).chain(m.admin))
        .collect::<Vec<_>>();
    let jetton_masters = rows
        .into_iter()
        .map(|(a, m)| JettonMaster {
            address: raw_upper(&a),
            total_supply: Dec(m.total_supply),
            mintable: m.mintable,
            admin_address: m.admin.as_ref().map(raw_upper),
            jetton_content: m.content.map(|c| c.into_iter().collect()),
            jetton_wallet_code_hash: B64(m.wallet_code_hash),
            code_hash: B64(m.code_hash),
            data_hash: B64(m.data_hash),
            last_transaction_lt: Dec(m.last_tx_lt),
        })
        .collect();
    Ok(JettonMastersResponse {
        jetton_masters,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonWallet {
    address: String,
    balance: Dec<u128>,
    owner: String,
    jetton: String,
    last_transaction_lt: Dec<u64>,
    code_hash: B64,
    data_hash: B64,
    /// Only for a mintless-airdrop wallet not claimed yet whose claim the
    /// Jetton's custom payload API gave (spec v3 §3 `/jetton/wallets`).
    #[serde(skip_serializing_if = "Option::is_none")]
    mintless_info: Option<MintlessInfo>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct MintlessInfo {
    amount: Dec<u128>,
    start_from: u64,
    expire_at: u64,
    custom_payload_api_uri: Vec<String>,
}

/// The unclaimed airdrop of a mintless wallet: what the custom payload API
/// named in its Jetton's off-chain metadata says of the wallet's owner.
/// Asking queues what is not fetched yet; `None` until it is (and always
/// where off-chain fetching is off, or the wallet has claimed).
fn mintless_info(ctx: &Ctx<'_>, w: &JettonWalletRecord) -> Result<Option<MintlessInfo>, V3Error> {
    let Some(offchain) = ctx.offchain else {
        return Ok(None);
    };
    if w.mintless_is_claimed != Some(false) {
        return Ok(None);
    }
    let Some(content) = jettons::master(&ctx.reader, &w.jetton)?.and_then(|m| m.content) else {
        return Ok(None);
    };
    let Some(Lookup::Ready(doc)) = metadata::offchain_document(Some(offchain), &content) else {
        return Ok(None);
    };
    let apis = offchain::custom_payload_apis(&doc);
    let Some(api) = apis.first() else {
        return Ok(None);
    };
    let Lookup::Ready(answer) = offchain.lookup(&offchain::claim_url(api, &raw_lower(&w.owner)))
    else {
        return Ok(None);
    };
    Ok(
        offchain::mintless_claim(&answer).map(move |c| MintlessInfo {
            amount: Dec(c.amount),
            start_from: c.start_from,
            expire_at: c.expire_at,
            custom_payload_api_uri: apis,
        }),
    )
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonWalletsResponse {
    jetton_wallets: Vec<JettonWallet>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

request! {
    /// `/jetton/wallets`' filters.
    pub struct JettonWalletsRequest {
        /// Jetton wallets
        address: Vec<ParsedAddress>,
        /// Their owners
        owner_address: Vec<ParsedAddress>,
        /// Their Jetton masters
        jetton_address: Vec<ParsedAddress>,
        /// Leave out wallets with a zero balance
        exclude_zero_balance: Option<bool>,
    }
    with { paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /jetton/wallets`.
pub fn jetton_wallets(
    ctx: &Ctx<'_>,
    _: &Params,
    q: JettonWalletsRequest,
) -> Result<JettonWalletsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let filter = WalletFilter {
        addresses: addresses(&q.address),
        owners: addresses(&q.owner_address),
        jettons: addresses(&q.jetton_address),
        exclude_zero_balance: q.exclude_zero_balance.unwrap_or(false),
        balance_order: paging.sort_given.then_some(paging.desc),
    };
    if filter.jettons.len() > 1 && filter.owners.len() != 1 {
        return Err(V3Error::invalid(
            "exact one owner_address required for multiple jetton_address",
        ));
    }
    // A read error while looking for a claim counts as no claim here; the
    // page's own reads report theirs.
    let unclaimed = |w: &JettonWalletRecord| {
        mintless_info(ctx, w)
            .ok()
            .flatten()
            .map_or(0, |m| m.amount.0)
    };
    let rows = jettons::wallets(
        &ctx.reader,
        &filter,
        &unclaimed,
        paging.offset,
        paging.limit,
    )?;
    let mentioned = rows
        .iter()
        .flat_map(|(a, w)| [*a, w.owner, w.jetton])
        .collect::<Vec<_>>();
    let jetton_wallets = rows
        .into_iter()
        .map(|(a, w)| {
            Ok(JettonWallet {
                address: raw_upper(&a),
                balance: Dec(w.balance),
                owner: raw_upper(&w.owner),
                jetton: raw_upper(&w.jetton),
                last_transaction_lt: Dec(w.last_tx_lt),
                code_hash: B64(w.code_hash),
                data_hash: B64(w.data_hash),
                mintless_info: mintless_info(ctx, &w)?,
            })
        })
        .collect::<Result<_, V3Error>>()?;
    Ok(JettonWalletsResponse {
        jetton_wallets,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}

request! {
    /// The time and lt window of transfers and burns.
    pub struct WindowArgs {
        /// Not before this unix time
        start_utime: Option<Utime>,
        /// Not after this unix time
        end_utime: Option<Utime>,
        /// Not below this logical time
        start_lt: Option<u64>,
        /// Not above this logical time
        end_lt: Option<u64>,
    }
}

/// The time and lt bounds, order and aborted rule shared by transfers and
/// burns; the caller names the wallets (items) and master (collection).
pub(super) fn event_filter(w: &WindowArgs, paging: &Paging, exclude_aborted: bool) -> EventFilter {
    let utime = |t: Option<Utime>| t.map(|t| u32::try_from(t.0).unwrap_or(u32::MAX));
    EventFilter {
        wallets: Vec::new(),
        master: None,
        start_lt: w.start_lt,
        end_lt: w.end_lt,
        start_utime: utime(w.start_utime),
        end_utime: utime(w.end_utime),
        exclude_aborted,
        desc: paging.desc,
        by: Vec::new(),
    }
}

/// Where `direction` is `in`, `out` or `both` (transfers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BothWords;
impl crate::api::request::Words for BothWords {
    const WORDS: &'static [&'static str] = &["in", "out", "both"];
}

/// Who the rows are looked up by: the named owners (with their roles),
/// else the wallets, else the master; none: every row.
fn drivers(f: &mut EventFilter, owners: &[Address], owner_roles: u32) {
    f.by = if !owners.is_empty() {
        owners.iter().map(|o| (*o, owner_roles)).collect()
    } else if !f.wallets.is_empty() {
        f.wallets.iter().map(|w| (*w, JettonRole::WALLET)).collect()
    } else if let Some(m) = f.master {
        vec![(m, JettonRole::MASTER)]
    } else {
        Vec::new()
    };
}

fn boc_b64(b: &Option<Vec<u8>>) -> Option<String> {
    b.as_deref().map(b64)
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonTransfer {
    query_id: Dec<u64>,
    source: Option<String>,
    destination: Option<String>,
    amount: Dec<u128>,
    source_wallet: String,
    jetton_master: String,
    transaction_hash: B64,
    transaction_lt: Dec<u64>,
    transaction_now: u32,
    transaction_aborted: bool,
    response_destination: Option<String>,
    custom_payload: Option<String>,
    decoded_custom_payload: Option<Json>,
    forward_ton_amount: Option<Dec<u128>>,
    forward_payload: Option<String>,
    decoded_forward_payload: Option<Json>,
    trace_id: Option<B64>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonTransfersResponse {
    jetton_transfers: Vec<JettonTransfer>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

request! {
    /// `/jetton/transfers`' filters.
    pub struct JettonTransfersRequest {
        /// Owners (senders or receivers, as direction says)
        owner_address: Vec<ParsedAddress>,
        /// Same as owner_address (when it is not given)
        address: Vec<ParsedAddress>,
        /// Jetton wallets
        jetton_wallet: Vec<ParsedAddress>,
        /// Jetton master
        jetton_master: Option<ParsedAddress>,
        /// in: received by the owners; out: sent; both (default)
        direction: Option<crate::api::request::Word<BothWords>>,
    }
    with { window: WindowArgs, paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /jetton/transfers` (aborted transactions left out, as the spec says).
pub fn jetton_transfers(
    ctx: &Ctx<'_>,
    _: &Params,
    q: JettonTransfersRequest,
) -> Result<JettonTransfersResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let mut f = event_filter(&q.window, &paging, true);
    f.wallets = addresses(&q.jetton_wallet);
    f.master = q.jetton_master.map(|a| a.address);
    let mut owners = addresses(&q.owner_address);
    if owners.is_empty() {
        owners = addresses(&q.address);
    }
    let roles = match q.direction.as_ref().map(|d| d.as_str()) {
        None | Some("both") => JettonRole::SOURCE | JettonRole::DESTINATION,
        Some("in") => JettonRole::DESTINATION,
        Some("out") => JettonRole::SOURCE,
        Some(_) => {
            return Err(V3Error::invalid(
                "direction should be one of: in, out, both",
            ))
        }
    };
    drivers(&mut f, &owners, roles);
    let rows = jettons::transfers(&ctx.reader, &f, paging.offset, paging.limit)?;
    let mentioned: Vec<Address> = rows
        .iter()
        .flat_map(|(t, _)| {
            [
                t.source,
                t.destination,
                Some(t.source_wallet),
                Some(t.jetton_master),
                t.response_destination,
            ]
        })
        .flatten()
        .collect();
    let jetton_transfers = rows
        .into_iter()
        .map(|(t, trace)| JettonTransfer {
            query_id: Dec(t.query_id),
            source: t.source.as_ref().map(raw_upper),
            destination: t.destination.as_ref().map(raw_upper),
            amount: Dec(t.amount),
            source_wallet: raw_upper(&t.source_wallet),
            jetton_master: raw_upper(&t.jetton_master),
            transaction_hash: B64(t.tx_hash),
            transaction_lt: Dec(t.tx_lt),
            transaction_now: t.tx_now,
            transaction_aborted: t.tx_aborted,
            response_destination: t.response_destination.as_ref().map(raw_upper),
            custom_payload: boc_b64(&t.custom_payload),
            decoded_custom_payload: decoded_payload(t.custom_payload.as_deref()),
            forward_ton_amount: Some(Dec(t.forward_ton_amount)),
            forward_payload: boc_b64(&t.forward_payload),
            decoded_forward_payload: decoded_payload(t.forward_payload.as_deref()),
            trace_id: trace.map(B64),
        })
        .collect();
    Ok(JettonTransfersResponse {
        jetton_transfers,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonBurn {
    query_id: Dec<u64>,
    owner: Option<String>,
    jetton_wallet: String,
    jetton_master: String,
    transaction_hash: B64,
    transaction_lt: Dec<u64>,
    transaction_now: u32,
    transaction_aborted: bool,
    amount: Dec<u128>,
    response_destination: Option<String>,
    custom_payload: Option<String>,
    decoded_custom_payload: Option<Json>,
    trace_id: Option<B64>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct JettonBurnsResponse {
    jetton_burns: Vec<JettonBurn>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

request! {
    /// `/jetton/burns`' filters.
    pub struct JettonBurnsRequest {
        /// Owners of the burnt Jettons
        owner_address: Vec<ParsedAddress>,
        /// Same as owner_address
        address: Vec<ParsedAddress>,
        /// Jetton wallets
        jetton_wallet: Vec<ParsedAddress>,
        /// Jetton master
        jetton_master: Option<ParsedAddress>,
    }
    with { window: WindowArgs, paging: PagingArgs, shape: BookMetadataArgs }
}

/// `GET /jetton/burns` (aborted burns included, as the spec says).
pub fn jetton_burns(
    ctx: &Ctx<'_>,
    _: &Params,
    q: JettonBurnsRequest,
) -> Result<JettonBurnsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let mut f = event_filter(&q.window, &paging, false);
    f.wallets = addresses(&q.jetton_wallet);
    f.master = q.jetton_master.map(|a| a.address);
    let mut owners = addresses(&q.owner_address);
    owners.extend(addresses(&q.address));
    drivers(&mut f, &owners, JettonRole::SOURCE);
    let rows = jettons::burns(&ctx.reader, &f, paging.offset, paging.limit)?;
    let mentioned: Vec<Address> = rows
        .iter()
        .flat_map(|(b, _)| {
            [
                b.owner,
                Some(b.jetton_wallet),
                Some(b.jetton_master),
                b.response_destination,
            ]
        })
        .flatten()
        .collect();
    let jetton_burns = rows
        .into_iter()
        .map(|(b, trace)| JettonBurn {
            query_id: Dec(b.query_id),
            owner: b.owner.as_ref().map(raw_upper),
            jetton_wallet: raw_upper(&b.jetton_wallet),
            jetton_master: raw_upper(&b.jetton_master),
            transaction_hash: B64(b.tx_hash),
            transaction_lt: Dec(b.tx_lt),
            transaction_now: b.tx_now,
            transaction_aborted: b.tx_aborted,
            amount: Dec(b.amount),
            response_destination: b.response_destination.as_ref().map(raw_upper),
            custom_payload: boc_b64(&b.custom_payload),
            decoded_custom_payload: decoded_payload(b.custom_payload.as_deref()),
            trace_id: trace.map(B64),
        })
        .collect();
    Ok(JettonBurnsResponse {
        jetton_burns,
        address_book: address_book::build(ctx, &q.shape.book, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, &q.shape, mentioned)?,
    })
}
