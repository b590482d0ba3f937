//! Staking through the TON Foundation's nominator pool (spec v3 §4.5
//! `stake_deposit`, `stake_withdrawal`, `stake_withdrawal_request` with
//! provider `nominator`): a nominator sends the pool the comment "d" with
//! its stake, or "w" to withdraw. The pool pays a withdrawal at once when
//! it is not validating (one transfer back worth more than the request
//! carried, or two: the payout first), and otherwise keeps a request it
//! pays later. The requests it kept are paid when anyone sends the pool
//! `process_withdraw_requests` (op 2): each payout is a `stake_withdrawal`.
//! A pool is known by its code hash, as toncenter knows it.

use tonindex_model::Hash;

use super::liquid_staking::staking_block;
use super::{Block, BlockId, Cols, Graph, Interfaces};
use crate::trace::action_data::Staking;

/// The nominator pool's code hash (toncenter's `NOMINATOR_POOL_CODE_HASH`).
const NOMINATOR_POOL_CODE_HASH: Hash = [
    0x9a, 0x3e, 0xc1, 0x4b, 0xc0, 0x98, 0xf6, 0xb4, 0x40, 0x64, 0xc3, 0x05, 0x22, 0x2c, 0xae, 0xa2,
    0x80, 0x0f, 0x17, 0xdd, 0xa8, 0x5e, 0xe6, 0xa8, 0x19, 0x8a, 0x70, 0x95, 0xed, 0xe1, 0x0d, 0xcf,
];

/// The provider name toncenter gives these actions.
const PROVIDER: &str = "nominator";

/// A TON transfer to a nominator pool with exactly this comment.
fn to_pool<'a>(
    g: &Graph<'a>,
    b: BlockId,
    comment: &str,
    interfaces: &dyn Interfaces,
) -> Option<&'a crate::trace::TraceMsg> {
    if g.kind(b) != "ton_transfer" || g.block(b).data.comment() != Some(comment) {
        return None;
    }
    let m = g.msg(b)?;
    (interfaces.code_hash(&m.destination?)? == NOMINATOR_POOL_CODE_HASH).then_some(m)
}

/// "d": a deposit, with the bounce of a refused one.
pub(crate) fn nominator_deposit(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    let m = to_pool(g, b, "d", interfaces)?;
    let cols = Cols {
        source: m.source,
        destination: m.destination,
        amount: Some(m.value),
        ..Cols::default()
    };
    Some(staking_block(
        "nominator_pool_deposit",
        "stake_deposit",
        PROVIDER,
        g.with_change(b),
        g.block(b).failed,
        cols,
        Staking::default(),
    ))
}

/// "w": a withdrawal paid at once (`stake_withdrawal`, its amount the
/// payout) or a request the pool keeps (`stake_withdrawal_request`).
pub(crate) fn nominator_withdraw(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    let m = to_pool(g, b, "w", interfaces)?;
    let transfers: Vec<BlockId> = g
        .block(b)
        .next
        .iter()
        .copied()
        .filter(|&x| g.kind(x) == "ton_transfer")
        .collect();
    let value = |x: BlockId| g.msg(x).map_or(0, |m| m.value);
    let payout = match transfers.as_slice() {
        [one] => (value(*one) > m.value).then(|| value(*one)),
        [_, _] => transfers
            .iter()
            .copied()
            .min_by_key(|&x| g.msg(x).and_then(|m| m.created_lt).unwrap_or(u64::MAX))
            .map(value),
        _ => None,
    };
    let mut members = g.with_change(b);
    if transfers.len() <= 2 {
        members.extend(&transfers);
    }
    let cols = Cols {
        source: m.source,
        destination: m.destination,
        amount: payout,
        ..Cols::default()
    };
    let shown = if payout.is_some() {
        "stake_withdrawal"
    } else {
        "stake_withdrawal_request"
    };
    Some(staking_block(
        "nominator_pool_withdraw_request",
        shown,
        PROVIDER,
        members,
        g.block(b).failed,
        cols,
        Staking::default(),
    ))
}

/// `process_withdraw_requests#00000002 query_id:uint64 limit:uint8`.
const OP_PROCESS_WITHDRAW_REQUESTS: u32 = 2;

/// A payout of a kept withdrawal request: a TON transfer from the pool
/// under a `process_withdraw_requests` call (`stake_withdrawal`, the
/// transfer alone, as toncenter builds it). The pool's last message back
/// to the caller is the change of the call (the pool's code sends it after
/// the payouts), not a payout — toncenter counts it as one too.
pub(crate) fn nominator_payout(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.kind(b) != "ton_transfer" {
        return None;
    }
    let call = g.block(b).prev?;
    if g.call_op(call) != Some(OP_PROCESS_WITHDRAW_REQUESTS) {
        return None;
    }
    let m = g.msg(b)?;
    let pool = g.msg(call)?.destination?;
    if m.source != Some(pool) || interfaces.code_hash(&pool)? != NOMINATOR_POOL_CODE_HASH {
        return None;
    }
    let caller = g.msg(call)?.source;
    let sent = &g.tx(call)?.out_msgs;
    if caller.is_some() && m.destination == caller && sent.last().is_some_and(|l| l.hash == m.hash)
    {
        return None;
    }
    let cols = Cols {
        source: m.destination,
        destination: Some(pool),
        amount: Some(m.value),
        ..Cols::default()
    };
    Some(staking_block(
        "nominator_pool_withdraw_request",
        "stake_withdrawal",
        PROVIDER,
        vec![b],
        false,
        cols,
        Staking::default(),
    ))
}
