//! ADNL-TCP messages with their lite API queries and answers left as
//! bytes. `ton_liteapi`'s own peer parses every query and answer into its
//! closed `Request`/`Response` enums, so a query it does not know (the
//! `liteServer.nonfinal.*` family, `nonfinal.rs`) fails the whole
//! connection; with the bytes in hand, each side parses the known ones
//! with `ton_liteapi`'s types and the others itself.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use adnl::AdnlError;
use bytes::Bytes;
use futures::{Sink, Stream};
use tl_proto::{TlRead, TlWrite};
use tokio_tower::multiplex::TagStore;
use ton_liteapi::types::LiteError;

/// One ADNL message (`adnl.message.query`, `adnl.message.answer`,
/// `tcp.ping`, `tcp.pong`), its payload as bytes.
#[derive(Debug, Clone, PartialEq, Eq, TlRead, TlWrite)]
#[tl(boxed)]
pub enum Frame {
    /// `adnl.message.query query_id:int256 query:bytes = adnl.Message`
    #[tl(id = 0xb48bf97a)]
    Query { query_id: [u8; 32], query: Vec<u8> },
    /// `adnl.message.answer query_id:int256 answer:bytes = adnl.Message`
    #[tl(id = 0x0fac8416)]
    Answer { query_id: [u8; 32], answer: Vec<u8> },
    /// `tcp.ping random_id:long = tcp.Pong`
    #[tl(id = 0x4d082b9a)]
    Ping { random_id: u64 },
    /// `tcp.pong random_id:long = tcp.Pong`
    #[tl(id = 0xdc69fb03)]
    Pong { random_id: u64 },
}

pin_project_lite::pin_project! {
    /// An ADNL connection carrying [`Frame`]s, for tokio-tower's
    /// multiplexing client and server (queries matched to answers by
    /// `query_id`).
    pub struct FramePeer<T> {
        #[pin]
        inner: T,
    }
}

impl<T> FramePeer<T> {
    pub fn new(inner: T) -> Self {
        Self { inner }
    }
}

fn adnl(e: AdnlError) -> LiteError {
    LiteError::AdnlError(e)
}

impl<T: Sink<Bytes, Error = AdnlError>> Sink<Frame> for FramePeer<T> {
    type Error = LiteError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), LiteError>> {
        self.project().inner.poll_ready(cx).map_err(adnl)
    }

    fn start_send(self: Pin<&mut Self>, frame: Frame) -> Result<(), LiteError> {
        let bytes = Bytes::from(tl_proto::serialize(frame));
        self.project().inner.start_send(bytes).map_err(adnl)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), LiteError>> {
        self.project().inner.poll_flush(cx).map_err(adnl)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), LiteError>> {
        self.project().inner.poll_close(cx).map_err(adnl)
    }
}

impl<T: Stream<Item = Result<Bytes, AdnlError>>> Stream for FramePeer<T> {
    type Item = Result<Frame, LiteError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.project().inner.poll_next(cx).map(|next| {
            next.map(|r| match r {
                Ok(bytes) => tl_proto::deserialize(&bytes).map_err(LiteError::TlError),
                Err(e) => Err(adnl(e)),
            })
        })
    }
}

/// What matches an answer to its query: the query's id, or a ping's.
#[derive(Debug, PartialEq, Eq)]
pub enum Tag {
    Query([u8; 32]),
    Ping(u64),
}

/// A tag no other query of the process has had: ids need only be unique on
/// their connection (the channel is encrypted), so a counter serves.
fn next_tag() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl<T> TagStore<Frame, Frame> for FramePeer<T> {
    type Tag = Tag;

    fn assign_tag(self: Pin<&mut Self>, frame: &mut Frame) -> Tag {
        match frame {
            Frame::Query { query_id, .. } | Frame::Answer { query_id, .. } => {
                *query_id = [0; 32];
                query_id[..8].copy_from_slice(&next_tag().to_le_bytes());
                Tag::Query(*query_id)
            }
            Frame::Ping { random_id } | Frame::Pong { random_id } => {
                *random_id = next_tag();
                Tag::Ping(*random_id)
            }
        }
    }

    fn finish_tag(self: Pin<&mut Self>, frame: &Frame) -> Tag {
        match frame {
            Frame::Query { query_id, .. } | Frame::Answer { query_id, .. } => Tag::Query(*query_id),
            Frame::Ping { random_id } | Frame::Pong { random_id } => Tag::Ping(*random_id),
        }
    }
}

/// `liteServer.query data:bytes = Object`: the envelope of every lite API query.
#[derive(Debug, Clone, PartialEq, Eq, TlRead, TlWrite)]
#[tl(
    boxed,
    id = "liteServer.query",
    scheme_inline = r"liteServer.query data:bytes = Object;"
)]
pub struct LiteEnvelope {
    pub data: Vec<u8>,
}

/// `liteServer.waitMasterchainSeqno seqno:int timeout_ms:int = Object`, the
/// prefix a query may carry.
#[derive(Debug, Clone, PartialEq, Eq, TlRead, TlWrite)]
#[tl(
    boxed,
    id = "liteServer.waitMasterchainSeqno",
    scheme_inline = r"liteServer.waitMasterchainSeqno seqno:int timeout_ms:int = Object;"
)]
pub struct WaitPrefix {
    pub seqno: u32,
    pub timeout_ms: u32,
}

/// A query's data split into its optional wait prefix and the function
/// call itself (its constructor id first).
pub fn split_wait(data: &[u8]) -> (Option<WaitPrefix>, &[u8]) {
    let wait_id = WaitPrefix::TL_ID.to_le_bytes();
    if data.len() >= 12 && data[..4] == wait_id {
        if let Ok(w) = tl_proto::deserialize::<WaitPrefix>(&data[..12]) {
            return (Some(w), &data[12..]);
        }
    }
    (None, data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ton_liteapi::tl::adnl::Message;
    use ton_liteapi::tl::request::{LiteQuery, Request, WaitMasterchainSeqno, WrappedRequest};

    /// Our frames are byte for byte `ton_liteapi`'s messages, both ways.
    #[test]
    fn frames_are_the_crates_messages_as_bytes() {
        let wrapped = WrappedRequest {
            wait_masterchain_seqno: Some(WaitMasterchainSeqno {
                seqno: 7,
                timeout_ms: 1000,
            }),
            request: Request::GetTime,
        };
        let typed = Message::Query {
            query_id: ton_liteapi::tl::common::Int256([9; 32]),
            query: LiteQuery {
                wrapped_request: wrapped.clone(),
            },
        };
        let bytes = tl_proto::serialize(&typed);
        let frame: Frame = tl_proto::deserialize(&bytes).unwrap();
        let Frame::Query { query_id, query } = &frame else {
            panic!("{frame:?}")
        };
        assert_eq!(*query_id, [9; 32]);
        assert_eq!(tl_proto::serialize(&frame), bytes);
        let envelope: LiteEnvelope = tl_proto::deserialize(query).unwrap();
        let (wait, call) = split_wait(&envelope.data);
        assert_eq!(
            wait,
            Some(WaitPrefix {
                seqno: 7,
                timeout_ms: 1000
            })
        );
        assert_eq!(call, tl_proto::serialize(Request::GetTime));
        let ping: Frame =
            tl_proto::deserialize(&tl_proto::serialize(Message::Ping { random_id: 5 })).unwrap();
        assert_eq!(ping, Frame::Ping { random_id: 5 });
    }
}
