//! `tonindex dev`: a local TON chain in this process, served as API v2 and
//! v3 — genesis wallets printed at start, automine by default.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context as _};
use clap::Args;
use tonindex_storage::{Db, DbOptions};
use tycho_types::boc::Boc;
use tycho_types::cell::HashBytes;
use tycho_types::models::{StateInit, StdAddr};
use tycho_types::num::Tokens;

use crate::api::encoding::parse_address;
use crate::chain::devnet::genesis::GenesisAccount;
use crate::chain::devnet::layout::Layout;
use crate::chain::devnet::node::{self, Devnet, DevnetOptions};
use crate::config::{Config, DevAccount};

#[derive(Debug, Args)]
pub struct DevArgs {
    /// Keep the chain in DIR (a restart continues it); default: a fresh
    /// chain in a temporary directory, removed at exit.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Listen address (overrides `serve.listen`; default 127.0.0.1:8081).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// The genesis wallets' 24-word mnemonic (overrides `dev.mnemonic`).
    #[arg(long, value_name = "WORDS")]
    pub mnemonic: Option<String>,
    /// Genesis wallets, alternately v4r2 and v5r1 (overrides `dev.wallets`).
    #[arg(long, value_name = "N")]
    pub wallets: Option<u16>,
    /// Produce a block pair every MS milliseconds instead of on every send.
    #[arg(long, value_name = "MS")]
    pub block_interval: Option<u64>,
    /// With --block-interval: announce each round's shard-block traces
    /// (the streams' `confirmed` level) MS milliseconds before its
    /// masterchain block is indexed (overrides `dev.confirm_gap_ms`; 0: not).
    #[arg(long, value_name = "MS")]
    pub confirm_gap: Option<u64>,
    /// Write every produced block (and the zerostates) to DIR, one BoC each.
    #[arg(long, value_name = "DIR")]
    pub export_blocks: Option<PathBuf>,
    /// Write every produced block to DIR as TON archive packages, as a node
    /// files them (masterchain blocks with signed proofs; `tonindex import`
    /// reads them), with the zerostates.
    #[arg(long, value_name = "DIR")]
    pub export_packages: Option<PathBuf>,
    /// One more genesis account: `ADDRESS:NANOTONS` or
    /// `ADDRESS:NANOTONS:CODE_B64:DATA_B64` (repeatable).
    #[arg(long = "account", value_name = "SPEC", allow_hyphen_values = true)]
    pub accounts: Vec<String>,
    /// A public library the masterchain holds from genesis: a cell BoC file
    /// (binary, hex or base64; repeatable). Mainnet holds the libraries that
    /// contracts such as multisig v2 (its orders' code) and USDT's wallets
    /// refer to by hash; a devnet needs them for those contracts to run.
    /// Read at genesis only.
    #[arg(long = "library", value_name = "FILE")]
    pub libraries: Vec<PathBuf>,
    /// Also serve the lite API (ADNL-TCP) on ADDR, e.g. 127.0.0.1:46732.
    #[arg(long, value_name = "ADDR")]
    pub liteserver_listen: Option<std::net::SocketAddr>,
    /// Write a TON global config listing the lite server to FILE (for
    /// `LiteClient.from_config`, ton-lite-client, `tonindex run`).
    #[arg(long, value_name = "FILE", requires = "liteserver_listen")]
    pub liteserver_config: Option<PathBuf>,
    /// Make every N-th masterchain block a key block (carrying the config),
    /// as a real network's config changes and elections do.
    #[arg(long, value_name = "N")]
    pub key_block_every: Option<u32>,
    /// Split the basechain into N shards (a power of two up to 16) over
    /// the first blocks, as mainnet's basechain is split.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub shards: u32,
    /// Every K masterchain blocks a shard splits, and K blocks later the
    /// pair merges back, as mainnet's shards do under load.
    #[arg(long, value_name = "K")]
    pub split_merge_every: Option<u32>,
}

/// Starts the chain and serves it until SIGINT/SIGTERM.
pub fn run(cfg: &Config, args: &DevArgs, config_path: Option<PathBuf>) -> anyhow::Result<()> {
    let scratch;
    let dir = match &args.db {
        Some(d) => d.clone(),
        None => {
            scratch = super::scratch::dir("tonindex-dev-")?;
            scratch.path().join("db")
        }
    };
    let db = Arc::new(Db::open(
        &dir,
        &DbOptions {
            sync_writes: cfg.sync_writes,
            write_only_memtables: false,
            scratch: false,
            bulk: false,
        },
    )?);
    let opts = options(cfg, args)?;
    let pipeline =
        crate::ingest::Pipeline::new(Arc::clone(&db)).with_keep_states(cfg.index.keep_states);
    let devnet = Devnet::open(pipeline, &dir, &opts)?;
    print_banner(&devnet, &dir, args.db.is_none(), &cfg.serve.listen);
    let mut serve = cfg.serve.clone();
    let (root, file) = devnet.zerostate_hex();
    let lite = match args.liteserver_listen {
        Some(listen) => {
            let hash = |h: &str| -> anyhow::Result<HashBytes> {
                let bytes: [u8; 32] = hex::decode(h)?
                    .try_into()
                    .map_err(|_| anyhow!("a zero state hash is not 32 bytes"))?;
                Ok(HashBytes(bytes))
            };
            println!("Lite server: {listen}");
            Some(crate::api::lite::LiteOptions {
                listen,
                secret: devnet.liteserver_secret(),
                zerostate: (hash(&root)?, hash(&file)?),
                blocks_dir: node::blocks_dir(&dir),
                init_block: first_key_block(&db)?,
                config_file: args.liteserver_config.clone(),
            })
        }
        None => None,
    };
    serve.zerostate.root_hash = root;
    serve.zerostate.file_hash = file;
    let handle = node::spawn(devnet, opts.block_interval);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("tonindex-http")
        .build()?;
    let result = runtime.block_on(crate::api::serve_api(
        Arc::clone(&db),
        serve,
        false,
        Some(handle),
        Some(super::reload_serve(config_path)),
        lite,
    ));
    db.flush()?;
    result
}

fn options(cfg: &Config, args: &DevArgs) -> anyhow::Result<DevnetOptions> {
    let d = &cfg.dev;
    let mut accounts = d
        .accounts
        .iter()
        .map(genesis_account)
        .collect::<anyhow::Result<Vec<_>>>()?;
    for spec in &args.accounts {
        accounts.push(parse_account_flag(spec)?);
    }
    let interval = args.block_interval.unwrap_or(d.block_interval_ms);
    let gap = args.confirm_gap.unwrap_or(d.confirm_gap_ms);
    if gap > 0 && interval == 0 {
        return Err(anyhow!(
            "--confirm-gap (dev.confirm_gap_ms) needs --block-interval (dev.block_interval_ms): \
             with automine a block is committed as it is made"
        ));
    }
    let libraries = args
        .libraries
        .iter()
        .map(|path| {
            let boc = crate::chain::files::read_boc_file(path)?;
            tycho_types::boc::Boc::decode(&boc)
                .with_context(|| format!("--library {}: not a cell BoC", path.display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(DevnetOptions {
        mnemonic: args.mnemonic.clone().unwrap_or_else(|| d.mnemonic.clone()),
        wallets: args.wallets.unwrap_or(d.wallets),
        wallet_balance: d
            .wallet_balance
            .parse()
            .map_err(|_| anyhow!("dev.wallet_balance must be nanotons, a decimal string"))?,
        global_id: d.global_id,
        accounts,
        libraries,
        block_interval: (interval > 0).then(|| Duration::from_millis(interval)),
        confirm_gap: (gap > 0).then(|| Duration::from_millis(gap)),
        export_dir: args.export_blocks.clone(),
        export_packages: args.export_packages.clone(),
        key_block_every: args.key_block_every,
        layout: Layout::new(args.shards, args.split_merge_every).map_err(|e| anyhow!(e))?,
    })
}

fn parse_account_flag(spec: &str) -> anyhow::Result<GenesisAccount> {
    // A raw address has a colon of its own: `wc:hex:balance[:code:data]`.
    let parts: Vec<&str> = spec.split(':').collect();
    let (address, rest) = if parts.len() >= 3 && parts[1].len() == 64 {
        (format!("{}:{}", parts[0], parts[1]), &parts[2..])
    } else {
        (parts[0].to_string(), &parts[1..])
    };
    let account = match rest {
        [balance] => DevAccount {
            address,
            balance: balance.to_string(),
            code: None,
            data: None,
        },
        [balance, code, data] => DevAccount {
            address,
            balance: balance.to_string(),
            code: Some(code.to_string()),
            data: Some(data.to_string()),
        },
        _ => {
            return Err(anyhow!(
            "--account {spec:?}: expected ADDRESS:NANOTONS or ADDRESS:NANOTONS:CODE_B64:DATA_B64"
        ))
        }
    };
    genesis_account(&account)
}

fn genesis_account(a: &DevAccount) -> anyhow::Result<GenesisAccount> {
    let parsed = parse_address(&a.address)
        .ok_or_else(|| anyhow!("genesis account {:?}: not an address", a.address))?;
    let workchain = match parsed.address.workchain {
        w @ (0 | -1) => w as i8,
        w => {
            return Err(anyhow!(
                "genesis account {}: unknown workchain {w}",
                a.address
            ))
        }
    };
    let balance: u128 = a
        .balance
        .parse()
        .map_err(|_| anyhow!("genesis account {}: balance must be nanotons", a.address))?;
    let boc = |what: &str, b64: &str| -> anyhow::Result<tycho_types::cell::Cell> {
        Boc::decode_base64(b64).map_err(|e| {
            anyhow!(
                "genesis account {}: {what} is not a base64 BoC: {e}",
                a.address
            )
        })
    };
    let state_init = match (&a.code, &a.data) {
        (Some(code), Some(data)) => Some(StateInit {
            code: Some(boc("code", code)?),
            data: Some(boc("data", data)?),
            ..Default::default()
        }),
        (None, None) => None,
        _ => {
            return Err(anyhow!(
                "genesis account {}: give both code and data, or neither",
                a.address
            ))
        }
    };
    Ok(GenesisAccount {
        address: StdAddr::new(workchain, HashBytes(parsed.address.id)),
        balance: Tokens::new(balance),
        state_init,
    })
}

fn print_banner(devnet: &Devnet, dir: &std::path::Path, temporary: bool, listen: &str) {
    let ton = |n: u128| format!("{}.{:09}", n / 1_000_000_000, n % 1_000_000_000);
    println!(
        "tonindex dev — a local TON chain (global id {})",
        devnet.global_id()
    );
    println!();
    println!("Genesis wallets (mnemonic below; GET /dev/accounts lists their keys):");
    for (i, w) in devnet.wallets().iter().enumerate() {
        println!(
            "  ({i}) {}  {}  {:<11}  {} TON",
            w.address,
            node::friendly(&w.address),
            w.wallet.version.name(),
            ton(w.balance),
        );
    }
    println!();
    println!("Mnemonic: {}", devnet.mnemonic());
    println!("(public and shared by every devnet: never send real funds to these wallets)");
    println!();
    println!(
        "Chain: {} at masterchain block {}{}",
        dir.display(),
        devnet.mc_seqno(),
        if temporary {
            " (temporary: pass --db DIR to keep it)"
        } else {
            ""
        }
    );
    println!("API: http://{listen}/api/v2/  http://{listen}/api/v3/  http://{listen}/dev/accounts");
}

/// The devnet's first masterchain block (a key block carrying the config):
/// the `init_block` of the global config its lite server writes, as a
/// network's config names a recent key block that clients trust.
fn first_key_block(db: &Db) -> anyhow::Result<Option<crate::api::lite::InitBlock>> {
    let first = crate::query::blocks::mc_block(&db.reader(), 1)?;
    Ok(first
        .filter(|b| b.key_block)
        .map(|b| crate::api::lite::InitBlock {
            seqno: 1,
            root_hash: HashBytes(b.id.root_hash),
            file_hash: HashBytes(b.id.file_hash),
        }))
}
