//! Prometheus metrics: the process-wide recorder `/metrics` renders, and
//! the figures read from the database at each scrape.
//!
//! Names: `tonindex_http_requests_total{api,route,status}`,
//! `tonindex_http_request_duration_seconds{api,route}` (histogram),
//! `tonindex_getmethod_runs_total{outcome}`, `tonindex_getmethod_seconds`
//! (histogram), `tonindex_index_*` (blocks, transactions, last masterchain
//! seqno, seconds behind the newest block's time), `tonindex_rocksdb_*`
//! (memtables, SST files, pending compaction, block cache), and on a
//! follower `tonindex_catch_up_seconds` (histogram) and
//! `tonindex_catch_up_failures_total`.

use std::sync::OnceLock;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tonindex_storage::Db;

/// Histogram buckets in seconds: sub-millisecond point lookups to
/// multi-second pages and get-methods.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The recorder, installed on first use; `None` if another recorder was
/// installed first (metrics are then not ours to render).
pub fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets(BUCKETS)
                .ok()?
                .install_recorder()
                .ok()?;
            // Histogram samples wait in the recorder until upkeep folds them
            // into buckets: without it a server nobody scrapes would keep
            // every sample.
            let upkeep = handle.clone();
            let _ = std::thread::Builder::new()
                .name("tonindex-metrics".into())
                .spawn(move || loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                });
            Some(handle)
        })
        .as_ref()
}

/// How often histogram samples are folded into their buckets.
const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// RocksDB properties reported, summed over every table.
const ROCKSDB: &[(&str, &str)] = &[
    (
        "tonindex_rocksdb_memtable_bytes",
        "rocksdb.cur-size-all-mem-tables",
    ),
    ("tonindex_rocksdb_sst_bytes", "rocksdb.total-sst-files-size"),
    (
        "tonindex_rocksdb_pending_compaction_bytes",
        "rocksdb.estimate-pending-compaction-bytes",
    ),
    (
        "tonindex_rocksdb_block_cache_bytes",
        "rocksdb.block-cache-usage",
    ),
    (
        "tonindex_rocksdb_running_compactions",
        "rocksdb.num-running-compactions",
    ),
    // Memtables full or sealed, waiting for their table's flush. On a
    // follower, one per table for each log the writer opened since that
    // table last flushed; every read searches each of them.
    (
        "tonindex_rocksdb_sealed_memtables",
        "rocksdb.num-immutable-mem-table",
    ),
];

/// Sets the gauges read from the database: what the index holds and how
/// far behind the newest block's time it is (`now`, unix seconds).
pub fn observe_db(db: &Db, newest_block_utime: Option<u32>, now: u64) {
    if let Ok(cursor) = db.cursor() {
        metrics::gauge!("tonindex_index_blocks").set(cursor.blocks as f64);
        metrics::gauge!("tonindex_index_transactions").set(cursor.transactions as f64);
        if let Some(seqno) = cursor.last_mc_seqno {
            metrics::gauge!("tonindex_index_last_mc_seqno").set(f64::from(seqno));
        }
    }
    if let Some(utime) = newest_block_utime {
        let behind = now.saturating_sub(u64::from(utime));
        metrics::gauge!("tonindex_index_seconds_behind").set(behind as f64);
    }
    for (gauge, property) in ROCKSDB {
        if let Ok(v) = db.property_sum(property) {
            metrics::gauge!(*gauge).set(v as f64);
        }
    }
}

/// The text exposition of everything recorded.
pub fn render() -> Option<String> {
    let h = handle()?;
    h.run_upkeep();
    Some(h.render())
}
