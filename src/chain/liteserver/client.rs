//! A lite API connection that carries many queries at once: the follower
//! asks for the states of every account a block changed together, one
//! round trip for all of them instead of one each. Built from
//! `ton_liteapi`'s own parts (the ADNL peer, its message layers and
//! tokio-tower's multiplexing client, queries matched to answers by id);
//! its `LiteClient` takes one query at a time.

use adnl::AdnlPeer;
use ton_liteapi::layers::{UnwrapErrorLayer, WrapMessagesLayer};
use ton_liteapi::peer::LitePeer;
use ton_liteapi::tl::request::{Request, WrappedRequest};
use ton_liteapi::tl::response::Response;
use ton_liteapi::types::LiteError;
use tower04::{Service as _, ServiceBuilder, ServiceExt as _};

use super::LiteServerAddr;

type Inner = tower04::util::BoxService<WrappedRequest, Response, LiteError>;

/// One connection to a lite server, shared by concurrent queries.
pub struct Multiplexed {
    service: tokio::sync::Mutex<Inner>,
}

impl Multiplexed {
    pub async fn connect(server: &LiteServerAddr) -> Result<Self, LiteError> {
        let adnl = AdnlPeer::connect(server.key, server.addr).await?;
        let service = ServiceBuilder::new()
            .layer(UnwrapErrorLayer)
            .layer(WrapMessagesLayer)
            .service(tokio_tower::multiplex::Client::<
                _,
                Box<dyn std::error::Error + Send + Sync + 'static>,
                _,
            >::new(LitePeer::new(adnl)));
        Ok(Self {
            service: tokio::sync::Mutex::new(service.boxed()),
        })
    }

    /// Sends `request` and waits for its answer; other queries may be sent
    /// meanwhile (the connection is held only while sending).
    pub async fn query(&self, request: Request) -> Result<Response, LiteError> {
        let answer = {
            let mut service = self.service.lock().await;
            service.ready().await?.call(WrappedRequest {
                wait_masterchain_seqno: None,
                request,
            })
        };
        answer.await
    }
}

impl Multiplexed {
    /// `getBlockProof` from `known` to `target`.
    pub async fn block_proof(
        &self,
        known: &tonindex_model::BlockIdExt,
        target: &tonindex_model::BlockIdExt,
    ) -> anyhow::Result<ton_liteapi::tl::response::PartialBlockProof> {
        let answer = self
            .query(Request::GetBlockProof(
                ton_liteapi::tl::request::GetBlockProof {
                    mode: (),
                    known_block: super::follow::lite_id(known),
                    target_block: Some(super::follow::lite_id(target)),
                    allow_weak_target: None,
                    base_block_from_request: None,
                },
            ))
            .await;
        expect(answer, |r| match r {
            Response::PartialBlockProof(p) => Some(p),
            _ => None,
        })
    }

    /// `getBlock` of `id`, its file hash checked.
    pub async fn block(&self, id: &tonindex_model::BlockIdExt) -> anyhow::Result<Vec<u8>> {
        let answer = self
            .query(Request::GetBlock(ton_liteapi::tl::request::GetBlock {
                id: super::follow::lite_id(id),
            }))
            .await;
        let data = expect(answer, |r| match r {
            Response::BlockData(b) => Some(b.data),
            _ => None,
        })?;
        if crate::decode::file_hash(&data) != id.file_hash {
            anyhow::bail!("the block sent is not the one asked for");
        }
        Ok(data)
    }
}

/// A lite API answer of the expected kind, or why not.
pub fn expect<T>(
    answer: Result<Response, LiteError>,
    pick: impl FnOnce(Response) -> Option<T>,
) -> anyhow::Result<T> {
    match answer {
        Ok(r) => pick(r).ok_or_else(|| anyhow::anyhow!("an answer of another kind")),
        Err(LiteError::ServerError(e)) => anyhow::bail!("{}", e.message),
        Err(e) => anyhow::bail!("{e:?}"),
    }
}

/// The cells of a `getLibraries` answer, each checked against the hash it
/// came under and against `asked` (a server cannot forge a library: its
/// hash is its name).
pub fn checked_libraries(
    entries: Vec<ton_liteapi::tl::common::LibraryEntry>,
    asked: &[tycho_types::cell::HashBytes],
) -> anyhow::Result<Vec<tycho_types::cell::Cell>> {
    let mut cells = Vec::new();
    for e in entries {
        let cell = tycho_types::boc::Boc::decode(&e.data)?;
        if cell.repr_hash().0 != e.hash.0 || !asked.contains(cell.repr_hash()) {
            anyhow::bail!("the lite server sent a library cell that is not the one asked for");
        }
        cells.push(cell);
    }
    Ok(cells)
}
