//! `GET /balanceChanges` (spec v3 §3.12, undocumented upstream): what a
//! trace, or one action of it, did to each account's nanotons (value less
//! fees), its fees alone, and Jetton amounts by owner and master. The
//! counting lives in `query::balances`.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use serde::Serialize;

use super::{to_json, V3Error, V3Result};
use crate::api::encoding::{parse_hash, raw_upper};
use crate::api::params::Params;
use crate::api::Ctx;
use crate::query;
use crate::query::balances::Changes;

#[derive(Serialize)]
struct Response {
    changes: BTreeMap<String, i128>,
    fees: BTreeMap<String, i128>,
    jettons: BTreeMap<String, BTreeMap<String, String>>,
}

fn response(c: &Changes) -> Response {
    let raw = |m: &BTreeMap<tonindex_model::Address, i128>| {
        m.iter().map(|(a, v)| (raw_upper(a), *v)).collect()
    };
    Response {
        changes: raw(&c.net()),
        fees: raw(&c.fees),
        jettons: c
            .jettons
            .iter()
            .map(|(owner, by_master)| {
                let by_master = by_master
                    .iter()
                    .map(|(m, v)| (raw_upper(m), v.to_string()))
                    .collect();
                (raw_upper(owner), by_master)
            })
            .collect(),
    }
}

/// `GET /balanceChanges?trace_id=…` or `?action_id=…` (both: that action,
/// if it is of that trace).
pub fn balance_changes(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let r = &ctx.reader;
    let trace_id = p.parsed("trace_id", "a hash", parse_hash)?;
    let action_id = p.parsed("action_id", "a hash", parse_hash)?;
    let trace_id = match (trace_id, &action_id) {
        (Some(t), _) => t,
        (None, Some(a)) => query::traces::trace_of_action(r, a)?
            .ok_or_else(|| V3Error::not_found("action_id not found"))?,
        (None, None) => {
            return Err(V3Error::new(
                StatusCode::BAD_REQUEST,
                "trace_id or action_id is required",
            ))
        }
    };
    let trace = query::balances::of_trace(r, &trace_id)?
        .ok_or_else(|| V3Error::not_found("trace not found"))?;
    let Some(action_id) = action_id else {
        return to_json(&response(&trace.total));
    };
    // An action of another trace, or a deploy (toncenter counts none for
    // it), has nothing to show.
    let action = query::traces::trace_actions(r, &trace_id)?
        .into_iter()
        .find(|a| a.action_id == action_id && a.kind != "contract_deploy");
    match action {
        Some(a) => to_json(&response(&trace.of_action(&a.tx_hashes))),
        None => Ok("{}".to_string()),
    }
}
