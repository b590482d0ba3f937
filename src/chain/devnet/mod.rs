//! `tonindex dev`'s local chain: its genesis wallets from a TON mnemonic,
//! its config and zerostates, the block producer (collator, shard layout
//! and outbound queues), the running node, and the emulator replay of its blocks.

pub mod archive;
pub mod collator;
pub mod confirm;
pub mod genesis;
pub mod genesis_config;
pub mod layout;
mod merkle;
pub mod mnemonic;
pub mod node;
pub mod proof;
pub mod queue;
pub mod reference_jetton;
pub mod replay;
mod shard_work;
pub mod wallets;
