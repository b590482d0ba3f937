//! Writes a ShardAccount BoC whose code is one `DROP`: every get-method of
//! it drops its method id and returns its arguments. `benches/hostile_replay.py`
//! imports it to send get-method results of any shape through the API.
//!
//! `cargo run --release --example echo_account -- OUT.boc` prints the
//! account's address. The account is a fat-block wallet from
//! `tests/data/fixtures` with its code replaced.

use tycho_types::boc::Boc;
use tycho_types::cell::{CellBuilder, Lazy};
use tycho_types::models::{AccountState, OptionalAccount, ShardAccount};

fn main() -> anyhow::Result<()> {
    let out = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: echo_account OUT.boc"))?;
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fixtures/blocks/tonutils-go/tvm_replay_fat_block_66519406.json"
    );
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture)?)?;
    use base64::Engine as _;
    let sa = j["previous_accounts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["shard_account_boc_base64"].as_str())
        .filter_map(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .filter_map(|b| Boc::decode(b).ok()?.parse::<ShardAccount>().ok())
        .find(|sa| {
            matches!(
                sa.load_account(),
                Ok(Some(a)) if matches!(a.state, AccountState::Active(_))
            )
        })
        .ok_or_else(|| anyhow::anyhow!("no active account in {fixture}"))?;
    let mut account = sa.load_account()?.expect("active");
    let mut code = CellBuilder::new();
    code.store_u8(0x30)?; // DROP
    if let AccountState::Active(init) = &mut account.state {
        init.code = Some(code.build()?);
    }
    let address = account.address.to_string();
    let echo = ShardAccount {
        account: Lazy::new(&OptionalAccount(Some(account)))?,
        last_trans_hash: sa.last_trans_hash,
        last_trans_lt: sa.last_trans_lt,
    };
    std::fs::write(&out, Boc::encode(CellBuilder::build_from(&echo)?))?;
    println!("{address}");
    Ok(())
}
