//! Reads of the multisig and vesting tables (spec v3 §3.9, §3.10). Every
//! filter is a set of point lookups or key prefixes; rows come back in v3's
//! `id` order, which tonindex keeps as the lt of the state each contract
//! was first read from (then the address).

use std::collections::BTreeSet;

use tonindex_model::Address;
use tonindex_storage::tables::{
    AccountPairKey, MultisigOrders, MultisigOrdersByMultisig, Multisigs, MultisigsByWallet,
    VestingRole, Vestings, VestingsByWallet,
};
use tonindex_storage::{Error, MultisigOrderRecord, MultisigRecord, Reader, VestingRecord};

/// A page of `rows` in `(first_lt, address)` order.
fn page<T>(
    mut rows: Vec<(Address, T)>,
    first_lt: impl Fn(&T) -> u64,
    desc: bool,
    offset: usize,
    limit: usize,
) -> Vec<(Address, T)> {
    rows.sort_by_key(|(a, r)| (first_lt(r), *a));
    if desc {
        rows.reverse();
    }
    rows.into_iter().skip(offset).take(limit).collect()
}

fn second_of(r: &Reader<'_>, first: &Address) -> Result<Vec<Address>, Error> {
    let mut out = Vec::new();
    for row in r.prefix::<MultisigsByWallet>(&AccountPairKey::prefix(first), false) {
        out.push(row?.0.second);
    }
    Ok(out)
}

/// Multisigs among `addresses` (each empty = any) that have one of
/// `wallets` as a signer or proposer. At least one filter must be given.
pub fn multisigs(
    r: &Reader<'_>,
    addresses: &[Address],
    wallets: &[Address],
    desc: bool,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, MultisigRecord)>, Error> {
    let candidates: BTreeSet<Address> = if addresses.is_empty() {
        let mut s = BTreeSet::new();
        for w in wallets {
            s.extend(second_of(r, w)?);
        }
        s
    } else {
        addresses.iter().copied().collect()
    };
    let mut rows = Vec::new();
    for a in candidates {
        let Some(rec) = r.get::<Multisigs>(&a)? else {
            continue;
        };
        let named = wallets.is_empty()
            || rec
                .signers
                .iter()
                .chain(&rec.proposers)
                .any(|w| wallets.contains(w));
        if named {
            rows.push((a, rec));
        }
    }
    Ok(page(rows, |m| m.first_lt, desc, offset, limit))
}

/// Orders among `addresses` (each empty = any) of one of `multisigs`. At
/// least one filter must be given.
pub fn orders(
    r: &Reader<'_>,
    addresses: &[Address],
    multisigs: &[Address],
    desc: bool,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, MultisigOrderRecord)>, Error> {
    let candidates: BTreeSet<Address> = if addresses.is_empty() {
        let mut s = BTreeSet::new();
        for m in multisigs {
            for row in r.prefix::<MultisigOrdersByMultisig>(&AccountPairKey::prefix(m), false) {
                s.insert(row?.0.second);
            }
        }
        s
    } else {
        addresses.iter().copied().collect()
    };
    let mut rows = Vec::new();
    for a in candidates {
        if let Some(rec) = r.get::<MultisigOrders>(&a)? {
            if multisigs.is_empty() || multisigs.contains(&rec.multisig) {
                rows.push((a, rec));
            }
        }
    }
    Ok(page(rows, |o| o.first_lt, desc, offset, limit))
}

/// Every order of one multisig, oldest first.
pub fn orders_of(
    r: &Reader<'_>,
    multisig: &Address,
) -> Result<Vec<(Address, MultisigOrderRecord)>, Error> {
    orders(r, &[], &[*multisig], false, 0, usize::MAX)
}

/// Vesting wallets: those among `contracts`, or those whose owner or sender
/// is one of `wallets` (and with `whitelisted`, those whose whitelist holds
/// one of them); oldest first.
pub fn vestings(
    r: &Reader<'_>,
    contracts: &[Address],
    wallets: &[Address],
    whitelisted: bool,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, VestingRecord)>, Error> {
    let mut candidates: BTreeSet<Address> = contracts.iter().copied().collect();
    let wanted = VestingRole::OWNER_OR_SENDER
        | if whitelisted {
            VestingRole::WHITELISTED
        } else {
            0
        };
    for w in wallets {
        for row in r.prefix::<VestingsByWallet>(&AccountPairKey::prefix(w), false) {
            let (key, roles) = row?;
            if roles & wanted != 0 {
                candidates.insert(key.second);
            }
        }
    }
    let mut rows = Vec::new();
    for a in candidates {
        if let Some(rec) = r.get::<Vestings>(&a)? {
            rows.push((a, rec));
        }
    }
    Ok(page(rows, |v| v.first_lt, false, offset, limit))
}
