//! A trace that is one wallet transaction sending nothing (its actions
//! failed, or were skipped) still says what the owner meant: the messages
//! in the signed external body. They become "ghost" actions on the wallet's
//! transaction — failed TON transfers, contract calls, Jetton transfers —
//! as toncenter shows them.

use base64::Engine;
use tonindex_model::{ActionRecord, Address, MsgKind, TraceRecord};
use tycho_types::cell::{Cell, CellBuilder, CellSlice};
use tycho_types::models::message::{OwnedRelaxedMessage, RelaxedMsgInfo};

use super::body;
use super::jetton::{self, OP_TRANSFER};
use super::{root_tx, serialize, Block, Cols, Ghost, Interfaces, Row, Tree};
use crate::trace::action_data::{ActionData, Comment};

/// One message a wallet's external body asked to send.
struct Payload {
    /// Representation hash of the `MessageRelaxed` cell.
    hash: [u8; 32],
    /// `None` for an external-out message.
    internal: Option<Internal>,
}

struct Internal {
    destination: Option<Address>,
    value: u128,
    extra_currencies: bool,
    bounce: bool,
    body: Cell,
}

fn read_payload(cell: &Cell) -> Option<Payload> {
    let msg: OwnedRelaxedMessage = cell.parse().ok()?;
    let internal = match msg.info {
        RelaxedMsgInfo::Int(info) => {
            let (range, body_cell) = &msg.body;
            let body = if range.is_full(body_cell) {
                body_cell.clone()
            } else {
                let slice = range.apply(body_cell).ok()?;
                CellBuilder::build_from(slice).ok()?
            };
            Some(Internal {
                destination: crate::decode::message::int_addr(&info.dst),
                value: info.value.tokens.into_inner(),
                extra_currencies: !info.value.other.is_empty(),
                bounce: info.bounce,
                body,
            })
        }
        RelaxedMsgInfo::ExtOut(_) => None,
    };
    Some(Payload {
        hash: *cell.repr_hash().as_array(),
        internal,
    })
}

/// The messages of a wallet external body: wallet v3 (signature,
/// subwallet, valid_until, seqno, one message per reference), v4 (the
/// same with an op byte), v5 (an out-action list). The first layout whose
/// every message reads wins.
fn payloads(body: &Cell) -> Option<Vec<Payload>> {
    let refs_after = |bits: u16| -> Option<Vec<Payload>> {
        let mut s = body.as_slice().ok()?;
        s.skip_first(bits, 0).ok()?;
        let mut out = Vec::new();
        while s.size_refs() > 0 {
            out.push(read_payload(&s.load_reference_cloned().ok()?)?);
        }
        Some(out)
    };
    refs_after(512 + 96)
        .or_else(|| refs_after(512 + 96 + 8))
        .or_else(|| v5_payloads(body))
}

/// Wallet v5: `op wallet_id valid_until seqno (Maybe ^OutList) …`; the
/// list is walked from its head (the last action sent first).
fn v5_payloads(body: &Cell) -> Option<Vec<Payload>> {
    let mut s: CellSlice<'_> = body.as_slice().ok()?;
    s.skip_first(128, 0).ok()?;
    let mut out = Vec::new();
    if !s.load_bit().ok()? {
        return Some(out);
    }
    let mut list = s.load_reference_cloned().ok()?;
    for _ in 0..256 {
        let l = list.as_slice().ok()?;
        if l.size_bits() == 0 {
            break;
        }
        let next = l.get_reference_cloned(0).ok()?;
        let msg = l.get_reference_cloned(1).ok()?;
        out.push(read_payload(&msg)?);
        list = next;
    }
    Some(out)
}

/// The ghost actions of a one-transaction wallet trace, if it is one.
pub(crate) fn from_external(
    tree: &Tree<'_>,
    trace: &TraceRecord,
    interfaces: &dyn Interfaces,
) -> Vec<ActionRecord> {
    let tx = root_tx(tree);
    let Some(ext) = tx.in_msg.as_ref() else {
        return Vec::new();
    };
    if ext.kind != MsgKind::ExternalIn
        || !tx.out_msgs.is_empty()
        || !tree.children[tree.root].is_empty()
    {
        return Vec::new();
    }
    let Some(list) = ext.body.as_ref().and_then(payloads) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for (idx, p) in list.iter().enumerate() {
        let Some(m) = &p.internal else { continue };
        let hash_b64 = super::b64(&p.hash);
        let key = base64::engine::general_purpose::STANDARD.encode(format!("{hash_b64}{idx}"));
        let op = body::opcode(&m.body);
        let mut cols = Cols {
            source: Some(tx.account),
            destination: m.destination,
            opcode: op,
            value: Some(m.value),
            ..Cols::default()
        };
        let is_transfer = matches!(
            op,
            None | Some(body::OP_COMMENT | body::OP_ENCRYPTED_COMMENT)
        );
        let block = if is_transfer && m.destination.is_some() {
            // The wallet's transaction stands for the receiver's, which never ran.
            let failed =
                m.bounce || !(tx.end_status == tonindex_model::AccountStatus::Uninit || tx.no_gas);
            let mut b = Block::new("ton_transfer", vec![tree.root], failed, cols);
            let (content, encrypted) = body::transfer_comment(Some(&m.body));
            b.data = ActionData::Comment(Comment { content, encrypted });
            b
        } else {
            let failed = !(m.value == 0 && !m.extra_currencies && op.is_some_and(|o| o != 0));
            match (op, jetton::transfer_body(&m.body)) {
                (Some(OP_TRANSFER), Some(t)) => {
                    cols.asset = m
                        .destination
                        .and_then(|w| interfaces.jetton_wallet(&w))
                        .map(|w| w.jetton);
                    cols.source_secondary = m.destination;
                    cols.destination = t.destination;
                    cols.amount = Some(t.amount);
                    cols.opcode = None;
                    cols.value = None;
                    let mut b = Block::new("jetton_transfer", vec![tree.root], failed, cols);
                    b.data = jetton::transfer_data(&t, t.forward_amount);
                    b
                }
                _ => Block::new("call_contract", vec![tree.root], failed, cols),
            }
        };
        let row = Row {
            kind: block.kind,
            nodes: &block.nodes,
            initiating: None,
            failed: block.failed,
            cols: &block.cols,
            data: &block.data,
        };
        actions.push(serialize(tree, trace, &row, Some(&Ghost { key })));
    }
    actions
}
