//! v2 Config group (spec v2 §4.5): blockchain config from the newest key
//! block in the index, and libraries.

use serde::Serialize;
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::dict::Dict;

use super::accounts::TvmCell;
use super::{positive_seqno, V2Error};
use crate::api::encoding::{b64, B64};
use crate::api::getmethod;
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::query;

/// tonlib's `configInfo`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ConfigInfo {
    #[serde(rename = "@type")]
    ty: &'static str,
    config: TvmCell,
}

fn config_info(boc: &[u8]) -> ConfigInfo {
    ConfigInfo {
        ty: "configInfo",
        config: TvmCell::new(b64(boc)),
    }
}

request! {
    /// The masterchain block whose config is in force.
    pub struct ConfigAtArgs {
        /// The config in force at this masterchain block (default: the newest)
        seqno: Option<i64>,
    }
}

request! {
    /// One config parameter (`config_id` or `param` is required).
    pub struct ConfigParamRequest {
        /// The parameter's number
        config_id: Option<i64>,
        /// Same as config_id (config_id wins)
        param: Option<i64>,
    }
    with { at: ConfigAtArgs }
}

/// The config dictionary in force at `seqno` (the newest when absent).
fn config_root(ctx: &Ctx<'_>, a: &ConfigAtArgs) -> Result<Cell, V2Error> {
    let seqno = positive_seqno(a.seqno, "seqno")?;
    let Some((_, boc)) = query::config_in_force::config_at(&ctx.reader, seqno)? else {
        return Err(V2Error::not_found(
            "no key block with a config at or below this seqno is in the index",
        ));
    };
    tycho_types::boc::Boc::decode(&boc)
        .map_err(|e| V2Error::new(500, format!("stored config is unreadable: {e}")))
}

pub fn get_config_param(
    ctx: &Ctx<'_>,
    _: &Params,
    q: ConfigParamRequest,
) -> Result<ConfigInfo, V2Error> {
    // `config_id` (both variants) wins over `param` (C++).
    let id = q.config_id.or(q.param);
    let Some(id) = id else {
        return Err(V2Error::invalid("config_id or param should be specified"));
    };
    let Ok(id) = u32::try_from(id) else {
        return Err(V2Error::invalid("param should be non-negative"));
    };
    let root = config_root(ctx, &q.at)?;
    let dict = Dict::<u32, Cell>::from_raw(Some(root));
    match dict.get(id) {
        Ok(Some(cell)) => Ok(config_info(&crate::boc::encode_crc(&cell))),
        Ok(None) => Err(V2Error::not_found(format!("config param {id} is not set"))),
        Err(e) => Err(V2Error::new(
            500,
            format!("stored config is unreadable: {e}"),
        )),
    }
}

pub fn get_config_all(ctx: &Ctx<'_>, _: &Params, q: ConfigAtArgs) -> Result<ConfigInfo, V2Error> {
    let root = config_root(ctx, &q)?;
    Ok(config_info(&crate::boc::encode_crc(&root)))
}

/// Libraries by hash. The index stores no library cells (they live in
/// masterchain account states, not in blocks), so every requested
/// library is "unknown" and, as in tonlib, simply absent from the result.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LibraryEntry {
    #[serde(rename = "@type")]
    ty: &'static str,
    hash: B64,
    data: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct LibraryResult {
    #[serde(rename = "@type")]
    ty: &'static str,
    result: Vec<LibraryEntry>,
}

request! {
    /// Library cells by hash.
    pub struct LibrariesRequest {
        /// Library hashes
        [required] libraries: Vec<[u8; 32]>,
    }
}

/// Libraries of the held masterchain state; unknown hashes are left out.
pub fn get_libraries(
    ctx: &Ctx<'_>,
    _: &Params,
    q: LibrariesRequest,
) -> Result<LibraryResult, V2Error> {
    let hashes = q.libraries;
    let held = getmethod::masterchain_libraries(ctx)?;
    let mut result = Vec::new();
    for hash in hashes {
        let found = held
            .get(HashBytes(hash))
            .map_err(|e| V2Error::new(500, format!("internal error: {e}")))?;
        if let Some(descr) = found {
            result.push(LibraryEntry {
                ty: "smc.libraryEntry",
                hash: B64(hash),
                data: b64(&crate::boc::encode_crc(descr.lib.as_ref())),
            });
        }
    }
    Ok(LibraryResult {
        ty: "smc.libraryResult",
        result,
    })
}
