//! Smart-contract code inside tonindex: get-methods on tycho-vm,
//! transactions on tycho-executor, the v2 stack codecs and blockchain
//! configs for the runs. No liteserver involved.

pub mod blockchain_config;
pub mod emulate;
pub mod getmethod;
pub mod ordinary;
pub mod stack;
