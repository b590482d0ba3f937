//! DEX swaps (`jetton_swap`): the transfer into a DEX, its internal steps
//! and the transfer out, as one action with both legs described.

use crate::trace::action_data::{ActionData, Swap as SwapData, SwapHop, SwapTransfer};
use tonindex_model::Address;

use super::body::{self, coins, msg_address};
use super::{jetton, Block, BlockId, Cols, Graph, Interfaces};

const OP_STONFI_SWAP: u32 = 0x2593_8561;
const OP_STONFI_PAY_TO: u32 = 0xf93b_b43f;
const STONFI_OK: u32 = 0xc643_70e5;
const STONFI_REFERRAL: u32 = 0x4507_8540;
const STONFI_NO_LIQUIDITY: u32 = 0x5ffe_1295;
const STONFI_RESERVE_ERROR: u32 = 0x3897_6e9b;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_STONFI_SWAP, OP_STONFI_PAY_TO];

/// One leg of a swap, as `dex_incoming_transfer` / `dex_outgoing_transfer`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Leg {
    pub asset: Option<Address>,
    pub amount: u128,
    pub source: Option<Address>,
    pub source_wallet: Option<Address>,
    pub destination: Option<Address>,
    pub destination_wallet: Option<Address>,
}

impl Leg {
    /// A Jetton transfer block as a leg: its sender and wallet, receiver
    /// and wallet, Jetton and amount.
    pub(crate) fn of(t: &super::graph::GBlock) -> Option<Leg> {
        Some(Leg {
            asset: t.cols.asset,
            amount: t.cols.amount?,
            source: t.cols.source,
            source_wallet: t.cols.source_secondary,
            destination: t.cols.destination,
            destination_wallet: t.cols.destination_secondary,
        })
    }

    fn data(&self) -> SwapTransfer {
        SwapTransfer {
            amount: Some(self.amount.to_string()),
            asset: self.asset,
            destination: self.destination,
            destination_jetton_wallet: self.destination_wallet,
            source: self.source,
            source_jetton_wallet: self.source_wallet,
        }
    }
}

/// One hop of a multi-pool swap.
pub(crate) struct Hop {
    pub asset_in: Option<Address>,
    pub amount_in: u128,
    pub asset_out: Option<Address>,
    pub amount_out: u128,
}

/// A swap's fields, as the row and its data hold them.
pub(crate) struct Swap {
    pub dex: &'static str,
    pub incoming: Leg,
    pub outgoing: Leg,
    /// What the sender asked for (the outgoing asset when unknown).
    pub destination_asset: Option<Address>,
    /// The row's `destination_secondary` when not the outgoing wallet.
    pub destination_wallet: Option<Option<Address>>,
    pub min_out: Option<u128>,
    pub hops: Vec<Hop>,
}

impl Swap {
    pub(crate) fn block(self, members: Vec<BlockId>, failed: bool) -> Block {
        let cols = Cols {
            source: self.incoming.source,
            source_secondary: self.incoming.source_wallet,
            destination: self.outgoing.destination,
            destination_secondary: self
                .destination_wallet
                .unwrap_or(self.outgoing.destination_wallet),
            asset: self.incoming.asset,
            ..Cols::default()
        };
        let peer_swaps = if self.hops.len() > 1 {
            self.hops
                .iter()
                .map(|h| SwapHop {
                    amount_in: Some(h.amount_in.to_string()),
                    amount_out: Some(h.amount_out.to_string()),
                    asset_in: h.asset_in,
                    asset_out: h.asset_out,
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut blk = Block::of("jetton_swap", members, failed, cols);
        blk.data = ActionData::Swap(Box::new(SwapData {
            asset2: self.destination_asset.or(self.outgoing.asset),
            dex: self.dex.into(),
            dex_incoming_transfer: self.incoming.data(),
            dex_outgoing_transfer: self.outgoing.data(),
            min_out_amount: self.min_out.map(|v| v.to_string()),
            peer_swaps,
            sender: self.incoming.source,
        }));
        blk
    }
}

/// Whether a Jetton transfer block had an internal transfer (a standard
/// wallet, not a proxy-TON one).
fn has_internal(g: &Graph<'_>, b: BlockId) -> bool {
    g.part(b, jetton::OP_INTERNAL_TRANSFER).is_some()
}

/// Everything reachable from `b` through next blocks, `b` included.
fn subtree(g: &Graph<'_>, b: BlockId) -> Vec<BlockId> {
    let mut out = vec![b];
    let mut i = 0;
    while i < out.len() {
        for &x in &g.block(out[i]).next {
            if !out.contains(&x) {
                out.push(x);
            }
        }
        i += 1;
    }
    out
}

fn jetton_of(interfaces: &dyn Interfaces, wallet: Option<Address>) -> Option<Address> {
    interfaces.jetton_wallet(&wallet?).map(|w| w.jetton)
}

/// STON.fi v1: a Jetton transfer to the router, the router's swap at the
/// pool, the pool's payment requests and the router's transfers out. A
/// referral's payment is not part of the swap.
pub(crate) fn stonfi(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.kind(b) != "jetton_transfer" {
        return None;
    }
    let swap = g.next_call(b, OP_STONFI_SWAP)?;
    let pay_tos: Vec<(BlockId, BlockId)> = g
        .next_calls(swap, OP_STONFI_PAY_TO)
        .filter_map(|p| Some((p, g.next_kind(p, "jetton_transfer", &[])?)))
        .collect();
    if pay_tos.is_empty() {
        return None;
    }
    // swap#25938561 query_id to_address token_wallet amount min_out has_ref
    // ^[from_real_user ref_address]
    let mut s = body::after_op(g.body(swap)?)?;
    s.load_u64().ok()?;
    let to_address = msg_address(&mut s)?;
    let token_wallet = msg_address(&mut s)?;
    let amount = coins(&mut s)?;
    coins(&mut s)?;
    s.load_bit().ok()?;
    let refs = s.load_reference_cloned().ok()?;
    let from_real_user = msg_address(&mut refs.as_slice().ok()?)?;
    // The sender's request in the forward payload:
    // `#25938561 jetton_wallet min_amount user_address`.
    let request = (|| {
        let transfer = g.part(b, jetton::OP_TRANSFER)?;
        let parsed = jetton::transfer_body(g.body(transfer)?)?;
        let mut p = parsed.forward_payload.as_ref()?.as_slice().ok()?;
        if p.load_u32().ok()? != OP_STONFI_SWAP {
            return None;
        }
        let wallet = msg_address(&mut p)?;
        coins(&mut p)?;
        let user = msg_address(&mut p)?;
        Some((wallet, user))
    })();
    let mut members = vec![b];
    members.extend(g.with_change(swap));
    let mut out: Option<(u128, Option<Address>, BlockId)> = None;
    let mut success = false;
    let mut dropped: Vec<BlockId> = Vec::new();
    for &(pay, transfer) in &pay_tos {
        let mut p = body::after_op(g.body(pay)?)?;
        p.load_u64().ok()?;
        msg_address(&mut p)?;
        let exit = p.load_u32().ok()?;
        let r = p.load_reference_cloned().ok()?;
        let mut r = r.as_slice().ok()?;
        let a0 = coins(&mut r)?;
        let t0 = msg_address(&mut r)?;
        let a1 = coins(&mut r)?;
        let t1 = msg_address(&mut r)?;
        let (amt, token) = if a0 > 0 { (a0, t0) } else { (a1, t1) };
        match exit {
            STONFI_REFERRAL => {
                dropped.extend(subtree(g, pay));
                continue;
            }
            STONFI_OK | STONFI_NO_LIQUIDITY | STONFI_RESERVE_ERROR
                if out.is_none_or(|(prev, _, _)| amt > prev) =>
            {
                out = Some((amt, token, transfer));
                success = exit == STONFI_OK;
            }
            _ => {}
        }
        members.extend(g.with_change(pay));
        members.extend(g.with_change(transfer));
    }
    members.retain(|m| !dropped.contains(m));
    let (out_amount, out_token, out_transfer) = out?;
    let ot = g.block(out_transfer);
    let in_block = g.block(b);
    let out_wallet = match request {
        Some((Some(w), _)) => Some(w),
        _ => out_token,
    };
    let incoming = Leg {
        asset: jetton_of(interfaces, token_wallet),
        amount,
        source: from_real_user,
        source_wallet: if has_internal(g, b) {
            in_block.cols.source_secondary
        } else {
            None
        },
        destination: token_wallet
            .and_then(|w| interfaces.jetton_wallet(&w))
            .map(|w| w.owner),
        destination_wallet: token_wallet,
    };
    let (destination, destination_wallet) = if has_internal(g, out_transfer) {
        (ot.cols.destination, ot.cols.destination_secondary)
    } else if let Some((_, user)) = request {
        (user, None)
    } else {
        (to_address, None)
    };
    let outgoing = Leg {
        asset: jetton_of(interfaces, out_token),
        amount: out_amount,
        source: ot.cols.source,
        source_wallet: ot.cols.source_secondary,
        destination,
        destination_wallet,
    };
    let swap = Swap {
        dex: "stonfi",
        incoming,
        outgoing,
        destination_asset: jetton_of(interfaces, out_wallet),
        destination_wallet: Some(out_wallet),
        min_out: None,
        hops: Vec::new(),
    };
    Some(swap.block(members, !success))
}

pub(crate) const OP_PTON_TON_TRANSFER: u32 = 0x01f3_835d;
const OP_TONCO_SWAP: u32 = 0xa7fb_58f8;
pub(crate) const OP_TONCO_PAY_TO: u32 = 0xa1da_a96d;

/// The opcodes whose bodies the TONCO matcher reads.
pub(crate) const TONCO_BODY_OPS: &[u32] = &[OP_PTON_TON_TRANSFER, OP_TONCO_SWAP, OP_TONCO_PAY_TO];

/// A proxy-TON asset is TON (null).
fn ton_if_pton(asset: Option<Address>) -> Option<Address> {
    asset.filter(|a| !jetton::is_pton(a))
}

/// `ton_transfer#01f3835d query_id ton_amount:Coins refund_address
/// forward_payload:(Maybe ^Cell)`: the amount and the payload (the rest of
/// the cell when the bit is 0 but a reference is left).
fn pton_ton_transfer(g: &Graph<'_>, b: BlockId) -> Option<(u128, Option<tycho_types::cell::Cell>)> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    msg_address(&mut s)?;
    let payload = match s.load_bit() {
        Ok(true) => s.load_reference_cloned().ok(),
        _ if s.size_refs() > 0 => s.load_reference_cloned().ok(),
        _ => None,
    };
    Some((amount, payload))
}

/// TON into a router through its proxy-TON wallet: the wallet's
/// `ton_transfer` and its notification (`prev`) to the router, which sent
/// `swap`. The leg, and the payload the sender attached.
fn pton_incoming(
    g: &Graph<'_>,
    prev: BlockId,
    swap: BlockId,
    members: &mut Vec<BlockId>,
) -> Option<(Leg, Option<tycho_types::cell::Cell>)> {
    let call = g
        .block(prev)
        .prev
        .filter(|&c| g.call_op(c) == Some(OP_PTON_TON_TRANSFER))?;
    members.extend(g.with_change(prev));
    members.extend(g.with_change(call));
    let (amount, payload) = pton_ton_transfer(g, call)?;
    let leg = Leg {
        asset: None,
        amount,
        source: g.msg(call)?.source,
        source_wallet: None,
        destination: g.msg(swap)?.source,
        destination_wallet: g.msg(call)?.destination,
    };
    Some((leg, payload))
}

/// `pay_to#a1daa96d query_id reciever0 reciever1 exit_code:uint32
/// seqno:uint64 coinsinfo:(Maybe ^[amount0 jetton0 amount1 jetton1])`.
pub(crate) struct ToncoPayTo {
    pub receivers: [Option<Address>; 2],
    pub exit_code: u32,
    pub sides: Option<[(u128, Option<Address>); 2]>,
}

/// A TONCO router pay-to's fields.
pub(crate) fn tonco_pay_to_info(g: &Graph<'_>, b: BlockId) -> Option<ToncoPayTo> {
    tonco_pay_to(g, b)
}

/// The TON a proxy-TON wallet's `ton_transfer` pays.
pub(crate) fn pton_ton_amount(g: &Graph<'_>, b: BlockId) -> Option<u128> {
    pton_ton_transfer(g, b).map(|(amount, _)| amount)
}

fn tonco_pay_to(g: &Graph<'_>, b: BlockId) -> Option<ToncoPayTo> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let r0 = msg_address(&mut s)?;
    let r1 = msg_address(&mut s)?;
    let exit_code = s.load_u32().ok()?;
    s.load_u64().ok()?;
    let sides = match body::maybe_ref(&mut s)? {
        Some(c) => {
            let mut c = c.as_slice().ok()?;
            let a0 = coins(&mut c)?;
            let j0 = msg_address(&mut c)?;
            let a1 = coins(&mut c)?;
            let j1 = msg_address(&mut c)?;
            Some([(a0, j0), (a1, j1)])
        }
        None => None,
    };
    Some(ToncoPayTo {
        receivers: [r0, r1],
        exit_code,
        sides,
    })
}

/// The larger side a pool paid.
fn larger(sides: &[(u128, Option<Address>); 2]) -> (u128, Option<Address>) {
    if sides[0].0 >= sides[1].0 {
        sides[0]
    } else {
        sides[1]
    }
}

/// TONCO: the transfer into the router (Jettons, or TON through its
/// proxy-TON wallet), the pool's swap and pay-to, hops through further
/// pools, the transfer out.
pub(crate) fn tonco(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_TONCO_SWAP) {
        return None;
    }
    let prev = g.block(b).prev?;
    let mut members = vec![b];
    // The incoming leg.
    let (incoming, pton_payload) = if g.kind(prev) == "jetton_transfer" {
        members.push(prev);
        let t = g.block(prev);
        let leg = Leg {
            asset: ton_if_pton(t.cols.asset),
            ..Leg::of(t)?
        };
        (leg, None)
    } else if g.call_op(prev) == Some(jetton::OP_TRANSFER_NOTIFICATION) {
        pton_incoming(g, prev, b, &mut members)?
    } else {
        return None;
    };
    let chain = tonco_chain(g, b, &mut members)?;
    let out = g.block(chain.out_transfer);
    let outgoing = Leg {
        asset: ton_if_pton(out.cols.asset),
        ..Leg::of(out)?
    };
    let parsed: Vec<ToncoPayTo> = chain
        .pays
        .iter()
        .map(|&p| tonco_pay_to(g, p))
        .collect::<Option<_>>()?;
    let success = parsed.iter().all(tonco_ok);
    let out_wallets = [out.cols.source_secondary, out.cols.destination_secondary];
    let hops = tonco_hops(
        g,
        &chain.swaps,
        &parsed,
        out_wallets,
        &incoming,
        &outgoing,
        interfaces,
    );
    // What was asked for: on success what came out; on failure the target
    // of the proxy-TON payload.
    let requested = if success {
        None
    } else {
        tonco_requested(pton_payload).map(|(wallet, min)| {
            let asset = wallet
                .and_then(|w| interfaces.jetton_wallet(&w))
                .and_then(|j| ton_if_pton(Some(j.jetton)));
            (asset, Some(min))
        })
    };
    let (destination_asset, min_out) = requested.unwrap_or((outgoing.asset, Some(outgoing.amount)));
    let swap = Swap {
        dex: "tonco",
        incoming,
        outgoing,
        destination_asset,
        destination_wallet: None,
        min_out,
        hops,
    };
    Some(swap.block(members, !success))
}

/// A pay-to that reports success (exit code 0 or 200).
fn tonco_ok(p: &ToncoPayTo) -> bool {
    matches!(p.exit_code, 0 | 200)
}

/// The blocks of a TONCO swap after its first pool's swap call.
struct ToncoChain {
    /// Each pool's swap call, the first one included.
    swaps: Vec<BlockId>,
    /// Each pool's pay-to, one per swap.
    pays: Vec<BlockId>,
    /// The Jetton transfer out to the receiver.
    out_transfer: BlockId,
}

/// Follows a TONCO swap hop by hop from its first swap call `b`: each
/// pool's pay-to, the transfer it makes, and either the next pool's swap
/// (through the router's proxy-TON wallet or straight) or the transfer out.
/// None unless every swap has its pay-to and the chain ends in a transfer
/// out.
fn tonco_chain(g: &Graph<'_>, b: BlockId, members: &mut Vec<BlockId>) -> Option<ToncoChain> {
    let mut swaps = vec![b];
    let mut pays = Vec::new();
    let mut out_transfer = None;
    let mut at = b;
    for _ in 0..16 {
        let Some(pay) = g.next_call(at, OP_TONCO_PAY_TO) else {
            break;
        };
        members.extend(g.with_change(pay));
        pays.push(pay);
        let Some(t) = g.next_kind(pay, "jetton_transfer", &[]) else {
            break;
        };
        members.extend(g.with_change(t));
        // Through the router's proxy-TON wallet to the next pool …
        let via_pton = g.next_call(t, OP_PTON_TON_TRANSFER).and_then(|c| {
            let n = g.next_call(c, jetton::OP_TRANSFER_NOTIFICATION)?;
            let s = g.next_call(n, OP_TONCO_SWAP)?;
            Some((vec![c, n], s))
        });
        // … or straight to it, or out to the receiver.
        let next = via_pton.or_else(|| Some((Vec::new(), g.next_call(t, OP_TONCO_SWAP)?)));
        match next {
            Some((steps, s)) => {
                for x in steps {
                    members.extend(g.with_change(x));
                }
                members.extend(g.with_change(s));
                swaps.push(s);
                at = s;
            }
            None => {
                if let Some(c) = g.next_call(t, OP_PTON_TON_TRANSFER) {
                    members.extend(g.with_change(c));
                }
                out_transfer = Some(t);
                break;
            }
        }
    }
    if swaps.len() != pays.len() {
        return None;
    }
    Some(ToncoChain {
        swaps,
        pays,
        out_transfer: out_transfer?,
    })
}

/// The hops of a multi-pool TONCO swap: each pool's larger paid side,
/// its asset found from the wallet the router used for it (named in the
/// swap calls, or `out_wallets`, the transfer out's). Empty for one pool.
fn tonco_hops(
    g: &Graph<'_>,
    swaps: &[BlockId],
    parsed: &[ToncoPayTo],
    out_wallets: [Option<Address>; 2],
    incoming: &Leg,
    outgoing: &Leg,
    interfaces: &dyn Interfaces,
) -> Vec<Hop> {
    let mut hops = Vec::new();
    if swaps.len() <= 1 {
        return hops;
    }
    // The asset of each wallet the router used, for the hops.
    let mut wallets: Vec<(Address, Option<Address>)> = Vec::new();
    for &s in swaps {
        let Some(mut body) = g.body(s).and_then(body::after_op) else {
            continue;
        };
        let wallet = (|| {
            body.load_u64().ok()?;
            msg_address(&mut body)?;
            msg_address(&mut body)?
        })();
        if let Some(w) = wallet {
            if let Some(j) = interfaces.jetton_wallet(&w) {
                wallets.push((w, ton_if_pton(Some(j.jetton))));
            }
        }
    }
    for w in out_wallets.into_iter().flatten() {
        wallets.push((w, outgoing.asset));
    }
    let asset_of = |w: Option<Address>| -> Option<Option<Address>> {
        let w = w?;
        wallets.iter().find(|(x, _)| *x == w).map(|(_, a)| *a)
    };
    let Some((amt, wallet)) = parsed[0].sides.as_ref().map(larger) else {
        return hops;
    };
    let Some(asset) = asset_of(wallet) else {
        return hops;
    };
    hops.push(Hop {
        asset_in: incoming.asset,
        amount_in: incoming.amount,
        asset_out: asset,
        amount_out: amt,
    });
    if tonco_ok(&parsed[0]) {
        for p in parsed[1..].iter().filter(|p| tonco_ok(p)) {
            let Some((amt, wallet)) = p.sides.as_ref().map(larger) else {
                continue;
            };
            let last = hops.last().map(|h| (h.asset_out, h.amount_out));
            let (asset_in, amount_in) = last.unwrap_or((None, 0));
            hops.push(Hop {
                asset_in,
                amount_in,
                asset_out: asset_of(wallet).flatten(),
                amount_out: amt,
            });
        }
    }
    hops
}

/// The innermost target a failed swap's proxy-TON payload named, with its
/// minimum out (`#a7fb58f8 target_wallet price_limit min_out recipient
/// payload`, nested per hop): the wallet it wanted to receive on.
fn tonco_requested(payload: Option<tycho_types::cell::Cell>) -> Option<(Option<Address>, u128)> {
    let mut target = None;
    let mut cell = payload;
    for _ in 0..8 {
        let Some(c) = cell.take() else { break };
        let Some(mut s) = c.as_slice().ok() else {
            break;
        };
        if s.load_u32().ok() != Some(OP_TONCO_SWAP) {
            break;
        }
        let read = (|| {
            let wallet = msg_address(&mut s)?;
            s.skip_first(160, 0).ok()?;
            let min_out = coins(&mut s)?;
            msg_address(&mut s)?;
            Some((wallet, min_out, body::maybe_ref(&mut s).flatten()))
        })();
        let Some((wallet, min, next)) = read else {
            break;
        };
        target = Some((wallet, min));
        cell = next;
    }
    target
}

pub(crate) const OP_COFFEE_SWAP_NATIVE: u32 = 0xc0ff_ee00;
const OP_COFFEE_SWAP_INTERNAL: u32 = 0xc0ff_ee20;
pub(crate) const OP_COFFEE_PAYOUT_INTERNAL: u32 = 0xc0ff_ee21;
const OP_COFFEE_SWAP_EVENT: u32 = 0xc0ff_ee30;
pub(crate) const OP_COFFEE_PAYOUT: u32 = 0xc0ff_ee32;
pub(crate) const OP_COFFEE_NOTIFICATION: u32 = 0xc0ff_ee36;

/// The opcodes whose bodies the Coffee matchers read.
pub(crate) const COFFEE_BODY_OPS: &[u32] = &[
    OP_COFFEE_SWAP_NATIVE,
    OP_COFFEE_PAYOUT_INTERNAL,
    OP_COFFEE_SWAP_EVENT,
];

/// A Coffee `Asset`: `native$00`, `jetton$01 chain:uint8 hash:uint256`
/// (an extra currency is not read).
pub(crate) fn coffee_asset(s: &mut tycho_types::cell::CellSlice<'_>) -> Option<Option<Address>> {
    match s.load_small_uint(2).ok()? {
        0b00 => Some(None),
        0b01 => {
            let workchain = s.load_u8().ok()? as i8;
            let id = s.load_u256().ok()?;
            Some(Some(Address {
                workchain: i32::from(workchain),
                id: *id.as_array(),
            }))
        }
        _ => None,
    }
}

/// The incoming leg of a Coffee flow: a Jetton transfer to a vault, or a
/// native message to the TON vault (`#op query_id amount:Coins …`).
pub(crate) fn coffee_incoming(g: &Graph<'_>, b: BlockId, native_op: u32) -> Option<Leg> {
    if g.kind(b) == "jetton_transfer" {
        let t = g.block(b);
        return Leg::of(t);
    }
    if g.call_op(b) != Some(native_op) {
        return None;
    }
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    let m = g.msg(b)?;
    Some(Leg {
        asset: None,
        amount,
        source: m.source,
        destination: m.destination,
        ..Leg::default()
    })
}

/// A Coffee payout: `payout_internal` (pool → vault) and what the vault
/// sends: a Jetton transfer, a TON payout or a notification.
pub(crate) fn coffee_payout(
    g: &Graph<'_>,
    payout: BlockId,
    members: &mut Vec<BlockId>,
) -> Option<Leg> {
    members.extend(g.with_change(payout));
    if let Some(t) = g.next_kind(payout, "jetton_transfer", &[]) {
        members.extend(g.with_change(t));
        let t = g.block(t);
        return Leg::of(t);
    }
    if let Some(p) = g.next_call(payout, OP_COFFEE_PAYOUT) {
        members.extend(g.with_change(p));
        // payout_internal#c0ffee21 query_id recipient amount …
        let mut s = body::after_op(g.body(payout)?)?;
        s.load_u64().ok()?;
        let recipient = msg_address(&mut s)?;
        let amount = coins(&mut s)?;
        return Some(Leg {
            asset: None,
            amount,
            source: g.msg(payout)?.source,
            destination: recipient,
            ..Leg::default()
        });
    }
    let n = g.next_call(payout, OP_COFFEE_NOTIFICATION)?;
    members.extend(g.with_change(n));
    let m = g.msg(n)?;
    Some(Leg {
        asset: None,
        amount: m.value,
        source: m.source,
        destination: m.destination,
        ..Leg::default()
    })
}

/// `swap_successful_event#c0ffee30 query_id input:Asset input_amount
/// output_amount …`.
fn coffee_event(g: &Graph<'_>, b: BlockId) -> Option<(Option<Address>, u128, u128)> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let asset = coffee_asset(&mut s)?;
    let amount_in = coins(&mut s)?;
    let amount_out = coins(&mut s)?;
    Some((asset, amount_in, amount_out))
}

/// Coffee: the transfer into a vault, the vault's swap at the pool (and
/// further pools), each with its success event, and the payout.
pub(crate) fn coffee(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_COFFEE_SWAP_INTERNAL) {
        return None;
    }
    let prev = g.block(b).prev?;
    let incoming = coffee_incoming(g, prev, OP_COFFEE_SWAP_NATIVE)?;
    let mut members = g.with_change(prev);
    members.push(b);
    let mut events = Vec::new();
    let mut at = b;
    let outgoing = loop {
        let event = g.next_call(at, OP_COFFEE_SWAP_EVENT)?;
        members.push(event);
        events.push(coffee_event(g, event)?);
        if let Some(payout) = g.next_call(at, OP_COFFEE_PAYOUT_INTERNAL) {
            break coffee_payout(g, payout, &mut members)?;
        }
        let hop = g.next_call(at, OP_COFFEE_SWAP_INTERNAL)?;
        members.extend(g.with_change(hop));
        at = hop;
        if events.len() > 16 {
            return None;
        }
    };
    let hops = events
        .iter()
        .enumerate()
        .map(|(i, &(asset_in, amount_in, amount_out))| Hop {
            asset_in,
            amount_in,
            asset_out: events.get(i + 1).map_or(outgoing.asset, |e| e.0),
            amount_out,
        })
        .collect();
    let swap = Swap {
        dex: "coffee",
        incoming,
        destination_asset: outgoing.asset,
        outgoing,
        destination_wallet: None,
        min_out: None,
        hops,
    };
    Some(swap.block(members, false))
}

const OP_DEDUST_SWAP_NATIVE: u32 = 0xea06_185d;
const OP_DEDUST_SWAP_EXTERNAL: u32 = 0x61ee_542d;
const OP_DEDUST_SWAP_PEER: u32 = 0x72ac_a8aa;
const OP_DEDUST_PAYOUT_FROM_POOL: u32 = 0xad4e_b6f5;
const OP_DEDUST_PAYOUT: u32 = 0x474f_86cf;
const OP_DEDUST_SWAP_EVENT: u32 = 0x9c61_0de3;
const OP_DEDUST_SWAP_PAYLOAD: u32 = 0xe3a0_d482;

/// The opcodes whose bodies the DeDust matcher reads.
pub(crate) const DEDUST_BODY_OPS: &[u32] = &[
    OP_DEDUST_SWAP_NATIVE,
    OP_DEDUST_PAYOUT_FROM_POOL,
    OP_DEDUST_SWAP_EVENT,
];

/// A DeDust `Asset`: `native$0000`, `jetton$0001 workchain:int8
/// address:uint256` (other kinds read as a Jetton address too).
pub(crate) fn dedust_asset(s: &mut tycho_types::cell::CellSlice<'_>) -> Option<Option<Address>> {
    if s.load_small_uint(4).ok()? == 0 {
        return Some(None);
    }
    let workchain = s.load_u8().ok()? as i8;
    let id = s.load_u256().ok()?;
    Some(Some(Address {
        workchain: i32::from(workchain),
        id: *id.as_array(),
    }))
}

/// `SwapStep pool_addr kind:bit limit:Coins next:(Maybe ^SwapStep)`: the
/// pools of the route.
fn dedust_route(s: &mut tycho_types::cell::CellSlice<'_>) -> Option<Vec<Address>> {
    let mut pools = Vec::new();
    let mut pool = msg_address(s)??;
    s.load_bit().ok()?;
    coins(s)?;
    let mut next = body::maybe_ref(s)?;
    pools.push(pool);
    while let Some(cell) = next.take() {
        if pools.len() > 16 {
            return None;
        }
        let mut c = cell.as_slice().ok()?;
        pool = msg_address(&mut c)??;
        c.load_bit().ok()?;
        coins(&mut c)?;
        next = body::maybe_ref(&mut c)?;
        pools.push(pool);
    }
    Some(pools)
}

/// DeDust: the transfer into a vault (Jettons with a swap payload, or TON
/// with a native swap), the vault's swap at the first pool, swaps on to
/// further pools, each with its event, and the payout from the last.
pub(crate) fn dedust(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_DEDUST_SWAP_EXTERNAL) {
        return None;
    }
    let prev = g.block(b).prev?;
    let (mut incoming, route) = if g.kind(prev) == "jetton_transfer" {
        let transfer = g.part(prev, jetton::OP_TRANSFER)?;
        let parsed = jetton::transfer_body(g.body(transfer)?)?;
        let mut p = parsed.forward_payload.as_ref()?.as_slice().ok()?;
        if p.load_u32().ok()? != OP_DEDUST_SWAP_PAYLOAD {
            return None;
        }
        let t = g.block(prev);
        let leg = Leg::of(t)?;
        (leg, dedust_route(&mut p))
    } else if g.call_op(prev) == Some(OP_DEDUST_SWAP_NATIVE) {
        let mut s = body::after_op(g.body(prev)?)?;
        s.load_u64().ok()?;
        let amount = coins(&mut s)?;
        let m = g.msg(prev)?;
        let leg = Leg {
            asset: None,
            amount,
            source: m.source,
            destination: m.destination,
            ..Leg::default()
        };
        (leg, dedust_route(&mut s))
    } else {
        return None;
    };
    let mut members = g.with_change(prev);
    members.push(b);
    let mut events = Vec::new();
    let mut failed = false;
    let mut at = b;
    let payout = loop {
        match g.next_call(at, OP_DEDUST_SWAP_EVENT) {
            Some(e) => {
                members.push(e);
                let lt = g.msg(e).and_then(|m| m.created_lt).unwrap_or(0);
                events.push((lt, e));
            }
            None => failed = true,
        }
        if let Some(p) = g.next_call(at, OP_DEDUST_PAYOUT_FROM_POOL) {
            break p;
        }
        let hop = g
            .next_call(at, OP_DEDUST_SWAP_PEER)
            .or_else(|| g.next_call(at, OP_DEDUST_SWAP_EXTERNAL))?;
        members.extend(g.with_change(hop));
        at = hop;
        if members.len() > 256 {
            return None;
        }
    };
    members.extend(g.with_change(payout));
    let mut ps = body::after_op(g.body(payout)?)?;
    ps.load_u64().ok()?;
    ps.load_reference().ok()?;
    let paid = coins(&mut ps)?;
    let mut outgoing = if let Some(t) = g.next_kind(payout, "jetton_transfer", &[]) {
        members.extend(g.with_change(t));
        let t = g.block(t);
        Leg {
            amount: paid,
            ..Leg::of(t)?
        }
    } else {
        let n = g.next_call(payout, OP_DEDUST_PAYOUT)?;
        members.extend(g.with_change(n));
        let m = g.msg(n)?;
        Leg {
            asset: None,
            amount: paid,
            source: m.source,
            destination: m.destination,
            ..Leg::default()
        }
    };
    // swap_event#9c610de3 asset_in asset_out amount_in amount_out …
    events.sort_by_key(|e| e.0);
    let mut hops = Vec::new();
    for &(_, e) in &events {
        let mut s = body::after_op(g.body(e)?)?;
        let asset_in = dedust_asset(&mut s)?;
        let asset_out = dedust_asset(&mut s)?;
        let amount_in = coins(&mut s)?;
        let amount_out = coins(&mut s)?;
        hops.push(Hop {
            asset_in,
            amount_in,
            asset_out,
            amount_out,
        });
    }
    if let (Some(first), Some(last)) = (hops.first(), hops.last()) {
        incoming.asset = first.asset_in;
        incoming.amount = first.amount_in;
        outgoing.asset = last.asset_out;
        outgoing.amount = last.amount_out;
    }
    // What was asked for: the route's last asset, pool by pool. Where the
    // index does not know a pool's assets, a swap that went through says
    // it itself: the last swap event's asset out.
    let by_pools = |route: Vec<Address>| -> Option<Option<Address>> {
        let mut asked = incoming.asset;
        for pool in route {
            let assets = interfaces.dedust_pool(&pool)?;
            asked = if assets[0] == asked {
                assets[1]
            } else {
                assets[0]
            };
        }
        Some(asked)
    };
    let asked = match by_pools(route?) {
        Some(asked) => asked,
        None if !failed && !hops.is_empty() => outgoing.asset,
        None => return None,
    };
    let swap = Swap {
        dex: "dedust",
        incoming,
        outgoing,
        destination_asset: asked,
        destination_wallet: None,
        min_out: None,
        hops,
    };
    Some(swap.block(members, failed))
}

const OP_STONFI_V2_SWAP: u32 = 0x6664_de2a;
const OP_STONFI_V2_PAY_TO: u32 = 0x657b_54f5;

/// The opcodes whose bodies the STON.fi v2 matcher reads.
pub(crate) const STONFI_V2_BODY_OPS: &[u32] = &[OP_STONFI_V2_SWAP, OP_STONFI_V2_PAY_TO];

/// `pay_to#657b54f5 query_id to excesses original_caller exit_code:uint32
/// custom_payload:(Maybe ^Cell) ^[fwd_ton amount0 token0 amount1 token1]`:
/// the exit code and the larger side paid.
fn stonfi_v2_pay_to(g: &Graph<'_>, b: BlockId) -> Option<(u32, u128, Option<Address>)> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    for _ in 0..3 {
        msg_address(&mut s)?;
    }
    let exit = s.load_u32().ok()?;
    body::maybe_ref(&mut s)?;
    let r = s.load_reference_cloned().ok()?;
    let mut r = r.as_slice().ok()?;
    coins(&mut r)?;
    let a0 = coins(&mut r)?;
    let t0 = msg_address(&mut r)?;
    let a1 = coins(&mut r)?;
    let t1 = msg_address(&mut r)?;
    let (amount, token) = if a0 >= a1 { (a0, t0) } else { (a1, t1) };
    Some((exit, amount, token))
}

/// STON.fi v2: the transfer into the router (Jettons, or TON through its
/// proxy-TON wallet), each pool's swap and pay-to, hops on to further
/// pools, the transfer out (Jettons, or TON through the proxy-TON wallet).
pub(crate) fn stonfi_v2(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_STONFI_V2_SWAP) {
        return None;
    }
    let prev = g.block(b).prev?;
    let mut members = vec![b];
    let incoming = if g.kind(prev) == "jetton_transfer" {
        members.push(prev);
        let t = g.block(prev);
        Leg {
            asset: ton_if_pton(t.cols.asset),
            ..Leg::of(t)?
        }
    } else if g.call_op(prev) == Some(jetton::OP_TRANSFER_NOTIFICATION) {
        pton_incoming(g, prev, b, &mut members)?.0
    } else {
        return None;
    };
    let mut pays = Vec::new();
    let mut out = None;
    let mut at = b;
    for _ in 0..16 {
        let pay = g.next_call(at, OP_STONFI_V2_PAY_TO)?;
        members.extend(g.with_change(pay));
        pays.push(stonfi_v2_pay_to(g, pay)?);
        if let Some(hop) = g.next_call(pay, OP_STONFI_V2_SWAP) {
            members.extend(g.with_change(hop));
            at = hop;
            continue;
        }
        let t = g.next_kind(pay, "jetton_transfer", &[])?;
        members.extend(g.with_change(t));
        // Through the proxy-TON wallet to the next pool …
        let via = g.next_call(t, OP_PTON_TON_TRANSFER).and_then(|c| {
            let n = g.next_call(c, jetton::OP_TRANSFER_NOTIFICATION)?;
            Some((c, n, g.next_call(n, OP_STONFI_V2_SWAP)?))
        });
        if let Some((c, n, hop)) = via {
            for x in [c, n, hop] {
                members.extend(g.with_change(x));
            }
            at = hop;
            continue;
        }
        if let Some(hop) = g.next_call(t, OP_STONFI_V2_SWAP) {
            members.extend(g.with_change(hop));
            at = hop;
            continue;
        }
        out = Some(t);
        break;
    }
    let t = out?;
    let tb = g.block(t);
    let outgoing = match g.next_call(t, OP_PTON_TON_TRANSFER) {
        Some(c) => {
            members.extend(g.with_change(c));
            Leg {
                asset: None,
                amount: pton_ton_transfer(g, c)?.0,
                source: tb.cols.source,
                source_wallet: tb.cols.source_secondary,
                destination: g.msg(c)?.destination,
                destination_wallet: None,
            }
        }
        _ if has_internal(g, t) => Leg {
            asset: ton_if_pton(tb.cols.asset),
            ..Leg::of(tb)?
        },
        _ => return None,
    };
    let success = pays.iter().all(|p| p.0 == STONFI_OK);
    let mut hops = Vec::new();
    if pays.len() > 1 {
        let mut last = (incoming.asset, incoming.amount);
        for p in &pays {
            if p.0 != STONFI_OK {
                break;
            }
            let asset = ton_if_pton(jetton_of(interfaces, p.2));
            hops.push(Hop {
                asset_in: last.0,
                amount_in: last.1,
                asset_out: asset,
                amount_out: p.1,
            });
            last = (asset, p.1);
        }
    }
    let swap = Swap {
        dex: "stonfi_v2",
        incoming,
        destination_asset: outgoing.asset,
        outgoing,
        destination_wallet: None,
        min_out: None,
        hops,
    };
    Some(swap.block(members, !success))
}
