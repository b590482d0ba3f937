//! API keys and rate limits through the HTTP layer: unknown keys are 401,
//! rates past their limit 429 with `Retry-After`, both in each API's error
//! shape; keys from the header (any case) or `api_key`; a refused JSON-RPC
//! batch costs one token; and SIGHUP swaps the keys of a running `tonindex dev`
//! while a keep-alive connection stays open.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tonindex::api::limits::{ApiKey, RateLimitConfig};
use tonindex::api::{router, Api, ApiConfig};
use tonindex_storage::{Db, DbOptions};
use tower::ServiceExt;

fn server(
    rate_limit: RateLimitConfig,
    api_keys: Vec<ApiKey>,
) -> (tonindex::api::App, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = std::sync::Arc::new(Db::open(dir.path(), &DbOptions::default()).unwrap());
    let cfg = ApiConfig {
        rate_limit,
        api_keys,
        ..ApiConfig::default()
    };
    (router(Api::new(db, cfg)), dir)
}

async fn call(app: &tonindex::api::App, req: Request<Body>) -> (StatusCode, Option<String>, Value) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let retry = resp
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        retry,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn get(path: &str, key_header: Option<(&str, &str)>) -> Request<Body> {
    let mut b = Request::get(path);
    if let Some((name, key)) = key_header {
        b = b.header(name, key);
    }
    b.body(Body::empty()).unwrap()
}

fn rpc(calls: usize, key: &str) -> Request<Body> {
    let one = serde_json::json!({"id": 1, "jsonrpc": "2.0", "method": "detectAddress",
        "params": {"address": "0:0000000000000000000000000000000000000000000000000000000000000000"}});
    let body = if calls == 1 {
        one.to_string()
    } else {
        Value::Array(vec![one; calls]).to_string()
    };
    Request::post(format!("/api/v2/jsonRPC?api_key={key}"))
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap()
}

#[tokio::test]
async fn unknown_keys_and_rates_in_each_apis_shape() {
    let (app, _dir) = server(
        RateLimitConfig {
            anonymous_v2_rps: 1,
            anonymous_v3_rps: 0,
            anonymous_streams: 0,
        },
        vec![ApiKey {
            key: "k3".into(),
            rps: 3,
            streams: 0,
            stream_addresses: 0,
        }],
    );
    let v2 = "/api/v2/detectAddress?address=0:0000000000000000000000000000000000000000000000000000000000000000";
    let v3 = "/api/v3/addressBook?address=0:0000000000000000000000000000000000000000000000000000000000000000";
    // Unknown keys: 401, v2 and v3 shapes.
    let (s, _, j) = call(&app, get(v2, Some(("X-API-Key", "nope")))).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(j["ok"], false);
    assert_eq!(j["code"], 401);
    assert_eq!(j["error"], "API key does not exist");
    let (s, _, j) = call(&app, get(&format!("{v3}&api_key=nope"), None)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(j["error"], "API key does not exist");
    // Anonymous v2: one a second, then 429 with Retry-After; v3 unlimited.
    let (s, _, _) = call(&app, get(v2, None)).await;
    assert_eq!(s, StatusCode::OK);
    let (s, retry, j) = call(&app, get(v2, None)).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(retry.as_deref(), Some("1"));
    assert_eq!(
        (j["ok"].clone(), j["code"].clone()),
        (false.into(), 429.into())
    );
    assert_eq!(j["error"], "Ratelimit exceeded");
    for _ in 0..20 {
        assert_eq!(call(&app, get(v3, None)).await.0, StatusCode::OK);
    }
    // The key (header in any case): three a second.
    for _ in 0..3 {
        let (s, _, _) = call(&app, get(v2, Some(("x-ApI-kEy", "k3")))).await;
        assert_eq!(s, StatusCode::OK);
    }
    let (s, retry, _) = call(&app, get(v3, Some(("X-API-KEY", "k3")))).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
    assert!(retry.is_some());
    let (_, _, j) = call(&app, get(&format!("{v3}&api_key=k3"), None)).await;
    assert_eq!(j["error"], "Ratelimit exceeded");
}

/// A JSON-RPC batch is refused (422, as toncenter's server refuses it) and
/// costs one token, as any request does, not one per call it holds.
#[tokio::test]
async fn a_refused_json_rpc_batch_costs_one_token() {
    let (app, _dir) = server(
        RateLimitConfig::default(),
        vec![ApiKey {
            key: "k2".into(),
            rps: 2,
            streams: 0,
            stream_addresses: 0,
        }],
    );
    let (s, _, j) = call(&app, rpc(5, "k2")).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{j}");
    assert_eq!(j["ok"], false);
    // The second of two tokens is still there for a single call.
    let (s, _, j) = call(&app, rpc(1, "k2")).await;
    assert_eq!(s, StatusCode::OK, "{j}");
    assert_eq!(j["ok"], true);
    let (s, _, _) = call(&app, rpc(1, "k2")).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
}

/// Reads one HTTP/1.1 response (with Content-Length) off a kept-alive stream.
fn read_response(r: &mut BufReader<TcpStream>) -> u16 {
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    let code = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    code
}

#[test]
fn sighup_reloads_keys_without_dropping_connections() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tonindex.toml");
    let write_keys = |keys: &[&str]| {
        let mut s = String::new();
        for k in keys {
            s.push_str(&format!("[[serve.api_keys]]\nkey = \"{k}\"\nrps = 0\n"));
        }
        std::fs::write(&config, s).unwrap();
    };
    write_keys(&["first"]);
    let port = common::free_port();
    let mut child = common::dev_command_configured(Some(&config), &dir.path().join("db"), port)
        .spawn()
        .unwrap();
    common::wait_listening(port);
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut ask = |key: &str| {
        write!(
            writer,
            "GET /api/v3/masterchainInfo HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\r\n"
        )
        .unwrap();
        read_response(&mut reader)
    };
    assert_eq!(ask("first"), 200);
    assert_eq!(ask("second"), 401);
    write_keys(&["second"]);
    unsafe {
        libc::kill(child.id() as i32, libc::SIGHUP);
    }
    // On the same connection: the new key is in force, the old one is gone.
    let start = Instant::now();
    while ask("second") != 200 {
        assert!(start.elapsed() < Duration::from_secs(10), "never reloaded");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ask("first"), 401);
    let _ = child.kill();
    let _ = child.wait();
}
