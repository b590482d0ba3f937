//! The `details` of DEX swaps and liquidity, TONCO pools and Coffee.

use serde::Serialize;
use tonindex_model::ActionRecord;
use utoipa::ToSchema;

use super::{ra, unreadable, ActionDetails};
use crate::api::encoding::RawAddr;
use crate::trace::action_data as data;

/// One transfer of a swap, into or out of the DEX.
#[derive(Debug, Serialize, ToSchema)]
pub struct DexTransfer {
    pub amount: Option<String>,
    pub asset: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub destination_jetton_wallet: Option<RawAddr>,
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
}

impl From<data::SwapTransfer> for DexTransfer {
    fn from(t: data::SwapTransfer) -> Self {
        Self {
            amount: t.amount,
            asset: ra(&t.asset),
            destination: ra(&t.destination),
            destination_jetton_wallet: ra(&t.destination_jetton_wallet),
            source: ra(&t.source),
            source_jetton_wallet: ra(&t.source_jetton_wallet),
        }
    }
}

/// One hop of a multi-hop swap.
#[derive(Debug, Serialize, ToSchema)]
pub struct DexPeerSwap {
    pub amount_in: Option<String>,
    pub amount_out: Option<String>,
    pub asset_in: Option<RawAddr>,
    pub asset_out: Option<RawAddr>,
}

/// `jetton_swap`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JettonSwapDetails {
    pub dex: String,
    pub sender: Option<RawAddr>,
    pub asset_in: Option<RawAddr>,
    pub asset_out: Option<RawAddr>,
    pub dex_incoming_transfer: DexTransfer,
    pub dex_outgoing_transfer: DexTransfer,
    pub peer_swaps: Vec<DexPeerSwap>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_out_amount: Option<String>,
}

/// An amount a vault returned (asset null for TON).
#[derive(Debug, Serialize, ToSchema)]
pub struct VaultExcessAmount {
    pub amount: Option<String>,
    pub asset: Option<RawAddr>,
}

/// `dex_deposit_liquidity`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DexDepositLiquidityDetails {
    pub dex: String,
    pub amount_1: Option<String>,
    pub amount_2: Option<String>,
    pub asset_1: Option<RawAddr>,
    pub asset_2: Option<RawAddr>,
    pub user_jetton_wallet_1: Option<RawAddr>,
    pub user_jetton_wallet_2: Option<RawAddr>,
    pub source: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub destination_liquidity: Option<RawAddr>,
    pub lp_tokens_minted: Option<String>,
    pub target_asset_1: Option<RawAddr>,
    pub target_asset_2: Option<RawAddr>,
    pub target_amount_1: Option<String>,
    pub target_amount_2: Option<String>,
    pub vault_excesses: Vec<VaultExcessAmount>,
    pub tick_lower: Option<i32>,
    pub tick_upper: Option<i32>,
    pub nft_index: Option<String>,
    pub nft_address: Option<RawAddr>,
}

/// `dex_withdraw_liquidity` (`is_refund` is never filled: toncenter's API
/// does not read the classifier's flag).
#[derive(Debug, Serialize, ToSchema)]
pub struct DexWithdrawLiquidityDetails {
    pub dex: String,
    pub amount_1: Option<String>,
    pub amount_2: Option<String>,
    pub asset_1: Option<RawAddr>,
    pub asset_2: Option<RawAddr>,
    pub user_jetton_wallet_1: Option<RawAddr>,
    pub user_jetton_wallet_2: Option<RawAddr>,
    pub lp_tokens_burnt: Option<String>,
    pub is_refund: Option<bool>,
    pub source: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub destination_liquidity: Option<RawAddr>,
    pub burnt_nft_index: Option<String>,
    pub burnt_nft_address: Option<RawAddr>,
    pub tick_lower: Option<i32>,
    pub tick_upper: Option<i32>,
}

/// `tonco_deploy_pool`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ToncoDeployPoolDetails {
    pub source: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub router: Option<RawAddr>,
    pub router_jetton_wallet_1: Option<RawAddr>,
    pub router_jetton_wallet_2: Option<RawAddr>,
    pub jetton_minter_1: Option<RawAddr>,
    pub jetton_minter_2: Option<RawAddr>,
    pub tick_spacing: Option<i32>,
    pub initial_price_x96: Option<String>,
    pub protocol_fee: Option<u16>,
    pub lp_fee_base: Option<u16>,
    pub lp_fee_current: Option<u16>,
    pub pool_active: Option<bool>,
}

/// `coffee_create_pool_creator`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeCreatePoolCreatorDetails {
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
    pub deposit_recipient: Option<RawAddr>,
    pub pool_creator_contract: Option<RawAddr>,
    pub provided_asset: Option<RawAddr>,
    pub asset_1: Option<RawAddr>,
    pub asset_2: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `coffee_create_pool`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeCreatePoolDetails {
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
    pub initiator_1: Option<RawAddr>,
    pub initiator_2: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub pool_creator_contract: Option<RawAddr>,
    pub provided_asset: Option<RawAddr>,
    pub amount: Option<String>,
    pub asset_1: Option<RawAddr>,
    pub asset_2: Option<RawAddr>,
    pub amount_1: Option<String>,
    pub amount_2: Option<String>,
    pub lp_tokens_minted: Option<String>,
}

/// `coffee_create_vault`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeCreateVaultDetails {
    pub source: Option<RawAddr>,
    pub vault: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub value: Option<String>,
}

/// `coffee_mev_protect_hold_funds`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeMevProtectHoldFundsDetails {
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
    pub mev_contract: Option<RawAddr>,
    pub mev_contract_jetton_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `coffee_mev_protect_failed_swap` (no row of the spec's table; toncenter's
/// server answers an "unsupported action type" error): who gets the funds
/// back, and of which Jetton (null for TON).
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeMevProtectFailedSwapDetails {
    pub recipient: Option<RawAddr>,
    pub asset: Option<RawAddr>,
}

/// `coffee_staking_deposit`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeStakingDepositDetails {
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub pool_jetton_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
    pub minted_item_address: Option<RawAddr>,
    pub minted_item_index: Option<String>,
}

/// `coffee_staking_withdraw`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeStakingWithdrawDetails {
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub pool_jetton_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
    pub nft_address: Option<RawAddr>,
    pub nft_index: Option<String>,
    pub points: Option<String>,
}

/// `coffee_staking_claim_rewards`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CoffeeStakingClaimRewardsDetails {
    pub pool: Option<RawAddr>,
    pub pool_jetton_wallet: Option<RawAddr>,
    pub recipient: Option<RawAddr>,
    pub recipient_jetton_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
}

/// The details of swaps, liquidity and TONCO pools.
pub(super) fn details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "jetton_swap" => {
            let d: Box<data::Swap> = fields!(r, Swap);
            let d = *d;
            JettonSwapDetails {
                dex: d.dex,
                sender: ra(&d.sender),
                asset_in: ra(&r.asset),
                asset_out: ra(&d.asset2),
                dex_incoming_transfer: d.dex_incoming_transfer.into(),
                dex_outgoing_transfer: d.dex_outgoing_transfer.into(),
                peer_swaps: d
                    .peer_swaps
                    .into_iter()
                    .map(|h| DexPeerSwap {
                        amount_in: h.amount_in,
                        amount_out: h.amount_out,
                        asset_in: ra(&h.asset_in),
                        asset_out: ra(&h.asset_out),
                    })
                    .collect(),
                min_out_amount: d.min_out_amount,
            }
            .into()
        }
        "dex_deposit_liquidity" => {
            let d: Box<data::DexDeposit> = fields!(r, DexDeposit);
            let d = *d;
            DexDepositLiquidityDetails {
                dex: d.dex,
                amount_1: d.amount1,
                amount_2: d.amount2,
                asset_1: ra(&d.asset1),
                asset_2: ra(&d.asset2),
                user_jetton_wallet_1: ra(&d.user_jetton_wallet_1),
                user_jetton_wallet_2: ra(&d.user_jetton_wallet_2),
                source: ra(&r.source),
                pool: ra(&r.destination),
                destination_liquidity: ra(&r.destination_secondary),
                lp_tokens_minted: d.lp_tokens_minted,
                target_asset_1: ra(&d.target_asset_1),
                target_asset_2: ra(&d.target_asset_2),
                target_amount_1: d.target_amount_1,
                target_amount_2: d.target_amount_2,
                vault_excesses: d
                    .vault_excesses
                    .into_iter()
                    .map(|v| VaultExcessAmount {
                        amount: v.amount,
                        asset: ra(&v.asset),
                    })
                    .collect(),
                tick_lower: d.tick_lower,
                tick_upper: d.tick_upper,
                nft_index: d.nft_index,
                nft_address: ra(&d.nft_address),
            }
            .into()
        }
        "dex_withdraw_liquidity" => {
            let d: Box<data::DexWithdraw> = fields!(r, DexWithdraw);
            let d = *d;
            DexWithdrawLiquidityDetails {
                dex: d.dex,
                amount_1: d.amount1,
                amount_2: d.amount2,
                asset_1: ra(&d.asset1_out),
                asset_2: ra(&d.asset2_out),
                user_jetton_wallet_1: ra(&d.user_jetton_wallet_1),
                user_jetton_wallet_2: ra(&d.user_jetton_wallet_2),
                lp_tokens_burnt: d.lp_tokens_burnt,
                // The spec: never filled, always null (toncenter's API does
                // not read the classifier's flag).
                is_refund: None,
                source: ra(&r.source),
                pool: ra(&r.destination),
                destination_liquidity: ra(&r.destination),
                burnt_nft_index: d.burned_nft_index,
                burnt_nft_address: ra(&d.burned_nft_address),
                tick_lower: d.tick_lower,
                tick_upper: d.tick_upper,
            }
            .into()
        }
        "tonco_deploy_pool" => {
            let d: Box<data::ToncoDeployPool> = fields!(r, ToncoDeployPool);
            let d = *d;
            ToncoDeployPoolDetails {
                source: ra(&r.source),
                pool: ra(&r.destination_secondary),
                router: ra(&r.destination),
                router_jetton_wallet_1: ra(&d.jetton0_router_wallet),
                router_jetton_wallet_2: ra(&d.jetton1_router_wallet),
                jetton_minter_1: ra(&d.jetton0_minter),
                jetton_minter_2: ra(&d.jetton1_minter),
                tick_spacing: d.tick_spacing,
                initial_price_x96: d.initial_price_x96,
                protocol_fee: d.protocol_fee,
                lp_fee_base: d.lp_fee_base,
                lp_fee_current: d.lp_fee_current,
                pool_active: d.pool_active,
            }
            .into()
        }
        _ => return None,
    })
}

/// The details of Coffee's pools, vaults, MEV protection and staking.
pub(super) fn coffee_details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "coffee_create_pool_creator" => {
            let d: data::CoffeePoolCreator = fields!(r, CoffeePoolCreator);
            CoffeeCreatePoolCreatorDetails {
                source: ra(&r.source),
                source_jetton_wallet: ra(&r.source_secondary),
                deposit_recipient: ra(&r.destination),
                pool_creator_contract: ra(&r.destination_secondary),
                provided_asset: ra(&r.asset),
                asset_1: ra(&d.asset2),
                asset_2: ra(&d.asset2_secondary),
                amount: r.amount.clone(),
            }
            .into()
        }
        "coffee_create_pool" => {
            let d: Box<data::CoffeeCreatePool> = fields!(r, CoffeeCreatePool);
            let d = *d;
            CoffeeCreatePoolDetails {
                source: ra(&r.source),
                source_jetton_wallet: ra(&r.source_secondary),
                initiator_1: ra(&d.initiator_1),
                initiator_2: ra(&d.initiator_2),
                pool: ra(&r.destination),
                pool_creator_contract: ra(&r.destination_secondary),
                provided_asset: ra(&d.provided_asset),
                amount: r.amount.clone(),
                asset_1: ra(&r.asset),
                asset_2: ra(&d.asset2),
                amount_1: d.amount_1,
                amount_2: d.amount_2,
                lp_tokens_minted: d.lp_tokens_minted,
            }
            .into()
        }
        "coffee_create_vault" => CoffeeCreateVaultDetails {
            source: ra(&r.source),
            vault: ra(&r.destination),
            asset: ra(&r.asset),
            value: r.value.clone(),
        }
        .into(),
        "coffee_mev_protect_hold_funds" => CoffeeMevProtectHoldFundsDetails {
            source: ra(&r.source),
            source_jetton_wallet: ra(&r.source_secondary),
            mev_contract: ra(&r.destination),
            mev_contract_jetton_wallet: ra(&r.destination_secondary),
            asset: ra(&r.asset),
            amount: r.amount.clone(),
        }
        .into(),
        "coffee_mev_protect_failed_swap" => CoffeeMevProtectFailedSwapDetails {
            recipient: ra(&r.destination),
            asset: ra(&r.asset),
        }
        .into(),
        "coffee_staking_deposit" => {
            let d: data::CoffeeStakingDeposit = fields!(r, CoffeeStakingDeposit);
            CoffeeStakingDepositDetails {
                source: ra(&r.source),
                source_jetton_wallet: ra(&r.source_secondary),
                pool: ra(&r.destination),
                pool_jetton_wallet: ra(&r.destination_secondary),
                asset: ra(&r.asset),
                amount: r.amount.clone(),
                minted_item_address: ra(&d.minted_item_address),
                minted_item_index: d.minted_item_index,
            }
            .into()
        }
        "coffee_staking_withdraw" => {
            let d: data::CoffeeStakingWithdraw = fields!(r, CoffeeStakingWithdraw);
            CoffeeStakingWithdrawDetails {
                source: ra(&r.source),
                source_jetton_wallet: ra(&r.source_secondary),
                pool: ra(&r.destination),
                pool_jetton_wallet: ra(&r.destination_secondary),
                asset: ra(&r.asset),
                amount: r.amount.clone(),
                nft_address: ra(&d.nft_address),
                nft_index: d.nft_index,
                points: d.points,
            }
            .into()
        }
        "coffee_staking_claim_rewards" => CoffeeStakingClaimRewardsDetails {
            pool: ra(&r.source),
            pool_jetton_wallet: ra(&r.source_secondary),
            recipient: ra(&r.destination),
            recipient_jetton_wallet: ra(&r.destination_secondary),
            asset: ra(&r.asset),
            amount: r.amount.clone(),
        }
        .into(),
        _ => return None,
    })
}
