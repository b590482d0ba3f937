//! Vesting wallets (the TON vesting contract): the owner sends a message
//! through the wallet; the creator whitelists addresses. Each request is
//! answered by the wallet, and the pair is the action.

use crate::trace::action_data::{ActionData, VestingSend, VestingWhitelist};
use base64::Engine;
use tonindex_model::Address;
use tycho_types::models::message::{OwnedRelaxedMessage, RelaxedMsgInfo};

use super::body::{self, msg_address};
use super::{Block, BlockId, Cols, Graph, Interfaces};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_SEND_MESSAGE, OP_ADD_WHITELIST];

pub(crate) const OP_SEND_MESSAGE: u32 = 0xa773_3acd;
const OP_SEND_MESSAGE_RESPONSE: u32 = 0xf773_3acd;
pub(crate) const OP_ADD_WHITELIST: u32 = 0x7258_a69b;
const OP_ADD_WHITELIST_RESPONSE: u32 = 0xf258_a69b;

/// `send_message#a7733acd query_id:uint64 send_mode:uint8 message:^MessageRelaxed`,
/// answered by `#f7733acd`.
pub(crate) fn send_message(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_SEND_MESSAGE) {
        return None;
    }
    let response = g.next_call(b, OP_SEND_MESSAGE_RESPONSE)?;
    let m = g.tree.txs[g.leaf(b)?].in_msg.as_ref()?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    s.load_u8().ok()?;
    let inner = s.load_reference_cloned().ok()?;
    let msg: OwnedRelaxedMessage = inner.parse().ok()?;
    let (to, value) = match msg.info {
        RelaxedMsgInfo::Int(info) => (
            crate::decode::message::int_addr(&info.dst),
            info.value.tokens.into_inner(),
        ),
        RelaxedMsgInfo::ExtOut(_) => return None,
    };
    let cols = Cols {
        source: m.source,
        destination: m.destination,
        destination_secondary: to,
        amount: Some(value),
        ..Cols::default()
    };
    let mut blk = Block::of("vesting_send_message", vec![b, response], false, cols);
    blk.data = ActionData::VestingSend(VestingSend {
        message_boc: Some(
            base64::engine::general_purpose::STANDARD.encode(crate::boc::encode(inner.as_ref())),
        ),
        query_id: Some(query_id.to_string()),
    });
    Some(blk)
}

/// `add_whitelist#7258a69b query_id:uint64 addr:MsgAddress [^(addr …)]`:
/// one address per cell down a chain of references; answered by `#f258a69b`.
pub(crate) fn add_whitelist(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_ADD_WHITELIST) {
        return None;
    }
    let response = g.next_call(b, OP_ADD_WHITELIST_RESPONSE)?;
    let m = g.tree.txs[g.leaf(b)?].in_msg.as_ref()?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    let mut added = vec![msg_address(&mut s)?];
    let mut next = s.load_reference_cloned().ok();
    while let Some(cell) = next.take() {
        if added.len() > 256 {
            return None;
        }
        let mut s = cell.as_slice().ok()?;
        added.push(msg_address(&mut s)?);
        next = s.load_reference_cloned().ok();
    }
    Some(whitelist_block(b, response, m, query_id, added))
}

fn whitelist_block(
    b: BlockId,
    response: BlockId,
    m: &crate::trace::TraceMsg,
    query_id: u64,
    added: Vec<Option<Address>>,
) -> Block {
    let cols = Cols {
        source: m.source,
        destination: m.destination,
        ..Cols::default()
    };
    let mut blk = Block::of("vesting_add_whitelist", vec![b, response], false, cols);
    blk.data = ActionData::VestingWhitelist(VestingWhitelist {
        accounts_added: added,
        query_id: Some(query_id.to_string()),
    });
    blk
}
