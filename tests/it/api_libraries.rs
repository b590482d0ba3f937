//! Libraries of the held masterchain state serve get-methods of contracts
//! whose code is a library cell. The 2019 masterchain state holds two
//! libraries; the test adds the USDT wallet library to its dictionary,
//! imports that state and the fat block's USDT wallets, and asks the API:
//! `get_wallet_data` runs and returns what each wallet's data holds, and
//! v2 `getLibraries` returns the added and the original libraries.

use crate::common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::Request;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};
use tonindex::api::{router, Api, ApiConfig};
use tonindex::ingest::{import_files, IngestOptions};
use tonindex_storage::{Db, DbOptions};
use tower::ServiceExt;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, HashBytes, Load, Store};
use tycho_types::dict::Dict;
use tycho_types::models::{CurrencyCollection, LibDescr};
use tycho_types::num::Tokens;

/// `root` with `add` added to the library dictionary of its third reference;
/// also returns the hashes the dictionary held before.
fn with_library(root: &Cell, hash: HashBytes, add: LibDescr) -> (Cell, Vec<HashBytes>) {
    let extra = root.reference_cloned(2).unwrap();
    let full = extra.as_slice().unwrap();
    let mut rest = full;
    rest.skip_first(128, 0).unwrap();
    // total_balance, total_validator_fees
    for _ in 0..2 {
        let _ = CurrencyCollection::load_from(&mut rest).unwrap();
    }
    let prefix = full.get_prefix(
        full.size_bits() - rest.size_bits(),
        full.size_refs() - rest.size_refs(),
    );
    let mut libs = Dict::<HashBytes, LibDescr>::load_from(&mut rest).unwrap();
    let before = libs.keys().map(Result::unwrap).collect();
    libs.set(hash, add).unwrap();
    let mut b = CellBuilder::new();
    b.store_slice(prefix).unwrap();
    libs.store_into(&mut b, Cell::empty_context()).unwrap();
    b.store_slice(rest).unwrap();
    let extra = b.build().unwrap();

    let mut b = CellBuilder::new();
    b.store_raw(root.data(), root.bit_len()).unwrap();
    for (i, child) in root.references().cloned().enumerate() {
        b.store_reference(if i == 2 { extra.clone() } else { child })
            .unwrap();
    }
    (b.build().unwrap(), before)
}

async fn call(app: &tonindex::api::App, req: Request<Body>) -> Value {
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    serde_json::from_slice(&bytes).unwrap()
}

fn import(db: &Db, files: &[std::path::PathBuf]) {
    let opts = IngestOptions {
        chunk_size: 16,
        chunk_bytes: tonindex::ingest::CHUNK_BYTES,
        unit_delay: None,
        decode_pool: None,
        traces: true,
        trust_files: false,
        group_bytes: tonindex::ingest::GROUP_BYTES,
        keep_states: tonindex::index::retention::KeepStates::DEFAULT,
    };
    import_files(db, files, &opts, |_, _| {}).unwrap();
}

/// A `get_wallet_data` answer that ran and whose first entry is the
/// balance the wallet's data holds (`status:uint4 balance:Coins …`).
fn assert_wallet_data(r: &Value, data: &Cell, addr: &str) {
    assert_eq!(r["exit_code"], 0, "{addr}: {r}");
    let mut cs = data.as_slice().unwrap();
    cs.skip_first(4, 0).unwrap();
    let balance = Tokens::load_from(&mut cs).unwrap().into_inner();
    assert_eq!(
        r["stack"][0],
        json!({"type": "num", "value": format!("{balance:#x}")}),
        "{addr}: {r}"
    );
}

/// The public libraries the fat block's config carries (mainnet, May 2026).
fn fat_block_libraries() -> Dict<HashBytes, Cell> {
    let fb: Value = serde_json::from_slice(
        &std::fs::read(
            common::fixtures().join("blocks/tonutils-go/tvm_replay_fat_block_66519406.json"),
        )
        .unwrap(),
    )
    .unwrap();
    Dict::from_raw(Some(
        Boc::decode_base64(fb["config"]["libraries_boc_base64"][0].as_str().unwrap()).unwrap(),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usdt_wallets_run_with_the_state_libraries() {
    let all_libs = fat_block_libraries();
    let usdt_code_hash = {
        let j: Value = serde_json::from_slice(
            &std::fs::read(
                common::fixtures().join("contracts/stablecoin/JettonWallet.compiled.json"),
            )
            .unwrap(),
        )
        .unwrap();
        *Boc::decode(hex::decode(j["hex"].as_str().unwrap()).unwrap())
            .unwrap()
            .repr_hash()
    };

    // The USDT wallets of the block, and the library their code names.
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut wallets = Vec::new();
    for (i, a) in common::fat_block_active_accounts().into_iter().enumerate() {
        if a.code.is_exotic() && a.code.data().get(1..33) == Some(usdt_code_hash.as_slice()) {
            let p = dir.path().join(format!("usdt_{i}.boc"));
            std::fs::write(&p, &a.boc).unwrap();
            files.push(p);
            wallets.push((a.address, a.data));
        }
    }
    assert!(wallets.len() >= 5, "{} USDT wallets", wallets.len());
    let lib = all_libs.get(usdt_code_hash).unwrap().unwrap();
    let mut publishers = Dict::<HashBytes, ()>::new();
    publishers.set(HashBytes([0x77; 32]), ()).unwrap();

    let state = Boc::decode(
        tonindex::chain::files::read_boc_file(
            &common::fixtures().join("accounts/ever-block-mainnet-2019/state_2659.boc"),
        )
        .unwrap(),
    )
    .unwrap();
    let (state, original) = with_library(
        &state,
        usdt_code_hash,
        LibDescr {
            lib: lib.clone(),
            publishers,
        },
    );
    assert_eq!(original.len(), 2, "the 2019 state's own libraries");
    let state_file = dir.path().join("mc_state_with_libraries.boc");
    std::fs::write(&state_file, Boc::encode(state.as_ref())).unwrap();
    files.insert(0, state_file);

    let db_dir = tempfile::tempdir().unwrap();
    let db = Db::open(db_dir.path(), &DbOptions::default()).unwrap();
    import(&db, &files);
    let app = router(Api::new(Arc::new(db), ApiConfig::default()));

    for (addr, data) in &wallets {
        let body = json!({"address": addr.to_string(), "method": "get_wallet_data", "stack": []});
        let r = call(
            &app,
            Request::post("/api/v3/runGetMethod")
                .header("content-type", "application/json")
                .body(Body::from(body.to_string()))
                .unwrap(),
        )
        .await;
        assert_wallet_data(&r, data, &addr.to_string());
    }

    // getLibraries: the added one, an original one (hex), not an unknown one.
    let q = |s: String| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let uri = format!(
        "/api/v2/getLibraries?libraries={}&libraries={}&libraries={}",
        q(STANDARD.encode(usdt_code_hash.0)),
        q(STANDARD.encode([9u8; 32])),
        hex::encode(original[0].0),
    );
    let r = call(&app, Request::get(uri).body(Body::empty()).unwrap()).await;
    let list = r["result"]["result"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{r}");
    for (entry, want) in list.iter().zip([usdt_code_hash, original[0]]) {
        assert_eq!(entry["@type"], "smc.libraryEntry");
        assert_eq!(entry["hash"], STANDARD.encode(want.0));
        let data = Boc::decode_base64(entry["data"].as_str().unwrap()).unwrap();
        assert_eq!(data.repr_hash(), &want);
    }
}

/// Libraries a source fetched (a follower holds no masterchain state) are
/// stored with the index: after a restart the index has them without
/// fetching again, and the API runs get-methods of library code with
/// them. Here USDT wallets are imported without any masterchain state: a
/// get-method on one cannot run; once the index has stored the USDT
/// library, as a follower's fetch does, a fresh process (a new index and
/// API on the same database) runs `get_wallet_data` and it returns what
/// the wallet's data holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn libraries_a_source_fetched_are_kept_across_restarts() {
    let all_libs = fat_block_libraries();
    let dir = tempfile::tempdir().unwrap();
    let (mut files, mut wallets) = (Vec::new(), Vec::new());
    let mut lib_hash = None;
    for (i, a) in common::fat_block_active_accounts().into_iter().enumerate() {
        let Some(h) = a
            .code
            .is_exotic()
            .then(|| a.code.data().get(1..33))
            .flatten()
        else {
            continue;
        };
        let h = HashBytes(h.try_into().unwrap());
        if lib_hash.is_some_and(|l| l != h) || !matches!(all_libs.get(h), Ok(Some(_))) {
            continue;
        }
        lib_hash = Some(h);
        let p = dir.path().join(format!("lib_code_{i}.boc"));
        std::fs::write(&p, &a.boc).unwrap();
        files.push(p);
        wallets.push((a.address, a.data));
        if wallets.len() == 3 {
            break;
        }
    }
    let lib_hash = lib_hash.expect("an account whose code is a library");
    let lib = all_libs.get(lib_hash).unwrap().unwrap();
    let db_dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(db_dir.path(), &DbOptions::default()).unwrap());
    import(&db, &files);
    let run = |app: tonindex::api::App, addr: String| async move {
        let body = json!({"address": addr, "method": "get_wallet_data", "stack": []});
        let resp = app
            .oneshot(
                Request::post("/api/v3/runGetMethod")
                    .header("content-type", "application/json")
                    .body(Body::from(body.to_string()))
                    .unwrap(),
            )
            .await
            .unwrap();
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, serde_json::from_slice::<Value>(&bytes).unwrap())
    };
    let (addr, data) = &wallets[0];
    let before = router(Api::new(Arc::clone(&db), ApiConfig::default()));
    let (status, r) = run(before, addr.to_string()).await;
    assert!(
        status != 200 || r["exit_code"] != 0,
        "no library yet, yet it ran: {r}"
    );

    // What a follower's fetch does: the index stores the library.
    {
        let indexer = tonindex::index::Indexer::new(&db);
        assert_eq!(indexer.missing_libraries(&[lib_hash]), vec![lib_hash]);
        indexer.add_libraries(vec![lib.clone()]).unwrap();
    }
    // A fresh process: nothing in memory, the stored library found.
    let indexer = tonindex::index::Indexer::new(&db);
    assert!(indexer.missing_libraries(&[lib_hash]).is_empty());
    assert_eq!(
        indexer.missing_libraries(&[HashBytes([9; 32])]),
        vec![HashBytes([9; 32])]
    );
    let app = router(Api::new(Arc::clone(&db), ApiConfig::default()));
    for (addr, data) in
        std::iter::once((addr, data)).chain(wallets[1..].iter().map(|(a, d)| (a, d)))
    {
        let (status, r) = run(app.clone(), addr.to_string()).await;
        assert_eq!(status, 200, "{addr}: {r}");
        assert_wallet_data(&r, data, &addr.to_string());
    }
}
