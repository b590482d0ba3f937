//! v2's send group: `sendBoc`, `sendBocReturnHash`, `sendBocReturnHashNoError`
//! (spec v2 §4.7). The message is checked first (a bad one is 422); then it
//! goes to the chain this process runs (`tonindex dev`), which refuses a
//! message the account does not accept as a liteserver does (500). A node
//! with no network to send to answers 503 (`NoError`: 400 for any failure,
//! as the C++ server answers a failed send there).

use serde::Serialize;

use super::{required, V2Error};
use crate::api::encoding::B64;
use crate::api::external_message::{self, ExternalMessage};
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;

request! {
    /// An external message to send.
    pub struct SendRequest {
        /// The message, base64 BoC
        [required] boc: Option<String>,
    }
}

fn checked(p: &Params, q: &SendRequest) -> Result<ExternalMessage, V2Error> {
    if q.boc.is_none() && p.contains("boc") {
        return Err(V2Error::invalid("empty boc"));
    }
    let boc = required(q.boc.as_deref(), "boc")?;
    external_message::check_external(boc).map_err(V2Error::invalid)
}

/// Checks and sends; the error is v2's, with its status.
fn checked_and_sent(
    ctx: &Ctx<'_>,
    p: &Params,
    q: &SendRequest,
) -> Result<ExternalMessage, V2Error> {
    let msg = checked(p, q)?;
    external_message::deliver(ctx, &msg).map_err(|r| V2Error::new(r.status, r.message))?;
    Ok(msg)
}

/// tonlib's `ok`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Sent {
    #[serde(rename = "@type")]
    ty: &'static str,
}

/// tonlib's `raw.extMessageInfo`: the sent message's hashes.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ExtMessageInfo {
    #[serde(rename = "@type")]
    ty: &'static str,
    hash: B64,
    /// The hash of the message with its source and import fee cleared (TEP-467)
    hash_norm: B64,
}

impl ExtMessageInfo {
    fn of(msg: &ExternalMessage) -> Self {
        Self {
            ty: "raw.extMessageInfo",
            hash: B64(msg.hash.0),
            hash_norm: B64(msg.hash_norm.0),
        }
    }
}

pub fn send_boc(ctx: &Ctx<'_>, p: &Params, q: SendRequest) -> Result<Sent, V2Error> {
    checked_and_sent(ctx, p, &q)?;
    Ok(Sent { ty: "ok" })
}

pub fn send_boc_return_hash(
    ctx: &Ctx<'_>,
    p: &Params,
    q: SendRequest,
) -> Result<ExtMessageInfo, V2Error> {
    let msg = checked_and_sent(ctx, p, &q)?;
    Ok(ExtMessageInfo::of(&msg))
}

pub fn send_boc_return_hash_no_error(
    ctx: &Ctx<'_>,
    p: &Params,
    q: SendRequest,
) -> Result<ExtMessageInfo, V2Error> {
    let msg = checked(p, &q)?;
    external_message::deliver(ctx, &msg).map_err(|r| V2Error::new(400, r.message))?;
    Ok(ExtMessageInfo::of(&msg))
}
