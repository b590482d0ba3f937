//! `tonindex bench-dev`: the devnet's throughput. A load generator makes
//! `--wallets` genesis v4r2 wallets each send one transfer to the next per
//! block pair (or, with `--profile mainnet`, a mix shaped like mainnet's),
//! for `--blocks` block pairs or until `--transactions` N: every
//! transaction is executed, built into real blocks and indexed, as
//! `tonindex dev` does, though each round is indexed while the next one
//! executes (`tonindex dev` answers from the index once a round returns;
//! a load generator reads nothing back). Reported per CPU second of this process while it
//! produces the blocks (all its threads: executor, index, RocksDB); the
//! clients' signing is left out.
//! With `--emulator DIR` the same transactions are re-run on the official
//! emulator (`DIR/devnet_replay.mjs`, @ton/sandbox) and its rate per CPU
//! second is printed beside ours.

use super::draw::Draw;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};
use clap::Args;
use tonindex_storage::{Db, DbOptions};
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::StdAddr;

use crate::chain::devnet::layout::Layout;
use crate::chain::devnet::node::{Devnet, DevnetOptions, GenesisWallet};
use crate::chain::devnet::reference_jetton::{self, Jetton};
use crate::chain::devnet::reference_nft::{self, Collection};
use crate::chain::devnet::reference_pool::{self, Pool};
use crate::chain::devnet::replay::emulator_input;
use crate::chain::devnet::DEFAULT_MNEMONIC;
use crate::wallet_client::highload_v3::HighloadV3;
use crate::wallet_client::mnemonic::Keys;
use crate::wallet_client::standard::{comment_body, Outgoing, Version, Wallet};

#[derive(Debug, Args)]
pub struct BenchDevArgs {
    /// Sending wallets (v4r2); each sends one transfer per block pair.
    #[arg(long, default_value_t = 200)]
    pub wallets: u16,
    /// Block pairs to produce under measurement.
    #[arg(long, default_value_t = 20)]
    pub blocks: u32,
    /// Produce block pairs until at least N transactions are measured
    /// (instead of --blocks): a corpus of a given size.
    #[arg(long, value_name = "N", conflicts_with = "blocks")]
    pub transactions: Option<u64>,
    /// Re-run the same transactions on the official emulator: the directory
    /// of `devnet_replay.mjs` with @ton/sandbox installed (tests/emulator).
    #[arg(long, value_name = "DIR")]
    pub emulator: Option<PathBuf>,
    /// Keep the produced blocks (and zerostates) in DIR.
    #[arg(long, value_name = "DIR")]
    pub export_blocks: Option<PathBuf>,
    /// Also write them to DIR as TON archive packages with signed proofs
    /// (a corpus for `tonindex import` of packages).
    #[arg(long, value_name = "DIR")]
    pub export_packages: Option<PathBuf>,
    /// Make every N-th masterchain block a key block (besides the first).
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
    /// What the senders send: `uniform` (one plain transfer each to the
    /// next sender) or `mainnet` (a mix shaped like mainnet's traffic:
    /// v4r2 and v5r1 senders and v3r2 and highload v3 ones deployed for
    /// the run, a hot
    /// exchange wallet in ~20 % of transfers, comments, bounces from
    /// nonexistent accounts, three-message batches, Jetton transfers of a
    /// TEP-74 Jetton that every fourth sender holds, to wallets deployed as
    /// they first receive, NFT transfers of a collection's items, and calls
    /// to a pool-like contract that answers each).
    #[arg(long, value_enum, default_value_t = Profile::Uniform)]
    pub profile: Profile,
    /// Then index the same blocks twice more, into fresh databases: imported
    /// from the files, and followed from the devnet's lite server.
    #[arg(long)]
    pub sync: bool,
    /// With --sync, follow once more through a relay that delays every
    /// byte by half this round trip each way (0: not), as a lite server
    /// across a real network would.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    pub rtt_ms: u64,
    /// Serve Streaming API v2 over the rounds to N SSE subscribers, one
    /// sending wallet each, and report commit-to-client latency and memory
    /// per idle subscriber instead of the chain's rate.
    #[arg(long, value_name = "N")]
    pub subscribers: Option<usize>,
}

/// The traffic `bench-dev` makes (see [`BenchDevArgs::profile`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Profile {
    Uniform,
    Mainnet,
}

/// Units of the Jetton minted to each holder.
const MINTED: u128 = 1_000_000_000;
/// Messages in one external of the token admin (a v5r1 wallet sends up to 255).
const ADMIN_BATCH: usize = 200;
/// Externals each highload wallet sends a round.
const HIGHLOAD_PER_ROUND: u32 = 5;

/// An NFT item of the mainnet profile's collection.
struct Item {
    address: StdAddr,
    /// The sender that owns it.
    owner: usize,
    /// The round from which its owner may send it (a transfer may take a
    /// round to reach an item in another shard).
    ready_at: u32,
}

/// What the mainnet profile's senders send and hold: the receivers, the
/// hot wallet, the Jetton wallet of every fourth sender (from index 0) and
/// two NFT items of every fourth (from index 1); v3r2 wallets (one for
/// every ten senders) and highload v3 wallets (one for every hundred)
/// deployed for the run, sending plain transfers; and a pool that answers
/// every call.
struct Mix {
    senders: Vec<StdAddr>,
    v3r2: Vec<(Wallet, StdAddr)>,
    highload: Vec<(HighloadV3, StdAddr)>,
    receivers: Vec<StdAddr>,
    hot: StdAddr,
    jetton_wallets: std::collections::HashMap<usize, StdAddr>,
    items: Vec<Item>,
    pool: StdAddr,
}

impl Mix {
    /// Deploys the Jetton's minter (with its first mint) and mints
    /// [`MINTED`] to its holders, then deploys the collection (with its
    /// first item) and its items, all sent by `admin`, a v5r1 wallet that
    /// sends nothing else, before the measured rounds.
    fn set_up(
        devnet: &mut Devnet,
        keys: &Keys,
        admin: &GenesisWallet,
        senders: &[GenesisWallet],
        receivers: Vec<StdAddr>,
        hot: StdAddr,
        valid_until: u32,
    ) -> anyhow::Result<Self> {
        let mut seqno = 0u32;
        let mut send = |devnet: &mut Devnet, out: Vec<Outgoing>| -> anyhow::Result<()> {
            let ext = admin.wallet.transfers(keys, seqno, valid_until, &out)?;
            seqno += 1;
            if !devnet.produce_settled(vec![ext])?.dropped.is_empty() {
                return Err(anyhow!("the token admin's message was not accepted"));
            }
            Ok(())
        };
        let jetton = Jetton::new(&admin.address)?;
        let holders: Vec<usize> = (0..senders.len()).step_by(4).collect();
        let mut first = true;
        for chunk in holders.chunks(ADMIN_BATCH) {
            let mut out = Vec::with_capacity(chunk.len());
            for &i in chunk {
                out.push(Outgoing {
                    to: jetton.minter.clone(),
                    amount: 100_000_000,
                    bounce: false,
                    body: Some(jetton.mint_body(&senders[i].address, MINTED, &admin.address)?),
                    init: std::mem::take(&mut first).then(|| jetton.minter_init.clone()),
                });
            }
            send(devnet, out)?;
        }
        let mut jetton_wallets = std::collections::HashMap::new();
        for &i in &holders {
            jetton_wallets.insert(i, jetton.wallet_of(&senders[i].address)?);
        }
        let collection = Collection::new(
            &admin.address,
            "https://example.org/bench.json",
            "https://example.org/bench/",
        )?;
        let owners: Vec<usize> = (1..senders.len()).step_by(4).flat_map(|i| [i, i]).collect();
        let mut items = Vec::with_capacity(owners.len());
        let mut first = true;
        for chunk in owners.chunks(ADMIN_BATCH) {
            let mut out = Vec::with_capacity(chunk.len());
            for &owner in chunk {
                let index = items.len() as u64;
                out.push(Outgoing {
                    to: collection.address.clone(),
                    amount: 100_000_000,
                    bounce: false,
                    body: Some(collection.deploy_item(index, &senders[owner].address)?),
                    init: std::mem::take(&mut first).then(|| collection.init.clone()),
                });
                items.push(Item {
                    address: collection.item(index)?,
                    owner,
                    ready_at: 0,
                });
            }
            send(devnet, out)?;
        }
        // v3r2 senders, deployed by the admin with their coins.
        let v3r2: Vec<(Wallet, StdAddr)> = (0..senders.len().div_ceil(10))
            .map(|n| {
                let w = Wallet::nth(Version::V3R2, keys, n as u16, -239);
                let address = w.address();
                (w, address)
            })
            .collect();
        for chunk in v3r2.chunks(ADMIN_BATCH) {
            let out = chunk
                .iter()
                .map(|(w, address)| Outgoing {
                    to: address.clone(),
                    amount: 10_000_000_000,
                    bounce: false,
                    body: None,
                    init: Some(w.state_init()),
                })
                .collect();
            send(devnet, out)?;
        }
        // Highload v3 wallets (as exchanges pay out), deployed the same way.
        let highload = (0..senders.len().div_ceil(100))
            .map(|n| {
                let w = HighloadV3 {
                    public_key: keys.public,
                    subwallet_id: n as u32,
                    timeout: 3600,
                };
                let address = w.address()?;
                Ok((w, address))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let out = highload
            .iter()
            .map(|(w, address)| {
                Ok(Outgoing {
                    to: address.clone(),
                    amount: 100_000_000_000,
                    bounce: false,
                    body: None,
                    init: Some(w.state_init()?),
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        send(devnet, out)?;
        // The pool, deployed with its first coins.
        let pool = Pool::new()?;
        send(
            devnet,
            vec![Outgoing {
                to: pool.address.clone(),
                amount: 1_000_000_000,
                bounce: false,
                body: None,
                init: Some(pool.init),
            }],
        )?;
        Ok(Self {
            senders: senders.iter().map(|w| w.address.clone()).collect(),
            v3r2,
            highload,
            receivers,
            hot,
            jetton_wallets,
            items,
            pool: pool.address,
        })
    }

    /// The v3r2 wallets' externals of round `seqno`: a plain transfer each
    /// to a random wallet, 15 % with a comment.
    fn v3r2_externals(
        &self,
        draw: &mut Draw,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
    ) -> anyhow::Result<Vec<Cell>> {
        self.v3r2
            .iter()
            .map(|(w, _)| {
                let body = (draw.below(100) < 15)
                    .then(|| comment_body(&format!("v3 {seqno}")))
                    .transpose()?;
                let out = Outgoing {
                    to: self.receivers[draw.below(self.receivers.len())].clone(),
                    amount: 1_000_000,
                    bounce: false,
                    body,
                    init: None,
                };
                Ok(w.transfers(keys, seqno, valid_until, &[out])?)
            })
            .collect()
    }

    /// The highload wallets' externals of round `round`: five each, one
    /// transfer apiece to a random wallet, under query numbers that no
    /// other round uses.
    fn highload_externals(
        &self,
        draw: &mut Draw,
        keys: &Keys,
        round: u32,
    ) -> anyhow::Result<Vec<Cell>> {
        let created_at = crate::clock::unix_now().saturating_sub(5);
        let mut out = Vec::with_capacity(self.highload.len() * HIGHLOAD_PER_ROUND as usize);
        for (w, _) in &self.highload {
            for k in 0..HIGHLOAD_PER_ROUND {
                let to = Outgoing {
                    to: self.receivers[draw.below(self.receivers.len())].clone(),
                    amount: 2_000_000,
                    bounce: false,
                    body: None,
                    init: None,
                };
                out.push(w.transfer(keys, round * HIGHLOAD_PER_ROUND + k, created_at, &to)?);
            }
        }
        Ok(out)
    }

    /// Sender `i`'s messages of one round: 20 % to the hot wallet, 15 %
    /// with a comment, 5 % bouncing from a nonexistent account (enough
    /// value for the bounce), 10 % three messages at once, 15 % of a Jetton
    /// holder's a Jetton transfer (a third forwarding a comment), 5 % of an
    /// item owner's an NFT transfer to another sender, 5 % a call to the
    /// pool (answered with a reply), the rest one plain
    /// transfer to a random wallet.
    fn next(&mut self, draw: &mut Draw, i: usize, round: u32) -> anyhow::Result<Vec<Outgoing>> {
        let plain = |to: &StdAddr| Outgoing {
            to: to.clone(),
            amount: 1_000_000,
            bounce: false,
            body: None,
            init: None,
        };
        let receivers = &self.receivers;
        let pick = |draw: &mut Draw| receivers[draw.below(receivers.len())].clone();
        let me = &self.senders[i];
        Ok(match draw.below(100) {
            0..20 => vec![plain(&self.hot)],
            20..35 => vec![Outgoing {
                body: Some(comment_body(&format!(
                    "invoice {round}-{}",
                    draw.below(1 << 20)
                ))?),
                ..plain(&pick(draw))
            }],
            35..40 => {
                let mut nowhere = [0u8; 32];
                nowhere[..8].copy_from_slice(&draw.next().to_be_bytes());
                vec![Outgoing {
                    to: StdAddr::new(0, HashBytes(nowhere)),
                    amount: 50_000_000,
                    bounce: true,
                    body: None,
                    init: None,
                }]
            }
            40..50 => vec![
                plain(&pick(draw)),
                plain(&pick(draw)),
                Outgoing {
                    body: Some(comment_body("batch")?),
                    init: None,
                    ..plain(&pick(draw))
                },
            ],
            50..65 if self.jetton_wallets.contains_key(&i) => {
                let forward = (draw.below(3) == 0)
                    .then(|| comment_body(&format!("order {round}")))
                    .transpose()?;
                let body = reference_jetton::transfer_body(
                    u64::from(round),
                    1 + draw.below(100) as u128,
                    &pick(draw),
                    me,
                    1,
                    forward,
                )?;
                vec![Outgoing {
                    to: self.jetton_wallets[&i].clone(),
                    amount: 50_000_000,
                    bounce: true,
                    body: Some(body),
                    init: None,
                }]
            }
            65..70
                if self
                    .items
                    .iter()
                    .any(|t| t.owner == i && t.ready_at <= round) =>
            {
                let item = self
                    .items
                    .iter_mut()
                    .find(|t| t.owner == i && t.ready_at <= round)
                    .expect("an item it may send");
                let to = (i + 1 + draw.below(self.senders.len() - 1)) % self.senders.len();
                item.owner = to;
                item.ready_at = round + 2;
                let body = reference_nft::transfer_body(u64::from(round), &self.senders[to], me)?;
                vec![Outgoing {
                    to: item.address.clone(),
                    amount: 50_000_000,
                    bounce: true,
                    body: Some(body),
                    init: None,
                }]
            }
            // A call to the pool, answered with what is left of its value.
            70..75 => vec![Outgoing {
                to: self.pool.clone(),
                amount: 100_000_000,
                bounce: true,
                body: Some(reference_pool::call_body(
                    u64::from(round) << 32 | i as u64,
                )?),
                init: None,
            }],
            _ => vec![plain(&pick(draw))],
        })
    }
}

/// CPU time this process has used, all threads.
fn cpu_time() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            let tv = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
            };
            return tv(usage.ru_utime) + tv(usage.ru_stime);
        }
    }
    Duration::ZERO
}

/// A long run's progress on stderr, at most every ten seconds: rounds,
/// transactions, and the rate since the last line (a round's cost grows
/// with the state, so the latest rate says more than the average).
struct Progress {
    last: Instant,
    last_transactions: usize,
    last_cpu: Duration,
}

impl Progress {
    const EVERY: Duration = Duration::from_secs(10);

    fn new() -> Self {
        Self {
            last: Instant::now(),
            last_transactions: 0,
            last_cpu: Duration::ZERO,
        }
    }

    fn report(&mut self, rounds: u32, transactions: usize, cpu: Duration) {
        let wall = self.last.elapsed();
        if wall < Self::EVERY {
            return;
        }
        let done = transactions - self.last_transactions;
        let cpu_spent = (cpu - self.last_cpu).as_secs_f64().max(1e-9);
        eprintln!(
            "bench-dev: {rounds} block pairs, {transactions} transactions; since the last line \
             {:.0} tx/s wall, {:.0} tx per CPU second",
            done as f64 / wall.as_secs_f64(),
            done as f64 / cpu_spent,
        );
        *self = Self {
            last: Instant::now(),
            last_transactions: transactions,
            last_cpu: cpu,
        };
    }
}

/// The devnet's scratch index in `dir` and the devnet's options (blocks
/// exported to `export`).
fn open_index(
    args: &BenchDevArgs,
    dir: &Path,
    export: &Path,
) -> anyhow::Result<(Arc<Db>, DevnetOptions)> {
    // Nothing reads the devnet's index back but the indexer itself, unless
    // a lite server (--sync) or streams (--subscribers) serve from it: its
    // other tables take the importer's append-only memtables (a skiplist
    // insert was a fifth of a long run's profile). It is deleted after the
    // run: a scratch index, without zstd in its last level.
    let served = args.sync || args.subscribers.is_some();
    let db = Arc::new(Db::open(
        dir,
        &DbOptions {
            sync_writes: false,
            write_only_memtables: !served,
            scratch: true,
            bulk: false,
        },
    )?);
    let opts = DevnetOptions {
        mnemonic: DEFAULT_MNEMONIC.into(),
        // Genesis wallets alternate v4r2 and v5r1; the v4r2 ones send.
        wallets: args.wallets.saturating_mul(2),
        wallet_balance: 1_000_000 * 1_000_000_000,
        global_id: -239,
        accounts: Vec::new(),
        libraries: Vec::new(),
        block_interval: None,
        confirm_gap: None,
        export_dir: Some(export.to_path_buf()),
        export_packages: args.export_packages.clone(),
        key_block_every: args.key_block_every,
        layout: Layout::new(args.shards, args.split_merge_every).map_err(|e| anyhow!(e))?,
    };
    Ok((db, opts))
}

/// Replays the measured rounds' transactions (from masterchain block
/// `first_measured` on, read back from the exported blocks) on
/// @ton/sandbox's emulator and prints its rate next to ours.
fn compare_with_emulator(
    emulator_dir: &Path,
    export: &Path,
    first_measured: u32,
    scratch: &Path,
    ours_per_cpu: f64,
) -> anyhow::Result<()> {
    let input = emulator_input(export, first_measured)?;
    let file = scratch.join("replay.json");
    std::fs::write(&file, input.json.to_string())?;
    let out = Command::new("node")
        .arg(emulator_dir.join("devnet_replay.mjs"))
        .arg(&file)
        .arg("--timing")
        .output()
        .context("running node (the emulator comparison needs node and @ton/sandbox)")?;
    if !out.status.success() {
        return Err(anyhow!(
            "the emulator failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let timing: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let emulated = timing["transactions"].as_u64().unwrap_or(0);
    let emu_cpu = timing["cpu_s"].as_f64().unwrap_or(0.0);
    if emulated as usize != input.expected.len() || emulated == 0 {
        return Err(anyhow!(
            "the emulator ran {emulated} of {} transactions",
            input.expected.len()
        ));
    }
    let emulator_per_cpu = emulated as f64 / emu_cpu.max(1e-9);
    println!(
        "@ton/sandbox emulator: the same {emulated} transactions in {:.2}s CPU: {:.0} tx per CPU \
         second (execution only)",
        emu_cpu, emulator_per_cpu
    );
    println!(
        "ratio per CPU second: {:.1}x the emulator",
        ours_per_cpu / emulator_per_cpu
    );
    Ok(())
}

/// The measured rounds: each round's messages signed (not timed), then
/// produced, executed and indexed beside the next; prints the rates and
/// hands back the transactions per CPU second.
fn measure(
    devnet: &mut Devnet,
    args: &BenchDevArgs,
    senders: usize,
    sign_round: &mut impl FnMut(u32) -> anyhow::Result<Vec<Cell>>,
) -> anyhow::Result<f64> {
    let (mut cpu, wall0) = (Duration::ZERO, Instant::now());
    let mut signing = Duration::ZERO;
    let mut transactions = 0usize;
    let mut rounds = 0u32;
    let mut progress = Progress::new();
    loop {
        let done = match args.transactions {
            Some(n) => transactions as u64 >= n,
            None => rounds >= args.blocks,
        };
        if done {
            break;
        }
        rounds += 1;
        let signed = Instant::now();
        let msgs = sign_round(rounds)?;
        signing += signed.elapsed();
        let cpu0 = cpu_time();
        let out = devnet.produce_overlapped(msgs)?;
        cpu += cpu_time() - cpu0;
        if !out.dropped.is_empty() {
            return Err(anyhow!("{} transfers were not accepted", out.dropped.len()));
        }
        transactions += out.transactions;
        progress.report(rounds, transactions, cpu);
    }
    let cpu0 = cpu_time();
    devnet.finish_overlapped()?;
    cpu += cpu_time() - cpu0;
    let wall = wall0.elapsed() - signing;
    let ours_per_cpu = transactions as f64 / cpu.as_secs_f64().max(1e-9);
    println!(
        "devnet: {transactions} transactions ({} wallets x {} block pairs, {:?} profile) \
         executed, built into blocks and indexed in {:.2}s wall, {:.2}s CPU: {:.0} tx/s, {:.0} \
         tx per CPU second",
        senders,
        rounds,
        args.profile,
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        transactions as f64 / wall.as_secs_f64().max(1e-9),
        ours_per_cpu,
    );
    Ok(ours_per_cpu)
}

pub fn run(args: &BenchDevArgs) -> anyhow::Result<()> {
    if args.wallets < 2 {
        return Err(anyhow!("--wallets must be at least 2"));
    }
    if args.emulator.is_some() && (args.shards > 1 || args.split_merge_every.is_some()) {
        return Err(anyhow!(
            "--emulator replays one-shard chains only: drop --shards and --split-merge-every, or the emulator"
        ));
    }
    let scratch = tempfile::tempdir()?;
    let dir = scratch.path().join("db");
    let export = args
        .export_blocks
        .clone()
        .unwrap_or_else(|| scratch.path().join("blocks"));
    let (db, opts) = open_index(args, &dir, &export)?;
    let mut devnet = Devnet::open(crate::ingest::Pipeline::new(Arc::clone(&db)), &dir, &opts)?;
    // The v4r2 genesis wallets send; in the mainnet profile half of the
    // senders are v5r1 wallets instead.
    let senders: Vec<_> = match args.profile {
        Profile::Uniform => devnet
            .wallets()
            .iter()
            .filter(|w| w.wallet.version == Version::V4R2)
            .cloned()
            .collect(),
        Profile::Mainnet => devnet
            .wallets()
            .iter()
            .take(usize::from(args.wallets))
            .cloned()
            .collect(),
    };
    let keys = devnet.keys().clone();
    let valid_until = u32::try_from(crate::clock::unix_now())? + 24 * 3600;
    let receivers: Vec<StdAddr> = devnet.wallets().iter().map(|w| w.address.clone()).collect();
    let hot = devnet
        .wallets()
        .iter()
        .find(|w| w.wallet.version == Version::V5R1)
        .map_or_else(|| receivers[0].clone(), |w| w.address.clone());
    // The mainnet profile's tokens, minted before the measured rounds by a
    // v5r1 wallet that is not a sender.
    let mut mix = match args.profile {
        Profile::Uniform => None,
        Profile::Mainnet => {
            let admin = devnet
                .wallets()
                .iter()
                .skip(senders.len())
                .find(|w| w.wallet.version == Version::V5R1 && w.address != hot)
                .cloned()
                .ok_or_else(|| anyhow!("no spare v5r1 wallet to administer the tokens"))?;
            Some(Mix::set_up(
                &mut devnet,
                &keys,
                &admin,
                &senders,
                receivers.clone(),
                hot.clone(),
                valid_until,
            )?)
        }
    };
    // Each round's messages are signed before its block pair is timed:
    // signing is the clients' work, not the chain's.
    let mut draw = Draw(0x6d61_696e_6e65_7421);
    let mut sign_round = |seqno: u32| -> anyhow::Result<Vec<Cell>> {
        let mut externals = senders
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let out = match mix.as_mut() {
                    None => vec![Outgoing {
                        to: senders[(i + 1) % senders.len()].address.clone(),
                        amount: 1_000_000,
                        bounce: false,
                        body: None,
                        init: None,
                    }],
                    Some(mix) => mix.next(&mut draw, i, seqno)?,
                };
                w.wallet
                    .transfers(&keys, seqno, valid_until, &out)
                    .map_err(anyhow::Error::from)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        if let Some(mix) = mix.as_ref() {
            externals.extend(mix.v3r2_externals(&mut draw, &keys, seqno, valid_until)?);
            externals.extend(mix.highload_externals(&mut draw, &keys, seqno)?);
        }
        Ok(externals)
    };
    // A warm-up round (first transactions of every wallet, caches).
    devnet.produce(sign_round(0)?)?;
    let first_measured = devnet.mc_seqno() + 1;

    if let Some(n) = args.subscribers {
        let wallets: Vec<StdAddr> = senders.iter().map(|w| w.address.clone()).collect();
        let rounds = (1..=args.blocks)
            .map(&mut sign_round)
            .collect::<anyhow::Result<Vec<_>>>()?;
        return super::bench_streams::measure(&mut devnet, db, &wallets, rounds.into_iter(), n);
    }
    let ours_per_cpu = measure(&mut devnet, args, senders.len(), &mut sign_round)?;

    if args.sync {
        super::bench_sync::compare(
            &db,
            &devnet,
            &export,
            scratch.path(),
            Duration::from_millis(args.rtt_ms),
        )?;
    }
    let Some(emulator_dir) = &args.emulator else {
        return Ok(());
    };
    compare_with_emulator(
        emulator_dir,
        &export,
        first_measured,
        scratch.path(),
        ours_per_cpu,
    )
}
