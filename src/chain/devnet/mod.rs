//! `tonindex dev`'s local chain: its genesis wallets from a TON mnemonic,
//! its config and zerostates, and the block producer.

pub mod collator;
pub mod config;
pub mod genesis;
pub mod mnemonic;
pub mod node;
pub mod queue;
pub mod wallets;
