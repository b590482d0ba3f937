//! v3 account states (spec v3 §3.3, §3.4) and the legacy v2-style methods
//! (§5.1, §5.2, §5.5), from the exact account states the index holds.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value as Json;
use tycho_types::cell::Cell;

use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::{BookMetadataArgs, PagingArgs, V3Error};
use crate::api::encoding::{b64, raw_upper, Dec, ParsedAddress, WalletFields, B64};
use crate::api::fees::{self, FeeArgs, FeeRequest};
use crate::api::getmethod::{self, TvmError};
use crate::api::params::Params;
use crate::api::request::{request, MethodArg, StackV3};
use crate::api::Ctx;
use crate::state::account::{self, AccountView, Status};
use crate::state::wallet::{self, WalletInfo};
use crate::tvm::getmethod::Method;
use crate::tvm::stack;

/// `accountStates`/`walletStates` read at most this many addresses.
const MAX_ADDRESSES: usize = 1000;

impl From<account::AccountError> for V3Error {
    fn from(e: account::AccountError) -> Self {
        V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl From<TvmError> for V3Error {
    fn from(e: TvmError) -> Self {
        let status = match e {
            TvmError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            TvmError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            TvmError::TimeLimit(_) => StatusCode::GATEWAY_TIMEOUT,
            TvmError::NotHeld(_) => StatusCode::NOT_FOUND,
            TvmError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        V3Error::new(status, e.to_string())
    }
}

impl From<stack::StackError> for V3Error {
    fn from(e: stack::StackError) -> Self {
        let status = StatusCode::from_u16(e.code).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
        V3Error::new(status, e.message)
    }
}

fn boc(c: &Cell) -> String {
    b64(&crate::boc::encode_crc(c.as_ref()))
}

fn wallet_of(a: &AccountView) -> Option<WalletInfo> {
    a.code_hash()
        .and_then(|h| wallet::detect(&h, a.data.as_ref()))
}

/// The held accounts among `address` (repeated), in the order asked;
/// accounts the node holds no current state for (none, or one older than
/// their indexed transactions, and none a followed lite server proves)
/// are left out.
fn held_accounts(ctx: &Ctx<'_>, q: &StatesRequest) -> Result<Vec<AccountView>, V3Error> {
    if q.address.is_empty() {
        return Err(V3Error::invalid("address of account is required"));
    }
    let code_hashes = &q.code_hash;
    let mut out = Vec::new();
    for a in q.address.iter().take(MAX_ADDRESSES) {
        let known = crate::api::account_state::newest_view(ctx, &a.address)?;
        if let account::Known::Held(view) = known {
            let code_ok = code_hashes.is_empty()
                || view
                    .code_hash()
                    .is_some_and(|h| code_hashes.contains(h.as_array()));
            if code_ok && !out.iter().any(|v: &AccountView| v.address == view.address) {
                out.push(view);
            }
        }
    }
    Ok(out)
}

request! {
    /// Accounts by address.
    pub struct StatesRequest {
        /// Accounts (up to 1000)
        [required] address: Vec<ParsedAddress>,
        /// Only accounts with one of these code hashes
        code_hash: Vec<[u8; 32]>,
    }
    with { shape: BookMetadataArgs }
}

request! {
    /// Accounts by address, with or without their code and data.
    pub struct AccountStatesRequest {
        /// Include code and data BoCs (default true)
        include_boc: Option<bool>,
    }
    with { states: StatesRequest }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct AccountStateFull {
    address: String,
    account_state_hash: B64,
    balance: Dec<u128>,
    extra_currencies: BTreeMap<String, String>,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    frozen_hash: Option<B64>,
    last_transaction_hash: B64,
    last_transaction_lt: Dec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_hash: Option<B64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_hash: Option<B64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_boc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_boc: Option<String>,
    contract_methods: Option<Vec<u32>>,
    interfaces: Vec<String>,
}

fn extra(a: &AccountView) -> BTreeMap<String, String> {
    a.balance
        .extra
        .iter()
        .map(|(id, amount)| (id.to_string(), amount.clone()))
        .collect()
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct AccountStatesResponse {
    accounts: Vec<AccountStateFull>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

pub fn account_states(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountStatesRequest,
) -> Result<AccountStatesResponse, V3Error> {
    let include_boc = q.include_boc.unwrap_or(true);
    let views = held_accounts(ctx, &q.states)?;
    let book = address_book::build_from_views(ctx, &q.states.shape.book, &views)?;
    let accounts = views
        .iter()
        .map(|a| {
            let facts = match &a.code {
                Some(code) => crate::query::accounts::code_facts_of(&ctx.reader, code)?,
                None => Default::default(),
            };
            Ok(AccountStateFull {
                address: raw_upper(&a.address),
                account_state_hash: B64(a.state_hash),
                balance: Dec(a.balance.grams),
                extra_currencies: extra(a),
                status: a.status.v3(),
                frozen_hash: a.frozen_hash.map(|h| B64(*h.as_array())),
                last_transaction_hash: B64(a.last_tx_hash),
                last_transaction_lt: Dec(a.last_tx_lt),
                data_hash: a.data.as_ref().map(|c| B64(*c.repr_hash().as_array())),
                code_hash: a.code_hash().map(|h| B64(*h.as_array())),
                data_boc: a.data.as_ref().filter(|_| include_boc).map(boc),
                code_boc: a.code.as_ref().filter(|_| include_boc).map(boc),
                contract_methods: facts.methods,
                interfaces: facts.interfaces.iter().map(|i| i.to_string()).collect(),
            })
        })
        .collect::<Result<_, V3Error>>()?;
    Ok(AccountStatesResponse {
        accounts,
        address_book: book,
        metadata: metadata::build(ctx, &q.states.shape, views.iter().map(|v| v.address))?,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct WalletState {
    address: String,
    is_wallet: bool,
    #[serde(flatten)]
    fields: WalletFields,
    balance: Dec<u128>,
    extra_currencies: BTreeMap<String, String>,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_hash: Option<B64>,
    last_transaction_hash: B64,
    last_transaction_lt: Dec<u64>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct WalletStatesResponse {
    wallets: Vec<WalletState>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

pub fn wallet_states(
    ctx: &Ctx<'_>,
    _: &Params,
    q: StatesRequest,
) -> Result<WalletStatesResponse, V3Error> {
    let views = held_accounts(ctx, &q)?;
    let book = address_book::build_from_views(ctx, &q.shape.book, &views)?;
    let wallets = views
        .iter()
        .map(|a| {
            let w = wallet_of(a);
            WalletState {
                address: raw_upper(&a.address),
                is_wallet: w.is_some(),
                fields: w.into(),
                balance: Dec(a.balance.grams),
                extra_currencies: extra(a),
                status: a.status.v3(),
                code_hash: a.code_hash().map(|h| B64(*h.as_array())),
                last_transaction_hash: B64(a.last_tx_hash),
                last_transaction_lt: Dec(a.last_tx_lt),
            }
        })
        .collect();
    Ok(WalletStatesResponse {
        wallets,
        address_book: book,
        metadata: metadata::build(ctx, &q.shape, views.iter().map(|v| v.address))?,
    })
}

/// The account of the legacy methods' `address` (401 when missing, as
/// the reference server answers); an account a held state of its shard
/// lacks is the spec's unknown account (status `uninit`, zeros), and one
/// whose state the node does not hold is a 404 saying so.
fn legacy_account(ctx: &Ctx<'_>, a: &AccountRequest) -> Result<AccountView, V3Error> {
    let Some(a) = a.address else {
        return Err(V3Error::new(
            StatusCode::UNAUTHORIZED,
            "address of account is required",
        ));
    };
    match crate::api::account_state::newest_view(ctx, &a.address)? {
        account::Known::Held(view) => Ok(view),
        account::Known::Absent => {
            let mut v = AccountView::nonexistent(a.address);
            v.status = Status::Uninit;
            Ok(v)
        }
        // v3's account names no block: an older state is not given as new.
        account::Known::NotHeld(why) | account::Known::Stale(_, why) => {
            Err(V3Error::not_found(why))
        }
    }
}

request! {
    /// One account (the legacy methods).
    pub struct AccountRequest {
        /// The account
        [required] address: Option<ParsedAddress>,
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct AddressInformation {
    balance: Dec<u128>,
    code: Option<String>,
    data: Option<String>,
    last_transaction_lt: Dec<u64>,
    last_transaction_hash: B64,
    frozen_hash: Option<B64>,
    status: &'static str,
}

pub fn address_information(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountRequest,
) -> Result<AddressInformation, V3Error> {
    let a = legacy_account(ctx, &q)?;
    Ok(AddressInformation {
        balance: Dec(a.balance.grams),
        code: a.code.as_ref().map(boc),
        data: a.data.as_ref().map(boc),
        last_transaction_lt: Dec(a.last_tx_lt),
        last_transaction_hash: B64(a.last_tx_hash),
        frozen_hash: a.frozen_hash.map(|h| B64(*h.as_array())),
        status: a.status.v3(),
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct WalletInformation {
    balance: Dec<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wallet_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seqno: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wallet_id: Option<u32>,
    last_transaction_lt: Dec<u64>,
    last_transaction_hash: B64,
    status: &'static str,
}

pub fn wallet_information(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AccountRequest,
) -> Result<WalletInformation, V3Error> {
    let a = legacy_account(ctx, &q)?;
    let w = wallet_of(&a);
    if w.is_none() && !matches!(a.status, Status::Uninit | Status::Nonexist) {
        return Err(V3Error::new(StatusCode::CONFLICT, "not a wallet"));
    }
    Ok(WalletInformation {
        balance: Dec(a.balance.grams),
        wallet_type: w.map(|w| w.wallet_type),
        seqno: w.and_then(|w| w.seqno),
        wallet_id: w.and_then(|w| w.wallet_id),
        last_transaction_lt: Dec(a.last_tx_lt),
        last_transaction_hash: B64(a.last_tx_hash),
        status: a.status.v3(),
    })
}

request! {
    /// A get-method call on an account's current state.
    pub struct RunGetMethodRequest {
        /// Method name or id
        [required] method: Option<MethodArg>,
        /// Input stack
        stack: StackV3,
    }
    with { account: AccountRequest }
}

/// A get-method's result.
#[derive(Serialize, utoipa::ToSchema)]
pub struct RunGetMethodResult {
    gas_used: u64,
    exit_code: i32,
    /// The result stack, `[{"type", "value"}]`.
    #[schema(value_type = Vec<Object>)]
    stack: Vec<Json>,
}

/// `POST /runGetMethod` with `{address, method, stack: [{type, value}]}`.
pub fn run_get_method(
    ctx: &Ctx<'_>,
    _: &Params,
    q: RunGetMethodRequest,
) -> Result<RunGetMethodResult, V3Error> {
    let Some(method) = q.method else {
        return Err(V3Error::new(StatusCode::UNAUTHORIZED, "method is required"));
    };
    let method = Method::parse(&method.0);
    let entries = q
        .stack
        .0
        .unwrap_or(Some(Vec::new()))
        .ok_or_else(|| V3Error::invalid("stack entries must be objects"))?;
    let input = stack::parse_v3_stack(&Json::Array(entries))?;
    let a = legacy_account(ctx, &q.account)?;
    let out = getmethod::run(ctx, &a, None, &method, input)?;
    Ok(RunGetMethodResult {
        gas_used: out.gas_used,
        exit_code: out.exit_code,
        stack: stack::v3_stack(&out.stack)?,
    })
}

/// v3's fees: v2's without the `@type` tags.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Fees)]
pub struct V3Fees {
    in_fwd_fee: u128,
    storage_fee: u128,
    gas_fee: u128,
    fwd_fee: u128,
}

request! {
    /// The message whose fees are estimated, and its account.
    pub struct EstimateFeeRequest {}
    with { account: AccountRequest, message: FeeArgs }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct EstimateFee {
    source_fees: V3Fees,
    destination_fees: Vec<V3Fees>,
}

pub fn estimate_fee(
    ctx: &Ctx<'_>,
    _: &Params,
    q: EstimateFeeRequest,
) -> Result<EstimateFee, V3Error> {
    let Some(a) = q.account.address else {
        return Err(V3Error::new(
            StatusCode::UNAUTHORIZED,
            "address of account is required",
        ));
    };
    let f = fees::estimate(ctx, &FeeRequest::from_args(a.address, &q.message)?)?;
    Ok(EstimateFee {
        source_fees: V3Fees {
            in_fwd_fee: f.in_fwd_fee,
            storage_fee: f.storage_fee,
            gas_fee: f.gas_fee,
            fwd_fee: f.fwd_fee,
        },
        destination_fees: Vec::new(),
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct TopAccount {
    account: String,
    balance: Dec<u128>,
}

request! {
    /// A page of the richest accounts.
    pub struct TopAccountsRequest {}
    with { paging: PagingArgs }
}

/// `GET /topAccountsByBalance` (spec v3 §3.5): a bare array, richest first,
/// over the accounts whose current state the node holds.
pub fn top_accounts_by_balance(
    ctx: &Ctx<'_>,
    _: &Params,
    q: TopAccountsRequest,
) -> Result<Vec<TopAccount>, V3Error> {
    let paging = super::Paging::from_args(ctx, &q.paging)?;
    let rows = crate::query::accounts::top_by_balance(&ctx.reader, paging.offset, paging.limit)?;
    let out: Vec<TopAccount> = rows
        .into_iter()
        .map(|(a, balance)| TopAccount {
            account: raw_upper(&a),
            balance: Dec(balance),
        })
        .collect();
    Ok(out)
}
