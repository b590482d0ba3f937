//! tonindex: a self-hosted TON indexer serving toncenter-compatible APIs.
//!
//! Flow: `chain` (block sources) → `decode` (pure, rayon) → `index` (one
//! WriteBatch per unit, with `trace` assembly) → storage (the `tonindex-storage` crate) ← `query`
//! (every read an answer needs) ← `api`.

pub mod api;
pub mod boc;
pub mod chain;
pub mod cli;
pub mod clock;
pub mod config;
pub mod contracts;
pub mod decode;
pub mod fuzzing;
pub mod index;
pub mod ingest;
pub mod offchain;
pub mod priority;
pub mod query;
pub mod state;
pub mod telemetry;
pub mod trace;
pub mod tvm;
pub mod wallet_client;
