//! The v3 document, written from v3's endpoint table
//! (`crate::api::v3::ENDPOINTS`): each endpoint's parameters come from its
//! request type (`crate::api::request`), its answer from its response
//! type's `utoipa::ToSchema` derive.

use serde_json::{json, Map, Value};
use utoipa::openapi::{schema::Schema, RefOr};

use super::*;
use crate::api::v3::{Method, ENDPOINTS};

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
    let mut schemas = named_schemas(components);
    schemas.insert("Error".into(), obj(&[("error", string())]));
    let mut doc = document_shell(
        Which::V3,
        "toncenter's indexed API (v3): `GET /api/v3/<endpoint>` with query parameters (lists as \
         repeated keys), POST with a JSON body for runGetMethod, estimateFee and message. Errors \
         are `{\"error\": \"...\"}` with the HTTP status.",
        crate::api::v3::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": schemas, "securitySchemes": security_schemes() });
    doc
}
