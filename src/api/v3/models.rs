//! v3 objects shared by many endpoints (spec v3 §1.9): Block, Transaction,
//! Message, AccountState and the transaction description.

use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::{
    AccountStatus, BlockId, BlockRecord, BouncePhase, Coins, ComputePhase, MsgKind, MsgSize,
    SkipReason, StatusChange, TxDescription, TxKind,
};
use tycho_types::cell::Cell;

use super::V3Error;
use crate::api::encoding::{shard_hex, B64Bytes, Dec, RawAddr, B64};
use crate::query::{self, blocks::MASTER_SHARD, transactions::FullTx};

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BlockIdJson {
    pub workchain: i32,
    pub shard: String,
    pub seqno: u32,
}

impl From<&BlockId> for BlockIdJson {
    fn from(b: &BlockId) -> Self {
        Self {
            workchain: b.workchain,
            shard: shard_hex(b.shard),
            seqno: b.seqno,
        }
    }
}

/// The masterchain block that committed a block (itself for masterchain blocks).
fn mc_ref(workchain: i32, seqno: u32, mc_block_seqno: Option<u32>) -> Option<BlockIdJson> {
    let seqno = if workchain == -1 {
        seqno
    } else {
        mc_block_seqno?
    };
    Some(BlockIdJson {
        workchain: -1,
        shard: shard_hex(MASTER_SHARD),
        seqno,
    })
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Block {
    pub workchain: i32,
    pub shard: String,
    pub seqno: u32,
    pub root_hash: B64,
    pub file_hash: B64,
    pub global_id: i32,
    pub version: u32,
    pub after_merge: bool,
    pub before_split: bool,
    pub after_split: bool,
    pub want_merge: bool,
    pub want_split: bool,
    pub key_block: bool,
    pub vert_seqno_incr: bool,
    pub flags: u8,
    pub gen_utime: Dec<u32>,
    pub start_lt: Dec<u64>,
    pub end_lt: Dec<u64>,
    pub validator_list_hash_short: i32,
    pub gen_catchain_seqno: u32,
    pub min_ref_mc_seqno: u32,
    pub prev_key_block_seqno: u32,
    pub vert_seqno: u32,
    pub master_ref_seqno: u32,
    pub rand_seed: B64,
    pub created_by: B64,
    pub tx_count: u32,
    pub masterchain_block_ref: Option<BlockIdJson>,
    pub prev_blocks: Vec<BlockIdJson>,
}

impl From<&BlockRecord> for Block {
    fn from(b: &BlockRecord) -> Self {
        let id = &b.id.id;
        Self {
            workchain: id.workchain,
            shard: shard_hex(id.shard),
            seqno: id.seqno,
            root_hash: B64(b.id.root_hash),
            file_hash: B64(b.id.file_hash),
            global_id: b.global_id,
            version: b.version,
            after_merge: b.after_merge,
            before_split: b.before_split,
            after_split: b.after_split,
            want_merge: b.want_merge,
            want_split: b.want_split,
            key_block: b.key_block,
            vert_seqno_incr: b.vert_seqno_incr,
            flags: b.flags,
            gen_utime: Dec(b.gen_utime),
            start_lt: Dec(b.start_lt),
            end_lt: Dec(b.end_lt),
            // Postgres stores it as a signed int4; toncenter shows it that way.
            validator_list_hash_short: b.validator_list_hash_short as i32,
            gen_catchain_seqno: b.gen_catchain_seqno,
            min_ref_mc_seqno: b.min_ref_mc_seqno,
            prev_key_block_seqno: b.prev_key_block_seqno,
            vert_seqno: b.vert_seqno,
            master_ref_seqno: b.master_ref.as_ref().map_or(0, |r| r.block.id.seqno),
            rand_seed: B64(b.rand_seed),
            created_by: B64(b.created_by),
            tx_count: b.tx_count,
            masterchain_block_ref: mc_ref(id.workchain, id.seqno, b.mc_block_seqno),
            prev_blocks: b.prev_blocks.iter().map(|p| (&p.block.id).into()).collect(),
        }
    }
}

/// Extra currencies as `{"<id>": "<amount>"}`.
pub fn extra_currencies(c: &Coins) -> BTreeMap<String, String> {
    c.extra
        .iter()
        .map(|(id, amount)| (id.to_string(), amount.clone()))
        .collect()
}

pub fn status_str(s: AccountStatus) -> &'static str {
    match s {
        AccountStatus::Uninit => "uninit",
        AccountStatus::Frozen => "frozen",
        AccountStatus::Active => "active",
        AccountStatus::Nonexist => "nonexist",
    }
}

fn status_change_str(s: StatusChange) -> &'static str {
    match s {
        StatusChange::Unchanged => "unchanged",
        StatusChange::Frozen => "frozen",
        StatusChange::Deleted => "deleted",
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MessageContent {
    pub hash: B64,
    pub body: Option<B64Bytes>,
    /// The body as the TL-B scheme decodes it (`crate::decode::body`).
    pub decoded: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Message {
    pub hash: B64,
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub value: Option<Dec<u128>>,
    pub value_extra_currencies: Option<BTreeMap<String, String>>,
    pub fwd_fee: Option<Dec<u128>>,
    pub ihr_fee: Option<Dec<u128>>,
    pub extra_flags: Option<Dec<u128>>,
    pub created_lt: Option<Dec<u64>>,
    pub created_at: Option<Dec<u32>>,
    pub opcode: Option<String>,
    pub decoded_opcode: Option<String>,
    pub ihr_disabled: Option<bool>,
    pub bounce: Option<bool>,
    pub bounced: Option<bool>,
    pub import_fee: Option<Dec<u128>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_msg_tx_hash: Option<B64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_msg_tx_hash: Option<B64>,
    pub message_content: Option<MessageContent>,
    pub init_state: Option<MessageContent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_norm: Option<B64>,
    /// The trace of the transaction that sent it (received it, for an
    /// external-in message); absent where none was assembled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<B64>,
}

/// `0x` and 8 lower-case hex digits.
pub fn opcode_str(op: u32) -> String {
    format!("0x{op:08x}")
}

impl From<&query::messages::Message> for Message {
    fn from(message: &query::messages::Message) -> Self {
        let m = &message.record;
        let boc = |c: &Cell| Some(B64Bytes(crate::boc::encode_crc(c)));
        let internal = m.kind == MsgKind::Internal;
        Self {
            hash: B64(m.hash),
            source: m.source.map(RawAddr),
            destination: m.destination.map(RawAddr),
            value: m.value.as_ref().map(|v| Dec(v.grams)),
            value_extra_currencies: m.value.as_ref().map(extra_currencies),
            fwd_fee: m.fwd_fee.map(Dec),
            // Since global version 12 the field is extra_flags and ihr_fee reads 0.
            ihr_fee: m
                .ihr_fee
                .or(m.extra_flags.map(|_| 0))
                .filter(|_| internal)
                .map(Dec),
            extra_flags: m.extra_flags.map(Dec),
            created_lt: m.created_lt.map(Dec),
            created_at: m.created_at.map(Dec),
            opcode: m.opcode.map(opcode_str),
            decoded_opcode: m
                .opcode
                .and_then(crate::decode::body::opcode_name)
                .map(str::to_string),
            ihr_disabled: m.ihr_disabled,
            bounce: m.bounce,
            bounced: m.bounced,
            import_fee: m.import_fee.map(Dec),
            in_msg_tx_hash: None,
            out_msg_tx_hash: None,
            message_content: Some(MessageContent {
                hash: B64(m.body_hash),
                body: boc(&message.contents.body),
                decoded: crate::decode::body::decode(&message.contents.body).ok(),
            }),
            init_state: m.init_state_hash.map(|hash| MessageContent {
                hash: B64(hash),
                body: message.contents.init_state.as_ref().and_then(boc),
                decoded: None,
            }),
            hash_norm: m.hash_norm.map(B64),
            trace_id: None,
        }
    }
}

/// A payload kept as a BoC (a Jetton or NFT transfer's forward or custom
/// payload) decoded as message bodies are (`message_content.decoded`):
/// null when absent or when the scheme has no constructor for it.
pub fn decoded_payload(boc: Option<&[u8]>) -> Option<serde_json::Value> {
    let cell = tycho_types::boc::Boc::decode(boc?).ok()?;
    crate::decode::body::decode(&cell).ok()
}

/// Account state around a transaction: from the cell store when it holds
/// that state, else the hash alone with the other fields null (spec: a
/// missing state row).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct AccountState {
    pub hash: B64,
    pub balance: Option<String>,
    pub extra_currencies: Option<BTreeMap<String, String>>,
    pub account_status: Option<String>,
    pub frozen_hash: Option<String>,
    pub data_hash: Option<String>,
    pub code_hash: Option<String>,
}

impl AccountState {
    /// Fills the fields from the state the cell store holds for `hash`,
    /// when it holds it.
    pub fn fill(&mut self, rows: &dyn crate::state::cells::CellRows) -> Result<(), V3Error> {
        let hash = tycho_types::cell::HashBytes(self.hash.0);
        use crate::state::cells::CellError;
        let held = match crate::state::history::account_by_hash(rows, &hash) {
            Ok(held) => held,
            // Part of a state released while it was read (a follower
            // catching up with its writer): not held, as a released one.
            Err(CellError::Missing(_)) => None,
            Err(CellError::Storage(e)) => return Err(V3Error::from(e)),
            Err(e) => {
                return Err(V3Error::new(
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    format!("internal error: {e}"),
                ))
            }
        };
        let Some(account) = held else {
            return Ok(());
        };
        self.fill_from(&account)
    }

    /// Fills the fields from the account the state is (an emulated one,
    /// or one read from the cell store).
    pub fn fill_from(
        &mut self,
        account: &tycho_types::models::OptionalAccount,
    ) -> Result<(), V3Error> {
        let Some(a) = account.0.clone() else {
            self.account_status = Some("nonexist".into());
            self.balance = Some("0".into());
            self.extra_currencies = Some(BTreeMap::new());
            return Ok(());
        };
        let coins = crate::decode::coins(&a.balance).map_err(|e| {
            V3Error::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: {e}"),
            )
        })?;
        self.balance = Some(coins.grams.to_string());
        self.extra_currencies = Some(extra_currencies(&coins));
        let b64 = |h: &tycho_types::cell::HashBytes| crate::api::encoding::b64(h.as_array());
        match a.state {
            tycho_types::models::AccountState::Uninit => {
                self.account_status = Some("uninit".into());
            }
            tycho_types::models::AccountState::Frozen(h) => {
                self.account_status = Some("frozen".into());
                self.frozen_hash = Some(b64(&h));
            }
            tycho_types::models::AccountState::Active(init) => {
                self.account_status = Some("active".into());
                self.code_hash = init.code.as_ref().map(|c| b64(c.repr_hash()));
                self.data_hash = init.data.as_ref().map(|c| b64(c.repr_hash()));
            }
        }
        Ok(())
    }

    /// Fills every state, each distinct one read once: in an account's
    /// history one transaction's state after is the next one's before.
    pub fn fill_all<'a>(
        states: impl IntoIterator<Item = &'a mut AccountState>,
        rows: &dyn crate::state::cells::CellRows,
    ) -> Result<(), V3Error> {
        use tycho_types::cell::HashBytes;
        let states: Vec<&mut AccountState> = states.into_iter().collect();
        // Which states the store holds, asked of all of them at once.
        let mut distinct: Vec<HashBytes> = states.iter().map(|s| HashBytes(s.hash.0)).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let held = rows.held(&distinct).map_err(|e| match e {
            crate::state::cells::CellError::Storage(e) => V3Error::from(e),
            e => V3Error::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: {e}"),
            ),
        })?;
        let held: std::collections::HashSet<HashBytes> = distinct
            .into_iter()
            .zip(held)
            .filter_map(|(hash, held)| held.then_some(hash))
            .collect();
        let empty = crate::state::history::empty_account_hash();
        let mut filled: std::collections::HashMap<[u8; 32], AccountState> =
            std::collections::HashMap::new();
        for state in states {
            if let Some(done) = filled.get(&state.hash.0) {
                *state = done.clone();
                continue;
            }
            let hash = HashBytes(state.hash.0);
            if held.contains(&hash) || hash == empty {
                state.fill(rows)?;
            }
            filled.insert(state.hash.0, state.clone());
        }
        Ok(())
    }

    /// A state known by its hash alone, to be filled ([`AccountState::fill`]).
    pub fn hash_only(hash: [u8; 32]) -> Self {
        Self {
            hash: B64(hash),
            balance: None,
            extra_currencies: None,
            account_status: None,
            frozen_hash: None,
            data_hash: None,
            code_hash: None,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Transaction {
    pub account: RawAddr,
    pub hash: B64,
    pub lt: Dec<u64>,
    pub now: u32,
    pub mc_block_seqno: Option<u32>,
    pub prev_trans_hash: B64,
    pub prev_trans_lt: Dec<u64>,
    pub orig_status: &'static str,
    pub end_status: &'static str,
    pub total_fees: Dec<u128>,
    pub total_fees_extra_currencies: BTreeMap<String, String>,
    pub description: Option<Description>,
    /// The block holding it; for an emulated transaction (in no block yet),
    /// the block whose state its emulation started from, as toncenter's
    /// emulator shows it.
    pub block_ref: Option<BlockIdJson>,
    pub in_msg: Option<Message>,
    pub out_msgs: Vec<Message>,
    pub account_state_before: AccountState,
    pub account_state_after: AccountState,
    pub emulated: bool,
    pub finality: &'static str,
    /// The trace the transaction belongs to (absent where none was assembled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<B64>,
    /// That trace's `external_hash` (the message that started it). toncenter
    /// shows it on emulated transactions only; @ton/walletkit reads it from
    /// every transaction (and fails without it), so it is shown wherever the
    /// trace is known. Absent where none was assembled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_external_hash: Option<B64>,
}

impl From<&FullTx> for Transaction {
    fn from(t: &FullTx) -> Self {
        let r = &t.tx;
        Self {
            account: RawAddr(r.account),
            hash: B64(r.hash),
            lt: Dec(r.lt),
            now: r.now,
            mc_block_seqno: r.mc_block_seqno,
            prev_trans_hash: B64(r.prev_trans_hash),
            prev_trans_lt: Dec(r.prev_trans_lt),
            orig_status: status_str(r.orig_status),
            end_status: status_str(r.end_status),
            total_fees: Dec(r.total_fees.grams),
            total_fees_extra_currencies: extra_currencies(&r.total_fees),
            description: r.description.as_ref().map(Description::from),
            block_ref: Some((&r.block).into()),
            in_msg: t.in_msg.as_ref().map(|m| Message {
                trace_id: t.trace_id.map(B64),
                ..Message::from(m)
            }),
            out_msgs: t
                .out_msgs
                .iter()
                .map(|m| Message {
                    trace_id: t.trace_id.map(B64),
                    ..Message::from(m)
                })
                .collect(),
            account_state_before: AccountState::hash_only(r.account_state_hash_before),
            account_state_after: AccountState::hash_only(r.account_state_hash_after),
            emulated: false,
            finality: "finalized",
            trace_id: t.trace_id.map(B64),
            trace_external_hash: t.trace_external_hash.map(B64),
        }
    }
}

fn kind_str(k: TxKind) -> &'static str {
    match k {
        TxKind::Ord => "ord",
        TxKind::Storage => "storage",
        TxKind::TickTock => "tick_tock",
        TxKind::SplitPrepare => "split_prepare",
        TxKind::SplitInstall => "split_install",
        TxKind::MergePrepare => "merge_prepare",
        TxKind::MergeInstall => "merge_install",
    }
}

/// The transaction description (spec v3 `TransactionDescr`); absent
/// optional fields are left out rather than written as null.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Description {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aborted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destroyed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credit_first: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_tock: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_ph: Option<StoragePh>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credit_ph: Option<CreditPh>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_ph: Option<ComputePh>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<ActionPh>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounce: Option<BouncePh>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split_info: Option<SplitInfoJson>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct StoragePh {
    pub storage_fees_collected: Dec<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_fees_due: Option<Dec<u128>>,
    pub status_change: &'static str,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CreditPh {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_fees_collected: Option<Dec<u128>>,
    pub credit: Dec<u128>,
    pub credit_extra_currencies: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ComputePh {
    Skipped { skipped: bool, reason: &'static str },
    Executed(ComputeExecuted),
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ComputeExecuted {
    pub skipped: bool,
    pub success: bool,
    pub msg_state_used: bool,
    pub account_activated: bool,
    pub gas_fees: Dec<u128>,
    pub gas_used: Dec<u64>,
    pub gas_limit: Dec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_credit: Option<Dec<u32>>,
    pub mode: i8,
    pub exit_code: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_arg: Option<i32>,
    pub vm_steps: u32,
    pub vm_init_state_hash: B64,
    pub vm_final_state_hash: B64,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MsgSizeJson {
    pub cells: Dec<u64>,
    pub bits: Dec<u64>,
}

impl From<MsgSize> for MsgSizeJson {
    fn from(m: MsgSize) -> Self {
        Self {
            cells: Dec(m.cells),
            bits: Dec(m.bits),
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ActionPh {
    pub success: bool,
    pub valid: bool,
    pub no_funds: bool,
    pub status_change: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_fwd_fees: Option<Dec<u128>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_action_fees: Option<Dec<u128>>,
    pub result_code: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_arg: Option<i32>,
    pub tot_actions: u16,
    pub spec_actions: u16,
    pub skipped_actions: u16,
    pub msgs_created: u16,
    pub action_list_hash: B64,
    pub tot_msg_size: MsgSizeJson,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum BouncePh {
    NegFunds,
    NoFunds {
        msg_size: MsgSizeJson,
        req_fwd_fees: Dec<u128>,
    },
    Ok {
        msg_size: MsgSizeJson,
        msg_fees: Dec<u128>,
        fwd_fees: Dec<u128>,
    },
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SplitInfoJson {
    pub cur_shard_pfx_len: u8,
    pub acc_split_depth: u8,
    pub this_addr: String,
    pub sibling_addr: String,
}

impl From<&TxDescription> for Description {
    fn from(d: &TxDescription) -> Self {
        Self {
            kind: kind_str(d.kind),
            aborted: d.aborted,
            destroyed: d.destroyed,
            credit_first: d.credit_first,
            is_tock: d.is_tock,
            installed: d.installed,
            storage_ph: d.storage_ph.as_ref().map(|p| StoragePh {
                storage_fees_collected: Dec(p.storage_fees_collected),
                storage_fees_due: p.storage_fees_due.map(Dec),
                status_change: status_change_str(p.status_change),
            }),
            credit_ph: d.credit_ph.as_ref().map(|p| CreditPh {
                due_fees_collected: p.due_fees_collected.map(Dec),
                credit: Dec(p.credit.grams),
                credit_extra_currencies: extra_currencies(&p.credit),
            }),
            compute_ph: d.compute_ph.as_ref().map(|p| match p {
                ComputePhase::Skipped(reason) => ComputePh::Skipped {
                    skipped: true,
                    reason: match reason {
                        SkipReason::NoState => "no_state",
                        SkipReason::BadState => "bad_state",
                        SkipReason::NoGas => "no_gas",
                        SkipReason::Suspended => "suspended",
                    },
                },
                ComputePhase::Executed(c) => ComputePh::Executed(ComputeExecuted {
                    skipped: false,
                    success: c.success,
                    msg_state_used: c.msg_state_used,
                    account_activated: c.account_activated,
                    gas_fees: Dec(c.gas_fees),
                    gas_used: Dec(c.gas_used),
                    gas_limit: Dec(c.gas_limit),
                    gas_credit: c.gas_credit.map(Dec),
                    mode: c.mode,
                    exit_code: c.exit_code,
                    exit_arg: c.exit_arg,
                    vm_steps: c.vm_steps,
                    vm_init_state_hash: B64(c.vm_init_state_hash),
                    vm_final_state_hash: B64(c.vm_final_state_hash),
                }),
            }),
            action: d.action.as_ref().map(|a| ActionPh {
                success: a.success,
                valid: a.valid,
                no_funds: a.no_funds,
                status_change: status_change_str(a.status_change),
                total_fwd_fees: a.total_fwd_fees.map(Dec),
                total_action_fees: a.total_action_fees.map(Dec),
                result_code: a.result_code,
                result_arg: a.result_arg,
                tot_actions: a.tot_actions,
                spec_actions: a.spec_actions,
                skipped_actions: a.skipped_actions,
                msgs_created: a.msgs_created,
                action_list_hash: B64(a.action_list_hash),
                tot_msg_size: a.tot_msg_size.into(),
            }),
            bounce: d.bounce.as_ref().map(|b| match b {
                BouncePhase::NegFunds => BouncePh::NegFunds,
                BouncePhase::NoFunds {
                    msg_size,
                    req_fwd_fees,
                } => BouncePh::NoFunds {
                    msg_size: (*msg_size).into(),
                    req_fwd_fees: Dec(*req_fwd_fees),
                },
                BouncePhase::Ok {
                    msg_size,
                    msg_fees,
                    fwd_fees,
                } => BouncePh::Ok {
                    msg_size: (*msg_size).into(),
                    msg_fees: Dec(*msg_fees),
                    fwd_fees: Dec(*fwd_fees),
                },
            }),
            split_info: d.split_info.as_ref().map(|si| SplitInfoJson {
                cur_shard_pfx_len: si.cur_shard_pfx_len,
                acc_split_depth: si.acc_split_depth,
                this_addr: hex::encode_upper(si.this_addr),
                sibling_addr: hex::encode_upper(si.sibling_addr),
            }),
        }
    }
}
