//! Multisig v2 (spec v3 §4.5 `multisig_create_order`, `multisig_approve`,
//! `multisig_execute`): a signer or proposer asks the multisig for a new
//! order, which the multisig deploys; signers approve the order (by opcode
//! or by the comment "approve"), which answers each; an order with enough
//! approvals asks its multisig to execute it. Each is an action only for an
//! order the index knows (its multisig confirmed it), and every signer of
//! that order is one of the action's accounts, so a signer finds the
//! orders it is asked to sign.
//!
//! The multisig's `init` message is read as the contract's TL-B writes it
//! (`signers:^(Hashmap 8 MsgAddressInt)`, a reference without a presence
//! bit); toncenter's parser reads a `HashmapE` there and so takes the
//! signers for the order and a shifted `approve_on_init` — we report the
//! order and the creator's approval the message really carries.

use crate::trace::action_data::{
    ActionData, MultisigApprove, MultisigCreateOrder, MultisigExecute,
};
use tycho_types::cell::CellSlice;

use super::body::{self, boc_b64};
use super::{Block, BlockId, Cols, Graph, Interfaces};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[
    OP_NEW_ORDER,
    OP_INIT,
    OP_APPROVE,
    OP_APPROVE_REJECTED,
    OP_EXECUTE,
];

/// `new_order#f718510f query_id:uint64 order_seqno:uint256 signer:(## 1)
/// index:uint8 expiration_date:uint48 order:^Order` (creator → multisig).
const OP_NEW_ORDER: u32 = 0xf718_510f;
/// `init#9c73fba2 query_id:uint64 threshold:uint8 signers:^(Hashmap 8
/// MsgAddressInt) expiration_date:uint48 order:^Order approve_on_init:(## 1)
/// signer_index:approve_on_init?uint8` (multisig → order).
const OP_INIT: u32 = 0x9c73_fba2;
/// `approve#a762230f query_id:uint64 signer_index:uint8` (signer → order).
const OP_APPROVE: u32 = 0xa762_230f;
/// `approve_accepted#82609bf6 query_id:uint64` (order → signer).
const OP_APPROVE_ACCEPTED: u32 = 0x8260_9bf6;
/// `approve_rejected#afaf283e query_id:uint64 exit_code:uint32`.
const OP_APPROVE_REJECTED: u32 = 0xafaf_283e;
/// `execute#75097f5d query_id:uint64 order_seqno:uint256
/// expiration_date:uint48 approvals_num:uint8 signers_hash:bits256
/// order:^Order` (order → multisig).
const OP_EXECUTE: u32 = 0x7509_7f5d;

/// The comment a signer may approve with instead of the opcode.
const APPROVE_COMMENT: &str = "approve";

fn uint256(s: &mut CellSlice<'_>) -> Option<String> {
    let mut b = [0u8; 32];
    s.load_raw(&mut b, 256).ok()?;
    Some(num_bigint::BigUint::from_bytes_be(&b).to_string())
}

fn uint48(s: &mut CellSlice<'_>) -> Option<u64> {
    s.load_uint(48).ok()
}

/// A new order and the multisig's `init` of the order contract.
pub(crate) fn create_order(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_NEW_ORDER) {
        return None;
    }
    let init = g.next_call(b, OP_INIT)?;
    let m = g.msg(b)?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    let order_seqno = uint256(&mut s)?;
    let by_signer = s.load_bit().ok()?;
    let creator_index = s.load_u8().ok()?;
    let expiration = uint48(&mut s)?;

    let im = g.msg(init)?;
    let order_address = im.destination?;
    let order = interfaces.multisig_order(&order_address)?;
    let mut s = body::after_op(im.body.as_ref()?)?;
    s.load_u64().ok()?;
    s.load_u8().ok()?;
    s.load_reference().ok()?;
    uint48(&mut s)?;
    let order_cell = s.load_reference_cloned().ok()?;
    let approve_on_init = s.load_bit().ok()?;

    let cols = Cols {
        source: m.source,
        destination: m.destination,
        destination_secondary: Some(order_address),
        accounts: order.signers,
        ..Cols::default()
    };
    let mut blk = Block::of("multisig_create_order", vec![b, init], false, cols);
    blk.data = ActionData::MultisigCreateOrder(MultisigCreateOrder {
        creator_index,
        expiration_date: expiration,
        is_created_by_signer: by_signer,
        is_signed_by_creator: approve_on_init,
        order_boc: Some(boc_b64(&order_cell)),
        order_seqno: Some(order_seqno),
        query_id: Some(query_id.to_string()),
    });
    Some(blk)
}

/// A signer's approval and the order's answer: accepted (exit code 0) or
/// rejected with the order's exit code (then the action failed). An
/// approval by comment does not say the signer's index: -1.
pub(crate) fn approve(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let by_op = g.call_op(b) == Some(OP_APPROVE);
    let by_comment =
        g.kind(b) == "ton_transfer" && g.block(b).data.comment() == Some(APPROVE_COMMENT);
    if !by_op && !by_comment {
        return None;
    }
    let (answer, exit_code) = match g.next_call(b, OP_APPROVE_ACCEPTED) {
        Some(a) => (a, 0),
        None => {
            let r = g.next_call(b, OP_APPROVE_REJECTED)?;
            let mut s = body::after_op(g.body(r)?)?;
            s.load_u64().ok()?;
            (r, s.load_u32().ok()?)
        }
    };
    let m = g.msg(b)?;
    let order_address = m.destination?;
    let order = interfaces.multisig_order(&order_address)?;
    let signer_index = if by_op {
        let mut s = body::after_op(m.body.as_ref()?)?;
        s.load_u64().ok()?;
        s.load_u8().map_or(-1, i64::from)
    } else {
        -1
    };
    let cols = Cols {
        source: m.source,
        destination: Some(order_address),
        accounts: order.signers,
        ..Cols::default()
    };
    let mut blk = Block::of("multisig_approve", vec![b, answer], exit_code != 0, cols);
    blk.data = ActionData::MultisigApprove(MultisigApprove {
        exit_code,
        signer_index,
    });
    Some(blk)
}

/// An order asking its multisig to execute it; the multisig's own
/// messages (the order's actions) stay actions of their own.
pub(crate) fn execute(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_EXECUTE) {
        return None;
    }
    let m = g.msg(b)?;
    let order_address = m.source?;
    let order = interfaces.multisig_order(&order_address)?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    let order_seqno = uint256(&mut s)?;
    let expiration = uint48(&mut s)?;
    let approvals = s.load_u8().ok()?;
    let mut signers_hash = [0u8; 32];
    s.load_raw(&mut signers_hash, 256).ok()?;
    let order_cell = s.load_reference_cloned().ok()?;
    let cols = Cols {
        source: Some(order_address),
        destination: m.destination,
        accounts: order.signers,
        ..Cols::default()
    };
    let mut blk = Block::of("multisig_execute", vec![b], g.block(b).failed, cols);
    blk.data = ActionData::MultisigExecute(MultisigExecute {
        approvals_num: approvals,
        expiration_date: expiration,
        order_boc: Some(boc_b64(&order_cell)),
        order_seqno: Some(order_seqno),
        query_id: Some(query_id.to_string()),
        signers_hash: Some(base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            signers_hash,
        )),
    });
    Some(blk)
}
