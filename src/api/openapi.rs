//! The API's description of itself: OpenAPI 3.1 documents of v2 and v3,
//! written from what the handlers read and write (the tables below; the
//! handler tables of `v2`/`v3` are checked against them by
//! tests/openapi.rs), served at `/api/{v2,v3}/openapi.json`, and Swagger
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

// ---------------------------------------------------------------------------
// v3.

const LIMIT: P = p(
    "limit",
    Kind::Int,
    "Page size (default serve.default_limit, at most serve.max_limit; below 1 reads as 1)",
);
const OFFSET: P = p("offset", Kind::Int, "Items to skip (negative reads as 0)");
const SORT: P = p("sort", Kind::Sort, "Order (also `a`/`d`); default desc");
const PAGING: &[P] = &[LIMIT, OFFSET, SORT];
const NO_BOOK: &[P] = &[p(
    "x_no_address_book",
    Kind::Bool,
    "Leave the address book empty (also the X-No-Address-Book header)",
)];
const ACCOUNT: &[P] = &[p("address", Kind::Address, "The account").req()];
const BLOCK_FILTER: &[P] = &[
    p("workchain", Kind::Int, "Workchain"),
    p("shard", Kind::ShardV3, "Shard id"),
    p("seqno", Kind::Int, "Block seqno"),
];
const TIME_LT: &[P] = &[
    p("start_utime", Kind::Utime, "Not before this unix time"),
    p("end_utime", Kind::Utime, "Not after this unix time"),
    p("start_lt", Kind::Unsigned, "Not below this logical time"),
    p("end_lt", Kind::Unsigned, "Not above this logical time"),
];

fn v3_schemas() -> Value {
    let block_id = obj(&[
        ("workchain", int()),
        (
            "shard",
            json!({ "type": "string", "pattern": "^[0-9A-F]{16}$" }),
        ),
        ("seqno", int()),
    ]);
    let block = obj(&[
        ("workchain", int()),
        (
            "shard",
            json!({ "type": "string", "pattern": "^[0-9A-F]{16}$" }),
        ),
        ("seqno", int()),
        ("root_hash", b64_hash()),
        ("file_hash", b64_hash()),
        ("global_id", int()),
        ("version", int()),
        ("after_merge", boolean()),
        ("before_split", boolean()),
        ("after_split", boolean()),
        ("want_merge", boolean()),
        ("want_split", boolean()),
        ("key_block", boolean()),
        ("vert_seqno_incr", boolean()),
        ("flags", int()),
        ("gen_utime", dec()),
        ("start_lt", dec()),
        ("end_lt", dec()),
        ("validator_list_hash_short", int()),
        ("gen_catchain_seqno", int()),
        ("min_ref_mc_seqno", int()),
        ("prev_key_block_seqno", int()),
        ("vert_seqno", int()),
        ("master_ref_seqno", int()),
        ("rand_seed", b64_hash()),
        ("created_by", b64_hash()),
        ("tx_count", int()),
        ("masterchain_block_ref", nullable(refer("BlockId"))),
        ("prev_blocks", array(refer("BlockId"))),
    ]);
    let content = obj(&[
        ("hash", b64_hash()),
        ("body", nullable(boc())),
        ("decoded", nullable(ty("object"))),
    ]);
    let extra = map_of(string());
    let message = obj(&[
        ("hash", b64_hash()),
        ("source", nullable(raw_address())),
        ("destination", nullable(raw_address())),
        ("value", nullable(dec())),
        ("value_extra_currencies", nullable(extra.clone())),
        ("fwd_fee", nullable(dec())),
        ("ihr_fee", nullable(dec())),
        ("extra_flags", nullable(dec())),
        ("created_lt", nullable(dec())),
        ("created_at", nullable(dec())),
        (
            "opcode",
            nullable(json!({ "type": "string", "pattern": "^0x[0-9a-f]{8}$" })),
        ),
        ("decoded_opcode", nullable(string())),
        ("ihr_disabled", nullable(boolean())),
        ("bounce", nullable(boolean())),
        ("bounced", nullable(boolean())),
        ("import_fee", nullable(dec())),
        ("in_msg_tx_hash?", b64_hash()),
        ("out_msg_tx_hash?", b64_hash()),
        ("message_content", nullable(refer("MessageContent"))),
        ("init_state", nullable(refer("MessageContent"))),
        ("hash_norm?", b64_hash()),
        ("trace_id?", b64_hash()),
    ]);
    let account_state = obj(&[
        ("hash", b64_hash()),
        ("balance", nullable(dec())),
        ("extra_currencies", nullable(extra.clone())),
        ("account_status", nullable(status_v3())),
        ("frozen_hash", nullable(string())),
        ("data_hash", nullable(string())),
        ("code_hash", nullable(string())),
    ]);
    let status_change = strings(&["unchanged", "frozen", "deleted"]);
    let msg_size = obj(&[("cells", dec()), ("bits", dec())]);
    let description = obj(&[
        (
            "type",
            strings(&[
                "ord",
                "storage",
                "tick_tock",
                "split_prepare",
                "split_install",
                "merge_prepare",
                "merge_install",
            ]),
        ),
        ("aborted?", boolean()),
        ("destroyed?", boolean()),
        ("credit_first?", boolean()),
        ("is_tock?", boolean()),
        ("installed?", boolean()),
        (
            "storage_ph?",
            obj(&[
                ("storage_fees_collected", dec()),
                ("storage_fees_due?", dec()),
                ("status_change", status_change.clone()),
            ]),
        ),
        (
            "credit_ph?",
            obj(&[
                ("due_fees_collected?", dec()),
                ("credit", dec()),
                ("credit_extra_currencies", extra.clone()),
            ]),
        ),
        (
            "compute_ph?",
            obj(&[
                ("skipped", boolean()),
                (
                    "reason?",
                    strings(&["no_state", "bad_state", "no_gas", "suspended"]),
                ),
                ("success?", boolean()),
                ("msg_state_used?", boolean()),
                ("account_activated?", boolean()),
                ("gas_fees?", dec()),
                ("gas_used?", dec()),
                ("gas_limit?", dec()),
                ("gas_credit?", dec()),
                ("mode?", int()),
                ("exit_code?", int()),
                ("exit_arg?", int()),
                ("vm_steps?", int()),
                ("vm_init_state_hash?", b64_hash()),
                ("vm_final_state_hash?", b64_hash()),
            ]),
        ),
        (
            "action?",
            obj(&[
                ("success", boolean()),
                ("valid", boolean()),
                ("no_funds", boolean()),
                ("status_change", status_change),
                ("total_fwd_fees?", dec()),
                ("total_action_fees?", dec()),
                ("result_code", int()),
                ("result_arg?", int()),
                ("tot_actions", int()),
                ("spec_actions", int()),
                ("skipped_actions", int()),
                ("msgs_created", int()),
                ("action_list_hash", b64_hash()),
                ("tot_msg_size", msg_size.clone()),
            ]),
        ),
        (
            "bounce?",
            obj(&[
                ("type", strings(&["negfunds", "nofunds", "ok"])),
                ("msg_size?", msg_size),
                ("req_fwd_fees?", dec()),
                ("msg_fees?", dec()),
                ("fwd_fees?", dec()),
            ]),
        ),
        (
            "split_info?",
            obj(&[
                ("cur_shard_pfx_len", int()),
                ("acc_split_depth", int()),
                ("this_addr", string()),
                ("sibling_addr", string()),
            ]),
        ),
    ]);
    let transaction = obj(&[
        ("account", raw_address()),
        ("hash", b64_hash()),
        ("lt", dec()),
        ("now", int()),
        ("mc_block_seqno", nullable(int())),
        ("prev_trans_hash", b64_hash()),
        ("prev_trans_lt", dec()),
        ("orig_status", status_v3()),
        ("end_status", status_v3()),
        ("total_fees", dec()),
        ("total_fees_extra_currencies", extra.clone()),
        ("description", nullable(refer("TransactionDescr"))),
        ("block_ref", nullable(refer("BlockId"))),
        ("in_msg", nullable(refer("Message"))),
        ("out_msgs", array(refer("Message"))),
        ("account_state_before", refer("AccountState")),
        ("account_state_after", refer("AccountState")),
        ("emulated", boolean()),
        ("finality", strings(&["pending", "confirmed", "finalized"])),
        ("trace_id?", b64_hash()),
    ]);
    let action = obj(&[
        ("trace_id", b64_hash()),
        ("action_id", b64_hash()),
        ("start_lt", dec()),
        ("end_lt", dec()),
        ("start_utime", int()),
        ("end_utime", int()),
        ("trace_end_lt", dec()),
        ("trace_end_utime", int()),
        ("trace_mc_seqno_end", nullable(int())),
        ("transactions", array(b64_hash())),
        ("success", boolean()),
        ("type", string()),
        ("details", ty("object")),
        ("trace_external_hash?", b64_hash()),
        ("trace_external_hash_norm?", b64_hash()),
        ("accounts?", array(raw_address())),
        ("transactions_full?", array(refer("Transaction"))),
        ("finality", strings(&["pending", "confirmed", "finalized"])),
    ]);
    let trace_node = obj(&[
        ("tx_hash", b64_hash()),
        ("in_msg_hash?", b64_hash()),
        ("children", nullable(array(refer("TraceNode")))),
    ]);
    let trace = obj(&[
        ("trace_id", b64_hash()),
        ("external_hash", nullable(b64_hash())),
        ("mc_seqno_start", nullable(dec())),
        ("mc_seqno_end", nullable(dec())),
        ("start_lt", dec()),
        ("start_utime", int()),
        ("end_lt", dec()),
        ("end_utime", int()),
        (
            "trace_info",
            obj(&[
                ("trace_state", strings(&["complete", "pending", "broken"])),
                ("messages", int()),
                ("transactions", int()),
                ("pending_messages", int()),
                (
                    "classification_state",
                    strings(&["unclassified", "ok", "failed", "broken"]),
                ),
            ]),
        ),
        ("is_incomplete", boolean()),
        ("warning?", string()),
        ("actions?", array(refer("Action"))),
        ("trace?", refer("TraceNode")),
        ("transactions_order", array(b64_hash())),
        ("transactions", map_of(refer("Transaction"))),
    ]);
    let book_row = obj(&[
        ("user_friendly", nullable(string())),
        ("domain", nullable(string())),
        ("interfaces", array(string())),
    ]);
    let fees = obj(&[
        ("in_fwd_fee", int()),
        ("storage_fee", int()),
        ("gas_fee", int()),
        ("fwd_fee", int()),
    ]);
    json!({
        "BlockId": block_id,
        "Block": block,
        "MessageContent": content,
        "Message": message,
        "AccountState": account_state,
        "TransactionDescr": description,
        "Transaction": transaction,
        "Action": action,
        "TraceNode": trace_node,
        "Trace": trace,
        "AddressBookRow": book_row,
        "AddressBook": map_of(refer("AddressBookRow")),
        "Fees": fees,
        "Error": obj(&[("error", string())]),
    })
}

fn v3_ops() -> Vec<Op> {
    let book = || ("address_book", refer("AddressBook"));
    let metadata = || ("metadata", ty("object"));
    let blocks = || obj(&[("blocks", array(refer("Block")))]);
    let txs = || obj(&[("transactions", array(refer("Transaction"))), book()]);
    let account_info = || {
        obj(&[
            ("balance", dec()),
            ("code", nullable(boc())),
            ("data", nullable(boc())),
            ("last_transaction_lt", dec()),
            ("last_transaction_hash", b64_hash()),
            ("frozen_hash", nullable(b64_hash())),
            ("status", status_v3()),
        ])
    };
    let wallet_info = || {
        obj(&[
            ("balance", dec()),
            ("wallet_type?", string()),
            ("seqno?", int()),
            ("wallet_id?", int()),
            ("last_transaction_lt", dec()),
            ("last_transaction_hash", b64_hash()),
            ("status", status_v3()),
        ])
    };
    let accounts = obj(&[
        (
            "accounts",
            array(obj(&[
                ("address", raw_address()),
                ("account_state_hash", b64_hash()),
                ("balance", dec()),
                ("extra_currencies", map_of(string())),
                ("status", status_v3()),
                ("frozen_hash?", b64_hash()),
                ("last_transaction_hash", b64_hash()),
                ("last_transaction_lt", dec()),
                ("data_hash?", b64_hash()),
                ("code_hash?", b64_hash()),
                ("data_boc?", boc()),
                ("code_boc?", boc()),
                ("contract_methods", nullable(array(int()))),
                ("interfaces", array(string())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let wallets = obj(&[
        (
            "wallets",
            array(obj(&[
                ("address", raw_address()),
                ("is_wallet", boolean()),
                ("wallet_type?", string()),
                ("seqno?", int()),
                ("wallet_id?", int()),
                ("is_signature_allowed?", boolean()),
                ("balance", dec()),
                ("extra_currencies", map_of(string())),
                ("status", status_v3()),
                ("code_hash?", b64_hash()),
                ("last_transaction_hash", b64_hash()),
                ("last_transaction_lt", dec()),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_masters = obj(&[
        (
            "jetton_masters",
            array(obj(&[
                ("address", raw_address()),
                ("total_supply", dec()),
                ("mintable", boolean()),
                ("admin_address", nullable(raw_address())),
                ("jetton_content", nullable(map_of(string()))),
                ("jetton_wallet_code_hash", b64_hash()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                ("last_transaction_lt", dec()),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_wallets = obj(&[
        (
            "jetton_wallets",
            array(obj(&[
                ("address", raw_address()),
                ("balance", dec()),
                ("owner", raw_address()),
                ("jetton", raw_address()),
                ("last_transaction_lt", dec()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                (
                    "mintless_info?",
                    obj(&[
                        ("amount", dec()),
                        ("start_from", int()),
                        ("expire_at", int()),
                        ("custom_payload_api_uri", array(string())),
                    ]),
                ),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_transfers = obj(&[
        (
            "jetton_transfers",
            array(obj(&[
                ("query_id", dec()),
                ("source", nullable(raw_address())),
                ("destination", nullable(raw_address())),
                ("amount", dec()),
                ("source_wallet", raw_address()),
                ("jetton_master", raw_address()),
                ("transaction_hash", b64_hash()),
                ("transaction_lt", dec()),
                ("transaction_now", int()),
                ("transaction_aborted", boolean()),
                ("response_destination", nullable(raw_address())),
                ("custom_payload", nullable(boc())),
                ("decoded_custom_payload", nullable(ty("object"))),
                ("forward_ton_amount", nullable(dec())),
                ("forward_payload", nullable(boc())),
                ("decoded_forward_payload", nullable(ty("object"))),
                ("trace_id", nullable(b64_hash())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_burns = obj(&[
        (
            "jetton_burns",
            array(obj(&[
                ("query_id", dec()),
                ("owner", nullable(raw_address())),
                ("jetton_wallet", raw_address()),
                ("jetton_master", raw_address()),
                ("transaction_hash", b64_hash()),
                ("transaction_lt", dec()),
                ("transaction_now", int()),
                ("transaction_aborted", boolean()),
                ("amount", dec()),
                ("response_destination", nullable(raw_address())),
                ("custom_payload", nullable(boc())),
                ("decoded_custom_payload", nullable(ty("object"))),
                ("trace_id", nullable(b64_hash())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let nft_collection = obj(&[
        ("address", raw_address()),
        ("owner_address", nullable(raw_address())),
        ("last_transaction_lt", dec()),
        // Any integer: Fragment's collections answer -1.
        (
            "next_item_index",
            json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
        ),
        ("collection_content", nullable(map_of(string()))),
        ("data_hash", b64_hash()),
        ("code_hash", b64_hash()),
    ]);
    let nft_collections = obj(&[
        ("nft_collections", array(nft_collection.clone())),
        book(),
        metadata(),
    ]);
    let nft_item = obj(&[
        ("address", raw_address()),
        ("init", boolean()),
        ("index", dec()),
        ("collection_address", nullable(raw_address())),
        ("owner_address", nullable(raw_address())),
        ("content", nullable(map_of(string()))),
        ("last_transaction_lt", dec()),
        ("code_hash", b64_hash()),
        ("data_hash", b64_hash()),
        ("collection", nullable(nft_collection)),
        ("on_sale", boolean()),
        ("sale_contract_address?", raw_address()),
        ("auction_contract_address?", raw_address()),
        ("real_owner?", raw_address()),
    ]);
    let nft_items = obj(&[("nft_items", array(nft_item.clone())), book(), metadata()]);
    let nft_sales = obj(&[
        (
            "nft_sales",
            array(obj(&[
                ("type", string()),
                ("address", raw_address()),
                ("nft_address", raw_address()),
                ("nft_owner_address?", raw_address()),
                ("marketplace_address?", raw_address()),
                ("created_at", int()),
                ("last_transaction_lt", dec()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                ("details", ty("object")),
                ("nft_item?", nft_item),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let nft_transfers = obj(&[
        (
            "nft_transfers",
            array(obj(&[
                ("query_id", dec()),
                ("nft_address", raw_address()),
                ("nft_collection", nullable(raw_address())),
                ("transaction_hash", b64_hash()),
                ("transaction_lt", dec()),
                ("transaction_now", int()),
                ("transaction_aborted", boolean()),
                ("old_owner", nullable(raw_address())),
                ("new_owner", nullable(raw_address())),
                ("response_destination", nullable(raw_address())),
                ("custom_payload", nullable(boc())),
                ("decoded_custom_payload", nullable(ty("object"))),
                ("forward_amount", nullable(dec())),
                ("forward_payload", nullable(boc())),
                ("decoded_forward_payload", nullable(ty("object"))),
                ("trace_id", nullable(b64_hash())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let order = obj(&[
        ("address", raw_address()),
        ("multisig_address", raw_address()),
        ("order_seqno", dec()),
        ("threshold", int()),
        ("sent_for_execution", boolean()),
        ("approvals_mask", dec()),
        ("approvals_num", int()),
        ("expiration_date", int()),
        ("order_boc", boc()),
        ("signers", array(raw_address())),
        ("last_transaction_lt", dec()),
        ("code_hash", b64_hash()),
        ("data_hash", b64_hash()),
        ("actions", nullable(array(ty("object")))),
    ]);
    let multisigs = obj(&[
        (
            "multisigs",
            array(obj(&[
                ("address", raw_address()),
                ("next_order_seqno", string()),
                ("threshold", int()),
                ("signers", array(raw_address())),
                ("proposers", array(raw_address())),
                ("last_transaction_lt", dec()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                ("orders", nullable(array(order.clone()))),
            ])),
        ),
        book(),
    ]);
    let orders = obj(&[("orders", array(order)), book()]);
    let vestings = obj(&[
        (
            "vesting_contracts",
            array(obj(&[
                ("address", raw_address()),
                ("start_time", int()),
                ("total_duration", int()),
                ("unlock_period", int()),
                ("cliff_duration", int()),
                ("sender_address", nullable(raw_address())),
                ("owner_address", nullable(raw_address())),
                ("total_amount", dec()),
                ("whitelist", array(raw_address())),
            ])),
        ),
        book(),
    ]);
    let states: &[P] = &[
        p("address", Kind::Address, "Accounts (up to 1000)")
            .req()
            .many(),
        p(
            "code_hash",
            Kind::Hash,
            "Only accounts with one of these code hashes",
        )
        .many(),
    ];
    let seqno_req: &[P] = &[p("seqno", Kind::Int, "Masterchain block seqno").req()];
    let msg_filter: &[P] = &[
        p(
            "msg_hash",
            Kind::Hash,
            "Message hashes (or normalized hashes)",
        )
        .many(),
        p("body_hash", Kind::Hash, "Body hash"),
        p("opcode", Kind::Opcode, "Body opcode"),
        p(
            "direction",
            Kind::Direction,
            "in: received by a transaction; out: sent by one",
        ),
    ];
    let stack_entry = obj(&[
        ("type", strings(&["num", "cell", "slice", "list", "tuple"])),
        ("value", json!({ "type": ["string", "array"] })),
    ]);
    vec![
        op(
            "blocks",
            "masterchainInfo",
            "First and last indexed masterchain blocks",
            &[],
            obj(&[("first", refer("Block")), ("last", refer("Block"))]),
            &[],
        ),
        op(
            "blocks",
            "blocks",
            "Blocks by filter",
            &[
                BLOCK_FILTER,
                &[
                    p("root_hash", Kind::Hash, "Block root hash"),
                    p("file_hash", Kind::Hash, "Block file hash"),
                    p("mc_seqno", Kind::Int, "Committed by this masterchain block"),
                ],
                TIME_LT,
                PAGING,
            ],
            blocks(),
            &[422],
        ),
        op(
            "blocks",
            "masterchainBlockShardState",
            "A masterchain block and the top shard blocks of its state",
            &[seqno_req],
            blocks(),
            &[404, 422],
        ),
        op(
            "blocks",
            "masterchainBlockShards",
            "A masterchain block and the shard blocks it commits",
            &[seqno_req, PAGING],
            blocks(),
            &[404, 422],
        ),
        op(
            "transactions",
            "transactions",
            "Transactions by filter",
            &[
                BLOCK_FILTER,
                &[
                    p("mc_seqno", Kind::Int, "Committed by this masterchain block"),
                    p("account", Kind::Address, "Accounts").many(),
                    p("hash", Kind::Hash, "Transaction hashes").many(),
                    p("lt", Kind::Unsigned, "Logical time"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            txs(),
            &[404, 422],
        ),
        op(
            "transactions",
            "transactionsByMasterchainBlock",
            "Transactions of a masterchain block and the shard blocks it commits",
            &[seqno_req, PAGING, NO_BOOK],
            txs(),
            &[404, 422],
        ),
        op(
            "transactions",
            "transactionsByMessage",
            "Transactions that sent or received messages (one filter is required)",
            &[msg_filter, PAGING, NO_BOOK],
            txs(),
            &[422],
        ),
        op(
            "transactions",
            "adjacentTransactions",
            "The parent and children of a transaction",
            &[
                &[
                    p("hash", Kind::Hash, "Transaction hash").req(),
                    p(
                        "direction",
                        Kind::Direction,
                        "in: the parent; out: the children",
                    ),
                ],
                NO_BOOK,
            ],
            txs(),
            &[404, 422],
        ),
        op(
            "messages",
            "messages",
            "Messages by filter",
            &[
                &[
                    p(
                        "msg_hash",
                        Kind::Hash,
                        "Message hashes (or normalized hashes)",
                    )
                    .many(),
                    p("hash", Kind::Hash, "Same as msg_hash").many(),
                    p("body_hash", Kind::Hash, "Body hash"),
                    p(
                        "source",
                        Kind::Str,
                        "Source address, or `null` for external-in",
                    ),
                    p(
                        "destination",
                        Kind::Str,
                        "Destination address, or `null` for external-out",
                    ),
                    p("opcode", Kind::Opcode, "Body opcode"),
                    p(
                        "direction",
                        Kind::Direction,
                        "in: received by a transaction; out: sent by one",
                    ),
                    p(
                        "exclude_externals",
                        Kind::Bool,
                        "Leave out external messages",
                    ),
                    p("only_externals", Kind::Bool, "Only external messages"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            obj(&[("messages", array(refer("Message"))), book(), metadata()]),
            &[422],
        ),
        op(
            "accounts",
            "addressBook",
            "User-friendly forms of addresses, keyed as sent",
            &[&[p(
                "address",
                Kind::Str,
                "Addresses (an unreadable one gets user_friendly null)",
            )
            .req()
            .many()]],
            refer("AddressBook"),
            &[422],
        ),
        op(
            "accounts",
            "metadata",
            "Token metadata of the addresses that are token contracts, keyed by raw address",
            &[&[p(
                "address",
                Kind::Str,
                "Addresses (non-token and unreadable ones are absent)",
            )
            .req()
            .many()]],
            ty("object"),
            &[422],
        ),
        op(
            "accounts",
            "accountStates",
            "Current states of accounts the node holds",
            &[
                states,
                &[p(
                    "include_boc",
                    Kind::Bool,
                    "Include code and data BoCs (default true)",
                )],
                NO_BOOK,
            ],
            accounts,
            &[422],
        ),
        op(
            "accounts",
            "walletStates",
            "Current states of accounts with wallet details",
            &[states, NO_BOOK],
            wallets,
            &[422],
        ),
        op(
            "accounts",
            "topAccountsByBalance",
            "Accounts whose current state the node holds, richest first",
            &[&[LIMIT, OFFSET]],
            array(obj(&[("account", string()), ("balance", dec())])),
            &[422],
        ),
        op(
            "jettons",
            "jetton/masters",
            "Jetton masters the index has read (get_jetton_data)",
            &[
                &[
                    p("address", Kind::Address, "Jetton masters").many(),
                    p("admin_address", Kind::Address, "Their admins").many(),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            jetton_masters,
            &[422],
        ),
        op(
            "jettons",
            "jetton/wallets",
            "Jetton wallets their masters confirm",
            &[
                &[
                    p("address", Kind::Address, "Jetton wallets").many(),
                    p("owner_address", Kind::Address, "Their owners").many(),
                    p(
                        "jetton_address",
                        Kind::Address,
                        "Their masters (several need exactly one owner_address)",
                    )
                    .many(),
                    p(
                        "exclude_zero_balance",
                        Kind::Bool,
                        "Leave out wallets with a zero balance",
                    ),
                    LIMIT,
                    OFFSET,
                    p(
                        "sort",
                        Kind::Sort,
                        "Order by balance (within each owner or master); default by address",
                    ),
                ],
                NO_BOOK,
            ],
            jetton_wallets,
            &[422],
        ),
        op(
            "jettons",
            "jetton/transfers",
            "Jetton transfers (transfer#0f8a7ea5 on confirmed wallets; aborted ones left out)",
            &[
                &[
                    p(
                        "owner_address",
                        Kind::Address,
                        "Sending or receiving owners",
                    )
                    .many(),
                    p("address", Kind::Address, "Alias of owner_address"),
                    p(
                        "direction",
                        Kind::Str,
                        "in, out or both (with owner_address)",
                    ),
                    p("jetton_wallet", Kind::Address, "Senders' Jetton wallets").many(),
                    p("jetton_master", Kind::Address, "The Jetton master"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            jetton_transfers,
            &[422],
        ),
        op(
            "jettons",
            "jetton/burns",
            "Jetton burns (burn#595f07bc on confirmed wallets)",
            &[
                &[
                    p("address", Kind::Address, "Owner"),
                    p("owner_address", Kind::Address, "Owners").many(),
                    p("jetton_wallet", Kind::Address, "Jetton wallets").many(),
                    p("jetton_master", Kind::Address, "The Jetton master"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            jetton_burns,
            &[422],
        ),
        op(
            "nfts",
            "nft/collections",
            "NFT collections the index has read (get_collection_data)",
            &[
                &[
                    p("collection_address", Kind::Address, "Collections").many(),
                    p("owner_address", Kind::Address, "Their owners").many(),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            nft_collections.clone(),
            &[422],
        ),
        op(
            "nfts",
            "nft/items",
            "NFT items (an item of a collection only when the collection confirms it)",
            &[
                &[
                    p("address", Kind::Address, "Items").many(),
                    p("owner_address", Kind::Address, "Their owners").many(),
                    p(
                        "collection_address",
                        Kind::Address,
                        "Their collections (several need exactly one owner_address)",
                    )
                    .many(),
                    p(
                        "index",
                        Kind::Str,
                        "Item indexes (digits; with collection_address)",
                    )
                    .many(),
                    p(
                        "include_on_sale",
                        Kind::Bool,
                        "With owner_address: count items listed on a GetGems sale or auction for their seller",
                    ),
                    p(
                        "sort_by_last_transaction_lt",
                        Kind::Bool,
                        "Newest change first",
                    ),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            nft_items,
            &[422],
        ),
        op(
            "nfts",
            "nft/sales",
            "GetGems fixed-price sales and auctions by contract address, as they describe themselves",
            &[&[p("address", Kind::Address, "Sale or auction contracts (at most 1000)")
                .req()
                .many()]],
            nft_sales,
            &[422],
        ),
        op(
            "nfts",
            "nft/transfers",
            "NFT transfers (transfer#5fcc3d14 on known items; aborted ones included)",
            &[
                &[
                    p("owner_address", Kind::Address, "Old or new owners").many(),
                    p("address", Kind::Address, "Alias of owner_address"),
                    p("item_address", Kind::Address, "Items").many(),
                    p("collection_address", Kind::Address, "The collection"),
                    p(
                        "direction",
                        Kind::Str,
                        "in, out or both (with owner_address)",
                    ),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            nft_transfers,
            &[422],
        ),
        op(
            "dns",
            "dns/records",
            "DNS items of the .ton and .t.me collections, by domain or by the wallet their records name",
            &[
                &[
                    p("wallet", Kind::Address, "The address a `wallet` record names"),
                    p("domain", Kind::Str, "An exact domain, e.g. foundation.ton"),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            obj(&[
                (
                    "records",
                    array(obj(&[
                        ("nft_item_address", raw_address()),
                        ("nft_item_owner", nullable(raw_address())),
                        ("domain", string()),
                        ("dns_next_resolver", nullable(raw_address())),
                        ("dns_wallet", nullable(raw_address())),
                        ("dns_site_adnl", nullable(string())),
                        ("dns_storage_bag_id", nullable(string())),
                    ])),
                ),
                book(),
            ]),
            &[422],
        ),
        op(
            "actions",
            "balanceChanges",
            "What a trace, or one of its actions, did to balances: each account's nanotons \
             (value less fees), its fees, and Jetton units by owner and master ({} for an \
             action of another trace or a contract_deploy)",
            &[&[
                p("trace_id", Kind::Hash, "The trace"),
                p("action_id", Kind::Hash, "One action (of trace_id, when both are given)"),
            ]],
            obj(&[
                ("changes?", map_of(int())),
                ("fees?", map_of(int())),
                (
                    "jettons?",
                    map_of(map_of(json!({ "type": "string", "pattern": "^-?[0-9]+$" }))),
                ),
            ]),
            &[400, 404, 422],
        ),
        op(
            "utils",
            "decode",
            "Opcodes to constructor names and message bodies to JSON (GET, or POST with a JSON body)",
            &[&[
                p("opcodes", Kind::Str, "Opcodes: hex (0x optional), decimal or signed decimal (up to 1000)").many(),
                p("bodies", Kind::Str, "Message bodies: BoC in base64 or hex (up to 1000)").many(),
            ]],
            obj(&[
                ("opcodes", array(string())),
                ("bodies", array(ty("object"))),
            ]),
            &[422],
        ),
        op(
            "multisig",
            "multisig/wallets",
            "Multisig v2 wallets the index has read (get_multisig_data), with their orders",
            &[
                &[
                    p("address", Kind::Address, "Multisig contracts").many(),
                    p(
                        "wallet_address",
                        Kind::Address,
                        "Their signers or proposers",
                    )
                    .many(),
                    p(
                        "include_orders",
                        Kind::Bool,
                        "Attach each multisig's orders (default true)",
                    ),
                ],
                PAGING,
                NO_BOOK,
            ],
            multisigs,
            &[422],
        ),
        op(
            "multisig",
            "multisig/orders",
            "Multisig v2 orders their multisig confirms (get_order_data, get_order_address)",
            &[
                &[
                    p("address", Kind::Address, "Order contracts").many(),
                    p("multisig_address", Kind::Address, "Their multisigs").many(),
                    p(
                        "parse_actions",
                        Kind::Bool,
                        "Decode each order's actions (default false)",
                    ),
                ],
                PAGING,
                NO_BOOK,
            ],
            orders,
            &[422],
        ),
        op(
            "vesting",
            "vesting",
            "Standard vesting wallets the index has read (get_vesting_data)",
            &[
                &[
                    p("contract_address", Kind::Address, "Vesting contracts").many(),
                    p("wallet_address", Kind::Address, "Their owners or senders").many(),
                    p(
                        "check_whitelist",
                        Kind::Bool,
                        "With wallet_address: whitelisted wallets match too",
                    ),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            vestings,
            &[422],
        ),
        op(
            "accounts",
            "addressInformation",
            "An account's current state",
            &[ACCOUNT],
            account_info(),
            &[401, 404, 422],
        ),
        op(
            "accounts",
            "account",
            "Alias of addressInformation",
            &[ACCOUNT],
            account_info(),
            &[401, 404, 422],
        ),
        op(
            "accounts",
            "walletInformation",
            "A wallet's current state",
            &[ACCOUNT],
            wallet_info(),
            &[401, 404, 409, 422],
        ),
        op(
            "accounts",
            "wallet",
            "Alias of walletInformation",
            &[ACCOUNT],
            wallet_info(),
            &[401, 404, 409, 422],
        ),
        op(
            "accounts",
            "runGetMethod",
            "Runs a get-method on the account's current state",
            &[
                ACCOUNT,
                &[
                    p("method", Kind::Method, "Method name or id").req(),
                    p("stack", Kind::Stack, "Input stack"),
                ],
            ],
            obj(&[
                ("gas_used", int()),
                ("exit_code", int()),
                ("stack", array(stack_entry)),
            ]),
            &[401, 404, 422, 501],
        ),
        op(
            "accounts",
            "estimateFee",
            "Fees of an external message to the account",
            &[ACCOUNT, ESTIMATE],
            obj(&[
                ("source_fees", refer("Fees")),
                ("destination_fees", array(refer("Fees"))),
            ]),
            &[401, 404, 422],
        ),
        op(
            "traces",
            "traces",
            "Traces by filter (at most one of account, trace_id, tx_hash, msg_hash)",
            &[TRACE_FILTER, PAGING, NO_BOOK],
            obj(&[("traces", array(refer("Trace"))), book(), metadata()]),
            &[404, 422],
        ),
        op(
            "traces",
            "events",
            "Traces by filter, under the key `events`",
            &[TRACE_FILTER, PAGING, NO_BOOK],
            obj(&[("events", array(refer("Trace"))), book(), metadata()]),
            &[404, 422],
        ),
        op(
            "traces",
            "actions",
            "Actions of classified traces by filter",
            &[
                &[
                    p("account", Kind::Address, "Actions involving this account"),
                    p(
                        "tx_hash",
                        Kind::Hash,
                        "Actions including these transactions",
                    )
                    .many(),
                    p(
                        "msg_hash",
                        Kind::Hash,
                        "Actions of traces with these messages",
                    )
                    .many(),
                    p("action_id", Kind::Hash, "Action ids").many(),
                    p("trace_id", Kind::Hash, "Trace ids").many(),
                    p(
                        "mc_seqno",
                        Kind::Int,
                        "Traces completed in this masterchain block",
                    ),
                    p("action_type", Kind::Str, "Only these types").many(),
                    p("exclude_action_type", Kind::Str, "Not these types").many(),
                    p(
                        "supported_action_types",
                        Kind::Str,
                        "Types (and shortcuts v1…v4, latest, groups) the client understands",
                    )
                    .many(),
                    p("include_accounts", Kind::Bool, "Fill `accounts`"),
                    p(
                        "include_transactions",
                        Kind::Bool,
                        "Fill `transactions_full`",
                    ),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            obj(&[("actions", array(refer("Action"))), book(), metadata()]),
            &[404, 422],
        ),
        op(
            "traces",
            "pendingTraces",
            "Emulated traces of sent messages not executed yet (null when none)",
            &[PENDING_FILTER, NO_BOOK],
            obj(&[
                ("traces", nullable(array(refer("Trace")))),
                book(),
                metadata(),
            ]),
            &[422],
        ),
        op(
            "traces",
            "pendingActions",
            "Actions of emulated traces",
            &[
                PENDING_FILTER,
                &[p(
                    "include_transactions",
                    Kind::Bool,
                    "Fill `transactions_full`",
                )],
                NO_BOOK,
            ],
            obj(&[("actions", array(refer("Action"))), book(), metadata()]),
            &[422],
        ),
        op(
            "traces",
            "pendingTransactions",
            "Emulated transactions on these accounts",
            &[
                &[p("account", Kind::Address, "Accounts (at least one)").many()],
                NO_BOOK,
            ],
            obj(&[("transactions", array(refer("Transaction"))), book()]),
            &[404, 422],
        ),
        op(
            "send",
            "message",
            "Sends an external message",
            &[&[p("boc", Kind::Str, "The message as a base64 BoC").req()]],
            obj(&[
                ("message_hash", b64_hash()),
                ("message_hash_norm", b64_hash()),
            ]),
            &[401, 422],
        ),
    ]
}

/// `/pendingTraces` and `/pendingActions` filters (one is required).
const PENDING_FILTER: &[P] = &[
    p(
        "account",
        Kind::Address,
        "Traces with a transaction on this account",
    ),
    p(
        "ext_msg_hash",
        Kind::Hash,
        "External message hashes (or normalized hashes)",
    )
    .many(),
    p(
        "supported_action_types",
        Kind::Str,
        "Types (and shortcuts v1…v4, latest, groups) the client understands",
    )
    .many(),
];

/// `/traces` and `/events` filters.
const TRACE_FILTER: &[P] = &[
    p(
        "account",
        Kind::Address,
        "Traces with a transaction on this account",
    ),
    p("trace_id", Kind::Hash, "Trace ids").many(),
    p("tx_hash", Kind::Hash, "Traces holding these transactions").many(),
    p(
        "msg_hash",
        Kind::Hash,
        "Traces holding these messages (or normalized hashes)",
    )
    .many(),
    p(
        "mc_seqno",
        Kind::Int,
        "Traces completed in this masterchain block",
    ),
    p("start_utime", Kind::Utime, "Trace end time at or after"),
    p("end_utime", Kind::Utime, "Trace end time at or before"),
    p("start_lt", Kind::Unsigned, "Trace end lt at or after"),
    p("end_lt", Kind::Unsigned, "Trace end lt at or before"),
    p("include_actions", Kind::Bool, "Attach the actions"),
    p(
        "supported_action_types",
        Kind::Str,
        "Types (and shortcuts v1…v4, latest, groups) the client understands",
    )
    .many(),
];

/// `estimateFee`'s fields after `address`, the same in both APIs.
const ESTIMATE: &[P] = &[
    p("body", Kind::Str, "Message body, base64 BoC").req(),
    p("init_code", Kind::Str, "StateInit code, base64 BoC"),
    p("init_data", Kind::Str, "StateInit data, base64 BoC"),
    p(
        "ignore_chksig",
        Kind::Bool,
        "Let signature checks pass (default true)",
    ),
];

fn v3_doc() -> Value {
    let error = refer("Error");
    let mut paths = Map::new();
    for o in v3_ops() {
        let post = super::v3::is_post_endpoint(o.name);
        let mut operation = json!({
            "tags": [o.tag],
            "summary": o.summary,
            "operationId": o.name,
            "responses": responses(o.ok, o.errors, &error),
        });
        if post {
            operation["requestBody"] = json_body(&o.params, true);
        } else if !o.params.is_empty() {
            operation["parameters"] = query_params(&o.params);
        }
        let method = if post { "post" } else { "get" };
        let mut item = json!({ method: operation.clone() });
        if super::v3::is_get_and_post_endpoint(o.name) {
            let mut as_post = operation;
            as_post["operationId"] = json!(format!("{}_post", o.name));
            if let Some(obj) = as_post.as_object_mut() {
                obj.remove("parameters");
            }
            as_post["requestBody"] = json_body(&o.params, false);
            item["post"] = as_post;
        }
        paths.insert(format!("/api/v3/{}", o.name), item);
    }
    let mut doc = document_shell(
        Which::V3,
        "toncenter's indexed API (v3): `GET /api/v3/<endpoint>` with query parameters (lists as \
         repeated keys), POST with a JSON body for runGetMethod, estimateFee and message. Errors \
         are `{\"error\": \"...\"}` with the HTTP status.",
        super::v3::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": v3_schemas(), "securitySchemes": security_schemes() });
    doc
}

// ---------------------------------------------------------------------------
// v2.

const ADDRESS: P = p("address", Kind::Address, "The account").req();
const AT_SEQNO: P = p(
    "seqno",
    Kind::Positive,
    "Read the state after this masterchain block (default: the newest)",
);
const BLOCK: &[P] = &[
    p("workchain", Kind::Int, "Workchain").req(),
    p("shard", Kind::Int, "Shard id as a signed 64-bit integer").req(),
    p("seqno", Kind::Positive, "Block seqno").req(),
];
const BLOCK_HASHES: &[P] = &[
    p("root_hash", Kind::Hash, "Must match, when given"),
    p("file_hash", Kind::Hash, "Must match, when given"),
];
const LOCATE: &[P] = &[
    p("source", Kind::Address, "Message source").req(),
    p("destination", Kind::Address, "Message destination").req(),
    p("created_lt", Kind::Unsigned, "Message created_lt").req(),
];

fn v2_schemas() -> Value {
    let block_id = obj(&[
        ("@type", at_type("ton.blockIdExt")),
        ("workchain", int()),
        (
            "shard",
            json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
        ),
        ("seqno", int()),
        ("root_hash", b64_hash()),
        ("file_hash", b64_hash()),
    ]);
    let msg_data = obj(&[
        (
            "@type",
            strings(&["msg.dataRaw", "msg.dataText", "msg.dataEncryptedText"]),
        ),
        ("body?", string()),
        ("init_state?", string()),
        ("text?", string()),
    ]);
    let message = |ext: bool| {
        let address = if ext {
            string()
        } else {
            refer("AccountAddress")
        };
        let mut props = vec![
            (
                "@type",
                at_type(if ext { "ext.message" } else { "raw.message" }),
            ),
            ("hash", b64_hash()),
            ("source", address.clone()),
            ("destination", address),
            ("value", dec()),
            ("extra_currencies", array(refer("ExtraCurrency"))),
            ("fwd_fee", dec()),
            ("ihr_fee", dec()),
            ("created_lt", dec()),
            ("body_hash", b64_hash()),
            ("msg_data", refer("MsgData")),
        ];
        if ext {
            props.push(("message?", string()));
        }
        obj(&props)
    };
    let transaction = |ext: bool| {
        let m = refer(if ext { "ExtMessage" } else { "RawMessage" });
        obj(&[
            (
                "@type",
                at_type(if ext {
                    "ext.transaction"
                } else {
                    "raw.transaction"
                }),
            ),
            ("address", refer("AccountAddress")),
            ("account?", raw_address()),
            ("utime", int()),
            ("data", boc()),
            ("transaction_id", refer("TransactionId")),
            ("fee", dec()),
            ("storage_fee", dec()),
            ("other_fee", dec()),
            ("in_msg?", m.clone()),
            ("out_msgs", array(m)),
        ])
    };
    let fees = obj(&[
        ("@type", at_type("fees")),
        ("in_fwd_fee", int()),
        ("storage_fee", int()),
        ("gas_fee", int()),
        ("fwd_fee", int()),
    ]);
    json!({
        "TonBlockIdExt": block_id,
        "TransactionId": obj(&[
            ("@type", at_type("internal.transactionId")),
            ("lt", dec()),
            ("hash", b64_hash()),
        ]),
        "ExtraCurrency": obj(&[
            ("@type", at_type("extraCurrency")),
            ("id", int()),
            ("amount", string()),
        ]),
        "AccountAddress": obj(&[
            ("@type", at_type("accountAddress")),
            ("account_address", string()),
        ]),
        "TvmCell": obj(&[("@type", at_type("tvm.cell")), ("bytes", boc())]),
        "MsgData": msg_data,
        "ExtMessage": message(true),
        "RawMessage": message(false),
        "ExtTransaction": transaction(true),
        "RawTransaction": transaction(false),
        "Fees": fees,
        "Error": obj(&[
            ("ok", strings_bool(false)),
            ("error", string()),
            ("code", int()),
            ("@extra", string()),
        ]),
    })
}

/// A boolean that is always `value`.
fn strings_bool(value: bool) -> Value {
    json!({ "type": "boolean", "enum": [value] })
}

/// v2's success envelope around a method's result.
fn v2_ok(result: Value) -> Value {
    obj(&[
        ("ok", strings_bool(true)),
        ("result", result),
        ("@extra", string()),
    ])
}

fn v2_ops() -> Vec<Op> {
    let block = refer("TonBlockIdExt");
    let tx_id = refer("TransactionId");
    let extra = array(refer("ExtraCurrency"));
    let account_at: &[P] = &[ADDRESS, AT_SEQNO];
    let full_state = obj(&[
        ("@type", at_type("raw.fullAccountState")),
        ("balance", dec()),
        ("extra_currencies", extra.clone()),
        ("code", string()),
        ("data", string()),
        ("last_transaction_id", tx_id.clone()),
        ("block_id", block.clone()),
        ("frozen_hash", string()),
        ("sync_utime", int()),
        ("state", strings(&["uninitialized", "active", "frozen"])),
    ]);
    let extended = obj(&[
        ("@type", at_type("fullAccountState")),
        ("address", refer("AccountAddress")),
        ("balance", dec()),
        ("extra_currencies", extra.clone()),
        ("last_transaction_id", tx_id.clone()),
        ("block_id", block.clone()),
        ("sync_utime", int()),
        (
            "account_state",
            obj(&[(
                "@type",
                strings(&[
                    "uninited.accountState",
                    "wallet.v3.accountState",
                    "wallet.v4.accountState",
                    "raw.accountState",
                ]),
            )]),
        ),
        ("revision", int()),
    ]);
    let wallet = obj(&[
        ("@type", at_type("ext.accounts.walletInformation")),
        ("wallet", boolean()),
        ("balance", dec()),
        (
            "account_state",
            strings(&["uninitialized", "active", "frozen"]),
        ),
        ("last_transaction_id", tx_id.clone()),
        ("wallet_type?", string()),
        ("seqno?", int()),
        ("wallet_id?", int()),
        ("is_signature_allowed?", boolean()),
    ]);
    let run_result = |std: bool| {
        let mut props = vec![
            ("@type", at_type("smc.runResult")),
            ("gas_used", int()),
            (
                "stack",
                array(json!({ "type": if std { "object" } else { "array" } })),
            ),
            ("exit_code", int()),
        ];
        if !std {
            props.push(("block_id", block.clone()));
            props.push(("last_transaction_id", tx_id.clone()));
        }
        obj(&props)
    };
    let run: &[P] = &[
        ADDRESS,
        p("method", Kind::Method, "Method name or integer id").req(),
        p("stack", Kind::Stack, "Input stack entries"),
        AT_SEQNO,
    ];
    let ext_info = obj(&[
        ("@type", at_type("raw.extMessageInfo")),
        ("hash", b64_hash()),
        ("hash_norm", b64_hash()),
    ]);
    let boc_param: &[P] = &[p("boc", Kind::Str, "The external message as a base64 BoC").req()];
    let block_txs = |ext: bool| {
        let item = if ext {
            refer("RawTransaction")
        } else {
            obj(&[
                ("@type", at_type("blocks.shortTxId")),
                ("mode", int()),
                ("account", string()),
                ("lt", dec()),
                ("hash", b64_hash()),
            ])
        };
        obj(&[
            (
                "@type",
                at_type(if ext {
                    "blocks.transactionsExt"
                } else {
                    "blocks.transactions"
                }),
            ),
            ("id", block.clone()),
            ("req_count", int()),
            ("incomplete", boolean()),
            ("transactions", array(item)),
        ])
    };
    let block_page: &[P] = &[
        p(
            "after_lt",
            Kind::Unsigned,
            "Cursor: the last seen transaction's lt",
        ),
        p(
            "after_hash",
            Kind::Str,
            "Cursor: the last seen account (hash or address)",
        ),
        p(
            "count",
            Kind::Positive,
            "Page size, 1 to 10000 (default 40)",
        ),
    ];
    let history: &[P] = &[
        ADDRESS,
        p("limit", Kind::Positive, "At most this many (default 10)"),
        p(
            "lt",
            Kind::Unsigned,
            "Start from this transaction (with hash)",
        ),
        p("hash", Kind::Hash, "Start from this transaction (with lt)"),
        p("to_lt", Kind::Unsigned, "Stop at this lt (exclusive)"),
    ];
    let address_only: &[P] = &[ADDRESS];
    let config_info = obj(&[
        ("@type", at_type("configInfo")),
        ("config", refer("TvmCell")),
    ]);
    let variant = obj(&[
        ("@type", at_type("ext.utils.detectedAddressVariant")),
        ("b64", string()),
        ("b64url", string()),
    ]);
    let mc_seqno: &[P] = &[p("seqno", Kind::Positive, "Masterchain block seqno").req()];
    let shards = obj(&[
        ("@type", at_type("blocks.shards")),
        ("shards", array(block.clone())),
    ]);
    let locate = "The destination's transaction that received the message";
    vec![
        op(
            "accounts",
            "getAddressInformation",
            "An account's state",
            &[account_at],
            full_state,
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getExtendedAddressInformation",
            "An account's state with its detected wallet",
            &[account_at],
            extended,
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getWalletInformation",
            "An account's wallet details",
            &[account_at],
            wallet,
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getTokenData",
            "What a Jetton master or wallet, NFT collection or item says of itself (409: not a token, or not confirmed by its master or collection)",
            &[account_at],
            obj(&[
                (
                    "@type",
                    strings(&[
                        "ext.tokens.jettonMasterData",
                        "ext.tokens.jettonWalletData",
                        "ext.tokens.nftCollectionData",
                        "ext.tokens.nftItemData",
                    ]),
                ),
                ("address", string()),
                (
                    "contract_type",
                    strings(&["jetton_master", "jetton_wallet", "nft_collection", "nft_item"]),
                ),
                ("total_supply?", dec()),
                ("mintable?", boolean()),
                ("admin_address?", string()),
                ("jetton_content?", nullable(ty("object"))),
                ("jetton_wallet_code?", boc()),
                ("balance?", dec()),
                ("owner?", string()),
                ("jetton?", string()),
                (
                    "next_item_index?",
                    json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
                ),
                ("owner_address?", string()),
                ("collection_content?", nullable(ty("object"))),
                ("init?", boolean()),
                ("index?", dec()),
                ("collection_address?", string()),
                ("content?", nullable(ty("object"))),
            ]),
            &[404, 409, 422, 501],
        ),
        op(
            "accounts",
            "getAddressBalance",
            "An account's balance in nanotons",
            &[account_at],
            dec(),
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getAddressState",
            "An account's status",
            &[account_at],
            strings(&["uninitialized", "active", "frozen"]),
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getShardAccountCell",
            "An account's ShardAccount cell",
            &[account_at],
            refer("TvmCell"),
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "dnsResolve",
            "Resolves a TEP-81 name with the given resolver's dnsresolve, following next \
             resolvers while ttl allows (409: the contract cannot resolve it)",
            &[
                &[ADDRESS],
                &[
                    p("name", Kind::Str, "The name (absolute; default: the resolver itself)"),
                    p("category", Kind::Str, "Accepted and not used: every category is returned"),
                    p("ttl", Kind::Unsigned, "How many next resolvers to follow (default 0)"),
                ],
                &[AT_SEQNO],
            ],
            obj(&[
                ("@type", at_type("dns.resolved")),
                (
                    "entries",
                    array(obj(&[
                        ("@type", at_type("dns.entry")),
                        ("name", string()),
                        ("category", b64_hash()),
                        (
                            "entry",
                            obj(&[
                                (
                                    "@type",
                                    strings(&[
                                        "dns.entryDataNextResolver",
                                        "dns.entryDataSmcAddress",
                                        "dns.entryDataAdnlAddress",
                                        "dns.entryDataStorageAddress",
                                        "dns.entryDataText",
                                        "dns.entryDataUnknown",
                                    ]),
                                ),
                                ("resolver?", refer("AccountAddress")),
                                ("smc_address?", refer("AccountAddress")),
                                (
                                    "adnl_address?",
                                    obj(&[
                                        ("@type", at_type("adnlAddress")),
                                        ("adnl_address", string()),
                                    ]),
                                ),
                                ("bag_id?", string()),
                                ("text?", string()),
                                ("bytes?", string()),
                            ]),
                        ),
                    ])),
                ),
            ]),
            &[404, 409, 422],
        ),
        op(
            "run method",
            "runGetMethod",
            "Runs a get-method (tonlib's stack form)",
            &[run],
            run_result(false),
            &[404, 422, 501, 533, 542],
        ),
        op(
            "run method",
            "runGetMethodStd",
            "Runs a get-method (tvm.StackEntry form)",
            &[run],
            run_result(true),
            &[404, 422, 501, 533, 542],
        ),
        op(
            "send",
            "estimateFee",
            "Fees of an external message to the account",
            &[&[ADDRESS], ESTIMATE],
            obj(&[
                ("@type", at_type("query.fees")),
                ("source_fees", refer("Fees")),
                ("destination_fees", array(refer("Fees"))),
            ]),
            &[404, 422],
        ),
        op(
            "send",
            "sendBoc",
            "Sends an external message",
            &[boc_param],
            obj(&[("@type", at_type("ok"))]),
            &[422],
        ),
        op(
            "send",
            "sendBocReturnHash",
            "Sends an external message, returning its hashes",
            &[boc_param],
            ext_info.clone(),
            &[422],
        ),
        op(
            "send",
            "sendBocReturnHashNoError",
            "Sends an external message; a failed send is a 400",
            &[boc_param],
            ext_info,
            &[400, 422],
        ),
        op(
            "blocks",
            "getMasterchainInfo",
            "The newest indexed masterchain block",
            &[],
            obj(&[
                ("@type", at_type("blocks.masterchainInfo")),
                ("last", block.clone()),
                ("state_root_hash", b64_hash()),
                ("init", block.clone()),
            ]),
            &[],
        ),
        op(
            "blocks",
            "getMasterchainBlockSignatures",
            "Validator signatures of a masterchain block (a chain this process runs)",
            &[mc_seqno],
            obj(&[
                ("@type", at_type("blocks.blockSignatures")),
                ("id", block.clone()),
                ("signatures", array(ty("object"))),
            ]),
            &[404, 422, 501],
        ),
        op(
            "blocks",
            "getShardBlockProof",
            "Proof of a block from a masterchain block (a chain this process runs)",
            &[
                BLOCK,
                &[p(
                    "from_seqno",
                    Kind::Positive,
                    "Masterchain block to prove from (default: the newest)",
                )],
            ],
            obj(&[
                ("@type", at_type("blocks.shardBlockProof")),
                ("from", block.clone()),
                ("mc_id", block.clone()),
                ("links", array(ty("object"))),
                ("mc_proof", array(ty("object"))),
            ]),
            &[404, 422, 501],
        ),
        op(
            "blocks",
            "getConsensusBlock",
            "The newest indexed masterchain block's seqno",
            &[],
            obj(&[
                ("@type", at_type("ext.blocks.consensusBlock")),
                ("consensus_block", int()),
                ("timestamp", int()),
            ]),
            &[],
        ),
        op(
            "blocks",
            "lookupBlock",
            "A block by seqno, logical time or unix time",
            &[&[
                p("workchain", Kind::Int, "Workchain").req(),
                p("shard", Kind::Int, "Shard id as a signed 64-bit integer").req(),
                p("seqno", Kind::Positive, "Block seqno"),
                p("lt", Kind::Unsigned, "A logical time within the block"),
                p(
                    "unixtime",
                    Kind::Unsigned,
                    "The newest block at or before this time",
                ),
            ]],
            block.clone(),
            &[404, 422],
        ),
        op(
            "blocks",
            "getShards",
            "Shard blocks of a masterchain block's state",
            &[mc_seqno],
            shards.clone(),
            &[404, 422],
        ),
        op(
            "blocks",
            "shards",
            "Alias of getShards",
            &[mc_seqno],
            shards,
            &[404, 422],
        ),
        op(
            "blocks",
            "getBlockHeader",
            "A block's header",
            &[BLOCK, BLOCK_HASHES],
            obj(&[
                ("@type", at_type("blocks.header")),
                ("id", block.clone()),
                ("global_id", int()),
                ("version", int()),
                ("after_merge", boolean()),
                ("after_split", boolean()),
                ("before_split", boolean()),
                ("want_merge", boolean()),
                ("want_split", boolean()),
                ("validator_list_hash_short", int()),
                ("catchain_seqno", int()),
                ("min_ref_mc_seqno", int()),
                ("is_key_block", boolean()),
                ("prev_key_block_seqno", int()),
                ("start_lt", dec()),
                ("end_lt", dec()),
                ("gen_utime", int()),
                ("prev_blocks", array(block.clone())),
            ]),
            &[404, 422],
        ),
        op(
            "blocks",
            "getOutMsgQueueSize",
            "Outbound queue sizes of the newest blocks (a chain this process runs)",
            &[],
            obj(&[
                ("@type", at_type("blocks.outMsgQueueSizes")),
                (
                    "shards",
                    array(obj(&[("id", block.clone()), ("size", int())])),
                ),
                ("ext_msg_queue_size_limit", int()),
            ]),
            &[501],
        ),
        op(
            "transactions",
            "getBlockTransactions",
            "Short ids of a block's transactions",
            &[BLOCK, BLOCK_HASHES, block_page],
            block_txs(false),
            &[404, 422],
        ),
        op(
            "transactions",
            "getBlockTransactionsExt",
            "A block's transactions",
            &[BLOCK, BLOCK_HASHES, block_page],
            block_txs(true),
            &[404, 422],
        ),
        op(
            "transactions",
            "getTransactions",
            "An account's transactions, newest first",
            &[history],
            array(refer("ExtTransaction")),
            &[404, 422],
        ),
        op(
            "transactions",
            "getTransactionsStd",
            "An account's transactions, newest first (raw.transactions)",
            &[history],
            obj(&[
                ("@type", at_type("raw.transactions")),
                ("transactions", array(refer("RawTransaction"))),
                ("previous_transaction_id", tx_id),
            ]),
            &[404, 422],
        ),
        op(
            "transactions",
            "tryLocateTx",
            locate,
            &[LOCATE],
            refer("ExtTransaction"),
            &[404, 422],
        ),
        op(
            "transactions",
            "tryLocateResultTx",
            "Alias of tryLocateTx",
            &[LOCATE],
            refer("ExtTransaction"),
            &[404, 422],
        ),
        op(
            "transactions",
            "tryLocateSourceTx",
            "The source's transaction that sent the message",
            &[LOCATE],
            refer("ExtTransaction"),
            &[404, 422],
        ),
        op(
            "utils",
            "detectAddress",
            "All forms of an address",
            &[address_only],
            obj(&[
                ("@type", at_type("ext.utils.detectedAddress")),
                ("raw_form", string()),
                ("bounceable", variant.clone()),
                ("non_bounceable", variant),
                (
                    "given_type",
                    strings(&["raw_form", "friendly_bounceable", "friendly_non_bounceable"]),
                ),
                ("test_only", boolean()),
            ]),
            &[422],
        ),
        op(
            "utils",
            "detectHash",
            "All forms of a hash",
            &[&[p("hash", Kind::Hash, "The hash").req()]],
            obj(&[
                ("@type", at_type("ext.utils.detectedHash")),
                ("b64", b64_hash()),
                ("b64url", string()),
                (
                    "hex",
                    json!({ "type": "string", "pattern": "^[0-9a-f]{64}$" }),
                ),
            ]),
            &[422],
        ),
        op(
            "utils",
            "packAddress",
            "An address in user-friendly url-safe form",
            &[address_only],
            string(),
            &[422],
        ),
        op(
            "utils",
            "unpackAddress",
            "An address in raw form",
            &[address_only],
            raw_address(),
            &[422],
        ),
        op(
            "config",
            "getConfigParam",
            "One blockchain config parameter (config_id or param is required)",
            &[&[
                p("config_id", Kind::Unsigned, "Parameter number"),
                p(
                    "param",
                    Kind::Unsigned,
                    "Parameter number (when config_id is absent)",
                ),
                p(
                    "seqno",
                    Kind::Positive,
                    "In force at this masterchain block (default: the newest)",
                ),
            ]],
            config_info.clone(),
            &[404, 422],
        ),
        op(
            "config",
            "getConfigAll",
            "The whole blockchain config",
            &[&[p(
                "seqno",
                Kind::Positive,
                "In force at this masterchain block (default: the newest)",
            )]],
            config_info,
            &[404, 422],
        ),
        op(
            "config",
            "getLibraries",
            "Library cells by hash (unknown ones are left out)",
            &[&[p("libraries", Kind::Hash, "Library hashes").many()]],
            obj(&[
                ("@type", at_type("smc.libraryResult")),
                (
                    "result",
                    array(obj(&[
                        ("@type", at_type("smc.libraryEntry")),
                        ("hash", b64_hash()),
                        ("data", boc()),
                    ])),
                ),
            ]),
            &[422],
        ),
    ]
}

fn v2_doc() -> Value {
    let error = refer("Error");
    let mut paths = Map::new();
    let ops = v2_ops();
    for o in &ops {
        let ok = v2_ok(o.ok.clone());
        let mut get_op = json!({
            "tags": [o.tag],
            "summary": o.summary,
            "operationId": format!("{}_get", o.name),
            "responses": responses(ok.clone(), o.errors, &error),
        });
        if !o.params.is_empty() {
            get_op["parameters"] = query_params(&o.params);
        }
        let mut post_op = json!({
            "tags": [o.tag],
            "summary": o.summary,
            "operationId": format!("{}_post", o.name),
            "responses": responses(ok, o.errors, &error),
        });
        let body = json_body(&o.params, false);
        if o.params.iter().any(|p| p.required) {
            post_op["requestBody"] = body;
        } else {
            post_op["requestBody"] = json!({ "required": false, "content": body["content"] });
        }
        paths.insert(
            format!("/api/v2/{}", o.name),
            json!({ "get": get_op, "post": post_op }),
        );
    }
    let methods: Vec<&str> = ops.iter().map(|o| o.name).collect();
    let rpc_ok = obj(&[
        ("ok", strings_bool(true)),
        ("result", json!({ "type": ["object", "array", "string"] })),
        ("@extra", string()),
        ("jsonrpc", strings(&["2.0"])),
        ("id?", string()),
    ]);
    let rpc_body = obj(&[
        ("method", strings(&methods)),
        ("params?", ty("object")),
        ("id?", json!({ "type": ["string", "integer"] })),
        ("jsonrpc?", string()),
    ]);
    paths.insert(
        "/api/v2/jsonRPC".into(),
        json!({ "post": {
            "tags": ["json-rpc"],
            "summary": "Calls any method above: {method, params, id}; the answer echoes id",
            "operationId": "jsonRPC",
            "requestBody": {
                "required": true,
                "content": { "application/json": { "schema": rpc_body } },
            },
            "responses": responses(rpc_ok, &[404, 422, 501], &error),
        }}),
    );
    let mut doc = document_shell(
        Which::V2,
        "toncenter's API v2: every method by GET with query parameters or by POST with a JSON \
         body, and all of them through `POST /api/v2/jsonRPC`. Answers are `{\"ok\": true, \
         \"result\", \"@extra\"}`; errors `{\"ok\": false, \"error\", \"code\", \"@extra\"}` with \
         the HTTP status equal to `code`.",
        super::v2::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": v2_schemas(), "securitySchemes": security_schemes() });
    doc
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
