//! Off-chain token data: the JSON a TEP-64 `uri` points at, and the claims
//! a mintless-airdrop Jetton's custom payload API holds per owner.
//!
//! Neither is chain data, so neither goes through the index or its
//! database: the API asks for a document when an answer needs it (as
//! toncenter queues a `fetch_metadata` task), shows it as not indexed yet,
//! and a fetcher on its own thread fetches it within the operator's limits
//! into a cache in memory bounded by bytes. Off by default (`[serve.
//! offchain_metadata] enabled`): fetching URLs chosen by contract deployers
//! is the operator's call. A restart starts with an empty cache.

pub mod fetch;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use tokio::sync::mpsc;

use fetch::{Fetched, Fetcher};

/// `[serve.offchain_metadata]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OffchainConfig {
    /// Fetch off-chain content at all.
    pub enabled: bool,
    /// Time budget of one fetch (connect, redirects and body), ms.
    pub timeout_ms: u64,
    /// Largest document accepted, bytes.
    pub max_bytes: usize,
    /// Fetches running at once.
    pub concurrency: usize,
    /// Where `ipfs://CID/path` is fetched: this prefix + `CID/path`.
    pub ipfs_gateway: String,
    /// Let URIs reach loopback, private and link-local addresses (a local
    /// test server); off, such hosts are refused before any connection.
    pub allow_private_addresses: bool,
    /// A fetch that failed for a reason that may pass (timeout, 5xx) is
    /// tried again after this many seconds.
    pub retry_after_secs: u64,
    /// A fetched document is fetched again after this many seconds (served
    /// meanwhile, and kept when that fetch fails for a reason that may
    /// pass); 0 = never.
    pub refresh_after_secs: u64,
    /// Bytes of documents the cache holds at most (oldest out first).
    pub max_cached_bytes: usize,
}

impl Default for OffchainConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            timeout_ms: 5000,
            max_bytes: 1 << 20,
            concurrency: 8,
            ipfs_gateway: "https://ipfs.io/ipfs/".into(),
            allow_private_addresses: false,
            retry_after_secs: 600,
            refresh_after_secs: 86_400,
            max_cached_bytes: 64 << 20,
        }
    }
}

/// What the cache says of a URI.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The document.
    Ready(Arc<Json>),
    /// Fetched, and not a usable document (or not a fetchable URI).
    Invalid,
    /// Not fetched yet (now queued), or being fetched, or failed lately.
    Pending,
}

/// How many URIs may wait for the fetcher; past it a lookup stays pending
/// and is queued by a later request.
const QUEUE: usize = 4096;

/// The cache and the queue to the fetcher's thread.
pub struct Offchain {
    cfg: OffchainConfig,
    cache: Arc<Mutex<Cache>>,
    queue: mpsc::Sender<String>,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<String, Entry>,
    /// Insertion order of finished entries, for eviction.
    order: BTreeMap<u64, String>,
    next_seq: u64,
    bytes: usize,
}

struct Entry {
    outcome: Option<Outcome>,
    /// When the outcome was stored.
    at: Instant,
    seq: u64,
    bytes: usize,
    in_flight: bool,
}

#[derive(Clone)]
enum Outcome {
    Json(Arc<Json>),
    Invalid,
    Failed,
}

impl Offchain {
    /// The cache and its fetcher thread, if fetching is enabled.
    pub fn start(cfg: &OffchainConfig) -> Option<Arc<Self>> {
        if !cfg.enabled {
            return None;
        }
        let fetcher = match Fetcher::new(cfg) {
            Ok(f) => f,
            Err(e) => {
                tracing::error!("off-chain metadata fetching is off: {e}");
                return None;
            }
        };
        let (tx, rx) = mpsc::channel(QUEUE);
        let cache = Arc::new(Mutex::new(Cache::default()));
        let worker = Worker {
            fetcher: Arc::new(fetcher),
            cache: Arc::clone(&cache),
            max_cached_bytes: cfg.max_cached_bytes,
            concurrency: cfg.concurrency.max(1),
        };
        let spawned = std::thread::Builder::new()
            .name("tonindex-offchain".into())
            .spawn(move || {
                match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt.block_on(worker.run(rx)),
                    Err(e) => tracing::error!("off-chain fetcher: {e}"),
                }
            });
        if let Err(e) = spawned {
            tracing::error!("off-chain fetcher thread: {e}");
            return None;
        }
        Some(Arc::new(Self {
            cfg: cfg.clone(),
            cache,
            queue: tx,
        }))
    }

    /// The document at TEP-64 `uri` (http, https or ipfs), queuing a fetch
    /// when there is none yet or it is due again.
    pub fn lookup(&self, uri: &str) -> Lookup {
        match fetch_url(uri, &self.cfg.ipfs_gateway) {
            Some(url) => self.lookup_url(url),
            None => Lookup::Invalid,
        }
    }

    fn lookup_url(&self, url: String) -> Lookup {
        let now = Instant::now();
        let refresh = match self.cfg.refresh_after_secs {
            0 => None,
            s => Some(Duration::from_secs(s)),
        };
        let retry = Duration::from_secs(self.cfg.retry_after_secs);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let (answer, due) = match cache.entries.get(&url) {
            None => (Lookup::Pending, true),
            Some(e) => {
                let age = now.saturating_duration_since(e.at);
                match &e.outcome {
                    None => (Lookup::Pending, false),
                    Some(Outcome::Json(j)) => (
                        Lookup::Ready(Arc::clone(j)),
                        refresh.is_some_and(|r| age >= r),
                    ),
                    Some(Outcome::Invalid) => (Lookup::Invalid, refresh.is_some_and(|r| age >= r)),
                    Some(Outcome::Failed) => (Lookup::Pending, age >= retry),
                }
            }
        };
        let in_flight = cache.entries.get(&url).is_some_and(|e| e.in_flight);
        if due && !in_flight && self.queue.try_send(url.clone()).is_ok() {
            let seq = cache.next_seq;
            cache.next_seq += 1;
            let e = cache.entries.entry(url).or_insert(Entry {
                outcome: None,
                at: now,
                seq,
                bytes: 0,
                in_flight: false,
            });
            e.in_flight = true;
        }
        answer
    }
}

/// Fetches what is queued, a few at a time, into the cache.
struct Worker {
    fetcher: Arc<Fetcher>,
    cache: Arc<Mutex<Cache>>,
    max_cached_bytes: usize,
    concurrency: usize,
}

impl Worker {
    async fn run(self, mut rx: mpsc::Receiver<String>) {
        let slots = Arc::new(tokio::sync::Semaphore::new(self.concurrency));
        let this = Arc::new(self);
        while let Some(url) = rx.recv().await {
            let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                break;
            };
            let this = Arc::clone(&this);
            tokio::spawn(async move {
                let started = Instant::now();
                let fetched = this.fetcher.json(&url).await;
                let outcome = match &fetched {
                    Fetched::Json(_) => {
                        tracing::debug!(url, "off-chain document fetched");
                        "json"
                    }
                    Fetched::Invalid(why) => {
                        tracing::info!(url, why, "off-chain document refused");
                        "invalid"
                    }
                    Fetched::Failed(why) => {
                        tracing::info!(url, why, "off-chain fetch failed");
                        "failed"
                    }
                };
                metrics::counter!("tonindex_offchain_fetches_total", "outcome" => outcome)
                    .increment(1);
                metrics::histogram!("tonindex_offchain_fetch_seconds")
                    .record(started.elapsed().as_secs_f64());
                this.store(url, fetched);
                drop(slot);
            });
        }
    }

    fn store(&self, url: String, fetched: Fetched) {
        let (outcome, bytes) = match fetched {
            Fetched::Json(j) => {
                // The document's size as held, about its text's length.
                let bytes = serde_json::to_vec(&j).map_or(0, |v| v.len()) + url.len();
                (Outcome::Json(Arc::new(j)), bytes)
            }
            Fetched::Invalid(_) => (Outcome::Invalid, url.len()),
            Fetched::Failed(_) => (Outcome::Failed, url.len()),
        };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let cache = &mut *cache;
        // A document over the whole budget is not held (it stays pending,
        // retried like a failure).
        let (outcome, bytes) = if bytes > self.max_cached_bytes {
            (Outcome::Failed, url.len())
        } else {
            (outcome, bytes)
        };
        // A refresh that failed for a reason that may pass keeps the
        // document it was to replace (fetched again after another period).
        let (outcome, bytes) = match (&outcome, cache.entries.get(&url)) {
            (
                Outcome::Failed,
                Some(Entry {
                    outcome: Some(Outcome::Json(old)),
                    bytes: old_bytes,
                    ..
                }),
            ) => (Outcome::Json(Arc::clone(old)), *old_bytes),
            _ => (outcome, bytes),
        };
        let seq = cache.next_seq;
        cache.next_seq += 1;
        if let Some(old) = cache.entries.remove(&url) {
            cache.order.remove(&old.seq);
            cache.bytes -= old.bytes;
        }
        cache.order.insert(seq, url.clone());
        cache.bytes += bytes;
        cache.entries.insert(
            url,
            Entry {
                outcome: Some(outcome),
                at: Instant::now(),
                seq,
                bytes,
                in_flight: false,
            },
        );
        while cache.bytes > self.max_cached_bytes {
            let Some((_, oldest)) = cache.order.pop_first() else {
                break;
            };
            if let Some(e) = cache.entries.remove(&oldest) {
                cache.bytes -= e.bytes;
            }
        }
        metrics::gauge!("tonindex_offchain_cache_bytes").set(cache.bytes as f64);
    }
}

/// The URL a TEP-64 `uri` is fetched at: http(s) as it is, `ipfs://` through
/// the gateway; `None` for anything else.
pub fn fetch_url(uri: &str, ipfs_gateway: &str) -> Option<String> {
    let uri = uri.trim();
    if let Some(rest) = uri.strip_prefix("ipfs://") {
        let rest = rest.strip_prefix("ipfs/").unwrap_or(rest);
        if rest.is_empty() {
            return None;
        }
        return Some(format!("{ipfs_gateway}{rest}"));
    }
    let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| uri.to_string())
}

/// What a mintless-airdrop Jetton's custom payload API says of one owner
/// (`compressed_info` of `GET {api}/wallet/{owner}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MintlessClaim {
    pub amount: u128,
    pub start_from: u64,
    pub expire_at: u64,
}

/// The custom payload API roots a Jetton's metadata names
/// (`custom_payload_api_uri`: one string or a list of them).
pub fn custom_payload_apis(metadata: &Json) -> Vec<String> {
    match metadata.get("custom_payload_api_uri") {
        Some(Json::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(Json::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// The URL of one owner's claim under a custom payload API root.
pub fn claim_url(api: &str, owner_raw: &str) -> String {
    format!("{}/wallet/{owner_raw}", api.trim_end_matches('/'))
}

/// The claim in a custom payload API answer, if it has one.
pub fn mintless_claim(answer: &Json) -> Option<MintlessClaim> {
    let info = answer.get("compressed_info")?;
    let num = |k: &str| -> Option<u128> {
        match info.get(k)? {
            Json::String(s) => s.parse().ok(),
            Json::Number(n) => n.as_u64().map(u128::from),
            _ => None,
        }
    };
    Some(MintlessClaim {
        amount: num("amount")?,
        start_from: u64::try_from(num("start_from")?).ok()?,
        expire_at: u64::try_from(num("expired_at").or_else(|| num("expire_at"))?).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn uris_become_fetch_urls() {
        let gw = "https://gw.example/ipfs/";
        assert_eq!(
            fetch_url("https://a.example/m.json", gw).as_deref(),
            Some("https://a.example/m.json")
        );
        assert_eq!(
            fetch_url("ipfs://QmX/1.json", gw).as_deref(),
            Some("https://gw.example/ipfs/QmX/1.json")
        );
        assert_eq!(
            fetch_url("ipfs://ipfs/QmX", gw).as_deref(),
            Some("https://gw.example/ipfs/QmX")
        );
        for bad in [
            "file:///etc/passwd",
            "ftp://x/y",
            "data:,{}",
            "ipfs://",
            "m.json",
        ] {
            assert_eq!(fetch_url(bad, gw), None, "{bad}");
        }
    }

    #[test]
    fn claims_read_both_number_forms() {
        let a = json!({"compressed_info": {"amount": "1000", "start_from": "1700000000", "expired_at": 1800000000}});
        assert_eq!(
            mintless_claim(&a),
            Some(MintlessClaim {
                amount: 1000,
                start_from: 1_700_000_000,
                expire_at: 1_800_000_000
            })
        );
        assert_eq!(mintless_claim(&json!({"error": "not found"})), None);
        assert_eq!(
            custom_payload_apis(&json!({"custom_payload_api_uri": "https://x/api"})),
            ["https://x/api"]
        );
        assert_eq!(
            custom_payload_apis(&json!({"custom_payload_api_uri": ["https://x", 5, ""]})),
            ["https://x"]
        );
        assert_eq!(
            claim_url("https://x/api/", "0:AB"),
            "https://x/api/wallet/0:AB"
        );
    }

    /// A cache with a small budget evicts its oldest documents and keeps
    /// its byte count right.
    #[test]
    fn the_cache_is_bounded_by_bytes() {
        let cfg = OffchainConfig {
            enabled: true,
            allow_private_addresses: true,
            ..Default::default()
        };
        let worker = Worker {
            fetcher: Arc::new(Fetcher::new(&cfg).unwrap()),
            cache: Arc::new(Mutex::new(Cache::default())),
            max_cached_bytes: 200,
            concurrency: 1,
        };
        let doc = json!({"name": "x".repeat(40)});
        for i in 0..10 {
            worker.store(format!("http://h/{i}"), Fetched::Json(doc.clone()));
        }
        let cache = worker.cache.lock().unwrap();
        assert!(cache.bytes <= 200, "{}", cache.bytes);
        assert!(cache.entries.contains_key("http://h/9"));
        assert!(!cache.entries.contains_key("http://h/0"));
        let sum: usize = cache.entries.values().map(|e| e.bytes).sum();
        assert_eq!(sum, cache.bytes);
        assert_eq!(cache.order.len(), cache.entries.len());
    }

    /// A refresh that fails for a passing reason keeps the document; one
    /// that finds it gone (a 4xx, not JSON) drops it.
    #[test]
    fn a_failed_refresh_keeps_the_document() {
        let cfg = OffchainConfig {
            enabled: true,
            ..Default::default()
        };
        let worker = Worker {
            fetcher: Arc::new(Fetcher::new(&cfg).unwrap()),
            cache: Arc::new(Mutex::new(Cache::default())),
            max_cached_bytes: 1 << 20,
            concurrency: 1,
        };
        let url = "https://h/m.json".to_string();
        let doc = json!({"name": "kept"});
        let held = |w: &Worker| {
            let cache = w.cache.lock().unwrap();
            let sum: usize = cache.entries.values().map(|e| e.bytes).sum();
            assert_eq!(sum, cache.bytes);
            match cache.entries.get(&url).and_then(|e| e.outcome.clone()) {
                Some(Outcome::Json(j)) => Some((*j).clone()),
                _ => None,
            }
        };
        worker.store(url.clone(), Fetched::Json(doc.clone()));
        worker.store(url.clone(), Fetched::Failed("timeout".into()));
        assert_eq!(held(&worker), Some(doc));
        worker.store(url.clone(), Fetched::Invalid("HTTP 404".into()));
        assert_eq!(held(&worker), None);
    }
}
