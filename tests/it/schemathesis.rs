//! Schemathesis (PyPI; installed by .ci/run) against the fixture index
//! served on a real socket: the peers' OpenAPI schemas from tests/data/spec
//! (toncenter's v3 swagger and the C++ v2 server's schema, with the known
//! errors that spec/v3.md and spec/v2.md point out corrected in
//! tests/schemathesis/run.py), and the schemas tonindex serves itself.
//! No 5xx but those the wire contract prescribes, and every response
//! conforms. Bounded in time: a fixed seed and a budget per schema.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

fn run(which: &str, seconds: u32) {
    let (_rt, addr) = common::api::serve_fixture();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/schemathesis");
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(dir.join("run.py"))
        .arg(format!("http://{addr}"))
        .arg(which)
        .arg(seconds.to_string())
        .arg(work.path())
        .output()
        .expect("python3 with schemathesis is required (pip install schemathesis)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "schemathesis ({which}) failed:\n{stdout}\n{stderr}"
    );
    // Every selected operation was exercised.
    assert!(stdout.contains("passed"), "{stdout}");
    println!("{stdout}");
}

#[test]
fn v3_against_toncenters_schema() {
    run("v3", 60);
}

#[test]
fn v2_against_the_cpp_servers_schema() {
    run("v2", 60);
}

#[test]
fn v3_against_its_own_served_schema() {
    run("own-v3", 45);
}

#[test]
fn v2_against_its_own_served_schema() {
    run("own-v2", 45);
}
