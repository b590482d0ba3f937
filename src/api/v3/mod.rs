//! API v3 (toncenter's indexed API): `GET /api/v3/<endpoint>` with query
//! parameters, JSON bodies, errors as `{"error": "..."}` (spec v3 §1).

pub mod accounts;
pub mod action_details;
pub mod action_types;
pub mod actions;
pub mod address_book;
pub mod balance_changes;
pub mod blocks;
pub mod decode;
pub mod dns;
pub mod jettons;
pub mod messages;
pub mod metadata;
pub mod models;
pub mod multisig;
pub mod nfts;
pub mod order_actions;
pub mod send;
pub mod traces;
pub mod transactions;

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use serde::Serialize;

use super::params::{ParamError, Params};
use super::request::{request, DirectionWords, Handle, SortWords, Typed, Word};
use super::{getmethod, json_response, with_config_header, Api, Ctx, ReadFailure, V3_API_VERSION};

/// An error in v3's shape, with its HTTP status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V3Error {
    pub status: StatusCode,
    pub message: String,
}

impl V3Error {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
    /// A request the server cannot accept (bad or missing parameters).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }
    /// The request's time budget ran out (504).
    pub fn timed_out() -> Self {
        Self::new(
            StatusCode::GATEWAY_TIMEOUT,
            "timeout: the request exceeded its time budget",
        )
    }
    /// Too many big reads are running and waiting (503).
    pub fn busy() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server busy: too many requests are running; try again",
        )
    }
}

impl From<ParamError> for V3Error {
    fn from(e: ParamError) -> Self {
        Self::invalid(format!(
            "schema: error converting value for \"{}\": {:?} is not {}",
            e.name, e.value, e.expected
        ))
    }
}

impl From<tonindex_storage::Error> for V3Error {
    fn from(e: tonindex_storage::Error) -> Self {
        match e {
            tonindex_storage::Error::DeadlineExceeded => Self::timed_out(),
            e => Self::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal server error: {e}"),
            ),
        }
    }
}

impl From<crate::api::response::BodyError> for V3Error {
    fn from(e: crate::api::response::BodyError) -> Self {
        let status = match e {
            crate::api::response::BodyError::TooLarge(_) => StatusCode::SERVICE_UNAVAILABLE,
            crate::api::response::BodyError::Serialize(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::new(status, e.to_string())
    }
}

impl IntoResponse for V3Error {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message }).to_string();
        json_response(self.status, body, V3_API_VERSION)
    }
}

/// The JSON body of a successful response.
pub type V3Result = Result<String, V3Error>;

/// Serializes a response model, within the response budget.
pub fn to_json<T: Serialize>(v: &T) -> V3Result {
    Ok(crate::api::response::json(v)?)
}

/// How an endpoint is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    /// POST with the parameters in a JSON body.
    Post,
    /// Both: GET with a query string, POST with the same in a JSON body.
    GetOrPost,
}

/// One endpoint of v3: its path, method and documentation, and its typed
/// handler. The OpenAPI document is written from this table and the
/// handlers' request and response types (`crate::api::openapi`).
pub struct Endpoint {
    pub name: &'static str,
    pub method: Method,
    /// The document's tag (the group in Swagger UI).
    pub tag: &'static str,
    pub summary: &'static str,
    /// Error statuses it answers besides the common ones (429, 503, 504).
    pub errors: &'static [u16],
    pub handler: &'static dyn Handle<V3Error>,
}

/// Endpoints of v3 that tonindex does not serve yet: a clear 501, not a 404.
pub(crate) const NOT_YET: &[&str] = &[];

/// Builds a row of [`ENDPOINTS`].
const fn row(
    name: &'static str,
    method: Method,
    tag: &'static str,
    summary: &'static str,
    errors: &'static [u16],
    handler: &'static dyn Handle<V3Error>,
) -> Endpoint {
    Endpoint {
        name,
        method,
        tag,
        summary,
        errors,
        handler,
    }
}

use Method::{Get, GetOrPost, Post};

/// Every endpoint v3 serves (aliases are rows of their own).
pub static ENDPOINTS: &[Endpoint] = &[
    row("masterchainInfo", Get, "blocks", "First and last indexed masterchain blocks", &[], &Typed { f: blocks::masterchain_info }),
    row("blocks", Get, "blocks", "Blocks by filter", &[422], &Typed { f: blocks::blocks }),
    row("masterchainBlockShardState", Get, "blocks", "A masterchain block and the top shard blocks of its state", &[404, 422], &Typed { f: blocks::masterchain_block_shard_state }),
    row("masterchainBlockShards", Get, "blocks", "A masterchain block and the shard blocks it commits", &[404, 422], &Typed { f: blocks::masterchain_block_shards }),
    row("transactions", Get, "transactions", "Transactions by filter", &[404, 422], &Typed { f: transactions::transactions }),
    row("transactionsByMasterchainBlock", Get, "transactions", "Transactions of a masterchain block and the shard blocks it commits", &[404, 422], &Typed { f: transactions::transactions_by_masterchain_block }),
    row("transactionsByMessage", Get, "transactions", "Transactions that sent or received messages (one filter is required)", &[422], &Typed { f: transactions::transactions_by_message }),
    row("adjacentTransactions", Get, "transactions", "The parent and children of a transaction", &[404, 422], &Typed { f: transactions::adjacent_transactions }),
    row("messages", Get, "messages", "Messages by filter", &[422], &Typed { f: messages::messages }),
    row("addressBook", Get, "accounts", "User-friendly forms of addresses, keyed as sent", &[422], &Typed { f: address_book::address_book }),
    row("metadata", Get, "accounts", "Token metadata of the addresses that are token contracts, keyed by raw address", &[422], &Typed { f: metadata::metadata }),
    row("accountStates", Get, "accounts", "Current states of accounts the node holds", &[422], &Typed { f: accounts::account_states }),
    row("walletStates", Get, "accounts", "Current states of accounts with wallet details", &[422], &Typed { f: accounts::wallet_states }),
    row("topAccountsByBalance", Get, "accounts", "Accounts whose current state the node holds, richest first", &[422], &Typed { f: accounts::top_accounts_by_balance }),
    row("addressInformation", Get, "accounts", "An account's current state", &[401, 404, 422], &Typed { f: accounts::address_information }),
    row("account", Get, "accounts", "Alias of addressInformation", &[401, 404, 422], &Typed { f: accounts::address_information }),
    row("walletInformation", Get, "accounts", "A wallet's current state", &[401, 404, 409, 422], &Typed { f: accounts::wallet_information }),
    row("wallet", Get, "accounts", "Alias of walletInformation", &[401, 404, 409, 422], &Typed { f: accounts::wallet_information }),
    row("runGetMethod", Post, "accounts", "Runs a get-method on the account's current state", &[401, 404, 422, 501], &Typed { f: accounts::run_get_method }),
    row("estimateFee", Post, "accounts", "Fees of an external message to the account", &[401, 404, 422], &Typed { f: accounts::estimate_fee }),
    row("message", Post, "send", "Sends an external message", &[401, 422], &Typed { f: send::message }),
    row("jetton/masters", Get, "jettons", "Jetton masters the index has read (get_jetton_data)", &[422], &Typed { f: jettons::jetton_masters }),
    row("jetton/wallets", Get, "jettons", "Jetton wallets their masters confirm", &[422], &Typed { f: jettons::jetton_wallets }),
    row("jetton/transfers", Get, "jettons", "Jetton transfers (transfer#0f8a7ea5 on confirmed wallets; aborted ones left out)", &[422], &Typed { f: jettons::jetton_transfers }),
    row("jetton/burns", Get, "jettons", "Jetton burns (burn#595f07bc on confirmed wallets)", &[422], &Typed { f: jettons::jetton_burns }),
    row("nft/collections", Get, "nfts", "NFT collections the index has read (get_collection_data)", &[422], &Typed { f: nfts::nft_collections }),
    row("nft/items", Get, "nfts", "NFT items (an item of a collection only when the collection confirms it)", &[422], &Typed { f: nfts::nft_items }),
    row("nft/sales", Get, "nfts", "GetGems fixed-price sales and auctions by contract address, as they describe themselves", &[422], &Typed { f: nfts::nft_sales }),
    row("nft/transfers", Get, "nfts", "NFT transfers (transfer#5fcc3d14 on known items; aborted ones included)", &[422], &Typed { f: nfts::nft_transfers }),
    row("dns/records", Get, "dns", "DNS items of the .ton and .t.me collections, by domain or by the wallet their records name", &[422], &Typed { f: dns::dns_records }),
    row("decode", GetOrPost, "utils", "Opcodes to constructor names and message bodies to JSON (GET, or POST with a JSON body)", &[422], &Typed { f: decode::decode }),
    row("balanceChanges", Get, "actions", "What a trace, or one of its actions, did to balances: each account's nanotons (value less fees), its fees, and Jetton units by owner and master ({} for an action of another trace or a contract_deploy)", &[400, 404, 422], &Typed { f: balance_changes::balance_changes }),
    row("multisig/wallets", Get, "multisig", "Multisig v2 wallets the index has read (get_multisig_data), with their orders", &[422], &Typed { f: multisig::multisig_wallets }),
    row("multisig/orders", Get, "multisig", "Multisig v2 orders their multisig confirms (get_order_data, get_order_address)", &[422], &Typed { f: multisig::multisig_orders }),
    row("vesting", Get, "vesting", "Standard vesting wallets the index has read (get_vesting_data)", &[422], &Typed { f: multisig::vesting }),
    row("traces", Get, "traces", "Traces by filter (at most one of account, trace_id, tx_hash, msg_hash)", &[404, 422], &Typed { f: traces::traces }),
    row("events", Get, "traces", "Traces by filter, under the key `events`", &[404, 422], &Typed { f: traces::events }),
    row("actions", Get, "traces", "Actions of classified traces by filter", &[404, 422], &Typed { f: actions::actions }),
    row("pendingTraces", Get, "traces", "Emulated traces of sent messages not executed yet (null when none)", &[422], &Typed { f: traces::pending_traces }),
    row("pendingActions", Get, "traces", "Actions of emulated traces", &[422], &Typed { f: actions::pending_actions }),
    row("pendingTransactions", Get, "traces", "Emulated transactions on these accounts", &[404, 422], &Typed { f: traces::pending_transactions }),
];

fn endpoint(name: &str) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| e.name == name)
}

/// The endpoints v3 serves (what its OpenAPI document must describe).
pub fn served_endpoints() -> impl Iterator<Item = &'static str> {
    ENDPOINTS.iter().map(|e| e.name)
}

/// Whether an endpoint is called by POST with a JSON body (else by GET).
pub fn is_post_endpoint(name: &str) -> bool {
    endpoint(name).is_some_and(|e| e.method == Method::Post)
}

/// Whether an endpoint also takes POST with a JSON body besides GET.
pub fn is_get_and_post_endpoint(name: &str) -> bool {
    endpoint(name).is_some_and(|e| e.method == Method::GetOrPost)
}

/// `/api/v3`'s routes: the docs (static paths, which win), then every endpoint.
pub fn router() -> Router<Arc<Api>> {
    super::openapi::routes(super::openapi::Which::V3).route("/{*endpoint}", any(dispatch))
}

async fn dispatch(
    State(api): State<Arc<Api>>,
    Path(endpoint): Path<String>,
    method: axum::http::Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: axum::body::Bytes,
) -> Response {
    let Some(handler) = self::endpoint(&endpoint).map(|e| e.handler) else {
        if NOT_YET.contains(&endpoint.as_str()) {
            return V3Error::new(
                StatusCode::NOT_IMPLEMENTED,
                format!("/api/v3/{endpoint} is not implemented by tonindex yet"),
            )
            .into_response();
        }
        return V3Error::not_found(format!(
            "no such endpoint: /api/v3/{}",
            crate::tvm::stack::cut(&endpoint)
        ))
        .into_response();
    };
    let post = is_post_endpoint(&endpoint)
        || (is_get_and_post_endpoint(&endpoint) && method == axum::http::Method::POST);
    let expected = if post {
        axum::http::Method::POST
    } else {
        axum::http::Method::GET
    };
    // HEAD is a GET without the body (hyper leaves the body out).
    let head_of_get = method == axum::http::Method::HEAD && !post;
    if method != expected && !head_of_get {
        return V3Error::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("method {method} is not allowed on /api/v3/{endpoint}"),
        )
        .into_response();
    }
    let mut params = if post {
        let parsed = super::parse_json_body(body.clone())
            .await
            .and_then(|j| Params::from_json(&j).map_err(|e| e.0));
        match parsed {
            Ok(p) => p,
            Err(e) => {
                return V3Error::invalid(format!("invalid JSON body: {e}")).into_response();
            }
        }
    } else {
        Params::from_query(query.as_deref())
    };
    // Request-control headers count as their query aliases.
    for (header, key) in [
        ("x-no-address-book", "x_no_address_book"),
        ("x-no-metadata", "x_no_metadata"),
    ] {
        if let Some(v) = headers.get(header).and_then(|v| v.to_str().ok()) {
            params.push(key, v);
        }
    }
    // X-Actions-Version overrides supported_action_types (spec v3 §4.4).
    if let Some(v) = headers
        .get("x-actions-version")
        .and_then(|v| v.to_str().ok())
    {
        params.set("supported_action_types", v);
    }
    let big = body.len() > super::INLINE_BODY_BYTES;
    params.declare(handler.names());
    let run = move |ctx: &Ctx<'_>| getmethod::with_config_note(|| handler.call(ctx, &params));
    match api.read_with(big, run).await {
        Ok((Ok(body), used)) => {
            with_config_header(json_response(StatusCode::OK, body, V3_API_VERSION), used)
        }
        Ok((Err(e), used)) => with_config_header(e.into_response(), used),
        Err(ReadFailure::TimedOut) => V3Error::timed_out().into_response(),
        Err(ReadFailure::Busy) => V3Error::busy().into_response(),
        Err(ReadFailure::Crashed) => {
            V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error").into_response()
        }
    }
}

/// `limit`, `offset` and `sort` of a list endpoint (spec v3 §1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub limit: usize,
    pub offset: usize,
    pub desc: bool,
    /// Whether `sort` was given at all (some endpoints are unordered without it).
    pub sort_given: bool,
}

request! {
    /// `limit`, `offset` and `sort` of a list endpoint.
    pub struct PagingArgs {
        /// Page size (default serve.default_limit, at most serve.max_limit; below 1 reads as 1)
        limit: Option<i64>,
        /// Items to skip (negative reads as 0)
        offset: Option<i64>,
        /// Order (also `a`/`d`); default desc
        sort: Option<Word<SortWords>>,
    }
}

request! {
    /// Whether the response leaves its address book out.
    pub struct BookArgs {
        /// Leave the address book empty (also the X-No-Address-Book header)
        x_no_address_book: Option<bool>,
    }
}

request! {
    /// Whether the response leaves its address book and metadata out.
    pub struct BookMetadataArgs {
        /// Leave the metadata empty (also the X-No-Metadata header)
        x_no_metadata: Option<bool>,
    }
    with { book: BookArgs }
}

impl Paging {
    pub fn from_args(ctx: &Ctx<'_>, a: &PagingArgs) -> Result<Self, V3Error> {
        let sort = a.sort.as_ref().map(|s| s.as_str().to_ascii_lowercase());
        Self::new(ctx, a.limit, a.offset, sort.as_deref())
    }

    fn new(
        ctx: &Ctx<'_>,
        limit: Option<i64>,
        offset: Option<i64>,
        sort: Option<&str>,
    ) -> Result<Self, V3Error> {
        let limit = limit.unwrap_or(i64::from(ctx.cfg.default_limit));
        if limit > i64::from(ctx.cfg.max_limit) {
            return Err(V3Error::invalid(format!(
                "limit is not allowed: {limit} > {}",
                ctx.cfg.max_limit
            )));
        }
        let offset = offset.unwrap_or(0).max(0);
        let (desc, sort_given) = match sort {
            None => (true, false),
            Some("desc" | "d") => (true, true),
            Some("asc" | "a") => (false, true),
            Some(_) => return Err(V3Error::invalid("wrong value for sort parameter")),
        };
        Ok(Self {
            limit: limit.max(1) as usize,
            offset: usize::try_from(offset).unwrap_or(usize::MAX),
            desc,
            sort_given,
        })
    }

    /// Applies offset and limit to items already in order.
    pub fn page<T>(&self, items: impl IntoIterator<Item = T>) -> Vec<T> {
        items
            .into_iter()
            .skip(self.offset)
            .take(self.limit)
            .collect()
    }

    /// How many leading items of an ordered stream a page needs.
    pub fn needed(&self) -> usize {
        self.offset.saturating_add(self.limit)
    }
}

/// v3 `utime` input: unsigned integer or float (truncated).
pub fn parse_utime(v: &str) -> Option<u64> {
    let v = v.trim();
    v.parse::<u64>().ok().or_else(|| {
        v.parse::<f64>()
            .ok()
            .filter(|f| *f >= 0.0)
            .map(|f| f as u64)
    })
}

/// v3 shard input: hex (optionally `0x`) first, then signed decimal.
pub fn parse_shard(v: &str) -> Option<u64> {
    let v = v.trim();
    let hex_part = v.strip_prefix("0x").unwrap_or(v);
    u64::from_str_radix(hex_part, 16)
        .ok()
        .or_else(|| v.parse::<i64>().ok().map(|s| s as u64))
}

/// v3 opcode input: `0x` hex, else hex first, then signed 32-bit decimal.
pub fn parse_opcode(v: &str) -> Option<u32> {
    let v = v.trim();
    if let Some(h) = v.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).ok();
    }
    u32::from_str_radix(v, 16)
        .ok()
        .or_else(|| v.parse::<i32>().ok().map(|x| x as u32))
}

/// `direction`: `in` or `out`.
pub fn parse_direction(d: &Option<Word<DirectionWords>>) -> Result<Option<bool>, V3Error> {
    match d.as_ref().map(Word::as_str) {
        None => Ok(None),
        Some("in") => Ok(Some(true)),
        Some("out") => Ok(Some(false)),
        Some(_) => Err(V3Error::invalid("direction should be one of: in, out")),
    }
}
