//! v3 `POST /message` (spec v3 §5.3): the message is checked first (a bad
//! one is 422), then sent to the chain this process runs; its refusal keeps
//! its status, and a node with no network to send to answers 503.

use axum::http::StatusCode;
use serde::Serialize;

use super::V3Error;
use crate::api::encoding::B64;
use crate::api::external_message;
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;

request! {
    /// An external message to send.
    pub struct MessageRequest {
        /// The message, base64 BoC
        [required] boc: Option<String>,
    }
}

/// The hashes of a sent message.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SentMessage {
    message_hash: B64,
    /// The hash of the message with its source and import fee cleared (TEP-467).
    message_hash_norm: B64,
}

pub fn message(ctx: &Ctx<'_>, _: &Params, q: MessageRequest) -> Result<SentMessage, V3Error> {
    let Some(boc) = q.boc.as_deref() else {
        return Err(V3Error::new(StatusCode::UNAUTHORIZED, "boc is required"));
    };
    let msg = external_message::check_external(boc).map_err(V3Error::invalid)?;
    external_message::deliver(ctx, &msg).map_err(|r| {
        V3Error::new(
            StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            r.message,
        )
    })?;
    Ok(SentMessage {
        message_hash: B64(msg.hash.0),
        message_hash_norm: B64(msg.hash_norm.0),
    })
}
