//! Streaming API v2 (toncenter's and TonAPI's push protocol): `POST
//! /api/streaming/v2/sse`, `GET /api/streaming/v2/ws` and `GET
//! /api/streaming/healthz`, fed by the commit feed of the process that
//! writes the index (`tonindex dev`, `tonindex run`).
//!
//! What is sent today: `transactions`, `actions`, `trace`,
//! `account_state_change` and `jettons_change` at the `finalized` level,
//! as each masterchain block's unit is committed (actions and traces when
//! a complete trace is classified), and `transactions`, `actions` and
//! `trace` at `pending` when the node emulates an accepted message (the
//! pending traces). The `confirmed` level is accepted in subscriptions but
//! not sent yet, nor is `trace_invalidated`.

pub mod hub;
pub mod notify;
pub mod sse;
pub mod subscription;
pub mod ws;

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::json;

use crate::api::Api;

/// The routes under `/api/streaming`.
pub fn router() -> Router<Arc<Api>> {
    Router::new()
        .route("/v2/sse", post(sse::sse))
        .route("/v2/ws", get(ws::ws))
        .route("/healthz", get(healthz))
}

/// An error in the streaming API's shape: `{"id"?, "error"}`.
fn error(status: StatusCode, id: Option<&str>, message: &str) -> Response {
    let mut body = json!({ "error": message });
    if let Some(id) = id {
        body["id"] = id.into();
    }
    (status, axum::Json(body)).into_response()
}

/// What a server that does not see commits answers.
fn not_live() -> Response {
    error(
        StatusCode::NOT_IMPLEMENTED,
        None,
        "streaming is served where new blocks arrive (`tonindex dev`, `tonindex run`, or \
         `tonindex serve` over a database another process writes); this server reads a \
         database that does not change",
    )
}

/// The `X-Actions-Version` header's values, comma-separated or repeated.
pub(crate) fn actions_version(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("x-actions-version")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// `GET /api/streaming/healthz`: whether commits reach the streams, and
/// how old the newest masterchain block announced is.
async fn healthz(axum::extract::State(api): axum::extract::State<Arc<Api>>) -> Response {
    let hub = api.streams();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let component = if hub.live() {
        let t = hub.newest_mc_time();
        json!({
            "ok": true,
            "last_finalized_mc_block_time": t,
            "finalized_age_seconds": (t > 0).then(|| now.saturating_sub(t)),
            "clients": hub.clients(),
        })
    } else {
        json!({"ok": false, "error": "this process does not write the index: no commits to stream"})
    };
    let ok = hub.live();
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        axum::Json(json!({"ok": ok, "now": now, "components": {"commit-feed": component}})),
    )
        .into_response()
}
