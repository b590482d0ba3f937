//! STON.fi v2 liquidity (dex `stonfi_v2`): provisions
//! (`dex_deposit_liquidity`, [`provide`]) and withdrawals
//! (`dex_withdraw_liquidity`, [`withdraw`]), as toncenter's classifier
//! reads them.
//!
//! A provision brings one asset to the router (a Jetton transfer, or TON
//! through the proxy-TON wallet), which sends `provide_lp` to the pool; the
//! pool adds it at the user's LP account (`add_liquidity`). Once both sides
//! are in, the LP account calls the pool back (`cb_add_liquidity`) and the
//! pool mints LP tokens to the user (an internal transfer) or sends the
//! provision back (`add_liquidity` again: the provision failed). Each
//! asset is a provision of its own; when one transaction brought both, the
//! second takes the first in and names both sides.
//!
//! A withdrawal: LP tokens burnt, the LP wallet's `burn_notification_ext`
//! at the pool, the pool's `pay_to` at the router and the router's
//! transfers out (TON through the proxy-TON wallet) — or the refund of a
//! provision that never completed (`refund_me` at the LP account, its
//! `cb_refund_me` at the pool).

use crate::trace::action_data::{ActionData, DexDeposit, DexWithdraw};
use tonindex_model::Address;

use super::body::{self, coins, msg_address};
use super::jetton::{OP_INTERNAL_TRANSFER, OP_TRANSFER_NOTIFICATION};
use super::liquidity::{put_sides, Side};
use super::swap::{pton_ton_amount, OP_PTON_TON_TRANSFER};
use super::{Block, BlockId, Cols, Graph, Interfaces};

/// The router to the pool: one asset provided.
const OP_PROVIDE_LP: u32 = 0x37c0_96df;
/// The pool to the LP account (and back to the user on a failed provision).
const OP_ADD_LIQUIDITY: u32 = 0x50c6_a654;
/// The LP account to the pool, both sides in.
const OP_CB_ADD_LIQUIDITY: u32 = 0x06ec_d527;
/// The LP wallet to the pool: LP tokens burnt.
const OP_BURN_NOTIFICATION_EXT: u32 = 0x2974_37cf;
/// The pool to the router: pay the user.
const OP_PAY_TO: u32 = 0x657b_54f5;
/// The user to the LP account: give back what was provided.
const OP_REFUND_ME: u32 = 0x132b_9a2c;
/// The LP account to the pool, on a refund.
const OP_CB_REFUND_ME: u32 = 0x0f98_e2b8;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_PROVIDE_LP, OP_INTERNAL_TRANSFER, OP_PTON_TON_TRANSFER];

const DEX: &str = "stonfi_v2";

/// `b` with the change under it, into `members`.
fn take(g: &Graph<'_>, members: &mut Vec<BlockId>, b: BlockId) {
    members.extend(g.with_change(b));
}

/// The asset a provision brought to the router, from the block before
/// `provide_lp`: the topmost block of the transfer in, its asset (`None`
/// for TON) and the user's Jetton wallet.
fn incoming(
    g: &Graph<'_>,
    prev: BlockId,
    members: &mut Vec<BlockId>,
) -> Option<(BlockId, Option<Address>, Option<Address>)> {
    if g.kind(prev) == "jetton_transfer" {
        take(g, members, prev);
        let c = &g.block(prev).cols;
        return Some((prev, c.asset, c.source_secondary));
    }
    if g.call_op(prev) != Some(OP_TRANSFER_NOTIFICATION) {
        return None;
    }
    let before = g.block(prev).prev?;
    match g.call_op(before) {
        Some(OP_PTON_TON_TRANSFER) => {
            take(g, members, prev);
            take(g, members, before);
            Some((before, None, None))
        }
        // A transfer whose internal transfer and notification stand apart.
        Some(OP_INTERNAL_TRANSFER) => {
            let t = g
                .block(before)
                .prev
                .filter(|&t| g.kind(t) == "jetton_transfer")?;
            for x in [prev, before, t] {
                take(g, members, x);
            }
            let c = &g.block(t).cols;
            Some((t, c.asset, c.source_secondary))
        }
        _ => None,
    }
}

/// `internal_transfer#178d4519 query_id amount …`: the amount.
fn internal_amount(g: &Graph<'_>, b: BlockId) -> Option<u128> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    coins(&mut s)
}

/// A provision: the transfer into the router, `provide_lp` at the pool,
/// `add_liquidity` at the LP account and, when it completed the pair, the
/// callback with the LP tokens minted (or the provision sent back).
pub(crate) fn provide(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_PROVIDE_LP) {
        return None;
    }
    let add = g.next_call(b, OP_ADD_LIQUIDITY)?;
    let mut members = vec![b];
    let (top, asset, user_wallet) = incoming(g, g.block(b).prev?, &mut members)?;
    // provide_lp#37c096df query_id from_user:MsgAddress left_amount:Coins
    // right_amount:Coins …
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let sender = msg_address(&mut s)?;
    let left = coins(&mut s)?;
    let right = coins(&mut s)?;
    let amount = if left > 0 { left } else { right };
    let pool = g.msg(b)?.destination;
    take(g, &mut members, add);
    let mut minted = None;
    let mut failed = false;
    if let Some(cb) = g.next_call(add, OP_CB_ADD_LIQUIDITY) {
        let mut answered = Vec::new();
        for &x in &g.block(cb).next {
            match g.call_op(x) {
                Some(OP_INTERNAL_TRANSFER) => minted = internal_amount(g, x).or(minted),
                Some(OP_ADD_LIQUIDITY) => failed = true,
                _ => continue,
            }
            answered.push(x);
        }
        if !answered.is_empty() {
            take(g, &mut members, cb);
            for x in answered {
                take(g, &mut members, x);
            }
        }
    }
    let mut d = DexDeposit {
        dex: DEX.into(),
        amount1: Some(amount.to_string()),
        asset1: asset,
        user_jetton_wallet_1: user_wallet,
        lp_tokens_minted: minted.map(|v| v.to_string()),
        ..DexDeposit::default()
    };
    // The other side, when the same transaction brought it and it is
    // already a provision of the same user to the same pool.
    let provision = |x: BlockId| match &g.block(x).data {
        ActionData::DexDeposit(o) if g.kind(x) == "dex_deposit_liquidity" && o.dex == DEX => {
            Some(o)
        }
        _ => None,
    };
    let other = g.block(top).prev.and_then(|p| {
        g.block(p)
            .next
            .iter()
            .copied()
            .rev()
            .find_map(|x| provision(x).map(|o| (x, o)))
    });
    if let Some((o, theirs)) = other {
        let ob = g.block(o);
        if ob.cols.source == sender
            && ob.cols.destination == pool
            && theirs.lp_tokens_minted != d.lp_tokens_minted
        {
            d.amount2 = theirs.amount1.clone();
            d.asset2 = theirs.asset1;
            d.user_jetton_wallet_2 = theirs.user_jetton_wallet_1;
            if minted.is_none() {
                d.lp_tokens_minted = theirs.lp_tokens_minted.clone();
            }
            members.push(o);
        }
    }
    let cols = Cols {
        source: sender,
        destination: pool,
        destination_secondary: pool,
        ..Cols::default()
    };
    let mut blk = Block::of("dex_deposit_liquidity", members, failed, cols);
    blk.data = ActionData::DexDeposit(Box::new(d));
    Some(blk)
}

/// One side paid by a `pay_to`: its first Jetton transfer out, TON when
/// the transfer went through the proxy-TON wallet.
fn paid(g: &Graph<'_>, pay: BlockId, members: &mut Vec<BlockId>) -> Option<Side> {
    let t = g.next_kind(pay, "jetton_transfer", &[])?;
    let c = &g.block(t).cols;
    let (amount, asset) = match g.next_call(t, OP_PTON_TON_TRANSFER) {
        Some(ton) => {
            members.push(ton);
            (Some(pton_ton_amount(g, ton)?), None)
        }
        None => (c.amount, c.asset),
    };
    Some(Side {
        amount,
        asset,
        user_wallet: c.destination_secondary,
        dex_wallet: c.source,
        dex_jetton_wallet: c.source_secondary,
    })
}

/// A withdrawal: the pool's `pay_to` at the router after LP tokens were
/// burnt (or a provision refunded), with the router's transfers out; the
/// pool's other `pay_to`s beside it are its other side.
pub(crate) fn withdraw(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_PAY_TO) {
        return None;
    }
    let prev = g.block(b).prev?;
    let mut members = vec![b];
    let (sender, sender_wallet, lp_asset, burnt, refund) = match g.call_op(prev) {
        Some(OP_CB_REFUND_ME) => {
            let req = g
                .block(prev)
                .prev
                .filter(|&r| g.call_op(r) == Some(OP_REFUND_ME))?;
            take(g, &mut members, prev);
            take(g, &mut members, req);
            (g.msg(req)?.source, None, None, None, true)
        }
        Some(OP_BURN_NOTIFICATION_EXT) => {
            let burn = g.block(prev).prev.filter(|&x| g.kind(x) == "jetton_burn")?;
            take(g, &mut members, prev);
            take(g, &mut members, burn);
            let c = &g.block(burn).cols;
            (c.source, c.source_secondary, c.asset, c.amount, false)
        }
        _ => return None,
    };
    let outs: Vec<BlockId> = g
        .block(b)
        .next
        .iter()
        .copied()
        .filter(|&x| g.kind(x) == "jetton_transfer")
        .collect();
    if outs.is_empty() {
        return None;
    }
    for &t in &outs {
        take(g, &mut members, t);
    }
    let mut sides = vec![paid(g, b, &mut members)?];
    for &x in &g.block(prev).next {
        if x == b || members.contains(&x) || g.call_op(x) != Some(OP_PAY_TO) {
            continue;
        }
        let transfers: Vec<BlockId> = g
            .block(x)
            .next
            .iter()
            .copied()
            .filter(|&t| g.kind(t) == "jetton_transfer")
            .collect();
        if transfers.is_empty() {
            continue;
        }
        members.push(x);
        members.extend(&transfers);
        let side = paid(g, x, &mut members)?;
        // A third pay-to takes the second side's place, as toncenter's.
        sides.truncate(1);
        sides.push(side);
    }
    let mut d = DexWithdraw {
        dex: DEX.into(),
        is_refund: Some(refund),
        lp_tokens_burnt: burnt.map(|v| v.to_string()),
        ..DexWithdraw::default()
    };
    put_sides(&mut d, &sides);
    let cols = Cols {
        source: sender,
        source_secondary: sender_wallet,
        destination: g.msg(b)?.source,
        asset: lp_asset,
        ..Cols::default()
    };
    let mut blk = Block::of("dex_withdraw_liquidity", members, false, cols);
    blk.data = ActionData::DexWithdraw(Box::new(d));
    Some(blk)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use tycho_types::cell::Cell;

    use super::super::built::{self, account, data, named, only, Flow, Store, Wallets};
    use super::super::{jetton, parse_raw};

    const USER: u8 = 1;
    const ROUTER: u8 = 12;
    const POOL: u8 = 13;
    const LP_ACCOUNT: u8 = 14;
    const JETTON: u8 = 30;

    fn provide_lp(left: u128, right: u128) -> Cell {
        built::body(super::OP_PROVIDE_LP, |b| {
            b.addr(Some(account(USER))).coins(left).coins(right);
        })
    }

    /// `ton_transfer#01f3835d query_id ton_amount refund_address
    /// forward_payload:(Maybe ^Cell)`.
    fn ton_transfer(amount: u128) -> Cell {
        built::body(super::OP_PTON_TON_TRANSFER, |b| {
            b.coins(amount).addr(Some(account(USER)));
            b.store_bit_zero().unwrap();
        })
    }

    fn wallets() -> Wallets {
        let mut w = Wallets::default();
        w.add(10, USER, JETTON);
        w.add(11, ROUTER, JETTON);
        w.add(15, USER, POOL);
        let pton = parse_raw(jetton::PTON_MASTERS[0]).unwrap();
        w.add_of(21, ROUTER, pton);
        w
    }

    /// One wallet transaction of user 1 provides 100 units of Jetton 30
    /// (wallet 10 → the router's wallet 11) and, when `ton` is set, 50
    /// nanoton through the proxy-TON wallet 20. The Jetton side completes
    /// the pair (`cb_add_liquidity`) and the pool mints 70 LP tokens to
    /// wallet 15, or, when `refused`, sends the provision back.
    fn provision(ton: bool, refused: bool) -> Flow {
        let mut f = Flow::default();
        let root = f.send(None, 8, USER, 0, None);
        let t = f.send(
            Some(root),
            USER,
            10,
            jetton::OP_TRANSFER,
            Some(built::jetton_transfer(100, ROUTER)),
        );
        let p = ton.then(|| {
            f.send(
                Some(root),
                USER,
                20,
                super::OP_PTON_TON_TRANSFER,
                Some(ton_transfer(50)),
            )
        });
        let i = f.send(
            Some(t),
            10,
            11,
            jetton::OP_INTERNAL_TRANSFER,
            Some(built::internal_transfer(100, USER)),
        );
        let pn = p.map(|p| f.send(Some(p), 20, ROUTER, jetton::OP_TRANSFER_NOTIFICATION, None));
        let n = f.send(Some(i), 11, ROUTER, jetton::OP_TRANSFER_NOTIFICATION, None);
        let tp = pn.map(|pn| {
            f.send(
                Some(pn),
                ROUTER,
                POOL,
                super::OP_PROVIDE_LP,
                Some(provide_lp(0, 50)),
            )
        });
        let jp = f.send(
            Some(n),
            ROUTER,
            POOL,
            super::OP_PROVIDE_LP,
            Some(provide_lp(100, 0)),
        );
        if let Some(tp) = tp {
            f.send(Some(tp), POOL, LP_ACCOUNT, super::OP_ADD_LIQUIDITY, None);
        }
        let ja = f.send(Some(jp), POOL, LP_ACCOUNT, super::OP_ADD_LIQUIDITY, None);
        let cb = f.send(Some(ja), LP_ACCOUNT, POOL, super::OP_CB_ADD_LIQUIDITY, None);
        if refused {
            f.send(Some(cb), POOL, USER, super::OP_ADD_LIQUIDITY, None);
        } else {
            f.send(
                Some(cb),
                POOL,
                15,
                jetton::OP_INTERNAL_TRANSFER,
                Some(built::internal_transfer(70, POOL)),
            );
        }
        f
    }

    #[test]
    fn both_sides_of_one_transaction_are_one_provision() {
        let actions = provision(true, false).classify(&wallets());
        let a = only(&actions, "dex_deposit_liquidity");
        assert!(a.success);
        assert_eq!(a.source, Some(account(USER)));
        assert_eq!(a.destination, Some(account(POOL)));
        let d = data(a);
        assert_eq!(d["dex"], "stonfi_v2");
        // The TON side is matched last (the Jetton side is nearer the
        // root in the block graph), so it is the first named.
        assert_eq!(d["amount1"], "50");
        assert_eq!(d["asset1"], Value::Null);
        assert_eq!(d["user_jetton_wallet_1"], Value::Null);
        assert_eq!(d["amount2"], "100");
        assert_eq!(d["asset2"], named(JETTON));
        assert_eq!(d["user_jetton_wallet_2"], named(10));
        assert_eq!(d["lp_tokens_minted"], "70");
        // Every transaction (the user's, which sent both sides, too).
        assert_eq!(a.tx_hashes.len(), 12, "{a:#?}");
    }

    #[test]
    fn one_side_alone_names_one_asset() {
        let actions = provision(false, false).classify(&wallets());
        let a = only(&actions, "dex_deposit_liquidity");
        let d = data(a);
        assert_eq!(d["amount1"], "100");
        assert_eq!(d["asset1"], named(JETTON));
        assert_eq!(d["user_jetton_wallet_1"], named(10));
        assert_eq!(d["amount2"], Value::Null);
        assert_eq!(d["lp_tokens_minted"], "70");
        assert!(
            actions.iter().all(|a| a.kind != "jetton_transfer"),
            "{actions:#?}"
        );
    }

    #[test]
    fn a_provision_sent_back_failed() {
        let actions = provision(false, true).classify(&wallets());
        let a = only(&actions, "dex_deposit_liquidity");
        assert!(!a.success);
        assert_eq!(data(a)["lp_tokens_minted"], Value::Null);
    }

    /// User 1 burns 300 LP tokens (wallet 15 of pool 13); the pool asks
    /// the router twice: 400 units of Jetton 30 (router wallet 11 → the
    /// user's wallet 10) and 600 nanoton through the router's proxy-TON
    /// wallet 21. With `refund`, no burn: the user's `refund_me` at his LP
    /// account instead.
    fn withdrawal(refund: bool) -> Flow {
        let mut f = Flow::default();
        let root = f.send(None, 8, USER, 0, None);
        let at_pool = if refund {
            let r = f.send(Some(root), USER, LP_ACCOUNT, super::OP_REFUND_ME, None);
            f.send(Some(r), LP_ACCOUNT, POOL, super::OP_CB_REFUND_ME, None)
        } else {
            let burn = f.send(
                Some(root),
                USER,
                15,
                jetton::OP_BURN,
                Some(built::jetton_burn(300, USER)),
            );
            f.send(Some(burn), 15, POOL, super::OP_BURN_NOTIFICATION_EXT, None)
        };
        let pay0 = f.send(Some(at_pool), POOL, ROUTER, super::OP_PAY_TO, None);
        let pay1 = f.send(Some(at_pool), POOL, ROUTER, super::OP_PAY_TO, None);
        let t0 = f.send(
            Some(pay0),
            ROUTER,
            11,
            jetton::OP_TRANSFER,
            Some(built::jetton_transfer(400, USER)),
        );
        let t1 = f.send(
            Some(pay1),
            ROUTER,
            21,
            jetton::OP_TRANSFER,
            Some(built::jetton_transfer(600, USER)),
        );
        let i0 = f.send(
            Some(t0),
            11,
            10,
            jetton::OP_INTERNAL_TRANSFER,
            Some(built::internal_transfer(400, ROUTER)),
        );
        f.send(
            Some(t1),
            21,
            USER,
            super::OP_PTON_TON_TRANSFER,
            Some(ton_transfer(600)),
        );
        f.send(Some(i0), 10, USER, jetton::OP_TRANSFER_NOTIFICATION, None);
        f
    }

    #[test]
    fn a_withdrawal_pays_both_sides() {
        let actions = withdrawal(false).classify(&wallets());
        let a = only(&actions, "dex_withdraw_liquidity");
        assert!(
            actions.iter().all(|a| a.kind != "jetton_burn"),
            "{actions:#?}"
        );
        assert!(a.success);
        assert_eq!(a.source, Some(account(USER)));
        assert_eq!(a.source_secondary, Some(account(15)));
        assert_eq!(a.destination, Some(account(POOL)));
        assert_eq!(a.asset, Some(account(POOL)));
        let d = data(a);
        assert_eq!(d["dex"], "stonfi_v2");
        assert_eq!(d["is_refund"], false);
        assert_eq!(d["lp_tokens_burnt"], "300");
        assert_eq!(d["amount1"], "400");
        assert_eq!(d["asset1_out"], named(JETTON));
        assert_eq!(d["user_jetton_wallet_1"], named(10));
        assert_eq!(d["dex_wallet_1"], named(ROUTER));
        assert_eq!(d["dex_jetton_wallet_1"], named(11));
        assert_eq!(d["amount2"], "600");
        assert_eq!(d["asset2_out"], Value::Null);
        assert_eq!(d["dex_wallet_2"], named(ROUTER));
        assert_eq!(a.tx_hashes.len(), 10, "{a:#?}");
    }

    #[test]
    fn a_refund_is_a_withdrawal_without_lp_tokens() {
        let actions = withdrawal(true).classify(&wallets());
        let a = only(&actions, "dex_withdraw_liquidity");
        assert_eq!(a.source, Some(account(USER)));
        assert_eq!(a.source_secondary, None);
        assert_eq!(a.asset, None);
        let d = data(a);
        assert_eq!(d["is_refund"], true);
        assert_eq!(d["lp_tokens_burnt"], Value::Null);
        assert_eq!(d["amount1"], "400");
        assert_eq!(d["amount2"], "600");
    }
}
