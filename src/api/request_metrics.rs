//! Per-request figures for `/metrics` (count and latency by API, route and
//! status), v3's `Server-Timing: app;dur=…` header as toncenter's v3 sends
//! it, and the `/metrics` route itself.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::Api;

/// The metric handles of one (route, status): looked up by hash, so that
/// a request costs no label strings once its route has been seen.
type Handles = (metrics::Counter, metrics::Histogram);

fn observe(api: &'static str, route: &str, status: StatusCode, seconds: f64) {
    static CACHE: OnceLock<RwLock<HashMap<u64, Handles>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (api, route, status.as_u16()).hash(&mut h);
    let key = h.finish();
    if let Ok(c) = cache.read() {
        if let Some((count, latency)) = c.get(&key) {
            count.increment(1);
            latency.record(seconds);
            return;
        }
    }
    let made = (
        metrics::counter!(
            "tonindex_http_requests_total",
            "api" => api,
            "route" => route.to_string(),
            "status" => status.as_u16().to_string()
        ),
        metrics::histogram!(
            "tonindex_http_request_duration_seconds",
            "api" => api,
            "route" => route.to_string()
        ),
    );
    made.0.increment(1);
    made.1.record(seconds);
    if let Ok(mut c) = cache.write() {
        c.insert(key, made);
    }
}

/// Records every request; adds `Server-Timing` to v3 answers.
pub async fn record(req: Request, next: Next) -> Response {
    let start = Instant::now();
    // The URI's bytes are shared, not copied.
    let uri = req.uri().clone();
    let path = uri.path();
    let api = if path.starts_with("/api/v2") {
        "v2"
    } else if path.starts_with("/api/v3") {
        "v3"
    } else {
        "other"
    };
    let mut resp = next.run(req).await;
    let elapsed = start.elapsed();
    let status = resp.status();
    if api == "v3" {
        if let Ok(v) = HeaderValue::from_str(&format!("app;dur={}", go_duration(elapsed))) {
            resp.headers_mut().insert("server-timing", v);
        }
    }
    // Routes are the paths the server answers; anything it does not know is
    // one label, so a client cannot grow the label set.
    let route = if status == StatusCode::NOT_FOUND && api != "other" {
        "unmatched"
    } else if api == "other" && !matches!(path, "/healthcheck" | "/metrics") {
        "other"
    } else {
        path
    };
    observe(api, route, status, elapsed.as_secs_f64());
    resp
}

/// A duration as Go prints one (`1.5ms`, `250µs`, `2.000001s`), as
/// toncenter's v3 writes it in `Server-Timing`.
pub fn go_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    let trim = |v: f64| {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if ns < 1_000 {
        format!("{ns}ns")
    } else if ns < 1_000_000 {
        format!("{}µs", trim(ns as f64 / 1e3))
    } else if ns < 1_000_000_000 {
        format!("{}ms", trim(ns as f64 / 1e6))
    } else {
        format!("{}s", trim(ns as f64 / 1e9))
    }
}

/// `GET /metrics`: the Prometheus text exposition, with the database's
/// figures read now.
pub async fn metrics(State(api): State<Arc<Api>>) -> Response {
    let db = Arc::clone(&api.db);
    let newest = api
        .read(|ctx| {
            crate::query::blocks::mc_block_range(&ctx.reader)
                .ok()
                .flatten()
                .map(|(_, last)| last.gen_utime)
        })
        .await
        .ok()
        .flatten();
    let body = tokio::task::spawn_blocking(move || {
        crate::telemetry::observe_db(&db, newest, crate::api::unix_now());
        crate::telemetry::render()
    })
    .await
    .ok()
    .flatten();
    match body {
        Some(text) => ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response(),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            "metrics are not recorded in this process",
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_go_prints_them() {
        assert_eq!(go_duration(Duration::from_nanos(800)), "800ns");
        assert_eq!(go_duration(Duration::from_micros(250)), "250µs");
        assert_eq!(go_duration(Duration::from_micros(1500)), "1.5ms");
        assert_eq!(go_duration(Duration::from_millis(2)), "2ms");
        assert_eq!(
            go_duration(Duration::from_nanos(2_000_001_000)),
            "2.000001s"
        );
    }
}
