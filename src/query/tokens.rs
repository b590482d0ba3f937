//! The index's token tables as the action classifier asks about them
//! (`trace::classify::Interfaces`), for traces classified outside the
//! index step (pending, emulated ones).

use tonindex_model::Address;
use tonindex_storage::tables::{AccountStates, MultisigOrders, NftSales};
use tonindex_storage::{NftSaleRecord, Reader, SaleDetail, SaleKind};

use crate::trace::classify::{
    AuctionTerms, Interfaces, JettonWallet, MultisigOrder, NftItem, NftSale,
};

/// A stored GetGems sale or auction as the classifier sees it (`kind` says
/// which one is asked for): its item, seller, marketplace and price (a
/// sale's full price, an auction's last bid).
pub(crate) fn sale_interface(s: &NftSaleRecord, kind: SaleKind) -> Option<NftSale> {
    if s.kind != kind {
        return None;
    }
    let price_name = match kind {
        SaleKind::FixedPrice => "full_price",
        SaleKind::Auction => "last_bid",
        SaleKind::Telemint => "bid",
    };
    let amount = |name: &str| {
        s.details.iter().find_map(|(k, v)| match v {
            SaleDetail::Amount(a) if k == name => a.parse().ok(),
            _ => None,
        })
    };
    let text = |name: &str| {
        s.details.iter().find_map(|(k, v)| match v {
            SaleDetail::Amount(a) if k == name => Some(a.clone()),
            SaleDetail::Int(i) if k == name => Some(i.to_string()),
            _ => None,
        })
    };
    let address = |name: &str| {
        s.details.iter().find_map(|(k, v)| match v {
            SaleDetail::Address(a) if k == name => *a,
            _ => None,
        })
    };
    let auction = kind == SaleKind::Auction;
    Some(NftSale {
        nft: s.nft,
        owner: s.owner,
        marketplace: s.marketplace,
        price: amount(price_name).unwrap_or(0),
        fee_address: address(if auction {
            "mp_fee_address"
        } else {
            "marketplace_fee_address"
        }),
        fee: amount("marketplace_fee"),
        royalty_address: address(if auction {
            "royalty_fee_address"
        } else {
            "royalty_address"
        }),
        royalty: amount("royalty_amount"),
        terms: auction.then(|| AuctionTerms {
            mp_fee_factor: text("mp_fee_factor"),
            mp_fee_base: text("mp_fee_base"),
            royalty_fee_base: text("royalty_fee_base"),
            max_bid: text("max_bid"),
            min_bid: text("min_bid"),
        }),
    })
}

/// Answers from the stored Jetton wallets and NFT items.
pub struct StoredInterfaces<'r, 'db>(pub &'r Reader<'db>);

impl Interfaces for StoredInterfaces<'_, '_> {
    fn jetton_wallet(&self, account: &Address) -> Option<JettonWallet> {
        let w = super::jettons::wallet(self.0, account).ok()??;
        Some(JettonWallet {
            owner: w.owner,
            jetton: w.jetton,
        })
    }
    fn nft_item(&self, account: &Address) -> Option<NftItem> {
        let i = super::nfts::item(self.0, account).ok()??;
        Some(NftItem {
            collection: i.collection,
            index: num_bigint::BigUint::from_bytes_be(&i.index).to_string(),
        })
    }
    fn nft_sale(&self, account: &Address) -> Option<NftSale> {
        sale_interface(
            &self.0.get::<NftSales>(account).ok()??,
            SaleKind::FixedPrice,
        )
    }
    fn nft_auction(&self, account: &Address) -> Option<NftSale> {
        sale_interface(&self.0.get::<NftSales>(account).ok()??, SaleKind::Auction)
    }
    fn teleitem(&self, account: &Address) -> bool {
        self.0
            .get::<NftSales>(account)
            .ok()
            .flatten()
            .is_some_and(|s| s.kind == SaleKind::Telemint)
    }
    fn code_hash(&self, account: &Address) -> Option<tonindex_model::Hash> {
        self.0.get::<AccountStates>(account).ok()??.code_hash
    }
    fn multisig_order(&self, account: &Address) -> Option<MultisigOrder> {
        let o = self.0.get::<MultisigOrders>(account).ok()??;
        Some(MultisigOrder { signers: o.signers })
    }
    fn account_data(&self, account: &Address) -> Option<tycho_types::cell::Cell> {
        let record = self.0.get::<AccountStates>(account).ok()??;
        crate::contracts::active_data(&record.shard_account)
    }
}
