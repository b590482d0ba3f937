//! v3 `POST /message` (spec v3 §5.3): the message is checked first (a bad
//! one is 422); a node with no network to send to then answers 503.

use axum::http::StatusCode;

use super::{V3Error, V3Result};
use crate::api::params::Params;
use crate::api::send::{self, NO_NETWORK};
use crate::api::Ctx;

pub fn message(_ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let Some(boc) = p.get("boc") else {
        return Err(V3Error::new(StatusCode::UNAUTHORIZED, "boc is required"));
    };
    send::check_external(boc).map_err(V3Error::invalid)?;
    Err(V3Error::new(StatusCode::SERVICE_UNAVAILABLE, NO_NETWORK))
}
