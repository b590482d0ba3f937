//! Transaction cell → [`TransactionRecord`] and its messages.
//!
//! tycho-types parses ordinary and tick-tock descriptions. The storage,
//! split and merge constructors are read here from the raw cell; a
//! description we cannot read at all leaves `description = None` and the
//! transaction is indexed anyway.

use tycho_types::cell::{Cell, CellSlice, Load};
use tycho_types::models::{self as tm, HashUpdate, Transaction, TxInfo};

use tonindex_model::{
    AccountStatus, ActionPhase, Address, BlockId, BouncePhase, ComputePhase, CreditPhase,
    ExecutedCompute, Hash, MessageRecord, MsgSize, SkipReason, SplitInfo, StatusChange,
    StoragePhase, TransactionRecord, TxDescription, TxKind,
};

use super::message::{decode_message_with_contents, MessageContents};
use super::{coins, DecodeError};

/// A decoded transaction with its messages and original BoC.
#[derive(Debug, Clone)]
pub struct DecodedTransaction {
    pub record: TransactionRecord,
    pub in_msg: Option<MessageRecord>,
    pub out_msgs: Vec<MessageRecord>,
    pub boc: Vec<u8>,
    /// The messages' init states and bodies (in-message first, then
    /// out-messages in order), as decoding read them: trace classification
    /// and token events read bodies from them without parsing again.
    pub msg_contents: Vec<MessageContents>,
}

/// Decodes one transaction of `block` (workchain `workchain`).
pub fn decode_transaction(
    cell: &Cell,
    workchain: i32,
    block: BlockId,
    mc_block_seqno: Option<u32>,
    global_version: u32,
) -> Result<DecodedTransaction, DecodeError> {
    let hash = *cell.repr_hash().as_array();
    let ctx = |e| DecodeError::Transaction(hex::encode(hash), e);
    let tx: Transaction = cell.parse().map_err(ctx)?;

    let mut msg_contents = Vec::with_capacity(1 + usize::from(tx.out_msg_count.into_inner()));
    let in_msg = match &tx.in_msg {
        Some(c) => {
            let (rec, contents) = decode_message_with_contents(c, global_version)?;
            msg_contents.push(contents);
            Some(rec)
        }
        None => None,
    };
    let mut out_msgs = Vec::with_capacity(usize::from(tx.out_msg_count.into_inner()));
    for msg in tx.out_msgs.values() {
        let msg = msg.map_err(ctx)?;
        let (rec, contents) = decode_message_with_contents(&msg, global_version)?;
        out_msgs.push(rec);
        msg_contents.push(contents);
    }

    let record = record_of(
        &tx,
        hash,
        workchain,
        block,
        mc_block_seqno,
        in_msg.as_ref().map(|m| m.hash),
        out_msgs.iter().map(|m| m.hash).collect(),
    )
    .map_err(ctx)?;
    Ok(DecodedTransaction {
        record,
        in_msg,
        out_msgs,
        boc: crate::boc::encode(cell.as_ref()),
        msg_contents,
    })
}

/// The record of a parsed transaction whose cell hashes to `hash`.
fn record_of(
    tx: &Transaction,
    hash: Hash,
    workchain: i32,
    block: BlockId,
    mc_block_seqno: Option<u32>,
    in_msg: Option<Hash>,
    out_msgs: Vec<Hash>,
) -> Result<TransactionRecord, tycho_types::error::Error> {
    let update: HashUpdate = tx.state_update.load()?;
    Ok(TransactionRecord {
        hash,
        lt: tx.lt,
        account: Address {
            workchain,
            id: *tx.account.as_array(),
        },
        now: tx.now,
        prev_trans_hash: *tx.prev_trans_hash.as_array(),
        prev_trans_lt: tx.prev_trans_lt,
        orig_status: status(tx.orig_status),
        end_status: status(tx.end_status),
        total_fees: coins(&tx.total_fees)?,
        account_state_hash_before: *update.old.as_array(),
        account_state_hash_after: *update.new.as_array(),
        description: description(tx.info.inner()),
        in_msg,
        out_msgs,
        block,
        mc_block_seqno,
    })
}

/// A transaction read back from the index: the record, rebuilt from its
/// BoC and the place the index keeps beside it (the record itself is not
/// stored: every field but the block is in the BoC), and its message
/// cells, the in-message first, then the out-messages in `out_msgs` order.
pub struct StoredTransaction {
    pub record: TransactionRecord,
    pub message_cells: Vec<Cell>,
}

/// Rebuilds a stored transaction (see [`StoredTransaction`]) from its BoC,
/// the block that holds it and the masterchain block that commits that.
pub fn stored_transaction(
    boc: &[u8],
    block: BlockId,
    mc_block_seqno: Option<u32>,
) -> Result<StoredTransaction, DecodeError> {
    let cell = tycho_types::boc::Boc::decode(boc).map_err(|e| DecodeError::Boc(e.to_string()))?;
    let hash = *cell.repr_hash().as_array();
    let ctx = |e| DecodeError::Transaction(hex::encode(hash), e);
    let tx: Transaction = cell.parse().map_err(ctx)?;
    let mut message_cells: Vec<Cell> = tx.in_msg.iter().cloned().collect();
    for msg in tx.out_msgs.values() {
        message_cells.push(msg.map_err(ctx)?);
    }
    let hash_of = |c: &Cell| *c.repr_hash().as_array();
    let in_msg = tx.in_msg.as_ref().map(hash_of);
    let out_msgs = message_cells[usize::from(in_msg.is_some())..]
        .iter()
        .map(hash_of)
        .collect();
    let record = record_of(
        &tx,
        hash,
        block.workchain,
        block,
        mc_block_seqno,
        in_msg,
        out_msgs,
    )
    .map_err(ctx)?;
    Ok(StoredTransaction {
        record,
        message_cells,
    })
}

/// The cells of a transaction's in-message and of its out-messages, for
/// readers that need the messages' contents from a stored transaction BoC.
#[allow(clippy::type_complexity)]
pub fn message_cells(tx: &Cell) -> Result<(Option<Cell>, Vec<Cell>), tycho_types::error::Error> {
    let tx: Transaction = tx.parse()?;
    let mut out = Vec::new();
    for msg in tx.out_msgs.values() {
        out.push(msg?);
    }
    Ok((tx.in_msg, out))
}

fn status(s: tm::AccountStatus) -> AccountStatus {
    match s {
        tm::AccountStatus::Uninit => AccountStatus::Uninit,
        tm::AccountStatus::Frozen => AccountStatus::Frozen,
        tm::AccountStatus::Active => AccountStatus::Active,
        tm::AccountStatus::NotExists => AccountStatus::Nonexist,
    }
}

/// The description, or `None` when not even its constructor can be read.
fn description(cell: &Cell) -> Option<TxDescription> {
    if let Ok(info) = cell.parse::<TxInfo>() {
        return Some(from_tycho(info));
    }
    let mut s = cell.as_slice().ok()?;
    let tag = s.load_small_uint(4).ok()?;
    let mut d = empty(match tag {
        0b0001 => TxKind::Storage,
        0b0100 => TxKind::SplitPrepare,
        0b0101 => TxKind::SplitInstall,
        0b0110 => TxKind::MergePrepare,
        0b0111 => TxKind::MergeInstall,
        _ => return None,
    });
    if d.kind == TxKind::Storage {
        // trans_storage$0001 storage_ph:TrStoragePhase
        d.storage_ph = tm::StoragePhase::load_from(&mut s).ok().map(storage);
        return Some(d);
    }
    d.split_info = split_info(&mut s);
    match d.kind {
        // trans_split_install$0101 split_info prepare_transaction:^Transaction installed:Bool
        TxKind::SplitInstall => {
            d.installed = s.load_reference().ok().and(s.load_bit().ok());
        }
        // trans_merge_prepare$0110 split_info storage_ph:TrStoragePhase aborted:Bool
        TxKind::MergePrepare => {
            d.storage_ph = tm::StoragePhase::load_from(&mut s).ok().map(storage);
            d.aborted = s.load_bit().ok();
        }
        _ => {}
    }
    Some(d)
}

/// `split_merge_info$_ cur_shard_pfx_len:(## 6) acc_split_depth:(## 6) this_addr:bits256 sibling_addr:bits256`.
fn split_info(s: &mut CellSlice<'_>) -> Option<SplitInfo> {
    Some(SplitInfo {
        cur_shard_pfx_len: s.load_small_uint(6).ok()?,
        acc_split_depth: s.load_small_uint(6).ok()?,
        this_addr: *s.load_u256().ok()?.as_array(),
        sibling_addr: *s.load_u256().ok()?.as_array(),
    })
}

fn empty(kind: TxKind) -> TxDescription {
    TxDescription {
        kind,
        aborted: None,
        destroyed: None,
        credit_first: None,
        is_tock: None,
        installed: None,
        storage_ph: None,
        credit_ph: None,
        compute_ph: None,
        action: None,
        bounce: None,
        split_info: None,
    }
}

fn from_tycho(info: TxInfo) -> TxDescription {
    match info {
        TxInfo::Ordinary(o) => TxDescription {
            credit_first: Some(o.credit_first),
            storage_ph: o.storage_phase.map(storage),
            credit_ph: o.credit_phase.map(|c| CreditPhase {
                due_fees_collected: c.due_fees_collected.map(|t| t.into_inner()),
                credit: coins(&c.credit).unwrap_or_default(),
            }),
            compute_ph: Some(compute(o.compute_phase)),
            action: o.action_phase.map(action),
            aborted: Some(o.aborted),
            bounce: o.bounce_phase.map(bounce),
            destroyed: Some(o.destroyed),
            ..empty(TxKind::Ord)
        },
        TxInfo::TickTock(t) => TxDescription {
            is_tock: Some(matches!(t.kind, tm::TickTock::Tock)),
            storage_ph: Some(storage(t.storage_phase)),
            compute_ph: Some(compute(t.compute_phase)),
            action: t.action_phase.map(action),
            aborted: Some(t.aborted),
            destroyed: Some(t.destroyed),
            ..empty(TxKind::TickTock)
        },
    }
}

fn status_change(c: tm::AccountStatusChange) -> StatusChange {
    match c {
        tm::AccountStatusChange::Unchanged => StatusChange::Unchanged,
        tm::AccountStatusChange::Frozen => StatusChange::Frozen,
        tm::AccountStatusChange::Deleted => StatusChange::Deleted,
    }
}

fn storage(p: tm::StoragePhase) -> StoragePhase {
    StoragePhase {
        storage_fees_collected: p.storage_fees_collected.into_inner(),
        storage_fees_due: p.storage_fees_due.map(|t| t.into_inner()),
        status_change: status_change(p.status_change),
    }
}

fn compute(p: tm::ComputePhase) -> ComputePhase {
    match p {
        tm::ComputePhase::Skipped(s) => ComputePhase::Skipped(match s.reason {
            tm::ComputePhaseSkipReason::NoState => SkipReason::NoState,
            tm::ComputePhaseSkipReason::BadState => SkipReason::BadState,
            tm::ComputePhaseSkipReason::NoGas => SkipReason::NoGas,
            tm::ComputePhaseSkipReason::Suspended => SkipReason::Suspended,
        }),
        tm::ComputePhase::Executed(e) => ComputePhase::Executed(ExecutedCompute {
            success: e.success,
            msg_state_used: e.msg_state_used,
            account_activated: e.account_activated,
            gas_fees: e.gas_fees.into_inner(),
            gas_used: e.gas_used.into_inner(),
            gas_limit: e.gas_limit.into_inner(),
            gas_credit: e.gas_credit.map(|g| g.into_inner()),
            mode: e.mode,
            exit_code: e.exit_code,
            exit_arg: e.exit_arg,
            vm_steps: e.vm_steps,
            vm_init_state_hash: *e.vm_init_state_hash.as_array(),
            vm_final_state_hash: *e.vm_final_state_hash.as_array(),
        }),
    }
}

fn msg_size(s: tm::StorageUsedShort) -> MsgSize {
    MsgSize {
        cells: s.cells.into_inner(),
        bits: s.bits.into_inner(),
    }
}

fn action(a: tm::ActionPhase) -> ActionPhase {
    ActionPhase {
        success: a.success,
        valid: a.valid,
        no_funds: a.no_funds,
        status_change: status_change(a.status_change),
        total_fwd_fees: a.total_fwd_fees.map(|t| t.into_inner()),
        total_action_fees: a.total_action_fees.map(|t| t.into_inner()),
        result_code: a.result_code,
        result_arg: a.result_arg,
        tot_actions: a.total_actions,
        spec_actions: a.special_actions,
        skipped_actions: a.skipped_actions,
        msgs_created: a.messages_created,
        action_list_hash: *a.action_list_hash.as_array(),
        tot_msg_size: msg_size(a.total_message_size),
    }
}

fn bounce(b: tm::BouncePhase) -> BouncePhase {
    match b {
        tm::BouncePhase::NegativeFunds => BouncePhase::NegFunds,
        tm::BouncePhase::NoFunds(n) => BouncePhase::NoFunds {
            msg_size: msg_size(n.msg_size),
            req_fwd_fees: n.req_fwd_fees.into_inner(),
        },
        tm::BouncePhase::Executed(e) => BouncePhase::Ok {
            msg_size: msg_size(e.msg_size),
            msg_fees: e.msg_fees.into_inner(),
            fwd_fees: e.fwd_fees.into_inner(),
        },
    }
}
