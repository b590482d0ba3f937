//! API keys and rate limits (`[serve.rate_limit]`, `[[serve.api_keys]]`).
//!
//! A key comes in the `X-API-Key` header (any case), an `Authorization:
//! Bearer` header, or the `api_key` or `token` query parameter; an unknown
//! key is a 401. Streaming API v2 connections and Emulate API v1 calls
//! count as v3 calls. A known key has its own rate
//! (`rps`, 0 = unlimited); a request without a key falls under its API's
//! anonymous rate, per client address (`anonymous_v2_rps`,
//! `anonymous_v3_rps`, 0 = unlimited — the default of a self-hosted node;
//! toncenter's hosted scheme is `anonymous_v2_rps = 1`). Past a rate the
//! answer is 429 in the API's error shape with `Retry-After`. Each request
//! takes one token (a JSON-RPC batch is refused, as toncenter refuses it,
//! and costs what any refused request does). The keys and rates are swapped on SIGHUP without
//! touching open connections. Rates are token buckets of `governor`: a
//! burst of up to one second's worth, refilled evenly.
//!
//! Streams have their own caps, as toncenter's streaming server has:
//! parallel streams a key may hold (`streams`, 0 = unlimited) and the
//! addresses one of its subscriptions may name (`stream_addresses`, 0 =
//! the server's 10,000), and parallel streams a client address without
//! a key may hold (`anonymous_streams`, 0 = unlimited). Past them: 429
//! `connection limit reached: N active connections` (a WebSocket: that
//! error frame, then the close) and 400 `too many addresses: N > max M`.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};

use super::server::{api_error, is_v2_path};

/// `[serve.rate_limit]`: requests per second without a key, per client
/// address and API; 0 = unlimited.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitConfig {
    pub anonymous_v2_rps: u32,
    pub anonymous_v3_rps: u32,
    /// Parallel streams (Streaming API v2) per client address without a
    /// key; 0 = unlimited.
    pub anonymous_streams: u32,
}

/// One `[[serve.api_keys]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKey {
    pub key: String,
    /// Requests per second; 0 = unlimited.
    #[serde(default)]
    pub rps: u32,
    /// Parallel streams the key may hold; 0 = unlimited.
    #[serde(default)]
    pub streams: u32,
    /// Addresses one of its stream subscriptions may name; 0 = the
    /// server's cap (10,000).
    #[serde(default)]
    pub stream_addresses: u32,
}

/// The limiters in force, swapped whole on reload.
#[derive(Default)]
struct Limits {
    anonymous_v2: Option<DefaultKeyedRateLimiter<IpAddr>>,
    anonymous_v3: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// Key → its limiter (`None`: unlimited).
    keys: HashMap<String, Option<DefaultDirectRateLimiter>>,
    /// Key → (parallel streams, addresses a subscription), 0 = no cap.
    stream_caps: HashMap<String, (u32, u32)>,
    anonymous_streams: u32,
}

fn quota(rps: u32) -> Option<Quota> {
    NonZeroU32::new(rps).map(Quota::per_second)
}

impl Limits {
    fn new(rates: &RateLimitConfig, keys: &[ApiKey]) -> Self {
        Self {
            anonymous_v2: quota(rates.anonymous_v2_rps).map(RateLimiter::keyed),
            anonymous_v3: quota(rates.anonymous_v3_rps).map(RateLimiter::keyed),
            keys: keys
                .iter()
                .map(|k| (k.key.clone(), quota(k.rps).map(RateLimiter::direct)))
                .collect(),
            stream_caps: keys
                .iter()
                .map(|k| (k.key.clone(), (k.streams, k.stream_addresses)))
                .collect(),
            anonymous_streams: rates.anonymous_streams,
        }
    }

    fn is_open(&self) -> bool {
        self.anonymous_v2.is_none()
            && self.anonymous_v3.is_none()
            && self.keys.is_empty()
            && self.anonymous_streams == 0
    }
}

/// What a request may do.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    Allow,
    UnknownKey,
    /// Over its rate: retry after this long.
    Limited(Duration),
}

/// Who holds streams: a key, or a client address without one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Holder {
    Key(String),
    Peer(IpAddr),
}

/// Who opens a stream, as [`admit`] found it (a request extension on the
/// streaming routes while keys or caps are in force).
#[derive(Debug, Clone)]
pub struct StreamCaller {
    key: Option<String>,
    peer: IpAddr,
}

/// A stream's place under its holder's cap, given back when dropped.
pub struct StreamSlot {
    open: Arc<Mutex<HashMap<Holder, u32>>>,
    holder: Holder,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.holder) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.holder);
            }
        }
    }
}

/// The keys and rates of a running server.
pub struct RateLimits {
    limits: RwLock<Arc<Limits>>,
    /// Streams open per holder.
    streams: Arc<Mutex<HashMap<Holder, u32>>>,
    /// No keys and no rates: every request passes without a look inside.
    open: std::sync::atomic::AtomicBool,
}

impl RateLimits {
    pub fn new(rates: &RateLimitConfig, keys: &[ApiKey]) -> Self {
        let limits = Limits::new(rates, keys);
        Self {
            open: std::sync::atomic::AtomicBool::new(limits.is_open()),
            limits: RwLock::new(Arc::new(limits)),
            streams: Arc::default(),
        }
    }

    /// A place for one more stream of `caller`, or toncenter's refusal.
    pub fn open_stream(&self, caller: &StreamCaller) -> Result<StreamSlot, String> {
        let limits = self.current();
        let (holder, cap) = match &caller.key {
            Some(k) => (
                Holder::Key(k.clone()),
                limits.stream_caps.get(k).map_or(0, |c| c.0),
            ),
            None => (Holder::Peer(caller.peer), limits.anonymous_streams),
        };
        let mut open = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(holder.clone()).or_default();
        if cap != 0 && *n >= cap {
            return Err(format!(
                "connection limit reached: {cap} active connections"
            ));
        }
        *n += 1;
        Ok(StreamSlot {
            open: Arc::clone(&self.streams),
            holder,
        })
    }

    /// The addresses one subscription of `caller` may name, if its key caps them.
    pub fn stream_addresses(&self, caller: &StreamCaller) -> Option<usize> {
        let key = caller.key.as_ref()?;
        let cap = self.current().stream_caps.get(key)?.1;
        (cap != 0).then_some(cap as usize)
    }

    /// Puts new keys and rates in force (their buckets start full).
    pub fn reload(&self, rates: &RateLimitConfig, keys: &[ApiKey]) {
        let new = Arc::new(Limits::new(rates, keys));
        let open = new.is_open();
        if let Ok(mut l) = self.limits.write() {
            *l = new;
            self.open.store(open, std::sync::atomic::Ordering::Release);
        }
    }

    /// No keys and no rates in force: nothing to check.
    pub fn is_open(&self) -> bool {
        self.open.load(std::sync::atomic::Ordering::Acquire)
    }

    fn current(&self) -> Arc<Limits> {
        self.limits
            .read()
            .map(|l| Arc::clone(&l))
            .unwrap_or_default()
    }

    /// Decides a request of `cost` calls to API v2 (`v2`) or v3.
    pub fn check(&self, v2: bool, key: Option<&str>, peer: IpAddr, cost: u32) -> Decision {
        let limits = self.current();
        let cost = NonZeroU32::new(cost.max(1)).expect("at least 1");
        let verdict = match key {
            Some(key) => match limits.keys.get(key) {
                None => return Decision::UnknownKey,
                Some(None) => return Decision::Allow,
                Some(Some(limiter)) => limiter.check_n(cost),
            },
            None => {
                let limiter = if v2 {
                    &limits.anonymous_v2
                } else {
                    &limits.anonymous_v3
                };
                match limiter {
                    None => return Decision::Allow,
                    Some(l) => l.check_key_n(&peer, cost),
                }
            }
        };
        match verdict {
            Ok(Ok(())) => Decision::Allow,
            Ok(Err(not_until)) => {
                Decision::Limited(not_until.wait_time_from(DefaultClock::default().now()))
            }
            // More calls in one batch than the rate allows in a second.
            Err(_) => Decision::Limited(Duration::from_secs(1)),
        }
    }
}

/// The key a request carries: the `X-API-Key` header, else an
/// `Authorization: Bearer` one (TonAPI's clients), else the `api_key`
/// (toncenter) or `token` (TonAPI) query parameter.
fn request_key(req: &Request) -> Option<String> {
    if let Some(v) = req.headers().get("x-api-key") {
        return v.to_str().ok().map(str::to_string);
    }
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if let Some(key) = bearer {
        return Some(key.trim().to_string());
    }
    let query = req.uri().query()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "api_key" || k == "token")
        .map(|(_, v)| v.into_owned())
}

/// Keys and rates of `/api/v2/*` and `/api/v3/*`: the request back when it
/// may run, else the answer (401, 429). Bodies must already be read whole.
pub async fn admit(limits: &RateLimits, req: Request) -> Result<Request, Response> {
    let path = req.uri().path();
    let v2 = is_v2_path(path);
    // The API docs are not calls: no key or rate applies to them.
    // A stream is one call when it opens.
    let called = v2
        || path.starts_with("/api/v3")
        || path.starts_with("/api/streaming/v2/")
        || path.starts_with("/api/emulate/");
    if limits.is_open() || !called || super::openapi::is_docs_path(path) {
        return Ok(req);
    }
    let streaming = path.starts_with("/api/streaming/");
    let key = request_key(&req);
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    // One request, one token: the JSON-RPC endpoint takes one call a
    // request (toncenter refuses batches, and so do we, with a 422), so a
    // refused batch costs what any refused request does.
    match limits.check(v2, key.as_deref(), peer, 1) {
        Decision::Allow if streaming => {
            let mut req = req;
            req.extensions_mut().insert(StreamCaller { key, peer });
            Ok(req)
        }
        Decision::Allow => Ok(req),
        Decision::UnknownKey => Err(api_error(
            v2,
            StatusCode::UNAUTHORIZED,
            "API key does not exist",
        )),
        Decision::Limited(wait) => {
            let mut resp = api_error(v2, StatusCode::TOO_MANY_REQUESTS, "Ratelimit exceeded");
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            if let Ok(v) = HeaderValue::from_str(&secs.max(1).to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            Err(resp)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    #[test]
    fn keys_rates_and_batches() {
        let limits = RateLimits::new(
            &RateLimitConfig {
                anonymous_v2_rps: 1,
                anonymous_v3_rps: 0,
                anonymous_streams: 0,
            },
            &[
                ApiKey {
                    key: "ten".into(),
                    rps: 10,
                    streams: 0,
                    stream_addresses: 0,
                },
                ApiKey {
                    key: "free".into(),
                    rps: 0,
                    streams: 0,
                    stream_addresses: 0,
                },
            ],
        );
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let b = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(limits.check(true, Some("nope"), a, 1), Decision::UnknownKey);
        // Anonymous v2: one a second per address; v3 unlimited.
        assert_eq!(limits.check(true, None, a, 1), Decision::Allow);
        assert!(matches!(
            limits.check(true, None, a, 1),
            Decision::Limited(_)
        ));
        assert_eq!(limits.check(true, None, b, 1), Decision::Allow);
        for _ in 0..100 {
            assert_eq!(limits.check(false, None, a, 1), Decision::Allow);
        }
        // A key: ten a second (a check may take several tokens at once).
        assert_eq!(limits.check(true, Some("ten"), a, 8), Decision::Allow);
        assert_eq!(limits.check(true, Some("ten"), a, 2), Decision::Allow);
        assert!(matches!(
            limits.check(true, Some("ten"), a, 1),
            Decision::Limited(_)
        ));
        assert!(matches!(
            limits.check(true, Some("ten"), b, 11),
            Decision::Limited(_)
        ));
        for _ in 0..100 {
            assert_eq!(limits.check(true, Some("free"), a, 5), Decision::Allow);
        }
        // A reload swaps keys: the old one is unknown now.
        limits.reload(
            &RateLimitConfig::default(),
            &[ApiKey {
                key: "new".into(),
                rps: 0,
                streams: 0,
                stream_addresses: 0,
            }],
        );
        assert_eq!(limits.check(true, Some("ten"), a, 1), Decision::UnknownKey);
        assert_eq!(limits.check(true, Some("new"), a, 1), Decision::Allow);
        assert_eq!(limits.check(true, None, a, 1), Decision::Allow);
    }

    #[test]
    fn streams_are_capped_per_key_and_per_anonymous_client() {
        let limits = RateLimits::new(
            &RateLimitConfig {
                anonymous_streams: 1,
                ..RateLimitConfig::default()
            },
            &[ApiKey {
                key: "two".into(),
                rps: 0,
                streams: 2,
                stream_addresses: 3,
            }],
        );
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let b = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        let keyed = |peer| StreamCaller {
            key: Some("two".into()),
            peer,
        };
        let anonymous = |peer| StreamCaller { key: None, peer };
        let first = limits.open_stream(&keyed(a)).unwrap();
        let _second = limits.open_stream(&keyed(b)).unwrap();
        assert_eq!(
            limits.open_stream(&keyed(a)).err().unwrap(),
            "connection limit reached: 2 active connections"
        );
        drop(first);
        let _third = limits.open_stream(&keyed(a)).unwrap();
        let _one = limits.open_stream(&anonymous(a)).unwrap();
        assert!(limits.open_stream(&anonymous(a)).is_err());
        let _other = limits.open_stream(&anonymous(b)).unwrap();
        assert_eq!(limits.stream_addresses(&keyed(a)), Some(3));
        assert_eq!(limits.stream_addresses(&anonymous(a)), None);
    }

    /// toncenter's header and query parameter, TonAPI's Bearer and `token`.
    #[test]
    fn a_key_comes_in_any_of_the_clients_places() {
        let key = |uri: &str, header: Option<(&str, &str)>| {
            let mut b = Request::builder().uri(uri);
            if let Some((name, value)) = header {
                b = b.header(name, value);
            }
            request_key(&b.body(Body::empty()).unwrap())
        };
        let some = Some("k1".to_string());
        assert_eq!(key("/api/v3/x", Some(("X-API-Key", "k1"))), some);
        assert_eq!(
            key("/api/streaming/v2/ws", Some(("authorization", "Bearer k1"))),
            some
        );
        assert_eq!(key("/api/streaming/v2/ws?token=k1", None), some);
        assert_eq!(key("/api/v2/x?api_key=k1", None), some);
        assert_eq!(
            key("/api/v2/x?other=k1", Some(("authorization", "Basic k1"))),
            None
        );
    }
}
