//! `tonindex sync`: follow a chain from the lite servers of its global
//! config into the database (`chain::liteserver::follow`), as `tonindex
//! import` indexes files: one unit per masterchain block, resumable.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use tonindex_storage::{Db, DbOptions};

use crate::chain::liteserver::follow::{follow, FollowOptions};
use crate::chain::liteserver::{liteservers, read_config};
use crate::config::Config;

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Database directory (overrides the config's `db`).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// The network's global config (its `liteservers`); e.g. the one
    /// `tonindex dev --liteserver-config` writes.
    #[arg(long, value_name = "FILE")]
    pub global_config: PathBuf,
    /// Believe the lite server without checking masterchain blocks'
    /// validator signatures (required for now: the checks are not built).
    #[arg(long)]
    pub trust_liteservers: bool,
    /// The first masterchain block to index on an empty database.
    #[arg(long, value_name = "N")]
    pub from_seqno: Option<u32>,
    /// Stop once masterchain block N is indexed (default: follow forever).
    #[arg(long, value_name = "N")]
    pub until_seqno: Option<u32>,
}

pub fn run(cfg: &Config, args: &SyncArgs) -> anyhow::Result<()> {
    if !args.trust_liteservers {
        return Err(anyhow!(
            "tonindex does not check masterchain blocks' validator signatures yet, so it would \
             believe whatever the lite server sends: pass --trust-liteservers to follow it anyway"
        ));
    }
    tracing::warn!(
        "--trust-liteservers: masterchain blocks are NOT checked against validator signatures; \
         a lying lite server would be believed"
    );
    let config = read_config(&args.global_config)?;
    let server = liteservers(&config)?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("the global config lists no liteservers"))?;
    let db = Db::open(
        &cfg.db,
        &DbOptions {
            sync_writes: cfg.sync_writes,
            write_only_memtables: false,
        },
    )?;
    let opts = FollowOptions {
        from_seqno: args.from_seqno,
        until_seqno: args.until_seqno,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let summary = runtime.block_on(follow(
        &db,
        &server,
        &opts,
        Duration::from_millis(500),
        |s, tip| {
            if let Some(seqno) = s.last_mc_seqno {
                tracing::info!(
                    "masterchain block {seqno} of {tip} indexed ({} behind)",
                    tip.saturating_sub(seqno)
                );
            }
        },
    ))?;
    db.flush()?;
    println!(
        "synced {} masterchain and {} shard blocks ({} transactions) from {}; last masterchain block {}",
        summary.mc_blocks,
        summary.shard_blocks,
        summary.transactions,
        server.addr,
        summary
            .last_mc_seqno
            .map_or_else(|| "none".to_string(), |s| s.to_string())
    );
    Ok(())
}
