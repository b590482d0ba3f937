//! TEP-62 NFTs, read the way toncenter's worker reads them (spec v3
//! §6.4): a collection by `get_collection_data`, an item by
//! `get_nft_data`, an item of a collection believed only when the
//! collection's `get_nft_address_by_index(index)` gives the item's
//! address, and its full content from the collection's
//! `get_nft_content(index, individual_content)`.

use num_bigint::BigInt;
use tycho_types::cell::Cell;
use tycho_types::models::StdAddr;
use tycho_vm::{RcStackValue, SafeRc};

use super::jetton::{address, ok_stack};
use crate::tvm::getmethod::RunOutput;

/// What `get_collection_data` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionData {
    pub next_item_index: BigInt,
    pub content: Cell,
    pub owner: Option<StdAddr>,
}

/// What `get_nft_data` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemData {
    pub init: bool,
    pub index: BigInt,
    pub collection: Option<StdAddr>,
    pub owner: Option<StdAddr>,
    pub individual_content: Cell,
}

/// `get_collection_data` → `(next_item_index, content, owner)`.
pub fn collection_data(out: &RunOutput) -> Option<CollectionData> {
    let s = ok_stack(out, 3)?;
    Some(CollectionData {
        next_item_index: s[0].as_int()?.clone(),
        content: s[1].as_cell()?.clone(),
        owner: address(&s[2])?,
    })
}

/// `get_nft_data` → `(init, index, collection, owner, individual_content)`.
pub fn item_data(out: &RunOutput) -> Option<ItemData> {
    let s = ok_stack(out, 5)?;
    Some(ItemData {
        init: s[0].as_int()? != &BigInt::ZERO,
        index: s[1].as_int()?.clone(),
        collection: address(&s[2])?,
        owner: address(&s[3])?,
        individual_content: s[4].as_cell()?.clone(),
    })
}

/// The arguments of `get_nft_address_by_index(index)`.
pub fn index_arg(index: &BigInt) -> RcStackValue {
    SafeRc::new_dyn_value(index.clone())
}

/// The arguments of `get_nft_content(index, individual_content)`.
pub fn content_args(item: &ItemData) -> Vec<RcStackValue> {
    vec![
        SafeRc::new_dyn_value(item.index.clone()),
        SafeRc::new_dyn_value(item.individual_content.clone()),
    ]
}

/// The cell `get_nft_content` gave.
pub fn content_result(out: &RunOutput) -> Option<Cell> {
    Some(ok_stack(out, 1)?[0].as_cell()?.clone())
}
