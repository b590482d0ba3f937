//! `GET /api/streaming/v2/ws`: operations in, notifications out, one
//! JSON text frame each.

use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{json, Value as Json};

use super::hub::Client;
use super::subscription::{parse_addresses, trace_norms, Request, Subscription, Transport};
use super::{actions_version, not_live};
use crate::api::limits::StreamCaller;
use crate::api::Api;

pub async fn ws(
    State(api): State<Arc<Api>>,
    slot: Option<axum::Extension<crate::api::server::ConnSlot>>,
    caller: Option<axum::Extension<StreamCaller>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(upgrade) = upgrade else {
        return (StatusCode::UPGRADE_REQUIRED, "Upgrade Required").into_response();
    };
    if !api.streams().live() {
        return not_live();
    }
    let version = actions_version(&headers);
    let stream = match &caller {
        Some(c) => api.limits.open_stream(c).map(Some),
        None => Ok(None),
    };
    let cap = caller.and_then(|c| api.limits.stream_addresses(&c));
    upgrade.on_upgrade(move |mut socket| async move {
        // The connection's slot stays taken while the session lasts.
        let _slot = slot;
        match stream {
            Ok(stream) => {
                let _stream = stream;
                session(api, socket, version, cap).await
            }
            // As toncenter: the refusal as an error frame, then the close.
            Err(e) => {
                let _ = socket
                    .send(Message::Text(json!({ "error": e }).to_string().into()))
                    .await;
                let _ = socket.send(Message::Close(None)).await;
            }
        }
    })
}

/// The session's subscription and its place among the hub's clients.
struct Session {
    api: Arc<Api>,
    version: Vec<String>,
    sub: Option<Subscription>,
    client: Option<Client>,
    /// The key's own cap on addresses, if it has one.
    cap: Option<usize>,
}

async fn session(api: Arc<Api>, mut socket: WebSocket, version: Vec<String>, cap: Option<usize>) {
    let mut s = Session {
        api,
        version,
        sub: None,
        client: None,
        cap,
    };
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    let reply = s.operation(text.as_str());
                    if socket.send(Message::Text(reply.to_string().into())).await.is_err() {
                        break;
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            event = next(&mut s.client) => {
                let text = match event {
                    Some(text) => text.to_string(),
                    None => {
                        // Cut off: the last word, then the end.
                        let last = s.client.take().and_then(|c| c.closing_notification());
                        if let Some(last) = last {
                            let _ = socket.send(Message::Text(last.into())).await;
                        }
                        let _ = socket.send(Message::Close(None)).await;
                        break;
                    }
                };
                if socket.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// The client's next notification; never, before a subscription.
async fn next(client: &mut Option<Client>) -> Option<Arc<str>> {
    match client {
        Some(c) => c.recv().await,
        None => std::future::pending().await,
    }
}

#[derive(Deserialize)]
struct Envelope {
    id: Option<String>,
    operation: Option<String>,
}

#[derive(Deserialize)]
struct Unsubscribe {
    addresses: Option<Vec<String>>,
    trace_external_hash_norms: Option<Vec<String>>,
}

impl Session {
    /// Answers one operation.
    fn operation(&mut self, text: &str) -> Json {
        let envelope: Envelope = match serde_json::from_str(text) {
            Ok(e) => e,
            Err(e) => return json!({"error": format!("invalid request envelope: {e}")}),
        };
        let id = envelope.id;
        let answer = |key: &str, value: String| {
            let mut j = json!({ key: value });
            if let Some(id) = &id {
                j["id"] = id.clone().into();
            }
            j
        };
        let op = envelope.operation.unwrap_or_default();
        let done = match op.as_str() {
            "ping" => Ok("pong"),
            "subscribe" => self.subscribe(text).map(|()| "subscribed"),
            "unsubscribe" => self.unsubscribe(text).map(|()| "unsubscribed"),
            other => Err(format!("unknown operation: {other}")),
        };
        match done {
            Ok(status) => answer("status", status.into()),
            Err(e) => answer("error", e),
        }
    }

    fn subscribe(&mut self, text: &str) -> Result<(), String> {
        let mut req: Request =
            serde_json::from_str(text).map_err(|e| format!("invalid subscribe request: {e}"))?;
        // What a new subscribe leaves out stays as it was.
        if let Some(old) = &self.sub {
            if req.min_finality.is_none() {
                req.min_finality = Some(old.min_finality.as_str().into());
            }
        }
        let mut sub = Subscription::check(&req, Transport::WebSocket, &self.version)?;
        if let Some(old) = &self.sub {
            if req.include_address_book.is_none() {
                sub.include_address_book = old.include_address_book;
            }
            if req.include_metadata.is_none() {
                sub.include_metadata = old.include_metadata;
            }
            if sub.action_types.is_empty() {
                sub.action_types = old.action_types.clone();
            }
            if req
                .supported_action_types
                .as_ref()
                .is_none_or(|v| v.is_empty())
            {
                sub.supported = old.supported.clone();
            }
        }
        sub.within(self.cap)?;
        match req.since {
            // Starts the stream over from that block.
            Some(since) => {
                let mut client = self.api.streams().register(sub.clone());
                client.replay(&self.api, sub.clone(), since)?;
                self.client = Some(client);
                self.sub = Some(sub);
            }
            None => self.install(sub),
        }
        Ok(())
    }

    fn unsubscribe(&mut self, text: &str) -> Result<(), String> {
        let req: Unsubscribe =
            serde_json::from_str(text).map_err(|e| format!("invalid unsubscribe request: {e}"))?;
        let addresses = req.addresses.unwrap_or_default();
        let norms = req.trace_external_hash_norms.unwrap_or_default();
        if addresses.is_empty() && norms.is_empty() {
            return Err("addresses or trace_external_hash_norms are required".into());
        }
        let addresses = parse_addresses(&addresses)?;
        let norms = trace_norms(&norms)?;
        if let Some(mut sub) = self.sub.clone() {
            sub.addresses.retain(|a| !addresses.contains(a));
            sub.trace_norms.retain(|n| !norms.contains(n));
            self.install(sub);
        }
        Ok(())
    }

    fn install(&mut self, sub: Subscription) {
        match &self.client {
            Some(c) => self.api.streams().update(c.id, sub.clone()),
            None => self.client = Some(self.api.streams().register(sub.clone())),
        }
        self.sub = Some(sub);
    }
}
