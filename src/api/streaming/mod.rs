//! Streaming API v2 (toncenter's and TonAPI's push protocol): `POST
//! /api/streaming/v2/sse`, `GET /api/streaming/v2/ws` (also at TonAPI's
//! `/streaming/v2/…`) and `GET /api/streaming/healthz`, fed by the commit
//! feed of the process that writes the index (`tonindex dev`, `tonindex
//! run`).
//!
//! What is sent: `transactions`, `actions`, `trace`, `account_state_change`
//! and `jettons_change` at the `finalized` level, as each masterchain
//! block's unit is committed (actions and traces when a complete trace is
//! classified); `transactions`, `actions` and `trace` at `pending` when the
//! node emulates an accepted message, and at `confirmed` where shard blocks
//! are announced before the masterchain block that commits them (`tonindex
//! dev --block-interval`; a follower has no confirmed level); and
//! `trace_invalidated` when pending or confirmed data does not become final.
//! The routes are described in the v3 OpenAPI document ([`ROUTES`]).

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

use crate::api::openapi::{schema_of, Answer, HttpMethod, ServiceRoute};
use crate::api::Api;

const SSE: &str = "/api/streaming/v2/sse";
const WS: &str = "/api/streaming/v2/ws";
const HEALTHZ: &str = "/api/streaming/healthz";

/// Where TonAPI serves the same protocol: its paths are toncenter's
/// without `/api` (`/streaming/v2/sse`, `/streaming/v2/ws`).
const TONAPI_PREFIX: &str = "/streaming/v2/";

/// Moves a request made at TonAPI's paths to toncenter's, before anything
/// else sees it (keys, caps, metrics and routes are toncenter's), so that
/// a client configured for TonAPI works unchanged. Any other request is
/// left as it is.
pub(crate) fn tonapi_path(req: &mut axum::extract::Request) {
    let uri = req.uri();
    if !uri.path().starts_with(TONAPI_PREFIX) {
        return;
    }
    let moved = match uri.query() {
        Some(query) => format!("/api{}?{query}", uri.path()),
        None => format!("/api{}", uri.path()),
    };
    let mut parts = uri.clone().into_parts();
    if let Ok(path) = moved.parse() {
        parts.path_and_query = Some(path);
        if let Ok(uri) = axum::http::Uri::from_parts(parts) {
            *req.uri_mut() = uri;
        }
    }
}

/// The routes under `/api/streaming`.
pub fn router() -> Router<Arc<Api>> {
    Router::new()
        .route(SSE, post(sse::sse))
        .route(WS, get(ws::ws))
        .route(HEALTHZ, get(healthz))
}

/// The routes as the v3 document describes them (the same paths).
pub static ROUTES: &[ServiceRoute] = &[
    ServiceRoute {
        path: SSE,
        method: HttpMethod::Post,
        tag: "streaming",
        summary: "Subscribes: notifications as server-sent events until the client goes away",
        errors: &[400, 401, 501],
        body: Some(schema_of::<subscription::Request>),
        answer: Answer::EventStream(
            "`data:` lines of JSON notifications (transactions, actions, trace, \
             account_state_change, jettons_change, trace_invalidated), keepalive comments",
        ),
        answered_also: &[],
    },
    ServiceRoute {
        path: WS,
        method: HttpMethod::Get,
        tag: "streaming",
        summary: "Subscribes over WebSocket: subscribe, unsubscribe and ping operations",
        errors: &[400, 401, 501],
        body: None,
        answer: Answer::WebSocket("Switching to the WebSocket protocol"),
        answered_also: &[],
    },
    ServiceRoute {
        path: HEALTHZ,
        method: HttpMethod::Get,
        tag: "streaming",
        summary: "Whether commits reach the streams, and how old the newest finalized block is",
        errors: &[],
        body: None,
        answer: Answer::Json(schema_of::<Health>),
        answered_also: &[503],
    },
];

/// `healthz`'s answer.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    ok: bool,
    /// The server's unix time
    now: u64,
    components: std::collections::BTreeMap<&'static str, FeedHealth>,
}

/// The commit feed's health.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct FeedHealth {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_finalized_mc_block_time: Option<u64>,
    /// Absent without a live feed; null before the first block
    #[serde(skip_serializing_if = "Option::is_none")]
    finalized_age_seconds: Option<Option<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clients: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'static str>,
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
        FeedHealth {
            ok: true,
            last_finalized_mc_block_time: Some(t),
            finalized_age_seconds: Some((t > 0).then(|| now.saturating_sub(t))),
            clients: Some(hub.clients()),
            error: None,
        }
    } else {
        FeedHealth {
            ok: false,
            last_finalized_mc_block_time: None,
            finalized_age_seconds: None,
            clients: None,
            error: Some("this process does not write the index: no commits to stream"),
        }
    };
    let ok = hub.live();
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let health = Health {
        ok,
        now,
        components: [("commit-feed", component)].into_iter().collect(),
    };
    (status, axum::Json(health)).into_response()
}
