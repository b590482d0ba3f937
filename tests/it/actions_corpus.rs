//! toncenter's own action corpus (ton-indexer's `indexer/tests`): real
//! mainnet traces as the indexer's database rows (lz4 frames of msgpack),
//! and YAML cases of the actions its classifier makes of them. Read from
//! `tests/data/fixtures/api-golden/ton-indexer-actions`, or from
//! the directory `TONINDEX_ACTIONS_CORPUS` names (same layout:
//! `test_cases/*.yaml`, `traces/*.lz4`).
//!
//! Here: our assembler, fed each trace's transactions alone, rebuilds the
//! corpus's own trace rows (root, counts, lts, times, masterchain seqnos,
//! external hash, state) and a tree that reaches every transaction; and
//! our classifier, fed the same transactions and the corpus's interface
//! records, makes the actions each YAML case expects (types, counts, every
//! value named, selectors included). It prints `N/M cases pass`.

use crate::common;

use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::Value;
use tonindex::trace::action_data::ActionData;
use tonindex::trace::assembly::Assembly;
use tonindex::trace::classify::{self, Interfaces, JettonWallet, NftItem, NftSale};
use tonindex::trace::{tree, TraceMsg, TraceTx};
use tonindex_model::{
    AccountStatus, ActionRecord, Address, ClassificationState, Hash, MsgKind, TraceRecord,
    TraceState, TxKind,
};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("TONINDEX_ACTIONS_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => common::fixtures().join("api-golden/ton-indexer-actions"),
    }
}

/// msgpack → JSON (binary strings as standard base64).
fn to_json(v: rmpv::Value) -> Value {
    use rmpv::Value as M;
    match v {
        M::Nil => Value::Null,
        M::Boolean(b) => Value::Bool(b),
        M::Integer(i) => match (i.as_u64(), i.as_i64()) {
            (Some(u), _) => Value::from(u),
            (None, Some(s)) => Value::from(s),
            _ => Value::Null,
        },
        M::F32(f) => Value::from(f64::from(f)),
        M::F64(f) => Value::from(f),
        M::String(s) => Value::String(s.into_str().unwrap_or_default()),
        M::Binary(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        M::Array(a) => Value::Array(a.into_iter().map(to_json).collect()),
        M::Map(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let k = match k {
                        M::String(s) => s.into_str().unwrap_or_default(),
                        other => other.to_string(),
                    };
                    (k, to_json(v))
                })
                .collect(),
        ),
        M::Ext(..) => Value::Null,
    }
}

/// One corpus trace file: the trace row, the transactions (as the
/// assembler and classifier take them) and the interfaces records.
struct CorpusTrace {
    row: Value,
    txs: Vec<TraceTx>,
    interfaces: Value,
}

fn hash(v: &Value) -> Hash {
    let s = v.as_str().expect("hash string");
    let b = base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("base64 hash");
    b.try_into().expect("32-byte hash")
}

fn opt_hash(v: &Value) -> Option<Hash> {
    (!v.is_null()).then(|| hash(v))
}

fn address(v: &Value) -> Option<Address> {
    let s = v.as_str()?;
    let (wc, id) = s.split_once(':')?;
    Some(Address {
        workchain: wc.parse().ok()?,
        id: hex::decode(id).ok()?.try_into().ok()?,
    })
}

fn status(v: &Value) -> AccountStatus {
    match v.as_str() {
        Some("active") => AccountStatus::Active,
        Some("frozen") => AccountStatus::Frozen,
        Some("nonexist") => AccountStatus::Nonexist,
        _ => AccountStatus::Uninit,
    }
}

fn boc_cell(v: &Value) -> Option<tycho_types::cell::Cell> {
    let s = v.as_str()?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(s).ok()?;
    tycho_types::boc::Boc::decode(bytes).ok()
}

fn message(m: &Value) -> TraceMsg {
    let source = address(&m["source"]);
    let destination = address(&m["destination"]);
    let kind = match (source.is_some(), destination.is_some()) {
        (false, _) => MsgKind::ExternalIn,
        (true, false) => MsgKind::ExternalOut,
        (true, true) => MsgKind::Internal,
    };
    let extra = m["value_extra_currencies"]
        .as_object()
        .is_some_and(|o| !o.is_empty());
    TraceMsg {
        hash: hash(&m["msg_hash"]),
        kind,
        source,
        destination,
        value: m["value"].as_u64().map_or(0, u128::from),
        extra_currencies: extra,
        opcode: m["opcode"].as_i64().map(|o| o as u32),
        bounce: m["bounce"].as_bool().unwrap_or(false),
        bounced: m["bounced"].as_bool().unwrap_or(false),
        created_lt: m["created_lt"].as_u64(),
        created_at: m["created_at"].as_u64().map(|t| t as u32),
        hash_norm: None,
        body: boc_cell(&m["message_content"]["body"]),
        init_state: boc_cell(&m["init_state"]["body"]),
    }
}

fn transaction(t: &Value) -> TraceTx {
    let msgs = t["messages"].as_array().expect("messages");
    let in_msg = msgs.iter().find(|m| m["direction"] == "in").map(message);
    // Out-messages in the order the record lists them: the order
    // toncenter's classifier saw them in (pairing a Coffee withdrawal's
    // payouts with its event's amounts depends on it); blocks give them in
    // out-message index order.
    let out: Vec<&Value> = msgs.iter().filter(|m| m["direction"] == "out").collect();
    let kind = match t["descr"].as_str() {
        Some("tick_tock") => TxKind::TickTock,
        Some("storage") => TxKind::Storage,
        _ => TxKind::Ord,
    };
    let exit_code = t["compute_exit_code"].as_i64().map(|c| c as i32);
    TraceTx {
        hash: hash(&t["hash"]),
        lt: t["lt"].as_u64().expect("lt"),
        account: address(&t["account"]).expect("account"),
        now: t["now"].as_u64().expect("now") as u32,
        mc_seqno: t["mc_block_seqno"].as_u64().map(|s| s as u32),
        kind,
        in_msg,
        out_msgs: out.into_iter().map(message).collect(),
        orig_status: status(&t["orig_status"]),
        end_status: status(&t["end_status"]),
        aborted: t["aborted"].as_bool().unwrap_or(false),
        destroyed: t["destroyed"].as_bool().unwrap_or(false),
        compute: t["compute_mode"]
            .as_i64()
            .map(|_| (matches!(exit_code, Some(0 | 1)), exit_code.unwrap_or(0))),
        no_gas: false,
        action_result: None,
    }
}

/// One trace file of the corpus as its msgpack value (an lz4 frame).
pub(crate) fn read_trace_value(path: &Path) -> rmpv::Value {
    let raw = std::fs::read(path).expect("trace file");
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut lz4_flex::frame::FrameDecoder::new(raw.as_slice()),
        &mut bytes,
    )
    .expect("lz4 frame");
    rmpv::decode::read_value(&mut bytes.as_slice()).expect("msgpack")
}

fn load_trace(path: &Path) -> CorpusTrace {
    let v = to_json(read_trace_value(path));
    let txs = v["transactions"]
        .as_array()
        .expect("transactions")
        .iter()
        .map(transaction)
        .collect();
    CorpusTrace {
        row: v["trace"].clone(),
        txs,
        interfaces: v["interfaces"].clone(),
    }
}

/// The corpus's trace files, in name order.
pub(crate) fn trace_files() -> Vec<PathBuf> {
    let dir = corpus_dir().join("traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "lz4"))
        .collect();
    files.sort();
    files
}

fn b64(h: &Hash) -> String {
    base64::engine::general_purpose::STANDARD.encode(h)
}

fn count_nodes(n: &tree::Node) -> usize {
    1 + n.children.iter().flatten().map(count_nodes).sum::<usize>()
}

#[test]
fn assembler_rebuilds_the_corpus_trace_rows() {
    let files = trace_files();
    assert!(!files.is_empty(), "no traces in the corpus");
    let mut failures = Vec::new();
    for path in &files {
        let t = load_trace(path);
        let mut txs = t.txs.clone();
        txs.sort_by_key(TraceTx::order_key);
        let mut asm = Assembly::new(Default::default(), Default::default(), Vec::new());
        let ids: Vec<Hash> = txs.iter().map(|tx| asm.add(tx)).collect();
        let changes = asm.finish();
        let row = &t.row;
        let want_id = hash(&row["trace_id"]);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut fail = |what: String| failures.push(format!("{name}: {what}"));
        if changes.traces.len() != 1 || ids.iter().any(|i| *i != want_id) {
            fail(format!(
                "{} traces assembled, ids {:?}",
                changes.traces.len(),
                ids.iter().map(b64).collect::<Vec<_>>()
            ));
            continue;
        }
        let got = &changes.traces[0];
        let state = match got.state {
            TraceState::Complete => "complete",
            TraceState::Pending => "pending",
            TraceState::Broken => "broken",
        };
        let checks: [(&str, Value, Value); 11] = [
            (
                "external_hash",
                row["external_hash"].clone(),
                got.external_hash.as_ref().map(b64).into(),
            ),
            (
                "mc_seqno_start",
                row["mc_seqno_start"].clone(),
                got.mc_seqno_start.into(),
            ),
            (
                "mc_seqno_end",
                row["mc_seqno_end"].clone(),
                got.mc_seqno_end.into(),
            ),
            ("start_lt", row["start_lt"].clone(), got.start_lt.into()),
            ("end_lt", row["end_lt"].clone(), got.end_lt.into()),
            (
                "start_utime",
                row["start_utime"].clone(),
                got.start_utime.into(),
            ),
            ("end_utime", row["end_utime"].clone(), got.end_utime.into()),
            ("state", row["state"].clone(), state.into()),
            ("nodes_", row["nodes_"].clone(), got.transactions.into()),
            ("edges_", row["edges_"].clone(), got.messages.into()),
            (
                "pending_edges_",
                row["pending_edges_"].clone(),
                got.pending_messages.into(),
            ),
        ];
        for (field, want, have) in checks {
            if want != have {
                fail(format!("{field}: corpus {want}, ours {have}"));
            }
        }
        // The tree hangs every transaction under its sender; the order is (lt, account).
        match tree::build(&txs, &want_id) {
            Some(root) if count_nodes(&root) == txs.len() => {}
            Some(root) => fail(format!(
                "tree reaches {} of {} transactions",
                count_nodes(&root),
                txs.len()
            )),
            None => fail("no root".into()),
        }
        let order: Vec<u64> = tree::order(&txs).iter().map(|&i| txs[i].lt).collect();
        if order.windows(2).any(|w| w[0] > w[1]) {
            fail("order is not by lt".into());
        }
    }
    println!("{} corpus traces assembled", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// Classification: the YAML cases.

/// The corpus's interface records as the classifier's contract roles.
struct CorpusInterfaces(Value);

impl Interfaces for CorpusInterfaces {
    fn jetton_wallet(&self, a: &Address) -> Option<JettonWallet> {
        let w = &self.0[raw(a)]["JettonWallet"];
        Some(JettonWallet {
            owner: address(&w["owner"])?,
            jetton: address(&w["jetton"])?,
        })
    }
    fn nft_item(&self, a: &Address) -> Option<NftItem> {
        let item = self.0[raw(a)].get("NftItem")?;
        let index = match &item["index"] {
            Value::Number(n) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => u.to_string(),
                (None, Some(f)) => format!("{f:.0}"),
                _ => return None,
            },
            Value::String(s) => s.clone(),
            _ => return None,
        };
        Some(NftItem {
            collection: address(&item["collection_address"]),
            index,
        })
    }
    fn nft_sale(&self, a: &Address) -> Option<NftSale> {
        let s = self.0[raw(a)].get("NftSale")?;
        Some(NftSale {
            nft: address(&s["nft_address"])?,
            owner: address(&s["nft_owner_address"]),
            marketplace: address(&s["marketplace_address"]),
            price: record_u128(&s["full_price"])?,
            fee_address: address(&s["marketplace_fee_address"]),
            fee: record_u128(&s["marketplace_fee"]),
            royalty_address: address(&s["royalty_address"]),
            royalty: record_u128(&s["royalty_amount"]),
            terms: None,
        })
    }
    fn dedust_pool(&self, a: &Address) -> Option<[Option<Address>; 2]> {
        let assets = self.0[raw(a)].get("DedustPool")?["assets"]
            .as_array()?
            .clone();
        let asset = |v: &Value| -> Option<Option<Address>> {
            if v["is_ton"].as_bool()? {
                Some(None)
            } else {
                Some(Some(address(&v["address"])?))
            }
        };
        Some([asset(assets.first()?)?, asset(assets.get(1)?)?])
    }
    fn account_data(&self, a: &Address) -> Option<tycho_types::cell::Cell> {
        boc_cell(&self.0[raw(a)]["data_boc"]["data_boc"])
    }
    fn nft_auction(&self, a: &Address) -> Option<NftSale> {
        let s = self.0[raw(a)].get("NftAuction")?;
        Some(NftSale {
            nft: address(&s["nft_addr"])?,
            owner: address(&s["nft_owner"]),
            marketplace: address(&s["mp_addr"]),
            price: record_u128(&s["last_bid"])?,
            fee_address: None,
            fee: None,
            royalty_address: None,
            royalty: None,
            terms: None,
        })
    }
}

/// The corpus's interfaces less its DeDust pools: an index that has not
/// read a pool's assets.
struct WithoutPools<'a>(&'a CorpusInterfaces);

impl Interfaces for WithoutPools<'_> {
    fn jetton_wallet(&self, a: &Address) -> Option<JettonWallet> {
        self.0.jetton_wallet(a)
    }
    fn nft_item(&self, a: &Address) -> Option<NftItem> {
        self.0.nft_item(a)
    }
    fn nft_sale(&self, a: &Address) -> Option<NftSale> {
        self.0.nft_sale(a)
    }
    fn nft_auction(&self, a: &Address) -> Option<NftSale> {
        self.0.nft_auction(a)
    }
    fn account_data(&self, a: &Address) -> Option<tycho_types::cell::Cell> {
        self.0.account_data(a)
    }
}

/// A float or integer record number as an integer.
fn record_u128(v: &Value) -> Option<u128> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .map(u128::from)
            .or_else(|| n.as_f64().map(|f| f as u128)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn raw(a: &Address) -> String {
    format!("{}:{}", a.workchain, hex::encode_upper(a.id))
}

/// The corpus's trace row as a record.
fn trace_record(row: &Value) -> TraceRecord {
    TraceRecord {
        trace_id: hash(&row["trace_id"]),
        external_hash: opt_hash(&row["external_hash"]),
        external_hash_norm: None,
        mc_seqno_start: row["mc_seqno_start"].as_u64().map(|s| s as u32),
        mc_seqno_end: row["mc_seqno_end"].as_u64().map(|s| s as u32),
        start_lt: row["start_lt"].as_u64().unwrap_or(0),
        start_utime: row["start_utime"].as_u64().unwrap_or(0) as u32,
        end_lt: row["end_lt"].as_u64().unwrap_or(0),
        end_utime: row["end_utime"].as_u64().unwrap_or(0) as u32,
        state: TraceState::Complete,
        transactions: row["nodes_"].as_u64().unwrap_or(0) as u32,
        messages: row["edges_"].as_u64().unwrap_or(0) as u32,
        pending_messages: 0,
        classification: ClassificationState::Unclassified,
        tx_ids: Vec::new(),
    }
}

/// An action as the corpus's paths read it: toncenter's row, the type's
/// fields under `<type>_data`.
fn action_json(a: &ActionRecord) -> Value {
    let addr = |x: &Option<Address>| x.as_ref().map(raw).map_or(Value::Null, Value::from);
    let mut o = serde_json::json!({
        "type": a.kind,
        "action_id": b64(&a.action_id),
        "trace_id": b64(&a.trace_id),
        "tx_hashes": a.tx_hashes.iter().map(b64).collect::<Vec<_>>(),
        "accounts": a.accounts.iter().map(raw).collect::<Vec<_>>(),
        "start_lt": a.start_lt,
        "end_lt": a.end_lt,
        "start_utime": a.start_utime,
        "end_utime": a.end_utime,
        "success": a.success,
        "source": addr(&a.source),
        "source_secondary": addr(&a.source_secondary),
        "destination": addr(&a.destination),
        "destination_secondary": addr(&a.destination_secondary),
        "asset": addr(&a.asset),
        "asset_secondary": addr(&a.asset_secondary),
        "opcode": a.opcode,
        "value": a.value,
        "amount": a.amount,
        "ancestor_type": a.ancestor_type,
        "parent_action_id": a.parent_action_id.as_ref().map(b64),
    });
    let mut data: Value = serde_json::from_str(&a.data).expect("action data is JSON");
    // toncenter's row keeps a type's fields in a column named after it, or
    // after the type it extends; a LayerZero packet has a column of its own.
    if let Some(packet) = data.as_object_mut().and_then(|d| d.remove("packet")) {
        o["layerzero_packet_data"] = packet;
    }
    // tgBTC rows keep a key or a Bitcoin txid in an address column.
    let text_column = match a.kind.as_str() {
        "tgbtc_mint" | "tgbtc_mint_fallback" => Some(("bitcoin_tx_id", "asset_secondary")),
        "tgbtc_new_key" | "tgbtc_new_key_fallback" => Some(("pubkey", "source_secondary")),
        "tgbtc_dkg_log_fallback" => Some(("pubkey", "asset")),
        _ => None,
    };
    if let Some((key, column)) = text_column {
        if let Some(v) = data.get(key) {
            o[column] = v.clone();
        }
    }
    // The second asset columns (a deposit's data has its own `asset2`).
    if a.kind != "dex_deposit_liquidity" {
        for column in ["asset2", "asset2_secondary"] {
            if let Some(v) = data.as_object_mut().and_then(|d| d.remove(column)) {
                o[column] = v;
            }
        }
    }
    let column = match a.kind.as_str() {
        "nft_purchase" => "nft_transfer",
        "layerzero_send_tokens" => "layerzero_send",
        "stake_deposit" | "stake_withdrawal" | "stake_withdrawal_request" => "staking",
        k => k.strip_suffix("_fallback").unwrap_or(k),
    };
    o[format!("{column}_data")] = data;
    o
}

/// `a.b[0].c`: keys, and list indexes after a key.
fn get_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |cur, part| {
        let (key, index) = match part.split_once('[') {
            Some((k, i)) => (k, Some(i.strip_suffix(']')?.parse::<usize>().ok()?)),
            None => (part, None),
        };
        let at = cur.get(key)?;
        match index {
            Some(i) => at.get(i),
            None => Some(at),
        }
    })
}

/// toncenter's check: lists match in length and every expected item is in
/// the actual list; maps by their expected keys; numbers against decimal
/// strings by value.
fn check_value(actual: &Value, expected: &Value) -> bool {
    match (expected, actual) {
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().all(|x| a.iter().any(|y| check_value(y, x)))
        }
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, x)| a.get(k).is_some_and(|y| check_value(y, x))),
        (Value::Number(e), Value::String(a)) => match (e.as_u64(), e.as_i64(), e.as_f64()) {
            (Some(u), _, _) => a.parse::<u128>().ok() == Some(u128::from(u)),
            (None, Some(i), _) => a.parse::<i128>().ok() == Some(i128::from(i)),
            (_, _, Some(f)) => a.parse::<f64>().ok() == Some(f),
            _ => false,
        },
        (Value::Number(e), Value::Number(a)) => e.as_f64() == a.as_f64(),
        (e, a) => e == a,
    }
}

/// The selector expressions the corpus uses: `value.PATH == 'str'`,
/// `== N` (decimal or `0x` hex), `== None`, `!= None`,
/// `value.PATH|length == N`; comparisons joined by `and`, those by `or`.
fn selector_matches(expr: &str, action: &Value) -> Option<bool> {
    let inner = expr.trim().strip_prefix("{{")?.strip_suffix("}}")?.trim();
    let mut any = false;
    for alternative in inner.split(" or ") {
        let mut all = true;
        for comparison in alternative.split(" and ") {
            all &= comparison_holds(comparison, action)?;
        }
        any |= all;
    }
    Some(any)
}

/// One `value.PATH == X` / `!= X` of a selector.
fn comparison_holds(comparison: &str, action: &Value) -> Option<bool> {
    let (lhs, op, rhs) = if let Some((l, r)) = comparison.split_once("!=") {
        (l.trim(), "!=", r.trim())
    } else {
        let (l, r) = comparison.split_once("==")?;
        (l.trim(), "==", r.trim())
    };
    let (path, length) = match lhs.strip_suffix("|length") {
        Some(p) => (p, true),
        None => (lhs, false),
    };
    let actual = get_path(action, path.strip_prefix("value.")?);
    let actual = match (length, actual) {
        (true, Some(Value::Array(a))) => Some(Value::from(a.len())),
        (true, _) => None,
        (false, a) => a.cloned(),
    };
    let actual = actual.unwrap_or(Value::Null);
    let expected = if rhs == "None" {
        Value::Null
    } else if let Some(s) = rhs.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        Value::from(s)
    } else if let Some(hex) = rhs.strip_prefix("0x") {
        Value::from(u64::from_str_radix(hex, 16).ok()?)
    } else {
        Value::from(rhs.parse::<u64>().ok()?)
    };
    let equal = check_value(&actual, &expected);
    Some(if op == "==" { equal } else { !equal })
}

/// Runs one YAML case; `Err` says what missed.
fn run_case(case: &Value, traces_dir: &Path) -> Result<(), String> {
    run_case_with(case, traces_dir, Variant::Corpus)
}

/// What a case runs on besides the corpus's own records.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// The records as they are.
    Corpus,
    /// Interfaces that know no DeDust pool.
    WithoutPools,
    /// Only the message bodies (and init states) the index keeps for the
    /// classifier (`classify::reads_body`), as a block import gives them.
    IndexedBodies,
}

/// [`run_case`] on a [`Variant`] of the corpus's records.
fn run_case_with(case: &Value, traces_dir: &Path, variant: Variant) -> Result<(), String> {
    let trace_id = case["trace-id"].as_str().ok_or("no trace-id")?;
    let mut t = load_trace(&traces_dir.join(format!("{trace_id}.lz4")));
    if variant == Variant::IndexedBodies {
        for tx in &mut t.txs {
            for m in tx.in_msg.iter_mut().chain(tx.out_msgs.iter_mut()) {
                if !classify::reads_body(m.kind, m.opcode) {
                    m.body = None;
                    m.init_state = None;
                }
            }
        }
    }
    let record = trace_record(&t.row);
    let known = CorpusInterfaces(t.interfaces.clone());
    let without = WithoutPools(&known);
    let interfaces: &dyn Interfaces = if variant == Variant::WithoutPools {
        &without
    } else {
        &known
    };
    let actions = classify::classify(&record, &t.txs, interfaces).map_err(|e| e.to_string())?;
    // Every row's fields read back as the shape of its type, unchanged:
    // what v3 reads is what the classifier wrote.
    for a in &actions {
        let read = ActionData::read(&a.kind, &a.data).map_err(|e| e.to_string())?;
        if read.to_text() != a.data {
            return Err(format!(
                "{}: stored {} reads back as {}",
                a.kind,
                a.data,
                read.to_text()
            ));
        }
    }
    // toncenter's action row also says the last masterchain block of its
    // transactions.
    let actions: Vec<Value> = actions
        .iter()
        .map(|a| {
            let mut j = action_json(a);
            j["mc_seqno_end"] = t
                .txs
                .iter()
                .filter(|tx| a.tx_hashes.contains(&tx.hash))
                .filter_map(|tx| tx.mc_seqno)
                .max()
                .into();
            j
        })
        .collect();
    for expected in case["expected-actions"].as_array().into_iter().flatten() {
        let kind = expected["type"]
            .as_str()
            .ok_or("expected action without type")?;
        let mut matching: Vec<&Value> = actions
            .iter()
            .filter(|a| {
                a["type"]
                    .as_str()
                    .is_some_and(|t| t.eq_ignore_ascii_case(kind))
            })
            .collect();
        if let (Some(sel), false) = (expected["selector"].as_str(), matching.is_empty()) {
            let mut found = None;
            for a in &matching {
                match selector_matches(sel, a) {
                    Some(true) => {
                        found = Some(*a);
                        break;
                    }
                    Some(false) => {}
                    None => return Err(format!("selector not understood: {sel}")),
                }
            }
            matching = found.into_iter().collect();
        }
        if matching.len() != 1 {
            let types: Vec<&str> = actions.iter().filter_map(|a| a["type"].as_str()).collect();
            return Err(format!(
                "{} actions of type {kind} (want 1); actions: {types:?}",
                matching.len()
            ));
        }
        let a = matching[0];
        for (path, want) in expected["values"].as_object().into_iter().flatten() {
            let have = get_path(a, path).cloned().unwrap_or(Value::Null);
            if !check_value(&have, want) {
                return Err(format!("{kind}.{path}: want {want}, have {have}"));
            }
        }
    }
    Ok(())
}

/// YAML values too wide for a 64-bit integer, quoted (a YAML value tree
/// holds no wider integers); they compare with our decimal strings as text.
fn quote_big_integers(text: &str) -> String {
    text.lines()
        .map(|line| match line.rsplit_once(": ") {
            Some((key, v))
                if v.trim().len() > 19 && v.trim().bytes().all(|b| b.is_ascii_digit()) =>
            {
                format!("{key}: \"{}\"", v.trim())
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The case files whose action families tonindex classifies today; every
/// case in them must pass. The rest of the corpus is run and reported.
/// (Some are only in toncenter's full corpus, not in the shipped one: run
/// it with `TONINDEX_ACTIONS_CORPUS`, where every case must pass.)
const CLASSIFIED_FAMILIES: &[&str] = &[
    "ton-transfers.yaml",
    "jetton-transfer.yaml",
    "jetton-mints.yaml",
    "nft.yaml",
    "vesting.yaml",
    "cocoon.yaml",
    "jvault.yaml",
    "layerzero.yaml",
    "tgbtc.yaml",
    "stonfi-swaps.yaml",
    "tonco.yaml",
    "coffee.yaml",
    "stonfi-v2-swaps.yaml",
    "evaa.yaml",
    "tonstakers.yaml",
    "ethena.yaml",
    "dedust-liquidities.yaml",
];

/// Cases of the shipped corpus where tonindex answers differently on
/// purpose, with the reason; each must still fail as described (a fix
/// upstream would make it pass, and then it leaves this list).
const KNOWN_DIVERGENCES: &[(&str, &str, &str)] = &[];

#[test]
fn classifier_passes_the_corpus_cases() {
    let dir = corpus_dir();
    let strict_all = std::env::var_os("TONINDEX_ACTIONS_CORPUS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("test_cases"))
        .expect("test_cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let (mut passed, mut total) = (0, 0);
    let mut must_pass_failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = quote_big_integers(&std::fs::read_to_string(file).expect("yaml"));
        let yaml: serde_yaml::Value = serde_yaml::from_str(&text).expect("yaml");
        let yaml: Value = serde_json::to_value(yaml).expect("yaml as json");
        let must = strict_all || CLASSIFIED_FAMILIES.contains(&name.as_str());
        let (mut file_passed, mut file_total) = (0, 0);
        for (case_name, case) in yaml["cases"].as_object().into_iter().flatten() {
            file_total += 1;
            let divergence = KNOWN_DIVERGENCES
                .iter()
                .find(|(f, c, _)| !strict_all && *f == name && c == case_name);
            match (run_case(case, &dir.join("traces")), divergence) {
                (Ok(()), None) => file_passed += 1,
                (Ok(()), Some(_)) => must_pass_failures.push(format!(
                    "{name} / {case_name}: passes now; take it off KNOWN_DIVERGENCES"
                )),
                (Err(_), Some((_, _, why))) => println!("{name} / {case_name}: diverges: {why}"),
                (Err(e), None) if must => {
                    must_pass_failures.push(format!("{name} / {case_name}: {e}"))
                }
                (Err(_), None) => {}
            }
        }
        println!("{name}: {file_passed}/{file_total} cases pass");
        passed += file_passed;
        total += file_total;
    }
    println!("{passed}/{total} cases pass");
    assert!(total > 0, "no cases found");
    assert!(
        must_pass_failures.is_empty(),
        "{} cases missed:\n{}",
        must_pass_failures.len(),
        must_pass_failures.join("\n")
    );
}

/// A block import keeps only the message bodies the classifier reads
/// (`classify::reads_body`); every case that passes on the corpus's whole
/// records passes on those alone, so no matcher reads a body production
/// drops.
#[test]
fn cases_pass_with_the_bodies_the_index_keeps() {
    let dir = corpus_dir();
    let (mut checked, mut failures) = (0, Vec::new());
    for (file, name, case) in corpus_cases(&dir) {
        if run_case(&case, &dir.join("traces")).is_err() {
            continue;
        }
        checked += 1;
        if let Err(e) = run_case_with(&case, &dir.join("traces"), Variant::IndexedBodies) {
            failures.push(format!("{file} / {name}: {e}"));
        }
    }
    println!("{checked} cases on the bodies the index keeps");
    assert!(checked > 0, "no case passes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every case of the corpus: its file, its name and the case.
fn corpus_cases(dir: &Path) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir.join("test_cases")).expect("test_cases") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let text = quote_big_integers(&std::fs::read_to_string(&path).expect("yaml"));
        let yaml: serde_yaml::Value = serde_yaml::from_str(&text).expect("yaml");
        let yaml: Value = serde_json::to_value(yaml).expect("yaml as json");
        for (name, case) in yaml["cases"].as_object().into_iter().flatten() {
            out.push((file.clone(), name.clone(), case.clone()));
        }
    }
    out
}

/// The index reads DeDust pools' assets only where it holds their state:
/// a DeDust swap through pools it does not know still shows the asset it
/// paid out, from the pool's swap event — every DeDust swap case of the
/// corpus passes without the pool records.
#[test]
fn dedust_swaps_read_without_their_pools() {
    let dir = corpus_dir();
    let (mut checked, mut failures) = (0, Vec::new());
    for (file, name, case) in corpus_cases(&dir) {
        let dedust_swap = case["expected-actions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| {
                a["type"] == "jetton_swap" && a["values"]["jetton_swap_data"]["dex"] == "dedust"
            });
        if !dedust_swap {
            continue;
        }
        checked += 1;
        if let Err(e) = run_case_with(&case, &dir.join("traces"), Variant::WithoutPools) {
            failures.push(format!("{file} / {name}: {e}"));
        }
    }
    println!("{checked} DeDust swap cases without pool records");
    assert!(checked > 0, "no DeDust swap case found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A composite whose parts are actions of their own lists them under it:
/// the NFT transfer and the seller's payout of a Getgems purchase carry the
/// purchase as parent and ancestor type; the ids are toncenter's (sha256 of
/// the earliest message hash and the type, computed by its classifier).
#[test]
fn purchase_parts_are_listed_under_the_purchase() {
    let dir = corpus_dir();
    let path = dir
        .join("traces")
        .join("mG5NGg-37hpz1Vgs5KvDo0HKgtQKCnMbmGEpdApY5Ls=.lz4");
    if std::env::var_os("TONINDEX_ACTIONS_CORPUS").is_some() && !path.exists() {
        return;
    }
    let t = load_trace(&path);
    let record = trace_record(&t.row);
    let actions = classify::classify(&record, &t.txs, &CorpusInterfaces(t.interfaces.clone()))
        .expect("classified");
    let of =
        |kind: &str| -> Vec<&ActionRecord> { actions.iter().filter(|a| a.kind == kind).collect() };
    let purchase = of("nft_purchase");
    assert_eq!(purchase.len(), 1);
    let purchase = purchase[0];
    assert_eq!(
        b64(&purchase.action_id),
        "Y3xmNrUJd51i1mMC0jLwB1lpYXysjnh5swMaY/E8C8c="
    );
    assert!(purchase.parent_action_id.is_none() && purchase.ancestor_type.is_empty());
    let transfer = of("nft_transfer");
    assert_eq!(transfer.len(), 1);
    assert_eq!(
        b64(&transfer[0].action_id),
        "q5pCRDCBRp0QoU9wYs4eYRGAEhcWXKo5UjhN/QVXMcA="
    );
    assert_eq!(transfer[0].parent_action_id, Some(purchase.action_id));
    assert_eq!(transfer[0].ancestor_type, vec!["nft_purchase".to_string()]);
    // The seller's payout is a part; the marketplace's failed transfer is not.
    let transfers = of("ton_transfer");
    assert_eq!(transfers.len(), 2);
    assert_eq!(
        transfers
            .iter()
            .filter(|a| a.parent_action_id == Some(purchase.action_id))
            .count(),
        1
    );
    assert!(transfers
        .iter()
        .any(|a| a.parent_action_id.is_none() && !a.success));
}

/// Constructor names in a decoded body, nested ones included.
fn decoded_names(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if let Some(t) = o.get("@type").and_then(Value::as_str) {
                out.push(t.to_string());
            }
            o.values().for_each(|x| decoded_names(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| decoded_names(x, out)),
        _ => {}
    }
}

/// The TL-B scheme of `/decode` and `message_content.decoded` against real
/// mainnet bodies: every body of the corpus whose opcode the scheme names
/// is read by a constructor that consumes the whole cell — every bit and
/// reference, nested cells of named types included — so a field too many,
/// too few or of the wrong width shows. The DeFi bodies the classifier
/// reads must each be met at least once, so the check cannot pass empty.
/// `DEVIATING` names the opcodes whose real bodies differ from the published
/// layout, with what the corpus shows; each must still be met, and
/// deviate, so that the list cannot outlive its reason.
#[test]
fn the_body_scheme_reads_every_corpus_body_whole() {
    use tonindex::decode::body;
    let mut seen = std::collections::HashSet::new();
    let mut names: std::collections::BTreeMap<String, usize> = Default::default();
    // Opcode → what mainnet's bodies in the corpus show.
    const DEVIATING: &[(u32, &str)] = &[
        (
            0xd68a_4ac1,
            "JVault pools append 4 or 36 bits after received_jettons",
        ),
        (
            0xd5ec_ca2a,
            "TONCO position init: 64 more bits than the layout",
        ),
        (0x441c_39ed, "TONCO pool init: 64 more bits than the layout"),
        (
            0x2e30_34ef,
            "TONCO create_pool: one more bit than the layout",
        ),
        (
            0xf947_1134,
            "Coffee's internal staking deposit carries more than its event's layout",
        ),
        (
            0xca44_4ce6,
            "tgBTC burn events whose pegout is not a standard address",
        ),
        (
            0x7bdd_97de,
            "tgBTC's burn notification extends the TEP-74 one",
        ),
        (
            0x595f_07bc,
            "a burn with a custom payload reference after the TEP-74 fields",
        ),
        (
            0x642b_7d07,
            "a minter's non-standard mint (no address where TEP-74 has one)",
        ),
        (
            0x178d_4519,
            "a non-standard internal transfer without a forward payload bit",
        ),
    ];
    let mut deviated = std::collections::BTreeSet::new();
    let mut deviating_bodies = 0;
    let mut failures = Vec::new();
    let mut known = 0;
    for path in trace_files() {
        let trace = load_trace(&path);
        for tx in &trace.txs {
            for m in tx.in_msg.iter().chain(&tx.out_msgs) {
                let Some(cell) = &m.body else { continue };
                if !seen.insert(*cell.repr_hash()) || cell.bit_len() < 32 {
                    continue;
                }
                let op = cell.as_slice().unwrap().load_u32().unwrap();
                if body::opcode_name(op).is_none() {
                    continue;
                }
                known += 1;
                match body::decode_exact(cell) {
                    Ok(v) => {
                        let mut found = Vec::new();
                        decoded_names(&v, &mut found);
                        for n in found {
                            *names.entry(n).or_default() += 1;
                        }
                    }
                    Err(_) if DEVIATING.iter().any(|(o, _)| *o == op) => {
                        deviated.insert(op);
                        deviating_bodies += 1;
                    }
                    Err(e) => failures.push(format!(
                        "{op:08x} ({}) in {}: {e}",
                        body::opcode_name(op).unwrap(),
                        path.display()
                    )),
                }
            }
        }
    }
    println!(
        "{known} bodies of known opcodes, {} read whole, {deviating_bodies} of deviating layouts",
        known - failures.len() - deviating_bodies
    );
    for (n, c) in &names {
        println!("  {n}: {c}");
    }
    assert!(
        failures.is_empty(),
        "bodies not read whole:\n{}",
        failures.join("\n")
    );
    let must = [
        "stonfi_swap",
        "stonfi_payment_request",
        "stonfi_swap_forward_payload",
        "stonfi_swap_v2",
        "stonfi_pay_to_v2",
        "pton_ton_transfer",
        "dedust_swap",
        "dedust_swap_external",
        "dedust_swap_peer",
        "dedust_pay_out_from_pool",
        "dedust_swap_event",
        "tonco_pool_swap",
        "tonco_router_pay_to",
        "coffee_swap",
        "coffee_swap_internal",
        "coffee_payout_internal",
        "coffee_swap_succeeded",
        "jvault_unstake_request",
        "tgbtc_mint_event",
        "cocoon_client_proxy_request",
    ];
    let missing: Vec<_> = must.iter().filter(|n| !names.contains_key(**n)).collect();
    assert!(missing.is_empty(), "never met in the corpus: {missing:?}");
    let stale: Vec<_> = DEVIATING
        .iter()
        .filter(|(op, _)| !deviated.contains(op))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as deviating, read whole: {stale:?}"
    );
}
