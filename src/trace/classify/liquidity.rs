//! DEX liquidity: withdrawals (`dex_withdraw_liquidity`) — a position or
//! LP tokens burnt and both sides paid out.

use crate::trace::action_data::{ActionData, DexDeposit, DexWithdraw, VaultExcess};
use tonindex_model::Address;

use super::body::{self, msg_address};
use super::swap::{self, OP_PTON_TON_TRANSFER, OP_TONCO_PAY_TO};
use super::{Block, BlockId, Cols, Graph, Interfaces};

const OP_TONCO_START_BURN: u32 = 0x530b_5f2c;
const OP_TONCO_POSITION_BURN: u32 = 0x46ca_335a;
const OP_TONCO_BURN: u32 = 0xd73a_c09d;

/// The TONCO router's proxy-TON wallet: a side paid from it is TON.
const TONCO_ROUTER_PTON_WALLET: &str =
    "0:871DA9215B14902166F0EA2A16DB56278D528108377F8158C5F4CCFDFDD22E17";

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_TONCO_START_BURN, OP_TONCO_POSITION_BURN, OP_TONCO_BURN];

/// One side of a withdrawal, paid out (or not, `amount` null).
pub(crate) struct Side {
    pub amount: Option<u128>,
    pub asset: Option<Address>,
    pub user_wallet: Option<Address>,
    pub dex_wallet: Option<Address>,
    pub dex_jetton_wallet: Option<Address>,
}

/// The sides as toncenter's withdrawal data names them (`amount1`,
/// `asset1_out`, `user_jetton_wallet_1`, `dex_wallet_1`, …); a side that
/// is missing is null throughout.
pub(crate) fn put_sides(d: &mut DexWithdraw, sides: &[Side]) {
    let amount = |n: usize| sides.get(n).and_then(|s| s.amount).map(|v| v.to_string());
    let a = |n: usize, f: fn(&Side) -> Option<Address>| sides.get(n).and_then(f);
    d.amount1 = amount(0);
    d.asset1_out = a(0, |s| s.asset);
    d.user_jetton_wallet_1 = a(0, |s| s.user_wallet);
    d.dex_wallet_1 = a(0, |s| s.dex_wallet);
    d.dex_jetton_wallet_1 = a(0, |s| s.dex_jetton_wallet);
    d.amount2 = amount(1);
    d.asset2_out = a(1, |s| s.asset);
    d.user_jetton_wallet_2 = a(1, |s| s.user_wallet);
    d.dex_wallet_2 = a(1, |s| s.dex_wallet);
    d.dex_jetton_wallet_2 = a(1, |s| s.dex_jetton_wallet);
}

/// A vault's excess back to the depositor.
pub(crate) fn excess(asset: Option<Address>, amount: u128) -> VaultExcess {
    VaultExcess {
        amount: Some(amount.to_string()),
        asset,
    }
}

/// A TONCO position burnt: start burn at the pool → the position NFT's
/// burn → the pool's burn → the pay-to at the router and its transfers.
pub(crate) fn tonco_withdraw(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_TONCO_START_BURN) {
        return None;
    }
    let position_burn = g.next_call(b, OP_TONCO_POSITION_BURN)?;
    let burn = g.next_call(position_burn, OP_TONCO_BURN)?;
    let pay = g.next_call(burn, OP_TONCO_PAY_TO)?;
    let mut members = vec![b];
    for x in [position_burn, burn, pay] {
        members.extend(g.with_change(x));
    }
    let mut payouts = Vec::new();
    while payouts.len() < 2 {
        let Some(t) = g.next_kind(pay, "jetton_transfer", &payouts) else {
            break;
        };
        payouts.push(t);
    }
    // start_burn#530b5f2c query_id burned_index:uint64 liquidity:uint128
    // tick_lower:int24 tick_upper:int24
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let mut index = s.load_u64().ok()?;
    let liquidity = s.load_u128().ok()?;
    let tick_lower = s.load_uint(24).ok()? as u32;
    let tick_upper = s.load_uint(24).ok()? as u32;
    let signed = |v: u32| -> i32 { ((v << 8) as i32) >> 8 };
    let mut pb = body::after_op(g.body(position_burn)?)?;
    pb.load_u64().ok()?;
    let owner = msg_address(&mut pb)?;
    let mut bb = body::after_op(g.body(burn)?)?;
    bb.load_u64().ok()?;
    msg_address(&mut bb)?;
    let burned_index = bb.load_u64().ok()?;
    if burned_index != 0 {
        index = burned_index;
    }
    let paid = swap::tonco_pay_to_info(g, pay)?;
    let pton = |w: Option<Address>| w.filter(|w| super::raw(w) != TONCO_ROUTER_PTON_WALLET);
    let router_sides = paid.sides.unwrap_or([(0, None), (0, None)]);
    let receivers = paid.receivers;
    let mut sides = Vec::new();
    for i in 0..2 {
        let side = match payouts.get(i) {
            Some(&t) => {
                members.extend(g.with_change(t));
                let tb = g.block(t);
                let (amount, asset) = match g.next_call(t, OP_PTON_TON_TRANSFER) {
                    Some(c) => {
                        members.extend(g.with_change(c));
                        (swap::pton_ton_amount(g, c)?, None)
                    }
                    None => (tb.cols.amount?, tb.cols.asset),
                };
                Side {
                    amount: Some(amount),
                    asset,
                    user_wallet: tb.cols.destination_secondary,
                    dex_wallet: tb.cols.source,
                    dex_jetton_wallet: tb.cols.source_secondary,
                }
            }
            None => {
                let (amount, wallet) = router_sides[i];
                let wallet = pton(wallet);
                Side {
                    amount: Some(amount),
                    asset: wallet
                        .and_then(|w| interfaces.jetton_wallet(&w))
                        .map(|j| j.jetton)
                        .filter(|j| !super::jetton::is_pton(j)),
                    user_wallet: receivers[i],
                    dex_wallet: g.msg(pay)?.source,
                    dex_jetton_wallet: wallet,
                }
            }
        };
        sides.push(side);
    }
    if sides[0].dex_jetton_wallet != pton(router_sides[0].1) {
        sides.swap(0, 1);
    }
    let failed = !matches!(paid.exit_code, 0 | 201);
    let cols = Cols {
        source: owner,
        destination: g.msg(b)?.destination,
        ..Cols::default()
    };
    let mut d = DexWithdraw {
        dex: "tonco".into(),
        lp_tokens_burnt: Some(liquidity.to_string()),
        burned_nft_index: Some(index.to_string()),
        burned_nft_address: g.msg(position_burn)?.destination,
        tick_lower: Some(signed(tick_lower)),
        tick_upper: Some(signed(tick_upper)),
        ..DexWithdraw::default()
    };
    put_sides(&mut d, &sides);
    let mut blk = Block::of("dex_withdraw_liquidity", members, failed, cols);
    blk.data = ActionData::DexWithdraw(Box::new(d));
    Some(blk)
}

const OP_COFFEE_DEPOSIT_NATIVE: u32 = 0xc0ff_ee04;
const OP_COFFEE_DEPOSITORY_REQUEST: u32 = 0xc0ff_ee27;
const OP_COFFEE_DEPLOY: u32 = 0xc0ff_ee22;
const OP_COFFEE_DEPOSIT_INTERNAL: u32 = 0xc0ff_ee29;
const OP_COFFEE_DEPOSIT_EVENT: u32 = 0xc0ff_ee33;
const OP_COFFEE_WITHDRAWAL_EVENT: u32 = 0xc0ff_ee35;

/// The opcodes whose bodies the Coffee liquidity matchers read.
pub(crate) const COFFEE_BODY_OPS: &[u32] = &[
    OP_COFFEE_DEPOSIT_NATIVE,
    OP_COFFEE_DEPOSITORY_REQUEST,
    OP_COFFEE_DEPOSIT_EVENT,
    OP_COFFEE_WITHDRAWAL_EVENT,
    super::jetton::OP_INTERNAL_TRANSFER,
];

/// `#op query_id amount1:Coins amount2:Coins lp_amount:Coins …` of a
/// Coffee deposit or withdrawal event.
fn coffee_event(g: &Graph<'_>, b: BlockId) -> Option<(u128, u128, u128)> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    Some((
        body::coins(&mut s)?,
        body::coins(&mut s)?,
        body::coins(&mut s)?,
    ))
}

/// One side of a Coffee deposit: the asset brought to a vault (Jettons,
/// or TON), the depository request the vault sends, the depository's
/// deploy and — once both sides are in — the pool's deposit with the LP
/// tokens minted and the event. The first side has no pool yet.
pub(crate) fn coffee_deposit(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_COFFEE_DEPOSITORY_REQUEST) {
        return None;
    }
    let prev = g.block(b).prev?;
    let incoming = swap::coffee_incoming(g, prev, OP_COFFEE_DEPOSIT_NATIVE)?;
    let deploy = g.next_call(b, OP_COFFEE_DEPLOY)?;
    let mut members = g.with_change(prev);
    members.push(b);
    members.extend(g.with_change(deploy));
    // create_liquidity_depository_request#c0ffee27 query_id amount
    // ^[recipient …] ^[first second amm …] sender …
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let amount = body::coins(&mut s)?;
    s.load_reference().ok()?;
    let pool_params = s.load_reference_cloned().ok()?;
    let sender = msg_address(&mut s)?;
    let mut p = pool_params.as_slice().ok()?;
    let first = swap::coffee_asset(&mut p)?;
    let second = swap::coffee_asset(&mut p)?;
    let in_asset = incoming.asset;
    let in_wallet = incoming.source_wallet;
    let (side, targets) = if in_asset == first {
        (1, (first, second))
    } else if in_asset == second {
        (2, (second, first))
    } else {
        return None;
    };
    let mut pool = None;
    let mut lp = None;
    let mut excesses = Vec::new();
    if let Some(internal) = g.next_call(deploy, OP_COFFEE_DEPOSIT_INTERNAL) {
        members.extend(g.with_change(internal));
        let lp_transfer = g.next_call(internal, super::jetton::OP_INTERNAL_TRANSFER);
        if let Some(t) = lp_transfer {
            members.extend(g.with_change(t));
        }
        if let Some(event) = g.next_call(internal, OP_COFFEE_DEPOSIT_EVENT) {
            members.push(event);
            pool = g.msg(event).and_then(|m| m.source);
            lp = coffee_event(g, event).map(|e| e.2);
        }
        if pool.is_none() {
            if let Some(t) = lp_transfer {
                pool = g.msg(t).and_then(|m| m.source);
                let mut s = body::after_op(g.body(t)?)?;
                s.load_u64().ok()?;
                lp = body::coins(&mut s);
            }
        }
        if let Some(payout) = g.next_call(internal, swap::OP_COFFEE_PAYOUT_INTERNAL) {
            let leg = swap::coffee_payout(g, payout, &mut members)?;
            excesses.push(excess(leg.asset, leg.amount));
        }
    }
    let cols = Cols {
        source: sender,
        destination: pool,
        destination_secondary: g.msg(deploy)?.destination,
        ..Cols::default()
    };
    let mut d = DexDeposit {
        dex: "coffee".into(),
        target_asset_1: targets.0,
        target_asset_2: targets.1,
        lp_tokens_minted: lp.map(|v| v.to_string()),
        vault_excesses: excesses,
        ..DexDeposit::default()
    };
    if side == 1 {
        d.asset1 = in_asset;
        d.amount1 = Some(amount.to_string());
        d.user_jetton_wallet_1 = in_wallet;
    } else {
        d.asset2 = in_asset;
        d.amount2 = Some(amount.to_string());
        d.user_jetton_wallet_2 = in_wallet;
    }
    let mut blk = Block::of("dex_deposit_liquidity", members, false, cols);
    blk.data = ActionData::DexDeposit(Box::new(d));
    Some(blk)
}

/// A Coffee withdrawal: LP tokens burnt at the pool, both sides paid out
/// through their vaults, and the pool's event with the amounts.
pub(crate) fn coffee_withdraw(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let burn = g.block(b);
    if burn.kind != "jetton_burn" {
        return None;
    }
    let payouts: Vec<BlockId> = g
        .next_calls(b, swap::OP_COFFEE_PAYOUT_INTERNAL)
        .take(2)
        .collect();
    if payouts.len() != 2 {
        return None;
    }
    let event = g.next_call(b, OP_COFFEE_WITHDRAWAL_EVENT)?;
    let (amount1, amount2, _) = coffee_event(g, event)?;
    let pool = g.msg(event)?.source;
    let mut members = vec![b, event];
    let mut sides = Vec::new();
    for (&p, amount) in payouts.iter().zip([amount1, amount2]) {
        let leg = swap::coffee_payout(g, p, &mut members)?;
        let jetton = leg.asset.is_some();
        sides.push(Side {
            amount: Some(amount),
            asset: leg.asset,
            user_wallet: if jetton {
                leg.destination_wallet
            } else {
                leg.destination
            },
            dex_wallet: g.msg(p)?.source,
            dex_jetton_wallet: if jetton { leg.source_wallet } else { None },
        });
    }
    let mut d = DexWithdraw {
        dex: "coffee".into(),
        is_refund: Some(false),
        lp_tokens_burnt: burn.cols.amount.map(|v| v.to_string()),
        ..DexWithdraw::default()
    };
    put_sides(&mut d, &sides);
    let cols = Cols {
        source: burn.cols.source,
        source_secondary: burn.cols.source_secondary,
        destination: pool,
        asset: burn.cols.asset,
        ..Cols::default()
    };
    let mut blk = Block::of("dex_withdraw_liquidity", members, false, cols);
    blk.data = ActionData::DexWithdraw(Box::new(d));
    Some(blk)
}

const OP_TONCO_ADD_LIQUIDITY: u32 = 0x3ebe_5431;
const OP_TONCO_FUND_ACCOUNT: u32 = 0x4468_de77;
const OP_TONCO_MINT_AND_REFUND: u32 = 0x8170_2ef8;
const OP_TONCO_POSITION_INIT: u32 = 0xd5ec_ca2a;

/// The opcodes whose bodies the TONCO deposit reads.
pub(crate) const TONCO_DEPOSIT_BODY_OPS: &[u32] = &[
    OP_TONCO_ADD_LIQUIDITY,
    OP_TONCO_POSITION_INIT,
    super::jetton::OP_TRANSFER_NOTIFICATION,
];

fn int24(v: u64) -> i32 {
    ((v as u32) << 8) as i32 >> 8
}

/// One side of a TONCO deposit: the asset brought to the router (Jettons,
/// or TON through its proxy-TON wallet), the router funding the user's
/// account at the pool, the account's add-liquidity; with the second side,
/// the position minted (an NFT) and what the router refunds.
pub(crate) fn tonco_deposit(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_TONCO_ADD_LIQUIDITY) {
        return None;
    }
    let fund = g
        .block(b)
        .prev
        .filter(|&p| g.call_op(p) == Some(OP_TONCO_FUND_ACCOUNT))?;
    let input = g.block(fund).prev?;
    let mut members = vec![b];
    members.extend(g.with_change(fund));
    // The notification that carried the deposit, and the user's wallet.
    let (notification, sender_wallet) = if g.kind(input) == "jetton_transfer" {
        members.push(input);
        (
            g.part(input, super::jetton::OP_TRANSFER_NOTIFICATION)?,
            g.block(input).cols.source_secondary,
        )
    } else if g.call_op(input) == Some(super::jetton::OP_TRANSFER_NOTIFICATION) {
        let call = g
            .block(input)
            .prev
            .filter(|&c| g.call_op(c) == Some(OP_PTON_TON_TRANSFER))?;
        members.extend(g.with_change(input));
        members.extend(g.with_change(call));
        (input, None)
    } else {
        return None;
    };
    // transfer_notification query_id amount sender forward_payload, the
    // payload `#4468de77 other_jetton_wallet …`.
    let mut s = body::after_op(g.body(notification)?)?;
    s.load_u64().ok()?;
    let sent = body::coins(&mut s)?;
    let sender = msg_address(&mut s)?;
    let payload = body::either_payload(&mut s)?;
    let mut p = payload.as_slice().ok()?;
    if p.load_u32().ok()? != OP_TONCO_FUND_ACCOUNT {
        return None;
    }
    let other_wallet = msg_address(&mut p)?;
    let asset_of = |w: Option<Address>| -> Option<Address> {
        let j = interfaces.jetton_wallet(&w?)?.jetton;
        (!super::jetton::is_pton(&j)).then_some(j)
    };
    let first_asset = asset_of(g.msg(notification)?.source);
    let second_asset = asset_of(other_wallet);
    // add_liquidity#3ebe5431 query_id new_amount0 new_amount1 new_enough0
    // new_enough1 liquidity:uint128 tick_lower:int24 tick_upper:int24
    let mut a = body::after_op(g.body(b)?)?;
    a.load_u64().ok()?;
    let new_amount0 = body::coins(&mut a)?;
    body::coins(&mut a)?;
    let enough0 = body::coins(&mut a)?;
    let enough1 = body::coins(&mut a)?;
    a.load_u128().ok()?;
    let tick_lower = int24(a.load_uint(24).ok()?);
    let tick_upper = int24(a.load_uint(24).ok()?);
    // (amount, asset, wallet) of each side, as the pool orders them.
    let sides = if new_amount0 > 0 {
        [
            (Some(sent), first_asset, sender_wallet),
            (None, second_asset, None),
        ]
    } else {
        [
            (None, second_asset, None),
            (Some(sent), first_asset, sender_wallet),
        ]
    };
    // The position, once both sides are in.
    let mut position = None;
    let mut excesses = Vec::new();
    if let Some(mint_refund) = g.next_call(b, OP_TONCO_MINT_AND_REFUND) {
        if let Some(mint) = g.next_kind(mint_refund, "nft_mint", &[]) {
            members.extend(g.with_change(mint_refund));
            members.push(mint);
            position = position_init(g, mint);
            if let Some(pay) = g.next_call(mint_refund, OP_TONCO_PAY_TO) {
                members.extend(g.with_change(pay));
                let mut taken = Vec::new();
                while taken.len() < 2 {
                    let Some(t) = g.next_kind(pay, "jetton_transfer", &taken) else {
                        break;
                    };
                    taken.push(t);
                    members.extend(g.with_change(t));
                    let tb = g.block(t);
                    let (asset, amount) = match g.next_call(t, OP_PTON_TON_TRANSFER) {
                        Some(c) => {
                            members.extend(g.with_change(c));
                            (None, swap::pton_ton_amount(g, c)?)
                        }
                        None => (tb.cols.asset, tb.cols.amount?),
                    };
                    excesses.push(excess(asset, amount));
                }
            }
        }
    }
    let mut paid = sides.iter().filter(|s| s.0.is_some());
    let (c1, c2) = (paid.next(), paid.next());
    let m = g.msg(b)?;
    let cols = Cols {
        source: sender,
        source_secondary: sides[0].2.or(sides[1].2),
        destination: m.source,
        destination_secondary: m.destination,
        ..Cols::default()
    };
    let d = DexDeposit {
        amount1: c1.and_then(|s| s.0).map(|v| v.to_string()),
        amount2: c2.and_then(|s| s.0).map(|v| v.to_string()),
        asset1: c1.and_then(|s| s.1),
        asset2: c2.and_then(|s| s.1),
        dex: "tonco".into(),
        lp_tokens_minted: position.map(|p| p.0.to_string()),
        nft_address: position.and_then(|p| p.2),
        nft_index: position.map(|p| p.1.to_string()),
        target_amount_1: Some(enough0.to_string()),
        target_amount_2: Some(enough1.to_string()),
        target_asset_1: sides[0].1,
        target_asset_2: sides[1].1,
        tick_lower: Some(tick_lower),
        tick_upper: Some(tick_upper),
        user_jetton_wallet_1: sides[0].2,
        user_jetton_wallet_2: sides[1].2,
        vault_excesses: excesses,
    };
    let mut blk = Block::of("dex_deposit_liquidity", members, false, cols);
    blk.data = ActionData::DexDeposit(Box::new(d));
    Some(blk)
}

/// `position_init#d5ecca2a query_id user liquidity:uint128 … ^[fee0 fee1
/// nft_index:uint64 …]` of a minted position: `(liquidity, index, NFT)`.
fn position_init(g: &Graph<'_>, mint: BlockId) -> Option<(u128, u64, Option<Address>)> {
    let n = *g.block(mint).nodes.first()?;
    let m = g.tree.txs[n].in_msg.as_ref()?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    s.load_u64().ok()?;
    msg_address(&mut s)?;
    let liquidity = s.load_u128().ok()?;
    let r = s.load_reference_cloned().ok()?;
    let mut r = r.as_slice().ok()?;
    r.skip_first(512, 0).ok()?;
    let index = r.load_u64().ok()?;
    Some((liquidity, index, m.destination))
}
