//! The database layer's tests: opening, schema checks, batches, readers,
//! merge rows and keyed records.

use super::*;
use crate::codec::TxBoc;
use crate::tables::{BlockByHash, NumLtKey, TxBocs};
use tonindex_model::{Address, BlockId};

/// A block id standing for the number `n` in tests of a hash-keyed table.
fn seq(n: u64) -> BlockId {
    BlockId {
        workchain: 0,
        shard: 1 << 63,
        seqno: n as u32,
    }
}

/// The number [`seq`] stands for.
fn seqno(b: BlockId) -> u64 {
    u64::from(b.seqno)
}

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
    let (a, b) = (1u64, 2u64);
    let mut batch = db.batch();
    for (i, lt) in [5u64, 1, 3].into_iter().enumerate() {
        batch.put::<TxBocs>(&NumLtKey { num: a, lt }, &tx_boc(i as u64, &[]));
    }
    batch.put::<TxBocs>(&NumLtKey { num: b, lt: 2 }, &tx_boc(9, &[]));
    db.write(batch).unwrap();

    let r = db.reader();
    let asc: Vec<u64> = r
        .prefix::<TxBocs>(&NumLtKey::prefix(a), false)
        .map(|x| x.unwrap().0.lt)
        .collect();
    assert_eq!(asc, vec![1, 3, 5]);
    let desc: Vec<u64> = r
        .prefix::<TxBocs>(&NumLtKey::prefix(a), true)
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
fn budgeted_readers(db: &Db, a: u64, b: u64) {
    let r = db.reader_with_row_budget(4);
    let key = NumLtKey { num: b, lt: 2 };
    assert_eq!(r.get::<TxBocs>(&key).unwrap(), Some(tx_boc(9, &[])));
    let rows: Vec<_> = r.prefix::<TxBocs>(&NumLtKey::prefix(a), false).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(Result::is_ok));
    assert!(!r.over_budget());
    assert!(matches!(
        r.multi_get::<TxBocs>(&[key]),
        Err(Error::OverBudget)
    ));
    assert!(r.over_budget());
    let r = db.reader_with_row_budget(2);
    let rows: Vec<_> = r.prefix::<TxBocs>(&NumLtKey::prefix(a), false).collect();
    assert_eq!(rows.len(), 3, "two rows, then the error ends the scan");
    assert!(matches!(rows[2], Err(Error::OverBudget)));
    let r = db.reader_with_row_budget(100);
    assert!(r.exhaust_budget() && r.over_budget());
    assert!(!db.reader().exhaust_budget());

    // A deadline stops reads once it has passed, however many rows are left.
    let soon = Instant::now() + std::time::Duration::from_millis(50);
    let r = db.reader_limited(None, Some(soon));
    let key = NumLtKey { num: b, lt: 2 };
    assert_eq!(r.get::<TxBocs>(&key).unwrap(), Some(tx_boc(9, &[])));
    assert!(r.check_deadline().is_ok() && !r.exhaust_budget());
    std::thread::sleep(std::time::Duration::from_millis(60));
    // The clock is read every DEADLINE_STRIDE rows: one of the next
    // that many reads fails, and every read after it.
    let failed_at = (0..DEADLINE_STRIDE)
        .position(|_| r.get::<TxBocs>(&key).is_err())
        .expect("a read past the deadline fails");
    assert!(failed_at < DEADLINE_STRIDE as usize);
    assert!(matches!(
        r.get::<TxBocs>(&key),
        Err(Error::DeadlineExceeded)
    ));
    let rows: Vec<_> = r.prefix::<TxBocs>(&NumLtKey::prefix(a), false).collect();
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
    let key = |lt| NumLtKey { num: 7, lt };
    let mut batch = writer.batch();
    batch.put::<TxBocs>(&key(1), &tx_boc(10, &[]));
    writer.write(batch).unwrap();

    let follower = Db::open_follower(dir.path(), scratch.path()).unwrap();
    assert_eq!(follower.reader().prefix::<TxBocs>(&[], false).count(), 1);
    assert_eq!(
        follower.reader().get::<TxBocs>(&key(1)).unwrap(),
        Some(tx_boc(10, &[]))
    );
    let mut batch = writer.batch();
    batch.put::<TxBocs>(&key(2), &tx_boc(20, &[]));
    writer.write(batch).unwrap();
    assert_eq!(follower.reader().get::<TxBocs>(&key(2)).unwrap(), None);

    // A catch-up waits for the readers that are open.
    let reader = follower.reader();
    std::thread::scope(|s| {
        let catching_up = s.spawn(|| follower.catch_up().unwrap());
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(reader.get::<TxBocs>(&key(2)).unwrap(), None);
        drop(reader);
        catching_up.join().unwrap();
    });
    assert_eq!(
        follower.reader().get::<TxBocs>(&key(2)).unwrap(),
        Some(tx_boc(20, &[]))
    );
}

/// Rows encoded ahead land in their tables as `put` would write them,
/// a key written twice keeping its later value, and likewise on a
/// database opened as the importer opens it (vector memtables).
#[test]
fn encoded_rows_append_like_puts() {
    let lt_key = |lt| NumLtKey { num: 3, lt };
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
            rows.put::<BlockByHash>(&[i as u8; 32], &seq(i));
            rows.put::<TxBocs>(&boc_key(i), &tx_boc(i, &[i as u8; 5]));
            if i % 3 == 0 {
                rows.put::<TxBocs>(&lt_key(i), &tx_boc(i * 10, &[]));
            }
        }
        rows.put::<BlockByHash>(&[4; 32], &seq(44));
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
        let lt_key = |lt| NumLtKey { num: 3, lt };
        let r = db.reader();
        for i in 0..10u64 {
            let want = if i == 4 { 44 } else { i };
            assert_eq!(
                r.get::<BlockByHash>(&[i as u8; 32]).unwrap().map(seqno),
                Some(want)
            );
            assert_eq!(
                r.get::<TxBocs>(&boc_key(i)).unwrap(),
                Some(tx_boc(i, &[i as u8; 5]))
            );
            let by_lt = r.get::<TxBocs>(&lt_key(i)).unwrap();
            assert_eq!(by_lt, (i % 3 == 0).then(|| tx_boc(i * 10, &[])));
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
    batch.put::<BlockByHash>(&[9; 32], &seq(9));
    db.write(batch).unwrap();

    let mut first = EncodedRows::default();
    first.put::<BlockByHash>(&[1; 32], &seq(1));
    first.delete::<BlockByHash>(&[1; 32]);
    first.delete::<BlockByHash>(&[2; 32]);
    first.put::<TxBocs>(&boc_key(5), &tx_boc(5, &[5; 3]));
    let mut second = EncodedRows::default();
    second.put::<BlockByHash>(&[2; 32], &seq(2));
    second.delete::<BlockByHash>(&[9; 32]);
    second.put::<BlockByHash>(&[3; 32], &seq(3));
    second.delete::<TxBocs>(&boc_key(5));
    first.extend(second);
    let mut batch = db.batch();
    batch.append(first);
    db.write(batch).unwrap();

    let r = db.reader();
    assert_eq!(r.get::<BlockByHash>(&[1; 32]).unwrap().map(seqno), None);
    assert_eq!(r.get::<BlockByHash>(&[2; 32]).unwrap().map(seqno), Some(2));
    assert_eq!(r.get::<BlockByHash>(&[3; 32]).unwrap().map(seqno), Some(3));
    assert_eq!(r.get::<BlockByHash>(&[9; 32]).unwrap().map(seqno), None);
    assert_eq!(r.get::<TxBocs>(&boc_key(5)).unwrap(), None);
}

/// An internal message's record with `hash` and `created_lt`: what a
/// `messages` row of schemas 31–32 held.
fn message_record(hash: [u8; 32], lt: u64) -> tonindex_model::MessageRecord {
    tonindex_model::MessageRecord {
        hash,
        kind: tonindex_model::MsgKind::Internal,
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
    }
}

/// A message row's ids come in separate merge operands, in one batch or
/// several, before and after a flush and a full compaction: each end's
/// ids come back ascending and once. A row that schemas 31–32 wrote,
/// with a record frame before its ids, reads the same, past the record.
#[test]
fn linked_rows_fold_ids_across_batches_and_compactions() {
    use crate::tables::{Messages, RECEIVED_BY, SENT_BY};
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let write = |f: &dyn Fn(&mut EncodedRows)| {
        let mut rows = EncodedRows::default();
        f(&mut rows);
        let mut batch = db.batch();
        batch.append(rows);
        db.write(batch).unwrap();
    };
    // The old row: its record frame as schema 32 wrote it, by merge.
    let old_record = crate::linked::record_operand(&message_record([0; 32], 1).encode());
    db.db
        .merge_cf(db.cf::<Messages>(), [8; 8], &old_record)
        .unwrap();
    for key in [[7; 8], [8; 8]] {
        write(&|rows| rows.link::<Messages, _>(&key, SENT_BY, 10));
    }
    db.flush().unwrap();
    for key in [[7; 8], [8; 8]] {
        write(&|rows| {
            rows.link::<Messages, _>(&key, RECEIVED_BY, 12);
            rows.link::<Messages, _>(&key, RECEIVED_BY, 11);
        });
    }
    let check = |key: [u8; 8], old: bool| {
        let row = db.reader().get::<Messages>(&key).unwrap().unwrap();
        assert_eq!(row.record, old.then_some(()));
        assert_eq!(row.at(RECEIVED_BY), &[11, 12]);
        assert_eq!(row.at(SENT_BY), &[10]);
    };
    check([7; 8], false);
    check([8; 8], true);
    db.compact_fully(|_| {}).unwrap();
    check([7; 8], false);
    check([8; 8], true);
    write(&|rows| rows.link::<Messages, _>(&[7; 8], RECEIVED_BY, 11));
    db.compact_fully(|_| {}).unwrap();
    check([7; 8], false);
    assert_eq!(db.reader().get::<Messages>(&[9; 8]).unwrap(), None);
}

/// A place's masterchain link and trace tag, written blind as merge
/// operands in any order and batch, survive flushes, compactions and each
/// other; an operand for a place never written reads as corrupt.
#[test]
fn place_operands_fold_in_any_order_across_compactions() {
    use crate::tables::Transactions;
    use crate::TxPlace;
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let place = |n: u64| TxPlace {
        block: seq(n),
        mc_block_seqno: None,
        global_version: 12,
        account_num: n,
        lt: 100 + n,
        trace_tag: None,
    };
    let mut rows = EncodedRows::default();
    for n in 1..=3 {
        rows.put::<Transactions>(&n, &place(n));
    }
    let mut batch = db.batch();
    batch.append(rows);
    db.write(batch).unwrap();
    db.flush().unwrap();
    // 1: tag, then link (two batches); 2: link, then tag in one batch;
    // 3: two tags, the later one winning; 9: a tag and no place.
    let tag_rows = |pairs: &[(u64, u8)]| {
        let mut rows = EncodedRows::default();
        for &(n, t) in pairs {
            rows.set_trace_tag(n, &[t; 8]);
        }
        rows
    };
    let mut batch = db.batch();
    batch.append(tag_rows(&[(1, 0xa1), (3, 0xc1), (9, 0x99)]));
    db.write(batch).unwrap();
    let mut batch = db.batch();
    batch.set_mc_block(1, 50);
    batch.set_mc_block(2, 51);
    batch.append(tag_rows(&[(2, 0xb1)]));
    db.write(batch).unwrap();
    db.flush().unwrap();
    let mut batch = db.batch();
    batch.append(tag_rows(&[(3, 0xc2)]));
    db.write(batch).unwrap();
    let check = || {
        let r = db.reader();
        let want = [(1, Some(50), 0xa1), (2, Some(51), 0xb1), (3, None, 0xc2)];
        for (n, mc, tag) in want {
            let got = r.get::<Transactions>(&n).unwrap().unwrap();
            let expected = TxPlace {
                mc_block_seqno: mc,
                trace_tag: Some([tag; 8]),
                ..place(n)
            };
            assert_eq!(got, expected, "place {n}");
        }
        assert!(matches!(
            r.get::<Transactions>(&9),
            Err(crate::Error::Corrupt(_))
        ));
    };
    check();
    db.compact_fully(|_| {}).unwrap();
    check();
}

/// Records that repeat their key (traces, actions) are stored
/// without those bytes and read back whole, by every kind of read.
#[test]
fn keyed_records_are_stored_without_their_key() {
    use crate::tables::{Actions, HashMsgKey, Traces};
    use tonindex_model::{ActionRecord, ClassificationState};
    use tonindex_model::{TraceRecord, TraceState};
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let (msg, trace, action) = ([0xa1; 32], [0xb2; 32], [0xc3; 32]);
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
        tx_ids: vec![5, 9, 300, 70_000],
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
    let action_row = crate::stored_action::to_stored(&action_row, |_| None);
    let action_key = HashMsgKey {
        hash: trace,
        msg_hash: action,
    };
    let mut rows = EncodedRows::default();
    rows.put::<Traces>(&trace, &trace_row);
    let mut batch = db.batch();
    batch.append(rows);
    batch.put::<Actions>(&action_key, &action_row);
    db.write(batch).unwrap();
    // The stored bytes hold none of the key's hashes (the trace's
    // external hash and the action's transaction are other fields).
    let raw = |cf: &ColumnFamily, key: &[u8]| db.db.get_cf(cf, key).unwrap().unwrap();
    let holds = |bytes: &[u8], h: &[u8; 32]| bytes.windows(32).any(|w| w == h);
    assert!(!holds(&raw(db.cf::<Traces>(), &trace), &trace));
    let stored = raw(db.cf::<Actions>(), &action_key.encode());
    assert!(!holds(&stored, &action));
    assert_eq!(stored.windows(32).filter(|w| *w == trace).count(), 1);
    let r = db.reader();
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
    batch.put::<BlockByHash>(&[1; 32], &seq(1));
    db.write(batch).unwrap();
    for i in 0..96u64 {
        let mut rows = EncodedRows::default();
        for j in 0..64u64 {
            rows.put::<TxBocs>(&boc_key(i * 64 + j), &tx_boc(j, &[j as u8; 16 << 10]));
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
    // background; the writer asks for the next flush as it writes.
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while logs() >= 64 << 20 && Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut batch = db.batch();
        batch.put::<BlockByHash>(&[2; 32], &seq(2));
        db.write(batch).unwrap();
    }
    assert!(logs() < 64 << 20, "{} bytes of logs", logs());
    assert_eq!(
        db.reader().get::<BlockByHash>(&[1; 32]).unwrap().map(seqno),
        Some(1)
    );
}

#[test]
fn successor_of_prefix() {
    assert_eq!(prefix_successor(&[1, 2]), Some(vec![1, 3]));
    assert_eq!(prefix_successor(&[1, 0xff]), Some(vec![2]));
    assert_eq!(prefix_successor(&[0xff, 0xff]), None);
}

/// A [`TxBocs`] key of account number 0: the tests' rows keyed by a
/// number alone.
fn boc_key(lt: u64) -> NumLtKey {
    NumLtKey { num: 0, lt }
}

fn tx_boc(tx_id: u64, boc: &[u8]) -> TxBoc {
    TxBoc {
        tx_id,
        boc: boc.to_vec(),
    }
}

/// Rows under many prefixes read with one iterator are the rows each
/// prefix's own scan gives, at the prefix's position, with prefixes given
/// out of order, repeated, empty of rows, nested and at the table's ends;
/// rows in a flushed file and in the memtable alike.
#[test]
fn many_prefixes_read_as_each_prefix_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..2 {
        let mut batch = db.batch();
        for i in 0..400u64 {
            let num = next() % 40;
            batch.put::<TxBocs>(
                &NumLtKey {
                    num,
                    lt: next() % 1000,
                },
                &tx_boc(i, &[round]),
            );
        }
        db.write(batch).unwrap();
        if round == 0 {
            db.flush().unwrap();
        }
    }
    let mut prefixes: Vec<Vec<u8>> = (0..60u64).map(|_| NumLtKey::prefix(next() % 45)).collect();
    prefixes.push(NumLtKey::prefix(7));
    prefixes.push(NumLtKey::prefix(7));
    prefixes.push(NumLtKey::prefix(7)[..4].to_vec());
    prefixes.push(vec![0xff; 8]);
    prefixes.push(NumLtKey::prefix(0));
    let r = db.reader();
    let together = r.prefixes::<TxBocs>(&prefixes).unwrap();
    assert_eq!(together.len(), prefixes.len());
    let mut rows = 0;
    for (p, got) in prefixes.iter().zip(&together) {
        let alone: Vec<(NumLtKey, TxBoc)> =
            r.prefix::<TxBocs>(p, false).map(|x| x.unwrap()).collect();
        rows += alone.len();
        assert_eq!(got, &alone, "prefix {p:?}");
    }
    assert!(rows > 100, "the prefixes found rows ({rows})");
    assert!(r.prefixes::<TxBocs>(&[]).unwrap().is_empty());
    // A short prefix and a longer one it begins, with no prefix after
    // them: the short one's rows reach past the longer one's.
    let short = NumLtKey::prefix(7)[..7].to_vec();
    let nested = vec![short.clone(), NumLtKey::prefix(7)];
    let together = r.prefixes::<TxBocs>(&nested).unwrap();
    for (p, got) in nested.iter().zip(&together) {
        let alone: Vec<(NumLtKey, TxBoc)> =
            r.prefix::<TxBocs>(p, false).map(|x| x.unwrap()).collect();
        assert_eq!(got, &alone, "prefix {p:?}");
    }
    assert!(
        together[0].len() > together[1].len(),
        "the short prefix holds more accounts"
    );
}

/// RocksDB's secondary replays the writer's log into memtables of its own,
/// and drops a table's memtable only when it replays a later log's record
/// for that table. A table flushed by the writer while the follower had
/// not read the end of its log therefore kept serving the older value it
/// had replayed (newer values are in the flushed file, behind that
/// memtable) until the writer next wrote that table. Every batch touches
/// every table (`Db::write`), so the batch that starts the writer's next
/// log seals those memtables and the catch-up that sees the flush sees
/// the newer value.
#[test]
fn a_follower_sees_no_older_value_after_the_writer_flushes() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let key = [9u8; 32];
    let put_seq = |n: u64| {
        let mut batch = writer.batch();
        batch.put::<BlockByHash>(&key, &seq(n));
        writer.write(batch).unwrap();
    };
    put_seq(1);
    let follower = Db::open_follower(dir.path(), scratch.path()).unwrap();
    put_seq(2);
    follower.catch_up().unwrap();
    assert_eq!(
        follower.reader().get::<BlockByHash>(&key).unwrap(),
        Some(seq(2))
    );
    // Read by the writer's log only, after the follower's catch-up.
    put_seq(3);
    // Other tables' rows until the log outgrows MAX_TOTAL_WAL_BYTES: the
    // writer switches logs and flushes the tables that hold the oldest.
    let cf = writer.cf::<BlockByHash>();
    let level0 = || {
        writer
            .db
            .property_int_value_cf(cf, "rocksdb.num-files-at-level0")
            .unwrap()
            .unwrap()
    };
    let mut lt = 0;
    while level0() == 0 {
        let mut batch = writer.batch();
        for _ in 0..64 {
            lt += 1;
            batch.put::<TxBocs>(&boc_key(lt), &tx_boc(lt, &[lt as u8; 8 << 10]));
        }
        writer.write(batch).unwrap();
        assert!(lt < 1 << 16, "the writer never flushed");
    }
    follower.catch_up().unwrap();
    let r = follower.reader();
    assert_eq!(r.get::<BlockByHash>(&key).unwrap(), Some(seq(3)));
    // And the follower holds every row the writer wrote before it.
    let last = r.prefix::<TxBocs>(&[], true).next().unwrap().unwrap().0.lt;
    assert_eq!(last, lt);
}

/// A follower of a flushed and compacted database holds no sealed memtable
/// (each is searched on every read until the table flushes again), and the
/// writer keeps one log: the tables flush past the same log, with one batch
/// of touches after them, not one per table.
#[test]
fn a_follower_of_a_compacted_database_holds_no_sealed_memtables() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), &DbOptions::default()).unwrap();
    for n in 1..=3u64 {
        let mut batch = writer.batch();
        batch.put::<BlockByHash>(&[n as u8; 32], &seq(n));
        batch.put::<TxBocs>(&boc_key(n), &tx_boc(n, &[n as u8; 64]));
        writer.write(batch).unwrap();
    }
    let logs = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "log")
            })
            .count()
    };
    let sealed = |db: &Db| db.property_sum("rocksdb.num-immutable-mem-table").unwrap();
    writer.flush().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let follower = Db::open_follower(dir.path(), scratch.path()).unwrap();
    // The tables the rows went to flushed past one log; the quiet ones still
    // hold the first.
    assert!(logs() <= 2, "{} logs after a flush", logs());
    assert!(sealed(&follower) <= writer.tables.len() as u64);
    writer.compact().unwrap();
    follower.catch_up().unwrap();
    assert_eq!(logs(), 1, "logs after a compaction");
    assert_eq!(sealed(&follower), 0, "sealed memtables on the follower");
    let fresh_scratch = tempfile::tempdir().unwrap();
    let fresh = Db::open_follower(dir.path(), fresh_scratch.path()).unwrap();
    assert_eq!(sealed(&fresh), 0, "sealed memtables on a new follower");
    assert_eq!(
        fresh.reader().get::<BlockByHash>(&[2; 32]).unwrap(),
        Some(seq(2))
    );
}
