//! The contracts step's cost in `tonindex bench`: what reading contracts
//! (get-method ids per new code, interfaces, Jetton/NFT/multisig/vesting/DNS
//! get-methods) adds to writing account states, on real account states —
//! the 234 mainnet accounts of tonutils-go's fat block (wallets, highload,
//! USDT Jetton wallets with library code).
//!
//! Three timings over the same states, each the median of `samples`:
//! - **states**: the account rows and the balance index alone;
//! - **+contracts, new codes**: the same with the contracts step on a fresh
//!   database (every code hash seen for the first time);
//! - **+contracts, known codes**: the step again on that database (codes
//!   cached, wallets already confirmed) — the steady state of a follower.

use std::path::Path;
use std::time::Instant;

use tonindex_model::Address;
use tonindex_storage::{Db, DbOptions};
use tycho_types::cell::Cell;
use tycho_types::models::{IntAddr, ShardAccount};

use crate::index::contracts::{index_contracts, TvmEnv};
use crate::index::{balances, state};

const FAT_BLOCK: &str = "tests/data/fixtures/blocks/tonutils-go/tvm_replay_fat_block_66519406.json";

fn accounts(path: &Path) -> anyhow::Result<Vec<(Address, Cell)>> {
    use base64::Engine as _;
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(path)?)?;
    let mut out = Vec::new();
    for a in j["previous_accounts"].as_array().into_iter().flatten() {
        let Some(b64) = a["shard_account_boc_base64"].as_str() else {
            continue;
        };
        let boc = base64::engine::general_purpose::STANDARD.decode(b64)?;
        let cell = tycho_types::boc::Boc::decode(&boc)?;
        let sa: ShardAccount = cell.parse()?;
        let Some(acc) = sa.load_account()? else {
            continue;
        };
        if let IntAddr::Std(addr) = &acc.address {
            let address = Address {
                workchain: addr.workchain as i32,
                id: *addr.address.as_array(),
            };
            out.push((address, cell));
        }
    }
    Ok(out)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds to write the states (and, with `contracts`, run the step) once.
fn pass(db: &Db, env: &TvmEnv, states: &[(Address, Cell)], contracts: bool) -> anyhow::Result<f64> {
    let started = Instant::now();
    let mut batch = db.batch();
    let mut changes = Vec::with_capacity(states.len());
    for (a, c) in states {
        state::put_account(&mut batch, a, c, None, 0);
        changes.push((*a, Some(c.clone())));
    }
    balances::index_balances(db, &mut batch, &changes)?;
    if contracts {
        index_contracts(db, env, &mut batch, states, None, 1_780_000_000)?;
    }
    db.write(batch)?;
    Ok(started.elapsed().as_secs_f64())
}

/// Prints the contracts step's cost; skipped (saying so) without the fixture.
pub fn run(samples: u32, scratch: &Path) -> anyhow::Result<()> {
    let path = Path::new(FAT_BLOCK);
    if !path.exists() {
        println!("\ncontracts step: skipped ({} not found)", path.display());
        return Ok(());
    }
    let states = accounts(path)?;
    let (mut bare, mut fresh, mut known) = (Vec::new(), Vec::new(), Vec::new());
    let mut runs = 0;
    let mut new_codes = 0;
    for i in 0..samples {
        let env = TvmEnv::default();
        let dir = scratch.join(format!("contracts-{i}"));
        {
            let db = Db::open(&dir.join("bare"), &DbOptions::default())?;
            bare.push(pass(&db, &env, &states, false)?);
        }
        let db = Db::open(&dir.join("full"), &DbOptions::default())?;
        fresh.push(pass(&db, &env, &states, true)?);
        known.push(pass(&db, &env, &states, true)?);
        if i == 0 {
            let mut batch = db.batch();
            let step = index_contracts(&db, &env, &mut batch, &states, None, 1_780_000_000)?;
            runs = step.done.getmethod_runs;
            let fresh_db = Db::open(&dir.join("count"), &DbOptions::default())?;
            let mut batch = fresh_db.batch();
            new_codes = index_contracts(&fresh_db, &env, &mut batch, &states, None, 1_780_000_000)?
                .done
                .new_codes;
        }
        drop(db);
        std::fs::remove_dir_all(&dir)?;
    }
    let (b, f, k) = (median(bare), median(fresh), median(known));
    let per = |s: f64| s * 1e6 / states.len() as f64;
    println!(
        "\ncontracts step on {} real account states ({} code hashes; {} get-method runs per pass \
         once codes are known), medians of {samples}:",
        states.len(),
        new_codes,
        runs
    );
    println!("  states only                 {:>9.1} µs/account", per(b));
    println!(
        "  + contracts, new codes      {:>9.1} µs/account  {:.2}x states only",
        per(f),
        f / b
    );
    println!(
        "  + contracts, known codes    {:>9.1} µs/account  {:.2}x states only",
        per(k),
        k / b
    );
    Ok(())
}
