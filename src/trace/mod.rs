//! Traces: which transactions one operation caused (assembly), in what
//! tree (message edges), and what they did in words (classification into
//! actions). Pure: the index feeds transactions in and writes what comes
//! out in its unit's batch; the corpus test feeds toncenter's records in.

pub mod action_data;
pub mod assembly;
pub mod classify;
pub mod tree;

use tonindex_model::{
    AccountStatus, Address, Hash, MessageRecord, MsgKind, TransactionRecord, TxKind,
};
use tycho_types::cell::Cell;

use crate::decode::message::MessageContents;

/// One message as assembly and classification see it.
#[derive(Debug, Clone)]
pub struct TraceMsg {
    pub hash: Hash,
    pub kind: MsgKind,
    pub source: Option<Address>,
    pub destination: Option<Address>,
    /// Nanotons carried (0 for external messages).
    pub value: u128,
    /// Whether it carries extra currencies too.
    pub extra_currencies: bool,
    pub opcode: Option<u32>,
    pub bounce: bool,
    pub bounced: bool,
    pub created_lt: Option<u64>,
    pub created_at: Option<u32>,
    /// TEP-467 normalized hash of an external-in message.
    pub hash_norm: Option<Hash>,
    /// The body as a cell of its own (`None` when the source does not have it).
    pub body: Option<Cell>,
    pub init_state: Option<Cell>,
}

/// One transaction as assembly and classification see it.
#[derive(Debug, Clone)]
pub struct TraceTx {
    pub hash: Hash,
    pub lt: u64,
    pub account: Address,
    pub now: u32,
    pub mc_seqno: Option<u32>,
    pub kind: TxKind,
    pub in_msg: Option<TraceMsg>,
    pub out_msgs: Vec<TraceMsg>,
    pub orig_status: AccountStatus,
    pub end_status: AccountStatus,
    pub aborted: bool,
    pub destroyed: bool,
    /// `Some((success, exit_code))` when the compute phase ran.
    pub compute: Option<(bool, i32)>,
    /// The compute phase was skipped for lack of gas.
    pub no_gas: bool,
    /// The action phase's result code, when it ran.
    pub action_result: Option<i32>,
}

impl TraceTx {
    /// Fills in the bodies (and init states) of the messages whose bodies
    /// classification reads, from the messages' contents: in-message first,
    /// then out-messages in order; `None` for one that could not be read.
    pub fn fill_bodies<'c>(
        &mut self,
        contents: impl IntoIterator<Item = Option<&'c MessageContents>>,
    ) {
        let targets = self.in_msg.iter_mut().chain(self.out_msgs.iter_mut());
        for (m, c) in targets.zip(contents) {
            if let Some(c) = c.filter(|_| classify::reads_body(m.kind, m.opcode)) {
                m.body = Some(c.body.clone());
                m.init_state = c.init_state.clone();
            }
        }
    }

    /// The order transactions are assembled and listed in: lt, then account.
    pub fn order_key(&self) -> (u64, i32, Hash) {
        (self.lt, self.account.workchain, self.account.id)
    }

    /// Whether the transaction did what its message asked: not aborted,
    /// its compute phase succeeded and its action phase (if any) too.
    pub fn succeeded(&self) -> bool {
        !self.aborted
            && self.compute.is_none_or(|(ok, _)| ok)
            && self.action_result.is_none_or(|c| c == 0)
    }
}

/// A transaction as trace assembly and classification take it, without
/// message bodies ([`TraceTx::fill_bodies`] adds the ones classification
/// reads).
pub fn trace_tx(
    rec: &TransactionRecord,
    in_msg: Option<&MessageRecord>,
    out_msgs: &[MessageRecord],
    mc_seqno: Option<u32>,
) -> TraceTx {
    use tonindex_model::ComputePhase;
    let in_msg = in_msg.map(trace_msg);
    let out: Vec<TraceMsg> = out_msgs.iter().map(trace_msg).collect();
    let d = rec.description.as_ref();
    let compute = d.and_then(|d| match &d.compute_ph {
        Some(ComputePhase::Executed(c)) => Some((c.success, c.exit_code)),
        _ => None,
    });
    TraceTx {
        hash: rec.hash,
        lt: rec.lt,
        account: rec.account,
        now: rec.now,
        mc_seqno,
        kind: d.map_or(TxKind::Ord, |d| d.kind),
        in_msg,
        out_msgs: out,
        orig_status: rec.orig_status,
        end_status: rec.end_status,
        aborted: d.and_then(|d| d.aborted).unwrap_or(false),
        destroyed: d.and_then(|d| d.destroyed).unwrap_or(false),
        compute,
        no_gas: d.is_some_and(|d| {
            matches!(
                d.compute_ph,
                Some(ComputePhase::Skipped(tonindex_model::SkipReason::NoGas))
            )
        }),
        action_result: d.and_then(|d| d.action.as_ref()).map(|a| a.result_code),
    }
}

fn trace_msg(m: &MessageRecord) -> TraceMsg {
    TraceMsg {
        hash: m.hash,
        kind: m.kind,
        source: m.source,
        destination: m.destination,
        value: m.value.as_ref().map_or(0, |v| v.grams),
        extra_currencies: m.value.as_ref().is_some_and(|v| !v.extra.is_empty()),
        opcode: m.opcode,
        bounce: m.bounce.unwrap_or(false),
        bounced: m.bounced.unwrap_or(false),
        created_lt: m.created_lt,
        created_at: m.created_at,
        hash_norm: m.hash_norm,
        body: None,
        init_state: None,
    }
}
