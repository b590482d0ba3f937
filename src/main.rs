use clap::Parser;

/// Decoding allocates and frees many small cells across threads; mimalloc
/// handles that pattern markedly better than glibc malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use tonindex::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let result = cli.config().and_then(|cfg| {
        let logs = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(&cfg.log_level))
            .with_writer(std::io::stderr);
        if cfg.log_format == "json" {
            logs.json().init();
        } else {
            logs.init();
        }
        let cache = usize::try_from(cfg.block_cache_mb << 20).unwrap_or(usize::MAX);
        if !tonindex_storage::tables::set_block_cache_bytes(cache) {
            tracing::warn!(
                "the block cache was made before the config was read; it keeps its size"
            );
        }
        match &cli.command {
            Command::Dev(args) => tonindex::cli::dev::run(&cfg, args, cli.config.clone()),
            Command::Import(args) => tonindex::cli::import::run(&cfg, args),
            Command::Serve(_) => tonindex::cli::serve::run(&cfg, cli.config.clone()),
            Command::Stats(_) => tonindex::cli::stats::run(&cfg),
            Command::Compact(_) => tonindex::cli::compact::run(&cfg),
            Command::Snapshot(args) => tonindex::cli::snapshot::run(&cfg, args),
            Command::Sync(args) => tonindex::cli::sync::run(&cfg, args),
            Command::Run(args) => {
                tonindex::cli::sync::run_and_serve(&cfg, args, cli.config.clone())
            }
            Command::BenchServe(args) => tonindex::cli::bench_serve::run(&cfg, args),
            Command::Bench(args) => tonindex::cli::bench::run(args),
            Command::BenchDev(args) => tonindex::cli::bench_dev::run(args),
            Command::Tvm(args) => tonindex::cli::tvm::run(args),
        }
    });
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
