//! Account endpoints of both APIs over the held states: the fat block's
//! real 2026 accounts (imported as ShardAccount files) and the 2019
//! masterchain state replayed through its blocks. Every value is checked
//! against the account's own cells.

use crate::common;

use common::api::{b64, boc_root_hash, fat_block_shard_accounts, get, post, q};
use serde_json::{json, Value};
use tonindex::api::encoding::{friendly_bounceable, raw_upper};
use tonindex::state::wallet;
use tonindex_model::Address;
use tycho_types::boc::Boc;
use tycho_types::cell::Cell;
use tycho_types::models::{AccountState, IntAddr, ShardAccount};

/// A real account: its address, ShardAccount and active code/data.
struct Real {
    address: Address,
    sa: ShardAccount,
    balance: u128,
    code: Cell,
    data: Cell,
}

fn real_accounts() -> Vec<Real> {
    fat_block_shard_accounts()
        .iter()
        .filter_map(|boc| {
            let sa: ShardAccount = Boc::decode(boc).unwrap().parse().unwrap();
            let acc = sa.load_account().unwrap()?;
            let IntAddr::Std(addr) = &acc.address else {
                return None;
            };
            let AccountState::Active(init) = &acc.state else {
                return None;
            };
            Some(Real {
                address: Address {
                    workchain: addr.workchain as i32,
                    id: *addr.address.as_array(),
                },
                balance: acc.balance.tokens.into_inner(),
                code: init.code.clone()?,
                data: init.data.clone()?,
                sa,
            })
        })
        .collect()
}

fn wallet_of(r: &Real, ty: &str) -> bool {
    wallet::detect(r.code.repr_hash(), Some(&r.data)).is_some_and(|w| w.wallet_type == ty)
}

fn first_u32(c: &Cell) -> u32 {
    c.as_slice().unwrap().load_u32().unwrap()
}

fn ok(uri: &str) -> Value {
    let r = get(uri);
    assert_eq!(r.status, 200, "{uri}: {}", r.json);
    r.json
}

const UNKNOWN: &str = "0:1111111111111111111111111111111111111111111111111111111111111111";

#[test]
fn v2_address_information_and_wallets_match_the_account_cells() {
    let accounts = real_accounts();
    let mut checked = 0;
    for ty in ["wallet v3 r2", "wallet v4 r2", "wallet v5 r1"] {
        let r = accounts.iter().find(|r| wallet_of(r, ty)).unwrap();
        let addr = q(&friendly_bounceable(&r.address));
        let info = ok(&format!("/api/v2/getAddressInformation?address={addr}"))["result"].clone();
        assert_eq!(info["@type"], "raw.fullAccountState");
        assert_eq!(info["balance"], r.balance.to_string());
        assert_eq!(info["state"], "active");
        assert_eq!(boc_root_hash(&info["code"]), r.code.repr_hash().0);
        assert_eq!(boc_root_hash(&info["data"]), r.data.repr_hash().0);
        assert_eq!(
            info["last_transaction_id"]["lt"],
            r.sa.last_trans_lt.to_string()
        );
        assert_eq!(
            info["last_transaction_id"]["hash"],
            b64(r.sa.last_trans_hash.as_array())
        );
        assert_eq!(info["block_id"]["@type"], "ton.blockIdExt");

        let w = ok(&format!("/api/v2/getWalletInformation?address={addr}"))["result"].clone();
        assert_eq!(w["wallet"], true);
        assert_eq!(w["wallet_type"], ty);
        let data = &r.data;
        let mut s = data.as_slice().unwrap();
        if ty == "wallet v5 r1" {
            assert_eq!(w["is_signature_allowed"], s.load_bit().unwrap());
        }
        let seqno = s.load_u32().unwrap();
        assert_eq!(w["seqno"], seqno);
        assert_eq!(w["wallet_id"], s.load_u32().unwrap());

        // The same seqno from the contract's own get-method, both forms.
        let run = post(
            "/api/v2/runGetMethod",
            &json!({"address": friendly_bounceable(&r.address), "method": "seqno", "stack": []}),
        );
        assert_eq!(run.status, 200, "{}", run.json);
        let res = &run.json["result"];
        assert_eq!(res["exit_code"], 0, "{res}");
        assert_eq!(res["stack"], json!([["num", format!("0x{seqno:x}")]]));
        assert!(res["gas_used"].as_u64().unwrap() > 0);
        assert_eq!(
            res["last_transaction_id"]["lt"],
            r.sa.last_trans_lt.to_string()
        );
        let std = post(
            "/api/v2/runGetMethodStd",
            &json!({"address": raw_upper(&r.address), "method": 85143, "stack": []}),
        );
        assert_eq!(
            std.json["result"]["stack"][0]["number"]["number"],
            seqno.to_string()
        );

        assert_eq!(
            ok(&format!("/api/v2/getAddressBalance?address={addr}"))["result"],
            r.balance.to_string()
        );
        assert_eq!(
            ok(&format!("/api/v2/getAddressState?address={addr}"))["result"],
            "active"
        );
        let ext = ok(&format!(
            "/api/v2/getExtendedAddressInformation?address={addr}"
        ))["result"]
            .clone();
        assert_eq!(ext["@type"], "fullAccountState");
        assert_eq!(ext["balance"], r.balance.to_string());
        checked += 1;
    }
    assert_eq!(checked, 3);

    // A v4 wallet is a tonlib wallet.v4 state with its seqno.
    let v4 = accounts
        .iter()
        .find(|r| wallet_of(r, "wallet v4 r2"))
        .unwrap();
    let full = ok(&format!(
        "/api/v2/getExtendedAddressInformation?address={}",
        raw_upper(&v4.address)
    ))["result"]
        .clone();
    let ext = &full["account_state"];
    assert_eq!(ext["@type"], "wallet.v4.accountState");
    assert_eq!(ext["seqno"], first_u32(&v4.data));
    // tonlib's revision of the detected wallet, not a constant.
    assert_eq!(full["revision"], 2);
    // `suspended` is not known here (the C++ server's hard-coded list): absent.
    let info = ok(&format!(
        "/api/v2/getAddressInformation?address={}",
        raw_upper(&v4.address)
    ))["result"]
        .clone();
    assert!(info.get("suspended").is_none(), "{info}");
}

#[test]
fn v2_unknown_account_and_get_method_arguments() {
    let info = ok(&format!("/api/v2/getAddressInformation?address={UNKNOWN}"))["result"].clone();
    assert_eq!(info["balance"], "0");
    assert_eq!(info["state"], "uninitialized");
    assert_eq!(info["code"], "");
    assert_eq!(info["last_transaction_id"]["lt"], "0");
    assert_eq!(info["last_transaction_id"]["hash"], b64(&[0; 32]));
    let w = ok(&format!("/api/v2/getWalletInformation?address={UNKNOWN}"))["result"].clone();
    assert_eq!(w["wallet"], false);
    assert!(w.get("seqno").is_none());
    let run = post(
        "/api/v2/runGetMethod",
        &json!({"address": UNKNOWN, "method": "seqno", "stack": []}),
    );
    assert_eq!(run.json["result"]["exit_code"], -13);

    // An unknown method is exit code 11; a wrong stack entry a 542; JSON-RPC reaches the same handler.
    let v5 = real_accounts()
        .into_iter()
        .find(|r| wallet_of(r, "wallet v5 r1"))
        .unwrap();
    let addr = raw_upper(&v5.address);
    let run = post(
        "/api/v2/runGetMethod",
        &json!({"address": addr, "method": "no_such_method", "stack": []}),
    );
    assert_eq!(run.json["result"]["exit_code"], 11);
    let bad = post(
        "/api/v2/runGetMethod",
        &json!({"address": addr, "method": "seqno", "stack": [["tvm.Continuation", ""]]}),
    );
    assert_eq!(bad.status, 542, "{}", bad.json);
    assert_eq!(bad.json["ok"], false);
    let rpc = post(
        "/api/v2/jsonRPC",
        &json!({"id": 7, "jsonrpc": "2.0", "method": "runGetMethod",
                "params": {"address": addr, "method": "get_public_key", "stack": []}}),
    );
    assert_eq!(rpc.json["result"]["exit_code"], 0, "{}", rpc.json);
    let key = rpc.json["result"]["stack"][0][1].as_str().unwrap();
    // v5r1 data: is_signature_allowed:1 seqno:32 wallet_id:32 public_key:256
    let mut s = v5.data.as_slice().unwrap();
    s.skip_first(65, 0).unwrap();
    let want = s.load_u256().unwrap();
    assert_eq!(
        key,
        format!("0x{}", hex::encode(want.as_array()).trim_start_matches('0'))
    );
}

#[test]
fn replayed_masterchain_accounts_are_served() {
    // The elector after the 2019 series: what state_2690 holds for it.
    let boc = tonindex::chain::files::read_boc_file(&common::fixture(
        "accounts/ever-block-mainnet-2019/state_2690.boc",
    ))
    .unwrap();
    let root = Boc::decode(&boc).unwrap();
    let tonindex::decode::state::StateFile::State(state) =
        tonindex::decode::state::decode_state_file(&root).unwrap()
    else {
        panic!("a shard state")
    };
    let elector = Address {
        workchain: -1,
        id: [0x33; 32],
    };
    let cell = &state
        .accounts
        .iter()
        .find(|(a, _)| *a == elector)
        .unwrap()
        .1;
    let sa: ShardAccount = cell.parse().unwrap();
    let info = ok(&format!(
        "/api/v2/getAddressInformation?address={}",
        raw_upper(&elector)
    ))["result"]
        .clone();
    assert_eq!(
        info["last_transaction_id"]["lt"],
        sa.last_trans_lt.to_string()
    );
    assert_eq!(info["state"], "active");
    let acc = sa.load_account().unwrap().unwrap();
    assert_eq!(info["balance"], acc.balance.tokens.into_inner().to_string());
    // The index also holds later masterchain blocks (2024's) with elector
    // transactions the 2019 state never saw: the answer names the block the
    // state really comes from, not the newest one.
    assert_eq!(info["block_id"]["seqno"], 2690, "{info}");
    let newest = ok("/api/v2/getMasterchainInfo")["result"]["last"]["seqno"]
        .as_u64()
        .unwrap();
    assert!(newest > 2690);

    // v3's accountStates leaves it out (it lists only current states)...
    let listed = ok(&format!(
        "/api/v3/accountStates?address={}",
        raw_upper(&elector)
    ));
    assert_eq!(listed["accounts"].as_array().unwrap().len(), 0, "{listed}");
    // ...and v3's account names no block: that old state is refused, saying why.
    for path in ["walletInformation", "addressInformation", "account"] {
        let w = get(&format!("/api/v3/{path}?address={}", raw_upper(&elector)));
        assert_eq!(w.status, 404, "{path}");
        assert!(
            w.json["error"]
                .as_str()
                .unwrap()
                .contains("older than its transaction"),
            "{path}: {}",
            w.json
        );
    }
}

/// v2 account reads with `seqno` answer from the state after that
/// masterchain block: the elector's last transaction as of each block, an
/// unknown account of a held shard uninitialised; a block not indexed and
/// a shard whose state was never held are clear errors.
#[test]
fn v2_account_states_at_earlier_masterchain_blocks() {
    let f = common::api::fixture();
    let elector = Address {
        workchain: -1,
        id: [0x33; 32],
    };
    let mut elector_txs: Vec<(u32, u64, [u8; 32])> = f
        .blocks
        .iter()
        .filter(|b| b.record.id.id.workchain == -1)
        .flat_map(|b| {
            b.transactions
                .iter()
                .filter(|t| t.record.account == elector)
                .map(move |t| (b.record.id.id.seqno, t.record.lt, t.record.hash))
        })
        .collect();
    elector_txs.sort();
    assert!(elector_txs.len() >= 2);
    // The elector's newest transaction (lt, hash) by masterchain block `seqno`.
    let last_by = |seqno: u32| {
        elector_txs
            .iter()
            .rev()
            .find(|(s, _, _)| *s <= seqno)
            .map(|&(_, lt, hash)| (lt, hash))
    };
    let mut checked = 0;
    for seqno in 2660..2690u32 {
        let Some((lt, hash)) = last_by(seqno) else {
            continue;
        };
        let info = ok(&format!(
            "/api/v2/getAddressInformation?address={}&seqno={seqno}",
            raw_upper(&elector)
        ))["result"]
            .clone();
        assert_eq!(info["last_transaction_id"]["lt"], lt.to_string(), "{seqno}");
        assert_eq!(info["last_transaction_id"]["hash"], b64(&hash), "{seqno}");
        assert_eq!(info["block_id"]["seqno"], seqno);
        assert_eq!(info["state"], "active");
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
    // Balance and state at one block agree between endpoints.
    let bal = ok(&format!(
        "/api/v2/getAddressBalance?address={}&seqno=2670",
        raw_upper(&elector)
    ));
    let full = ok(&format!(
        "/api/v2/getAddressInformation?address={}&seqno=2670",
        raw_upper(&elector)
    ));
    assert_eq!(bal["result"], full["result"]["balance"]);

    // A get-method on the state of that block, at its time.
    let run = ok(&format!(
        "/api/v2/runGetMethod?address={}&method=active_election_id&stack=%5B%5D&seqno=2670",
        raw_upper(&elector)
    ))["result"]
        .clone();
    assert_eq!(run["exit_code"], 0, "{run}");
    assert_eq!(run["block_id"]["seqno"], 2670, "{run}");
    let (lt, _) = last_by(2670).unwrap();
    assert_eq!(run["last_transaction_id"]["lt"], lt.to_string());

    // The raw ShardAccount cell, then and now.
    let cell_at = |uri: String| -> ShardAccount {
        let r = ok(&uri)["result"].clone();
        assert_eq!(r["@type"], "tvm.cell");
        let boc = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            r["bytes"].as_str().unwrap(),
        )
        .unwrap();
        Boc::decode(boc).unwrap().parse().unwrap()
    };
    let then = cell_at(format!(
        "/api/v2/getShardAccountCell?address={}&seqno=2670",
        raw_upper(&elector)
    ));
    let (lt, hash) = last_by(2670).unwrap();
    assert_eq!((then.last_trans_lt, then.last_trans_hash.0), (lt, hash));
    // Without seqno the cell would be the newest state: the held one (the
    // replayed 2019 state, at 2690) is older than the index's later elector
    // transactions, and the cell cannot say so: refused.
    let now = get(&format!(
        "/api/v2/getShardAccountCell?address={}",
        raw_upper(&elector)
    ));
    assert_eq!(now.status, 404, "{}", now.json);
    assert!(now.json["error"].as_str().unwrap().contains("older"));
    let then = cell_at(format!(
        "/api/v2/getShardAccountCell?address={}&seqno=2690",
        raw_upper(&elector)
    ));
    let (lt, _) = last_by(2690).unwrap();
    assert_eq!(then.last_trans_lt, lt);
    let none = cell_at(format!("/api/v2/getShardAccountCell?address={UNKNOWN}"));
    assert!(none.load_account().unwrap().is_none());
    assert_eq!(none.last_trans_lt, 0);

    // An account the held masterchain state does not have.
    let absent = "-1:1111111111111111111111111111111111111111111111111111111111111111";
    let info = ok(&format!(
        "/api/v2/getAddressInformation?address={absent}&seqno=2670"
    ))["result"]
        .clone();
    assert_eq!(info["state"], "uninitialized");
    assert_eq!(info["balance"], "0");

    // Errors: a masterchain block not indexed; a basechain shard whose
    // state at that block was never held (the fixture's basechain blocks
    // at mc 2670 are not imported).
    let r = get(&format!(
        "/api/v2/getAddressInformation?address={UNKNOWN}&seqno=5"
    ));
    assert_eq!(r.status, 404, "{}", r.json);
    assert_eq!(r.json["ok"], false);
    let r = get(&format!(
        "/api/v2/getAddressInformation?address={UNKNOWN}&seqno=2670"
    ));
    assert_eq!(r.status, 501, "{}", r.json);
    assert!(
        r.json["error"].as_str().unwrap().contains("not held"),
        "{}",
        r.json
    );
}

#[test]
fn v3_account_and_wallet_states() {
    let accounts = real_accounts();
    let v4 = accounts
        .iter()
        .find(|r| wallet_of(r, "wallet v4 r2"))
        .unwrap();
    let jetton = accounts
        .iter()
        .find(|r| wallet::detect(r.code.repr_hash(), Some(&r.data)).is_none())
        .unwrap();
    let uri = format!(
        "/api/v3/accountStates?address={}&address={}&address={UNKNOWN}",
        q(&friendly_bounceable(&v4.address)),
        raw_upper(&jetton.address)
    );
    let r = ok(&uri);
    let list = r["accounts"].as_array().unwrap();
    assert_eq!(list.len(), 2, "the unknown account is absent: {r}");
    let a = &list[0];
    assert_eq!(a["address"], raw_upper(&v4.address));
    assert_eq!(a["status"], "active");
    assert_eq!(a["balance"], v4.balance.to_string());
    assert_eq!(a["code_hash"], b64(v4.code.repr_hash().as_array()));
    assert_eq!(boc_root_hash(&a["data_boc"]), v4.data.repr_hash().0);
    assert_eq!(a["last_transaction_lt"], v4.sa.last_trans_lt.to_string());
    assert_eq!(
        a["account_state_hash"],
        b64(v4.sa.account.inner().repr_hash().as_array())
    );
    // Wallets are shown non-bounceable, other contracts bounceable.
    let book = &r["address_book"];
    assert!(book[raw_upper(&v4.address)]["user_friendly"]
        .as_str()
        .unwrap()
        .starts_with("UQ"));
    assert!(book[raw_upper(&jetton.address)]["user_friendly"]
        .as_str()
        .unwrap()
        .starts_with("EQ"));
    // Interfaces and get-method ids come from the code (spec v3 §3.3): the
    // wallet by its code hash, its methods from the code's dictionary.
    assert_eq!(a["interfaces"], json!(["wallet_v4r2"]));
    let methods: Vec<u64> = a["contract_methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_u64().unwrap())
        .collect();
    // seqno, get_public_key: crc16(name) | 0x10000, as FunC numbers them.
    assert!(
        methods.contains(&85143) && methods.contains(&78748),
        "{methods:?}"
    );
    assert_eq!(
        book[raw_upper(&v4.address)]["interfaces"],
        json!(["wallet_v4r2"])
    );
    // USDT's wallets run library code: its methods are not in the account,
    // and v3's table knows the library cell's hash.
    let usdt = accounts
        .iter()
        .find(|r| {
            b64(r.code.repr_hash().as_array()) == "iUaPAseOVwgC45l5yFFvw43wfqdqSDV+BTbyuns+43s="
        })
        .unwrap();
    let u = ok(&format!(
        "/api/v3/accountStates?address={}",
        raw_upper(&usdt.address)
    ));
    assert_eq!(
        u["accounts"][0]["interfaces"],
        json!(["jetton_wallet_governed"])
    );
    assert_eq!(u["accounts"][0]["contract_methods"], Value::Null);
    let book = ok(&format!(
        "/api/v3/addressBook?address={}",
        raw_upper(&usdt.address)
    ));
    assert_eq!(
        book[raw_upper(&usdt.address)]["interfaces"],
        json!(["jetton_wallet_governed"])
    );

    let no_boc = ok(&format!("{uri}&include_boc=false"));
    assert!(no_boc["accounts"][0].get("data_boc").is_none());

    let ws = ok(&format!(
        "/api/v3/walletStates?address={}&address={}",
        raw_upper(&v4.address),
        raw_upper(&jetton.address)
    ));
    let ws = ws["wallets"].as_array().unwrap();
    assert_eq!(ws[0]["is_wallet"], true);
    assert_eq!(ws[0]["wallet_type"], "wallet v4 r2");
    assert_eq!(ws[0]["seqno"], first_u32(&v4.data));
    assert_eq!(ws[1]["is_wallet"], false);
    assert!(ws[1].get("seqno").is_none());

    let info = ok(&format!(
        "/api/v3/addressInformation?address={}",
        raw_upper(&v4.address)
    ));
    assert_eq!(info["status"], "active");
    assert_eq!(boc_root_hash(&info["code"]), v4.code.repr_hash().0);
    let unknown = ok(&format!("/api/v3/account?address={UNKNOWN}"));
    assert_eq!(unknown["status"], "uninit");
    assert_eq!(unknown["balance"], "0");
    assert_eq!(unknown["code"], Value::Null);
    let wi = ok(&format!(
        "/api/v3/wallet?address={}",
        raw_upper(&v4.address)
    ));
    assert_eq!(wi["wallet_type"], "wallet v4 r2");
    assert_eq!(wi["seqno"], first_u32(&v4.data));

    let run = post(
        "/api/v3/runGetMethod",
        &json!({"address": raw_upper(&v4.address), "method": "seqno", "stack": []}),
    );
    assert_eq!(run.status, 200, "{}", run.json);
    assert_eq!(run.json["exit_code"], 0);
    assert_eq!(
        run.json["stack"],
        json!([{"type": "num", "value": format!("0x{:x}", first_u32(&v4.data))}])
    );

    // Bad input in v3's shape.
    for (uri, status) in [
        ("/api/v3/accountStates", 422),
        ("/api/v3/accountStates?address=nope", 422),
        ("/api/v3/walletInformation", 401),
        ("/api/v3/runGetMethod", 405),
    ] {
        let r = get(uri);
        assert_eq!(r.status.as_u16(), status, "{uri}: {}", r.json);
        assert!(r.json["error"].is_string(), "{uri}");
    }
    let bad = post(
        "/api/v3/runGetMethod",
        &json!({"address": raw_upper(&v4.address), "method": "seqno", "stack": [{"type": "tuple", "value": []}]}),
    );
    assert_eq!(bad.status, 422, "{}", bad.json);
    let no_method = post("/api/v3/runGetMethod", &json!({"address": UNKNOWN}));
    assert_eq!(no_method.status, 401);
}

fn fees_of(r: &common::api::Reply) -> [u64; 4] {
    let f = &r.json["result"]["source_fees"];
    ["in_fwd_fee", "storage_fee", "gas_fee", "fwd_fee"].map(|k| {
        f[k].as_u64()
            .unwrap_or_else(|| panic!("{k} is not a JSON number: {}", r.json))
    })
}

#[test]
fn estimate_fee_runs_the_message_on_the_held_state() {
    use common::wallets::{transfer_body, Wallet};
    let accounts = real_accounts();
    let v4 = accounts
        .iter()
        .find(|r| wallet_of(r, "wallet v4 r2") && r.balance > 1_000_000_000)
        .unwrap();
    let body = transfer_body(Wallet::V4, &v4.data, u32::MAX - 60);
    let body_b64 = b64(&Boc::encode(body.as_ref()));
    let address = friendly_bounceable(&v4.address);

    // Signatures pass by default: the wallet accepts, runs, sends one message.
    let r = post(
        "/api/v2/estimateFee",
        &json!({"address": address, "body": body_b64}),
    );
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["result"]["@type"], "query.fees");
    assert_eq!(r.json["result"]["source_fees"]["@type"], "fees");
    assert_eq!(r.json["result"]["destination_fees"], json!([]));
    let [in_fwd, storage, gas, fwd] = fees_of(&r);
    assert!(in_fwd > 0 && gas > 0 && fwd > 0, "{}", r.json);

    // With real signature checks the zero signature is refused: no gas,
    // no messages; the import and storage fees stay.
    let r = post(
        "/api/v2/estimateFee",
        &json!({"address": address, "body": body_b64, "ignore_chksig": false}),
    );
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(fees_of(&r), [in_fwd, storage, 0, 0]);

    // JSON-RPC and v3 give the same figures (v3 without the @type tags).
    let rpc = post(
        "/api/v2/jsonRPC",
        &json!({"id": 1, "jsonrpc": "2.0", "method": "estimateFee",
                "params": {"address": address, "body": body_b64}}),
    );
    assert_eq!(fees_of(&rpc), [in_fwd, storage, gas, fwd]);
    let v3 = post(
        "/api/v3/estimateFee",
        &json!({"address": raw_upper(&v4.address), "body": body_b64, "ignore_chksig": true}),
    );
    assert_eq!(v3.status, 200, "{}", v3.json);
    assert_eq!(
        v3.json,
        json!({"source_fees": {"in_fwd_fee": in_fwd, "storage_fee": storage, "gas_fee": gas,
               "fwd_fee": fwd}, "destination_fees": []})
    );

    // A deployment to an address with no state: the state init travels in
    // the message (a larger import fee); nothing to pay gas with, so no gas.
    let init = |c: &Cell| b64(&Boc::encode(c.as_ref()));
    let r = post(
        "/api/v2/estimateFee",
        &json!({"address": UNKNOWN, "body": body_b64,
                "init_code": init(&v4.code), "init_data": init(&v4.data)}),
    );
    assert_eq!(r.status, 200, "{}", r.json);
    let [deploy_in_fwd, deploy_storage, deploy_gas, _] = fees_of(&r);
    assert!(deploy_in_fwd > in_fwd, "{}", r.json);
    assert_eq!((deploy_storage, deploy_gas), (0, 0));

    // Bad input in each API's shape.
    for (body, status) in [
        (json!({"address": address}), 422),
        (json!({"address": address, "body": "not base64!"}), 422),
        (json!({"address": address, "body": b64(b"not a boc")}), 422),
        (json!({"address": "nonsense", "body": body_b64}), 422),
        (json!({"body": body_b64}), 422),
        (
            json!({"address": address, "body": body_b64, "ignore_chksig": "maybe"}),
            422,
        ),
    ] {
        let r = post("/api/v2/estimateFee", &body);
        assert_eq!(r.status, status, "{body}: {}", r.json);
        assert_eq!(r.json["ok"], false, "{body}: {}", r.json);
    }
    let r = post("/api/v3/estimateFee", &json!({"body": body_b64}));
    assert_eq!(r.status, 401, "{}", r.json);
    let r = post(
        "/api/v3/estimateFee",
        &json!({"address": address, "body": "%%%"}),
    );
    assert_eq!(r.status, 422, "{}", r.json);
    assert!(r.json["error"].as_str().unwrap().contains("body"));
    let r = get(&format!("/api/v3/estimateFee?address={address}"));
    assert_eq!(r.status, 405, "{}", r.json);
}

/// Accounts whose state the node does not hold are not reported as
/// uninitialized with balance 0: an account with indexed transactions
/// newer than the held state of its shard (here: 2024 basechain accounts
/// over the 2019 basechain state) is a 404 saying so in v2 and v3, and no
/// fee is estimated on a made-up empty account for it.
#[test]
fn accounts_whose_state_is_not_held_are_not_made_up() {
    let f = common::api::fixture();
    let mut accounts: Vec<_> = f
        .txs()
        .values()
        .map(|(_, t)| t.record.account)
        .filter(|a| a.workchain == 0)
        .collect();
    accounts.sort();
    accounts.dedup();
    let mut checked = 0;
    for a in accounts {
        let raw = raw_upper(&a);
        // Accounts whose state the index does hold are listed by v3.
        let held = ok(&format!("/api/v3/accountStates?address={raw}"));
        if !held["accounts"].as_array().unwrap().is_empty() {
            continue;
        }
        let r = get(&format!("/api/v2/getAddressInformation?address={raw}"));
        assert_eq!(r.status, 404, "{raw}: {}", r.json);
        assert_eq!(r.json["ok"], false);
        assert!(r.json["error"].as_str().unwrap().contains("unknown here"));
        let r = get(&format!("/api/v3/account?address={raw}"));
        assert_eq!(r.status, 404, "{raw}: {}", r.json);
        let r = post(
            "/api/v2/estimateFee",
            &serde_json::json!({"address": raw, "body": "te6cckEBAQEAAgAAAEysuc0=", "ignore_chksig": true}),
        );
        assert_eq!(r.status, 404, "{raw}: {}", r.json);
        checked += 1;
        if checked == 5 {
            break;
        }
    }
    assert_eq!(checked, 5, "fixture accounts without a held state");
}

/// Get-methods and fee estimates say which config they ran with (F8 item
/// 1d): `X-Tonindex-Config: key_block=<seqno>` naming the newest indexed
/// key block at or below the block the run happens at, or `built_in` when
/// the index holds none; answers that run nothing carry no such header.
#[test]
fn runs_name_the_config_they_used() {
    let fx = common::api::fixture();
    // Configs the index holds: the fixture's masterchain blocks that carry
    // one (the decoder's view, independent of the query path), and the
    // masterchain state it imports (the config in force at its seqno).
    let mut key_blocks: Vec<u32> = fx
        .blocks
        .iter()
        .filter(|b| b.record.id.id.workchain == -1 && b.config_boc.is_some())
        .map(|b| b.record.id.id.seqno)
        .collect();
    let mc_state: tycho_types::models::ShardStateUnsplit = tycho_types::boc::Boc::decode(
        std::fs::read(common::fixture(
            "accounts/ever-block-mainnet-2019/state_2659.boc",
        ))
        .unwrap(),
    )
    .unwrap()
    .parse()
    .unwrap();
    assert_eq!(mc_state.shard_ident.workchain(), -1);
    key_blocks.push(mc_state.seqno);
    let expect = |at: Option<u32>| match key_blocks
        .iter()
        .filter(|&&s| at.is_none_or(|at| s <= at))
        .max()
    {
        Some(s) => format!("key_block={s}"),
        None => "built_in".to_string(),
    };
    let header = |r: &common::api::Reply| {
        r.headers
            .get("x-tonindex-config")
            .map(|v| v.to_str().unwrap().to_string())
    };
    let elector = Address {
        workchain: -1,
        id: [0x33; 32],
    };
    let at = get(&format!(
        "/api/v2/runGetMethod?address={}&method=active_election_id&stack=%5B%5D&seqno=2670",
        raw_upper(&elector)
    ));
    assert_eq!(at.status, 200, "{}", at.json);
    assert_eq!(header(&at).as_deref(), Some(expect(Some(2670)).as_str()));

    // The newest state: the config in force now (v2 and v3, JSON-RPC too).
    let v4 = real_accounts()
        .into_iter()
        .find(|a| wallet::detect(a.code.repr_hash(), None).is_some())
        .unwrap();
    let newest = Some(expect(None));
    let v3 = post(
        "/api/v3/runGetMethod",
        &json!({"address": raw_upper(&v4.address), "method": "seqno", "stack": []}),
    );
    assert_eq!(v3.status, 200, "{}", v3.json);
    assert_eq!(header(&v3), newest);
    let rpc = post(
        "/api/v2/jsonRPC",
        &json!({"id": 1, "jsonrpc": "2.0", "method": "runGetMethod",
                "params": {"address": raw_upper(&v4.address), "method": "seqno", "stack": []}}),
    );
    assert_eq!(rpc.status, 200, "{}", rpc.json);
    assert_eq!(header(&rpc), newest);

    // Reads that run nothing say nothing about a config.
    let plain = get(&format!(
        "/api/v2/getAddressBalance?address={}",
        raw_upper(&v4.address)
    ));
    assert_eq!(plain.status, 200);
    assert_eq!(header(&plain), None);
}

/// `/topAccountsByBalance` ranks the accounts whose current state the node
/// holds: every real 2026 account at the balance its own ShardAccount cell
/// holds, richest first, pages that continue each other, and no account
/// whose held state is older than its indexed transactions (the elector's
/// 2019 state).
#[test]
fn top_accounts_by_balance_ranks_the_held_states() {
    let mut all: Vec<(String, u128)> = Vec::new();
    let mut offset = 0;
    loop {
        let page = ok(&format!(
            "/api/v3/topAccountsByBalance?limit=50&offset={offset}"
        ));
        let rows = page.as_array().expect("a bare array");
        for r in rows {
            let balance: u128 = r["balance"].as_str().unwrap().parse().unwrap();
            all.push((r["account"].as_str().unwrap().to_string(), balance));
        }
        if rows.len() < 50 {
            break;
        }
        offset += 50;
    }
    assert!(
        all.windows(2).all(|w| w[0].1 >= w[1].1),
        "richest first: {all:?}"
    );
    let listed: std::collections::HashMap<&str, u128> =
        all.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    assert_eq!(listed.len(), all.len(), "each account once");

    // Every existing account of the fat block, at its own cell's balance.
    let mut expected = 0;
    for boc in fat_block_shard_accounts() {
        let sa: ShardAccount = Boc::decode(&boc).unwrap().parse().unwrap();
        let Some(acc) = sa.load_account().unwrap() else {
            continue;
        };
        let IntAddr::Std(addr) = &acc.address else {
            continue;
        };
        let address = Address {
            workchain: addr.workchain as i32,
            id: *addr.address.as_array(),
        };
        assert_eq!(
            listed.get(raw_upper(&address).as_str()),
            Some(&acc.balance.tokens.into_inner()),
            "{}",
            raw_upper(&address)
        );
        expected += 1;
    }
    assert!(expected > 200, "{expected} fat-block accounts");
    assert!(all.len() > expected, "the replayed states' accounts too");
    let elector = Address {
        workchain: -1,
        id: [0x33; 32],
    };
    assert!(
        !listed.contains_key(raw_upper(&elector).as_str()),
        "a stale state is not ranked"
    );

    // Paging past the end is an empty array; a limit over the maximum a 422.
    let past = ok(&format!(
        "/api/v3/topAccountsByBalance?limit=10&offset={}",
        all.len()
    ));
    assert_eq!(past, json!([]));
    let r = get("/api/v3/topAccountsByBalance?limit=100000");
    assert_eq!(r.status, 422, "{}", r.json);
    assert!(r.json["error"].as_str().unwrap().contains("limit"));
}
