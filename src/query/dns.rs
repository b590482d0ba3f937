//! Reads of the DNS tables (spec v3 §3.8, and the address book's `domain`).

use sha2::Digest as _;

use tonindex_model::Address;
use tonindex_storage::tables::{
    AccountPairKey, DnsByDomain, DnsByWallet, DnsEntries, HashAccountKey, NftItems,
};
use tonindex_storage::{DnsRecord, Error, Reader};

/// A DNS entry with its item's current owner.
pub struct Entry {
    pub item: Address,
    pub owner: Option<Address>,
    pub record: DnsRecord,
}

fn entries(r: &Reader<'_>, items: Vec<Address>) -> Result<Vec<Entry>, Error> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if let Some(record) = r.get::<DnsEntries>(&item)? {
            let owner = r.get::<NftItems>(&item)?.and_then(|i| i.owner);
            out.push(Entry {
                item,
                owner,
                record,
            });
        }
    }
    out.sort_by(|a, b| {
        (a.record.domain.len(), &a.record.domain, a.item).cmp(&(
            b.record.domain.len(),
            &b.record.domain,
            b.item,
        ))
    });
    Ok(out)
}

/// Entries whose `wallet` record names `wallet`, shortest domain first.
pub fn by_wallet(r: &Reader<'_>, wallet: &Address) -> Result<Vec<Entry>, Error> {
    let mut items = Vec::new();
    for row in r.prefix::<DnsByWallet>(&AccountPairKey::prefix(wallet), false) {
        items.push(row?.0.second);
    }
    entries(r, items)
}

/// Entries of exactly `domain` (e.g. `foundation.ton`).
pub fn by_domain(r: &Reader<'_>, domain: &str) -> Result<Vec<Entry>, Error> {
    let hash: [u8; 32] = sha2::Sha256::digest(domain.as_bytes()).into();
    let mut items = Vec::new();
    for row in r.prefix::<DnsByDomain>(&HashAccountKey::prefix(&hash), false) {
        items.push(row?.0.account);
    }
    entries(r, items)
}

/// The domain the address book shows for `address`: the shortest domain
/// it owns whose `wallet` record points back at it.
pub fn domain_of(r: &Reader<'_>, address: &Address) -> Result<Option<String>, Error> {
    Ok(owned_domain(address, by_wallet(r, address)?))
}

/// [`domain_of`] of many addresses, in order: their `wallet` records read
/// under one iterator (nearly every address of a page has none).
pub fn domains_of(r: &Reader<'_>, addresses: &[Address]) -> Result<Vec<Option<String>>, Error> {
    let prefixes: Vec<Vec<u8>> = addresses.iter().map(AccountPairKey::prefix).collect();
    let found = r.prefixes::<DnsByWallet>(&prefixes)?;
    addresses
        .iter()
        .zip(found)
        .map(|(a, rows)| {
            if rows.is_empty() {
                return Ok(None);
            }
            let items = rows.into_iter().map(|(k, _)| k.second).collect();
            Ok(owned_domain(a, entries(r, items)?))
        })
        .collect()
}

/// The first of `entries` (shortest domain first) that `address` owns.
fn owned_domain(address: &Address, entries: Vec<Entry>) -> Option<String> {
    entries
        .into_iter()
        .find(|e| e.owner.as_ref() == Some(address))
        .map(|e| e.record.domain)
}
