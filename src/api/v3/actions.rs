//! `/actions` (spec v3 §4.2), the action-type sets clients ask for
//! (§4.4), and how an action row becomes its JSON with per-type
//! `details` (§4.5) — shared with `/traces?include_actions=true`.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};
use tonindex_model::{ActionRecord, Address, Hash, TraceRecord};

use super::address_book::{self, AddressBook};
use super::models::Transaction;
use super::{parse_utime, to_json, Paging, V3Error, V3Result};
use crate::api::encoding::{b64, parse_address, parse_hash, raw_upper};
use crate::api::params::Params;
use crate::api::Ctx;
use crate::query::{self, messages::Side};

const V1: &[&str] = &[
    "call_contract",
    "contract_deploy",
    "ton_transfer",
    "stake_deposit",
    "stake_withdrawal",
    "stake_withdrawal_request",
    "dex_deposit_liquidity",
    "dex_withdraw_liquidity",
    "jetton_transfer",
    "jetton_burn",
    "jetton_mint",
    "jetton_swap",
    "nft_transfer",
    "nft_mint",
    "change_dns",
    "delete_dns",
    "renew_dns",
    "subscribe",
    "unsubscribe",
    "election_deposit",
    "election_recover",
    "auction_bid",
    "tick_tock",
];
const V2: &[&str] = &[
    "v1",
    "multisig_create_order",
    "multisig_approve",
    "multisig_execute",
    "vesting_send_message",
    "vesting_add_whitelist",
    "evaa_supply",
    "evaa_withdraw",
    "evaa_liquidate",
    "jvault_stake",
    "jvault_unstake",
    "jvault_claim",
    "jvault_unstake_request",
    "nft_discovery",
    "tonco_deploy_pool",
    "coffee_create_vault",
    "coffee_create_pool_creator",
    "coffee_create_pool",
    "coffee_mev_protect_hold_funds",
    "coffee_mev_protect_failed_swap",
    "coffee_staking_claim_rewards",
    "coffee_staking_deposit",
    "coffee_staking_withdraw",
    "unknown",
];
/// The NFT and DNS-sale types v3 added (also the `nft.v3` group).
const NFT_V3: &[&str] = &[
    "nft_put_on_sale",
    "nft_put_on_auction",
    "auction_outbid",
    "nft_cancel_sale",
    "nft_purchase",
    "nft_cancel_auction",
    "nft_finish_auction",
    "teleitem_start_auction",
    "teleitem_cancel_auction",
    "nft_update_sale",
    "dns_purchase",
    "dns_release",
];
const LAYERZERO: &[&str] = &[
    "layerzero_send",
    "layerzero_send_tokens",
    "layerzero_receive",
    "layerzero_commit_packet",
    "layerzero_dvn_verify",
];
const COCOON: &[&str] = &[
    "cocoon_worker_payout",
    "cocoon_proxy_payout",
    "cocoon_proxy_charge",
    "cocoon_client_top_up",
    "cocoon_register_proxy",
    "cocoon_unregister_proxy",
    "cocoon_client_register",
    "cocoon_client_change_secret_hash",
    "cocoon_client_request_refund",
    "cocoon_grant_refund",
    "cocoon_client_increase_stake",
    "cocoon_client_withdraw",
];

/// The shortcuts of `supported_action_types`: a name and what it stands
/// for (types or other shortcuts).
fn shortcut(name: &str) -> Option<Vec<&'static str>> {
    Some(match name {
        "v1" => V1.to_vec(),
        "v2" => V2.to_vec(),
        "v3" => [&["v2"][..], NFT_V3, LAYERZERO].concat(),
        "v4" => [&["v3"][..], COCOON].concat(),
        "latest" => vec!["v4"],
        "staking" => vec![
            "stake_deposit",
            "stake_withdrawal",
            "stake_withdrawal_request",
        ],
        "jettons" => vec!["jetton_transfer", "jetton_burn", "jetton_mint"],
        "nft" => vec!["nft_transfer", "nft_mint", "auction_bid"],
        "nft.v3" => [&["nft"][..], NFT_V3].concat(),
        "dns" => vec![
            "change_dns",
            "delete_dns",
            "renew_dns",
            "dns_purchase",
            "dns_release",
        ],
        "dns.v2" => vec!["dns", "dns_purchase", "dns_release"],
        "multisig" => vec![
            "multisig_create_order",
            "multisig_approve",
            "multisig_execute",
        ],
        "vesting" => vec!["vesting_send_message", "vesting_add_whitelist"],
        "evaa" => vec!["evaa_supply", "evaa_withdraw", "evaa_liquidate"],
        "jvault" => vec![
            "jvault_stake",
            "jvault_unstake",
            "jvault_claim",
            "jvault_unstake_request",
        ],
        "coffee" => vec![
            "coffee_create_vault",
            "coffee_create_pool_creator",
            "coffee_create_pool",
            "coffee_mev_protect_hold_funds",
            "coffee_staking_claim_rewards",
            "coffee_staking_deposit",
            "coffee_staking_withdraw",
        ],
        "tgbtc" => vec![
            "tgbtc_dkg_log_fallback",
            "tgbtc_new_key",
            "tgbtc_new_key_fallback",
            "tgbtc_burn",
            "tgbtc_burn_fallback",
            "tgbtc_mint",
            "tgbtc_mint_fallback",
        ],
        "layerzero" => LAYERZERO.to_vec(),
        "cocoon" => COCOON.to_vec(),
        _ => return None,
    })
}

fn expand(name: &str, out: &mut HashSet<String>, depth: usize) {
    match shortcut(name) {
        Some(members) if depth < 10 => {
            for m in members {
                expand(m, out, depth + 1);
            }
        }
        Some(_) => {}
        None => {
            out.insert(name.to_string());
        }
    }
}

/// The action types a client understands: the shortcuts it named
/// (`supported_action_types`, repeated or comma-separated; `latest` when
/// absent), expanded, always with v1.
pub fn supported_types(p: &Params) -> Result<HashSet<String>, V3Error> {
    let mut names: Vec<String> = Vec::new();
    for v in p.all("supported_action_types") {
        for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            check_type_name(n)?;
            names.push(n.to_string());
        }
    }
    if names.is_empty() {
        names.push("latest".into());
    }
    let mut out = HashSet::new();
    for n in &names {
        expand(n, &mut out, 0);
    }
    expand("v1", &mut out, 0);
    Ok(out)
}

fn check_type_name(n: &str) -> Result<(), V3Error> {
    let ok = !n.is_empty()
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(V3Error::invalid(format!(
            "invalid action type: {}",
            crate::tvm::stack::cut(n)
        )))
    }
}

/// Whether a client with `supported` sees an action: its type is in the
/// set and none of the composite actions containing it is.
pub fn visible(a: &ActionRecord, supported: &HashSet<String>) -> bool {
    supported.contains(&a.kind) && !a.ancestor_type.iter().any(|t| supported.contains(t))
}

/// One action as v3 shows it.
#[derive(Serialize)]
pub struct ActionJson {
    trace_id: String,
    action_id: String,
    start_lt: String,
    end_lt: String,
    start_utime: u32,
    end_utime: u32,
    trace_end_lt: String,
    trace_end_utime: u32,
    trace_mc_seqno_end: Option<u32>,
    transactions: Vec<String>,
    success: bool,
    #[serde(rename = "type")]
    kind: String,
    details: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_external_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_external_hash_norm: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accounts: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transactions_full: Option<Vec<Transaction>>,
    finality: &'static str,
}

fn a(x: &Option<Address>) -> Value {
    x.as_ref()
        .map_or(Value::Null, |a| Value::String(raw_upper(a)))
}

fn s(x: &Option<String>) -> Value {
    x.clone().map_or(Value::Null, Value::String)
}

/// A marketplace's name from its raw address, where tonindex knows it (the
/// Go server's `GetMarketplaceName`); null otherwise.
fn marketplace(address: &Value) -> Value {
    address
        .as_str()
        .and_then(crate::trace::classify::parse_raw)
        .and_then(|m| crate::trace::classify::nft::marketplace_name(Some(&m)))
        .into()
}

/// The type's `details` from the action row (spec v3 §4.5).
fn details(r: &ActionRecord) -> Value {
    let data: Map<String, Value> = serde_json::from_str(&r.data).unwrap_or_default();
    let d = |k: &str| data.get(k).cloned().unwrap_or(Value::Null);
    let mut o = Map::new();
    let mut put = |k: &str, v: Value| {
        o.insert(k.to_string(), v);
    };
    match r.kind.as_str() {
        "ton_transfer" => {
            put("source", a(&r.source));
            put("destination", a(&r.destination));
            put("value", s(&r.value));
            put("value_extra_currencies", Value::Object(Map::new()));
            put("comment", d("content"));
            put("encrypted", d("encrypted"));
        }
        "call_contract" | "contract_deploy" => {
            if let Some(op) = r.opcode {
                put("opcode", Value::String(super::models::opcode_str(op)));
            }
            if r.source.is_some() {
                put("source", a(&r.source));
            }
            put("destination", a(&r.destination));
            put("value", s(&r.value));
            if r.kind == "call_contract" {
                put("extra_currencies", Value::Object(Map::new()));
            }
        }
        "tick_tock" => {}
        "jetton_transfer" => {
            put("asset", a(&r.asset));
            put("sender", a(&r.source));
            put("receiver", a(&r.destination));
            put("sender_jetton_wallet", a(&r.source_secondary));
            put("receiver_jetton_wallet", a(&r.destination_secondary));
            put("amount", s(&r.amount));
            for k in [
                "comment",
                "is_encrypted_comment",
                "query_id",
                "response_destination",
                "custom_payload",
                "forward_payload",
                "forward_amount",
            ] {
                put(k, d(k));
            }
        }
        "jetton_mint" => {
            put("asset", a(&r.asset));
            put("receiver", a(&r.destination));
            put("receiver_jetton_wallet", a(&r.destination_secondary));
            put("amount", s(&r.amount));
            put("ton_amount", s(&r.value));
        }
        "jetton_burn" => {
            put("owner", a(&r.source));
            put("owner_jetton_wallet", a(&r.source_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
        }
        "nft_mint" => {
            if r.source.is_some() {
                put("owner", a(&r.source));
            }
            put("nft_item", a(&r.asset_secondary));
            put("nft_collection", a(&r.asset));
            put("nft_item_index", d("nft_item_index"));
        }
        "nft_transfer" | "nft_purchase" => {
            put("nft_collection", a(&r.asset));
            put("nft_item", a(&r.asset_secondary));
            put("nft_item_index", d("nft_item_index"));
            if r.source.is_some() {
                put("old_owner", a(&r.source));
            }
            put("new_owner", a(&r.destination));
            put("is_purchase", d("is_purchase"));
            if !d("price").is_null() {
                put("price", d("price"));
            }
            for k in [
                "query_id",
                "response_destination",
                "custom_payload",
                "forward_payload",
                "forward_amount",
                "comment",
                "is_encrypted_comment",
            ] {
                put(k, d(k));
            }
            if !d("marketplace").is_null() {
                put("marketplace", d("marketplace"));
                put("real_old_owner", d("real_prev_owner"));
                put("marketplace_address", d("marketplace_address"));
            }
            for k in [
                "payout_amount",
                "payout_address",
                "payout_comment",
                "payout_comment_encrypted",
                "payout_comment_encoded",
                "royalty_amount",
                "royalty_address",
            ] {
                if !d(k).is_null() {
                    put(k, d(k));
                }
            }
        }
        "nft_cancel_sale" => {
            put("owner", a(&r.source));
            put("nft_item", a(&r.asset_secondary));
            put("nft_collection", a(&r.asset));
            put("sale_address", a(&r.destination));
            put("marketplace_address", d("marketplace_address"));
            put("marketplace", marketplace(&d("marketplace_address")));
        }
        "nft_discovery" => {
            put("source", a(&r.source));
            put("nft_item", a(&r.asset_secondary));
            put("nft_collection", a(&r.asset));
            put("nft_item_index", d("nft_item_index"));
        }
        "auction_bid" => {
            put("amount", s(&r.value));
            put("bidder", a(&r.source));
            put("auction", a(&r.destination));
            put("nft_item", a(&r.asset_secondary));
            put("nft_collection", a(&r.asset));
            put("nft_item_index", d("nft_item_index"));
        }
        "auction_outbid" => {
            put("auction_address", a(&r.source));
            put("bidder", a(&r.destination));
            put("new_bidder", a(&r.source_secondary));
            put("nft_item", a(&r.asset_secondary));
            put("nft_collection", a(&r.asset));
            put("amount", s(&r.amount));
            if !d("comment").is_null() {
                put("comment", d("comment"));
            }
        }
        "nft_put_on_sale" => {
            // As the Go server fills it: the marketplace named from the
            // sale's own marketplace, its address from a column toncenter
            // leaves empty.
            put("nft_collection", a(&r.asset));
            put("nft_item", a(&r.asset_secondary));
            put("nft_item_index", d("nft_item_index"));
            put("owner", a(&r.source));
            put("listing_address", a(&r.source_secondary));
            put("sale_address", a(&r.destination));
            put("marketplace_address", a(&r.destination_secondary));
            put("marketplace", marketplace(&d("marketplace_address")));
            for k in [
                "full_price",
                "marketplace_fee",
                "royalty_amount",
                "marketplace_fee_address",
                "royalty_address",
            ] {
                put(k, d(k));
            }
        }
        "nft_put_on_auction" | "teleitem_start_auction" => {
            // As the Go server fills them.
            put("nft_collection", a(&r.asset));
            put("nft_item", a(&r.asset_secondary));
            put("nft_item_index", d("nft_item_index"));
            put("owner", a(&r.source));
            put("listing_address", a(&r.source_secondary));
            put("auction_address", a(&r.destination));
            put("marketplace_address", a(&r.destination_secondary));
            for k in [
                "marketplace_fee_factor",
                "marketplace_fee_base",
                "royalty_fee_base",
                "max_bid",
                "min_bid",
                "marketplace_fee_address",
                "royalty_address",
            ] {
                put(k, d(k));
            }
            put("marketplace", marketplace(&a(&r.destination_secondary)));
        }
        "nft_cancel_auction" | "nft_finish_auction" | "teleitem_cancel_auction" => {
            put("owner", a(&r.source));
            put("auction_address", a(&r.destination));
            put("nft_item", a(&r.asset_secondary));
            put("nft_collection", a(&r.asset));
            put("marketplace_address", d("marketplace_address"));
            put("marketplace", marketplace(&d("marketplace_address")));
        }
        "nft_update_sale" => {
            put("source", a(&r.source));
            put("sale_contract", a(&r.destination));
            put("nft_address", a(&r.asset_secondary));
            put("marketplace_address", d("marketplace_address"));
            put("marketplace", marketplace(&d("marketplace_address")));
            for k in ["full_price", "marketplace_fee", "royalty_amount"] {
                put(k, d(k));
            }
        }
        "change_dns" => {
            // As the Go server fills it: the value under its schema's
            // field, a text record's text under dns_storage_address.
            let schema = d("value_schema");
            let field = match schema.as_str() {
                Some("DNSNextResolver") => Some("dns_next_resolver_address"),
                Some("DNSAdnlAddress") => Some("dns_adnl_address"),
                Some("DNSSmcAddress") => Some("dns_smc_address"),
                Some("DNSStorageAddress" | "DNSText") => Some("dns_storage_address"),
                _ => None,
            };
            let mut value = Map::new();
            value.insert("sum_type".into(), schema.clone());
            for f in [
                "dns_smc_address",
                "dns_adnl_address",
                "dns_text",
                "dns_next_resolver_address",
                "dns_storage_address",
            ] {
                let v = if Some(f) == field {
                    d("value")
                } else {
                    Value::Null
                };
                value.insert(f.into(), v);
            }
            value.insert("flags".into(), d("flags"));
            put("key", d("key"));
            put("value", Value::Object(value));
            put("source", a(&r.source));
            put("asset", a(&r.destination));
            put("nft_collection", a(&r.asset));
        }
        "delete_dns" => {
            put("hash", d("key"));
            put("source", a(&r.source));
            put("asset", a(&r.destination));
            put("nft_collection", a(&r.asset));
        }
        "renew_dns" => {
            put("source", a(&r.source));
            put("asset", a(&r.destination));
            put("nft_collection", a(&r.asset));
        }
        // Staking: the fields the Go server fills for each provider; the
        // ones a provider does not have stay null.
        "stake_deposit" => {
            put("provider", d("provider"));
            put("stake_holder", a(&r.source));
            put("pool", a(&r.destination));
            put("amount", s(&r.amount));
            put("tokens_minted", d("tokens_minted"));
            put("asset", a(&r.asset));
        }
        "stake_withdrawal" => {
            put("provider", d("provider"));
            put("stake_holder", a(&r.source));
            put("pool", a(&r.destination));
            put("amount", s(&r.amount));
            put("payout_nft", d("payout_nft"));
            put("tokens_burnt", d("tokens_burnt"));
            put("asset", a(&r.asset));
        }
        "stake_withdrawal_request" => {
            put("provider", d("provider"));
            put("stake_holder", a(&r.source));
            put("pool", a(&r.destination));
            put("payout_nft", d("payout_nft"));
            put("asset", a(&r.asset));
            put("tokens_burnt", d("tokens_burnt"));
        }
        "dns_purchase" => {
            put("nft_collection", a(&r.asset));
            put("nft_item", a(&r.asset_secondary));
            put("nft_item_index", d("nft_item_index"));
            put("new_owner", a(&r.destination));
            put("price", d("price"));
            put("query_id", d("query_id"));
            put("payout_amount", d("payout_amount"));
        }
        "dns_release" => {
            put("query_id", d("query_id"));
            put("source", a(&r.source));
            put("nft_item", a(&r.destination));
            put("nft_collection", a(&r.asset));
            put("nft_item_index", d("nft_item_index"));
            put("value", s(&r.value));
        }
        "election_deposit" | "election_recover" => {
            put("stake_holder", a(&r.source));
            if r.amount.is_some() {
                put("amount", s(&r.amount));
            }
        }
        // `omitempty` fields of the Go server left out when null.
        "subscribe" | "unsubscribe" => {
            put("subscriber", a(&r.source));
            if r.destination.is_some() {
                put("beneficiary", a(&r.destination));
            }
            put("subscription", a(&r.destination_secondary));
            if r.kind == "subscribe" || r.amount.is_some() {
                put("amount", s(&r.amount));
            }
        }
        "multisig_create_order" => {
            for k in [
                "query_id",
                "order_seqno",
                "is_created_by_signer",
                "is_signed_by_creator",
                "creator_index",
                "expiration_date",
                "order_boc",
            ] {
                put(k, d(k));
            }
            put("source", a(&r.source));
            put("destination", a(&r.destination));
            put("destination_order", a(&r.destination_secondary));
        }
        "multisig_approve" => {
            put("signer_index", d("signer_index"));
            put("exit_code", d("exit_code"));
            put("source", a(&r.source));
            put("destination", a(&r.destination));
        }
        "multisig_execute" => {
            for k in [
                "query_id",
                "order_seqno",
                "expiration_date",
                "approvals_num",
                "signers_hash",
                "order_boc",
            ] {
                put(k, d(k));
            }
            put("source", a(&r.source));
            put("destination", a(&r.destination));
        }
        "vesting_send_message" => {
            put("query_id", d("query_id"));
            put("message_boc", d("message_boc"));
            put("source", a(&r.source));
            put("vesting", a(&r.destination));
            put("destination", a(&r.destination_secondary));
            put("amount", s(&r.amount));
        }
        "vesting_add_whitelist" => {
            put("query_id", d("query_id"));
            put("accounts_added", d("accounts_added"));
            put("source", a(&r.source));
            put("vesting", a(&r.destination));
        }
        "jetton_swap" => {
            put("dex", d("dex"));
            put("sender", d("sender"));
            put("asset_in", a(&r.asset));
            put("asset_out", d("asset2"));
            put("dex_incoming_transfer", d("dex_incoming_transfer"));
            put("dex_outgoing_transfer", d("dex_outgoing_transfer"));
            put("peer_swaps", d("peer_swaps"));
            if !d("min_out_amount").is_null() {
                put("min_out_amount", d("min_out_amount"));
            }
        }
        "dex_deposit_liquidity" => {
            put("dex", d("dex"));
            put("amount_1", d("amount1"));
            put("amount_2", d("amount2"));
            put("asset_1", d("asset1"));
            put("asset_2", d("asset2"));
            put("user_jetton_wallet_1", d("user_jetton_wallet_1"));
            put("user_jetton_wallet_2", d("user_jetton_wallet_2"));
            put("source", a(&r.source));
            put("pool", a(&r.destination));
            put("destination_liquidity", a(&r.destination_secondary));
            for k in [
                "lp_tokens_minted",
                "target_asset_1",
                "target_asset_2",
                "target_amount_1",
                "target_amount_2",
                "vault_excesses",
                "tick_lower",
                "tick_upper",
                "nft_index",
                "nft_address",
            ] {
                put(k, d(k));
            }
        }
        "dex_withdraw_liquidity" => {
            put("dex", d("dex"));
            put("amount_1", d("amount1"));
            put("amount_2", d("amount2"));
            put("asset_1", d("asset1_out"));
            put("asset_2", d("asset2_out"));
            put("user_jetton_wallet_1", d("user_jetton_wallet_1"));
            put("user_jetton_wallet_2", d("user_jetton_wallet_2"));
            put("lp_tokens_burnt", d("lp_tokens_burnt"));
            put("is_refund", d("is_refund"));
            put("source", a(&r.source));
            put("pool", a(&r.destination));
            put("destination_liquidity", a(&r.destination));
            put("burnt_nft_index", d("burned_nft_index"));
            put("burnt_nft_address", d("burned_nft_address"));
            put("tick_lower", d("tick_lower"));
            put("tick_upper", d("tick_upper"));
        }
        "tonco_deploy_pool" => {
            put("source", a(&r.source));
            put("pool", a(&r.destination_secondary));
            put("router", a(&r.destination));
            put("router_jetton_wallet_1", d("jetton0_router_wallet"));
            put("router_jetton_wallet_2", d("jetton1_router_wallet"));
            put("jetton_minter_1", d("jetton0_minter"));
            put("jetton_minter_2", d("jetton1_minter"));
            for k in [
                "tick_spacing",
                "initial_price_x96",
                "protocol_fee",
                "lp_fee_base",
                "lp_fee_current",
                "pool_active",
            ] {
                put(k, d(k));
            }
        }
        "coffee_create_pool_creator" => {
            put("source", a(&r.source));
            put("source_jetton_wallet", a(&r.source_secondary));
            put("deposit_recipient", a(&r.destination));
            put("pool_creator_contract", a(&r.destination_secondary));
            put("provided_asset", a(&r.asset));
            put("asset_1", d("asset2"));
            put("asset_2", d("asset2_secondary"));
            put("amount", s(&r.amount));
        }
        "coffee_create_pool" => {
            put("source", a(&r.source));
            put("source_jetton_wallet", a(&r.source_secondary));
            put("initiator_1", d("initiator_1"));
            put("initiator_2", d("initiator_2"));
            put("pool", a(&r.destination));
            put("pool_creator_contract", a(&r.destination_secondary));
            put("provided_asset", d("provided_asset"));
            put("amount", s(&r.amount));
            put("asset_1", a(&r.asset));
            put("asset_2", d("asset2"));
            put("amount_1", d("amount_1"));
            put("amount_2", d("amount_2"));
            put("lp_tokens_minted", d("lp_tokens_minted"));
        }
        "coffee_create_vault" => {
            put("source", a(&r.source));
            put("vault", a(&r.destination));
            put("asset", a(&r.asset));
            put("value", s(&r.value));
        }
        "coffee_mev_protect_hold_funds" => {
            put("source", a(&r.source));
            put("source_jetton_wallet", a(&r.source_secondary));
            put("mev_contract", a(&r.destination));
            put("mev_contract_jetton_wallet", a(&r.destination_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
        }
        // No row of the spec's table (toncenter's server answers an
        // "unsupported action type" error): who gets the funds back, and
        // of which Jetton (null for TON).
        "coffee_mev_protect_failed_swap" => {
            put("recipient", a(&r.destination));
            put("asset", a(&r.asset));
        }
        "coffee_staking_deposit" => {
            put("source", a(&r.source));
            put("source_jetton_wallet", a(&r.source_secondary));
            put("pool", a(&r.destination));
            put("pool_jetton_wallet", a(&r.destination_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
            put("minted_item_address", d("minted_item_address"));
            put("minted_item_index", d("minted_item_index"));
        }
        "coffee_staking_withdraw" => {
            put("source", a(&r.source));
            put("source_jetton_wallet", a(&r.source_secondary));
            put("pool", a(&r.destination));
            put("pool_jetton_wallet", a(&r.destination_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
            put("nft_address", d("nft_address"));
            put("nft_index", d("nft_index"));
            put("points", d("points"));
        }
        "coffee_staking_claim_rewards" => {
            put("pool", a(&r.source));
            put("pool_jetton_wallet", a(&r.source_secondary));
            put("recipient", a(&r.destination));
            put("recipient_jetton_wallet", a(&r.destination_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
        }
        "jvault_stake" => {
            put("period", d("period"));
            put("minted_stake_jettons", Value::Null);
            put("stake_wallet", d("stake_wallet"));
            put("source", a(&r.source));
            put("source_jetton_wallet", a(&r.source_secondary));
            put("asset", a(&r.asset));
            put("pool", a(&r.destination));
            put("amount", s(&r.amount));
        }
        "jvault_unstake" | "jvault_unstake_request" => {
            put("source", a(&r.source));
            put("stake_wallet", a(&r.source_secondary));
            put("pool", a(&r.destination));
            put("amount", s(&r.amount));
            put(
                "exit_code",
                r.opcode.map_or(Value::Null, |c| Value::from(c as i32)),
            );
            put("asset", a(&r.asset));
            put("staking_asset", d("asset2"));
        }
        "jvault_claim" => {
            let jettons = d("claimed_jettons");
            let amounts = d("claimed_amounts");
            let rewards: Vec<Value> = jettons
                .as_array()
                .into_iter()
                .flatten()
                .zip(amounts.as_array().into_iter().flatten())
                .map(|(j, amt)| serde_json::json!({"jetton": j, "amount": amt}))
                .collect();
            put("claimed_rewards", Value::Array(rewards));
            put("source", a(&r.source));
            put("stake_wallet", a(&r.source_secondary));
            put("pool", a(&r.destination));
        }
        "layerzero_send" | "layerzero_send_tokens" => {
            let mut send = data.clone();
            let packet = send.remove("packet").unwrap_or(Value::Null);
            if r.kind == "layerzero_send" {
                put("initiator", a(&r.source));
            } else {
                put("sender", a(&r.source));
                put("sender_wallet", a(&r.source_secondary));
                put("oapp", a(&r.destination));
                put("oapp_wallet", a(&r.destination_secondary));
                put("asset", a(&r.asset));
                put("amount", s(&r.amount));
            }
            put("layerzero_send_data", Value::Object(send));
            put("layerzero_packet_data", packet);
        }
        "layerzero_receive" => {
            put("sender", a(&r.source));
            put("oapp", a(&r.destination));
            put("channel", a(&r.destination_secondary));
            put("layerzero_packet_data", d("packet"));
        }
        "layerzero_commit_packet" => {
            put("sender", a(&r.source));
            put("endpoint", a(&r.source_secondary));
            put("uln", a(&r.destination));
            put("uln_connection", a(&r.destination_secondary));
            put("channel", a(&r.asset));
            put("msglib_connection", a(&r.asset_secondary));
            put("layerzero_packet_data", d("packet"));
        }
        "layerzero_dvn_verify" => {
            put("initiator", a(&r.source));
            for k in ["nonce", "status", "dvn", "proxy", "uln", "uln_connection"] {
                put(k, d(k));
            }
        }
        "tgbtc_mint" | "tgbtc_mint_fallback" => {
            put("source", a(&r.source));
            put("destination", a(&r.destination));
            put("amount", s(&r.amount));
            put("asset", a(&r.asset));
            put("bitcoin_tx_id", d("bitcoin_tx_id"));
            put("destination_wallet", a(&r.destination_secondary));
        }
        "tgbtc_burn" | "tgbtc_burn_fallback" => {
            put("source", a(&r.source));
            put("source_wallet", a(&r.source_secondary));
            put("destination", a(&r.destination));
            put("amount", s(&r.amount));
            put("asset", a(&r.asset));
        }
        "tgbtc_new_key" | "tgbtc_new_key_fallback" => {
            put("source", a(&r.source));
            put("pubkey", d("pubkey"));
            put("coordinator", a(&r.destination));
            put("pegout", a(&r.destination_secondary));
            put("amount", s(&r.amount));
            put("asset", a(&r.asset));
        }
        "tgbtc_dkg_log_fallback" => {
            put("coordinator", a(&r.source));
            put("pubkey", d("pubkey"));
            put(
                "timestamp",
                r.value
                    .as_ref()
                    .map_or(Value::Null, |v| Value::String(v.clone())),
            );
        }
        k if k.starts_with("cocoon_") => {
            for (k, v) in &data {
                put(k, v.clone());
            }
            for (k, v) in [
                ("source", &r.source),
                ("source_secondary", &r.source_secondary),
                ("destination", &r.destination),
                ("destination_secondary", &r.destination_secondary),
            ] {
                if v.is_some() {
                    put(k, a(v));
                }
            }
            if r.amount.is_some() {
                put("amount", s(&r.amount));
            }
        }
        "unknown" => {}
        other => {
            put(
                "error",
                Value::String(format!("unsupported action type: '{other}'")),
            );
        }
    }
    Value::Object(o)
}

impl ActionJson {
    /// The action of an emulated trace: not final.
    pub fn pending(self) -> Self {
        Self {
            finality: "pending",
            ..self
        }
    }
}

/// An action row as v3 shows it, with its trace's fields.
pub fn action_json(r: &ActionRecord, trace: &TraceRecord, accounts: bool) -> ActionJson {
    ActionJson {
        trace_id: b64(&r.trace_id),
        action_id: b64(&r.action_id),
        start_lt: r.start_lt.to_string(),
        end_lt: r.end_lt.to_string(),
        start_utime: r.start_utime,
        end_utime: r.end_utime,
        trace_end_lt: trace.end_lt.to_string(),
        trace_end_utime: trace.end_utime,
        trace_mc_seqno_end: trace.mc_seqno_end,
        transactions: r.tx_hashes.iter().map(|h| b64(h)).collect(),
        success: r.success,
        kind: r.kind.clone(),
        details: details(r),
        trace_external_hash: trace.external_hash.as_ref().map(|h| b64(h)),
        trace_external_hash_norm: trace.external_hash_norm.as_ref().map(|h| b64(h)),
        accounts: accounts.then(|| r.accounts.iter().map(raw_upper).collect()),
        transactions_full: None,
        finality: "finalized",
    }
}

#[derive(Serialize)]
struct ActionsResponse {
    actions: Vec<ActionJson>,
    address_book: AddressBook,
    metadata: BTreeMap<String, ()>,
}

/// Traces (newest or oldest first) whose actions a filter looks at.
fn candidate_traces(ctx: &Ctx<'_>, p: &Params, paging: &Paging) -> Result<Vec<Hash>, V3Error> {
    let r = &ctx.reader;
    let hashes = |name: &str| p.parsed_all(name, "a hash", parse_hash);
    let action_ids = hashes("action_id")?;
    if !action_ids.is_empty() {
        let mut out = Vec::new();
        for id in &action_ids {
            out.extend(query::traces::trace_of_action(r, id)?);
        }
        return Ok(out);
    }
    let trace_ids = hashes("trace_id")?;
    let tx_hashes = hashes("tx_hash")?;
    let msg_hashes = hashes("msg_hash")?;
    let account = p.parsed("account", "an address", parse_address)?;
    if !trace_ids.is_empty() {
        return Ok(trace_ids);
    }
    if !tx_hashes.is_empty() {
        return traces_of_txs(ctx, &tx_hashes);
    }
    if !msg_hashes.is_empty() {
        return traces_of_messages(ctx, &msg_hashes);
    }
    if let Some(mc) = p.int::<u32>("mc_seqno")? {
        if query::blocks::mc_block(r, mc)?.is_none() {
            return Err(V3Error::not_found(format!(
                "masterchain block {mc} not found"
            )));
        }
        let ids = query::traces::completed_in_mc_block(r, mc, paging.desc)?;
        return Ok(ids.into_iter().map(|(_, h)| h).collect());
    }
    let lo = p.int::<u64>("start_lt")?.unwrap_or(0);
    let hi = p.int::<u64>("end_lt")?.unwrap_or(u64::MAX);
    let wanted = paging
        .offset
        .saturating_add(paging.limit)
        .saturating_mul(4)
        .max(64);
    let iter: Box<dyn Iterator<Item = _>> = match &account {
        Some(acc) => Box::new(query::traces::action_trace_ids(
            r,
            &acc.address,
            lo,
            hi,
            paging.desc,
        )),
        None => query::traces::settled_trace_ids(r, None, lo, hi, paging.desc),
    };
    let mut out = Vec::new();
    for x in iter.take(wanted) {
        out.push(x?.1);
    }
    Ok(out)
}

/// The traces of transactions given by hash.
pub fn traces_of_txs(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Hash>, V3Error> {
    let mut ids = Vec::new();
    for h in hashes {
        ids.extend(query::transactions::tx_id_by_hash(&ctx.reader, h)?);
    }
    let mut out = Vec::new();
    for t in query::traces::traces_of_tx_ids(&ctx.reader, &ids)? {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// The traces holding messages given by hash (or TEP-467 normalized hash).
pub fn traces_of_messages(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Hash>, V3Error> {
    let r = &ctx.reader;
    let msgs = query::messages::msg_hashes_or_norm(r, hashes)?;
    let mut ids = Vec::new();
    for m in &msgs {
        for side in [Side::Sender, Side::Receiver] {
            ids.extend(query::messages::txs_of_message(r, m, side)?);
        }
    }
    let mut out = Vec::new();
    for t in query::traces::traces_of_tx_ids(r, &ids)? {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// `GET /api/v3/actions`.
pub fn actions(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let paging = Paging::from_params(ctx, p)?;
    let supported = supported_types(p)?;
    let include: Vec<String> = type_list(p, "action_type")?;
    let exclude: Vec<String> = type_list(p, "exclude_action_type")?;
    let include_accounts = p.bool("include_accounts")?.unwrap_or(false);
    let include_txs = p.bool("include_transactions")?.unwrap_or(false);
    let account = p
        .parsed("account", "an address", parse_address)?
        .map(|a| a.address);
    let start_utime = p.parsed("start_utime", "a unix time", parse_utime)?;
    let end_utime = p.parsed("end_utime", "a unix time", parse_utime)?;
    let tx_filter = p.parsed_all("tx_hash", "a hash", parse_hash)?;
    let action_filter = p.parsed_all("action_id", "a hash", parse_hash)?;
    let traces = candidate_traces(ctx, p, &paging)?;
    let mut rows: Vec<(TraceRecord, ActionRecord)> = Vec::new();
    for id in &traces {
        let Some(trace) = query::traces::trace(&ctx.reader, id)? else {
            continue;
        };
        if start_utime.is_some_and(|u| u64::from(trace.end_utime) < u)
            || end_utime.is_some_and(|u| u64::from(trace.end_utime) > u)
        {
            continue;
        }
        for act in query::traces::trace_actions(&ctx.reader, id)? {
            let shown = if include.is_empty() {
                visible(&act, &supported)
            } else {
                include.contains(&act.kind)
            };
            if !shown
                || exclude.contains(&act.kind)
                || account.is_some_and(|acc| !act.accounts.contains(&acc))
                || (!tx_filter.is_empty() && !act.tx_hashes.iter().any(|h| tx_filter.contains(h)))
                || (!action_filter.is_empty() && !action_filter.contains(&act.action_id))
            {
                continue;
            }
            rows.push((trace.clone(), act));
        }
    }
    let key = |(t, a): &(TraceRecord, ActionRecord)| (t.end_lt, t.trace_id, a.end_lt, a.action_id);
    rows.sort_by_key(key);
    if paging.desc {
        rows.reverse();
    }
    let rows = paging.page(rows);
    let mut addresses = Vec::new();
    let mut out = Vec::with_capacity(rows.len());
    for (trace, act) in &rows {
        addresses.extend(act.accounts.iter().copied());
        let mut j = action_json(act, trace, include_accounts);
        if include_txs {
            j.transactions_full = Some(full_transactions(ctx, &act.tx_hashes)?);
        }
        out.push(j);
    }
    let address_book = address_book::build(ctx, p, addresses)?;
    to_json(&ActionsResponse {
        actions: out,
        address_book,
        metadata: BTreeMap::new(),
    })
}

fn type_list(p: &Params, name: &str) -> Result<Vec<String>, V3Error> {
    let mut out = Vec::new();
    for v in p.all(name) {
        for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            check_type_name(n)?;
            out.push(n.to_string());
        }
    }
    Ok(out)
}

/// Transactions by hash as v3 shows them.
pub fn full_transactions(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Transaction>, V3Error> {
    let mut ids = Vec::new();
    for h in hashes {
        ids.extend(query::transactions::tx_id_by_hash(&ctx.reader, h)?);
    }
    let txs = query::transactions::full_txs(&ctx.reader, &ids)?;
    let mut out: Vec<Transaction> = txs.iter().map(Transaction::from).collect();
    for t in &mut out {
        t.account_state_before.fill(&ctx.reader)?;
        t.account_state_after.fill(&ctx.reader)?;
    }
    Ok(out)
}

/// `GET /api/v3/pendingActions`: the actions of emulated traces.
pub fn pending_actions(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let supported = supported_types(p)?;
    let include_txs = p.bool("include_transactions")?.unwrap_or(false);
    let account = p
        .parsed("account", "an address", parse_address)?
        .map(|a| a.address);
    let mut out = Vec::new();
    let mut addresses = Vec::new();
    for t in super::traces::pending_selected(ctx, p)? {
        for act in t.actions.iter().filter(|a| visible(a, &supported)) {
            if account.is_some_and(|acc| !act.accounts.contains(&acc)) {
                continue;
            }
            addresses.extend(act.accounts.iter().copied());
            let mut j = action_json(act, &t.trace, false).pending();
            if include_txs {
                let full = t
                    .txs
                    .iter()
                    .filter(|f| act.tx_hashes.contains(&f.tx.hash))
                    .map(|f| super::traces::transaction_json(ctx, f, true))
                    .collect::<Result<Vec<_>, _>>()?;
                j.transactions_full = Some(full);
            }
            out.push(j);
        }
    }
    let address_book = address_book::build(ctx, p, addresses)?;
    to_json(&ActionsResponse {
        actions: out,
        address_book,
        metadata: BTreeMap::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(name: &str) -> HashSet<String> {
        let mut out = HashSet::new();
        expand(name, &mut out, 0);
        out
    }

    #[test]
    fn shortcuts_expand_to_the_spec_sets() {
        // v1 23 types, v2 23 more (with unknown), v3 17 more, v4 the 12 cocoon types.
        assert_eq!(set("v1").len(), 23);
        assert_eq!(set("v2").len(), 46);
        assert_eq!(set("v3").len(), 63);
        assert_eq!(set("latest").len(), 75);
        assert!(set("latest").is_superset(&set("nft.v3")));
        assert!(set("nft.v3").contains("nft_mint") && set("nft.v3").contains("dns_release"));
        assert_eq!(set("layerzero").len(), 5);
        assert!(
            !set("latest").contains("tgbtc_mint"),
            "tgBTC is asked for by name"
        );
        assert_eq!(
            set("jetton_transfer").len(),
            1,
            "any other string is a type"
        );
    }
}
