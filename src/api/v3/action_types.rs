//! The action types a client sees (spec v3 §4.4): the shortcut sets it
//! names in `supported_action_types` (`v1`, `latest`, …), expanded; the
//! composite actions that hide their parts; and the type names a request
//! may give.

use std::collections::HashSet;

use tonindex_model::ActionRecord;

use super::V3Error;

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

/// Adds the types `name` stands for (a shortcut, expanded; else itself).
pub(super) fn expand(name: &str, out: &mut HashSet<String>, depth: usize) {
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

/// The action types of `names` (shortcuts expanded; `latest` when none),
/// always with v1: a streaming subscription's supported set.
pub fn supported_set(names: &[String]) -> HashSet<String> {
    let mut out = HashSet::new();
    for n in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        expand(n, &mut out, 0);
    }
    if out.is_empty() {
        expand("latest", &mut out, 0);
    }
    expand("v1", &mut out, 0);
    out
}

/// The action types a client understands: the shortcuts it named
/// (`supported_action_types`, repeated or comma-separated; `latest` when
/// absent), expanded, always with v1.
pub fn supported_types(given: &[String]) -> Result<HashSet<String>, V3Error> {
    let mut names = type_list(given)?;
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

/// A list parameter of type names (repeated or comma-separated), each checked.
pub(super) fn type_list(given: &[String]) -> Result<Vec<String>, V3Error> {
    let mut out = Vec::new();
    for v in given {
        for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            check_type_name(n)?;
            out.push(n.to_string());
        }
    }
    Ok(out)
}
