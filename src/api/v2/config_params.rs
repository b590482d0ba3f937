//! v2 Config group (spec v2 §4.5): blockchain config from the newest key
//! block in the index, and libraries.

use serde::Serialize;
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::dict::Dict;

use super::{positive_seqno, to_json, V2Error, V2Result};
use crate::api::encoding::{b64, parse_hash, B64};
use crate::api::getmethod;
use crate::api::params::Params;
use crate::api::Ctx;
use crate::query;

fn config_info(boc: &[u8]) -> V2Result {
    to_json(&serde_json::json!({
        "@type": "configInfo",
        "config": { "@type": "tvm.cell", "bytes": b64(boc) },
    }))
}

/// The config dictionary in force at `seqno` (the newest when absent).
fn config_root(ctx: &Ctx<'_>, p: &Params) -> Result<Cell, V2Error> {
    let seqno = positive_seqno(p, "seqno")?;
    let Some((_, boc)) = query::config_in_force::config_at(&ctx.reader, seqno)? else {
        return Err(V2Error::not_found(
            "no key block with a config at or below this seqno is in the index",
        ));
    };
    tycho_types::boc::Boc::decode(&boc)
        .map_err(|e| V2Error::new(500, format!("stored config is unreadable: {e}")))
}

pub fn get_config_param(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    // `config_id` (both variants) wins over `param` (C++).
    let id: Option<i64> = match p.int("config_id")? {
        Some(id) => Some(id),
        None => p.int("param")?,
    };
    let Some(id) = id else {
        return Err(V2Error::invalid("config_id or param should be specified"));
    };
    let Ok(id) = u32::try_from(id) else {
        return Err(V2Error::invalid("param should be non-negative"));
    };
    let root = config_root(ctx, p)?;
    let dict = Dict::<u32, Cell>::from_raw(Some(root));
    match dict.get(id) {
        Ok(Some(cell)) => config_info(&crate::boc::encode_crc(&cell)),
        Ok(None) => Err(V2Error::not_found(format!("config param {id} is not set"))),
        Err(e) => Err(V2Error::new(
            500,
            format!("stored config is unreadable: {e}"),
        )),
    }
}

pub fn get_config_all(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let root = config_root(ctx, p)?;
    config_info(&crate::boc::encode_crc(&root))
}

/// Libraries by hash. The index stores no library cells (they live in
/// masterchain account states, not in blocks), so every requested
/// library is "unknown" and, as in tonlib, simply absent from the result.
#[derive(Serialize)]
struct LibraryEntry {
    #[serde(rename = "@type")]
    ty: &'static str,
    hash: B64,
    data: String,
}

#[derive(Serialize)]
struct LibraryResult {
    #[serde(rename = "@type")]
    ty: &'static str,
    result: Vec<LibraryEntry>,
}

/// Libraries of the held masterchain state; unknown hashes are left out.
pub fn get_libraries(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let hashes = p.parsed_all("libraries", "a hash", parse_hash)?;
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
    to_json(&LibraryResult {
        ty: "smc.libraryResult",
        result,
    })
}
