//! Per-request figures for `/metrics` (count and latency by API, route and
//! status), v3's `Server-Timing: app;dur=…` header as toncenter's v3 sends
//! it, and the `/metrics` route itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::Api;

/// The metric handles of one (route, status): looked up by hash, so that
/// a request costs no label strings once its route has been seen.
type Handles = (metrics::Counter, metrics::Histogram);

fn observe(api: &'static str, route: &str, status: StatusCode, seconds: f64) {
    // One cache per worker thread: no lock shared between cores.
    thread_local! {
        static CACHE: RefCell<HashMap<u64, Handles, BuildHasherDefault<Fnv>>> =
            RefCell::default();
    }
    let mut h = Fnv::default();
    (api, route, status.as_u16()).hash(&mut h);
    let key = h.finish();
    let seen = CACHE.with_borrow(|c| {
        c.get(&key).map(|(count, latency)| {
            count.increment(1);
            latency.record(seconds);
        })
    });
    if seen.is_some() {
        return;
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
    CACHE.with_borrow_mut(|c| c.insert(key, made));
}

const SERVER_TIMING: HeaderName = HeaderName::from_static("server-timing");

/// FNV-1a: a few labels' bytes per request hash in tens of nanoseconds
/// (SipHash, the default, is several times slower on short keys).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// One request being timed: started before the guards look at it, so
/// that their refusals are counted too.
pub struct Timer {
    start: Instant,
    api: &'static str,
    /// The request's URI (its bytes are shared, not copied).
    uri: Uri,
}

impl Timer {
    pub fn start(req: &Request) -> Self {
        let uri = req.uri().clone();
        let path = uri.path();
        let api = if path.starts_with("/api/v2") {
            "v2"
        } else if path.starts_with("/api/v3") {
            "v3"
        } else {
            "other"
        };
        Self {
            start: Instant::now(),
            api,
            uri,
        }
    }

    /// Records the answer; adds `Server-Timing` to v3's.
    pub fn finish(self, mut resp: Response) -> Response {
        let elapsed = self.start.elapsed();
        let status = resp.status();
        let api = self.api;
        if api == "v3" {
            let mut timing = String::with_capacity(32);
            timing.push_str("app;dur=");
            write_go_duration(&mut timing, elapsed);
            if let Ok(v) = HeaderValue::try_from(timing) {
                resp.headers_mut().insert(SERVER_TIMING, v);
            }
        }
        // Routes are the paths the server answers; anything it does not
        // know is one label, so a client cannot grow the label set.
        let path = self.uri.path();
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
}

/// A duration as Go prints one (`1.5ms`, `250µs`, `2.000001s`), as
/// toncenter's v3 writes it in `Server-Timing`.
pub fn go_duration(d: Duration) -> String {
    let mut out = String::with_capacity(24);
    write_go_duration(&mut out, d);
    out
}

/// [`go_duration`] appended to `out`, digit by digit (every request's
/// `Server-Timing` is written with it; `fmt` machinery cost as much as the
/// rest of the request's metrics).
fn write_go_duration(out: &mut String, d: Duration) {
    let ns = d.as_nanos();
    let (unit, digits, suffix) = match ns {
        0..1_000 => (1, 0, "ns"),
        1_000..1_000_000 => (1_000, 3, "µs"),
        1_000_000..1_000_000_000 => (1_000_000, 6, "ms"),
        _ => (1_000_000_000, 9, "s"),
    };
    let whole = ns / unit;
    let mut buf = [0u8; 40];
    let mut at = buf.len();
    let mut v = whole;
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    push_ascii(out, &buf[at..]);
    let mut frac = (ns % unit) as u64;
    if frac > 0 {
        let mut digit = [b'0'; 9];
        for i in (0..digits).rev() {
            digit[i] = b'0' + (frac % 10) as u8;
            frac /= 10;
        }
        let mut end = digits;
        while digit[end - 1] == b'0' {
            end -= 1;
        }
        out.push('.');
        push_ascii(out, &digit[..end]);
    }
    out.push_str(suffix);
}

/// Digits onto a string.
fn push_ascii(out: &mut String, digits: &[u8]) {
    for &b in digits {
        out.push(char::from(b));
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
        assert_eq!(go_duration(Duration::from_nanos(1_234_567)), "1.234567ms");
        assert_eq!(go_duration(Duration::from_nanos(1_050)), "1.05µs");
        assert_eq!(
            go_duration(Duration::from_nanos(3_000_000_007)),
            "3.000000007s"
        );
        assert_eq!(go_duration(Duration::ZERO), "0ns");
    }
}
