//! The devnet's block producer: executes messages on tycho-executor through
//! the project's transaction runner and builds real TL-B blocks — a block
//! of every basechain shard, then the masterchain block that commits them —
//! with each state update a Merkle update between the real shard states.
//!
//! A round takes the external messages sent since the last one. Internal
//! messages between accounts of one shard are delivered in the same block
//! (`msg_import_imm` / `msg_export_imm`) until none is left. A message to
//! another shard (of the basechain, or the masterchain) leaves as
//! `msg_export_new` into the sender's outbound queue; the destination's
//! next block imports it (`msg_import_fin`), recording how far it imported
//! in its own state, and the sender's next block then dequeues it
//! (`msg_export_deq_short`). The masterchain block imports from the shard
//! blocks it commits, so a message to the masterchain arrives in the same
//! round and its answer in the next one. Shards split and merge as
//! [`super::layout`] plans.

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, HashBytes, Lazy};
use tycho_types::dict::Dict;
use tycho_types::error::Error as TlbError;
use tycho_types::models::{
    Block, BlockExtra, BlockInfo, BlockRef, BlockSignature, CurrencyCollection, GlobalVersion,
    KeyBlockRef, KeyMaxLt, McBlockExtra, McStateExtra, ShardDescription, ShardFeeCreated,
    ShardFees, ShardHashes, ShardIdent, ShardIdentFull, ShardStateUnsplit, Signature, ValueFlow,
};
use tycho_types::num::Tokens;

use super::genesis::sha256;
use super::layout::{After, Announce, Layout};
use super::merkle;
use super::queue::QueueInfo;
use super::shard_work::{add, QueueWork, ShardWork};
use crate::chain::liteserver::trust;
use crate::tvm::emulate::{self, BlockContext, ExecConfig};
use crate::wallet_client::mnemonic::Keys;

pub use super::layout::Tip;

/// Most transactions one block executes; a chain of internal messages
/// longer than this is cut (the rest is reported as not delivered).
pub const MAX_BLOCK_TRANSACTIONS: usize = 20_000;

/// Why a round could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum CollateError {
    #[error("cell: {0}")]
    Cell(#[from] TlbError),
    #[error("execution: {0}")]
    Execution(String),
}

/// A produced block.
#[derive(Debug, Clone)]
pub struct Produced {
    pub workchain: i32,
    pub shard: ShardIdent,
    pub seqno: u32,
    pub boc: Vec<u8>,
    pub root_hash: HashBytes,
    pub file_hash: HashBytes,
    pub start_lt: u64,
    pub end_lt: u64,
    pub gen_utime: u32,
    /// Fees the block collected (its value flow's).
    pub fees_collected: Tokens,
    /// The state after the block.
    pub state_root: Cell,
    /// The validator's signature of `ton.blockId root_hash file_hash`
    /// (masterchain blocks only).
    pub signature: Option<[u8; 64]>,
}

impl Produced {
    fn block_ref(&self) -> BlockRef {
        BlockRef {
            end_lt: self.end_lt,
            seqno: self.seqno,
            root_hash: self.root_hash,
            file_hash: self.file_hash,
        }
    }
}

/// What happened to the external messages of a round.
#[derive(Debug, Default)]
pub struct RoundReport {
    /// Hashes of external messages no account accepted (dropped).
    pub dropped: Vec<HashBytes>,
    /// Internal messages past a block's transaction limit (not delivered).
    pub undelivered: usize,
    /// Messages queued for a basechain shard after the round: the next
    /// round delivers them.
    pub waiting: usize,
    pub transactions: usize,
}

/// The devnet chain: the masterchain and the basechain shards' tips.
pub struct Chain {
    pub global_id: i32,
    pub validator: Keys,
    pub master: Tip,
    /// The basechain's shards, by prefix (siblings next to each other).
    pub shards: Vec<Tip>,
    /// The masterchain zerostate (`getMasterchainInfo.init`).
    pub zerostate: BlockRef,
    /// Every N-th masterchain block is a key block (besides the first).
    pub key_block_every: Option<u32>,
    /// How many shards the basechain has, and how often one splits.
    pub layout: Layout,
}

/// Software version the blocks report: the config's global version.
fn gen_software(extra: &McStateExtra) -> GlobalVersion {
    extra
        .config
        .params
        .get_global_version()
        .unwrap_or(GlobalVersion {
            version: 0,
            capabilities: Default::default(),
        })
}

/// What every block of a round shares.
struct RoundContext<'a> {
    exec: &'a ExecConfig,
    extra: &'a McStateExtra,
    libraries: &'a Dict<HashBytes, tycho_types::models::LibDescr>,
    now: u32,
    prev_key_block_seqno: u32,
}

impl Chain {
    /// The tip of the chain holding `address`'s account.
    pub fn tip_of(&self, address: &tycho_types::models::StdAddr) -> Option<&Tip> {
        if address.is_masterchain() {
            return Some(&self.master);
        }
        self.shards
            .iter()
            .find(|t| t.shard.contains_address(address))
    }

    /// The blocks whose states the next round starts from, every shard's
    /// and the masterchain's ([`Tip::bases`]).
    pub fn tip_bases(&self) -> Vec<tonindex_model::BlockId> {
        std::iter::once(&self.master)
            .chain(&self.shards)
            .flat_map(Tip::bases)
            .collect()
    }

    /// Produces a block of every basechain shard and the masterchain block
    /// committing them, at `now`, from `externals` (checked external-in
    /// messages).
    pub fn round(
        &mut self,
        externals: Vec<Cell>,
        now: u32,
    ) -> Result<(Vec<Produced>, RoundReport), CollateError> {
        let mc_state: ShardStateUnsplit = self.master.state_root.parse()?;
        let extra = mc_state.load_custom()?.ok_or(CollateError::Execution(
            "masterchain state without extra".into(),
        ))?;
        let exec = ExecConfig::new(extra.config.params.clone(), now)
            .map_err(|e| CollateError::Execution(e.to_string()))?;
        let mut report = RoundReport::default();
        let mut mc_ext = Vec::new();
        let mut shard_ext = vec![Vec::new(); self.shards.len()];
        for m in externals {
            let shard = match emulate::message_destination(&m) {
                Ok((a, _)) if a.is_masterchain() => None,
                Ok((a, _)) => self
                    .shards
                    .iter()
                    .position(|t| t.shard.contains_address(&a)),
                Err(_) => {
                    report.dropped.push(*m.repr_hash());
                    continue;
                }
            };
            match shard {
                Some(i) => shard_ext[i].push(m),
                None => mc_ext.push(m),
            }
        }

        // The first masterchain block is a key block: it carries the config;
        // so is every N-th one after it when the devnet is asked to.
        let seqno = self.master.last.seqno + 1;
        let is_key = seqno == 1
            || self
                .key_block_every
                .is_some_and(|n| n > 0 && seqno.is_multiple_of(n));
        let cx = RoundContext {
            exec: &exec,
            extra: &extra,
            libraries: &mc_state.libraries,
            now,
            prev_key_block_seqno: if extra.after_key_block {
                self.master.last.seqno
            } else {
                extra.last_key_block.as_ref().map_or(0, |b| b.seqno)
            },
        };
        let plan = self.layout.plan(&self.shards, seqno);

        // Each basechain shard's block, importing from the queues as the
        // last masterchain block left them.
        let mc_queue =
            QueueInfo::load(&mc_state.out_msg_queue_info, mc_state.shard_ident.prefix())?;
        let states = self
            .shards
            .iter()
            .map(|t| t.state_root.parse::<ShardStateUnsplit>())
            .collect::<Result<Vec<_>, _>>()?;
        let queues = states
            .iter()
            .map(|s| QueueInfo::load(&s.out_msg_queue_info, s.shard_ident.prefix()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut shard_blocks = Vec::with_capacity(self.shards.len());
        for (i, tip) in self.shards.iter().enumerate() {
            let own = &queues[i];
            let mut imports = mc_queue.waiting_for(&tip.shard, own.processed)?;
            for q in &queues {
                imports.extend(q.waiting_for(&tip.shard, own.processed)?);
            }
            imports.sort_by_key(|(k, m)| (m.enqueued_lt, k.hash));
            let at = |lt: u64| move |(k, m)| (k, m, lt);
            let mut dequeues: Vec<_> = own
                .imported_by(&ShardIdent::MASTERCHAIN, mc_queue.processed)?
                .into_iter()
                .map(at(self.master.last.end_lt))
                .collect();
            for (t, q) in self.shards.iter().zip(&queues) {
                dequeues.extend(
                    own.imported_by(&t.shard, q.processed)?
                        .into_iter()
                        .map(at(t.end_lt())),
                );
            }
            let qwork = QueueWork {
                imports,
                dequeues,
                mc_seqno: self.master.last.seqno,
            };
            let ext = std::mem::take(&mut shard_ext[i]);
            shard_blocks.push(self.shard_block(
                tip,
                &states[i],
                qwork,
                ext,
                plan[i],
                &cx,
                &mut report,
            )?);
        }

        let mc_block = self.master_block(
            &mc_state,
            &mc_queue,
            &shard_blocks,
            &plan,
            mc_ext,
            is_key,
            &cx,
            &mut report,
        )?;

        // The next round's tips: a split shard's children, a merged pair's parent.
        let mut next = Vec::with_capacity(self.shards.len() + 1);
        let mut i = 0;
        while i < shard_blocks.len() {
            let b = &shard_blocks[i];
            match plan[i] {
                Announce::Split => {
                    next.extend(Tip::children(&b.shard, &b.block_ref(), &b.state_root)?)
                }
                Announce::Merge => {
                    let r = shard_blocks.get(i + 1).ok_or(TlbError::InvalidData)?;
                    next.push(Tip::merged(
                        (&b.block_ref(), &b.state_root),
                        (&r.block_ref(), &r.state_root),
                    )?);
                    i += 1;
                }
                Announce::Nothing => {
                    next.push(Tip::plain(b.shard, b.state_root.clone(), b.block_ref()))
                }
            }
            i += 1;
        }
        let master = Tip::plain(
            ShardIdent::MASTERCHAIN,
            mc_block.state_root.clone(),
            mc_block.block_ref(),
        );
        report.waiting = waiting(&master, &next)?;
        self.shards = next;
        self.master = master;
        shard_blocks.push(mc_block);
        Ok((shard_blocks, report))
    }

    /// One basechain shard's block.
    #[allow(clippy::too_many_arguments)]
    fn shard_block(
        &self,
        tip: &Tip,
        state: &ShardStateUnsplit,
        qwork: QueueWork,
        externals: Vec<Cell>,
        announce: Announce,
        cx: &RoundContext<'_>,
        report: &mut RoundReport,
    ) -> Result<Produced, CollateError> {
        let start_lt = next_start_lt(tip.end_lt().max(self.master.last.end_lt));
        let work = ShardWork::run(
            state,
            qwork,
            externals,
            cx.exec,
            BlockContext {
                now: cx.now,
                block_lt: start_lt,
                min_lt: start_lt,
                rand_seed: rand_seed(&tip.last, &tip.shard),
                libraries: cx.libraries.clone(),
                ignore_chksig: false,
            },
            report,
        )?;
        let before_split = announce == Announce::Split;
        let info = BlockInfo {
            seqno: tip.next_seqno(),
            shard: tip.shard,
            gen_utime: cx.now,
            start_lt,
            end_lt: work.end_lt,
            gen_validator_list_hash_short: cx.extra.validator_info.validator_list_hash_short,
            min_ref_mc_seqno: self.master.last.seqno,
            prev_key_block_seqno: cx.prev_key_block_seqno,
            gen_software: gen_software(cx.extra),
            before_split,
            want_merge: announce == Announce::Merge,
            flags: 1,
            master_ref: Some(Lazy::new(&self.master.last)?),
            ..Default::default()
        };
        let new_state = ShardStateUnsplit {
            master_ref: Some(self.master.last.clone()),
            custom: None,
            before_split,
            ..work.next_state(state, &info)?
        };
        self.seal(
            tip,
            info,
            new_state,
            work,
            None,
            HashBytes(self.validator.public),
        )
    }

    /// The masterchain block committing the round's shard blocks.
    #[allow(clippy::too_many_arguments)]
    fn master_block(
        &self,
        mc_state: &ShardStateUnsplit,
        mc_queue: &QueueInfo,
        shard_blocks: &[Produced],
        plan: &[Announce],
        externals: Vec<Cell>,
        is_key: bool,
        cx: &RoundContext<'_>,
        report: &mut RoundReport,
    ) -> Result<Produced, CollateError> {
        let extra = cx.extra;
        let seqno = self.master.last.seqno + 1;
        let new_states = shard_blocks
            .iter()
            .map(|b| b.state_root.parse::<ShardStateUnsplit>())
            .collect::<Result<Vec<_>, _>>()?;
        let mut imports = Vec::new();
        let mut dequeues = Vec::new();
        for (b, s) in shard_blocks.iter().zip(&new_states) {
            let q = QueueInfo::load(&s.out_msg_queue_info, s.shard_ident.prefix())?;
            imports.extend(q.waiting_for(&ShardIdent::MASTERCHAIN, mc_queue.processed)?);
            dequeues.extend(
                mc_queue
                    .imported_by(&b.shard, q.processed)?
                    .into_iter()
                    .map(|(k, m)| (k, m, b.end_lt)),
            );
        }
        imports.sort_by_key(|(k, m)| (m.enqueued_lt, k.hash));
        let shards_end = shard_blocks.iter().map(|b| b.end_lt).max().unwrap_or(0);
        let start_lt = next_start_lt(self.master.last.end_lt.max(shards_end));
        let mc = ShardWork::run(
            mc_state,
            QueueWork {
                imports,
                dequeues,
                mc_seqno: seqno,
            },
            externals,
            cx.exec,
            BlockContext {
                now: cx.now,
                block_lt: start_lt,
                min_lt: start_lt,
                rand_seed: rand_seed(&self.master.last, &ShardIdent::MASTERCHAIN),
                libraries: cx.libraries.clone(),
                ignore_chksig: false,
            },
            report,
        )?;

        let (shards, fees, shard_fees) = self.shard_hashes(shard_blocks, plan, seqno, cx.now)?;
        // The previous masterchain block's signatures, as a node carries them.
        let mut prev_block_signatures = Dict::new();
        if self.master.last.seqno > 0 {
            prev_block_signatures.set(
                0u16,
                BlockSignature {
                    node_id_short: HashBytes(trust::node_id_short(&self.validator.public)),
                    signature: Signature(sign_block(
                        &self.validator,
                        &self.master.last.root_hash,
                        &self.master.last.file_hash,
                    )),
                },
            )?;
        }
        let mc_block_extra = McBlockExtra {
            shards: shards.clone(),
            fees,
            prev_block_signatures,
            config: is_key.then(|| extra.config.clone()),
            ..Default::default()
        };
        let mc_info = BlockInfo {
            seqno,
            shard: ShardIdent::MASTERCHAIN,
            gen_utime: cx.now,
            start_lt,
            end_lt: mc.end_lt,
            gen_validator_list_hash_short: extra.validator_info.validator_list_hash_short,
            min_ref_mc_seqno: self.master.last.seqno,
            prev_key_block_seqno: cx.prev_key_block_seqno,
            key_block: is_key,
            gen_software: gen_software(extra),
            flags: 1,
            ..Default::default()
        };
        let mut prev_blocks = extra.prev_blocks.clone();
        let prev_is_key = extra.after_key_block;
        prev_blocks.set(
            self.master.last.seqno,
            KeyMaxLt {
                has_key_block: prev_is_key,
                max_end_lt: self.master.last.end_lt,
            },
            KeyBlockRef {
                is_key_block: prev_is_key,
                block_ref: self.master.last.clone(),
            },
        )?;
        let mc_base_state = mc.next_state(mc_state, &mc_info)?;
        let mut global_balance = mc_base_state.total_balance.clone();
        for s in &new_states {
            global_balance.tokens = add(global_balance.tokens, s.total_balance.tokens)?;
        }
        let new_extra = McStateExtra {
            shards,
            prev_blocks,
            after_key_block: is_key,
            last_key_block: if extra.after_key_block {
                Some(self.master.last.clone())
            } else {
                extra.last_key_block.clone()
            },
            global_balance,
            ..extra.clone()
        };
        let mc_new_state = ShardStateUnsplit {
            master_ref: None,
            custom: Some(Lazy::new(&new_extra)?),
            ..mc_base_state
        };
        let mut mc_block = self.seal(
            &self.master,
            mc_info,
            mc_new_state,
            mc,
            Some((mc_block_extra, shard_fees)),
            HashBytes(self.validator.public),
        )?;
        mc_block.signature = Some(sign_block(
            &self.validator,
            &mc_block.root_hash,
            &mc_block.file_hash,
        ));
        Ok(mc_block)
    }

    /// The shard hashes a masterchain block lists for the round's shard
    /// blocks (with what each announces), their fees, and the fees in all.
    fn shard_hashes(
        &self,
        shard_blocks: &[Produced],
        plan: &[Announce],
        seqno: u32,
        now: u32,
    ) -> Result<(ShardHashes, ShardFees, Tokens), CollateError> {
        let mut descrs = Vec::with_capacity(shard_blocks.len());
        let mut fees = ShardFees::new();
        let mut shard_fees = Tokens::ZERO;
        for (b, announce) in shard_blocks.iter().zip(plan) {
            let merging = *announce == Announce::Merge;
            let descr = ShardDescription {
                seqno: b.seqno,
                reg_mc_seqno: seqno,
                start_lt: b.start_lt,
                end_lt: b.end_lt,
                root_hash: b.root_hash,
                file_hash: b.file_hash,
                before_split: *announce == Announce::Split,
                before_merge: merging,
                want_split: false,
                want_merge: merging,
                nx_cc_updated: false,
                next_catchain_seqno: 0,
                next_validator_shard: b.shard.prefix(),
                min_ref_mc_seqno: self.master.last.seqno,
                gen_utime: now,
                split_merge_at: None,
                fees_collected: CurrencyCollection::new(b.fees_collected.into_inner()),
                funds_created: CurrencyCollection::ZERO,
            };
            let fee = ShardFeeCreated {
                fees: descr.fees_collected.clone(),
                create: CurrencyCollection::ZERO,
            };
            fees.set(
                ShardIdentFull {
                    workchain: b.shard.workchain(),
                    prefix: b.shard.prefix(),
                },
                fee.clone(),
                fee,
            )?;
            shard_fees = add(shard_fees, b.fees_collected)?;
            descrs.push((b.shard, descr));
        }
        let shards = ShardHashes::from_shards(descrs.iter().map(|(s, d)| (s, d)))?;
        Ok((shards, fees, shard_fees))
    }

    /// Builds a block from a chain's work: value flow, extra, Merkle update.
    fn seal(
        &self,
        tip: &Tip,
        mut info: BlockInfo,
        new_state: ShardStateUnsplit,
        work: ShardWork,
        mc_extra: Option<(McBlockExtra, Tokens)>,
        created_by: HashBytes,
    ) -> Result<Produced, CollateError> {
        info.after_merge = matches!(tip.after, After::Merge { .. });
        info.after_split = matches!(tip.after, After::Split { .. });
        info.set_prev_ref(&tip.prev_ref());
        let old_state: ShardStateUnsplit = tip.state_root.parse()?;
        let fees_imported = mc_extra.as_ref().map_or(Tokens::ZERO, |(_, f)| *f);
        let fees_collected = work
            .fees_collected
            .checked_add(fees_imported)
            .ok_or(TlbError::IntOverflow)?;
        let value_flow = ValueFlow {
            from_prev_block: old_state.total_balance.clone(),
            to_next_block: new_state.total_balance.clone(),
            imported: CurrencyCollection::new(work.imported.into_inner()),
            exported: CurrencyCollection::new(work.exported.into_inner()),
            fees_collected: CurrencyCollection::new(fees_collected.into_inner()),
            burned: CurrencyCollection::ZERO,
            fees_imported: CurrencyCollection::new(fees_imported.into_inner()),
            recovered: CurrencyCollection::ZERO,
            created: CurrencyCollection::ZERO,
            minted: CurrencyCollection::ZERO,
        };
        let new_state = ShardStateUnsplit {
            total_validator_fees: {
                let mut t = old_state.total_validator_fees.clone();
                t.tokens = t
                    .tokens
                    .checked_add(fees_collected)
                    .ok_or(TlbError::IntOverflow)?;
                t
            },
            ..new_state
        };
        let new_root = CellBuilder::build_from(&new_state)?;
        let (from, parent) = tip.update_from();
        let update =
            merkle::state_update(from.as_ref(), new_root.as_ref(), parent.map(|c| c.as_ref()))?;
        let extra = BlockExtra {
            in_msg_description: Lazy::new(&work.in_descr)?,
            out_msg_description: Lazy::new(&work.out_descr)?,
            account_blocks: Lazy::new(&work.account_blocks)?,
            rand_seed: rand_seed(&tip.last, &tip.shard),
            created_by,
            custom: match mc_extra {
                Some((e, _)) => Some(Lazy::new(&e)?),
                None => None,
            },
        };
        let block = Block {
            global_id: self.global_id,
            info: Lazy::new(&info)?,
            value_flow: Lazy::new(&value_flow)?,
            state_update: Lazy::new(&update)?,
            out_msg_queue_updates: None,
            extra: Lazy::new(&extra)?,
        };
        let root = CellBuilder::build_from(&block)?;
        let boc = Boc::encode(root.as_ref());
        Ok(Produced {
            workchain: info.shard.workchain(),
            shard: info.shard,
            seqno: info.seqno,
            root_hash: *root.repr_hash(),
            file_hash: HashBytes(sha256(&boc)),
            boc,
            start_lt: info.start_lt,
            end_lt: info.end_lt,
            gen_utime: info.gen_utime,
            fees_collected,
            state_root: new_root,
            signature: None,
        })
    }
}

/// Messages queued (by the masterchain or any shard) for a basechain
/// shard that it has not imported yet.
fn waiting(master: &Tip, shards: &[Tip]) -> Result<usize, TlbError> {
    let queue_of = |t: &Tip| -> Result<QueueInfo, TlbError> {
        let s: ShardStateUnsplit = t.state_root.parse()?;
        QueueInfo::load(&s.out_msg_queue_info, s.shard_ident.prefix())
    };
    let queues = std::iter::once(master)
        .chain(shards)
        .map(queue_of)
        .collect::<Result<Vec<_>, _>>()?;
    let mut n = 0;
    for (dest, dest_queue) in shards.iter().zip(&queues[1..]) {
        for q in &queues {
            n += q.waiting_for(&dest.shard, dest_queue.processed)?.len();
        }
    }
    Ok(n)
}

/// Block start lts are multiples of this, as a node aligns them (and as
/// the official emulator assumes when it derives a block's lt from a
/// transaction's).
pub const LT_ALIGN: u64 = 1_000_000;

/// The first lt of a block after lts up to `after` were used.
fn next_start_lt(after: u64) -> u64 {
    (after / LT_ALIGN + 1) * LT_ALIGN
}

/// A block's random seed: derived from the previous block and the shard
/// (a split's two children share their previous block), so that a
/// replayed chain is the same chain.
fn rand_seed(prev: &BlockRef, shard: &ShardIdent) -> HashBytes {
    let mut bytes = Vec::with_capacity(80);
    bytes.extend_from_slice(prev.root_hash.as_array());
    bytes.extend_from_slice(&prev.seqno.to_be_bytes());
    bytes.extend_from_slice(&shard.workchain().to_be_bytes());
    bytes.extend_from_slice(&shard.prefix().to_be_bytes());
    bytes.extend_from_slice(b"tonindex devnet");
    HashBytes(sha256(&bytes))
}

/// The signature of a block as TON's validators sign it: the TL
/// `ton.blockId root_cell_hash:int256 file_hash:int256`.
pub fn sign_block(keys: &Keys, root_hash: &HashBytes, file_hash: &HashBytes) -> [u8; 64] {
    keys.sign(&trust::to_sign(root_hash.as_array(), file_hash.as_array()))
}
