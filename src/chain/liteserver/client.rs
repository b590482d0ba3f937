//! A lite API connection that carries many queries at once: the follower
//! asks for the states of every account a block changed together, one
//! round trip for all of them instead of one each. Built from the `adnl`
//! peer, our byte-level frames (`frames.rs`, so that queries
//! `ton_liteapi` does not know can travel too) and tokio-tower's
//! multiplexing client (queries matched to answers by id);
//! `ton_liteapi`'s `LiteClient` takes one query at a time.

use adnl::AdnlPeer;
use ton_liteapi::tl::request::{LiteQuery, Request, WrappedRequest};
use ton_liteapi::tl::response::Response;
use ton_liteapi::types::LiteError;
use tower04::{Service as _, ServiceExt as _};

use super::frames::{Frame, FramePeer, LiteEnvelope};
use super::LiteServerAddr;

type Inner =
    tower04::util::BoxService<Frame, Frame, Box<dyn std::error::Error + Send + Sync + 'static>>;

/// One connection to a lite server, shared by concurrent queries.
pub struct Multiplexed {
    service: tokio::sync::Mutex<Inner>,
}

impl Multiplexed {
    pub async fn connect(server: &LiteServerAddr) -> Result<Self, LiteError> {
        let adnl = AdnlPeer::connect(server.key, server.addr).await?;
        let client = tokio_tower::multiplex::Client::<
            _,
            Box<dyn std::error::Error + Send + Sync + 'static>,
            _,
        >::new(FramePeer::new(adnl));
        Ok(Self {
            service: tokio::sync::Mutex::new(client.boxed()),
        })
    }

    /// Sends `query` (a `liteServer.query`'s bytes) and waits for its
    /// answer's bytes; other queries may be sent meanwhile (the
    /// connection is held only while sending).
    async fn exchange(&self, query: Vec<u8>) -> Result<Vec<u8>, LiteError> {
        let answer = {
            let mut service = self.service.lock().await;
            service
                .ready()
                .await
                .map_err(LiteError::UnknownError)?
                .call(Frame::Query {
                    query_id: [0; 32],
                    query,
                })
        };
        match answer.await.map_err(LiteError::UnknownError)? {
            Frame::Answer { answer, .. } => Ok(answer),
            _ => Err(LiteError::UnexpectedMessage),
        }
    }

    /// Sends `request` and waits for its answer; a `liteServer.error` is
    /// [`LiteError::ServerError`].
    pub async fn query(&self, request: Request) -> Result<Response, LiteError> {
        let query = tl_proto::serialize(LiteQuery {
            wrapped_request: WrappedRequest {
                wait_masterchain_seqno: None,
                request,
            },
        });
        let answer = self.exchange(query).await?;
        match tl_proto::deserialize::<Response>(&answer).map_err(LiteError::TlError)? {
            Response::Error(e) => Err(LiteError::ServerError(e)),
            r => Ok(r),
        }
    }

    /// Sends a function call `ton_liteapi` does not know (`call`: its TL
    /// bytes) and returns the answer's bytes, or the server's error
    /// message when it refuses.
    pub async fn query_raw(&self, call: Vec<u8>) -> Result<Result<Vec<u8>, String>, LiteError> {
        let answer = self
            .exchange(tl_proto::serialize(LiteEnvelope { data: call }))
            .await?;
        let error_id = 0xbba9e148u32.to_le_bytes();
        if answer.get(..4) == Some(&error_id[..]) {
            return match tl_proto::deserialize::<Response>(&answer).map_err(LiteError::TlError)? {
                Response::Error(e) => Ok(Err(format!("{} (code {})", e.message, e.code))),
                _ => Err(LiteError::UnexpectedMessage),
            };
        }
        Ok(Ok(answer))
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
