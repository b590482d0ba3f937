//! tonindex's RocksDB storage: column families, typed keys, value codecs,
//! atomic batches and snapshots. It knows byte layouts, not TON semantics,
//! and nothing of HTTP.

mod codec;
mod db;
mod keys;
mod linked;
pub mod rows;
pub mod snapshot;
pub mod stored_action;
pub mod tables;
mod tx_place;

pub use codec::{Counted, Key, KeyReader, KeyWriter, Lz4Bytes, RawBytes, TxBoc, Value};
pub use db::{
    prefix_successor, Batch, Db, DbOptions, EncodedRows, Reader, TableStats, SCHEMA_VERSION,
};
pub use linked::Linked;
pub use rows::{
    AccountStateRecord, BalanceRecord, CodeRecord, DnsRecord, IngestCursor, JettonBurnRecord,
    JettonMasterRecord, JettonTransferRecord, JettonWalletRecord, LatestAccount,
    MultisigOrderRecord, MultisigRecord, NftCollectionRecord, NftItemRecord, NftSaleRecord,
    NftTransferRecord, SaleDetail, SaleKind, ShardStateRecord, TxPlace, VestingRecord,
};
pub use stored_action::{AccountRef, StoredAction};

/// Storage errors. `Corrupt` means bytes on disk do not match the layout.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("rocksdb: {0}")]
    Rocks(#[from] rocksdb::Error),
    #[error("database {path} has schema version {found}, this build needs {expected}; re-import into a new directory")]
    SchemaMismatch {
        path: String,
        found: u32,
        expected: u32,
    },
    #[error("no tonindex database at {0} (run `tonindex import` first)")]
    Missing(String),
    #[error("corrupt row: {0}")]
    Corrupt(&'static str),
    #[error("the reader's row budget is spent")]
    OverBudget,
    #[error("the request's deadline has passed")]
    DeadlineExceeded,
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A snapshot stream that is not one, or not whole.
    #[error("not a usable snapshot: {0}")]
    Snapshot(String),
}
