//! Wallet v4 subscription plugins (spec v3 §4.5 `subscribe`,
//! `unsubscribe`): a plugin asks its wallet for a payment, the wallet pays
//! the plugin, and the plugin forwards the payment to the beneficiary —
//! that is one `subscribe`. A wallet that removes the plugin tells it to
//! destruct; the plugin returns what it holds — `unsubscribe`.

use super::body::{self, coins};
use super::{Block, BlockId, Cols, Graph, Interfaces};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_PAYMENT_REQUEST];

/// `payment_request#706c7567 query_id:uint64 amount:Coins` (plugin → wallet).
const OP_PAYMENT_REQUEST: u32 = 0x706c_7567;
/// The wallet's payment to its plugin (the request's op with the top bit).
const OP_PAYMENT: u32 = 0xf06c_7567;
/// `subscription#73756273` (plugin → beneficiary).
const OP_SUBSCRIPTION: u32 = 0x7375_6273;
/// `destruct#64737472` (wallet → plugin, and the plugin's answer).
const OP_DESTRUCT: u32 = 0x6473_7472;

/// A wallet's payment to its plugin, forwarded to the beneficiary, with
/// the plugin's request before it when the trace holds it (the amount is
/// then the one requested, and the request's failure is the action's).
pub(crate) fn subscribe(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_PAYMENT) {
        return None;
    }
    let forward = g.next_call(b, OP_SUBSCRIPTION)?;
    let m = g.msg(b)?;
    let mut members = vec![b, forward];
    let mut amount = m.value;
    let mut failed = false;
    if let Some(request) = g
        .block(b)
        .prev
        .filter(|&p| g.call_op(p) == Some(OP_PAYMENT_REQUEST))
    {
        let mut s = body::after_op(g.body(request)?)?;
        s.load_u64().ok()?;
        amount = coins(&mut s)?;
        failed = g.block(request).failed;
        members.push(request);
    }
    let cols = Cols {
        source: m.source,
        destination: g.msg(forward)?.destination,
        destination_secondary: m.destination,
        amount: Some(amount),
        ..Cols::default()
    };
    Some(Block::of("subscribe", members, failed, cols))
}

/// A wallet telling its plugin to destruct, with the plugin's answer (its
/// receiver is the action's beneficiary).
pub(crate) fn unsubscribe(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_DESTRUCT) {
        return None;
    }
    let m = g.msg(b)?;
    let answer = g.next_call(b, OP_DESTRUCT);
    let mut members = vec![b];
    members.extend(answer);
    let cols = Cols {
        source: m.source,
        destination: match answer {
            Some(a) => g.msg(a)?.destination,
            None => None,
        },
        destination_secondary: m.destination,
        ..Cols::default()
    };
    Some(Block::of("unsubscribe", members, false, cols))
}
