//! The API docs the binary serves (F8 item 6): the OpenAPI documents of v2
//! and v3 describe exactly the methods and endpoints the handlers serve
//! (no more, no fewer, with the right HTTP method), and Swagger UI is
//! served from the binary's embedded assets at the spec's paths.
//! Schemathesis drives the server with these documents (tests/it/schemathesis.rs).

use crate::common;

use std::collections::BTreeSet;

use axum::http::StatusCode;
use common::api::{get, request};
use serde_json::Value;
use tonindex::api::openapi::{build, service_routes, HttpMethod, Which};

fn paths(doc: &Value) -> BTreeSet<String> {
    doc["paths"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn v3_document_lists_every_served_endpoint() {
    let doc = build(Which::V3);
    let documented = paths(&doc);
    let mut served: BTreeSet<String> = tonindex::api::v3::served_endpoints()
        .map(|e| format!("/api/v3/{e}"))
        .collect();
    // The Emulate and Streaming APIs' routes, which the same router serves.
    served.extend(service_routes().map(|r| r.path.to_string()));
    assert_eq!(documented, served);
    for e in tonindex::api::v3::served_endpoints() {
        let item = &doc["paths"][format!("/api/v3/{e}")];
        if tonindex::api::v3::is_get_and_post_endpoint(e) {
            assert!(
                item["get"].is_object() && item["post"].is_object(),
                "{e}: both"
            );
            continue;
        }
        let (method, other) = if tonindex::api::v3::is_post_endpoint(e) {
            ("post", "get")
        } else {
            ("get", "post")
        };
        assert!(item[method].is_object(), "{e}: {method}");
        assert!(item[other].is_null(), "{e}: not {other}");
    }
    // Endpoints not served yet would be named (they answer 501); none are.
    let about = doc["info"]["description"].as_str().unwrap();
    assert!(!about.contains("Not served yet"), "{about}");
    assert!(!about.contains("`nft/sales`"), "{about}");
    assert!(!about.contains("`jetton/masters`"), "{about}");
}

/// Every Emulate and Streaming route the v3 document describes is served
/// with the method it says (the router and the document share the paths;
/// this checks the methods): not 404, not 405.
#[test]
fn service_routes_are_served_as_documented() {
    let mut seen = 0;
    for r in service_routes() {
        let method = match r.method {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
        };
        let answer = request(method, r.path);
        assert!(
            answer.status != StatusCode::NOT_FOUND
                && answer.status != StatusCode::METHOD_NOT_ALLOWED,
            "{method} {}: {}",
            r.path,
            answer.status
        );
        let other = if method == "GET" { "DELETE" } else { "GET" };
        assert_eq!(
            request(other, r.path).status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{other} {}",
            r.path
        );
        seen += 1;
    }
    assert_eq!(seen, 5, "emulateTrace, emulateTonConnect, sse, ws, healthz");
}

#[test]
fn v2_document_lists_every_served_method() {
    let doc = build(Which::V2);
    let documented = paths(&doc);
    let mut served: BTreeSet<String> = tonindex::api::v2::served_methods()
        .map(|m| format!("/api/v2/{m}"))
        .collect();
    served.insert("/api/v2/jsonRPC".into());
    assert_eq!(documented, served);
    // JSON-RPC's method enum is the served set.
    let rpc = &doc["paths"]["/api/v2/jsonRPC"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"];
    let methods: BTreeSet<&str> = rpc["properties"]["method"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let served: BTreeSet<&str> = tonindex::api::v2::served_methods().collect();
    assert_eq!(methods, served);
}

/// Every `$ref` in a document names a schema the document defines.
#[test]
fn references_resolve() {
    fn walk(v: &Value, schemas: &Value, at: &str) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| {
                        panic!("{at}: unexpected reference {r}");
                    });
                    assert!(schemas[name].is_object(), "{at}: {r} is not defined");
                }
                for (k, v) in m {
                    walk(v, schemas, &format!("{at}/{k}"));
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, schemas, at)),
            _ => {}
        }
    }
    for which in [Which::V2, Which::V3] {
        let doc = build(which);
        walk(&doc, &doc["components"]["schemas"], &format!("{which:?}"));
    }
}

#[test]
fn documents_are_served() {
    for (path, title) in [
        ("/api/v3/openapi.json", "tonindex API v3"),
        ("/api/v3/doc.json", "tonindex API v3"),
        ("/api/v2/openapi.json", "tonindex API v2"),
    ] {
        let r = get(path);
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert_eq!(r.headers["content-type"], "application/json");
        assert_eq!(r.json["openapi"], "3.1.0");
        assert_eq!(r.json["info"]["title"], title);
    }
}

#[test]
fn swagger_ui_is_served_from_the_binary() {
    // The spec's paths: v3's UI at /api/v3/index.html with / redirecting
    // to it, v2's at /api/v2/.
    let root = request("GET", "/");
    assert_eq!(root.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(root.headers["location"], "/api/v3/index.html");
    for (page, doc) in [
        ("/api/v3/index.html", "/api/v3/openapi.json"),
        ("/api/v2/", "/api/v2/openapi.json"),
        ("/api/v2", "/api/v2/openapi.json"),
        ("/api/v2/index.html", "/api/v2/openapi.json"),
    ] {
        let r = get(page);
        assert_eq!(r.status, StatusCode::OK, "{page}");
        let html = r.json.as_str().unwrap();
        assert!(html.contains("swagger-ui"), "{page}: {html}");
        // The initializer points the UI at this API's document, and the
        // bundle it loads is served beside it.
        let base = page.trim_end_matches("/index.html").trim_end_matches('/');
        let init = get(&format!("{base}/swagger-initializer.js"));
        assert_eq!(init.status, StatusCode::OK);
        assert!(init.json.as_str().unwrap().contains(doc), "{page}");
        let bundle = get(&format!("{base}/swagger-ui-bundle.js"));
        assert_eq!(bundle.status, StatusCode::OK);
        assert!(bundle.json.as_str().unwrap().len() > 100_000, "{page}");
    }
}

/// The docs routes do not shadow methods: an unknown v2 method is still
/// v2's 404, and a v3 endpoint still answers.
#[test]
fn docs_do_not_shadow_the_apis() {
    let r = get("/api/v2/noSuchMethod");
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.json["ok"], false);
    let r = get("/api/v3/masterchainInfo");
    assert_eq!(r.status, StatusCode::OK);
}
