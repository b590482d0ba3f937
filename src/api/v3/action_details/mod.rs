//! An action's `details` (spec v3 §4.5): one typed shape per action type,
//! built from the row's columns and its typed fields
//! ([`ActionData`](crate::trace::action_data::ActionData)), as toncenter's
//! server fills them. A field the Go server leaves out when empty
//! (`omitempty`) is left out here too; every other field is there, null
//! when the row has no value for it.

use serde::Serialize;
use tonindex_model::{ActionRecord, Address};
use utoipa::openapi::schema::{AnyOfBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use crate::api::encoding::{b64, RawAddr};
use crate::trace::action_data as data;

/// The row's fields as its type's shape `$variant` (all absent when the
/// row holds another shape); a row they cannot be read from shows so.
macro_rules! fields {
    ($r:expr, $variant:ident) => {
        match crate::trace::action_data::ActionData::read(&$r.kind, &$r.data) {
            Ok(crate::trace::action_data::ActionData::$variant(d)) => d,
            Ok(_) => Default::default(),
            Err(e) => return Some(unreadable($r, &e)),
        }
    };
}

mod basic;
mod bridges;
mod defi;
mod dex;
mod nft;

pub use basic::*;
pub use bridges::*;
pub use defi::*;
pub use dex::*;
pub use nft::*;

/// An optional address as v3 shows it.
fn ra(a: &Option<Address>) -> Option<RawAddr> {
    a.map(RawAddr)
}

// ---------------------------------------------------------------------------
// The union.

/// Declares [`ActionDetails`], one variant per shape, and its schema: any of
/// the shapes (`anyOf`: several shapes overlap, so an instance may match
/// more than one), each a named component.
macro_rules! action_details {
    ($($variant:ident($shape:ident),)*) => {
        /// An action's `details`: its type's shape (spec v3 §4.5), boxed
        /// (the shapes differ much in size).
        #[derive(Debug, Serialize)]
        #[serde(untagged)]
        pub enum ActionDetails {
            $($variant(Box<$shape>),)*
        }

        $(impl From<$shape> for ActionDetails {
            fn from(d: $shape) -> Self {
                Self::$variant(Box::new(d))
            }
        })*

        impl PartialSchema for ActionDetails {
            fn schema() -> RefOr<Schema> {
                AnyOfBuilder::new()
                    $(.item(Ref::from_schema_name(<$shape as ToSchema>::name())))*
                    .description(Some(
                        "The action's type's fields (spec v3 §4.5): the shape of its `type`",
                    ))
                    .into()
            }
        }

        impl ToSchema for ActionDetails {
            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                $(
                    schemas.push((
                        <$shape as ToSchema>::name().into_owned(),
                        <$shape as PartialSchema>::schema(),
                    ));
                    <$shape as ToSchema>::schemas(schemas);
                )*
            }
        }
    };
}

action_details! {
    TonTransfer(TonTransferDetails),
    CallContract(CallContractDetails),
    Empty(EmptyDetails),
    JettonTransfer(JettonTransferDetails),
    JettonMint(JettonMintDetails),
    JettonBurn(JettonBurnDetails),
    NftMint(NftMintDetails),
    NftTransfer(NftTransferDetails),
    NftCancelSale(NftCancelSaleDetails),
    NftDiscovery(NftDiscoveryDetails),
    AuctionBid(AuctionBidDetails),
    AuctionOutbid(AuctionOutbidDetails),
    NftPutOnSale(NftPutOnSaleDetails),
    NftPutOnAuction(NftPutOnAuctionDetails),
    NftAuctionEnd(NftAuctionEndDetails),
    NftUpdateSale(NftUpdateSaleDetails),
    ChangeDns(ChangeDnsDetails),
    DeleteDns(DeleteDnsDetails),
    RenewDns(RenewDnsDetails),
    StakeDeposit(StakeDepositDetails),
    StakeWithdrawal(StakeWithdrawalDetails),
    StakeWithdrawalRequest(StakeWithdrawalRequestDetails),
    EvaaSupply(EvaaSupplyDetails),
    EvaaWithdraw(EvaaWithdrawDetails),
    EvaaLiquidate(EvaaLiquidateDetails),
    DnsPurchase(DnsPurchaseDetails),
    DnsRelease(DnsReleaseDetails),
    Election(ElectionDetails),
    Subscription(SubscriptionDetails),
    MultisigCreateOrder(MultisigCreateOrderDetails),
    MultisigApprove(MultisigApproveDetails),
    MultisigExecute(MultisigExecuteDetails),
    VestingSendMessage(VestingSendMessageDetails),
    VestingAddWhitelist(VestingAddWhitelistDetails),
    JettonSwap(JettonSwapDetails),
    DexDepositLiquidity(DexDepositLiquidityDetails),
    DexWithdrawLiquidity(DexWithdrawLiquidityDetails),
    ToncoDeployPool(ToncoDeployPoolDetails),
    CoffeeCreatePoolCreator(CoffeeCreatePoolCreatorDetails),
    CoffeeCreatePool(CoffeeCreatePoolDetails),
    CoffeeCreateVault(CoffeeCreateVaultDetails),
    CoffeeMevProtectHoldFunds(CoffeeMevProtectHoldFundsDetails),
    CoffeeMevProtectFailedSwap(CoffeeMevProtectFailedSwapDetails),
    CoffeeStakingDeposit(CoffeeStakingDepositDetails),
    CoffeeStakingWithdraw(CoffeeStakingWithdrawDetails),
    CoffeeStakingClaimRewards(CoffeeStakingClaimRewardsDetails),
    JvaultStake(JvaultStakeDetails),
    JvaultUnstake(JvaultUnstakeDetails),
    JvaultClaim(JvaultClaimDetails),
    LayerZeroSend(LayerZeroSendDetails),
    LayerZeroSendTokens(LayerZeroSendTokensDetails),
    LayerZeroReceive(LayerZeroReceiveDetails),
    LayerZeroCommitPacket(LayerZeroCommitPacketDetails),
    LayerZeroDvnVerify(LayerZeroDvnVerifyDetails),
    TgbtcMint(TgbtcMintDetails),
    TgbtcBurn(TgbtcBurnDetails),
    TgbtcNewKey(TgbtcNewKeyDetails),
    TgbtcDkgLog(TgbtcDkgLogDetails),
    Cocoon(CocoonDetails),
    Unsupported(UnsupportedDetails),
}

// ---------------------------------------------------------------------------
// From the row.

/// What an action whose stored fields its type's shape cannot read shows
/// (the row is logged).
fn unreadable(r: &ActionRecord, e: &data::UnreadableData) -> ActionDetails {
    tracing::warn!(
        action_id = %b64(&r.action_id),
        kind = %r.kind,
        error = %e,
        "the stored fields of an action cannot be read"
    );
    UnsupportedDetails {
        error: "the stored fields of this action cannot be read".into(),
    }
    .into()
}
/// The type's `details` from the action row (spec v3 §4.5): its columns and
/// its typed fields, as the Go server fills them.
pub fn details(r: &ActionRecord) -> ActionDetails {
    basic::details(r)
        .or_else(|| nft::details(r))
        .or_else(|| nft::dns_details(r))
        .or_else(|| defi::details(r))
        .or_else(|| dex::details(r))
        .or_else(|| dex::coffee_details(r))
        .or_else(|| bridges::details(r))
        .unwrap_or_else(|| {
            UnsupportedDetails {
                error: format!("unsupported action type: '{}'", r.kind),
            }
            .into()
        })
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

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

    fn json_of(r: &ActionRecord) -> Value {
        serde_json::to_value(details(r)).unwrap()
    }

    /// A liquidation's asset is read from its EVAA asset id: TON null and
    /// known, a listed id its Jetton master, any other null and unknown.
    #[test]
    fn evaa_liquidations_name_their_asset_from_the_asset_id() {
        let usdt = "0x3313e2f57ba870af34480350c789b0987d15b43a53172bfce294de21e7d724e7";
        for (id, asset, known) in [
            (defi::EVAA_TON_ASSET_ID, Value::Null, true),
            (
                usdt,
                Value::from("0:BDF3FA8098D129B54B4F73B5BAC5D1E1FD91EB054169C3916DFC8CCD536D1000"),
                true,
            ),
            ("0x1234", Value::Null, false),
        ] {
            let data =
                json!({"asset_id": id, "collateral": "7", "debt_amount": "9", "fail_reason": null});
            let d = json_of(&row("evaa_liquidate", &data.to_string()));
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
        let d = json_of(&row(
            "stake_deposit",
            &json!({"provider": "ethena", "tokens_minted": "3", "asset2": usde}).to_string(),
        ));
        assert_eq!(d["source_asset"], usde);
        assert_eq!(d["tokens_minted"], "3");
        let d = json_of(&row(
            "stake_deposit",
            &json!({"provider": "liquid_staking", "tokens_minted": "3"}).to_string(),
        ));
        assert!(d.get("source_asset").is_none());
        let nft = "0:7ABD000000000000000000000000000000000000000000000000000000000000";
        let d = json_of(&row(
            "stake_withdrawal_request",
            &json!({"provider": "liquid_staking", "ts_nft": nft}).to_string(),
        ));
        assert_eq!(d["tokens_burnt"], "5");
        assert_eq!(d["payout_nft"], nft);
        assert!(d.get("tokens_minted").is_none());
        let d = json_of(&row(
            "stake_withdrawal_request",
            &json!({"provider": "ethena", "tokens_minted": "4"}).to_string(),
        ));
        assert_eq!(d["tokens_minted"], "4");
        assert_eq!(d["tokens_burnt"], Value::Null);
        // Ethena's request without the tokens minted still names them.
        let d = json_of(&row(
            "stake_withdrawal_request",
            &json!({"provider": "ethena"}).to_string(),
        ));
        assert_eq!(d.get("tokens_minted"), Some(&Value::Null));
    }

    /// Fields a type's shape does not hold are null, and a row the shapes
    /// cannot read says so instead of failing.
    #[test]
    fn rows_of_another_shape_or_unreadable_ones_do_not_fail() {
        let d = json_of(&row("teleitem_cancel_auction", "{}"));
        assert_eq!(d["marketplace_address"], Value::Null);
        assert_eq!(d["marketplace"], Value::Null);
        let d = json_of(&row("jetton_swap", r#"{"no_such_key": 1}"#));
        assert_eq!(
            d,
            json!({"error": "the stored fields of this action cannot be read"})
        );
        // Types that show only columns do not read the fields.
        let d = json_of(&row("jetton_burn", r#"{"no_such_key": 1}"#));
        assert_eq!(d["amount"], "5");
        let d = json_of(&row("no_such_type", "{}"));
        assert_eq!(
            d,
            json!({"error": "unsupported action type: 'no_such_type'"})
        );
        assert_eq!(json_of(&row("tick_tock", "{}")), json!({}));
    }

    /// A DNS record's value lands under its schema's field.
    #[test]
    fn dns_values_land_under_their_schema() {
        let d = json_of(&row(
            "change_dns",
            &json!({"flags": 0, "key": "ab", "value": "hello", "value_schema": "DNSText"})
                .to_string(),
        ));
        assert_eq!(
            d["value"],
            json!({
                "sum_type": "DNSText",
                "dns_smc_address": null,
                "dns_adnl_address": null,
                "dns_text": null,
                "dns_next_resolver_address": null,
                "dns_storage_address": "hello",
                "flags": 0,
            })
        );
        assert_eq!(d["key"], "ab");
    }

    /// Cocoon's types show their own fields, a null expected address
    /// included, and the columns the row has.
    #[test]
    fn cocoon_details_show_their_own_fields() {
        let mut r = row(
            "cocoon_proxy_charge",
            &json!({"expected_address": null, "new_tokens_used": "3", "query_id": "1"}).to_string(),
        );
        r.source = Some(Address {
            workchain: 0,
            id: [0xab; 32],
        });
        r.amount = None;
        assert_eq!(
            json_of(&r),
            json!({
                "expected_address": null,
                "new_tokens_used": "3",
                "query_id": "1",
                "source": format!("0:{}", "AB".repeat(32)),
            })
        );
    }

    /// The schema is any of the shapes, each a component.
    #[test]
    fn the_schema_is_any_of_the_shapes() {
        let schema = serde_json::to_value(ActionDetails::schema()).unwrap();
        let shapes = schema["anyOf"].as_array().unwrap();
        assert!(shapes.len() > 50, "{schema}");
        let mut components = Vec::new();
        <ActionDetails as ToSchema>::schemas(&mut components);
        for s in shapes {
            let name = s["$ref"].as_str().unwrap();
            let name = name.strip_prefix("#/components/schemas/").unwrap();
            assert!(components.iter().any(|(n, _)| n == name), "{name}");
        }
        assert!(components.iter().any(|(n, _)| n == "RawAddr"));
    }
}
