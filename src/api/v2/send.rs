//! v2's send group: `sendBoc`, `sendBocReturnHash`, `sendBocReturnHashNoError`
//! (spec v2 §4.7). The message is checked first (a bad one is 422); then it
//! goes to the chain this process runs (`tonindex dev`), which refuses a
//! message the account does not accept as a liteserver does (500). A node
//! with no network to send to answers 503 (`NoError`: 400 for any failure,
//! as the C++ server answers a failed send there).

use serde_json::json;

use super::{required, to_json, V2Error, V2Result};
use crate::api::encoding::B64;
use crate::api::params::Params;
use crate::api::send::{self, ExternalMessage};
use crate::api::Ctx;

fn checked(p: &Params) -> Result<ExternalMessage, V2Error> {
    if p.get("boc").is_none() && p.contains("boc") {
        return Err(V2Error::invalid("empty boc"));
    }
    let boc = required(p.get("boc"), "boc")?;
    send::check_external(boc).map_err(V2Error::invalid)
}

/// Checks and sends; the error is v2's, with its status.
fn checked_and_sent(ctx: &Ctx<'_>, p: &Params) -> Result<ExternalMessage, V2Error> {
    let msg = checked(p)?;
    send::deliver(ctx, &msg).map_err(|r| V2Error::new(r.status, r.message))?;
    Ok(msg)
}

pub fn send_boc(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    checked_and_sent(ctx, p)?;
    to_json(&json!({"@type": "ok"}))
}

pub fn send_boc_return_hash(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let msg = checked_and_sent(ctx, p)?;
    to_json(&json!({
        "@type": "raw.extMessageInfo",
        "hash": B64(msg.hash.0),
        "hash_norm": B64(msg.hash_norm.0),
    }))
}

pub fn send_boc_return_hash_no_error(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let msg = checked(p)?;
    send::deliver(ctx, &msg).map_err(|r| V2Error::new(400, r.message))?;
    to_json(&json!({
        "@type": "raw.extMessageInfo",
        "hash": B64(msg.hash.0),
        "hash_norm": B64(msg.hash_norm.0),
    }))
}
