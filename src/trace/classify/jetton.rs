//! Jetton flows (TEP-74): transfer, burn, mint.

use crate::trace::action_data::{ActionData, JettonTransfer};
use tonindex_model::Address;
use tycho_types::cell::Cell;

use super::body::{self, coins, either_payload, maybe_ref, msg_address};
use super::{call_failed, change_of, child_with, Block, BlockId, Cols, Graph, Interfaces, Tree};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[
    OP_TRANSFER,
    OP_INTERNAL_TRANSFER,
    OP_BURN,
    OP_MINT,
    OP_MINTER_MINT,
];

pub(crate) const OP_TRANSFER: u32 = 0x0f8a_7ea5;
pub(crate) const OP_INTERNAL_TRANSFER: u32 = 0x178d_4519;
pub(crate) const OP_TRANSFER_NOTIFICATION: u32 = 0x7362_d09c;
pub(crate) const OP_BURN: u32 = 0x595f_07bc;
pub(crate) const OP_BURN_NOTIFICATION: u32 = 0x7bdd_97de;
pub(crate) const OP_MINT: u32 = 0x642b_7d07;
pub(crate) const OP_MINTER_MINT: u32 = 0x15;

/// `transfer#0f8a7ea5 query_id amount destination response_destination
/// custom_payload:(Maybe ^Cell) forward_ton_amount forward_payload`.
pub(crate) struct TransferBody {
    pub query_id: u64,
    pub amount: u128,
    pub destination: Option<Address>,
    pub response_destination: Option<Address>,
    pub custom_payload: Option<Cell>,
    pub forward_amount: u128,
    pub forward_payload: Option<Cell>,
}

pub(crate) fn transfer_body(cell: &Cell) -> Option<TransferBody> {
    let mut s = body::after_op(cell)?;
    let query_id = s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    let destination = msg_address(&mut s)?;
    let response_destination = msg_address(&mut s)?;
    let custom_payload = maybe_ref(&mut s)?;
    let forward_amount = coins(&mut s)?;
    let forward_payload = either_payload(&mut s).filter(|p| p.bit_len() > 0);
    Some(TransferBody {
        query_id,
        amount,
        destination,
        response_destination,
        custom_payload,
        forward_amount,
        forward_payload,
    })
}

/// `burn#595f07bc query_id amount response_destination custom_payload:(Maybe ^Cell)`.
pub(crate) struct BurnBody {
    pub query_id: u64,
    pub amount: u128,
    pub response_destination: Option<Address>,
    pub custom_payload: Option<Cell>,
}

pub(crate) fn burn_body(cell: &Cell) -> Option<BurnBody> {
    let mut s = body::after_op(cell)?;
    let query_id = s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    // Burns in the wild end early (TEP-74 wallets read only the amount):
    // what is missing is absent.
    let response_destination = msg_address(&mut s).flatten();
    let custom_payload = maybe_ref(&mut s).flatten();
    Some(BurnBody {
        query_id,
        amount,
        response_destination,
        custom_payload,
    })
}

/// `internal_transfer#178d4519 query_id amount from response_address
/// forward_ton_amount …`: `(amount, forward_ton_amount)`.
fn internal_transfer_amounts(cell: &Cell) -> Option<(u128, u128)> {
    let mut s = body::after_op(cell)?;
    s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    msg_address(&mut s)?;
    msg_address(&mut s)?;
    let forward = coins(&mut s)?;
    Some((amount, forward))
}

fn in_body<'a>(tree: &'a Tree<'_>, n: usize) -> Option<&'a Cell> {
    tree.txs[n].in_msg.as_ref()?.body.as_ref()
}

/// The data fields of a Jetton transfer (toncenter's `jetton_transfer_data`).
pub(crate) fn transfer_data(b: &TransferBody, forward_amount: u128) -> ActionData {
    let (comment, encrypted) = body::payload_comment(b.forward_payload.as_ref());
    ActionData::JettonTransfer(JettonTransfer {
        comment,
        custom_payload: b.custom_payload.as_ref().map(body::boc_b64),
        forward_amount: Some(forward_amount.to_string()),
        forward_payload: b.forward_payload.as_ref().map(body::boc_b64),
        is_encrypted_comment: encrypted,
        query_id: Some(b.query_id.to_string()),
        response_destination: b.response_destination,
    })
}

/// transfer → internal_transfer (→ transfer_notification), with the
/// excesses either returns. The receiving wallet must be a known Jetton wallet.
pub(crate) fn transfer(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let tree = g.tree;
    let n = g.leaf(b)?;
    if tree.opcode(n) != Some(OP_TRANSFER) || tree.txs[n].in_msg.as_ref()?.source.is_none() {
        return None;
    }
    let internal = child_with(g, n, OP_INTERNAL_TRANSFER)?;
    let receiver_wallet = tree.txs[internal].in_msg.as_ref()?.destination?;
    let wallet = interfaces.jetton_wallet(&receiver_wallet)?;
    let parsed = transfer_body(in_body(tree, n)?)?;
    let (amount, forward_amount) = in_body(tree, internal)
        .and_then(internal_transfer_amounts)
        .unwrap_or((parsed.amount, parsed.forward_amount));
    let mut nodes = vec![n, internal];
    let notify = child_with(g, internal, OP_TRANSFER_NOTIFICATION);
    nodes.extend(notify);
    nodes.extend(change_of(g, internal));
    if let Some(notify) = notify {
        nodes.extend(change_of(g, notify));
    }
    let m = tree.txs[n].in_msg.as_ref()?;
    let cols = Cols {
        source: m.source,
        source_secondary: m.destination,
        destination: Some(wallet.owner),
        destination_secondary: Some(receiver_wallet),
        asset: Some(wallet.jetton),
        amount: Some(amount),
        ..Cols::default()
    };
    let failed = call_failed(tree, n) || call_failed(tree, internal);
    let mut b = Block::new("jetton_transfer", nodes, failed, cols);
    b.data = transfer_data(&parsed, forward_amount);
    Some(b)
}

/// burn (→ burn_notification at the master, with its excesses).
pub(crate) fn burn(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let tree = g.tree;
    let n = g.leaf(b)?;
    if tree.opcode(n) != Some(OP_BURN) {
        return None;
    }
    let jetton_wallet = tree.txs[n].in_msg.as_ref()?.destination?;
    let wallet = interfaces.jetton_wallet(&jetton_wallet)?;
    let amount = burn_body(in_body(tree, n)?)?.amount;
    let mut nodes = vec![n];
    if let Some(notify) = child_with(g, n, OP_BURN_NOTIFICATION) {
        nodes.push(notify);
        nodes.extend(change_of(g, notify));
    }
    let cols = Cols {
        source: Some(wallet.owner),
        source_secondary: Some(jetton_wallet),
        asset: Some(wallet.jetton),
        amount: Some(amount),
        ..Cols::default()
    };
    Some(Block::new("jetton_burn", nodes, call_failed(tree, n), cols))
}

/// A mint request at a master (`mint#642b7d07`, or the minter's `#15`)
/// with the internal_transfer it causes and what follows it.
pub(crate) fn mint(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let tree = g.tree;
    let n = g.leaf(b)?;
    let op = tree.opcode(n)?;
    if op != OP_MINT && op != OP_MINTER_MINT {
        return None;
    }
    let m = tree.txs[n].in_msg.as_ref()?;
    m.source?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    s.load_u64().ok()?;
    let to = msg_address(&mut s)?;
    let ton_amount = coins(&mut s)?;
    let master_amount = if op == OP_MINTER_MINT {
        let master_msg = s.load_reference_cloned().ok()?;
        let mut ms = body::after_op(&master_msg)?;
        ms.load_u64().ok()?;
        coins(&mut ms)
    } else {
        None
    };
    let mut nodes = vec![n];
    let internal = child_with(g, n, OP_INTERNAL_TRANSFER);
    let notify = match internal {
        Some(i) => child_with(g, i, OP_TRANSFER_NOTIFICATION),
        None => child_with(g, n, OP_TRANSFER_NOTIFICATION),
    };
    nodes.extend(internal);
    nodes.extend(notify);
    for x in internal.iter().chain(notify.iter()) {
        nodes.extend(change_of(g, *x));
    }
    let mint_failed = call_failed(tree, n);
    let cols = match internal {
        Some(i) if !mint_failed => {
            let receiver_wallet = tree.txs[i].in_msg.as_ref()?.destination?;
            let wallet = interfaces.jetton_wallet(&receiver_wallet)?;
            let (amount, _) = in_body(tree, i).and_then(internal_transfer_amounts)?;
            let failed = call_failed(tree, i);
            let cols = Cols {
                destination: Some(wallet.owner),
                destination_secondary: Some(receiver_wallet),
                asset: Some(wallet.jetton),
                amount: Some(amount),
                value: Some(ton_amount),
                ..Cols::default()
            };
            return Some(Block::new("jetton_mint", nodes, failed, cols));
        }
        _ => Cols {
            destination: to,
            asset: m.destination,
            amount: master_amount,
            value: Some(ton_amount),
            ..Cols::default()
        },
    };
    Some(Block::new("jetton_mint", nodes, true, cols))
}

/// The proxy-TON masters (STON.fi pTON v1 and v2, TONCO wTTON): their
/// wallets take a transfer and notify without an internal transfer.
pub(crate) const PTON_MASTERS: &[&str] = &[
    "0:8CDC1D7640AD5EE326527FC1AD0514F468B30DC84B0173F0E155F451B4E11F7C",
    "0:671963027F7F85659AB55B821671688601CDCF1EE674FC7FBBB1A776A18D34A3",
    "0:949C4C66760C002800E2FA3D8A3CA4E1C90A9373B53AE7472033483BF14CD95E",
];

/// Whether `jetton` is a proxy-TON master.
pub(crate) fn is_pton(jetton: &Address) -> bool {
    PTON_MASTERS.contains(&super::raw(jetton).as_str())
}

/// A transfer to a proxy-TON wallet (→ its notification): the wallet pays
/// out TON itself, so there is no receiving wallet.
pub(crate) fn pton_transfer(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_TRANSFER) {
        return None;
    }
    let m = g.msg(b)?;
    let wallet = interfaces.jetton_wallet(&m.destination?)?;
    if !is_pton(&wallet.jetton) {
        return None;
    }
    let parsed = transfer_body(m.body.as_ref()?)?;
    let mut members = vec![b];
    if let Some(n) = g.next_call(b, OP_TRANSFER_NOTIFICATION) {
        members.extend(g.with_change(n));
    }
    let cols = Cols {
        source: m.source,
        destination: parsed.destination,
        asset: Some(wallet.jetton),
        amount: Some(parsed.amount),
        ..Cols::default()
    };
    let failed = g.block(b).failed;
    let mut blk = Block::of("jetton_transfer", members, failed, cols);
    blk.data = transfer_data(&parsed, parsed.forward_amount);
    Some(blk)
}
