//! What the index's account tables say of an account, short of its full
//! state (which `crate::state::account` reads from the cell store at the
//! block the answer names).

use tonindex_model::{AccountStatus, Address, Hash};
use tonindex_storage::tables::{
    AccountBalances, AccountStates, AccountsByBalance, Codes, LatestAccounts,
};
use tonindex_storage::{Error, Reader};

use crate::contracts::interfaces;

/// Whether an account has code, as far as the index knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeSeen {
    /// From its exact state, or from the state update of the block of its
    /// newest transaction: the code hash, if any.
    State(Option<Hash>),
    /// No exact state held: whether its newest transaction left it active.
    Transactions { active: bool },
    /// Neither a state nor a transaction of it is indexed.
    Unknown,
}

/// [`code_seen`] of many accounts, in order, with two batched reads.
pub fn codes_seen(r: &Reader<'_>, accounts: &[Address]) -> Result<Vec<CodeSeen>, Error> {
    let states = r.multi_get::<AccountStates>(accounts)?;
    let missing: Vec<Address> = accounts
        .iter()
        .zip(&states)
        .filter(|(_, s)| s.is_none())
        .map(|(a, _)| *a)
        .collect();
    let mut latest = r.multi_get::<LatestAccounts>(&missing)?.into_iter();
    states
        .into_iter()
        .map(|state| {
            Ok(match state {
                Some(state) => CodeSeen::State(state.code_hash),
                None => from_latest(latest.next().flatten()),
            })
        })
        .collect()
}

/// What the index knows of `account`'s code.
pub fn code_seen(r: &Reader<'_>, account: &Address) -> Result<CodeSeen, Error> {
    if let Some(state) = r.get::<AccountStates>(account)? {
        return Ok(CodeSeen::State(state.code_hash));
    }
    Ok(from_latest(r.get::<LatestAccounts>(account)?))
}

/// What the newest transaction's row tells of the code: the hash its
/// block's state update showed, else whether it left the account active.
fn from_latest(latest: Option<tonindex_storage::LatestAccount>) -> CodeSeen {
    match latest {
        Some(l) if l.status == AccountStatus::Active && l.code_hash.is_some() => {
            CodeSeen::State(l.code_hash)
        }
        Some(l) => CodeSeen::Transactions {
            active: l.status == AccountStatus::Active,
        },
        None => CodeSeen::Unknown,
    }
}

/// What the index read from one contract code (spec v3 §3.3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeFacts {
    /// Get-method ids the code declares; `None` when they cannot be read
    /// from it, or the index has not seen the code in a state it stored.
    pub methods: Option<Vec<u32>>,
    /// Standard interfaces, as v3 names them.
    pub interfaces: Vec<&'static str>,
}

/// What the index knows of the code with `code_hash`.
pub fn code_facts(r: &Reader<'_>, code_hash: &Hash) -> Result<CodeFacts, Error> {
    let methods = r.get::<Codes>(code_hash)?.and_then(|c| c.methods);
    Ok(CodeFacts {
        interfaces: interfaces::detect(code_hash, methods.as_deref()),
        methods,
    })
}

/// [`code_facts`] of many codes, in order, their rows read in one batch.
pub fn code_facts_many(r: &Reader<'_>, code_hashes: &[Hash]) -> Result<Vec<CodeFacts>, Error> {
    Ok(code_hashes
        .iter()
        .zip(r.multi_get::<Codes>(code_hashes)?)
        .map(|(hash, row)| {
            let methods = row.and_then(|c| c.methods);
            CodeFacts {
                interfaces: interfaces::detect(hash, methods.as_deref()),
                methods,
            }
        })
        .collect())
}

/// [`code_facts`] of a code cell at hand (an account state read from a
/// lite server, say): its methods are read from the cell when the index
/// has not stored a state with this code.
pub fn code_facts_of(r: &Reader<'_>, code: &tycho_types::cell::Cell) -> Result<CodeFacts, Error> {
    let hash = *code.repr_hash().as_array();
    let methods = match r.get::<Codes>(&hash)? {
        Some(row) => row.methods,
        None => crate::contracts::methods::method_ids(code),
    };
    Ok(CodeFacts {
        interfaces: interfaces::detect(&hash, methods.as_deref()),
        methods,
    })
}

/// Accounts whose current state the index holds, richest first (equal
/// balances in descending address order): rows `offset..offset + limit`.
/// A held state older than the account's indexed transactions is left out:
/// its balance is not the account's balance now.
pub fn top_by_balance(
    r: &Reader<'_>,
    offset: usize,
    limit: usize,
) -> Result<Vec<(Address, u128)>, Error> {
    let mut out = Vec::with_capacity(limit.min(1024));
    let mut skipped = 0;
    for row in r.prefix::<AccountsByBalance>(&[], true) {
        let (key, ()) = row?;
        let held = r.get::<AccountBalances>(&key.account)?;
        let newest_tx = super::transactions::newest_tx_lt(r, &key.account)?;
        if held.is_some_and(|h| newest_tx.is_some_and(|lt| lt > h.last_trans_lt)) {
            continue;
        }
        if skipped < offset {
            skipped += 1;
            continue;
        }
        out.push((key.account, key.balance));
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}
