//! `tonindex compact`: every table compacted down to its last level, once
//! a backfill is done (an import writes append-only; compaction afterwards
//! drops what later units superseded and leaves fewer, larger files).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tonindex_storage::{Db, DbOptions};

use crate::config::Config;

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Database directory (overrides the config's `db`).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
}

/// Bytes of the files directly in `dir` (a RocksDB directory is flat).
fn dir_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let meta = entry?.metadata()?;
        if meta.is_file() {
            total += meta.len();
        }
    }
    Ok(total)
}

pub fn run(cfg: &Config) -> anyhow::Result<()> {
    if !cfg.db.join("CURRENT").is_file() {
        anyhow::bail!("no database at {}", cfg.db.display());
    }
    let db = Db::open(&cfg.db, &DbOptions::default())?;
    let before = dir_bytes(&cfg.db)?;
    let tables = tonindex_storage::tables::all().len() as u64;
    let bar = ProgressBar::new(tables).with_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} tables {msg}",
        )
        .expect("static template"),
    );
    let start = Instant::now();
    let mut started = 0;
    db.compact_fully(|name| {
        if started > 0 {
            bar.inc(1);
        }
        started += 1;
        bar.set_message(name.to_string());
    })?;
    bar.finish_and_clear();
    drop(db);
    let after = dir_bytes(&cfg.db)?;
    println!(
        "compacted {tables} tables of {} in {:.1}s: {before} bytes on disk before, {after} after",
        cfg.db.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
