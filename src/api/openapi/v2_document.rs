//! The v2 document, written from v2's method table
//! (`crate::api::v2::ENDPOINTS`): each method's parameters come from its
//! request type (`crate::api::request`), its result from its response
//! type's `utoipa::ToSchema` derive, inside v2's envelope; every method by
//! GET, by POST and through JSON-RPC.

use serde_json::{json, Map, Value};
use utoipa::openapi::{schema::Schema, RefOr};

use super::*;
use crate::api::v2::ENDPOINTS;

/// A boolean that is always `value`.
fn constant_bool(value: bool) -> Value {
    json!({ "type": "boolean", "enum": [value] })
}

/// v2's success envelope around a method's result.
fn v2_ok(result: Value) -> Value {
    obj(&[
        ("ok", constant_bool(true)),
        ("result", result),
        ("@extra", string()),
    ])
}

pub(super) fn v2_doc() -> Value {
    let error = refer("Error");
    let mut components: Vec<(String, RefOr<Schema>)> = Vec::new();
    let mut paths = Map::new();
    for e in ENDPOINTS {
        let params = e.handler.params();
        let mut result =
            serde_json::to_value(e.handler.response(&mut components)).expect("a schema serializes");
        spell_out_any(&mut result);
        let ok = v2_ok(result);
        let mut get_op = json!({
            "tags": [e.tag],
            "summary": e.summary,
            "operationId": format!("{}_get", e.name),
            "responses": responses(ok.clone(), e.errors, &error),
        });
        if !params.is_empty() {
            get_op["parameters"] = declared_query(&params);
        }
        let mut post_op = json!({
            "tags": [e.tag],
            "summary": e.summary,
            "operationId": format!("{}_post", e.name),
            "responses": responses(ok, e.errors, &error),
        });
        let body = declared_body(&params);
        if params.iter().any(|p| p.required) {
            post_op["requestBody"] = body;
        } else {
            post_op["requestBody"] = json!({ "required": false, "content": body["content"] });
        }
        paths.insert(
            format!("/api/v2/{}", e.name),
            json!({ "get": get_op, "post": post_op }),
        );
    }
    let methods: Vec<&str> = ENDPOINTS.iter().map(|e| e.name).collect();
    let rpc_ok = obj(&[
        ("ok", constant_bool(true)),
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
    let mut schemas = named_schemas(components);
    schemas.insert(
        "Error".into(),
        obj(&[
            ("ok", constant_bool(false)),
            ("error", string()),
            ("code", int()),
            ("@extra", string()),
        ]),
    );
    let mut doc = document_shell(
        Which::V2,
        "toncenter's API v2: every method by GET with query parameters or by POST with a JSON \
         body, and all of them through `POST /api/v2/jsonRPC`. Answers are `{\"ok\": true, \
         \"result\", \"@extra\"}`; errors `{\"ok\": false, \"error\", \"code\", \"@extra\"}` with \
         the HTTP status equal to `code`.",
        crate::api::v2::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": schemas, "securitySchemes": security_schemes() });
    doc
}
