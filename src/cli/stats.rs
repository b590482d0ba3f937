//! `tonindex stats`: what the database holds, as JSON.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use tonindex_storage::{Db, DbOptions};

use crate::config::Config;

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Database directory (overrides the config's `db`).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
}

pub fn run(cfg: &Config) -> anyhow::Result<()> {
    if !cfg.db.join("CURRENT").is_file() {
        anyhow::bail!("no database at {}", cfg.db.display());
    }
    let db = Db::open(&cfg.db, &DbOptions::default())?;
    let cursor = db.cursor()?;
    let stats = db.stats()?;
    // Bytes of keys and values per indexed transaction (none: null), the
    // figure storage is sized by.
    let per_tx = |bytes: u64| {
        (cursor.transactions > 0)
            .then(|| (bytes as f64 / cursor.transactions as f64 * 10.0).round() / 10.0)
    };
    let total: u64 = stats.iter().map(|t| t.key_bytes + t.value_bytes).sum();
    // SST bytes cover what was flushed; after `tonindex compact` that is
    // everything, and the figure is what the disk holds (compressed).
    let sst_total: u64 = stats.iter().map(|t| t.sst_bytes).sum();
    // On-disk sizes apart from `tables`, which describes content only (two
    // databases with equal rows have equal `tables`, however compacted).
    let disk: serde_json::Map<String, serde_json::Value> = stats
        .iter()
        .map(|t| {
            let v = json!({"sst_bytes": t.sst_bytes, "sst_bytes_per_tx": per_tx(t.sst_bytes)});
            (t.name.to_string(), v)
        })
        .collect();
    let tables: Vec<_> = stats
        .into_iter()
        .map(|t| {
            json!({
                "name": t.name,
                "rows": t.rows,
                "key_bytes": t.key_bytes,
                "value_bytes": t.value_bytes,
                "bytes_per_tx": per_tx(t.key_bytes + t.value_bytes),
                "digest": format!("{:016x}", t.digest.0),
            })
        })
        .collect();
    let out = json!({
        "db": cfg.db.display().to_string(),
        "schema_version": tonindex_storage::SCHEMA_VERSION,
        "cursor": {
            "units": cursor.units,
            "blocks": cursor.blocks,
            "transactions": cursor.transactions,
            "message_refs": cursor.messages,
            "next_tx_id": cursor.next_tx_id,
            "last_mc_seqno": cursor.last_mc_seqno,
        },
        "bytes_per_tx": per_tx(total),
        "sst_bytes": sst_total,
        "sst_bytes_per_tx": per_tx(sst_total),
        "sst_tables": disk,
        "tables": tables,
    });
    super::print_out(&serde_json::to_string_pretty(&out)?)
}
