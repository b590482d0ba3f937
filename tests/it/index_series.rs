//! Importing real block series: links resolve, counts hold, re-import is a no-op,
//! and shard blocks are tied to the masterchain block that commits them.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use tonindex::chain::files::collect_paths;
use tonindex::decode::DecodedBlock;
use tonindex::index::{Indexer, Planner, Unit};
use tonindex::ingest::{decode_block_file, import_files, IngestOptions};
use tonindex_model::{
    ActionRecord, Address, BlockId, Hash, ShardDescrRecord, TraceRecord, TraceState,
    TransactionRecord,
};
use tonindex_storage::tables::{
    hash_tag, AccountNumbers, Actions, BlockByHash, BlockTxKey, Blocks, HashTag, McBlockKey,
    McBlocks, McLtAccountKey, McShardState, Messages, NumLtKey, TagIdKey, TraceByAccount,
    TraceEdges, TraceOrphans, Traces, Transactions, TxBocs, TxByBlock, TxByHash, TxByMcBlock,
    TxTail, RECEIVED_BY, SENT_BY,
};
use tonindex_storage::{Db, DbOptions};

fn series() -> Vec<PathBuf> {
    collect_paths(&[
        common::fixture("blocks/ever-block-mainnet-2019/mc"),
        common::fixture("blocks/ever-block-mainnet-2019/shard"),
    ])
    .unwrap()
}

/// The blocks of `paths` decoded and grouped into units, as an import
/// groups them, for tests that apply them one by one.
fn series_units(paths: &[PathBuf]) -> Vec<Unit> {
    let blocks: Vec<DecodedBlock> = paths
        .iter()
        .map(|p| decode_block_file(p).unwrap())
        .collect();
    let mut planner = Planner::new(64);
    let mut units = planner.push(blocks).unwrap();
    units.extend(planner.finish());
    units
}

fn opts() -> IngestOptions {
    IngestOptions {
        chunk_size: 16,
        chunk_bytes: tonindex::ingest::CHUNK_BYTES,
        unit_delay: None,
        decode_pool: None,
        traces: true,
        trust_files: false,
        group_bytes: tonindex::ingest::GROUP_BYTES,
        keep_states: tonindex::index::retention::KeepStates::DEFAULT,
    }
}

fn digests(db: &Db) -> Vec<(&'static str, u64, u64)> {
    db.stats()
        .unwrap()
        .into_iter()
        .map(|t| (t.name, t.rows, t.digest.0))
        .collect()
}

#[test]
fn series_2019_imports_with_resolving_links_and_reimport_is_a_noop() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let paths = series();
    assert_eq!(paths.len(), 62);
    let s = import_files(&db, &paths, &opts(), |_, _| {}).unwrap();
    assert_eq!(s.applied.blocks, 62);
    let expected_tx: u64 = common::pytoniq_blocks()
        .iter()
        .filter(|(k, _)| {
            k.contains("ever-block-mainnet-2019/mc/")
                || k.contains("ever-block-mainnet-2019/shard/")
        })
        .map(|(_, v)| v["transactions"].as_u64().unwrap())
        .sum();
    assert_eq!(s.applied.transactions, expected_tx);
    let cursor = db.cursor().unwrap();
    assert_eq!(
        (cursor.blocks, cursor.transactions, cursor.next_tx_id),
        (62, expected_tx, expected_tx)
    );
    assert_eq!(cursor.last_mc_seqno, Some(2690));

    let r = db.reader();
    let mut numbered: HashMap<u64, Address> = HashMap::new();
    for (wc, shard, range) in [
        (-1, 0x8000_0000_0000_0000u64, 2660..=2690u32),
        (0, 0x2000_0000_0000_0000, 571525..=571555),
    ] {
        for seqno in range.clone() {
            let id = BlockId {
                workchain: wc,
                shard,
                seqno,
            };
            let b = r.get::<Blocks>(&id).unwrap().unwrap();
            // Hash lookups lead back to the block.
            assert_eq!(r.get::<BlockByHash>(&b.id.root_hash).unwrap(), Some(id));
            assert_eq!(r.get::<BlockByHash>(&b.id.file_hash).unwrap(), Some(id));
            // The previous block's hashes resolve to the block we hold before it.
            if seqno > *range.start() {
                let prev = b.prev_blocks[0];
                let held = r
                    .get::<BlockByHash>(&prev.block.root_hash)
                    .unwrap()
                    .unwrap();
                assert_eq!(
                    held,
                    BlockId {
                        seqno: seqno - 1,
                        ..id
                    }
                );
                let held_rec = r.get::<Blocks>(&held).unwrap().unwrap();
                assert_eq!(held_rec.id.file_hash, prev.block.file_hash);
                assert_eq!(held_rec.end_lt, prev.end_lt);
            }
            // Every transaction is reachable by block, hash and account, with its BoC.
            let txs: Vec<u64> = r
                .prefix::<TxByBlock>(&BlockTxKey::prefix(&id), false)
                .map(|x| x.unwrap().0.tx_id)
                .collect();
            assert_eq!(txs.len() as u32, b.tx_count);
            for t in &tonindex::query::transactions::tx_records(&r, &txs).unwrap() {
                assert_eq!(t.block, id);
                let tx_id = tonindex::query::transactions::tx_id_by_hash(&r, &t.hash)
                    .unwrap()
                    .unwrap();
                let by_hash = TagIdKey {
                    tag: hash_tag(&t.hash),
                    id: tx_id,
                };
                assert_eq!(r.get::<TxByHash>(&by_hash).unwrap(), Some(()));
                // Its BoC is in its account's history, under the number
                // its account alone has, and its place names that row.
                let num = r.get::<AccountNumbers>(&t.account).unwrap().unwrap();
                assert_eq!(*numbered.entry(num).or_insert(t.account), t.account);
                let key = NumLtKey { num, lt: t.lt };
                let place = r.get::<Transactions>(&tx_id).unwrap().unwrap();
                assert_eq!(place.boc_key(), key);
                let row = r.get::<TxBocs>(&key).unwrap().unwrap();
                assert_eq!(row.tx_id, tx_id);
                let cell = tycho_types::boc::Boc::decode(&row.boc).unwrap();
                assert_eq!(cell.repr_hash().as_array(), &t.hash);
                // Each message's row (under its hash's tag) names the
                // transaction at its end (and holds no record), and reads
                // back as the message it is, with that end and its hash.
                let ends = t.in_msg.iter().map(|h| (h, RECEIVED_BY));
                for (h, end) in ends.chain(t.out_msgs.iter().map(|h| (h, SENT_BY))) {
                    let row = r.get::<Messages>(&hash_tag(h)).unwrap().unwrap();
                    assert_eq!(row.record, None);
                    assert!(row.at(end).contains(&tx_id));
                    let read = tonindex::query::messages::stored_messages(&r, &[*h]).unwrap();
                    let [read] = read.as_slice() else {
                        panic!("message {} read {} times", hex::encode(h), read.len())
                    };
                    assert_eq!(read.message.record.hash, *h);
                    let at = read
                        .links
                        .at(end)
                        .iter()
                        .position(|&id| id == tx_id)
                        .unwrap();
                    assert_eq!(read.tx_hashes[end][at], t.hash);
                }
                if wc == -1 {
                    assert_eq!(t.mc_block_seqno, Some(seqno));
                    let key = McLtAccountKey {
                        mc_seqno: seqno,
                        lt: t.lt,
                        tx: TxTail::new(&t.account, tx_id),
                    };
                    assert_eq!(r.get::<TxByMcBlock>(&key).unwrap(), Some(()));
                }
            }
            if wc == -1 {
                // Each masterchain block records its shard state (4 shards in Nov 2019)
                // and commits itself; the shard blocks it lists are not in the fixtures.
                let shards: Vec<_> = r
                    .prefix::<McShardState>(&McBlockKey::prefix(seqno), false)
                    .map(|x| x.unwrap().1)
                    .collect();
                assert_eq!(shards.len(), 4);
                let committed: Vec<_> = r
                    .prefix::<McBlocks>(&McBlockKey::prefix(seqno), false)
                    .map(|x| x.unwrap().0.block)
                    .collect();
                assert_eq!(committed, vec![id]);
            }
        }
    }
    drop(r);

    let before = digests(&db);
    let again = import_files(&db, &paths, &opts(), |_, _| {}).unwrap();
    assert_eq!(again.applied.blocks, 0);
    assert_eq!(again.applied.skipped_blocks, 62);
    assert_eq!(digests(&db), before, "re-import changed the database");
}

fn shard_descr(b: &tonindex::decode::DecodedBlock) -> ShardDescrRecord {
    let r = &b.record;
    ShardDescrRecord {
        block: r.id,
        reg_mc_seqno: 0,
        start_lt: r.start_lt,
        end_lt: r.end_lt,
        before_split: false,
        before_merge: false,
        want_split: false,
        want_merge: false,
        nx_cc_updated: false,
        next_catchain_seqno: 0,
        next_validator_shard: r.id.id.shard,
        min_ref_mc_seqno: 0,
        gen_utime: r.gen_utime,
        fees_collected: Default::default(),
        funds_created: Default::default(),
    }
}

/// The fixtures hold no masterchain block that commits a shard block we also
/// hold, so these tests take real mc block 2660 and point its shard list at
/// real shard block 571527: the rest is the real decode and index path.
/// Returns the mc block and shard blocks 571525..=571527.
fn mc_2660_committing_571527() -> (DecodedBlock, [DecodedBlock; 3]) {
    let f = |p: &str| {
        decode_block_file(&common::fixture(&format!(
            "blocks/ever-block-mainnet-2019/{p}"
        )))
        .unwrap()
    };
    let shards = [
        f("shard/571525.boc"),
        f("shard/571526.boc"),
        f("shard/571527.boc"),
    ];
    let mut mc = f("mc/2660.boc");
    mc.shards = vec![shard_descr(&shards[2])];
    (mc, shards)
}

#[test]
fn masterchain_block_commits_its_shard_blocks_in_unit_and_already_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let (mc, [s25, s26, s27]) = mc_2660_committing_571527();
    let ids = [s25.record.id.id, s26.record.id.id, s27.record.id.id];

    // 571525 arrives first, alone: indexed without a masterchain seqno.
    let indexer = Indexer::new(&db);
    indexer.apply(&Unit { blocks: vec![s25] }).unwrap();
    assert_eq!(
        db.get::<Blocks>(&ids[0]).unwrap().unwrap().mc_block_seqno,
        None
    );

    // Then the mc block with 571526 and 571527: both join its unit, 571525 is adopted.
    let mut planner = Planner::new(100);
    let units = planner.push(vec![mc, s27, s26]).unwrap();
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].blocks.len(), 3);
    assert!(planner.finish().is_empty());
    let applied = indexer.apply(&units[0]).unwrap();
    assert_eq!((applied.blocks, applied.adopted_blocks), (3, 1));
    assert_committed_by_2660(&db, ids);
}

/// A directory laid out `mc/` before `shard/` imports every masterchain block
/// first: shard blocks that come later still join the block that lists
/// them (or a descendant) as a top.
#[test]
fn shard_blocks_imported_after_their_masterchain_block_are_linked() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let (mc, [s25, s26, s27]) = mc_2660_committing_571527();
    let ids = [s25.record.id.id, s26.record.id.id, s27.record.id.id];
    let indexer = Indexer::new(&db);
    indexer.apply(&Unit { blocks: vec![mc] }).unwrap();
    // Ancestors first: not tops, so not linked yet.
    for b in [s25, s26] {
        let a = indexer.apply(&Unit { blocks: vec![b] }).unwrap();
        assert_eq!((a.blocks, a.adopted_blocks), (1, 0));
    }
    assert_eq!(
        db.get::<Blocks>(&ids[1]).unwrap().unwrap().mc_block_seqno,
        None
    );
    // The top arrives: linked, and it brings its two ancestors along.
    let unit = Unit { blocks: vec![s27] };
    let a = indexer.apply(&unit).unwrap();
    assert_eq!((a.blocks, a.adopted_blocks), (1, 2));
    assert_committed_by_2660(&db, ids);
    // Applying it again changes nothing (and assembles the last unit's traces).
    let again = indexer.apply(&unit).unwrap();
    assert_eq!((again.blocks, again.adopted_blocks), (0, 0));
    assert_committed_by_2660(&db, ids);
    assert_traces_committed_by_2660(&db);
}

/// Every trace of the index (all of mc block 2660's and the shard blocks
/// it commits) was completed by 2660, whether its transactions' blocks
/// were stored before or after it, and the block's trace listing is its
/// settled complete traces.
fn assert_traces_committed_by_2660(db: &Db) {
    let r = db.reader();
    let traces: Vec<TraceRecord> = r
        .prefix::<Traces>(&[], false)
        .map(|x| x.unwrap().1)
        .collect();
    assert!(traces.len() > 3, "{} traces", traces.len());
    for t in &traces {
        assert_eq!(
            (t.mc_seqno_start, t.mc_seqno_end),
            (Some(2660), Some(2660)),
            "trace {}",
            hex::encode(t.trace_id)
        );
    }
    let mut listed: Vec<Hash> = tonindex::query::traces::completed_in_mc_block(&r, 2660, false)
        .unwrap()
        .into_iter()
        .map(|t| t.trace_id)
        .collect();
    let mut complete: Vec<Hash> = traces
        .iter()
        .filter(|t| t.state == TraceState::Complete && t.pending_messages == 0)
        .map(|t| t.trace_id)
        .collect();
    listed.sort();
    complete.sort();
    assert!(!complete.is_empty());
    assert_eq!(listed, complete);
}

/// Shard blocks imported newest first, after their masterchain block: the
/// top is linked by the masterchain block, each ancestor by its committed
/// child.
#[test]
fn shard_ancestors_imported_after_their_top_are_linked() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let (mc, [s25, s26, s27]) = mc_2660_committing_571527();
    let ids = [s25.record.id.id, s26.record.id.id, s27.record.id.id];
    let indexer = Indexer::new(&db);
    indexer.apply(&Unit { blocks: vec![mc] }).unwrap();
    for b in [s27, s26, s25] {
        let a = indexer.apply(&Unit { blocks: vec![b] }).unwrap();
        assert_eq!((a.blocks, a.adopted_blocks), (1, 0));
    }
    assert_committed_by_2660(&db, ids);
    // An empty unit assembles the last one's traces.
    indexer.apply(&Unit { blocks: vec![] }).unwrap();
    assert_traces_committed_by_2660(&db);
}

/// Mc block 2660 commits `ids` (and itself): blocks, their transactions and
/// the per-masterchain-block transaction index say so.
fn assert_committed_by_2660(db: &Db, ids: [BlockId; 3]) {
    let r = db.reader();
    let committed: Vec<BlockId> = r
        .prefix::<McBlocks>(&McBlockKey::prefix(2660), false)
        .map(|x| x.unwrap().0.block)
        .collect();
    assert_eq!(committed.len(), 4);
    let mc_txs: Vec<u64> = r
        .prefix::<TxByMcBlock>(&McLtAccountKey::prefix(2660), false)
        .map(|x| x.unwrap().0.tx.tx_id)
        .collect();
    let mut shard_tx_count = 0;
    for id in ids {
        assert!(committed.contains(&id));
        let b = r.get::<Blocks>(&id).unwrap().unwrap();
        assert_eq!(b.mc_block_seqno, Some(2660), "{id:?}");
        let txs: Vec<u64> = r
            .prefix::<TxByBlock>(&BlockTxKey::prefix(&id), false)
            .map(|x| x.unwrap().0.tx_id)
            .collect();
        for (tx_id, row) in txs.iter().zip(r.multi_get::<Transactions>(&txs).unwrap()) {
            assert_eq!(row.unwrap().mc_block_seqno, Some(2660));
            assert!(mc_txs.contains(tx_id));
            shard_tx_count += 1;
        }
    }
    let mc_own = r
        .get::<Blocks>(&BlockId {
            workchain: -1,
            shard: 0x8000_0000_0000_0000,
            seqno: 2660,
        })
        .unwrap()
        .unwrap()
        .tx_count;
    assert_eq!(mc_txs.len(), shard_tx_count + mc_own as usize);
}

/// The importer's options (vector memtables), serial row encoding and
/// parallel row encoding across a pool all write the same rows: every
/// fixture block, big ones included, imported each way.
#[test]
fn import_options_and_row_encoding_do_not_change_what_is_written() {
    let paths = collect_paths(&[common::fixture("blocks")]).unwrap();
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| decode_block_file(p).is_ok())
        .collect();
    let import = |threads: usize, db_opts: DbOptions| {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &db_opts).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let opts = IngestOptions {
            chunk_size: 8,
            chunk_bytes: tonindex::ingest::CHUNK_BYTES,
            unit_delay: None,
            decode_pool: Some(std::sync::Arc::new(pool)),
            traces: true,
            trust_files: false,
            group_bytes: tonindex::ingest::GROUP_BYTES,
            keep_states: tonindex::index::retention::KeepStates::DEFAULT,
        };
        let s = import_files(&db, &paths, &opts, |_, _| {}).unwrap();
        assert!(s.applied.transactions > 1500);
        digests(&db)
    };
    let importer = DbOptions {
        sync_writes: false,
        write_only_memtables: true,
        scratch: false,
        bulk: false,
    };
    // One decode thread: rows encoded by the writer; four: across the pool.
    let serial = import(1, DbOptions::default());
    assert_eq!(import(4, DbOptions::default()), serial);
    assert_eq!(import(1, importer.clone()), serial);
    assert_eq!(import(4, importer), serial);
}

/// What the trace tables say, by content (transaction hashes, not ids,
/// which depend on the order units were applied in).
#[derive(Debug, PartialEq)]
struct TraceView {
    traces: std::collections::BTreeMap<Hash, (TraceRecord, Vec<Hash>)>,
    edges: std::collections::BTreeMap<Hash, Hash>,
    orphans: std::collections::BTreeMap<Hash, Hash>,
    /// Every action, by trace and action id: a trace settled from the
    /// writer's held transactions (one import) and one settled from the
    /// stored ones (the second import, a fresh writer) classify alike.
    actions: std::collections::BTreeMap<(Hash, Hash), ActionRecord>,
    /// Settled traces by account and end lt.
    by_account: Vec<(Address, u64, HashTag)>,
}

fn trace_view(db: &Db) -> TraceView {
    let r = db.reader();
    let mut traces = std::collections::BTreeMap::new();
    for row in r.prefix::<Traces>(&[], false) {
        let (id, mut rec) = row.unwrap();
        // The record lists its transactions, as many as it counts.
        let tx_ids = std::mem::take(&mut rec.tx_ids);
        assert_eq!(tx_ids.len(), rec.transactions as usize);
        assert!(tx_ids.windows(2).all(|w| w[0] < w[1]));
        let mut hashes: Vec<Hash> = tonindex::query::transactions::tx_records(&r, &tx_ids)
            .unwrap()
            .into_iter()
            .map(|t| t.hash)
            .collect();
        hashes.sort();
        traces.insert(id, (rec, hashes));
    }
    let edges = r
        .prefix::<TraceEdges>(&[], false)
        .map(|x| x.unwrap())
        .collect();
    let orphans = r
        .prefix::<TraceOrphans>(&[], false)
        .map(|x| x.unwrap())
        .collect();
    let (keys, stored): (Vec<_>, Vec<_>) =
        r.prefix::<Actions>(&[], false).map(|x| x.unwrap()).unzip();
    let records = tonindex::query::traces::action_records(&r, stored).unwrap();
    let actions = keys
        .iter()
        .map(|k| (k.hash, k.msg_hash))
        .zip(records)
        .collect();
    let by_account = r
        .prefix::<TraceByAccount>(&[], false)
        .map(|x| {
            let (k, ()) = x.unwrap();
            (k.account, k.lt, k.tag)
        })
        .collect();
    TraceView {
        traces,
        edges,
        orphans,
        actions,
        by_account,
    }
}

/// Trace assembly over real blocks: every transaction is in exactly one
/// trace; a trace with messages still on their way is pending and the
/// pending edges are exactly those messages; and the blocks imported in
/// one go or in two imports (the second completing traces the first left
/// pending, and sending messages the first saw received) give the same
/// traces.
/// Every account's transactions `(lt, hash)` in lt order, from a scan of
/// every stored transaction.
fn scanned_histories(db: &Db) -> BTreeMap<Address, Vec<(u64, Hash)>> {
    let r = db.reader();
    let ids: Vec<u64> = r
        .prefix::<Transactions>(&[], false)
        .map(|x| x.unwrap().0)
        .collect();
    let mut out: BTreeMap<Address, Vec<(u64, Hash)>> = BTreeMap::new();
    for t in tonindex::query::transactions::tx_records(&r, &ids).unwrap() {
        out.entry(t.account).or_default().push((t.lt, t.hash));
    }
    for h in out.values_mut() {
        h.sort();
    }
    out
}

/// Each account's history as `account_txs_iter` reads it (whole, newest
/// first, and in lt windows) equals the scan's.
fn check_histories(db: &Db, histories: &BTreeMap<Address, Vec<(u64, Hash)>>) {
    use tonindex::query::transactions::{account_txs_iter, load_rows, newest_tx_lt};
    let r = db.reader();
    for (account, want) in histories {
        let read = |lo, hi, desc| -> Vec<(u64, Hash)> {
            let rows: Vec<_> = account_txs_iter(&r, account, lo, hi, desc)
                .map(|x| x.unwrap().1)
                .collect();
            let got = load_rows(&r, rows).unwrap();
            got.iter().map(|t| (t.record.lt, t.record.hash)).collect()
        };
        assert_eq!(&read(0, u64::MAX, false), want);
        let mut desc = want.clone();
        desc.reverse();
        assert_eq!(read(0, u64::MAX, true), desc);
        assert_eq!(newest_tx_lt(&r, account).unwrap(), want.last().map(|t| t.0));
        // Windows that start and end on a transaction, and between two.
        let (lo, hi) = (want[want.len() / 3].0, want[want.len() * 2 / 3].0);
        let window = |lo: u64, hi: u64| -> Vec<(u64, Hash)> {
            want.iter()
                .filter(|t| (lo..=hi).contains(&t.0))
                .copied()
                .collect()
        };
        assert_eq!(read(lo, hi, false), window(lo, hi));
        assert_eq!(read(lo + 1, hi - 1, false), window(lo + 1, hi - 1));
    }
    // An account with no transactions has no number and no history.
    let stranger = Address {
        workchain: 0,
        id: [0xee; 32],
    };
    assert!(!histories.contains_key(&stranger));
    assert_eq!(
        account_txs_iter(&r, &stranger, 0, u64::MAX, false).count(),
        0
    );
    assert_eq!(newest_tx_lt(&r, &stranger).unwrap(), None);
}

#[test]
fn series_2019_traces_are_the_same_in_one_import_and_in_two() {
    let paths = series();
    let (mc, shard): (Vec<PathBuf>, Vec<PathBuf>) = paths
        .iter()
        .cloned()
        .partition(|p| p.to_string_lossy().contains("/mc/"));
    let first: Vec<PathBuf> = mc[..mc.len() / 2]
        .iter()
        .chain(&shard[..shard.len() / 2])
        .cloned()
        .collect();
    let second: Vec<PathBuf> = mc[mc.len() / 2..]
        .iter()
        .chain(&shard[shard.len() / 2..])
        .cloned()
        .collect();

    let dir = tempfile::tempdir().unwrap();
    let one = Db::open(&dir.path().join("one"), &DbOptions::default()).unwrap();
    import_files(&one, &paths, &opts(), |_, _| {}).unwrap();
    let two = Db::open(&dir.path().join("two"), &DbOptions::default()).unwrap();
    import_files(&two, &first, &opts(), |_, _| {}).unwrap();
    let halfway = trace_view(&two);
    import_files(&two, &second, &opts(), |_, _| {}).unwrap();

    let view = trace_view(&one);
    assert_eq!(view, trace_view(&two), "one import and two differ");
    // Each account's history, read by its number, is what a scan of every
    // transaction gives, whether its number came in the first import or
    // the second.
    let histories = scanned_histories(&one);
    assert_eq!(histories, scanned_histories(&two));
    for db in [&one, &two] {
        check_histories(db, &histories);
    }

    // Every transaction in exactly one trace, and that trace knows it.
    let r = one.reader();
    let ids: Vec<u64> = r
        .prefix::<Transactions>(&[], false)
        .map(|x| x.unwrap().0)
        .collect();
    let txs: Vec<(u64, TransactionRecord)> = ids
        .iter()
        .copied()
        .zip(tonindex::query::transactions::tx_records(&r, &ids).unwrap())
        .collect();
    let mut seen = std::collections::HashSet::new();
    for (rec, hashes) in view.traces.values() {
        assert_eq!(rec.transactions as usize, hashes.len());
        for h in hashes {
            assert!(seen.insert(*h), "a transaction in two traces");
        }
    }
    assert_eq!(seen.len(), txs.len());
    for (id, t) in &txs {
        let trace =
            tonindex::query::traces::trace_ids_of_txs(&r, &[*id]).unwrap()[0].expect("trace of tx");
        assert!(view.traces[&trace].1.contains(&t.hash));
    }
    // Pending traces are those with undelivered messages, and the edges are those messages.
    let pending: u32 = view.traces.values().map(|(t, _)| t.pending_messages).sum();
    assert_eq!(pending as usize, view.edges.len());
    for (msg, trace) in &view.edges {
        let (t, _) = &view.traces[trace];
        assert!(t.pending_messages > 0, "edge of a settled trace");
        assert!(r.get::<Messages>(&hash_tag(msg)).unwrap().is_some());
    }
    let states =
        |v: &TraceView, s: TraceState| v.traces.values().filter(|(t, _)| t.state == s).count();
    assert!(states(&view, TraceState::Pending) > 0);
    assert!(states(&view, TraceState::Complete) > 0);
    assert!(!view.actions.is_empty() && !view.by_account.is_empty());
    // The second import completed or extended traces the first left waiting.
    let moved = halfway
        .traces
        .iter()
        .filter(|(id, (t, _))| {
            t.state != TraceState::Complete && view.traces.get(*id).is_none_or(|(now, _)| now != t)
        })
        .count();
    assert!(
        moved > 0,
        "no trace of the first half changed in the second"
    );
    println!(
        "{} traces: {} complete, {} pending, {} broken; {} edges, {} orphans; {} changed by the second import",
        view.traces.len(),
        states(&view, TraceState::Complete),
        states(&view, TraceState::Pending),
        states(&view, TraceState::Broken),
        view.edges.len(),
        view.orphans.len(),
        moved
    );
}

/// A unit's traces are assembled (and the complete ones classified) after
/// its commit, beside the next unit or by `flush`. A stop right after a
/// commit (no flush, as a kill) leaves the unit's transactions named in the
/// database as not assembled, in no trace yet; a restarted indexer reads
/// them back and assembles them, and the index ends exactly as an import
/// that never stopped.
#[test]
fn traces_a_stop_left_unassembled_are_assembled_after_a_restart() {
    let paths = series();
    let dir = tempfile::tempdir().unwrap();
    let whole = Db::open(&dir.path().join("whole"), &DbOptions::default()).unwrap();
    import_files(&whole, &paths, &opts(), |_, _| {}).unwrap();
    assert_eq!(whole.reader().unassembled().unwrap(), None);

    let stopped = Db::open(&dir.path().join("stopped"), &DbOptions::default()).unwrap();
    let units = series_units(&paths);
    let half = units.len() / 2;
    let mut rest = units.into_iter();
    let (first, end) = {
        let indexer = Indexer::new(&stopped);
        let mut applied = 0;
        loop {
            let unit = rest.next().expect("a unit with transactions");
            indexer.apply(&unit).unwrap();
            applied += 1;
            if let Some(left) = stopped.reader().unassembled().unwrap() {
                if applied >= half {
                    break left;
                }
            }
        }
        // Dropped without a flush.
    };
    let r = stopped.reader();
    assert!(end > first);
    for id in first..end {
        let place = r.get::<Transactions>(&id).unwrap().unwrap();
        assert!(place.trace_tag.is_none(), "tx {id} is in a trace");
    }
    let before = r.get::<Transactions>(&(first - 1)).unwrap().unwrap();
    assert!(before.trace_tag.is_some());
    drop(r);

    let restarted = Indexer::new(&stopped);
    let remaining: Vec<Unit> = rest.collect();
    assert!(!remaining.is_empty());
    for unit in &remaining {
        restarted.apply(unit).unwrap();
    }
    restarted.flush().unwrap();
    assert_eq!(stopped.reader().unassembled().unwrap(), None);
    assert_eq!(trace_view(&stopped), trace_view(&whole));
    assert_eq!(digests(&stopped), digests(&whole));
}

/// A database an earlier build left with complete traces listed as not
/// classified (their actions not written yet: that build classified a
/// unit's complete traces with the next unit) gets them classified by the
/// next batch, to the same rows.
#[test]
fn complete_traces_an_earlier_build_left_unclassified_are_classified() {
    use tonindex_model::ClassificationState;
    use tonindex_storage::tables::{
        hash_tag, AccountLtTagKey, ActionByAccount, ActionById, HashMsgKey,
    };
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    import_files(&db, &series(), &opts(), |_, _| {}).unwrap();
    let before = digests(&db);

    // As that build left them: records unclassified, no actions, listed.
    let r = db.reader();
    let left: Vec<TraceRecord> = r
        .prefix::<Traces>(&[], false)
        .map(|x| x.unwrap().1)
        .filter(|t| t.state == TraceState::Complete)
        .filter(|t| r.prefix::<Actions>(&t.trace_id, false).next().is_some())
        .take(5)
        .collect();
    assert_eq!(left.len(), 5);
    let mut batch = db.batch();
    for t in &left {
        for row in r.prefix::<Actions>(&t.trace_id, false) {
            let (key, stored): (HashMsgKey, _) = row.unwrap();
            let action = tonindex::query::traces::action_records(&r, vec![stored])
                .unwrap()
                .remove(0);
            batch.delete::<Actions>(&key);
            batch.delete::<ActionById>(&tonindex_storage::tables::TagPairKey {
                tag: hash_tag(&action.action_id),
                other: hash_tag(&t.trace_id),
            });
            for account in &action.accounts {
                batch.delete::<ActionByAccount>(&AccountLtTagKey {
                    account: *account,
                    lt: t.end_lt,
                    tag: hash_tag(&t.trace_id),
                });
            }
        }
        let mut unclassified = t.clone();
        unclassified.classification = ClassificationState::Unclassified;
        batch.put::<Traces>(&t.trace_id, &unclassified);
    }
    let ids: Vec<Hash> = left.iter().map(|t| t.trace_id).collect();
    batch.put_unclassified(&ids);
    drop(r);
    db.write(batch).unwrap();
    assert_ne!(digests(&db), before);

    Indexer::new(&db).flush().unwrap();
    assert!(db.reader().unclassified().unwrap().is_empty());
    assert_eq!(digests(&db), before);
}

/// The commit feed says when a complete trace's actions land: every trace
/// a commit settles as complete is named once, by that commit's
/// `classified_traces` (the next unit's commit, or the flush after the
/// last, writes a unit's traces), and by then its actions are in the
/// database.
#[test]
fn the_commit_feed_names_classified_traces_in_their_settling_commit() {
    use std::collections::HashSet;
    use tonindex::index::feed::CommitFeed;
    let paths = series();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let feed = CommitFeed::new(4096);
    let mut commits = feed.subscribe();
    let units = series_units(&paths);
    let indexer = Indexer::new(&db).with_feed(feed.clone());
    let mut settled: HashSet<Hash> = HashSet::new();
    let mut classified: HashSet<Hash> = HashSet::new();
    let mut read = |settled: &mut HashSet<Hash>, classified: &mut HashSet<Hash>| {
        while let Ok(c) = commits.try_recv() {
            for id in &c.classified_traces {
                assert!(
                    c.settled_traces.contains(id),
                    "classified in another commit than the one settling it"
                );
                assert!(classified.insert(*id), "classified twice");
                let r = db.reader();
                let t = r.get::<Traces>(id).unwrap().unwrap();
                assert_eq!(t.state, TraceState::Complete);
                assert_ne!(
                    t.classification,
                    tonindex_model::ClassificationState::Unclassified
                );
            }
            settled.extend(c.settled_traces.iter().copied());
        }
    };
    for unit in &units {
        indexer.apply(unit).unwrap();
        read(&mut settled, &mut classified);
    }
    indexer.flush().unwrap();
    read(&mut settled, &mut classified);
    let complete: HashSet<Hash> = db
        .reader()
        .prefix::<Traces>(&[], false)
        .map(|x| x.unwrap().1)
        .filter(|t| t.state == TraceState::Complete)
        .map(|t| t.trace_id)
        .collect();
    assert!(!complete.is_empty());
    assert_eq!(classified, complete);
}

/// Shard blocks indexed before the masterchain blocks that commit them
/// (each alone, as a follower whose planner gave up waiting would): once
/// those arrive, every trace carries the masterchain blocks an import in
/// chain order gives it, and each block lists the same completed traces.
/// A devnet chain over two shards (the 2019 fixtures' shard blocks hold no
/// transactions).
#[test]
fn traces_of_shard_blocks_stored_first_learn_their_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let exported = dir.path().join("blocks");
    let o = std::process::Command::new(common::tonindex_bin())
        .args([
            "bench-dev",
            "--wallets",
            "30",
            "--blocks",
            "6",
            "--shards",
            "2",
        ])
        .args(["--profile", "mainnet", "--export-blocks"])
        .arg(&exported)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let paths = collect_paths(&[exported]).unwrap();
    let one = Db::open(&dir.path().join("one"), &DbOptions::default()).unwrap();
    import_files(&one, &paths, &opts(), |_, _| {}).unwrap();
    // Shard blocks by seqno (a split's children after their parent), then
    // the masterchain blocks.
    let named = |prefix: &str| -> Vec<(u64, PathBuf)> {
        let mut v: Vec<(u64, PathBuf)> = paths
            .iter()
            .filter_map(|p| {
                let name = p.file_stem()?.to_str()?;
                let seqno = name
                    .strip_prefix(prefix)?
                    .rsplit('_')
                    .next()?
                    .parse()
                    .ok()?;
                Some((seqno, p.clone()))
            })
            .collect();
        v.sort();
        v
    };
    let (shard, mc) = (named("wc0_"), named("mc_"));
    assert!(
        shard.len() > 6 && mc.len() > 6,
        "{} {}",
        shard.len(),
        mc.len()
    );
    let late = Db::open(&dir.path().join("late"), &DbOptions::default()).unwrap();
    let indexer = Indexer::new(&late);
    for (_, path) in shard.iter().chain(&mc) {
        let block = decode_block_file(path).unwrap();
        indexer
            .apply(&Unit {
                blocks: vec![block],
            })
            .unwrap();
    }
    indexer.apply(&Unit { blocks: vec![] }).unwrap();
    let spans = |db: &Db| -> std::collections::BTreeMap<Hash, (Option<u32>, Option<u32>)> {
        db.reader()
            .prefix::<Traces>(&[], false)
            .map(|x| x.unwrap().1)
            .map(|t| (t.trace_id, (t.mc_seqno_start, t.mc_seqno_end)))
            .collect()
    };
    let want = spans(&one);
    assert!(want.values().all(|(_, end)| end.is_some()));
    assert_eq!(spans(&late), want);
    for (seqno, _) in &mc {
        let listed = |db: &Db| -> Vec<Hash> {
            tonindex::query::traces::completed_in_mc_block(&db.reader(), *seqno as u32, false)
                .unwrap()
                .into_iter()
                .map(|t| t.trace_id)
                .collect()
        };
        assert_eq!(listed(&late), listed(&one), "mc block {seqno}");
    }
}

/// Transactions and actions are found by the tags of their hashes, each
/// checked against the whole hash: a hash that shares a stored one's tag
/// finds nothing, and a tag listing two rows gives the one the hash is.
#[test]
fn lookups_by_tag_answer_only_the_whole_hash() {
    use tonindex::query::{traces::trace_of_action, transactions::tx_id_by_hash};
    use tonindex_storage::tables::TagPairKey;
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    import_files(&db, &series(), &opts(), |_, _| {}).unwrap();
    let r = db.reader();
    let (key, action) = r.prefix::<Actions>(&[], false).next().unwrap().unwrap();
    let tx = action.tx_hashes[0];
    let tx_id = tx_id_by_hash(&r, &tx).unwrap().unwrap();
    let other_tx = tx_id_by_hash(&r, &action.tx_hashes[action.tx_hashes.len() - 1])
        .unwrap()
        .unwrap();
    let twin = |h: &Hash| {
        let mut t = *h;
        t[31] ^= 1;
        t
    };
    let r_traces = |db: &Db| -> Vec<Hash> {
        db.reader()
            .prefix::<Traces>(&[], false)
            .map(|x| x.unwrap().0)
            .collect()
    };
    assert_eq!(
        trace_of_action(&r, &action.action_id).unwrap(),
        Some(key.hash)
    );
    drop(r);
    // The tag of `tx` also lists other transactions (sorting before and
    // after it), and the action's tag other traces (one stored, two not).
    let mut batch = db.batch();
    for id in [0, other_tx.max(tx_id) + 1] {
        let key = TagIdKey {
            tag: hash_tag(&tx),
            id,
        };
        batch.put::<TxByHash>(&key, &());
    }
    let other_trace = r_traces(&db)
        .into_iter()
        .find(|t| hash_tag(t) != hash_tag(&key.hash))
        .unwrap();
    for other in [hash_tag(&other_trace), [0; 8], [0xff; 8]] {
        let by_id = TagPairKey {
            tag: hash_tag(&action.action_id),
            other,
        };
        batch.put::<tonindex_storage::tables::ActionById>(&by_id, &());
    }
    db.write(batch).unwrap();
    let r = db.reader();
    assert_eq!(tx_id_by_hash(&r, &tx).unwrap(), Some(tx_id));
    assert_eq!(tx_id_by_hash(&r, &twin(&tx)).unwrap(), None);
    let trace = action.trace_id;
    assert_eq!(trace_of_action(&r, &action.action_id).unwrap(), Some(trace));
    assert_eq!(trace_of_action(&r, &twin(&action.action_id)).unwrap(), None);
}
