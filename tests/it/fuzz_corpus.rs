//! Replays the committed fuzz corpus (fuzz/corpus/<target>/, grown by
//! scripts/fuzz.sh with libFuzzer) through `tonindex::fuzzing`'s entry
//! points, and the fixture blocks and states (read in place) through the
//! chain-file target. The query-string, JSON-body and stack inputs also go
//! through the HTTP API over the fixture index: every v2 method and v3
//! endpoint answers them without a 5xx other than the ones the wire
//! contract prescribes.

use crate::common;

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::Request;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_corpus_input_runs_clean() {
    for (name, target) in tonindex::fuzzing::TARGETS {
        let inputs = corpus(name);
        // The chain-file target's seeds are the fixtures, read in place
        // (next test); its corpus holds only what fuzzing found.
        assert!(
            *name == "chain_file" || inputs.len() >= 3,
            "{name}: {} corpus inputs",
            inputs.len()
        );
        for (path, bytes) in &inputs {
            let run = std::panic::catch_unwind(|| target(bytes));
            assert!(run.is_ok(), "{name}: {} panics", path.display());
        }
    }
}

#[test]
fn fixture_chain_files_run_clean() {
    let mut files = 0;
    for dir in ["blocks", "accounts"] {
        for path in tonindex::chain::files::collect_paths(&[common::fixture(dir)]).unwrap() {
            let Ok(bytes) = tonindex::chain::files::read_boc_file(&path) else {
                continue;
            };
            tonindex::fuzzing::chain_file(&bytes);
            tonindex::fuzzing::boc(&bytes);
            files += 1;
        }
    }
    assert!(files >= 50, "only {files} fixture files");
}

/// A 5xx is a failure unless the wire contract prescribes it (as in
/// tests/schemathesis/hooks.py).
fn assert_no_unprescribed_5xx(r: &common::api::Reply, what: &str) {
    let status = r.status.as_u16();
    if status < 500 {
        return;
    }
    let text = r.json.to_string();
    let prescribed: &[&str] = match status {
        542 => &["Unsupported stack entry type"],
        533 => &["depth", "too deep", "too many cells"],
        501 => &["is not available: the index holds blocks"],
        503 => &["no network to send to"],
        504 => &["timed out"],
        _ => &[],
    };
    assert!(
        prescribed.iter().any(|m| text.contains(m)),
        "{what}: {status} {text}"
    );
}

/// Bytes as a URI query: what a client's library would percent-encode.
fn as_query(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'#' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What the APIs serve, from their own handler tables.
mod served {
    use tonindex::api::{v2, v3};

    pub fn v2() -> impl Iterator<Item = &'static str> {
        v2::served_methods()
    }
    pub fn v3_get() -> impl Iterator<Item = &'static str> {
        v3::served_endpoints().filter(|e| !v3::is_post_endpoint(e))
    }
    pub fn v3_post() -> impl Iterator<Item = &'static str> {
        v3::served_endpoints().filter(|e| v3::is_post_endpoint(e))
    }
}

/// Inputs sent through the whole API per corpus (each goes to every
/// method): an even sample of a large corpus keeps CI's run short, while
/// every input still goes through its fuzz target above.
const API_SAMPLE: usize = 250;

fn sample(inputs: Vec<(PathBuf, Vec<u8>)>) -> Vec<(PathBuf, Vec<u8>)> {
    let step = inputs.len().div_ceil(API_SAMPLE).max(1);
    inputs.into_iter().step_by(step).collect()
}

#[test]
fn corpus_queries_and_bodies_through_the_api() {
    let mut sent = 0;
    for (path, bytes) in sample(corpus("query")) {
        let q = as_query(&bytes);
        // Every method and endpoint the APIs serve (their handler tables).
        let uris = served::v2()
            .map(|m| format!("/api/v2/{m}?{q}"))
            .chain(served::v3_get().map(|e| format!("/api/v3/{e}?{q}")));
        for uri in uris {
            let Ok(req) = Request::get(uri.as_str()).body(Body::empty()) else {
                continue;
            };
            let r = common::api::run(req);
            assert_no_unprescribed_5xx(&r, &format!("{} {uri}", path.display()));
            sent += 1;
        }
    }
    let bodies =
        sample(corpus("json_body"))
            .into_iter()
            .chain(sample(corpus("stack")).into_iter().map(|(p, stack)| {
                // A stack goes in a get-method call's body.
                let body = format!(
                    "{{\"address\": \"-1:{}\", \"method\": \"seqno\", \"stack\": {}}}",
                    "33".repeat(32),
                    String::from_utf8_lossy(&stack)
                );
                (p, body.into_bytes())
            }));
    for (path, body) in bodies {
        let uris = served::v2()
            .map(|m| format!("/api/v2/{m}"))
            .chain(["/api/v2/jsonRPC".to_string()])
            .chain(served::v3_post().map(|e| format!("/api/v3/{e}")));
        for uri in uris {
            let req = Request::post(uri.as_str())
                .header("content-type", "application/json")
                .body(Body::from(body.clone()))
                .unwrap();
            let r = common::api::run(req);
            assert_no_unprescribed_5xx(&r, &format!("{} POST {uri}", path.display()));
            sent += 1;
        }
    }
    assert!(sent >= 500, "only {sent} requests");
}
