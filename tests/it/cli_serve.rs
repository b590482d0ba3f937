//! `tonindex serve` as a process: it serves the index, picks up what a
//! concurrent `tonindex import` commits, and stops cleanly on SIGTERM.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A plain HTTP/1.1 GET; returns (status, body).
fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    let status = buf.split_whitespace().nth(1)?.parse().ok()?;
    let body = buf.split_once("\r\n\r\n")?.1.to_string();
    Some((status, body))
}

fn import(db: &std::path::Path, path: &str) {
    let out = Command::new(common::tonindex_bin())
        .arg("import")
        .arg("--db")
        .arg(db)
        .arg(common::fixture(path))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn wait_for(mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

#[test]
fn serve_follows_a_concurrent_import_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // No database yet: a clear error, not a crash.
    let out = Command::new(common::tonindex_bin())
        .args(["serve", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("tonindex import"));

    import(&db, "blocks/ever-block-mainnet-2019/shard");
    let port = common::free_port();
    let mut server = Server(
        Command::new(common::tonindex_bin())
            .args(["serve", "--db"])
            .arg(&db)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("TONINDEX_SERVE__CATCH_UP_INTERVAL_MS", "100")
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(wait_for(
        || http_get(port, "/healthcheck").is_some_and(|(s, b)| s == 200 && b == "OK")
    ));
    // Only shard blocks so far: no masterchain block.
    let (status, _) = http_get(port, "/api/v3/masterchainInfo").unwrap();
    assert_eq!(status, 500);

    // An import while serving becomes visible.
    import(&db, "blocks/ever-block-mainnet-2019/mc");
    assert!(
        wait_for(|| http_get(port, "/api/v3/masterchainInfo")
            .is_some_and(|(s, b)| s == 200 && b.contains("\"seqno\":2690"))),
        "the server did not catch up with the import"
    );
    let (status, body) = http_get(port, "/api/v2/getMasterchainInfo").unwrap();
    assert_eq!(status, 200, "{body}");

    // SIGTERM: graceful exit with status 0.
    let pid = server.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let start = Instant::now();
    let code = loop {
        if let Some(s) = server.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(code.success(), "{code:?}");
}

/// `bench-serve` asks pages drawn across the whole index: over the fixture
/// index every transaction is drawn once (ids are dense), each giving a
/// different account page, and every one of them answers 200 (any other
/// status stops the run with an error); `--json-floor` writes pages of
/// the same kind.
#[test]
fn bench_serve_draws_its_pages_across_the_index() {
    let f = common::api::fixture();
    let out = Command::new(common::tonindex_bin())
        .arg("bench-serve")
        .arg("--db")
        .arg(f.db_path())
        .args(["--seconds", "0.3", "--rounds", "1", "--connections", "2"])
        .args(["--case", "account page", "--json-floor"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("v3 account page"))
        .unwrap_or_else(|| panic!("no account page row: {text}"))
        .split_whitespace()
        .collect();
    let cases = text.lines().filter(|l| l.starts_with("v3 ")).count();
    assert_eq!(cases, 1, "--case keeps one case: {text}");
    let paths: usize = row[row.len() - 2].parse().unwrap();
    let asked: usize = row[row.len() - 1].parse().unwrap();
    assert_eq!(paths, f.txs().len(), "{text}");
    assert!(asked > 16, "{text}");
    // The JSON floor wrote account pages too: bodies of a page's size.
    let floor: Vec<&str> = text
        .lines()
        .find(|l| l.trim_start().starts_with("JSON floor"))
        .unwrap_or_else(|| panic!("no JSON floor row: {text}"))
        .split_whitespace()
        .collect();
    let floor_bytes: usize = floor[8].parse().unwrap();
    let page_bytes: usize = row[8].parse().unwrap();
    assert!(
        floor_bytes > page_bytes / 4 && floor_bytes < page_bytes * 4,
        "{text}"
    );
}
