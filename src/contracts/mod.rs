//! What the index knows about a contract from its code (and, later, its
//! data): the get-methods its code declares and the standard interfaces
//! they make it (spec v3 §1.8, §6.7). Pure functions over cells; the index
//! step caches their results per code hash, the API reads the cache.

pub mod address;
pub mod content;
pub mod dns;
pub mod interfaces;
pub mod jetton;
pub mod methods;
pub mod multisig;
pub mod nft;
pub mod nft_sale;

/// The data cell of an active account, from its stored `ShardAccount` BoC
/// (contracts whose roles are read from their data, such as JVault's).
pub fn active_data(shard_account_boc: &[u8]) -> Option<tycho_types::cell::Cell> {
    use tycho_types::models::{AccountState, ShardAccount};
    let sa: ShardAccount = tycho_types::boc::Boc::decode(shard_account_boc)
        .ok()?
        .parse()
        .ok()?;
    match sa.load_account().ok()??.state {
        AccountState::Active(init) => init.data,
        _ => None,
    }
}
