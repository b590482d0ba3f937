//! Account state: the content-addressed cell store that shard states live
//! in, and the readers of the account snapshots taken from it.

pub mod account;
pub mod cells;
pub mod history;
pub mod libraries;
pub mod storage_dict;
pub mod wallet;
