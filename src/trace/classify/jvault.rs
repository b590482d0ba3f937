//! JVault staking: Jettons staked into a pool (a Jetton transfer whose
//! notification makes the pool credit a stake wallet), unstaked, unstake
//! requests, rewards claimed. Pools update rewards and walk referral
//! chains as they go; those are part of the action. Assets come from the
//! stake wallet's and the pool's data.

use crate::trace::action_data::{ActionData, JvaultClaim, JvaultStake, JvaultUnstake};
use tonindex_model::Address;
use tycho_types::cell::Load;

use super::body::{self, coins, msg_address};
use super::{jetton, Block, BlockId, Cols, Graph, Interfaces};

const OP_RECEIVE_JETTONS: u32 = 0xd68a_4ac1;
const OP_UNSTAKE_JETTONS: u32 = 0x499a_9262;
const OP_UNSTAKE_REQUEST: u32 = 0x0168_d4b7;
const OP_CLAIM_REWARDS: u32 = 0x78d9_f109;
const OP_SEND_CLAIMED_REWARDS: u32 = 0x44bc_1fe3;
const OP_REQUEST_UPDATE_REWARDS: u32 = 0xf5c5_baa3;
const OP_UPDATE_REWARDS: u32 = 0xae93_07ce;
const OP_REQUEST_UPDATE_REFERRER: u32 = 0x55c3_5b40;
const OP_UPDATE_REFERRER: u32 = 0x076e_e4e0;
const OP_SET_DATA: u32 = 0x3834_11ea;
const OP_CANCELLATION: u32 = 0x9ead_a1d9;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_UNSTAKE_JETTONS, OP_UNSTAKE_REQUEST, OP_CLAIM_REWARDS];

/// A referral chain under `b`: requests to update referrers, one after
/// the other, optionally ending in an update; with their change.
fn referral_chain(g: &Graph<'_>, b: BlockId) -> Vec<BlockId> {
    let mut out = Vec::new();
    let mut frontier = vec![b];
    for _ in 0..64 {
        let mut found = None;
        for &f in &frontier {
            if let Some(x) = g.next_call(f, OP_UPDATE_REFERRER) {
                out.extend(g.with_change(x));
                return out;
            }
            if found.is_none() {
                found = g.next_call(f, OP_REQUEST_UPDATE_REFERRER);
            }
        }
        let Some(x) = found else { break };
        let step = g.with_change(x);
        frontier = step.clone();
        out.extend(step);
    }
    out
}

/// The pool's answer to a stake wallet: a reward update request with the
/// referral chain and the update (required) under it.
fn request_update(g: &Graph<'_>, from: BlockId) -> Option<(BlockId, Vec<BlockId>)> {
    let request = g.next_call(from, OP_REQUEST_UPDATE_REWARDS)?;
    let mut members = g.with_change(request);
    members.extend(referral_chain(g, request));
    let update = g.next_call(request, OP_UPDATE_REWARDS)?;
    members.extend(g.with_change(update));
    Some((request, members))
}

/// `(pool, underlying Jetton, stake Jetton)` from the stake wallet's data
/// (pool, minter) and the pool's (its lock wallet).
fn assets(
    stake_wallet: &Address,
    interfaces: &dyn Interfaces,
) -> (Option<Address>, Option<Address>, Option<Address>) {
    let Some(data) = interfaces.account_data(stake_wallet) else {
        return (None, None, None);
    };
    let read = || -> Option<(Option<Address>, Option<Address>)> {
        let mut s = data.as_slice().ok()?;
        let pool = msg_address(&mut s)?;
        let minter = msg_address(&mut s)?;
        Some((pool, minter))
    };
    let Some((pool, minter)) = read() else {
        return (None, None, None);
    };
    let asset = pool
        .and_then(|p| interfaces.account_data(&p))
        .and_then(|d| {
            let mut s = d.as_slice().ok()?;
            s.skip_first(33, 0).ok()?;
            msg_address(&mut s)?;
            msg_address(&mut s)?;
            msg_address(&mut s)?
        })
        .and_then(|lock_wallet| interfaces.jetton_wallet(&lock_wallet))
        .map(|w| w.jetton);
    (pool, asset, minter)
}

/// A stake: a Jetton transfer to the pool, the pool crediting the stake
/// wallet and asking for a reward update — or cancelling, refunding.
pub(crate) fn stake(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let t = g.block(b);
    if t.kind != "jetton_transfer" {
        return None;
    }
    let receive = g.next_call(b, OP_RECEIVE_JETTONS)?;
    let mut members = vec![b];
    members.extend(g.with_change(receive));
    let mut failed = g.block(receive).failed;
    if let Some((request, parts)) = request_update(g, receive) {
        failed |= g.block(request).failed;
        members.extend(parts);
    } else if let Some(cancel) = g.next_call(receive, OP_CANCELLATION) {
        failed = true;
        members.extend(g.with_change(cancel));
        if let Some(refund) = g.next_kind(cancel, "jetton_transfer", &[]) {
            members.extend(g.with_change(refund));
        }
    } else {
        return None;
    }
    if let Some(set) = g.next_call(b, OP_SET_DATA) {
        members.extend(g.with_change(set));
    }
    let transfer = g.part(b, jetton::OP_TRANSFER)?;
    let parsed = jetton::transfer_body(g.body(transfer)?)?;
    let mut p = parsed.forward_payload.as_ref()?.as_slice().ok()?;
    p.load_u32().ok()?;
    let period = p.load_u32().ok()?;
    let cols = Cols {
        source: t.cols.source,
        source_secondary: t.cols.source_secondary,
        destination: g.msg(receive)?.source,
        asset: t.cols.asset,
        amount: Some(parsed.amount),
        ..Cols::default()
    };
    let mut blk = Block::of("jvault_stake", members, failed, cols);
    blk.data = ActionData::JvaultStake(JvaultStake {
        period,
        stake_wallet: g.msg(receive)?.destination,
    });
    Some(blk)
}

/// `op query_id jettons_to_unstake:Coins` of an unstake or request.
fn unstake_amount(g: &Graph<'_>, b: BlockId) -> Option<u128> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    coins(&mut s)
}

fn exit_code(g: &Graph<'_>, b: BlockId) -> Option<u32> {
    g.tx(b)?.compute.map(|(_, code)| code as u32)
}

fn unstake_cols(g: &Graph<'_>, b: BlockId, amount: u128) -> Option<Cols> {
    let m = g.msg(b)?;
    Some(Cols {
        source: m.source,
        source_secondary: m.destination,
        amount: Some(amount),
        ..Cols::default()
    })
}

/// Unstaking: the stake wallet asks the pool to update rewards, the pool
/// pays out (a fee, the Jettons) and updates.
pub(crate) fn unstake(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_UNSTAKE_JETTONS) {
        return None;
    }
    let amount = unstake_amount(g, b)?;
    let stake_wallet = g.msg(b)?.destination?;
    let (pool, asset, minter) = assets(&stake_wallet, interfaces);
    let (pool, asset) = (pool?, asset?);
    let mut cols = unstake_cols(g, b, amount)?;
    let mut members = vec![b];
    let paid = (|| {
        let request = g.next_call(b, OP_REQUEST_UPDATE_REWARDS)?;
        let mut parts = g.with_change(request);
        parts.extend(referral_chain(g, request));
        let mut taken = Vec::new();
        if let Some(fee) = g.next_kind(request, "ton_transfer", &[]) {
            parts.extend(g.with_change(fee));
            taken.push(fee);
        }
        let withdraw = g.next_kind(request, "jetton_transfer", &taken)?;
        parts.extend(g.with_change(withdraw));
        let update = g.next_call(request, OP_UPDATE_REWARDS)?;
        parts.extend(g.with_change(update));
        Some((request, withdraw, parts))
    })();
    match paid {
        Some((request, withdraw, parts)) => {
            if g.block(withdraw).cols.asset != Some(asset) {
                return None;
            }
            members.extend(parts);
            cols.destination = g.msg(request)?.destination;
        }
        None => {
            cols.destination = Some(pool);
            cols.opcode = exit_code(g, b);
        }
    }
    cols.asset = Some(asset);
    let mut blk = Block::of("jvault_unstake", members, false, cols);
    blk.data = ActionData::JvaultUnstake(JvaultUnstake { asset2: minter });
    Some(blk)
}

/// An unstake request: the pool updates rewards (and referrers).
pub(crate) fn unstake_request(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_UNSTAKE_REQUEST) {
        return None;
    }
    let amount = unstake_amount(g, b)?;
    let stake_wallet = g.msg(b)?.destination?;
    let (pool, asset, minter) = assets(&stake_wallet, interfaces);
    let mut cols = unstake_cols(g, b, amount)?;
    let mut members = vec![b];
    let failed = match request_update(g, b) {
        Some((request, parts)) => {
            members.extend(parts);
            cols.destination = g.msg(request)?.destination;
            g.block(b).failed || g.block(request).failed
        }
        None => {
            pool?;
            asset?;
            cols.destination = pool;
            cols.opcode = exit_code(g, b);
            true
        }
    };
    cols.asset = asset;
    let mut blk = Block::of("jvault_unstake_request", members, failed, cols);
    blk.data = ActionData::JvaultUnstake(JvaultUnstake { asset2: minter });
    Some(blk)
}

/// Claimed rewards: the pool sends them (a Jetton transfer) and updates.
pub(crate) fn claim(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_CLAIM_REWARDS) {
        return None;
    }
    let send = g.next_call(b, OP_SEND_CLAIMED_REWARDS)?;
    let withdraw = g.next_kind(send, "jetton_transfer", &[])?;
    let update = g.next_call(send, OP_UPDATE_REWARDS)?;
    let mut members = vec![b];
    members.extend(g.with_change(send));
    members.extend(g.with_change(withdraw));
    members.extend(g.with_change(update));
    // `query_id jettons_to_claim:(HashmapE 267 Bit)`: the keys are the
    // pool's reward wallets.
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let dict: tycho_types::dict::Dict<tycho_types::models::StdAddr, bool> =
        tycho_types::dict::Dict::load_from(&mut s).ok()?;
    let mut jettons = Vec::new();
    for entry in dict.keys() {
        let a = entry.ok()?;
        jettons.push(Some(Address {
            workchain: i32::from(a.workchain),
            id: *a.address.as_array(),
        }));
    }
    let transfer = g.part(withdraw, jetton::OP_TRANSFER)?;
    let claimed = jetton::transfer_body(g.body(transfer)?)?.amount;
    let m = g.msg(b)?;
    let cols = Cols {
        source: m.source,
        source_secondary: m.destination,
        destination: g.msg(send)?.destination,
        ..Cols::default()
    };
    let mut blk = Block::of("jvault_claim", members, false, cols);
    blk.data = ActionData::JvaultClaim(JvaultClaim {
        claimed_amounts: vec![claimed.to_string()],
        claimed_jettons: jettons,
    });
    Some(blk)
}
