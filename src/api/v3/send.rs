//! v3 `POST /message` (spec v3 §5.3): the message is checked first (a bad
//! one is 422), then sent to the chain this process runs; its refusal keeps
//! its status, and a node with no network to send to answers 503.

use axum::http::StatusCode;
use serde_json::json;

use super::{V3Error, V3Result};
use crate::api::encoding::B64;
use crate::api::params::Params;
use crate::api::send;
use crate::api::Ctx;

pub fn message(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let Some(boc) = p.get("boc") else {
        return Err(V3Error::new(StatusCode::UNAUTHORIZED, "boc is required"));
    };
    let msg = send::check_external(boc).map_err(V3Error::invalid)?;
    send::deliver(ctx, &msg).map_err(|r| {
        V3Error::new(
            StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            r.message,
        )
    })?;
    super::to_json(&json!({
        "message_hash": B64(msg.hash.0),
        "message_hash_norm": B64(msg.hash_norm.0),
    }))
}
