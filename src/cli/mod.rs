//! Command line: `dev`, `import`, `serve`, `stats`, `compact`, `snapshot`, `sync`, `run`,
//! `bench`, `bench-serve`, `tvm`.

#[cfg(target_os = "linux")]
mod affinity;
pub mod bench;
mod bench_battery;
mod bench_contracts;
pub mod bench_dev;
mod bench_pages;
pub mod bench_serve;
mod bench_streams;
pub mod bench_sync;
mod bench_writer;
pub mod compact;
pub mod dev;
mod draw;
pub mod import;
mod scratch;
pub mod serve;
pub mod snapshot;
pub mod stats;
pub mod sync;
pub mod tvm;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::Config;

#[derive(Debug, Parser)]
#[command(
    name = "tonindex",
    version,
    about = "Self-hosted TON indexer with toncenter-compatible API v2/v3"
)]
pub struct Cli {
    /// Config file (default: configs/tonindex.toml when it exists); given
    /// before the subcommand.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log filter, overriding the config (error, warn, info, debug, trace).
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a local TON chain and serve API v2 and v3 on it (automine).
    Dev(dev::DevArgs),
    /// Import block and state files (binary, hex or base64 BoC) and TON
    /// archive packages into the database, in chain order.
    Import(import::ImportArgs),
    /// Serve API v2 and v3 over HTTP from the database.
    Serve(serve::ServeArgs),
    /// Print row counts, sizes and content digests of every table, as JSON.
    Stats(stats::StatsArgs),
    /// Compact every table fully (once a backfill is done): fewer, smaller
    /// files, what later units superseded dropped.
    Compact(compact::CompactArgs),
    /// Write the index to one file (`create`, beside a running node too), or
    /// start a new node's database from one (`restore`).
    Snapshot(snapshot::SnapshotArgs),
    /// Follow a chain from the lite servers of its global config into the database.
    Sync(sync::SyncArgs),
    /// Follow a chain (as `sync`) and serve API v2 and v3 over it, in one process.
    Run(sync::RunArgs),
    /// Measure decode and index throughput on block files.
    Bench(bench::BenchArgs),
    /// Measure the devnet's throughput (a load generator of wallet transfers),
    /// optionally beside the official emulator's for the same transactions.
    BenchDev(bench_dev::BenchDevArgs),
    /// Measure HTTP throughput and latency of the API against a bare axum handler.
    BenchServe(bench_serve::BenchServeArgs),
    /// Run smart-contract code (get-methods) with the built-in TVM.
    Tvm(tvm::TvmArgs),
}

impl Cli {
    /// The configuration with this command line's overrides applied.
    pub fn config(&self) -> anyhow::Result<Config> {
        let mut cfg = Config::load(self.config.as_deref())?;
        if let Some(level) = &self.log_level {
            cfg.log_level = level.clone();
        }
        match &self.command {
            Command::Import(a) => {
                if let Some(db) = &a.db {
                    cfg.db = db.clone();
                }
                if let Some(t) = a.threads {
                    cfg.import.threads = t;
                }
            }
            Command::Stats(a) => {
                if let Some(db) = &a.db {
                    cfg.db = db.clone();
                }
            }
            Command::Compact(a) => {
                if let Some(db) = &a.db {
                    cfg.db = db.clone();
                }
            }
            Command::Snapshot(a) => {
                if let snapshot::SnapshotAction::Create { db: Some(db), .. } = &a.action {
                    cfg.db = db.clone();
                }
            }
            Command::Sync(a) => {
                if let Some(db) = &a.db {
                    cfg.db = db.clone();
                }
            }
            Command::Run(a) => {
                if let Some(db) = &a.sync.db {
                    cfg.db = db.clone();
                }
                if let Some(listen) = &a.listen {
                    cfg.serve.listen = listen.clone();
                }
            }
            Command::Serve(a) => {
                if let Some(db) = &a.db {
                    cfg.db = db.clone();
                }
                if let Some(listen) = &a.listen {
                    cfg.serve.listen = listen.clone();
                }
            }
            Command::Dev(a) => {
                if let Some(listen) = &a.listen {
                    cfg.serve.listen = listen.clone();
                }
            }
            Command::BenchServe(a) => {
                if let Some(db) = &a.db {
                    cfg.db = db.clone();
                }
            }
            Command::Bench(_) | Command::BenchDev(_) | Command::Tvm(_) => {}
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

/// What SIGHUP reloads: the `[serve]` section of the same config file and
/// environment the process started with.
pub fn reload_serve(config_path: Option<PathBuf>) -> crate::api::Reload {
    Box::new(move || Ok(Config::load(config_path.as_deref())?.serve))
}

/// Prints `text` and a newline on standard output. A reader that closed
/// the pipe before the end (`tonindex stats | head`) ends the output
/// quietly: Rust's `println!` would panic there.
pub(crate) fn print_out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => Ok(written?),
    }
}

/// Makes the global rayon pool the import's decode pool: `threads` threads
/// (0 = one per core) at a lower priority than the writer.
pub fn init_threads(threads: usize) -> anyhow::Result<()> {
    crate::ingest::decode_pool(threads)
        .build_global()
        .map_err(|e| anyhow::anyhow!("thread pool: {e}"))
}
