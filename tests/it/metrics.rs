//! Observability of a running `tonindex dev`: Prometheus `/metrics` with
//! request counts and latencies by route and status, get-method runs, what
//! the index holds and RocksDB's figures; v3's `Server-Timing` header; and
//! log lines as JSON objects when `log_format = "json"`.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::Duration;

/// A plain HTTP/1.1 GET; returns (status, head, body).
fn get(port: u16, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).unwrap();
    let status = buf.split_whitespace().nth(1).unwrap().parse().unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn metrics_server_timing_and_json_logs() {
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let mut child = common::dev_command(&dir.path().join("db"), port)
        .env("TONINDEX_LOG_FORMAT", "json")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_listening(port);
    let (status, head, _) = get(port, "/api/v3/masterchainInfo");
    assert_eq!(status, 200);
    assert!(head.contains("server-timing: app;dur="), "{head}");
    let wallet = "0:2884102cb96b588e8917bc794bc360c9e975a1978754c6ea18d469fb7999cffa";
    let (status, _, body) = get(
        port,
        &format!("/api/v2/runGetMethod?address={wallet}&method=seqno&stack=[]"),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(get(port, "/api/v3/no/such/thing").0, 404);
    // v2 answers carry no Server-Timing (toncenter's v2 does not send it).
    let (_, head, _) = get(port, "/api/v2/getMasterchainInfo");
    assert!(!head.contains("server-timing"));

    let (status, head, text) = get(port, "/metrics");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/plain"));
    for want in [
        r#"tonindex_http_requests_total{api="v3",route="/api/v3/masterchainInfo",status="200"} 1"#,
        r#"tonindex_http_requests_total{api="v3",route="unmatched",status="404"} 1"#,
        r#"tonindex_http_request_duration_seconds_bucket{api="v2",route="/api/v2/runGetMethod",le="+Inf"} 1"#,
        r#"tonindex_getmethod_runs_total{outcome="ran"} 1"#,
        "tonindex_getmethod_seconds_count 1",
        "tonindex_index_last_mc_seqno 1",
        "tonindex_index_blocks 2",
        "tonindex_index_seconds_behind",
        "tonindex_rocksdb_sst_bytes",
        "tonindex_rocksdb_memtable_bytes",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }

    let _ = child.kill();
    let _ = child.wait();
    let mut logs = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut logs)
        .unwrap();
    let lines: Vec<&str> = logs.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!lines.is_empty());
    for line in lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v["level"].is_string() && v["fields"].is_object(), "{line}");
    }
}

#[test]
fn healthcheck_says_when_the_newest_block_is_too_old() {
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let mut child = common::dev_command(&dir.path().join("db"), port)
        .env("TONINDEX_SERVE__MAX_BLOCK_AGE_SECS", "2")
        .spawn()
        .unwrap();
    common::wait_listening(port);
    assert_eq!(get(port, "/healthcheck").0, 200);
    // Automine makes no block while nothing is sent: the newest one ages.
    std::thread::sleep(Duration::from_millis(4200));
    let (status, _, body) = get(port, "/healthcheck");
    assert_eq!(status, 503);
    assert!(body.contains("s old"), "{body}");
    // A new block makes it healthy again.
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "POST /dev/block HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).unwrap();
    assert!(buf.starts_with("HTTP/1.1 200"), "{buf}");
    assert_eq!(get(port, "/healthcheck").0, 200);
    let _ = child.kill();
    let _ = child.wait();
}
