//! The devnet's block producer: executes messages on tycho-executor through
//! the project's transaction runner and builds real TL-B blocks — a
//! basechain block, then the masterchain block that commits it — with the
//! state update as a Merkle update between the real shard states.
//!
//! A round takes the external messages sent since the last one. Internal
//! messages between accounts of one workchain are delivered in the same
//! block (`msg_import_imm` / `msg_export_imm`) until none is left. A
//! message to the other workchain leaves as `msg_export_new` into the
//! sender's outbound queue; the other chain's next block imports it
//! (`msg_import_fin`), recording how far it imported in its own state, and
//! the sender's next block then dequeues it (`msg_export_deq_short`). The
//! masterchain block imports from the basechain block it commits, so a
//! message to the masterchain arrives in the same round and its answer in
//! the next one.

use std::collections::{HashSet, VecDeque};

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, DynCell, HashBytes, Lazy, Load, Store};
use tycho_types::dict::{AugDict, Dict};
use tycho_types::error::Error as TlbError;
use tycho_types::merkle::{FilterAction, MerkleFilter, MerkleProofBuilder, MerkleUpdate};
use tycho_types::models::{
    AccountBlock, Block, BlockExtra, BlockInfo, BlockRef, BlockSignature, CurrencyCollection,
    DepthBalanceInfo, EnqueuedMsg, GlobalVersion, HashUpdate, ImportFees, InMsg, InMsgDescr,
    InMsgExternal, InMsgFinal, IntAddr, KeyBlockRef, KeyMaxLt, McBlockExtra, McStateExtra,
    MsgEnvelope, MsgInfo, OptionalAccount, OutMsg, OutMsgDequeueShort, OutMsgDescr, OutMsgExternal,
    OutMsgImmediate, OutMsgNew, PrevBlockRef, ShardAccount, ShardAccounts, ShardDescription,
    ShardFeeCreated, ShardFees, ShardHashes, ShardIdent, ShardIdentFull, ShardStateUnsplit,
    Signature, Transaction, ValueFlow,
};
use tycho_types::num::Tokens;

use super::genesis::sha256;
use super::mnemonic::Keys;
use super::queue::{MinLt, QueueInfo, QueueKey};
use crate::chain::liteserver::trust;
use crate::decode::msg_descr::skip_intermediate_addr;
use crate::tvm::emulate::{self, BlockContext, EmulateError, ExecConfig};

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

/// A chain's newest block (or zerostate) and the state after it.
#[derive(Debug, Clone)]
pub struct Tip {
    pub state_root: Cell,
    pub last: BlockRef,
}

/// A produced block.
#[derive(Debug, Clone)]
pub struct Produced {
    pub workchain: i32,
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
    /// Messages queued for the basechain by the masterchain block: the next
    /// round delivers them.
    pub waiting: usize,
    pub transactions: usize,
}

/// The devnet chain: the masterchain and the basechain tips.
pub struct Chain {
    pub global_id: i32,
    pub validator: Keys,
    pub master: Tip,
    pub base: Tip,
    /// The masterchain zerostate (`getMasterchainInfo.init`).
    pub zerostate: BlockRef,
    /// Every N-th masterchain block is a key block (besides the first).
    pub key_block_every: Option<u32>,
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

impl Chain {
    /// Produces one basechain block and the masterchain block committing
    /// it, at `now`, from `externals` (checked external-in messages).
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
        let (mc_ext, wc_ext): (Vec<Cell>, Vec<Cell>) = externals.into_iter().partition(
            |m| matches!(emulate::message_destination(m), Ok((a, _)) if a.is_masterchain()),
        );

        // The first masterchain block is a key block: it carries the config;
        // so is every N-th one after it when the devnet is asked to.
        let seqno = self.master.last.seqno + 1;
        let is_key = seqno == 1
            || self
                .key_block_every
                .is_some_and(|n| n > 0 && seqno.is_multiple_of(n));
        let prev_key_block_seqno = if extra.after_key_block {
            self.master.last.seqno
        } else {
            extra.last_key_block.as_ref().map_or(0, |b| b.seqno)
        };

        // The basechain block.
        let base_state: ShardStateUnsplit = self.base.state_root.parse()?;
        let start_lt = next_start_lt(self.base.last.end_lt.max(self.master.last.end_lt));
        let mc_queue =
            QueueInfo::load(&mc_state.out_msg_queue_info, mc_state.shard_ident.prefix())?;
        let base_queue = QueueInfo::load(
            &base_state.out_msg_queue_info,
            base_state.shard_ident.prefix(),
        )?;
        let base_q = QueueWork {
            imports: mc_queue.waiting_for(0, base_queue.processed)?,
            dequeues: base_queue.imported_by(-1, mc_queue.processed)?,
            import_block_lt: self.master.last.end_lt,
            mc_seqno: self.master.last.seqno,
        };
        let base = ShardWork::run(
            &base_state,
            base_q,
            wc_ext,
            &exec,
            BlockContext {
                now,
                block_lt: start_lt,
                min_lt: start_lt,
                rand_seed: rand_seed(&self.base.last, 0),
                libraries: mc_state.libraries.clone(),
                ignore_chksig: false,
            },
            &mut report,
        )?;
        let base_info = BlockInfo {
            seqno: self.base.last.seqno + 1,
            shard: ShardIdent::new_full(0),
            gen_utime: now,
            start_lt,
            end_lt: base.end_lt,
            gen_validator_list_hash_short: extra.validator_info.validator_list_hash_short,
            min_ref_mc_seqno: self.master.last.seqno,
            prev_key_block_seqno,
            gen_software: gen_software(&extra),
            flags: 1,
            master_ref: Some(Lazy::new(&self.master.last)?),
            ..Default::default()
        };
        let base_new_state = ShardStateUnsplit {
            master_ref: Some(self.master.last.clone()),
            custom: None,
            ..base.next_state(&base_state, &base_info)?
        };
        let base_block = self.seal(
            &self.base,
            base_info,
            base_new_state,
            base,
            None,
            HashBytes(self.validator.public),
        )?;

        // The masterchain block committing it.
        let start_lt = next_start_lt(self.master.last.end_lt.max(base_block.end_lt));
        let base_new: ShardStateUnsplit = base_block.state_root.parse()?;
        let base_new_queue =
            QueueInfo::load(&base_new.out_msg_queue_info, base_new.shard_ident.prefix())?;
        let mc_q = QueueWork {
            imports: base_new_queue.waiting_for(-1, mc_queue.processed)?,
            dequeues: mc_queue.imported_by(0, base_new_queue.processed)?,
            import_block_lt: base_block.end_lt,
            mc_seqno: self.master.last.seqno + 1,
        };
        let mc = ShardWork::run(
            &mc_state,
            mc_q,
            mc_ext,
            &exec,
            BlockContext {
                now,
                block_lt: start_lt,
                min_lt: start_lt,
                rand_seed: rand_seed(&self.master.last, -1),
                libraries: mc_state.libraries.clone(),
                ignore_chksig: false,
            },
            &mut report,
        )?;
        let seqno = self.master.last.seqno + 1;
        let base_fees = base_block.fees_collected;
        let descr = ShardDescription {
            seqno: base_block.seqno,
            reg_mc_seqno: seqno,
            start_lt: base_block.start_lt,
            end_lt: base_block.end_lt,
            root_hash: base_block.root_hash,
            file_hash: base_block.file_hash,
            before_split: false,
            before_merge: false,
            want_split: false,
            want_merge: false,
            nx_cc_updated: false,
            next_catchain_seqno: 0,
            next_validator_shard: ShardIdent::new_full(0).prefix(),
            min_ref_mc_seqno: self.master.last.seqno,
            gen_utime: now,
            split_merge_at: None,
            fees_collected: CurrencyCollection::new(base_fees.into_inner()),
            funds_created: CurrencyCollection::ZERO,
        };
        let shards = ShardHashes::from_shards([(&ShardIdent::new_full(0), &descr)])?;
        let mut fees = ShardFees::new();
        let fee = ShardFeeCreated {
            fees: descr.fees_collected.clone(),
            create: CurrencyCollection::ZERO,
        };
        fees.set(
            ShardIdentFull {
                workchain: 0,
                prefix: ShardIdent::new_full(0).prefix(),
            },
            fee.clone(),
            fee,
        )?;
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
            gen_utime: now,
            start_lt,
            end_lt: mc.end_lt,
            gen_validator_list_hash_short: extra.validator_info.validator_list_hash_short,
            min_ref_mc_seqno: self.master.last.seqno,
            prev_key_block_seqno,
            key_block: is_key,
            gen_software: gen_software(&extra),
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
        let mc_base_state = mc.next_state(&mc_state, &mc_info)?;
        let mut global_balance = mc_base_state.total_balance.clone();
        let base_total = base_block_total(&base_block)?;
        global_balance.tokens = global_balance
            .tokens
            .checked_add(base_total)
            .ok_or(TlbError::IntOverflow)?;
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
            Some((mc_block_extra, base_fees)),
            HashBytes(self.validator.public),
        )?;
        mc_block.signature = Some(sign_block(
            &self.validator,
            &mc_block.root_hash,
            &mc_block.file_hash,
        ));

        // Messages the masterchain queued for the basechain wait for the
        // next round.
        let mc_new: ShardStateUnsplit = mc_block.state_root.parse()?;
        let mc_new_queue =
            QueueInfo::load(&mc_new.out_msg_queue_info, mc_new.shard_ident.prefix())?;
        report.waiting = mc_new_queue.waiting_for(0, base_new_queue.processed)?.len();
        self.base = Tip {
            state_root: base_block.state_root.clone(),
            last: base_block.block_ref(),
        };
        self.master = Tip {
            state_root: mc_block.state_root.clone(),
            last: mc_block.block_ref(),
        };
        Ok((vec![base_block, mc_block], report))
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
        info.set_prev_ref(&PrevBlockRef::Single(tip.last.clone()));
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
        let update = state_update(tip.state_root.as_ref(), new_root.as_ref())?;
        let extra = BlockExtra {
            in_msg_description: Lazy::new(&work.in_descr)?,
            out_msg_description: Lazy::new(&work.out_descr)?,
            account_blocks: Lazy::new(&work.account_blocks)?,
            rand_seed: rand_seed(&tip.last, info.shard.workchain()),
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

/// A next hop of a message envelope (`IntermediateAddress`).
#[derive(Clone, Copy)]
enum Hop {
    /// `interm_addr_regular$0 use_dest_bits:(#<= 96)`: within the workchain.
    Regular(u8),
    /// `interm_addr_simple$10 workchain_id:int8 addr_pfx:uint64`.
    Simple { workchain: i8, prefix: u64 },
}

impl Hop {
    /// Routed all the way to the destination.
    const FULL_DEST: Hop = Hop::Regular(96);
    /// Still at the source.
    const FULL_SRC: Hop = Hop::Regular(0);

    fn store(self, b: &mut CellBuilder) -> Result<(), TlbError> {
        match self {
            Hop::Regular(bits) => {
                b.store_bit(false)?;
                b.store_small_uint(bits, 7)
            }
            Hop::Simple { workchain, prefix } => {
                b.store_small_uint(0b10, 2)?;
                b.store_u8(workchain as u8)?;
                b.store_u64(prefix)
            }
        }
    }
}

/// `msg_envelope#4 cur_addr:IntermediateAddress next_addr:IntermediateAddress
/// fwd_fee_remaining:Grams msg:^(Message Any)`, written here: tycho-types
/// 0.3.6 writes (and reads) `use_dest_bits` as 8 bits instead of 7.
fn envelope(
    cur: Hop,
    next: Hop,
    fwd_fee_remaining: Tokens,
    msg: &Cell,
) -> Result<Lazy<MsgEnvelope>, TlbError> {
    let mut b = CellBuilder::new();
    b.store_small_uint(4, 4)?;
    cur.store(&mut b)?;
    next.store(&mut b)?;
    fwd_fee_remaining.store_into(&mut b, Cell::empty_context())?;
    b.store_reference(msg.clone())?;
    Lazy::from_raw(b.build()?)
}

/// The message and remaining forwarding fee of an envelope.
fn read_envelope(env: &Lazy<MsgEnvelope>) -> Result<(Cell, Tokens), TlbError> {
    let mut s = env.inner().as_slice()?;
    if s.load_small_uint(4)? != 4 {
        return Err(TlbError::InvalidTag);
    }
    skip_intermediate_addr(&mut s)?;
    skip_intermediate_addr(&mut s)?;
    let fee = Tokens::load_from(&mut s)?;
    Ok((s.load_reference_cloned()?, fee))
}

/// What importing a message adds to the block's fees and imported value
/// (the `ImportFees` of its `InMsg`), computed without reading the
/// envelope back through tycho-types.
fn import_fees(
    in_msg: &InMsg,
    msg: &Cell,
    pending: Option<&Pending>,
) -> Result<ImportFees, TlbError> {
    Ok(match (in_msg, pending) {
        (InMsg::Immediate(_), Some(p)) => ImportFees {
            fees_collected: p.fwd_fee,
            value_imported: CurrencyCollection::ZERO,
        },
        (InMsg::Final(_), Some(p)) => {
            let MsgInfo::Int(info) = msg.parse::<MsgInfo>()? else {
                return Err(TlbError::InvalidData);
            };
            let mut value = info.value;
            value.tokens = add(value.tokens, p.fwd_fee)?;
            ImportFees {
                fees_collected: p.fwd_fee,
                value_imported: value,
            }
        }
        _ => ImportFees::default(),
    })
}

fn add(a: Tokens, b: Tokens) -> Result<Tokens, TlbError> {
    a.checked_add(b).ok_or(TlbError::IntOverflow)
}

/// The basechain's total balance after the block.
fn base_block_total(p: &Produced) -> Result<Tokens, TlbError> {
    let state: ShardStateUnsplit = p.state_root.parse()?;
    Ok(state.total_balance.tokens)
}

/// Block start lts are multiples of this, as a node aligns them (and as
/// the official emulator assumes when it derives a block's lt from a
/// transaction's).
pub const LT_ALIGN: u64 = 1_000_000;

/// The first lt of a block after lts up to `after` were used.
fn next_start_lt(after: u64) -> u64 {
    (after / LT_ALIGN + 1) * LT_ALIGN
}

/// A block's random seed: derived from the previous block, so that a
/// replayed chain is the same chain.
fn rand_seed(prev: &BlockRef, workchain: i32) -> HashBytes {
    let mut bytes = Vec::with_capacity(72);
    bytes.extend_from_slice(prev.root_hash.as_array());
    bytes.extend_from_slice(&prev.seqno.to_be_bytes());
    bytes.extend_from_slice(&workchain.to_be_bytes());
    bytes.extend_from_slice(b"tonindex devnet");
    HashBytes(sha256(&bytes))
}

/// The signature of a block as TON's validators sign it: the TL
/// `ton.blockId root_cell_hash:int256 file_hash:int256`.
pub fn sign_block(keys: &Keys, root_hash: &HashBytes, file_hash: &HashBytes) -> [u8; 64] {
    keys.sign(&trust::to_sign(root_hash.as_array(), file_hash.as_array()))
}

/// The Merkle update from `old` to `new`, laid out as a node's: the new
/// side carries every new cell and prunes each cell it shares with the old
/// state; the old side carries what the block changed — every old cell a
/// new one replaced in its place (the state header, the masterchain extra,
/// dictionary paths to touched accounts) and every ancestor of a shared
/// cell — and prunes the rest.
fn state_update(old: &DynCell, new: &DynCell) -> Result<MerkleUpdate, TlbError> {
    let mut known = HashSet::new();
    let mut stack = vec![old];
    while let Some(cell) = stack.pop() {
        if known.insert(*cell.repr_hash()) {
            stack.extend(cell.references());
        }
    }
    // Old cells the new state reuses, where its walk first meets them.
    let mut reused = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![new];
    while let Some(cell) = stack.pop() {
        let hash = *cell.repr_hash();
        if known.contains(&hash) {
            reused.insert(hash);
        } else if seen.insert(hash) {
            stack.extend(cell.references());
        }
    }
    let mut keep = HashSet::new();
    replaced(old, new, &mut keep);
    let mut memo = std::collections::HashMap::new();
    above_reused(old, &reused, &mut keep, &mut memo);

    let cx = Cell::empty_context();
    let new_proof = MerkleProofBuilder::new(new, NotIn(&known))
        .allow_different_root(true)
        .build_raw_ext(cx)?;
    let old_proof = MerkleProofBuilder::new(old, keep)
        .allow_different_root(true)
        .build_raw_ext(cx)?;
    Ok(MerkleUpdate {
        old_hash: *old.repr_hash(),
        new_hash: *new.repr_hash(),
        old_depth: old.repr_depth(),
        new_depth: new.repr_depth(),
        old: old_proof,
        new: new_proof,
    })
}

/// Marks the old cells that new cells replaced in the same place.
fn replaced(old: &DynCell, new: &DynCell, keep: &mut HashSet<HashBytes>) {
    if old.repr_hash() == new.repr_hash() || !keep.insert(*old.repr_hash()) {
        return;
    }
    for (o, n) in old.references().zip(new.references()) {
        replaced(o, n, keep);
    }
}

/// Marks the old cells above a reused cell; returns whether `cell` is or
/// holds one.
fn above_reused(
    cell: &DynCell,
    reused: &HashSet<HashBytes>,
    keep: &mut HashSet<HashBytes>,
    memo: &mut std::collections::HashMap<HashBytes, bool>,
) -> bool {
    let hash = *cell.repr_hash();
    if let Some(r) = memo.get(&hash) {
        return *r;
    }
    let mut below = false;
    for child in cell.references() {
        below |= above_reused(child, reused, keep, memo);
    }
    if below {
        keep.insert(hash);
    }
    let r = below || reused.contains(&hash);
    memo.insert(hash, r);
    r
}

/// A Merkle filter keeping the cells not in a set.
struct NotIn<'a>(&'a HashSet<HashBytes>);

impl MerkleFilter for NotIn<'_> {
    fn check(&self, cell: &HashBytes) -> FilterAction {
        if self.0.contains(cell) {
            FilterAction::Skip
        } else {
            FilterAction::Include
        }
    }
}

/// An internal message waiting for its transaction in this block.
struct Pending {
    envelope: Lazy<MsgEnvelope>,
    msg: Cell,
    fwd_fee: Tokens,
    /// Created in this block by this transaction; `None`: imported from
    /// the neighbour's queue.
    from_tx: Option<Cell>,
}

/// What a chain's block takes from its neighbour's queue and its own.
#[derive(Default)]
struct QueueWork {
    /// The neighbour's messages for this workchain, not yet imported.
    imports: Vec<(QueueKey, EnqueuedMsg)>,
    /// This chain's queued messages the neighbour has imported.
    dequeues: Vec<(QueueKey, EnqueuedMsg)>,
    /// The neighbour block's lt for `msg_export_deq_short`.
    import_block_lt: u64,
    /// The masterchain seqno the imports are recorded under.
    mc_seqno: u32,
}

/// One chain's transactions of a block and the descriptors they fill.
struct ShardWork {
    accounts: ShardAccounts,
    queue: QueueInfo,
    in_descr: InMsgDescr,
    out_descr: OutMsgDescr,
    account_blocks: AugDict<HashBytes, CurrencyCollection, AccountBlock>,
    fees_collected: Tokens,
    imported: Tokens,
    exported: Tokens,
    end_lt: u64,
}

impl ShardWork {
    /// Dequeues what the neighbour imported, then executes the neighbour's
    /// messages for this workchain, `externals`, and every internal message
    /// they cause within this workchain; messages to the other workchain
    /// join this chain's queue.
    fn run(
        state: &ShardStateUnsplit,
        qwork: QueueWork,
        externals: Vec<Cell>,
        exec: &ExecConfig,
        block: BlockContext,
        report: &mut RoundReport,
    ) -> Result<Self, CollateError> {
        let workchain = state.shard_ident.workchain();
        let mut work = ShardWork {
            accounts: state.load_accounts()?,
            queue: QueueInfo::load(&state.out_msg_queue_info, state.shard_ident.prefix())?,
            in_descr: InMsgDescr::new(),
            out_descr: OutMsgDescr::new(),
            account_blocks: AugDict::new(),
            fees_collected: Tokens::ZERO,
            imported: Tokens::ZERO,
            exported: Tokens::ZERO,
            end_lt: block.block_lt + 1,
        };
        for (key, enq) in &qwork.dequeues {
            let msg_hash = *read_envelope(&enq.out_msg_envelope)?.0.repr_hash();
            let d = OutMsg::DequeueShort(OutMsgDequeueShort {
                msg_env_hash: *enq.out_msg_envelope.repr_hash(),
                next_workchain: key.workchain,
                next_addr_pfx: key.prefix,
                import_block_lt: qwork.import_block_lt,
            });
            work.out_descr.set(msg_hash, CurrencyCollection::ZERO, d)?;
            work.queue.queue.remove(*key)?;
        }
        // Account → (state hash before its first transaction, its transactions).
        let mut touched: std::collections::BTreeMap<HashBytes, (HashBytes, Vec<Cell>)> =
            Default::default();
        let mut queue: VecDeque<Pending> = VecDeque::new();
        if let Some((key, enq)) = qwork.imports.last() {
            work.queue
                .mark_processed((enq.enqueued_lt, key.hash), qwork.mc_seqno);
        }
        for (_, enq) in qwork.imports {
            let (msg, fwd_fee) = read_envelope(&enq.out_msg_envelope)?;
            queue.push_back(Pending {
                msg,
                fwd_fee,
                envelope: enq.out_msg_envelope,
                from_tx: None,
            });
        }
        let mut executed = 0usize;
        let mut externals = externals.into_iter();
        loop {
            let (msg, pending) = match queue.pop_front() {
                Some(p) => (p.msg.clone(), Some(p)),
                None => match externals.next() {
                    Some(m) => (m, None),
                    None => break,
                },
            };
            if executed >= MAX_BLOCK_TRANSACTIONS {
                report.undelivered += 1 + queue.len();
                break;
            }
            let (dst, _) = emulate::message_destination(&msg)
                .map_err(|e| CollateError::Execution(e.to_string()))?;
            let account = match work.accounts.get(dst.address)? {
                Some((_, a)) => a,
                None => ShardAccount {
                    account: Lazy::new(&OptionalAccount(None))?,
                    last_trans_hash: HashBytes::ZERO,
                    last_trans_lt: 0,
                },
            };
            let ctx = BlockContext {
                min_lt: block.block_lt,
                ..block.clone()
            };
            let done = match emulate::emulate(exec, &ctx, &account, msg.clone()) {
                Ok(done) => done,
                Err(EmulateError::NotAccepted { .. }) if pending.is_none() => {
                    report.dropped.push(*msg.repr_hash());
                    continue;
                }
                Err(e) => return Err(CollateError::Execution(e.to_string())),
            };
            executed += 1;
            report.transactions += 1;
            let tx_cell = done.transaction.clone();
            let tx: Transaction = tx_cell.parse()?;
            touched
                .entry(dst.address)
                .or_insert_with(|| (*account.account.repr_hash(), Vec::new()))
                .1
                .push(tx_cell.clone());
            let new_account = done.account;
            match new_account.load_account()? {
                Some(acc) => {
                    work.accounts.set(
                        dst.address,
                        DepthBalanceInfo {
                            split_depth: 0,
                            balance: acc.balance,
                        },
                        new_account.clone(),
                    )?;
                }
                None => {
                    work.accounts.remove(dst.address)?;
                }
            }
            work.end_lt = work.end_lt.max(new_account.last_trans_lt + 1);
            work.fees_collected = add(work.fees_collected, tx.total_fees.tokens)?;

            // The inbound message's descriptors.
            let msg_hash = *msg.repr_hash();
            let tx_lazy: Lazy<Transaction> = Lazy::from_raw(tx_cell.clone())?;
            let in_msg = match &pending {
                None => InMsg::External(InMsgExternal {
                    in_msg: Lazy::from_raw(msg.clone())?,
                    transaction: tx_lazy.clone(),
                }),
                Some(p) if p.from_tx.is_some() => InMsg::Immediate(InMsgFinal {
                    in_msg_envelope: p.envelope.clone(),
                    transaction: tx_lazy.clone(),
                    fwd_fee: p.fwd_fee,
                }),
                Some(p) => InMsg::Final(InMsgFinal {
                    in_msg_envelope: p.envelope.clone(),
                    transaction: tx_lazy.clone(),
                    fwd_fee: p.fwd_fee,
                }),
            };
            let import = import_fees(&in_msg, &msg, pending.as_ref())?;
            work.fees_collected = add(work.fees_collected, import.fees_collected)?;
            work.imported = add(work.imported, import.value_imported.tokens)?;
            if let Some(Pending {
                envelope,
                from_tx: Some(from_tx),
                ..
            }) = &pending
            {
                let out = OutMsg::Immediate(OutMsgImmediate {
                    out_msg_envelope: envelope.clone(),
                    transaction: Lazy::from_raw(from_tx.clone())?,
                    reimport: Lazy::new(&in_msg)?,
                });
                work.out_descr
                    .set(msg_hash, CurrencyCollection::ZERO, out)?;
            }
            work.in_descr.set(msg_hash, import, in_msg)?;

            // Its outbound messages.
            for out in tx.out_msgs.values() {
                let out = out?;
                let out_hash = *out.repr_hash();
                match out.parse::<MsgInfo>()? {
                    MsgInfo::ExtOut(_) => {
                        let d = OutMsg::External(OutMsgExternal {
                            out_msg: Lazy::from_raw(out.clone())?,
                            transaction: tx_lazy.clone(),
                        });
                        work.out_descr.set(out_hash, CurrencyCollection::ZERO, d)?;
                    }
                    MsgInfo::Int(info) => {
                        let IntAddr::Std(dst) = &info.dst else {
                            // No such workchain here: the executor refuses
                            // to send it, so it never comes out.
                            continue;
                        };
                        let dst_wc = i32::from(dst.workchain);
                        if dst_wc == workchain {
                            let envelope =
                                envelope(Hop::FULL_DEST, Hop::FULL_DEST, info.fwd_fee, &out)?;
                            queue.push_back(Pending {
                                envelope,
                                msg: out,
                                fwd_fee: info.fwd_fee,
                                from_tx: Some(tx_cell.clone()),
                            });
                            continue;
                        }
                        let prefix = dst.prefix();
                        let next = Hop::Simple {
                            workchain: dst.workchain,
                            prefix,
                        };
                        let envelope = envelope(Hop::FULL_SRC, next, info.fwd_fee, &out)?;
                        let d = OutMsg::New(OutMsgNew {
                            out_msg_envelope: envelope.clone(),
                            transaction: tx_lazy.clone(),
                        });
                        let mut value = info.value.clone();
                        value.tokens = add(value.tokens, info.fwd_fee)?;
                        work.exported = add(work.exported, value.tokens)?;
                        work.out_descr.set(out_hash, value, d)?;
                        work.queue.queue.set(
                            QueueKey {
                                workchain: dst_wc,
                                prefix,
                                hash: out_hash,
                            },
                            MinLt(info.created_lt),
                            EnqueuedMsg {
                                enqueued_lt: info.created_lt,
                                out_msg_envelope: envelope,
                            },
                        )?;
                    }
                    MsgInfo::ExtIn(_) => {}
                }
            }
        }

        for (account, (old_hash, txs)) in touched {
            let mut transactions = AugDict::<u64, CurrencyCollection, Lazy<Transaction>>::new();
            for cell in &txs {
                let tx: Transaction = cell.parse()?;
                transactions.set(tx.lt, tx.total_fees.clone(), Lazy::from_raw(cell.clone())?)?;
            }
            let last: Transaction = txs.last().expect("touched has a tx").parse()?;
            let new_hash = last.state_update.load()?.new;
            let fees = transactions.root_extra().clone();
            work.account_blocks.set(
                account,
                fees,
                AccountBlock {
                    account,
                    transactions,
                    state_update: Lazy::new(&HashUpdate {
                        old: old_hash,
                        new: new_hash,
                    })?,
                },
            )?;
        }
        Ok(work)
    }

    /// The state after the block, as far as this chain's work sets it.
    fn next_state(
        &self,
        prev: &ShardStateUnsplit,
        info: &BlockInfo,
    ) -> Result<ShardStateUnsplit, CollateError> {
        Ok(ShardStateUnsplit {
            global_id: prev.global_id,
            shard_ident: prev.shard_ident,
            seqno: info.seqno,
            vert_seqno: prev.vert_seqno,
            gen_utime: info.gen_utime,
            gen_lt: info.end_lt,
            min_ref_mc_seqno: info.min_ref_mc_seqno,
            out_msg_queue_info: self.queue.build()?,
            before_split: false,
            accounts: Lazy::new(&self.accounts)?,
            overload_history: 0,
            underload_history: 0,
            total_balance: self.accounts.root_extra().balance.clone(),
            total_validator_fees: prev.total_validator_fees.clone(),
            libraries: prev.libraries.clone(),
            master_ref: prev.master_ref.clone(),
            custom: prev.custom.clone(),
        })
    }
}
