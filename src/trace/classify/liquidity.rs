//! DEX liquidity: withdrawals (`dex_withdraw_liquidity`) — a position or
//! LP tokens burnt and both sides paid out.

use serde_json::{Map, Value};
use tonindex_model::Address;

use super::body::{self, msg_address};
use super::swap::{self, OP_PTON_TON_TRANSFER, OP_TONCO_PAY_TO};
use super::{addr, dec, Block, BlockId, Cols, Graph, Interfaces};

const OP_TONCO_START_BURN: u32 = 0x530b_5f2c;
const OP_TONCO_POSITION_BURN: u32 = 0x46ca_335a;
const OP_TONCO_BURN: u32 = 0xd73a_c09d;

/// The TONCO router's proxy-TON wallet: a side paid from it is TON.
const TONCO_ROUTER_PTON_WALLET: &str =
    "0:871DA9215B14902166F0EA2A16DB56278D528108377F8158C5F4CCFDFDD22E17";

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_TONCO_START_BURN, OP_TONCO_POSITION_BURN, OP_TONCO_BURN];

/// One side paid out.
struct Side {
    amount: u128,
    asset: Option<Address>,
    user_wallet: Option<Address>,
    dex_wallet: Option<Address>,
    dex_jetton_wallet: Option<Address>,
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
                    amount,
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
                    amount,
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
    let mut d = Map::new();
    d.insert("dex".into(), "tonco".into());
    for (i, side) in sides.iter().enumerate() {
        let n = i + 1;
        d.insert(format!("amount{n}"), dec(side.amount));
        d.insert(format!("asset{n}_out"), addr(side.asset));
        d.insert(format!("user_jetton_wallet_{n}"), addr(side.user_wallet));
        d.insert(format!("dex_wallet_{n}"), addr(side.dex_wallet));
        d.insert(
            format!("dex_jetton_wallet_{n}"),
            addr(side.dex_jetton_wallet),
        );
    }
    d.insert("lp_tokens_burnt".into(), dec(liquidity));
    d.insert("burned_nft_index".into(), dec(index));
    d.insert(
        "burned_nft_address".into(),
        addr(g.msg(position_burn)?.destination),
    );
    d.insert("tick_lower".into(), Value::from(signed(tick_lower)));
    d.insert("tick_upper".into(), Value::from(signed(tick_upper)));
    let mut blk = Block::of("dex_withdraw_liquidity", members, failed, cols);
    blk.data = d;
    Some(blk)
}
