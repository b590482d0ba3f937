//! Emulate API v1 (toncenter's `ton-emulate-go`): `POST
//! /api/emulate/v1/emulateTrace` runs an external message and the whole
//! trace it causes on the newest state the node knows — the executor and
//! the trace builder the pending traces use — and answers the trace tree,
//! its transactions with the account states around them, its actions,
//! and on request the code and data of the accounts, the address book and
//! metadata; `emulateTonConnect` first builds the message a v4r2 or v5r1
//! wallet would send for a TON Connect request (its seqno and wallet id
//! from its state, signature checks off). Nothing is sent.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{OptionalAccount, StateInit, StdAddr};

use crate::wallet_client::mnemonic::Keys;
use crate::wallet_client::standard::{Outgoing, Version, Wallet};

use super::encoding::b64;
use super::openapi::{schema_of, Answer, HttpMethod, ServiceRoute};
use super::pending::{self, Level};
use super::v3::actions::ActionJson;
use super::v3::models::Transaction;
use super::v3::{action_types, actions, address_book, metadata, traces, V3Error};
use super::{Api, Ctx, ReadFailure};

const EMULATE_TRACE: &str = "/api/emulate/v1/emulateTrace";
const EMULATE_TON_CONNECT: &str = "/api/emulate/v1/emulateTonConnect";

/// The routes under `/api/emulate`.
pub fn router() -> Router<Arc<Api>> {
    Router::new()
        .route(EMULATE_TRACE, post(emulate_trace))
        .route(EMULATE_TON_CONNECT, post(emulate_ton_connect))
}

/// The routes as the v3 document describes them (the same paths).
pub static ROUTES: &[ServiceRoute] = &[
    ServiceRoute {
        path: EMULATE_TRACE,
        method: HttpMethod::Post,
        tag: "emulate",
        summary: "Emulates an external message and the trace it causes on the newest state (or \
                  after mc_block_seqno); nothing is sent",
        errors: &[400, 422],
        body: Some(schema_of::<EmulateRequest>),
        answer: Answer::Json(schema_of::<EmulateTraceResponse>),
        answered_also: &[],
    },
    ServiceRoute {
        path: EMULATE_TON_CONNECT,
        method: HttpMethod::Post,
        tag: "emulate",
        summary: "Emulates the message a v4r2 or v5r1 wallet would send for a TON Connect \
                  sendTransaction request",
        errors: &[400, 422],
        body: Some(schema_of::<TonConnectRequest>),
        answer: Answer::Json(schema_of::<EmulateTraceResponse>),
        answered_also: &[],
    },
];

/// `emulateTrace`'s body, as ton-emulate-go reads it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct EmulateRequest {
    #[serde(default)]
    pub boc: String,
    #[serde(default)]
    pub ignore_chksig: bool,
    #[serde(flatten)]
    pub flags: Flags,
}

/// What both endpoints may ask for beside the message.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct Flags {
    #[serde(default)]
    pub with_actions: bool,
    #[serde(default)]
    pub include_code_data: bool,
    #[serde(default)]
    pub include_address_book: bool,
    #[serde(default)]
    pub include_metadata: bool,
    pub mc_block_seqno: Option<u32>,
}

/// The answer, in ton-emulate-go's shape.
#[derive(Serialize, utoipa::ToSchema)]
pub struct EmulateTraceResponse {
    /// The masterchain block whose state the trace ran on.
    mc_block_seqno: u32,
    trace: Json,
    transactions: BTreeMap<String, Transaction>,
    /// Classified actions with `with_actions`, else none (always present).
    actions: Vec<ActionJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_cells: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data_cells: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<address_book::AddressBookDoc>)]
    address_book: Option<address_book::AddressBook>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<metadata::MetadataDoc>)]
    metadata: Option<metadata::Metadata>,
    /// The block random seed the executor ran with (base64).
    rand_seed: String,
    /// Whether the trace was cut short at the emulation's transaction limit.
    is_incomplete: bool,
}

fn invalid(why: impl std::fmt::Display) -> V3Error {
    V3Error::new(StatusCode::BAD_REQUEST, format!("invalid request: {why}"))
}

async fn emulate_trace(State(api): State<Arc<Api>>, headers: HeaderMap, body: Bytes) -> Response {
    let req: EmulateRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return invalid(e).into_response(),
    };
    if req.boc.is_empty() {
        return invalid("boc is required").into_response();
    }
    let msg = match super::external_message::check_external(&req.boc) {
        Ok(m) => m,
        Err(e) => return invalid(format!("invalid boc: {e}")).into_response(),
    };
    let supported = action_types::supported_set(&super::streaming::actions_version(&headers));
    let chksig = req.ignore_chksig;
    let run = move |ctx: &Ctx<'_>| {
        answer(
            ctx,
            &req.flags,
            chksig,
            &msg.cell,
            msg.hash_norm,
            &supported,
        )
    };
    respond(&api, run).await
}

/// Runs `run` on the read pool within the request's deadline; its answer
/// or its error in the `{"error"}` shape.
async fn respond(
    api: &Arc<Api>,
    run: impl Fn(&Ctx<'_>) -> Result<String, V3Error> + Send + 'static,
) -> Response {
    match api.read_with(true, run).await {
        Ok(Ok(body)) => super::json_response(StatusCode::OK, body, super::V3_API_VERSION),
        Ok(Err(e)) => e.into_response(),
        Err(ReadFailure::TimedOut) => V3Error::timed_out().into_response(),
        Err(ReadFailure::Busy) => V3Error::busy().into_response(),
        Err(ReadFailure::Crashed) => {
            V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error").into_response()
        }
    }
}

/// Emulates and shapes the answer.
fn answer(
    ctx: &Ctx<'_>,
    req: &Flags,
    ignore_chksig: bool,
    msg: &Cell,
    hash_norm: HashBytes,
    supported: &std::collections::HashSet<String>,
) -> Result<String, V3Error> {
    let newest = crate::query::blocks::mc_block_range(&ctx.reader)?
        .map(|(_, last)| last)
        .ok_or_else(|| {
            V3Error::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "no masterchain block is indexed yet: nothing to emulate on",
            )
        })?;
    // The state it runs on: the newest, or the one after the block named.
    let base = match req.mc_block_seqno {
        None => newest,
        Some(seqno) if seqno > newest.id.id.seqno => {
            return Err(invalid(format!(
                "mc_block_seqno {seqno} is ahead of the newest indexed block ({})",
                newest.id.id.seqno
            )))
        }
        Some(seqno) => crate::query::blocks::mc_block(&ctx.reader, seqno)?.ok_or_else(|| {
            V3Error::new(
                StatusCode::NOT_FOUND,
                format!("masterchain block {seqno} is not indexed"),
            )
        })?,
    };
    // The block's seed, as a collator draws one: here from the state's
    // block and the message, so that the same request runs the same way.
    let rand_seed = HashBytes(
        Sha256::new()
            .chain_update(base.id.root_hash)
            .chain_update(msg.repr_hash().as_array())
            .finalize()
            .into(),
    );
    let known = super::external_message::emulate_known(
        ctx,
        msg,
        ignore_chksig,
        rand_seed,
        req.mc_block_seqno,
    )
    .map_err(|r| V3Error::new(status_of(r.status), r.message))?;
    let interfaces = crate::query::tokens::StoredInterfaces(&ctx.reader);
    let emulated = known
        .emulated(ctx)
        .map_err(|r| V3Error::new(status_of(r.status), r.message))?;
    let trace = pending::build_emulated(&emulated, hash_norm.0, known.version, &interfaces)
        .map_err(|e| V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    let (tree, mut transactions) = traces::pending_tree_and_transactions(&trace)?;
    // The account states around each transaction, as the emulation left them.
    let accounts: BTreeMap<HashBytes, OptionalAccount> = known
        .trace
        .states
        .iter()
        .filter_map(|(h, c)| c.parse::<OptionalAccount>().ok().map(|a| (*h, a)))
        .collect();
    for t in transactions.values_mut() {
        for state in [&mut t.account_state_before, &mut t.account_state_after] {
            if let Some(a) = accounts.get(&HashBytes(state.hash.0)) {
                state.fill_from(a)?;
            }
        }
    }
    let actions = if req.with_actions {
        let mut shown: Vec<_> = trace
            .actions
            .iter()
            .filter(|a| action_types::visible(a, supported))
            .collect();
        shown.sort_by_key(|a| (a.start_lt, a.end_lt, a.action_id));
        shown
            .into_iter()
            .map(|a| actions::action_json(a, &trace.trace, true).at(Level::Emulated))
            .collect()
    } else {
        Vec::new()
    };
    let (code_cells, data_cells) = if req.include_code_data {
        let (code, data) = code_and_data(accounts.values());
        (Some(code), Some(data))
    } else {
        (None, None)
    };
    let addresses: Vec<_> = transactions.values().map(|t| t.account.0).collect();
    let shape = super::v3::BookMetadataArgs::default();
    let address_book = req
        .include_address_book
        .then(|| address_book::build(ctx, &shape.book, addresses.iter().copied()))
        .transpose()?;
    let metadata = req
        .include_metadata
        .then(|| metadata::build(ctx, &shape, addresses.iter().copied()))
        .transpose()?;
    super::v3::to_json(&EmulateTraceResponse {
        mc_block_seqno: known.mc_seqno,
        trace: tree,
        transactions,
        actions,
        code_cells,
        data_cells,
        address_book,
        metadata,
        rand_seed: b64(rand_seed.as_array()),
        is_incomplete: known.trace.incomplete,
    })
}

/// The code and data cells of the active accounts, as BoCs by their hashes.
fn code_and_data<'a>(
    accounts: impl Iterator<Item = &'a OptionalAccount>,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let boc = |c: &Cell| b64(&tycho_types::boc::Boc::encode(c.as_ref()));
    let (mut code, mut data) = (BTreeMap::new(), BTreeMap::new());
    for a in accounts {
        let Some(a) = &a.0 else { continue };
        if let tycho_types::models::AccountState::Active(init) = &a.state {
            if let Some(c) = &init.code {
                code.insert(b64(c.repr_hash().as_array()), boc(c));
            }
            if let Some(d) = &init.data {
                data.insert(b64(d.repr_hash().as_array()), boc(d));
            }
        }
    }
    (code, data)
}

/// The answer's status for an emulation refused: a message its account
/// does not take is the client's (422), the rest the node's.
fn status_of(status: u16) -> StatusCode {
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// `emulateTonConnect`'s body: a TON Connect `sendTransaction` request.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct TonConnectRequest {
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub messages: Vec<TonConnectMessage>,
    pub valid_until: Option<u64>,
    #[serde(flatten)]
    pub flags: Flags,
}

/// One message of a TON Connect request.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct TonConnectMessage {
    #[serde(default)]
    pub address: String,
    #[serde(default)]
    pub amount: String,
    /// Body BoC (base64).
    pub payload: Option<String>,
    /// State init BoC (base64).
    #[serde(rename = "stateInit")]
    pub state_init: Option<String>,
}

/// Messages one request may carry (toncenter's limit).
const MAX_TON_CONNECT_MESSAGES: usize = 4;

/// The request's messages, checked in toncenter's order with its words.
fn outgoing(req: &TonConnectRequest) -> Result<Vec<Outgoing>, V3Error> {
    if req.from.is_empty() {
        return Err(invalid("from address is required for emulation"));
    }
    if req.messages.is_empty() {
        return Err(invalid("messages array cannot be empty"));
    }
    if req.messages.len() > MAX_TON_CONNECT_MESSAGES {
        return Err(invalid(format!(
            "messages array cannot contain more than {MAX_TON_CONNECT_MESSAGES} messages"
        )));
    }
    let boc = |b: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| e.to_string())
            .and_then(|bytes| tycho_types::boc::Boc::decode(bytes).map_err(|e| e.to_string()))
    };
    let mut out = Vec::new();
    for (i, m) in req.messages.iter().enumerate() {
        if m.address.is_empty() {
            return Err(invalid(format!("message at index {i} cannot be empty")));
        }
        if m.amount.is_empty() {
            return Err(invalid(format!(
                "amount in message at index {i} cannot be empty"
            )));
        }
        let amount: u64 = m
            .amount
            .parse()
            .map_err(|e| invalid(format!("invalid amount in message at index {i}: {e}")))?;
        let to = super::encoding::parse_address(&m.address)
            .ok_or_else(|| invalid(format!("invalid address in message at index {i}")))?;
        let body = match &m.payload {
            Some(p) => Some(
                boc(p)
                    .map_err(|e| invalid(format!("invalid message payload at index {i}: {e}")))?,
            ),
            None => None,
        };
        let init = match &m.state_init {
            Some(s) => Some(
                boc(s)
                    .and_then(|c| c.parse::<StateInit>().map_err(|e| e.to_string()))
                    .map_err(|e| invalid(format!("invalid message stateInit at index {i}: {e}")))?,
            ),
            None => None,
        };
        out.push(Outgoing {
            to: std_addr(&to.address)
                .ok_or_else(|| invalid(format!("invalid address in message at index {i}")))?,
            amount: u128::from(amount),
            // A friendly address says whether to bounce; a raw one does (as
            // TON Connect wallets send it).
            bounce: to.friendly.is_none_or(|f| f.bounceable),
            body,
            init,
        });
    }
    Ok(out)
}

fn std_addr(a: &tonindex_model::Address) -> Option<StdAddr> {
    Some(StdAddr::new(
        i8::try_from(a.workchain).ok()?,
        HashBytes(a.id),
    ))
}

/// The external message `from`'s wallet would send for the request: its
/// version, seqno and wallet id read from its state; signed with a key
/// that is not the wallet's (the emulation skips signature checks).
fn wallet_message(
    ctx: &Ctx<'_>,
    req: &TonConnectRequest,
    out: &[Outgoing],
) -> Result<Cell, V3Error> {
    use crate::state::account::Known;
    let from = super::encoding::parse_address(&req.from)
        .ok_or_else(|| invalid(format!("invalid from address: {}", req.from)))?;
    let unprocessable = |why: String| V3Error::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    let absent = || {
        unprocessable(format!(
            "the wallet {} does not exist: nothing can send from it",
            req.from
        ))
    };
    // The wallet as it was where the emulation runs: after the block
    // named, else its newest state.
    let state = match req.flags.mc_block_seqno {
        Some(seqno) => super::account_state::after_mc_block(ctx, &from.address, seqno)
            .map_err(|e| V3Error::new(status_of(e.status), e.message))?
            .shard_account
            .ok_or_else(absent)?,
        None => match super::account_state::newest(ctx, &from.address)
            .map_err(|e| V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        {
            Known::Held(s) => s.shard_account,
            Known::Absent => return Err(absent()),
            Known::NotHeld(why) | Known::Stale(_, why) => {
                return Err(V3Error::new(StatusCode::SERVICE_UNAVAILABLE, why))
            }
        },
    };
    let account = state
        .load_account()
        .map_err(|e| V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let init = match account.map(|a| a.state) {
        Some(tycho_types::models::AccountState::Active(init)) => init,
        _ => {
            return Err(unprocessable(format!(
                "the wallet {} is not active: emulating a request from an undeployed wallet is \
                 not built",
                req.from
            )))
        }
    };
    let code = init.code.as_ref().map(|c| *c.repr_hash());
    let version = [Version::V4R2, Version::V5R1]
        .into_iter()
        .find(|v| Some(*v.code().repr_hash()) == code)
        .ok_or_else(|| {
            unprocessable(format!(
                "the account {} is not a v4r2 or v5r1 wallet (code hash {}): building its \
                 message is not built for other contracts",
                req.from,
                code.map_or("none".into(), |h| h.to_string())
            ))
        })?;
    let data = init
        .data
        .as_ref()
        .ok_or_else(|| unprocessable(format!("the wallet {} has no data", req.from)))?;
    let (seqno, wallet_id, public_key) = wallet_data(version, data).map_err(|e| {
        unprocessable(format!(
            "the wallet {}'s data cannot be read: {e}",
            req.from
        ))
    })?;
    let address = std_addr(&from.address)
        .ok_or_else(|| invalid(format!("invalid from address: {}", req.from)))?;
    let wallet = Wallet {
        version,
        public_key,
        wallet_id,
        workchain: address.workchain,
    };
    let now = crate::api::unix_now();
    let valid_until = u32::try_from(req.valid_until.unwrap_or(now + 300)).unwrap_or(u32::MAX);
    // Any key: the emulation runs with signature checks off.
    let keys = Keys::from_secret([0x5a; 32]);
    wallet
        .transfers_at(&address, &keys, seqno, valid_until, out)
        .map_err(|e| V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// A standard wallet's seqno, wallet id and public key.
fn wallet_data(version: Version, data: &Cell) -> Result<(u32, u32, [u8; 32]), String> {
    let mut s = data.as_slice().map_err(|e| e.to_string())?;
    let err = |e: tycho_types::error::Error| e.to_string();
    if version == Version::V5R1 {
        s.load_bit().map_err(err)?; // signature allowed
    }
    let seqno = s.load_u32().map_err(err)?;
    let wallet_id = s.load_u32().map_err(err)?;
    let key = s.load_u256().map_err(err)?;
    Ok((seqno, wallet_id, key.0))
}

async fn emulate_ton_connect(
    State(api): State<Arc<Api>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req: TonConnectRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return invalid(e).into_response(),
    };
    let out = match outgoing(&req) {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let supported = action_types::supported_set(&super::streaming::actions_version(&headers));
    let run = move |ctx: &Ctx<'_>| {
        let msg = wallet_message(ctx, &req, &out)?;
        let checked = super::external_message::check_external_cell(msg)
            .map_err(|e| V3Error::new(StatusCode::INTERNAL_SERVER_ERROR, e))?;
        answer(
            ctx,
            &req.flags,
            true,
            &checked.cell,
            checked.hash_norm,
            &supported,
        )
    };
    respond(&api, run).await
}
