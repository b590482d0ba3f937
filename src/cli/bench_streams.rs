//! `bench-dev --subscribers N`: Streaming API v2 under the devnet's load.
//! The API is served in this process over the devnet's commit feed; `N`
//! SSE clients (raw HTTP on their own connections, in this process too)
//! each subscribe to the `transactions` of one distinct address: the
//! sending wallets first, then addresses that never transact; the rounds then
//! run as `bench-dev` runs them. Reported: commit-to-client latency (from
//! the commit feed announcing a masterchain block's unit to a client
//! reading a notification of that block) and memory per idle subscriber
//! (the process's resident memory before and after they subscribe: the
//! server's side and the clients' together, an upper bound).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::anyhow;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonindex_storage::Db;
use tycho_types::cell::Cell;
use tycho_types::models::StdAddr;

use crate::api::{Api, ApiConfig};
use crate::chain::devnet::node::Devnet;

/// When a client read a notification of masterchain block `.0`.
type Heard = (u32, Instant);

/// Runs `rounds` on `devnet` with `subscribers` streaming clients, one
/// per distinct address (`wallets` first), and prints the figures.
pub fn measure(
    devnet: &mut Devnet,
    db: Arc<Db>,
    wallets: &[StdAddr],
    rounds: impl Iterator<Item = Vec<Cell>>,
    subscribers: usize,
) -> anyhow::Result<()> {
    if wallets.is_empty() {
        return Err(anyhow!("no wallets to subscribe to"));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("tonindex-bench-streams")
        .build()?;
    let feed = devnet.feed().clone();
    let cfg = ApiConfig {
        max_connections: subscribers + 64,
        ..ApiConfig::default()
    };
    // When each masterchain block's unit was announced.
    let committed: Arc<Mutex<HashMap<u32, Instant>>> = Arc::default();
    let (heard_tx, heard_rx) = std::sync::mpsc::channel::<Heard>();
    let (api, port) = runtime.block_on(async {
        let mut commits = feed.subscribe();
        let marks = Arc::clone(&committed);
        tokio::spawn(async move {
            while let Ok(c) = commits.recv().await {
                if let (Some(mc), false) = (c.mc_seqno, c.blocks.is_empty()) {
                    marks.lock().unwrap().entry(mc).or_insert_with(Instant::now);
                }
            }
        });
        let limits = crate::api::server::connection_limits(&cfg, db.path());
        let api = Api::with_commit_feed(db, cfg, &feed);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let app = crate::api::router(Arc::clone(&api));
        tokio::spawn(crate::api::server::serve(
            listener,
            app,
            limits,
            std::future::pending(),
        ));
        anyhow::Ok((api, port))
    })?;

    let rss_before = resident_bytes();
    for i in 0..subscribers {
        // Distinct addresses: the sending wallets, then addresses that
        // never transact (subscribed, never notified).
        let address = match wallets.get(i) {
            Some(w) => w.to_string(),
            None => format!("0:{i:064x}"),
        };
        let heard = heard_tx.clone();
        runtime.spawn(async move {
            if let Err(e) = listen(port, &address, heard).await {
                // At the end the server goes first; a stop mid-run shows in the count.
                tracing::debug!("a benchmark subscriber stopped: {e}");
            }
        });
    }
    drop(heard_tx);
    let start = Instant::now();
    while api.streams().clients() < subscribers {
        if start.elapsed() > Duration::from_secs(60) {
            return Err(anyhow!(
                "only {} of {subscribers} subscribers connected in 60 s",
                api.streams().clients()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Settled: every connection's buffers allocated.
    std::thread::sleep(Duration::from_millis(500));
    let rss_idle = resident_bytes();

    let mut blocks = 0u32;
    let wall = Instant::now();
    for msgs in rounds {
        let out = devnet.produce(msgs)?;
        if !out.dropped.is_empty() {
            return Err(anyhow!("{} transfers were not accepted", out.dropped.len()));
        }
        blocks += 1;
    }
    let wall = wall.elapsed();
    // The last notifications: until none has come for a second.
    let mut heard = Vec::new();
    while let Ok(h) = heard_rx.recv_timeout(Duration::from_secs(1)) {
        heard.push(h);
    }
    let marks = committed.lock().unwrap();
    let mut latencies: Vec<Duration> = heard
        .iter()
        .filter_map(|(mc, at)| marks.get(mc).map(|c| at.saturating_duration_since(*c)))
        .collect();
    let unmatched = heard.len() - latencies.len();
    latencies.sort();
    let pick = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "streams: {subscribers} SSE subscribers ({} of them to a sending wallet), {blocks} \
         masterchain blocks in {:.2}s: {} notifications read ({} of blocks not announced), \
         commit-to-client latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        subscribers.min(wallets.len()),
        wall.as_secs_f64(),
        heard.len(),
        unmatched,
        ms(pick(0.50)),
        ms(pick(0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
    );
    if let (Some(before), Some(idle)) = (rss_before, rss_idle) {
        println!(
            "streams: resident memory {:.1} MB before the subscribers, {:.1} MB with them idle: \
             {:.1} KB per idle subscriber (server and client sides together)",
            before as f64 / 1e6,
            idle as f64 / 1e6,
            idle.saturating_sub(before) as f64 / subscribers as f64 / 1e3,
        );
    }
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// One SSE client: subscribes to `address`'s transactions and reports the
/// masterchain block of each notification as it is read.
async fn listen(
    port: u16,
    address: &str,
    heard: std::sync::mpsc::Sender<Heard>,
) -> anyhow::Result<()> {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let body = serde_json::json!({"types": ["transactions"], "addresses": [address]}).to_string();
    let head = format!(
        "POST /api/streaming/v2/sse HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(head.as_bytes()).await?;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 8 * 1024];
    loop {
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        let at = Instant::now();
        buf.extend_from_slice(&chunk[..n]);
        // Each whole `data:` line of an `event: event` frame.
        while let Some(start) = find(&buf, b"event: event\ndata: ") {
            let from = start + b"event: event\ndata: ".len();
            let Some(len) = find(&buf[from..], b"\n") else {
                break;
            };
            // The block, read without parsing the whole notification (the
            // clients share the server's cores).
            let line = &buf[from..from + len];
            let key = b"\"mc_block_seqno\":";
            if let Some(p) = find(line, key) {
                let digits: Vec<u8> = line[p + key.len()..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .copied()
                    .collect();
                let mc: u32 = std::str::from_utf8(&digits)?.parse()?;
                let _ = heard.send((mc, at));
            }
            buf.drain(..from + len);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// This process's resident memory (Linux), if known.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
