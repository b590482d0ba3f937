//! v3 Jetton endpoints (spec v3 §3.6): masters and wallets from the
//! index's token tables.

use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::Address;

use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::models::decoded_payload;
use super::{parse_utime, to_json, Paging, V3Error, V3Result};
use crate::api::encoding::{b64, parse_address, raw_lower, raw_upper, Dec, B64};
use crate::api::params::Params;
use crate::api::Ctx;
use crate::offchain::{self, Lookup};
use crate::query::jettons::{self, EventFilter, MasterFilter, WalletFilter};
use serde_json::Value as Json;
use tonindex_storage::rows::JettonWalletRecord;
use tonindex_storage::tables::JettonRole;

pub(super) fn addresses(p: &Params, name: &str) -> Result<Vec<Address>, V3Error> {
    Ok(p.parsed_all(name, "an address", parse_address)?
        .into_iter()
        .map(|a| a.address)
        .collect())
}

#[derive(Serialize)]
struct JettonMaster {
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

#[derive(Serialize)]
struct JettonMastersResponse {
    jetton_masters: Vec<JettonMaster>,
    address_book: AddressBook,
    metadata: Metadata,
}

/// `GET /jetton/masters`.
pub fn jetton_masters(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let paging = Paging::from_params(ctx, p)?;
    let filter = MasterFilter {
        addresses: addresses(p, "address")?,
        admins: addresses(p, "admin_address")?,
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
    to_json(&JettonMastersResponse {
        jetton_masters,
        address_book: address_book::build(ctx, p, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, p, mentioned)?,
    })
}

#[derive(Serialize)]
struct JettonWallet {
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

#[derive(Serialize)]
struct MintlessInfo {
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

#[derive(Serialize)]
struct JettonWalletsResponse {
    jetton_wallets: Vec<JettonWallet>,
    address_book: AddressBook,
    metadata: Metadata,
}

/// `GET /jetton/wallets`.
pub fn jetton_wallets(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let paging = Paging::from_params(ctx, p)?;
    let filter = WalletFilter {
        addresses: addresses(p, "address")?,
        owners: addresses(p, "owner_address")?,
        jettons: addresses(p, "jetton_address")?,
        exclude_zero_balance: p.bool("exclude_zero_balance")?.unwrap_or(false),
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
    to_json(&JettonWalletsResponse {
        jetton_wallets,
        address_book: address_book::build(ctx, p, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, p, mentioned)?,
    })
}

/// The time and lt bounds, order and aborted rule shared by transfers and burns.
pub(super) fn event_filter(
    p: &Params,
    paging: &Paging,
    exclude_aborted: bool,
) -> Result<EventFilter, V3Error> {
    let utime = |name| -> Result<Option<u32>, V3Error> {
        Ok(p.parsed(name, "a unix time", parse_utime)?
            .map(|t| u32::try_from(t).unwrap_or(u32::MAX)))
    };
    Ok(EventFilter {
        wallets: addresses(p, "jetton_wallet")?,
        master: p
            .parsed("jetton_master", "an address", parse_address)?
            .map(|a| a.address),
        start_lt: p.int::<u64>("start_lt")?,
        end_lt: p.int::<u64>("end_lt")?,
        start_utime: utime("start_utime")?,
        end_utime: utime("end_utime")?,
        exclude_aborted,
        desc: paging.desc,
        by: Vec::new(),
    })
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

#[derive(Serialize)]
struct JettonTransfer {
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

#[derive(Serialize)]
struct JettonTransfersResponse {
    jetton_transfers: Vec<JettonTransfer>,
    address_book: AddressBook,
    metadata: Metadata,
}

/// `GET /jetton/transfers` (aborted transactions left out, as the spec says).
pub fn jetton_transfers(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let paging = Paging::from_params(ctx, p)?;
    let mut f = event_filter(p, &paging, true)?;
    let mut owners = addresses(p, "owner_address")?;
    if owners.is_empty() {
        owners = addresses(p, "address")?;
    }
    let roles = match p.get("direction") {
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
    to_json(&JettonTransfersResponse {
        jetton_transfers,
        address_book: address_book::build(ctx, p, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, p, mentioned)?,
    })
}

#[derive(Serialize)]
struct JettonBurn {
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

#[derive(Serialize)]
struct JettonBurnsResponse {
    jetton_burns: Vec<JettonBurn>,
    address_book: AddressBook,
    metadata: Metadata,
}

/// `GET /jetton/burns` (aborted burns included, as the spec says).
pub fn jetton_burns(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let paging = Paging::from_params(ctx, p)?;
    let mut f = event_filter(p, &paging, false)?;
    let mut owners = addresses(p, "owner_address")?;
    owners.extend(addresses(p, "address")?);
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
    to_json(&JettonBurnsResponse {
        jetton_burns,
        address_book: address_book::build(ctx, p, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, p, mentioned)?,
    })
}
