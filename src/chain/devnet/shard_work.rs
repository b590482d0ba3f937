//! One shard's transactions of a block: the messages it imports from its
//! neighbours' queues, the externals sent to it, every internal message
//! they cause inside the shard, and the descriptors (`InMsgDescr`,
//! `OutMsgDescr`, account blocks) they fill.

use std::collections::VecDeque;

use tycho_types::cell::{Cell, CellBuilder, CellFamily, HashBytes, Lazy, Load, Store};
use tycho_types::dict::AugDict;
use tycho_types::error::Error as TlbError;
use tycho_types::models::{
    AccountBlock, BlockInfo, CurrencyCollection, DepthBalanceInfo, EnqueuedMsg, HashUpdate,
    ImportFees, InMsg, InMsgDescr, InMsgExternal, InMsgFinal, IntAddr, MsgEnvelope, MsgInfo,
    OptionalAccount, OutMsg, OutMsgDequeueShort, OutMsgDescr, OutMsgExternal, OutMsgImmediate,
    OutMsgNew, ShardAccount, ShardAccounts, ShardIdent, ShardStateUnsplit, Transaction,
};
use tycho_types::num::Tokens;

use super::collator::{CollateError, RoundReport, MAX_BLOCK_TRANSACTIONS};
use super::queue::{MinLt, QueueInfo, QueueKey};
use crate::decode::msg_descr::skip_intermediate_addr;
use crate::tvm::emulate::{self, BlockContext, EmulateError, ExecConfig};

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
pub(super) fn read_envelope(env: &Lazy<MsgEnvelope>) -> Result<(Cell, Tokens), TlbError> {
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

pub(super) fn add(a: Tokens, b: Tokens) -> Result<Tokens, TlbError> {
    a.checked_add(b).ok_or(TlbError::IntOverflow)
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

/// What a shard's block takes from its neighbours' queues and its own.
#[derive(Default)]
pub(super) struct QueueWork {
    /// The neighbours' messages for this shard, not yet imported, in
    /// import order (lt, then hash).
    pub imports: Vec<(QueueKey, EnqueuedMsg)>,
    /// This shard's queued messages their destination has imported, with
    /// the end lt of the destination's block that shows it
    /// (`msg_export_deq_short`'s `import_block_lt`).
    pub dequeues: Vec<(QueueKey, EnqueuedMsg, u64)>,
    /// The masterchain seqno the imports are recorded under.
    pub mc_seqno: u32,
}

/// Account → (state hash before its first transaction, its transactions).
type Touched = std::collections::BTreeMap<HashBytes, (HashBytes, Vec<Cell>)>;

/// One shard's transactions of a block and the descriptors they fill.
pub(super) struct ShardWork {
    pub accounts: ShardAccounts,
    pub queue: QueueInfo,
    pub in_descr: InMsgDescr,
    pub out_descr: OutMsgDescr,
    pub account_blocks: AugDict<HashBytes, CurrencyCollection, AccountBlock>,
    pub fees_collected: Tokens,
    pub imported: Tokens,
    pub exported: Tokens,
    pub end_lt: u64,
}

impl ShardWork {
    /// Dequeues what the neighbours imported, then executes the neighbours'
    /// messages for this shard, `externals`, and every internal message
    /// they cause within this shard; messages to another shard (of this
    /// workchain or the other) join this shard's queue.
    pub(super) fn run(
        state: &ShardStateUnsplit,
        qwork: QueueWork,
        externals: Vec<Cell>,
        exec: &ExecConfig,
        block: BlockContext,
        report: &mut RoundReport,
    ) -> Result<Self, CollateError> {
        let shard = state.shard_ident;
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
        for (key, enq, import_block_lt) in &qwork.dequeues {
            let msg_hash = *read_envelope(&enq.out_msg_envelope)?.0.repr_hash();
            let d = OutMsg::DequeueShort(OutMsgDequeueShort {
                msg_env_hash: *enq.out_msg_envelope.repr_hash(),
                next_workchain: key.workchain,
                next_addr_pfx: key.prefix,
                import_block_lt: *import_block_lt,
            });
            work.out_descr.set(msg_hash, CurrencyCollection::ZERO, d)?;
            work.queue.queue.remove(*key)?;
        }
        // Account → (state hash before its first transaction, its transactions).
        let mut touched = Touched::default();
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
            work.set_account(dst.address, &new_account)?;
            work.end_lt = work.end_lt.max(new_account.last_trans_lt + 1);
            work.fees_collected = add(work.fees_collected, tx.total_fees.tokens)?;

            let tx_lazy = work.record_in_msg(&msg, pending.as_ref(), &tx_cell)?;

            // Its outbound messages.
            work.route_out_msgs(shard, &tx, &tx_cell, &tx_lazy, &mut queue)?;
        }

        work.add_account_blocks(touched)?;
        Ok(work)
    }

    /// Files the inbound message of a transaction just executed: its
    /// in-descriptor (external, immediate from this block, or final from a
    /// neighbour's queue), the import fees, and for an immediate one the
    /// out-descriptor of its sender here. Returns the transaction as the
    /// descriptors hold it.
    fn record_in_msg(
        &mut self,
        msg: &Cell,
        pending: Option<&Pending>,
        tx_cell: &Cell,
    ) -> Result<Lazy<Transaction>, CollateError> {
        let msg_hash = *msg.repr_hash();
        let tx_lazy: Lazy<Transaction> = Lazy::from_raw(tx_cell.clone())?;
        let in_msg = match pending {
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
        let import = import_fees(&in_msg, msg, pending)?;
        self.fees_collected = add(self.fees_collected, import.fees_collected)?;
        self.imported = add(self.imported, import.value_imported.tokens)?;
        if let Some(Pending {
            envelope,
            from_tx: Some(from_tx),
            ..
        }) = pending
        {
            let out = OutMsg::Immediate(OutMsgImmediate {
                out_msg_envelope: envelope.clone(),
                transaction: Lazy::from_raw(from_tx.clone())?,
                reimport: Lazy::new(&in_msg)?,
            });
            self.out_descr
                .set(msg_hash, CurrencyCollection::ZERO, out)?;
        }
        self.in_descr.set(msg_hash, import, in_msg)?;
        Ok(tx_lazy)
    }

    /// Puts an account's state after its transaction into the shard's
    /// accounts; an account the transaction left without a state leaves.
    fn set_account(
        &mut self,
        address: HashBytes,
        new_account: &ShardAccount,
    ) -> Result<(), CollateError> {
        match new_account.load_account()? {
            Some(acc) => {
                self.accounts.set(
                    address,
                    DepthBalanceInfo {
                        split_depth: 0,
                        balance: acc.balance,
                    },
                    new_account.clone(),
                )?;
            }
            None => {
                self.accounts.remove(address)?;
            }
        }
        Ok(())
    }

    /// Routes a transaction's outbound messages: external ones to the
    /// out-descriptor, internal ones to this shard's own `queue` (executed
    /// in this block) or, for another shard, to the out-queue.
    fn route_out_msgs(
        &mut self,
        shard: ShardIdent,
        tx: &Transaction,
        tx_cell: &Cell,
        tx_lazy: &Lazy<Transaction>,
        queue: &mut VecDeque<Pending>,
    ) -> Result<(), CollateError> {
        for out in tx.out_msgs.values() {
            let out = out?;
            let out_hash = *out.repr_hash();
            match out.parse::<MsgInfo>()? {
                MsgInfo::ExtOut(_) => {
                    let d = OutMsg::External(OutMsgExternal {
                        out_msg: Lazy::from_raw(out.clone())?,
                        transaction: tx_lazy.clone(),
                    });
                    self.out_descr.set(out_hash, CurrencyCollection::ZERO, d)?;
                }
                MsgInfo::Int(info) => {
                    let IntAddr::Std(dst) = &info.dst else {
                        // No such workchain here: the executor refuses
                        // to send it, so it never comes out.
                        continue;
                    };
                    let dst_wc = i32::from(dst.workchain);
                    if shard.contains_address(dst) {
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
                    // Another shard of this workchain: straight to the
                    // destination (no hypercube hops); another
                    // workchain: by its prefix.
                    let next = if dst_wc == shard.workchain() {
                        Hop::FULL_DEST
                    } else {
                        Hop::Simple {
                            workchain: dst.workchain,
                            prefix,
                        }
                    };
                    let envelope = envelope(Hop::FULL_SRC, next, info.fwd_fee, &out)?;
                    let d = OutMsg::New(OutMsgNew {
                        out_msg_envelope: envelope.clone(),
                        transaction: tx_lazy.clone(),
                    });
                    let mut value = info.value.clone();
                    value.tokens = add(value.tokens, info.fwd_fee)?;
                    self.exported = add(self.exported, value.tokens)?;
                    self.out_descr.set(out_hash, value, d)?;
                    self.queue.queue.set(
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
        Ok(())
    }

    /// The account blocks of the accounts the block's transactions
    /// touched: each account's state hash before its first transaction
    /// and its transactions, in order.
    fn add_account_blocks(&mut self, touched: Touched) -> Result<(), CollateError> {
        for (account, (old_hash, txs)) in touched {
            let mut transactions = AugDict::<u64, CurrencyCollection, Lazy<Transaction>>::new();
            for cell in &txs {
                let tx: Transaction = cell.parse()?;
                transactions.set(tx.lt, tx.total_fees.clone(), Lazy::from_raw(cell.clone())?)?;
            }
            let last: Transaction = txs.last().expect("touched has a tx").parse()?;
            let new_hash = last.state_update.load()?.new;
            let fees = transactions.root_extra().clone();
            self.account_blocks.set(
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
        Ok(())
    }

    /// The state after the block, as far as this chain's work sets it.
    pub(super) fn next_state(
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
