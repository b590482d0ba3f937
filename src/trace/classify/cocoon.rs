//! Cocoon (confidential compute network): payouts to workers and proxies,
//! charges and refunds of clients, proxy registration, client stakes. Each
//! action is a start message, the proxy request it causes and the payout
//! or returned excesses that answer it, known by opcode and shape.

use crate::trace::action_data::{
    ActionData, Cocoon, CocoonClientRegister, CocoonIncreaseStake, CocoonQuery,
    CocoonRequestRefund, CocoonSecretHash, CocoonTokensUsed, CocoonUnregisterProxy, CocoonWithdraw,
    CocoonWorkerPayout,
};
use tonindex_model::Address;
use tycho_types::cell::CellSlice;

use super::body::{self, any_address, coins, hex_int, AnyAddress};
use super::{Block, BlockId, Cols, Graph, Interfaces};

const OP_RETURN_EXCESSES_BACK: u32 = 0x2565_934c;
const OP_PAYOUT: u32 = 0xc59a_7cd3;
const OP_WORKER_PROXY_REQUEST: u32 = 0x4d72_5d2c;
const OP_CLIENT_PROXY_REQUEST: u32 = 0x6544_8ff4;
const OP_REFUND_GRANTED: u32 = 0xc68e_bc7b;
const OP_PAYOUT_PAYLOAD: u32 = 0xa040_ad28;
const OP_LAST_PAYOUT_PAYLOAD: u32 = 0xf5f2_6a36;
const OP_CHARGE_PAYLOAD: u32 = 0xbb63_ff93;
const OP_GRANT_REFUND_PAYLOAD: u32 = 0xefd7_11e1;
const OP_EXT_PROXY_PAYOUT_REQUEST: u32 = 0x7610_e6eb;
const OP_EXT_CLIENT_TOP_UP: u32 = 0xf172_e6c2;
const OP_REGISTER_PROXY: u32 = 0x927c_7cb5;
const OP_UNREGISTER_PROXY: u32 = 0x6d49_eaf2;
const OP_CLIENT_REGISTER: u32 = 0xc45f_9f3b;
const OP_CLIENT_CHANGE_SECRET_HASH: u32 = 0xa935_7034;
const OP_CLIENT_REQUEST_REFUND: u32 = 0xfafa_6cc1;
const OP_WALLET_SEND_MESSAGE: u32 = 0x9c69_f376;
const OP_CLIENT_INCREASE_STAKE: u32 = 0x6a1f_6a60;
const OP_CLIENT_WITHDRAW: u32 = 0xda06_8e78;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[
    OP_WORKER_PROXY_REQUEST,
    OP_CLIENT_PROXY_REQUEST,
    OP_PAYOUT_PAYLOAD,
    OP_LAST_PAYOUT_PAYLOAD,
    OP_CHARGE_PAYLOAD,
    OP_GRANT_REFUND_PAYLOAD,
    OP_EXT_PROXY_PAYOUT_REQUEST,
    OP_EXT_CLIENT_TOP_UP,
    OP_REGISTER_PROXY,
    OP_UNREGISTER_PROXY,
    OP_CLIENT_REGISTER,
    OP_CLIENT_CHANGE_SECRET_HASH,
    OP_CLIENT_REQUEST_REFUND,
    OP_CLIENT_INCREASE_STAKE,
    OP_CLIENT_WITHDRAW,
];

/// The message of `b` after its opcode.
fn body_of<'a>(g: &Graph<'a>, b: BlockId) -> Option<CellSlice<'a>> {
    body::after_op(g.body(b)?)
}

/// An owner or excesses address: a standard one (an external one fails
/// the match).
fn owner(s: &mut CellSlice<'_>) -> Option<Option<Address>> {
    match any_address(s)? {
        AnyAddress::None => Some(None),
        AnyAddress::Std(a) => Some(Some(a)),
        AnyAddress::Extern(_) => None,
    }
}

/// Whether the transaction of `b` aborted.
fn aborted(g: &Graph<'_>, b: BlockId) -> bool {
    g.tx(b).is_some_and(|t| t.aborted)
}

fn src(g: &Graph<'_>, b: BlockId) -> Option<Address> {
    g.msg(b)?.source
}

fn dst(g: &Graph<'_>, b: BlockId) -> Option<Address> {
    g.msg(b)?.destination
}

/// A nested step with the change under it.
fn step(g: &Graph<'_>, members: &mut Vec<BlockId>, b: BlockId) {
    members.extend(g.with_change(b));
}

fn action(
    kind: &'static str,
    members: Vec<BlockId>,
    failed: bool,
    cols: Cols,
    data: Cocoon,
) -> Block {
    let mut blk = Block::of(kind, members, failed, cols);
    blk.data = ActionData::Cocoon(data);
    blk
}

/// `payout_payload` (regular or last) → worker proxy request → payout.
pub(crate) fn worker_payout(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let payout_type = match g.call_op(b)? {
        OP_PAYOUT_PAYLOAD => "regular",
        OP_LAST_PAYOUT_PAYLOAD => "last",
        _ => return None,
    };
    let request = g.next_call(b, OP_WORKER_PROXY_REQUEST)?;
    let payout = g.next_call(request, OP_PAYOUT)?;
    let mut members = vec![b];
    step(g, &mut members, request);
    step(g, &mut members, payout);
    if let Some(x) = g.next_call(request, OP_RETURN_EXCESSES_BACK) {
        step(g, &mut members, x);
    }
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?;
    let new_tokens = s.load_u64().ok()?;
    let mut r = body_of(g, request)?;
    r.load_u64().ok()?;
    let worker_owner = owner(&mut r)?;
    let state = r.load_small_uint(2).ok()?;
    let tokens = r.load_u64().ok()?;
    let cols = Cols {
        source: src(g, b),
        source_secondary: dst(g, b),
        destination: worker_owner,
        amount: g.msg(payout).map(|m| m.value),
        ..Cols::default()
    };
    let d = Cocoon::WorkerPayout(CocoonWorkerPayout {
        new_tokens: new_tokens.to_string(),
        payout_type: payout_type.into(),
        query_id: query_id.to_string(),
        worker_state: state,
        worker_tokens: tokens.to_string(),
    });
    let failed = aborted(g, payout);
    Some(action("cocoon_worker_payout", members, failed, cols, d))
}

/// A proxy's payout request → payout to its owner and the excesses back.
pub(crate) fn proxy_payout(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b)? != OP_EXT_PROXY_PAYOUT_REQUEST {
        return None;
    }
    let payout = g.next_call(b, OP_PAYOUT)?;
    let back = g.next_call(b, OP_RETURN_EXCESSES_BACK)?;
    let mut members = vec![b];
    step(g, &mut members, payout);
    step(g, &mut members, back);
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?;
    let excesses_to = owner(&mut s)?;
    let cols = Cols {
        source: dst(g, b),
        destination: dst(g, payout),
        destination_secondary: excesses_to,
        ..Cols::default()
    };
    let d = Cocoon::Query(CocoonQuery {
        query_id: query_id.to_string(),
    });
    let failed = aborted(g, payout);
    Some(action("cocoon_proxy_payout", members, failed, cols, d))
}

/// `query_id new_tokens_used expected_address` of a charge or refund payload.
fn tokens_used(g: &Graph<'_>, b: BlockId) -> Option<Cocoon> {
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?;
    let used = s.load_u64().ok()?;
    let expected = any_address(&mut s)?;
    Some(Cocoon::TokensUsed(CocoonTokensUsed {
        expected_address: expected.text(),
        new_tokens_used: used.to_string(),
        query_id: query_id.to_string(),
    }))
}

/// A proxy charges a client: excesses back and the client proxy request.
pub(crate) fn proxy_charge(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b)? != OP_CHARGE_PAYLOAD {
        return None;
    }
    let back = g.next_call(b, OP_RETURN_EXCESSES_BACK)?;
    let request = g.next_call(b, OP_CLIENT_PROXY_REQUEST)?;
    let mut members = vec![b];
    step(g, &mut members, back);
    step(g, &mut members, request);
    let d = tokens_used(g, b)?;
    let cols = Cols {
        source: dst(g, b),
        destination: dst(g, request),
        amount: Some(0),
        ..Cols::default()
    };
    let failed = aborted(g, b);
    Some(action("cocoon_proxy_charge", members, failed, cols, d))
}

/// A client tops up: the client proxy request, then excesses back.
pub(crate) fn client_top_up(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b)? != OP_EXT_CLIENT_TOP_UP {
        return None;
    }
    let request = g.next_call(b, OP_CLIENT_PROXY_REQUEST)?;
    let back = g.next_call(request, OP_RETURN_EXCESSES_BACK)?;
    let mut members = vec![b];
    step(g, &mut members, request);
    step(g, &mut members, back);
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    let excesses_to = owner(&mut s)?;
    let cols = Cols {
        source: excesses_to,
        destination: dst(g, b),
        destination_secondary: dst(g, request),
        amount: Some(amount),
        ..Cols::default()
    };
    let d = Cocoon::Query(CocoonQuery {
        query_id: query_id.to_string(),
    });
    let failed = aborted(g, b);
    Some(action("cocoon_client_top_up", members, failed, cols, d))
}

/// A start message answered by excesses back, with the fields `read`
/// takes from its body.
fn answered(
    g: &Graph<'_>,
    b: BlockId,
    op: u32,
    kind: &'static str,
    read: fn(&mut CellSlice<'_>, String) -> Option<Cocoon>,
) -> Option<Block> {
    if g.call_op(b)? != op {
        return None;
    }
    let back = g.next_call(b, OP_RETURN_EXCESSES_BACK)?;
    let mut members = vec![b];
    step(g, &mut members, back);
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?.to_string();
    let d = read(&mut s, query_id)?;
    let cols = Cols {
        destination: dst(g, b),
        ..Cols::default()
    };
    let failed = aborted(g, b);
    Some(action(kind, members, failed, cols, d))
}

pub(crate) fn register_proxy(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    answered(
        g,
        b,
        OP_REGISTER_PROXY,
        "cocoon_register_proxy",
        |_, query_id| Some(Cocoon::Query(CocoonQuery { query_id })),
    )
}

pub(crate) fn unregister_proxy(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    answered(
        g,
        b,
        OP_UNREGISTER_PROXY,
        "cocoon_unregister_proxy",
        |s, query_id| {
            Some(Cocoon::UnregisterProxy(CocoonUnregisterProxy {
                query_id,
                seqno: s.load_u32().ok()?,
            }))
        },
    )
}

/// An owner's request to a client contract: excesses back and the client
/// proxy request; `read` takes the fields between `query_id` and the
/// excesses address.
fn owner_request(
    g: &Graph<'_>,
    b: BlockId,
    op: u32,
    kind: &'static str,
    read: fn(&mut CellSlice<'_>, String, &mut Cols) -> Option<Cocoon>,
) -> Option<(Block, BlockId)> {
    if g.call_op(b)? != op {
        return None;
    }
    let back = g.next_call(b, OP_RETURN_EXCESSES_BACK)?;
    let request = g.next_call(b, OP_CLIENT_PROXY_REQUEST)?;
    let mut members = vec![b];
    step(g, &mut members, back);
    step(g, &mut members, request);
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?.to_string();
    let mut cols = Cols {
        destination: dst(g, b),
        ..Cols::default()
    };
    let d = read(&mut s, query_id, &mut cols)?;
    cols.source = owner(&mut s)?;
    let failed = aborted(g, b);
    Some((action(kind, members, failed, cols, d), request))
}

pub(crate) fn client_register(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    owner_request(
        g,
        b,
        OP_CLIENT_REGISTER,
        "cocoon_client_register",
        |s, query_id, _| {
            Some(Cocoon::ClientRegister(CocoonClientRegister {
                nonce: s.load_u64().ok()?.to_string(),
                query_id,
            }))
        },
    )
    .map(|r| r.0)
}

pub(crate) fn client_change_secret_hash(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    owner_request(
        g,
        b,
        OP_CLIENT_CHANGE_SECRET_HASH,
        "cocoon_client_change_secret_hash",
        |s, query_id, _| {
            let h = s.load_u256().ok()?;
            Some(Cocoon::SecretHash(CocoonSecretHash {
                new_secret_hash: hex_int(h.as_array()),
                query_id,
            }))
        },
    )
    .map(|r| r.0)
}

/// A refund request, sent directly or through the owner's wallet.
pub(crate) fn client_request_refund(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    let (mut blk, _) = owner_request(
        g,
        b,
        OP_CLIENT_REQUEST_REFUND,
        "cocoon_client_request_refund",
        |_, query_id, _| {
            Some(Cocoon::RequestRefund(CocoonRequestRefund {
                query_id,
                via_wallet: false,
            }))
        },
    )?;
    let wallet = g
        .block(b)
        .prev
        .filter(|&p| g.call_op(p) == Some(OP_WALLET_SEND_MESSAGE));
    if let Some(p) = wallet {
        blk.members.push(p);
    }
    if let ActionData::Cocoon(Cocoon::RequestRefund(r)) = &mut blk.data {
        r.via_wallet = wallet.is_some();
    }
    Some(blk)
}

/// A proxy grants a client's refund: client proxy request → payout.
pub(crate) fn grant_refund(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b)? != OP_GRANT_REFUND_PAYLOAD {
        return None;
    }
    let request = g.next_call(b, OP_CLIENT_PROXY_REQUEST)?;
    let payout = g.next_call(request, OP_PAYOUT)?;
    let back = g.next_call(request, OP_RETURN_EXCESSES_BACK)?;
    let mut members = vec![b];
    step(g, &mut members, request);
    step(g, &mut members, payout);
    step(g, &mut members, back);
    let d = tokens_used(g, b)?;
    let cols = Cols {
        source: dst(g, b),
        source_secondary: dst(g, request),
        destination: dst(g, payout),
        amount: g.msg(payout).map(|m| m.value),
        ..Cols::default()
    };
    let failed = aborted(g, payout);
    Some(action("cocoon_grant_refund", members, failed, cols, d))
}

pub(crate) fn client_increase_stake(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    owner_request(
        g,
        b,
        OP_CLIENT_INCREASE_STAKE,
        "cocoon_client_increase_stake",
        |s, query_id, cols| {
            let stake = coins(s)?;
            cols.amount = Some(stake);
            Some(Cocoon::IncreaseStake(CocoonIncreaseStake {
                new_stake: stake.to_string(),
                query_id,
            }))
        },
    )
    .map(|r| r.0)
}

/// A client withdraws: client proxy request → payout; the amount is the
/// refund the request's payload grants.
pub(crate) fn client_withdraw(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b)? != OP_CLIENT_WITHDRAW {
        return None;
    }
    let request = g.next_call(b, OP_CLIENT_PROXY_REQUEST)?;
    let payout = g.next_call(request, OP_PAYOUT)?;
    let mut members = vec![b];
    step(g, &mut members, request);
    step(g, &mut members, payout);
    if let Some(x) = g.next_call(request, OP_RETURN_EXCESSES_BACK) {
        step(g, &mut members, x);
    }
    let mut s = body_of(g, b)?;
    let query_id = s.load_u64().ok()?;
    let excesses_to = owner(&mut s)?;
    let amount = refund_granted(g, request).unwrap_or(0);
    let cols = Cols {
        source: excesses_to,
        destination: dst(g, b),
        amount: Some(amount),
        ..Cols::default()
    };
    let d = Cocoon::Withdraw(CocoonWithdraw {
        query_id: query_id.to_string(),
        withdraw_amount: amount.to_string(),
    });
    let failed = aborted(g, b);
    Some(action("cocoon_client_withdraw", members, failed, cols, d))
}

/// `client_proxy_request query_id owner ^state payload:(Maybe ^Cell)`: the
/// coins of a `refund_granted` payload.
fn refund_granted(g: &Graph<'_>, request: BlockId) -> Option<u128> {
    let mut s = body_of(g, request)?;
    s.load_u64().ok()?;
    any_address(&mut s)?;
    s.load_reference().ok()?;
    let payload = body::maybe_ref(&mut s)??;
    let mut p = payload.as_slice().ok()?;
    if p.load_u32().ok()? != OP_REFUND_GRANTED {
        return None;
    }
    coins(&mut p)
}
