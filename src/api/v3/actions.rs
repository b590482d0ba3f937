//! `/actions` (spec v3 §4.2) and how an action row becomes its JSON with
//! per-type `details` (§4.5) — shared with `/traces?include_actions=true`.
//! The action-type sets clients ask for (§4.4) are in `action_types`.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};
use tonindex_model::{ActionRecord, Address, Hash, TraceRecord};

use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::models::{AccountState, Transaction};
use super::{BookMetadataArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, raw_upper, ParsedAddress};
use crate::api::params::Params;
use crate::api::request::{request, Utime};
use crate::api::Ctx;
use crate::query::traces::TraceOrder;
use crate::query::{self, messages::Side};

use super::action_types::type_list;
pub use super::action_types::{supported_types, visible};

/// One action as v3 shows it.
#[derive(Serialize, utoipa::ToSchema)]
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

/// EVAA's asset ids (hex, as the classifier writes them) and the Jetton
/// masters they stand for on mainnet, as toncenter's server maps them for
/// `evaa_liquidate` (facts; TON's id stands for TON, null).
const EVAA_TON_ASSET_ID: &str =
    "0x1a4219fe5e60d63af2a3cc7dce6fec69b45c6b5718497a6148e7c232ac87bd8a";
const EVAA_ASSETS: &[(&str, &str)] = &[
    (
        "0xb387968236197958ca4ac55e9b5be38e688c7631af84c86756431f49a878ef33",
        "0:729C13B6DF2C07CBF0A06AB63D34AF454F3D320EC1BCD8FB5C6D24D0806A17C2",
    ),
    (
        "0x83d916c68510802104d1f75aa6ce30eb1e477aede0d380eee2188e0e56581fc6",
        "0:7E30FC2B7751BA58A3642F3FD59D5E96A810DDD78D8A310BFE8353BEF10500DF",
    ),
    (
        "0x495668e908644f30322b997de8faaafc21f05aa52f8982f042dac1fe0b4d09d0",
        "0:CD872FA7C5816052ACDF5332260443FAEC9AACC8C21CCA4D92E7F47034D11892",
    ),
    (
        "0x3313e2f57ba870af34480350c789b0987d15b43a53172bfce294de21e7d724e7",
        "0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000",
    ),
    (
        "0xca9006bd3fb03d355daeeff93b24be90afaa6e3ca0073ff5720f8a852c933278",
        "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE",
    ),
    (
        "0xe025e6a575f174da6d62577c1fe204ccaa5d1e47c55c6b20c67daee56c357b60",
        "0:3E5FFCA8DDFCF36C36C9FF46F31562AAB51B9914845AD6C26CBDE649D58A5588",
    ),
    (
        "0x9c77a4d798a8f500dcfb877a07227c4ca9d6782504cdc7ce2ad0051e5641c032",
        "0:8D636010DD90D8C0902AC7F9F397D8BD5E177F131EE2CCA24CE894F15D19CEEA",
    ),
    (
        "0x6bfa124cc1343d14ba57ded299f6f514f5f26777099e3c378922ce4081ecbf91",
        "0:AEA78C710AE94270DC263A870CF47B4360F53CC5ED38E3DB502E9E9AFB904B11",
    ),
    (
        "0xe08b1f092e7240fb61bf8249d71aa635102acdd50122138105c35dd2896b5331",
        "0:FE72F474373E97032441BDB873F9A6D3AD10BAB08E6DBC7BEFA5E42B695F5400",
    ),
    (
        "0x70930360b81e5f4ef2e06d2bf64978b44d4b87fb85d78788e001cdf8812d13d1",
        "0:AFC49CB8786F21C87045B19EDE78FC6B46C51048513F8E9A6D44060199C1BF0C",
    ),
    (
        "0x8be3365cabaa6a0f90d2e64f03fa78268c135fe0b0758b576b447e9b2068d75d",
        "0:2F956143C461769579BAEF2E32CC2D7BC18283F40D20BB03E432CD603AC33FFC",
    ),
    (
        "0xb372eaca5210612d285f3fdd30e87a0c3a443f1bb7578e16da72563241997ca1",
        "0:1F1798F724C2296652E6002BFB51BED11FB5A689532E5788AF7203581EF367A8",
    ),
    (
        "0xb8a51f42ccbb912d973e58a22dda26decc7dfc83718c325c24432045ad78dc5a",
        "0:E8CB571401B1AADB9DEFC1FA0F72A4A5A0E0D5016903067891D763C91541E72B",
    ),
    (
        "0xc585bac25948a5feea8f2a9e052eb45995882b15dfb784b37cd271cc163f3aea",
        "0:5EE20B5240CC4CE51A4C60BAF8C9D358EF617C26463E89C6571B534972C8EEF1",
    ),
    (
        "0xd9496f9b279a4e26c49eb65d5c47c79b6dfdea16c9baefa9158a7dfbbbcac04a",
        "0:086FA2A675F74347B08DD4606A549B8FDB98829CB282BC1949D3B12FBAED9DCC",
    ),
    (
        "0x4a4bae807cc87355de2ead44b21a739d9d35e9bba9a217f5cc9c0108197ad137",
        "0:D0E545323C7ACB7102653C073377F7E3C67F122EB94D430A250739F109D4A57D",
    ),
];

/// An EVAA asset id as `(asset, is_known_asset)`: TON is null and known;
/// a listed Jetton its master; anything else null and unknown.
fn evaa_asset(asset_id: &Value) -> (Value, bool) {
    match asset_id.as_str() {
        Some(EVAA_TON_ASSET_ID) => (Value::Null, true),
        Some(id) => match EVAA_ASSETS.iter().find(|(k, _)| *k == id) {
            Some((_, master)) => (Value::String((*master).to_string()), true),
            None => (Value::Null, false),
        },
        None => (Value::Null, false),
    }
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
            if d("provider") == "ethena" {
                // What was staked (USDe); `asset` is what it became.
                put("source_asset", d("asset2"));
            }
        }
        "stake_withdrawal" => {
            put("provider", d("provider"));
            put("stake_holder", a(&r.source));
            put("pool", a(&r.destination));
            put("amount", s(&r.amount));
            put("payout_nft", d("ts_nft"));
            put("tokens_burnt", d("tokens_burnt"));
            put("asset", a(&r.asset));
        }
        "stake_withdrawal_request" => {
            put("provider", d("provider"));
            put("stake_holder", a(&r.source));
            put("pool", a(&r.destination));
            put("payout_nft", d("ts_nft"));
            put("asset", a(&r.asset));
            // A Tonstakers request burns its amount of tsTON; Ethena's
            // mints the timelocked tokens.
            match d("provider").as_str() {
                Some("liquid_staking") => put("tokens_burnt", s(&r.amount)),
                _ => put("tokens_burnt", Value::Null),
            }
            if d("provider") == "ethena" {
                put("tokens_minted", d("tokens_minted"));
            }
        }
        // EVAA: the fields the Go server fills; the sender's Jetton wallet
        // is a column toncenter's classifier never fills (always null).
        "evaa_supply" => {
            put("sender_jetton_wallet", Value::Null);
            for k in [
                "recipient_jetton_wallet",
                "master_jetton_wallet",
                "master",
                "asset_id",
                "is_ton",
            ] {
                put(k, d(k));
            }
            put("source", a(&r.source));
            put("source_wallet", a(&r.source_secondary));
            put("recipient", a(&r.destination));
            put("recipient_contract", a(&r.destination_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
        }
        "evaa_withdraw" => {
            for k in [
                "recipient_jetton_wallet",
                "master_jetton_wallet",
                "master",
                "fail_reason",
                "asset_id",
            ] {
                put(k, d(k));
            }
            put("source", a(&r.source));
            put("recipient", a(&r.destination));
            put("owner_contract", a(&r.destination_secondary));
            put("asset", a(&r.asset));
            put("amount", s(&r.amount));
        }
        "evaa_liquidate" => {
            put("fail_reason", d("fail_reason"));
            put("debt_amount", d("debt_amount"));
            put("source", a(&r.source));
            put("borrower", a(&r.destination));
            put("borrower_contract", a(&r.destination_secondary));
            put("collateral", d("collateral"));
            put("asset_id", d("asset_id"));
            let (asset, known) = evaa_asset(&d("asset_id"));
            put("asset", asset);
            put("is_known_asset", known.into());
            put("amount", s(&r.amount));
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
            // The spec: never filled, always null (toncenter's API does not
            // read the classifier's flag).
            put("is_refund", Value::Null);
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
    /// The action of a trace not committed yet, at its level.
    pub fn at(self, level: crate::api::pending::Level) -> Self {
        Self {
            finality: level.finality(),
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

request! {
    /// The action types a client understands.
    pub struct ActionTypesArgs {
        /// Action types or shortcuts the client understands (also the X-Actions-Version header; default latest)
        supported_action_types: Vec<String>,
    }
}

request! {
    /// `/actions`' filters.
    pub struct ActionsRequest {
        /// Actions involving this account
        account: Option<ParsedAddress>,
        /// Actions of these transactions
        tx_hash: Vec<[u8; 32]>,
        /// Actions of the traces of these messages
        msg_hash: Vec<[u8; 32]>,
        /// Actions by id
        action_id: Vec<[u8; 32]>,
        /// Actions of these traces
        trace_id: Vec<[u8; 32]>,
        /// Traces completed in this masterchain block
        mc_seqno: Option<u32>,
        /// Only these action types
        action_type: Vec<String>,
        /// Leave out these action types
        exclude_action_type: Vec<String>,
        /// Attach each action's accounts
        include_accounts: Option<bool>,
        /// Attach each action's transactions
        include_transactions: Option<bool>,
        /// Traces ending not before this unix time
        start_utime: Option<Utime>,
        /// Traces ending not after this unix time
        end_utime: Option<Utime>,
        /// Traces ending not below this logical time
        start_lt: Option<u64>,
        /// Traces ending not above this logical time
        end_lt: Option<u64>,
    }
    with { types: ActionTypesArgs, paging: PagingArgs, shape: BookMetadataArgs }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ActionsResponse {
    actions: Vec<ActionJson>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

/// The traces whose actions a request looks at: those it names (a list,
/// sorted later), or every trace in an lt window, by account or all, in
/// answer order from an index (read only as far as the page needs).
enum Candidates<'a> {
    Named(Vec<Hash>),
    Ordered(query::traces::TraceIds<'a>),
}

fn candidate_traces<'a>(
    ctx: &'a Ctx<'_>,
    q: &ActionsRequest,
    paging: &Paging,
    types: Option<&[String]>,
) -> Result<Candidates<'a>, V3Error> {
    let r = &ctx.reader;
    let action_ids = &q.action_id;
    if !action_ids.is_empty() {
        let mut out = Vec::new();
        for id in action_ids {
            out.extend(query::traces::trace_of_action(r, id)?);
        }
        return Ok(Candidates::Named(out));
    }
    let (tx_hashes, msg_hashes) = (&q.tx_hash, &q.msg_hash);
    if !q.trace_id.is_empty() {
        return Ok(Candidates::Named(q.trace_id.clone()));
    }
    if !tx_hashes.is_empty() {
        return Ok(Candidates::Named(traces_of_txs(ctx, tx_hashes)?));
    }
    if !msg_hashes.is_empty() {
        return Ok(Candidates::Named(traces_of_messages(ctx, msg_hashes)?));
    }
    if let Some(mc) = q.mc_seqno {
        if query::blocks::mc_block(r, mc)?.is_none() {
            return Err(V3Error::not_found(format!(
                "masterchain block {mc} not found"
            )));
        }
        let ids = query::traces::completed_in_mc_block(r, mc, paging.desc)?;
        return Ok(Candidates::Named(ids.into_iter().map(|(_, h)| h).collect()));
    }
    // A time window is a key range of the end-time indexes (whose order v3
    // then answers in), else the lt window one of the end-lt indexes; the
    // records are checked against both.
    let (start_utime, end_utime) = (q.start_utime.map(|t| t.0), q.end_utime.map(|t| t.0));
    let (order, lo, hi) = if start_utime.is_some() || end_utime.is_some() {
        let (lo, hi) = (start_utime.unwrap_or(0), end_utime.unwrap_or(u64::MAX));
        (TraceOrder::EndUtime, lo, hi)
    } else {
        let lo = q.start_lt.unwrap_or(0);
        let hi = q.end_lt.unwrap_or(u64::MAX);
        (TraceOrder::EndLt, lo, hi)
    };
    let account = q.account.map(|a| a.address);
    if let Some(types) = types {
        // The types' indexes name only traces with such an action.
        return Ok(Candidates::Ordered(query::traces::typed_trace_ids(
            r,
            account.as_ref(),
            order,
            types,
            lo,
            hi,
            paging.desc,
        )));
    }
    Ok(Candidates::Ordered(match &account {
        Some(acc) => query::traces::action_trace_ids(r, acc, order, lo, hi, paging.desc),
        None => query::traces::settled_trace_ids(r, None, order, lo, hi, paging.desc),
    }))
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
pub fn actions(ctx: &Ctx<'_>, _: &Params, q: ActionsRequest) -> Result<ActionsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let supported = supported_types(&q.types.supported_action_types)?;
    let include: Vec<String> = type_list(&q.action_type)?;
    let exclude: Vec<String> = type_list(&q.exclude_action_type)?;
    let include_accounts = q.include_accounts.unwrap_or(false);
    let include_txs = q.include_transactions.unwrap_or(false);
    let account = q.account.map(|a| a.address);
    let start_utime = q.start_utime.map(|t| t.0);
    let end_utime = q.end_utime.map(|t| t.0);
    let tx_filter = &q.tx_hash;
    let action_filter = &q.action_id;
    let start_lt = q.start_lt.unwrap_or(0);
    let end_lt = q.end_lt.unwrap_or(u64::MAX);
    // v3's order: `trace_end_lt, trace_id, end_lt, action_id`, by times
    // instead of lts when the request filters by time.
    let by_utime = start_utime.is_some() || end_utime.is_some();
    let trace_end = |t: &TraceRecord| {
        if by_utime {
            u64::from(t.end_utime)
        } else {
            t.end_lt
        }
    };
    let action_end = |a: &ActionRecord| {
        if by_utime {
            u64::from(a.end_utime)
        } else {
            a.end_lt
        }
    };
    // One trace's actions that pass every filter.
    let take = |r: &tonindex_storage::Reader<'_>,
                trace: TraceRecord,
                rows: &mut Vec<(TraceRecord, ActionRecord)>|
     -> Result<(), tonindex_storage::Error> {
        if start_utime.is_some_and(|u| u64::from(trace.end_utime) < u)
            || end_utime.is_some_and(|u| u64::from(trace.end_utime) > u)
            || !(start_lt..=end_lt).contains(&trace.end_lt)
        {
            return Ok(());
        }
        let mut kept: Vec<ActionRecord> = query::traces::trace_actions(r, &trace.trace_id)?
            .into_iter()
            .filter(|act| {
                let shown = if include.is_empty() {
                    visible(act, &supported)
                } else {
                    include.contains(&act.kind)
                };
                shown
                    && !exclude.contains(&act.kind)
                    && account.is_none_or(|acc| act.accounts.contains(&acc))
                    && (tx_filter.is_empty() || act.tx_hashes.iter().any(|h| tx_filter.contains(h)))
                    && (action_filter.is_empty() || action_filter.contains(&act.action_id))
            })
            .collect();
        // Within a trace, in answer order too.
        kept.sort_by_key(|a| (action_end(a), a.action_id));
        if paging.desc {
            kept.reverse();
        }
        rows.extend(kept.into_iter().map(|a| (trace.clone(), a)));
        Ok(())
    };
    // The type indexes to walk: the types named, or with only exclusions
    // the types a client sees less those excluded (a shown action's type
    // is in `supported`), so that traces holding only excluded actions
    // are never read.
    let index_types: Option<Vec<String>> = if !include.is_empty() {
        Some(include.clone())
    } else if !exclude.is_empty() {
        let mut types: Vec<String> = supported
            .iter()
            .filter(|t| !exclude.contains(t))
            .cloned()
            .collect();
        types.sort();
        Some(types)
    } else {
        None
    };
    let mut rows = match candidate_traces(ctx, &q, &paging, index_types.as_deref())? {
        Candidates::Named(mut ids) => {
            // Two named actions of one trace name it once.
            let mut seen = HashSet::new();
            ids.retain(|id| seen.insert(*id));
            let mut rows = Vec::new();
            for trace in query::traces::traces(&ctx.reader, &ids)? {
                take(&ctx.reader, trace, &mut rows)?;
            }
            rows
        }
        Candidates::Ordered(ids) => {
            query::traces::fill_page(&ctx.reader, ids, paging.needed(), take)?
        }
    };
    let key = |(t, a): &(TraceRecord, ActionRecord)| {
        (trace_end(t), t.trace_id, action_end(a), a.action_id)
    };
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
    let address_book = address_book::build(ctx, &q.shape.book, addresses.iter().copied())?;
    Ok(ActionsResponse {
        actions: out,
        address_book,
        metadata: metadata::build(ctx, &q.shape, addresses)?,
    })
}

/// Transactions by hash as v3 shows them.
pub fn full_transactions(ctx: &Ctx<'_>, hashes: &[Hash]) -> Result<Vec<Transaction>, V3Error> {
    let mut ids = Vec::new();
    for h in hashes {
        ids.extend(query::transactions::tx_id_by_hash(&ctx.reader, h)?);
    }
    let txs = query::transactions::full_txs(&ctx.reader, &ids)?;
    let mut out: Vec<Transaction> = txs.iter().map(Transaction::from).collect();
    AccountState::fill_all(
        out.iter_mut()
            .flat_map(|t| [&mut t.account_state_before, &mut t.account_state_after]),
        &ctx.reader,
    )?;
    Ok(out)
}

request! {
    /// `/pendingActions`' filters.
    pub struct PendingActionsRequest {
        /// Attach each action's transactions
        include_transactions: Option<bool>,
    }
    with { select: super::traces::PendingRequest, types: ActionTypesArgs, shape: BookMetadataArgs }
}

/// `GET /api/v3/pendingActions`: the actions of emulated traces.
pub fn pending_actions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: PendingActionsRequest,
) -> Result<ActionsResponse, V3Error> {
    let supported = supported_types(&q.types.supported_action_types)?;
    let include_txs = q.include_transactions.unwrap_or(false);
    let account = q.select.account.map(|a| a.address);
    let mut out = Vec::new();
    let mut addresses = Vec::new();
    for t in super::traces::pending_selected(ctx, account, &q.select.ext_msg_hash)? {
        for act in t.actions.iter().filter(|a| visible(a, &supported)) {
            if account.is_some_and(|acc| !act.accounts.contains(&acc)) {
                continue;
            }
            addresses.extend(act.accounts.iter().copied());
            let mut j = action_json(act, &t.trace, false).at(t.level);
            if include_txs {
                let full = t
                    .txs
                    .iter()
                    .filter(|f| act.tx_hashes.contains(&f.tx.hash))
                    .map(|f| super::traces::transaction_json(f, Some(t.level)))
                    .collect::<Result<Vec<_>, _>>()?;
                j.transactions_full = Some(full);
            }
            out.push(j);
        }
    }
    let address_book = address_book::build(ctx, &q.shape.book, addresses.iter().copied())?;
    Ok(ActionsResponse {
        actions: out,
        address_book,
        metadata: metadata::build(ctx, &q.shape, addresses)?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::action_types::expand;
    use super::*;

    fn set(name: &str) -> HashSet<String> {
        let mut out = HashSet::new();
        expand(name, &mut out, 0);
        out
    }

    fn row(kind: &str, data: &str) -> ActionRecord {
        ActionRecord {
            action_id: [0; 32],
            trace_id: [0; 32],
            kind: kind.into(),
            start_lt: 0,
            end_lt: 0,
            start_utime: 0,
            end_utime: 0,
            success: false,
            tx_hashes: Vec::new(),
            accounts: Vec::new(),
            source: None,
            source_secondary: None,
            destination: None,
            destination_secondary: None,
            asset: None,
            asset_secondary: None,
            opcode: None,
            value: None,
            amount: Some("5".into()),
            ancestor_type: Vec::new(),
            parent_action_id: None,
            data: data.into(),
        }
    }

    /// A liquidation's asset is read from its EVAA asset id: TON null and
    /// known, a listed id its Jetton master, any other null and unknown.
    #[test]
    fn evaa_liquidations_name_their_asset_from_the_asset_id() {
        let usdt = "0x3313e2f57ba870af34480350c789b0987d15b43a53172bfce294de21e7d724e7";
        for (id, asset, known) in [
            (EVAA_TON_ASSET_ID, Value::Null, true),
            (
                usdt,
                Value::from("0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"),
                true,
            ),
            ("0x1234", Value::Null, false),
        ] {
            let data = serde_json::json!({"asset_id": id, "collateral": "7", "debt_amount": "9", "fail_reason": null});
            let d = details(&row("evaa_liquidate", &data.to_string()));
            assert_eq!(d["asset"], asset, "{id}");
            assert_eq!(d["is_known_asset"], known, "{id}");
            assert_eq!(d["asset_id"], id);
            assert_eq!(d["collateral"], "7");
            assert_eq!(d["debt_amount"], "9");
            assert_eq!(d["amount"], "5");
        }
    }

    /// Provider-specific staking fields (spec v3 §4.5): Ethena's deposit
    /// names the asset staked, its request the tokens minted; a Tonstakers
    /// request the tsTON burnt and the payout NFT.
    #[test]
    fn staking_details_follow_the_provider() {
        let usde = "0:086FA2A675F74347B08DD4606A549B8FDB98829CB282BC1949D3B12FBAED9DCC";
        let d = details(&row(
            "stake_deposit",
            &serde_json::json!({"provider": "ethena", "tokens_minted": "3", "asset2": usde})
                .to_string(),
        ));
        assert_eq!(d["source_asset"], usde);
        assert_eq!(d["tokens_minted"], "3");
        let d = details(&row(
            "stake_deposit",
            &serde_json::json!({"provider": "liquid_staking", "tokens_minted": "3"}).to_string(),
        ));
        assert!(d.get("source_asset").is_none());
        let nft = "0:7ABD";
        let d = details(&row(
            "stake_withdrawal_request",
            &serde_json::json!({"provider": "liquid_staking", "ts_nft": nft}).to_string(),
        ));
        assert_eq!(d["tokens_burnt"], "5");
        assert_eq!(d["payout_nft"], nft);
        assert!(d.get("tokens_minted").is_none());
        let d = details(&row(
            "stake_withdrawal_request",
            &serde_json::json!({"provider": "ethena", "tokens_minted": "4"}).to_string(),
        ));
        assert_eq!(d["tokens_minted"], "4");
        assert_eq!(d["tokens_burnt"], Value::Null);
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
