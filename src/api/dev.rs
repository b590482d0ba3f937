//! `/dev/*`: what only `tonindex dev` answers — the genesis wallets, the
//! faucet and producing a block on demand. Elsewhere every `/dev/` path is
//! a 404. Errors are v3's `{"error": …}`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tycho_types::cell::HashBytes;
use tycho_types::models::StdAddr;

use super::encoding::{parse_address, B64};
use super::v3::V3Error;
use super::{json_response, Api};
use crate::chain::link::{DevLink, Refused};

/// The `/dev` routes.
pub fn router() -> Router<Arc<Api>> {
    Router::new()
        .route("/accounts", get(accounts))
        .route("/fund", post(fund))
        .route("/block", post(block))
        .fallback(|| async { not_found() })
}

fn not_found() -> Response {
    V3Error::not_found("not found: /dev/ answers only under `tonindex dev` (accounts, fund, block)")
        .into_response()
}

fn ok(body: serde_json::Value) -> Response {
    json_response(StatusCode::OK, body.to_string(), "dev")
}

fn refused(r: Refused) -> Response {
    V3Error::new(
        StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        r.message,
    )
    .into_response()
}

fn dev(api: &Api) -> Option<&dyn DevLink> {
    api.chain.as_deref().and_then(|c| c.dev())
}

async fn accounts(State(api): State<Arc<Api>>) -> Response {
    match dev(&api) {
        Some(d) => ok(d.accounts()),
        None => not_found(),
    }
}

/// Runs a devnet request off the async workers (it waits for a block).
async fn blocking<T: Send + 'static>(
    api: Arc<Api>,
    f: impl FnOnce(&dyn DevLink) -> Result<T, Refused> + Send + 'static,
) -> Option<Result<T, Refused>> {
    dev(&api)?;
    let task = tokio::task::spawn_blocking(move || f(dev(&api).expect("checked above")));
    Some(
        task.await
            .unwrap_or_else(|e| Err(Refused::new(500, format!("devnet request failed: {e}")))),
    )
}

/// `POST /dev/fund {"address", "amount"}`.
async fn fund(State(api): State<Arc<Api>>, body: Bytes) -> Response {
    if dev(&api).is_none() {
        return not_found();
    }
    let (to, amount) = match fund_request(&body) {
        Ok(r) => r,
        Err(e) => return V3Error::invalid(e).into_response(),
    };
    match blocking(api, move |d| d.fund(to, amount)).await {
        None => not_found(),
        Some(Err(r)) => refused(r),
        Some(Ok(e)) => ok(serde_json::json!({
            "tx_hash": serde_json::to_value(B64(e.tx_hash.0)).unwrap_or_default(),
            "lt": e.lt.to_string(),
            "mc_seqno": e.mc_seqno,
        })),
    }
}

/// Most a single faucet transfer pays: one million TON.
const MAX_FUND: u128 = 1_000_000 * 1_000_000_000;

fn fund_request(body: &[u8]) -> Result<(StdAddr, u128), String> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let address = v
        .get("address")
        .and_then(|a| a.as_str())
        .ok_or("address is required")?;
    let parsed = parse_address(address).ok_or_else(|| format!("invalid address {address:?}"))?;
    let workchain = match parsed.address.workchain {
        w @ (0 | -1) => w as i8,
        w => return Err(format!("unknown workchain {w}")),
    };
    let amount = match v.get("amount") {
        Some(serde_json::Value::String(s)) => s.parse::<u128>().ok(),
        Some(serde_json::Value::Number(n)) => n.as_u64().map(u128::from),
        _ => return Err("amount (nanotons, a decimal string) is required".into()),
    }
    .ok_or("amount must be a non-negative integer of nanotons")?;
    if amount == 0 || amount > MAX_FUND {
        return Err(format!("amount must be between 1 and {MAX_FUND} nanotons"));
    }
    Ok((
        StdAddr::new(workchain, HashBytes(parsed.address.id)),
        amount,
    ))
}

/// `POST /dev/block`: a block pair now; answers its masterchain seqno.
async fn block(State(api): State<Arc<Api>>) -> Response {
    match blocking(api, |d| d.produce_block()).await {
        None => not_found(),
        Some(Err(r)) => refused(r),
        Some(Ok(seqno)) => ok(serde_json::json!({ "mc_seqno": seqno })),
    }
}
