//! Opening the database, atomic batches, snapshot reads and statistics.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
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
pub const SCHEMA_VERSION: u32 = 37;

/// Older schema versions whose databases this build reads exactly as they
/// are, so that opening one for writing only records [`SCHEMA_VERSION`].
/// None now: 37 keeps a transaction's trace tag in its place (36 in
/// `trace_of_tx`), 36 keys `messages` by hash tags (35 by whole hashes), lists
/// a trace's transactions in its record (35 in `tx_by_trace`) and names
/// an action's accounts by number, 35 keys `tx_bocs` by account number and
/// lt (34 by tx id),
/// and 31–33 keyed `tx_by_hash` and `action_by_id` by whole hashes, which
/// 34 keys by their tags. (32 read 31 so: it only blanked the key fields
/// of records, which reading overwrites from the key either way.)
pub const SCHEMA_READ_AS_IS: &[u32] = &[];

/// Whether this build reads a database of schema `found`.
fn schema_readable(found: u32) -> bool {
    found == SCHEMA_VERSION || SCHEMA_READ_AS_IS.contains(&found)
}

/// A follower's reader with a row budget of at most this many rows is
/// short: it passes a catch-up that waits for the readers (see
/// [`gate`]), where others queue behind it.
const SHORT_READER_ROWS: u64 = 1024;

/// Every table's name, in declaration order.
fn table_names() -> Vec<&'static str> {
    tables::all().into_iter().map(|t| t.name).collect()
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
    /// RocksDB has no snapshots on a follower, so a follower's readers
    /// pass this gate and [`Db::catch_up`] runs with none inside: a reader
    /// sees one committed state for its whole life either way.
    gate: gate::CatchUpGate,
    follower: bool,
    /// Every table's name, for the touches of [`Db::touch_every_table`].
    tables: Vec<&'static str>,
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
            gate: gate::CatchUpGate::default(),
            follower: false,
            tables: table_names(),
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
        // Each catch-up loads the tables' new files with this many threads,
        // started afresh for every table even when no file is new: 16 (the
        // default) over our tables made a catch-up take 36 ms, during which
        // no request could read; with one, 0.5 ms. Opening 3,000 files at
        // start took as long either way (63 ms, warm cache).
        opts.set_max_file_opening_threads(1);
        let cfs = tables::all()
            .into_iter()
            .map(|t| ColumnFamilyDescriptor::new(t.name, t.options));
        let db = DB::open_cf_descriptors_as_secondary(&opts, path, scratch, cfs)?;
        let this = Db {
            db,
            path: path.to_path_buf(),
            write_opts: WriteOptions::default(),
            gate: gate::CatchUpGate::default(),
            follower: true,
            tables: table_names(),
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
        self.gate.catch_up(|| self.db.try_catch_up_with_primary())?;
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
    ///
    /// The batch also deletes the empty key (which no table's key encodes
    /// to) in every table: see [`Db::touch_every_table`].
    pub fn write(&self, mut batch: Batch<'_>) -> Result<(), Error> {
        if !batch.side {
            self.last_batch_bytes
                .store(batch.wb.size_in_bytes(), Ordering::Relaxed);
        }
        self.touch_every_table(&mut batch.wb);
        self.db.write_opt(batch.wb, &self.write_opts)?;
        Ok(())
    }

    /// Adds a record for every table to `wb`: the delete of the empty key,
    /// which no row has, so it changes nothing a reader sees.
    ///
    /// Why: a follower (RocksDB's secondary) replays the writer's log into
    /// memtables of its own, and drops a table's memtable only when it
    /// replays a record of that table from a later log. When the writer
    /// flushed a table while the follower had not yet read the end of the
    /// log, the follower went on answering from that memtable the older
    /// values it had replayed, and the newer ones in the flushed file stayed
    /// hidden behind it until the writer next wrote that table — forever
    /// for a quiet table. RocksDB switches logs while writing the batch that
    /// finds a memtable full (or the logs too large), before the flush is
    /// recorded, so with every batch touching every table, the batch that
    /// opens a new log seals every such memtable, and the catch-up that
    /// sees a flush drops them.
    fn touch_every_table(&self, wb: &mut WriteBatch) {
        for cf in self
            .tables
            .iter()
            .filter_map(|name| self.db.cf_handle(name))
        {
            wb.delete_cf(cf, []);
        }
    }

    /// Writes a batch of touches alone ([`Db::touch_every_table`]), after a
    /// flush made here rather than by a write.
    fn touch(&self) -> Result<(), Error> {
        let mut wb = WriteBatch::default();
        self.touch_every_table(&mut wb);
        self.db.write_opt(wb, &self.write_opts)?;
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
        let short = budget
            .as_ref()
            .is_some_and(|b| b.limit <= SHORT_READER_ROWS);
        let guard = self.follower.then(|| self.gate.enter(short));
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
    ///
    /// No touch follows each table's compaction, only one at the end: a
    /// flush made with no write in between opens no further log, so every
    /// table's flush moves past the same one log, the older logs are
    /// dropped, and a follower keeps no memtable of them. (A touch after
    /// each table opened a log each time; quiet tables held them all, and a
    /// follower kept a sealed memtable per log and table, 3,160 on a
    /// compacted 100k-transaction index, and searched each on every read.)
    /// Nothing is written meanwhile, so no follower can see older values.
    pub fn compact(&self) -> Result<(), Error> {
        for name in &self.tables {
            if let Some(cf) = self.db.cf_handle(name) {
                // A manual compaction flushes the table's memtable first.
                self.db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
            }
        }
        self.touch()
    }

    /// Compacts every table down to its last level, the last level
    /// rewritten too (tombstones and superseded values dropped): what a
    /// database should get once after a backfill. `on_table` is told each
    /// table's name as it starts. Long (it rewrites every file); readers
    /// may go on meanwhile. One touch at the end, as in [`Db::compact`].
    pub fn compact_fully(&self, mut on_table: impl FnMut(&str)) -> Result<(), Error> {
        let mut opts = rocksdb::CompactOptions::default();
        opts.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::ForceOptimized);
        opts.set_exclusive_manual_compaction(true);
        opts.set_change_level(false);
        for name in &self.tables {
            on_table(name);
            if let Some(cf) = self.db.cf_handle(name) {
                self.db
                    .compact_range_cf_opt(cf, None::<&[u8]>, None::<&[u8]>, &opts);
            }
        }
        self.touch()
    }

    /// Flushes memtables to SST files so that on-disk sizes are meaningful
    /// (when a writer stops, before a snapshot). The tables are flushed in
    /// one call, which opens one log, and one batch of touches
    /// ([`Db::touch_every_table`]) follows: a flush made here opens no log
    /// with a write, so a follower that catches up between the flush and
    /// the touch sees older values until its next catch-up. (A flush and a
    /// touch per table opened a log per table, and a follower kept a
    /// sealed memtable of each log in every quiet table.)
    ///
    /// A table whose memtables hold deletes alone (the touches of a quiet
    /// table) is left to the log: flushing it would make a file of
    /// tombstones for every table, and the log replays them at the next open.
    pub fn flush(&self) -> Result<(), Error> {
        let mut busy = Vec::new();
        for name in &self.tables {
            let Some(cf) = self.db.cf_handle(name) else {
                continue;
            };
            let count = |property: &str| -> Result<u64, Error> {
                Ok(self.db.property_int_value_cf(cf, property)?.unwrap_or(0))
            };
            let deletes_alone = count("rocksdb.num-immutable-mem-table")? == 0
                && count("rocksdb.num-entries-active-mem-table")?
                    == count("rocksdb.num-deletes-active-mem-table")?;
            if !deletes_alone {
                busy.push(cf);
            }
        }
        if busy.is_empty() {
            return Ok(());
        }
        self.db
            .flush_cfs_opt(&busy, &rocksdb::FlushOptions::default())?;
        self.touch()
    }

    /// Row counts, byte sizes and a content digest for every table.
    /// A RocksDB integer property (`rocksdb.cur-size-all-mem-tables`,
    /// `rocksdb.total-sst-files-size`, …) summed over every table (the
    /// block cache's usage is that of the one cache they share).
    pub fn property_sum(&self, name: &str) -> Result<u64, Error> {
        // Every table reports the one shared cache's usage.
        if name == "rocksdb.block-cache-usage" {
            return Ok(tables::block_cache().get_usage() as u64);
        }
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

    /// Sets the masterchain block of transaction `tx_id`'s place without
    /// reading it (a merge operand, [`crate::tx_place`]): a trace tag
    /// written before it, in this batch or an earlier one, stays.
    pub fn set_mc_block(&mut self, tx_id: u64, mc_seqno: u32) {
        self.wb.merge_cf(
            self.db.cf::<tables::Transactions>(),
            Key::encode(&tx_id),
            crate::tx_place::mc_seqno_operand(mc_seqno),
        );
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

    /// Sets the trace tag of transaction `tx_id`'s place without reading
    /// it (a merge operand, [`crate::tx_place`]).
    pub fn set_trace_tag(&mut self, tx_id: u64, tag: &crate::keys::HashTag) {
        let operand = crate::tx_place::trace_tag_operand(tag);
        self.merge_encoded::<tables::Transactions>(&Key::encode(&tx_id), &operand);
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
/// catch-up gate on a follower.
pub struct Reader<'a> {
    db: &'a Db,
    snapshot: Option<Snapshot<'a>>,
    budget: Option<Arc<RowBudget>>,
    _guard: Option<gate::GateGuard<'a>>,
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

    /// The rows under each of many prefixes, at the prefix's position: a
    /// page's lookups by tag or by account (a trace per transaction, a
    /// domain per address) read with one iterator, seeking from prefix to
    /// prefix in key order, where an iterator each cost a page more than
    /// the seeks themselves.
    pub fn prefixes<T: Table>(&self, prefixes: &[Vec<u8>]) -> Result<Vec<Rows<T>>, Error> {
        let mut out: Vec<Rows<T>> = prefixes.iter().map(|_| Vec::new()).collect();
        if prefixes.is_empty() {
            return Ok(out);
        }
        let mut order: Vec<usize> = (0..prefixes.len()).collect();
        order.sort_unstable_by(|&a, &b| prefixes[a].cmp(&prefixes[b]));
        let mut ro = self.read_opts();
        ro.set_iterate_lower_bound(prefixes[order[0]].clone());
        // Past every prefix's rows: the largest successor (a shorter prefix
        // sorts before a longer one it begins, yet its rows reach further);
        // none when some prefix's rows run to the table's end.
        let upper = prefixes
            .iter()
            .map(|p| prefix_successor(p))
            .try_fold(Vec::new(), |max, s| s.map(|s| max.max(s)));
        if let Some(upper) = upper {
            ro.set_iterate_upper_bound(upper);
        }
        let mut it = self.db.db.raw_iterator_cf_opt(self.db.cf::<T>(), ro);
        for i in order {
            let prefix = &prefixes[i];
            charge(&self.budget, 1)?;
            it.seek(prefix);
            while let Some(key) = it.key().filter(|k| k.starts_with(prefix)) {
                charge(&self.budget, 1)?;
                let k = T::Key::decode(key)?;
                let v = T::decode_value(&k, it.value().unwrap_or(&[]))?;
                out[i].push((k, v));
                it.next();
            }
            it.status()?;
        }
        Ok(out)
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

/// Typed rows of one table, in key order ([`Reader::prefixes`]).
pub type Rows<T> = Vec<(<T as Table>::Key, <T as Table>::Value)>;

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

mod gate;
#[cfg(test)]
mod tests;
