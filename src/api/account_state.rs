//! The newest state of an account for both APIs: what the index holds, or
//! — on a node that follows a chain through lite servers (`tonindex run`)
//! and does not hold it — the state the lite server proves at the newest
//! indexed masterchain block (F7 item 5). Nothing is made up either way:
//! a state neither holds stays unknown, saying why.

use tonindex_model::{Address, BlockId};
use tycho_types::models::ShardAccount;

use crate::api::Ctx;
use crate::query;
use crate::state::account::{self, AccountError, AccountView, Known};

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
