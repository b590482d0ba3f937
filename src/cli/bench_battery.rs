//! `tonindex bench-serve --battery`: a fixed set of list queries — time
//! and lt windows, offsets, filters — each asked many times with
//! its window, account or offset drawn across the whole index, one client
//! at a time, with p50/p99 per query: where a list query is slow on a
//! given index, and whether any answers 504 at its deadline.

use super::draw::Draw;
use std::time::Instant;

use serde_json::Value;

use super::bench_serve::Conn;

/// What the queries are drawn from: the index's time span and a busy
/// account (raw form, URL-encoded).
pub struct Targets {
    pub first_utime: u64,
    pub last_utime: u64,
    pub account: String,
}

impl Draw {
    /// A window of `len` seconds inside the index's span.
    fn window(&mut self, t: &Targets, len: u64) -> (u64, u64) {
        let span = t.last_utime.saturating_sub(t.first_utime).max(1);
        let start = t.first_utime + self.next() % span;
        (start, start + len)
    }
}

/// The battery's queries: a name and a maker of one request path.
type Query = (&'static str, fn(&mut Draw, &Targets) -> String);

const QUERIES: &[Query] = &[
    ("transactions, 60 s window, all", |d, t| {
        let (a, b) = d.window(t, 60);
        format!("/api/v3/transactions?start_utime={a}&end_utime={b}&limit=100&sort=asc")
    }),
    ("transactions, lt order, offset 0-1000", |d, _| {
        format!("/api/v3/transactions?limit=100&offset={}", d.next() % 1000)
    }),
    ("transactions of account, offset 0-1000", |d, t| {
        format!(
            "/api/v3/transactions?account={}&limit=100&offset={}",
            t.account,
            d.next() % 1000
        )
    }),
    ("transactions of account, 1 h window", |d, t| {
        let (a, b) = d.window(t, 3600);
        format!(
            "/api/v3/transactions?account={}&start_utime={a}&end_utime={b}&limit=100",
            t.account
        )
    }),
    ("v2 getTransactions of account", |_, t| {
        format!("/api/v2/getTransactions?address={}&limit=100", t.account)
    }),
    ("blocks, sort desc, offset 0-1000", |d, _| {
        format!(
            "/api/v3/blocks?sort=desc&limit=100&offset={}",
            d.next() % 1000
        )
    }),
    ("blocks, 10 min window", |d, t| {
        let (a, b) = d.window(t, 600);
        format!("/api/v3/blocks?start_utime={a}&end_utime={b}&sort=asc&limit=100")
    }),
    ("traces, 60 s window, all", |d, t| {
        let (a, b) = d.window(t, 60);
        format!("/api/v3/traces?start_utime={a}&end_utime={b}&limit=100")
    }),
    ("traces of account, offset 0-500", |d, t| {
        format!(
            "/api/v3/traces?account={}&limit=100&offset={}",
            t.account,
            d.next() % 500
        )
    }),
    ("actions, 60 s window, all", |d, t| {
        let (a, b) = d.window(t, 60);
        format!("/api/v3/actions?start_utime={a}&end_utime={b}&limit=100")
    }),
    ("actions of account, ton_transfer", |d, t| {
        format!(
            "/api/v3/actions?account={}&action_type=ton_transfer&limit=100&offset={}",
            t.account,
            d.next() % 200
        )
    }),
    ("actions, jetton_transfer, all", |_, _| {
        "/api/v3/actions?action_type=jetton_transfer&limit=100".to_string()
    }),
    ("messages sent by account, 1 h window", |d, t| {
        let (a, b) = d.window(t, 3600);
        format!(
            "/api/v3/messages?source={}&start_utime={a}&end_utime={b}&limit=100",
            t.account
        )
    }),
    ("messages to account, offset 0-1000", |d, t| {
        format!(
            "/api/v3/messages?destination={}&limit=100&offset={}",
            t.account,
            d.next() % 1000
        )
    }),
    ("messages to account, 1 h window", |d, t| {
        let (a, b) = d.window(t, 3600);
        format!(
            "/api/v3/messages?destination={}&start_utime={a}&end_utime={b}&limit=100",
            t.account
        )
    }),
    ("messages, 60 s window, all", |d, t| {
        let (a, b) = d.window(t, 60);
        format!("/api/v3/messages?start_utime={a}&end_utime={b}&limit=100")
    }),
    ("jetton transfers, 1 h window", |d, t| {
        let (a, b) = d.window(t, 3600);
        format!("/api/v3/jetton/transfers?start_utime={a}&end_utime={b}&limit=100")
    }),
    ("nft transfers, 1 h window", |d, t| {
        let (a, b) = d.window(t, 3600);
        format!("/api/v3/nft/transfers?start_utime={a}&end_utime={b}&limit=100")
    }),
];

/// Asks each query `times` times on one connection and prints its figures.
pub async fn run(port: u16, targets: &Targets, times: usize) -> anyhow::Result<()> {
    println!(
        "battery: {} queries × {times}, one client; windows drawn in {}..{}; account {}",
        QUERIES.len(),
        targets.first_utime,
        targets.last_utime,
        targets.account
    );
    println!(
        "{:<42} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "query", "p50 ms", "p99 ms", "max ms", "mean bytes", "not 200"
    );
    let mut draw = Draw(0x0b5e_55ed_ba77_e12f);
    let mut conn = Conn::open(port).await?;
    for (name, make) in QUERIES {
        let mut lat = Vec::with_capacity(times);
        let (mut bytes, mut failed) = (0usize, 0usize);
        for _ in 0..times.max(1) {
            let path = make(&mut draw, targets);
            let t = Instant::now();
            let (status, len) = conn.get(&path).await?;
            lat.push(t.elapsed().as_secs_f64() * 1e3);
            bytes += len;
            if status != 200 {
                failed += 1;
            }
        }
        lat.sort_by(f64::total_cmp);
        let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
        println!(
            "{:<42} {:>9.2} {:>9.2} {:>9.2} {:>10} {:>8}",
            name,
            pct(0.5),
            pct(0.99),
            lat[lat.len() - 1],
            bytes / lat.len(),
            failed
        );
    }
    Ok(())
}

/// The index's time span, from `/api/v3/masterchainInfo`.
pub fn span(info: &Value) -> Option<(u64, u64)> {
    // v3 writes block times as decimal strings.
    let utime = |v: &Value| {
        v.as_str()
            .and_then(|s| s.parse().ok())
            .or_else(|| v.as_u64())
    };
    Some((
        utime(&info["first"]["gen_utime"])?,
        utime(&info["last"]["gen_utime"])?,
    ))
}
