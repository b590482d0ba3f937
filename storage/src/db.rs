//! Opening the database, atomic batches, snapshot reads and statistics.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard};
use std::time::Instant;

use rocksdb::{
    ColumnFamily, ColumnFamilyDescriptor, DBRawIteratorWithThreadMode, MemtableFactory, Options,
    ReadOptions, Snapshot, WriteBatch, WriteOptions, DB,
};

use crate::codec::{Key, RawBytes, Value};
use crate::linked::Linked;
use crate::rows::IngestCursor;
use crate::tables::{self, Meta, MetaKey, Table};
use crate::Error;

/// Bumped whenever a key layout or value encoding changes.
pub const SCHEMA_VERSION: u32 = 32;

/// Older schema versions whose databases this build reads exactly as they
/// are, so that opening one for writing only records [`SCHEMA_VERSION`]:
/// 31 stored the key fields of messages, traces and actions that 32 blanks
/// ([`crate::Table::encode_value`]), and reading overwrites them from the
/// key either way.
pub const SCHEMA_READ_AS_IS: &[u32] = &[31];

/// Whether this build reads a database of schema `found`.
fn schema_readable(found: u32) -> bool {
    found == SCHEMA_VERSION || SCHEMA_READ_AS_IS.contains(&found)
}

/// The most a new batch reserves up front: a state import's batch can be
/// far bigger than the block batches that follow it.
const BATCH_RESERVE_MAX: usize = 64 << 20;

/// How to open the database.
#[derive(Debug, Clone, Default)]
pub struct DbOptions {
    /// fsync the WAL on every batch (survives power loss, not only crashes).
    pub sync_writes: bool,
    /// Give the tables the importer never reads back append-only (vector)
    /// memtables: an insert is an append instead of a skiplist search, and
    /// the sort happens once per memtable, in the background flush. A point
    /// read on such a memtable sorts a copy of it, so only the importer
    /// sets this; the API reads through a follower, which replays the WAL
    /// into ordinary memtables of its own.
    pub write_only_memtables: bool,
    /// A scratch index, deleted after its run (`bench-dev`'s devnet): its
    /// last level keeps the fast LZ4 of the levels above instead of zstd
    /// with trained dictionaries, which was a quarter of a long run's CPU
    /// and only pays off for an index that is kept.
    pub scratch: bool,
    /// A bulk import (`tonindex import`): the last level is written with
    /// zstd at [`tables::BULK_LAST_LEVEL_ZSTD`] instead of
    /// [`tables::LAST_LEVEL_ZSTD`], dictionaries kept. `tonindex compact`,
    /// which a backfill should end with, opens without it and rewrites
    /// every file at the full level.
    pub bulk: bool,
}

/// The open database. Writes go through [`Batch`]; reads through [`Reader`].
pub struct Db {
    db: DB,
    path: PathBuf,
    write_opts: WriteOptions,
    /// RocksDB has no snapshots on a follower, so a follower's readers hold
    /// this shared and [`Db::catch_up`] takes it exclusively: a reader sees
    /// one committed state for its whole life either way.
    catch_up_lock: RwLock<()>,
    follower: bool,
    /// Bytes of the latest batch written: the next one reserves as much (up
    /// to [`BATCH_RESERVE_MAX`]) instead of growing, a copy onto fresh pages
    /// at each step.
    last_batch_bytes: AtomicUsize,
}

impl Db {
    /// Opens (creating if needed) the database at `path` and checks its schema version.
    pub fn open(path: &Path, options: &DbOptions) -> Result<Self, Error> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get()) as i32;
        opts.increase_parallelism(cores);
        opts.set_max_background_jobs(cores.clamp(2, 8));
        opts.set_bytes_per_sync(1 << 20);
        // A log file is deleted only once every table with rows in it has
        // flushed them, and a quiet table's memtable may not fill for
        // hours: over a 2.6M-transaction devnet run, 10.8 GB of logs stood
        // beside 3.8 GB of tables. Past this size the tables holding the
        // oldest log flush.
        opts.set_max_total_wal_size(MAX_TOTAL_WAL_BYTES);
        // One writer: nothing to gain from concurrent memtable inserts, and
        // vector memtables do not support them.
        opts.set_allow_concurrent_memtable_write(!options.write_only_memtables);
        // A database of another layout is refused before it is opened for
        // writing: opening creates this build's new tables in it, and the
        // build that wrote it could no longer open it.
        if path.join("CURRENT").is_file() {
            Self::check_existing_schema(path)?;
        }
        let cfs = tables::all().into_iter().map(|mut t| {
            if options.write_only_memtables && !t.importer_reads {
                t.options.set_memtable_factory(MemtableFactory::Vector);
            }
            if options.scratch {
                t.options
                    .set_bottommost_compression_type(rocksdb::DBCompressionType::Lz4);
                t.options.set_bottommost_zstd_max_train_bytes(0, false);
            } else if options.bulk {
                let dictionary = if t.dictionary {
                    tables::DICTIONARY_BYTES
                } else {
                    0
                };
                t.options.set_bottommost_compression_options(
                    -14,
                    tables::BULK_LAST_LEVEL_ZSTD,
                    0,
                    dictionary,
                    true,
                );
            }
            ColumnFamilyDescriptor::new(t.name, t.options)
        });
        let db = DB::open_cf_descriptors(&opts, path, cfs)?;
        let mut write_opts = WriteOptions::default();
        write_opts.set_sync(options.sync_writes);
        let this = Db {
            db,
            path: path.to_path_buf(),
            write_opts,
            catch_up_lock: RwLock::new(()),
            follower: false,
            last_batch_bytes: AtomicUsize::new(0),
        };
        this.check_schema()?;
        Ok(this)
    }

    /// Opens the database at `path` as a read-only follower of the process that
    /// writes it (`tonindex import` may run at the same time). `scratch` is a
    /// private directory for the follower's own logs. The follower sees new
    /// commits after [`Db::catch_up`]; it never writes.
    pub fn open_follower(path: &Path, scratch: &Path) -> Result<Self, Error> {
        if !path.join("CURRENT").is_file() {
            return Err(Error::Missing(path.display().to_string()));
        }
        let mut opts = Options::default();
        // A follower must keep every file open (RocksDB requirement).
        opts.set_max_open_files(-1);
        let cfs = tables::all()
            .into_iter()
            .map(|t| ColumnFamilyDescriptor::new(t.name, t.options));
        let db = DB::open_cf_descriptors_as_secondary(&opts, path, scratch, cfs)?;
        let this = Db {
            db,
            path: path.to_path_buf(),
            write_opts: WriteOptions::default(),
            catch_up_lock: RwLock::new(()),
            follower: true,
            last_batch_bytes: AtomicUsize::new(0),
        };
        match this.get::<Meta>(&MetaKey::SchemaVersion)? {
            Some(bytes) if schema_readable(<u32 as Value>::decode(&bytes)?) => Ok(this),
            Some(bytes) => Err(Error::SchemaMismatch {
                path: this.path.display().to_string(),
                found: <u32 as Value>::decode(&bytes)?,
                expected: SCHEMA_VERSION,
            }),
            None => Err(Error::Missing(path.display().to_string())),
        }
    }

    /// Makes a follower see everything the writer has committed so far.
    /// Each committed batch becomes visible whole or not at all, and never
    /// in the middle of a [`Reader`]'s life.
    pub fn catch_up(&self) -> Result<(), Error> {
        let _exclusive = self
            .catch_up_lock
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.db.try_catch_up_with_primary()?;
        Ok(())
    }

    /// Reads the schema version of the database at `path` without writing
    /// anything to it (read-only, the meta table alone) and refuses another
    /// version. A database without the meta table is left to the normal
    /// open (it is new, or not ours and RocksDB says so).
    fn check_existing_schema(path: &Path) -> Result<(), Error> {
        let opts = Options::default();
        if !DB::list_cf(&opts, path)?.iter().any(|n| n == Meta::NAME) {
            return Ok(());
        }
        let db = DB::open_cf_for_read_only(&opts, path, [Meta::NAME], false)?;
        let cf = db
            .cf_handle(Meta::NAME)
            .ok_or(Error::Corrupt("no meta table"))?;
        let found = match db.get_cf(cf, MetaKey::SchemaVersion.encode())? {
            Some(bytes) => <u32 as Value>::decode(&bytes)?,
            None => return Ok(()),
        };
        if schema_readable(found) {
            Ok(())
        } else {
            Err(Error::SchemaMismatch {
                path: path.display().to_string(),
                found,
                expected: SCHEMA_VERSION,
            })
        }
    }

    fn check_schema(&self) -> Result<(), Error> {
        match self.get::<Meta>(&MetaKey::SchemaVersion)? {
            Some(bytes) => {
                let found = <u32 as Value>::decode(&bytes)?;
                if !schema_readable(found) {
                    return Err(Error::SchemaMismatch {
                        path: self.path.display().to_string(),
                        found,
                        expected: SCHEMA_VERSION,
                    });
                }
                if found != SCHEMA_VERSION {
                    // Read as it is: the migration is the version alone.
                    let mut batch = self.batch();
                    batch.put::<Meta>(&MetaKey::SchemaVersion, &Value::encode(&SCHEMA_VERSION));
                    self.write(batch)?;
                }
                Ok(())
            }
            None => {
                let mut batch = self.batch();
                batch.put::<Meta>(&MetaKey::SchemaVersion, &Value::encode(&SCHEMA_VERSION));
                self.write(batch)
            }
        }
    }

    fn cf<T: Table>(&self) -> &ColumnFamily {
        self.db
            .cf_handle(T::NAME)
            .expect("every table is created at open")
    }

    /// Starts an empty batch; nothing is visible until [`Db::write`].
    pub fn batch(&self) -> Batch<'_> {
        Batch {
            db: self,
            wb: WriteBatch::with_capacity_bytes(
                self.last_batch_bytes
                    .load(Ordering::Relaxed)
                    .min(BATCH_RESERVE_MAX),
            ),
            side: false,
        }
    }

    /// A batch holding `rows`, written beside the writer's run of batches
    /// (a unit's traces between two units): it reserves what they need, and
    /// writing it leaves the next [`Db::batch`]'s reservation to the run's
    /// own batches, which are larger.
    pub fn side_batch(&self, rows: EncodedRows) -> Batch<'_> {
        let mut batch = Batch {
            db: self,
            wb: WriteBatch::with_capacity_bytes(rows.batch_bytes()),
            side: true,
        };
        batch.append(rows);
        batch
    }

    /// Commits a batch atomically across all column families.
    pub fn write(&self, batch: Batch<'_>) -> Result<(), Error> {
        if !batch.side {
            self.last_batch_bytes
                .store(batch.wb.size_in_bytes(), Ordering::Relaxed);
        }
        self.db.write_opt(batch.wb, &self.write_opts)?;
        Ok(())
    }

    /// Reads the newest committed value (for the single writer; the API uses [`Reader`]).
    pub fn get<T: Table>(&self, key: &T::Key) -> Result<Option<T::Value>, Error> {
        match self.db.get_pinned_cf(self.cf::<T>(), key.encode())? {
            Some(bytes) => Ok(Some(T::decode_value(key, &bytes)?)),
            None => Ok(None),
        }
    }

    /// Whether a key is present.
    pub fn contains<T: Table>(&self, key: &T::Key) -> Result<bool, Error> {
        Ok(self
            .db
            .get_pinned_cf(self.cf::<T>(), key.encode())?
            .is_some())
    }

    /// The directory the database lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A consistent view of one committed state; every API request uses one.
    pub fn reader(&self) -> Reader<'_> {
        self.reader_with(None)
    }

    /// A reader that may touch at most `rows` rows (a get, a key of a
    /// multi-get, an iterator step): beyond that every read fails with
    /// [`Error::OverBudget`]. For callers that try small work where it is
    /// cheapest and move anything bigger elsewhere.
    pub fn reader_with_row_budget(&self, rows: u64) -> Reader<'_> {
        self.reader_limited(Some(rows), None)
    }

    /// A reader with an optional row budget (see
    /// [`Db::reader_with_row_budget`]) and an optional deadline: past the
    /// deadline reads fail with [`Error::DeadlineExceeded`] (the clock is
    /// looked at every few rows), so work whose caller has given up stops.
    pub fn reader_limited(&self, rows: Option<u64>, deadline: Option<Instant>) -> Reader<'_> {
        let budget = (rows.is_some() || deadline.is_some()).then(|| {
            Arc::new(RowBudget {
                limit: rows.unwrap_or(u64::MAX),
                used: AtomicU64::new(0),
                deadline,
                expired: AtomicBool::new(false),
            })
        });
        self.reader_with(budget)
    }

    fn reader_with(&self, budget: Option<Arc<RowBudget>>) -> Reader<'_> {
        let guard = self
            .catch_up_lock
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Reader {
            db: self,
            snapshot: (!self.follower).then(|| self.db.snapshot()),
            budget,
            _guard: guard,
        }
    }

    /// The ingest cursor (all zero for a new database).
    pub fn cursor(&self) -> Result<IngestCursor, Error> {
        self.reader().cursor()
    }

    /// Compacts every table (after a bulk import, before measuring size).
    pub fn compact(&self) {
        for name in tables::all().into_iter().map(|t| t.name) {
            if let Some(cf) = self.db.cf_handle(name) {
                self.db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
            }
        }
    }

    /// Compacts every table down to its last level, the last level
    /// rewritten too (tombstones and superseded values dropped): what a
    /// database should get once after a backfill. `on_table` is told each
    /// table's name as it starts. Long (it rewrites every file); readers
    /// may go on meanwhile.
    pub fn compact_fully(&self, mut on_table: impl FnMut(&str)) -> Result<(), Error> {
        self.flush()?;
        let mut opts = rocksdb::CompactOptions::default();
        opts.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::ForceOptimized);
        opts.set_exclusive_manual_compaction(true);
        opts.set_change_level(false);
        for name in tables::all().into_iter().map(|t| t.name) {
            on_table(name);
            if let Some(cf) = self.db.cf_handle(name) {
                self.db
                    .compact_range_cf_opt(cf, None::<&[u8]>, None::<&[u8]>, &opts);
            }
        }
        Ok(())
    }

    /// Flushes memtables to SST files so that on-disk sizes are meaningful.
    pub fn flush(&self) -> Result<(), Error> {
        for name in tables::all().into_iter().map(|t| t.name) {
            if let Some(cf) = self.db.cf_handle(name) {
                self.db.flush_cf(cf)?;
            }
        }
        Ok(())
    }

    /// Row counts, byte sizes and a content digest for every table.
    /// A RocksDB integer property (`rocksdb.cur-size-all-mem-tables`,
    /// `rocksdb.total-sst-files-size`, …) summed over every table.
    pub fn property_sum(&self, name: &str) -> Result<u64, Error> {
        let mut total = 0u64;
        for table in tables::all() {
            let cf = self.db.cf_handle(table.name).expect("table exists");
            total += self.db.property_int_value_cf(cf, name)?.unwrap_or(0);
        }
        Ok(total)
    }

    /// Every (key, value) of table `name`, in key order, as stored (a
    /// snapshot's rows). A follower's view stays put between catch-ups.
    pub(crate) fn for_each_raw(
        &self,
        name: &str,
        mut f: impl FnMut(&[u8], &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let cf = self
            .db
            .cf_handle(name)
            .ok_or(Error::Corrupt("no such table"))?;
        let mut it = self.db.raw_iterator_cf(cf);
        it.seek_to_first();
        while it.valid() {
            f(it.key().unwrap_or(&[]), it.value().unwrap_or(&[]))?;
            it.next();
        }
        it.status()?;
        Ok(())
    }

    /// Writes raw rows into table `name` without the write-ahead log: a
    /// restore writes into a directory of its own and flushes at its end.
    pub(crate) fn put_raw_unlogged(
        &self,
        name: &str,
        rows: &[(Vec<u8>, Vec<u8>)],
    ) -> Result<(), Error> {
        let cf = self
            .db
            .cf_handle(name)
            .ok_or(Error::Corrupt("no such table"))?;
        let mut wb = WriteBatch::default();
        for (k, v) in rows {
            wb.put_cf(cf, k, v);
        }
        let mut opts = WriteOptions::default();
        opts.disable_wal(true);
        self.db.write_opt(wb, &opts)?;
        Ok(())
    }

    pub fn stats(&self) -> Result<Vec<TableStats>, Error> {
        let snapshot = self.db.snapshot();
        let mut out = Vec::new();
        for name in tables::all().into_iter().map(|t| t.name) {
            let cf = self.db.cf_handle(name).expect("table exists");
            let mut ro = ReadOptions::default();
            ro.set_snapshot(&snapshot);
            let mut it = self.db.raw_iterator_cf_opt(cf, ro);
            it.seek_to_first();
            let mut s = TableStats {
                name,
                rows: 0,
                key_bytes: 0,
                value_bytes: 0,
                digest: Fnv64::default(),
                sst_bytes: self
                    .db
                    .property_int_value_cf(cf, "rocksdb.total-sst-files-size")?
                    .unwrap_or(0),
            };
            while it.valid() {
                let (k, v) = (it.key().unwrap_or(&[]), it.value().unwrap_or(&[]));
                s.rows += 1;
                s.key_bytes += k.len() as u64;
                s.value_bytes += v.len() as u64;
                s.digest.write_framed(k);
                s.digest.write_framed(v);
                it.next();
            }
            it.status()?;
            out.push(s);
        }
        Ok(out)
    }
}

/// What one table holds.
#[derive(Debug, Clone)]
pub struct TableStats {
    pub name: &'static str,
    pub rows: u64,
    pub key_bytes: u64,
    pub value_bytes: u64,
    /// Size of the table's SST files (after a flush/compaction).
    pub sst_bytes: u64,
    /// FNV-1a over every (key, value), in order: equal digests mean equal content.
    pub digest: Fnv64,
}

/// A small, stable content hash (FNV-1a, 64-bit) with length framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv64(pub u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub(crate) fn write_framed(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_be_bytes());
        self.write(bytes);
    }
}

/// Rows to commit together; built by the index, applied by [`Db::write`].
pub struct Batch<'a> {
    db: &'a Db,
    wb: WriteBatch,
    /// Made by [`Db::side_batch`].
    side: bool,
}

impl Batch<'_> {
    pub fn put<T: Table>(&mut self, key: &T::Key, value: &T::Value) {
        self.wb
            .put_cf(self.db.cf::<T>(), key.encode(), T::encode_value(value));
    }

    /// Adds rows encoded elsewhere (see [`EncodedRows`]).
    pub fn append(&mut self, rows: EncodedRows) {
        for table in &rows.tables {
            let cf = self
                .db
                .db
                .cf_handle(table.name)
                .expect("every table is created at open");
            let mut at = 0;
            for &(key_len, value_len) in &table.rows {
                let key_end = at + key_len as usize;
                if value_len == DELETED {
                    self.wb.delete_cf(cf, &table.bytes[at..key_end]);
                    at = key_end;
                    continue;
                }
                let value_end = key_end + (value_len & !MERGED) as usize;
                let (key, value) = (&table.bytes[at..key_end], &table.bytes[key_end..value_end]);
                if value_len & MERGED != 0 {
                    self.wb.merge_cf(cf, key, value);
                } else {
                    self.wb.put_cf(cf, key, value);
                }
                at = value_end;
            }
        }
    }

    pub fn delete<T: Table>(&mut self, key: &T::Key) {
        self.wb.delete_cf(self.db.cf::<T>(), key.encode());
    }

    /// Moves the reference count of a [`crate::Counted`] row by `delta`
    /// without reading it (a merge operand; the row must exist, or be put
    /// earlier in this batch).
    pub fn add_refs<T: Table<Value = crate::Counted>>(&mut self, key: &T::Key, delta: i32) {
        self.wb.merge_cf(
            self.db.cf::<T>(),
            key.encode(),
            crate::codec::count_delta(delta),
        );
    }
}

/// Rows encoded ahead of their batch, on any thread and without the
/// database, so that the encoding of a big unit can run in parallel while
/// the one writer only appends and commits ([`Batch::append`]). Rows are
/// kept per table, back to back in one buffer each, so that appending looks
/// each column family up once and inserts a table's rows together; a
/// table's rows (and deletes) keep their order, which is all a batch's
/// order means across column families.
#[derive(Debug, Default)]
pub struct EncodedRows {
    tables: Vec<TableRows>,
    /// The table of the latest put: rows come in a repeating table order,
    /// so the next put most often goes to it or to the one after it.
    last: usize,
}

/// Write-ahead log kept at most before the tables that pin its oldest
/// file are flushed (see [`Db::open`]).
const MAX_TOTAL_WAL_BYTES: u64 = if cfg!(test) { 4 << 20 } else { 512 << 20 };

/// The value length that marks a row of [`EncodedRows`] as a delete.
const DELETED: u32 = u32::MAX;
/// The bit of a value length that marks the value as a merge operand.
const MERGED: u32 = 1 << 31;

#[derive(Debug)]
struct TableRows {
    name: &'static str,
    /// Key and value bytes of every row, back to back.
    bytes: Vec<u8>,
    /// Key and value length of every row ([`DELETED`]: a delete, key only;
    /// with [`MERGED`]: a merge operand).
    rows: Vec<(u32, u32)>,
}

impl EncodedRows {
    pub fn put<T: Table>(&mut self, key: &T::Key, value: &T::Value) {
        self.put_encoded::<T>(&key.encode(), &T::encode_value(value));
    }

    /// A row of a table whose values are stored as they are, from borrowed bytes.
    pub fn put_raw<T: Table<Value = RawBytes>>(&mut self, key: &T::Key, value: &[u8]) {
        self.put_encoded::<T>(&key.encode(), value);
    }

    /// Sets the record of a [`Linked`] row, keeping its ids (a merge
    /// operand: the latest record written wins, as a put's would).
    pub fn put_linked_record<T, V>(&mut self, key: &T::Key, record: &V)
    where
        T: Table<Value = Linked<V>>,
        V: Value + Clone,
    {
        // A row of the record alone encodes as the operand that sets it.
        let operand = T::encode_value(&Linked {
            record: Some(record.clone()),
            ends: [Vec::new(), Vec::new()],
        });
        self.merge_encoded::<T>(&key.encode(), &operand);
    }

    /// Adds `id` at `end` (0 or 1) of a [`Linked`] row without reading it.
    pub fn link<T, V>(&mut self, key: &T::Key, end: usize, id: u64)
    where
        T: Table<Value = Linked<V>>,
    {
        let operand = crate::linked::link_operand(end, id);
        self.merge_encoded::<T>(&key.encode(), &operand);
    }

    fn merge_encoded<T: Table>(&mut self, key: &[u8], operand: &[u8]) {
        let table = self.table(T::NAME);
        table.bytes.extend_from_slice(key);
        table.bytes.extend_from_slice(operand);
        debug_assert!(operand.len() < MERGED as usize);
        table
            .rows
            .push((key.len() as u32, operand.len() as u32 | MERGED));
    }

    /// Whether it holds no row.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(|t| t.rows.is_empty())
    }

    /// About the bytes a write batch takes for these rows: theirs, and a
    /// record header each (type, column family, two lengths).
    pub fn batch_bytes(&self) -> usize {
        let header = 12;
        let rows: usize = self.tables.iter().map(|t| t.rows.len()).sum();
        let bytes: usize = self.tables.iter().map(|t| t.bytes.len()).sum();
        bytes + rows * header + header
    }

    /// Deletes a row (of the database, or put earlier in these rows).
    pub fn delete<T: Table>(&mut self, key: &T::Key) {
        let key = key.encode();
        let table = self.table(T::NAME);
        table.bytes.extend_from_slice(&key);
        table.rows.push((key.len() as u32, DELETED));
    }

    /// Adds `other`'s rows after these, table by table.
    pub fn extend(&mut self, other: EncodedRows) {
        for t in other.tables {
            let table = self.table(t.name);
            if table.rows.is_empty() {
                *table = t;
            } else {
                table.bytes.extend_from_slice(&t.bytes);
                table.rows.extend_from_slice(&t.rows);
            }
        }
    }

    fn put_encoded<T: Table>(&mut self, key: &[u8], value: &[u8]) {
        let table = self.table(T::NAME);
        table.bytes.extend_from_slice(key);
        table.bytes.extend_from_slice(value);
        debug_assert!(value.len() < MERGED as usize);
        table.rows.push((key.len() as u32, value.len() as u32));
    }

    fn table(&mut self, name: &'static str) -> &mut TableRows {
        let same = |t: &TableRows| std::ptr::eq(t.name, name) || t.name == name;
        let next = self.last + 1;
        let at = match (self.tables.get(self.last), self.tables.get(next)) {
            (Some(t), _) if same(t) => self.last,
            (_, Some(t)) if same(t) => next,
            _ => match self.tables.iter().position(same) {
                Some(i) => i,
                None => {
                    self.tables.push(TableRows {
                        name,
                        bytes: Vec::new(),
                        rows: Vec::new(),
                    });
                    self.tables.len() - 1
                }
            },
        };
        self.last = at;
        &mut self.tables[at]
    }
}

/// Reads from one consistent state: a RocksDB snapshot on the writer, the
/// catch-up lock on a follower.
pub struct Reader<'a> {
    db: &'a Db,
    snapshot: Option<Snapshot<'a>>,
    budget: Option<Arc<RowBudget>>,
    _guard: RwLockReadGuard<'a, ()>,
}

/// Rows a budgeted reader may still touch, and the time it may read until
/// (shared with its iterators).
#[derive(Debug)]
struct RowBudget {
    limit: u64,
    used: AtomicU64,
    deadline: Option<Instant>,
    /// The deadline was seen passed: every read from now on fails.
    expired: AtomicBool,
}

/// Rows read between two looks at the clock: a row costs a microsecond or
/// more, so a read stops within a few tens of microseconds of its deadline
/// at a sixteenth of the clock reads.
const DEADLINE_STRIDE: u64 = 16;

fn charge(budget: &Option<Arc<RowBudget>>, rows: u64) -> Result<(), Error> {
    let Some(b) = budget else {
        return Ok(());
    };
    let before = b.used.fetch_add(rows, Ordering::Relaxed);
    if before.saturating_add(rows) > b.limit {
        return Err(Error::OverBudget);
    }
    if b.expired.load(Ordering::Relaxed) {
        return Err(Error::DeadlineExceeded);
    }
    let crossed = before / DEADLINE_STRIDE != before.saturating_add(rows) / DEADLINE_STRIDE;
    match b.deadline {
        Some(d) if crossed && Instant::now() >= d => {
            b.expired.store(true, Ordering::Relaxed);
            Err(Error::DeadlineExceeded)
        }
        _ => Ok(()),
    }
}

impl<'a> Reader<'a> {
    /// Whether a budgeted reader ran out (its caller's result is incomplete).
    pub fn over_budget(&self) -> bool {
        self.budget
            .as_ref()
            .is_some_and(|b| b.used.load(Ordering::Relaxed) > b.limit)
    }

    /// Spends the rest of the budget: for work that must not run where the
    /// budgeted reader is used. Returns whether the reader had a row budget.
    pub fn exhaust_budget(&self) -> bool {
        match &self.budget {
            Some(b) if b.limit != u64::MAX => {
                b.used.store(b.limit.saturating_add(1), Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    /// The time after which this reader's reads fail, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.budget.as_ref().and_then(|b| b.deadline)
    }

    /// [`Error::DeadlineExceeded`] once the deadline has passed: for work
    /// between reads (decoding, serialising) that must stop in time too.
    pub fn check_deadline(&self) -> Result<(), Error> {
        match self.deadline() {
            Some(d) if Instant::now() >= d => Err(Error::DeadlineExceeded),
            _ => Ok(()),
        }
    }

    fn read_opts(&self) -> ReadOptions {
        let mut ro = ReadOptions::default();
        if let Some(snapshot) = &self.snapshot {
            ro.set_snapshot(snapshot);
        }
        ro
    }

    pub fn get<T: Table>(&self, key: &T::Key) -> Result<Option<T::Value>, Error> {
        charge(&self.budget, 1)?;
        match self
            .db
            .db
            .get_pinned_cf_opt(self.db.cf::<T>(), key.encode(), &self.read_opts())?
        {
            Some(bytes) => Ok(Some(T::decode_value(key, &bytes)?)),
            None => Ok(None),
        }
    }

    /// Point lookups of many keys at once, in the order given.
    pub fn multi_get<T: Table>(&self, keys: &[T::Key]) -> Result<Vec<Option<T::Value>>, Error> {
        charge(&self.budget, keys.len() as u64)?;
        let cf = self.db.cf::<T>();
        let encoded: Vec<Vec<u8>> = keys.iter().map(Key::encode).collect();
        self.db
            .db
            .batched_multi_get_cf_opt(cf, &encoded, false, &self.read_opts())
            .into_iter()
            .zip(keys)
            .map(|(r, key)| match r? {
                Some(bytes) => Ok(Some(T::decode_value(key, &bytes)?)),
                None => Ok(None),
            })
            .collect()
    }

    /// Rows whose key starts with `prefix`, ascending or descending.
    pub fn prefix<T: Table>(&self, prefix: &[u8], descending: bool) -> TableIter<'a, T> {
        self.range::<T>(prefix, prefix_successor(prefix), descending)
    }

    /// Rows with `lower <= key < upper` (upper `None` = to the end).
    pub fn range<T: Table>(
        &self,
        lower: &[u8],
        upper: Option<Vec<u8>>,
        descending: bool,
    ) -> TableIter<'a, T> {
        let mut ro = self.read_opts();
        ro.set_iterate_lower_bound(lower.to_vec());
        if let Some(upper) = upper {
            ro.set_iterate_upper_bound(upper);
        }
        let mut it = self.db.db.raw_iterator_cf_opt(self.db.cf::<T>(), ro);
        if descending {
            it.seek_to_last();
        } else {
            it.seek_to_first();
        }
        TableIter {
            it,
            descending,
            done: false,
            budget: self.budget.clone(),
            _table: PhantomData,
        }
    }

    /// The ingest cursor as of this snapshot.
    pub fn cursor(&self) -> Result<IngestCursor, Error> {
        match self.get::<Meta>(&MetaKey::Cursor)? {
            Some(bytes) => crate::codec::bincode_decode(&bytes),
            None => Ok(IngestCursor::default()),
        }
    }

    /// The complete traces whose actions are not written yet
    /// ([`MetaKey::Unclassified`]).
    pub fn unclassified(&self) -> Result<Vec<[u8; 32]>, Error> {
        match self.get::<Meta>(&MetaKey::Unclassified)? {
            Some(bytes) => crate::codec::bincode_decode(&bytes),
            None => Ok(Vec::new()),
        }
    }

    /// The tx ids (first, one past the last) of the committed unit whose
    /// traces are not assembled yet ([`MetaKey::Unassembled`]).
    pub fn unassembled(&self) -> Result<Option<(u64, u64)>, Error> {
        match self.get::<Meta>(&MetaKey::Unassembled)? {
            Some(bytes) => crate::codec::bincode_decode(&bytes).map(Some),
            None => Ok(None),
        }
    }
}

impl Batch<'_> {
    /// Queues the cursor; it commits with the rows it describes.
    pub fn put_cursor(&mut self, cursor: &IngestCursor) {
        self.put::<Meta>(&MetaKey::Cursor, &crate::codec::bincode_encode(cursor));
    }

    /// Queues the tx ids of the unit whose traces the next batch
    /// assembles (`None`: the key goes); it commits with that unit.
    pub fn put_unassembled(&mut self, txs: Option<(u64, u64)>) {
        match txs {
            Some(range) => {
                self.put::<Meta>(&MetaKey::Unassembled, &crate::codec::bincode_encode(&range))
            }
            None => self.delete::<Meta>(&MetaKey::Unassembled),
        }
    }

    /// Queues the list of complete traces left to classify (none: the key
    /// goes); it commits with the trace rows that settled them.
    pub fn put_unclassified(&mut self, traces: &[[u8; 32]]) {
        if traces.is_empty() {
            self.delete::<Meta>(&MetaKey::Unclassified);
        } else {
            self.put::<Meta>(
                &MetaKey::Unclassified,
                &crate::codec::bincode_encode(&traces.to_vec()),
            );
        }
    }
}

/// The smallest key greater than every key starting with `prefix`.
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut p = prefix.to_vec();
    while let Some(last) = p.pop() {
        if last != 0xff {
            p.push(last + 1);
            return Some(p);
        }
    }
    None
}

/// Typed rows of one table, in key order (or reverse).
pub struct TableIter<'a, T: Table> {
    it: DBRawIteratorWithThreadMode<'a, DB>,
    descending: bool,
    done: bool,
    budget: Option<Arc<RowBudget>>,
    _table: PhantomData<T>,
}

impl<T: Table> Iterator for TableIter<'_, T> {
    type Item = Result<(T::Key, T::Value), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if !self.it.valid() {
            self.done = true;
            return self.it.status().err().map(|e| Err(e.into()));
        }
        if let Err(e) = charge(&self.budget, 1) {
            self.done = true;
            return Some(Err(e));
        }
        let item = (|| {
            let k = T::Key::decode(self.it.key().unwrap_or(&[]))?;
            let v = T::decode_value(&k, self.it.value().unwrap_or(&[]))?;
            Ok((k, v))
        })();
        if self.descending {
            self.it.prev();
        } else {
            self.it.next();
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{AccountLtKey, TxBocs, TxByAccount, TxByHash};
    use tonindex_model::Address;

    /// Reference counts move by merge operands, in one batch or several,
    /// before and after a flush and a full compaction (which fold them
    /// into the row); the row's bytes stay as put.
    #[test]
    fn counted_rows_add_up_their_deltas_across_batches_and_compactions() {
        use crate::tables::Cells;
        use crate::Counted;
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let count = |db: &Db, key: &[u8; 32]| db.get::<Cells>(key).unwrap().map(|c| c.count);
        let (a, b, gone) = ([1; 32], [2; 32], [3; 32]);
        let mut batch = db.batch();
        batch.put::<Cells>(
            &a,
            &Counted {
                count: 1,
                bytes: b"row a".to_vec(),
            },
        );
        batch.add_refs::<Cells>(&a, 2);
        batch.put::<Cells>(
            &b,
            &Counted {
                count: 5,
                bytes: b"row b".to_vec(),
            },
        );
        db.write(batch).unwrap();
        assert_eq!(count(&db, &a), Some(3));
        let mut batch = db.batch();
        batch.add_refs::<Cells>(&a, -1);
        batch.add_refs::<Cells>(&b, -2);
        batch.add_refs::<Cells>(&b, -1);
        db.write(batch).unwrap();
        db.flush().unwrap();
        let mut batch = db.batch();
        batch.add_refs::<Cells>(&a, 4);
        db.write(batch).unwrap();
        assert_eq!((count(&db, &a), count(&db, &b)), (Some(6), Some(2)));
        db.compact_fully(|_| {}).unwrap();
        assert_eq!((count(&db, &a), count(&db, &b)), (Some(6), Some(2)));
        assert_eq!(db.get::<Cells>(&a).unwrap().unwrap().bytes, b"row a");
        // Never below zero; a delta on a row that is not there makes a row
        // without bytes (its reader reports it) instead of failing merges.
        let mut batch = db.batch();
        batch.add_refs::<Cells>(&b, -7);
        batch.add_refs::<Cells>(&gone, 1);
        db.write(batch).unwrap();
        db.compact_fully(|_| {}).unwrap();
        assert_eq!(count(&db, &b), Some(0));
        let stray = db.get::<Cells>(&gone).unwrap().unwrap();
        assert_eq!((stray.count, stray.bytes.len()), (1, 0));
    }

    #[test]
    fn prefix_scan_both_directions_and_schema_check() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let a = Address {
            workchain: 0,
            id: [1; 32],
        };
        let b = Address {
            workchain: 0,
            id: [2; 32],
        };
        let mut batch = db.batch();
        for (i, lt) in [5u64, 1, 3].into_iter().enumerate() {
            batch.put::<TxByAccount>(&AccountLtKey { account: a, lt }, &(i as u64));
        }
        batch.put::<TxByAccount>(&AccountLtKey { account: b, lt: 2 }, &9);
        db.write(batch).unwrap();

        let r = db.reader();
        let asc: Vec<u64> = r
            .prefix::<TxByAccount>(&AccountLtKey::prefix(&a), false)
            .map(|x| x.unwrap().0.lt)
            .collect();
        assert_eq!(asc, vec![1, 3, 5]);
        let desc: Vec<u64> = r
            .prefix::<TxByAccount>(&AccountLtKey::prefix(&a), true)
            .map(|x| x.unwrap().0.lt)
            .collect();
        assert_eq!(desc, vec![5, 3, 1]);
        drop(r);

        budgeted_readers(&db, a, b);
        drop(db);

        // A database written by another schema version is refused, not misread.
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let mut batch = db.batch();
        batch.put::<Meta>(
            &MetaKey::SchemaVersion,
            &Value::encode(&(SCHEMA_VERSION + 1)),
        );
        db.write(batch).unwrap();
        drop(db);
        let err = Db::open(dir.path(), &DbOptions::default()).err().unwrap();
        assert!(matches!(err, Error::SchemaMismatch { .. }), "{err}");
    }

    /// A database of a schema this build reads as it is opens, and opening
    /// it for writing records the current version; an older one is refused.
    #[test]
    fn schemas_read_as_they_are_open_and_are_recorded_current() {
        let dir = tempfile::tempdir().unwrap();
        let set = |version: u32| {
            let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
            let mut batch = db.batch();
            batch.put::<Meta>(&MetaKey::SchemaVersion, &Value::encode(&version));
            db.write(batch).unwrap();
        };
        let version = |db: &Db| {
            let bytes = db.get::<Meta>(&MetaKey::SchemaVersion).unwrap().unwrap();
            <u32 as Value>::decode(&bytes).unwrap()
        };
        for &old in SCHEMA_READ_AS_IS {
            set(old);
            let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
            assert_eq!(version(&db), SCHEMA_VERSION);
        }
        set(SCHEMA_VERSION - SCHEMA_READ_AS_IS.len() as u32 - 1);
        let err = Db::open(dir.path(), &DbOptions::default()).err().unwrap();
        assert!(matches!(err, Error::SchemaMismatch { .. }), "{err}");
    }

    /// 4 rows = a get, then an iterator's 3 steps; the next read fails and
    /// the reader says it ran out.
    fn budgeted_readers(db: &Db, a: Address, b: Address) {
        let r = db.reader_with_row_budget(4);
        let key = AccountLtKey { account: b, lt: 2 };
        assert_eq!(r.get::<TxByAccount>(&key).unwrap(), Some(9));
        let rows: Vec<_> = r
            .prefix::<TxByAccount>(&AccountLtKey::prefix(&a), false)
            .collect();
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(Result::is_ok));
        assert!(!r.over_budget());
        assert!(matches!(
            r.multi_get::<TxByAccount>(&[key]),
            Err(Error::OverBudget)
        ));
        assert!(r.over_budget());
        let r = db.reader_with_row_budget(2);
        let rows: Vec<_> = r
            .prefix::<TxByAccount>(&AccountLtKey::prefix(&a), false)
            .collect();
        assert_eq!(rows.len(), 3, "two rows, then the error ends the scan");
        assert!(matches!(rows[2], Err(Error::OverBudget)));
        let r = db.reader_with_row_budget(100);
        assert!(r.exhaust_budget() && r.over_budget());
        assert!(!db.reader().exhaust_budget());

        // A deadline stops reads once it has passed, however many rows are left.
        let soon = Instant::now() + std::time::Duration::from_millis(50);
        let r = db.reader_limited(None, Some(soon));
        let key = AccountLtKey { account: b, lt: 2 };
        assert_eq!(r.get::<TxByAccount>(&key).unwrap(), Some(9));
        assert!(r.check_deadline().is_ok() && !r.exhaust_budget());
        std::thread::sleep(std::time::Duration::from_millis(60));
        // The clock is read every DEADLINE_STRIDE rows: one of the next
        // that many reads fails, and every read after it.
        let failed_at = (0..DEADLINE_STRIDE)
            .position(|_| r.get::<TxByAccount>(&key).is_err())
            .expect("a read past the deadline fails");
        assert!(failed_at < DEADLINE_STRIDE as usize);
        assert!(matches!(
            r.get::<TxByAccount>(&key),
            Err(Error::DeadlineExceeded)
        ));
        let rows: Vec<_> = r
            .prefix::<TxByAccount>(&AccountLtKey::prefix(&a), false)
            .collect();
        assert!(matches!(rows[..], [Err(Error::DeadlineExceeded)]));
        assert!(matches!(r.check_deadline(), Err(Error::DeadlineExceeded)));
        assert_eq!(r.deadline(), Some(soon));
    }

    #[test]
    fn follower_sees_commits_after_catch_up_and_readers_stay_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        assert!(matches!(
            Db::open_follower(dir.path(), scratch.path()),
            Err(Error::Missing(_))
        ));
        let writer = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let key = |lt| AccountLtKey {
            account: Address {
                workchain: 0,
                id: [7; 32],
            },
            lt,
        };
        let mut batch = writer.batch();
        batch.put::<TxByAccount>(&key(1), &10);
        writer.write(batch).unwrap();

        let follower = Db::open_follower(dir.path(), scratch.path()).unwrap();
        assert_eq!(
            follower.reader().prefix::<TxByAccount>(&[], false).count(),
            1
        );
        assert_eq!(
            follower.reader().get::<TxByAccount>(&key(1)).unwrap(),
            Some(10)
        );
        let mut batch = writer.batch();
        batch.put::<TxByAccount>(&key(2), &20);
        writer.write(batch).unwrap();
        assert_eq!(follower.reader().get::<TxByAccount>(&key(2)).unwrap(), None);

        // A catch-up waits for the readers that are open.
        let reader = follower.reader();
        std::thread::scope(|s| {
            let catching_up = s.spawn(|| follower.catch_up().unwrap());
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert_eq!(reader.get::<TxByAccount>(&key(2)).unwrap(), None);
            drop(reader);
            catching_up.join().unwrap();
        });
        assert_eq!(
            follower.reader().get::<TxByAccount>(&key(2)).unwrap(),
            Some(20)
        );
    }

    /// Rows encoded ahead land in their tables as `put` would write them,
    /// a key written twice keeping its later value, and likewise on a
    /// database opened as the importer opens it (vector memtables).
    #[test]
    fn encoded_rows_append_like_puts() {
        let lt_key = |lt| AccountLtKey {
            account: Address {
                workchain: -1,
                id: [3; 32],
            },
            lt,
        };
        for (write_only_memtables, scratch, bulk) in [
            (false, false, false),
            (true, false, false),
            (true, true, false),
            (true, false, true),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let db = Db::open(
                dir.path(),
                &DbOptions {
                    sync_writes: false,
                    write_only_memtables,
                    scratch,
                    bulk,
                },
            )
            .unwrap();
            let mut rows = EncodedRows::default();
            for i in 0..10u64 {
                rows.put::<TxByHash>(&[i as u8; 32], &i);
                rows.put_raw::<TxBocs>(&i, &[i as u8; 5]);
                if i % 3 == 0 {
                    rows.put::<TxByAccount>(&lt_key(i), &(i * 10));
                }
            }
            rows.put::<TxByHash>(&[4; 32], &44);
            let mut batch = db.batch();
            batch.append(rows);
            db.write(batch).unwrap();
            // Read from the memtables, then from the last level.
            for compacted in [false, true] {
                if compacted {
                    db.compact_fully(|_| {}).unwrap();
                }
                check(&db);
            }
        }
        fn check(db: &Db) {
            let lt_key = |lt| AccountLtKey {
                account: Address {
                    workchain: -1,
                    id: [3; 32],
                },
                lt,
            };
            let r = db.reader();
            for i in 0..10u64 {
                let want = if i == 4 { 44 } else { i };
                assert_eq!(r.get::<TxByHash>(&[i as u8; 32]).unwrap(), Some(want));
                assert_eq!(
                    r.get::<TxBocs>(&i).unwrap(),
                    Some(RawBytes(vec![i as u8; 5]))
                );
                let by_lt = r.get::<TxByAccount>(&lt_key(i)).unwrap();
                assert_eq!(by_lt, (i % 3 == 0).then_some(i * 10));
            }
        }
    }

    /// A bulk import lowers every table's last-level zstd level and keeps
    /// the dictionaries of the tables that have them; opened again without
    /// it, the database is back at the full level (as RocksDB records the
    /// options it opened with).
    #[test]
    fn bulk_lowers_the_last_level_only_while_it_runs() {
        fn last_level(dir: &Path, table: &str) -> String {
            let mut files: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("OPTIONS-")
                })
                .collect();
            files.sort();
            let text = std::fs::read_to_string(files.last().unwrap()).unwrap();
            let section = text
                .split("[CFOptions \"")
                .find(|s| s.starts_with(&format!("{table}\"")))
                .unwrap();
            let line = section
                .lines()
                .find(|l| l.trim_start().starts_with("bottommost_compression_opts="))
                .unwrap();
            let field = |name: &str| {
                line.split(['{', ';', '}'])
                    .find_map(|f| f.strip_prefix(&format!("{name}=")))
                    .unwrap()
                    .to_string()
            };
            format!("level {} dict {}", field("level"), field("max_dict_bytes"))
        }
        let dir = tempfile::tempdir().unwrap();
        let bulk = DbOptions {
            bulk: true,
            ..DbOptions::default()
        };
        drop(Db::open(dir.path(), &bulk).unwrap());
        assert_eq!(last_level(dir.path(), "tx_bocs"), "level 3 dict 65536");
        assert_eq!(last_level(dir.path(), "cells"), "level 3 dict 65536");
        assert_eq!(last_level(dir.path(), "tx_by_hash"), "level 3 dict 0");
        drop(Db::open(dir.path(), &DbOptions::default()).unwrap());
        assert_eq!(last_level(dir.path(), "tx_bocs"), "level 9 dict 65536");
        assert_eq!(last_level(dir.path(), "tx_by_hash"), "level 9 dict 0");
    }

    /// Deletes in encoded rows keep their place among the table's puts:
    /// a row deleted after its put is gone, one put after its delete stays,
    /// a stored row deleted is gone; `extend` appends table by table.
    #[test]
    fn encoded_rows_delete_in_order_and_extend() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let mut batch = db.batch();
        batch.put::<TxByHash>(&[9; 32], &9);
        db.write(batch).unwrap();

        let mut first = EncodedRows::default();
        first.put::<TxByHash>(&[1; 32], &1);
        first.delete::<TxByHash>(&[1; 32]);
        first.delete::<TxByHash>(&[2; 32]);
        first.put_raw::<TxBocs>(&5, &[5; 3]);
        let mut second = EncodedRows::default();
        second.put::<TxByHash>(&[2; 32], &2);
        second.delete::<TxByHash>(&[9; 32]);
        second.put::<TxByHash>(&[3; 32], &3);
        second.delete::<TxBocs>(&5);
        first.extend(second);
        let mut batch = db.batch();
        batch.append(first);
        db.write(batch).unwrap();

        let r = db.reader();
        assert_eq!(r.get::<TxByHash>(&[1; 32]).unwrap(), None);
        assert_eq!(r.get::<TxByHash>(&[2; 32]).unwrap(), Some(2));
        assert_eq!(r.get::<TxByHash>(&[3; 32]).unwrap(), Some(3));
        assert_eq!(r.get::<TxByHash>(&[9; 32]).unwrap(), None);
        assert_eq!(r.get::<TxBocs>(&5).unwrap(), None);
    }

    /// A message row's record and ids come in separate merge operands, in
    /// one batch or several, before and after a flush and a full
    /// compaction: the latest record wins, each end's ids come back
    /// ascending and once.
    #[test]
    fn linked_rows_fold_records_and_ids_across_batches_and_compactions() {
        use crate::tables::{Messages, RECEIVED_BY, SENT_BY};
        use tonindex_model::{MessageRecord, MsgKind};
        let record = |lt| MessageRecord {
            hash: [7; 32],
            kind: MsgKind::Internal,
            source: Some(Address {
                workchain: 0,
                id: [1; 32],
            }),
            destination: None,
            value: None,
            fwd_fee: None,
            ihr_fee: None,
            extra_flags: None,
            import_fee: None,
            created_lt: Some(lt),
            created_at: None,
            ihr_disabled: None,
            bounce: None,
            bounced: None,
            opcode: None,
            body_hash: [2; 32],
            init_state_hash: None,
            metadata: None,
            hash_norm: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let write = |f: &dyn Fn(&mut EncodedRows)| {
            let mut rows = EncodedRows::default();
            f(&mut rows);
            let mut batch = db.batch();
            batch.append(rows);
            db.write(batch).unwrap();
        };
        write(&|rows| {
            rows.put_linked_record::<Messages, _>(&[7; 32], &record(1));
            rows.link::<Messages, _>(&[7; 32], SENT_BY, 10);
        });
        db.flush().unwrap();
        write(&|rows| {
            rows.link::<Messages, _>(&[7; 32], RECEIVED_BY, 12);
            rows.link::<Messages, _>(&[7; 32], RECEIVED_BY, 11);
        });
        let check = |lt: u64, received: &[u64]| {
            let row = db.reader().get::<Messages>(&[7; 32]).unwrap().unwrap();
            assert_eq!(row.record, Some(record(lt)));
            assert_eq!(row.at(RECEIVED_BY), received);
            assert_eq!(row.at(SENT_BY), &[10]);
        };
        check(1, &[11, 12]);
        db.compact_fully(|_| {}).unwrap();
        check(1, &[11, 12]);
        write(&|rows| {
            rows.put_linked_record::<Messages, _>(&[7; 32], &record(2));
            rows.link::<Messages, _>(&[7; 32], RECEIVED_BY, 11);
        });
        check(2, &[11, 12]);
        db.compact_fully(|_| {}).unwrap();
        check(2, &[11, 12]);
        assert_eq!(db.reader().get::<Messages>(&[8; 32]).unwrap(), None);
    }

    /// Records that repeat their key (messages, traces, actions) are stored
    /// without those bytes and read back whole, by every kind of read.
    #[test]
    fn keyed_records_are_stored_without_their_key() {
        use crate::tables::{Actions, HashMsgKey, Messages, Traces};
        use tonindex_model::{ActionRecord, ClassificationState, MessageRecord, MsgKind};
        use tonindex_model::{TraceRecord, TraceState};
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let (msg, trace, action) = ([0xa1; 32], [0xb2; 32], [0xc3; 32]);
        let message = MessageRecord {
            hash: msg,
            kind: MsgKind::ExternalIn,
            source: None,
            destination: None,
            value: None,
            fwd_fee: None,
            ihr_fee: None,
            extra_flags: None,
            import_fee: Some(5),
            created_lt: None,
            created_at: None,
            ihr_disabled: None,
            bounce: None,
            bounced: None,
            opcode: Some(7),
            body_hash: [2; 32],
            init_state_hash: None,
            metadata: None,
            hash_norm: None,
        };
        let trace_row = TraceRecord {
            trace_id: trace,
            external_hash: Some(msg),
            external_hash_norm: None,
            mc_seqno_start: Some(1),
            mc_seqno_end: Some(2),
            start_lt: 10,
            start_utime: 11,
            end_lt: 12,
            end_utime: 13,
            state: TraceState::Complete,
            transactions: 1,
            messages: 1,
            pending_messages: 0,
            classification: ClassificationState::Ok,
        };
        let action_row = ActionRecord {
            action_id: action,
            trace_id: trace,
            kind: "call_contract".into(),
            start_lt: 10,
            end_lt: 12,
            start_utime: 11,
            end_utime: 13,
            success: true,
            tx_hashes: vec![trace],
            accounts: Vec::new(),
            source: None,
            source_secondary: None,
            destination: None,
            destination_secondary: None,
            asset: None,
            asset_secondary: None,
            opcode: Some(7),
            value: None,
            amount: None,
            ancestor_type: Vec::new(),
            parent_action_id: None,
            data: "{}".into(),
        };
        let action_key = HashMsgKey {
            hash: trace,
            msg_hash: action,
        };
        let mut rows = EncodedRows::default();
        rows.put_linked_record::<Messages, _>(&msg, &message);
        rows.put::<Traces>(&trace, &trace_row);
        let mut batch = db.batch();
        batch.append(rows);
        batch.put::<Actions>(&action_key, &action_row);
        db.write(batch).unwrap();
        // The stored bytes hold none of the key's hashes (the trace's
        // external hash and the action's transaction are other fields).
        let raw = |cf: &ColumnFamily, key: &[u8]| db.db.get_cf(cf, key).unwrap().unwrap();
        let holds = |bytes: &[u8], h: &[u8; 32]| bytes.windows(32).any(|w| w == h);
        assert!(!holds(&raw(db.cf::<Messages>(), &msg), &msg));
        assert!(!holds(&raw(db.cf::<Traces>(), &trace), &trace));
        let stored = raw(db.cf::<Actions>(), &action_key.encode());
        assert!(!holds(&stored, &action));
        assert_eq!(stored.windows(32).filter(|w| *w == trace).count(), 1);
        let r = db.reader();
        assert_eq!(
            r.get::<Messages>(&msg).unwrap().unwrap().record,
            Some(message.clone())
        );
        let found = r
            .multi_get::<Messages>(&[msg])
            .unwrap()
            .pop()
            .unwrap()
            .unwrap();
        assert_eq!(found.record, Some(message));
        assert_eq!(db.get::<Traces>(&trace).unwrap(), Some(trace_row.clone()));
        let (_, scanned) = r.prefix::<Traces>(&[], false).next().unwrap().unwrap();
        assert_eq!(scanned, trace_row);
        let (_, scanned) = r.prefix::<Actions>(&trace, false).next().unwrap().unwrap();
        assert_eq!(scanned, action_row);
    }

    /// A table written once at the start does not pin the write-ahead log:
    /// once a full memtable closes a log file, past the cap (4 MiB under
    /// test) the tables holding the oldest log flush and it is deleted.
    /// Without the cap all 96 MiB stay in logs.
    #[test]
    fn write_ahead_log_stays_near_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let mut batch = db.batch();
        batch.put::<TxByHash>(&[1; 32], &1);
        db.write(batch).unwrap();
        for i in 0..96u64 {
            let mut rows = EncodedRows::default();
            for j in 0..64u64 {
                rows.put_raw::<TxBocs>(&(i * 64 + j), &[j as u8; 16 << 10]);
            }
            let mut batch = db.batch();
            batch.append(rows);
            db.write(batch).unwrap();
        }
        let logs = || -> u64 {
            std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap())
                .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
                .map(|e| e.metadata().unwrap().len())
                .sum()
        };
        // Flushes, and the deletion of the logs they free, run in the
        // background.
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while logs() >= 64 << 20 && Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(logs() < 64 << 20, "{} bytes of logs", logs());
        assert_eq!(db.reader().get::<TxByHash>(&[1; 32]).unwrap(), Some(1));
    }

    #[test]
    fn successor_of_prefix() {
        assert_eq!(prefix_successor(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(prefix_successor(&[1, 0xff]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xff, 0xff]), None);
    }
}
