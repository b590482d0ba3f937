//! Jetton masters and wallets as the index's token tables hold them
//! (spec v3 §3.6): which rows a filter selects, in the spec's orders.

use std::collections::BTreeSet;

use tonindex_model::Address;
use tonindex_storage::tables::{
    AccountPairKey, JettonMasters, JettonMastersByAdmin, JettonWallets, JettonWalletsByJetton,
    JettonWalletsByOwner,
};
use tonindex_storage::{Error, JettonMasterRecord, JettonWalletRecord, Reader};

/// `/jetton/masters` filters (each empty = any).
#[derive(Debug, Default)]
pub struct MasterFilter {
    pub addresses: Vec<Address>,
    pub admins: Vec<Address>,
}

/// The masters `f` selects, in address order, `offset`/`limit` applied.
pub fn masters(
    r: &Reader<'_>,
    f: &MasterFilter,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, JettonMasterRecord)>, Error> {
    let wanted = |a: &Address, rec: &JettonMasterRecord| {
        (f.addresses.is_empty() || f.addresses.contains(a))
            && (f.admins.is_empty() || rec.admin.is_some_and(|x| f.admins.contains(&x)))
    };
    let mut out = Vec::new();
    let needed = offset.saturating_add(limit);
    if !f.addresses.is_empty() || !f.admins.is_empty() {
        let candidates: BTreeSet<Address> = if f.addresses.is_empty() {
            let mut s = BTreeSet::new();
            for admin in &f.admins {
                for row in r.prefix::<JettonMastersByAdmin>(&AccountPairKey::prefix(admin), false) {
                    s.insert(row?.0.second);
                }
            }
            s
        } else {
            f.addresses.iter().copied().collect()
        };
        for a in candidates {
            if let Some(rec) = r.get::<JettonMasters>(&a)? {
                if wanted(&a, &rec) {
                    out.push((a, rec));
                }
            }
            if out.len() >= needed {
                break;
            }
        }
    } else {
        for row in r.prefix::<JettonMasters>(&[], false) {
            out.push(row?);
            if out.len() >= needed {
                break;
            }
        }
    }
    Ok(out.into_iter().skip(offset).take(limit).collect())
}

/// `/jetton/wallets` filters (each empty = any).
#[derive(Debug, Default)]
pub struct WalletFilter {
    pub addresses: Vec<Address>,
    pub owners: Vec<Address>,
    pub jettons: Vec<Address>,
    pub exclude_zero_balance: bool,
    /// `Some(desc)`: order by balance within each owner (or master).
    pub balance_order: Option<bool>,
}

/// The wallets `f` selects, `offset`/`limit` applied: by address when
/// addresses are given; else grouped by owner (or by master, when only
/// masters are given), by balance within a group when asked, else by
/// wallet address.
pub fn wallets(
    r: &Reader<'_>,
    f: &WalletFilter,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, JettonWalletRecord)>, Error> {
    let wanted = |a: &Address, w: &JettonWalletRecord| {
        (f.addresses.is_empty() || f.addresses.contains(a))
            && (f.owners.is_empty() || f.owners.contains(&w.owner))
            && (f.jettons.is_empty() || f.jettons.contains(&w.jetton))
            && (!f.exclude_zero_balance || w.balance > 0)
    };
    // Groups of candidate wallets, in the order the answer lists groups.
    let groups: Vec<Vec<Address>> = if !f.addresses.is_empty() {
        vec![f
            .addresses
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()]
    } else if !f.owners.is_empty() || !f.jettons.is_empty() {
        let (keys, by_owner) = if f.owners.is_empty() {
            (&f.jettons, false)
        } else {
            (&f.owners, true)
        };
        let keys: BTreeSet<&Address> = keys.iter().collect();
        let mut groups = Vec::new();
        for k in keys {
            let prefix = AccountPairKey::prefix(k);
            let mut g = Vec::new();
            let rows: Box<dyn Iterator<Item = Result<(AccountPairKey, ()), Error>>> = if by_owner {
                Box::new(r.prefix::<JettonWalletsByOwner>(&prefix, false))
            } else {
                Box::new(r.prefix::<JettonWalletsByJetton>(&prefix, false))
            };
            for row in rows {
                g.push(row?.0.second);
            }
            groups.push(g);
        }
        groups
    } else {
        let mut all = Vec::new();
        let needed = offset.saturating_add(limit);
        for row in r.prefix::<JettonWallets>(&[], false) {
            let (a, w) = row?;
            if wanted(&a, &w) {
                all.push(a);
            }
            if f.balance_order.is_none() && all.len() >= needed {
                break;
            }
        }
        vec![all]
    };
    let mut out = Vec::new();
    for group in groups {
        let mut rows = Vec::with_capacity(group.len());
        for a in group {
            if let Some(w) = r.get::<JettonWallets>(&a)? {
                if wanted(&a, &w) {
                    rows.push((a, w));
                }
            }
        }
        if let Some(desc) = f.balance_order {
            rows.sort_by(|x, y| {
                let o = x.1.balance.cmp(&y.1.balance).then(x.0.cmp(&y.0));
                if desc {
                    o.reverse()
                } else {
                    o
                }
            });
        }
        out.extend(rows);
        if f.balance_order.is_none() && out.len() >= offset.saturating_add(limit) {
            break;
        }
    }
    Ok(out.into_iter().skip(offset).take(limit).collect())
}

/// One wallet's row, if the index believes it is a Jetton wallet.
pub fn wallet(r: &Reader<'_>, a: &Address) -> Result<Option<JettonWalletRecord>, Error> {
    r.get::<JettonWallets>(a)
}

/// One master's row.
pub fn master(r: &Reader<'_>, a: &Address) -> Result<Option<JettonMasterRecord>, Error> {
    r.get::<JettonMasters>(a)
}
