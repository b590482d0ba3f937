//! `getLibraries`: public library cells of the newest masterchain state
//! by hash, as get-methods and emulators fetch them. Unknown hashes are
//! left out of the answer (as a liteserver does); a client checks each
//! cell against the hash it asked by.

use ton_liteapi::tl::common::{Int256, LibraryEntry};
use ton_liteapi::tl::response::{LibraryResult, Response};
use tycho_types::cell::HashBytes;

use super::{code, error, refuse, LiteServer};
use crate::state::libraries;

/// The most libraries one query may ask for (a liteserver's limit).
const MAX_LIBRARIES: usize = 16;

impl LiteServer {
    pub(super) async fn libraries(&self, list: Vec<Int256>) -> Response {
        if list.len() > MAX_LIBRARIES {
            return error(
                code::PROTOVIOLATION,
                format!("at most {MAX_LIBRARIES} libraries are given per query"),
            );
        }
        let answer = self
            .read(move |ctx| {
                let fail = |e: crate::state::cells::CellError| refuse(code::ERROR, e.to_string());
                let Some(root) = libraries::root_hash(&ctx.reader).map_err(fail)? else {
                    return Ok(Vec::new());
                };
                let dict = libraries::load(&ctx.reader, &root).map_err(fail)?;
                let mut found = Vec::new();
                for hash in &list {
                    let lib = dict
                        .get(HashBytes(hash.0))
                        .map_err(|e| refuse(code::ERROR, e.to_string()))?;
                    if let Some(lib) = lib {
                        found.push(LibraryEntry {
                            hash: hash.clone(),
                            data: crate::boc::encode(lib.lib.as_ref()),
                        });
                    }
                }
                Ok(found)
            })
            .await;
        match answer {
            Ok(result) => Response::LibraryResult(LibraryResult { result }),
            Err(e) => *e,
        }
    }
}
