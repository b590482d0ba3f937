//! v3 Jetton endpoints (spec v3 §3.6): masters and wallets from the
//! index's token tables.

use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::Address;

use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::{to_json, Paging, V3Error, V3Result};
use crate::api::encoding::{parse_address, raw_upper, Dec, B64};
use crate::api::params::Params;
use crate::api::Ctx;
use crate::query::jettons::{self, MasterFilter, WalletFilter};

fn addresses(p: &Params, name: &str) -> Result<Vec<Address>, V3Error> {
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
    let rows = jettons::wallets(&ctx.reader, &filter, paging.offset, paging.limit)?;
    let mentioned = rows
        .iter()
        .flat_map(|(a, w)| [*a, w.owner, w.jetton])
        .collect::<Vec<_>>();
    let jetton_wallets = rows
        .into_iter()
        .map(|(a, w)| JettonWallet {
            address: raw_upper(&a),
            balance: Dec(w.balance),
            owner: raw_upper(&w.owner),
            jetton: raw_upper(&w.jetton),
            last_transaction_lt: Dec(w.last_tx_lt),
            code_hash: B64(w.code_hash),
            data_hash: B64(w.data_hash),
        })
        .collect();
    to_json(&JettonWalletsResponse {
        jetton_wallets,
        address_book: address_book::build(ctx, p, mentioned.iter().copied())?,
        metadata: metadata::build(ctx, p, mentioned)?,
    })
}
