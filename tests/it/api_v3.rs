//! API v3 over an index of real fixture blocks: each endpoint's objects are
//! checked field by field against the decoded blocks, and pages against
//! the order of the data.

use crate::common;
/// `/traces` and `/actions` pages against a scan of every settled trace.
mod pages;

use common::api::{b64, boc_root_hash, fixture, get, q};
use serde_json::Value;
use tonindex::api::encoding::raw_upper;

fn lts(v: &Value) -> Vec<u64> {
    v["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["lt"].as_str().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn masterchain_info_and_blocks() {
    let f = fixture();
    let mc: Vec<_> = f
        .blocks
        .iter()
        .filter(|b| b.record.id.id.workchain == -1)
        .map(|b| &b.record)
        .collect();
    let last = mc.iter().max_by_key(|b| b.id.id.seqno).unwrap();
    let first = mc.iter().min_by_key(|b| b.id.id.seqno).unwrap();

    let r = get("/api/v3/masterchainInfo");
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["x-api-version"], "1.2.10");
    for (key, b) in [("last", last), ("first", first)] {
        let j = &r.json[key];
        assert_eq!(j["seqno"], b.id.id.seqno);
        assert_eq!(j["shard"], "8000000000000000");
        assert_eq!(j["root_hash"], b64(&b.id.root_hash));
        assert_eq!(j["file_hash"], b64(&b.id.file_hash));
        assert_eq!(j["gen_utime"], b.gen_utime.to_string());
        assert_eq!(j["start_lt"], b.start_lt.to_string());
        assert_eq!(j["end_lt"], b.end_lt.to_string());
        assert_eq!(j["global_id"], b.global_id);
        assert_eq!(j["key_block"], b.key_block);
        assert_eq!(j["masterchain_block_ref"]["seqno"], b.id.id.seqno);
    }

    // /blocks sorted by gen_utime, paged with offset.
    let all = get("/api/v3/blocks?workchain=-1&sort=asc&limit=1000");
    let times: Vec<u64> = all.json["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["gen_utime"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(times.len(), mc.len());
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let page2 = get("/api/v3/blocks?workchain=-1&sort=asc&limit=3&offset=3");
    assert_eq!(
        page2.json["blocks"].as_array().unwrap()[..],
        all.json["blocks"].as_array().unwrap()[3..6]
    );
    let desc = get("/api/v3/blocks?workchain=-1&sort=desc&limit=2");
    assert_eq!(
        desc.json["blocks"][0]["gen_utime"],
        last.gen_utime.to_string()
    );

    // By root hash, file hash, and the masterchain block that commits it.
    let shard_block = f
        .blocks
        .iter()
        .map(|b| &b.record)
        .find(|b| b.id.id.workchain == 0)
        .unwrap();
    for key in ["root_hash", "file_hash"] {
        let h = if key == "root_hash" {
            shard_block.id.root_hash
        } else {
            shard_block.id.file_hash
        };
        let r = get(&format!("/api/v3/blocks?{key}={}", q(&b64(&h))));
        assert_eq!(r.json["blocks"].as_array().unwrap().len(), 1, "{key}");
        let b = &r.json["blocks"][0];
        assert_eq!(b["seqno"], shard_block.id.id.seqno);
        assert_eq!(b["tx_count"], shard_block.tx_count);
        assert_eq!(
            b["prev_blocks"][0]["seqno"],
            shard_block.prev_blocks[0].block.id.seqno
        );
    }
    let r = get(&format!("/api/v3/blocks?mc_seqno={}", last.id.id.seqno));
    assert!(r.json["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["workchain"] == -1 && b["seqno"] == last.id.id.seqno));

    // Shard state: the masterchain block plus the indexed top shard blocks.
    let r = get(&format!(
        "/api/v3/masterchainBlockShardState?seqno={}",
        last.id.id.seqno
    ));
    assert_eq!(r.status, 200);
    assert_eq!(r.json["blocks"][0]["seqno"], last.id.id.seqno);
    let r = get(&format!(
        "/api/v3/masterchainBlockShards?seqno={}",
        last.id.id.seqno
    ));
    assert_eq!(r.status, 200);
    assert_eq!(get("/api/v3/masterchainBlockShards?seqno=1").status, 404);
    assert_eq!(
        get("/api/v3/masterchainBlockShardState?seqno=1").json["error"],
        "blocks not found"
    );
}

#[test]
fn account_transactions_are_paged_in_lt_order_with_exact_fields() {
    let f = fixture();
    let account = f.busiest_account();
    let expected = f.account_txs(&account);
    assert!(
        expected.len() >= 4,
        "fixture account has {} txs",
        expected.len()
    );
    let addr = raw_upper(&account);

    let page1 = get(&format!(
        "/api/v3/transactions?account={addr}&limit=2&sort=desc"
    ));
    let page2 = get(&format!(
        "/api/v3/transactions?account={addr}&limit=2&offset=2&sort=desc"
    ));
    let want: Vec<u64> = expected.iter().map(|t| t.record.lt).collect();
    assert_eq!(lts(&page1.json), want[..2]);
    assert_eq!(lts(&page2.json), want[2..4]);
    let asc = get(&format!(
        "/api/v3/transactions?account={addr}&limit=1000&sort=asc"
    ));
    let mut want_asc = want.clone();
    want_asc.reverse();
    assert_eq!(lts(&asc.json), want_asc);
    assert!(asc.json["address_book"][&addr]["user_friendly"].is_string());

    // Every field of every transaction, against the decoder.
    for (j, t) in asc.json["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .zip(expected.iter().rev())
    {
        let r = &t.record;
        assert_eq!(j["account"], addr);
        assert_eq!(j["hash"], b64(&r.hash));
        assert_eq!(j["now"], r.now);
        assert_eq!(j["prev_trans_hash"], b64(&r.prev_trans_hash));
        assert_eq!(j["prev_trans_lt"], r.prev_trans_lt.to_string());
        assert_eq!(j["total_fees"], r.total_fees.grams.to_string());
        assert_eq!(j["block_ref"]["seqno"], r.block.seqno);
        assert_eq!(
            j["account_state_after"]["hash"],
            b64(&r.account_state_hash_after)
        );
        assert_eq!(j["finality"], "finalized");
        match &t.in_msg {
            None => assert!(j["in_msg"].is_null()),
            Some(m) => {
                assert_eq!(j["in_msg"]["hash"], b64(&m.hash));
                assert_eq!(
                    j["in_msg"]["value"],
                    m.value
                        .as_ref()
                        .map_or(Value::Null, |v| v.grams.to_string().into())
                );
                assert_eq!(
                    j["in_msg"]["opcode"],
                    m.opcode
                        .map_or(Value::Null, |o| format!("0x{o:08x}").into())
                );
                assert_eq!(j["in_msg"]["message_content"]["hash"], b64(&m.body_hash));
                let body = j["in_msg"]["message_content"]["body"].as_str().unwrap();
                assert!(body.starts_with("te6cck"), "bodies carry a CRC: {body}");
            }
        }
        let out: Vec<&str> = j["out_msgs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["hash"].as_str().unwrap())
            .collect();
        assert_eq!(out.len(), t.out_msgs.len());
        for m in &t.out_msgs {
            assert!(out.contains(&b64(&m.hash).as_str()));
        }
    }

    // By hash, by lt, by block; lt range.
    let t = expected[1];
    let r = get(&format!(
        "/api/v3/transactions?hash={}",
        q(&b64(&t.record.hash))
    ));
    assert_eq!(lts(&r.json), vec![t.record.lt]);
    let hex = hex::encode(t.record.hash);
    assert_eq!(
        lts(&get(&format!("/api/v3/transactions?hash={hex}")).json),
        vec![t.record.lt]
    );
    // As a `0x` number without its leading zeros (how @ton/walletkit
    // writes a hash), for every transaction of the page, some of whose
    // hashes start with a zero digit.
    let mut short = 0;
    for t in &expected {
        let digits = hex::encode(t.record.hash);
        let number = format!("0x{}", digits.trim_start_matches('0'));
        short += usize::from(number.len() < 66);
        assert_eq!(
            lts(&get(&format!("/api/v3/transactions?hash={number}")).json),
            vec![t.record.lt],
            "{number}"
        );
    }
    assert!(short > 0, "no hash of the page starts with a zero digit");
    let r = get(&format!(
        "/api/v3/transactions?account={addr}&start_lt={}&end_lt={}",
        expected[2].record.lt, expected[1].record.lt
    ));
    assert_eq!(lts(&r.json), want[1..3]);
}

#[test]
fn block_and_masterchain_block_transactions() {
    let f = fixture();
    let b = f
        .blocks
        .iter()
        .find(|b| b.record.id.id.workchain == 0 && b.transactions.len() > 1)
        .unwrap();
    let id = &b.record.id.id;
    let r = get(&format!(
        "/api/v3/transactions?workchain={}&shard={:016x}&seqno={}&sort=asc&limit=1000",
        id.workchain, id.shard, id.seqno
    ));
    let mut got: Vec<String> = r.json["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["hash"].as_str().unwrap().to_string())
        .collect();
    let mut want: Vec<String> = b.transactions.iter().map(|t| b64(&t.record.hash)).collect();
    assert!(lts(&r.json).windows(2).all(|w| w[0] <= w[1]));
    got.sort();
    want.sort();
    assert_eq!(got, want);

    let mc = f.newest_mc(|b| !b.transactions.is_empty());
    let seqno = mc.record.id.id.seqno;
    let r = get(&format!(
        "/api/v3/transactionsByMasterchainBlock?seqno={seqno}&sort=asc"
    ));
    assert_eq!(r.status, 200);
    let got = lts(&r.json);
    assert!(got.len() >= mc.transactions.len());
    assert!(got.windows(2).all(|w| w[0] <= w[1]));
    let same = get(&format!(
        "/api/v3/transactions?mc_seqno={seqno}&sort=asc&limit=1000"
    ));
    assert_eq!(lts(&same.json), got);
    let missing = get("/api/v3/transactionsByMasterchainBlock?seqno=7");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json["error"], "masterchain block 7 not found");
}

#[test]
fn transactions_by_message_adjacent_and_messages() {
    let (msg, sender, receiver) = {
        let (m, s, r) = fixture().internal_pair();
        (m.hash, s.record.hash, r.record.hash)
    };
    let r = get(&format!(
        "/api/v3/transactionsByMessage?msg_hash={}",
        q(&b64(&msg))
    ));
    let hashes: Vec<&str> = r.json["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["hash"].as_str().unwrap())
        .collect();
    assert_eq!(hashes.len(), 2);
    assert!(hashes.contains(&b64(&sender).as_str()) && hashes.contains(&b64(&receiver).as_str()));
    let r = get(&format!(
        "/api/v3/transactionsByMessage?msg_hash={}&direction=in",
        q(&b64(&msg))
    ));
    assert_eq!(r.json["transactions"][0]["hash"], b64(&receiver));

    let r = get(&format!(
        "/api/v3/adjacentTransactions?hash={}&direction=in",
        q(&b64(&receiver))
    ));
    assert_eq!(r.json["transactions"][0]["hash"], b64(&sender));
    let r = get(&format!(
        "/api/v3/adjacentTransactions?hash={}&direction=out",
        q(&b64(&sender))
    ));
    assert!(r.json["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["hash"] == b64(&receiver)));

    let r = get(&format!("/api/v3/messages?msg_hash={}", q(&b64(&msg))));
    let m = &r.json["messages"][0];
    assert_eq!(m["hash"], b64(&msg));
    assert_eq!(m["in_msg_tx_hash"], b64(&receiver));
    assert_eq!(m["out_msg_tx_hash"], b64(&sender));
    let txs = fixture().txs();
    let decoded = txs[&receiver].1.in_msg.as_ref().unwrap();
    assert_eq!(m["source"], raw_upper(&decoded.source.unwrap()));
    assert_eq!(m["created_lt"], decoded.created_lt.unwrap().to_string());
    assert_eq!(m["fwd_fee"], decoded.fwd_fee.unwrap().to_string());
    assert!(!r.json["address_book"].as_object().unwrap().is_empty());

    // The sender's messages, ordered by created_lt.
    let source = raw_upper(&decoded.source.unwrap());
    let r = get(&format!(
        "/api/v3/messages?source={source}&sort=asc&limit=1000"
    ));
    let created: Vec<u64> = r.json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["created_lt"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(!created.is_empty());
    assert!(created.windows(2).all(|w| w[0] <= w[1]));
    let ext_in = get("/api/v3/messages?source=null&limit=5");
    for m in ext_in.json["messages"].as_array().unwrap() {
        assert!(m["source"].is_null());
        assert!(m["hash_norm"].is_string());
    }

    // An external-in message is found by its TEP-467 normalized hash too.
    let (ext, receiver) = fixture()
        .blocks
        .iter()
        .flat_map(|b| &b.transactions)
        .find_map(|t| {
            let m = t.in_msg.as_ref()?;
            (m.hash_norm.is_some_and(|n| n != m.hash)).then_some((m, t.record.hash))
        })
        .expect("an external-in message whose normalized hash differs");
    let norm = b64(&ext.hash_norm.unwrap());
    let r = get(&format!(
        "/api/v3/transactionsByMessage?msg_hash={}",
        q(&norm)
    ));
    let found = r.json["transactions"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{}", r.json);
    assert_eq!(found[0]["hash"], b64(&receiver));
    assert_eq!(found[0]["in_msg"]["hash_norm"], norm);
    let r = get(&format!("/api/v3/messages?msg_hash={}", q(&norm)));
    let found = r.json["messages"].as_array().unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["hash"], b64(&ext.hash));
    // Both forms in one request name the same message once.
    let r = get(&format!(
        "/api/v3/messages?msg_hash={}&msg_hash={}",
        q(&norm),
        q(&b64(&ext.hash))
    ));
    assert_eq!(r.json["messages"].as_array().unwrap().len(), 1);
}

#[test]
fn address_book_forms() {
    let f = fixture();
    let a = f.busiest_account();
    let raw = raw_upper(&a);
    let r = get(&format!(
        "/api/v3/addressBook?address={raw}&address=nonsense"
    ));
    assert_eq!(r.status, 200);
    let uf = r.json[&raw]["user_friendly"].as_str().unwrap();
    let parsed = tonindex::api::encoding::parse_address(uf).unwrap();
    assert_eq!(parsed.address, a);
    assert!(r.json["nonsense"]["user_friendly"].is_null());
    assert_eq!(r.json[&raw]["interfaces"], serde_json::json!([]));
    // A comma-separated list names the same addresses as repeated keys.
    let other = f
        .txs()
        .values()
        .map(|(_, t)| t.record.account)
        .find(|x| *x != a)
        .unwrap();
    let other = raw_upper(&other);
    let listed = get(&format!("/api/v3/addressBook?address={raw},{other}"));
    let repeated = get(&format!(
        "/api/v3/addressBook?address={raw}&address={other}"
    ));
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json, repeated.json);
    assert_eq!(listed.json.as_object().unwrap().len(), 2, "{}", listed.json);
    let none = get("/api/v3/addressBook");
    assert_eq!(none.status, 422);
    assert_eq!(none.json["error"], "at least 1 address required");
}

#[test]
fn bad_input_gets_v3_errors_never_500() {
    let cases: &[(&str, u16)] = &[
        ("/api/v3/transactions?account=0:zz", 422),
        ("/api/v3/transactions?hash=abc", 422),
        ("/api/v3/transactions?limit=1001", 422),
        ("/api/v3/transactions?limit=abc", 422),
        ("/api/v3/transactions?sort=sideways", 422),
        ("/api/v3/blocks?shard=xyz", 422),
        ("/api/v3/blocks?workchain=99999999999", 422),
        ("/api/v3/messages?opcode=0xZZ", 422),
        ("/api/v3/messages?direction=up", 422),
        ("/api/v3/transactionsByMessage", 422),
        ("/api/v3/adjacentTransactions", 422),
        ("/api/v3/adjacentTransactions?hash=0000000000000000000000000000000000000000000000000000000000000000", 404),
        ("/api/v3/transactionsByMasterchainBlock?seqno=-5", 422),
        ("/api/v3/nope", 404),
        ("/api/v3/dns/records", 422),
        ("/api/v3/nft/sales", 422),
        ("/api/v3/nft/sales?address=nope", 422),
        ("/api/v3/balanceChanges", 400),
        ("/api/v3/balanceChanges?trace_id=nope", 422),
        ("/api/v3/balanceChanges?trace_id=0000000000000000000000000000000000000000000000000000000000000000", 404),
        ("/api/v3/balanceChanges?action_id=0000000000000000000000000000000000000000000000000000000000000000", 404),
        ("/api/v3/nft/items?index=5", 422),
        ("/api/v3/nft/items?collection_address=0:0000000000000000000000000000000000000000000000000000000000000001&index=5x", 422),
        ("/api/v3/nft/transfers?direction=sideways", 422),
        ("/api/v3/jetton/wallets?owner_address=nope", 422),
        ("/api/v3/jetton/wallets?exclude_zero_balance=maybe", 422),
        (
            "/api/v3/jetton/wallets?jetton_address=0:0000000000000000000000000000000000000000000000000000000000000001&jetton_address=0:0000000000000000000000000000000000000000000000000000000000000002",
            422,
        ),
        ("/api/v3/jetton/masters?admin_address=0:zz", 422),
        ("/api/v3/jetton/masters?limit=100000", 422),
        ("/api/v3/multisig/wallets", 422),
        ("/api/v3/multisig/wallets?wallet_address=0:zz", 422),
        ("/api/v3/multisig/wallets?address=0:0000000000000000000000000000000000000000000000000000000000000001&include_orders=perhaps", 422),
        ("/api/v3/multisig/orders?parse_actions=true", 422),
        ("/api/v3/multisig/orders?multisig_address=nope", 422),
        ("/api/v3/vesting", 422),
        (
            "/api/v3/vesting?contract_address=0:0000000000000000000000000000000000000000000000000000000000000001&wallet_address=0:0000000000000000000000000000000000000000000000000000000000000002",
            422,
        ),
        ("/api/v3/vesting?wallet_address=0:0000000000000000000000000000000000000000000000000000000000000002&check_whitelist=2x", 422),
        ("/api/v3/topAccountsByBalance?offset=x", 422),
        ("/api/v3/metadata", 422),
        ("/api/v3/decode?opcodes=0x0f8a7ea5&opcodes=xyz", 422),
    ];
    for (uri, status) in cases {
        let r = get(uri);
        assert_eq!(r.status.as_u16(), *status, "{uri}: {}", r.json);
        assert!(r.json["error"].is_string(), "{uri}: {}", r.json);
    }
    // Negative limit is coerced to 1, negative offset to 0.
    let r = get("/api/v3/transactions?limit=-5&offset=-2");
    assert_eq!(r.json["transactions"].as_array().unwrap().len(), 1);
}

/// `opcode` and `body_hash` filters answer from their own indexes: exactly
/// the fixture's messages with that opcode / body, and for
/// `/transactionsByMessage` the transactions that received them.
#[test]
fn messages_and_transactions_by_opcode_and_body_hash() {
    use std::collections::{BTreeSet, HashMap};
    let f = fixture();
    let txs: Vec<_> = f.blocks.iter().flat_map(|b| &b.transactions).collect();
    let all_msgs: HashMap<[u8; 32], &tonindex_model::MessageRecord> = txs
        .iter()
        .flat_map(|t| t.in_msg.iter().chain(&t.out_msgs))
        .map(|m| (m.hash, m))
        .collect();
    let hashes = |v: &Value, key: &str| -> BTreeSet<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["hash"].as_str().unwrap().to_string())
            .collect()
    };

    // The opcode most received in the fixture.
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for t in &txs {
        if let Some(op) = t.in_msg.as_ref().and_then(|m| m.opcode) {
            *counts.entry(op).or_default() += 1;
        }
    }
    let (&op, &n) = counts.iter().max_by_key(|(op, n)| (**n, **op)).unwrap();
    assert!(n >= 2);
    let want: BTreeSet<String> = all_msgs
        .values()
        .filter(|m| m.opcode == Some(op))
        .map(|m| b64(&m.hash))
        .collect();
    let r = get(&format!("/api/v3/messages?opcode=0x{op:08x}&limit=1000"));
    assert_eq!(hashes(&r.json, "messages"), want);
    let receivers: BTreeSet<String> = txs
        .iter()
        .filter(|t| t.in_msg.as_ref().is_some_and(|m| m.opcode == Some(op)))
        .map(|t| b64(&t.record.hash))
        .collect();
    let r = get(&format!(
        "/api/v3/transactionsByMessage?opcode=0x{op:08x}&limit=1000"
    ));
    assert_eq!(hashes(&r.json, "transactions"), receivers);

    // A body shared by several messages, but not by most.
    let mut bodies: HashMap<[u8; 32], usize> = HashMap::new();
    for m in all_msgs.values() {
        *bodies.entry(m.body_hash).or_default() += 1;
    }
    let (&body, _) = bodies
        .iter()
        .filter(|(_, n)| (2..=100).contains(*n))
        .max_by_key(|(h, n)| (**n, **h))
        .expect("a body hash shared by 2..=100 messages");
    let want: BTreeSet<String> = all_msgs
        .values()
        .filter(|m| m.body_hash == body)
        .map(|m| b64(&m.hash))
        .collect();
    let r = get(&format!(
        "/api/v3/messages?body_hash={}&limit=1000",
        q(&b64(&body))
    ));
    assert_eq!(hashes(&r.json, "messages"), want);
    let touching: BTreeSet<String> = txs
        .iter()
        .filter(|t| {
            t.in_msg
                .iter()
                .chain(&t.out_msgs)
                .any(|m| m.body_hash == body)
        })
        .map(|t| b64(&t.record.hash))
        .collect();
    let r = get(&format!(
        "/api/v3/transactionsByMessage?body_hash={}&limit=1000",
        q(&b64(&body))
    ));
    assert_eq!(hashes(&r.json, "transactions"), touching);
}

/// `/messages` without a narrower filter reads the global `created_lt` /
/// `created_at` indexes in order: every page, both directions, with lt and
/// time bounds and the externals switches, equals the fixture's messages
/// sorted as Postgres sorts them (value, then hash; missing values last
/// ascending, first descending).
#[test]
fn messages_in_global_order() {
    use std::collections::HashMap;
    let f = fixture();
    let mut msgs: HashMap<[u8; 32], &tonindex_model::MessageRecord> = HashMap::new();
    for t in f.blocks.iter().flat_map(|b| &b.transactions) {
        for m in t.in_msg.iter().chain(&t.out_msgs) {
            msgs.insert(m.hash, m);
        }
    }
    let sorted = |key: &dyn Fn(&tonindex_model::MessageRecord) -> Option<u64>,
                  keep: &dyn Fn(&tonindex_model::MessageRecord) -> bool,
                  desc: bool| {
        let mut v: Vec<_> = msgs.values().filter(|m| keep(m)).collect();
        // (has no value, value, hash): missing values after the rest.
        v.sort_by_key(|m| (key(m).is_none(), key(m), m.hash));
        if desc {
            v.reverse();
        }
        v.into_iter().map(|m| b64(&m.hash)).collect::<Vec<_>>()
    };
    let hashes = |uri: &str| -> Vec<String> {
        let r = get(uri);
        assert_eq!(r.status, 200, "{uri}: {}", r.json);
        r.json["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["hash"].as_str().unwrap().to_string())
            .collect()
    };
    let by_lt = |m: &tonindex_model::MessageRecord| m.created_lt;
    let by_at = |m: &tonindex_model::MessageRecord| m.created_at.map(u64::from);
    let all = |_: &tonindex_model::MessageRecord| true;
    assert!(msgs.len() > 1000, "the fixture should need several pages");
    assert!(msgs.values().any(|m| m.created_lt.is_none()));

    let asc = sorted(&by_lt, &all, false);
    let desc = sorted(&by_lt, &all, true);
    assert_eq!(hashes("/api/v3/messages?sort=asc&limit=1000"), asc[..1000]);
    assert_eq!(
        hashes("/api/v3/messages?sort=asc&limit=7&offset=995"),
        asc[995..1002]
    );
    // The last page ascending holds the external-in messages (no created_lt).
    let n = asc.len();
    assert_eq!(
        hashes(&format!(
            "/api/v3/messages?sort=asc&limit=20&offset={}",
            n - 10
        )),
        asc[n - 10..]
    );
    assert_eq!(hashes("/api/v3/messages?limit=50"), desc[..50]);

    // An lt window; a time window orders by created_at.
    let lts: Vec<u64> = msgs.values().filter_map(|m| m.created_lt).collect();
    let (lo, hi) = (
        lts.iter().min().unwrap() + 1000,
        lts.iter().max().unwrap() - 1000,
    );
    let window =
        |m: &tonindex_model::MessageRecord| m.created_lt.is_some_and(|x| x >= lo && x <= hi);
    assert_eq!(
        hashes(&format!(
            "/api/v3/messages?start_lt={lo}&end_lt={hi}&sort=desc&limit=300&offset=5"
        )),
        sorted(&by_lt, &window, true)[5..]
            .iter()
            .take(300)
            .cloned()
            .collect::<Vec<_>>()
    );
    let times: Vec<u64> = msgs.values().filter_map(|m| by_at(m)).collect();
    let (t0, t1) = (
        *times.iter().min().unwrap(),
        times.iter().max().unwrap() - 1,
    );
    let in_time = |m: &tonindex_model::MessageRecord| by_at(m).is_some_and(|t| t >= t0 && t <= t1);
    assert_eq!(
        hashes(&format!(
            "/api/v3/messages?start_utime={t0}&end_utime={t1}&sort=asc&limit=1000"
        )),
        sorted(&by_at, &in_time, false)
            .into_iter()
            .take(1000)
            .collect::<Vec<_>>()
    );
    assert!(hashes(&format!("/api/v3/messages?start_lt={hi}&end_lt={lo}")).is_empty());

    // Only the messages without a created_lt, and all but them.
    let ext = |m: &tonindex_model::MessageRecord| m.created_lt.is_none();
    assert_eq!(
        hashes("/api/v3/messages?only_externals=true&sort=asc&limit=1000"),
        sorted(&by_lt, &ext, false)
            .into_iter()
            .take(1000)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        hashes("/api/v3/messages?exclude_externals=true&sort=desc&limit=100"),
        sorted(&by_lt, &|m| !ext(m), true)[..100]
    );
}

/// Message bodies and init states are not stored with the messages but read
/// back from the BoC of a transaction that holds them: each must be the
/// cell whose hash the decoder recorded, on `/messages` (read through the
/// sending or receiving transaction) and inside `/transactions`.
#[test]
fn message_contents_come_back_from_the_transaction_bocs() {
    let f = fixture();
    let msgs = f.messages_by_b64();
    // Checks one message; whether it had an init state.
    let check = |m: &Value| {
        let rec = msgs[m["hash"].as_str().unwrap()];
        assert_eq!(boc_root_hash(&m["message_content"]["body"]), rec.body_hash);
        match rec.init_state_hash {
            Some(h) => assert_eq!(boc_root_hash(&m["init_state"]["body"]), h),
            None => assert!(m["init_state"].is_null(), "{m}"),
        }
        rec.init_state_hash.is_some()
    };
    let (mut checked, mut init_states) = (0, 0);
    for offset in (0..).step_by(1000) {
        let r = get(&format!(
            "/api/v3/messages?sort=asc&limit=1000&offset={offset}"
        ));
        assert_eq!(r.status, 200, "{}", r.json);
        let page = r.json["messages"].as_array().unwrap();
        for m in page {
            init_states += usize::from(check(m));
            checked += 1;
        }
        if page.len() < 1000 {
            break;
        }
    }
    assert_eq!(checked, msgs.len(), "every message once");
    let account = raw_upper(&f.busiest_account());
    let r = get(&format!(
        "/api/v3/transactions?account={account}&limit=1000"
    ));
    assert_eq!(r.status, 200, "{}", r.json);
    for t in r.json["transactions"].as_array().unwrap() {
        let out = t["out_msgs"].as_array().unwrap();
        for m in t
            .get("in_msg")
            .filter(|m| !m.is_null())
            .into_iter()
            .chain(out)
        {
            init_states += usize::from(check(m));
            checked += 1;
        }
    }
    assert!(checked > msgs.len(), "the account's transactions add some");
    assert!(init_states > 0, "the fixture has messages with a StateInit");
}

/// `/traces`, `/events` and `/actions` over the fixture index: every
/// transaction's trace holds it, lookups by id, transaction and message
/// agree, the tree and order cover the trace, actions cover transactions
/// of their trace; listings are in order.
#[test]
fn traces_and_actions() {
    let f = fixture();
    let txs = f.txs();
    let mut checked = 0;
    let mut with_actions = 0;
    for (hash, (_, tx)) in txs.iter().take(40) {
        let r = get(&format!(
            "/api/v3/traces?tx_hash={}&include_actions=true",
            q(&b64(hash))
        ));
        assert_eq!(r.status, 200, "{}", r.json);
        let traces = r.json["traces"].as_array().unwrap();
        assert_eq!(traces.len(), 1, "one trace per transaction");
        let t = &traces[0];
        let order: Vec<&str> = t["transactions_order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect();
        assert!(order.contains(&b64(hash).as_str()));
        assert_eq!(
            order.len() as u64,
            t["trace_info"]["transactions"].as_u64().unwrap()
        );
        for h in &order {
            assert!(
                t["transactions"][*h].is_object(),
                "order lists {h}, a listed transaction"
            );
            assert_eq!(t["transactions"][*h]["trace_id"], t["trace_id"]);
        }
        // The tree reaches every transaction of a trace that has its root.
        if let Some(root) = t.get("trace") {
            fn count(n: &Value) -> usize {
                1 + n["children"]
                    .as_array()
                    .map_or(0, |c| c.iter().map(count).sum())
            }
            assert_eq!(root["tx_hash"], t["trace_id"]);
            assert!(count(root) <= order.len());
        }
        // The same trace by id and by the transaction's in-message.
        let id = t["trace_id"].as_str().unwrap();
        let by_id = get(&format!("/api/v3/traces?trace_id={}", q(id)));
        assert_eq!(by_id.json["traces"][0]["trace_id"], id);
        if let Some(m) = &tx.in_msg {
            let msg = get(&format!("/api/v3/messages?msg_hash={}", q(&b64(&m.hash))));
            assert!(
                msg.json["messages"][0]["trace_id"].is_string(),
                "{}",
                msg.json
            );
            let by_msg = get(&format!("/api/v3/events?msg_hash={}", q(&b64(&m.hash))));
            let event = by_msg.json["events"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["trace_id"] == id)
                .cloned()
                .expect("the event of the trace");
            // /events always carries the actions (toncenter forces
            // include_actions), the same as /traces gives when asked.
            let with = get(&format!(
                "/api/v3/traces?trace_id={}&include_actions=true",
                q(id)
            ));
            assert!(event["actions"].is_array(), "{event}");
            assert_eq!(event["actions"], with.json["traces"][0]["actions"]);
        }
        for a in t["actions"].as_array().into_iter().flatten() {
            with_actions += 1;
            for h in a["transactions"].as_array().unwrap() {
                assert!(
                    order.contains(&h.as_str().unwrap()),
                    "action covers its trace's txs"
                );
            }
            let by_action = get(&format!(
                "/api/v3/actions?action_id={}",
                q(a["action_id"].as_str().unwrap())
            ));
            assert_eq!(by_action.json["actions"][0]["action_id"], a["action_id"]);
        }
        checked += 1;
    }
    assert_eq!(checked, 40);
    assert!(
        with_actions > 0,
        "no classified trace among the first transactions"
    );

    // Listings.
    let all = get("/api/v3/traces?limit=5&sort=asc");
    let lts: Vec<u64> = all.json["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["end_lt"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(lts.len(), 5);
    assert!(lts.windows(2).all(|w| w[0] <= w[1]));
    let acts = get("/api/v3/actions?limit=20&include_accounts=true");
    assert_eq!(acts.status, 200);
    for a in acts.json["actions"].as_array().unwrap() {
        assert!(a["accounts"].as_array().is_some_and(|x| !x.is_empty()));
        assert_eq!(a["finality"], "finalized");
    }
    let calls = get("/api/v3/actions?action_type=call_contract&limit=5");
    assert!(calls.json["actions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["type"] == "call_contract"));
}

/// `/traces`, `/events` and `/actions` refuse bad input with the spec's 4xx
/// in v3's shape; `X-Actions-Version` overrides `supported_action_types`;
/// a hash nobody knows is no trace, not an error.
#[test]
fn traces_and_actions_refuse_bad_input() {
    let txs = fixture().txs();
    let some_tx = b64(txs.keys().next().unwrap());
    for (uri, status) in [
        (
            format!(
                "/api/v3/traces?trace_id={}&tx_hash={}",
                q(&some_tx),
                q(&some_tx)
            ),
            422,
        ),
        ("/api/v3/traces?trace_id=not-a-hash".to_string(), 422),
        ("/api/v3/traces?limit=100000".to_string(), 422),
        ("/api/v3/traces?mc_seqno=1".to_string(), 404),
        ("/api/v3/traces?sort=sideways".to_string(), 422),
        ("/api/v3/actions?action_type=bad%20type!".to_string(), 422),
        (
            "/api/v3/actions?supported_action_types=v1;drop".to_string(),
            422,
        ),
        ("/api/v3/actions?tx_hash=zz".to_string(), 422),
        ("/api/v3/actions?limit=-5&offset=huge".to_string(), 422),
        ("/api/v3/events?account=not-an-address".to_string(), 422),
    ] {
        let r = get(&uri);
        assert_eq!(r.status, status, "{uri}: {}", r.json);
        assert!(r.json["error"].is_string(), "{uri}: {}", r.json);
    }
    let r = get(&format!(
        "/api/v3/traces?trace_id={}&account={}",
        q(&some_tx),
        "0:0000000000000000000000000000000000000000000000000000000000000000"
    ));
    assert_eq!(
        r.json["error"],
        "only one of account, trace_id, tx_hash, msg_hash should be specified"
    );
    // X-Actions-Version overrides supported_action_types (a bad query value is then not read).
    let uri = "/api/v3/actions?supported_action_types=v1;drop&limit=3";
    assert_eq!(get(uri).status, 422);
    let with_header = common::api::run(
        axum::http::Request::get(uri)
            .header("X-Actions-Version", "v2")
            .body(axum::body::Body::empty())
            .unwrap(),
    );
    assert_eq!(with_header.status, 200, "{}", with_header.json);
    // A well-formed hash nobody knows: no traces, not an error.
    let none = get(&format!("/api/v3/traces?tx_hash={}", q(&b64(&[7; 32]))));
    assert_eq!(none.status, 200);
    assert_eq!(none.json["traces"].as_array().unwrap().len(), 0);
}
