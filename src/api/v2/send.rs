//! v2's send group: `sendBoc`, `sendBocReturnHash`, `sendBocReturnHashNoError`
//! (spec v2 §4.7). The message is checked first (a bad one is 422); a node
//! with no network to send to then answers 503 (`NoError`: 400, as the C++
//! server answers a failed send there).

use super::{required, V2Error, V2Result};
use crate::api::params::Params;
use crate::api::send::{self, ExternalMessage, NO_NETWORK};
use crate::api::Ctx;

fn checked(p: &Params) -> Result<ExternalMessage, V2Error> {
    if p.get("boc").is_none() && p.contains("boc") {
        return Err(V2Error::invalid("empty boc"));
    }
    let boc = required(p.get("boc"), "boc")?;
    send::check_external(boc).map_err(V2Error::invalid)
}

pub fn send_boc(_ctx: &Ctx<'_>, p: &Params) -> V2Result {
    checked(p)?;
    Err(V2Error::new(503, NO_NETWORK))
}

pub fn send_boc_return_hash(_ctx: &Ctx<'_>, p: &Params) -> V2Result {
    checked(p)?;
    Err(V2Error::new(503, NO_NETWORK))
}

pub fn send_boc_return_hash_no_error(_ctx: &Ctx<'_>, p: &Params) -> V2Result {
    checked(p)?;
    Err(V2Error::new(400, NO_NETWORK))
}
