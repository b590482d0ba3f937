//! The `details` of staking (nominator pools, Tonstakers, Ethena), EVAA
//! lending and JVault.

use serde::Serialize;
use tonindex_model::ActionRecord;
use utoipa::ToSchema;

use super::{ra, unreadable, ActionDetails};
use crate::api::encoding::RawAddr;
use crate::trace::action_data as data;

/// EVAA's asset ids (hex, as the classifier writes them) and the Jetton
/// masters they stand for on mainnet, as toncenter's server maps them for
/// `evaa_liquidate` (facts; TON's id stands for TON, null).
pub(super) const EVAA_TON_ASSET_ID: &str =
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
fn evaa_asset(asset_id: Option<&str>) -> (Option<String>, bool) {
    match asset_id {
        Some(EVAA_TON_ASSET_ID) => (None, true),
        Some(id) => match EVAA_ASSETS.iter().find(|(k, _)| *k == id) {
            Some((_, master)) => (Some((*master).to_string()), true),
            None => (None, false),
        },
        None => (None, false),
    }
}

/// `stake_deposit` (the fields a provider does not have stay null).
#[derive(Debug, Serialize, ToSchema)]
pub struct StakeDepositDetails {
    /// `nominator`, `liquid_staking` or `ethena`.
    pub provider: String,
    pub stake_holder: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub amount: Option<String>,
    pub tokens_minted: Option<String>,
    pub asset: Option<RawAddr>,
    /// Ethena only: what was staked (USDe); `asset` is what it became.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<RawAddr>)]
    pub source_asset: Option<Option<RawAddr>>,
}

/// `stake_withdrawal`.
#[derive(Debug, Serialize, ToSchema)]
pub struct StakeWithdrawalDetails {
    pub provider: String,
    pub stake_holder: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub amount: Option<String>,
    pub payout_nft: Option<RawAddr>,
    pub tokens_burnt: Option<String>,
    pub asset: Option<RawAddr>,
}

/// `stake_withdrawal_request`: a Tonstakers request burns its amount of
/// tsTON; Ethena's mints the timelocked tokens.
#[derive(Debug, Serialize, ToSchema)]
pub struct StakeWithdrawalRequestDetails {
    pub provider: String,
    pub stake_holder: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub payout_nft: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub tokens_burnt: Option<String>,
    /// Ethena only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub tokens_minted: Option<Option<String>>,
}

/// `evaa_supply` (the sender's Jetton wallet is a column toncenter's
/// classifier never fills: always null).
#[derive(Debug, Serialize, ToSchema)]
pub struct EvaaSupplyDetails {
    pub sender_jetton_wallet: Option<RawAddr>,
    pub recipient_jetton_wallet: Option<RawAddr>,
    pub master_jetton_wallet: Option<RawAddr>,
    pub master: Option<RawAddr>,
    /// `0x` and hex.
    pub asset_id: Option<String>,
    pub is_ton: bool,
    pub source: Option<RawAddr>,
    pub source_wallet: Option<RawAddr>,
    pub recipient: Option<RawAddr>,
    pub recipient_contract: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `evaa_withdraw`.
#[derive(Debug, Serialize, ToSchema)]
pub struct EvaaWithdrawDetails {
    pub recipient_jetton_wallet: Option<RawAddr>,
    pub master_jetton_wallet: Option<RawAddr>,
    pub master: Option<RawAddr>,
    pub fail_reason: Option<String>,
    pub asset_id: Option<String>,
    pub source: Option<RawAddr>,
    pub recipient: Option<RawAddr>,
    pub owner_contract: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `evaa_liquidate`: the asset named from its EVAA asset id.
#[derive(Debug, Serialize, ToSchema)]
pub struct EvaaLiquidateDetails {
    pub fail_reason: Option<String>,
    pub debt_amount: Option<String>,
    pub source: Option<RawAddr>,
    pub borrower: Option<RawAddr>,
    pub borrower_contract: Option<RawAddr>,
    /// The collateral's asset id, decimal.
    pub collateral: Option<String>,
    pub asset_id: Option<String>,
    /// The Jetton master (null for TON and for an unknown id).
    pub asset: Option<String>,
    pub is_known_asset: bool,
    pub amount: Option<String>,
}

/// `jvault_stake` (`minted_stake_jettons` is never filled).
#[derive(Debug, Serialize, ToSchema)]
pub struct JvaultStakeDetails {
    pub period: u32,
    pub minted_stake_jettons: Option<String>,
    pub stake_wallet: Option<RawAddr>,
    pub source: Option<RawAddr>,
    pub source_jetton_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `jvault_unstake` and `jvault_unstake_request`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JvaultUnstakeDetails {
    pub source: Option<RawAddr>,
    pub stake_wallet: Option<RawAddr>,
    pub pool: Option<RawAddr>,
    pub amount: Option<String>,
    pub exit_code: Option<i32>,
    pub asset: Option<RawAddr>,
    pub staking_asset: Option<RawAddr>,
}

/// A JVault reward claimed.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClaimedReward {
    pub jetton: Option<RawAddr>,
    pub amount: String,
}

/// `jvault_claim`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JvaultClaimDetails {
    pub claimed_rewards: Vec<ClaimedReward>,
    pub source: Option<RawAddr>,
    pub stake_wallet: Option<RawAddr>,
    pub pool: Option<RawAddr>,
}

/// The details of stakes, EVAA and JVault.
pub(super) fn details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "stake_deposit" => {
            let d: data::Staking = fields!(r, Staking);
            let ethena = d.provider == "ethena";
            StakeDepositDetails {
                provider: d.provider,
                stake_holder: ra(&r.source),
                pool: ra(&r.destination),
                amount: r.amount.clone(),
                tokens_minted: d.tokens_minted,
                asset: ra(&r.asset),
                source_asset: ethena.then(|| ra(&d.asset2)),
            }
            .into()
        }
        "stake_withdrawal" => {
            let d: data::Staking = fields!(r, Staking);
            StakeWithdrawalDetails {
                provider: d.provider,
                stake_holder: ra(&r.source),
                pool: ra(&r.destination),
                amount: r.amount.clone(),
                payout_nft: ra(&d.ts_nft),
                tokens_burnt: d.tokens_burnt,
                asset: ra(&r.asset),
            }
            .into()
        }
        "stake_withdrawal_request" => {
            let d: data::Staking = fields!(r, Staking);
            let (liquid, ethena) = (d.provider == "liquid_staking", d.provider == "ethena");
            StakeWithdrawalRequestDetails {
                provider: d.provider,
                stake_holder: ra(&r.source),
                pool: ra(&r.destination),
                payout_nft: ra(&d.ts_nft),
                asset: ra(&r.asset),
                tokens_burnt: if liquid { r.amount.clone() } else { None },
                tokens_minted: ethena.then_some(d.tokens_minted),
            }
            .into()
        }
        "evaa_supply" => {
            let d: data::EvaaSupply = fields!(r, EvaaSupply);
            EvaaSupplyDetails {
                sender_jetton_wallet: None,
                recipient_jetton_wallet: ra(&d.recipient_jetton_wallet),
                master_jetton_wallet: ra(&d.master_jetton_wallet),
                master: ra(&d.master),
                asset_id: d.asset_id,
                is_ton: d.is_ton,
                source: ra(&r.source),
                source_wallet: ra(&r.source_secondary),
                recipient: ra(&r.destination),
                recipient_contract: ra(&r.destination_secondary),
                asset: ra(&r.asset),
                amount: r.amount.clone(),
            }
            .into()
        }
        "evaa_withdraw" => {
            let d: data::EvaaWithdraw = fields!(r, EvaaWithdraw);
            EvaaWithdrawDetails {
                recipient_jetton_wallet: ra(&d.recipient_jetton_wallet),
                master_jetton_wallet: ra(&d.master_jetton_wallet),
                master: ra(&d.master),
                fail_reason: d.fail_reason,
                asset_id: d.asset_id,
                source: ra(&r.source),
                recipient: ra(&r.destination),
                owner_contract: ra(&r.destination_secondary),
                asset: ra(&r.asset),
                amount: r.amount.clone(),
            }
            .into()
        }
        "evaa_liquidate" => {
            let d: data::EvaaLiquidate = fields!(r, EvaaLiquidate);
            let (asset, is_known_asset) = evaa_asset(d.asset_id.as_deref());
            EvaaLiquidateDetails {
                fail_reason: d.fail_reason,
                debt_amount: d.debt_amount,
                source: ra(&r.source),
                borrower: ra(&r.destination),
                borrower_contract: ra(&r.destination_secondary),
                collateral: d.collateral,
                asset_id: d.asset_id,
                asset,
                is_known_asset,
                amount: r.amount.clone(),
            }
            .into()
        }
        "jvault_stake" => {
            let d: data::JvaultStake = fields!(r, JvaultStake);
            JvaultStakeDetails {
                period: d.period,
                minted_stake_jettons: None,
                stake_wallet: ra(&d.stake_wallet),
                source: ra(&r.source),
                source_jetton_wallet: ra(&r.source_secondary),
                asset: ra(&r.asset),
                pool: ra(&r.destination),
                amount: r.amount.clone(),
            }
            .into()
        }
        "jvault_unstake" | "jvault_unstake_request" => {
            let d: data::JvaultUnstake = fields!(r, JvaultUnstake);
            JvaultUnstakeDetails {
                source: ra(&r.source),
                stake_wallet: ra(&r.source_secondary),
                pool: ra(&r.destination),
                amount: r.amount.clone(),
                exit_code: r.opcode.map(|c| c as i32),
                asset: ra(&r.asset),
                staking_asset: ra(&d.asset2),
            }
            .into()
        }
        "jvault_claim" => {
            let d: data::JvaultClaim = fields!(r, JvaultClaim);
            JvaultClaimDetails {
                claimed_rewards: d
                    .claimed_jettons
                    .iter()
                    .zip(d.claimed_amounts)
                    .map(|(jetton, amount)| ClaimedReward {
                        jetton: ra(jetton),
                        amount,
                    })
                    .collect(),
                source: ra(&r.source),
                stake_wallet: ra(&r.source_secondary),
                pool: ra(&r.destination),
            }
            .into()
        }
        _ => return None,
    })
}
