//! @ton/ton (`TonClient`) and tonweb (`HttpProvider`) — the npm clients
//! people use — read masterchain info, shards, block transactions and an
//! account's transactions from `tonindex serve`-style HTTP over the fixture
//! index. Needs `node` and `npm` (installed by `.ci/run`); the npm packages
//! are installed into tests/clients on first use.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::api::{b64, fixture};
use serde_json::json;
use tonindex::api::encoding::friendly_bounceable;

fn clients_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

#[test]
fn ton_and_tonweb_clients_read_the_index() {
    common::npm_install(&clients_dir(), &["@ton/ton", "tonweb"]);
    let f = fixture();

    // Serve the fixture index on a real socket.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let router = f.router.clone();
    // Through the server's own connection layer (cap, timeouts, parser
    // errors), as `tonindex serve` runs it.
    let limits = tonindex::api::server::ConnLimits {
        max_connections: 64,
        max_refusing: 8,
        header_timeout: std::time::Duration::from_secs(10),
    };
    rt.spawn(tonindex::api::server::serve(
        listener,
        router,
        limits,
        std::future::pending(),
    ));

    // What the clients must see, from the decoder.
    let mc = f.newest_mc(|_| true);
    let with_shards = f.newest_mc(|b| !b.shards.is_empty());
    // TonClient asks for the default 40 and refuses an incomplete list.
    let block = f
        .blocks
        .iter()
        .filter(|b| b.record.id.id.workchain == 0 && (2..=40).contains(&b.transactions.len()))
        .max_by_key(|b| b.transactions.len())
        .unwrap();
    let account = f.busiest_account();
    let history: Vec<_> = f.account_txs(&account).into_iter().take(5).collect();
    let want = json!({
        "last_mc_seqno": mc.record.id.id.seqno,
        "shards_mc_seqno": with_shards.record.id.id.seqno,
        "shard_seqnos": with_shards.shards.iter().map(|s| s.block.id.seqno).collect::<Vec<_>>(),
        "block": {
            "workchain": block.record.id.id.workchain,
            "shard": (block.record.id.id.shard as i64).to_string(),
            "seqno": block.record.id.id.seqno,
            "tx_hashes": block.transactions.iter().map(|t| b64(&t.record.hash)).collect::<Vec<_>>(),
        },
        "account": {
            "address": friendly_bounceable(&account),
            "tx_hashes": history.iter().map(|t| b64(&t.record.hash)).collect::<Vec<_>>(),
            "tx_lts": history.iter().map(|t| t.record.lt.to_string()).collect::<Vec<_>>(),
        },
    });
    let expect = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(expect.path(), want.to_string()).unwrap();

    let out = Command::new("node")
        .arg(clients_dir().join("clients.mjs"))
        .arg(format!("http://{addr}"))
        .arg(expect.path())
        .output()
        .expect("node is required for the client tests (apt install nodejs npm)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "clients failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("@ton/ton TonClient") && stdout.contains("tonweb HttpProvider"),
        "{stdout}"
    );
    println!("{stdout}");
}
