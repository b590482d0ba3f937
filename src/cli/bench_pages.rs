//! `bench-serve`'s requests drawn across the whole index: transactions
//! drawn uniformly by id give the accounts, hashes and lts that the cases
//! ask for, so each request of a run asks for a different page (a hot
//! account is drawn often, at different depths, as on mainnet) and the
//! figure measures building pages, not the cache of a few answers.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tonindex_model::Address;
use tonindex_storage::Db;

use super::draw::Draw;
use crate::api::encoding::raw_upper;
use crate::query::transactions::load_txs;

/// One drawn transaction, in the forms a request path takes.
pub(super) struct Drawn {
    /// Raw address, URL-encoded.
    pub account: String,
    /// 64 hex digits.
    pub hash: String,
    pub lt: u64,
}

/// Draws up to `n` distinct transactions uniformly by id (ids are dense,
/// one per indexed transaction) and loads them in batches.
pub(super) fn draw_transactions(db: &Db, n: usize) -> anyhow::Result<Vec<Drawn>> {
    let total = db.cursor()?.next_tx_id;
    if total == 0 {
        return Ok(Vec::new());
    }
    let mut draw = Draw(0x7a9e_5eed_d15c_a11d);
    let want = n.min(usize::try_from(total).unwrap_or(usize::MAX));
    let mut ids = HashSet::with_capacity(want);
    while ids.len() < want {
        ids.insert(draw.next() % total);
    }
    // Asked in a drawn order, not in id order: the set's order.
    let ids: Vec<u64> = ids.into_iter().collect();
    let reader = db.reader();
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(1024) {
        for tx in load_txs(&reader, chunk)? {
            out.push(Drawn {
                account: url_raw(&tx.record.account),
                hash: hex::encode(tx.record.hash),
                lt: tx.record.lt,
            });
        }
    }
    Ok(out)
}

/// A raw address (`0:ABC…`) with its colon URL-encoded.
pub(super) fn url_raw(a: &Address) -> String {
    form_urlencoded::byte_serialize(raw_upper(a).as_bytes()).collect()
}

/// A case's request paths, asked in turn by all of its connections; the
/// position carries over from run to run, so rounds go on through the list
/// rather than ask the same pages again.
#[derive(Clone)]
pub(super) struct Paths {
    list: Arc<Vec<String>>,
    next: Arc<AtomicUsize>,
}

impl Paths {
    pub(super) fn new(list: Vec<String>) -> Self {
        assert!(!list.is_empty(), "a case needs at least one path");
        Self {
            list: Arc::new(list),
            next: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The first `n` paths (fewer when the case has fewer).
    pub(super) fn first(&self, n: usize) -> impl Iterator<Item = &str> {
        self.list.iter().take(n).map(String::as_str)
    }

    /// The next path to ask.
    pub(super) fn take(&self) -> &str {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        &self.list[i % self.list.len()]
    }

    /// How many different paths the case has.
    pub(super) fn len(&self) -> usize {
        self.list.len()
    }

    /// How many paths have been asked so far (over all runs).
    pub(super) fn asked(&self) -> usize {
        self.next.load(Ordering::Relaxed)
    }
}

/// The load cases over the drawn transactions, and over Jetton and NFT
/// owners where the index holds any.
pub(super) fn cases(
    drawn: &[Drawn],
    jetton_owners: Vec<String>,
    nft_owners: Vec<String>,
) -> Vec<(&'static str, Paths)> {
    let each = |f: &dyn Fn(&Drawn) -> String| Paths::new(drawn.iter().map(f).collect());
    let mut cases = vec![
        (
            "v3 masterchainInfo",
            Paths::new(vec!["/api/v3/masterchainInfo".to_string()]),
        ),
        (
            "v3 transaction by hash",
            each(&|d| format!("/api/v3/transactions?hash={}", d.hash)),
        ),
        (
            "v3 account page (limit 100)",
            each(&|d| {
                format!(
                    "/api/v3/transactions?account={}&end_lt={}&limit=100",
                    d.account, d.lt
                )
            }),
        ),
        (
            "v2 getTransactions (limit 10)",
            each(&|d| {
                format!(
                    "/api/v2/getTransactions?address={}&lt={}&hash={}&limit=10",
                    d.account, d.lt, d.hash
                )
            }),
        ),
        (
            "v3 traces of account (limit 100)",
            each(&|d| {
                format!(
                    "/api/v3/traces?account={}&end_lt={}&limit=100",
                    d.account, d.lt
                )
            }),
        ),
        (
            "v3 actions of account (limit 100)",
            each(&|d| {
                format!(
                    "/api/v3/actions?account={}&end_lt={}&limit=100",
                    d.account, d.lt
                )
            }),
        ),
    ];
    let owned = [
        (
            "v3 jetton wallets of owner",
            "/api/v3/jetton/wallets",
            jetton_owners,
        ),
        ("v3 nft items of owner", "/api/v3/nft/items", nft_owners),
    ];
    for (name, path, owners) in owned {
        if !owners.is_empty() {
            let list = owners
                .iter()
                .map(|o| format!("{path}?owner_address={o}"))
                .collect();
            cases.push((name, Paths::new(list)));
        }
    }
    cases
}
