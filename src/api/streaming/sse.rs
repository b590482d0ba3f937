//! `POST /api/streaming/v2/sse`: the subscription in the body, the
//! notifications as server-sent events.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body::Frame;

use super::hub::Client;
use super::subscription::{Request, Subscription, Transport};
use super::{actions_version, error, not_live};
use crate::api::limits::{StreamCaller, StreamSlot};
use crate::api::server::StreamActivity;
use crate::api::Api;

/// A comment line every so often, so that proxies and clients see a live stream.
const KEEPALIVE: Duration = Duration::from_secs(15);

pub async fn sse(
    State(api): State<Arc<Api>>,
    activity: Option<axum::Extension<StreamActivity>>,
    caller: Option<axum::Extension<StreamCaller>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !api.streams().live() {
        return not_live();
    }
    let req: Request = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                None,
                &format!("invalid subscription request: {e}"),
            )
        }
    };
    let sub = match Subscription::check(&req, Transport::Sse, &actions_version(&headers)) {
        Ok(s) => s,
        Err(e) => return error(StatusCode::BAD_REQUEST, req.id.as_deref(), &e),
    };
    // toncenter's order: the connection cap, then the key's address cap.
    let slot = match &caller {
        Some(c) => match api.limits.open_stream(c) {
            Ok(slot) => Some(slot),
            Err(e) => return error(StatusCode::TOO_MANY_REQUESTS, req.id.as_deref(), &e),
        },
        None => None,
    };
    let cap = caller.and_then(|c| api.limits.stream_addresses(&c));
    if let Err(e) = sub.within(cap) {
        return error(StatusCode::BAD_REQUEST, req.id.as_deref(), &e);
    }
    let mut client = api.streams().register(sub.clone());
    if let Some(since) = req.since {
        if let Err(e) = client.replay(&api, sub, since) {
            return error(StatusCode::BAD_REQUEST, req.id.as_deref(), &e);
        }
    }
    let mut connected = serde_json::json!({"status": "subscribed"});
    if let Some(id) = &req.id {
        connected["id"] = id.clone().into();
    }
    let body = SseBody {
        first: Some(Bytes::from(format!(
            "event: connected\ndata: {connected}\n\n"
        ))),
        client,
        keepalive: tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE),
        ended: false,
        activity: activity.map(|a| a.0.hold()),
        _slot: slot,
    };
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        axum::body::Body::new(body),
    )
        .into_response()
}

/// The event stream of one client.
struct SseBody {
    first: Option<Bytes>,
    client: Client,
    keepalive: tokio::time::Interval,
    ended: bool,
    /// Keeps the connection from counting as idle while it streams.
    activity: Option<crate::api::server::ActivityHold>,
    /// The stream's place under its key's (or address's) cap.
    _slot: Option<StreamSlot>,
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let frame = |text: String| Poll::Ready(Some(Ok(Frame::data(Bytes::from(text)))));
        if let Some(first) = this.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        if this.ended {
            return Poll::Ready(None);
        }
        match this.client.poll_recv(cx) {
            Poll::Ready(Some(event)) => {
                if let Some(a) = &this.activity {
                    a.touch();
                }
                frame(format!("event: event\ndata: {event}\n\n"))
            }
            Poll::Ready(None) => {
                this.ended = true;
                match this.client.closing_notification() {
                    Some(last) => frame(format!("event: event\ndata: {last}\n\n")),
                    None => Poll::Ready(None),
                }
            }
            Poll::Pending => match this.keepalive.poll_tick(cx) {
                Poll::Ready(_) => frame(": keepalive\n\n".into()),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}
