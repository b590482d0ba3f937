//! Get-methods for both APIs: an account's stored code and data run by
//! `tvm::getmethod` in the context of the newest indexed block, bounded by
//! a fixed number of slots so that long runs cannot starve other requests.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use tycho_types::cell::{Cell, CellFamily, HashBytes};
use tycho_types::dict::Dict;
use tycho_types::models::{BlockchainConfigParams, LibDescr, StdAddr};
use tycho_vm::RcStackValue;

use crate::api::Ctx;
use crate::query;
use crate::state::account::{AccountView, Status};
use crate::state::libraries;
use crate::tvm::blockchain_config as config;
use crate::tvm::getmethod::{
    self, Context, Contract, Method, RunError, RunOutput, DEFAULT_GAS_LIMIT,
};

/// tonlib's exit code for a get-method on an account without code.
pub const NO_CODE_EXIT_CODE: i32 = -13;

/// What TVM runs of all requests share: the slots that bound them and the
/// newest config, decoded once per key block rather than once per run
/// (decoding it costs 100 times a wallet get-method).
pub struct Tvm {
    slots: TvmSlots,
    /// The newest config, by key block seqno.
    config: Latest<u32, BlockchainConfigParams>,
    /// The held masterchain state's libraries, by dictionary root hash.
    libraries: Latest<HashBytes, Dict<HashBytes, LibDescr>>,
    /// Library cells fetched from the chain (a follower holds no
    /// masterchain state), by hash.
    fetched: Mutex<std::collections::HashMap<HashBytes, Cell>>,
}

impl Tvm {
    /// `slots` runs at a time (one per core).
    pub fn new(slots: usize) -> Self {
        Self {
            slots: TvmSlots::new(slots),
            config: Latest(Mutex::new(None)),
            libraries: Latest(Mutex::new(None)),
            fetched: Mutex::new(std::collections::HashMap::new()),
        }
    }
}

/// One decoded value, kept while its key stays the same.
struct Latest<K, V>(Mutex<Option<(K, V)>>);

impl<K: PartialEq, V: Clone> Latest<K, V> {
    fn get_or_load<E>(&self, key: K, load: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        let mut cached = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((k, v)) = cached.as_ref() {
            if *k == key {
                return Ok(v.clone());
            }
        }
        let v = load()?;
        *cached = Some((key, v.clone()));
        Ok(v)
    }
}

/// Counting slots for get-method runs.
pub struct TvmSlots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A held slot; released on drop.
pub struct TvmSlot<'a>(&'a TvmSlots);

impl Drop for TvmSlot<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

impl TvmSlots {
    pub fn new(slots: usize) -> Self {
        Self {
            free: Mutex::new(slots.max(1)),
            freed: Condvar::new(),
        }
    }

    /// Waits up to `wait` for a slot.
    pub fn acquire(&self, wait: Duration) -> Option<TvmSlot<'_>> {
        let guard = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let (mut free, _) = self
            .freed
            .wait_timeout_while(guard, wait, |free| *free == 0)
            .unwrap_or_else(|p| p.into_inner());
        if *free == 0 {
            return None;
        }
        *free -= 1;
        Some(TvmSlot(self))
    }
}

/// Why a TVM run (a get-method or a fee estimate) did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TvmError {
    #[error("too many get-methods are running; try again")]
    Busy,
    /// The caller's input cannot run (a malformed message, say).
    #[error("{0}")]
    Invalid(String),
    /// A get-method ran into its wall-time limit.
    #[error("{0}")]
    TimeLimit(String),
    /// The node does not hold the account's state (it will not run on a
    /// made-up one).
    #[error("{0}")]
    NotHeld(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<tonindex_storage::Error> for TvmError {
    fn from(e: tonindex_storage::Error) -> Self {
        match e {
            tonindex_storage::Error::DeadlineExceeded => Self::TimeLimit(e.to_string()),
            e => Self::Internal(e.to_string()),
        }
    }
}

/// Which blockchain config an answer's get-method or fee estimate ran
/// with: the answer says so in its `X-Tonindex-Config` header, since an
/// index without a key block runs on the built-in config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigUsed {
    /// The config of the indexed key block with this masterchain seqno.
    KeyBlock(u32),
    /// tonindex's built-in config (mainnet's prices and limits): the index
    /// holds no key block at or below the block the run happens at.
    BuiltIn,
}

impl ConfigUsed {
    /// The header's value: `key_block=<seqno>` or `built_in`.
    pub fn header_value(self) -> String {
        match self {
            ConfigUsed::KeyBlock(seqno) => format!("key_block={seqno}"),
            ConfigUsed::BuiltIn => "built_in".into(),
        }
    }
}

thread_local! {
    /// The config the handler running on this thread used (a handler runs
    /// on one thread from start to end: see [`with_config_note`]).
    static CONFIG_USED: std::cell::Cell<Option<ConfigUsed>> = const { std::cell::Cell::new(None) };
}

/// Runs a handler and returns, with its result, the config its get-method
/// or fee estimate used (`None` when it ran none).
pub fn with_config_note<T>(f: impl FnOnce() -> T) -> (T, Option<ConfigUsed>) {
    CONFIG_USED.with(|c| c.set(None));
    let out = f();
    (out, CONFIG_USED.with(|c| c.take()))
}

/// The config in force at masterchain block `mc_seqno` (the newest key
/// block at or below it; any when `None`), or the built-in one; noted for
/// the answer's header.
pub fn blockchain_config(
    ctx: &Ctx<'_>,
    mc_seqno: Option<u32>,
) -> Result<BlockchainConfigParams, TvmError> {
    let Some((seqno, boc)) = query::config_in_force::config_at(&ctx.reader, mc_seqno)? else {
        CONFIG_USED.with(|c| c.set(Some(ConfigUsed::BuiltIn)));
        return Ok(config::builtin());
    };
    CONFIG_USED.with(|c| c.set(Some(ConfigUsed::KeyBlock(seqno))));
    ctx.tvm.config.get_or_load(seqno, || {
        config::from_boc(&boc).map_err(|e| TvmError::Internal(e.to_string()))
    })
}

/// The public libraries of the held masterchain state (empty when none is
/// held), loaded once per change of the library dictionary.
pub fn masterchain_libraries(ctx: &Ctx<'_>) -> Result<Dict<HashBytes, LibDescr>, TvmError> {
    let internal = |e: crate::state::cells::CellError| TvmError::Internal(e.to_string());
    let Some(root) = libraries::root_hash(&ctx.reader).map_err(internal)? else {
        return Ok(Dict::new());
    };
    ctx.tvm.libraries.get_or_load(root, || {
        libraries::load(&ctx.reader, &root).map_err(internal)
    })
}

/// The public libraries of the masterchain state after block `mc` (kept by
/// `[index] keep_states`); `TvmError::NotHeld` when that state is not.
pub fn masterchain_libraries_after(
    ctx: &Ctx<'_>,
    mc: &tonindex_model::BlockRecord,
) -> Result<Dict<HashBytes, LibDescr>, TvmError> {
    let seqno = mc.id.id.seqno;
    let not_held = || {
        TvmError::NotHeld(format!(
            "the masterchain state after block {seqno} is not held (states are kept for \
             the newest masterchain blocks that [index] keep_states names)"
        ))
    };
    let root = match libraries::root_hash_in(&ctx.reader, &HashBytes(mc.state_root_hash)) {
        Ok(Some(root)) => root,
        Ok(None) => return Ok(Dict::new()),
        Err(crate::state::cells::CellError::Missing(_)) => return Err(not_held()),
        Err(e) => return Err(TvmError::Internal(e.to_string())),
    };
    ctx.tvm.libraries.get_or_load(root, || {
        libraries::load(&ctx.reader, &root).map_err(|e| match e {
            crate::state::cells::CellError::Missing(_) => not_held(),
            e => TvmError::Internal(e.to_string()),
        })
    })
}

/// How many libraries one get-method run may fetch from the chain.
const MAX_LIBRARY_FETCHES: usize = 4;
/// How many fetched library cells are kept.
const MAX_FETCHED_LIBRARIES: usize = 4096;

/// Adds to `libraries` those of `hashes` it lacks: kept from an earlier
/// fetch, else stored by the index (what its source fetched), else fetched
/// from the chain (a follower's lite servers, which check each cell against
/// its hash). Whether every one is there now.
pub fn fetch_libraries(
    ctx: &Ctx<'_>,
    libraries: &mut Dict<HashBytes, LibDescr>,
    hashes: &[HashBytes],
) -> bool {
    let lacking = |libraries: &Dict<HashBytes, LibDescr>| -> Vec<HashBytes> {
        hashes
            .iter()
            .copied()
            .filter(|h| !matches!(libraries.get(*h), Ok(Some(_))))
            .collect()
    };
    let add = |libraries: &mut Dict<HashBytes, LibDescr>, cell: Cell| {
        let hash = *cell.repr_hash();
        let _ = libraries.set(hash, crate::tvm::getmethod::library_descr(cell));
    };
    let missing = lacking(libraries);
    if missing.is_empty() {
        return true;
    }
    let mut to_fetch = Vec::new();
    if let Ok(kept) = ctx.tvm.fetched.lock() {
        for h in &missing {
            match kept.get(h) {
                Some(c) => add(libraries, c.clone()),
                None => to_fetch.push(*h),
            }
        }
    }
    to_fetch.retain(|h| match libraries::fetched(&ctx.reader, h) {
        Some(c) => {
            add(libraries, c);
            false
        }
        None => true,
    });
    if !to_fetch.is_empty() {
        let Some(chain) = ctx.chain else {
            return false;
        };
        match chain.libraries(&to_fetch) {
            Some(Ok(cells)) => {
                if let Ok(mut kept) = ctx.tvm.fetched.lock() {
                    if kept.len() + cells.len() > MAX_FETCHED_LIBRARIES {
                        kept.clear();
                    }
                    for c in &cells {
                        kept.insert(*c.repr_hash(), c.clone());
                    }
                }
                for c in cells {
                    add(libraries, c);
                }
            }
            Some(Err(e)) => {
                tracing::warn!("libraries could not be fetched: {}", e.message);
                return false;
            }
            None => return false,
        }
    }
    lacking(libraries).is_empty()
}

/// An earlier masterchain block a run happens at (its time and config)
/// instead of the newest.
#[derive(Debug, Clone, Copy)]
pub struct At {
    pub mc_seqno: u32,
    pub gen_utime: u32,
}

/// Runs `method` on the account, at the newest block or `at`. An account
/// without code gives tonlib's answer (exit code -13, nothing run) rather
/// than a VM run.
pub fn run(
    ctx: &Ctx<'_>,
    account: &AccountView,
    at: Option<At>,
    method: &Method,
    stack: Vec<RcStackValue>,
) -> Result<RunOutput, TvmError> {
    let (Status::Active, Some(code)) = (account.status, &account.code) else {
        return Ok(RunOutput {
            exit_code: NO_CODE_EXIT_CODE,
            gas_used: 0,
            vm_steps: 0,
            stack: Vec::new(),
            missing_library: None,
        });
    };
    let Ok(workchain) = i8::try_from(account.address.workchain) else {
        return Err(TvmError::Internal("workchain out of range".into()));
    };
    let now = match at {
        Some(at) => at.gen_utime,
        None => block_time(ctx, account.gen_utime)?,
    };
    let contract = Contract {
        code: code.clone(),
        data: account.data.clone().unwrap_or_else(Cell::empty_cell),
        address: StdAddr::new(workchain, HashBytes(account.address.id)),
        balance: currency(account),
    };
    let mut context = Context {
        config: blockchain_config(ctx, at.map(|a| a.mc_seqno))?,
        libraries: masterchain_libraries(ctx)?,
        now,
        lt: account.last_tx_lt,
        rand_seed: HashBytes::ZERO,
        gas_limit: DEFAULT_GAS_LIMIT,
        time_limit: None,
    };
    let _slot = slot(ctx)?;
    // The run stops at its own limit or the request's deadline, whichever
    // comes first (the wait for a slot counts against the deadline).
    let own = Duration::from_millis(ctx.cfg.getmethod_time_limit_ms);
    let left = ctx.reader.deadline().map_or(own, |d| {
        d.saturating_duration_since(std::time::Instant::now())
    });
    if left.is_zero() {
        return Err(TvmError::TimeLimit("request timed out".into()));
    }
    context.time_limit = Some(own.min(left));
    let started = std::time::Instant::now();
    let mut out = getmethod::run(&contract, &context, method, stack.clone());
    // Code referring to a library the node does not hold: fetched from
    // the chain where it can be, and the method run again.
    for _ in 0..MAX_LIBRARY_FETCHES {
        let Ok(RunOutput {
            missing_library: Some(hash),
            ..
        }) = &out
        else {
            break;
        };
        if !fetch_libraries(ctx, &mut context.libraries, &[*hash]) {
            break;
        }
        out = getmethod::run(&contract, &context, method, stack.clone());
    }
    metrics::histogram!("tonindex_getmethod_seconds").record(started.elapsed().as_secs_f64());
    let outcome = match &out {
        Ok(_) => "ran",
        Err(RunError::TimeLimit(_)) => "time_limit",
        Err(RunError::Config(_)) => "config_error",
    };
    metrics::counter!("tonindex_getmethod_runs_total", "outcome" => outcome).increment(1);
    out.map_err(|e| match e {
        RunError::TimeLimit(_) => TvmError::TimeLimit(e.to_string()),
        RunError::Config(_) => TvmError::Internal(e.to_string()),
    })
}

/// The time runs on an account happen at: the newest masterchain block's,
/// else `state_utime` (the time of the state the account comes from, 0 if
/// unknown), else the clock.
pub fn block_time(ctx: &Ctx<'_>, state_utime: u32) -> Result<u32, TvmError> {
    Ok(match query::blocks::mc_block_range(&ctx.reader)? {
        Some((_, last)) => last.gen_utime,
        None if state_utime > 0 => state_utime,
        None => crate::api::unix_now().try_into().unwrap_or(u32::MAX),
    })
}

/// Waits for a TVM slot for at most the request budget. A VM run never
/// happens on the async worker: there the reader's budget is spent, so the
/// request moves to the blocking pool (see [`crate::api::Api::read`]).
pub fn slot<'a>(ctx: &'a Ctx<'_>) -> Result<TvmSlot<'a>, TvmError> {
    if ctx.reader.exhaust_budget() {
        return Err(TvmError::Internal("moved to the blocking pool".into()));
    }
    let wait = ctx
        .reader
        .deadline()
        .map_or(Duration::from_millis(ctx.cfg.request_timeout_ms), |d| {
            d.saturating_duration_since(std::time::Instant::now())
        });
    ctx.tvm.slots.acquire(wait).ok_or(TvmError::Busy)
}

/// The balance c7 reports: Toncoin and the extra currencies the account holds.
fn currency(account: &AccountView) -> tycho_types::models::CurrencyCollection {
    let mut cc = tycho_types::models::CurrencyCollection::new(account.balance.grams);
    for (id, amount) in &account.balance.extra {
        // Amounts were decimal-encoded from a VarUint248 when the state was read.
        if let Ok(amount) = amount.parse::<tycho_types::num::VarUint248>() {
            // Setting a key in an in-memory dictionary cannot fail here.
            let _ = cc.other.as_dict_mut().set(*id, amount);
        }
    }
    cc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c7_balance_carries_extra_currencies() {
        let mut a = AccountView::nonexistent(tonindex_model::Address {
            workchain: 0,
            id: [1; 32],
        });
        a.balance.grams = 5;
        a.balance.extra = vec![(239, "1000".into()), (7, "3".into())];
        let cc = currency(&a);
        assert_eq!(cc.tokens.into_inner(), 5);
        let dict = cc.other.as_dict();
        assert_eq!(dict.get(239).unwrap().unwrap().to_string(), "1000");
        assert_eq!(dict.get(7).unwrap().unwrap().to_string(), "3");
    }
}
