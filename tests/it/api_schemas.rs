//! Every endpoint's JSON validated against the peers' machine-readable
//! schemas in tests/data/spec: v2 against the C++ server's OpenAPI
//! (`v2-openapi-cpp.json`, closed objects with required keys), v3 against
//! `v3-openapi.yaml`.

use crate::common;

use common::api::{b64, fixture, get, post, q};
use serde_json::{json, Value};
use tonindex::api::encoding::{friendly_bounceable, raw_upper};

fn spec(name: &str) -> Value {
    let path = common::spec_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    if name.ends_with(".yaml") {
        serde_yaml::from_str(&text).unwrap()
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

/// Validates `instance` against `#/components/schemas/<name>` of an OpenAPI document.
fn check(doc: &Value, name: &str, instance: &Value, what: &str) {
    let mut schema = doc.clone();
    schema["$ref"] = json!(format!("#/components/schemas/{name}"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| {
            let mut m = e.to_string();
            m.truncate(300);
            format!("{m} at {}", e.instance_path())
        })
        .collect();
    let mut shown = instance.to_string();
    shown.truncate(2000);
    assert!(
        errors.is_empty(),
        "{what} does not match {name}:\n{}\n{shown}",
        errors.join("\n")
    );
}

/// The v3 swagger, adjusted for what spec v3 documents the reference server
/// really emits: nulls for absent values (Go pointers; the swagger has no
/// `nullable`), `opcode` as a `"0x…"` string (§1.10) and `finality` as a
/// string (§1.5; the swagger has the Go enum's integers).
fn v3_doc() -> Value {
    fn nullable(schema: &mut Value) {
        if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            for p in props.values_mut() {
                if let Some(t) = p.get("type").and_then(Value::as_str) {
                    p["type"] = json!([t, "null"]);
                } else {
                    let inner = p.clone();
                    *p = json!({"anyOf": [inner, {"type": "null"}]});
                }
            }
        }
    }
    let mut doc = spec("v3-openapi.yaml");
    let schemas = doc["components"]["schemas"].as_object_mut().unwrap();
    schemas.get_mut("Message").unwrap()["properties"]["opcode"] = json!({"type": "string"});
    schemas.insert(
        "emulated.FinalityState".into(),
        json!({"type": "string", "enum": ["pending", "confirmed", "finalized"]}),
    );
    for s in schemas.values_mut() {
        nullable(s);
    }
    doc
}

/// Keys of a v3 object that the swagger lists and we must always write.
fn assert_complete(doc: &Value, name: &str, obj: &Value, optional: &[&str]) {
    let props = doc["components"]["schemas"][name]["properties"]
        .as_object()
        .unwrap();
    for key in props.keys() {
        if !optional.contains(&key.as_str()) {
            assert!(obj.get(key).is_some(), "{name} lacks {key}: {obj}");
        }
    }
}

#[test]
fn v3_responses_match_the_v3_schema() {
    let doc = v3_doc();
    let f = fixture();
    let account = raw_upper(&f.busiest_account());
    let mc = f.newest_mc(|b| !b.transactions.is_empty());
    let seqno = mc.record.id.id.seqno;
    let tx = &mc.transactions[0];
    let tx_hash = q(&b64(&tx.record.hash));
    let msg = f
        .blocks
        .iter()
        .flat_map(|b| &b.transactions)
        .find_map(|t| t.in_msg.as_ref())
        .unwrap();
    let cases: Vec<(String, &str)> = vec![
        ("/api/v3/masterchainInfo".into(), "MasterchainInfo"),
        ("/api/v3/blocks?limit=20".into(), "BlocksResponse"),
        (
            format!("/api/v3/masterchainBlockShardState?seqno={seqno}"),
            "BlocksResponse",
        ),
        (
            format!("/api/v3/masterchainBlockShards?seqno={seqno}"),
            "BlocksResponse",
        ),
        (
            format!("/api/v3/transactions?account={account}&limit=20"),
            "TransactionsResponse",
        ),
        (
            format!("/api/v3/transactionsByMasterchainBlock?seqno={seqno}"),
            "TransactionsResponse",
        ),
        (
            format!(
                "/api/v3/transactionsByMessage?msg_hash={}",
                q(&b64(&msg.hash))
            ),
            "TransactionsResponse",
        ),
        ("/api/v3/messages?limit=50".into(), "MessagesResponse"),
        (
            format!("/api/v3/addressBook?address={account}"),
            "AddressBook",
        ),
        (
            format!("/api/v3/accountStates?address={}", q(&held_wallet())),
            "AccountStatesResponse",
        ),
        (
            format!("/api/v3/walletStates?address={}", q(&held_wallet())),
            "WalletStatesResponse",
        ),
        (
            format!("/api/v3/addressInformation?address={}", q(&held_wallet())),
            "V2AddressInformation",
        ),
        (
            format!("/api/v3/walletInformation?address={}", q(&held_wallet())),
            "V2WalletInformation",
        ),
    ];
    for (uri, name) in &cases {
        let r = get(uri);
        assert_eq!(r.status, 200, "{uri}: {}", r.json);
        // Items first, for precise messages; then the whole response.
        for (list, item) in [
            ("transactions", "Transaction"),
            ("messages", "Message"),
            ("blocks", "Block"),
        ] {
            for x in r
                .json
                .get(list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                check(&doc, item, x, uri);
            }
        }
        check(&doc, name, &r.json, uri);
    }
    // adjacentTransactions of a tx that has a neighbour in the index.
    let adjacent = f
        .blocks
        .iter()
        .flat_map(|b| &b.transactions)
        .map(|t| {
            get(&format!(
                "/api/v3/adjacentTransactions?hash={}",
                q(&b64(&t.record.hash))
            ))
        })
        .find(|r| r.status == 200)
        .expect("a transaction with a neighbour");
    check(
        &doc,
        "TransactionsResponse",
        &adjacent.json,
        "adjacentTransactions",
    );

    // Objects carry every field the schema names.
    let r = get(&format!("/api/v3/transactions?hash={tx_hash}"));
    let t = &r.json["transactions"][0];
    assert_complete(&doc, "Transaction", t, &["trace_id", "trace_external_hash"]);
    assert_complete(
        &doc,
        "AccountState",
        &t["account_state_after"],
        &["code_boc", "data_boc"],
    );
    let b = get("/api/v3/masterchainInfo").json["last"].clone();
    assert_complete(&doc, "Block", &b, &[]);
    let m = get(&format!("/api/v3/messages?msg_hash={}", q(&b64(&msg.hash)))).json["messages"][0]
        .clone();
    assert_complete(
        &doc,
        "Message",
        &m,
        &["hash_norm", "in_msg_tx_hash", "out_msg_tx_hash"],
    );

    // Errors.
    for uri in [
        "/api/v3/transactions?limit=5000",
        "/api/v3/adjacentTransactions",
    ] {
        let r = get(uri);
        check(&doc, "RequestError", &r.json, uri);
    }
}

/// A wallet v4r2 among the held fat-block accounts, raw form.
fn held_wallet() -> String {
    common::api::fat_block_shard_accounts()
        .iter()
        .find_map(|boc| {
            let sa: tycho_types::models::ShardAccount =
                tycho_types::boc::Boc::decode(boc).unwrap().parse().unwrap();
            let acc = sa.load_account().unwrap()?;
            let tycho_types::models::AccountState::Active(init) = &acc.state else {
                return None;
            };
            let w = tonindex::state::wallet::detect(init.code.as_ref()?.repr_hash(), None)?;
            (w.wallet_type == "wallet v4 r2").then(|| acc.address.to_string())
        })
        .unwrap()
}

#[test]
fn v2_responses_match_the_cpp_schema() {
    let doc = spec("v2-openapi-cpp.json");
    let f = fixture();
    let account = f.busiest_account();
    let addr = friendly_bounceable(&account);
    let b = f
        .blocks
        .iter()
        .filter(|b| b.record.id.id.workchain == 0 && b.transactions.len() >= 2)
        .min_by_key(|b| b.record.id.id.seqno)
        .unwrap();
    let id = &b.record.id.id;
    let block = format!(
        "workchain={}&shard={}&seqno={}",
        id.workchain, id.shard as i64, id.seqno
    );
    let mc = f.newest_mc(|b| !b.shards.is_empty()).record.id.id.seqno;
    // Both ends indexed, so all three tryLocate* methods find a transaction.
    let (msg, _, _) = f.internal_pair();
    let locate = format!(
        "source={}&destination={}&created_lt={}",
        raw_upper(&msg.source.unwrap()),
        raw_upper(&msg.destination.unwrap()),
        msg.created_lt.unwrap()
    );
    let wallet = held_wallet();
    let cases: Vec<(String, &str)> = vec![
        ("getMasterchainInfo".into(), "MasterchainInfo"),
        ("getConsensusBlock".into(), "ConsensusBlock"),
        (format!("lookupBlock?{block}"), "TonBlockIdExt"),
        (format!("shards?seqno={mc}"), "Shards"),
        (format!("getShards?seqno={mc}"), "Shards"),
        (format!("getBlockHeader?{block}"), "BlockHeader"),
        (
            format!("getBlockTransactions?{block}&count=5"),
            "BlockTransactions",
        ),
        (
            format!("getTransactionsStd?address={addr}&limit=5"),
            "TransactionsStd",
        ),
        (format!("tryLocateTx?{locate}"), "Transaction"),
        (format!("tryLocateResultTx?{locate}"), "Transaction"),
        (format!("tryLocateSourceTx?{locate}"), "Transaction"),
        (format!("detectAddress?address={addr}"), "DetectAddress"),
        (format!("detectHash?hash={}", "ab".repeat(32)), "DetectHash"),
        (
            format!("packAddress?address={}", raw_upper(&account)),
            "PackAddress",
        ),
        (format!("unpackAddress?address={addr}"), "UnpackAddress"),
        ("getConfigParam?config_id=1".into(), "ConfigInfo"),
        ("getConfigAll".into(), "ConfigInfo"),
        (
            format!("getLibraries?libraries={}", "00".repeat(32)),
            "LibraryResult",
        ),
        (
            format!("getAddressInformation?address={wallet}"),
            "AddressInformation",
        ),
        (
            format!("getExtendedAddressInformation?address={wallet}"),
            "ExtendedAddressInformation",
        ),
        (
            format!("getWalletInformation?address={wallet}"),
            "WalletInformation",
        ),
        (
            format!("getAddressBalance?address={wallet}"),
            "AddressBalance",
        ),
        (format!("getAddressState?address={wallet}"), "AddressState"),
        (
            format!(
                "getAddressInformation?address={}",
                "0:".to_string() + &"11".repeat(32)
            ),
            "AddressInformation",
        ),
    ];
    for (path, name) in &cases {
        let uri = format!("/api/v2/{path}");
        let r = get(&uri);
        assert_eq!(r.status, 200, "{uri}: {}", r.json);
        check(&doc, name, &r.json["result"], &uri);
        let mut envelope = r.json.clone();
        envelope["result"] = json!("checked above");
        check(&doc, "TonlibResponse", &envelope, &uri);
    }
    for (method, stack, name) in [
        ("runGetMethod", json!([]), "RunGetMethodResult"),
        ("runGetMethodStd", json!([]), "RunGetMethodStdResult"),
    ] {
        let r = post(
            &format!("/api/v2/{method}"),
            &json!({"address": wallet, "method": "seqno", "stack": stack}),
        );
        assert_eq!(r.status, 200, "{method}: {}", r.json);
        check(&doc, name, &r.json["result"], method);
    }
    // getTransactions: an array of ext.transaction.
    let r = get(&format!("/api/v2/getTransactions?address={addr}&limit=10"));
    for t in r.json["result"].as_array().unwrap() {
        check(&doc, "Transaction", t, "getTransactions item");
    }
    // getBlockTransactionsExt: the schema's TransactionExt is contradictory
    // (allOf two closed objects with different @type enums; spec v2 open
    // questions), so items are checked as TransactionStd plus `account`.
    let r = get(&format!("/api/v2/getBlockTransactionsExt?{block}&count=5"));
    for t in r.json["result"]["transactions"].as_array().unwrap() {
        let mut std = t.clone();
        assert!(std.as_object_mut().unwrap().remove("account").is_some());
        check(&doc, "TransactionStd", &std, "getBlockTransactionsExt item");
    }
    // JSON-RPC success and errors.
    let rpc = post(
        "/api/v2/jsonRPC",
        &json!({"id": "1", "jsonrpc": "2.0", "method": "detectAddress", "params": {"address": addr}}),
    );
    // JsonRpcResponse is allOf two closed objects that exclude each other's
    // keys; TonlibResponse itself lists `jsonrpc` and `id`, so check that.
    let mut envelope = rpc.json.clone();
    envelope["result"] = json!("checked above");
    check(&doc, "TonlibResponse", &envelope, "jsonRPC");
    check(&doc, "DetectAddress", &rpc.json["result"], "jsonRPC result");
    for uri in [
        "/api/v2/getTransactions?address=bad",
        "/api/v2/lookupBlock?workchain=0&shard=1&seqno=1",
        "/api/v2/getAddressBalance?address=bad",
        "/api/v2/nope",
    ] {
        check(&doc, "TonlibErrorResponse", &get(uri).json, uri);
    }
}

/// Fee estimates of both APIs: a message the held v4 wallet refuses (an
/// empty body) still reports the import and storage fees.
#[test]
fn fee_estimates_match_the_schemas() {
    use tycho_types::cell::{Cell, CellFamily};
    let empty_body = b64(&tycho_types::boc::Boc::encode(Cell::empty_cell_ref()));
    let body = json!({"address": held_wallet(), "body": empty_body});
    let r = post("/api/v2/estimateFee", &body);
    assert_eq!(r.status, 200, "{}", r.json);
    let v2 = spec("v2-openapi-cpp.json");
    check(&v2, "QueryFees", &r.json["result"], "estimateFee");
    let r = post("/api/v3/estimateFee", &body);
    assert_eq!(r.status, 200, "{}", r.json);
    let v3 = v3_doc();
    check(&v3, "V2EstimateFeeResult", &r.json, "v3 estimateFee");
    assert_complete(&v3, "V2EstimatedFee", &r.json["source_fees"], &[]);
}
