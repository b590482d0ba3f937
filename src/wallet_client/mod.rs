//! The client's side of TON's standard wallets, as a wallet app drives
//! them: keys from a mnemonic, and the codes, addresses and signed
//! transfers of v4r2 and v5r1 wallets. The devnet makes its genesis wallets
//! and load with them; Emulate API v1 builds a TON Connect request's
//! message with them.

pub mod highload_v3;
pub mod mnemonic;
pub mod standard;
