//! The API's description of itself: OpenAPI 3.1 documents of v2 and v3,
//! derived from the APIs' endpoint tables (`crate::api::v2::ENDPOINTS`,
//! `crate::api::v3::ENDPOINTS`): each endpoint's parameters come from the
//! request struct its handler reads (`crate::api::request`), its answer
//! from the response type it returns (utoipa's `ToSchema` derive). Nothing
//! here names a field. Served at `/api/{v2,v3}/openapi.json`, with Swagger
//! UI over them at `/api/v3/index.html` and `/api/v2/`. Swagger UI's files
//! are utoipa-swagger-ui's vendored copy, embedded in the binary: the docs
//! need no network at build or run time.
//!
//! Each document is built once as JSON, then read into utoipa's OpenAPI
//! types, which checks its structure; what is served is utoipa's writing of
//! it (a unit test checks that nothing is lost on the way).

use std::sync::{Arc, OnceLock};

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::{json, Map, Value};
use utoipa::openapi::{schema::Schema, RefOr};

use super::request::ParamDoc;
use super::{Api, V2_API_VERSION, V3_API_VERSION};

mod v2_document;
mod v3_document;

use v2_document::v2_doc;
pub use v3_document::service_routes;
use v3_document::v3_doc;

/// A route served beside v3 outside its dispatcher (Emulate API v1,
/// Streaming API v2), described by its body and answer types; the
/// router serves the same path constants.
pub struct ServiceRoute {
    /// The full path (`/api/emulate/v1/emulateTrace`).
    pub path: &'static str,
    pub method: HttpMethod,
    pub tag: &'static str,
    pub summary: &'static str,
    /// Error statuses it answers besides the common ones.
    pub errors: &'static [u16],
    /// The JSON body's schema, when it takes one.
    pub body: Option<SchemaFn>,
    pub answer: Answer,
    /// Error statuses whose body is the answer's schema too (healthz's 503).
    pub answered_also: &'static [u16],
}

/// A schema of a type, the schemas it refers to added to the components.
pub type SchemaFn = fn(&mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema>;

/// [`SchemaFn`] of a type.
pub fn schema_of<T: utoipa::ToSchema>(
    components: &mut Vec<(String, RefOr<Schema>)>,
) -> RefOr<Schema> {
    T::schemas(components);
    T::schema()
}

/// The HTTP method of a [`ServiceRoute`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMethod {
    Get,
    Post,
}

/// What a [`ServiceRoute`] answers on success.
pub enum Answer {
    /// JSON of this schema.
    Json(SchemaFn),
    /// A stream of server-sent events.
    EventStream(&'static str),
    /// A switch to the WebSocket protocol.
    WebSocket(&'static str),
}

/// Which API a document or a Swagger UI page is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    V2,
    V3,
}

impl Which {
    fn prefix(self) -> &'static str {
        match self {
            Which::V2 => "/api/v2",
            Which::V3 => "/api/v3",
        }
    }
}

/// The files of Swagger UI that its `index.html` loads, served beside it.
pub const UI_FILES: &[&str] = &[
    "index.html",
    "index.css",
    "swagger-ui.css",
    "swagger-ui-bundle.js",
    "swagger-ui-standalone-preset.js",
    "swagger-initializer.js",
    "favicon-16x16.png",
    "favicon-32x32.png",
    "oauth2-redirect.html",
    "oauth2-redirect.js",
];

/// The docs routes of one API, for its router: `openapi.json`, Swagger
/// UI's files and, for v2, the UI at the API's root (`/api/v2/`). Static
/// routes, so they win over the APIs' method routes.
pub fn routes(which: Which) -> Router<Arc<Api>> {
    let mut r = Router::new().route("/openapi.json", get(move || async move { document(which) }));
    for &file in UI_FILES {
        r = r.route(
            &format!("/{file}"),
            get(move || async move { ui(which, file) }),
        );
    }
    match which {
        // `/api/v2` (the nested root); `/api/v2/` is the top router's.
        Which::V2 => r.route("/", get(v2_root)),
        // The Go server's name for its swagger document.
        Which::V3 => r.route("/doc.json", get(|| async { document(Which::V3) })),
    }
}

/// `GET /api/v2/`: v2's Swagger UI, as the C++ server serves its docs.
pub async fn v2_root() -> Response {
    ui(Which::V2, "index.html")
}

/// Whether a path is one of the docs' (not an API call: no key or rate applies).
pub fn is_docs_path(path: &str) -> bool {
    if matches!(path, "/" | "/api/v2" | "/api/v2/" | "/api/v3/doc.json") {
        return true;
    }
    let file = path
        .strip_prefix("/api/v2/")
        .or_else(|| path.strip_prefix("/api/v3/"));
    file.is_some_and(|f| f == "openapi.json" || UI_FILES.contains(&f))
}

/// `GET /`: toncenter's v3 answers its root with a redirect to the docs.
pub async fn root_redirect() -> Response {
    (
        StatusCode::MOVED_PERMANENTLY,
        [(header::LOCATION, "/api/v3/index.html")],
    )
        .into_response()
}

fn document(which: Which) -> Response {
    static V2: OnceLock<String> = OnceLock::new();
    static V3: OnceLock<String> = OnceLock::new();
    let body = match which {
        Which::V2 => V2.get_or_init(|| served(Which::V2)),
        Which::V3 => V3.get_or_init(|| served(Which::V3)),
    };
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.clone(),
    )
        .into_response()
}

/// The document as served: built, read into utoipa's types, written back.
fn served(which: Which) -> String {
    let doc: utoipa::openapi::OpenApi =
        serde_json::from_value(build(which)).expect("the OpenAPI document is well formed");
    serde_json::to_string(&doc).expect("an OpenAPI document serializes")
}

fn ui(which: Which, file: &'static str) -> Response {
    let url = format!("{}/openapi.json", which.prefix());
    // No validator badge: Swagger UI would send the document to swagger.io.
    let config = utoipa_swagger_ui::Config::new([url]).validator_url("none");
    match utoipa_swagger_ui::serve(file, Arc::new(config)) {
        Ok(Some(f)) => (
            [(header::CONTENT_TYPE, f.content_type)],
            f.bytes.into_owned(),
        )
            .into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, "not found").into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

/// The OpenAPI document of one API as JSON.
pub fn build(which: Which) -> Value {
    match which {
        Which::V2 => v2_doc(),
        Which::V3 => v3_doc(),
    }
}

// ---------------------------------------------------------------------------
// Schema building blocks.

fn ty(t: &str) -> Value {
    json!({ "type": t })
}

fn refer(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// An object with these properties; a name ending in `?` is optional (left
/// out when absent), every other one is always present. Other properties
/// are allowed.
fn obj(props: &[(&str, Value)]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, schema) in props {
        let (name, optional) = match name.strip_suffix('?') {
            Some(n) => (n, true),
            None => (*name, false),
        };
        if !optional {
            required.push(json!(name));
        }
        properties.insert(name.to_string(), schema.clone());
    }
    let mut o = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        o["required"] = Value::Array(required);
    }
    o
}

fn strings(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

fn string() -> Value {
    ty("string")
}

fn int() -> Value {
    ty("integer")
}

/// Query parameters of a GET operation, from a request type's declaration.
fn declared_query(params: &[ParamDoc]) -> Value {
    Value::Array(
        params
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "in": "query",
                    "required": p.required,
                    "description": p.about(),
                    "schema": (p.schema)(false),
                })
            })
            .collect(),
    )
}

/// The JSON body of a POST operation, from a request type's declaration.
fn declared_body(params: &[ParamDoc]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in params {
        let mut s = (p.schema)(true);
        s["description"] = json!(p.about());
        properties.insert(p.name.to_string(), s);
        if p.required {
            required.push(json!(p.name));
        }
    }
    let mut schema = json!({ "type": "object" });
    if !properties.is_empty() {
        schema["properties"] = Value::Object(properties);
    }
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    json!({
        "required": true,
        "content": { "application/json": { "schema": schema } },
    })
}

/// The components the response types refer to, by name. Two types that
/// share a name must be the same schema (else one would hide the other).
fn named_schemas(
    components: Vec<(
        String,
        utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
    )>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, schema) in components {
        let mut schema = serde_json::to_value(schema).expect("a schema serializes");
        spell_out_any(&mut schema);
        if let Some(seen) = out.get(&name) {
            assert_eq!(seen, &schema, "two response types are both named {name}");
            continue;
        }
        out.insert(name, schema);
    }
    out
}

/// Gives every "any value" schema (`{}`, what utoipa writes for
/// `serde_json::Value`) its types spelled out, so that the document reads
/// back into utoipa's types (which need a type, a reference or a
/// composition) and validators see the same thing.
fn spell_out_any(schema: &mut Value) {
    let Value::Object(m) = schema else { return };
    let shaped = ["type", "$ref", "oneOf", "anyOf", "allOf", "enum", "const"]
        .iter()
        .any(|k| m.contains_key(*k));
    if !shaped {
        m.insert(
            "type".into(),
            json!(["object", "array", "string", "number", "boolean", "null"]),
        );
    }
    for (k, v) in m.iter_mut() {
        match (k.as_str(), v) {
            ("properties", Value::Object(props)) => props.values_mut().for_each(spell_out_any),
            ("items" | "additionalProperties", v @ Value::Object(_)) => spell_out_any(v),
            ("oneOf" | "anyOf" | "allOf", Value::Array(parts)) => {
                parts.iter_mut().for_each(spell_out_any)
            }
            _ => {}
        }
    }
}

/// What an error status means, in either API.
fn why(code: u16) -> &'static str {
    match code {
        400 => "The message could not be sent",
        401 => "Unknown API key, or (v3 account methods) a required field is missing",
        404 => "Not in the index (or no such method)",
        409 => "The account is not a wallet",
        422 => "Invalid or missing parameters",
        429 => "Over the rate limit (see Retry-After)",
        501 => "What this node cannot answer (see the message)",
        503 => "Busy, no network to send to, or (streaming) no commits to stream",
        504 => "The request's time budget ran out",
        533 => "The result stack is too deep",
        542 => "Unsupported stack entry type",
        _ => "Error",
    }
}

/// Responses of one operation: 200 with `ok`, the listed error statuses
/// and the common ones with `error`, and `default` for any other error.
fn responses(ok: Value, errors: &[u16], error: &Value) -> Value {
    let mut out = Map::new();
    out.insert(
        "200".into(),
        json!({ "description": "OK", "content": { "application/json": { "schema": ok } } }),
    );
    let mut codes: Vec<u16> = errors.to_vec();
    codes.extend([429, 503, 504]);
    codes.sort_unstable();
    codes.dedup();
    for code in codes {
        out.insert(
            code.to_string(),
            json!({
                "description": why(code),
                "content": { "application/json": { "schema": error } },
            }),
        );
    }
    out.insert(
        "default".into(),
        json!({ "description": "Any other error", "content": { "application/json": { "schema": error } } }),
    );
    Value::Object(out)
}

/// The parts every document shares: servers, keys, the not-yet list.
fn document_shell(which: Which, about: &str, not_yet: &[&str], paths: Map<String, Value>) -> Value {
    let (title, version) = match which {
        Which::V2 => ("tonindex API v2", V2_API_VERSION),
        Which::V3 => ("tonindex API v3", V3_API_VERSION),
    };
    let not_yet = not_yet
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let not_yet = if not_yet.is_empty() {
        String::new()
    } else {
        format!(" Not served yet (answered with 501): {not_yet}.")
    };
    let description = format!(
        "{about}\n\nServed by tonindex from its own index (RocksDB).{not_yet}\n\nAn API key, \
         where the node requires one, goes in the `X-API-Key` header or the `api_key` query \
         parameter."
    );
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": title,
            "version": version,
            "description": description,
            "license": { "name": "MIT", "identifier": "MIT" },
        },
        "servers": [{ "url": "/" }],
        "paths": paths,
        "security": [{}, { "api_key_header": [] }, { "api_key_query": [] }],
    })
}

fn security_schemes() -> Value {
    json!({
        "api_key_header": { "type": "apiKey", "in": "header", "name": "X-API-Key" },
        "api_key_query": { "type": "apiKey", "in": "query", "name": "api_key" },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON paths where two documents differ.
    fn differences(a: &Value, b: &Value, at: &str, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                    let (l, r) = (&x.get(k), &y.get(k));
                    match (l, r) {
                        (Some(l), Some(r)) => differences(l, r, &format!("{at}/{k}"), out),
                        _ => out.push(format!("{at}/{k}: {l:?} vs {r:?}")),
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (l, r)) in x.iter().zip(y).enumerate() {
                    differences(l, r, &format!("{at}/{i}"), out);
                }
            }
            _ if a != b => out.push(format!("{at}: {a} vs {b}")),
            _ => {}
        }
    }

    /// What is served is what was built: utoipa's types keep every key.
    #[test]
    fn documents_survive_utoipa() {
        for which in [Which::V2, Which::V3] {
            let built = build(which);
            let served: Value = serde_json::from_str(&served(which)).unwrap();
            let mut diff = Vec::new();
            differences(&served, &built, "", &mut diff);
            diff.truncate(20);
            assert!(
                diff.is_empty(),
                "{which:?}: served vs built:\n{}",
                diff.join("\n")
            );
        }
    }

    #[test]
    fn docs_paths() {
        assert!(is_docs_path("/api/v3/index.html"));
        assert!(is_docs_path("/api/v2/openapi.json"));
        assert!(is_docs_path("/api/v2/"));
        assert!(!is_docs_path("/api/v2/getMasterchainInfo"));
        assert!(!is_docs_path("/api/v3/blocks"));
    }
}
