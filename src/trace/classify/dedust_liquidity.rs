//! DeDust liquidity: deposits (`dex_deposit_liquidity`, dex `dedust`) and
//! withdrawals ([`withdraw`], `dex_withdraw_liquidity`).
//!
//! A DeDust deposit brings both assets of a pool to their vaults, each on
//! its own: TON as the TON vault's `deposit_liquidity`, Jettons as a
//! transfer to the Jetton vault with a `deposit_liquidity` payload. Each
//! vault asks the factory, which deploys (or reaches) the user's deposit
//! contract for that pool and tops it up with the asset. The top-up that
//! completes the pair makes the deposit contract send everything to the
//! pool, which mints LP tokens (or rejects the deposit, the vaults paying
//! the assets back), and the deposit contract destroys itself, returning
//! what is left.
//!
//! As toncenter reads it, two blocks: the asset that completed the pair
//! with the pool's answer (`dedust_deposit_liquidity`, [`deposit`]), and an
//! asset that only topped the contract up (`dedust_deposit_liquidity_partial`,
//! [`deposit_first_asset`]); both are shown as `dex_deposit_liquidity`, the
//! action id still derived from the block type. When one trace holds both
//! for the same deposit contract, the partial one is folded into the final
//! one after all matchers ran ([`merge_partial_deposits`]).

use std::collections::{BTreeSet, HashMap};

use crate::trace::action_data::{ActionData, DexDeposit, DexWithdraw};
use tonindex_model::Address;
use tycho_types::cell::{Cell, CellSlice};

use super::body::{self, coins, msg_address};
use super::jetton::{self, OP_INTERNAL_TRANSFER, OP_TRANSFER, OP_TRANSFER_NOTIFICATION};
use super::swap::dedust_asset;
use super::{liquidity, Block, BlockId, Cols, Graph, Interfaces};

/// TON to the TON vault: `deposit_liquidity#d55e4686`.
const OP_DEPOSIT_TON: u32 = 0xd55e_4686;
/// The forward payload of a Jetton deposit to a Jetton vault.
const OP_JETTON_DEPOSIT_PAYLOAD: u32 = 0x40e1_08d6;
/// A vault to the factory.
const OP_ASK_FACTORY: u32 = 0xf04e_c526;
/// The factory deploying the deposit contract.
const OP_DEPLOY_DEPOSIT: u32 = 0x9b3a_a3fa;
/// The factory topping the deposit contract up with one asset.
const OP_TOP_UP: u32 = 0x5424_0fe5;
/// The deposit contract to the pool, both assets in.
const OP_DEPOSIT_TO_POOL: u32 = 0xb56b_9598;
/// The pool rejecting a deposit (to the deposit contract).
const OP_REJECT: u32 = 0xe1a3_6cd4;
/// The pool telling the deposit contract to destroy itself.
const OP_DESTROY: u32 = 0xaae7_9256;
/// The deposit contract asking a vault to pay back what was not used.
const OP_RETURN_EXCESS: u32 = 0x6b0b_787f;
/// The TON vault paying TON out.
const OP_PAYOUT: u32 = 0x474f_86cf;

/// The block types (toncenter's), both shown as [`SHOWN`].
pub(crate) const KIND_FINAL: &str = "dedust_deposit_liquidity";
pub(crate) const KIND_PARTIAL: &str = "dedust_deposit_liquidity_partial";
const SHOWN: &str = "dex_deposit_liquidity";

/// The opcodes whose bodies these matchers read (the Jetton ones are read
/// by the Jetton matchers too).
pub(crate) const BODY_OPS: &[u32] = &[
    OP_DEPOSIT_TON,
    OP_DEPOSIT_TO_POOL,
    OP_TRANSFER_NOTIFICATION,
    OP_INTERNAL_TRANSFER,
    OP_TRANSFER,
];

/// What a deposit aims at: the pool's assets as the message orders them,
/// with the balance asked of each.
#[derive(Clone, Copy)]
struct Targets {
    asset0: Option<Address>,
    amount0: u128,
    asset1: Option<Address>,
    amount1: u128,
}

/// `pool_params:(is_stable:Bool asset0:Asset asset1:Asset)`.
fn pool_assets(s: &mut CellSlice<'_>) -> Option<(Option<Address>, Option<Address>)> {
    s.load_bit().ok()?;
    let asset0 = dedust_asset(s)?;
    let asset1 = dedust_asset(s)?;
    Some((asset0, asset1))
}

/// `min_lp_amount:Coins asset0_target_balance:Coins asset1_target_balance:Coins`:
/// the two balances.
fn target_balances(s: &mut CellSlice<'_>) -> Option<(u128, u128)> {
    coins(s)?;
    let amount0 = coins(s)?;
    let amount1 = coins(s)?;
    Some((amount0, amount1))
}

/// `deposit_liquidity#d55e4686 query_id amount:Coins pool_params
/// deposit_params:^[min_lp_amount asset0_target_balance
/// asset1_target_balance] fulfill_payload reject_payload`: the TON brought
/// and the targets.
fn ton_deposit(cell: &Cell) -> Option<(u128, Targets)> {
    let mut s = body::after_op(cell)?;
    s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    let (asset0, asset1) = pool_assets(&mut s)?;
    let params = s.load_reference_cloned().ok()?;
    let mut p = params.as_slice().ok()?;
    let (amount0, amount1) = target_balances(&mut p)?;
    Some((
        amount,
        Targets {
            asset0,
            amount0,
            asset1,
            amount1,
        },
    ))
}

/// `transfer_notification query_id amount sender forward_payload` whose
/// payload (the first reference, as toncenter takes it) is
/// `#40e108d6 pool_params min_lp_amount asset0_target_balance
/// asset1_target_balance …`: the amount, the sender and the targets.
fn jetton_deposit(cell: &Cell) -> Option<(u128, Option<Address>, Targets)> {
    let mut s = body::after_op(cell)?;
    s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    let sender = msg_address(&mut s)?;
    let payload = s.load_reference_cloned().ok()?;
    let mut p = payload.as_slice().ok()?;
    if p.load_u32().ok()? != OP_JETTON_DEPOSIT_PAYLOAD {
        return None;
    }
    let (asset0, asset1) = pool_assets(&mut p)?;
    let (amount0, amount1) = target_balances(&mut p)?;
    let t = Targets {
        asset0,
        amount0,
        asset1,
        amount1,
    };
    Some((amount, sender, t))
}

/// `#op query_id:uint64 amount:Coins …` (a notification or an internal
/// transfer): the amount.
fn amount_after_query(cell: &Cell) -> Option<u128> {
    let mut s = body::after_op(cell)?;
    s.load_u64().ok()?;
    coins(&mut s)
}

/// `deposit_liquidity_to_pool#b56b9598 query_id proof:^Cell owner_addr
/// min_lp_amount:Coins ^[asset0 asset0_amount:Coins asset1
/// asset1_amount:Coins] …`: the owner and the targets, in the pool's order.
fn pool_deposit(cell: &Cell) -> Option<(Option<Address>, Targets)> {
    let mut s = body::after_op(cell)?;
    s.load_u64().ok()?;
    s.load_reference().ok()?;
    let owner = msg_address(&mut s)?;
    coins(&mut s)?;
    let amounts = s.load_reference_cloned().ok()?;
    let mut r = amounts.as_slice().ok()?;
    let asset0 = dedust_asset(&mut r)?;
    let amount0 = coins(&mut r)?;
    let asset1 = dedust_asset(&mut r)?;
    let amount1 = coins(&mut r)?;
    Some((
        owner,
        Targets {
            asset0,
            amount0,
            asset1,
            amount1,
        },
    ))
}

/// What brought an asset to its vault.
#[derive(Clone, Copy)]
enum Incoming {
    /// The TON vault's `deposit_liquidity`.
    Ton(BlockId),
    /// The Jetton vault's notification, the internal transfer to the
    /// vault's wallet before it, and the user's transfer before that.
    Jetton {
        notify: BlockId,
        internal: BlockId,
        transfer: BlockId,
    },
}

impl Incoming {
    /// Its calls, each with the change under it.
    fn members(self, g: &Graph<'_>) -> Vec<BlockId> {
        match self {
            Incoming::Ton(c) => g.with_change(c),
            Incoming::Jetton {
                notify,
                internal,
                transfer,
            } => {
                let mut v = g.with_change(notify);
                v.extend(g.with_change(internal));
                v.extend(g.with_change(transfer));
                v
            }
        }
    }
}

/// The vault call at `b` (the factory's `prev`): TON's, or a Jetton
/// notification that came through an internal transfer from a transfer.
fn incoming(g: &Graph<'_>, b: BlockId) -> Option<Incoming> {
    match g.call_op(b)? {
        OP_DEPOSIT_TON => Some(Incoming::Ton(b)),
        OP_TRANSFER_NOTIFICATION => {
            let internal = g
                .block(b)
                .prev
                .filter(|&p| g.call_op(p) == Some(OP_INTERNAL_TRANSFER))?;
            let transfer = g
                .block(internal)
                .prev
                .filter(|&p| g.call_op(p) == Some(OP_TRANSFER))?;
            Some(Incoming::Jetton {
                notify: b,
                internal,
                transfer,
            })
        }
        _ => None,
    }
}

/// The way to a top-up: the factory's call that sent it, and the vault
/// call that asked the factory.
fn request(g: &Graph<'_>, top_up: BlockId) -> Option<(BlockId, Incoming)> {
    let factory = g
        .block(top_up)
        .prev
        .filter(|&p| g.call_op(p) == Some(OP_ASK_FACTORY))?;
    let vault = incoming(g, g.block(factory).prev?)?;
    Some((factory, vault))
}

/// Something a vault paid back.
struct Returned {
    receiver: Option<Address>,
    /// `None`: TON.
    asset: Option<Address>,
    amount: u128,
}

/// What a final deposit covers beyond its chain, as it is collected.
#[derive(Default)]
struct Parts {
    members: Vec<BlockId>,
    /// Leaves of the Jetton transfers a vault paid back with.
    nodes: Vec<usize>,
    ton_back: Vec<Returned>,
    jettons_back: Vec<Returned>,
}

/// What the deposit contract sends back from `at` (the pool's rejection
/// or its destroy order): a TON transfer, and up to two vault requests to
/// return the excess, each paying out with a Jetton transfer or TON.
fn sent_back(g: &Graph<'_>, at: BlockId, interfaces: &dyn Interfaces, parts: &mut Parts) {
    if let Some(t) = g
        .block(at)
        .next
        .iter()
        .copied()
        .find(|&x| g.kind(x) == "ton_transfer")
    {
        parts.members.extend(g.with_change(t));
    }
    for r in g.next_calls(at, OP_RETURN_EXCESS).take(2) {
        parts.members.extend(g.with_change(r));
        let paid = g
            .next_calls(r, OP_TRANSFER)
            .find_map(|t| Some((t, jetton::transfer(g, t, interfaces)?)));
        if let Some((t, jt)) = paid {
            parts.members.extend(g.change(t));
            parts.nodes.extend(jt.nodes.iter().copied());
            if let Some(amount) = jt.cols.amount {
                parts.jettons_back.push(Returned {
                    receiver: jt.cols.destination,
                    asset: jt.cols.asset,
                    amount,
                });
            }
        }
        if let Some(p) = g.next_call(r, OP_PAYOUT) {
            parts.members.extend(g.with_change(p));
            if let Some(m) = g.msg(p) {
                parts.ton_back.push(Returned {
                    receiver: m.destination,
                    asset: None,
                    amount: m.value,
                });
            }
        }
    }
}

/// The deposit that completed a pair, at the deposit contract's message
/// to the pool: the asset's way in (vault call, factory with the deploy,
/// top-up), the pool's answer — LP tokens minted (an internal transfer,
/// its notification) or a rejection with what the vaults paid back — and
/// the deposit contract's destroy with what it returned. Rejected, it
/// failed.
pub(crate) fn deposit(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_DEPOSIT_TO_POOL) {
        return None;
    }
    let top_up = g
        .block(b)
        .prev
        .filter(|&p| g.call_op(p) == Some(OP_TOP_UP))?;
    let (factory, vault) = request(g, top_up)?;
    let answer = g
        .block(b)
        .next
        .iter()
        .copied()
        .find(|&x| matches!(g.call_op(x), Some(OP_INTERNAL_TRANSFER | OP_REJECT)))?;
    let m = g.msg(b)?;
    let (sender, targets) = pool_deposit(m.body.as_ref()?)?;
    let mut parts = Parts::default();
    parts.members.extend(g.with_change(b));
    parts.members.extend(g.with_change(top_up));
    parts.members.extend(g.with_change(factory));
    for d in g.next_calls(factory, OP_DEPLOY_DEPOSIT) {
        parts.members.extend(g.with_change(d));
    }
    parts.members.extend(vault.members(g));
    parts.members.extend(g.with_change(answer));
    let (pool, lp) = if g.call_op(answer) == Some(OP_INTERNAL_TRANSFER) {
        for n in g.next_calls(answer, OP_TRANSFER_NOTIFICATION) {
            parts.members.extend(g.with_change(n));
        }
        (m.destination, Some(amount_after_query(g.body(answer)?)?))
    } else {
        sent_back(g, answer, interfaces, &mut parts);
        (g.msg(answer)?.source, None)
    };
    if let Some(d) = g.next_call(b, OP_DESTROY) {
        parts.members.extend(g.with_change(d));
        sent_back(g, d, interfaces, &mut parts);
    }
    // The asset this chain brought, and the user's wallet it left.
    let (asset, amount, user_wallet) = match vault {
        Incoming::Ton(c) => (None, ton_deposit(g.body(c)?)?.0, None),
        Incoming::Jetton {
            notify, transfer, ..
        } => {
            let amount = amount_after_query(g.body(notify)?)?;
            let jetton = interfaces.jetton_wallet(&g.msg(notify)?.source?)?.jetton;
            let t = g.msg(transfer)?;
            let wallet = t.destination.filter(|w| {
                sender.is_some()
                    && t.source == sender
                    && interfaces
                        .jetton_wallet(w)
                        .is_some_and(|i| i.jetton == jetton)
            });
            (Some(jetton), amount, wallet)
        }
    };
    // TON paid back first, then Jettons: what reached the sender.
    let excesses = parts
        .ton_back
        .iter()
        .chain(&parts.jettons_back)
        .filter(|r| sender.is_some() && r.receiver == sender)
        .map(|r| liquidity::excess(r.asset, r.amount))
        .collect();
    let cols = Cols {
        source: sender,
        destination: pool,
        destination_secondary: m.source,
        shown_type: Some(SHOWN),
        ..Cols::default()
    };
    let d = DexDeposit {
        lp_tokens_minted: lp.map(|v| v.to_string()),
        vault_excesses: excesses,
        ..data(asset, amount, user_wallet, &targets)
    };
    let mut blk = Block::of(KIND_FINAL, parts.members, lp.is_none(), cols);
    blk.nodes = parts.nodes;
    blk.data = ActionData::DexDeposit(Box::new(d));
    Some(blk)
}

/// An asset that only topped the deposit contract up, at the factory's
/// top-up: the vault call, the factory with the deploy (which it always
/// sends). A top-up that made the contract go on to the pool is a final
/// deposit's, not this.
pub(crate) fn deposit_first_asset(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_TOP_UP) {
        return None;
    }
    if g.block(b)
        .next
        .iter()
        .any(|&x| matches!(g.call_op(x), Some(OP_DEPOSIT_TO_POOL | OP_REJECT)))
    {
        return None;
    }
    let (factory, vault) = request(g, b)?;
    let deploys: Vec<BlockId> = g.next_calls(factory, OP_DEPLOY_DEPOSIT).collect();
    if deploys.is_empty() {
        return None;
    }
    let mut members = g.with_change(b);
    members.extend(g.with_change(factory));
    for d in deploys {
        members.extend(g.with_change(d));
    }
    members.extend(vault.members(g));
    let (sender, asset, amount, user_wallet, targets) = match vault {
        Incoming::Ton(c) => {
            let (amount, targets) = ton_deposit(g.body(c)?)?;
            (g.msg(c)?.source, None, amount, None, targets)
        }
        Incoming::Jetton {
            notify, internal, ..
        } => {
            let (amount, sender, targets) = jetton_deposit(g.body(notify)?)?;
            let jetton = interfaces.jetton_wallet(&g.msg(notify)?.source?)?.jetton;
            (
                sender,
                Some(jetton),
                amount,
                g.msg(internal)?.source,
                targets,
            )
        }
    };
    let cols = Cols {
        source: sender,
        destination_secondary: g.msg(b)?.destination,
        shown_type: Some(SHOWN),
        ..Cols::default()
    };
    let d = data(asset, amount, user_wallet, &targets);
    let mut blk = Block::of(KIND_PARTIAL, members, false, cols);
    blk.data = ActionData::DexDeposit(Box::new(d));
    Some(blk)
}

/// The fields both blocks share: one asset brought (the first side), the
/// targets as the message ordered them.
fn data(
    asset: Option<Address>,
    amount: u128,
    user_wallet: Option<Address>,
    t: &Targets,
) -> DexDeposit {
    DexDeposit {
        dex: "dedust".into(),
        asset1: asset,
        amount1: Some(amount.to_string()),
        user_jetton_wallet_1: user_wallet,
        target_asset_1: t.asset0,
        target_amount_1: Some(t.amount0.to_string()),
        target_asset_2: t.asset1,
        target_amount_2: Some(t.amount1.to_string()),
        ..DexDeposit::default()
    }
}

/// A trace's partial and final deposits to one deposit contract that do
/// not add up to the pool's pair: toncenter gives up on the trace (its
/// classification fails, and it keeps the basic actions).
#[derive(Debug)]
pub(crate) struct UnmatchedDeposits;

/// The deposit contract of a deposit block.
fn contract(g: &Graph<'_>, b: BlockId) -> Option<Address> {
    g.block(b).cols.destination_secondary
}

/// toncenter's post-processing, run once every matcher is done: each
/// partial deposit is folded into the trace's final deposit to the same
/// deposit contract — the final keeps its place, type, columns and
/// failure; its data is the two combined; it covers the partial's
/// transactions too, and the transaction that sent the partial's first
/// message when that is not the final's. Nothing is folded when a deposit
/// contract has more than two deposits in the trace. `Err` when a pair
/// does not add up (see [`UnmatchedDeposits`]); the pairs folded before
/// it stay folded.
pub(crate) fn merge_partial_deposits(g: &mut Graph<'_>) -> Result<(), UnmatchedDeposits> {
    let order = g.top_bfs();
    let partials: Vec<BlockId> = order
        .iter()
        .copied()
        .filter(|&b| g.kind(b) == KIND_PARTIAL)
        .collect();
    if partials.is_empty() {
        return Ok(());
    }
    let finals: Vec<BlockId> = order
        .iter()
        .copied()
        .filter(|&b| g.kind(b) == KIND_FINAL)
        .collect();
    let mut uses: HashMap<Option<Address>, usize> = HashMap::new();
    for &b in partials.iter().chain(&finals) {
        *uses.entry(contract(g, b)).or_default() += 1;
    }
    if uses.values().any(|&n| n > 2) {
        return Ok(());
    }
    for &p in &partials {
        let Some(&f) = finals.iter().find(|&&f| contract(g, f) == contract(g, p)) else {
            continue;
        };
        let combined = combine(&g.block(p).data, &g.block(f).data).ok_or(UnmatchedDeposits)?;
        g.absorb(f, p);
        g.blocks[f].data = combined;
    }
    Ok(())
}

/// One side a deposit brought: asset (`None`: TON), amount, the
/// depositor's Jetton wallet.
type Brought = (Option<Address>, u128, Option<Address>);

/// The sides a deposit's data says were brought: those with an amount.
fn deposited(d: &DexDeposit) -> Option<Vec<Brought>> {
    let mut out = Vec::new();
    for (asset, amount, wallet) in [
        (d.asset1, &d.amount1, d.user_jetton_wallet_1),
        (d.asset2, &d.amount2, d.user_jetton_wallet_2),
    ] {
        let Some(amount) = amount else {
            continue;
        };
        out.push((asset, amount.parse::<u128>().ok()?, wallet));
    }
    Some(out)
}

/// toncenter's `combine_deposits`: the final's data with both sides, the
/// first deposit's first, and the target assets in that order (the target
/// amounts stay as the final's pool message ordered them). `None` when the
/// two aim at different pools, bring one asset from two wallets, or do not
/// bring exactly the pool's two assets.
fn combine(first: &ActionData, last: &ActionData) -> Option<ActionData> {
    let (ActionData::DexDeposit(first), ActionData::DexDeposit(last)) = (first, last) else {
        return None;
    };
    let targets = |d: &DexDeposit| -> BTreeSet<Option<Address>> {
        [d.target_asset_1, d.target_asset_2].into_iter().collect()
    };
    let wanted = targets(first);
    if wanted != targets(last) {
        return None;
    }
    let mut sides = deposited(first)?;
    for (asset, amount, wallet) in deposited(last)? {
        match sides.iter().position(|s| s.0 == asset) {
            Some(i) => {
                let s = &mut sides[i];
                if s.2 != wallet {
                    return None;
                }
                s.1 = s.1.checked_add(amount)?;
            }
            None => sides.push((asset, amount, wallet)),
        }
    }
    let assets: BTreeSet<Option<Address>> = sides.iter().map(|s| s.0).collect();
    if assets.len() != 2 || assets != wanted {
        return None;
    }
    let mut out = last.clone();
    (out.asset1, out.amount1, out.user_jetton_wallet_1) =
        (sides[0].0, Some(sides[0].1.to_string()), sides[0].2);
    (out.asset2, out.amount2, out.user_jetton_wallet_2) =
        (sides[1].0, Some(sides[1].1.to_string()), sides[1].2);
    out.target_asset_1 = sides[0].0;
    out.target_asset_2 = sides[1].0;
    Some(ActionData::DexDeposit(out))
}

/// The pool asking a vault to pay a withdrawal or a swap out.
const OP_PAYOUT_FROM_POOL: u32 = 0xad4e_b6f5;

/// The opcodes whose bodies [`withdraw`] reads.
pub(crate) const WITHDRAW_BODY_OPS: &[u32] = &[jetton::OP_BURN, OP_PAYOUT_FROM_POOL];

/// A DeDust withdrawal (`dex_withdraw_liquidity`): LP tokens burnt at the
/// user's LP wallet, the burn notification at the pool (the LP master),
/// and the pool's two `payout_from_pool` to the vaults, each paying its
/// side — the TON vault with a `payout`, a Jetton vault with a transfer.
/// Runs before the Jetton burn matcher, on the burn call itself.
pub(crate) fn withdraw(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(jetton::OP_BURN) {
        return None;
    }
    let notify = g.next_call(b, jetton::OP_BURN_NOTIFICATION)?;
    let burn = g.msg(b)?;
    let lp_wallet = burn.destination?;
    let lp = interfaces.jetton_wallet(&lp_wallet)?;
    let burnt = jetton::burn_body(burn.body.as_ref()?)?.amount;
    let mut members = vec![b];
    members.extend(g.with_change(notify));
    let mut sides = Vec::new();
    for p in g.next_calls(notify, OP_PAYOUT_FROM_POOL) {
        if sides.len() == 2 {
            break;
        }
        // payout_from_pool#ad4eb6f5 query_id proof:^Cell amount:Coins …
        let amount = Some(body::after_op(g.body(p)?).and_then(|mut s| {
            s.load_u64().ok()?;
            s.load_reference().ok()?;
            coins(&mut s)
        })?);
        let side = if let Some(pay) = g.next_call(p, OP_PAYOUT) {
            members.extend(g.with_change(pay));
            liquidity::Side {
                amount,
                asset: None,
                user_wallet: None,
                dex_wallet: g.msg(pay)?.source,
                dex_jetton_wallet: None,
            }
        } else if let Some(t) = g.next_kind(p, "jetton_transfer", &[]) {
            members.extend(g.with_change(t));
            let c = &g.block(t).cols;
            liquidity::Side {
                amount,
                asset: c.asset,
                user_wallet: c.destination_secondary,
                dex_wallet: c.source,
                dex_jetton_wallet: c.source_secondary,
            }
        } else {
            continue;
        };
        members.extend(g.with_change(p));
        sides.push(side);
    }
    if sides.len() != 2 {
        return None;
    }
    let mut d = DexWithdraw {
        dex: "dedust".into(),
        is_refund: Some(false),
        lp_tokens_burnt: Some(burnt.to_string()),
        ..DexWithdraw::default()
    };
    liquidity::put_sides(&mut d, &sides);
    let cols = Cols {
        source: burn.source,
        source_secondary: Some(lp_wallet),
        destination: g.msg(notify)?.destination,
        asset: Some(lp.jetton),
        ..Cols::default()
    };
    let mut blk = Block::of("dex_withdraw_liquidity", members, false, cols);
    blk.data = ActionData::DexWithdraw(Box::new(d));
    Some(blk)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use tycho_types::cell::{Cell, CellFamily};

    use super::super::built::{self, data, named, only, tx_hash, Flow, Store, Wallets};
    use super::super::{jetton, OP_EXCESSES};

    /// `payout_from_pool#ad4eb6f5 query_id proof:^Cell amount recipient
    /// payload:(Maybe ^Cell)`.
    fn payout_from_pool(amount: u128, to: u8) -> Cell {
        built::body(super::OP_PAYOUT_FROM_POOL, |b| {
            b.store_reference(Cell::empty_cell()).unwrap();
            b.coins(amount).addr(Some(built::account(to)));
            b.store_bit_zero().unwrap();
        })
    }

    /// User 1 burns 500 LP tokens at his LP wallet 2 of pool 3; the pool
    /// pays 1000 nanoton through the TON vault 4 and 2000 units of Jetton
    /// 9 through its vault 5 (vault wallet 6 → the user's wallet 7).
    fn withdrawal(second_side: bool) -> (Flow, Wallets) {
        let mut f = Flow::default();
        let root = f.send(None, 8, 1, 0, None);
        let burn = f.send(
            Some(root),
            1,
            2,
            jetton::OP_BURN,
            Some(built::jetton_burn(500, 1)),
        );
        let notify = f.send(Some(burn), 2, 3, jetton::OP_BURN_NOTIFICATION, None);
        let ton = f.send(
            Some(notify),
            3,
            4,
            super::OP_PAYOUT_FROM_POOL,
            Some(payout_from_pool(1000, 1)),
        );
        f.send(Some(notify), 3, 1, OP_EXCESSES, None);
        if second_side {
            let jet = f.send(
                Some(notify),
                3,
                5,
                super::OP_PAYOUT_FROM_POOL,
                Some(payout_from_pool(2000, 1)),
            );
            let t = f.send(
                Some(jet),
                5,
                6,
                jetton::OP_TRANSFER,
                Some(built::jetton_transfer(2000, 1)),
            );
            let i = f.send(
                Some(t),
                6,
                7,
                jetton::OP_INTERNAL_TRANSFER,
                Some(built::internal_transfer(2000, 5)),
            );
            f.send(Some(i), 7, 1, jetton::OP_TRANSFER_NOTIFICATION, None);
        }
        f.send(Some(ton), 4, 1, super::OP_PAYOUT, None);
        let mut w = Wallets::default();
        w.add(2, 1, 3);
        w.add(6, 5, 9);
        w.add(7, 1, 9);
        (f, w)
    }

    #[test]
    fn a_withdrawal_names_both_sides_as_the_vaults_paid_them() {
        let (f, w) = withdrawal(true);
        let actions = f.classify(&w);
        let a = only(&actions, "dex_withdraw_liquidity");
        assert!(
            actions.iter().all(|a| a.kind != "jetton_burn"),
            "{actions:#?}"
        );
        assert!(a.success);
        assert_eq!(a.source, Some(built::account(1)));
        assert_eq!(a.source_secondary, Some(built::account(2)));
        assert_eq!(a.destination, Some(built::account(3)));
        assert_eq!(a.asset, Some(built::account(3)));
        let d = data(a);
        assert_eq!(d["dex"], "dedust");
        assert_eq!(d["lp_tokens_burnt"], "500");
        assert_eq!(d["amount1"], "1000");
        assert_eq!(d["asset1_out"], Value::Null);
        assert_eq!(d["dex_wallet_1"], named(4));
        assert_eq!(d["user_jetton_wallet_1"], Value::Null);
        assert_eq!(d["amount2"], "2000");
        assert_eq!(d["asset2_out"], named(9));
        assert_eq!(d["dex_wallet_2"], named(5));
        assert_eq!(d["dex_jetton_wallet_2"], named(6));
        assert_eq!(d["user_jetton_wallet_2"], named(7));
        // Every transaction, the user's (which sent the burn) and the
        // pool's change included.
        let mut covered = a.tx_hashes.clone();
        covered.sort();
        let mut want: Vec<_> = (1..=10).map(tx_hash).collect();
        want.sort();
        assert_eq!(covered, want);
    }

    #[test]
    fn one_side_paid_is_a_burn_not_a_withdrawal() {
        let (f, w) = withdrawal(false);
        let actions = f.classify(&w);
        assert!(
            actions.iter().all(|a| a.kind != "dex_withdraw_liquidity"),
            "{actions:#?}"
        );
        only(&actions, "jetton_burn");
    }

    #[test]
    fn an_unknown_lp_wallet_is_no_withdrawal() {
        let (f, mut w) = withdrawal(true);
        w.0.remove(&built::account(2));
        let actions = f.classify(&w);
        assert!(
            actions.iter().all(|a| a.kind != "dex_withdraw_liquidity"),
            "{actions:#?}"
        );
    }
}
