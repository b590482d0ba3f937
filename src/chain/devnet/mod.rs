//! `tonindex dev`'s local chain (in the making): its genesis wallets from a
//! TON mnemonic. Block production and the send queue come next.

pub mod mnemonic;
pub mod wallets;
