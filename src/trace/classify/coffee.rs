//! swap.coffee beyond swaps: vaults and pools created, MEV protection
//! holding funds (and giving them back when the swap failed), staking
//! deposits. (Its swaps are in `swap`.)

use crate::trace::action_data::{
    ActionData, CoffeeCreatePool, CoffeePoolCreator, CoffeeStakingDeposit, CoffeeStakingWithdraw,
    ToncoDeployPool,
};
use tonindex_model::Address;
use tycho_types::cell::CellSlice;

use super::body::{self, coins, msg_address};
use super::swap::{coffee_asset, OP_COFFEE_NOTIFICATION};
use super::{jetton, Block, BlockId, Cols, Graph, Interfaces};

const OP_CREATE_POOL_NATIVE: u32 = 0xc0ff_ee02;
const OP_CREATE_VAULT: u32 = 0xc0ff_ee06;
const OP_CREATE_POOL_JETTON: u32 = 0xc0ff_ee11;
const OP_DEPLOY: u32 = 0xc0ff_ee22;
const OP_CREATE_POOL_CREATOR_REQUEST: u32 = 0xc0ff_ee23;
const OP_CREATE_POOL_REQUEST: u32 = 0xc0ff_ee25;
const OP_DEPOSIT_EVENT: u32 = 0xc0ff_ee33;
const OP_SERVICE_FEE: u32 = 0xc0ff_eea0;
const OP_MEV_HOLD_FUNDS: u32 = 0x6bc7_9e7e;
/// `mev_protect_failed_swap#ee51ce51 query_id:uint64 recipient:MsgAddressInt`.
const OP_MEV_FAILED_SWAP: u32 = 0xee51_ce51;
const OP_VAULT_INIT: u32 = 0x2c76_b973;
const OP_VAULT_INIT_ANSWER: u32 = 0xd173_5400;
const OP_NOTIFICATION_ANSWER: u32 = 0xb216_d31f;
const OP_STAKING_DEPOSIT: u32 = 0xf947_1134;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[
    OP_CREATE_POOL_NATIVE,
    OP_CREATE_VAULT,
    OP_CREATE_POOL_REQUEST,
    OP_DEPOSIT_EVENT,
    OP_MEV_FAILED_SWAP,
];

/// `PoolParams first:Asset second:Asset amm:(## 3) amm_settings:(Maybe
/// ^Cell)` then `PoolCreationParams recipient …`: `(first, second,
/// recipient)`.
fn pool_params(
    s: &mut CellSlice<'_>,
) -> Option<(Option<Address>, Option<Address>, Option<Address>)> {
    let first = coffee_asset(s)?;
    let second = coffee_asset(s)?;
    s.skip_first(3, 0).ok()?;
    body::maybe_ref(s)?;
    let recipient = msg_address(s)?;
    Some((first, second, recipient))
}

/// A pool creator deployed: the provided asset (Jettons, or TON with
/// `create_pool_native`) reaches the factory, which deploys the creator.
pub(crate) fn create_pool_creator(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_CREATE_POOL_CREATOR_REQUEST) {
        return None;
    }
    let prev = g.block(b).prev?;
    let deploy = g.next_call(b, OP_DEPLOY)?;
    let (cols, params) = if g.kind(prev) == "jetton_transfer" {
        let t = g.block(prev);
        let transfer = g.part(prev, jetton::OP_TRANSFER)?;
        let parsed = jetton::transfer_body(g.body(transfer)?)?;
        let mut p = parsed.forward_payload.as_ref()?.as_slice().ok()?;
        if p.load_u32().ok()? != OP_CREATE_POOL_JETTON {
            return None;
        }
        let params = pool_params(&mut p)?;
        let cols = Cols {
            source: t.cols.source,
            source_secondary: t.cols.source_secondary,
            asset: t.cols.asset,
            amount: t.cols.amount,
            ..Cols::default()
        };
        (cols, params)
    } else if g.call_op(prev) == Some(OP_CREATE_POOL_NATIVE) {
        let mut s = body::after_op(g.body(prev)?)?;
        s.load_u64().ok()?;
        let amount = coins(&mut s)?;
        let params = pool_params(&mut s)?;
        let cols = Cols {
            source: g.msg(prev)?.source,
            amount: Some(amount),
            ..Cols::default()
        };
        (cols, params)
    } else {
        return None;
    };
    let (first, second, recipient) = params;
    let cols = Cols {
        destination: recipient,
        destination_secondary: g.msg(deploy)?.destination,
        ..cols
    };
    let mut members = g.with_change(prev);
    members.push(b);
    members.extend(g.with_change(deploy));
    let mut blk = Block::of("coffee_create_pool_creator", members, false, cols);
    blk.data = ActionData::CoffeePoolCreator(CoffeePoolCreator {
        asset2: first,
        asset2_secondary: second,
    });
    Some(blk)
}

/// The pool created from a creator: the creator's request to the factory,
/// the pool's deploy, the LP tokens minted and the deposit event.
pub(crate) fn create_pool(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let creator = g.block(b);
    if creator.kind != "coffee_create_pool_creator" {
        return None;
    }
    let request = g.next_call(b, OP_CREATE_POOL_REQUEST)?;
    let deploy = g.next_call(request, OP_DEPLOY)?;
    let lp = g.next_call(deploy, jetton::OP_INTERNAL_TRANSFER)?;
    let event = g.next_call(deploy, OP_DEPOSIT_EVENT)?;
    let mut members = vec![b];
    members.extend(g.with_change(request));
    members.extend(g.with_change(deploy));
    members.extend(g.with_change(lp));
    members.push(event);
    if let Some(n) = g.next_call(deploy, OP_COFFEE_NOTIFICATION) {
        members.extend(g.with_change(n));
        if let Some(x) = g.next_call(n, OP_NOTIFICATION_ANSWER) {
            members.extend(g.with_change(x));
        }
    }
    // create_pool_request#c0ffee25 query_id amount1 amount2 tx_initiator …
    let mut s = body::after_op(g.body(request)?)?;
    s.load_u64().ok()?;
    let mut amounts = [coins(&mut s)?, coins(&mut s)?];
    let mut initiators = [creator.cols.source, msg_address(&mut s)?];
    let mut e = body::after_op(g.body(event)?)?;
    e.load_u64().ok()?;
    coins(&mut e)?;
    coins(&mut e)?;
    let lp_amount = coins(&mut e)?;
    let ActionData::CoffeePoolCreator(assets) = &creator.data else {
        return None;
    };
    let (first, second) = (assets.asset2, assets.asset2_secondary);
    let asset_1 = creator.cols.asset;
    // The provided asset is the first side: its amount and initiator too.
    let asset_2 = if asset_1 == second {
        amounts.swap(0, 1);
        initiators.swap(0, 1);
        first
    } else {
        second
    };
    let cols = Cols {
        source: creator.cols.source,
        source_secondary: creator.cols.source_secondary,
        destination: g.msg(deploy)?.destination,
        destination_secondary: creator.cols.destination_secondary,
        asset: asset_1,
        amount: creator.cols.amount,
        ..Cols::default()
    };
    let mut blk = Block::of("coffee_create_pool", members, false, cols);
    blk.data = ActionData::CoffeeCreatePool(Box::new(CoffeeCreatePool {
        amount_1: Some(amounts[0].to_string()),
        amount_2: Some(amounts[1].to_string()),
        asset2: asset_2,
        initiator_1: initiators[0],
        initiator_2: initiators[1],
        lp_tokens_minted: Some(lp_amount.to_string()),
        provided_asset: asset_1,
    }));
    Some(blk)
}

/// A vault created: `create_vault#c0ffee06 query_id asset:Asset` and the
/// factory's deploy of the vault.
pub(crate) fn create_vault(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_CREATE_VAULT) {
        return None;
    }
    let deploy = g.next_call(b, OP_DEPLOY)?;
    let mut members = vec![b];
    members.extend(g.with_change(deploy));
    if let Some(init) = g.next_call(deploy, OP_VAULT_INIT) {
        members.extend(g.with_change(init));
        if let Some(x) = g.next_call(init, OP_VAULT_INIT_ANSWER) {
            members.extend(g.with_change(x));
        }
    }
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let asset = coffee_asset(&mut s)?;
    let m = g.msg(b)?;
    let cols = Cols {
        source: m.source,
        destination: g.msg(deploy)?.destination,
        asset,
        value: Some(m.value),
        ..Cols::default()
    };
    Some(Block::of("coffee_create_vault", members, false, cols))
}

/// Funds held by the MEV protection contract (TON, or Jettons whose
/// payload asks for it), with the service fee paid beside it.
pub(crate) fn mev_protect_hold_funds(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    let cols = if g.call_op(b) == Some(OP_MEV_HOLD_FUNDS) {
        let m = g.msg(b)?;
        Cols {
            source: m.source,
            destination: m.destination,
            amount: Some(m.value),
            ..Cols::default()
        }
    } else if g.kind(b) == "jetton_transfer" {
        let transfer = g.part(b, jetton::OP_TRANSFER)?;
        let parsed = jetton::transfer_body(g.body(transfer)?)?;
        let op = parsed.forward_payload.as_ref().and_then(body::opcode);
        if op != Some(OP_MEV_HOLD_FUNDS) {
            return None;
        }
        let t = g.block(b);
        Cols {
            source: t.cols.source,
            source_secondary: t.cols.source_secondary,
            destination: t.cols.destination,
            asset: t.cols.asset,
            amount: t.cols.amount,
            ..Cols::default()
        }
    } else {
        return None;
    };
    let mut members = vec![b];
    if let Some(p) = g.block(b).prev {
        if let Some(fee) = g.next_call(p, OP_SERVICE_FEE) {
            members.extend([p, fee]);
        }
    }
    Some(Block::of(
        "coffee_mev_protect_hold_funds",
        members,
        false,
        cols,
    ))
}

/// Funds MEV protection held, given back after the swap failed: a call
/// (TON) or a Jetton transfer whose forward payload (Jettons) is
/// `mev_protect_failed_swap`, naming who gets them; the asset is null for
/// TON. The action is that transfer alone, as toncenter builds it.
pub(crate) fn mev_protect_failed_swap(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    let (payload, asset) = if g.call_op(b) == Some(OP_MEV_FAILED_SWAP) {
        (g.body(b)?.clone(), None)
    } else if g.kind(b) == "jetton_transfer" {
        let transfer = g.part(b, jetton::OP_TRANSFER)?;
        let parsed = jetton::transfer_body(g.body(transfer)?)?;
        let payload = parsed.forward_payload?;
        if body::opcode(&payload) != Some(OP_MEV_FAILED_SWAP) {
            return None;
        }
        (payload, g.block(b).cols.asset)
    } else {
        return None;
    };
    let mut s = body::after_op(&payload)?;
    s.load_u64().ok()?;
    let recipient = msg_address(&mut s)?;
    let cols = Cols {
        destination: recipient,
        asset,
        ..Cols::default()
    };
    Some(Block::of(
        "coffee_mev_protect_failed_swap",
        vec![b],
        false,
        cols,
    ))
}

/// A staking deposit: a Jetton transfer to the staking master, its call
/// to the pool (with its log) and the position NFT minted.
pub(crate) fn staking_deposit(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.kind(b) != "jetton_transfer" {
        return None;
    }
    let pool_call = g.next_call(b, OP_STAKING_DEPOSIT)?;
    let mint = g.next_kind(pool_call, "nft_mint", &[])?;
    let mut members = vec![b];
    members.extend(g.with_change(pool_call));
    if let Some(log) = g
        .block(pool_call)
        .next
        .iter()
        .copied()
        .find(|&x| g.block(x).log.is_some() && g.call_op(x) == Some(OP_STAKING_DEPOSIT))
    {
        members.push(log);
    }
    members.push(mint);
    let t = g.block(b);
    let m = g.block(mint);
    let cols = Cols {
        source: t.cols.source,
        source_secondary: t.cols.source_secondary,
        destination: g.msg(pool_call)?.destination,
        destination_secondary: t.cols.destination_secondary,
        asset: t.cols.asset,
        amount: t.cols.amount,
        ..Cols::default()
    };
    let mut blk = Block::of("coffee_staking_deposit", members, false, cols);
    let minted_item_index = match &m.data {
        ActionData::NftIndex(i) => i.nft_item_index.clone(),
        _ => None,
    };
    blk.data = ActionData::CoffeeStakingDeposit(CoffeeStakingDeposit {
        minted_item_address: m.cols.asset_secondary,
        minted_item_index,
    });
    Some(blk)
}

const OP_TONCO_CREATE_POOL: u32 = 0x2e30_34ef;
const OP_TONCO_POOL_INIT: u32 = 0x441c_39ed;

/// The opcodes whose bodies the TONCO deploy reads.
pub(crate) const TONCO_BODY_OPS: &[u32] = &[OP_TONCO_CREATE_POOL, OP_TONCO_POOL_INIT];

/// A TONCO pool deployed: the router's create_pool and the pool's init.
pub(crate) fn tonco_deploy_pool(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_TONCO_CREATE_POOL) {
        return None;
    }
    let init = g.next_call(b, OP_TONCO_POOL_INIT)?;
    let mut members = vec![b];
    members.extend(g.with_change(init));
    // create_pool#2e3034ef query_id wallet0 wallet1 tick_spacing:int24
    // price:uint160 protocol_fee:uint16 lp_fee_base:uint16
    // lp_fee_current:uint16 ^content ^item_content ^[minter0 minter1 …]
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let wallet0 = msg_address(&mut s)?;
    let wallet1 = msg_address(&mut s)?;
    let tick_spacing = ((s.load_uint(24).ok()? as u32) << 8) as i32 >> 8;
    let mut price = [0u8; 32];
    s.load_raw(&mut price[12..], 160).ok()?;
    let protocol_fee = s.load_u16().ok()?;
    let lp_fee_base = s.load_u16().ok()?;
    let lp_fee_current = s.load_u16().ok()?;
    s.load_reference().ok()?;
    s.load_reference().ok()?;
    let minters = s.load_reference_cloned().ok()?;
    let mut ms = minters.as_slice().ok()?;
    let minter0 = msg_address(&mut ms)?;
    let minter1 = msg_address(&mut ms)?;
    // pool_init#441c39ed query_id from_admin has_admin admin has_controller
    // controller set_spacing tick_spacing set_price price set_active active …
    let active = (|| {
        let mut p = body::after_op(g.body(init)?)?;
        p.load_u64().ok()?;
        p.skip_first(2, 0).ok()?;
        msg_address(&mut p)?;
        p.skip_first(1, 0).ok()?;
        msg_address(&mut p)?;
        p.skip_first(1 + 24 + 1 + 160 + 1, 0).ok()?;
        p.load_bit().ok()
    })();
    let m = g.msg(b)?;
    let cols = Cols {
        source: m.source,
        destination: m.destination,
        destination_secondary: g.msg(init)?.destination,
        ..Cols::default()
    };
    let mut blk = Block::of("tonco_deploy_pool", members, false, cols);
    let price = decimal_u256(&price);
    blk.data = ActionData::ToncoDeployPool(Box::new(ToncoDeployPool {
        initial_price_x96: Some(price),
        jetton0_minter: minter0,
        jetton0_router_wallet: wallet0,
        jetton1_minter: minter1,
        jetton1_router_wallet: wallet1,
        lp_fee_base: Some(lp_fee_base),
        lp_fee_current: Some(lp_fee_current),
        pool_active: active,
        protocol_fee: Some(protocol_fee),
        tick_spacing: Some(tick_spacing),
    }));
    Some(blk)
}

/// A big-endian unsigned integer as decimal.
fn decimal_u256(bytes: &[u8; 32]) -> String {
    let mut digits: Vec<u8> = vec![0];
    for &byte in bytes {
        let mut carry = u32::from(byte);
        for d in digits.iter_mut() {
            let v = u32::from(*d) * 256 + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    digits.iter().rev().map(|d| char::from(b'0' + d)).collect()
}

const OP_STAKING_WITHDRAW: u32 = 0xcb03_bfaf;
const OP_STAKING_CLAIM_REWARDS: u32 = 0xb30c_7310;

/// The opcodes whose bodies the staking withdrawal and claim read.
pub(crate) const STAKING_BODY_OPS: &[u32] = &[OP_STAKING_WITHDRAW, OP_STAKING_CLAIM_REWARDS];

/// A staking position withdrawn: the owner's request at the position NFT,
/// the NFT's request at the pool (`#cb03bfaf query_id nft_id:uint64 owner
/// points:Coins ^[jetton_wallet jetton_amount]`), the pool's order to its
/// Jetton wallet (`#cb03bfaf query_id jetton_wallet jetton_amount owner`)
/// and the transfer out; the three steps share one opcode.
pub(crate) fn staking_withdraw(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_STAKING_WITHDRAW) || g.block(b).log.is_some() {
        return None;
    }
    let internal = |x: BlockId| g.block(x).log.is_none();
    let second = g
        .next_calls(b, OP_STAKING_WITHDRAW)
        .find(|&x| internal(x))?;
    let third = g
        .next_calls(second, OP_STAKING_WITHDRAW)
        .find(|&x| internal(x) && g.next_kind(x, "jetton_transfer", &[]).is_some())?;
    let transfer = g.next_kind(third, "jetton_transfer", &[])?;
    let mut members = vec![b];
    for x in [second, third, transfer] {
        members.extend(g.with_change(x));
    }
    if let Some(log) = g
        .next_calls(second, OP_STAKING_WITHDRAW)
        .find(|&x| g.block(x).log.is_some())
    {
        members.push(log);
    }
    let mut s = body::after_op(g.body(second)?)?;
    s.load_u64().ok()?;
    let nft_index = s.load_u64().ok()?;
    let owner = msg_address(&mut s)?;
    let points = coins(&mut s)?;
    let mut t = body::after_op(g.body(third)?)?;
    t.load_u64().ok()?;
    let pool_wallet = msg_address(&mut t)?;
    let amount = coins(&mut t)?;
    let tb = g.block(transfer);
    let cols = Cols {
        source: owner,
        source_secondary: tb.cols.destination_secondary,
        destination: g.msg(second)?.source,
        destination_secondary: pool_wallet,
        asset: tb.cols.asset,
        amount: Some(amount),
        ..Cols::default()
    };
    let mut blk = Block::of("coffee_staking_withdraw", members, false, cols);
    blk.data = ActionData::CoffeeStakingWithdraw(CoffeeStakingWithdraw {
        nft_address: g.msg(b)?.destination,
        nft_index: Some(nft_index.to_string()),
        points: Some(points.to_string()),
    });
    Some(blk)
}

/// Rewards claimed from a staking pool: `#b30c7310 query_id jetton_wallet
/// jetton_amount receiver …` and the pool's Jetton transfer (and log).
pub(crate) fn staking_claim_rewards(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_STAKING_CLAIM_REWARDS) || g.block(b).log.is_some() {
        return None;
    }
    let transfer = g.next_kind(b, "jetton_transfer", &[])?;
    let mut members = vec![b];
    members.extend(g.with_change(transfer));
    if let Some(log) = g
        .next_calls(b, OP_STAKING_CLAIM_REWARDS)
        .find(|&x| g.block(x).log.is_some())
    {
        members.push(log);
    }
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let pool_wallet = msg_address(&mut s)?;
    let amount = coins(&mut s)?;
    let receiver = msg_address(&mut s)?;
    let tb = g.block(transfer);
    let cols = Cols {
        source: g.msg(b)?.destination,
        source_secondary: pool_wallet,
        destination: receiver,
        destination_secondary: tb.cols.destination_secondary,
        asset: tb.cols.asset,
        amount: Some(amount),
        ..Cols::default()
    };
    Some(Block::of(
        "coffee_staking_claim_rewards",
        members,
        false,
        cols,
    ))
}

#[cfg(test)]
mod tests {
    use tycho_types::cell::CellBuilder;

    use super::super::built::{account, tx_hash, Flow};

    /// The MEV contract gives TON back after a failed swap: the call
    /// carrying `mev_protect_failed_swap` is the action, naming the
    /// recipient its body names (not the message's destination).
    #[test]
    fn a_failed_swap_gives_the_funds_back_to_the_named_recipient() {
        let mut b = CellBuilder::new();
        b.store_u32(super::OP_MEV_FAILED_SWAP).unwrap();
        b.store_u64(7).unwrap();
        b.store_small_uint(0b100, 3).unwrap();
        b.store_u8(0).unwrap();
        b.store_raw(&[9; 32], 256).unwrap();
        let body = b.build().unwrap();
        let mut f = Flow::default();
        let trigger = f.send(None, 1, 2, 0x1234_5678, None);
        f.send(Some(trigger), 2, 3, super::OP_MEV_FAILED_SWAP, Some(body));
        let actions = f.classify(&super::super::NoInterfaces);
        let failed: Vec<_> = actions
            .iter()
            .filter(|a| a.kind == "coffee_mev_protect_failed_swap")
            .collect();
        assert_eq!(failed.len(), 1, "{actions:?}");
        assert_eq!(failed[0].destination, Some(account(9)));
        assert_eq!(failed[0].asset, None);
        assert_eq!(failed[0].tx_hashes, vec![tx_hash(1), tx_hash(2)]);
        assert!(failed[0].success);
    }
}
