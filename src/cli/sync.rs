//! `tonindex sync`: follow a chain from the lite servers of its global
//! config into the database (`chain::liteserver::follow`), as `tonindex
//! import` indexes files: one unit per masterchain block, resumable.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use tonindex_storage::{Db, DbOptions};

use crate::chain::liteserver::follow::{follow, FollowOptions, FollowSummary};
use crate::chain::liteserver::tips::Tips;
use crate::chain::liteserver::{
    embedded_config, liteservers, read_config, trust_anchor, zero_state,
};
use crate::config::Config;
use crate::ingest::Pipeline;

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Database directory (overrides the config's `db`).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// The network's global config (its `liteservers` and `validator`);
    /// e.g. the one `tonindex dev --liteserver-config` writes.
    #[arg(long, value_name = "FILE", required_unless_present = "network")]
    pub global_config: Option<PathBuf>,
    /// A network whose global config is built in: `mainnet` or `testnet`
    /// (its public lite servers, zero state and init block).
    #[arg(long, value_name = "NAME", conflicts_with = "global_config",
          value_parser = ["mainnet", "testnet"])]
    pub network: Option<String>,
    /// Believe the lite servers without checking masterchain blocks'
    /// validator signatures (by default each is checked against the
    /// validators in force, from the global config's init block — or zero
    /// state — through every key block after it).
    #[arg(long)]
    pub trust_liteservers: bool,
    /// The first masterchain block to index on an empty database (default:
    /// 1 on a chain whose trust starts at its first blocks, such as the
    /// devnet; the tip on a network whose config names a later init block).
    #[arg(long, value_name = "N")]
    pub from_seqno: Option<u32>,
    /// Stop following once masterchain block N is indexed (default: follow
    /// forever); `tonindex run` goes on serving what it indexed.
    #[arg(long, value_name = "N")]
    pub until_seqno: Option<u32>,
    /// How long a lite server may take over one masterchain block's
    /// queries before the next one is asked (default 15000).
    #[arg(long, value_name = "MS")]
    pub liteserver_timeout_ms: Option<u64>,
    /// Masterchain blocks more than N below the lite servers' consensus
    /// are asked of archival servers (those that keep every block) first.
    #[arg(long, value_name = "N", default_value_t = crate::chain::liteserver::tips::ARCHIVAL_AFTER)]
    pub archival_after: u32,
}

/// `tonindex run`: sync and serve in one process.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub sync: SyncArgs,
    /// Listen address (overrides `serve.listen`; default 127.0.0.1:8081).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Queries the API keeps in flight on one lite server at most (reads
    /// of states the index lacks, sends, proofs); past it the next server
    /// is asked.
    #[arg(long, value_name = "N", default_value_t = crate::chain::liteserver::upstream::CONCURRENCY)]
    pub liteserver_concurrency: usize,
}

/// What a follow is told by the global config and the flags: its lite
/// servers and where it starts and stops.
fn follow_options(
    args: &SyncArgs,
) -> anyhow::Result<(Vec<crate::chain::liteserver::LiteServerAddr>, FollowOptions)> {
    let config = match (&args.network, &args.global_config) {
        (Some(name), _) => embedded_config(name)?,
        (None, Some(path)) => read_config(path)?,
        (None, None) => return Err(anyhow!("give --global-config FILE or --network NAME")),
    };
    let servers = liteservers(&config)?;
    if servers.is_empty() {
        return Err(anyhow!("the global config lists no liteservers"));
    }
    let trusted_from = trust_anchor(&config)?;
    let anchor = if args.trust_liteservers {
        tracing::warn!(
            "--trust-liteservers: masterchain blocks are NOT checked against validator \
             signatures; a lying lite server would be believed"
        );
        None
    } else {
        Some(trusted_from)
    };
    let options = FollowOptions {
        from_seqno: args.from_seqno,
        // A network whose trust starts at a recent key block is followed
        // from its tip: its first blocks are out of reach anyway.
        from_tip: trusted_from.id.seqno > 1,
        until_seqno: args.until_seqno,
        step_timeout: args.liteserver_timeout_ms.map(Duration::from_millis),
        anchor,
        zero_state: Some(zero_state(&config)?),
        tips: None,
    };
    Ok((servers, options))
}

/// The serving config for the network followed: `init` is its zero state
/// (testnet's on testnet, not the config file's default, mainnet's), and
/// on testnet — named or given by its global config — friendly addresses
/// carry the testnet flag, as toncenter's testnet answers write them
/// (`kQ…`/`0Q…`).
fn serving_network(
    serve: &crate::api::ApiConfig,
    followed: Option<&tonindex_model::BlockIdExt>,
) -> anyhow::Result<crate::api::ApiConfig> {
    let mut serve = serve.clone();
    if let Some(zs) = followed {
        serve.zerostate.root_hash = hex::encode(zs.root_hash);
        serve.zerostate.file_hash = hex::encode(zs.file_hash);
        let testnet = zero_state(&embedded_config("testnet")?)?;
        serve.testnet |= testnet.root_hash == zs.root_hash;
    }
    Ok(serve)
}

/// What the follower says of its progress in the log: while catching up,
/// a bar with the rates and the time left (at most once a second); at the
/// tip, the newest block with how far it is behind the clock (at most
/// once every ten seconds).
struct Progress {
    /// When the follow started.
    start: std::time::Instant,
    last_line: Option<std::time::Instant>,
}

/// Catching up means more than this many masterchain blocks behind.
const BEHIND: u32 = 2;
/// Time between lines while catching up, and at the tip.
const CATCHING_UP_EVERY: Duration = Duration::from_secs(1);
const AT_TIP_EVERY: Duration = Duration::from_secs(10);

impl Progress {
    /// For a follow starting now.
    fn new() -> Self {
        Self {
            start: std::time::Instant::now(),
            last_line: None,
        }
    }

    /// Called by the follower after each masterchain block it indexed
    /// (`s` counts from the follow's start).
    fn report(&mut self, s: &FollowSummary, tip: u32) {
        let Some(seqno) = s.last_mc_seqno else {
            return;
        };
        let now = std::time::Instant::now();
        let behind = tip.saturating_sub(seqno);
        let every = if behind > BEHIND {
            CATCHING_UP_EVERY
        } else {
            AT_TIP_EVERY
        };
        if self.last_line.is_some_and(|t| now - t < every) {
            return;
        }
        self.last_line = Some(now);
        let lag = s
            .last_mc_utime
            .map(|t| (crate::clock::unix_now() as i64 - i64::from(t)).max(0));
        if behind > BEHIND {
            let secs = (now - self.start).as_secs_f64().max(1e-3);
            let blocks = s.mc_blocks;
            let rate = blocks as f64 / secs;
            let tx_rate = s.transactions as f64 / secs;
            let first = seqno.saturating_sub(blocks as u32);
            let done = f64::from(seqno - first) / f64::from((tip - first).max(1));
            let left = if rate > 0.0 {
                format_duration(f64::from(behind) / rate)
            } else {
                "?".into()
            };
            tracing::info!(
                "{} masterchain block {seqno} of {tip} ({behind} behind): {rate:.1} blocks/s, \
                 {tx_rate:.0} tx/s, about {left} left",
                bar(done)
            );
        } else {
            tracing::info!(
                "masterchain block {seqno} of {tip} indexed; at the tip, {} behind the clock",
                lag.map_or_else(|| "?".into(), |l| format_duration(l as f64))
            );
        }
    }
}

/// `[#####.....] 50%` for `done` in 0..=1.
fn bar(done: f64) -> String {
    let done = done.clamp(0.0, 1.0);
    let filled = (done * 20.0).round() as usize;
    format!(
        "[{}{}] {:>3.0}%",
        "#".repeat(filled),
        ".".repeat(20 - filled),
        done * 100.0
    )
}

/// `1h02m`, `3m05s`, `12s`.
fn format_duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// Commits the feed keeps for a slow reader (the API's pending traces).
const FEED_CAPACITY: usize = 1024;
/// The first pause before a failed follow is started again, and the
/// longest (the pause doubles after each failure in a row).
const FOLLOW_RETRY_FIRST: Duration = Duration::from_secs(1);
const FOLLOW_RETRY_LAST: Duration = Duration::from_secs(60);

/// Follows the chain and serves API v2 and v3 over it from one process:
/// the follower writes on its own thread, the API reads snapshots, and
/// sends go to the lite server.
pub fn run_and_serve(
    cfg: &Config,
    args: &RunArgs,
    config_path: Option<PathBuf>,
) -> anyhow::Result<()> {
    let (servers, mut opts) = follow_options(&args.sync)?;
    // `init` is the zero state of the network followed (testnet's on
    // testnet), not the config file's default (mainnet's).
    let serve = serving_network(&cfg.serve, opts.zero_state.as_ref())?;
    let keep_states = cfg.index.keep_states;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("tonindex-http")
        .build()?;
    // One watch over the servers' tips for the follower and the API.
    let tips = Tips::start(servers.clone(), args.sync.archival_after, runtime.handle());
    opts.tips = Some(std::sync::Arc::clone(&tips));
    // What the follower commits, for the API's pending traces.
    let feed = crate::ingest::CommitFeed::new(FEED_CAPACITY);
    let db = std::sync::Arc::new(Db::open(
        &cfg.db,
        &DbOptions {
            sync_writes: cfg.sync_writes,
            write_only_memtables: false,
            scratch: false,
            bulk: false,
        },
    )?);
    // The follower's end: reaching --until-seqno leaves the API serving
    // what was indexed. A follow that fails (every lite server down, say)
    // is started again after a pause that grows to a minute, while the
    // API goes on serving (its answers and /healthcheck show the age).
    let (ended, follower_end) = tokio::sync::oneshot::channel::<anyhow::Result<()>>();
    {
        let (db, servers, feed) = (std::sync::Arc::clone(&db), servers.clone(), feed.clone());
        std::thread::Builder::new()
            .name("tonindex-sync".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ended.send(Err(e.into()));
                        return;
                    }
                };
                let mut pause = FOLLOW_RETRY_FIRST;
                loop {
                    let mut progress = Progress::new();
                    let started = std::time::Instant::now();
                    // A pipeline of its own for each follow: what the
                    // last one kept is read back from the database.
                    let pipeline = Pipeline::new(std::sync::Arc::clone(&db))
                        .with_feed(feed.clone())
                        .with_keep_states(keep_states);
                    let followed = runtime.block_on(follow(
                        &pipeline,
                        &servers,
                        &opts,
                        Duration::from_millis(200),
                        |s: &FollowSummary, tip| progress.report(s, tip),
                    ));
                    let Err(e) = followed else {
                        let _ = ended.send(Ok(()));
                        return;
                    };
                    if started.elapsed() > FOLLOW_RETRY_LAST {
                        pause = FOLLOW_RETRY_FIRST;
                    }
                    tracing::error!(
                        "the follow stopped: {e:#}; following again in {pause:?} (the API \
                         serves what is indexed meanwhile)"
                    );
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(FOLLOW_RETRY_LAST);
                }
            })?;
    }
    // Sends go to several lite servers at once; account reads to one, the
    // next after a failure.
    let sender = crate::chain::liteserver::upstream::LiteSender::new(
        tips,
        args.liteserver_concurrency,
        runtime.handle().clone(),
    )
    .with_feed(feed);
    let served = runtime.block_on(async {
        let serve = crate::api::serve_api(
            std::sync::Arc::clone(&db),
            serve,
            false,
            Some(std::sync::Arc::new(sender)),
            Some(super::reload_serve(config_path)),
            None,
        );
        tokio::pin!(serve);
        tokio::select! {
            r = &mut serve => r,
            end = follower_end => match end {
                Ok(Ok(())) => {
                    tracing::info!("the follow reached --until-seqno; serving what it indexed");
                    serve.await
                }
                Ok(Err(e)) => Err(e),
                Err(_) => Err(anyhow!("the follower thread ended without a word")),
            },
        }
    });
    db.flush()?;
    served?;
    Ok(())
}

pub fn run(cfg: &Config, args: &SyncArgs) -> anyhow::Result<()> {
    let (servers, mut opts) = follow_options(args)?;
    let db = std::sync::Arc::new(Db::open(
        &cfg.db,
        &DbOptions {
            sync_writes: cfg.sync_writes,
            write_only_memtables: false,
            scratch: false,
            bulk: false,
        },
    )?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    opts.tips = Some(Tips::start(
        servers.clone(),
        args.archival_after,
        runtime.handle(),
    ));
    let mut progress = Progress::new();
    let summary = runtime.block_on(follow(
        &Pipeline::new(std::sync::Arc::clone(&db)).with_keep_states(cfg.index.keep_states),
        &servers,
        &opts,
        Duration::from_millis(500),
        |s: &FollowSummary, tip| progress.report(s, tip),
    ))?;
    db.flush()?;
    println!(
        "synced {} masterchain and {} shard blocks ({} transactions) from {}; last masterchain block {}",
        summary.mc_blocks,
        summary.shard_blocks,
        summary.transactions,
        servers
            .iter()
            .map(|s| s.addr.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        summary
            .last_mc_seqno
            .map_or_else(|| "none".to_string(), |s| s.to_string())
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_bar_and_durations() {
        assert_eq!(bar(0.0), "[....................]   0%");
        assert_eq!(bar(0.5), "[##########..........]  50%");
        assert_eq!(bar(2.0), "[####################] 100%");
        assert_eq!(format_duration(12.4), "12s");
        assert_eq!(format_duration(185.0), "3m05s");
        assert_eq!(format_duration(3720.0), "1h02m");
    }

    /// `run` on testnet (named, or by a global config with its zero state)
    /// reports testnet's zero state as `init` and writes friendly addresses
    /// with the testnet flag; on mainnet neither changes.
    #[test]
    fn the_followed_network_sets_init_and_the_testnet_flag() {
        let default = crate::api::ApiConfig::default();
        assert!(!default.testnet);
        let testnet = zero_state(&embedded_config("testnet").unwrap()).unwrap();
        let on_testnet = serving_network(&default, Some(&testnet)).unwrap();
        assert!(on_testnet.testnet);
        assert_eq!(
            on_testnet.zerostate.root_hash,
            hex::encode(testnet.root_hash)
        );
        let mainnet = zero_state(&embedded_config("mainnet").unwrap()).unwrap();
        let on_mainnet = serving_network(&default, Some(&mainnet)).unwrap();
        assert!(!on_mainnet.testnet);
        assert_eq!(
            on_mainnet.zerostate.root_hash,
            hex::encode(mainnet.root_hash)
        );
        assert_ne!(mainnet.root_hash, testnet.root_hash);
        // The devnet's own zero state: as configured.
        assert!(!serving_network(&default, None).unwrap().testnet);
    }
}
