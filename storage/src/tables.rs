//! Every column family, in one place: name, key layout, value type, options.
//!
//! # Why a dense transaction number
//! Each transaction gets a `tx_id: u64`, allocated in ingest order and never
//! reused. The transaction is stored once: its place (block, and the key
//! of its BoC) in [`Transactions`] under that id, its BoC in [`TxBocs`] in
//! its account's history; every secondary index (by hash, by message, by
//! block, by masterchain block, global lt order) stores or points to those
//! 8 bytes instead of a 44-byte `(account, lt)` pair or a 32-byte hash.
//! This keeps the indexes small and their blocks cache-friendly (the
//! approach of electrs/bindex and reth's `TxNumber`), at the cost of one
//! more point lookup per row — cheap with `multi_get`. Accounts get dense
//! numbers the same way ([`AccountNumbers`]), so that the place can name
//! the BoC's row in 8 bytes more. Both allocators live in the ingest
//! cursor and move in the same `WriteBatch` as the rows, so a crash can
//! never leave a gap or a reused number.
//!
//! Key notation below: `wc i32` is a sign-flipped big-endian i32, `u32`/`u64`
//! are big-endian, `[32]` is a raw 256-bit hash, `block` is
//! `wc i32 | shard u64 | seqno u32` (16 bytes), `account` is `wc i32 | id [32]`.

use rocksdb::Options;
use tonindex_model::{Address, BlockId, BlockRecord, Hash, ShardDescrRecord, TraceRecord};

use crate::codec::{Counted, Key, KeyReader, KeyWriter, Lz4Bytes, RawBytes, TxBoc, Value};
use crate::linked::Linked;
use crate::rows::{
    AccountStateRecord, BalanceRecord, CodeRecord, DnsRecord, JettonBurnRecord, JettonMasterRecord,
    JettonTransferRecord, JettonWalletRecord, LatestAccount, MultisigOrderRecord, MultisigRecord,
    NftCollectionRecord, NftItemRecord, NftSaleRecord, NftTransferRecord, ShardStateRecord,
    TxPlace, VestingRecord,
};
use crate::stored_action::StoredAction;
use crate::Error;

/// Every table's key layout, defined beside and named here.
pub use crate::keys::*;

/// A column family: its name, typed key and value, and RocksDB tuning.
pub trait Table {
    const NAME: &'static str;
    type Key: Key;
    type Value: Value;
    /// Per-table options; the default suits small, range-scanned index rows.
    fn options(_opts: &mut Options) {}
    /// Whether the importer reads this table while it writes (lookups,
    /// adoption, state tracking). The others are write-only during an
    /// import, which lets [`crate::DbOptions::write_only_memtables`] give
    /// them append-only memtables.
    const IMPORTER_READS: bool = false;
    /// Whether its last level is compressed with a trained zstd dictionary
    /// (the tables of BoCs and records), which [`crate::DbOptions::bulk`]
    /// keeps when it lowers the level.
    const DICTIONARY: bool = false;
    /// Encodes a value to store. Tables whose records repeat their key (a
    /// message's or a trace's hash, an action's two ids) blank those fields
    /// here and have [`Table::decode_value`] put them back from the key.
    /// Compression had already made most of each copy a back-reference to
    /// the key beside it: on the first 1.83M transactions of the mainnet
    /// corpus, compacted, 951.6 → 942.8 SST bytes a transaction (messages
    /// −5.5, actions −2.4, traces −0.7).
    fn encode_value(value: &Self::Value) -> Vec<u8> {
        value.encode()
    }
    /// Decodes a stored value read under `key` (see [`Table::encode_value`]).
    fn decode_value(_key: &Self::Key, bytes: &[u8]) -> Result<Self::Value, Error> {
        Self::Value::decode(bytes)
    }
}

/// The block cache every table of every database in the process shares.
/// Without one, RocksDB gives each table a 32 MB cache of its own: the big
/// tables a page reads (actions, traces, BoCs) missed in theirs nearly
/// always and decompressed a block for each read, while the small tables'
/// caches stood idle.
pub fn block_cache() -> &'static rocksdb::Cache {
    BLOCK_CACHE.get_or_init(|| rocksdb::Cache::new_lru_cache(BLOCK_CACHE_BYTES))
}

static BLOCK_CACHE: std::sync::OnceLock<rocksdb::Cache> = std::sync::OnceLock::new();

/// Sizes [`block_cache`] (the config's `block_cache_mb`); false when the
/// cache was made already, by a database opened before, and keeps its size.
pub fn set_block_cache_bytes(bytes: usize) -> bool {
    BLOCK_CACHE
        .set(rocksdb::Cache::new_lru_cache(bytes))
        .is_ok()
}

/// The default capacity of [`block_cache`]: uncompressed blocks, a few
/// times the compressed bytes they came from.
pub const BLOCK_CACHE_BYTES: usize = 1 << 30;

/// Block-based table options on the shared [`block_cache`], 4 KiB blocks.
fn block_options() -> rocksdb::BlockBasedOptions {
    let mut block = rocksdb::BlockBasedOptions::default();
    block.set_block_cache(block_cache());
    block
}

/// Point-lookup tables (hash → something): bloom filters and hash index hints.
fn point_lookup(opts: &mut Options) {
    let mut block = block_options();
    block.set_bloom_filter(10.0, false);
    block.set_cache_index_and_filter_blocks(true);
    opts.set_block_based_table_factory(&block);
    opts.set_optimize_filters_for_hits(true);
}

/// Tables whose point lookups mostly miss: bloom filters on every level.
/// [`point_lookup`] leaves the last level (nearly all the data once
/// compacted) without them, which costs a miss as much as a hit there (a
/// compacted table of 2M 32-byte keys on the 2-core VM: 4.3 µs a miss,
/// 0.65 with filters on every level). Trace assembly looks up every
/// message a unit sends among the orphans (nearly always absent), and
/// classification asks the token tables about accounts most of which hold
/// no token (every TON transfer's receiver, for NFT auctions).
fn point_lookup_misses(opts: &mut Options) {
    let mut block = block_options();
    block.set_bloom_filter(10.0, false);
    block.set_cache_index_and_filter_blocks(true);
    opts.set_block_based_table_factory(&block);
}

/// Every table: the last level, where nearly all rows live once compacted,
/// is compressed with zstd; the levels above keep the table's own (fast)
/// setting, so the writer does not pay for it. On the 82,000-transaction
/// devnet corpus, compacted: 2,017 → 1,692 SST bytes a transaction
/// together with [`blob_values`]' dictionaries, import time unchanged.
/// Level 9 rather than zstd's default 3: 1,462 → 1,396 SST bytes a
/// transaction on a mainnet-profile chain, for 1.9× the CPU of a full
/// compaction (reads decompress as fast; the import's time did not move).
fn compress_last_level(opts: &mut Options) {
    opts.set_bottommost_compression_type(rocksdb::DBCompressionType::Zstd);
    opts.set_bottommost_compression_options(-14, LAST_LEVEL_ZSTD, 0, 0, true);
}

/// Listings (key-only rows read as ranges: a page, an offset skipped by
/// keys): 16 KiB blocks instead of 4, so each block's compression sees
/// four times the rows, whose keys repeat accounts, times and type names.
/// On the first 1.83M transactions of the mainnet corpus, compacted:
/// 717.2 → 704.8 SST bytes a transaction (a trained dictionary as well:
/// 703.8, not worth its training). A page reads one or two blocks
/// of a listing either way; the tables read one row at a time, at random
/// (places, trace tags, lookups by tag), keep 4 KiB blocks, whose share of
/// that gain (3 bytes) would cost every row read a 16 KiB decompression.
fn listing(opts: &mut Options) {
    let mut block = block_options();
    block.set_block_size(16 << 10);
    opts.set_block_based_table_factory(&block);
}

/// The zstd level of every table's last level.
pub const LAST_LEVEL_ZSTD: i32 = 9;

/// The zstd level of the last level during a bulk import
/// ([`crate::DbOptions::bulk`]): on a 10M-transaction import nearly every
/// compaction writes the last level, and level 9's binary-tree match
/// finder was a quarter of the CPU.
pub const BULK_LAST_LEVEL_ZSTD: i32 = 3;

/// The largest dictionary trained for a last-level file.
pub const DICTIONARY_BYTES: i32 = 64 << 10;

/// Last-level zstd with a dictionary trained per SST file: BoCs and
/// records repeat the same code cells, headers and field layouts from row
/// to row, which a block alone cannot see (tx_bocs 290 → 220, messages 122
/// → 72 bytes a transaction on the devnet corpus).
fn zstd_dictionary(opts: &mut Options) {
    const DICT: i32 = DICTIONARY_BYTES;
    opts.set_bottommost_compression_options(-14, LAST_LEVEL_ZSTD, 0, DICT, true);
    opts.set_bottommost_zstd_max_train_bytes(DICT * 128, true);
}

/// Tables that hold BoCs or large records, read in pages: LZ4 above the
/// last level, a zstd dictionary in it, 16 KiB blocks (more rows for each
/// block's compression to share).
fn blob_values(opts: &mut Options) {
    opts.set_compression_type(rocksdb::DBCompressionType::Lz4);
    zstd_dictionary(opts);
    let mut block = block_options();
    block.set_block_size(16 << 10);
    opts.set_block_based_table_factory(&block);
}

/// Rows of [`Linked`] records ([`Messages`]): the blob tables' compression
/// with 4 KiB blocks, and the merge operator that folds in each end's ids.
/// Messages are read one by one by hash, each from a block of its own, and
/// a 16 KiB block was decompressed for every one: an account page drawn
/// across a 1.8M-transaction index went 420/469 → 526/553 req/s, for
/// 117.0 → 121.3 SST bytes a transaction in this table. (Every blob table
/// at 4 KiB: +18.5 bytes a transaction, no further gain.) Transaction
/// pages have since stopped reading these rows (they decode messages from
/// the transaction BoC); message lists and lookups by hash still do, for
/// the ids alone since schema 33 (39 bytes a transaction, from 116).
fn linked_values(opts: &mut Options) {
    blob_values(opts);
    let mut block = block_options();
    block.set_block_size(4 << 10);
    opts.set_block_based_table_factory(&block);
    opts.set_merge_operator(
        "tonindex.linked",
        crate::linked::linked_merge,
        crate::linked::linked_partial_merge,
    );
}

/// Transaction places: the default layout, and the merge operator that
/// folds in the masterchain link and the trace tag ([`crate::tx_place`]).
fn place_values(opts: &mut Options) {
    opts.set_merge_operator(
        "tonindex.tx_place",
        crate::tx_place::place_merge,
        crate::tx_place::place_partial_merge,
    );
}

/// The cell store: point lookups (4 KiB blocks, bloom filters on every
/// level: a state's new cells are looked up before they are written, and
/// nearly all of them are not there yet) with the blob tables'
/// compression, and reference counts moved by merge operands.
fn cell_values(opts: &mut Options) {
    point_lookup_misses(opts);
    // The same for the memtable, where a lookup otherwise walks its
    // skiplist even for a cell that is not there.
    opts.set_memtable_whole_key_filtering(true);
    opts.set_memtable_prefix_bloom_ratio(0.05);
    opts.set_compression_type(rocksdb::DBCompressionType::Lz4);
    zstd_dictionary(opts);
    opts.set_merge_operator(
        "tonindex.counted",
        crate::codec::counted_merge,
        crate::codec::counted_partial_merge,
    );
}

macro_rules! table {
    ($(#[$doc:meta])* $name:ident, $cf:literal, $key:ty => $value:ty $(, $opts:ident)? $(; $reads:ident)? $(| $keyed:ident)?) => {
        $(#[$doc])*
        pub struct $name;
        impl Table for $name {
            const NAME: &'static str = $cf;
            type Key = $key;
            type Value = $value;
            $(
                fn options(opts: &mut Options) { $opts(opts) }
                const DICTIONARY: bool = dictionary!($opts);
            )?
            $(const IMPORTER_READS: bool = importer_reads!($reads);)?
            $(
                fn encode_value(value: &Self::Value) -> Vec<u8> {
                    $keyed::blank(value).encode()
                }
                fn decode_value(key: &Self::Key, bytes: &[u8]) -> Result<Self::Value, Error> {
                    let mut value = Self::Value::decode(bytes)?;
                    $keyed::restore(key, &mut value);
                    Ok(value)
                }
            )?
        }
    };
}

/// Whether a table's options give its last level a zstd dictionary
/// ([`zstd_dictionary`]).
macro_rules! dictionary {
    (blob_values) => {
        true
    };
    (linked_values) => {
        true
    };
    (cell_values) => {
        true
    };
    ($other:ident) => {
        false
    };
}

/// A record that repeats its key, stored with those fields blank (the
/// marker `| keyed_value` after a table's declaration; see
/// [`Table::encode_value`]).
trait KeyedValue<K>: Sized {
    /// The record with the fields its key holds blanked.
    fn blank(&self) -> Self;
    /// Puts those fields back from the key.
    fn restore(key: &K, value: &mut Self);
}

/// Calls [`KeyedValue`] for a table's value type.
mod keyed_value {
    pub(super) fn blank<K, V: super::KeyedValue<K>>(value: &V) -> V {
        value.blank()
    }
    pub(super) fn restore<K, V: super::KeyedValue<K>>(key: &K, value: &mut V) {
        V::restore(key, value)
    }
}

impl KeyedValue<Hash> for TraceRecord {
    fn blank(&self) -> Self {
        TraceRecord {
            trace_id: [0; 32],
            ..self.clone()
        }
    }
    fn restore(key: &Hash, value: &mut Self) {
        value.trace_id = *key;
    }
}

impl KeyedValue<HashMsgKey> for StoredAction {
    fn blank(&self) -> Self {
        StoredAction {
            trace_id: [0; 32],
            action_id: [0; 32],
            ..self.clone()
        }
    }
    fn restore(key: &HashMsgKey, value: &mut Self) {
        value.trace_id = key.hash;
        value.action_id = key.msg_hash;
    }
}

/// The marker `; importer_reads` after a table's declaration.
macro_rules! importer_reads {
    (importer_reads) => {
        true
    };
}

table!(
    /// Schema version and ingest cursor. key: ASCII name → value: see [`MetaKey`].
    Meta, "meta", MetaKey => Vec<u8>; importer_reads
);
table!(
    /// key: `block` → bincode [`BlockRecord`].
    Blocks, "blocks", BlockId => BlockRecord; importer_reads
);
/// Prefix of the [`Blocks`] rows of one shard (all seqnos, ascending).
pub fn shard_blocks_prefix(workchain: i32, shard: u64) -> Vec<u8> {
    KeyWriter::with_capacity(12)
        .i32(workchain)
        .u64(shard)
        .finish()
}

/// Prefix of the rows of one workchain in a table keyed by `block` or `account`.
pub fn workchain_prefix(workchain: i32) -> Vec<u8> {
    KeyWriter::with_capacity(4).i32(workchain).finish()
}

table!(
    /// Blocks by generation time: v3 `/blocks` with a time window or a
    /// `sort` (by `gen_utime`), as key ranges. key: `gen_utime u32 | block` → ().
    BlockByUtime, "block_by_utime", TimeBlockKey => (), listing
);
table!(
    /// key: root hash `[32]` or file hash `[32]` → `block` (16 bytes).
    BlockByHash, "block_by_hash", Hash => BlockId, point_lookup
);
table!(
    /// The shard state a masterchain block fixes: its top shard blocks.
    /// key: `mc_seqno u32 | block` → bincode [`ShardDescrRecord`].
    McShardState, "mc_shard_state", McBlockKey => ShardDescrRecord, listing
);
table!(
    /// The first masterchain block that lists a shard block as its shard's
    /// top, so that a shard block imported after that masterchain block is
    /// still linked to it. key: `block` → `mc_seqno u32`.
    McByTopShard, "mc_by_top_shard", BlockId => u32, point_lookup; importer_reads
);
table!(
    /// Blocks a masterchain block commits (itself and the shard blocks new
    /// since the previous masterchain block). key: `mc_seqno u32 | block` → ().
    McBlocks, "mc_blocks", McBlockKey => (), listing
);
table!(
    /// Config of key blocks. key: `mc_seqno u32` → lz4(ConfigParams dict BoC).
    KeyBlockConfig, "key_block_config", u32 => Lz4Bytes, blob_values
);
table!(
    /// Library cells a source fetched from the chain (each checked against
    /// its hash) for code the held masterchain state does not cover — a
    /// follower holds none — so that a restart does not fetch them again.
    /// key: `library cell hash` → the cell's BoC.
    FetchedLibraries, "fetched_libraries", Hash => RawBytes, point_lookup
);
table!(
    /// key: `tx_id u64` → bincode [`TxPlace`] (its block and masterchain
    /// block, its account's number and lt: the key of its BoC in
    /// [`TxBocs`], and its trace's tag; ~34 bytes). The transaction's record is rebuilt from its
    /// BoC and this place: a stored record repeated ~400 bytes of the BoC,
    /// mostly hashes no compression can shrink (411 bytes a transaction
    /// raw, 184 compacted, on the devnet corpus). Readers that show a
    /// transaction decode its BoC anyway, for the messages; the masterchain
    /// link and the trace's tag come later, as merge operands
    /// ([`crate::tx_place`]): the tag in the place spares every page a
    /// random read a transaction (`trace_of_tx` until schema 36).
    Transactions, "transactions", u64 => TxPlace, place_values; importer_reads
);
table!(
    /// Each account's dense number, handed out in ingest order and never
    /// reused. key: `account` → `num u64`. It keys the account's history in
    /// [`TxBocs`]: 8 bytes where the address is 36, in every place row
    /// that points there.
    AccountNumbers, "account_numbers", Address => u64, point_lookup; importer_reads
);
table!(
    /// The account of each number ([`AccountNumbers`] the other way),
    /// written with it. Action rows name their accounts by number
    /// ([`StoredAction`]) and readers turn them back into addresses here.
    /// key: `num u64` → bincode [`Address`].
    AccountAddresses, "account_addresses", u64 => Address
);
table!(
    /// Transactions, each stored once, as an account's history. key:
    /// `account number u64 | lt u64` ([`NumLtKey`]) → `tx_id u64 | BoC`
    /// ([`TxBoc`]; the BoC exactly as in the block). Keyed by account, the
    /// last level holds an account's transactions side by side: a page of
    /// its history is a few neighbouring blocks instead of one block a
    /// transaction, and neighbours share what compresses (the address,
    /// the state hash one transaction ends on and the next starts from;
    /// 230 → 200 bytes a transaction on a sample of the mainnet-profile
    /// corpus). It is also the account index: no `account | lt → tx_id`
    /// table beside it. Readers by id find the key in the place
    /// ([`Transactions`]).
    TxBocs, "tx_bocs", NumLtKey => TxBoc, blob_values
);
table!(
    /// key: transaction hash's [`HashTag`] `[8]` | `tx_id u64` → ()
    /// ([`TagIdKey`]). The reader checks the hash against the transaction's
    /// BoC (its root hash). The whole hash as the key cost 37.5 bytes a
    /// transaction after compression (32 random bytes no compression
    /// shrinks); the BoC already holds it.
    TxByHash, "tx_by_hash", TagIdKey => ()
);
table!(
    /// Global order. key: `lt u64 | wc i32 | account tag [8] | tx_id u64`
    /// ([`TxTail`]) → ().
    TxByLt, "tx_by_lt", LtAccountKey => (), listing
);
table!(
    /// Transactions by time: v3 orders a page with a utime filter by
    /// `now, lt, account`, which lt alone does not give across shards.
    /// key: `now u32 | lt u64 | wc i32 | account tag [8] | tx_id u64` → ().
    TxByNow, "tx_by_now", TimeLtAccountKey => (), listing
);
table!(
    /// key: `block | tx_id u64` → (). Ids are allocated per block in
    /// `(account, lt)` order, so this is also the v2 `getBlockTransactions` order.
    TxByBlock, "tx_by_block", BlockTxKey => (), listing; importer_reads
);
table!(
    /// key: `mc_seqno u32 | lt u64 | wc i32 | account tag [8] | tx_id u64` → ().
    TxByMcBlock, "tx_by_mc_block", McLtAccountKey => (), listing
);
table!(
    /// key: message hash's [`HashTag`] `[8]` → [`Linked`] ids of the
    /// transactions that received the message ([`RECEIVED_BY`]) and sent
    /// it ([`SENT_BY`]), each added by a merge operand as its transaction
    /// is indexed (tables keyed by `message hash | tx_id` held these at ~58
    /// bytes a transaction; here they cost a few). No record: every field
    /// of a message is in its cell, which the BoC of a transaction at
    /// either end holds in [`TxBocs`], and readers decode it from there
    /// with that block's version. The stored record cost 77 bytes a
    /// transaction after compression (this table went 115.8 → 39.1 on a
    /// 1.83M mainnet-profile prefix). Keyed by the tag, not the whole hash
    /// (24 random bytes a message less): messages whose hashes share a tag
    /// share a row, and the reader tells them apart by the cells of the
    /// linked transactions (an id at [`RECEIVED_BY`] holds the message as
    /// its in-message, one at [`SENT_BY`] among its out-messages).
    Messages, "messages", HashTag => Linked<()>, linked_values
);
/// The end of a [`Messages`] row that lists the transactions that took
/// the message in.
pub const RECEIVED_BY: usize = 0;
/// The end of a [`Messages`] row that lists the transaction that sent it.
pub const SENT_BY: usize = 1;
table!(
    /// key: `source account | created_lt u64 | msg tag [8]` → ().
    MsgBySource, "msg_by_source", AccountLtTagKey => (), listing
);
table!(
    /// The messages an account received in `/messages` order: by
    /// `created_lt`, then hash; external-in messages (no `created_lt`) after
    /// the rest, as Postgres orders nulls. key: `destination account | null
    /// flag u8 | created_lt u64 | msg tag [8]` ([`GroupOrderKey`]) → ().
    /// Every message index ends in the message's [`HashTag`], not its hash:
    /// the reader finds the record by the tag and checks it against the key.
    MsgByDestination, "msg_by_destination", GroupOrderKey => (), listing
);
table!(
    /// As [`MsgByDestination`], by `created_at` (the order of `/messages`
    /// with a time window). key: `destination account | null flag u8 |
    /// created_at u64 | msg tag [8]` → ().
    MsgByDestinationUtime, "msg_by_destination_utime", GroupOrderKey => (), listing
);
table!(
    /// External-in messages by their TEP-467 normalized hash (what a wallet
    /// knows before the message is sent; v3 `msg_hash` filters match it too),
    /// when it differs from the message's own hash (a lookup by hash finds
    /// the others). key: `hash_norm [32] | msg hash [32]` → ().
    MsgByHashNorm, "msg_by_hash_norm", HashMsgKey => (), point_lookup
);
table!(
    /// Messages by the hash of their body, in `/messages` order (see
    /// [`MsgByDestination`]). key: `body tag [8] | null flag u8 |
    /// created_lt u64 | msg tag [8]` → () (see [`MessageGroupKey::BodyHash`]).
    MsgByBodyHash, "msg_by_body_hash", GroupOrderKey => (), listing
);
table!(
    /// Messages by body opcode (the first 32 bits of a body that has them),
    /// in `/messages` order (see [`MsgByDestination`]).
    /// key: `opcode u32 | null flag u8 | created_lt u64 | msg tag [8]` → ().
    MsgByOpcode, "msg_by_opcode", GroupOrderKey => (), listing
);
table!(
    /// As [`MsgByBodyHash`], by `created_at` (the order of `/messages`
    /// with a time window): a body's messages come from every shard, whose
    /// lts do not follow time, so a time window is no lt range of them.
    /// key: `body tag [8] | null flag u8 | created_at u64 | msg tag [8]` → ().
    MsgByBodyHashUtime, "msg_by_body_hash_utime", GroupOrderKey => (), listing
);
table!(
    /// As [`MsgByOpcode`], by `created_at` (see [`MsgByBodyHashUtime`]).
    /// key: `opcode u32 | null flag u8 | created_at u64 | msg tag [8]` → ().
    MsgByOpcodeUtime, "msg_by_opcode_utime", GroupOrderKey => (), listing
);
table!(
    /// Every message in `created_lt` order, for v3 `/messages` with no
    /// narrower filter (Postgres' `(created_lt, msg_hash)` index).
    /// External-in messages have no created_lt and sort after the rest.
    /// key: `null flag u8 | created_lt u64 | msg tag [8]` → ().
    MsgByCreatedLt, "msg_by_created_lt", NullableOrderKey => (), listing
);
table!(
    /// Every message in `created_at` order (`(created_at, msg_hash)`), as
    /// [`MsgByCreatedLt`]. key: `null flag u8 | created_at u64 | msg tag [8]` → ().
    MsgByCreatedAt, "msg_by_created_at", NullableOrderKey => (), listing
);
table!(
    /// Latest known state per account. key: `account` → bincode [`LatestAccount`].
    LatestAccounts, "latest_accounts", Address => LatestAccount; importer_reads
);

table!(
    /// The cells of the shard states the index keeps, content-addressed so
    /// that consecutive states share what did not change (a Merkle update
    /// writes only its new cells). key: representation hash `[32]` →
    /// [`Counted`]: the number of references to the cell (from stored
    /// cells, and one from each kept state whose root it is), then a cell
    /// row (descriptor, bit length, hashes and depths per level, data,
    /// child representation hashes); the row layout belongs to the main
    /// crate's `state::cells`, which alone reads and writes this table. A
    /// cell whose count falls to zero is deleted with its references.
    Cells, "cells", Hash => Counted, cell_values; importer_reads
);
table!(
    /// Shard states that a newer state replaced, by the masterchain block
    /// from which on the newer one is in force: once that block is older
    /// than the states the index keeps (`[index] keep_states`), the old
    /// state's root is released from [`Cells`]. key: `mc_seqno u32 | root
    /// [32]` → the shard ([`ShardKey`]) whose [`ShardStates`] row to drop
    /// if it still names the root (a split parent's).
    StateReleases, "state_releases", StateReleaseKey => ShardKey; importer_reads
);
table!(
    /// The newest full state held per shard: the root of its tree in
    /// [`Cells`]. key: `wc i32 | shard u64` → bincode [`ShardStateRecord`].
    ShardStates, "shard_states", ShardKey => ShardStateRecord; importer_reads
);
table!(
    /// Exact current state per account, from an imported state and every
    /// Merkle update applied since. key: `account` → bincode
    /// [`AccountStateRecord`] (the ShardAccount BoC inside).
    AccountStates, "account_states", Address => AccountStateRecord, blob_values; importer_reads
);
table!(
    /// The balance of each account whose exact state the index holds (the
    /// account's row in [`AccountStates`]), so that a state change finds
    /// the [`AccountsByBalance`] row it replaces. key: `account` → bincode
    /// [`BalanceRecord`].
    AccountBalances, "account_balances", Address => BalanceRecord, point_lookup; importer_reads
);
table!(
    /// Accounts whose exact state the index holds, by balance (v3
    /// `/topAccountsByBalance` reads it backwards). key: `nanotons u128 |
    /// account` → ().
    AccountsByBalance, "accounts_by_balance", BalanceAccountKey => (), listing
);
table!(
    /// What the index read from each contract code it has seen in an
    /// account state, written in the batch that first stores a state with
    /// it: the interface cache. key: code hash `[32]` → bincode [`CodeRecord`].
    Codes, "codes", Hash => CodeRecord, point_lookup; importer_reads
);
table!(
    /// Jetton masters. key: `account` → bincode [`JettonMasterRecord`].
    JettonMasters, "jetton_masters", Address => JettonMasterRecord; importer_reads
);
table!(
    /// Jetton masters by admin. key: `admin account | master account` → ().
    JettonMastersByAdmin, "jetton_masters_by_admin", AccountPairKey => ()
);
table!(
    /// Jetton wallets whose master confirms them. key: `account` → bincode
    /// [`JettonWalletRecord`].
    JettonWallets, "jetton_wallets", Address => JettonWalletRecord, point_lookup_misses; importer_reads
);
table!(
    /// Jetton wallets by owner. key: `owner account | wallet account` → ().
    JettonWalletsByOwner, "jetton_wallets_by_owner", AccountPairKey => ()
);
table!(
    /// Jetton wallets by master. key: `master account | wallet account` → ().
    JettonWalletsByJetton, "jetton_wallets_by_jetton", AccountPairKey => ()
);
table!(
    /// Jetton transfers in lt order. key: `tx lt u64 | tx hash [32]` →
    /// bincode [`JettonTransferRecord`].
    JettonTransfers, "jetton_transfers", LtHashKey => JettonTransferRecord, blob_values
);
table!(
    /// Jetton transfers by the accounts in them. key: `account | tx lt u64 |
    /// tx hash [32]` → the account's roles ([`JettonRole`] bits).
    JettonTransfersByAccount, "jetton_transfers_by_account", AccountLtHashKey => u32, listing
);
table!(
    /// Jetton burns in lt order. key: `tx lt u64 | tx hash [32]` → bincode
    /// [`JettonBurnRecord`].
    JettonBurns, "jetton_burns", LtHashKey => JettonBurnRecord, blob_values
);
table!(
    /// Jetton burns by the accounts in them, as [`JettonTransfersByAccount`].
    JettonBurnsByAccount, "jetton_burns_by_account", AccountLtHashKey => u32, listing
);

table!(
    /// Jetton transfers and burns and NFT transfers by time (the table's
    /// [`EventTable::KIND`] first): v3 orders these lists by `tx_now` when a
    /// request filters by time. key: `kind u8 | tx now u32 | tx lt u64 | tx
    /// hash [32]` → (); the row is in the kind's table under `lt | hash`.
    TokenEventsByNow, "token_events_by_now", EventTimeKey => (), listing
);
table!(
    /// The same by account, with the account's roles as in the kind's
    /// `*ByAccount` table. key: `kind u8 | account | tx now u32 | tx lt u64
    /// | tx hash [32]` → roles.
    TokenEventsByAccountNow, "token_events_by_account_now", AccountEventTimeKey => u32, listing
);

/// A token-event table (rows keyed `tx lt | tx hash`) and its kind in
/// [`TokenEventsByNow`] and [`TokenEventsByAccountNow`].
pub trait EventTable: Table<Key = LtHashKey> {
    const KIND: u8;
}

impl EventTable for JettonTransfers {
    const KIND: u8 = 1;
}

impl EventTable for JettonBurns {
    const KIND: u8 = 2;
}

impl EventTable for NftTransfers {
    const KIND: u8 = 3;
}

/// What an account is to a Jetton transfer or burn (bits of the
/// `*ByAccount` rows' values).
pub struct JettonRole;

impl JettonRole {
    /// The sending owner (a burn's owner).
    pub const SOURCE: u32 = 1;
    /// The receiving owner.
    pub const DESTINATION: u32 = 2;
    /// The sender's (burner's) Jetton wallet.
    pub const WALLET: u32 = 4;
    /// The Jetton master.
    pub const MASTER: u32 = 8;
}
table!(
    /// NFT collections. key: `account` → bincode [`NftCollectionRecord`].
    NftCollections, "nft_collections", Address => NftCollectionRecord; importer_reads
);
table!(
    /// NFT collections by owner. key: `owner account | collection account` → ().
    NftCollectionsByOwner, "nft_collections_by_owner", AccountPairKey => ()
);
table!(
    /// NFT items the index believes. key: `account` → bincode [`NftItemRecord`].
    NftItems, "nft_items", Address => NftItemRecord, point_lookup_misses; importer_reads
);
table!(
    /// NFT items by owner. key: `owner account | item account` → ().
    NftItemsByOwner, "nft_items_by_owner", AccountPairKey => ()
);
table!(
    /// NFT items by collection, in index order. key: `collection account |
    /// index [32] (big-endian) | item account` → ().
    NftItemsByCollection, "nft_items_by_collection", CollectionIndexKey => (), listing
);
table!(
    /// NFT transfers in lt order. key: `tx lt u64 | tx hash [32]` → bincode
    /// [`NftTransferRecord`].
    NftTransfers, "nft_transfers", LtHashKey => NftTransferRecord, blob_values
);
table!(
    /// NFT transfers by the accounts in them. key: `account | tx lt u64 |
    /// tx hash [32]` → the account's roles ([`NftRole`] bits).
    NftTransfersByAccount, "nft_transfers_by_account", AccountLtHashKey => u32, listing
);

/// What an account is to an NFT transfer (bits of [`NftTransfersByAccount`] values).
pub struct NftRole;

impl NftRole {
    pub const OLD_OWNER: u32 = 1;
    pub const NEW_OWNER: u32 = 2;
    pub const ITEM: u32 = 4;
    pub const COLLECTION: u32 = 8;
}

/// `collection account | index [32] | item account`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectionIndexKey {
    pub collection: Address,
    pub index: Hash,
    pub item: Address,
}

impl CollectionIndexKey {
    /// Prefix of all rows of one collection.
    pub fn prefix(collection: &Address) -> Vec<u8> {
        KeyWriter::with_capacity(36).address(collection).finish()
    }
    /// Prefix of the rows of one index of a collection.
    pub fn index_prefix(collection: &Address, index: &Hash) -> Vec<u8> {
        KeyWriter::with_capacity(68)
            .address(collection)
            .hash(index)
            .finish()
    }
}

impl Key for CollectionIndexKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(104)
            .address(&self.collection)
            .hash(&self.index)
            .address(&self.item)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = CollectionIndexKey {
            collection: r.address()?,
            index: r.hash()?,
            item: r.address()?,
        };
        r.end()?;
        Ok(k)
    }
}

table!(
    /// GetGems fixed-price sales and auctions, and Telemint items' own
    /// auctions, as their contracts describe themselves. key: `sale
    /// account` (the item, for Telemint) → bincode [`NftSaleRecord`].
    NftSales, "nft_sales", Address => NftSaleRecord, point_lookup_misses; importer_reads
);
table!(
    /// Sales by seller (for items counted by their real owner). key:
    /// `seller account | sale account` → ().
    NftSalesBySeller, "nft_sales_by_seller", AccountPairKey => ()
);
table!(
    /// DNS items (of the `.ton` and `.t.me` collections) with their domain
    /// and records. key: `item account` → bincode [`DnsRecord`].
    DnsEntries, "dns_entries", Address => DnsRecord; importer_reads
);
table!(
    /// DNS items by domain. key: `sha256(domain) [32] | item account` → ().
    DnsByDomain, "dns_by_domain", HashAccountKey => ()
);
table!(
    /// DNS items by the address their `wallet` record names. key: `wallet
    /// account | item account` → ().
    DnsByWallet, "dns_by_wallet", AccountPairKey => ()
);
table!(
    /// Multisig v2 wallets. key: `account` → bincode [`MultisigRecord`].
    Multisigs, "multisigs", Address => MultisigRecord; importer_reads
);
table!(
    /// Multisig wallets by signer and by proposer. key: `wallet account |
    /// multisig account` → ().
    MultisigsByWallet, "multisigs_by_wallet", AccountPairKey => ()
);
table!(
    /// Multisig v2 orders their multisig confirms. key: `account` →
    /// bincode [`MultisigOrderRecord`].
    MultisigOrders, "multisig_orders", Address => MultisigOrderRecord, point_lookup_misses; importer_reads
);
table!(
    /// Orders by multisig. key: `multisig account | order account` → ().
    MultisigOrdersByMultisig, "multisig_orders_by_multisig", AccountPairKey => ()
);
table!(
    /// Standard vesting wallets. key: `account` → bincode [`VestingRecord`].
    Vestings, "vestings", Address => VestingRecord; importer_reads
);
table!(
    /// Vesting wallets by the wallets they name. key: `wallet account |
    /// vesting account` → the wallet's roles ([`VestingRole`] bits).
    VestingsByWallet, "vestings_by_wallet", AccountPairKey => u32
);

/// What a wallet is to a vesting wallet (bits of [`VestingsByWallet`] values).
pub struct VestingRole;

impl VestingRole {
    /// Its owner or its sender.
    pub const OWNER_OR_SENDER: u32 = 1;
    /// On its whitelist.
    pub const WHITELISTED: u32 = 2;
}

table!(
    /// Traces as assembly left them. key: trace id `[32]` (the root
    /// transaction's hash) → bincode [`TraceRecord`], its `trace_id` (the
    /// key) stored blank and read back from the key. The record lists its
    /// transactions' ids (ascending, as deltas): schemas up to 35 kept
    /// them in a table keyed by `trace id | lt | account | tx id`
    /// (`tx_by_trace`, 31.2 bytes a transaction on the 10M corpus).
    Traces, "traces", Hash => TraceRecord, point_lookup; importer_reads | keyed_value
);
table!(
    /// Trace assembly's pending edges: internal messages sent and not yet
    /// delivered, so that the transaction that receives one (in a later
    /// unit) joins the sender's trace. A row is deleted when its message
    /// is delivered. key: message hash `[32]` → trace id `[32]`.
    TraceEdges, "trace_edges", Hash => Hash, point_lookup; importer_reads
);
table!(
    /// Transactions whose in-message's sender the index had not seen when
    /// they arrived (they start broken traces): in-message hash → that
    /// trace's id. When the sender arrives later (blocks indexed out of
    /// order), the broken trace joins the sender's and the row goes.
    TraceOrphans, "trace_orphans", Hash => Hash, point_lookup_misses; importer_reads
);
table!(
    /// Settled traces (every message delivered) by account, newest last.
    /// key: `account | trace end_lt u64 | trace tag [8]` → (). Trace
    /// listings end in the trace id's [`HashTag`]; the reader finds the
    /// trace by it and checks the row's end (and account, should two traces
    /// share the tag and end).
    TraceByAccount, "trace_by_account", AccountLtTagKey => (), listing
);
table!(
    /// Settled traces by end lt. key: `end_lt u64 | trace tag [8]` → ().
    TraceByEndLt, "trace_by_end_lt", LtTagKey => (), listing
);
table!(
    /// Settled traces by end time: v3 orders a page with a utime filter by
    /// `end_utime, trace_id`, which end lt does not give across shards.
    /// key: `end_utime u64 | trace tag [8]` → ().
    TraceByEndUtime, "trace_by_end_utime", LtTagKey => (), listing
);
table!(
    /// Settled traces by account and end time (as [`TraceByEndUtime`]).
    /// key: `account | end_utime u64 | trace tag [8]` → ().
    TraceByAccountUtime, "trace_by_account_utime", AccountLtTagKey => (), listing
);
table!(
    /// Complete traces by the masterchain block that completed them (v3
    /// `mc_seqno`). key: `mc_seqno_end u32 | end_lt u64 | trace tag [8]` → ().
    TraceByMcBlock, "trace_by_mc_block", McLtTagKey => (), listing
);
table!(
    /// Actions of classified traces. key: `trace id [32] | action id [32]`
    /// → bincode [`StoredAction`] (the [`tonindex_model::ActionRecord`] with its accounts
    /// by number), its `trace_id` and `action_id` (the key) stored blank
    /// and read back from the key.
    Actions, "actions", HashMsgKey => StoredAction, blob_values | keyed_value
);
table!(
    /// Actions by account. key: `account | trace end_lt u64 | trace tag [8]`
    /// → (); the trace's actions are read from [`Actions`] and filtered.
    ActionByAccount, "action_by_account", AccountLtTagKey => (), listing
);
table!(
    /// Actions by account and their trace's end time, for pages with a
    /// utime filter (`trace_end_utime, trace_id, …`). key: `account |
    /// trace end_utime u64 | trace tag [8]` → ().
    ActionByAccountUtime, "action_by_account_utime", AccountLtTagKey => (), listing
);
table!(
    /// Traces by the types of their actions, for `action_type` filters: by
    /// end lt (`order` 0) and by end time (`order` 1). key: `order u8 |
    /// type (u8 length, bytes) | trace end u64 | trace tag [8]` → ().
    ActionByType, "action_by_type", TypeEndKey => (), listing
);
table!(
    /// The same by account (an account of an action of that type). key:
    /// `order u8 | account | type (u8 length, bytes) | trace end u64 |
    /// trace tag [8]` → ().
    ActionByAccountType, "action_by_account_type", TypeEndKey => (), listing
);
table!(
    /// key: action id's [`HashTag`] `[8]` | its trace id's tag `[8]` → ()
    /// ([`TagPairKey`]). The reader finds the action in [`Actions`] under
    /// a trace with that tag, whose key holds the whole action id (should
    /// two actions or two traces share a tag, the one that holds it). The
    /// whole action id as the key cost ~24 bytes an action more.
    ActionById, "action_by_id", TagPairKey => ()
);

/// A column family as the database opens it.
pub struct TableSpec {
    pub name: &'static str,
    pub options: Options,
    /// See [`Table::IMPORTER_READS`].
    pub importer_reads: bool,
    /// See [`Table::DICTIONARY`].
    pub dictionary: bool,
}

/// Every column family, for opening the database and for statistics.
pub fn all() -> Vec<TableSpec> {
    fn entry<T: Table>() -> TableSpec {
        let mut options = Options::default();
        compress_last_level(&mut options);
        options.set_block_based_table_factory(&block_options());
        T::options(&mut options);
        TableSpec {
            name: T::NAME,
            options,
            importer_reads: T::IMPORTER_READS,
            dictionary: T::DICTIONARY,
        }
    }
    vec![
        entry::<Meta>(),
        entry::<Blocks>(),
        entry::<BlockByHash>(),
        entry::<BlockByUtime>(),
        entry::<McShardState>(),
        entry::<McBlocks>(),
        entry::<McByTopShard>(),
        entry::<KeyBlockConfig>(),
        entry::<FetchedLibraries>(),
        entry::<Transactions>(),
        entry::<TxBocs>(),
        entry::<AccountNumbers>(),
        entry::<AccountAddresses>(),
        entry::<TxByHash>(),
        entry::<TxByLt>(),
        entry::<TxByNow>(),
        entry::<TxByBlock>(),
        entry::<TxByMcBlock>(),
        entry::<Messages>(),
        entry::<MsgBySource>(),
        entry::<MsgByDestination>(),
        entry::<MsgByDestinationUtime>(),
        entry::<MsgByHashNorm>(),
        entry::<MsgByBodyHash>(),
        entry::<MsgByOpcode>(),
        entry::<MsgByBodyHashUtime>(),
        entry::<MsgByOpcodeUtime>(),
        entry::<MsgByCreatedLt>(),
        entry::<MsgByCreatedAt>(),
        entry::<LatestAccounts>(),
        entry::<Cells>(),
        entry::<StateReleases>(),
        entry::<ShardStates>(),
        entry::<AccountStates>(),
        entry::<AccountBalances>(),
        entry::<AccountsByBalance>(),
        entry::<Codes>(),
        entry::<JettonMasters>(),
        entry::<JettonMastersByAdmin>(),
        entry::<JettonWallets>(),
        entry::<JettonWalletsByOwner>(),
        entry::<JettonWalletsByJetton>(),
        entry::<JettonTransfers>(),
        entry::<JettonTransfersByAccount>(),
        entry::<JettonBurns>(),
        entry::<JettonBurnsByAccount>(),
        entry::<NftCollections>(),
        entry::<NftCollectionsByOwner>(),
        entry::<NftItems>(),
        entry::<NftItemsByOwner>(),
        entry::<NftItemsByCollection>(),
        entry::<NftTransfers>(),
        entry::<NftTransfersByAccount>(),
        entry::<TokenEventsByNow>(),
        entry::<TokenEventsByAccountNow>(),
        entry::<NftSales>(),
        entry::<NftSalesBySeller>(),
        entry::<DnsEntries>(),
        entry::<DnsByDomain>(),
        entry::<DnsByWallet>(),
        entry::<Multisigs>(),
        entry::<MultisigsByWallet>(),
        entry::<MultisigOrders>(),
        entry::<MultisigOrdersByMultisig>(),
        entry::<Vestings>(),
        entry::<VestingsByWallet>(),
        entry::<Traces>(),
        entry::<TraceEdges>(),
        entry::<TraceOrphans>(),
        entry::<TraceByAccount>(),
        entry::<TraceByEndLt>(),
        entry::<TraceByEndUtime>(),
        entry::<TraceByAccountUtime>(),
        entry::<TraceByMcBlock>(),
        entry::<Actions>(),
        entry::<ActionByAccount>(),
        entry::<ActionByAccountUtime>(),
        entry::<ActionByType>(),
        entry::<ActionByAccountType>(),
        entry::<ActionById>(),
    ]
}

/// Keys of the [`Meta`] table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaKey {
    SchemaVersion,
    Cursor,
    /// Complete traces whose actions are not written yet (bincode
    /// `Vec<[u8; 32]>` of trace ids; absent when none). Left only by
    /// databases of earlier builds, which classified a unit's complete
    /// traces with the next unit: now they are classified in the batch
    /// that assembles them ([`MetaKey::Unassembled`]), and a list found is
    /// classified with the next batch and cleared.
    Unclassified,
    /// The transactions of the last committed unit whose traces are not
    /// assembled yet: assembled (and the complete traces classified)
    /// beside the next unit and written in its batch (bincode `(u64, u64)`:
    /// the unit's first tx id and the one after its last; absent when none).
    Unassembled,
}

impl Key for MetaKey {
    fn encode(&self) -> Vec<u8> {
        match self {
            MetaKey::SchemaVersion => b"schema_version".to_vec(),
            MetaKey::Cursor => b"cursor".to_vec(),
            MetaKey::Unclassified => b"unclassified".to_vec(),
            MetaKey::Unassembled => b"unassembled".to_vec(),
        }
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        match bytes {
            b"schema_version" => Ok(MetaKey::SchemaVersion),
            b"cursor" => Ok(MetaKey::Cursor),
            b"unclassified" => Ok(MetaKey::Unclassified),
            b"unassembled" => Ok(MetaKey::Unassembled),
            _ => Err(Error::Corrupt("unknown meta key")),
        }
    }
}

impl Value for Vec<u8> {
    fn encode(&self) -> Vec<u8> {
        self.clone()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Ok(bytes.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_order_keys_sort_nulls_last_and_bound_values() {
        let k = |value, h: u8| NullableOrderKey { value, tag: [h; 8] };
        let keys = [
            k(Some(0), 9),
            k(Some(5), 1),
            k(Some(5), 2),
            k(Some(u64::MAX), 0),
            k(None, 0),
            k(None, 3),
        ];
        for pair in keys.windows(2) {
            assert!(pair[0].encode() < pair[1].encode(), "{pair:?}");
        }
        for key in keys {
            assert_eq!(NullableOrderKey::decode(&key.encode()).unwrap(), key);
        }
        let inside = |(lower, upper): (Vec<u8>, Option<Vec<u8>>), key: &NullableOrderKey| {
            let e = key.encode();
            e >= lower && upper.is_none_or(|u| e < u)
        };
        assert!(inside(
            NullableOrderKey::value_range(5, 5),
            &k(Some(5), 0xff)
        ));
        assert!(!inside(NullableOrderKey::value_range(5, 5), &k(Some(6), 0)));
        assert!(!inside(
            NullableOrderKey::value_range(6, 9),
            &k(Some(5), 0xff)
        ));
        assert!(inside(
            NullableOrderKey::value_range(0, u64::MAX),
            &k(Some(u64::MAX), 0xff)
        ));
        assert!(!inside(
            NullableOrderKey::value_range(0, u64::MAX),
            &k(None, 0)
        ));
        assert!(k(None, 7)
            .encode()
            .starts_with(&NullableOrderKey::null_prefix()));
        assert!(NullableOrderKey::decode(&[2; 41]).is_err());
    }
}
