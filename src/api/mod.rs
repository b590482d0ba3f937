//! The HTTP API: toncenter v2 under `/api/v2`, v3 under `/api/v3`, served by
//! one axum router over the index. The API only reads: every request runs on
//! one storage [`Reader`] (one consistent state) under the request's
//! deadline; reads too big for the async worker queue for a bounded number
//! of slots on the blocking pool.

pub mod account_state;
pub mod admission;

pub mod cors;
pub mod dev;
pub mod emulate_v1;
pub mod encoding;
pub mod external_message;
pub mod fees;
pub mod getmethod;
pub mod guard;
pub mod limits;
pub mod lite;
pub mod openapi;
pub mod params;
pub mod pending;
pub mod request;
pub mod request_metrics;
pub mod response;
pub mod server;
pub mod streaming;
pub mod v2;
pub mod v3;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use tonindex_storage::{Db, Reader};

use crate::chain::link::ChainLink;

/// `X-API-Version` of v2: minor 2 = this Rust implementation (0 was Python, 1 C++).
pub const V2_API_VERSION: &str = "2.2.0";
/// `X-API-Version` of v3: the toncenter v3 schema version whose wire format we follow.
pub const V3_API_VERSION: &str = "1.2.10";

/// API settings (the `[serve]` section of the config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiConfig {
    /// Address to listen on.
    pub listen: String,
    /// `limit` when a request gives none (v3 lists).
    pub default_limit: u32,
    /// Largest `limit` accepted (v3 lists, v2 getTransactions).
    pub max_limit: u32,
    /// Per-request time budget in milliseconds.
    pub request_timeout_ms: u64,
    /// Wall time one get-method run may take, in milliseconds (at most
    /// `request_timeout_ms`, so that the caller hears why it stopped).
    pub getmethod_time_limit_ms: u64,
    /// How often the server picks up what a concurrent import committed, in milliseconds.
    pub catch_up_interval_ms: u64,
    /// Write user-friendly addresses with the testnet flag.
    pub testnet: bool,
    /// The network's zero state, reported by v2 `getMasterchainInfo` as `init`.
    pub zerostate: ZeroState,
    /// Open client connections at most; one more is answered 503 and closed.
    /// Lowered at start-up when the open-file limit cannot hold this many
    /// beside what RocksDB keeps open.
    pub max_connections: usize,
    /// A connection with no request running that has not completed a
    /// request head for this long (milliseconds) is closed: slow headers,
    /// idle keep-alive, an answer the client does not read.
    pub header_timeout_ms: u64,
    /// Time a client has to send a request's body, in milliseconds (408).
    pub body_timeout_ms: u64,
    /// Largest request body, in bytes (413).
    pub max_body_bytes: usize,
    /// Reads that run on the blocking pool at once (those too big for the
    /// async worker, and every get-method); 0 = two per core.
    pub max_concurrent_reads: usize,
    /// Reads that may wait for one of those slots; one more is answered 503.
    pub max_queued_reads: usize,
    /// Largest response body one request may build, in bytes; past it the
    /// request is answered 503 and asked for a smaller page.
    pub max_response_bytes: usize,
    /// Cross-origin requests from browsers.
    #[serde(default)]
    pub cors: cors::CorsConfig,
    /// `/healthcheck` answers 503 when the newest indexed masterchain block
    /// is older than this many seconds (a follower or chain that stopped);
    /// 0 = never (an index of history is old by nature).
    #[serde(default)]
    pub max_block_age_secs: u64,
    /// `/healthcheck` answers 503 while the index is more than this many
    /// masterchain blocks behind the newest its lite servers show (a
    /// replica still catching up, as after a restore); 0 = never. Only
    /// where the node follows lite servers (`tonindex run`).
    #[serde(default)]
    pub max_lag_blocks: u32,
    /// Anonymous request rates per API.
    #[serde(default)]
    pub rate_limit: limits::RateLimitConfig,
    /// API keys and their rates; any key given must be one of them.
    #[serde(default)]
    pub api_keys: Vec<limits::ApiKey>,
    /// Fetching the off-chain content of tokens (off by default).
    #[serde(default)]
    pub offchain_metadata: crate::offchain::OffchainConfig,
}

/// Hashes of the masterchain zero state (from the network's global config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZeroState {
    pub root_hash: String,
    pub file_hash: String,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8081".into(),
            default_limit: 100,
            max_limit: 1000,
            request_timeout_ms: 3000,
            getmethod_time_limit_ms: 1000,
            catch_up_interval_ms: 1000,
            testnet: false,
            // TON mainnet (global config `validator.zero_state`).
            zerostate: ZeroState {
                root_hash: "F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=".into(),
                file_hash: "XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24=".into(),
            },
            max_connections: 1024,
            header_timeout_ms: 10_000,
            body_timeout_ms: 10_000,
            // The C++ server's limit.
            max_body_bytes: 1 << 20,
            max_concurrent_reads: 0,
            max_queued_reads: 256,
            max_response_bytes: 64 << 20,
            cors: cors::CorsConfig::default(),
            max_block_age_secs: 0,
            max_lag_blocks: 0,
            rate_limit: limits::RateLimitConfig::default(),
            api_keys: Vec::new(),
            offchain_metadata: crate::offchain::OffchainConfig::default(),
        }
    }
}

/// What every request reads through: one consistent view and the settings.
pub struct Ctx<'a> {
    pub reader: Reader<'a>,
    pub cfg: &'a ApiConfig,
    /// Slots bounding concurrent TVM runs, and the decoded config they use.
    pub tvm: &'a getmethod::Tvm,
    /// The chain this process runs (`tonindex dev`) or follows (`tonindex
    /// run`), if any: where sent messages go, and where account states the
    /// index does not hold are asked for.
    pub chain: Option<&'a dyn ChainLink>,
    /// Emulated traces of sent messages, where the chain emulates them.
    pub pending: Option<&'a pending::PendingTraces>,
    /// Off-chain token content, where fetching it is enabled.
    pub offchain: Option<&'a crate::offchain::Offchain>,
}

/// The shared state of the server.
pub struct Api {
    db: Arc<Db>,
    cfg: ApiConfig,
    tvm: getmethod::Tvm,
    heavy: admission::Admission,
    /// The threads big reads run on, one per admission slot, at a lower
    /// priority than the async workers: a flood of big pages must not
    /// starve accepting connections, health checks and point lookups.
    reads: rayon::ThreadPool,
    /// Deadlines, admission, body and response limits in force (always,
    /// except in `bench-serve`'s measurement of what they cost).
    guards: bool,
    /// The chain this process runs, if any.
    chain: Option<Arc<dyn ChainLink>>,
    /// Emulated traces of the messages sent through this API.
    pending: Option<Arc<pending::PendingTraces>>,
    /// API keys and rates in force (swapped on SIGHUP).
    limits: Arc<limits::RateLimits>,
    /// Off-chain token content and its fetcher, where enabled.
    offchain: Option<Arc<crate::offchain::Offchain>>,
    /// The clients of Streaming API v2.
    streams: Arc<streaming::hub::Hub>,
}

/// Why a read produced no answer.
#[derive(Debug)]
pub enum ReadFailure {
    /// The request's time budget ran out.
    TimedOut,
    /// Every slot for big reads is taken and the queue for them is full.
    Busy,
    /// The handler panicked (a bug); the message is logged.
    Crashed,
}

impl Api {
    pub fn new(db: Arc<Db>, cfg: ApiConfig) -> Arc<Self> {
        Self::build(db, cfg, true)
    }

    /// The API without its guards against hostile clients (no deadline in
    /// reads, no admission of big reads, no body or response limits, no
    /// keys or rates) and without request metrics: only for `bench-serve`,
    /// to measure what they cost. Big reads still run on the read pool.
    pub fn without_guards(db: Arc<Db>, cfg: ApiConfig) -> Arc<Self> {
        Self::build(db, cfg, false)
    }

    /// The API of `serve` over a database another process writes: the
    /// streams hear each masterchain block the catch-up (every `every`)
    /// finds complete.
    pub fn following(db: Arc<Db>, cfg: ApiConfig, every: Duration) -> Arc<Self> {
        let api = Self::build(db, cfg, true);
        let mut api = Arc::try_unwrap(api).unwrap_or_else(|_| unreachable!("just built"));
        api.streams = Arc::new(streaming::hub::Hub::new(true));
        let api = Arc::new(api);
        streaming::hub::spawn_catching_up(Arc::downgrade(&api), every);
        api
    }

    /// The API over a database whose writer in this process announces its
    /// commits on `feed`, without a chain to send to: the streams follow
    /// the feed (`bench-dev --subscribers`).
    pub fn with_commit_feed(
        db: Arc<Db>,
        cfg: ApiConfig,
        feed: &crate::ingest::CommitFeed,
    ) -> Arc<Self> {
        let api = Self::build(db, cfg, true);
        let mut api = Arc::try_unwrap(api).unwrap_or_else(|_| unreachable!("just built"));
        api.streams = Arc::new(streaming::hub::Hub::new(true));
        let api = Arc::new(api);
        streaming::hub::spawn(Arc::downgrade(&api), feed.subscribe());
        api
    }

    /// The chain this process runs, if any.
    pub fn chain(&self) -> Option<&dyn ChainLink> {
        self.chain.as_deref()
    }

    /// The API of a process that runs a chain: sends go to `chain`, and
    /// the devnet's `/dev/` routes answer when it has them.
    pub fn with_chain(db: Arc<Db>, cfg: ApiConfig, chain: Arc<dyn ChainLink>) -> Arc<Self> {
        let api = Self::build(db, cfg, true);
        let mut api = Arc::try_unwrap(api).unwrap_or_else(|_| unreachable!("just built"));
        if let Some(feed) = chain.commit_feed() {
            let pending = Arc::new(pending::PendingTraces::new(pending::PENDING_TTL));
            let store = Arc::clone(&pending);
            let mut commits = feed.subscribe();
            // Pending traces give way to the real ones as the index commits
            // them; those whose time is up are dropped even when nobody asks.
            tokio::spawn(async move {
                use tokio::sync::broadcast::error::RecvError;
                let mut sweep = tokio::time::interval(pending::SWEEP);
                loop {
                    tokio::select! {
                        c = commits.recv() => match c {
                            Ok(c) => store.evict(&c),
                            Err(RecvError::Lagged(_)) => {}
                            Err(RecvError::Closed) => break,
                        },
                        _ = sweep.tick() => store.expire(),
                    }
                }
            });
            // Where the chain announces shard-block traces before their
            // commit, they are kept at `confirmed` in place of emulated ones.
            if let Some(confirmed) = chain.confirmed_feed() {
                pending::spawn_confirmed(Arc::clone(&api.db), Arc::clone(&pending), confirmed);
            }
            api.pending = Some(pending);
        }
        let stream_commits = chain.commit_feed().map(|feed| feed.subscribe());
        let stream_pending = api
            .pending
            .as_ref()
            .map(|p| (p.subscribe_added(), p.subscribe_invalidated()));
        // Account states at `confirmed`, where the chain announces shard
        // blocks before their commit.
        let stream_confirmed = stream_commits.as_ref().and_then(|_| chain.confirmed_feed());
        if stream_commits.is_some() {
            api.streams = Arc::new(streaming::hub::Hub::new(true));
        }
        api.chain = Some(chain);
        let api = Arc::new(api);
        if let Some(commits) = stream_commits {
            streaming::hub::spawn(Arc::downgrade(&api), commits);
            if let Some((added, invalidated)) = stream_pending {
                streaming::hub::spawn_pending(Arc::downgrade(&api), added);
                streaming::hub::spawn_invalidated(Arc::downgrade(&api), invalidated);
            }
            if let Some(confirmed) = stream_confirmed {
                streaming::hub::spawn_confirmed_states(Arc::downgrade(&api), confirmed);
            }
        }
        api
    }

    fn build(db: Arc<Db>, cfg: ApiConfig, guards: bool) -> Arc<Self> {
        // One get-method per core: the rest of the read pool stays free for reads.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let concurrent = match cfg.max_concurrent_reads {
            0 => 2 * cores,
            n => n,
        };
        let heavy = admission::Admission::new(concurrent, cfg.max_queued_reads);
        let reads = rayon::ThreadPoolBuilder::new()
            .num_threads(concurrent.max(1))
            .thread_name(|i| format!("tonindex-read-{i}"))
            .start_handler(|_| crate::priority::lower_current_thread(READ_NICE))
            .build()
            .expect("the read thread pool starts");
        let limits = Arc::new(limits::RateLimits::new(&cfg.rate_limit, &cfg.api_keys));
        let offchain = crate::offchain::Offchain::start(&cfg.offchain_metadata);
        Arc::new(Self {
            db,
            cfg,
            tvm: getmethod::Tvm::new(cores),
            heavy,
            reads,
            guards,
            chain: None,
            pending: None,
            limits,
            offchain,
            streams: Arc::new(streaming::hub::Hub::new(false)),
        })
    }

    /// The clients of Streaming API v2.
    pub fn streams(&self) -> &Arc<streaming::hub::Hub> {
        &self.streams
    }

    /// Runs `f` on one reader on a blocking thread, without a deadline or
    /// admission: the server's own work (the streams' notifications), not
    /// a request's. `None` when `f` panicked (logged).
    pub async fn read_background<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&Ctx<'_>) -> T + Send + 'static,
    ) -> Option<T> {
        let api = Arc::clone(self);
        let run = tokio::task::spawn_blocking(move || {
            let ctx = Ctx {
                reader: api.db.reader(),
                cfg: &api.cfg,
                tvm: &api.tvm,
                chain: api.chain.as_deref(),
                pending: api.pending.as_deref(),
                offchain: api.offchain.as_deref(),
            };
            f(&ctx)
        });
        match run.await {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(error = %e, "a background read panicked");
                None
            }
        }
    }

    /// Runs `f` on one reader, within the request's time budget. First on
    /// the async worker with a small row budget: a point lookup or a short
    /// page costs less than handing it to another thread, so it answers
    /// there. Work that outgrows the budget (or asks for a TVM slot) is
    /// discarded and run again on the read pool, unbounded in rows.
    pub async fn read<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl Fn(&Ctx<'_>) -> T + Send + 'static,
    ) -> Result<T, ReadFailure> {
        self.read_with(false, f).await
    }

    /// [`Api::read`]; `big_input` skips the try on the async worker, for
    /// requests whose input alone is costly to parse (a large body).
    ///
    /// Off the async worker, a read first takes one of a bounded number of
    /// slots (waiting in a bounded queue, else [`ReadFailure::Busy`]), runs
    /// on the read pool, and holds its slot until it has really finished:
    /// its reader fails reads once the deadline has passed, so a read whose
    /// caller was told 504 stops within a few rows instead of running on
    /// with its CPU and memory.
    pub async fn read_with<T: Send + 'static>(
        self: &Arc<Self>,
        big_input: bool,
        f: impl Fn(&Ctx<'_>) -> T + Send + 'static,
    ) -> Result<T, ReadFailure> {
        let budget = Duration::from_millis(self.cfg.request_timeout_ms);
        let deadline = Instant::now() + budget;
        let read_deadline = self.guards.then_some(deadline);
        let max_response = if self.guards {
            self.cfg.max_response_bytes
        } else {
            usize::MAX
        };
        if !big_input {
            let ctx = Ctx {
                reader: self
                    .db
                    .reader_limited(Some(INLINE_ROW_BUDGET), read_deadline),
                cfg: &self.cfg,
                tvm: &self.tvm,
                chain: self.chain.as_deref(),
                pending: self.pending.as_deref(),
                offchain: self.offchain.as_deref(),
            };
            let run = || response::with_limit(max_response, || f(&ctx));
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                Ok(v) if !ctx.reader.over_budget() => return Ok(v),
                Ok(_) => {}
                Err(_) => {
                    tracing::error!("request handler panicked");
                    return Err(ReadFailure::Crashed);
                }
            }
        }
        let slot = if self.guards {
            match self.heavy.enter(deadline).await {
                Ok(slot) => Some(slot),
                Err(admission::Refused::QueueFull) => return Err(ReadFailure::Busy),
                Err(admission::Refused::TimedOut) => return Err(ReadFailure::TimedOut),
            }
        } else {
            None
        };
        let api = Arc::clone(self);
        let run = move || {
            let ctx = Ctx {
                reader: api.db.reader_limited(None, read_deadline),
                cfg: &api.cfg,
                tvm: &api.tvm,
                chain: api.chain.as_deref(),
                pending: api.pending.as_deref(),
                offchain: api.offchain.as_deref(),
            };
            response::with_limit(max_response, || f(&ctx))
        };
        // On the read pool, holding the slot (guarded) until the closure has
        // really returned. The unguarded API runs there too, so that
        // bench-serve's comparison is of the guards alone.
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.reads.spawn(move || {
            let _slot = slot;
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
            let _ = tx.send(out);
        });
        let result = match tokio::time::timeout_at(deadline.into(), rx).await {
            Err(_) => return Err(ReadFailure::TimedOut),
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(_))) | Ok(Err(_)) => Err("panicked".to_string()),
        };
        result.map_err(|e| {
            tracing::error!("request handler failed: {e}");
            ReadFailure::Crashed
        })
    }
}

/// A request body parsed as JSON; a large one on the blocking pool, so that
/// a 2 MB body does not hold an async worker for milliseconds.
pub(crate) async fn parse_json_body(body: axum::body::Bytes) -> Result<serde_json::Value, String> {
    if body.len() <= INLINE_BODY_BYTES {
        return serde_json::from_slice(&body).map_err(|e| e.to_string());
    }
    tokio::task::spawn_blocking(move || serde_json::from_slice(&body).map_err(|e| e.to_string()))
        .await
        .map_err(|e| format!("internal error: {e}"))?
}

/// How much lower than the async workers' the read pool's priority is
/// (Linux nice levels).
const READ_NICE: i32 = 5;

/// Request bodies larger than this are parsed off the async workers (a big
/// BoC or stack costs real CPU to parse): JSON on the blocking pool, the
/// handler on the read pool.
const INLINE_BODY_BYTES: usize = 16 << 10;

/// Rows a request may read on the async worker before it moves to the
/// blocking pool: a transaction with its messages and address book fits,
/// an account page of 100 does not.
const INLINE_ROW_BUDGET: u64 = 64;

/// The whole HTTP surface: `/healthcheck`, `/api/v2/*`, `/api/v3/*` (with
/// their OpenAPI documents and Swagger UI; `/` redirects to v3's).
/// Request bodies are read whole, within `serve.max_body_bytes` and
/// `serve.body_timeout_ms`, before any handler runs.
pub fn router(api: Arc<Api>) -> App {
    let guards = api.guards.then(|| guard::Guards {
        body: server::BodyLimits::from_config(&api.cfg),
        rates: Arc::clone(&api.limits),
    });
    if guards.is_some() {
        // Not in bench-serve's measurement of what the guards cost.
        crate::telemetry::handle();
    }
    let cors = api_cors(&api.cfg.cors);
    let routes = Router::new()
        .route("/", get(openapi::root_redirect))
        .route("/api/v2/", get(openapi::v2_root))
        .route("/healthcheck", get(healthcheck))
        .route("/metrics", get(request_metrics::metrics))
        .nest("/api/v2", v2::router())
        .nest("/api/v3", v3::router())
        .merge(streaming::router())
        .merge(emulate_v1::router())
        .nest("/dev", dev::router())
        .fallback(|| async { v3::V3Error::not_found("not found").into_response() })
        .with_state(api);
    let guarded = guard::Guarded::new(routes, guards);
    // Outermost: a preflight is answered before anything else runs, and
    // every answer (errors included) carries the headers.
    match cors {
        Some(layer) => App::Cors(tower_layer::Layer::layer(&layer, guarded)),
        None => App::Plain(guarded),
    }
}

/// The HTTP surface as one tower service ([`router`]): the routes, the
/// guards in front of all of them, CORS in front of everything — each
/// wrapping the whole router once, not each route.
// Not boxed: hyper's adapter clones the service for every request, and a
// box would add an allocation to each clone.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum App {
    Cors(tower_http::cors::Cors<guard::Guarded<Router>>),
    Plain(guard::Guarded<Router>),
}

type RouterFuture = <guard::Guarded<Router> as tower_service::Service<Request>>::Future;

pin_project_lite::pin_project! {
    /// An [`App`]'s answer.
    #[project = AppFutureProj]
    pub enum AppFuture {
        Cors { #[pin] inner: tower_http::cors::ResponseFuture<RouterFuture> },
        Plain { #[pin] inner: RouterFuture },
    }
}

impl std::future::Future for AppFuture {
    type Output = Result<Response, std::convert::Infallible>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        match self.project() {
            AppFutureProj::Cors { inner } => inner.poll(cx),
            AppFutureProj::Plain { inner } => inner.poll(cx),
        }
    }
}

impl<B> tower_service::Service<axum::http::Request<B>> for App
where
    B: axum::body::HttpBody<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = AppFuture;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        match self {
            App::Cors(s) => tower_service::Service::<Request>::poll_ready(s, cx),
            App::Plain(s) => tower_service::Service::<Request>::poll_ready(s, cx),
        }
    }

    fn call(&mut self, req: axum::http::Request<B>) -> AppFuture {
        let mut req = req.map(axum::body::Body::new);
        streaming::tonapi_path(&mut req);
        match self {
            App::Cors(s) => AppFuture::Cors { inner: s.call(req) },
            App::Plain(s) => AppFuture::Plain { inner: s.call(req) },
        }
    }
}

fn api_cors(cfg: &cors::CorsConfig) -> Option<tower_http::cors::CorsLayer> {
    cfg.layer()
}

/// `200 OK` while storage answers reads and (with
/// `serve.max_block_age_secs`) the newest indexed masterchain block is
/// recent enough; `503` saying which is not.
async fn healthcheck(axum::extract::State(api): axum::extract::State<Arc<Api>>) -> Response {
    let max_age = api.cfg.max_block_age_secs;
    let max_lag = api.cfg.max_lag_blocks;
    // The lite servers' newest masterchain block, as the node last saw it.
    let servers_tip = match (max_lag, api.chain()) {
        (0, _) | (_, None) => None,
        (_, Some(chain)) => chain.consensus_block(),
    };
    let checked = api
        .read(move |ctx| {
            ctx.reader
                .cursor()
                .map_err(|_| "storage unavailable".to_string())?;
            if max_age == 0 && servers_tip.is_none() {
                return Ok(None);
            }
            let newest = crate::query::blocks::mc_block_range(&ctx.reader)
                .map_err(|_| "storage unavailable".to_string())?
                .map(|(_, last)| last);
            let Some(newest) = newest else {
                return Err("no masterchain block is indexed".to_string());
            };
            let age = unix_now().saturating_sub(u64::from(newest.gen_utime));
            if max_age > 0 && age > max_age {
                return Err(format!(
                    "the newest indexed masterchain block ({}) is {age} s old, over \
                     serve.max_block_age_secs = {max_age}",
                    newest.id.id.seqno
                ));
            }
            let indexed = newest.id.id.seqno;
            match servers_tip {
                None => Ok(None),
                Some(Err(_)) => Err(format!(
                    "no lite server has answered yet: the lag behind them is unknown (indexed \
                     masterchain block {indexed})"
                )),
                Some(Ok(tip)) => {
                    let lag = tip.saturating_sub(indexed);
                    if lag > max_lag {
                        Err(format!(
                            "catching up: {lag} masterchain blocks behind the lite servers \
                             (indexed {indexed}, theirs {tip}), over serve.max_lag_blocks = \
                             {max_lag}"
                        ))
                    } else {
                        Ok(Some(format!(
                            "OK: {lag} masterchain blocks behind the lite servers (indexed \
                             {indexed}, theirs {tip})"
                        )))
                    }
                }
            }
        })
        .await;
    match checked {
        Ok(Ok(None)) => (StatusCode::OK, "OK").into_response(),
        Ok(Ok(Some(body))) => (StatusCode::OK, body).into_response(),
        Ok(Err(why)) => (StatusCode::SERVICE_UNAVAILABLE, why).into_response(),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "storage unavailable").into_response(),
    }
}

/// A JSON response with the given status and `X-API-Version`.
/// The header that names the config a get-method or fee estimate ran with.
pub const CONFIG_HEADER: &str = "X-Tonindex-Config";

/// Adds [`CONFIG_HEADER`] when the answer ran with a config.
pub(crate) fn with_config_header(
    mut resp: Response,
    used: Option<getmethod::ConfigUsed>,
) -> Response {
    if let Some(used) = used {
        if let Ok(v) = HeaderValue::from_str(&used.header_value()) {
            resp.headers_mut().insert(CONFIG_HEADER, v);
        }
    }
    resp
}

pub(crate) fn json_response(status: StatusCode, body: String, version: &'static str) -> Response {
    let mut resp = (
        status,
        [(
            axum::http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response();
    resp.headers_mut()
        .insert("X-API-Version", HeaderValue::from_static(version));
    resp
}

pub use crate::clock::unix_now;

/// Milliseconds since `start`, for v2's `@extra`.
pub(crate) fn elapsed_ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// Serves the API on `cfg.listen` until SIGINT/SIGTERM. When `follow` is
/// set the database is a follower and catches up with the writer
/// periodically.
pub async fn serve(db: Arc<Db>, cfg: ApiConfig, follow: bool) -> anyhow::Result<()> {
    serve_api(db, cfg, follow, None, None, None).await
}

/// Reads the `[serve]` settings again (on SIGHUP: API keys and rates).
pub type Reload = Box<dyn Fn() -> anyhow::Result<ApiConfig> + Send + Sync>;

/// [`serve`], with the chain this process runs (`tonindex dev`) if any,
/// and what SIGHUP reloads.
pub async fn serve_api(
    db: Arc<Db>,
    cfg: ApiConfig,
    follow: bool,
    chain: Option<Arc<dyn ChainLink>>,
    reload: Option<Reload>,
    lite: Option<lite::LiteOptions>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(&cfg.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", cfg.listen))?;
    tracing::info!("serving API v2 and v3 on http://{}", listener.local_addr()?);
    if follow {
        let db = Arc::clone(&db);
        let every = Duration::from_millis(cfg.catch_up_interval_ms.max(10));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let db = Arc::clone(&db);
                match catch_up_watched(db).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::warn!("catching up with the writer: {e}"),
                    Err(e) => tracing::warn!("catch-up task: {e}"),
                }
            }
        });
    }
    let limits = server::connection_limits(&cfg, db.path());
    let every = Duration::from_millis(cfg.catch_up_interval_ms.max(10));
    let api = match chain {
        Some(chain) => Api::with_chain(db, cfg, chain),
        None if follow => Api::following(db, cfg, every),
        None => Api::new(db, cfg),
    };
    if let Some(reload) = reload {
        reload_on_sighup(Arc::clone(&api.limits), reload);
    }
    if let Some(options) = lite {
        lite::spawn(Arc::clone(&api), options).await?;
    }
    let app = router(api);
    server::serve(listener, app, limits, shutdown_signal()).await?;
    Ok(())
}

/// How long a catch-up with the writer may take before it is logged.
const SLOW_CATCH_UP: Duration = Duration::from_secs(5);

/// One catch-up with the writer ([`Db::catch_up`]), said in the log while
/// it takes over [`SLOW_CATCH_UP`] and when it ends after that: it waits
/// for every reader of the database, and a follower whose streams stop
/// must say whether it is waiting there. Its time, the wait included, goes
/// to `tonindex_catch_up_seconds`; a failed one counts in
/// `tonindex_catch_up_failures_total`.
async fn catch_up_watched(
    db: Arc<Db>,
) -> Result<Result<(), tonindex_storage::Error>, tokio::task::JoinError> {
    let started = Instant::now();
    let mut task = tokio::task::spawn_blocking(move || db.catch_up());
    let mut slow = false;
    loop {
        tokio::select! {
            done = &mut task => {
                let seconds = started.elapsed().as_secs_f64();
                if slow {
                    tracing::warn!(seconds, "catching up with the writer took long");
                }
                metrics::histogram!("tonindex_catch_up_seconds").record(seconds);
                if !matches!(done, Ok(Ok(()))) {
                    metrics::counter!("tonindex_catch_up_failures_total").increment(1);
                }
                return done;
            }
            _ = tokio::time::sleep(SLOW_CATCH_UP), if !slow => {
                slow = true;
                tracing::warn!(
                    "catching up with the writer has taken over {} s (it waits for the readers)",
                    SLOW_CATCH_UP.as_secs()
                );
            }
        }
    }
}

/// Swaps API keys and rates when the process gets SIGHUP; connections and
/// requests in flight are untouched.
fn reload_on_sighup(limits: Arc<limits::RateLimits>, reload: Reload) {
    #[cfg(unix)]
    tokio::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut hup) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot listen for SIGHUP: API keys will not be reloaded");
            return;
        };
        while hup.recv().await.is_some() {
            match reload() {
                Ok(cfg) => {
                    limits.reload(&cfg.rate_limit, &cfg.api_keys);
                    tracing::info!(
                        keys = cfg.api_keys.len(),
                        "SIGHUP: API keys and rates reloaded"
                    );
                }
                Err(e) => tracing::warn!("SIGHUP: keeping the API keys in force: {e:#}"),
            }
        }
    });
    #[cfg(not(unix))]
    let _ = (limits, reload);
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
    tracing::info!("shutting down");
}
