//! CORS for both APIs, so that a dApp in a browser can call them as it
//! calls toncenter (which answers any origin). On by default; the allowed
//! origins are configurable (`[serve.cors]`), and preflight `OPTIONS`
//! requests are answered here, before any handler.

use std::time::Duration;

use axum::http::{header, HeaderName, HeaderValue, Method};
use serde::{Deserialize, Serialize};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// `[serve.cors]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CorsConfig {
    /// Answer cross-origin requests at all.
    pub enabled: bool,
    /// Origins allowed (`scheme://host[:port]`); `"*"` allows any.
    pub allow_origins: Vec<String>,
    /// How long a browser may cache a preflight answer, in seconds.
    pub max_age_secs: u64,
}

impl Default for CorsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            allow_origins: vec!["*".into()],
            max_age_secs: 86_400,
        }
    }
}

impl CorsConfig {
    /// Why the configured origins cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        for o in &self.allow_origins {
            if o != "*" && HeaderValue::from_str(o).is_err() {
                return Err(format!("serve.cors.allow_origins: {o:?} is not an origin"));
            }
        }
        Ok(())
    }

    /// The layer answering preflights and adding the headers, or `None`
    /// when CORS is off.
    pub fn layer(&self) -> Option<CorsLayer> {
        if !self.enabled {
            return None;
        }
        let origin = if self.allow_origins.iter().any(|o| o == "*") {
            AllowOrigin::any()
        } else {
            AllowOrigin::list(
                self.allow_origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o).ok()),
            )
        };
        Some(
            CorsLayer::new()
                .allow_origin(origin)
                .allow_methods([Method::GET, Method::POST, Method::HEAD, Method::OPTIONS])
                .allow_headers([
                    header::CONTENT_TYPE,
                    header::AUTHORIZATION,
                    HeaderName::from_static("x-api-key"),
                ])
                .expose_headers([
                    HeaderName::from_static("x-api-version"),
                    HeaderName::from_static("x-tonindex-config"),
                ])
                .max_age(Duration::from_secs(self.max_age_secs)),
        )
    }
}
