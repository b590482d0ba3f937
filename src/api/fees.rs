//! Fee estimates for both APIs (v2 `estimateFee`, v3 `POST /estimateFee`):
//! the external message executed on the account's stored state by
//! `tvm::emulate`, reported as tonlib's `query.estimateFees` does.

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{ShardAccount, StdAddr};

use crate::api::getmethod::{self, TvmError};
use crate::api::params::parse_bool;
use crate::api::request::{request, BoolText};
use crate::api::Ctx;
use crate::state::account;
use crate::tvm::emulate::{self, BlockContext, EmulateError, ExecConfig, Fees};
use crate::tvm::stack;

/// An estimate request, the same in both APIs.
pub struct FeeRequest {
    pub address: tonindex_model::Address,
    pub body: Cell,
    pub init_code: Option<Cell>,
    pub init_data: Option<Cell>,
    /// Signature checks succeed (the default: callers estimate unsigned messages).
    pub ignore_chksig: bool,
}

request! {
    /// The message whose fees are estimated (both APIs).
    pub struct FeeArgs {
        /// Message body, base64 BoC
        [required] body: Option<String>,
        /// StateInit code, base64 BoC
        init_code: Option<String>,
        /// StateInit data, base64 BoC
        init_data: Option<String>,
        /// Let signature checks pass (default true)
        ignore_chksig: Option<BoolText>,
    }
}

impl FeeRequest {
    /// The request from its declared parameters: `body`, `init_code`,
    /// `init_data` (base64 BoCs; `""` is absent) and `ignore_chksig`
    /// (default true), beside an already parsed address.
    pub fn from_args(address: tonindex_model::Address, a: &FeeArgs) -> Result<Self, TvmError> {
        let boc = |name: &str, v: &Option<String>| -> Result<Option<Cell>, TvmError> {
            match v.as_deref().map(str::trim) {
                None | Some("") => Ok(None),
                Some(s) => stack::decode_boc_b64(s)
                    .map(Some)
                    .map_err(|e| TvmError::Invalid(format!("{name}: {}", e.message))),
            }
        };
        let body =
            boc("body", &a.body)?.ok_or_else(|| TvmError::Invalid("body is required".into()))?;
        let ignore_chksig = match &a.ignore_chksig {
            None => true,
            Some(BoolText(v)) => parse_bool(v).ok_or_else(|| {
                TvmError::Invalid(format!(
                    "ignore_chksig: '{}' is not a boolean",
                    crate::tvm::stack::cut(v)
                ))
            })?,
        };
        Ok(Self {
            address,
            body,
            init_code: boc("init_code", &a.init_code)?,
            init_data: boc("init_data", &a.init_data)?,
            ignore_chksig,
        })
    }
}

/// Runs the estimate in a TVM slot, with the newest key block's config at
/// the newest block's time.
pub fn estimate(ctx: &Ctx<'_>, req: &FeeRequest) -> Result<Fees, TvmError> {
    let Ok(workchain) = i8::try_from(req.address.workchain) else {
        return Err(TvmError::Invalid("workchain out of range".into()));
    };
    let dst = StdAddr::new(workchain, HashBytes(req.address.id));
    // Fees are estimated on the state the node holds, or on no account
    // where a held state of its shard lacks it — never on a made-up one.
    let (state, state_utime) = match crate::api::account_state::newest(ctx, &req.address)
        .map_err(|e| TvmError::Internal(e.to_string()))?
    {
        account::Known::Held(s) => (s.shard_account, s.gen_utime),
        account::Known::Absent => {
            let none = ShardAccount {
                account: tycho_types::cell::Lazy::new(&tycho_types::models::OptionalAccount::EMPTY)
                    .expect("account_none serializes"),
                last_trans_hash: HashBytes::ZERO,
                last_trans_lt: 0,
            };
            (none, 0)
        }
        account::Known::NotHeld(why) | account::Known::Stale(_, why) => {
            return Err(TvmError::NotHeld(why))
        }
    };
    // Never before the account last paid for storage (a state imported
    // from a file may be newer than the newest indexed block).
    let last_paid = state
        .load_account()
        .ok()
        .flatten()
        .map_or(0, |a| a.storage_stat.last_paid);
    let now = getmethod::block_time(ctx, state_utime)?.max(last_paid);
    let msg = emulate::external_message(
        &dst,
        req.body.clone(),
        req.init_code.clone(),
        req.init_data.clone(),
    )
    .map_err(|e| TvmError::Invalid(format!("message does not fit in a cell: {e}")))?;
    let config =
        ExecConfig::new(getmethod::blockchain_config(ctx, None)?, now).map_err(internal)?;
    let block = BlockContext {
        now,
        block_lt: state.last_trans_lt,
        min_lt: state.last_trans_lt,
        rand_seed: HashBytes::ZERO,
        libraries: getmethod::masterchain_libraries(ctx)?,
        ignore_chksig: req.ignore_chksig,
    };
    let _slot = getmethod::slot(ctx)?;
    emulate::estimate_fees(&config, &block, &state, msg).map_err(|e| match e {
        EmulateError::Message(m) => TvmError::Invalid(m),
        e => internal(e),
    })
}

fn internal(e: EmulateError) -> TvmError {
    TvmError::Internal(e.to_string())
}
