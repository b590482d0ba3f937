//! Liquid staking: Tonstakers (TON staked for tsTON) and Ethena (USDe
//! staked for tsUSDe), shown as spec v3 §4.5's `stake_deposit`,
//! `stake_withdrawal` and `stake_withdrawal_request` (provider
//! `liquid_staking` and `ethena`), while the action ids are derived from
//! toncenter's own block types (`tonstakers_deposit`,
//! `tonstakers_withdraw_request`, `tonstakers_withdraw`, `ethena_deposit`,
//! `ethena_withdrawal_request`), as toncenter derives them.
//!
//! Tonstakers, known by its opcodes alone (toncenter checks no address, so
//! any pool of that contract family counts):
//!
//! * deposit: `deposit#47d54391` with the TON to the pool, which asks the
//!   tsTON master to mint (`#1674b0a0`) → internal_transfer to the
//!   staker's tsTON wallet (→ notification). The amount is what the
//!   message carried less the pool's 1 TON fee; the tokens minted are the
//!   internal transfer's; the asset is the master that sent it.
//! * withdrawal: a Jetton `burn` of tsTON → burn_notification at the
//!   master → `withdraw#319b0cdc` to the pool, which either pays at once
//!   (`#0a77535c` back to the staker: `stake_withdrawal`, its amount the
//!   payout less what the request carried) or mints a payout NFT
//!   (`#1674b0a0` to the payout collection, which deploys the item with
//!   `#132f9a45`: `stake_withdrawal_request` with that item as `ts_nft`).
//!   The item's deployment is an `nft_mint` of its own, not part of it.
//! * the later payout: when a round ends the pool starts the distribution
//!   (`#1140a64f` to the payout collection), which burns its items one by
//!   one (`#f127fe4e`); each burnt item notifies the collection
//!   (`#ed58b0b2` with the stake holder and the tsTON burnt), which pays
//!   the holder (`#db3b8abd`): `stake_withdrawal` with the item as
//!   `ts_nft`. The pool is found by walking back to the distribution's
//!   start, or to an earlier payout of the same chain.
//!
//! Ethena:
//!
//! * deposit: a Jetton transfer of USDe followed by a Jetton mint of
//!   tsUSDe, recognised by those two masters' addresses (toncenter's
//!   constants); the pool is the transfer's receiver.
//! * unstake request: tsUSDe sent with a Jetton `transfer` to the tsUSDe
//!   master itself (internal_transfer → notification to the staking
//!   contract → `mint#642b7d07` back at the master → `#b2583ed5`, a
//!   timelocked internal transfer to the staker's own tsUSDe wallet). Known
//!   by that opcode chain and by the wallets: both the sender's and the
//!   receiving wallet belong to the sender, the first of the master the
//!   transfer went to, the second of the master that sent the timelocked
//!   transfer. The pool is the mint's sender.
//!
//! Each step of a flow takes the excesses and bounces right under it; the
//! step a matcher starts from does not (toncenter appends those only to a
//! sub-step's blocks).

use crate::trace::action_data::{ActionData, Staking};
use tonindex_model::Address;

use super::body::{self, coins, msg_address};
use super::jetton::{
    self, OP_BURN, OP_BURN_NOTIFICATION, OP_INTERNAL_TRANSFER, OP_MINT, OP_TRANSFER,
    OP_TRANSFER_NOTIFICATION,
};
use super::{raw, Block, BlockId, Cols, Graph, Interfaces};

/// The opcodes whose bodies these matchers read beyond the Jetton ones
/// (burn, internal_transfer: `jetton::BODY_OPS`).
pub(crate) const BODY_OPS: &[u32] = &[OP_NFT_BURN_NOTIFICATION, OP_TIMELOCKED_TRANSFER];

/// Tonstakers: a deposit to the pool.
const OP_DEPOSIT: u32 = 0x47d5_4391;
/// Tonstakers: the tsTON master asks the pool to withdraw (after a burn).
const OP_WITHDRAW_REQUEST: u32 = 0x319b_0cdc;
/// Tonstakers: the pool's mint, of tsTON at the master or of a payout NFT
/// at the payout collection (one opcode for both).
const OP_POOL_MINT: u32 = 0x1674_b0a0;
/// Tonstakers: the payout collection deploys a payout NFT.
const OP_INIT_NFT: u32 = 0x132f_9a45;
/// Tonstakers: the payout collection burns a payout NFT.
const OP_NFT_BURN: u32 = 0xf127_fe4e;
/// Tonstakers: `burn_notification#ed58b0b2 query_id:uint64 amount:Coins
/// owner:MsgAddress`, from a burnt payout NFT to its collection.
const OP_NFT_BURN_NOTIFICATION: u32 = 0xed58_b0b2;
/// Tonstakers: the payout collection pays a burnt NFT's holder.
const OP_DISTRIBUTED_ASSET: u32 = 0xdb3b_8abd;
/// Tonstakers: the pool pays a withdrawal at once.
const OP_POOL_WITHDRAWAL: u32 = 0x0a77_535c;
/// Tonstakers: the pool starts a payout collection's distribution.
const OP_START_DISTRIBUTION: u32 = 0x1140_a64f;
/// Ethena: the tsUSDe master's timelocked transfer, an internal_transfer
/// in shape (`op query_id amount …`).
const OP_TIMELOCKED_TRANSFER: u32 = 0xb258_3ed5;

/// What the Tonstakers pool keeps of a deposit (toncenter subtracts it).
const DEPOSIT_FEE: u128 = 1_000_000_000;

/// Ethena's USDe and tsUSDe masters (toncenter's constants).
const USDE_MASTER: &str = "0:086FA2A675F74347B08DD4606A549B8FDB98829CB282BC1949D3B12FBAED9DCC";
const TSUSDE_MASTER: &str = "0:D0E545323C7ACB7102653C073377F7E3C67F122EB94D430A250739F109D4A57D";

const TONSTAKERS: &str = "liquid_staking";
const ETHENA: &str = "ethena";

/// A staking composite: toncenter's type, shown as a `stake_*` type, with
/// the provider and the type's other `staking_data` fields.
pub(crate) fn staking_block(
    kind: &'static str,
    shown: &'static str,
    provider: &'static str,
    members: Vec<BlockId>,
    failed: bool,
    cols: Cols,
    fields: Staking,
) -> Block {
    let mut blk = Block::of(
        kind,
        members,
        failed,
        Cols {
            shown_type: Some(shown),
            ..cols
        },
    );
    blk.data = ActionData::Staking(Staking {
        provider: provider.into(),
        ..fields
    });
    blk
}

/// `op query_id:uint64 amount:Coins …`: the amount of an
/// internal_transfer-shaped body.
fn transfer_amount(g: &Graph<'_>, b: BlockId) -> Option<u128> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    coins(&mut s)
}

/// A payout NFT's burn notification: the tsTON burnt and the holder.
fn nft_burn_notification(g: &Graph<'_>, b: BlockId) -> Option<(u128, Option<Address>)> {
    let mut s = body::after_op(g.body(b)?)?;
    s.load_u64().ok()?;
    let amount = coins(&mut s)?;
    let owner = msg_address(&mut s)?;
    Some((amount, owner))
}

/// Whether a Jetton master is the one whose raw address is `want`.
fn is_master(a: Option<Address>, want: &str) -> bool {
    a.is_some_and(|a| raw(&a) == want)
}

/// `deposit#47d54391` to a Tonstakers pool with the tsTON minted for it:
/// the pool's mint at the master (→ internal_transfer → notification),
/// required, for toncenter builds nothing without the internal transfer.
pub(crate) fn tonstakers_deposit(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    g.leaf(b)?;
    if g.call_op(b) != Some(OP_DEPOSIT) {
        return None;
    }
    let m = g.msg(b)?;
    let mut members = vec![b];
    let mut transfer = None;
    for mint in g.next_calls(b, OP_POOL_MINT) {
        let internals: Vec<BlockId> = g.next_calls(mint, OP_INTERNAL_TRANSFER).collect();
        if internals.is_empty() {
            continue;
        }
        members.extend(g.with_change(mint));
        for i in internals {
            transfer.get_or_insert(i);
            members.extend(g.with_change(i));
            for notify in g.next_calls(i, OP_TRANSFER_NOTIFICATION) {
                members.extend(g.with_change(notify));
            }
        }
    }
    let transfer = transfer?;
    let minted = transfer_amount(g, transfer)?;
    let failed = g.block(b).failed;
    let cols = Cols {
        source: m.source,
        destination: m.destination,
        amount: m.value.checked_sub(DEPOSIT_FEE),
        asset: g.msg(transfer)?.source,
        ..Cols::default()
    };
    let tokens_minted = (!failed).then(|| minted.to_string());
    Some(staking_block(
        "tonstakers_deposit",
        "stake_deposit",
        TONSTAKERS,
        members,
        failed,
        cols,
        Staking {
            tokens_minted,
            ..Staking::default()
        },
    ))
}

/// A tsTON `burn` → burn_notification → the master's withdraw request to
/// the pool, which pays at once (`tonstakers_withdraw`, shown as
/// `stake_withdrawal`) or mints a payout NFT (`tonstakers_withdraw_request`,
/// shown as `stake_withdrawal_request`; failed when no minted item is
/// found under the mint).
pub(crate) fn tonstakers_withdraw(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    g.leaf(b)?;
    if g.call_op(b) != Some(OP_BURN) {
        return None;
    }
    let m = g.msg(b)?;
    let mut members = vec![b];
    let (mut request, mut immediate, mut delayed) = (None, None, None);
    for notify in g.next_calls(b, OP_BURN_NOTIFICATION) {
        let mut below = Vec::new();
        for req in g.next_calls(notify, OP_WITHDRAW_REQUEST) {
            let outcomes: Vec<BlockId> = g
                .block(req)
                .next
                .iter()
                .copied()
                .filter(|&x| matches!(g.call_op(x), Some(OP_POOL_WITHDRAWAL | OP_POOL_MINT)))
                .collect();
            if outcomes.is_empty() {
                continue;
            }
            request.get_or_insert(req);
            below.extend(g.with_change(req));
            for x in outcomes {
                if g.call_op(x) == Some(OP_POOL_WITHDRAWAL) {
                    immediate.get_or_insert(x);
                } else {
                    delayed.get_or_insert(x);
                }
                below.extend(g.with_change(x));
            }
        }
        if !below.is_empty() {
            members.extend(g.with_change(notify));
            members.extend(below);
        }
    }
    let request = g.msg(request?)?;
    let tokens_burnt = jetton::burn_body(m.body.as_ref()?)?.amount;
    let mut failed = g.block(b).failed;
    if let Some(x) = immediate {
        // The payout less what the request that caused it carried.
        let asked = g.msg(g.block(x).prev?)?.value;
        let cols = Cols {
            source: m.source,
            destination: request.destination,
            amount: g.msg(x)?.value.checked_sub(asked),
            asset: request.source,
            ..Cols::default()
        };
        return Some(staking_block(
            "tonstakers_withdraw",
            "stake_withdrawal",
            TONSTAKERS,
            members,
            failed,
            cols,
            Staking {
                tokens_burnt: Some(tokens_burnt.to_string()),
                ..Staking::default()
            },
        ));
    }
    let minted = minted_nft(g, delayed?);
    if minted.is_none() {
        failed = true;
    }
    let cols = Cols {
        source: m.source,
        source_secondary: m.destination,
        destination: request.destination,
        amount: Some(tokens_burnt),
        asset: request.source,
        ..Cols::default()
    };
    Some(staking_block(
        "tonstakers_withdraw_request",
        "stake_withdrawal_request",
        TONSTAKERS,
        members,
        failed,
        cols,
        Staking {
            ts_nft: minted,
            ..Staking::default()
        },
    ))
}

/// The payout NFT a pool's mint made: the `nft_mint` under it (a known
/// item; the item's message's destination), else the item the collection's
/// init message went to.
fn minted_nft(g: &Graph<'_>, mint: BlockId) -> Option<Address> {
    let nft_mint = g
        .block(mint)
        .next
        .iter()
        .copied()
        .find(|&x| g.kind(x) == "nft_mint");
    if let Some(x) = nft_mint {
        let n = *g.block(x).nodes.first()?;
        return g.tree.txs[n].in_msg.as_ref()?.destination;
    }
    g.msg(g.next_call(mint, OP_INIT_NFT)?)?.destination
}

/// A payout after a payout NFT's burn: `#db3b8abd` from the collection,
/// whose burn notification and the burn before it are its parts.
pub(crate) fn tonstakers_delayed_withdrawal(
    g: &Graph<'_>,
    b: BlockId,
    _: &dyn Interfaces,
) -> Option<Block> {
    g.leaf(b)?;
    if g.call_op(b) != Some(OP_DISTRIBUTED_ASSET) {
        return None;
    }
    let notification = g.block(b).prev?;
    if g.call_op(notification) != Some(OP_NFT_BURN_NOTIFICATION) {
        return None;
    }
    let burn = g.block(notification).prev?;
    if g.call_op(burn) != Some(OP_NFT_BURN) {
        return None;
    }
    let (tokens_burnt, owner) = nft_burn_notification(g, notification)?;
    let mut members = vec![b];
    members.extend(g.with_change(notification));
    members.extend(g.with_change(burn));
    let cols = Cols {
        source: owner,
        destination: payout_pool(g, notification),
        amount: Some(g.msg(b)?.value),
        ..Cols::default()
    };
    Some(staking_block(
        "tonstakers_withdraw",
        "stake_withdrawal",
        TONSTAKERS,
        members,
        false,
        cols,
        Staking {
            ts_nft: g.msg(notification)?.source,
            tokens_burnt: Some(tokens_burnt.to_string()),
            ..Staking::default()
        },
    ))
}

/// The pool behind a payout: walking back over burns, notifications and
/// payouts, the sender of the distribution's start, or the pool of an
/// earlier payout of the chain (already merged); none past anything else.
fn payout_pool(g: &Graph<'_>, notification: BlockId) -> Option<Address> {
    let mut cur = g.block(notification).prev;
    while let Some(x) = cur {
        match g.call_op(x) {
            Some(OP_START_DISTRIBUTION) => return g.msg(x)?.source,
            Some(OP_NFT_BURN_NOTIFICATION | OP_NFT_BURN | OP_DISTRIBUTED_ASSET) => {
                cur = g.block(x).prev;
            }
            _ if g.kind(x) == "tonstakers_withdraw" => return g.block(x).cols.destination,
            _ => return None,
        }
    }
    None
}

/// A Jetton transfer of USDe with a Jetton mint of tsUSDe after it: the
/// two blocks the Jetton matchers made.
pub(crate) fn ethena_deposit(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.kind(b) != "jetton_transfer" {
        return None;
    }
    let mint = g.next_kind(b, "jetton_mint", &[])?;
    let transfer = &g.block(b).cols;
    let minted = &g.block(mint).cols;
    if !is_master(transfer.asset, USDE_MASTER) || !is_master(minted.asset, TSUSDE_MASTER) {
        return None;
    }
    let cols = Cols {
        source: transfer.source,
        source_secondary: transfer.source_secondary,
        destination: transfer.destination,
        amount: transfer.amount,
        asset: minted.asset,
        ..Cols::default()
    };
    Some(staking_block(
        "ethena_deposit",
        "stake_deposit",
        ETHENA,
        vec![b, mint],
        false,
        cols,
        Staking {
            tokens_minted: minted.amount.map(|v| v.to_string()),
            asset2: transfer.asset,
            ..Staking::default()
        },
    ))
}

/// The calls under `b` along `ops`, each with its change, over every
/// branch that reaches the end (`false` when none does).
fn follow(g: &Graph<'_>, b: BlockId, ops: &[u32], out: &mut Vec<BlockId>) -> bool {
    let Some((&op, rest)) = ops.split_first() else {
        return true;
    };
    let mut any = false;
    for x in g.next_calls(b, op) {
        let mut below = Vec::new();
        if follow(g, x, rest, &mut below) {
            out.extend(g.with_change(x));
            out.extend(below);
            any = true;
        }
    }
    any
}

/// tsUSDe sent to its master to unstake: transfer → internal_transfer →
/// notification → mint → timelocked transfer back to the sender's wallet.
pub(crate) fn ethena_withdrawal_request(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    g.leaf(b)?;
    if g.call_op(b) != Some(OP_TRANSFER) {
        return None;
    }
    let mut members = vec![b];
    let chain = [
        OP_INTERNAL_TRANSFER,
        OP_TRANSFER_NOTIFICATION,
        OP_MINT,
        OP_TIMELOCKED_TRANSFER,
    ];
    if !follow(g, b, &chain, &mut members) {
        return None;
    }
    let first = |op: u32| members.iter().copied().find(|&x| g.call_op(x) == Some(op));
    let (internal, mint, timelocked) = (
        first(OP_INTERNAL_TRANSFER)?,
        first(OP_MINT)?,
        first(OP_TIMELOCKED_TRANSFER)?,
    );
    let m = g.msg(b)?;
    let source = m.source?;
    let source_wallet = m.destination?;
    let timelocked_msg = g.msg(timelocked)?;
    let receiver_wallet = timelocked_msg.destination?;
    let master = g.msg(internal)?.destination?;
    let sent = interfaces.jetton_wallet(&source_wallet)?;
    let received = interfaces.jetton_wallet(&receiver_wallet)?;
    if sent.owner != source
        || received.owner != source
        || sent.jetton != master
        || Some(received.jetton) != timelocked_msg.source
    {
        return None;
    }
    let amount = transfer_amount(g, internal)?;
    let ts_amount = transfer_amount(g, timelocked)?;
    let cols = Cols {
        source: Some(source),
        source_secondary: Some(source_wallet),
        destination: g.msg(mint)?.source,
        amount: Some(amount),
        asset: Some(sent.jetton),
        ..Cols::default()
    };
    Some(staking_block(
        "ethena_withdrawal_request",
        "stake_withdrawal_request",
        ETHENA,
        members,
        false,
        cols,
        Staking {
            tokens_minted: Some(ts_amount.to_string()),
            ..Staking::default()
        },
    ))
}
