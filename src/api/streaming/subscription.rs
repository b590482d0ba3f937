//! What a streaming client subscribes to: the request as toncenter's
//! Streaming API v2 takes it (SSE body, WebSocket `subscribe` and
//! `unsubscribe`), checked in its order and with its error texts.

use std::collections::HashSet;

use serde::Deserialize;
use tonindex_model::Address;

use crate::api::encoding::parse_address;

/// Addresses one subscription may name: a client cannot make every commit
/// cost the server more than this many lookups on its behalf.
pub const MAX_ADDRESSES: usize = 10_000;

/// How final a notification is; a client asks for a lowest level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Finality {
    /// Emulated from a message accepted but in no block yet.
    Pending,
    /// In a shard block no masterchain block commits yet.
    Confirmed,
    /// Committed by a masterchain block.
    Finalized,
}

impl Finality {
    pub fn as_str(self) -> &'static str {
        match self {
            Finality::Pending => "pending",
            Finality::Confirmed => "confirmed",
            Finality::Finalized => "finalized",
        }
    }

    fn parse(s: &str) -> Result<Self, String> {
        match s {
            "pending" => Ok(Finality::Pending),
            "confirmed" => Ok(Finality::Confirmed),
            "finalized" => Ok(Finality::Finalized),
            other => Err(format!("unknown finality state: {other}")),
        }
    }
}

/// A kind of notification a client may subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Transactions,
    Actions,
    Trace,
    AccountStateChange,
    JettonsChange,
}

impl Kind {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "transactions" => Kind::Transactions,
            "actions" => Kind::Actions,
            "trace" => Kind::Trace,
            "account_state_change" => Kind::AccountStateChange,
            "jettons_change" => Kind::JettonsChange,
            _ => return None,
        })
    }
}

/// A subscription as sent (SSE body; WebSocket `subscribe` and
/// `unsubscribe`, whose `operation` and `id` are read apart). Keys not
/// named here are ignored, as toncenter does.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(as = StreamingSubscription)]
pub struct Request {
    pub id: Option<String>,
    pub addresses: Option<Vec<String>>,
    pub trace_external_hash_norms: Option<Vec<String>>,
    pub types: Option<Vec<String>>,
    pub min_finality: Option<String>,
    pub action_types: Option<Vec<String>>,
    pub supported_action_types: Option<Vec<String>>,
    pub include_address_book: Option<bool>,
    pub include_metadata: Option<bool>,
    /// tonindex's own: the masterchain block to replay from (the
    /// `missed_from_mc_seqno` of a stream that was cut off), before the
    /// live notifications. toncenter ignores it.
    pub since: Option<u32>,
}

/// A checked subscription.
#[derive(Debug, Clone)]
pub struct Subscription {
    pub types: HashSet<Kind>,
    pub addresses: HashSet<Address>,
    /// Normalized external-in message hashes (base64, as sent), for `trace`.
    pub trace_norms: HashSet<String>,
    pub min_finality: Finality,
    pub include_address_book: bool,
    pub include_metadata: bool,
    /// Action types to send (empty: every type the client supports).
    pub action_types: HashSet<String>,
    /// The action types the client understands, shortcuts expanded.
    pub supported: HashSet<String>,
}

/// Where a request came from: the two transports word two errors apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Sse,
    WebSocket,
}

impl Subscription {
    /// Checks a subscription request; `actions_version` is the
    /// `X-Actions-Version` header's values, the fallback for
    /// `supported_action_types`.
    pub fn check(
        req: &Request,
        transport: Transport,
        actions_version: &[String],
    ) -> Result<Self, String> {
        // toncenter refuses an unknown level while it reads the request.
        let min_finality = match &req.min_finality {
            Some(f) => Finality::parse(f).map_err(|e| match transport {
                Transport::Sse => format!("invalid subscription request: {e}"),
                Transport::WebSocket => format!("invalid subscribe request: {e}"),
            })?,
            None => Finality::Finalized,
        };
        let names = req.types.as_deref().unwrap_or_default();
        if names.is_empty() {
            return Err(match transport {
                Transport::Sse => "types are required for subscription",
                Transport::WebSocket => "types are required",
            }
            .into());
        }
        let mut types = HashSet::new();
        for name in names {
            types.insert(Kind::parse(name).ok_or_else(|| format!("invalid event type: {name}"))?);
        }
        let addresses = parse_addresses(req.addresses.as_deref().unwrap_or_default())?;
        if addresses.len() > MAX_ADDRESSES {
            return Err(format!(
                "too many addresses: {} > max {MAX_ADDRESSES}",
                addresses.len()
            ));
        }
        let trace_norms =
            trace_norms(req.trace_external_hash_norms.as_deref().unwrap_or_default())?;
        let traced = types.contains(&Kind::Trace);
        if !trace_norms.is_empty() && !traced {
            return Err("trace_external_hash_norms requires type \"trace\"".into());
        }
        if traced && trace_norms.is_empty() {
            return Err("trace_external_hash_norms are required for trace subscription".into());
        }
        if types.iter().any(|k| *k != Kind::Trace) && addresses.is_empty() {
            return Err(match transport {
                Transport::Sse => "addresses are required for subscription",
                Transport::WebSocket => "addresses are required",
            }
            .into());
        }
        let mut supported_names: Vec<String> =
            req.supported_action_types.clone().unwrap_or_default();
        if supported_names.is_empty() {
            supported_names = actions_version.to_vec();
        }
        Ok(Self {
            types,
            addresses,
            trace_norms,
            min_finality,
            include_address_book: req.include_address_book.unwrap_or(false),
            include_metadata: req.include_metadata.unwrap_or(false),
            action_types: req.action_types.iter().flatten().cloned().collect(),
            supported: crate::api::v3::action_types::supported_set(&supported_names),
        })
    }

    /// Checks the addresses against a key's own cap (`stream_addresses`).
    pub fn within(&self, cap: Option<usize>) -> Result<(), String> {
        match cap {
            Some(max) if self.addresses.len() > max => Err(format!(
                "too many addresses: {} > max {max}",
                self.addresses.len()
            )),
            _ => Ok(()),
        }
    }

    /// Whether the client wants notifications of `kind` at `finality`.
    pub fn wants(&self, kind: Kind, finality: Finality) -> bool {
        self.types.contains(&kind) && finality >= self.min_finality
    }
}

/// Addresses in any form, as raw addresses, each once.
pub fn parse_addresses(given: &[String]) -> Result<HashSet<Address>, String> {
    given
        .iter()
        .map(|a| {
            parse_address(a)
                .map(|p| p.address)
                .ok_or_else(|| format!("invalid address: {a}"))
        })
        .collect()
}

/// Trace keys, trimmed, each once.
pub fn trace_norms(given: &[String]) -> Result<HashSet<String>, String> {
    given
        .iter()
        .map(|n| {
            let n = n.trim();
            if n.is_empty() {
                Err("trace_external_hash_norms contains empty value".to_string())
            } else {
                Ok(n.to_string())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(v: serde_json::Value) -> Request {
        serde_json::from_value(v).unwrap()
    }

    fn check(v: serde_json::Value) -> Result<Subscription, String> {
        Subscription::check(&req(v), Transport::Sse, &[])
    }

    #[test]
    fn subscriptions_are_checked_in_toncenters_order_with_its_words() {
        let wallet = format!("0:{}", "ab".repeat(32));
        assert_eq!(
            check(serde_json::json!({})).unwrap_err(),
            "types are required for subscription"
        );
        assert_eq!(
            Subscription::check(
                &req(serde_json::json!({"types": []})),
                Transport::WebSocket,
                &[]
            )
            .unwrap_err(),
            "types are required"
        );
        assert_eq!(
            check(serde_json::json!({"types": ["trace_invalidated"]})).unwrap_err(),
            "invalid event type: trace_invalidated"
        );
        assert_eq!(
            check(serde_json::json!({"types": ["transactions"], "addresses": ["nope"]}))
                .unwrap_err(),
            "invalid address: nope"
        );
        assert_eq!(
            check(serde_json::json!({"types": ["trace"], "trace_external_hash_norms": [" "]}))
                .unwrap_err(),
            "trace_external_hash_norms contains empty value"
        );
        assert_eq!(
            check(serde_json::json!({"types": ["actions"], "addresses": [wallet], "trace_external_hash_norms": ["x"]}))
                .unwrap_err(),
            "trace_external_hash_norms requires type \"trace\""
        );
        assert_eq!(
            check(serde_json::json!({"types": ["trace"]})).unwrap_err(),
            "trace_external_hash_norms are required for trace subscription"
        );
        assert_eq!(
            check(serde_json::json!({"types": ["trace", "transactions"], "trace_external_hash_norms": ["x"]}))
                .unwrap_err(),
            "addresses are required for subscription"
        );
        assert_eq!(
            check(serde_json::json!({"types": ["transactions"], "addresses": [wallet], "min_finality": "soon"}))
                .unwrap_err(),
            "invalid subscription request: unknown finality state: soon"
        );
        let many: Vec<String> = (0..=MAX_ADDRESSES).map(|i| format!("0:{i:064x}")).collect();
        assert_eq!(
            check(serde_json::json!({"types": ["transactions"], "addresses": many})).unwrap_err(),
            format!(
                "too many addresses: {} > max {MAX_ADDRESSES}",
                MAX_ADDRESSES + 1
            )
        );
        let s = check(serde_json::json!({
            "types": ["transactions", "trace"],
            "addresses": [wallet.clone(), wallet.to_uppercase()],
            "trace_external_hash_norms": [" abc ", "abc"],
        }))
        .unwrap();
        assert_eq!((s.addresses.len(), s.trace_norms.len()), (1, 1));
        assert_eq!(s.min_finality, Finality::Finalized);
        assert!(s.wants(Kind::Transactions, Finality::Finalized));
        assert!(!s.wants(Kind::Transactions, Finality::Pending));
        assert!(!s.wants(Kind::Actions, Finality::Finalized));
        assert!(s.supported.contains("ton_transfer"));
    }
}
