//! Emulate API v1 on the devnet.

use super::*;

/// `tests/python/emulate_trace.py`: a tonutils wallet's signed transfer,
/// emulated with `emulateTrace` (nothing sent), then sent: the chain's
/// trace is the one emulated — transactions, tree, outcomes, balances,
/// actions — and bad requests get toncenter's words.
#[test]
fn emulate_trace_foresees_what_the_chain_does() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let v = python("emulate_trace.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

/// `tests/python/emulate_tonconnect.py`: `emulateTonConnect` for a v4r2
/// and a v5r1 wallet builds the wallet's message from its state and
/// emulates it (nothing sent); the same transfer signed by tonutils with
/// the wallet's key, sent, makes the trace emulated; bad requests get
/// toncenter's words.
#[test]
fn emulate_ton_connect_for_v4r2_and_v5r1_wallets() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let v = python("emulate_tonconnect.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}
