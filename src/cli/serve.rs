//! `tonindex serve`: the HTTP API over the index.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use tonindex_storage::Db;

use crate::config::Config;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Database directory (overrides the config's `db`).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Listen address (overrides `serve.listen`; default 127.0.0.1:8081).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
}

/// Opens the index as a read-only follower (an import may keep writing to
/// it) and serves until SIGINT/SIGTERM.
pub fn run(cfg: &Config, config_path: Option<PathBuf>) -> anyhow::Result<()> {
    let scratch = super::scratch::dir("tonindex-serve-")?;
    let db = Arc::new(Db::open_follower(&cfg.db, scratch.path())?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("tonindex-http")
        .build()?;
    runtime.block_on(crate::api::serve_api(
        db,
        cfg.serve.clone(),
        true,
        None,
        Some(super::reload_serve(config_path)),
        None,
    ))
}
