//! The running devnet: genesis or resume from the database, block
//! production on its own thread, and every produced block handed to the
//! index through the same decode → unit → batch path as an imported one.
//!
//! The devnet's identity (mnemonic, global id, genesis time and zerostate
//! hashes) is written next to the database at genesis as `devnet.json`;
//! the chain itself — shard states, blocks, cursor — lives in the index,
//! so a restart continues from the last committed block pair.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};
use serde::{Deserialize, Serialize};
use tycho_types::cell::{Cell, HashBytes, Lazy};
use tycho_types::models::{BlockRef, ShardAccount, ShardIdent, ShardStateUnsplit, StdAddr};
use tycho_types::num::Tokens;

use tonindex_model::BlockId;

use super::collator::{self, Chain, Produced, Tip};
use super::genesis::{self, GenesisAccount};
use super::layout::{self, Layout};
use super::proof;
use crate::chain::link::{
    ChainLink, DevLink, Emulated, Executed, LinkBack, Refused, ShardBlockProof,
};
use crate::decode::{decode_block, state::decode_state_file, state::StateFile, DecodedBlock};
use crate::ingest::{CommitFeed, IndexView, Pipeline, SourceUnit};
use crate::tvm::emulate::{self, BlockContext, EmulateError, ExecConfig};
use crate::wallet_client::mnemonic::{self, Keys};
use crate::wallet_client::standard::{Version, Wallet};

/// The shard of a one-shard workchain.
const FULL_SHARD: u64 = 0x8000_0000_0000_0000;

/// Wallet number of the faucet `/dev/fund` pays from (a v4r2 wallet of
/// the devnet's key, far from the numbers of the listed wallets).
const FAUCET_N: u16 = u16::MAX;
/// The faucet's genesis balance: one billion TON.
const FAUCET_BALANCE: u128 = 1_000_000_000 * 1_000_000_000;

/// Commits the feed keeps for a slow follower.
const FEED_CAPACITY: usize = 1024;

/// Block pairs automine produces at most for one send: a message ping-
/// ponging between the workchains is left to later blocks.
const MAX_SETTLE_ROUNDS: usize = 16;

/// How `tonindex dev` starts a chain.
#[derive(Debug, Clone)]
pub struct DevnetOptions {
    pub mnemonic: String,
    /// Genesis wallets (alternately v4r2 and v5r1).
    pub wallets: u16,
    /// Nanotons each genesis wallet holds.
    pub wallet_balance: u128,
    pub global_id: i32,
    /// More genesis accounts.
    pub accounts: Vec<GenesisAccount>,
    /// Public libraries of the masterchain state at genesis.
    pub libraries: Vec<tycho_types::cell::Cell>,
    /// Produce blocks on a timer instead of on every send.
    pub block_interval: Option<Duration>,
    /// With a block interval: announce each round's shard-block traces
    /// (`confirmed`) this long before its masterchain block is indexed.
    pub confirm_gap: Option<Duration>,
    /// Write every produced block there, one BoC file each.
    pub export_dir: Option<PathBuf>,
    /// Write every produced block there as archive packages, as a node
    /// files them (masterchain blocks with signed proofs), with the zerostates.
    pub export_packages: Option<PathBuf>,
    /// Make every N-th masterchain block a key block (besides the first),
    /// as config changes and elections do on a real network.
    pub key_block_every: Option<u32>,
    /// The basechain's shards and how often one splits and merges back.
    pub layout: Layout,
}

/// What is written at genesis and read back on restart.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Identity {
    mnemonic: String,
    global_id: i32,
    wallets: u16,
    wallet_balance: String,
    genesis_utime: u32,
    mc_zerostate_root_hash: String,
    mc_zerostate_file_hash: String,
}

/// A genesis wallet as `/dev/accounts` and the start-up banner show it.
#[derive(Debug, Clone)]
pub struct GenesisWallet {
    pub wallet: Wallet,
    pub address: StdAddr,
    pub balance: u128,
}

/// The devnet state owned by its producer thread.
pub struct Devnet {
    /// The one road into the index: every round is a unit handed to it.
    pipeline: Pipeline,
    chain: Chain,
    keys: Keys,
    identity: Identity,
    wallets: Vec<GenesisWallet>,
    faucet: Wallet,
    export_dir: Option<PathBuf>,
    export_packages: Option<PathBuf>,
    /// Where the index announces each commit of the devnet's blocks.
    feed: CommitFeed,
    /// Where each round's shard-block traces are announced, and how long
    /// before its masterchain block is indexed (none: not announced).
    confirmed: tokio::sync::broadcast::Sender<crate::chain::link::ConfirmedRound>,
    confirm_gap: Option<Duration>,
    /// The newest shard block of each shard made and not yet committed
    /// (during the confirm gap), as the lite server's
    /// `liteServer.nonfinal.getPendingShardBlocks` lists them.
    signed: PendingShardBlocks,
    /// Blocks produced by this process.
    pub produced: u64,
    /// A round made by [`Devnet::produce_overlapped`] and not indexed yet.
    unindexed: Option<Vec<DecodedBlock>>,
}

/// The genesis wallets of a mnemonic: `n` wallets, alternately v4r2 and
/// v5r1, each version numbered from 0 (0 is each client's default wallet).
pub fn genesis_wallets(keys: &Keys, n: u16, global_id: i32, balance: u128) -> Vec<GenesisWallet> {
    (0..n)
        .map(|i| {
            let version = if i % 2 == 0 {
                Version::V4R2
            } else {
                Version::V5R1
            };
            let wallet = Wallet::nth(version, keys, i / 2, global_id);
            GenesisWallet {
                address: wallet.address(),
                wallet,
                balance,
            }
        })
        .collect()
}

/// The validator's key: derived from the wallets' key, so one mnemonic
/// makes the same chain.
fn validator_keys(keys: &Keys) -> Keys {
    let mut seed = b"tonindex devnet validator".to_vec();
    seed.extend_from_slice(&keys.secret);
    Keys::from_secret(genesis::sha256(&seed))
}

fn hex(h: &HashBytes) -> String {
    hex::encode(h.as_array())
}

fn unix_now() -> u32 {
    crate::clock::unix_now().min(u64::from(u32::MAX)) as u32
}

impl Devnet {
    /// Opens the devnet in `dir` (the database directory): a new chain when
    /// the database holds none, else the chain it holds.
    pub fn open(pipeline: Pipeline, dir: &Path, opts: &DevnetOptions) -> anyhow::Result<Self> {
        let identity_path = dir.join("devnet.json");
        let feed = CommitFeed::new(FEED_CAPACITY);
        let pipeline = pipeline.with_feed(feed.clone());
        if identity_path.exists() {
            Self::resume(pipeline, feed, &identity_path, opts)
        } else {
            if !pipeline.view().is_empty()? {
                return Err(anyhow!(
                    "{} holds an index but no devnet.json: it is not a devnet's, or a devnet's \
                     genesis was interrupted; give `tonindex dev --db` an empty directory",
                    dir.display()
                ));
            }
            Self::genesis(pipeline, feed, &identity_path, opts)
        }
    }

    fn genesis(
        pipeline: Pipeline,
        feed: CommitFeed,
        identity_path: &Path,
        opts: &DevnetOptions,
    ) -> anyhow::Result<Self> {
        let keys = mnemonic::keys(&opts.mnemonic)?;
        let validator = validator_keys(&keys);
        let utime = unix_now();
        let wallets = genesis_wallets(&keys, opts.wallets, opts.global_id, opts.wallet_balance);
        let faucet = Wallet::nth(Version::V4R2, &keys, FAUCET_N, opts.global_id);
        let mut accounts: Vec<GenesisAccount> = wallets
            .iter()
            .map(|w| GenesisAccount {
                address: w.address.clone(),
                balance: Tokens::new(w.balance),
                state_init: Some(w.wallet.state_init()),
            })
            .collect();
        accounts.push(GenesisAccount {
            address: faucet.address(),
            balance: Tokens::new(FAUCET_BALANCE),
            state_init: Some(faucet.state_init()),
        });
        accounts.extend(opts.accounts.iter().cloned());
        let g = genesis::build(
            opts.global_id,
            validator.public,
            utime,
            &accounts,
            &opts.libraries,
        )?;

        // The zerostates enter the index as state files do.
        for zs in [&g.basechain, &g.masterchain] {
            let StateFile::State(state) = decode_state_file(&zs.root)? else {
                return Err(anyhow!("a zerostate decoded as an account"));
            };
            pipeline.apply_state(&StateFile::State(state))?;
        }
        let identity = Identity {
            mnemonic: opts.mnemonic.clone(),
            global_id: opts.global_id,
            wallets: opts.wallets,
            wallet_balance: opts.wallet_balance.to_string(),
            genesis_utime: utime,
            mc_zerostate_root_hash: hex(&g.masterchain.root_hash),
            mc_zerostate_file_hash: hex(&g.masterchain.file_hash),
        };
        std::fs::write(identity_path, serde_json::to_vec_pretty(&identity)?)
            .with_context(|| format!("writing {}", identity_path.display()))?;
        let zs_ref = |zs: &genesis::Zerostate| BlockRef {
            end_lt: 0,
            seqno: 0,
            root_hash: zs.root_hash,
            file_hash: zs.file_hash,
        };
        let chain = Chain {
            global_id: opts.global_id,
            validator,
            master: Tip::plain(
                ShardIdent::MASTERCHAIN,
                g.masterchain.root.clone(),
                zs_ref(&g.masterchain),
            ),
            shards: vec![Tip::plain(
                ShardIdent::new_full(0),
                g.basechain.root.clone(),
                zs_ref(&g.basechain),
            )],
            zerostate: zs_ref(&g.masterchain),
            key_block_every: opts.key_block_every,
            layout: opts.layout,
        };
        for dir in opts.export_dir.iter().chain(&opts.export_packages) {
            std::fs::create_dir_all(dir)?;
            std::fs::write(dir.join("zerostate_masterchain.boc"), &g.masterchain.boc)?;
            std::fs::write(dir.join("zerostate_basechain.boc"), &g.basechain.boc)?;
        }
        let mut devnet = Self::assemble(pipeline, feed, chain, keys, identity, opts)?;
        // The first masterchain block is a key block carrying the config;
        // the basechain splits into the shards asked for, a level a block.
        devnet.produce(Vec::new())?;
        while !devnet.chain.layout.reached(&devnet.chain.shards) {
            devnet.produce(Vec::new())?;
        }
        Ok(devnet)
    }

    fn resume(
        pipeline: Pipeline,
        feed: CommitFeed,
        identity_path: &Path,
        opts: &DevnetOptions,
    ) -> anyhow::Result<Self> {
        let identity: Identity = serde_json::from_slice(&std::fs::read(identity_path)?)
            .with_context(|| format!("reading {}", identity_path.display()))?;
        let keys = mnemonic::keys(&identity.mnemonic)?;
        let parse_hash = |s: &str| -> anyhow::Result<HashBytes> {
            let b: [u8; 32] = hex::decode(s)?
                .try_into()
                .map_err(|_| anyhow!("bad hash {s}"))?;
            Ok(HashBytes(b))
        };
        let zerostate = BlockRef {
            end_lt: 0,
            seqno: 0,
            root_hash: parse_hash(&identity.mc_zerostate_root_hash)?,
            file_hash: parse_hash(&identity.mc_zerostate_file_hash)?,
        };
        let index = pipeline.view();
        let held_root = |shard: &ShardIdent, seqno: u32| -> anyhow::Result<Cell> {
            let held = index
                .held_state(shard.workchain(), shard.prefix())?
                .filter(|h| h.seqno == seqno)
                .ok_or_else(|| {
                    anyhow!("the devnet database holds no state of shard {shard} at seqno {seqno}")
                })?;
            Ok(index.state_root(&held.root_hash)?)
        };
        let master = {
            let held = index
                .held_state(-1, FULL_SHARD)?
                .ok_or_else(|| anyhow!("the devnet database holds no masterchain state"))?;
            let last = if held.seqno == 0 {
                zerostate.clone()
            } else {
                let rec = index
                    .block(&BlockId {
                        workchain: -1,
                        shard: FULL_SHARD,
                        seqno: held.seqno,
                    })?
                    .ok_or_else(|| anyhow!("the block of the held state is not indexed"))?;
                BlockRef {
                    end_lt: rec.end_lt,
                    seqno: held.seqno,
                    root_hash: HashBytes(rec.id.root_hash),
                    file_hash: HashBytes(rec.id.file_hash),
                }
            };
            Tip::plain(
                ShardIdent::MASTERCHAIN,
                held_root(&ShardIdent::MASTERCHAIN, held.seqno)?,
                last,
            )
        };
        // The basechain's shards as the last masterchain block lists them.
        let mc_state: ShardStateUnsplit = master.state_root.parse()?;
        let extra = mc_state
            .load_custom()?
            .ok_or_else(|| anyhow!("the masterchain state has no extra"))?;
        let shards = layout::tips_of(&extra.shards, held_root)?;
        let chain = Chain {
            global_id: identity.global_id,
            validator: validator_keys(&keys),
            master,
            shards,
            zerostate,
            key_block_every: opts.key_block_every,
            layout: opts.layout,
        };
        if opts.mnemonic != identity.mnemonic || opts.global_id != identity.global_id {
            tracing::warn!(
                "this database holds a devnet made from another mnemonic or global id; \
                 continuing that chain (its own mnemonic is kept in devnet.json)"
            );
        }
        Self::assemble(pipeline, feed, chain, keys, identity, opts)
    }

    /// The devnet of a chain and its identity: the genesis wallets and the
    /// faucet follow from the identity's key, count and global id.
    fn assemble(
        pipeline: Pipeline,
        feed: CommitFeed,
        chain: Chain,
        keys: Keys,
        identity: Identity,
        opts: &DevnetOptions,
    ) -> anyhow::Result<Self> {
        let balance: u128 = identity.wallet_balance.parse()?;
        Ok(Self {
            wallets: genesis_wallets(&keys, identity.wallets, identity.global_id, balance),
            faucet: Wallet::nth(Version::V4R2, &keys, FAUCET_N, identity.global_id),
            pipeline,
            chain,
            keys,
            identity,
            export_dir: opts.export_dir.clone(),
            export_packages: opts.export_packages.clone(),
            feed,
            confirmed: tokio::sync::broadcast::channel(64).0,
            signed: PendingShardBlocks::default(),
            confirm_gap: opts.confirm_gap,
            produced: 0,
            unindexed: None,
        })
    }

    /// The genesis wallets.
    pub fn wallets(&self) -> &[GenesisWallet] {
        &self.wallets
    }

    /// The mnemonic of the genesis wallets.
    pub fn mnemonic(&self) -> &str {
        &self.identity.mnemonic
    }

    /// The devnet's global id.
    pub fn global_id(&self) -> i32 {
        self.identity.global_id
    }

    /// The masterchain zerostate's root and file hashes (hex).
    pub fn zerostate_hex(&self) -> (String, String) {
        (
            self.identity.mc_zerostate_root_hash.clone(),
            self.identity.mc_zerostate_file_hash.clone(),
        )
    }

    /// The newest masterchain seqno.
    /// The feed announcing what the devnet's rounds commit.
    pub fn feed(&self) -> &CommitFeed {
        &self.feed
    }

    pub fn mc_seqno(&self) -> u32 {
        self.chain.master.last.seqno
    }

    /// The executor's config and a block context after the current tips.
    fn exec_context(&self) -> Result<(ExecConfig, BlockContext), Refused> {
        let internal = |e: String| Refused::new(500, e);
        let mut base_utime = 0;
        for tip in &self.chain.shards {
            let s: ShardStateUnsplit = tip
                .state_root
                .parse()
                .map_err(|e| internal(e.to_string()))?;
            base_utime = base_utime.max(s.gen_utime);
        }
        let mc: ShardStateUnsplit = self
            .chain
            .master
            .state_root
            .parse()
            .map_err(|e| internal(e.to_string()))?;
        let extra = mc
            .load_custom()
            .map_err(|e| internal(e.to_string()))?
            .ok_or_else(|| internal("no masterchain extra".into()))?;
        let now = unix_now().max(base_utime).max(mc.gen_utime);
        let config =
            ExecConfig::new(extra.config.params, now).map_err(|e| internal(e.to_string()))?;
        let lt = self
            .chain
            .shards
            .iter()
            .map(Tip::end_lt)
            .fold(self.chain.master.last.end_lt, u64::max)
            + 1;
        let ctx = BlockContext {
            now,
            block_lt: lt,
            min_lt: lt,
            rand_seed: HashBytes::ZERO,
            libraries: mc.libraries.clone(),
            ignore_chksig: false,
        };
        Ok((config, ctx))
    }

    /// An account as the current tip of its workchain holds it (an empty
    /// one where none exists).
    fn tip_account(&self, dst: &StdAddr) -> Result<ShardAccount, Refused> {
        let internal = |e: String| Refused::new(500, e);
        let tip = self
            .chain
            .tip_of(dst)
            .ok_or_else(|| internal(format!("no shard holds {dst}")))?;
        let state: ShardStateUnsplit = tip
            .state_root
            .parse()
            .map_err(|e| internal(e.to_string()))?;
        Ok(state
            .load_accounts()
            .and_then(|a| a.get(dst.address))
            .map_err(|e| internal(e.to_string()))?
            .map(|(_, a)| a)
            .unwrap_or_else(empty_account))
    }

    /// Runs `msg` against the current state: an external message the
    /// account does not accept is refused as a liteserver refuses it.
    pub fn precheck(&self, msg: &Cell) -> Result<(), Refused> {
        let (dst, _) =
            emulate::message_destination(msg).map_err(|e| Refused::new(422, e.to_string()))?;
        let account = self.tip_account(&dst)?;
        let (config, ctx) = self.exec_context()?;
        match emulate::emulate(&config, &ctx, &account, msg.clone()) {
            Ok(_) => Ok(()),
            Err(EmulateError::NotAccepted { exit_code }) => Err(Refused::new(
                500,
                format!(
                    "LITE_SERVER_UNKNOWN: cannot apply external message to current state : \
                     External message was not accepted\nCannot run message on account: inbound \
                     external message rejected by account {}:\nexitcode={}",
                    dst,
                    exit_code.map_or("none (compute phase skipped)".to_string(), |c| c
                        .to_string()),
                ),
            )),
            Err(e) => Err(Refused::new(500, format!("LITE_SERVER_UNKNOWN: {e}"))),
        }
    }

    /// The transactions an external message would cause if its blocks
    /// were built now: the message on its account, then every internal
    /// message they send on its receiver, in the order sent, each on the
    /// state the earlier ones left (at most [`MAX_EMULATED_TXS`]).
    pub fn emulate_trace(&self, msg: &Cell) -> Result<Emulated, Refused> {
        let (config, ctx) = self.exec_context()?;
        emulate::emulate_trace(&config, ctx, msg.clone(), MAX_EMULATED_TXS, |dst| {
            // The devnet's state holds its libraries.
            self.tip_account(dst)
                .map(|a| (a, Vec::new()))
                .map_err(|r| r.message)
        })
        .map(|t| Emulated {
            txs: t.txs,
            bases: self.chain.tip_bases(),
        })
        .map_err(|e| match e {
            emulate::TraceError::First(e) => Refused::new(500, format!("LITE_SERVER_UNKNOWN: {e}")),
            e => Refused::new(500, e.to_string()),
        })
    }

    /// Produces a block pair from `externals`, indexes it as one unit, and
    /// returns what the round executed. On failure the chain stays where it
    /// was (nothing was committed).
    pub fn produce(&mut self, externals: Vec<Cell>) -> anyhow::Result<RoundOutcome> {
        let before = (self.chain.master.clone(), self.chain.shards.clone());
        let result = self.produce_inner(externals);
        match &result {
            Err(_) => (self.chain.master, self.chain.shards) = before,
            // Emulated traces of refused messages give way at once.
            Ok(outcome) => self
                .pipeline
                .announce_refused(outcome.dropped.iter().map(|h| h.0).collect()),
        }
        result
    }

    fn produce_inner(&mut self, externals: Vec<Cell>) -> anyhow::Result<RoundOutcome> {
        // An overlapped round's blocks go in first, in chain order.
        self.finish_overlapped()?;
        let prev_utime = {
            let s: ShardStateUnsplit = self.chain.master.state_root.parse()?;
            s.gen_utime
        };
        let now = unix_now().max(prev_utime);
        let (blocks, report) = self.chain.round(externals, now)?;
        let decoded = blocks
            .iter()
            .map(|b| decode_block(&b.boc))
            .collect::<Result<Vec<_>, _>>()?;
        // The block files first: whatever the index holds has its file.
        export(&blocks_dir(self.pipeline.view().path()), &blocks)?;
        if let Some(gap) = self.confirm_gap {
            // The shard blocks are made: their traces are confirmed, and
            // final once the masterchain block is indexed, a gap later.
            let round = crate::chain::confirm::confirmed_round(&decoded);
            if !round.is_empty() {
                // Nobody following is fine.
                let _ = self.confirmed.send(std::sync::Arc::new(round));
            }
            self.signed.set(newest_shard_blocks(&decoded));
            std::thread::sleep(gap);
        }
        let mut commits = self.feed.subscribe();
        let applied = self.pipeline.apply(SourceUnit {
            blocks: decoded,
            ..Default::default()
        });
        // Committed (or not made at all): no longer pending either way.
        self.signed.set(Vec::new());
        applied?;
        // No block follows at once: the round's traces are classified now.
        self.pipeline.flush()?;
        // What the round executed, as the index committed it.
        let mut executed = Vec::new();
        while let Ok(c) = commits.try_recv() {
            let mc_seqno = c.mc_seqno.unwrap_or(0);
            executed.extend(c.transactions.iter().map(|t| {
                (
                    (t.account, t.in_msg),
                    Executed {
                        tx_hash: HashBytes(t.hash),
                        lt: t.lt,
                        mc_seqno: t.mc_seqno.unwrap_or(mc_seqno),
                    },
                )
            }));
        }
        if let Some(dir) = &self.export_dir {
            export(dir, &blocks)?;
        }
        if let Some(dir) = &self.export_packages {
            super::archive::export(dir, &blocks, &self.chain.validator)?;
        }
        self.produced += blocks.len() as u64;
        Ok(RoundOutcome {
            mc_seqno: self.chain.master.last.seqno,
            executed,
            dropped: report.dropped,
            waiting: report.waiting,
        })
    }

    /// Makes a round while the previous one is indexed on another thread,
    /// as a node's collator runs beside an indexer following it: the
    /// chain's execution and the index overlap (a corpus is made about
    /// twice as fast on two cores). The round's block files are written
    /// at once; its blocks are indexed by the next call or by
    /// [`Devnet::finish_overlapped`]. The index thus runs a round behind:
    /// for load generators that read nothing back, never for `tonindex dev`,
    /// whose API answers from the index as soon as a round returns.
    pub fn produce_overlapped(&mut self, externals: Vec<Cell>) -> anyhow::Result<OverlappedRound> {
        let prev_utime = {
            let s: ShardStateUnsplit = self.chain.master.state_root.parse()?;
            s.gen_utime
        };
        let now = unix_now().max(prev_utime);
        let before = (self.chain.master.clone(), self.chain.shards.clone());
        let previous = self.unindexed.take();
        let (pipeline, chain) = (&mut self.pipeline, &mut self.chain);
        let (made, indexed) = std::thread::scope(|s| {
            let indexer = s.spawn(move || match previous {
                Some(blocks) => index_round(pipeline, blocks),
                None => Ok(()),
            });
            let made = chain.round(externals, now);
            let indexed = indexer
                .join()
                .unwrap_or_else(|_| Err(anyhow!("the devnet's index thread panicked")));
            (made, indexed)
        });
        let made = made
            .map_err(anyhow::Error::from)
            .and_then(|(blocks, report)| {
                let decoded = blocks
                    .iter()
                    .map(|b| decode_block(&b.boc))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((blocks, report, decoded))
            });
        let (blocks, report, decoded) = match (made, indexed) {
            (Ok(made), Ok(())) => made,
            (made, indexed) => {
                (self.chain.master, self.chain.shards) = before;
                indexed?;
                return Err(made.err().unwrap_or_else(|| anyhow!("no round was made")));
            }
        };
        export(&blocks_dir(self.pipeline.view().path()), &blocks)?;
        if let Some(dir) = &self.export_dir {
            export(dir, &blocks)?;
        }
        if let Some(dir) = &self.export_packages {
            super::archive::export(dir, &blocks, &self.chain.validator)?;
        }
        self.produced += blocks.len() as u64;
        let transactions = decoded.iter().map(|b| b.transactions.len()).sum();
        self.unindexed = Some(decoded);
        Ok(OverlappedRound {
            transactions,
            dropped: report.dropped,
        })
    }

    /// Indexes the round [`Devnet::produce_overlapped`] left unindexed.
    pub fn finish_overlapped(&mut self) -> anyhow::Result<()> {
        match self.unindexed.take() {
            Some(blocks) => index_round(&mut self.pipeline, blocks),
            None => Ok(()),
        }
    }

    /// [`Devnet::produce`], then as many more rounds as the messages it
    /// caused need to reach the other workchain (automine).
    pub fn produce_settled(&mut self, externals: Vec<Cell>) -> anyhow::Result<RoundOutcome> {
        let mut outcome = self.produce(externals)?;
        let mut rounds = 1;
        while outcome.waiting > 0 && rounds < MAX_SETTLE_ROUNDS {
            let next = self.produce(Vec::new())?;
            outcome.executed.extend(next.executed);
            outcome.dropped.extend(next.dropped);
            outcome.mc_seqno = next.mc_seqno;
            outcome.waiting = next.waiting;
            rounds += 1;
        }
        if outcome.waiting > 0 {
            tracing::warn!(
                messages = outcome.waiting,
                "messages still bounce between the workchains after {MAX_SETTLE_ROUNDS} block pairs; \
                 the next blocks deliver them"
            );
        }
        Ok(outcome)
    }

    /// Builds the faucet's transfer of `amount` to `to` (bounce off).
    fn faucet_transfer(&self, to: &StdAddr, amount: u128) -> anyhow::Result<Cell> {
        let seqno = self
            .wallet_seqno(&self.faucet.address())?
            .ok_or_else(|| anyhow!("the faucet is not active"))?;
        Ok(self
            .faucet
            .v4r2_transfer(&self.keys, seqno, unix_now() + 60, to, amount, false)?)
    }

    /// The seqno a deployed wallet holds (the first 32 bits of its data,
    /// after v5r1's flag bit), from the current state.
    pub fn wallet_seqno(&self, address: &StdAddr) -> anyhow::Result<Option<u32>> {
        let tip = self
            .chain
            .tip_of(address)
            .ok_or_else(|| anyhow!("no shard holds {address}"))?;
        let state: ShardStateUnsplit = tip.state_root.parse()?;
        let Some((_, account)) = state.load_accounts()?.get(address.address)? else {
            return Ok(None);
        };
        match account.load_account()?.map(|a| a.state) {
            Some(tycho_types::models::AccountState::Active(init)) => {
                let data = init.data.ok_or_else(|| anyhow!("the wallet has no data"))?;
                Ok(Some(data.as_slice()?.load_u32()?))
            }
            _ => Ok(None),
        }
    }

    /// Each chain's newest block and the messages in its outbound queue.
    pub fn queue_sizes(&self) -> anyhow::Result<Vec<(tonindex_model::BlockIdExt, u64)>> {
        let mut out = Vec::new();
        for tip in std::iter::once(&self.chain.master).chain(&self.chain.shards) {
            let state: ShardStateUnsplit = tip.state_root.parse()?;
            let queue =
                super::queue::QueueInfo::load(&state.out_msg_queue_info, tip.shard.prefix())?;
            let size = queue.count()?;
            out.push((
                tonindex_model::BlockIdExt {
                    id: BlockId {
                        workchain: tip.shard.workchain(),
                        shard: tip.shard.prefix(),
                        seqno: tip.last.seqno,
                    },
                    root_hash: tip.last.root_hash.0,
                    file_hash: tip.last.file_hash.0,
                },
                size,
            ));
        }
        Ok(out)
    }

    /// The keys of the genesis wallets.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    /// The ed25519 secret of the devnet's lite server: derived from the
    /// wallets' key like the validator's, so a restarted devnet keeps the
    /// id its global config lists.
    pub fn liteserver_secret(&self) -> [u8; 32] {
        let mut seed = b"tonindex devnet liteserver".to_vec();
        seed.extend_from_slice(&self.keys.secret);
        genesis::sha256(&seed)
    }
}

fn empty_account() -> ShardAccount {
    ShardAccount {
        account: Lazy::new(&tycho_types::models::OptionalAccount(None)).expect("account_none fits"),
        last_trans_hash: HashBytes::ZERO,
        last_trans_lt: 0,
    }
}

/// A produced block's file name: `mc_<shard>_<seqno>.boc` or `wc0_…`.
pub fn block_file_name(workchain: i32, shard: u64, seqno: u32) -> String {
    format!(
        "{}_{:016x}_{:010}.boc",
        if workchain == -1 { "mc" } else { "wc0" },
        shard,
        seqno
    )
}

/// Writes produced blocks into `dir`, one BoC file each.
fn export(dir: &Path, blocks: &[Produced]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    for b in blocks {
        std::fs::write(
            dir.join(block_file_name(b.workchain, b.shard.prefix(), b.seqno)),
            &b.boc,
        )?;
    }
    Ok(())
}

/// Where the devnet keeps the BoC of every block it produced (for proofs).
pub fn blocks_dir(db_dir: &Path) -> PathBuf {
    db_dir.join("devnet-blocks")
}

/// What one round did.
#[derive(Debug, Default)]
pub struct RoundOutcome {
    pub mc_seqno: u32,
    /// (Account, in-message hash) → the transaction.
    pub executed: Vec<(
        (tonindex_model::Address, Option<tonindex_model::Hash>),
        Executed,
    )>,
    pub dropped: Vec<HashBytes>,
    /// Messages the masterchain queued for the basechain, for the next round.
    pub waiting: usize,
}

/// What [`Devnet::produce_overlapped`] made.
#[derive(Debug)]
pub struct OverlappedRound {
    /// Transactions in the round's blocks.
    pub transactions: usize,
    /// External messages no shard accepted.
    pub dropped: Vec<HashBytes>,
}

/// Indexes one round's blocks and classifies its traces (no block follows
/// at once).
fn index_round(pipeline: &mut Pipeline, blocks: Vec<DecodedBlock>) -> anyhow::Result<()> {
    pipeline.apply(SourceUnit {
        blocks,
        ..Default::default()
    })?;
    pipeline.flush()?;
    Ok(())
}

/// Transactions an emulated trace runs at most.
pub const MAX_EMULATED_TXS: usize = 256;

/// A request to the producer thread.
enum Command {
    Send(Cell, mpsc::Sender<Result<(), Refused>>),
    Emulate(Cell, mpsc::Sender<Result<Emulated, Refused>>),
    Block(mpsc::Sender<Result<u32, Refused>>),
    Fund(StdAddr, u128, mpsc::Sender<Result<Executed, Refused>>),
    QueueSizes(mpsc::Sender<Result<Vec<(tonindex_model::BlockIdExt, u64)>, Refused>>),
}

/// The API's handle on the producer thread.
pub struct DevnetHandle {
    commands: std::sync::Mutex<mpsc::Sender<Command>>,
    /// The validator's key (block signatures are deterministic: signing a
    /// block again gives the signature it was produced with).
    validator: Keys,
    /// The index's commit feed: a send in automine answers once its
    /// transaction is committed.
    feed: CommitFeed,
    /// Where shard-block traces are announced, when they are.
    confirmed: Option<tokio::sync::broadcast::Sender<crate::chain::link::ConfirmedRound>>,
    /// The shard blocks made and not yet committed.
    signed: PendingShardBlocks,
    automine: bool,
    /// What the index holds (the cells the proofs walk), and where.
    index: IndexView,
    accounts: serde_json::Value,
    /// How long a request waits for the producer.
    wait: Duration,
}

impl DevnetHandle {
    fn ask<T>(
        &self,
        make: impl FnOnce(mpsc::Sender<Result<T, Refused>>) -> Command,
    ) -> Result<T, Refused> {
        let (tx, rx) = mpsc::channel();
        self.commands
            .lock()
            .map_err(|_| Refused::new(500, "the devnet stopped"))?
            .send(make(tx))
            .map_err(|_| Refused::new(503, "the devnet stopped"))?;
        rx.recv_timeout(self.wait)
            .map_err(|_| Refused::new(504, "the devnet did not answer in time"))?
    }
}

impl ChainLink for DevnetHandle {
    fn send(&self, msg: Cell) -> Result<(), Refused> {
        let hash = msg.repr_hash().0;
        let mut commits = self.feed.subscribe();
        self.ask(|tx| Command::Send(msg, tx))?;
        if !self.automine {
            return Ok(()); // queued for the next block
        }
        // The producer has answered after its blocks were indexed: the
        // feed holds their commits, and the message's transaction with them.
        while let Ok(c) = commits.try_recv() {
            if c.transactions.iter().any(|t| t.in_msg == Some(hash)) {
                return Ok(());
            }
        }
        Err(Refused::new(
            500,
            "LITE_SERVER_UNKNOWN: the message was accepted when checked but not when its block \
             was built (the account's state changed in between); it was not executed",
        ))
    }
    fn dev(&self) -> Option<&dyn DevLink> {
        Some(self)
    }
    fn commit_feed(&self) -> Option<CommitFeed> {
        Some(self.feed.clone())
    }
    fn confirmed_feed(
        &self,
    ) -> Option<tokio::sync::broadcast::Receiver<crate::chain::link::ConfirmedRound>> {
        self.confirmed.as_ref().map(|c| c.subscribe())
    }
    fn pending_shard_blocks(&self) -> Option<Vec<tonindex_model::BlockIdExt>> {
        // Without a confirm gap no block is ever made and not committed:
        // the query is refused, as a node without `--nonfinal-ls` does.
        self.confirmed.is_some().then(|| self.signed.get())
    }
    fn emulate_trace(&self, msg: Cell) -> Option<Result<Emulated, Refused>> {
        // With automine the real trace is indexed before the send answers.
        (!self.automine).then(|| self.ask(|tx| Command::Emulate(msg, tx)))
    }
    fn block_signatures(
        &self,
        root_hash: &HashBytes,
        file_hash: &HashBytes,
    ) -> Option<Vec<(HashBytes, [u8; 64])>> {
        Some(vec![(
            HashBytes(crate::chain::liteserver::trust::node_id_short(
                &self.validator.public,
            )),
            collator::sign_block(&self.validator, root_hash, file_hash),
        )])
    }
    fn out_msg_queue_sizes(&self) -> Option<Result<crate::chain::link::QueueSizes, Refused>> {
        Some(
            self.ask(Command::QueueSizes)
                .map(|shards| crate::chain::link::QueueSizes {
                    shards,
                    ext_msg_queue_size_limit: crate::chain::link::EXT_MSG_QUEUE_SIZE_LIMIT,
                }),
        )
    }
    fn shard_block_proof(
        &self,
        target: &tonindex_model::BlockIdExt,
        mc: &tonindex_model::BlockIdExt,
        from: &tonindex_model::BlockIdExt,
    ) -> Option<Result<ShardBlockProof, Refused>> {
        Some(
            self.proofs(target, mc, from)
                .map_err(|e| Refused::new(500, format!("{e:#}"))),
        )
    }
}

impl DevnetHandle {
    fn proofs(
        &self,
        target: &tonindex_model::BlockIdExt,
        mc: &tonindex_model::BlockIdExt,
        from: &tonindex_model::BlockIdExt,
    ) -> anyhow::Result<ShardBlockProof> {
        let dir = blocks_dir(self.index.path());
        let mc_root = proof::masterchain_block_root(&dir, mc.id.seqno)?;
        let link = if target.id.workchain == -1 {
            None
        } else {
            Some(proof::shard_link(&mc_root)?)
        };
        let back = if from.id.seqno == mc.id.seqno {
            None
        } else {
            let from_root = proof::masterchain_block_root(&dir, from.id.seqno)?;
            let (proof, state) = proof::header_and_state(&from_root)?;
            Some(LinkBack {
                dest_proof: proof::header(&mc_root)?,
                proof,
                state_proof: self
                    .index
                    .with_cells(|rows| proof::prev_block_entry(rows, &state, mc.id.seqno))?,
            })
        };
        Ok(ShardBlockProof { link, back })
    }
}

impl DevLink for DevnetHandle {
    fn accounts(&self) -> serde_json::Value {
        self.accounts.clone()
    }
    fn fund(&self, to: StdAddr, amount: u128) -> Result<Executed, Refused> {
        self.ask(|tx| Command::Fund(to, amount, tx))
    }
    fn produce_block(&self) -> Result<u32, Refused> {
        self.ask(Command::Block)
    }
}

/// `/dev/accounts`' JSON for the genesis wallets.
pub fn accounts_json(devnet: &Devnet) -> serde_json::Value {
    let keys = &devnet.keys;
    serde_json::Value::Array(
        devnet
            .wallets
            .iter()
            .map(|w| {
                serde_json::json!({
                    "address": w.address.to_string(),
                    "friendly": friendly(&w.address),
                    "version": w.wallet.version.name(),
                    "public_key": hex::encode(keys.public),
                    "secret_key": hex::encode(keys.secret_64()),
                    "mnemonic": devnet.identity.mnemonic,
                    "wallet_id": w.wallet.wallet_id,
                    "balance": w.balance.to_string(),
                })
            })
            .collect(),
    )
}

/// The user-friendly form wallet apps show: non-bounceable, url-safe base64.
pub fn friendly(a: &StdAddr) -> String {
    a.display_base64_url(false).to_string()
}

/// Accepted messages waiting for the next block pair (with a block
/// interval), kept in `devnet-queue` beside the database — one base64 BoC
/// per line, synced before the send is answered — so that a crash between
/// the answer and the block loses none of them.
struct Waiting {
    path: PathBuf,
    msgs: Vec<Cell>,
}

impl Waiting {
    fn load(path: PathBuf) -> Self {
        let msgs = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| tycho_types::boc::Boc::decode_base64(l.trim()).ok())
            .collect();
        Self { path, msgs }
    }

    fn push(&mut self, msg: Cell) -> std::io::Result<()> {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        writeln!(f, "{}", tycho_types::boc::Boc::encode_base64(msg.as_ref()))?;
        f.sync_data()?;
        self.msgs.push(msg);
        Ok(())
    }

    /// Produces a block pair from the waiting messages; they are forgotten
    /// once it is committed.
    fn produce(&mut self, devnet: &mut Devnet) -> anyhow::Result<RoundOutcome> {
        let outcome = devnet.produce(self.msgs.clone())?;
        self.msgs.clear();
        std::fs::write(&self.path, b"")?;
        Ok(outcome)
    }
}

/// The shard blocks a round made that no masterchain block commits yet,
/// shared by the producer (which sets them) and the lite server.
#[derive(Clone, Default)]
struct PendingShardBlocks(Arc<std::sync::Mutex<Vec<tonindex_model::BlockIdExt>>>);

impl PendingShardBlocks {
    fn set(&self, blocks: Vec<tonindex_model::BlockIdExt>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = blocks;
    }

    fn get(&self) -> Vec<tonindex_model::BlockIdExt> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The newest basechain block of each shard among `blocks` (the C++ node
/// lists the last signed block of each shard's validator group).
fn newest_shard_blocks(blocks: &[DecodedBlock]) -> Vec<tonindex_model::BlockIdExt> {
    let mut newest: BTreeMap<(i32, u64), tonindex_model::BlockIdExt> = BTreeMap::new();
    for b in blocks.iter().filter(|b| b.record.id.id.workchain != -1) {
        let id = &b.record.id;
        let slot = newest.entry((id.id.workchain, id.id.shard)).or_insert(*id);
        if id.id.seqno > slot.id.seqno {
            *slot = *id;
        }
    }
    newest.into_values().collect()
}

/// Starts the producer thread; returns the API's handle.
pub fn spawn(mut devnet: Devnet, interval: Option<Duration>) -> Arc<DevnetHandle> {
    let (tx, rx) = mpsc::channel::<Command>();
    let handle = Arc::new(DevnetHandle {
        commands: std::sync::Mutex::new(tx),
        validator: devnet.chain.validator.clone(),
        feed: devnet.feed.clone(),
        confirmed: devnet
            .confirm_gap
            .is_some()
            .then(|| devnet.confirmed.clone()),
        signed: devnet.signed.clone(),
        automine: interval.is_none(),
        index: devnet.pipeline.view().clone(),
        accounts: accounts_json(&devnet),
        wait: Duration::from_secs(60),
    });
    let mut waiting = Waiting::load(devnet.pipeline.view().path().join("devnet-queue"));
    if !waiting.msgs.is_empty() {
        tracing::info!(
            messages = waiting.msgs.len(),
            "accepted messages from before the restart wait for the next block"
        );
    }
    std::thread::Builder::new()
        .name("tonindex-devnet".into())
        .spawn(move || {
            let mut next_block = interval.map(|i| Instant::now() + i);
            loop {
                let cmd = match next_block {
                    Some(at) => match rx.recv_timeout(at.saturating_duration_since(Instant::now()))
                    {
                        Ok(c) => Some(c),
                        Err(mpsc::RecvTimeoutError::Timeout) => None,
                        Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    },
                    None => match rx.recv() {
                        Ok(c) => Some(c),
                        Err(_) => return,
                    },
                };
                match cmd {
                    None => {
                        if let Err(e) = waiting.produce(&mut devnet) {
                            tracing::error!("producing a block: {e:#}");
                        }
                        next_block = interval.map(|i| Instant::now() + i);
                    }
                    Some(Command::Send(msg, reply)) => {
                        let r = devnet.precheck(&msg).and_then(|()| {
                            if interval.is_some() {
                                waiting.push(msg).map_err(|e| {
                                    Refused::new(500, format!("cannot keep the message: {e}"))
                                })
                            } else {
                                devnet
                                    .produce_settled(vec![msg])
                                    .map(|_| ())
                                    .map_err(|e| Refused::new(500, format!("{e:#}")))
                            }
                        });
                        let _ = reply.send(r);
                    }
                    Some(Command::Emulate(msg, reply)) => {
                        let _ = reply.send(devnet.emulate_trace(&msg));
                    }
                    Some(Command::Block(reply)) => {
                        let r = waiting
                            .produce(&mut devnet)
                            .map(|o| o.mc_seqno)
                            .map_err(|e| Refused::new(500, format!("{e:#}")));
                        let _ = reply.send(r);
                    }
                    Some(Command::Fund(to, amount, reply)) => {
                        let _ = reply.send(fund(&mut devnet, &to, amount));
                    }
                    Some(Command::QueueSizes(reply)) => {
                        let _ = reply.send(
                            devnet
                                .queue_sizes()
                                .map_err(|e| Refused::new(500, format!("{e:#}"))),
                        );
                    }
                }
            }
        })
        .expect("the devnet thread starts");
    handle
}

/// A faucet transfer, produced at once (whatever the block interval).
fn fund(devnet: &mut Devnet, to: &StdAddr, amount: u128) -> Result<Executed, Refused> {
    let internal = |e: anyhow::Error| Refused::new(500, format!("{e:#}"));
    let msg = devnet.faucet_transfer(to, amount).map_err(internal)?;
    devnet.precheck(&msg)?;
    let outcome = devnet.produce_settled(vec![msg]).map_err(internal)?;
    // The receiving transaction: the last one at `to` with an inbound
    // message (the faucet paying itself has two there; the last receives).
    outcome
        .executed
        .iter()
        .rev()
        .find(|((a, in_msg), _)| {
            a.workchain == i32::from(to.workchain) && a.id == to.address.0 && in_msg.is_some()
        })
        .map(|(_, e)| e.clone())
        .ok_or_else(|| Refused::new(500, "the faucet transfer was not delivered"))
}
