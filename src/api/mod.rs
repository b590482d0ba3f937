//! The HTTP API: toncenter v2 under `/api/v2`, v3 under `/api/v3`, served by
//! one axum router over the index. The API only reads: every request runs on
//! one storage [`Reader`] (one consistent state) on the blocking pool, under
//! the configured time budget.

pub mod chain;
pub mod encoding;
pub mod fees;
pub mod getmethod;
pub mod params;
pub mod v2;
pub mod v3;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use tonindex_storage::{Db, Reader};

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
        }
    }
}

/// What every request reads through: one consistent view and the settings.
pub struct Ctx<'a> {
    pub reader: Reader<'a>,
    pub cfg: &'a ApiConfig,
    /// Slots bounding concurrent TVM runs, and the decoded config they use.
    pub tvm: &'a getmethod::Tvm,
}

/// The shared state of the server.
pub struct Api {
    db: Arc<Db>,
    cfg: ApiConfig,
    tvm: getmethod::Tvm,
}

/// Why a read produced no answer.
#[derive(Debug)]
pub enum ReadFailure {
    /// The request's time budget ran out.
    TimedOut,
    /// The handler panicked (a bug); the message is logged.
    Crashed,
}

impl Api {
    pub fn new(db: Arc<Db>, cfg: ApiConfig) -> Arc<Self> {
        // One get-method per core: the rest of the blocking pool stays free for reads.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Arc::new(Self {
            db,
            cfg,
            tvm: getmethod::Tvm::new(cores),
        })
    }

    /// Runs `f` on one reader. First on the async worker with a small row
    /// budget: a point lookup or a short page costs less than handing it to
    /// another thread, so it answers there. Work that outgrows the budget
    /// (or asks for a TVM slot) is discarded and run again on the blocking
    /// pool, unbounded in rows but within the request's time budget.
    pub async fn read<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl Fn(&Ctx<'_>) -> T + Send + 'static,
    ) -> Result<T, ReadFailure> {
        let inline = {
            let ctx = Ctx {
                reader: self.db.reader_with_row_budget(INLINE_ROW_BUDGET),
                cfg: &self.cfg,
                tvm: &self.tvm,
            };
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&ctx))) {
                Ok(v) if !ctx.reader.over_budget() => Some(v),
                Ok(_) => None,
                Err(_) => {
                    tracing::error!("request handler panicked");
                    return Err(ReadFailure::Crashed);
                }
            }
        };
        if let Some(v) = inline {
            return Ok(v);
        }
        let api = Arc::clone(self);
        let budget = Duration::from_millis(self.cfg.request_timeout_ms);
        let task = tokio::task::spawn_blocking(move || {
            let ctx = Ctx {
                reader: api.db.reader(),
                cfg: &api.cfg,
                tvm: &api.tvm,
            };
            f(&ctx)
        });
        match tokio::time::timeout(budget, task).await {
            Err(_) => Err(ReadFailure::TimedOut),
            Ok(Err(join)) => {
                tracing::error!("request handler failed: {join}");
                Err(ReadFailure::Crashed)
            }
            Ok(Ok(v)) => Ok(v),
        }
    }
}

/// Rows a request may read on the async worker before it moves to the
/// blocking pool: a transaction with its messages and address book fits,
/// an account page of 100 does not.
const INLINE_ROW_BUDGET: u64 = 64;

/// The whole HTTP surface: `/healthcheck`, `/api/v2/*`, `/api/v3/*`.
pub fn router(api: Arc<Api>) -> Router {
    Router::new()
        .route("/healthcheck", get(healthcheck))
        .nest("/api/v2", v2::router())
        .nest("/api/v3", v3::router())
        .fallback(|| async { v3::V3Error::not_found("not found").into_response() })
        .with_state(api)
}

/// `200 OK` while storage answers reads; `503` otherwise.
async fn healthcheck(axum::extract::State(api): axum::extract::State<Arc<Api>>) -> Response {
    match api.read(|ctx| ctx.reader.cursor().is_ok()).await {
        Ok(true) => (StatusCode::OK, "OK").into_response(),
        _ => (StatusCode::SERVICE_UNAVAILABLE, "storage unavailable").into_response(),
    }
}

/// A JSON response with the given status and `X-API-Version`.
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

/// Milliseconds since `start`, for v2's `@extra`.
/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

pub(crate) fn elapsed_ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// Serves the API on `cfg.listen` until SIGINT/SIGTERM. When `follow` is
/// set the database is a follower and catches up with the writer
/// periodically.
pub async fn serve(db: Arc<Db>, cfg: ApiConfig, follow: bool) -> anyhow::Result<()> {
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
                match tokio::task::spawn_blocking(move || db.catch_up()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::warn!("catching up with the writer: {e}"),
                    Err(e) => tracing::warn!("catch-up task: {e}"),
                }
            }
        });
    }
    let app = router(Api::new(db, cfg));
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    Ok(())
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
