//! The API's description of itself: OpenAPI 3.1 documents of v2 and v3,
//! written from what the handlers read and write (the tables of
//! `v2_document` and `v3_document`, built with the helpers here; the
//! handler tables of `v2`/`v3` are checked against them by
//! tests/it/openapi.rs), served at `/api/{v2,v3}/openapi.json`, and Swagger
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

use super::{Api, V2_API_VERSION, V3_API_VERSION};

mod v2_document;
mod v3_document;

use v2_document::v2_doc;
use v3_document::{v3_doc, ESTIMATE};

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

/// The schema, or JSON null.
fn nullable(s: Value) -> Value {
    match s.get("type").cloned() {
        Some(Value::String(t)) if s.get("$ref").is_none() => {
            let mut s = s;
            s["type"] = json!([t, "null"]);
            s
        }
        _ => json!({ "anyOf": [s, { "type": "null" }] }),
    }
}

fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

/// An object keyed by strings the schema does not fix.
fn map_of(values: Value) -> Value {
    json!({ "type": "object", "additionalProperties": values })
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

/// A tonlib object's `@type`.
fn at_type(name: &str) -> Value {
    strings(&[name])
}

fn string() -> Value {
    ty("string")
}

fn int() -> Value {
    ty("integer")
}

fn boolean() -> Value {
    ty("boolean")
}

/// A non-negative integer written as a decimal string.
fn dec() -> Value {
    json!({ "type": "string", "pattern": "^[0-9]+$" })
}

/// A 32-byte hash as standard padded base64.
fn b64_hash() -> Value {
    json!({ "type": "string", "pattern": "^[A-Za-z0-9+/]{43}=$" })
}

/// A base64 bag-of-cells.
fn boc() -> Value {
    json!({ "type": "string", "description": "base64 BoC" })
}

/// v3's raw address: workchain, colon, 64 upper-case hex digits.
fn raw_address() -> Value {
    json!({ "type": "string", "pattern": "^-?[0-9]+:[0-9A-F]{64}$" })
}

fn status_v3() -> Value {
    strings(&["uninit", "frozen", "active", "nonexist"])
}

// ---------------------------------------------------------------------------
// Parameters.

/// How a parameter's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    /// A positive integer (v2 seqno-like values).
    Positive,
    /// A non-negative integer (lt, limit, offset).
    Unsigned,
    Bool,
    Str,
    /// A hash: 64 hex digits (optionally `0x`) or 44-character base64.
    Hash,
    /// An address: raw `wc:hex` or a user-friendly base64 form.
    Address,
    /// v3 shard: hex (optionally `0x`) or signed decimal.
    ShardV3,
    /// v3 unix time: an integer or a float (truncated).
    Utime,
    /// v3 opcode: `0x` hex, hex, or signed 32-bit decimal.
    Opcode,
    Sort,
    Direction,
    /// A get-method's name, or its integer id.
    Method,
    /// A get-method's input stack (in a query string: its JSON text).
    Stack,
}

/// One request parameter, as a handler reads it.
#[derive(Debug, Clone, Copy)]
struct P {
    name: &'static str,
    kind: Kind,
    required: bool,
    /// May be given more than once (a list).
    many: bool,
    about: &'static str,
}

const fn p(name: &'static str, kind: Kind, about: &'static str) -> P {
    P {
        name,
        kind,
        required: false,
        many: false,
        about,
    }
}

impl P {
    const fn req(self) -> Self {
        P {
            required: true,
            ..self
        }
    }
    const fn many(self) -> Self {
        P { many: true, ..self }
    }

    /// The value's schema; `in_body`: a JSON body rather than a query string.
    fn schema(&self, in_body: bool, stack_v3: bool) -> Value {
        let hash = "^(0x)?[0-9a-fA-F]{64}$|^[A-Za-z0-9+/_-]{43}=?$";
        let address = "^-?[0-9]+:[0-9a-fA-F]{64}$|^[A-Za-z0-9+/_-]{48}$";
        let one = match self.kind {
            Kind::Int => int(),
            Kind::Positive => json!({ "type": "integer", "minimum": 1 }),
            Kind::Unsigned => json!({ "type": "integer", "minimum": 0 }),
            Kind::Bool => boolean(),
            Kind::Str => string(),
            Kind::Hash => json!({ "type": "string", "pattern": hash }),
            Kind::Address => json!({ "type": "string", "pattern": address }),
            Kind::ShardV3 => json!({
                "type": "string",
                "pattern": "^(0x)?[0-9a-fA-F]{1,16}$|^-?[0-9]+$",
            }),
            Kind::Utime => json!({ "type": "number", "minimum": 0 }),
            Kind::Opcode => json!({
                "type": "string",
                "pattern": "^0x[0-9a-fA-F]{1,8}$|^[0-9a-fA-F]{1,8}$|^-?[0-9]+$",
            }),
            Kind::Sort => strings(&["asc", "desc"]),
            Kind::Direction => strings(&["in", "out"]),
            Kind::Method if in_body => json!({ "type": ["string", "integer"] }),
            Kind::Method => string(),
            Kind::Stack if !in_body => json!({
                "type": "string",
                "description": "the stack as JSON text, e.g. [[\"num\", 5]]",
            }),
            Kind::Stack if stack_v3 => array(obj(&[
                ("type", strings(&["num", "cell", "slice"])),
                ("value", string()),
            ])),
            Kind::Stack => array(json!({ "type": ["array", "object"] })),
        };
        if self.many {
            array(one)
        } else {
            one
        }
    }
}

/// Query parameters of a GET operation.
fn query_params(params: &[P]) -> Value {
    Value::Array(
        params
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "in": "query",
                    "required": p.required,
                    "description": p.about,
                    "schema": p.schema(false, false),
                })
            })
            .collect(),
    )
}

/// The JSON body of a POST operation, holding the same parameters.
fn json_body(params: &[P], stack_v3: bool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in params {
        let mut s = p.schema(true, stack_v3);
        s["description"] = json!(p.about);
        properties.insert(p.name.to_string(), s);
        if p.required {
            required.push(json!(p.name));
        }
    }
    // A body without parameters is any object (utoipa drops an empty
    // `properties`, so it is left out here too).
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
        503 => "Busy, or no network to send to",
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

/// One operation of either API.
struct Op {
    name: &'static str,
    tag: &'static str,
    summary: &'static str,
    params: Vec<P>,
    ok: Value,
    errors: &'static [u16],
}

fn op(
    tag: &'static str,
    name: &'static str,
    summary: &'static str,
    params: &[&[P]],
    ok: Value,
    errors: &'static [u16],
) -> Op {
    Op {
        name,
        tag,
        summary,
        params: params.concat(),
        ok,
        errors,
    }
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
