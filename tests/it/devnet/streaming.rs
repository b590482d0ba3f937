//! Streaming API v2 on the devnet: PyPI `toncenter`'s own SSE and
//! WebSocket clients, @ton/ton's and @ton/walletkit's hear of each transfer,
//! and refused subscriptions get toncenter's words in its error shape.

use super::*;
use serde_json::json;

/// `tests/python/streaming_toncenter.py`: ToncenterSSE and
/// ToncenterWebSocket (toncenter 0.4.0, unchanged) subscribe to genesis
/// wallets; each faucet transfer reaches them once as `transactions`,
/// `actions` and `account_state_change` at `finalized`; the WebSocket
/// client pings, unsubscribes a wallet and hears no more of it; a `trace`
/// subscription by the normalized hash tonutils computes for its own
/// wallet's transfer (TEP-467, an implementation not ours) gets that trace
/// once, whole.
#[test]
fn toncenters_streaming_clients_hear_each_transfer() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let v = python("streaming_toncenter.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// `tests/python/streaming_pending.py`, on `tonindex dev --block-interval`:
/// subscribed at `pending`, a tonutils wallet's transfer is heard as
/// `transactions`, `actions` and `trace` when it is accepted and emulated,
/// then when its block commits — each once per level, never going down,
/// the emulation executing the message the chain then executed.
#[test]
fn a_pending_subscriber_hears_a_transfer_at_both_levels() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &["--block-interval", "1500"]);
    let v = python("streaming_pending.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// `tests/python/streaming_pending.py confirmed`, on `tonindex dev
/// --block-interval --confirm-gap`: the transfer is heard at `pending`,
/// then at `confirmed` when its shard block is made (the block's own
/// transactions), then at `finalized` when the masterchain block is
/// indexed a gap later — each kind once per level, never going down.
#[test]
fn a_subscriber_hears_a_transfer_at_all_three_levels() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &["--block-interval", "1500", "--confirm-gap", "700"],
    );
    let v = python("streaming_pending.py", &[dev.url(), "confirmed".into()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// Runs `tests/clients/<script> URL FIXTURES` (with the npm packages
/// `npm` installed) on a fresh `tonindex dev` with `dev_args`; it must pass.
fn client_script(npm: &[&str], dev_args: &[&str], script: &str) {
    common::npm_install(&clients_dir(), npm);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), dev_args);
    let fixtures = common::fixtures();
    let out = node(script, &[dev.url().as_str(), fixtures.to_str().unwrap()]);
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// `tests/clients/devnet_walletkit.mjs`: @ton/walletkit's own streaming
/// provider (its source at a pinned commit, bundled unchanged in
/// tests/clients/vendor/) watches a wallet on `tonindex dev
/// --block-interval --confirm-gap` as a wallet app does — one WebSocket,
/// its `subscribe`, pings and `unsubscribe`. A payment reaches the app at
/// `pending`, `confirmed` and `finalized` as the transaction v3 then holds;
/// balances and a Jetton mint (with decimals from the metadata) at
/// `confirmed` and `finalized`; of two transfers signed with one seqno the
/// refused one is "invalidated"; walletkit warns of nothing it dropped.
#[test]
fn walletkit_hears_a_wallet_as_v3_then_holds_it() {
    client_script(
        &["@ton/ton", "ws", "lru-cache"],
        &["--block-interval", "1500", "--confirm-gap", "700"],
        "devnet_walletkit.mjs",
    );
}

/// `tests/clients/devnet_ton_streaming.mjs`: @ton/ton's own streaming
/// clients (TonSseClient and TonWsClient from ton-org/ton's pull request
/// #188, bundled unchanged: no release has them yet) subscribed to a wallet
/// at `pending` on `tonindex dev --block-interval --confirm-gap`. Their
/// protocol readers take every notification; a payment comes at all three
/// levels as v3 then holds it, its actions with it, states and a Jetton
/// mint at `confirmed` and `finalized`, the refused one of two transfers
/// signed with one seqno withdrawn; SSE and WebSocket hear the same.
#[test]
fn ton_orgs_streaming_clients_hear_a_wallet_on_both_transports() {
    client_script(
        &["@ton/ton", "ws"],
        &["--block-interval", "1500", "--confirm-gap", "700"],
        "devnet_ton_streaming.mjs",
    );
}

/// `tests/clients/devnet_walletkit_api.mjs`: @ton/walletkit's API client
/// (`ApiClientToncenter`, bundled unchanged like its streaming provider)
/// on `tonindex dev --block-interval`: every call a wallet app makes
/// through it — state, balance, history, a transaction by message,
/// events, a get-method, Jettons and NFTs of an owner, DNS, a transfer
/// emulated before it is sent, sent, pending, then committed — maps our
/// answers into walletkit's models without an error and says what the
/// steps did (checked against @ton/ton's v2 client and the steps).
#[test]
fn walletkit_api_client_reads_what_a_wallet_did() {
    client_script(
        &["@ton/ton", "lru-cache"],
        &["--block-interval", "1500"],
        "devnet_walletkit_api.mjs",
    );
}

/// `tests/python/streaming_deleted.py`, on `tonindex dev --block-interval
/// --confirm-gap`: a wallet deployed, then deleted by sending all it has
/// with mode 128 + 32; its `account_state_change` comes at `confirmed` and
/// `finalized` for each state, the last one `nonexist` with a zero balance
/// and the hash its last transaction names.
#[test]
fn a_deleted_account_is_heard_as_nonexist() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &["--block-interval", "1500", "--confirm-gap", "700"],
    );
    let v = python("streaming_deleted.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// `tests/python/streaming_invalidated.py`, on `tonindex dev
/// --block-interval`: of two transfers signed with the same seqno, both
/// emulated at `pending`, the block executes one and refuses the other,
/// which PyPI toncenter's ToncenterSSE then hears withdrawn with
/// `trace_invalidated` (once, never after `finalized`; the executed one
/// never is).
#[test]
fn a_refused_pending_trace_is_invalidated() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &["--block-interval", "1500"]);
    let v = python("streaming_invalidated.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// `tests/python/streaming_resume.py`: a subscriber that stops reading is
/// cut off with `stream_overflow` naming the first masterchain block it
/// missed; subscribing again with `since` = that block, its notifications
/// before the cut and after it are exactly those of a subscriber that
/// read everything — nothing lost, nothing twice — and a `since` ahead of
/// the chain is refused.
#[test]
fn a_slow_subscriber_resumes_from_its_point_without_loss_or_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let v = python("streaming_resume.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// `tests/python/streaming_follower.py`: `tonindex serve` over the
/// database `tonindex dev` writes streams the same notifications as the
/// writer, in the same order, and replays with `since`.
#[test]
fn serve_streams_what_the_writer_commits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dev = Dev::start(&db, &[]);
    let port = common::free_port();
    // The follower's log, shown if the test fails.
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut serve = KillOnDrop(
        Command::new(common::tonindex_bin())
            .args(["serve", "--db"])
            .arg(&db)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("TONINDEX_SERVE__CATCH_UP_INTERVAL_MS", "100")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let _log = ShowLogOnPanic(log_path);
    common::wait_listening(port);
    // The port was free when chosen; another test's process may have taken
    // it before `serve` bound it, and would answer in its place.
    assert!(
        serve.0.try_wait().unwrap().is_none(),
        "tonindex serve exited: it did not get port {port}"
    );
    let v = python(
        "streaming_follower.py",
        &[dev.url(), format!("http://127.0.0.1:{port}")],
    );
    assert_eq!(v["ok"], true, "{v}");
    // The follower's catch-ups are in its metrics (as text: Prometheus'
    // exposition, in no fixed order), none failed.
    let (status, text) = http_text(port, "GET", "/metrics", "");
    assert_eq!(status, 200);
    let count = text
        .lines()
        .find_map(|l| l.strip_prefix("tonindex_catch_up_seconds_count "))
        .and_then(|n| n.trim().parse::<u64>().ok());
    assert!(count.is_some_and(|n| n > 0), "{text}");
    assert!(!text.contains("tonindex_catch_up_failures_total"), "{text}");
    // And what it holds in memtables: some bytes (it replays the writer's
    // log), and how many of them are sealed.
    let gauge = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|n| n.trim().parse::<f64>().ok())
    };
    assert!(
        gauge("tonindex_rocksdb_memtable_bytes ").is_some_and(|n| n > 0.0),
        "{text}"
    );
    assert!(
        gauge("tonindex_rocksdb_sealed_memtables ").is_some(),
        "{text}"
    );
}

/// Prints a child's log when the test fails (dropped while panicking).
struct ShowLogOnPanic(std::path::PathBuf);

impl Drop for ShowLogOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.0).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(60).collect();
            eprintln!(
                "{}:\n{}",
                self.0.display(),
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
    }
}

/// Subscriptions are checked in toncenter's order and answered in its
/// shape (`{"id"?, "error"}`, 400); a WebSocket route without an upgrade
/// is 426; the health of the streams names the newest block they saw.
#[test]
fn streaming_refusals_and_health() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let sse = |body: &str| json(dev.port, "POST", "/api/streaming/v2/sse", body);
    let wallet = format!("0:{}", "12".repeat(32));
    for (body, want) in [
        (
            r#"{"id":"a","types":[]}"#.to_string(),
            json!({"id": "a", "error": "types are required for subscription"}),
        ),
        (
            r#"{"types":["trace_invalidated"]}"#.into(),
            json!({"error": "invalid event type: trace_invalidated"}),
        ),
        (
            r#"{"types":["transactions"],"addresses":["x"]}"#.into(),
            json!({"error": "invalid address: x"}),
        ),
        (
            r#"{"types":["transactions"]}"#.into(),
            json!({"error": "addresses are required for subscription"}),
        ),
        (
            r#"{"types":["trace"]}"#.into(),
            json!({"error": "trace_external_hash_norms are required for trace subscription"}),
        ),
        (
            format!(
                r#"{{"types":["actions"],"addresses":["{wallet}"],"trace_external_hash_norms":["q"]}}"#
            ),
            json!({"error": "trace_external_hash_norms requires type \"trace\""}),
        ),
        (
            format!(r#"{{"types":["actions"],"addresses":["{wallet}"],"min_finality":"soon"}}"#),
            json!({"error": "invalid subscription request: unknown finality state: soon"}),
        ),
    ] {
        let (status, v) = sse(&body);
        assert_eq!(status, 400, "{body}: {v}");
        assert_eq!(v, want, "{body}");
    }
    let (status, v) = sse("{not json");
    assert_eq!(status, 400);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid subscription request: "),
        "{v}"
    );
    let (status, _) = http(dev.port, "GET", "/api/streaming/v2/ws", "");
    assert_eq!(status, 426);
    // TonAPI's paths (no `/api`) are answered the same; near misses are not.
    let (status, v) = json(
        dev.port,
        "POST",
        "/streaming/v2/sse?token=k",
        r#"{"types":[]}"#,
    );
    assert_eq!(status, 400, "{v}");
    assert_eq!(v, json!({"error": "types are required for subscription"}));
    let (status, _) = http(dev.port, "GET", "/streaming/v2/ws", "");
    assert_eq!(status, 426);
    for path in [
        "/streaming/v2",
        "/streaming/v3/ws",
        "/api/streaming/v2/nope",
    ] {
        let (status, _) = http(dev.port, "GET", path, "");
        assert_eq!(status, 404, "{path}");
    }
    fund(&dev, &wallet, 1_000_000_000);
    // The streams hear a commit from the feed, a moment after the API can
    // read it: the health names the block once the hub has taken it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let (status, v) = json(dev.port, "GET", "/api/streaming/healthz", "");
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["ok"], true);
        let t = v["components"]["commit-feed"]["last_finalized_mc_block_time"].as_u64();
        if t.unwrap() > 0 {
            assert!(
                v["components"]["commit-feed"]["finalized_age_seconds"].is_u64(),
                "{v}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no block reached the streams: {v}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Stream caps, as toncenter's: a key holds at most its `streams` at once
/// (SSE past it: 429 with toncenter's words; a WebSocket: that error frame,
/// then the close), closing one frees a place; its subscriptions name at
/// most `stream_addresses`; a client without a key holds at most
/// `anonymous_streams`.
#[test]
fn streams_are_capped_per_key_and_per_anonymous_client() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let (_dev, port) = dev_configured(
        dir.path(),
        "[serve.rate_limit]\nanonymous_streams = 1\n\
         [[serve.api_keys]]\nkey = \"two\"\nstreams = 2\nstream_addresses = 2\n",
    );
    let wallets: Vec<String> = (1..=3)
        .map(|i| format!("0:{}", hex::encode([i; 32])))
        .collect();
    // Opens an SSE stream; its status and, when refused, the error.
    let open = |key: Option<&str>, addresses: &[String]| {
        let body = json!({"types": ["transactions"], "addresses": addresses}).to_string();
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let key = key.map_or(String::new(), |k| format!("X-API-Key: {k}\r\n"));
        write!(
            s,
            "POST /api/streaming/v2/sse HTTP/1.1\r\nHost: x\r\n{key}Content-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reader = BufReader::new(s.try_clone().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut error = None;
        if status != 200 {
            let mut rest = String::new();
            let _ = reader.read_to_string(&mut rest);
            let body = &rest[rest.find('{').unwrap()..=rest.rfind('}').unwrap()];
            error = serde_json::from_str::<Value>(body).unwrap()["error"]
                .as_str()
                .map(str::to_string);
        }
        (status, error, s)
    };
    let one = &wallets[..1];
    let (status, _, first) = open(Some("two"), one);
    assert_eq!(status, 200);
    let (status, _, second) = open(Some("two"), one);
    assert_eq!(status, 200);
    let (status, error, _) = open(Some("two"), one);
    assert_eq!(status, 429);
    assert_eq!(
        error.as_deref(),
        Some("connection limit reached: 2 active connections")
    );
    // Over the WebSocket: the error frame, then the close.
    let mut ws = TcpStream::connect(("127.0.0.1", port)).unwrap();
    ws.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        ws,
        "GET /api/streaming/v2/ws HTTP/1.1\r\nHost: x\r\nX-API-Key: two\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = ws.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 101"), "{text}");
    assert!(
        text.contains(r#"{"error":"connection limit reached: 2 active connections"}"#),
        "{text}"
    );
    drop(first);
    let mut freed = false;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        if open(Some("two"), one).0 == 200 {
            freed = true;
            break;
        }
    }
    assert!(
        freed,
        "closing a stream frees its place under the key's cap"
    );
    drop(second);
    std::thread::sleep(Duration::from_millis(300));
    let (status, error, _) = open(Some("two"), &wallets);
    assert_eq!(status, 400);
    assert_eq!(error.as_deref(), Some("too many addresses: 3 > max 2"));
    let (status, _, _anonymous) = open(None, &wallets);
    assert_eq!(status, 200);
    let (status, error, _) = open(None, one);
    assert_eq!(status, 429);
    assert_eq!(
        error.as_deref(),
        Some("connection limit reached: 1 active connections")
    );
}

/// A WebSocket keeps its connection's place under `serve.max_connections`
/// after the upgrade: with a cap of 2, two open streams leave a third
/// client the cap's 503, and closing one frees a place.
#[test]
fn websocket_streams_count_against_the_connection_cap() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start_env(
        &dir.path().join("db"),
        &[],
        &[("TONINDEX_SERVE__MAX_CONNECTIONS", "2")],
    );
    // A stream, once the cap has room: the connections of the start-up
    // probes count until the server has seen them close, which under load
    // can take a moment.
    let open_ws = || {
        let mut last = String::new();
        for _ in 0..50 {
            let mut s = TcpStream::connect(("127.0.0.1", dev.port)).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            write!(
                s,
                "GET /api/streaming/v2/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
                 Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            .unwrap();
            let mut line = String::new();
            BufReader::new(s.try_clone().unwrap())
                .read_line(&mut line)
                .unwrap();
            if line.starts_with("HTTP/1.1 101") {
                return s;
            }
            assert!(line.starts_with("HTTP/1.1 503"), "{line}");
            last = line;
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("no room under the cap for a stream: {last}");
    };
    let first = open_ws();
    let _second = open_ws();
    // Give the server a moment to finish both upgrades.
    std::thread::sleep(Duration::from_millis(300));
    let (status, _) = http(dev.port, "GET", "/api/v3/masterchainInfo", "");
    assert_eq!(status, 503, "a third connection over the cap of two");
    drop(first);
    let mut freed = false;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        if http(dev.port, "GET", "/api/v3/masterchainInfo", "").0 == 200 {
            freed = true;
            break;
        }
    }
    assert!(freed, "closing a stream frees its place");
}

/// A replay with `since` that reaches back past what `[index] keep_states`
/// keeps: the `account_state_change` of a block whose state of the
/// account was released is not sent (a state with null fields would read
/// as a state), and is logged; the change of a kept block is sent whole.
#[test]
fn a_replayed_state_change_whose_state_was_released_is_left_out() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let (_dev, port) = dev_configured(dir.path(), "[index]\nkeep_states = 2\n");
    let fund = |address: &str| {
        let body = json!({"address": address, "amount": "1000000000"}).to_string();
        let (status, v) = super::json(port, "POST", "/dev/fund", &body);
        assert_eq!(status, 200, "{v}");
    };
    let newest = || {
        let (_, v) = super::json(port, "GET", "/api/v3/masterchainInfo", "");
        v["last"]["seqno"].as_u64().unwrap()
    };
    let watched = format!("0:{}", "77".repeat(32));
    let since = newest() + 1;
    // The watched account changes in one block and again three blocks
    // later; two more blocks then release its first state.
    fund(&watched);
    for i in 1..=2u8 {
        fund(&format!("0:{}", hex::encode([i; 32])));
    }
    fund(&watched);
    for i in 3..=4u8 {
        fund(&format!("0:{}", hex::encode([i; 32])));
    }

    let body = json!({
        "types": ["account_state_change"],
        "addresses": [watched],
        "since": since,
    })
    .to_string();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    write!(
        s,
        "POST /api/streaming/v2/sse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reader = BufReader::new(s);
    let mut heard: Vec<Value> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut line = String::new();
    while Instant::now() < deadline {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {
                if let Some(data) = line.trim_end().strip_prefix("data: ") {
                    let v: Value = serde_json::from_str(data).unwrap();
                    if v["type"] == "account_state_change" {
                        heard.push(v);
                    }
                }
            }
            // Nothing more for now: the replay is done once the kept
            // block's change has come.
            Err(_) if !heard.is_empty() => break,
            Err(_) => {}
        }
    }
    assert_eq!(heard.len(), 1, "{heard:?}");
    let state = &heard[0]["state"];
    assert_eq!(state["account_status"], "uninit", "{state}");
    let balance: u64 = state["balance"].as_str().unwrap().parse().unwrap();
    assert!(balance > 1_000_000_000, "both fundings: {state}");
}
