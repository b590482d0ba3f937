//! API v2 over an index of real fixture blocks: REST GET, POST-JSON and
//! JSON-RPC answer alike; results are checked against the decoded blocks.

use crate::common;

use common::api::{b64, boc_root_hash, fixture, get, post, q};
use serde_json::{json, Value};
use tonindex::api::encoding::{friendly_bounceable, raw_lower, raw_upper};

fn result(uri: &str) -> Value {
    let r = get(uri);
    assert_eq!(r.status, 200, "{uri}: {}", r.json);
    assert_eq!(r.json["ok"], true);
    assert!(r.json["@extra"].is_string());
    assert_eq!(r.headers["x-api-version"], "2.2.0");
    r.json["result"].clone()
}

fn latest_mc() -> &'static tonindex_model::BlockRecord {
    fixture()
        .blocks
        .iter()
        .map(|b| &b.record)
        .filter(|b| b.id.id.workchain == -1)
        .max_by_key(|b| b.id.id.seqno)
        .unwrap()
}

#[test]
fn masterchain_info_lookup_shards_and_header() {
    let last = latest_mc();
    let r = result("/api/v2/getMasterchainInfo");
    assert_eq!(r["@type"], "blocks.masterchainInfo");
    assert_eq!(r["last"]["seqno"], last.id.id.seqno);
    assert_eq!(r["last"]["shard"], "-9223372036854775808");
    assert_eq!(r["last"]["root_hash"], b64(&last.id.root_hash));
    assert_eq!(r["state_root_hash"], b64(&last.state_root_hash));
    assert_eq!(r["init"]["seqno"], 0);

    let f = fixture();
    let shard_block = f
        .blocks
        .iter()
        .map(|b| &b.record)
        .find(|b| b.id.id.workchain == 0 && b.id.id.shard != 1 << 63)
        .unwrap();
    let id = &shard_block.id.id;
    let shard = id.shard as i64;
    for query in [
        format!("seqno={}", id.seqno),
        format!("lt={}", shard_block.start_lt),
        format!("unixtime={}", shard_block.gen_utime),
    ] {
        let r = result(&format!(
            "/api/v2/lookupBlock?workchain=0&shard={shard}&{query}"
        ));
        assert_eq!(r["@type"], "ton.blockIdExt");
        assert_eq!(r["seqno"], id.seqno, "{query}");
        assert_eq!(r["file_hash"], b64(&shard_block.id.file_hash));
    }

    let h = result(&format!(
        "/api/v2/getBlockHeader?workchain=0&shard={shard}&seqno={}",
        id.seqno
    ));
    assert_eq!(h["@type"], "blocks.header");
    assert_eq!(h["start_lt"], shard_block.start_lt.to_string());
    assert_eq!(h["gen_utime"], shard_block.gen_utime);
    assert_eq!(h["catchain_seqno"], shard_block.gen_catchain_seqno);
    assert_eq!(
        h["prev_blocks"][0]["seqno"],
        shard_block.prev_blocks[0].block.id.seqno
    );

    // The same call as POST-JSON (shard as a string) and JSON-RPC (shard as a number).
    let body = json!({"workchain": 0, "shard": shard.to_string(), "seqno": id.seqno});
    let p = post("/api/v2/getBlockHeader", &body);
    assert_eq!(p.json["result"], h);
    let rpc = post(
        "/api/v2/jsonRPC",
        &json!({"id": 7, "jsonrpc": "2.0", "method": "getBlockHeader",
                "params": {"workchain": 0, "shard": shard, "seqno": id.seqno}}),
    );
    assert_eq!(rpc.json["result"], h);
    assert_eq!(rpc.json["id"], "7");
    assert_eq!(rpc.json["jsonrpc"], "2.0");

    let mc = f.newest_mc(|b| !b.shards.is_empty());
    for method in ["shards", "getShards"] {
        let r = result(&format!("/api/v2/{method}?seqno={}", mc.record.id.id.seqno));
        assert_eq!(r["@type"], "blocks.shards");
        let got: Vec<u64> = r["shards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["seqno"].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = mc
            .shards
            .iter()
            .map(|s| u64::from(s.block.id.seqno))
            .collect();
        assert_eq!(got, want);
    }
}

#[test]
fn block_transactions_paginate_with_the_after_cursor() {
    let f = fixture();
    let b = f
        .blocks
        .iter()
        .filter(|b| b.transactions.len() >= 3)
        .max_by_key(|b| b.transactions.len())
        .unwrap();
    let id = &b.record.id.id;
    let base = format!(
        "workchain={}&shard={}&seqno={}",
        id.workchain, id.shard as i64, id.seqno
    );
    // Walk the block two at a time, as @ton/ton and tonweb do.
    let mut seen = Vec::new();
    let mut cursor = String::new();
    loop {
        let r = result(&format!(
            "/api/v2/getBlockTransactions?{base}&count=2{cursor}"
        ));
        assert_eq!(r["@type"], "blocks.transactions");
        assert_eq!(r["req_count"], 2);
        let items = r["transactions"].as_array().unwrap();
        for t in items {
            assert_eq!(t["mode"], 135);
            seen.push((
                t["account"].as_str().unwrap().to_string(),
                t["lt"].as_str().unwrap().to_string(),
                t["hash"].as_str().unwrap().to_string(),
            ));
        }
        if r["incomplete"] == false {
            break;
        }
        let last = items.last().unwrap();
        let acc = last["account"].as_str().unwrap().split(':').nth(1).unwrap();
        cursor = format!(
            "&after_lt={}&after_hash={acc}",
            last["lt"].as_str().unwrap()
        );
    }
    let want: Vec<(String, String, String)> = b
        .transactions
        .iter()
        .map(|t| {
            (
                raw_lower(&t.record.account),
                t.record.lt.to_string(),
                b64(&t.record.hash),
            )
        })
        .collect();
    assert_eq!(seen, want);

    let ext = result(&format!(
        "/api/v2/getBlockTransactionsExt?{base}&count=10000"
    ));
    assert_eq!(ext["@type"], "blocks.transactionsExt");
    assert_eq!(ext["incomplete"], false);
    let items = ext["transactions"].as_array().unwrap();
    assert_eq!(items.len(), b.transactions.len());
    for (j, t) in items.iter().zip(&b.transactions) {
        assert_eq!(j["transaction_id"]["hash"], b64(&t.record.hash));
        assert_eq!(j["account"], raw_upper(&t.record.account));
        assert_eq!(boc_root_hash(&j["data"]), t.record.hash);
        assert_eq!(j["fee"], t.record.total_fees.grams.to_string());
    }
}

#[test]
fn account_transactions_with_lt_hash_paging() {
    let f = fixture();
    let account = f.busiest_account();
    let expected = f.account_txs(&account);
    let addr = friendly_bounceable(&account);
    let page = result(&format!("/api/v2/getTransactions?address={addr}&limit=3"));
    let items = page.as_array().unwrap();
    assert_eq!(items.len(), 3.min(expected.len()));
    for (j, t) in items.iter().zip(&expected) {
        let r = &t.record;
        assert_eq!(j["@type"], "ext.transaction");
        assert_eq!(j["transaction_id"]["lt"], r.lt.to_string());
        assert_eq!(j["transaction_id"]["hash"], b64(&r.hash));
        assert_eq!(j["utime"], r.now);
        assert_eq!(j["account"], raw_upper(&r.account));
        assert_eq!(j["address"]["account_address"], addr);
        assert_eq!(boc_root_hash(&j["data"]), t.record.hash);
        let storage = r
            .description
            .as_ref()
            .and_then(|d| d.storage_ph.as_ref())
            .map_or(0, |s| s.storage_fees_collected);
        assert_eq!(j["storage_fee"], storage.to_string());
        assert_eq!(j["other_fee"], (r.total_fees.grams - storage).to_string());
        assert_eq!(j["out_msgs"].as_array().unwrap().len(), t.out_msgs.len());
        if let Some(m) = &t.in_msg {
            assert_eq!(j["in_msg"]["@type"], "ext.message");
            assert_eq!(j["in_msg"]["hash"], b64(&m.hash));
            assert_eq!(j["in_msg"]["body_hash"], b64(&m.body_hash));
            assert_eq!(
                j["in_msg"]["source"],
                m.source
                    .as_ref()
                    .map(friendly_bounceable)
                    .unwrap_or_default()
            );
        }
    }
    // Next page starts at the last item, inclusive (tonlib semantics).
    let last = &items[items.len() - 1]["transaction_id"];
    let hash_hex = hex::encode(base64_decode(last["hash"].as_str().unwrap()));
    let next = result(&format!(
        "/api/v2/getTransactions?address={addr}&limit=2&lt={}&hash={hash_hex}",
        last["lt"].as_str().unwrap()
    ));
    assert_eq!(next[0]["transaction_id"], *last);
    // to_lt excludes it and everything older.
    let newer = result(&format!(
        "/api/v2/getTransactions?address={addr}&limit=100&to_lt={}",
        last["lt"].as_str().unwrap()
    ));
    assert_eq!(newer.as_array().unwrap().len(), items.len() - 1);

    let std = result(&format!(
        "/api/v2/getTransactionsStd?address={addr}&limit=2"
    ));
    assert_eq!(std["@type"], "raw.transactions");
    assert_eq!(std["transactions"][0]["@type"], "raw.transaction");
    assert_eq!(
        std["previous_transaction_id"]["lt"],
        expected[1].record.prev_trans_lt.to_string()
    );
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[test]
fn locate_both_ends_of_a_message() {
    let f = fixture();
    let txs = f.txs();
    let (msg, receiver) = txs
        .values()
        .filter_map(|(_, t)| t.in_msg.as_ref().map(|m| (m, t)))
        .find(|(m, _)| {
            m.source.is_some()
                && txs
                    .values()
                    .any(|(_, s)| s.out_msgs.iter().any(|o| o.hash == m.hash))
        })
        .unwrap();
    let query = format!(
        "source={}&destination={}&created_lt={}",
        raw_upper(&msg.source.unwrap()),
        q(&friendly_bounceable(&msg.destination.unwrap())),
        msg.created_lt.unwrap()
    );
    for method in ["tryLocateTx", "tryLocateResultTx"] {
        let r = result(&format!("/api/v2/{method}?{query}"));
        assert_eq!(r["transaction_id"]["hash"], b64(&receiver.record.hash));
    }
    let r = result(&format!("/api/v2/tryLocateSourceTx?{query}"));
    assert!(r["out_msgs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["hash"] == b64(&msg.hash)));
    let missing = get(&format!(
        "/api/v2/tryLocateTx?source={}&destination={}&created_lt=1",
        raw_upper(&msg.source.unwrap()),
        raw_upper(&msg.destination.unwrap())
    ));
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json["error"], "transaction was not found");
}

#[test]
fn utils_match_the_reference_vectors() {
    // The C++ server's test fixtures (spec v2 §4.1).
    let raw = "0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8";
    let b = "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N";
    let nb = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI";
    for (input, given) in [
        (raw, "raw_form"),
        (b, "friendly_bounceable"),
        (nb, "friendly_non_bounceable"),
    ] {
        let r = result(&format!("/api/v2/detectAddress?address={input}"));
        assert_eq!(r["@type"], "ext.utils.detectedAddress");
        assert_eq!(r["raw_form"], raw);
        assert_eq!(r["bounceable"]["b64url"], b);
        assert_eq!(r["non_bounceable"]["b64"], nb);
        assert_eq!(r["given_type"], given);
        assert_eq!(r["test_only"], false);
    }
    assert_eq!(result(&format!("/api/v2/packAddress?address={raw}")), b);
    assert_eq!(result(&format!("/api/v2/packAddress?address={nb}")), nb);
    assert_eq!(
        result(&format!("/api/v2/unpackAddress?address={b}")),
        raw.to_uppercase().replace("0X", "0x")
    );
    let h = hex::encode(base64_decode(
        "CPUE4WXeEJT+Dwz1fY/rkreWvYnsOt3I44i1G5ojJPM=",
    ));
    let r = result(&format!("/api/v2/detectHash?hash={h}"));
    assert_eq!(r["b64"], "CPUE4WXeEJT+Dwz1fY/rkreWvYnsOt3I44i1G5ojJPM=");
    assert_eq!(r["b64url"], "CPUE4WXeEJT-Dwz1fY_rkreWvYnsOt3I44i1G5ojJPM");
    assert_eq!(r["hex"], h);
    for form in [
        "CPUE4WXeEJT-Dwz1fY_rkreWvYnsOt3I44i1G5ojJPM",
        "CPUE4WXeEJT-Dwz1fY_rkreWvYnsOt3I44i1G5ojJPM=",
    ] {
        assert_eq!(result(&format!("/api/v2/detectHash?hash={form}"))["hex"], h);
    }
    for bad in [
        "CPUE4WXeEJT%2BDwz1fY%2FrkreWvYnsOt3I44i1G5ojJPM",
        "not%20a%20hash",
        "",
    ] {
        assert_eq!(
            get(&format!("/api/v2/detectHash?hash={bad}")).status,
            422,
            "{bad}"
        );
    }
}

#[test]
fn config_from_the_newest_key_block() {
    let f = fixture();
    let key = f.newest_mc(|b| b.config_boc.is_some());
    let all = result("/api/v2/getConfigAll");
    assert_eq!(all["@type"], "configInfo");
    assert_eq!(all["config"]["@type"], "tvm.cell");
    let root =
        tycho_types::boc::Boc::decode(base64_decode(all["config"]["bytes"].as_str().unwrap()))
            .unwrap();
    let want = tycho_types::boc::Boc::decode(key.config_boc.as_ref().unwrap()).unwrap();
    assert_eq!(root.repr_hash(), want.repr_hash());
    // Param 34 (current validators) is in every mainnet config; param 0 is the config address.
    let dict = tycho_types::dict::Dict::<u32, tycho_types::cell::Cell>::from_raw(Some(want));
    for id in [0u32, 34] {
        let r = result(&format!("/api/v2/getConfigParam?config_id={id}"));
        let cell =
            tycho_types::boc::Boc::decode(base64_decode(r["config"]["bytes"].as_str().unwrap()))
                .unwrap();
        assert_eq!(cell.repr_hash(), dict.get(id).unwrap().unwrap().repr_hash());
        let alias = result(&format!("/api/v2/getConfigParam?param={id}"));
        assert_eq!(alias, r);
    }
    assert_eq!(get("/api/v2/getConfigParam?config_id=999999").status, 404);
    assert_eq!(get("/api/v2/getConfigParam").status, 422);
    let libs = result(&format!(
        "/api/v2/getLibraries?libraries={}",
        "00".repeat(32)
    ));
    assert_eq!(libs["@type"], "smc.libraryResult");
    assert_eq!(libs["result"], json!([]));
}

#[test]
fn json_rpc_envelope_and_errors() {
    let r = post(
        "/api/v2/jsonRPC",
        &json!({"id": "1", "jsonrpc": "2.0", "method": "getMasterchainInfo", "params": {}}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json["id"], "1");
    assert_eq!(r.json["result"]["@type"], "blocks.masterchainInfo");
    let unknown = post(
        "/api/v2/jsonRPC",
        &json!({"id": 2, "method": "noSuchMethod", "params": {}}),
    );
    // toncenter's server: 422 "Unknown method" (spec v2 §JSON-RPC), also
    // for tonweb's deprecated `sendQuery`; over REST an unknown path is 404.
    assert_eq!(unknown.status, 422);
    assert_eq!(unknown.json["ok"], false);
    assert_eq!(unknown.json["error"], "Unknown method");
    assert_eq!(unknown.json["id"], "2");
    let deprecated = post(
        "/api/v2/jsonRPC",
        &json!({"id": "4", "method": "sendQuery", "params": {"address": "x", "body": "x"}}),
    );
    assert_eq!(deprecated.status, 422);
    assert_eq!(deprecated.json["error"], "Unknown method");
    assert_eq!(get("/api/v2/noSuchMethod").status, 404);
    let bad = post(
        "/api/v2/jsonRPC",
        &json!({"id": 3, "method": "shards", "params": [1]}),
    );
    assert_eq!(bad.status, 422);
    assert_eq!(bad.json["error"], "params must contain an object");
    let batch = post(
        "/api/v2/jsonRPC",
        &json!([{"method": "getMasterchainInfo"}]),
    );
    assert_eq!(batch.status, 422);
    let wrong = get("/api/v2/jsonRPC");
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.json["error"], "method GET is not supported");
}

#[test]
fn bad_input_gets_v2_errors_never_500() {
    let cases: &[(&str, u16)] = &[
        ("/api/v2/getTransactions?address=notanaddress", 422),
        ("/api/v2/getTransactions", 422),
        ("/api/v2/getTransactions?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&limit=0", 422),
        ("/api/v2/getTransactions?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&limit=100000", 422),
        ("/api/v2/getTransactions?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&lt=5", 422),
        ("/api/v2/getTransactions?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&lt=5&hash=zz", 422),
        ("/api/v2/lookupBlock?workchain=0&shard=abc&seqno=1", 422),
        ("/api/v2/lookupBlock?workchain=0&shard=-9223372036854775808", 422),
        ("/api/v2/lookupBlock?workchain=0&shard=-9223372036854775808&seqno=123456789", 404),
        ("/api/v2/getBlockHeader?workchain=-1&shard=-9223372036854775808&seqno=0", 422),
        ("/api/v2/getBlockTransactions?workchain=-1&shard=-9223372036854775808&seqno=5", 404),
        ("/api/v2/getBlockTransactions?workchain=-1&shard=-9223372036854775808&seqno=5&count=0", 422),
        ("/api/v2/getShards?seqno=-1", 422),
        ("/api/v2/shards?seqno=99999999", 404),
        ("/api/v2/detectAddress?address=0:1234", 422),
        ("/api/v2/tryLocateTx?source=x&destination=y&created_lt=1", 422),
        ("/api/v2/getMasterchainBlockSignatures?seqno=1", 501),
        ("/api/v2/getAddressInformation?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&seqno=5", 404),
        ("/api/v2/getAddressInformation?address=0:zz", 422),
        ("/api/v2/getAddressInformation", 422),
        ("/api/v2/getWalletInformation?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&seqno=0", 422),
        ("/api/v2/runGetMethod?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N&method=seqno&stack=x", 422),
        ("/api/v2/runGetMethod?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N", 422),
        ("/api/v2/estimateFee?address=EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N", 422),
        ("/api/v2/sendBoc?boc=te6c", 422),
        ("/api/v2/noSuchMethod", 404),
    ];
    for (uri, status) in cases {
        let r = get(uri);
        assert_eq!(r.status.as_u16(), *status, "{uri}: {}", r.json);
        assert_eq!(r.json["ok"], false, "{uri}");
        assert_eq!(r.json["code"], *status, "{uri}");
        assert!(r.json["error"].is_string(), "{uri}");
    }
    let r = post("/api/v2/getMasterchainInfo", &json!("just a string"));
    assert_eq!(r.status, 422);
    let put = common::api::request("PUT", "/api/v2/getMasterchainInfo");
    assert_eq!(put.status, 405);
}

/// `msg_data` is built from the message cells of the stored transaction
/// BoC: a raw body and init state are the cells the decoder hashed.
#[test]
fn raw_message_data_is_the_message_cells() {
    let f = fixture();
    let msgs = f.messages_by_b64();
    // The accounts that received or sent a message with a StateInit.
    let accounts: std::collections::BTreeSet<_> = f
        .blocks
        .iter()
        .flat_map(|b| &b.transactions)
        .filter(|t| {
            t.in_msg
                .iter()
                .chain(&t.out_msgs)
                .any(|m| m.init_state_hash.is_some())
        })
        .map(|t| t.record.account)
        .collect();
    let (mut raw, mut init_states) = (0, 0);
    for account in &accounts {
        let addr = friendly_bounceable(account);
        let page = result(&format!("/api/v2/getTransactions?address={addr}&limit=100"));
        for t in page.as_array().unwrap() {
            let out = t["out_msgs"].as_array().unwrap();
            for m in t.get("in_msg").into_iter().chain(out) {
                let rec = msgs[m["hash"].as_str().unwrap()];
                let data = &m["msg_data"];
                if data["@type"] != "msg.dataRaw" {
                    continue;
                }
                assert_eq!(boc_root_hash(&data["body"]), rec.body_hash);
                match rec.init_state_hash {
                    Some(h) => {
                        assert_eq!(boc_root_hash(&data["init_state"]), h);
                        init_states += 1;
                    }
                    None => assert_eq!(data["init_state"], ""),
                }
                raw += 1;
            }
        }
    }
    assert!(
        raw > 0 && init_states > 0,
        "{raw} raw, {init_states} with init"
    );
}

/// An external-in message to `0:0707…07` with a small body, as base64.
fn external_message(workchain: i8, internal: bool) -> String {
    use tycho_types::cell::{CellBuilder, HashBytes};
    use tycho_types::models::{
        ExtInMsgInfo, IntAddr, IntMsgInfo, Message, MessageLayout, MsgInfo, StdAddr,
    };
    let mut body = CellBuilder::new();
    body.store_u32(0x7369_676e).unwrap();
    let body = body.build().unwrap();
    let dst = IntAddr::Std(StdAddr::new(workchain, HashBytes([7; 32])));
    let info = if internal {
        MsgInfo::Int(IntMsgInfo {
            dst,
            ..Default::default()
        })
    } else {
        MsgInfo::ExtIn(ExtInMsgInfo {
            src: None,
            dst,
            import_fee: Default::default(),
        })
    };
    let msg = Message {
        info,
        init: None,
        body: body.as_slice().unwrap(),
        layout: Some(MessageLayout {
            init_to_cell: false,
            body_to_cell: true,
        }),
    };
    b64(&tycho_types::boc::Boc::encode(
        CellBuilder::build_from(msg).unwrap(),
    ))
}

#[test]
fn sending_to_an_imported_index_checks_the_message_then_says_there_is_no_network() {
    let good = external_message(0, false);
    for method in ["sendBoc", "sendBocReturnHash", "sendBocReturnHashNoError"] {
        let r = post(&format!("/api/v2/{method}"), &json!({ "boc": good }));
        let code: u64 = if method.ends_with("NoError") {
            400
        } else {
            503
        };
        assert_eq!(u64::from(r.status.as_u16()), code, "{method}: {}", r.json);
        assert_eq!(
            (r.json["ok"].as_bool(), r.json["code"].as_u64()),
            (Some(false), Some(code))
        );
        assert!(
            r.json["error"]
                .as_str()
                .unwrap()
                .contains("no network to send to"),
            "{}",
            r.json
        );
        // JSON-RPC the same.
        let rpc = json!({"id": 1, "jsonrpc": "2.0", "method": method, "params": {"boc": good}});
        assert_eq!(post("/api/v2/jsonRPC", &rpc).json["code"], code);
    }
    // What could never be sent is the client's mistake: 422, whatever the node.
    for (boc, why) in [
        (json!({}), "boc required"),
        (json!({"boc": ""}), "empty boc"),
        (json!({"boc": "!!"}), "base64"),
        (
            json!({"boc": external_message(0, true)}),
            "not an external inbound message",
        ),
        (
            json!({"boc": external_message(3, false)}),
            "unknown workchain 3",
        ),
    ] {
        let r = post("/api/v2/sendBocReturnHash", &boc);
        assert_eq!(r.status.as_u16(), 422, "{boc}: {}", r.json);
        assert!(
            r.json["error"].as_str().unwrap().contains(why),
            "{boc}: {}",
            r.json
        );
    }
    // v3 POST /message: the same checks, then 503.
    let r = post("/api/v3/message", &json!({ "boc": good }));
    assert_eq!(r.status.as_u16(), 503, "{}", r.json);
    assert!(r.json["error"]
        .as_str()
        .unwrap()
        .contains("no network to send to"));
    let r = post(
        "/api/v3/message",
        &json!({ "boc": external_message(0, true) }),
    );
    assert_eq!(r.status.as_u16(), 422, "{}", r.json);
    let r = post("/api/v3/message", &json!({}));
    assert_eq!(r.status.as_u16(), 401, "{}", r.json);
    assert_eq!(r.json["error"], "boc is required");
    // Bodies: up to 1 MiB (the C++ server's limit) are read, past it 413 in
    // v2's shape.
    let near = json!({ "boc": "A".repeat((1 << 20) - 100) });
    let r = post("/api/v2/sendBoc", &near);
    assert_eq!(r.status.as_u16(), 422, "{}", r.json);
    let over = json!({ "boc": "A".repeat(1 << 20) });
    let r = post("/api/v2/sendBoc", &over);
    assert_eq!(r.status.as_u16(), 413, "{}", r.json);
    assert_eq!(r.json["ok"], false);
    assert_eq!(r.json["code"], 413);
    // The devnet's own endpoints are not there on an imported index.
    for (method, path) in [
        ("GET", "/dev/accounts"),
        ("POST", "/dev/fund"),
        ("POST", "/dev/block"),
    ] {
        let r = common::api::request(method, path);
        assert_eq!(r.status.as_u16(), 404, "{method} {path}");
        assert!(r.json["error"].is_string());
    }
}
