//! v3 multisig and vesting endpoints (spec v3 §3.9, §3.10):
//! `/multisig/wallets`, `/multisig/orders` and `/vesting`, from the index's
//! tables.

use serde::Serialize;
use serde_json::Value as Json;
use tonindex_model::Address;
use tonindex_storage::{MultisigOrderRecord, MultisigRecord, VestingRecord};

use super::address_book::{self, AddressBook};
use super::jettons::addresses;
use super::{BookArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, boc_with_crc, raw_upper, Dec, ParsedAddress, B64};
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::query;

#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = MultisigOrder)]
pub struct Order {
    address: String,
    multisig_address: String,
    order_seqno: String,
    threshold: u32,
    sent_for_execution: bool,
    approvals_mask: String,
    approvals_num: u32,
    expiration_date: u64,
    order_boc: String,
    signers: Vec<String>,
    last_transaction_lt: Dec<u64>,
    code_hash: B64,
    data_hash: B64,
    actions: Option<Vec<Json>>,
}

fn order_json(a: &Address, o: MultisigOrderRecord, parse_actions: bool) -> Order {
    let actions = parse_actions.then(|| {
        tycho_types::boc::Boc::decode(&o.order_boc)
            .map(|c| super::order_actions::parse(&c))
            .unwrap_or_default()
    });
    Order {
        address: raw_upper(a),
        multisig_address: raw_upper(&o.multisig),
        order_seqno: o.order_seqno,
        threshold: o.threshold,
        sent_for_execution: o.sent_for_execution,
        approvals_mask: o.approvals_mask,
        approvals_num: o.approvals_num,
        expiration_date: o.expiration_date,
        order_boc: b64(&boc_with_crc(&o.order_boc).unwrap_or(o.order_boc)),
        signers: o.signers.iter().map(raw_upper).collect(),
        last_transaction_lt: Dec(o.last_tx_lt),
        code_hash: B64(o.code_hash),
        data_hash: B64(o.data_hash),
        actions,
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Multisig {
    address: String,
    next_order_seqno: String,
    threshold: u32,
    signers: Vec<String>,
    proposers: Vec<String>,
    last_transaction_lt: Dec<u64>,
    code_hash: B64,
    data_hash: B64,
    /// `[]` when orders were not asked for, `null` when there are none (as
    /// the Go server answers).
    orders: Option<Vec<Order>>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct MultisigsResponse {
    multisigs: Vec<Multisig>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
}

fn mentioned_by(m: &MultisigRecord) -> impl Iterator<Item = Address> + '_ {
    m.signers.iter().chain(&m.proposers).copied()
}

request! {
    /// `/multisig/wallets`' filters (one is required).
    pub struct MultisigWalletsRequest {
        /// Multisig contracts
        address: Vec<ParsedAddress>,
        /// Their signers or proposers
        wallet_address: Vec<ParsedAddress>,
        /// Attach each multisig's orders (default true)
        include_orders: Option<bool>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

/// `GET /multisig/wallets`.
pub fn multisig_wallets(
    ctx: &Ctx<'_>,
    _: &Params,
    q: MultisigWalletsRequest,
) -> Result<MultisigsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let wanted = addresses(&q.address);
    let wallets = addresses(&q.wallet_address);
    if wanted.is_empty() && wallets.is_empty() {
        return Err(V3Error::invalid(
            "At least one of address or wallet_address should be specified",
        ));
    }
    let include_orders = q.include_orders.unwrap_or(true);
    let rows = query::multisig::multisigs(
        &ctx.reader,
        &wanted,
        &wallets,
        paging.desc,
        paging.offset,
        paging.limit,
    )?;
    let mut mentioned = Vec::new();
    let mut multisigs = Vec::with_capacity(rows.len());
    for (a, m) in rows {
        mentioned.push(a);
        mentioned.extend(mentioned_by(&m));
        let orders = if include_orders {
            let orders = query::multisig::orders_of(&ctx.reader, &a)?;
            for (oa, o) in &orders {
                mentioned.push(*oa);
                mentioned.extend(o.signers.iter().copied());
            }
            let shaped: Vec<Order> = orders
                .into_iter()
                .map(|(oa, o)| order_json(&oa, o, false))
                .collect();
            (!shaped.is_empty()).then_some(shaped)
        } else {
            Some(Vec::new())
        };
        multisigs.push(Multisig {
            address: raw_upper(&a),
            next_order_seqno: m.next_order_seqno,
            threshold: m.threshold,
            signers: m.signers.iter().map(raw_upper).collect(),
            proposers: m.proposers.iter().map(raw_upper).collect(),
            last_transaction_lt: Dec(m.last_tx_lt),
            code_hash: B64(m.code_hash),
            data_hash: B64(m.data_hash),
            orders,
        });
    }
    Ok(MultisigsResponse {
        multisigs,
        address_book: address_book::build(ctx, &q.book, mentioned)?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct OrdersResponse {
    orders: Vec<Order>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
}

request! {
    /// `/multisig/orders`' filters (one is required).
    pub struct MultisigOrdersRequest {
        /// Order contracts
        address: Vec<ParsedAddress>,
        /// Their multisigs
        multisig_address: Vec<ParsedAddress>,
        /// Decode each order's actions (default false)
        parse_actions: Option<bool>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

/// `GET /multisig/orders`.
pub fn multisig_orders(
    ctx: &Ctx<'_>,
    _: &Params,
    q: MultisigOrdersRequest,
) -> Result<OrdersResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let wanted = addresses(&q.address);
    let multisigs = addresses(&q.multisig_address);
    if wanted.is_empty() && multisigs.is_empty() {
        return Err(V3Error::invalid(
            "At least one of address or multisig_address should be specified",
        ));
    }
    let parse_actions = q.parse_actions.unwrap_or(false);
    let rows = query::multisig::orders(
        &ctx.reader,
        &wanted,
        &multisigs,
        paging.desc,
        paging.offset,
        paging.limit,
    )?;
    let mentioned: Vec<Address> = rows
        .iter()
        .flat_map(|(a, o)| {
            [*a, o.multisig]
                .into_iter()
                .chain(o.signers.iter().copied())
        })
        .collect();
    let orders = rows
        .into_iter()
        .map(|(a, o)| order_json(&a, o, parse_actions))
        .collect();
    Ok(OrdersResponse {
        orders,
        address_book: address_book::build(ctx, &q.book, mentioned)?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Vesting {
    address: String,
    start_time: u64,
    total_duration: u64,
    unlock_period: u64,
    cliff_duration: u64,
    sender_address: Option<String>,
    owner_address: Option<String>,
    total_amount: Dec<u128>,
    whitelist: Vec<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct VestingResponse {
    vesting_contracts: Vec<Vesting>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
}

fn mentioned_by_vesting(a: Address, v: &VestingRecord) -> impl Iterator<Item = Address> + '_ {
    std::iter::once(a)
        .chain(v.sender)
        .chain(v.owner)
        .chain(v.whitelist.iter().copied())
}

request! {
    /// `/vesting`'s filters (exactly one is required).
    pub struct VestingRequest {
        /// Vesting contracts
        contract_address: Vec<ParsedAddress>,
        /// Their owners or senders
        wallet_address: Vec<ParsedAddress>,
        /// With wallet_address: whitelisted wallets match too
        check_whitelist: Option<bool>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

/// `GET /vesting`.
pub fn vesting(ctx: &Ctx<'_>, _: &Params, q: VestingRequest) -> Result<VestingResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let contracts = addresses(&q.contract_address);
    let wallets = addresses(&q.wallet_address);
    if contracts.is_empty() && wallets.is_empty() {
        return Err(V3Error::invalid(
            "at least one of contract_address or wallet_address is required",
        ));
    }
    if !contracts.is_empty() && !wallets.is_empty() {
        return Err(V3Error::invalid(
            "only one of contract_address or wallet_address should be specified",
        ));
    }
    let whitelisted = q.check_whitelist.unwrap_or(false);
    let rows = query::multisig::vestings(
        &ctx.reader,
        &contracts,
        &wallets,
        whitelisted,
        paging.offset,
        paging.limit,
    )?;
    let mentioned: Vec<Address> = rows
        .iter()
        .flat_map(|(a, v)| mentioned_by_vesting(*a, v).collect::<Vec<_>>())
        .collect();
    let vesting_contracts = rows
        .into_iter()
        .map(|(a, v)| Vesting {
            address: raw_upper(&a),
            start_time: v.start_time,
            total_duration: v.total_duration,
            unlock_period: v.unlock_period,
            cliff_duration: v.cliff_duration,
            sender_address: v.sender.as_ref().map(raw_upper),
            owner_address: v.owner.as_ref().map(raw_upper),
            total_amount: Dec(v.total_amount),
            whitelist: v.whitelist.iter().map(raw_upper).collect(),
        })
        .collect();
    Ok(VestingResponse {
        vesting_contracts,
        address_book: address_book::build(ctx, &q.book, mentioned)?,
    })
}
