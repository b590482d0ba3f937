//! The integration tests, one crate and one binary: a module per subject
//! (each was a test binary of its own, and every binary linked the whole of
//! tonindex and RocksDB). `common` holds the helpers they share; the data
//! they read is in `tests/data`. One module: `cargo test --release --test
//! it devnet::`.

mod common;

mod actions_corpus;
mod api_accounts;
mod api_libraries;
mod api_schemas;
mod api_v2;
mod api_v3;
mod boc_cpp;
mod cli_import;
mod cli_serve;
mod cli_tvm;
mod clients_node;
mod contract_interfaces;
mod cors;
mod decode_fixtures;
mod devnet;
mod devnet_wallets;
mod dns_items;
mod fuzz_corpus;
mod hostile_input;
mod index_series;
mod liteapi_vectors;
mod metrics;
mod nft_sales;
mod openapi;
mod rate_limits;
mod schemathesis;
mod state_replay;
mod test_data;
mod tvm_emulator;
mod tvm_transactions;
