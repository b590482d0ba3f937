//! A devnet whose basechain is split into four shards, one of which splits
//! and merges back every four masterchain blocks (`--shards 4
//! --split-merge-every 4`): @ton/ton and tonweb work unchanged across
//! shards, transfers between shards complete their traces, every road into
//! the index — the devnet's own rounds, a follower (`tonindex run` on the
//! devnet's lite server, following live), `tonindex import` of the exported block
//! files and of the exported archive packages — ends with every table
//! equal, and pytoniq-core — not ours — parses every block: each
//! masterchain block's shard hashes name blocks that cover the basechain
//! exactly once, splits and merges link to their previous blocks as TON's
//! do, and the index stores the layout each masterchain block names.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use tonindex_model::BlockId;
use tonindex_storage::tables::{McBlockKey, McShardState};
use tonindex_storage::{Db, DbOptions};

use super::{
    clients_dir, common, fund, json, node, python, start_run, table_digests, wait_for_seqno, Dev,
};

use common::hex32;

fn shard_of(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap(), 16).unwrap()
}

/// The addresses a shard id covers: its prefix bits, every tail.
fn range_of(shard: u64) -> (u64, u64) {
    let tag = shard & shard.wrapping_neg();
    (shard - tag, shard - tag + (tag - 1) + tag)
}

#[test]
fn a_sharded_devnet_splits_merges_and_is_followed_exactly() {
    common::npm_install(&clients_dir(), &["@ton/ton", "tonweb"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let exported = dir.path().join("blocks");
    let packages = dir.path().join("packages");
    let config = dir.path().join("global.json");
    let lite = common::free_port();
    let dev = Dev::start(
        &db,
        &[
            "--shards",
            "4",
            "--split-merge-every",
            "4",
            "--export-blocks",
            exported.to_str().unwrap(),
            "--export-packages",
            packages.to_str().unwrap(),
            "--liteserver-listen",
            &format!("127.0.0.1:{lite}"),
            "--liteserver-config",
            config.to_str().unwrap(),
        ],
    );
    common::wait_listening(lite);
    let follower = dir.path().join("follower");
    let (mut run, http) = start_run(&follower, &config, &[]);

    // Real clients, unchanged, on wallets spread over the shards.
    for version in ["v4", "v5"] {
        let out = node("devnet_tonton.mjs", &[&dev.url(), version]);
        assert_eq!(out["ok"], true, "{out}");
    }
    let out = node("devnet_tonweb.mjs", &[&dev.url()]);
    assert_eq!(out["ok"], true, "{out}");
    // The faucet pays into every quarter of the basechain and the masterchain.
    for first in ["11", "55", "99", "dd", "3c", "c3"] {
        fund(&dev, &format!("0:{}", first.repeat(32)), 1_000_000_000);
    }
    fund(&dev, &format!("-1:{}", "5a".repeat(32)), 1_000_000_000);
    // Every trace completed: cross-shard messages were delivered.
    let (status, traces) = json(dev.port, "GET", "/api/v3/traces?limit=256", "");
    assert_eq!(status, 200, "{traces}");
    let traces = traces["traces"].as_array().unwrap();
    assert!(traces.len() >= 10, "{traces:?}");
    for t in traces {
        assert_eq!(t["is_incomplete"], false, "{t}");
        assert_eq!(t["trace_info"]["trace_state"], "complete", "{t}");
    }

    // The follower reaches the tip and serves the same shard layout.
    let tip = dev.mc_seqno();
    wait_for_seqno(&mut run, http, tip);
    // `init` is the followed network's zero state (not the default config's).
    let init =
        |port: u16| json(port, "GET", "/api/v2/getMasterchainInfo", "").1["result"]["init"].clone();
    assert_eq!(init(http), init(dev.port));
    for seqno in [tip - 1, tip] {
        let path = format!("/api/v2/shards?seqno={seqno}");
        let strip = |(_, mut v): (u16, Value)| {
            v.as_object_mut().map(|o| o.remove("@extra"));
            v
        };
        assert_eq!(
            strip(json(http, "GET", &path, "")),
            strip(json(dev.port, "GET", &path, "")),
            "{path}"
        );
    }
    unsafe {
        libc::kill(run.id() as i32, libc::SIGTERM);
    }
    assert!(run.wait().unwrap().success());
    dev.stop(false);
    let devnet_tables = table_digests(&db);
    assert!(devnet_tables.as_array().is_some_and(|t| t.len() > 10));
    assert_eq!(
        devnet_tables,
        table_digests(&follower),
        "tables of the devnet and of its follower"
    );
    for (name, input) in [("files", &exported), ("packages", &packages)] {
        let imported = dir.path().join(name);
        let out = std::process::Command::new(common::tonindex_bin())
            .args(["import", "--db"])
            .arg(&imported)
            .arg(input)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("block(s) applied to held shard states"),
            "{said}"
        );
        assert_eq!(
            devnet_tables,
            table_digests(&imported),
            "tables of the devnet and of an import of its {name}"
        );
    }

    blocks_agree_with_pytoniq(&db, &exported);
}

/// pytoniq-core parses every exported block: its transactions are the
/// index's, each shard block follows its previous block(s) as TON's do
/// (splits and merges among them), and each masterchain block's shard
/// layout covers the basechain once and is the one the index stores.
fn blocks_agree_with_pytoniq(db: &Path, exported: &Path) {
    let parsed = python("devnet_blocks.py", &[exported]);
    let blocks = parsed["blocks"].as_array().unwrap();
    let by_root: HashMap<&str, &Value> = blocks
        .iter()
        .map(|b| (b["root_hash"].as_str().unwrap(), b))
        .collect();
    let index = Db::open(db, &DbOptions::default()).unwrap();
    let reader = index.reader();
    let (mut splits, mut merges, mut most_shards) = (0, 0, 0);
    for b in blocks {
        let shard = shard_of(&b["shard"]);
        let workchain = b["workchain"].as_i64().unwrap() as i32;
        assert_eq!(b["global_id"], -239);
        // Its transactions, as pytoniq-core hashes them, are the index's.
        let id = BlockId {
            workchain,
            shard,
            seqno: b["seqno"].as_u64().unwrap() as u32,
        };
        let (ours, theirs) = common::block_transactions(&reader, &id, b);
        assert_eq!(ours, theirs, "transactions of {id:?}");

        // A shard block follows its previous block(s) as TON's do.
        let prev: Vec<&Value> = b["prev"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["seqno"] != 0)
            .map(|p| by_root[p["root_hash"].as_str().unwrap()])
            .collect();
        if workchain == 0 && !prev.is_empty() {
            if b["after_merge"] == true {
                merges += 1;
                assert_eq!(prev.len(), 2);
                let (l, r) = (shard_of(&prev[0]["shard"]), shard_of(&prev[1]["shard"]));
                assert_eq!((range_of(l).0, range_of(r).1), range_of(shard), "{b}");
                assert_eq!(prev[0]["want_merge"], true);
            } else if b["after_split"] == true {
                splits += 1;
                let parent = shard_of(&prev[0]["shard"]);
                let (lo, hi) = range_of(parent);
                assert!(range_of(shard).0 >= lo && range_of(shard).1 <= hi, "{b}");
                assert_eq!(prev[0]["before_split"], true);
            } else {
                assert_eq!(prev[0]["shard"], b["shard"], "{b}");
                assert_eq!(b["old_hash"], prev[0]["new_hash"], "{b}");
            }
        }

        // A masterchain block names blocks covering the basechain once.
        if let Some(listed) = b["shards"].as_array() {
            most_shards = most_shards.max(listed.len());
            masterchain_layout_agrees(&reader, id.seqno, listed, &by_root);
        }
    }
    assert!(splits >= 6, "the initial splits and a later one: {splits}");
    assert!(merges >= 1, "a split pair merged back: {merges}");
    assert_eq!(most_shards, 5, "four shards, one of them split");
}

/// The shard blocks masterchain block `mc_seqno` names (`listed`, each
/// found among the parsed blocks `by_root`) cover the basechain once, and
/// the index stores that layout.
fn masterchain_layout_agrees(
    reader: &tonindex_storage::Reader<'_>,
    mc_seqno: u32,
    listed: &[Value],
    by_root: &HashMap<&str, &Value>,
) {
    let mut ranges: Vec<(u64, u64)> = listed
        .iter()
        .map(|s| {
            let top = by_root[s["root_hash"].as_str().unwrap()];
            assert_eq!(top["shard"], s["shard"], "{s}");
            assert_eq!(top["seqno"], s["seqno"], "{s}");
            assert_eq!(top["file_hash"], s["file_hash"], "{s}");
            assert_eq!(top["before_split"], s["before_split"], "{s}");
            range_of(shard_of(&s["shard"]))
        })
        .collect();
    ranges.sort();
    assert_eq!(ranges[0].0, 0);
    assert_eq!(ranges.last().unwrap().1, u64::MAX);
    for w in ranges.windows(2) {
        assert_eq!(w[0].1.wrapping_add(1), w[1].0, "{listed:?}");
    }
    // The index stores the layout the block names.
    let mut stored: Vec<(u64, u32, [u8; 32])> = reader
        .prefix::<McShardState>(&McBlockKey::prefix(mc_seqno), false)
        .map(|r| {
            let (_, d) = r.unwrap();
            (d.block.id.shard, d.block.id.seqno, d.block.root_hash)
        })
        .collect();
    let mut named: Vec<(u64, u32, [u8; 32])> = listed
        .iter()
        .map(|s| {
            (
                shard_of(&s["shard"]),
                s["seqno"].as_u64().unwrap() as u32,
                hex32(&s["root_hash"]),
            )
        })
        .collect();
    stored.sort();
    named.sort();
    assert_eq!(
        stored, named,
        "shard layout at masterchain block {}",
        mc_seqno
    );
}
