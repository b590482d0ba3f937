//! Get-methods per second on one core: tonindex's TVM beside the official
//! emulator (@ton/sandbox's WebAssembly build, run by node from
//! tests/emulator) on the same inputs, measured in the same run. The cases
//! are real mainnet accounts of the May 2026 fat block: `seqno` on a wallet
//! v4r2 and `get_wallet_data` on a USDT jetton wallet (library code).
//!
//! `cargo bench --bench getmethod` (needs node; `npm install` in
//! tests/emulator). Prints one line per case and the ratio.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};
use tonindex::tvm::blockchain_config as config;
use tonindex::tvm::getmethod::{self, Context, Contract, Method};
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{AccountState, IntAddr, ShardAccount};

const RUNS: u32 = 20_000;
/// The emulator is far slower per call; fewer runs keep the bench short.
const EMULATOR_RUNS: u32 = 2_000;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn code_hash(rel_hex_json: &str) -> HashBytes {
    let j: Value = serde_json::from_slice(
        &std::fs::read(repo().join("tests/data/fixtures").join(rel_hex_json)).unwrap(),
    )
    .unwrap();
    *Boc::decode(hex::decode(j["hex"].as_str().unwrap()).unwrap())
        .unwrap()
        .repr_hash()
}

/// The first v4r2 wallet and the first USDT Jetton wallet among the
/// fixture block's accounts, each with the getter asked of it and whether
/// its code is a library cell.
fn pick_contracts(
    j: &Value,
    v4: &HashBytes,
    usdt: &HashBytes,
) -> Vec<(&'static str, &'static str, Contract, bool)> {
    let mut picks: Vec<(&'static str, &'static str, Contract, bool)> = Vec::new();
    for a in j["previous_accounts"].as_array().unwrap() {
        let sa: ShardAccount = Boc::decode_base64(a["shard_account_boc_base64"].as_str().unwrap())
            .unwrap()
            .parse()
            .unwrap();
        let Some(acc) = sa.load_account().unwrap() else {
            continue;
        };
        let (AccountState::Active(init), IntAddr::Std(address)) = (acc.state, acc.address) else {
            continue;
        };
        let (Some(code), Some(data)) = (init.code, init.data) else {
            continue;
        };
        let is_usdt = code.is_exotic() && code.data().get(1..33) == Some(usdt.as_slice());
        let (name, method) = if code.repr_hash() == v4 {
            ("wallet v4r2", "seqno")
        } else if is_usdt {
            ("USDT jetton wallet", "get_wallet_data")
        } else {
            continue;
        };
        if picks.iter().any(|p| p.0 == name) {
            continue;
        }
        let contract = Contract {
            code,
            data,
            address,
            balance: acc.balance,
        };
        picks.push((name, method, contract, is_usdt));
    }
    picks
}

fn main() {
    let fixture =
        repo().join("tests/data/fixtures/blocks/tonutils-go/tvm_replay_fat_block_66519406.json");
    let j: Value = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
    let cfg_b64 = j["config"]["config_root_boc_base64"].as_str().unwrap();
    let params = config::from_boc(&STANDARD.decode(cfg_b64).unwrap()).unwrap();
    let all_libs: Option<Cell> = j["config"]["libraries_boc_base64"][0]
        .as_str()
        .map(|s| Boc::decode_base64(s).unwrap());
    let now = j["transaction_configs"][0]["now"].as_u64().unwrap() as u32;
    let v4 = *Boc::decode(
        tonindex::chain::files::read_boc_file(
            &repo().join("tests/data/fixtures/contracts/wallets/wallet_v4r2.code"),
        )
        .unwrap(),
    )
    .unwrap()
    .repr_hash();
    let usdt = code_hash("contracts/stablecoin/JettonWallet.compiled.json");

    let picks = pick_contracts(&j, &v4, &usdt);
    assert_eq!(picks.len(), 2, "fixture cases not found");
    // Only the library the USDT wallet's code names: the emulator re-reads
    // the whole collection on every run, which would measure that instead.
    let libs = {
        let usdt_code = &picks.iter().find(|p| p.3).unwrap().2.code;
        let hash = HashBytes::from_slice(&usdt_code.data()[1..33]);
        let all = tycho_types::dict::Dict::<HashBytes, Cell>::from_raw(all_libs);
        let mut one = tycho_types::dict::Dict::<HashBytes, Cell>::new();
        one.set(
            hash,
            all.get(hash)
                .unwrap()
                .expect("the USDT library is in the fixture"),
        )
        .unwrap();
        one.into_root()
    };

    let ctx = |with_libs: bool| Context {
        config: params.clone(),
        libraries: getmethod::libraries_from_cells(libs.clone().filter(|_| with_libs)).unwrap(),
        now,
        lt: 0,
        rand_seed: HashBytes::ZERO,
        gas_limit: getmethod::DEFAULT_GAS_LIMIT,
        time_limit: Some(std::time::Duration::from_secs(1)),
    };
    let b64 = |c: &Cell| STANDARD.encode(Boc::encode(c.as_ref()));
    let cfg_boc = STANDARD.decode(cfg_b64).unwrap();
    let mut ours = Vec::new();
    let mut ours_with_config = Vec::new();
    let mut cases = Vec::new();
    for (name, method, contract, with_libs) in &picks {
        let context = ctx(*with_libs);
        let m = Method::parse(method);
        let first = getmethod::run(contract, &context, &m, vec![]).unwrap();
        assert_eq!(first.exit_code, 0, "{name}");
        for _ in 0..100 {
            getmethod::run(contract, &context, &m, vec![]).unwrap();
        }
        let start = Instant::now();
        for _ in 0..RUNS {
            std::hint::black_box(getmethod::run(contract, &context, &m, vec![]).unwrap());
        }
        ours.push(f64::from(RUNS) / start.elapsed().as_secs_f64());
        // As the emulator's API (and tonindex's HTTP path) does it: the
        // config decoded from its BoC on every call.
        let start = Instant::now();
        for _ in 0..RUNS {
            let c = Context {
                config: config::from_boc(&cfg_boc).unwrap(),
                ..context.clone()
            };
            std::hint::black_box(getmethod::run(contract, &c, &m, vec![]).unwrap());
        }
        ours_with_config.push(f64::from(RUNS) / start.elapsed().as_secs_f64());
        let a = &contract.address;
        cases.push(json!({
            "name": name,
            "code": b64(&contract.code),
            "data": b64(&contract.data),
            "address": format!("{}:{}", a.workchain, hex::encode(a.address.0)),
            "balance": contract.balance.tokens.into_inner().to_string(),
            "now": now,
            "method_id": i64::try_from(m.id()).unwrap(),
            "stack": [],
            "config": cfg_b64,
            "libs": libs.as_ref().filter(|_| *with_libs).map(b64),
            "gas_limit": getmethod::DEFAULT_GAS_LIMIT,
        }));
    }

    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(input.path(), Value::Array(cases).to_string()).unwrap();
    let out = Command::new("node")
        .arg(repo().join("tests/emulator/getmethods.mjs"))
        .arg(input.path())
        .arg(EMULATOR_RUNS.to_string())
        .output()
        .expect("node is needed for the emulator's figures");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    println!(
        "get-methods per second on one core (tonindex {RUNS} runs, emulator {EMULATOR_RUNS}):"
    );
    for (i, (name, method, _, _)) in picks.iter().enumerate() {
        let theirs = theirs[i]["per_second"].as_f64().unwrap();
        println!("  {name} `{method}`:");
        println!(
            "    tonindex, config parsed once    {:>9.0}/s  {:>7.1}x the emulator",
            ours[i],
            ours[i] / theirs
        );
        println!(
            "    tonindex, config BoC per call   {:>9.0}/s  {:>7.1}x the emulator",
            ours_with_config[i],
            ours_with_config[i] / theirs
        );
        println!("    emulator (@ton/sandbox, wasm)   {theirs:>9.0}/s");
    }
}
