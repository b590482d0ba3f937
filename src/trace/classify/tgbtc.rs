//! tgBTC (the TON Teleport bridge): mints (a chain of teleport steps that
//! ends in a Jetton mint, with the mint log), burns (a Jetton burn whose
//! notification reaches the teleport, with the burn log and the peg-out
//! contract), new keys after a DKG round. The logs are external-out
//! messages; a log whose flow is not all there is still an action of its
//! own (the `_fallback` types).

use crate::trace::action_data::{ActionData, TgbtcKey, TgbtcMint};
use tonindex_model::Address;
use tycho_types::cell::CellSlice;

use super::body::{self, any_address, coins, hex_int};
use super::{Block, BlockId, Cols, Graph, Interfaces};

const OP_MINT_LOG: u32 = 0x77a8_0ef3;
const OP_BURN_LOG: u32 = 0xca44_4ce6;
const OP_NEW_KEY_LOG: u32 = 0x2775_6729;
const OP_DKG_LOG: u32 = 0x4534_43a6;
const OP_MINT_HEAD: u32 = 0x3f78_1d24;
const OP_MINT_TAIL: u32 = 0xe42a_879b;
const OP_NEW_KEY: u32 = 0x690f_357a;
const OP_PEGOUT: u32 = 0xbe44_e7a6;
const OP_PEGOUT_TO_TELEPORT: u32 = 0x1a84_c0e0;
use super::jetton::OP_BURN_NOTIFICATION;
const OP_BURN_NOTIFICATION_OLD: u32 = 0x5876_43a2;

/// The opcodes whose bodies these matchers read (the logs).
pub(crate) const BODY_OPS: &[u32] = &[OP_MINT_LOG, OP_BURN_LOG, OP_NEW_KEY_LOG, OP_DKG_LOG];

/// How far up a mint's teleport chain is followed to its head.
const MAX_MINT_CHAIN: usize = 20;

fn log_body<'a>(g: &Graph<'a>, b: BlockId) -> Option<CellSlice<'a>> {
    body::after_op(g.body(b)?)
}

/// `amount:Coins recipient:MsgAddress bitcoin_txid:uint256`; the txid as
/// Bitcoin writes it (bytes reversed).
fn mint_log(g: &Graph<'_>, b: BlockId) -> Option<(u128, Address, String)> {
    let mut s = log_body(g, b)?;
    let amount = coins(&mut s)?;
    let recipient = any_address(&mut s)?.std()?;
    let mut txid = *s.load_u256().ok()?.as_array();
    txid.reverse();
    Some((amount, recipient, hex::encode(txid)))
}

/// `amount:Coins sender:MsgAddress pegout:MsgAddress`: an address that
/// does not read (or is not a standard one) is unknown.
fn burn_log(g: &Graph<'_>, b: BlockId) -> Option<(u128, Option<Address>, Option<Address>)> {
    let mut s = log_body(g, b)?;
    let amount = coins(&mut s)?;
    let sender = any_address(&mut s);
    let pegout = match sender {
        Some(_) => any_address(&mut s).and_then(|a| a.std()),
        None => None,
    };
    Some((amount, sender.and_then(|a| a.std()), pegout))
}

/// `amount:Coins new_internal_pubkey:uint256 pegout:MsgAddress`.
fn new_key_log(g: &Graph<'_>, b: BlockId) -> Option<(u128, String, Option<Address>)> {
    let mut s = log_body(g, b)?;
    let amount = coins(&mut s)?;
    let pubkey = hex_int(s.load_u256().ok()?.as_array());
    let pegout = any_address(&mut s)?.std();
    Some((amount, pubkey, pegout))
}

/// `timestamp:uint64 internal_pubkey:uint256`.
fn dkg_log(g: &Graph<'_>, b: BlockId) -> Option<(u64, String)> {
    let mut s = log_body(g, b)?;
    let ts = s.load_u64().ok()?;
    Some((ts, hex_int(s.load_u256().ok()?.as_array())))
}

fn emitter(g: &Graph<'_>, b: BlockId) -> Option<Address> {
    g.msg(b)?.source
}

/// The peg-out step under `b`, with what it sends on (all optional).
fn pegout_steps(g: &Graph<'_>, b: BlockId, members: &mut Vec<BlockId>) {
    if let Some(p) = g.next_call(b, OP_PEGOUT) {
        members.extend(g.with_change(p));
        if let Some(x) = g.next_call(p, OP_PEGOUT_TO_TELEPORT) {
            members.extend(g.with_change(x));
        }
        if let Some(x) = g.next_kind(p, "ton_transfer", &[]) {
            members.extend(g.with_change(x));
        }
    }
}

/// The teleport's last mint step, with its log and the Jetton mint, and
/// the chain of steps up to the user's request.
pub(crate) fn mint(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_MINT_TAIL) {
        return None;
    }
    let log = g.next_call(b, OP_MINT_LOG)?;
    let jetton_mint = g.next_kind(b, "jetton_mint", &[])?;
    let mut members = vec![b, log, jetton_mint];
    let mut at = b;
    let mut head = None;
    for _ in 0..MAX_MINT_CHAIN {
        let Some(p) = g.block(at).prev else { break };
        members.push(p);
        if g.call_op(p) == Some(OP_MINT_HEAD) {
            head = Some(p);
            break;
        }
        at = p;
    }
    let head = head?;
    let (amount, recipient, txid) = mint_log(g, log)?;
    let m = g.block(jetton_mint);
    let cols = Cols {
        source: g.msg(head)?.source,
        source_secondary: emitter(g, log),
        destination: Some(recipient),
        destination_secondary: m.cols.destination_secondary,
        asset: m.cols.asset,
        amount: Some(amount),
        ..Cols::default()
    };
    let mut blk = Block::of("tgbtc_mint", members, false, cols);
    blk.data = ActionData::TgbtcMint(TgbtcMint {
        bitcoin_tx_id: txid,
    });
    Some(blk)
}

/// A Jetton burn whose notification reaches the teleport: the burn log
/// and the peg-out.
pub(crate) fn burn(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let jb = g.block(b);
    if jb.kind != "jetton_burn" {
        return None;
    }
    let hop = g
        .next_call(b, OP_BURN_NOTIFICATION)
        .or_else(|| g.next_call(b, OP_BURN_NOTIFICATION_OLD))?;
    let log = g.next_call(hop, OP_BURN_LOG)?;
    let mut members = vec![b];
    members.extend(g.with_change(hop));
    members.push(log);
    pegout_steps(g, hop, &mut members);
    let (logged, _, pegout) = burn_log(g, log)?;
    let amount = match jb.cols.amount {
        Some(burnt) if burnt > 0 => burnt.min(logged),
        _ => logged,
    };
    let cols = Cols {
        source: jb.cols.source,
        source_secondary: jb.cols.source_secondary,
        destination: pegout,
        asset: jb.cols.asset,
        amount: Some(amount),
        ..Cols::default()
    };
    Some(Block::of("tgbtc_burn", members, false, cols))
}

/// A new key: the DKG step that logged its completion, the coordinator's
/// new-key step with its log, and the peg-out.
pub(crate) fn new_key(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_NEW_KEY) {
        return None;
    }
    let parent = g.block(b).prev?;
    let dkg = g.next_call(parent, OP_DKG_LOG)?;
    let log = g.next_call(b, OP_NEW_KEY_LOG)?;
    let mut members = g.with_change(parent);
    members.extend([dkg, b, log]);
    pegout_steps(g, b, &mut members);
    let (timestamp, _) = dkg_log(g, dkg)?;
    let (amount, pubkey, pegout) = new_key_log(g, log)?;
    let cols = Cols {
        source: emitter(g, dkg),
        destination: emitter(g, log),
        destination_secondary: pegout,
        amount: Some(amount),
        value: Some(u128::from(timestamp)),
        ..Cols::default()
    };
    let mut blk = Block::of("tgbtc_new_key", members, false, cols);
    blk.data = ActionData::TgbtcKey(TgbtcKey { pubkey });
    Some(blk)
}

/// A mint log whose flow is not all in the trace.
pub(crate) fn mint_fallback(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_MINT_LOG) || g.block(b).log.is_none() {
        return None;
    }
    let (amount, recipient, txid) = mint_log(g, b)?;
    let cols = Cols {
        source: emitter(g, b),
        source_secondary: emitter(g, b),
        destination: Some(recipient),
        amount: Some(amount),
        ..Cols::default()
    };
    let mut blk = Block::of("tgbtc_mint_fallback", vec![b], false, cols);
    blk.data = ActionData::TgbtcMint(TgbtcMint {
        bitcoin_tx_id: txid,
    });
    Some(blk)
}

/// A burn log whose flow is not all in the trace.
pub(crate) fn burn_fallback(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_BURN_LOG) || g.block(b).log.is_none() {
        return None;
    }
    let (amount, sender, pegout) = burn_log(g, b)?;
    let cols = Cols {
        source: sender,
        destination: pegout,
        amount: Some(amount),
        ..Cols::default()
    };
    Some(Block::of("tgbtc_burn_fallback", vec![b], false, cols))
}

/// A new-key log whose flow is not all in the trace.
pub(crate) fn new_key_fallback(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_NEW_KEY_LOG) || g.block(b).log.is_none() {
        return None;
    }
    let (amount, pubkey, pegout) = new_key_log(g, b)?;
    let cols = Cols {
        destination: emitter(g, b),
        destination_secondary: pegout,
        amount: Some(amount),
        ..Cols::default()
    };
    let mut blk = Block::of("tgbtc_new_key_fallback", vec![b], false, cols);
    blk.data = ActionData::TgbtcKey(TgbtcKey { pubkey });
    Some(blk)
}

/// A DKG completion log with no new key after it.
pub(crate) fn dkg_log_fallback(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_DKG_LOG) || g.block(b).log.is_none() {
        return None;
    }
    let (timestamp, pubkey) = dkg_log(g, b)?;
    let cols = Cols {
        source: emitter(g, b),
        value: Some(u128::from(timestamp)),
        ..Cols::default()
    };
    let mut blk = Block::of("tgbtc_dkg_log_fallback", vec![b], false, cols);
    blk.data = ActionData::TgbtcKey(TgbtcKey { pubkey });
    Some(blk)
}
