//! Jetton masters and wallets as the index's token tables hold them
//! (spec v3 §3.6): which rows a filter selects, in the spec's orders.

use std::collections::BTreeSet;

use tonindex_model::{Address, Hash};
use tonindex_storage::tables::{
    AccountEventTimeKey, AccountLtHashKey, AccountPairKey, EventTable, EventTimeKey, JettonBurns,
    JettonBurnsByAccount, JettonMasters, JettonMastersByAdmin, JettonTransfers,
    JettonTransfersByAccount, JettonWallets, JettonWalletsByJetton, JettonWalletsByOwner,
    LtHashKey, Table, TokenEventsByAccountNow, TokenEventsByNow,
};
use tonindex_storage::{
    Error, JettonBurnRecord, JettonMasterRecord, JettonTransferRecord, JettonWalletRecord, Key,
    Reader,
};

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
/// wallet address. `unclaimed` is a wallet's unclaimed mintless airdrop,
/// which counts as balance for `exclude_zero_balance` (spec v3 §3).
pub fn wallets(
    r: &Reader<'_>,
    f: &WalletFilter,
    unclaimed: &dyn Fn(&JettonWalletRecord) -> u128,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, JettonWalletRecord)>, Error> {
    let wanted = |a: &Address, w: &JettonWalletRecord| {
        (f.addresses.is_empty() || f.addresses.contains(a))
            && (f.owners.is_empty() || f.owners.contains(&w.owner))
            && (f.jettons.is_empty() || f.jettons.contains(&w.jetton))
            && (!f.exclude_zero_balance
                || w.balance > 0
                || (w.mintless_is_claimed == Some(false) && unclaimed(w) > 0))
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

/// [`master`] of many addresses, in order, in one batch.
pub fn masters_of(r: &Reader<'_>, a: &[Address]) -> Result<Vec<Option<JettonMasterRecord>>, Error> {
    r.multi_get::<JettonMasters>(a)
}

/// [`wallet`] of many addresses, in order, in one batch.
pub fn wallets_of(r: &Reader<'_>, a: &[Address]) -> Result<Vec<Option<JettonWalletRecord>>, Error> {
    r.multi_get::<JettonWallets>(a)
}

/// `/jetton/transfers`, `/jetton/burns` and `/nft/transfers` filters
/// (for NFTs, `wallets` are items and `master` the collection).
#[derive(Debug, Default)]
pub struct EventFilter {
    /// Accounts the rows are looked up by, each with the roles that count
    /// ([`tonindex_storage::tables::JettonRole`] bits); empty: every row.
    pub by: Vec<(Address, u32)>,
    /// Only rows of these Jetton wallets (empty: any).
    pub wallets: Vec<Address>,
    pub master: Option<Address>,
    pub start_lt: Option<u64>,
    pub end_lt: Option<u64>,
    pub start_utime: Option<u32>,
    pub end_utime: Option<u32>,
    pub exclude_aborted: bool,
    pub desc: bool,
}

/// What the event scan needs of a row.
pub trait EventRow {
    fn order(&self) -> (u64, Hash);
    fn now(&self) -> u32;
    fn aborted(&self) -> bool;
    /// The Jetton wallet (NFT item) the row is about.
    fn wallet(&self) -> Address;
    /// Its Jetton master (NFT collection).
    fn master(&self) -> Option<Address>;
    fn tx_id(&self) -> u64;
}

impl EventRow for JettonTransferRecord {
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
        self.source_wallet
    }
    fn master(&self) -> Option<Address> {
        Some(self.jetton_master)
    }
    fn tx_id(&self) -> u64 {
        self.tx_id
    }
}

impl EventRow for JettonBurnRecord {
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
        self.jetton_wallet
    }
    fn master(&self) -> Option<Address> {
        Some(self.jetton_master)
    }
    fn tx_id(&self) -> u64 {
        self.tx_id
    }
}

/// Rows, each with its transaction's trace id (if assembled).
pub type WithTraces<R> = Vec<(R, Option<Hash>)>;

pub(crate) fn event_rows<T, I>(
    r: &Reader<'_>,
    f: &EventFilter,
    offset: usize,
    limit: usize,
) -> Result<WithTraces<T::Value>, Error>
where
    T: EventTable,
    T::Value: EventRow,
    I: Table<Key = AccountLtHashKey, Value = u32>,
{
    let needed = offset.saturating_add(limit);
    let (lo, hi) = (f.start_lt.unwrap_or(0), f.end_lt.unwrap_or(u64::MAX));
    let keep = |row: &T::Value| {
        (!f.exclude_aborted || !row.aborted())
            && (f.wallets.is_empty() || f.wallets.contains(&row.wallet()))
            && f.master.is_none_or(|m| Some(m) == row.master())
            && f.start_utime.is_none_or(|t| row.now() >= t)
            && f.end_utime.is_none_or(|t| row.now() <= t)
            && (lo..=hi).contains(&row.order().0)
    };
    let mut rows: Vec<T::Value> = Vec::new();
    if f.start_utime.is_some() || f.end_utime.is_some() {
        // v3 orders by `tx_now` then: the time window is a key range of
        // the time indexes.
        rows = by_time::<T>(r, f, needed, keep)?;
    } else if f.by.is_empty() {
        let lower = LtHashKey {
            lt: lo,
            hash: [0; 32],
        }
        .encode();
        let upper = hi
            .checked_add(1)
            .map(|lt| LtHashKey { lt, hash: [0; 32] }.encode());
        for row in r.range::<T>(&lower, upper, f.desc) {
            let (_, v) = row?;
            if keep(&v) {
                rows.push(v);
                if rows.len() >= needed {
                    break;
                }
            }
        }
    } else {
        for (account, roles) in &f.by {
            let (lower, upper) = AccountLtHashKey::lt_range(account, lo, hi);
            let mut taken = 0;
            for row in r.range::<I>(&lower, upper, f.desc) {
                let (k, role) = row?;
                if role & roles == 0 {
                    continue;
                }
                let Some(v) = r.get::<T>(&LtHashKey {
                    lt: k.lt,
                    hash: k.hash,
                })?
                else {
                    continue;
                };
                if keep(&v) {
                    rows.push(v);
                    taken += 1;
                    if taken >= needed {
                        break;
                    }
                }
            }
        }
        rows.sort_by_key(|v| v.order());
        rows.dedup_by_key(|v| v.order());
        if f.desc {
            rows.reverse();
        }
    }
    let rows: Vec<T::Value> = rows.into_iter().skip(offset).take(limit).collect();
    let ids: Vec<u64> = rows.iter().map(|v| v.tx_id()).collect();
    let traces = super::traces::trace_ids_of_txs(r, &ids)?;
    Ok(rows.into_iter().zip(traces).collect())
}

/// The first `needed` rows (by `now, lt, hash`, in `f`'s direction) in
/// `f`'s time window that `keep` keeps: of every account, or the union of
/// each account's (with the roles that count).
fn by_time<T>(
    r: &Reader<'_>,
    f: &EventFilter,
    needed: usize,
    keep: impl Fn(&T::Value) -> bool,
) -> Result<Vec<T::Value>, Error>
where
    T: EventTable,
    T::Value: EventRow,
{
    let (lo, hi) = (f.start_utime.unwrap_or(0), f.end_utime.unwrap_or(u32::MAX));
    let row = |lt: u64, hash: Hash| r.get::<T>(&LtHashKey { lt, hash });
    let mut rows = Vec::new();
    if f.by.is_empty() {
        let (lower, upper) = EventTimeKey::now_range(T::KIND, lo, hi);
        for x in r.range::<TokenEventsByNow>(&lower, upper, f.desc) {
            let (k, ()) = x?;
            if let Some(v) = row(k.lt, k.hash)?.filter(|v| keep(v)) {
                rows.push(v);
                if rows.len() >= needed {
                    break;
                }
            }
        }
        return Ok(rows);
    }
    for (account, roles) in &f.by {
        let (lower, upper) = AccountEventTimeKey::now_range(T::KIND, account, lo, hi);
        let mut taken = 0;
        for x in r.range::<TokenEventsByAccountNow>(&lower, upper, f.desc) {
            let (k, role) = x?;
            if role & roles == 0 {
                continue;
            }
            if let Some(v) = row(k.lt, k.hash)?.filter(|v| keep(v)) {
                rows.push(v);
                taken += 1;
                if taken >= needed {
                    break;
                }
            }
        }
    }
    rows.sort_by_key(|v| (v.now(), v.order()));
    rows.dedup_by_key(|v| v.order());
    if f.desc {
        rows.reverse();
    }
    Ok(rows)
}

/// Jetton transfers `f` selects, with each one's trace id.
pub fn transfers(
    r: &Reader<'_>,
    f: &EventFilter,
    offset: usize,
    limit: usize,
) -> Result<WithTraces<JettonTransferRecord>, Error> {
    event_rows::<JettonTransfers, JettonTransfersByAccount>(r, f, offset, limit)
}

/// Jetton burns `f` selects, with each one's trace id.
pub fn burns(
    r: &Reader<'_>,
    f: &EventFilter,
    offset: usize,
    limit: usize,
) -> Result<WithTraces<JettonBurnRecord>, Error> {
    event_rows::<JettonBurns, JettonBurnsByAccount>(r, f, offset, limit)
}
