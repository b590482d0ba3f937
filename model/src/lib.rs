//! The records tonindex knows about a chain: blocks, transactions, messages.
//!
//! These are plain data. The decoder produces them from block BoCs, the
//! index writes them through the storage crate, and the API reads them back
//! and renders the wire formats. Keeping them in their own crate lets decode
//! and storage share one vocabulary without depending on each other.
//!
//! Amounts are `u128` (TON `Grams` are at most 120 bits); extra-currency
//! amounts are decimal strings because they may be up to 248 bits wide.

use serde::{Deserialize, Serialize};

/// A 256-bit hash (representation hash of a cell, file hash, account id).
pub type Hash = [u8; 32];

/// A standard internal address: workchain and 256-bit account id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Address {
    pub workchain: i32,
    pub id: Hash,
}

impl Address {
    /// True when the account id falls in the shard (a prefix with its tag
    /// bit; `0x8000…` is the whole workchain). The workchain is not compared.
    pub fn in_shard(&self, shard: u64) -> bool {
        if shard == 0 {
            return false;
        }
        let id = u64::from_be_bytes([
            self.id[0], self.id[1], self.id[2], self.id[3], self.id[4], self.id[5], self.id[6],
            self.id[7],
        ]);
        let bits = 63 - shard.trailing_zeros();
        if bits == 0 {
            return true;
        }
        let mask = !0u64 << (64 - bits);
        (id & mask) == (shard & mask)
    }
}

/// A block's position: workchain, shard prefix (with its tag bit), seqno.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BlockId {
    pub workchain: i32,
    pub shard: u64,
    pub seqno: u32,
}

/// A block id with the hashes that pin its exact content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockIdExt {
    pub id: BlockId,
    pub root_hash: Hash,
    pub file_hash: Hash,
}

/// A reference to a previous or master block, as stored in a block header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRef {
    pub block: BlockIdExt,
    pub end_lt: u64,
}

/// TON coins plus extra currencies (`id -> decimal amount`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coins {
    pub grams: u128,
    pub extra: Vec<(u32, String)>,
}

/// Everything a block header (and its extra) says that the APIs expose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRecord {
    pub id: BlockIdExt,
    pub global_id: i32,
    pub version: u32,
    pub after_merge: bool,
    pub before_split: bool,
    pub after_split: bool,
    pub want_split: bool,
    pub want_merge: bool,
    pub key_block: bool,
    pub vert_seqno_incr: bool,
    pub flags: u8,
    pub gen_utime: u32,
    pub start_lt: u64,
    pub end_lt: u64,
    pub validator_list_hash_short: u32,
    pub gen_catchain_seqno: u32,
    pub min_ref_mc_seqno: u32,
    pub prev_key_block_seqno: u32,
    pub vert_seqno: u32,
    /// `gen_software` version and capabilities (0 when the block has none).
    pub gen_software_version: u32,
    pub gen_software_capabilities: u64,
    /// The masterchain block a shard block refers to (`master_ref`); `None` on masterchain blocks.
    pub master_ref: Option<BlockRef>,
    /// One previous block, or two after a merge.
    pub prev_blocks: Vec<BlockRef>,
    pub rand_seed: Hash,
    pub created_by: Hash,
    /// Root hash of the shard state after this block (its state update's new hash).
    pub state_root_hash: Hash,
    pub tx_count: u32,
    /// The masterchain block that committed this block: its own seqno for a
    /// masterchain block; for a shard block, known once the committing
    /// masterchain block is indexed.
    pub mc_block_seqno: Option<u32>,
}

/// One shard's top block as listed in a masterchain block's `shard_hashes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardDescrRecord {
    pub block: BlockIdExt,
    pub reg_mc_seqno: u32,
    pub start_lt: u64,
    pub end_lt: u64,
    pub before_split: bool,
    pub before_merge: bool,
    pub want_split: bool,
    pub want_merge: bool,
    pub nx_cc_updated: bool,
    pub next_catchain_seqno: u32,
    pub next_validator_shard: u64,
    pub min_ref_mc_seqno: u32,
    pub gen_utime: u32,
    pub fees_collected: Coins,
    pub funds_created: Coins,
}

/// Account status as transactions report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AccountStatus {
    Uninit,
    Frozen,
    Active,
    Nonexist,
}

/// `unchanged` / `frozen` / `deleted`, as storage and action phases report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StatusChange {
    Unchanged,
    Frozen,
    Deleted,
}

/// The transaction constructor (`description.type` in API v3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TxKind {
    Ord,
    Storage,
    TickTock,
    SplitPrepare,
    SplitInstall,
    MergePrepare,
    MergeInstall,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoragePhase {
    pub storage_fees_collected: u128,
    pub storage_fees_due: Option<u128>,
    pub status_change: StatusChange,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreditPhase {
    pub due_fees_collected: Option<u128>,
    pub credit: Coins,
}

/// Why a compute phase was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SkipReason {
    NoState,
    BadState,
    NoGas,
    Suspended,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ComputePhase {
    Skipped(SkipReason),
    Executed(ExecutedCompute),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutedCompute {
    pub success: bool,
    pub msg_state_used: bool,
    pub account_activated: bool,
    pub gas_fees: u128,
    pub gas_used: u64,
    pub gas_limit: u64,
    pub gas_credit: Option<u32>,
    pub mode: i8,
    pub exit_code: i32,
    pub exit_arg: Option<i32>,
    pub vm_steps: u32,
    pub vm_init_state_hash: Hash,
    pub vm_final_state_hash: Hash,
}

/// Cells and bits of a serialized structure (`StorageUsed(Short)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgSize {
    pub cells: u64,
    pub bits: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionPhase {
    pub success: bool,
    pub valid: bool,
    pub no_funds: bool,
    pub status_change: StatusChange,
    pub total_fwd_fees: Option<u128>,
    pub total_action_fees: Option<u128>,
    pub result_code: i32,
    pub result_arg: Option<i32>,
    pub tot_actions: u16,
    pub spec_actions: u16,
    pub skipped_actions: u16,
    pub msgs_created: u16,
    pub action_list_hash: Hash,
    pub tot_msg_size: MsgSize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum BouncePhase {
    NegFunds,
    NoFunds {
        msg_size: MsgSize,
        req_fwd_fees: u128,
    },
    Ok {
        msg_size: MsgSize,
        msg_fees: u128,
        fwd_fees: u128,
    },
}

/// `split_merge_info` of split/merge transactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitInfo {
    pub cur_shard_pfx_len: u8,
    pub acc_split_depth: u8,
    pub this_addr: Hash,
    pub sibling_addr: Hash,
}

/// A transaction's description (`TransactionDescr`), flattened like API v3 shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxDescription {
    pub kind: TxKind,
    pub aborted: Option<bool>,
    pub destroyed: Option<bool>,
    pub credit_first: Option<bool>,
    pub is_tock: Option<bool>,
    pub installed: Option<bool>,
    pub storage_ph: Option<StoragePhase>,
    pub credit_ph: Option<CreditPhase>,
    pub compute_ph: Option<ComputePhase>,
    pub action: Option<ActionPhase>,
    pub bounce: Option<BouncePhase>,
    pub split_info: Option<SplitInfo>,
}

/// One transaction. Messages are referenced by hash; they live once in the message table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransactionRecord {
    pub hash: Hash,
    pub lt: u64,
    pub account: Address,
    pub now: u32,
    pub prev_trans_hash: Hash,
    pub prev_trans_lt: u64,
    pub orig_status: AccountStatus,
    pub end_status: AccountStatus,
    pub total_fees: Coins,
    /// Account state hashes from the transaction's `HASH_UPDATE`.
    pub account_state_hash_before: Hash,
    pub account_state_hash_after: Hash,
    /// `None` when the description uses a constructor we cannot parse; the
    /// transaction is still indexed (its BoC keeps every bit).
    pub description: Option<TxDescription>,
    pub in_msg: Option<Hash>,
    /// Out-message hashes in the order of the transaction's `out_msgs` dict.
    pub out_msgs: Vec<Hash>,
    pub block: BlockId,
    pub mc_block_seqno: Option<u32>,
}

/// Internal, external-in or external-out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MsgKind {
    Internal,
    ExternalIn,
    ExternalOut,
}

/// Message metadata carried by `msg_envelope_v2` (what trace assembly needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgMetadata {
    pub depth: u32,
    pub initiator: Address,
    pub initiator_lt: u64,
}

/// One message: its header fields and the hashes of its body and init
/// state. The body and init state themselves are read from the BoC of a
/// transaction that holds the message, which stores them already.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRecord {
    pub hash: Hash,
    pub kind: MsgKind,
    pub source: Option<Address>,
    pub destination: Option<Address>,
    pub value: Option<Coins>,
    pub fwd_fee: Option<u128>,
    pub ihr_fee: Option<u128>,
    /// The header field that was `ihr_fee` before global version 12.
    pub extra_flags: Option<u128>,
    pub import_fee: Option<u128>,
    pub created_lt: Option<u64>,
    pub created_at: Option<u32>,
    pub ihr_disabled: Option<bool>,
    pub bounce: Option<bool>,
    pub bounced: Option<bool>,
    /// First 32 bits of the body, when it has them.
    pub opcode: Option<u32>,
    /// Hash of the body as a standalone cell.
    pub body_hash: Hash,
    pub init_state_hash: Option<Hash>,
    /// From a v2 envelope in this block's in/out message descriptions, when present.
    pub metadata: Option<MsgMetadata>,
    /// TEP-467 normalized hash, for external-in messages.
    pub hash_norm: Option<Hash>,
}

/// How far a trace has been assembled (v3 `trace_info.trace_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceState {
    /// Every internal message its transactions sent has been delivered.
    Complete,
    /// Some internal messages are still on their way.
    Pending,
    /// Its root consumed an internal message whose sender the index never
    /// saw (the index started after it was sent): the trace lacks its start.
    Broken,
}

/// Whether a trace's actions were computed (v3 `trace_info.classification_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClassificationState {
    Unclassified,
    Ok,
    Failed,
    Broken,
}

/// One trace: the transactions caused by one external message (or one
/// tick-tock, or one message from outside what the index holds), as trace
/// assembly left it after the last unit that touched it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Hash of the root transaction.
    pub trace_id: Hash,
    /// The root transaction's in-message, if it has one.
    pub external_hash: Option<Hash>,
    /// Its TEP-467 normalized hash, for an external-in root message.
    pub external_hash_norm: Option<Hash>,
    pub mc_seqno_start: Option<u32>,
    pub mc_seqno_end: Option<u32>,
    pub start_lt: u64,
    pub start_utime: u32,
    pub end_lt: u64,
    pub end_utime: u32,
    pub state: TraceState,
    /// Transactions assembled so far.
    pub transactions: u32,
    /// Messages: the root's in-message and every message its transactions sent.
    pub messages: u32,
    /// Internal messages sent and not yet delivered.
    pub pending_messages: u32,
    pub classification: ClassificationState,
    /// The index's ids of the trace's transactions, ascending (empty for a
    /// trace the index does not store, such as an emulated one). Stored in
    /// the trace's row as deltas, a byte or two each: a table keyed by
    /// `trace id | lt | account | tx id` cost ~31 bytes a transaction.
    #[serde(with = "ascending_deltas", default)]
    pub tx_ids: Vec<u64>,
}

/// Serializes an ascending `Vec<u64>` as its first value and the
/// differences after it, which variable-length encodings keep short.
mod ascending_deltas {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(ids: &[u64], s: S) -> Result<S::Ok, S::Error> {
        let mut prev = 0u64;
        let deltas: Vec<u64> = ids
            .iter()
            .map(|&id| {
                let d = id.wrapping_sub(prev);
                prev = id;
                d
            })
            .collect();
        deltas.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        let deltas = Vec::<u64>::deserialize(d)?;
        let mut prev = 0u64;
        Ok(deltas
            .into_iter()
            .map(|delta| {
                prev = prev.wrapping_add(delta);
                prev
            })
            .collect())
    }
}

/// One action a trace's classification produced: toncenter's action row,
/// generic columns plus the per-type fields. The API maps them to each
/// type's `details` (spec v3 §4.5). Its accounts are addresses (`A`);
/// the index stores them in another form (by number where it can), the
/// same row with another `A`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRecord<A = Address> {
    pub action_id: Hash,
    pub trace_id: Hash,
    /// The action type (`ton_transfer`, `jetton_transfer`, …).
    pub kind: String,
    pub start_lt: u64,
    pub end_lt: u64,
    pub start_utime: u32,
    pub end_utime: u32,
    pub success: bool,
    /// Transactions the action covers, in trace order.
    pub tx_hashes: Vec<Hash>,
    /// Accounts the action involves (v3 `accounts`, `/actions?account=`).
    pub accounts: Vec<A>,
    pub source: Option<A>,
    pub source_secondary: Option<A>,
    pub destination: Option<A>,
    pub destination_secondary: Option<A>,
    pub asset: Option<A>,
    pub asset_secondary: Option<A>,
    pub opcode: Option<u32>,
    /// Nanotons, decimal.
    pub value: Option<String>,
    /// Token units, decimal.
    pub amount: Option<String>,
    /// Types of the composite actions that contain this one.
    pub ancestor_type: Vec<String>,
    pub parent_action_id: Option<Hash>,
    /// The per-type fields (toncenter's `<type>_data`) as JSON text: the
    /// classifier's typed `ActionData` of the row's type, read back by
    /// type for v3's `details`.
    pub data: String,
}

impl<A> ActionRecord<A> {
    /// The same action with each account `f` turns into another form; the
    /// first error `f` gives ends it.
    pub fn try_map_accounts<B, E>(
        self,
        mut f: impl FnMut(A) -> Result<B, E>,
    ) -> Result<ActionRecord<B>, E> {
        let mut one = |a: Option<A>| a.map(&mut f).transpose();
        let source = one(self.source)?;
        let source_secondary = one(self.source_secondary)?;
        let destination = one(self.destination)?;
        let destination_secondary = one(self.destination_secondary)?;
        let asset = one(self.asset)?;
        let asset_secondary = one(self.asset_secondary)?;
        Ok(ActionRecord {
            accounts: self.accounts.into_iter().map(f).collect::<Result<_, _>>()?,
            source,
            source_secondary,
            destination,
            destination_secondary,
            asset,
            asset_secondary,
            action_id: self.action_id,
            trace_id: self.trace_id,
            kind: self.kind,
            start_lt: self.start_lt,
            end_lt: self.end_lt,
            start_utime: self.start_utime,
            end_utime: self.end_utime,
            success: self.success,
            tx_hashes: self.tx_hashes,
            opcode: self.opcode,
            value: self.value,
            amount: self.amount,
            ancestor_type: self.ancestor_type,
            parent_action_id: self.parent_action_id,
            data: self.data,
        })
    }

    /// Every account it names: `accounts`, then each single field set.
    pub fn named_accounts(&self) -> impl Iterator<Item = &A> {
        let singles = [
            &self.source,
            &self.source_secondary,
            &self.destination,
            &self.destination_secondary,
            &self.asset,
            &self.asset_secondary,
        ];
        self.accounts.iter().chain(singles.into_iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_membership() {
        let mut a = Address {
            workchain: 0,
            id: [0; 32],
        };
        assert!(a.in_shard(0x8000_0000_0000_0000));
        a.id[0] = 0x20;
        assert!(a.in_shard(0x2000_0000_0000_0000)); // prefix 00
        a.id[0] = 0x40;
        assert!(!a.in_shard(0x2000_0000_0000_0000));
        assert!(a.in_shard(0x6000_0000_0000_0000)); // prefix 01
        assert!(!a.in_shard(0));
    }
}
