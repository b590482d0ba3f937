//! An account's stored state, read for the APIs: status, balance, code,
//! data, last transaction, and the standard wallet it is (if any).

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{AccountState, ShardAccount};

use tonindex_model::{Address, BlockId, Coins, Hash};
use tonindex_storage::tables::{workchain_prefix, AccountStates, ShardKey, ShardStates};
use tonindex_storage::{AccountStateRecord, Reader};

/// The account's lifecycle state as the APIs name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Nonexist,
    Uninit,
    Active,
    Frozen,
}

impl Status {
    /// v3's spelling.
    pub fn v3(self) -> &'static str {
        match self {
            Status::Nonexist => "nonexist",
            Status::Uninit => "uninit",
            Status::Active => "active",
            Status::Frozen => "frozen",
        }
    }
    /// v2's (tonlib's) spelling: a nonexistent account is "uninitialized".
    pub fn v2(self) -> &'static str {
        match self {
            Status::Nonexist | Status::Uninit => "uninitialized",
            Status::Active => "active",
            Status::Frozen => "frozen",
        }
    }
}

/// One account as the index holds it.
#[derive(Debug, Clone)]
pub struct AccountView {
    pub address: Address,
    pub status: Status,
    pub balance: Coins,
    pub code: Option<Cell>,
    pub data: Option<Cell>,
    pub frozen_hash: Option<HashBytes>,
    pub last_tx_lt: u64,
    pub last_tx_hash: Hash,
    /// Representation hash of the `Account` cell (v3 `account_state_hash`).
    pub state_hash: Hash,
    /// The shard state the row comes from, and its time.
    pub source: Option<BlockId>,
    pub gen_utime: u32,
}

/// A stored row that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Storage(#[from] tonindex_storage::Error),
    #[error("stored state of {0} is unreadable: {1}")]
    Unreadable(String, String),
}

impl AccountView {
    /// What the APIs report for an account the index holds no state for.
    pub fn nonexistent(address: Address) -> Self {
        Self {
            address,
            status: Status::Nonexist,
            balance: Coins::default(),
            code: None,
            data: None,
            frozen_hash: None,
            last_tx_lt: 0,
            last_tx_hash: [0; 32],
            state_hash: [0; 32],
            source: None,
            gen_utime: 0,
        }
    }

    /// The code cell's hash, when the account has code.
    pub fn code_hash(&self) -> Option<HashBytes> {
        self.code.as_ref().map(|c| *c.repr_hash())
    }
}

fn unreadable(address: &Address, e: impl ToString) -> AccountError {
    AccountError::Unreadable(
        format!("{}:{}", address.workchain, hex::encode(address.id)),
        e.to_string(),
    )
}

/// The stored `ShardAccount` of `address` (what transactions run on) and
/// the time of the state it comes from; `None` when the index holds none.
pub fn load_shard_account(
    r: &Reader<'_>,
    address: &Address,
) -> Result<Option<(ShardAccount, u32)>, AccountError> {
    Ok(read(r, address)?.map(|(rec, sa)| (sa, rec.gen_utime)))
}

fn read(
    r: &Reader<'_>,
    address: &Address,
) -> Result<Option<(AccountStateRecord, ShardAccount)>, AccountError> {
    let Some(rec) = r.get::<AccountStates>(address)? else {
        return Ok(None);
    };
    let cell = Boc::decode(&rec.shard_account).map_err(|e| unreadable(address, e))?;
    let sa = cell.parse().map_err(|e| unreadable(address, e))?;
    Ok(Some((rec, sa)))
}

/// What the node knows of an account's newest state: never a made-up one.
#[derive(Debug)]
pub enum Known<T> {
    /// Its state, as new as its newest indexed transaction.
    Held(T),
    /// Its state as of an earlier block: the index holds newer transactions
    /// of it (blocks between were not applied to the held state). An
    /// answer may give it only naming the block it comes from.
    Stale(T, String),
    /// A held state of its shard, as new as its transactions, has no such
    /// account: it does not exist.
    Absent,
    /// The node cannot say; why.
    NotHeld(String),
}

/// The lt of the newest indexed transaction of `address`.
fn newest_tx_lt(r: &Reader<'_>, address: &Address) -> Result<Option<u64>, AccountError> {
    Ok(crate::query::transactions::newest_tx_lt(r, address)?)
}

fn raw(address: &Address) -> String {
    format!("{}:{}", address.workchain, hex::encode(address.id))
}

/// The newest state of `address` as the node knows it: held (and not
/// older than the account's indexed transactions), known absent (a held
/// state of its shard, as new as its transactions, lacks it), or not held.
pub fn newest(
    r: &Reader<'_>,
    address: &Address,
) -> Result<Known<(AccountStateRecord, ShardAccount)>, AccountError> {
    let newest_tx = newest_tx_lt(r, address)?;
    if let Some((rec, sa)) = read(r, address)? {
        if newest_tx.is_some_and(|lt| lt > sa.last_trans_lt) {
            let why = format!(
                "the state this node holds of {} is older than its transaction at lt {} \
                 (the blocks between were not applied to it)",
                raw(address),
                newest_tx.unwrap_or_default()
            );
            return Ok(Known::Stale((rec, sa), why));
        }
        return Ok(Known::Held((rec, sa)));
    }
    let mut covering = None;
    for row in r.prefix::<ShardStates>(&workchain_prefix(address.workchain), false) {
        let (key, state): (ShardKey, _) = row?;
        if address.in_shard(key.shard) {
            covering = Some(state);
            break;
        }
    }
    let Some(state) = covering else {
        return Ok(Known::NotHeld(format!(
            "this node holds no state of the shard of {} (it indexes blocks of workchain {}, \
             not their accounts' states): its balance and state are unknown here",
            raw(address),
            address.workchain
        )));
    };
    if newest_tx.is_some_and(|lt| lt > state.gen_lt) {
        return Ok(Known::NotHeld(format!(
            "the state this node holds of the shard of {} (seqno {}) is older than the \
             account's transactions: its balance and state are unknown here",
            raw(address),
            state.seqno
        )));
    }
    Ok(Known::Absent)
}

/// [`newest`] as the APIs' view.
pub fn newest_view(r: &Reader<'_>, address: &Address) -> Result<Known<AccountView>, AccountError> {
    Ok(match newest(r, address)? {
        Known::Held((rec, sa)) => Known::Held(view(address, &sa, rec.state, rec.gen_utime)?),
        Known::Stale((rec, sa), why) => {
            Known::Stale(view(address, &sa, rec.state, rec.gen_utime)?, why)
        }
        Known::Absent => Known::Absent,
        Known::NotHeld(why) => Known::NotHeld(why),
    })
}

/// The stored state of `address`, or `None` when the index holds none.
pub fn load(r: &Reader<'_>, address: &Address) -> Result<Option<AccountView>, AccountError> {
    let Some((rec, sa)) = read(r, address)? else {
        return Ok(None);
    };
    view(address, &sa, rec.state, rec.gen_utime).map(Some)
}

/// The view of `sa`, the state of `address` in the shard state of block
/// `source` (made at `gen_utime`).
pub fn view(
    address: &Address,
    sa: &ShardAccount,
    source: Option<BlockId>,
    gen_utime: u32,
) -> Result<AccountView, AccountError> {
    let bad = |e: String| unreadable(address, e);
    let mut view = AccountView::nonexistent(*address);
    view.last_tx_lt = sa.last_trans_lt;
    view.last_tx_hash = *sa.last_trans_hash.as_array();
    view.source = source;
    view.gen_utime = gen_utime;
    let Some(account) = sa.load_account().map_err(|e| bad(e.to_string()))? else {
        return Ok(view);
    };
    view.state_hash = *sa.account.inner().repr_hash().as_array();
    view.balance = crate::decode::coins(&account.balance).map_err(|e| bad(e.to_string()))?;
    match account.state {
        AccountState::Uninit => view.status = Status::Uninit,
        AccountState::Frozen(h) => {
            view.status = Status::Frozen;
            view.frozen_hash = Some(h);
        }
        AccountState::Active(init) => {
            view.status = Status::Active;
            view.code = init.code;
            view.data = init.data;
        }
    }
    Ok(view)
}
