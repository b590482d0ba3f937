//! Sending an external message, for both APIs: v2 `sendBoc`,
//! `sendBocReturnHash`, `sendBocReturnHashNoError` and v3 `POST /message`.
//!
//! A message is checked before anything else — it must parse, be an
//! external-in message to a standard address in a workchain this node
//! knows, and keep within a liteserver's size limits — and its hash and
//! normalized hash (TEP-467) are computed. Then it goes to the chain this
//! process runs (`tonindex dev`); a node serving an index imported from
//! files has no network to hand it to and answers 503 saying so.

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellSlice, HashBytes};
use tycho_types::models::{IntAddr, MsgInfo, OwnedMessage, StdAddr};

use crate::api::Ctx;
use crate::chain::link::{Emulated, Refused};
use crate::decode::message::normalized_hash;
use crate::tvm::stack;

/// Largest external message BoC a liteserver takes, in bytes.
pub const MAX_EXTERNAL_BYTES: usize = 65_535;
/// Deepest external message a liteserver takes.
pub const MAX_EXTERNAL_DEPTH: u16 = 512;

/// Workchains a message may be sent to: the masterchain and the basechain.
const KNOWN_WORKCHAINS: [i8; 2] = [-1, 0];

/// Why this node sends nothing: it follows no network (for the error text).
pub const NO_NETWORK: &str = "this node has no network to send to: it serves an index imported from files (`tonindex serve`); `tonindex dev` runs a local chain that accepts messages";

/// Hands a checked message to the chain, waiting for its answer (with
/// automine, until the blocks it causes are indexed). Never on the async
/// worker: there the reader's budget is spent first, so the request moves
/// to the read pool and this runs once, there.
pub fn deliver(ctx: &Ctx<'_>, msg: &ExternalMessage) -> Result<(), Refused> {
    let Some(chain) = ctx.chain else {
        return Err(Refused::new(503, NO_NETWORK));
    };
    if ctx.reader.exhaust_budget() {
        return Err(Refused::new(500, "moved to the read pool"));
    }
    // Where the chain emulates (its blocks come later), what the message
    // will do is emulated first, on the state it will meet, and shown as
    // pending once the chain has taken the message.
    let emulated = match ctx.pending {
        Some(_) => match chain.emulate_trace(msg.cell.clone()) {
            None if chain.emulates_on_known_state() => Some(emulate_on_known_state(ctx, msg)),
            by_chain => by_chain,
        },
        None => None,
    };
    chain.send(msg.cell.clone())?;
    if let Some(Err(e)) = &emulated {
        tracing::warn!(
            "message {} sent but not emulated (no pending trace): {}",
            msg.hash,
            e.message
        );
    }
    if let (Some(pending), Some(Ok(emulated))) = (ctx.pending, emulated) {
        let version = crate::query::blocks::mc_block_range(&ctx.reader)
            .ok()
            .flatten()
            .map_or(0, |(_, last)| last.gen_software_version);
        // Contract roles from the token tables: an emulated Jetton or NFT
        // flow reads as one, as it will once its blocks are indexed.
        let interfaces = crate::query::tokens::StoredInterfaces(&ctx.reader);
        if let Err(e) = pending.add_emulated(&emulated, msg.hash_norm.0, version, &interfaces) {
            tracing::warn!("an emulated trace could not be kept: {e}");
        }
    }
    Ok(())
}

/// The transactions `msg` would cause on the newest state this node knows
/// — each account as the index holds it or, where the index is behind,
/// as the chain's lite servers prove it at the newest indexed masterchain
/// block — with the config in force and the held public libraries, at the
/// time now: what a follower shows as pending. An account whose state
/// cannot be had ends the emulation (no pending trace is better than a
/// made-up one).
fn emulate_on_known_state(ctx: &Ctx<'_>, msg: &ExternalMessage) -> Result<Emulated, Refused> {
    emulate_known(ctx, &msg.cell, false, HashBytes::ZERO, None)?.emulated(ctx)
}

/// A trace emulated on a state this node knows.
pub struct KnownEmulation {
    pub trace: crate::tvm::emulate::EmulatedTrace,
    /// The masterchain block whose state it ran on (the newest indexed,
    /// unless one was named).
    pub mc_seqno: u32,
    /// The global version in force there (how records read).
    pub version: u32,
}

impl KnownEmulation {
    /// Its transactions with the blocks whose states they started from
    /// ([`KnownEmulation::bases`]).
    pub fn emulated(&self, ctx: &Ctx<'_>) -> Result<Emulated, Refused> {
        Ok(Emulated {
            bases: self.bases(ctx)?,
            txs: self.trace.txs.clone(),
        })
    }

    /// The blocks whose states it started from: the masterchain block it
    /// ran on and the shard blocks that block names.
    pub fn bases(&self, ctx: &Ctx<'_>) -> Result<Vec<tonindex_model::BlockId>, Refused> {
        let shards = crate::query::blocks::shard_state(&ctx.reader, self.mc_seqno)
            .map_err(|e| Refused::new(500, e.to_string()))?;
        let master = tonindex_model::BlockId {
            workchain: -1,
            shard: 0x8000_0000_0000_0000,
            seqno: self.mc_seqno,
        };
        Ok(std::iter::once(master)
            .chain(shards.iter().map(|s| s.block.id))
            .collect())
    }
}

/// [`emulate_on_known_state`]'s emulation, with the account states it
/// met and left; `ignore_chksig` makes every signature check succeed. A
/// message its account does not accept is a 422.
///
/// `at`: emulate on the state after that masterchain block instead — its
/// accounts, config, public libraries and time, as kept by `[index]
/// keep_states` (or proven by a followed chain's lite servers); a state
/// not held is a 501 that says so, a block not indexed a 404.
pub fn emulate_known(
    ctx: &Ctx<'_>,
    msg: &Cell,
    ignore_chksig: bool,
    rand_seed: HashBytes,
    at: Option<u32>,
) -> Result<KnownEmulation, Refused> {
    use crate::state::account::Known;
    use crate::tvm::emulate::{self, BlockContext, ExecConfig};
    let internal = |e: String| Refused::new(500, e);
    let tvm = |e: crate::api::getmethod::TvmError| internal(format!("{e:?}"));
    let (_, newest) = crate::query::blocks::mc_block_range(&ctx.reader)
        .map_err(|e| internal(e.to_string()))?
        .ok_or_else(|| internal("no masterchain block is indexed yet".into()))?;
    let at = at.filter(|seqno| *seqno != newest.id.id.seqno);
    let (last, now, held) = match at {
        // The newest state, at the time now.
        None => {
            let now = u32::try_from(crate::api::unix_now())
                .unwrap_or(u32::MAX)
                .max(newest.gen_utime);
            let held = crate::api::getmethod::masterchain_libraries(ctx).map_err(tvm)?;
            (newest, now, held)
        }
        // An earlier state, at that block's time.
        Some(seqno) => {
            let mc = crate::query::blocks::mc_block(&ctx.reader, seqno)
                .map_err(|e| internal(e.to_string()))?
                .ok_or_else(|| {
                    Refused::new(404, format!("masterchain block {seqno} is not indexed"))
                })?;
            let held = crate::api::getmethod::masterchain_libraries_after(ctx, &mc).map_err(
                |e| match e {
                    crate::api::getmethod::TvmError::NotHeld(why) => Refused::new(501, why),
                    e => tvm(e),
                },
            )?;
            let now = mc.gen_utime;
            (mc, now, held)
        }
    };
    let config = ExecConfig::new(
        crate::api::getmethod::blockchain_config(ctx, at).map_err(tvm)?,
        now,
    )
    .map_err(|e| internal(e.to_string()))?;
    let block = BlockContext {
        now,
        block_lt: last.end_lt + 1,
        min_lt: last.end_lt + 1,
        rand_seed,
        libraries: held.clone(),
        ignore_chksig,
    };
    // The status of the reason `state_of` gives up, if it does.
    let refused_with = std::cell::Cell::new(500u16);
    let state_of = |dst: &StdAddr| {
        let address = tonindex_model::Address {
            workchain: i32::from(dst.workchain),
            id: dst.address.0,
        };
        let refuse = |status: u16, why: String| {
            refused_with.set(status);
            why
        };
        let account = match at {
            None => match crate::api::account_state::newest(ctx, &address)
                .map_err(|e| refuse(500, e.to_string()))?
            {
                Known::Held(s) => s.shard_account,
                Known::Absent => emulate::no_account(),
                Known::NotHeld(why) | Known::Stale(_, why) => return Err(refuse(501, why)),
            },
            Some(seqno) => crate::api::account_state::after_mc_block(ctx, &address, seqno)
                .map_err(|e| refuse(e.status, e.message))?
                .shard_account
                .unwrap_or_else(emulate::no_account),
        };
        // Code that is a library the node does not hold: from the chain.
        let mut libraries = Vec::new();
        if let Some(hash) = emulate::code_library(&account) {
            let mut with = held.clone();
            if !crate::api::getmethod::fetch_libraries(ctx, &mut with, &[hash]) {
                return Err(refuse(
                    501,
                    format!("library {hash} is not held and could not be fetched"),
                ));
            }
            if let Ok(Some(d)) = with.get(hash) {
                libraries.push(d.lib);
            }
        }
        Ok((account, libraries))
    };
    let trace = emulate::emulate_trace(&config, block, msg.clone(), MAX_EMULATED_TXS, state_of)
        .map_err(|e| match e {
            emulate::TraceError::First(e) => Refused::new(422, e.to_string()),
            // An account state (or library) this node cannot have: 501
            // (404 for a block not indexed), not a server fault.
            emulate::TraceError::State(why) => Refused::new(refused_with.get(), why),
            e => internal(e.to_string()),
        })?;
    Ok(KnownEmulation {
        trace,
        mc_seqno: last.id.id.seqno,
        version: last.gen_software_version,
    })
}

/// The most transactions a pending trace is emulated to.
const MAX_EMULATED_TXS: usize = 256;

/// A checked external-in message.
#[derive(Debug, Clone)]
pub struct ExternalMessage {
    pub cell: Cell,
    /// The destination account.
    pub dst: StdAddr,
    /// The message cell's hash.
    pub hash: HashBytes,
    /// The normalized hash of TEP-467, the same for every copy of the
    /// message whatever its source, import fee, state init or body layout.
    pub hash_norm: HashBytes,
}

/// Checks the base64 BoC of an external message; the error says why it
/// cannot be sent (a 422 in both APIs).
pub fn check_external(boc_b64: &str) -> Result<ExternalMessage, String> {
    if boc_b64.trim().is_empty() {
        return Err("empty boc".into());
    }
    let cell = stack::decode_boc_b64(boc_b64).map_err(|e| e.message)?;
    check_external_cell(cell)
}

/// [`check_external`] for a BoC as bytes (the lite API's `sendMessage`).
pub fn check_external_bytes(boc: &[u8]) -> Result<ExternalMessage, String> {
    if boc.len() > MAX_EXTERNAL_BYTES {
        return Err(format!(
            "external message too large: {} bytes > {MAX_EXTERNAL_BYTES}",
            boc.len()
        ));
    }
    let cell = Boc::decode(boc).map_err(|e| format!("failed to parse the message BoC: {e}"))?;
    check_external_cell(cell)
}

/// [`check_external`] for a message cell.
pub fn check_external_cell(cell: Cell) -> Result<ExternalMessage, String> {
    let size = Boc::encode(cell.as_ref()).len();
    if size > MAX_EXTERNAL_BYTES {
        return Err(format!(
            "external message too large: {size} bytes > {MAX_EXTERNAL_BYTES}"
        ));
    }
    let depth = cell.repr_depth();
    if depth > MAX_EXTERNAL_DEPTH {
        return Err(format!(
            "external message too deep: depth {depth} > {MAX_EXTERNAL_DEPTH}"
        ));
    }
    let msg: OwnedMessage = cell
        .parse()
        .map_err(|e| format!("failed to parse external message: {e}"))?;
    let MsgInfo::ExtIn(info) = &msg.info else {
        return Err("not an external inbound message".into());
    };
    let dst = match &info.dst {
        IntAddr::Std(a) => a.clone(),
        IntAddr::Var(_) => {
            return Err("the destination is not a standard address".into());
        }
    };
    if !KNOWN_WORKCHAINS.contains(&dst.workchain) {
        return Err(format!("unknown workchain {}", dst.workchain));
    }
    let body = CellBuilder::build_from(CellSlice::apply_allow_exotic(&msg.body))
        .map_err(|e| format!("failed to rebuild the message body: {e}"))?;
    let dest = tonindex_model::Address {
        workchain: i32::from(dst.workchain),
        id: dst.address.0,
    };
    let hash_norm = normalized_hash(&dest, &body)
        .map(HashBytes)
        .map_err(|e| format!("failed to normalize the message: {e}"))?;
    Ok(ExternalMessage {
        hash: *cell.repr_hash(),
        cell,
        dst,
        hash_norm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use tycho_types::cell::CellFamily;
    use tycho_types::models::{ExtAddr, ExtInMsgInfo, MessageLayout, StateInit};
    use tycho_types::num::Tokens;

    fn b64(cell: &Cell) -> String {
        base64::engine::general_purpose::STANDARD.encode(crate::boc::encode_crc(cell.as_ref()))
    }

    fn external(src: Option<ExtAddr>, fee: u64, init: bool, body_to_cell: bool) -> Cell {
        let mut body = CellBuilder::new();
        body.store_u32(0xdead_beef).unwrap();
        body.store_u64(42).unwrap();
        let body = body.build().unwrap();
        let msg = tycho_types::models::Message {
            info: MsgInfo::ExtIn(ExtInMsgInfo {
                src,
                dst: IntAddr::Std(StdAddr::new(0, HashBytes([7; 32]))),
                import_fee: Tokens::new(fee.into()),
            }),
            init: init.then(StateInit::default),
            body: body.as_slice().unwrap(),
            layout: Some(MessageLayout {
                init_to_cell: false,
                body_to_cell,
            }),
        };
        CellBuilder::build_from(msg).unwrap()
    }

    /// A plain external-in message to `wc:0101…01` with `body` in a reference.
    fn ext_in(workchain: i8, body: &Cell) -> Cell {
        let msg = tycho_types::models::Message {
            info: MsgInfo::ExtIn(ExtInMsgInfo {
                src: None,
                dst: IntAddr::Std(StdAddr::new(workchain, HashBytes([1; 32]))),
                import_fee: Tokens::ZERO,
            }),
            init: None,
            body: body.as_slice().unwrap(),
            layout: Some(MessageLayout {
                init_to_cell: false,
                body_to_cell: true,
            }),
        };
        CellBuilder::build_from(msg).unwrap()
    }

    #[test]
    fn the_normalized_hash_ignores_source_fee_init_and_body_layout() {
        let plain = check_external(&b64(&external(None, 0, false, true))).unwrap();
        // Already normal: the normalized hash is the hash.
        assert_eq!(plain.hash, plain.hash_norm);
        for variant in [
            external(Some(ExtAddr::new(8, vec![0xab]).unwrap()), 0, false, true),
            external(None, 1000, false, true),
            external(None, 0, true, true),
            external(None, 0, false, false),
        ] {
            let m = check_external(&b64(&variant)).unwrap();
            assert_ne!(m.hash, plain.hash);
            assert_eq!(m.hash_norm, plain.hash_norm);
        }
    }

    #[test]
    fn what_cannot_be_sent_says_why() {
        let internal = {
            let mut b = CellBuilder::new();
            b.store_bit_zero().unwrap(); // int_msg_info$0
            b.build().unwrap()
        };
        let other_wc = ext_in(5, &Cell::empty_cell());
        for (boc, why) in [
            (String::new(), "empty boc"),
            ("!!!".to_string(), "base64"),
            (b64(&Cell::empty_cell()), "failed to parse external message"),
            (b64(&internal), "failed to parse"),
            (b64(&other_wc), "unknown workchain 5"),
        ] {
            let err = check_external(&boc).unwrap_err();
            assert!(err.contains(why), "{boc:?}: {err}");
        }
        // A body far over the size limit.
        let mut big = Cell::empty_cell();
        for _ in 0..600 {
            let mut b = CellBuilder::new();
            b.store_raw(&[0x5a; 127], 1016).unwrap();
            b.store_reference(big).unwrap();
            big = b.build().unwrap();
        }
        let err = check_external(&b64(&ext_in(0, &big))).unwrap_err();
        assert!(
            err.contains("too deep") || err.contains("too large"),
            "{err}"
        );
    }
}
