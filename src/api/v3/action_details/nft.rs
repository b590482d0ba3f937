//! The `details` of NFT types (mints, transfers, sales, auctions) and of
//! .ton DNS items.

use serde::Serialize;
use tonindex_model::{ActionRecord, Address};
use utoipa::ToSchema;

use super::{ra, unreadable, ActionDetails};
use crate::api::encoding::RawAddr;
use crate::trace::action_data as data;

/// A marketplace's name from its address, where tonindex knows it (the Go
/// server's `GetMarketplaceName`); null otherwise.
fn marketplace(address: Option<Address>) -> Option<String> {
    crate::trace::classify::nft::marketplace_name(address.as_ref()).map(str::to_string)
}

/// `nft_mint`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftMintDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub nft_item_index: Option<String>,
}

/// `nft_transfer` and `nft_purchase`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftTransferDetails {
    pub nft_collection: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_item_index: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_owner: Option<RawAddr>,
    pub new_owner: Option<RawAddr>,
    pub is_purchase: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<String>,
    pub query_id: Option<String>,
    pub response_destination: Option<RawAddr>,
    pub custom_payload: Option<String>,
    pub forward_payload: Option<String>,
    pub forward_amount: Option<String>,
    pub comment: Option<String>,
    pub is_encrypted_comment: bool,
    /// A purchase's marketplace (`getgems`, `fragment`), with the seller
    /// and the marketplace's address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marketplace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<RawAddr>)]
    pub real_old_owner: Option<Option<RawAddr>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<RawAddr>)]
    pub marketplace_address: Option<Option<RawAddr>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_address: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_comment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_comment_encrypted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_comment_encoded: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub royalty_amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub royalty_address: Option<RawAddr>,
}

/// `nft_cancel_sale`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftCancelSaleDetails {
    pub owner: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub sale_address: Option<RawAddr>,
    pub marketplace_address: Option<RawAddr>,
    pub marketplace: Option<String>,
}

/// `nft_discovery`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftDiscoveryDetails {
    pub source: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub nft_item_index: Option<String>,
}

/// `auction_bid`.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuctionBidDetails {
    pub amount: Option<String>,
    pub bidder: Option<RawAddr>,
    pub auction: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub nft_item_index: Option<String>,
}

/// `auction_outbid`.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuctionOutbidDetails {
    pub auction_address: Option<RawAddr>,
    pub bidder: Option<RawAddr>,
    pub new_bidder: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// `nft_put_on_sale`: the marketplace named from the sale's own
/// marketplace, its address from a column toncenter leaves empty.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftPutOnSaleDetails {
    pub nft_collection: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_item_index: Option<String>,
    pub owner: Option<RawAddr>,
    pub listing_address: Option<RawAddr>,
    pub sale_address: Option<RawAddr>,
    pub marketplace_address: Option<RawAddr>,
    pub marketplace: Option<String>,
    pub full_price: Option<String>,
    pub marketplace_fee: Option<String>,
    pub royalty_amount: Option<String>,
    pub marketplace_fee_address: Option<RawAddr>,
    pub royalty_address: Option<RawAddr>,
}

/// `nft_put_on_auction` and `teleitem_start_auction`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftPutOnAuctionDetails {
    pub nft_collection: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_item_index: Option<String>,
    pub owner: Option<RawAddr>,
    pub listing_address: Option<RawAddr>,
    pub auction_address: Option<RawAddr>,
    pub marketplace_address: Option<RawAddr>,
    pub marketplace_fee_factor: Option<String>,
    pub marketplace_fee_base: Option<String>,
    pub royalty_fee_base: Option<String>,
    pub max_bid: Option<String>,
    pub min_bid: Option<String>,
    pub marketplace_fee_address: Option<RawAddr>,
    pub royalty_address: Option<RawAddr>,
    pub marketplace: Option<String>,
}

/// `nft_cancel_auction`, `nft_finish_auction` and `teleitem_cancel_auction`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftAuctionEndDetails {
    pub owner: Option<RawAddr>,
    pub auction_address: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub marketplace_address: Option<RawAddr>,
    pub marketplace: Option<String>,
}

/// `nft_update_sale`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NftUpdateSaleDetails {
    pub source: Option<RawAddr>,
    pub sale_contract: Option<RawAddr>,
    pub nft_address: Option<RawAddr>,
    pub marketplace_address: Option<RawAddr>,
    pub marketplace: Option<String>,
    pub full_price: Option<String>,
    pub marketplace_fee: Option<String>,
    pub royalty_amount: Option<String>,
}

/// A DNS record's value under its schema's field (a text record's text
/// under `dns_storage_address`, as the Go server fills it); the others null.
#[derive(Debug, Serialize, ToSchema)]
pub struct DnsRecordValue {
    /// `DNSNextResolver`, `DNSAdnlAddress`, `DNSSmcAddress`,
    /// `DNSStorageAddress`, `DNSText` or `Unknown`.
    pub sum_type: Option<String>,
    pub dns_smc_address: Option<String>,
    pub dns_adnl_address: Option<String>,
    pub dns_text: Option<String>,
    pub dns_next_resolver_address: Option<String>,
    pub dns_storage_address: Option<String>,
    pub flags: Option<u8>,
}

/// `change_dns`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChangeDnsDetails {
    /// The record's key, 64 hex digits.
    pub key: Option<String>,
    pub value: DnsRecordValue,
    pub source: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
}

/// `delete_dns`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeleteDnsDetails {
    /// The record's key, 64 hex digits.
    pub hash: Option<String>,
    pub source: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
}

/// `renew_dns`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RenewDnsDetails {
    pub source: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
}

/// `dns_purchase`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DnsPurchaseDetails {
    pub nft_collection: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_item_index: Option<String>,
    pub new_owner: Option<RawAddr>,
    pub price: Option<String>,
    pub query_id: Option<String>,
    pub payout_amount: Option<String>,
}

/// `dns_release`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DnsReleaseDetails {
    pub query_id: Option<String>,
    pub source: Option<RawAddr>,
    pub nft_item: Option<RawAddr>,
    pub nft_collection: Option<RawAddr>,
    pub nft_item_index: Option<String>,
    pub value: Option<String>,
}

/// The details of NFT mints, transfers, purchases and bids; the rest of
/// sales and auctions in [`listing_details`].
pub(super) fn details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "nft_mint" => {
            let d: data::NftIndex = fields!(r, NftIndex);
            NftMintDetails {
                owner: ra(&r.source),
                nft_item: ra(&r.asset_secondary),
                nft_collection: ra(&r.asset),
                nft_item_index: d.nft_item_index,
            }
            .into()
        }
        "nft_transfer" | "nft_purchase" => {
            let d: Box<data::NftTransfer> = fields!(r, NftTransfer);
            let d = *d;
            let sold = d.marketplace.is_some();
            NftTransferDetails {
                nft_collection: ra(&r.asset),
                nft_item: ra(&r.asset_secondary),
                nft_item_index: d.nft_item_index,
                old_owner: ra(&r.source),
                new_owner: ra(&r.destination),
                is_purchase: d.is_purchase,
                price: d.price,
                query_id: d.query_id,
                response_destination: ra(&d.response_destination),
                custom_payload: d.custom_payload,
                forward_payload: d.forward_payload,
                forward_amount: d.forward_amount,
                comment: d.comment,
                is_encrypted_comment: d.is_encrypted_comment,
                marketplace: d.marketplace,
                real_old_owner: sold.then(|| ra(&d.real_prev_owner)),
                marketplace_address: sold.then(|| ra(&d.marketplace_address)),
                payout_amount: d.payout_amount,
                payout_address: ra(&d.payout_address),
                payout_comment: d.payout_comment,
                payout_comment_encrypted: d.payout_comment_encrypted,
                payout_comment_encoded: d.payout_comment_encoded,
                royalty_amount: d.royalty_amount,
                royalty_address: ra(&d.royalty_address),
            }
            .into()
        }
        "nft_cancel_sale" => {
            let d: data::Marketplace = fields!(r, Marketplace);
            NftCancelSaleDetails {
                owner: ra(&r.source),
                nft_item: ra(&r.asset_secondary),
                nft_collection: ra(&r.asset),
                sale_address: ra(&r.destination),
                marketplace_address: ra(&d.marketplace_address),
                marketplace: marketplace(d.marketplace_address),
            }
            .into()
        }
        "nft_discovery" => {
            let d: data::NftIndex = fields!(r, NftIndex);
            NftDiscoveryDetails {
                source: ra(&r.source),
                nft_item: ra(&r.asset_secondary),
                nft_collection: ra(&r.asset),
                nft_item_index: d.nft_item_index,
            }
            .into()
        }
        "auction_bid" => {
            let d: data::AuctionBid = fields!(r, AuctionBid);
            AuctionBidDetails {
                amount: r.value.clone(),
                bidder: ra(&r.source),
                auction: ra(&r.destination),
                nft_item: ra(&r.asset_secondary),
                nft_collection: ra(&r.asset),
                nft_item_index: d.nft_item_index,
            }
            .into()
        }
        "auction_outbid" => {
            let d: data::AuctionOutbid = fields!(r, AuctionOutbid);
            AuctionOutbidDetails {
                auction_address: ra(&r.source),
                bidder: ra(&r.destination),
                new_bidder: ra(&r.source_secondary),
                nft_item: ra(&r.asset_secondary),
                nft_collection: ra(&r.asset),
                amount: r.amount.clone(),
                comment: d.comment,
            }
            .into()
        }
        _ => return listing_details(r),
    })
}

/// The details of NFT sales and auctions put up, updated and ended.
fn listing_details(r: &ActionRecord) -> Option<ActionDetails> {
    Some(match r.kind.as_str() {
        "nft_put_on_sale" => {
            let d: Box<data::NftListing> = fields!(r, NftListing);
            let d = *d;
            NftPutOnSaleDetails {
                nft_collection: ra(&r.asset),
                nft_item: ra(&r.asset_secondary),
                nft_item_index: d.nft_item_index,
                owner: ra(&r.source),
                listing_address: ra(&r.source_secondary),
                sale_address: ra(&r.destination),
                marketplace_address: ra(&r.destination_secondary),
                marketplace: marketplace(d.marketplace_address),
                full_price: d.full_price,
                marketplace_fee: d.marketplace_fee,
                royalty_amount: d.royalty_amount,
                marketplace_fee_address: ra(&d.marketplace_fee_address),
                royalty_address: ra(&d.royalty_address),
            }
            .into()
        }
        "nft_put_on_auction" | "teleitem_start_auction" => {
            let d: Box<data::NftListing> = fields!(r, NftListing);
            let d = *d;
            NftPutOnAuctionDetails {
                nft_collection: ra(&r.asset),
                nft_item: ra(&r.asset_secondary),
                nft_item_index: d.nft_item_index,
                owner: ra(&r.source),
                listing_address: ra(&r.source_secondary),
                auction_address: ra(&r.destination),
                marketplace_address: ra(&r.destination_secondary),
                marketplace_fee_factor: d.marketplace_fee_factor,
                marketplace_fee_base: d.marketplace_fee_base,
                royalty_fee_base: d.royalty_fee_base,
                max_bid: d.max_bid,
                min_bid: d.min_bid,
                marketplace_fee_address: ra(&d.marketplace_fee_address),
                royalty_address: ra(&d.royalty_address),
                marketplace: marketplace(r.destination_secondary),
            }
            .into()
        }
        "nft_cancel_auction" | "nft_finish_auction" | "teleitem_cancel_auction" => {
            let d: data::Marketplace = fields!(r, Marketplace);
            NftAuctionEndDetails {
                owner: ra(&r.source),
                auction_address: ra(&r.destination),
                nft_item: ra(&r.asset_secondary),
                nft_collection: ra(&r.asset),
                marketplace_address: ra(&d.marketplace_address),
                marketplace: marketplace(d.marketplace_address),
            }
            .into()
        }
        "nft_update_sale" => {
            let d: data::NftUpdateSale = fields!(r, NftUpdateSale);
            NftUpdateSaleDetails {
                source: ra(&r.source),
                sale_contract: ra(&r.destination),
                nft_address: ra(&r.asset_secondary),
                marketplace_address: ra(&d.marketplace_address),
                marketplace: marketplace(d.marketplace_address),
                full_price: d.full_price,
                marketplace_fee: d.marketplace_fee,
                royalty_amount: d.royalty_amount,
            }
            .into()
        }
        _ => return None,
    })
}

/// The details of DNS records changed and of .ton domains sold or released.
pub(super) fn dns_details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "change_dns" => {
            let d: data::DnsRecord = fields!(r, DnsRecord);
            // The value under its schema's field, a text record's text
            // under dns_storage_address.
            let mut value = DnsRecordValue {
                sum_type: d.value_schema.clone(),
                dns_smc_address: None,
                dns_adnl_address: None,
                dns_text: None,
                dns_next_resolver_address: None,
                dns_storage_address: None,
                flags: d.flags,
            };
            let field = match d.value_schema.as_deref() {
                Some("DNSNextResolver") => Some(&mut value.dns_next_resolver_address),
                Some("DNSAdnlAddress") => Some(&mut value.dns_adnl_address),
                Some("DNSSmcAddress") => Some(&mut value.dns_smc_address),
                Some("DNSStorageAddress" | "DNSText") => Some(&mut value.dns_storage_address),
                _ => None,
            };
            if let Some(field) = field {
                *field = d.value;
            }
            ChangeDnsDetails {
                key: d.key,
                value,
                source: ra(&r.source),
                asset: ra(&r.destination),
                nft_collection: ra(&r.asset),
            }
            .into()
        }
        "delete_dns" => {
            let d: data::DnsRecord = fields!(r, DnsRecord);
            DeleteDnsDetails {
                hash: d.key,
                source: ra(&r.source),
                asset: ra(&r.destination),
                nft_collection: ra(&r.asset),
            }
            .into()
        }
        "renew_dns" => RenewDnsDetails {
            source: ra(&r.source),
            asset: ra(&r.destination),
            nft_collection: ra(&r.asset),
        }
        .into(),
        // Staking: the fields the Go server fills for each provider; the
        // ones a provider does not have stay null.
        "dns_purchase" => {
            let d: data::DnsSale = fields!(r, DnsSale);
            DnsPurchaseDetails {
                nft_collection: ra(&r.asset),
                nft_item: ra(&r.asset_secondary),
                nft_item_index: d.nft_item_index,
                new_owner: ra(&r.destination),
                price: d.price,
                query_id: d.query_id,
                payout_amount: d.payout_amount,
            }
            .into()
        }
        "dns_release" => {
            let d: data::DnsSale = fields!(r, DnsSale);
            DnsReleaseDetails {
                query_id: d.query_id,
                source: ra(&r.source),
                nft_item: ra(&r.destination),
                nft_collection: ra(&r.asset),
                nft_item_index: d.nft_item_index,
                value: r.value.clone(),
            }
            .into()
        }
        _ => return None,
    })
}
