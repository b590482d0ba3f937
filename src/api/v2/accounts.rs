//! v2 Accounts and Run get-method groups (spec v2 §4.2, §4.6), from the
//! exact account states the index holds.

use serde::Serialize;
use serde_json::{json, Value as Json};
use tonindex_model::{Address, BlockIdExt};
use tycho_types::cell::{CellBuilder, HashBytes, Lazy};
use tycho_types::models::{OptionalAccount, ShardAccount};

use super::models::{ExtraCurrency, TonBlockIdExt, TransactionId};
use super::{positive_seqno, required, AccountAtArgs, AddressArgs, V2Error};
use crate::api::account_state::{self, Earlier};
use crate::api::encoding::{b64, friendly, Dec, WalletFields, B64};
use crate::api::fees::{self, FeeArgs, FeeRequest};
use crate::api::getmethod::{self, At, TvmError};
use crate::api::params::Params;
use crate::api::request::{request, MethodArg, StackV2};
use crate::api::Ctx;
use crate::query;
use crate::state::account::{self, AccountView, Status};
use crate::state::wallet;
use crate::tvm::getmethod::Method;
use crate::tvm::stack;

impl From<account::AccountError> for V2Error {
    fn from(e: account::AccountError) -> Self {
        V2Error::new(500, format!("internal error: {e}"))
    }
}

impl From<TvmError> for V2Error {
    fn from(e: TvmError) -> Self {
        match e {
            TvmError::Busy => V2Error::new(503, e.to_string()),
            TvmError::Invalid(_) => V2Error::new(422, e.to_string()),
            TvmError::TimeLimit(_) => V2Error::new(504, e.to_string()),
            TvmError::NotHeld(_) => V2Error::new(404, e.to_string()),
            TvmError::Internal(_) => V2Error::new(500, e.to_string()),
        }
    }
}

impl From<stack::StackError> for V2Error {
    fn from(e: stack::StackError) -> Self {
        V2Error::new(e.code, e.message)
    }
}

/// An account's state with the block it is reported at.
pub(super) struct Located {
    pub account: AccountView,
    pub block: BlockIdExt,
    pub sync_utime: u32,
    /// The earlier masterchain block the state is from (`None`: the newest).
    pub at: Option<At>,
}

/// `seqno` when it names a masterchain block other than the newest: a read
/// of an earlier state. `None` reads the newest state.
fn earlier_seqno(ctx: &Ctx<'_>, seqno: Option<i64>) -> Result<Option<u32>, V2Error> {
    let Some(s) = positive_seqno(seqno, "seqno")? else {
        return Ok(None);
    };
    let newest = query::blocks::mc_block_range(&ctx.reader)?.map(|(_, last)| last.id.id.seqno);
    Ok(newest.is_some_and(|n| n != s).then_some(s))
}

/// The account of `address` as the newest indexed state has it, or with
/// `seqno` as the state after that masterchain block has it.
pub(super) fn locate(ctx: &Ctx<'_>, a: &AccountAtArgs) -> Result<Located, V2Error> {
    let address = required(a.account.address, "address")?.address;
    locate_at(ctx, address, earlier_seqno(ctx, a.seqno)?)
}

/// [`locate`] for `address`, at the earlier masterchain block `earlier`
/// (`None`: the newest state).
pub(super) fn locate_at(
    ctx: &Ctx<'_>,
    address: Address,
    earlier: Option<u32>,
) -> Result<Located, V2Error> {
    if let Some(seqno) = earlier {
        let e = shard_account_after(ctx, &address, seqno)?;
        let account = match &e.shard_account {
            Some(sa) => account::view(&address, sa, Some(e.source.id.id), e.source.gen_utime)?,
            None => AccountView::nonexistent(address),
        };
        return Ok(Located {
            account,
            block: e.mc.id,
            sync_utime: e.mc.gen_utime,
            at: Some(At {
                mc_seqno: seqno,
                gen_utime: e.mc.gen_utime,
            }),
        });
    }
    let account = match crate::api::account_state::newest_view(ctx, &address)? {
        account::Known::Held(view) => view,
        account::Known::Absent => AccountView::nonexistent(address),
        account::Known::NotHeld(why) => return Err(V2Error::new(404, why)),
        // An older state is given only with the block it really comes from.
        account::Known::Stale(view, why) => {
            let source = view
                .source
                .map(|id| query::blocks::block(&ctx.reader, &id))
                .transpose()?
                .flatten()
                .ok_or_else(|| V2Error::new(404, why.clone()))?;
            // Get-methods on it run at that block's time and config.
            let mc_seqno = if source.id.id.workchain == -1 {
                source.id.id.seqno
            } else {
                source
                    .mc_block_seqno
                    .ok_or_else(|| V2Error::new(404, why))?
            };
            return Ok(Located {
                block: source.id,
                sync_utime: source.gen_utime,
                account: view,
                at: Some(At {
                    mc_seqno,
                    gen_utime: source.gen_utime,
                }),
            });
        }
    };
    let (block, sync_utime) = match query::blocks::mc_block_range(&ctx.reader)? {
        Some((_, last)) => (last.id, last.gen_utime),
        None => {
            // No masterchain block: report the shard block the state is at.
            let rec = account
                .source
                .map(|id| query::blocks::block(&ctx.reader, &id))
                .transpose()?
                .flatten()
                .ok_or_else(|| {
                    V2Error::new(
                        500,
                        "no masterchain blocks are indexed to report the state at",
                    )
                })?;
            (rec.id, rec.gen_utime)
        }
    };
    Ok(Located {
        account,
        block,
        sync_utime,
        at: None,
    })
}

/// [`account_state::after_mc_block`] in v2's error shape.
fn shard_account_after(ctx: &Ctx<'_>, address: &Address, seqno: u32) -> Result<Earlier, V2Error> {
    account_state::after_mc_block(ctx, address, seqno)
        .map_err(|e| V2Error::new(e.status, e.message))
}

/// tonlib's `tvm.cell`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TvmCell {
    #[serde(rename = "@type")]
    ty: &'static str,
    /// The cell as a base64 BoC
    bytes: String,
}

impl TvmCell {
    pub fn new(bytes: String) -> Self {
        Self {
            ty: "tvm.cell",
            bytes,
        }
    }
}

/// CPP-only `getShardAccountCell`: the account's `ShardAccount` as a cell
/// (`account_none` with a zero last transaction when the state has none).
pub fn get_shard_account_cell(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountAtArgs,
) -> Result<TvmCell, V2Error> {
    let address = required(q.account.address, "address")?.address;
    let held = match earlier_seqno(ctx, q.seqno)? {
        Some(seqno) => shard_account_after(ctx, &address, seqno)?.shard_account,
        None => match crate::api::account_state::newest(ctx, &address)? {
            account::Known::Held(s) => Some(s.shard_account),
            account::Known::Absent => None,
            // The cell names no block: an older state is not given as new.
            account::Known::NotHeld(why) | account::Known::Stale(_, why) => {
                return Err(V2Error::new(404, why))
            }
        },
    };
    let internal = |e: tycho_types::error::Error| V2Error::new(500, format!("internal error: {e}"));
    let sa = match held {
        Some(sa) => sa,
        None => ShardAccount {
            account: Lazy::new(&OptionalAccount::EMPTY).map_err(internal)?,
            last_trans_hash: HashBytes::ZERO,
            last_trans_lt: 0,
        },
    };
    let cell = CellBuilder::build_from(&sa).map_err(internal)?;
    Ok(TvmCell::new(b64(&crate::boc::encode_crc(cell.as_ref()))))
}

fn tx_id(a: &AccountView) -> TransactionId {
    TransactionId {
        ty: "internal.transactionId",
        lt: Dec(a.last_tx_lt),
        hash: B64(a.last_tx_hash),
    }
}

fn extra_currencies(a: &AccountView) -> Vec<ExtraCurrency> {
    super::models::extra_currencies(Some(&a.balance))
}

fn cell_b64(c: Option<&tycho_types::cell::Cell>) -> String {
    c.map(|c| b64(&crate::boc::encode_crc(c.as_ref())))
        .unwrap_or_default()
}

fn frozen_b64(a: &AccountView) -> String {
    a.frozen_hash.map(|h| b64(h.as_array())).unwrap_or_default()
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct RawFullAccountState {
    #[serde(rename = "@type")]
    ty: &'static str,
    balance: Dec<u128>,
    extra_currencies: Vec<ExtraCurrency>,
    code: String,
    data: String,
    last_transaction_id: TransactionId,
    block_id: TonBlockIdExt,
    frozen_hash: String,
    sync_utime: u32,
    state: &'static str,
    // No `suspended`: the C++ server reads it from a hard-coded list of
    // accounts this node does not have; PY omits it unless true. Absent
    // rather than a `false` that would read as knowledge.
}

pub fn get_address_information(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountAtArgs,
) -> Result<RawFullAccountState, V2Error> {
    let l = locate(ctx, &q)?;
    let a = &l.account;
    Ok(RawFullAccountState {
        ty: "raw.fullAccountState",
        balance: Dec(a.balance.grams),
        extra_currencies: extra_currencies(a),
        code: cell_b64(a.code.as_ref()),
        data: cell_b64(a.data.as_ref()),
        last_transaction_id: tx_id(a),
        block_id: (&l.block).into(),
        frozen_hash: frozen_b64(a),
        sync_utime: l.sync_utime,
        state: a.status.v2(),
    })
}

/// tonlib's `account_state` object for getExtendedAddressInformation, and
/// its `revision`: the detected wallet's (v4 r2 → 2), 0 for the raw and
/// uninited forms as tonlib reports them.
fn extended_state(a: &AccountView) -> (Json, u32) {
    if a.status != Status::Active {
        return (
            json!({"@type": "uninited.accountState", "frozen_hash": frozen_b64(a)}),
            0,
        );
    }
    let w = a
        .code_hash()
        .and_then(|h| wallet::detect(&h, a.data.as_ref()));
    let tonlib_type = w.and_then(|w| match w.wallet_type {
        "wallet v3 r1" | "wallet v3 r2" => Some("wallet.v3.accountState"),
        "wallet v4 r1" | "wallet v4 r2" => Some("wallet.v4.accountState"),
        _ => None,
    });
    let highload = match (a.code_hash(), a.data.as_ref()) {
        (Some(h), Some(d)) if w.is_none() => wallet::detect_highload(&h, d),
        _ => None,
    };
    if let Some(h) = highload {
        let mut state = json!({"@type": h.tonlib_type, "wallet_id": h.wallet_id});
        if let Some(seqno) = h.seqno {
            state["seqno"] = json!(seqno);
        }
        return (state, h.revision);
    }
    match (w, tonlib_type) {
        (Some(w), Some(ty)) => (
            json!({
                "@type": ty,
                "wallet_id": w.wallet_id.unwrap_or_default(),
                "seqno": w.seqno.unwrap_or_default(),
            }),
            w.wallet_type
                .rsplit_once(" r")
                .and_then(|(_, r)| r.parse().ok())
                .unwrap_or(0),
        ),
        _ => (
            json!({
                "@type": "raw.accountState",
                "code": cell_b64(a.code.as_ref()),
                "data": cell_b64(a.data.as_ref()),
                "frozen_hash": frozen_b64(a),
            }),
            0,
        ),
    }
}

/// tonlib's `fullAccountState`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct FullAccountState {
    #[serde(rename = "@type")]
    ty: &'static str,
    address: super::models::AccountAddress,
    balance: String,
    extra_currencies: Vec<ExtraCurrency>,
    last_transaction_id: TransactionId,
    block_id: TonBlockIdExt,
    sync_utime: u32,
    /// `uninited.accountState`, `wallet.v3.accountState`,
    /// `wallet.v4.accountState`, a highload wallet's, or `raw.accountState`
    account_state: Json,
    revision: u32,
}

pub fn get_extended_address_information(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountAtArgs,
) -> Result<FullAccountState, V2Error> {
    let l = locate(ctx, &q)?;
    let a = &l.account;
    let flags = crate::api::encoding::FriendlyFlags {
        bounceable: a.status == Status::Active,
        testnet: ctx.cfg.testnet,
        url_safe: true,
    };
    let (account_state, revision) = extended_state(a);
    Ok(FullAccountState {
        ty: "fullAccountState",
        address: super::models::AccountAddress {
            ty: "accountAddress",
            account_address: friendly(&a.address, flags),
        },
        balance: a.balance.grams.to_string(),
        extra_currencies: extra_currencies(a),
        last_transaction_id: tx_id(a),
        block_id: TonBlockIdExt::from(&l.block),
        sync_utime: l.sync_utime,
        account_state,
        revision,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct WalletInformation {
    #[serde(rename = "@type")]
    ty: &'static str,
    wallet: bool,
    balance: Dec<u128>,
    account_state: &'static str,
    last_transaction_id: TransactionId,
    #[serde(flatten)]
    fields: WalletFields,
}

pub fn get_wallet_information(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountAtArgs,
) -> Result<WalletInformation, V2Error> {
    let l = locate(ctx, &q)?;
    let a = &l.account;
    let w = a
        .code_hash()
        .and_then(|h| wallet::detect(&h, a.data.as_ref()));
    Ok(WalletInformation {
        ty: "ext.accounts.walletInformation",
        wallet: w.is_some(),
        balance: Dec(a.balance.grams),
        account_state: a.status.v2(),
        last_transaction_id: tx_id(a),
        fields: w.into(),
    })
}

pub fn get_address_balance(ctx: &Ctx<'_>, _: &Params, q: AccountAtArgs) -> Result<String, V2Error> {
    let l = locate(ctx, &q)?;
    Ok(l.account.balance.grams.to_string())
}

pub fn get_address_state(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountAtArgs,
) -> Result<&'static str, V2Error> {
    let l = locate(ctx, &q)?;
    Ok(l.account.status.v2())
}

request! {
    /// A get-method call on an account's state.
    pub struct RunGetMethodRequest {
        /// Method name or id
        [required] method: Option<MethodArg>,
        /// Input stack
        stack: StackV2,
    }
    with { at: AccountAtArgs }
}

/// `method`: a name, or (C++ rule) a string or number that is an integer id.
fn method(q: &RunGetMethodRequest) -> Result<Method, V2Error> {
    Ok(Method::parse(&required(q.method.as_ref(), "method")?.0))
}

/// The input stack: one entry per `stack` value; a single value that is a
/// list of entries (`stack=[]`, `stack=[["num","1"]]` in a GET query) is
/// the whole stack. An entry itself holds a type string, so the two forms
/// cannot be mistaken for each other.
fn stack_input(q: &RunGetMethodRequest) -> Result<Json, V2Error> {
    let mut values = q
        .stack
        .0
        .clone()
        .ok_or_else(|| V2Error::invalid("stack entries must be JSON arrays or objects"))?;
    if let [Json::Array(items)] = values.as_slice() {
        if items.iter().all(|i| i.is_array() || i.is_object()) {
            return Ok(values.swap_remove(0));
        }
    }
    Ok(Json::Array(values))
}

/// tonlib's `smc.runResult` with the block and the account's last
/// transaction (runGetMethod).
#[derive(Serialize, utoipa::ToSchema)]
pub struct RunResult {
    #[serde(rename = "@type")]
    ty: &'static str,
    gas_used: u64,
    /// The result stack in tonlib's form (`["num", "0x1"]`, …)
    stack: Vec<Json>,
    exit_code: i32,
    block_id: TonBlockIdExt,
    last_transaction_id: TransactionId,
}

pub fn run_get_method(
    ctx: &Ctx<'_>,
    _: &Params,
    q: RunGetMethodRequest,
) -> Result<RunResult, V2Error> {
    let method = method(&q)?;
    let input = stack::parse_legacy_stack(&stack_input(&q)?)?;
    let l = locate(ctx, &q.at)?;
    let out = getmethod::run(ctx, &l.account, l.at, &method, input)?;
    Ok(RunResult {
        ty: "smc.runResult",
        gas_used: out.gas_used,
        stack: stack::legacy_stack(&out.stack)?,
        exit_code: out.exit_code,
        block_id: TonBlockIdExt::from(&l.block),
        last_transaction_id: tx_id(&l.account),
    })
}

/// tonlib's `smc.runResult` with a `tvm.StackEntry` stack (runGetMethodStd).
#[derive(Serialize, utoipa::ToSchema)]
pub struct RunResultStd {
    #[serde(rename = "@type")]
    ty: &'static str,
    gas_used: u64,
    /// The result stack as `tvm.StackEntry` objects
    stack: Vec<Json>,
    exit_code: i32,
}

pub fn run_get_method_std(
    ctx: &Ctx<'_>,
    _: &Params,
    q: RunGetMethodRequest,
) -> Result<RunResultStd, V2Error> {
    let method = method(&q)?;
    let input = stack::parse_std_stack(&stack_input(&q)?)?;
    let l = locate(ctx, &q.at)?;
    let out = getmethod::run(ctx, &l.account, l.at, &method, input)?;
    Ok(RunResultStd {
        ty: "smc.runResult",
        gas_used: out.gas_used,
        stack: stack::std_stack(&out.stack)?,
        exit_code: out.exit_code,
    })
}

/// tonlib's `fees`; the numbers are JSON numbers.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = TonlibFees)]
pub struct V2Fees {
    #[serde(rename = "@type")]
    ty: &'static str,
    in_fwd_fee: u128,
    storage_fee: u128,
    gas_fee: u128,
    fwd_fee: u128,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct QueryFees {
    #[serde(rename = "@type")]
    ty: &'static str,
    source_fees: V2Fees,
    destination_fees: Vec<V2Fees>,
}

request! {
    /// An external message to the account, whose fees are estimated.
    pub struct EstimateFeeRequest {}
    with { account: AddressArgs, message: FeeArgs }
}

pub fn estimate_fee(
    ctx: &Ctx<'_>,
    _: &Params,
    q: EstimateFeeRequest,
) -> Result<QueryFees, V2Error> {
    let address = required(q.account.address, "address")?.address;
    let f = fees::estimate(ctx, &FeeRequest::from_args(address, &q.message)?)?;
    Ok(QueryFees {
        ty: "query.fees",
        source_fees: V2Fees {
            ty: "fees",
            in_fwd_fee: f.in_fwd_fee,
            storage_fee: f.storage_fee,
            gas_fee: f.gas_fee,
            fwd_fee: f.fwd_fee,
        },
        // tonlib's raw query knows no destination accounts.
        destination_fees: Vec::new(),
    })
}
