//! `tonindex bench-serve`: HTTP load against the API over an index, and in
//! the same run against a bare axum handler returning a constant JSON body
//! of the same size — the ceiling any handler on this machine can reach.
//!
//! The load generator is a small keep-alive HTTP/1.1 client on its own
//! runtime: `connections` connections, each sending the next request when
//! the previous answer is in, for `seconds`. A case's requests are drawn
//! across the whole index (accounts, hashes and depths from transactions
//! drawn by id, see `bench_pages`), asked in turn, so a run measures
//! building pages rather than a cache of one answer. It prints requests/s,
//! p50/p99 latency and the mean body per case, and the ratio to the bare
//! handler sending a body of that size. Each case
//! also runs against the same API without its guards against hostile
//! clients (deadlines, admission, body/response limits, the connection
//! layer, keys and rates, request metrics), in turns with the guarded one
//! (`--rounds` of each, after a warm-up, each side first in every other
//! round): the `guarded` column, the median of the rounds' ratios, is what
//! they leave of the throughput. With `--json-floor` a line under each
//! case gives a handler that only writes a few of the case's answers from
//! parsed JSON: what writing the JSON alone leaves of the bare handler.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::get;
use axum::Router;
use clap::Args;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonindex_storage::Db;

use super::bench_pages::{self, Paths};
use crate::api::{router, Api};
use crate::config::Config;

#[derive(Debug, Args)]
pub struct BenchServeArgs {
    /// Database directory (overrides the config's `db`); must hold blocks.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Concurrent keep-alive connections.
    #[arg(long, default_value_t = 16)]
    pub connections: usize,
    /// Seconds per case.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Server worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub server_threads: usize,
    /// Rounds of the guarded and the unguarded API, in turns, per case;
    /// each column is the median of its rounds.
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
    /// Measure the unguarded API against itself (two identical servers) in
    /// the `guarded` column: how far that column moves on this machine when
    /// nothing differs.
    #[arg(long)]
    pub noise_floor: bool,
    /// Instead of the load cases: a fixed set of list queries (windows,
    /// offsets, filters), each asked `--battery-times` times with
    /// draws across the whole index by one client, with p50/p99 each.
    #[arg(long)]
    pub battery: bool,
    /// Transactions drawn across the index for the load cases' requests
    /// (each case asks its paths in turn, so a run repeats no page while it
    /// asks fewer than this many).
    #[arg(long, default_value_t = 65_536)]
    pub draws: usize,
    /// Only the load cases whose name contains this (e.g. `account page`),
    /// for a profile of one case.
    #[arg(long, value_name = "TEXT")]
    pub case: Option<String>,
    /// Times each battery query is asked.
    #[arg(long, default_value_t = 50)]
    pub battery_times: usize,
    /// After each case, a handler that holds a few of the case's answers
    /// parsed and writes one's JSON per request, and nothing else: the most
    /// any handler that writes its JSON per request reaches here.
    #[arg(long)]
    pub json_floor: bool,
}

/// One keep-alive connection: sends `GET path`, reads the whole answer.
pub(super) struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub(super) async fn open(port: u16) -> std::io::Result<Self> {
        let stream = TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            buf: Vec::with_capacity(1 << 16),
        })
    }

    /// Returns (status, body length).
    pub(super) async fn get(&mut self, path: &str) -> std::io::Result<(u16, usize)> {
        let req = format!("GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n");
        self.stream.write_all(req.as_bytes()).await?;
        self.buf.clear();
        let mut chunk = [0u8; 16384];
        loop {
            let n = self.stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
            let Some(end) = find(&self.buf, b"\r\n\r\n") else {
                continue;
            };
            let head = String::from_utf8_lossy(&self.buf[..end]).to_ascii_lowercase();
            let status = head
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while self.buf.len() < end + 4 + len {
                let n = self.stream.read(&mut chunk).await?;
                if n == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                self.buf.extend_from_slice(&chunk[..n]);
            }
            return Ok((status, len));
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Figures of one case.
struct Figures {
    rps: f64,
    p50_us: u64,
    p99_us: u64,
    /// Mean body length.
    body: usize,
}

/// Loads `port` for `seconds` from `connections` connections, each asking
/// the next of `paths` once its previous answer is in.
async fn load(
    port: u16,
    paths: &Paths,
    connections: usize,
    seconds: f64,
) -> anyhow::Result<Figures> {
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let paths = paths.clone();
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::open(port).await?;
            let mut lat = Vec::new();
            let mut body = 0;
            while Instant::now() < deadline {
                let path = paths.take();
                let t = Instant::now();
                let (status, len) = conn.get(path).await?;
                if status != 200 {
                    anyhow::bail!("{path} answered {status}");
                }
                lat.push(t.elapsed().as_micros() as u64);
                body += len;
            }
            anyhow::Ok((lat, body))
        }));
    }
    let start = Instant::now();
    let mut all = Vec::new();
    let mut body = 0;
    for t in tasks {
        let (lat, len) = t.await??;
        all.extend(lat);
        body += len;
    }
    let elapsed = start.elapsed().as_secs_f64().max(seconds);
    all.sort_unstable();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    Ok(Figures {
        rps: all.len() as f64 / elapsed,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        body: body / all.len().max(1),
    })
}

/// The round with the median requests/s.
fn median(mut rounds: Vec<Figures>) -> Figures {
    rounds.sort_by(|a, b| a.rps.total_cmp(&b.rps));
    rounds.swap_remove(rounds.len() / 2)
}

/// Starts `app` on an ephemeral port of `rt` with axum's own server.
fn start<S>(rt: &tokio::runtime::Runtime, app: S) -> anyhow::Result<u16>
where
    S: tower_service::Service<
            axum::extract::Request,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let port = listener.local_addr()?.port();
    let make = axum::ServiceExt::<axum::extract::Request>::into_make_service(app);
    rt.spawn(async move { axum::serve(listener, make).await });
    Ok(port)
}

/// Starts `app` on an ephemeral port of `rt` behind `tonindex serve`'s
/// connection layer (cap, timeouts, parser errors in the APIs' shapes).
fn start_guarded(
    rt: &tokio::runtime::Runtime,
    app: crate::api::App,
    cfg: &crate::api::ApiConfig,
) -> anyhow::Result<u16> {
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let port = listener.local_addr()?.port();
    let limits = crate::api::server::ConnLimits {
        max_connections: cfg.max_connections,
        max_refusing: crate::api::server::MAX_REFUSING,
        header_timeout: Duration::from_millis(cfg.header_timeout_ms),
    };
    rt.spawn(crate::api::server::serve(
        listener,
        app,
        limits,
        std::future::pending(),
    ));
    Ok(port)
}

/// One answer's JSON (`null` when it is not JSON), on a connection of its own.
fn fetch_json(
    client: &tokio::runtime::Runtime,
    port: u16,
    path: &str,
) -> anyhow::Result<serde_json::Value> {
    client.block_on(async {
        let mut c = Conn::open(port).await?;
        let req = format!("GET {path} HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n");
        c.stream.write_all(req.as_bytes()).await?;
        let mut buf = Vec::new();
        c.stream.read_to_end(&mut buf).await?;
        let body = find(&buf, b"\r\n\r\n").map_or(&buf[..], |i| &buf[i + 4..]);
        anyhow::Ok(serde_json::from_slice(body).unwrap_or_default())
    })
}

/// The ports of the API with its guards and without them.
#[derive(Clone, Copy)]
struct Ports {
    guarded: u16,
    unguarded: u16,
}

/// One case: a short warm-up of each server, not counted; then guarded
/// and unguarded in turns, each going first in every other round, so that
/// drift of the machine and whatever the previous round leaves behind
/// (its connections closing) hit both alike; then a bare handler sending
/// a body of the same size. Prints the case's line: the `guarded` column
/// is the median of the rounds' ratios, the others medians of their rounds.
fn run_case(
    server: &tokio::runtime::Runtime,
    client: &tokio::runtime::Runtime,
    ports: Ports,
    name: &str,
    paths: &Paths,
    args: &BenchServeArgs,
) -> anyhow::Result<()> {
    for p in [ports.guarded, ports.unguarded] {
        client.block_on(load(p, paths, args.connections, args.seconds.min(0.5)))?;
    }
    let mut ours = Vec::new();
    let mut unguarded = Vec::new();
    let mut ratios = Vec::new();
    for round in 0..args.rounds.max(1) {
        let run = |p: u16| client.block_on(load(p, paths, args.connections, args.seconds));
        let (g, u) = if round % 2 == 0 {
            let g = run(ports.guarded)?;
            (g, run(ports.unguarded)?)
        } else {
            let u = run(ports.unguarded)?;
            (run(ports.guarded)?, u)
        };
        ratios.push(g.rps / u.rps);
        ours.push(g);
        unguarded.push(u);
    }
    ratios.sort_by(f64::total_cmp);
    let guarded_ratio = ratios[ratios.len() / 2];
    let (ours, unguarded) = (median(ours), median(unguarded));
    let bare = load_bare(server, client, ours.body, args)?;
    println!(
        "{:<32} {:>10.0} {:>9} {:>9} {:>9}   {:>10.0} {:>9} {:>9} {:>7.2}×   {:>12.0} {:>8.3}×   {:>7} {:>8}",
        name,
        ours.rps,
        ours.p50_us,
        ours.p99_us,
        ours.body,
        bare.rps,
        bare.p50_us,
        bare.p99_us,
        ours.rps / bare.rps,
        unguarded.rps,
        guarded_ratio,
        paths.len(),
        paths.asked()
    );
    if args.json_floor {
        let floor = json_floor(server, client, ports.guarded, paths, args)?;
        // Its answers are a few of the case's, so its own bare figure.
        let floor_bare = load_bare(server, client, floor.body, args)?;
        println!(
            "{:<32} {:>10.0} {:>9} {:>9} {:>9}   {:>10.0} {:>9} {:>9} {:>7.2}×",
            "  JSON floor of the case",
            floor.rps,
            floor.p50_us,
            floor.p99_us,
            floor.body,
            floor_bare.rps,
            floor_bare.p50_us,
            floor_bare.p99_us,
            floor.rps / floor_bare.rps,
        );
    }
    Ok(())
}

/// Loads a bare handler answering a constant JSON body of `len` bytes.
fn load_bare(
    server: &tokio::runtime::Runtime,
    client: &tokio::runtime::Runtime,
    len: usize,
    args: &BenchServeArgs,
) -> anyhow::Result<Figures> {
    let body: &'static str = Box::leak("x".repeat(len.saturating_sub(8)).into_boxed_str());
    let constant: &'static str = Box::leak(format!("{{\"x\":\"{body}\"}}").into_boxed_str());
    let bare_port = start(
        server,
        Router::new().route(
            "/bare",
            get(move || async move { ([("content-type", "application/json")], constant) }),
        ),
    )?;
    let bare_path = Paths::new(vec!["/bare".to_string()]);
    client.block_on(load(bare_port, &bare_path, args.connections, args.seconds))
}

/// Answers of the case kept parsed, for [`json_floor`].
const FLOOR_ANSWERS: usize = 16;

/// Loads a handler that writes the JSON of one of the case's first
/// answers (kept as parsed JSON, in turn) per request: serializing alone,
/// no reads, no decoding, no address book.
fn json_floor(
    server: &tokio::runtime::Runtime,
    client: &tokio::runtime::Runtime,
    port: u16,
    paths: &Paths,
    args: &BenchServeArgs,
) -> anyhow::Result<Figures> {
    let mut answers = Vec::new();
    for path in paths.first(FLOOR_ANSWERS) {
        let answer = fetch_json(client, port, path)?;
        // Written into a buffer of the right size, as a page writer that
        // knows its rows' sizes could.
        let len = serde_json::to_vec(&answer)?.len();
        answers.push((answer, len));
    }
    let answers = Arc::new(answers);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let floor_port = start(
        server,
        Router::new().route(
            "/floor",
            get(move || {
                let (answers, next) = (Arc::clone(&answers), Arc::clone(&next));
                async move {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let (answer, len) = &answers[i % answers.len()];
                    let mut body = Vec::with_capacity(*len);
                    // Writing into a Vec fails only on a map key that is
                    // not a string, which parsed JSON has none of.
                    let _ = serde_json::to_writer(&mut body, answer);
                    ([("content-type", "application/json")], body)
                }
            }),
        ),
    )?;
    let floor_path = Paths::new(vec!["/floor".to_string()]);
    client.block_on(load(
        floor_port,
        &floor_path,
        args.connections,
        args.seconds,
    ))
}

pub fn run(cfg: &Config, args: &BenchServeArgs) -> anyhow::Result<()> {
    let scratch = super::scratch::dir("tonindex-bench-")?;
    let db = Arc::new(Db::open_follower(&cfg.db, scratch.path())?);
    let db_for_draws = Arc::clone(&db);
    let mut server = tokio::runtime::Builder::new_multi_thread();
    if args.server_threads > 0 {
        server.worker_threads(args.server_threads);
    }
    let server = server.enable_all().build()?;
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let port = if args.noise_floor {
        start(
            &server,
            router(Api::without_guards(Arc::clone(&db), cfg.serve.clone())),
        )?
    } else {
        start_guarded(
            &server,
            router(Api::new(Arc::clone(&db), cfg.serve.clone())),
            &cfg.serve,
        )?
    };
    // The same API without its guards against hostile clients, on axum's
    // own server: what the guards cost, measured in the same run.
    let unguarded_port = start(&server, router(Api::without_guards(db, cfg.serve.clone())))?;

    // The battery's account: the one with the most transactions among the
    // newest thousand (a full page).
    let probe: serde_json::Value = client.block_on(async {
        let mut c = Conn::open(port).await?;
        let req = "GET /api/v3/transactions?limit=1000&x_no_address_book=1 HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n";
        c.stream.write_all(req.as_bytes()).await?;
        let mut buf = Vec::new();
        c.stream.read_to_end(&mut buf).await?;
        let body = find(&buf, b"\r\n\r\n").map_or(&buf[..], |i| &buf[i + 4..]);
        anyhow::Ok(serde_json::from_slice(body)?)
    })?;
    let txs = probe["transactions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut per_account: std::collections::HashMap<&str, usize> = Default::default();
    for t in &txs {
        if let Some(a) = t["account"].as_str() {
            *per_account.entry(a).or_default() += 1;
        }
    }
    let Some((account, _)) = per_account.into_iter().max_by_key(|(a, n)| (*n, *a)) else {
        anyhow::bail!("the index at {} holds no transactions", cfg.db.display());
    };
    if args.battery {
        let info = fetch_json(&client, port, "/api/v3/masterchainInfo")?;
        let Some((first_utime, last_utime)) = super::bench_battery::span(&info) else {
            anyhow::bail!(
                "the index at {} holds no masterchain block",
                cfg.db.display()
            );
        };
        let targets = super::bench_battery::Targets {
            first_utime,
            last_utime,
            account: form_urlencoded::byte_serialize(account.as_bytes()).collect(),
        };
        return client.block_on(super::bench_battery::run(
            port,
            &targets,
            args.battery_times,
        ));
    }
    // Token owners, where the index holds any: the owners of the first
    // thousand Jetton wallets and NFT items.
    let owners = |path: &str, list: &str, field: &str| -> anyhow::Result<Vec<String>> {
        let v = fetch_json(&client, port, path)?;
        let mut seen = std::collections::BTreeSet::new();
        Ok(v[list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w[field].as_str())
            .filter(|o| seen.insert(o.to_string()))
            .map(|o| form_urlencoded::byte_serialize(o.as_bytes()).collect())
            .collect())
    };
    let jetton_owners = owners(
        "/api/v3/jetton/wallets?limit=1000&x_no_address_book=1&x_no_metadata=1",
        "jetton_wallets",
        "owner",
    )?;
    let nft_owners = owners(
        "/api/v3/nft/items?limit=1000&x_no_address_book=1&x_no_metadata=1",
        "nft_items",
        "owner_address",
    )?;
    let drawn = bench_pages::draw_transactions(&db_for_draws, args.draws)?;
    let mut cases = bench_pages::cases(&drawn, jetton_owners, nft_owners);
    if let Some(only) = &args.case {
        cases.retain(|(name, _)| name.contains(only.as_str()));
    }
    drop(drawn);

    println!(
        "{} connections, {:.1} s per case, server threads: {}, cores: {}",
        args.connections,
        args.seconds,
        if args.server_threads == 0 {
            "all".to_string()
        } else {
            args.server_threads.to_string()
        },
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "{:<32} {:>10} {:>9} {:>9} {:>9}   {:>10} {:>9} {:>9} {:>8}   {:>12} {:>9}   {:>7} {:>8}",
        "case",
        "req/s",
        "p50 µs",
        "p99 µs",
        "bytes",
        "bare req/s",
        "p50 µs",
        "p99 µs",
        "vs bare",
        "no guards/s",
        "guarded",
        "paths",
        "asked"
    );
    for (name, paths) in cases {
        let ports = Ports {
            guarded: port,
            unguarded: unguarded_port,
        };
        run_case(&server, &client, ports, name, &paths, args)?;
    }
    Ok(())
}
