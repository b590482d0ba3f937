//! The v3 document, written from v3's endpoint table
//! (`crate::api::v3::ENDPOINTS`): each endpoint's parameters come from its
//! request type (`crate::api::request`), its answer from its response
//! type's `utoipa::ToSchema` derive.

use serde_json::{json, Map, Value};

use super::*;
use crate::api::v3::{Method, ENDPOINTS};

/// The routes served beside v3 that its document also describes.
pub fn service_routes() -> impl Iterator<Item = &'static ServiceRoute> {
    crate::api::emulate_v1::ROUTES
        .iter()
        .chain(crate::api::streaming::ROUTES)
}

/// A [`ServiceRoute`]'s operation.
fn service_operation(
    r: &ServiceRoute,
    components: &mut Vec<(String, RefOr<Schema>)>,
    error: &Value,
) -> Value {
    let id = r.path.trim_start_matches("/api/").replace('/', "_");
    let (ok_status, ok) = match &r.answer {
        Answer::Json(schema) => {
            let mut s = serde_json::to_value(schema(components)).expect("a schema serializes");
            spell_out_any(&mut s);
            (
                "200",
                json!({ "description": "OK", "content": { "application/json": { "schema": s } } }),
            )
        }
        Answer::EventStream(about) => (
            "200",
            json!({ "description": about, "content": { "text/event-stream": { "schema": string() } } }),
        ),
        Answer::WebSocket(about) => ("101", json!({ "description": about })),
    };
    let mut responses = responses(json!({}), r.errors, error);
    if let Some(m) = responses.as_object_mut() {
        m.remove("200");
        for code in r.answered_also {
            let mut also = ok.clone();
            also["description"] = json!(why(*code));
            m.insert(code.to_string(), also);
        }
        m.insert(ok_status.into(), ok);
    }
    let mut op = json!({
        "tags": [r.tag],
        "summary": r.summary,
        "operationId": id,
        "responses": responses,
    });
    if let Some(body) = r.body {
        let mut s = serde_json::to_value(body(components)).expect("a schema serializes");
        spell_out_any(&mut s);
        op["requestBody"] = json!({
            "required": true,
            "content": { "application/json": { "schema": s } },
        });
    }
    op
}

pub(super) fn v3_doc() -> Value {
    let error = refer("Error");
    let mut components: Vec<(String, RefOr<Schema>)> = Vec::new();
    let mut paths = Map::new();
    for e in ENDPOINTS {
        let params = e.handler.params();
        let mut ok =
            serde_json::to_value(e.handler.response(&mut components)).expect("a schema serializes");
        spell_out_any(&mut ok);
        let post = e.method == Method::Post;
        let mut operation = json!({
            "tags": [e.tag],
            "summary": e.summary,
            "operationId": e.name,
            "responses": responses(ok, e.errors, &error),
        });
        if post {
            operation["requestBody"] = declared_body(&params);
        } else if !params.is_empty() {
            operation["parameters"] = declared_query(&params);
        }
        let method = if post { "post" } else { "get" };
        let mut item = json!({ method: operation.clone() });
        if e.method == Method::GetOrPost {
            let mut as_post = operation;
            as_post["operationId"] = json!(format!("{}_post", e.name));
            if let Some(obj) = as_post.as_object_mut() {
                obj.remove("parameters");
            }
            as_post["requestBody"] = declared_body(&params);
            item["post"] = as_post;
        }
        paths.insert(format!("/api/v3/{}", e.name), item);
    }
    for r in service_routes() {
        let method = match r.method {
            HttpMethod::Get => "get",
            HttpMethod::Post => "post",
        };
        let op = service_operation(r, &mut components, &error);
        paths.insert(r.path.to_string(), json!({ method: op }));
    }
    let mut schemas = named_schemas(components);
    schemas.insert("Error".into(), obj(&[("error", string())]));
    let mut doc = document_shell(
        Which::V3,
        "toncenter's indexed API (v3): `GET /api/v3/<endpoint>` with query parameters (lists as \
         repeated keys), POST with a JSON body for runGetMethod, estimateFee and message. Errors \
         are `{\"error\": \"...\"}` with the HTTP status. Beside it, the Emulate API v1 \
         (`/api/emulate/v1/...`) and the Streaming API v2 (`/api/streaming/...`).",
        crate::api::v3::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": schemas, "securitySchemes": security_schemes() });
    doc
}
