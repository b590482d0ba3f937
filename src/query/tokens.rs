//! The index's token tables as the action classifier asks about them
//! (`trace::classify::Interfaces`), for traces classified outside the
//! index step (pending, emulated ones).

use tonindex_model::Address;
use tonindex_storage::Reader;

use crate::trace::classify::{Interfaces, JettonWallet, NftItem};

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
}
