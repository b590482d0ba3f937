//! EVAA, the lending protocol: supplies, withdrawals and liquidations
//! (spec v3 §4.5 `evaa_supply`, `evaa_withdraw`, `evaa_liquidate`).
//!
//! Every operation is a request to the EVAA master — `supply_master` or
//! `liquidate_master` as a call carrying TON, or as the forward payload of
//! a Jetton transfer to the master; `withdraw_master` always as a call.
//! The master passes it on to the owner's user contract as a user command,
//! whose body opens with an upgrade header (`user_code_version:Coins
//! upgrade_info:(Maybe ^Cell) upgrade_exec:BoolExtended`): the message's
//! own opcode is the header's first bits, the command's comes after it.
//! The user contract answers the master (`supply_success`,
//! `withdraw_collateralized`, `liquidate_satisfied`, …), and the master
//! pays out, updates the user contract and reports; refusals take their
//! own ways back. What an operation came to (success, the refusal's
//! reason) is which of those messages follow.
//!
//! Contracts are recognised by these messages alone, as toncenter
//! recognises them: no master address or code hash is checked, and the
//! action's `success` is what the flow says, not whether a transaction
//! aborted.

use crate::trace::action_data::{ActionData, EvaaLiquidate, EvaaSupply, EvaaWithdraw};
use tonindex_model::Address;
use tycho_types::cell::{Cell, CellSlice};

use super::body::{self, coins, hex_int, maybe_ref, msg_address};
use super::{jetton, Block, BlockId, Cols, Graph, Interfaces};

// Requests to the master.
const OP_SUPPLY_MASTER: u32 = 0x1;
const OP_WITHDRAW_MASTER: u32 = 0x2;
const OP_LIQUIDATE_MASTER: u32 = 0x3;
// Supply.
const OP_SUPPLY_USER: u32 = 0x11;
const OP_SUPPLY_SUCCESS: u32 = 0x11a;
const OP_SUPPLY_FAIL: u32 = 0x11f;
// Withdrawal.
const OP_WITHDRAW_USER: u32 = 0x21;
const OP_WITHDRAW_COLLATERALIZED: u32 = 0x211;
/// The master's TON payout to the recipient (a plain message), and its
/// word to the user contract that the withdrawal went through (a user
/// command).
const OP_WITHDRAW_SUCCESS: u32 = 0x211a;
const OP_WITHDRAW_FAIL: u32 = 0x211f;
/// The user contract's refund after `withdraw_fail`: the master had no
/// funds.
const OP_WITHDRAW_NO_FUNDS_EXCESS: u32 = 0x0021_1fe8;
/// The user contract's refunds of a withdrawal it refused, with the
/// reason each gives.
const WITHDRAW_REFUSALS: &[(u32, &str)] = &[
    (0x21e6, "withdraw_locked_excess"),
    (0x21e7, "withdraw_not_collateralized_excess"),
    (0x21e8, "withdraw_missing_prices_excess"),
    (0x21ec, "withdraw_execution_crashed"),
];
// Liquidation.
const OP_LIQUIDATE_USER: u32 = 0x31;
const OP_LIQUIDATE_SATISFIED: u32 = 0x311;
const OP_LIQUIDATE_UNSATISFIED: u32 = 0x31f;
const OP_LIQUIDATE_SUCCESS: u32 = 0x311a;
const OP_LIQUIDATE_SUCCESS_REPORT: u32 = 0x311d;
const OP_LIQUIDATE_FAIL: u32 = 0x311f;
/// The reasons toncenter gives a `liquidate_unsatisfied` by the first 32
/// bits of its error (any other code is `unknown`).
const LIQUIDATION_ERRORS: &[(u32, &str)] = &[
    (0xe001, "master_liquidating_too_much"),
    (0xe002, "user_withdraw_in_progress"),
    (0xe003, "not_liquidatable"),
    (0xe004, "execution_crashed"),
    (0xe005, "min_collateral_not_satisfied"),
    (0xe006, "user_not_enough_collateral"),
    (0xe007, "user_liquidating_too_much"),
    (0xe008, "master_not_enough_liquidity"),
    (0xe009, "liquidation_prices_missing"),
];

/// The commands a master sends a user contract (behind the header), the
/// ones these matchers look for.
const USER_COMMANDS: &[u32] = &[
    OP_SUPPLY_USER,
    OP_WITHDRAW_USER,
    OP_WITHDRAW_SUCCESS,
    OP_WITHDRAW_FAIL,
    OP_LIQUIDATE_USER,
    OP_LIQUIDATE_SUCCESS,
];

/// EVAA's asset id of TON: sha256("TON").
const TON_ASSET_ID: [u8; 32] = [
    0x1a, 0x42, 0x19, 0xfe, 0x5e, 0x60, 0xd6, 0x3a, 0xf2, 0xa3, 0xcc, 0x7d, 0xce, 0x6f, 0xec, 0x69,
    0xb4, 0x5c, 0x6b, 0x57, 0x18, 0x49, 0x7a, 0x61, 0x48, 0xe7, 0xc2, 0x32, 0xac, 0x87, 0xbd, 0x8a,
];

/// The comments the master and user contracts send the owner with what
/// is left of the attached TON.
const COMMENTS: &[&str] = &["EVAA liquidation.", "EVAA supply.", "EVAA withdraw."];

/// The opcodes whose bodies these matchers read (besides the Jetton
/// transfers, comments and user commands, see [`is_user_command`]).
pub(crate) const BODY_OPS: &[u32] = &[
    OP_SUPPLY_MASTER,
    OP_WITHDRAW_MASTER,
    OP_LIQUIDATE_MASTER,
    OP_SUPPLY_SUCCESS,
    OP_WITHDRAW_COLLATERALIZED,
    OP_LIQUIDATE_SATISFIED,
    OP_LIQUIDATE_UNSATISFIED,
];

/// Whether a message's opcode (its first 32 bits) can open a user command
/// these matchers look for: a header with a version of at most three bytes
/// (4 bits of length, the bytes, the Maybe bit, 2 bits of `upgrade_exec`),
/// then the leading bits of one of `USER_COMMANDS` (a comment's opcode 0
/// passes too).
pub(crate) fn is_user_command(op: u32) -> bool {
    let len = op >> 28;
    if len > 3 {
        return false;
    }
    let head = 7 + 8 * len;
    let tail = 32 - head;
    USER_COMMANDS
        .iter()
        .any(|&c| (c >> head) == (op & ((1 << tail) - 1)))
}

/// A user command: its opcode after the header, and the rest of the body.
fn user_command<'a>(g: &Graph<'a>, b: BlockId) -> Option<(u32, CellSlice<'a>)> {
    if g.kind(b) != "call_contract" || g.leaf(b).is_none() {
        return None;
    }
    let mut s = g.body(b)?.as_slice().ok()?;
    coins(&mut s)?;
    maybe_ref(&mut s)?;
    s.load_small_uint(2).ok()?;
    let op = s.load_u32().ok()?;
    Some((op, s))
}

fn is_command(g: &Graph<'_>, b: BlockId, op: u32) -> bool {
    user_command(g, b).is_some_and(|(o, _)| o == op)
}

fn next(g: &Graph<'_>, b: BlockId) -> Vec<BlockId> {
    g.block(b).next.clone()
}

/// `b` with its change and the EVAA comments (with theirs) under it.
fn with_comments(g: &Graph<'_>, b: BlockId) -> Vec<BlockId> {
    let mut v = g.with_change(b);
    for c in next(g, b) {
        let comment = g.kind(c) == "ton_transfer"
            && g.block(c)
                .data
                .comment()
                .is_some_and(|t| COMMENTS.contains(&t));
        if comment {
            v.extend(g.with_change(c));
        }
    }
    v
}

/// An asset id as toncenter writes it: `0x` and lower-case hex without
/// leading zeros.
fn asset_id_hex(id: &[u8; 32]) -> String {
    format!("0x{}", hex_int(id))
}

/// A request to the master: its sender and the request itself.
struct Request {
    sender: Option<Address>,
    /// The Jetton transfer that carried it, if it came with Jettons.
    transfer: Option<BlockId>,
    /// The call's body, or the transfer's forward payload.
    body: Cell,
}

/// `b` as a request with opcode `op`: a call to the master, or a Jetton
/// transfer whose forward payload is the request.
fn request(g: &Graph<'_>, b: BlockId, op: u32) -> Option<Request> {
    if g.leaf(b).is_some() && g.call_op(b) == Some(op) {
        return Some(Request {
            sender: g.msg(b)?.source,
            transfer: None,
            body: g.body(b)?.clone(),
        });
    }
    if g.kind(b) != "jetton_transfer" {
        return None;
    }
    let transfer = g.part(b, jetton::OP_TRANSFER)?;
    let payload = jetton::transfer_body(g.body(transfer)?)?.forward_payload?;
    if body::opcode(&payload) != Some(op) {
        return None;
    }
    Some(Request {
        sender: g.block(b).cols.source,
        transfer: Some(b),
        body: payload,
    })
}

// ---------------------------------------------------------------------------
// Supply.

/// `supply_user` commands under the request, each with what answered it:
/// `supply_success` (with the comment the master sends), `supply_fail`, or
/// a Jetton refund. Those with an answer, in order.
fn supply_users(g: &Graph<'_>, b: BlockId) -> Vec<(BlockId, Vec<BlockId>)> {
    let mut found = Vec::new();
    for x in next(g, b) {
        if !is_command(g, x, OP_SUPPLY_USER) {
            continue;
        }
        let mut answers = Vec::new();
        for y in next(g, x) {
            match g.call_op(y) {
                Some(OP_SUPPLY_SUCCESS) => answers.extend(with_comments(g, y)),
                Some(OP_SUPPLY_FAIL) => answers.extend(g.with_change(y)),
                _ if g.kind(y) == "jetton_transfer" => answers.extend(g.with_change(y)),
                _ => {}
            }
        }
        if !answers.is_empty() {
            let mut parts = g.with_change(x);
            parts.extend(answers);
            found.push((x, parts));
        }
    }
    found
}

/// A supply: the request, the `supply_user` command, and the user
/// contract's answer. Succeeded when the answer is `supply_success`; its
/// amount is then the one supplied.
pub(crate) fn supply(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let req = request(g, b, OP_SUPPLY_MASTER)?;
    let t = g.block(b);
    let mut s = req.body.as_slice().ok()?;
    s.load_u32().ok()?;
    let mut cols = Cols {
        source: req.sender,
        ..Cols::default()
    };
    let (master, master_wallet) = match req.transfer {
        // `query_id include_user_code:BoolExtended supply_amount:uint64
        // recipient_address …`
        None => {
            s.load_u64().ok()?;
            s.load_small_uint(2).ok()?;
            cols.amount = Some(u128::from(s.load_u64().ok()?));
            cols.destination = msg_address(&mut s)?;
            (g.msg(b)?.destination, None)
        }
        // `include_user_code:BoolExtended recipient_address …` (no query id)
        Some(_) => {
            s.load_small_uint(2).ok()?;
            cols.destination = msg_address(&mut s)?;
            cols.source_secondary = t.cols.source_secondary;
            cols.asset = t.cols.asset;
            cols.amount = t.cols.amount;
            (t.cols.destination, t.cols.destination_secondary)
        }
    };
    let users = supply_users(g, b);
    let user = users.first()?.0;
    cols.destination_secondary = g.msg(user)?.destination;
    // `supply_user`: `query_id asset_id:uint256 …`
    let (_, mut us) = user_command(g, user)?;
    us.load_u64().ok()?;
    let asset_id = *us.load_u256().ok()?.as_array();
    let mut members = g.with_change(b);
    for (_, parts) in &users {
        members.extend(parts);
    }
    // `supply_success`: `query_id owner_address asset_id amount_supplied:uint64 …`
    let success = members
        .iter()
        .copied()
        .find(|&y| g.call_op(y) == Some(OP_SUPPLY_SUCCESS));
    if let Some(y) = success {
        let mut ss = body::after_op(g.body(y)?)?;
        ss.load_u64().ok()?;
        msg_address(&mut ss)?;
        ss.load_u256().ok()?;
        cols.amount = Some(u128::from(ss.load_u64().ok()?));
    }
    // The recipient's Jetton wallet: the sender's when it supplies for
    // itself, else the one a transfer from the master's wallet reached.
    let recipient_wallet = match req.transfer {
        None => None,
        Some(_) if cols.destination.is_some() && cols.destination == cols.source => {
            cols.source_secondary
        }
        Some(_) => members
            .iter()
            .map(|&x| g.block(x))
            .find(|x| {
                x.kind == "jetton_transfer"
                    && master_wallet.is_some()
                    && x.cols.source_secondary == master_wallet
            })
            .and_then(|x| x.cols.destination_secondary),
    };
    let mut blk = Block::of("evaa_supply", members, success.is_none(), cols);
    blk.data = ActionData::EvaaSupply(EvaaSupply {
        asset_id: Some(asset_id_hex(&asset_id)),
        is_ton: req.transfer.is_none(),
        master,
        master_jetton_wallet: master_wallet,
        recipient_jetton_wallet: recipient_wallet,
    });
    Some(blk)
}

// ---------------------------------------------------------------------------
// Withdrawal.

/// What came of a withdrawal, as the user contract's answer says.
#[derive(Clone, Copy)]
enum WithdrawEnd {
    /// `withdraw_collateralized`, the master's payout (a Jetton transfer
    /// or a `withdraw_success` message) and its `withdraw_success` command
    /// to the user contract.
    Paid {
        collateralized: BlockId,
        payout: BlockId,
    },
    /// `withdraw_collateralized`, but the master had no funds: its
    /// `withdraw_fail` command, and the user contract's refund.
    NoFunds,
    /// The user contract refused at once, with this reason.
    Refused(&'static str),
}

/// The payout and the user contract's update under `withdraw_collateralized`,
/// with their parts; the update sends what is left of the TON (required).
fn paid(g: &Graph<'_>, c: BlockId) -> Option<(BlockId, Vec<BlockId>)> {
    let under = next(g, c);
    let payout = under
        .iter()
        .copied()
        .find(|&x| g.kind(x) == "jetton_transfer" || g.call_op(x) == Some(OP_WITHDRAW_SUCCESS))?;
    let update = under.iter().copied().find(|&x| {
        x != payout
            && is_command(g, x, OP_WITHDRAW_SUCCESS)
            && next(g, x).iter().any(|&t| g.kind(t) == "ton_transfer")
    })?;
    let mut parts = g.with_change(c);
    if g.kind(payout) == "jetton_transfer" {
        parts.extend(g.with_change(payout));
    } else {
        parts.extend(with_comments(g, payout));
    }
    parts.extend(g.with_change(update));
    for t in next(g, update) {
        if g.kind(t) == "ton_transfer" {
            parts.extend(g.with_change(t));
        }
    }
    Some((payout, parts))
}

/// The `withdraw_fail` commands under `withdraw_collateralized` that the
/// user contract answered with its no-funds refund, with their parts.
fn no_funds(g: &Graph<'_>, c: BlockId) -> Option<Vec<BlockId>> {
    let mut parts = Vec::new();
    for f in next(g, c) {
        if !is_command(g, f, OP_WITHDRAW_FAIL) {
            continue;
        }
        let refunds: Vec<BlockId> = g.next_calls(f, OP_WITHDRAW_NO_FUNDS_EXCESS).collect();
        if refunds.is_empty() {
            continue;
        }
        parts.extend(g.with_change(f));
        for r in refunds {
            parts.extend(g.with_change(r));
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut all = g.with_change(c);
    all.extend(parts);
    Some(all)
}

/// The ends under a `withdraw_user` command, with their parts.
fn withdraw_ends(g: &Graph<'_>, user: BlockId) -> Vec<(WithdrawEnd, Vec<BlockId>)> {
    let mut ends = Vec::new();
    for y in next(g, user) {
        let Some(op) = g.call_op(y) else { continue };
        if op == OP_WITHDRAW_COLLATERALIZED {
            if let Some((payout, parts)) = paid(g, y) {
                let end = WithdrawEnd::Paid {
                    collateralized: y,
                    payout,
                };
                ends.push((end, parts));
            } else if let Some(parts) = no_funds(g, y) {
                ends.push((WithdrawEnd::NoFunds, parts));
            }
        } else if let Some(&(_, reason)) = WITHDRAW_REFUSALS.iter().find(|(o, _)| *o == op) {
            ends.push((WithdrawEnd::Refused(reason), g.with_change(y)));
        }
    }
    ends
}

/// A withdrawal: `withdraw_master`, the `withdraw_user` command, and how
/// it ended. Paid, its amount is the one the user contract let through;
/// otherwise the one asked for, with the reason.
pub(crate) fn withdraw(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.leaf(b).is_none() || g.call_op(b) != Some(OP_WITHDRAW_MASTER) {
        return None;
    }
    let m = g.msg(b)?;
    // `query_id asset_id:uint256 amount:uint64 recipient_addr …`
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let asset_id = *s.load_u256().ok()?.as_array();
    let requested = u128::from(s.load_u64().ok()?);
    let recipient = msg_address(&mut s)?;
    let is_ton = asset_id == TON_ASSET_ID;
    let mut users = Vec::new();
    for x in next(g, b) {
        if is_command(g, x, OP_WITHDRAW_USER) {
            let ends = withdraw_ends(g, x);
            if !ends.is_empty() {
                users.push((x, ends));
            }
        }
    }
    let user = users.first()?.0;
    let mut members = g.with_change(b);
    let mut all_ends = Vec::new();
    for (x, ends) in &users {
        members.extend(g.with_change(*x));
        for (end, parts) in ends {
            members.extend(parts);
            all_ends.push(*end);
        }
    }
    let end = all_ends
        .iter()
        .copied()
        .find(|e| matches!(e, WithdrawEnd::Paid { .. }))
        .or_else(|| {
            all_ends
                .iter()
                .copied()
                .find(|e| matches!(e, WithdrawEnd::NoFunds))
        })
        .or_else(|| all_ends.first().copied())?;
    let mut cols = Cols {
        source: m.source,
        destination: recipient,
        destination_secondary: g.msg(user)?.destination,
        amount: Some(requested),
        ..Cols::default()
    };
    let (mut recipient_wallet, mut master_wallet) = (None, None);
    let fail_reason = match end {
        WithdrawEnd::Paid {
            collateralized,
            payout,
        } => {
            // `withdraw_collateralized`: `query_id owner_address asset_id
            // withdraw_amount_current:uint64 …`
            let mut cs = body::after_op(g.body(collateralized)?)?;
            cs.load_u64().ok()?;
            msg_address(&mut cs)?;
            cs.load_u256().ok()?;
            cols.amount = Some(u128::from(cs.load_u64().ok()?));
            let p = g.block(payout);
            let jettons = p.kind == "jetton_transfer";
            if jettons == is_ton {
                // TON paid as Jettons or the other way round: not a
                // withdrawal toncenter knows.
                return None;
            }
            if jettons {
                cols.asset = p.cols.asset;
                recipient_wallet = p.cols.destination_secondary;
                master_wallet = p.cols.source_secondary;
            }
            None
        }
        WithdrawEnd::NoFunds => Some("withdraw_no_funds_excess"),
        WithdrawEnd::Refused(reason) => Some(reason),
    };
    let mut blk = Block::of("evaa_withdraw", members, fail_reason.is_some(), cols);
    blk.data = ActionData::EvaaWithdraw(EvaaWithdraw {
        asset_id: Some(asset_id_hex(&asset_id)),
        fail_reason: fail_reason.map(str::to_string),
        is_ton,
        master: m.destination,
        master_jetton_wallet: master_wallet,
        recipient_jetton_wallet: recipient_wallet,
    });
    Some(blk)
}

// ---------------------------------------------------------------------------
// Liquidation.

/// What came of a liquidation at the borrower's user contract.
#[derive(Clone, Copy)]
enum LiquidationEnd {
    /// `liquidate_satisfied`, the master's `liquidate_success` command and
    /// its payout or report.
    Satisfied(BlockId),
    /// `liquidate_unsatisfied` and the master's refund or report.
    Unsatisfied(BlockId),
    /// `liquidate_satisfied`, but the master could not pay:
    /// `liquidate_fail` and its refund or report.
    MasterFailed,
}

/// The master's last word to the liquidator: a report (success, or
/// `liquidate_fail`) or the Jettons (collateral or refund).
fn is_finish(g: &Graph<'_>, b: BlockId) -> bool {
    matches!(
        g.call_op(b),
        Some(OP_LIQUIDATE_SUCCESS_REPORT | OP_LIQUIDATE_FAIL)
    ) || g.kind(b) == "jetton_transfer"
}

/// Under `liquidate_satisfied`: the first block that `first` accepts,
/// then another that is a finish; with their parts.
fn satisfied_steps(
    g: &Graph<'_>,
    y: BlockId,
    first: impl Fn(BlockId) -> bool,
    comments: bool,
) -> Option<Vec<BlockId>> {
    let under = next(g, y);
    let a = under.iter().copied().find(|&x| first(x))?;
    let finish = under.iter().copied().find(|&x| x != a && is_finish(g, x))?;
    let mut parts = g.with_change(y);
    if comments {
        parts.extend(with_comments(g, a));
    } else {
        parts.extend(g.with_change(a));
    }
    parts.extend(g.with_change(finish));
    Some(parts)
}

/// The ends under a `liquidate_user` command, with their parts.
fn liquidation_ends(g: &Graph<'_>, user: BlockId) -> Vec<(LiquidationEnd, Vec<BlockId>)> {
    let mut ends = Vec::new();
    for y in next(g, user) {
        match g.call_op(y) {
            Some(OP_LIQUIDATE_SATISFIED) => {
                let success =
                    satisfied_steps(g, y, |x| is_command(g, x, OP_LIQUIDATE_SUCCESS), true);
                if let Some(parts) = success {
                    ends.push((LiquidationEnd::Satisfied(y), parts));
                } else if let Some(parts) =
                    satisfied_steps(g, y, |x| g.call_op(x) == Some(OP_LIQUIDATE_FAIL), false)
                {
                    ends.push((LiquidationEnd::MasterFailed, parts));
                }
            }
            Some(OP_LIQUIDATE_UNSATISFIED) => {
                let finishes: Vec<BlockId> = next(g, y)
                    .into_iter()
                    .filter(|&x| is_finish(g, x))
                    .collect();
                if !finishes.is_empty() {
                    let mut parts = g.with_change(y);
                    for f in finishes {
                        parts.extend(g.with_change(f));
                    }
                    ends.push((LiquidationEnd::Unsatisfied(y), parts));
                }
            }
            _ => {}
        }
    }
    ends
}

/// `liquidate_satisfied`: `(borrower, collateral asset id, collateral
/// reward, debt liquidated)`.
fn satisfied(g: &Graph<'_>, b: BlockId) -> Option<(Option<Address>, [u8; 32], u128, u128)> {
    // `query_id owner_address liquidator_address transferred_asset_id
    // ^[ delta_loan_principal:int64 liquidatable_amount:uint64
    // protocol_gift:uint64 new_user_loan_principal:int64
    // collateral_asset_id:uint256 delta_collateral_principal:int64
    // collateral_reward:uint64 … ]`
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let owner = msg_address(&mut s)?;
    msg_address(&mut s)?;
    s.load_u256().ok()?;
    let mut r = s.load_reference_as_slice().ok()?;
    r.load_u64().ok()?;
    let liquidatable = r.load_u64().ok()?;
    r.load_u64().ok()?;
    r.load_u64().ok()?;
    let collateral = *r.load_u256().ok()?.as_array();
    r.load_u64().ok()?;
    let reward = r.load_u64().ok()?;
    Some((
        owner,
        collateral,
        u128::from(reward),
        u128::from(liquidatable),
    ))
}

/// `liquidate_unsatisfied`'s reason, read as toncenter reads it: the 32
/// bits after `^[ transferred_amount:uint64 collateral_asset_id:uint256
/// min_collateral_amount:uint64 forward_ton_amount:uint64
/// custom_response_payload:^Cell`. `None` when the body does not read up
/// to there (toncenter then makes no action).
fn unsatisfied_reason(g: &Graph<'_>, b: BlockId) -> Option<&'static str> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    msg_address(&mut s)?;
    msg_address(&mut s)?;
    s.load_u256().ok()?;
    let mut r = s.load_reference_as_slice().ok()?;
    r.load_u64().ok()?;
    r.load_u256().ok()?;
    r.load_u64().ok()?;
    r.load_u64().ok()?;
    r.load_reference().ok()?;
    Some(match r.load_u32() {
        Ok(code) => LIQUIDATION_ERRORS
            .iter()
            .find(|(c, _)| *c == code)
            .map_or("unknown", |&(_, reason)| reason),
        Err(_) => "parse_error",
    })
}

/// A liquidation: the request, and the `liquidate_user` command with how
/// it ended — or, without one, the master's refusal (a bounce, or the
/// Jettons sent back). Its amount is the collateral the liquidator got
/// (0 when it failed).
pub(crate) fn liquidate(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let req = request(g, b, OP_LIQUIDATE_MASTER)?;
    // `query_id borrower_address liquidator_address collateral_asset_id:uint256
    // min_collateral_amount:uint64 include_user_code:BoolExtended
    // liquidate_incoming_amount:uint64 …`, in the call's body and in the
    // forward payload alike.
    let mut s = req.body.as_slice().ok()?;
    s.load_u32().ok()?;
    s.load_u64().ok()?;
    let borrower = msg_address(&mut s)?;
    msg_address(&mut s)?;
    let collateral_id = *s.load_u256().ok()?.as_array();
    s.load_u64().ok()?;
    s.load_small_uint(2).ok()?;
    let debt = u128::from(s.load_u64().ok()?);
    let mut members = g.with_change(b);
    let mut users = Vec::new();
    let mut refused = false;
    for x in next(g, b) {
        if is_command(g, x, OP_LIQUIDATE_USER) {
            let ends = liquidation_ends(g, x);
            if !ends.is_empty() {
                members.extend(g.with_change(x));
                users.push((x, ends));
                continue;
            }
        }
        let bounced = g.kind(x) == "call_contract" && g.msg(x).is_some_and(|m| m.bounced);
        if bounced || g.kind(x) == "jetton_transfer" {
            members.extend(g.with_change(x));
            refused = true;
        }
    }
    let mut cols = Cols {
        source: req.sender,
        destination: borrower,
        amount: Some(0),
        ..Cols::default()
    };
    let mut asset_id = collateral_id;
    let mut debt_amount = debt;
    let fail_reason = match users.first() {
        None if refused => Some("immediate_rejection"),
        None => return None,
        Some((user, _)) => {
            cols.destination_secondary = g.msg(*user)?.destination;
            let ends: Vec<LiquidationEnd> = users
                .iter()
                .flat_map(|(_, ends)| ends.iter().map(|(e, _)| *e))
                .collect();
            for (_, ends) in &users {
                for (_, parts) in ends {
                    members.extend(parts);
                }
            }
            let satisfied_at = ends.iter().find_map(|e| match e {
                LiquidationEnd::Satisfied(y) => Some(*y),
                _ => None,
            });
            let unsatisfied_at = ends.iter().find_map(|e| match e {
                LiquidationEnd::Unsatisfied(y) => Some(*y),
                _ => None,
            });
            if let Some(y) = satisfied_at {
                let (owner, collateral, reward, liquidated) = satisfied(g, y)?;
                cols.destination = owner;
                cols.amount = Some(reward);
                asset_id = collateral;
                debt_amount = liquidated;
                None
            } else if let Some(y) = unsatisfied_at {
                Some(unsatisfied_reason(g, y)?)
            } else {
                Some("master_not_enough_liquidity")
            }
        }
    };
    let mut blk = Block::of("evaa_liquidate", members, fail_reason.is_some(), cols);
    // toncenter keeps the collateral's asset id, in decimal, in the row's
    // `asset` column (the API's `collateral`); an address column cannot
    // hold it, so it is kept here.
    blk.data = ActionData::EvaaLiquidate(EvaaLiquidate {
        asset_id: Some(asset_id_hex(&asset_id)),
        collateral: Some(num_bigint::BigUint::from_bytes_be(&asset_id).to_string()),
        debt_amount: Some(debt_amount.to_string()),
        fail_reason: fail_reason.map(str::to_string),
    });
    Some(blk)
}
