//! The query layer: every read of the index that an answer needs — key
//! ranges, point lookups, the transactions and messages behind them, the
//! blocks a masterchain block commits, the config in force — in one place
//! that the v2 and v3 handlers (and the devnet, and later streams) share.
//! Handlers parse parameters, call these, and shape JSON; none of them
//! walks a table itself.
//!
//! Every function reads through a [`Reader`], which carries the request's
//! deadline and, on the async worker, its row budget: a read past the
//! deadline fails with [`tonindex_storage::Error::DeadlineExceeded`]
//! within a few rows, so a 504 really stops the work. Account states at a
//! block live with the cell store they are read from (`crate::state::
//! account`); the config and libraries in force are in [`config`].
//!
//! [`Reader`]: tonindex_storage::Reader

pub mod accounts;
pub mod balances;
pub mod blocks;
pub mod config_in_force;
pub mod dns;
pub mod jettons;
pub mod messages;
pub mod multisig;
pub mod nfts;
pub mod tokens;
pub mod traces;
pub mod transactions;

pub use blocks::MASTER_SHARD;
pub use messages::Message;
pub use transactions::FullTx;

/// A time window `lo..=hi` (seconds, as a request gives them) as the
/// bounds of a table keyed by a `u32` time first: the first time and the
/// time just past the window (`None`: open above); `None` when no `u32`
/// time can be in it.
pub(crate) fn u32_time_bounds(lo: u64, hi: u64) -> Option<(u32, Option<u32>)> {
    let lo = u32::try_from(lo).ok()?;
    let past = u32::try_from(hi).ok().and_then(|hi| hi.checked_add(1));
    Some((lo, past))
}
