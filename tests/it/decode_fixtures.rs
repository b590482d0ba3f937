//! Every fixture block decodes, and what we decode matches independent parsers.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use tonindex::chain::files::read_boc_file;
use tonindex::decode::{decode_block, DecodedBlock, DescrKind};
use tonindex_model::AccountStatus;

/// Hex transaction hashes of a decoded block.
fn tx_hashes(b: &DecodedBlock) -> BTreeSet<String> {
    b.transactions
        .iter()
        .map(|t| hex::encode(t.record.hash))
        .collect()
}

/// A JSON array of hex strings as a set (`null`, a Go nil slice, is empty).
fn hex_set(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_fixture_block_matches_pytoniq_summary() {
    let blocks = common::pytoniq_blocks();
    assert!(blocks.len() >= 89, "summary lists {} blocks", blocks.len());
    for (rel, want) in &blocks {
        let boc = read_boc_file(&common::fixture(rel)).unwrap();
        let b = decode_block(&boc).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let r = &b.record;
        let ctx = rel.clone();
        assert_eq!(
            r.global_id as i64,
            want["global_id"].as_i64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            r.id.id.workchain as i64,
            want["workchain"].as_i64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            format!("{:016x}", r.id.id.shard),
            want["shard"].as_str().unwrap().to_lowercase(),
            "{ctx}"
        );
        assert_eq!(
            r.id.id.seqno as u64,
            want["seqno"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(r.key_block, want["key_block"].as_bool().unwrap(), "{ctx}");
        assert_eq!(
            r.gen_utime as u64,
            want["gen_utime"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(r.start_lt, want["start_lt"].as_u64().unwrap(), "{ctx}");
        assert_eq!(r.end_lt, want["end_lt"].as_u64().unwrap(), "{ctx}");
        assert_eq!(
            hex::encode(r.id.root_hash),
            want["root_hash"].as_str().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            hex::encode(r.id.file_hash),
            want["boc_sha256"].as_str().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            r.tx_count as u64,
            want["transactions"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            b.transactions.len() as u64,
            want["transactions"].as_u64().unwrap(),
            "{ctx}"
        );
        let accounts: BTreeSet<_> = b.transactions.iter().map(|t| t.record.account).collect();
        assert_eq!(
            accounts.len() as u64,
            want["accounts"].as_u64().unwrap(),
            "{ctx}"
        );
        let got = tx_hashes(&b);
        let expected = hex_set(&want["tx_hashes"]);
        assert_eq!(got, expected, "{ctx}: transaction hashes");
        // Every transaction is in the block's workchain and within its lt range.
        for t in &b.transactions {
            assert_eq!(t.record.account.workchain, r.id.id.workchain, "{ctx}");
            assert!(t.record.lt >= r.start_lt && t.record.lt < r.end_lt, "{ctx}");
            assert!(
                t.record.description.is_some(),
                "{ctx}: description of {}",
                hex::encode(t.record.hash)
            );
        }
        // Masterchain blocks list shards (except the oldest with only masterchain).
        assert_eq!(r.mc_block_seqno.is_some(), r.id.id.workchain == -1, "{ctx}");
    }
}

fn status(s: &str) -> AccountStatus {
    match s {
        "uninit" => AccountStatus::Uninit,
        "frozen" => AccountStatus::Frozen,
        "active" => AccountStatus::Active,
        "nonexist" => AccountStatus::Nonexist,
        other => panic!("unknown status {other}"),
    }
}

#[test]
fn tongo_blocks_match_golden_transactions_and_descr_lengths() {
    for n in [1, 2, 4, 5] {
        let boc = read_boc_file(&common::fixture(&format!("blocks/tongo/block-{n}.bin"))).unwrap();
        let b = decode_block(&boc).unwrap();
        let golden = common::json(&format!("api-golden/tongo/block-{n}.expected.json"));

        let got = tx_hashes(&b);
        let want = hex_set(&golden["TxHashes"]);
        assert_eq!(got, want, "block-{n} tx hashes");

        let mut by_key = BTreeMap::new();
        for t in &b.transactions {
            by_key.insert((hex::encode(t.record.account.id), t.record.lt), &t.record);
        }
        let mut checked = 0;
        for (acc, a) in golden["Accounts"].as_object().into_iter().flatten() {
            for (lt, g) in a["Transactions"].as_object().unwrap() {
                let lt: u64 = lt.parse().unwrap();
                let t = by_key
                    .get(&(acc.clone(), lt))
                    .unwrap_or_else(|| panic!("block-{n}: no tx {acc} {lt}"));
                assert_eq!(
                    hex::encode(t.prev_trans_hash),
                    g["PrevTransHash"].as_str().unwrap()
                );
                assert_eq!(t.prev_trans_lt, g["PrevTransLt"].as_u64().unwrap());
                assert_eq!(t.now as u64, g["Now"].as_u64().unwrap());
                assert_eq!(t.out_msgs.len() as u64, g["OutMsgCnt"].as_u64().unwrap());
                assert_eq!(t.orig_status, status(g["OrigStatus"].as_str().unwrap()));
                assert_eq!(t.end_status, status(g["EndStatus"].as_str().unwrap()));
                checked += 1;
            }
        }
        assert_eq!(checked, b.transactions.len(), "block-{n}: every tx checked");
        assert_eq!(
            b.in_msg_descr.len() as u64,
            golden["InMsgDescrLength"].as_u64().unwrap(),
            "block-{n}"
        );
        assert_eq!(
            b.out_msg_descr.len() as u64,
            golden["OutMsgDescrLength"].as_u64().unwrap(),
            "block-{n}"
        );
        assert!(b
            .in_msg_descr
            .iter()
            .chain(&b.out_msg_descr)
            .all(|e| e.kind != DescrKind::Unreadable));
    }
}

#[test]
fn v2_envelopes_carry_message_metadata() {
    let boc = read_boc_file(&common::fixture(
        "blocks/ston-fi/shard_block_6000000000000000_52111590.hex",
    ))
    .unwrap();
    let b = decode_block(&boc).unwrap();
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
    let entries: Vec<_> = b.in_msg_descr.iter().chain(&b.out_msg_descr).collect();
    assert!(entries.iter().all(|e| e.kind != DescrKind::Unreadable));
    let v2: Vec<_> = entries
        .iter()
        .filter(|e| e.envelope_version == Some(2))
        .collect();
    assert!(!v2.is_empty(), "the ston-fi block has v2 envelopes");
    let with_meta: Vec<_> = v2.iter().filter(|e| e.metadata.is_some()).collect();
    assert!(!with_meta.is_empty());
    // Metadata lands on the decoded messages; initiators are real accounts and depth is sane.
    let msgs: Vec<_> = b
        .transactions
        .iter()
        .flat_map(|t| t.in_msg.iter().chain(&t.out_msgs))
        .filter(|m| m.metadata.is_some())
        .collect();
    assert!(!msgs.is_empty());
    for m in msgs {
        let md = m.metadata.unwrap();
        assert!(md.depth < 1000);
        assert!(md.initiator_lt > 0 && md.initiator_lt <= b.record.end_lt);
    }
}

#[test]
fn block_embedded_in_tonutils_fat_block_json_matches_summary() {
    let rel = "blocks/tonutils-go/tvm_replay_fat_block_66519406.json";
    let j = common::json(rel);
    let b64 = j["block_boc_base64"].as_str().unwrap();
    let boc = tonindex::chain::files::boc_from_bytes(b64.as_bytes()).unwrap();
    let b = decode_block(&boc).unwrap();
    let summary = common::json("verification/pytoniq-summary.json");
    let want = &summary["block_json"][rel];
    let wb = &want["block"];
    assert_eq!(
        hex::encode(b.record.id.root_hash),
        wb["root_hash"].as_str().unwrap()
    );
    assert_eq!(
        hex::encode(b.record.id.file_hash),
        wb["boc_sha256"].as_str().unwrap()
    );
    assert_eq!(b.record.id.id.seqno as u64, wb["seqno"].as_u64().unwrap());
    assert_eq!(
        b.record.master_ref.unwrap().block.id.seqno as u64,
        wb["master_ref_seqno"].as_u64().unwrap()
    );
    assert_eq!(
        b.transactions.len() as u64,
        wb["transactions"].as_u64().unwrap()
    );
    let got = tx_hashes(&b);
    let expected = hex_set(&want["tx_hashes"]);
    assert_eq!(got, expected);
}

/// TEP-467 normalized hashes as toncenter reports them (`hash_norm` of the
/// external-in messages of a real v3 `/traces` response, testnet): we
/// rebuild each message with a different header (an external source, a
/// non-zero import fee, the body inline where it fits) so that its own hash
/// changes, and the decoder must still arrive at toncenter's normalized
/// hash.
#[test]
fn external_in_normalized_hash_matches_toncenter() {
    use base64::Engine as _;
    use tycho_types::cell::{Cell, CellBuilder, CellFamily, Store};
    use tycho_types::models::{IntAddr, StdAddr};

    let b64 = base64::engine::general_purpose::STANDARD;
    let json = common::json("api-golden/toncenter-v3/external_in_hash_norm.json");
    let mut checked = 0;
    for m in json["messages"].as_array().unwrap() {
        let norm = m["hash_norm"].as_str().unwrap();
        let body = m["body"].as_str().unwrap();
        let dest = tonindex::api::encoding::parse_address(m["destination"].as_str().unwrap())
            .unwrap()
            .address;
        let body = tycho_types::boc::Boc::decode(b64.decode(body).unwrap()).unwrap();

        let mut b = CellBuilder::new();
        b.store_small_uint(0b10, 2).unwrap(); // ext_in_msg_info$10
        b.store_small_uint(0b01, 2).unwrap(); // src: addr_extern$01
        b.store_small_uint(8, 9).unwrap(); // len:(## 9)
        b.store_u8(0xab).unwrap();
        let addr = IntAddr::Std(StdAddr::new(
            dest.workchain as i8,
            tycho_types::cell::HashBytes(dest.id),
        ));
        addr.store_into(&mut b, Cell::empty_context()).unwrap();
        tycho_types::num::Tokens::new(12345)
            .store_into(&mut b, Cell::empty_context())
            .unwrap(); // import_fee
        b.store_bit_zero().unwrap(); // init: nothing
        let inline = b.size_bits() + 1 + body.bit_len() <= 1023
            && usize::from(b.size_refs()) + body.reference_count() as usize <= 4;
        if inline {
            b.store_bit_zero().unwrap();
            b.store_slice(body.as_slice().unwrap()).unwrap();
        } else {
            b.store_bit_one().unwrap();
            b.store_reference(body.clone()).unwrap();
        }
        let msg = b.build().unwrap();
        let rec = tonindex::decode::message::decode_message(&msg, 12).unwrap();
        let want: [u8; 32] = b64.decode(norm).unwrap().try_into().unwrap();
        assert_eq!(rec.hash_norm, Some(want), "message {}", m["hash"]);
        assert_ne!(rec.hash, want);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} external-in messages checked");
}

/// The code of each account a block changed, read from the pruned new side
/// of its state update, is the code the full state at the end of the
/// series holds (the 2019 mainnet series' masterchain state, read whole
/// and independently of the blocks): each account's code after
/// its last block in the series, and `None` exactly where that state has
/// no active code.
#[test]
fn codes_read_from_state_updates_match_the_full_state() {
    use tonindex::decode::state::{decode_state_file, StateFile};
    use tycho_types::models::{AccountState, ShardAccount};
    use tycho_types::prelude::Load;
    let dir = "blocks/ever-block-mainnet-2019";
    // (The series' shard blocks carry no transactions.)
    for (sub, seqnos, state) in [("mc", 2660..=2690, "state_2690.boc")] {
        let mut last: BTreeMap<tonindex_model::Address, Option<[u8; 32]>> = BTreeMap::new();
        let mut changed = 0;
        for n in seqnos {
            let boc = read_boc_file(&common::fixture(&format!("{dir}/{sub}/{n}.boc"))).unwrap();
            let b = decode_block(&boc).unwrap();
            // Each account's status after its last transaction of the block.
            let after: BTreeMap<_, _> = b
                .transactions
                .iter()
                .map(|t| (t.record.account, t.record.end_status))
                .collect();
            for (a, status) in after {
                // Every account a transaction left existing is shown by the
                // update; one left nonexistent is not in the dictionary.
                let code = match b.code_after(&a) {
                    Some(code) => code,
                    None if status == AccountStatus::Nonexist => None,
                    None => panic!("{sub} {n}: {a:?} ({status:?}) not shown"),
                };
                last.insert(a, code);
                changed += 1;
            }
        }
        let root = tycho_types::boc::Boc::decode(
            read_boc_file(&common::fixture(&format!(
                "accounts/ever-block-mainnet-2019/{state}"
            )))
            .unwrap(),
        )
        .unwrap();
        let StateFile::State(full) = decode_state_file(&root).unwrap() else {
            panic!("{state}: not a state");
        };
        let held: BTreeMap<_, _> = full.accounts.into_iter().collect();
        let mut with_code = 0;
        for (a, code) in &last {
            let want = held.get(a).and_then(|cell| {
                let sa = ShardAccount::load_from(&mut cell.as_slice().unwrap()).unwrap();
                match sa.load_account().unwrap()?.state {
                    AccountState::Active(init) => init.code.map(|c| *c.repr_hash().as_array()),
                    _ => None,
                }
            });
            assert_eq!(*code, want, "{sub}: {a:?}");
            with_code += usize::from(want.is_some());
        }
        assert!(
            with_code >= 2 && changed > 30,
            "{sub}: {with_code} codes, {changed} changes"
        );
    }
}
