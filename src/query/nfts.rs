//! NFT collections, items and transfers as the index's token tables hold
//! them (spec v3 §3.7): which rows a filter selects, in the spec's orders.

use std::collections::BTreeSet;

use tonindex_model::{Address, Hash};
use tonindex_storage::tables::{
    AccountPairKey, CollectionIndexKey, NftCollections, NftCollectionsByOwner, NftItems,
    NftItemsByCollection, NftItemsByOwner, NftSales, NftSalesBySeller, NftTransfers,
    NftTransfersByAccount,
};
use tonindex_storage::{
    Error, NftCollectionRecord, NftItemRecord, NftSaleRecord, NftTransferRecord, Reader,
};

use super::jettons::{event_rows, EventFilter, EventRow, WithTraces};

impl EventRow for NftTransferRecord {
    fn order(&self) -> (u64, Hash) {
        (self.tx_lt, self.tx_hash)
    }
    fn now(&self) -> u32 {
        self.tx_now
    }
    fn aborted(&self) -> bool {
        self.tx_aborted
    }
    fn wallet(&self) -> Address {
        self.nft
    }
    fn master(&self) -> Option<Address> {
        self.collection
    }
    fn tx_id(&self) -> u64 {
        self.tx_id
    }
}

/// `/nft/collections` filters (each empty = any).
#[derive(Debug, Default)]
pub struct CollectionFilter {
    pub addresses: Vec<Address>,
    pub owners: Vec<Address>,
}

/// The collections `f` selects, in address order, paged.
pub fn collections(
    r: &Reader<'_>,
    f: &CollectionFilter,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, NftCollectionRecord)>, Error> {
    let needed = offset.saturating_add(limit);
    let mut out = Vec::new();
    if f.addresses.is_empty() && f.owners.is_empty() {
        for row in r.prefix::<NftCollections>(&[], false) {
            out.push(row?);
            if out.len() >= needed {
                break;
            }
        }
    } else {
        let candidates: BTreeSet<Address> = if f.addresses.is_empty() {
            let mut s = BTreeSet::new();
            for o in &f.owners {
                for row in r.prefix::<NftCollectionsByOwner>(&AccountPairKey::prefix(o), false) {
                    s.insert(row?.0.second);
                }
            }
            s
        } else {
            f.addresses.iter().copied().collect()
        };
        for a in candidates {
            if let Some(c) = r.get::<NftCollections>(&a)? {
                if f.owners.is_empty() || c.owner.is_some_and(|o| f.owners.contains(&o)) {
                    out.push((a, c));
                }
            }
            if out.len() >= needed {
                break;
            }
        }
    }
    Ok(out.into_iter().skip(offset).take(limit).collect())
}

/// One collection's row.
pub fn collection(r: &Reader<'_>, a: &Address) -> Result<Option<NftCollectionRecord>, Error> {
    r.get::<NftCollections>(a)
}

/// One item's row, if the index believes it is an NFT item.
pub fn item(r: &Reader<'_>, a: &Address) -> Result<Option<NftItemRecord>, Error> {
    r.get::<NftItems>(a)
}

/// [`collection`] of many addresses, in order, in one batch.
pub fn collections_of(
    r: &Reader<'_>,
    a: &[Address],
) -> Result<Vec<Option<NftCollectionRecord>>, Error> {
    r.multi_get::<NftCollections>(a)
}

/// [`item`] of many addresses, in order, in one batch.
pub fn items_of(r: &Reader<'_>, a: &[Address]) -> Result<Vec<Option<NftItemRecord>>, Error> {
    r.multi_get::<NftItems>(a)
}

/// The sale an item is listed on: its owner is a GetGems sale or auction
/// contract that says it sells this very item (the contract's word alone
/// does not make an item "on sale", nor the item's owner alone).
pub fn sale_of(
    r: &Reader<'_>,
    item: &Address,
    i: &NftItemRecord,
) -> Result<Option<(Address, NftSaleRecord)>, Error> {
    let Some(owner) = i.owner else {
        return Ok(None);
    };
    Ok(r.get::<NftSales>(&owner)?
        .filter(|s| s.nft == *item)
        .map(|s| (owner, s)))
}

/// Sale and auction contracts by address, those the index read.
pub fn sales(
    r: &Reader<'_>,
    addresses: &[Address],
) -> Result<Vec<(Address, NftSaleRecord)>, Error> {
    let mut out = Vec::new();
    for a in addresses.iter().copied().collect::<BTreeSet<_>>() {
        if let Some(s) = r.get::<NftSales>(&a)? {
            out.push((a, s));
        }
    }
    Ok(out)
}

/// `/nft/items` filters (each empty = any).
#[derive(Debug, Default)]
pub struct ItemFilter {
    pub addresses: Vec<Address>,
    pub owners: Vec<Address>,
    /// With `owners`: match the items' real owner (the seller of an item
    /// listed on a sale) instead of their owner.
    pub real_owner: bool,
    pub collections: Vec<Address>,
    /// Indexes (with exactly one collection), big-endian in 256 bits.
    pub indexes: Vec<Hash>,
    /// Newest change first instead of the spec's default orders.
    pub by_last_tx_lt: bool,
}

/// The items `f` selects: by address when addresses are given; else by
/// owner, collection and index; else (collections only) by index.
pub fn items(
    r: &Reader<'_>,
    f: &ItemFilter,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, NftItemRecord)>, Error> {
    let wanted = |a: &Address, i: &NftItemRecord| {
        (f.addresses.is_empty() || f.addresses.contains(a))
            && (f.owners.is_empty()
                || i.owner.is_some_and(|o| f.owners.contains(&o))
                || f.real_owner
                    && sale_of(r, a, i)
                        .ok()
                        .flatten()
                        .and_then(|(_, s)| s.owner)
                        .is_some_and(|seller| f.owners.contains(&seller)))
            && (f.collections.is_empty()
                || i.collection.is_some_and(|c| f.collections.contains(&c)))
            && (f.indexes.is_empty() || f.indexes.contains(&i.index))
    };
    let needed = offset.saturating_add(limit);
    let mut rows: Vec<(Address, NftItemRecord)> = Vec::new();
    let load = |a: Address, rows: &mut Vec<(Address, NftItemRecord)>| -> Result<(), Error> {
        if let Some(i) = r.get::<NftItems>(&a)? {
            if wanted(&a, &i) {
                rows.push((a, i));
            }
        }
        Ok(())
    };
    if !f.addresses.is_empty() {
        for a in f.addresses.iter().copied().collect::<BTreeSet<_>>() {
            load(a, &mut rows)?;
        }
    } else if !f.owners.is_empty() {
        for o in f.owners.iter().collect::<BTreeSet<_>>() {
            let mut group = Vec::new();
            for row in r.prefix::<NftItemsByOwner>(&AccountPairKey::prefix(o), false) {
                load(row?.0.second, &mut group)?;
            }
            if f.real_owner {
                // Items listed on a sale of this seller's (their owner is
                // the sale contract).
                for row in r.prefix::<NftSalesBySeller>(&AccountPairKey::prefix(o), false) {
                    let sale = row?.0.second;
                    let Some(s) = r.get::<NftSales>(&sale)? else {
                        continue;
                    };
                    let listed = r
                        .get::<NftItems>(&s.nft)?
                        .is_some_and(|i| i.owner == Some(sale));
                    if listed && !group.iter().any(|(a, _)| *a == s.nft) {
                        load(s.nft, &mut group)?;
                    }
                }
            }
            group.sort_by_key(|x| (x.1.collection, x.1.index));
            rows.extend(group);
        }
    } else if !f.collections.is_empty() {
        for c in f.collections.iter().collect::<BTreeSet<_>>() {
            let prefixes: Vec<Vec<u8>> = if f.indexes.is_empty() {
                vec![CollectionIndexKey::prefix(c)]
            } else {
                let mut idx = f.indexes.clone();
                idx.sort();
                idx.dedup();
                idx.iter()
                    .map(|i| CollectionIndexKey::index_prefix(c, i))
                    .collect()
            };
            for prefix in prefixes {
                for row in r.prefix::<NftItemsByCollection>(&prefix, false) {
                    load(row?.0.item, &mut rows)?;
                    if !f.by_last_tx_lt && rows.len() >= needed {
                        break;
                    }
                }
            }
        }
    } else {
        for row in r.prefix::<NftItems>(&[], false) {
            let (a, i) = row?;
            if wanted(&a, &i) {
                rows.push((a, i));
            }
            if !f.by_last_tx_lt && rows.len() >= needed {
                break;
            }
        }
    }
    if f.by_last_tx_lt {
        rows.sort_by(|x, y| y.1.last_tx_lt.cmp(&x.1.last_tx_lt).then(x.0.cmp(&y.0)));
    }
    Ok(rows.into_iter().skip(offset).take(limit).collect())
}

/// NFT transfers `f` selects (aborted ones included), with trace ids.
pub fn transfers(
    r: &Reader<'_>,
    f: &EventFilter,
    offset: usize,
    limit: usize,
) -> Result<WithTraces<NftTransferRecord>, Error> {
    event_rows::<NftTransfers, NftTransfersByAccount>(r, f, offset, limit)
}
