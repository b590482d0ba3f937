//! `GET /balanceChanges` (spec v3 §3.12, undocumented upstream): what a
//! trace, or one action of it, did to each account's nanotons (value less
//! fees), its fees alone, and Jetton amounts by owner and master. The
//! counting lives in `query::balances`.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use serde::Serialize;

use super::V3Error;
use crate::api::encoding::raw_upper;
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::query;
use crate::query::balances::Changes;

/// Changes by raw address.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Changed {
    /// Nanotons each account gained (value less fees; negative: lost)
    changes: BTreeMap<String, i128>,
    /// Fees each account paid
    fees: BTreeMap<String, i128>,
    /// Jetton units by owner, then by master
    jettons: BTreeMap<String, BTreeMap<String, String>>,
}

/// Nothing changed: an action of another trace, or a deploy.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Unchanged {}

/// `/balanceChanges`' answer.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum BalanceChanges {
    Changed(Changed),
    Unchanged(Unchanged),
}

request! {
    /// A trace, or one of its actions.
    pub struct BalanceChangesRequest {
        /// The trace
        trace_id: Option<[u8; 32]>,
        /// One action (of trace_id, when both are given)
        action_id: Option<[u8; 32]>,
    }
}

fn response(c: &Changes) -> BalanceChanges {
    let raw = |m: &BTreeMap<tonindex_model::Address, i128>| {
        m.iter().map(|(a, v)| (raw_upper(a), *v)).collect()
    };
    BalanceChanges::Changed(Changed {
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
    })
}

/// `GET /balanceChanges?trace_id=…` or `?action_id=…` (both: that action,
/// if it is of that trace).
pub fn balance_changes(
    ctx: &Ctx<'_>,
    _: &Params,
    q: BalanceChangesRequest,
) -> Result<BalanceChanges, V3Error> {
    let r = &ctx.reader;
    let (trace_id, action_id) = (q.trace_id, q.action_id);
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
        return Ok(response(&trace.total));
    };
    // An action of another trace, or a deploy (toncenter counts none for
    // it), has nothing to show.
    let action = query::traces::trace_actions(r, &trace_id)?
        .into_iter()
        .find(|a| a.action_id == action_id && a.kind != "contract_deploy");
    match action {
        Some(a) => Ok(response(&trace.of_action(&a.tx_hashes))),
        None => Ok(BalanceChanges::Unchanged(Unchanged {})),
    }
}
