//! API v2 (toncenter's non-indexed API): `/api/v2/<method>` by GET query or
//! POST JSON body, and `POST /api/v2/jsonRPC`, all dispatched to the same
//! handlers. Output follows the C++ server (spec v2 §1.3): `{"ok", "result",
//! "@extra"}`, errors `{"ok": false, "error", "code", "@extra"}`.

pub mod accounts;
pub mod blocks;
pub mod config_params;
pub mod dns;
pub mod models;
pub mod send;
pub mod tokens;
pub mod transactions;
pub mod utils;

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::{any, post};
use axum::Router;
use serde::Serialize;
use serde_json::Value as Json;

use super::encoding::ParsedAddress;
use super::params::{ParamError, Params};
use super::request::{request, Handle, Typed};
use super::{
    elapsed_ms, getmethod, json_response, with_config_header, Api, Ctx, ReadFailure, V2_API_VERSION,
};

/// An error in v2's envelope: HTTP status = `code`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2Error {
    pub code: u16,
    pub message: String,
}

impl V2Error {
    pub fn new(code: u16, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
    /// A request that fails validation (422).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(
            422,
            format!("failed to validate request: {}", message.into()),
        )
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, message)
    }
    /// The request's time budget ran out (504).
    pub fn timed_out() -> Self {
        Self::new(504, "request timed out")
    }
    /// Too many big reads are running and waiting (503).
    pub fn busy() -> Self {
        Self::new(503, "server busy: too many requests are running; try again")
    }
}

impl From<ParamError> for V2Error {
    fn from(e: ParamError) -> Self {
        let inner = if e.expected == "an address" {
            format!("Failed to parse ton_addr: '{}'", e.value)
        } else if e.expected == "a hash" {
            format!("invalid hash: '{}'", e.value)
        } else {
            format!(
                "failed to parse {} ('{}' is not {})",
                e.name, e.value, e.expected
            )
        };
        let how = if e.in_body { "post" } else { "get" };
        Self::new(422, format!("failed to parse {how} request: {inner}"))
    }
}

impl From<tonindex_storage::Error> for V2Error {
    fn from(e: tonindex_storage::Error) -> Self {
        match e {
            tonindex_storage::Error::DeadlineExceeded => Self::timed_out(),
            e => Self::new(500, format!("internal error: {e}")),
        }
    }
}

impl From<crate::api::response::BodyError> for V2Error {
    fn from(e: crate::api::response::BodyError) -> Self {
        match e {
            crate::api::response::BodyError::TooLarge(_) => Self::new(503, e.to_string()),
            crate::api::response::BodyError::Serialize(_) => Self::new(500, e.to_string()),
        }
    }
}

/// The JSON of `result` on success.
pub type V2Result = Result<String, V2Error>;

/// Serializes a result model, within the response budget.
pub fn to_json<T: Serialize>(v: &T) -> V2Result {
    Ok(crate::api::response::json(v)?)
}

/// One method of v2: its name, documentation and typed handler. Every
/// method is served by GET, by POST and through JSON-RPC; the OpenAPI
/// document is written from this table and the handlers' request and
/// response types (`crate::api::openapi`).
pub struct Endpoint {
    pub name: &'static str,
    /// The document's tag (the group in Swagger UI).
    pub tag: &'static str,
    pub summary: &'static str,
    /// Error statuses it answers besides the common ones (429, 503, 504).
    pub errors: &'static [u16],
    pub handler: &'static dyn Handle<V2Error>,
}

/// Builds a row of [`ENDPOINTS`].
const fn row(
    name: &'static str,
    tag: &'static str,
    summary: &'static str,
    errors: &'static [u16],
    handler: &'static dyn Handle<V2Error>,
) -> Endpoint {
    Endpoint {
        name,
        tag,
        summary,
        errors,
        handler,
    }
}

/// v2 methods tonindex does not serve yet: a clear 501 rather than "unknown method".
pub(crate) const NOT_YET: &[&str] = &[];

/// Every method v2 serves (aliases are rows of their own).
pub static ENDPOINTS: &[Endpoint] = &[
    row("getAddressInformation", "accounts", "An account's state", &[404, 422, 501], &Typed { f: accounts::get_address_information }),
    row("getExtendedAddressInformation", "accounts", "An account's state with its detected wallet", &[404, 422, 501], &Typed { f: accounts::get_extended_address_information }),
    row("getWalletInformation", "accounts", "An account's wallet details", &[404, 422, 501], &Typed { f: accounts::get_wallet_information }),
    row("getTokenData", "accounts", "What a Jetton master or wallet, NFT collection or item says of itself (409: not a token, or not confirmed by its master or collection)", &[404, 409, 422, 501], &Typed { f: tokens::get_token_data }),
    row("getAddressBalance", "accounts", "An account's balance in nanotons", &[404, 422, 501], &Typed { f: accounts::get_address_balance }),
    row("getAddressState", "accounts", "An account's status", &[404, 422, 501], &Typed { f: accounts::get_address_state }),
    row("runGetMethod", "run method", "Runs a get-method (tonlib's stack form)", &[404, 422, 501, 533, 542], &Typed { f: accounts::run_get_method }),
    row("runGetMethodStd", "run method", "Runs a get-method (tvm.StackEntry form)", &[404, 422, 501, 533, 542], &Typed { f: accounts::run_get_method_std }),
    row("getShardAccountCell", "accounts", "An account's ShardAccount cell", &[404, 422, 501], &Typed { f: accounts::get_shard_account_cell }),
    row("dnsResolve", "accounts", "Resolves a TEP-81 name with the given resolver's dnsresolve, following next resolvers while ttl allows (409: the contract cannot resolve it)", &[404, 409, 422], &Typed { f: dns::dns_resolve }),
    row("estimateFee", "send", "Fees of an external message to the account", &[404, 422], &Typed { f: accounts::estimate_fee }),
    row("sendBoc", "send", "Sends an external message", &[422], &Typed { f: send::send_boc }),
    row("sendBocReturnHash", "send", "Sends an external message, returning its hashes", &[422], &Typed { f: send::send_boc_return_hash }),
    row("sendBocReturnHashNoError", "send", "Sends an external message; a failed send is a 400", &[400, 422], &Typed { f: send::send_boc_return_hash_no_error }),
    row("getMasterchainInfo", "blocks", "The newest indexed masterchain block", &[], &Typed { f: blocks::get_masterchain_info }),
    row("getMasterchainBlockSignatures", "blocks", "Validator signatures of a masterchain block (a chain this process runs)", &[404, 422, 501], &Typed { f: blocks::get_masterchain_block_signatures }),
    row("getShardBlockProof", "blocks", "Proof of a block from a masterchain block (a chain this process runs)", &[404, 422, 501], &Typed { f: blocks::get_shard_block_proof }),
    row("getConsensusBlock", "blocks", "The newest indexed masterchain block's seqno", &[], &Typed { f: blocks::get_consensus_block }),
    row("lookupBlock", "blocks", "A block by seqno, logical time or unix time", &[404, 422], &Typed { f: blocks::lookup_block }),
    row("getShards", "blocks", "Shard blocks of a masterchain block's state", &[404, 422], &Typed { f: blocks::get_shards }),
    row("shards", "blocks", "Alias of getShards", &[404, 422], &Typed { f: blocks::get_shards }),
    row("getBlockHeader", "blocks", "A block's header", &[404, 422], &Typed { f: blocks::get_block_header }),
    row("getOutMsgQueueSize", "blocks", "Outbound queue sizes of the newest blocks (a chain this process runs)", &[501], &Typed { f: blocks::get_out_msg_queue_size }),
    row("getBlockTransactions", "transactions", "Short ids of a block's transactions", &[404, 422], &Typed { f: transactions::get_block_transactions }),
    row("getBlockTransactionsExt", "transactions", "A block's transactions", &[404, 422], &Typed { f: transactions::get_block_transactions_ext }),
    row("getTransactions", "transactions", "An account's transactions, newest first", &[404, 422], &Typed { f: transactions::get_transactions }),
    row("getTransactionsStd", "transactions", "An account's transactions, newest first (raw.transactions)", &[404, 422], &Typed { f: transactions::get_transactions_std }),
    row("tryLocateTx", "transactions", "The destination's transaction that received the message", &[404, 422], &Typed { f: transactions::try_locate_tx }),
    row("tryLocateResultTx", "transactions", "Alias of tryLocateTx", &[404, 422], &Typed { f: transactions::try_locate_tx }),
    row("tryLocateSourceTx", "transactions", "The source's transaction that sent the message", &[404, 422], &Typed { f: transactions::try_locate_source_tx }),
    row("detectAddress", "utils", "All forms of an address", &[422], &Typed { f: utils::detect_address }),
    row("detectHash", "utils", "All forms of a hash", &[422], &Typed { f: utils::detect_hash }),
    row("packAddress", "utils", "An address in user-friendly url-safe form", &[422], &Typed { f: utils::pack_address }),
    row("unpackAddress", "utils", "An address in raw form", &[422], &Typed { f: utils::unpack_address }),
    row("getConfigParam", "config", "One blockchain config parameter (config_id or param is required)", &[404, 422], &Typed { f: config_params::get_config_param }),
    row("getConfigAll", "config", "The whole blockchain config", &[404, 422], &Typed { f: config_params::get_config_all }),
    row("getLibraries", "config", "Library cells by hash (unknown ones are left out)", &[404, 422, 501], &Typed { f: config_params::get_libraries }),
];

fn endpoint(method: &str) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| e.name == method)
}

/// The methods v2 serves (what its OpenAPI document must describe).
pub fn served_methods() -> impl Iterator<Item = &'static str> {
    ENDPOINTS.iter().map(|e| e.name)
}

/// `/api/v2`'s routes: the docs (static paths, which win over methods),
/// JSON-RPC, then every method.
pub fn router() -> Router<Arc<Api>> {
    super::openapi::routes(super::openapi::Which::V2)
        .route("/jsonRPC", post(json_rpc).fallback(json_rpc_wrong_method))
        .route("/{method}", any(rest))
        .fallback(|| async { reply(Err(V2Error::not_found("Not Found")), None, Instant::now()) })
}

/// `@extra`: `<unix seconds>:<liteservers used>:<elapsed ms>`; no liteserver is involved.
fn extra(start: Instant) -> String {
    let now = crate::api::unix_now();
    format!("{now}:_:{:.3}", elapsed_ms(start))
}

/// `jsonrpc` and `id` echoed from a JSON-RPC request.
struct RpcEcho {
    id: Option<String>,
}

fn reply(result: V2Result, rpc: Option<&RpcEcho>, start: Instant) -> Response {
    reply_noted((result, None), rpc, start)
}

/// [`reply`] for a method's result with the config it ran with, if any
/// (named in the `X-Tonindex-Config` header).
fn reply_noted(
    (result, used): (V2Result, Option<getmethod::ConfigUsed>),
    rpc: Option<&RpcEcho>,
    start: Instant,
) -> Response {
    with_config_header(reply_body(result, rpc, start), used)
}

fn reply_body(result: V2Result, rpc: Option<&RpcEcho>, start: Instant) -> Response {
    let extra = Json::String(extra(start));
    let rpc_tail = |body: &mut String| {
        if let Some(rpc) = rpc {
            body.push_str(",\"jsonrpc\":\"2.0\"");
            if let Some(id) = &rpc.id {
                body.push_str(",\"id\":");
                body.push_str(&Json::String(id.clone()).to_string());
            }
        }
    };
    match result {
        Ok(json) => {
            let mut body = format!("{{\"ok\":true,\"result\":{json},\"@extra\":{extra}");
            rpc_tail(&mut body);
            body.push('}');
            json_response(StatusCode::OK, body, V2_API_VERSION)
        }
        Err(e) => {
            let mut body = format!(
                "{{\"ok\":false,\"error\":{},\"code\":{},\"@extra\":{extra}",
                Json::String(e.message),
                e.code
            );
            rpc_tail(&mut body);
            body.push('}');
            let status = StatusCode::from_u16(e.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            json_response(status, body, V2_API_VERSION)
        }
    }
}

/// An error response in v2's envelope (for layers outside the handlers).
pub(crate) fn error_response(e: V2Error) -> Response {
    reply(Err(e), None, Instant::now())
}

/// Runs one method within the time budget; `big_input` when the request
/// body is large enough that parsing it belongs off the async worker.
/// Returns, with the result, the config a get-method or fee estimate ran with.
async fn call(
    api: &Arc<Api>,
    method: &str,
    params: Params,
    big_input: bool,
) -> (V2Result, Option<getmethod::ConfigUsed>) {
    match call_noted(api, method, params, big_input).await {
        Ok(noted) => noted,
        Err(e) => (Err(e), None),
    }
}

async fn call_noted(
    api: &Arc<Api>,
    method: &str,
    mut params: Params,
    big_input: bool,
) -> Result<(V2Result, Option<getmethod::ConfigUsed>), V2Error> {
    let Some(handler) = endpoint(method).map(|e| e.handler) else {
        if NOT_YET.contains(&method) {
            return Err(V2Error::new(
                501,
                format!("{method} is not implemented by tonindex yet"),
            ));
        }
        return Err(V2Error::not_found(format!(
            "unknown method: {}",
            crate::tvm::stack::cut(method)
        )));
    };
    params.declare(handler.names());
    let run = move |ctx: &Ctx<'_>| getmethod::with_config_note(|| handler.call(ctx, &params));
    match api.read_with(big_input, run).await {
        Ok(noted) => Ok(noted),
        Err(ReadFailure::TimedOut) => Err(V2Error::timed_out()),
        Err(ReadFailure::Busy) => Err(V2Error::busy()),
        Err(ReadFailure::Crashed) => Err(V2Error::new(500, "internal error")),
    }
}

async fn rest(
    State(api): State<Arc<Api>>,
    Path(method): Path<String>,
    http_method: Method,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let start = Instant::now();
    let params = match http_method {
        Method::GET | Method::HEAD => Params::from_query(query.as_deref()),
        Method::POST => {
            let parsed = if body.iter().all(u8::is_ascii_whitespace) {
                Ok(Json::Object(Default::default()))
            } else {
                super::parse_json_body(body.clone()).await
            };
            match parsed.and_then(|j| Params::from_json(&j).map_err(|e| e.0)) {
                Ok(p) => p,
                Err(e) => {
                    let err = V2Error::new(422, format!("failed to parse post request: {e}"));
                    return reply(Err(err), None, start);
                }
            }
        }
        other => {
            let err = V2Error::new(405, format!("unsupported http method: {other}"));
            return reply(Err(err), None, start);
        }
    };
    let big = body.len() > super::INLINE_BODY_BYTES;
    let result = call(&api, &method, params, big).await;
    reply_noted(result, None, start)
}

async fn json_rpc(State(api): State<Arc<Api>>, body: Bytes) -> Response {
    let start = Instant::now();
    let request: Json = match super::parse_json_body(body.clone()).await {
        Ok(j) => j,
        Err(e) => {
            let err = V2Error::new(422, format!("invalid JSON-RPC request: {e}"));
            return reply(Err(err), None, start);
        }
    };
    let Json::Object(request) = request else {
        let err = V2Error::new(
            422,
            "a JSON-RPC request must be an object (batches are not supported)",
        );
        return reply(Err(err), None, start);
    };
    let echo = RpcEcho {
        id: request.get("id").and_then(|id| match id {
            Json::String(s) => Some(s.clone()),
            Json::Number(n) => Some(n.to_string()),
            _ => None,
        }),
    };
    let Some(method) = request.get("method").and_then(Json::as_str) else {
        let err = V2Error::new(422, "JSON-RPC request has no method");
        return reply(Err(err), Some(&echo), start);
    };
    let params = match request.get("params") {
        None | Some(Json::Null) => Ok(Params::default()),
        Some(Json::Array(a)) if a.is_empty() => Ok(Params::default()),
        Some(p @ Json::Object(_)) => Params::from_json(p).map_err(|e| e.0),
        Some(_) => Err("params must contain an object".to_string()),
    };
    let result = match params {
        Ok(params) if method == "jsonRPC" => {
            drop(params);
            (Err(V2Error::new(422, "jsonRPC cannot call itself")), None)
        }
        // As toncenter's server answers a name it does not know (tonweb's
        // deprecated `sendQuery` among them): 422 "Unknown method". Over
        // REST an unknown path stays a 404.
        Ok(params) if endpoint(method).is_none() && !NOT_YET.contains(&method) => {
            drop(params);
            (Err(V2Error::new(422, "Unknown method")), None)
        }
        Ok(params) => call(&api, method, params, body.len() > super::INLINE_BODY_BYTES).await,
        Err(e) => (Err(V2Error::new(422, e)), None),
    };
    reply_noted(result, Some(&echo), start)
}

async fn json_rpc_wrong_method(method: Method) -> Response {
    reply(
        Err(V2Error::new(
            405,
            format!("method {method} is not supported"),
        )),
        None,
        Instant::now(),
    )
}

/// `seqno`-like parameters that CPP requires to be positive.
pub fn positive_seqno(v: Option<i64>, name: &str) -> Result<Option<u32>, V2Error> {
    match v {
        None => Ok(None),
        Some(s) if s <= 0 => Err(V2Error::invalid(format!("{name} should be positive"))),
        Some(s) => u32::try_from(s)
            .map(Some)
            .map_err(|_| V2Error::invalid(format!("{name} is too large"))),
    }
}

/// A parameter that must be present.
pub fn required<T>(v: Option<T>, name: &str) -> Result<T, V2Error> {
    v.ok_or_else(|| V2Error::invalid(format!("{name} required")))
}

request! {
    /// The account a method is about.
    pub struct AddressArgs {
        /// The account
        [required] address: Option<ParsedAddress>,
    }
}

request! {
    /// An account, and the masterchain block to read its state after.
    pub struct AccountAtArgs {
        /// Read the state after this masterchain block (default: the newest)
        seqno: Option<i64>,
    }
    with { account: AddressArgs }
}

request! {
    /// A block by id, its hashes checked when given.
    pub struct BlockArgs {
        /// Workchain
        [required] workchain: Option<i32>,
        /// Shard id as a signed 64-bit integer
        [required] shard: Option<i64>,
        /// Block seqno
        [required] seqno: Option<i64>,
        /// Must match, when given
        root_hash: Option<[u8; 32]>,
        /// Must match, when given
        file_hash: Option<[u8; 32]>,
    }
}
