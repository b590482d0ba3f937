//! API v3 (toncenter's indexed API): `GET /api/v3/<endpoint>` with query
//! parameters, JSON bodies, errors as `{"error": "..."}` (spec v3 §1).

pub mod accounts;
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

type Handler = fn(&Ctx<'_>, &Params) -> V3Result;

/// Endpoints of v3 that tonindex does not serve yet: a clear 501, not a 404.
pub(crate) const NOT_YET: &[&str] = &[];

/// Every endpoint v3 serves, with its handler (aliases are rows of their own).
const HANDLERS: &[(&str, Handler)] = &[
    ("masterchainInfo", blocks::masterchain_info),
    ("blocks", blocks::blocks),
    (
        "masterchainBlockShardState",
        blocks::masterchain_block_shard_state,
    ),
    ("masterchainBlockShards", blocks::masterchain_block_shards),
    ("transactions", transactions::transactions),
    (
        "transactionsByMasterchainBlock",
        transactions::transactions_by_masterchain_block,
    ),
    (
        "transactionsByMessage",
        transactions::transactions_by_message,
    ),
    ("adjacentTransactions", transactions::adjacent_transactions),
    ("messages", messages::messages),
    ("addressBook", address_book::address_book),
    ("metadata", metadata::metadata),
    ("accountStates", accounts::account_states),
    ("walletStates", accounts::wallet_states),
    ("topAccountsByBalance", accounts::top_accounts_by_balance),
    ("addressInformation", accounts::address_information),
    ("account", accounts::address_information),
    ("walletInformation", accounts::wallet_information),
    ("wallet", accounts::wallet_information),
    ("runGetMethod", accounts::run_get_method),
    ("estimateFee", accounts::estimate_fee),
    ("message", send::message),
    ("jetton/masters", jettons::jetton_masters),
    ("jetton/wallets", jettons::jetton_wallets),
    ("jetton/transfers", jettons::jetton_transfers),
    ("jetton/burns", jettons::jetton_burns),
    ("nft/collections", nfts::nft_collections),
    ("nft/items", nfts::nft_items),
    ("nft/sales", nfts::nft_sales),
    ("nft/transfers", nfts::nft_transfers),
    ("dns/records", dns::dns_records),
    ("decode", decode::decode),
    ("balanceChanges", balance_changes::balance_changes),
    ("multisig/wallets", multisig::multisig_wallets),
    ("multisig/orders", multisig::multisig_orders),
    ("vesting", multisig::vesting),
    ("traces", traces::traces),
    ("events", traces::events),
    ("actions", actions::actions),
    ("pendingTraces", traces::pending_traces),
    ("pendingActions", actions::pending_actions),
    ("pendingTransactions", traces::pending_transactions),
];

fn handler_for(endpoint: &str) -> Option<Handler> {
    HANDLERS
        .iter()
        .find(|(name, _)| *name == endpoint)
        .map(|(_, h)| *h)
}

/// The endpoints v3 serves (what its OpenAPI document must describe).
pub fn served_endpoints() -> impl Iterator<Item = &'static str> {
    HANDLERS.iter().map(|(name, _)| *name)
}

/// Endpoints read from a POST JSON body; every other endpoint is GET only.
const POST_ENDPOINTS: &[&str] = &["runGetMethod", "estimateFee", "message"];

/// Whether an endpoint is called by POST with a JSON body (else by GET).
pub fn is_post_endpoint(endpoint: &str) -> bool {
    POST_ENDPOINTS.contains(&endpoint)
}

/// Endpoints served both ways: GET with query parameters and POST with the
/// same parameters in a JSON body.
const GET_AND_POST_ENDPOINTS: &[&str] = &["decode"];

/// Whether an endpoint also takes POST with a JSON body besides GET.
pub fn is_get_and_post_endpoint(endpoint: &str) -> bool {
    GET_AND_POST_ENDPOINTS.contains(&endpoint)
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
    let Some(handler) = handler_for(&endpoint) else {
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
    let run = move |ctx: &Ctx<'_>| getmethod::with_config_note(|| handler(ctx, &params));
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

impl Paging {
    pub fn from_params(ctx: &Ctx<'_>, p: &Params) -> Result<Self, V3Error> {
        let limit = p
            .int::<i64>("limit")?
            .unwrap_or(i64::from(ctx.cfg.default_limit));
        if limit > i64::from(ctx.cfg.max_limit) {
            return Err(V3Error::invalid(format!(
                "limit is not allowed: {limit} > {}",
                ctx.cfg.max_limit
            )));
        }
        let offset = p.int::<i64>("offset")?.unwrap_or(0).max(0);
        let (desc, sort_given) = match p.get("sort").map(str::to_ascii_lowercase).as_deref() {
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
pub fn parse_direction(p: &Params) -> Result<Option<bool>, V3Error> {
    match p.get("direction") {
        None => Ok(None),
        Some("in") => Ok(Some(true)),
        Some("out") => Ok(Some(false)),
        Some(_) => Err(V3Error::invalid("direction should be one of: in, out")),
    }
}
