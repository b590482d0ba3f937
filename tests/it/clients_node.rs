//! @ton/ton (`TonClient`) and tonweb (`HttpProvider`) — the npm clients
//! people use — read masterchain info, shards, block transactions and an
//! account's transactions from `tonindex serve`-style HTTP over the fixture
//! index. Needs `node` and `npm` (installed by `.ci/run`); the npm packages
//! are installed into tests/clients on first use.

use crate::common;

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

    let (_rt, addr) = common::api::serve_fixture();

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

/// Every kind of BoC the APIs hand out — transactions, message bodies and
/// init states, account code and data, config params, ShardAccount cells,
/// get-method stack cells — read by tonweb's strict parser and by
/// @ton/core, which agree on every root hash. (tonweb could not read a
/// config param whose cells tycho had kept with stored hashes.)
#[test]
fn tonweb_reads_every_boc_kind() {
    common::npm_install(&clients_dir(), &["@ton/core", "tonweb"]);
    let f = fixture();
    let (_rt, addr) = common::api::serve_fixture();
    let account = friendly_bounceable(&f.busiest_account());
    let key = f.newest_mc(|b| b.config_boc.is_some());
    let config = tycho_types::boc::Boc::decode(key.config_boc.as_ref().unwrap()).unwrap();
    let ids: Vec<u32> =
        tycho_types::dict::Dict::<u32, tycho_types::cell::Cell>::from_raw(Some(config))
            .keys()
            .map(|k| k.unwrap())
            .collect();
    let mut requests = vec![
        json!({"kind": "v2 transactions and messages", "path": format!("/api/v2/getTransactions?address={account}&limit=20"), "min": 20}),
        json!({"kind": "v3 message bodies", "path": format!("/api/v3/transactions?account={account}&limit=20"), "min": 20}),
        json!({"kind": "v3 messages", "path": "/api/v3/messages?limit=50", "min": 20}),
        json!({"kind": "config", "path": "/api/v2/getConfigAll", "min": 1}),
    ];
    for id in &ids {
        requests.push(json!({"kind": "config params", "path": format!("/api/v2/getConfigParam?config_id={id}"), "min": ids.len()}));
    }
    // Held states: wallets, jetton wallets and other contracts.
    let active = common::fat_block_active_accounts();
    for a in active.iter().take(40) {
        let addr = tonindex::api::encoding::raw_upper(&tonindex_model::Address {
            workchain: a.address.workchain as i32,
            id: *a.address.address.as_array(),
        });
        requests.push(json!({"kind": "v2 code and data", "path": format!("/api/v2/getAddressInformation?address={addr}"), "min": 80}));
        requests.push(json!({"kind": "v3 code and data", "path": format!("/api/v3/account?address={addr}"), "min": 80}));
        requests.push(json!({"kind": "shard account cells", "path": format!("/api/v2/getShardAccountCell?address={addr}"), "min": 40}));
    }
    // Jetton wallets answer get_wallet_data with slices and a code cell.
    for a in &active {
        let addr = tonindex::api::encoding::raw_upper(&tonindex_model::Address {
            workchain: a.address.workchain as i32,
            id: *a.address.address.as_array(),
        });
        requests.push(json!({"kind": "get-method cells", "path": format!("/api/v2/runGetMethod?address={addr}&method=get_wallet_data&stack=%5B%5D"), "min": 3}));
    }
    let list = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(list.path(), serde_json::Value::Array(requests).to_string()).unwrap();
    let out = Command::new("node")
        .arg(clients_dir().join("bocs_tonweb.mjs"))
        .arg(format!("http://{addr}"))
        .arg(list.path())
        .output()
        .expect("node is required for the client tests (apt install nodejs npm)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tonweb failed:\n{stdout}\n{stderr}");
    println!("{stdout}");
}
