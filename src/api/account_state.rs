//! The state of an account for the APIs — the newest, or the one after an
//! earlier masterchain block: what the index holds, or — on a node that
//! follows a chain through lite servers (`tonindex run`) and does not hold
//! it — the state the lite server proves at that masterchain block (F7 item
//! 5). Nothing is made up either way: a state neither holds stays unknown,
//! saying why.

use tonindex_model::{Address, BlockId, BlockRecord};
use tycho_types::cell::HashBytes;
use tycho_types::models::ShardAccount;

use crate::api::Ctx;
use crate::query;
use crate::state::account::{self, AccountError, AccountView, Known};
use crate::state::cells::CellError;
use crate::state::history;

/// An account's `ShardAccount`, the block whose state it comes from, and
/// that state's time.
#[derive(Debug, Clone)]
pub struct State {
    pub shard_account: ShardAccount,
    pub source: Option<BlockId>,
    pub gen_utime: u32,
}

/// The newest state of `address` as this node knows it.
pub fn newest(ctx: &Ctx<'_>, address: &Address) -> Result<Known<State>, AccountError> {
    let held = match account::newest(&ctx.reader, address)? {
        Known::Held((rec, sa)) => {
            return Ok(Known::Held(State {
                shard_account: sa,
                source: rec.state,
                gen_utime: rec.gen_utime,
            }))
        }
        Known::Absent => return Ok(Known::Absent),
        Known::Stale((rec, sa), why) => Known::Stale(
            State {
                shard_account: sa,
                source: rec.state,
                gen_utime: rec.gen_utime,
            },
            why,
        ),
        Known::NotHeld(why) => Known::NotHeld(why),
    };
    let Some(chain) = ctx.chain else {
        return Ok(held);
    };
    // A lite server is waited for on the read pool only, never on the
    // async worker: the first, inline try gives up its budget here.
    if ctx.reader.exhaust_budget() {
        return Ok(held);
    }
    let Some((_, last)) = query::blocks::mc_block_range(&ctx.reader)? else {
        return Ok(held);
    };
    let fetched = match chain.account_state(address, &last.id) {
        None => return Ok(held),
        Some(f) => f,
    };
    Ok(match fetched {
        Ok(proven) => match proven.shard_account {
            Some(sa) => Known::Held(State {
                shard_account: sa,
                source: Some(proven.shard_block.id),
                gen_utime: proven.gen_utime,
            }),
            None => Known::Absent,
        },
        Err(refused) => match held {
            Known::NotHeld(why) => Known::NotHeld(format!(
                "{why}; asking the lite server failed: {}",
                refused.message
            )),
            other => other,
        },
    })
}

/// [`newest`] as the APIs' view.
pub fn newest_view(ctx: &Ctx<'_>, address: &Address) -> Result<Known<AccountView>, AccountError> {
    let view = |s: &State| account::view(address, &s.shard_account, s.source, s.gen_utime);
    Ok(match newest(ctx, address)? {
        Known::Held(s) => Known::Held(view(&s)?),
        Known::Stale(s, why) => Known::Stale(view(&s)?, why),
        Known::Absent => Known::Absent,
        Known::NotHeld(why) => Known::NotHeld(why),
    })
}

/// An account after an earlier masterchain block.
pub struct Earlier {
    /// `None`: the state has no such account.
    pub shard_account: Option<ShardAccount>,
    /// The block whose state holds it.
    pub source: BlockRecord,
    /// The masterchain block asked for.
    pub mc: BlockRecord,
}

/// Why a state after an earlier block cannot be given: the status each
/// API answers with, and its words.
#[derive(Debug)]
pub struct Unavailable {
    pub status: u16,
    pub message: String,
}

impl Unavailable {
    fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    fn internal(e: impl std::fmt::Display) -> Self {
        Self::new(500, format!("internal error: {e}"))
    }
}

/// The account of `address` in the state after masterchain block `seqno`:
/// for the masterchain that block's own state, otherwise the state of the
/// top block of the account's shard it fixes, read from the cell store
/// (else, on a follower, what its lite servers prove). A state from before
/// the index began tracking the shard, or released by `[index]
/// keep_states`, is not held (501).
pub fn after_mc_block(
    ctx: &Ctx<'_>,
    address: &Address,
    seqno: u32,
) -> Result<Earlier, Unavailable> {
    let r = &ctx.reader;
    let mc = query::blocks::mc_block(r, seqno)
        .map_err(Unavailable::internal)?
        .ok_or_else(|| {
            Unavailable::new(404, format!("masterchain block {seqno} is not indexed"))
        })?;
    let source = if address.workchain == -1 {
        Some(mc.clone())
    } else {
        let tops = query::blocks::shard_state(r, seqno).map_err(Unavailable::internal)?;
        match tops.into_iter().find(|d| {
            d.block.id.workchain == address.workchain && address.in_shard(d.block.id.shard)
        }) {
            Some(d) => query::blocks::block(r, &d.block.id).map_err(Unavailable::internal)?,
            None => None,
        }
    };
    let not_held = || {
        Unavailable::new(
            501,
            format!(
                "the state of workchain {} after masterchain block {seqno} is not held \
                 (states are kept from the first imported shard state on, for the newest \
                 masterchain blocks that [index] keep_states names)",
                address.workchain
            ),
        )
    };
    let source = source.ok_or_else(not_held)?;
    let root = HashBytes(source.state_root_hash);
    let shard_account = match history::shard_account_at(r, &root, &address.id) {
        Ok(sa) => sa,
        // Released (or, on a follower, released while it was read): what a
        // lite server proves, where this node follows one.
        Err(CellError::Missing(_)) => match proven_after(ctx, address, &mc) {
            Some(Ok(sa)) => sa,
            Some(Err(refused)) => {
                let held = not_held();
                return Err(Unavailable::new(
                    held.status,
                    format!(
                        "{}; asking the lite server failed: {}",
                        held.message, refused.message
                    ),
                ));
            }
            None => return Err(not_held()),
        },
        Err(e) => return Err(Unavailable::internal(e)),
    };
    Ok(Earlier {
        shard_account,
        source,
        mc,
    })
}

/// The account's state after masterchain block `mc` as the lite servers
/// of a followed chain prove it; `None` where no lite server is asked (the
/// devnet, or a read that may not wait for one).
fn proven_after(
    ctx: &Ctx<'_>,
    address: &Address,
    mc: &BlockRecord,
) -> Option<Result<Option<ShardAccount>, crate::chain::link::Refused>> {
    let chain = ctx.chain?;
    // A lite server is waited for on the read pool only, never on the
    // async worker: the first, inline try gives up its budget here.
    if ctx.reader.exhaust_budget() {
        return None;
    }
    Some(
        chain
            .account_state(address, &mc.id)?
            .map(|proven| proven.shard_account),
    )
}
