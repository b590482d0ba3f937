//! One off-chain document over HTTP(S), within the limits an operator set:
//! a time budget, a size cap, a few redirects, and — unless allowed — no
//! address of the host itself or its private networks (a TEP-64 `uri` is
//! chosen by whoever deployed the contract, so it must not reach what only
//! the box can reach).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use super::OffchainConfig;

/// What fetching one URL gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Fetched {
    /// A JSON document (any JSON value; the caller decides what it needs).
    Json(serde_json::Value),
    /// An answer that will not change by asking again soon: a 4xx, a body
    /// that is not JSON, one over the size cap, a refused address.
    Invalid(String),
    /// Worth trying again later: a timeout, a refused connection, a 5xx.
    Failed(String),
}

/// The HTTP client with the operator's limits.
pub struct Fetcher {
    client: reqwest::Client,
    max_bytes: usize,
    allow_private: bool,
}

/// The most redirects one fetch follows.
const MAX_REDIRECTS: usize = 5;

impl Fetcher {
    pub fn new(cfg: &OffchainConfig) -> Result<Self, reqwest::Error> {
        let allow_private = cfg.allow_private_addresses;
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                attempt.error("too many redirects")
            } else if !allow_private && literal_private(attempt.url()) {
                attempt.error("redirect to a private address")
            } else if !matches!(attempt.url().scheme(), "http" | "https") {
                attempt.error("redirect to another scheme")
            } else {
                attempt.follow()
            }
        });
        let mut builder = reqwest::Client::builder()
            .timeout(Duration::from_millis(cfg.timeout_ms))
            .connect_timeout(Duration::from_millis(cfg.timeout_ms))
            .redirect(redirects)
            .user_agent(concat!("tonindex/", env!("CARGO_PKG_VERSION")));
        if !allow_private {
            builder = builder.dns_resolver(Arc::new(PublicOnly));
        }
        Ok(Self {
            client: builder.build()?,
            max_bytes: cfg.max_bytes,
            allow_private,
        })
    }

    /// Fetches `url` (http or https) as JSON.
    pub async fn json(&self, url: &str) -> Fetched {
        let parsed = match reqwest::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => u,
            Ok(u) => return Fetched::Invalid(format!("scheme {} is not fetched", u.scheme())),
            Err(e) => return Fetched::Invalid(format!("not a URL: {e}")),
        };
        if !self.allow_private && literal_private(&parsed) {
            return Fetched::Invalid("a private address".into());
        }
        let mut resp = match self.client.get(parsed).send().await {
            Ok(r) => r,
            // A resolver or redirect refusal is as final as a 4xx.
            Err(e) if e.is_redirect() || is_refused(&e) => {
                return Fetched::Invalid(error_chain(&e))
            }
            Err(e) => return Fetched::Failed(error_chain(&e)),
        };
        let status = resp.status();
        if status.is_server_error() || status.as_u16() == 429 {
            return Fetched::Failed(format!("HTTP {status}"));
        }
        if !status.is_success() {
            return Fetched::Invalid(format!("HTTP {status}"));
        }
        if resp
            .content_length()
            .is_some_and(|n| n > self.max_bytes as u64)
        {
            return Fetched::Invalid(format!("over {} bytes", self.max_bytes));
        }
        let mut body = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    if body.len() + c.len() > self.max_bytes {
                        return Fetched::Invalid(format!("over {} bytes", self.max_bytes));
                    }
                    body.extend_from_slice(&c);
                }
                Ok(None) => break,
                Err(e) => return Fetched::Failed(error_chain(&e)),
            }
        }
        match serde_json::from_slice(&body) {
            Ok(v) => Fetched::Json(v),
            Err(e) => Fetched::Invalid(format!("not JSON: {e}")),
        }
    }
}

/// An error with its causes, for the log.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Whether the resolver refused the host (only private addresses).
fn is_refused(e: &reqwest::Error) -> bool {
    error_chain(e).contains(REFUSED)
}

const REFUSED: &str = "resolves only to private addresses";

/// Whether `url`'s host is an IP literal the fetcher must not reach.
fn literal_private(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return true;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => private(ip),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// Addresses of the host itself, private and shared networks, and other
/// ranges no public document lives at.
pub fn private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => private_v4(a),
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return private_v4(v4);
            }
            let first = a.segments()[0];
            a.is_loopback()
                || a.is_unspecified()
                || a.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        }
    }
}

fn private_v4(a: Ipv4Addr) -> bool {
    let [b0, b1, ..] = a.octets();
    a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_broadcast()
        || a.is_multicast()
        || a.is_documentation()
        || b0 == 0
        || (b0 == 100 && (64..128).contains(&b1)) // shared address space 100.64/10
        || (b0 == 198 && (b1 == 18 || b1 == 19)) // benchmarking 198.18/15
        || b0 >= 240 // reserved
}

/// A resolver that answers only the public addresses of a name.
struct PublicOnly;

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| !private(a.ip()))
                .collect();
            if found.is_empty() {
                return Err(format!("{host} {REFUSED}").into());
            }
            let addrs: reqwest::dns::Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_ranges_are_refused_and_public_ones_not() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(private(a.parse().unwrap()), "{a}");
        }
        for a in ["1.1.1.1", "8.8.8.8", "2606:4700::1111", "::ffff:1.1.1.1"] {
            assert!(!private(a.parse().unwrap()), "{a}");
        }
    }

    fn config(allow_private: bool) -> OffchainConfig {
        OffchainConfig {
            enabled: true,
            allow_private_addresses: allow_private,
            timeout_ms: 500,
            max_bytes: 64,
            ..Default::default()
        }
    }

    /// A local server that counts connections and answers each request
    /// with `reply` (or never, when `None`).
    async fn server(reply: Option<&'static str>) -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf).await;
                    match reply {
                        Some(body) => {
                            let head = format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                                body.len()
                            );
                            let _ = s.write_all(head.as_bytes()).await;
                            let _ = s.write_all(body.as_bytes()).await;
                        }
                        None => tokio::time::sleep(Duration::from_secs(30)).await,
                    }
                });
            }
        });
        (port, seen)
    }

    /// Refused hosts are refused before any connection; allowed, the same
    /// server answers, within the size cap and the time budget.
    #[tokio::test]
    async fn limits_hold_against_a_local_server() {
        use std::sync::atomic::Ordering::SeqCst;
        let (port, seen) = server(Some(r#"{"name":"ok"}"#)).await;
        let url = format!("http://127.0.0.1:{port}/m.json");
        let public_only = Fetcher::new(&config(false)).unwrap();
        assert!(matches!(public_only.json(&url).await, Fetched::Invalid(_)));
        let by_name = format!("http://localhost:{port}/m.json");
        assert!(matches!(
            public_only.json(&by_name).await,
            Fetched::Invalid(_)
        ));
        assert_eq!(seen.load(SeqCst), 0, "no connection to a refused host");
        let local = Fetcher::new(&config(true)).unwrap();
        assert_eq!(
            local.json(&url).await,
            Fetched::Json(serde_json::json!({"name": "ok"}))
        );
        assert_eq!(seen.load(SeqCst), 1);

        let (port, _) = server(Some(
            r#"{"name":"this document is longer than sixty-four bytes, the cap"}"#,
        ))
        .await;
        let big = local.json(&format!("http://127.0.0.1:{port}/")).await;
        assert!(
            matches!(big, Fetched::Invalid(ref why) if why.contains("over 64 bytes")),
            "{big:?}"
        );

        let (port, _) = server(None).await;
        let started = std::time::Instant::now();
        let silent = local.json(&format!("http://127.0.0.1:{port}/")).await;
        assert!(matches!(silent, Fetched::Failed(_)), "{silent:?}");
        assert!(started.elapsed() < Duration::from_secs(5));

        assert!(matches!(
            local.json("file:///etc/passwd").await,
            Fetched::Invalid(_)
        ));
    }

    #[test]
    fn literal_hosts_are_checked_before_any_connection() {
        let u = |s: &str| reqwest::Url::parse(s).unwrap();
        assert!(literal_private(&u("http://127.0.0.1:8080/x.json")));
        assert!(literal_private(&u("http://[::1]/x")));
        assert!(literal_private(&u("http://localhost/x")));
        assert!(!literal_private(&u("https://example.org/x.json")));
        assert!(!literal_private(&u("https://1.1.1.1/x.json")));
    }
}
