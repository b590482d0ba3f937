//! CORS: on by default for both APIs (any origin), narrowed or turned off by
//! `[serve.cors]`, preflights answered before any handler; and a real
//! browser engine (headless Chromium, Debian's package, installed by
//! `.ci/run`) fetching v3 and POSTing v2 JSON-RPC from another origin.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tonindex::api::cors::CorsConfig;
use tonindex::api::{router, Api, ApiConfig};
use tonindex_storage::{Db, DbOptions};
use tower::ServiceExt;

fn server(cors: CorsConfig) -> (tonindex::api::App, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = std::sync::Arc::new(Db::open(dir.path(), &DbOptions::default()).unwrap());
    let cfg = ApiConfig {
        cors,
        ..ApiConfig::default()
    };
    (router(Api::new(db, cfg)), dir)
}

async fn send(app: &tonindex::api::App, req: Request<Body>) -> axum::http::Response<Body> {
    app.clone().oneshot(req).await.unwrap()
}

fn preflight(path: &str, origin: &str) -> Request<Body> {
    Request::builder()
        .method("OPTIONS")
        .uri(path)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type,x-api-key")
        .body(Body::empty())
        .unwrap()
}

fn get(path: &str, origin: &str) -> Request<Body> {
    Request::get(path)
        .header("origin", origin)
        .body(Body::empty())
        .unwrap()
}

fn header<'a>(r: &'a axum::http::Response<Body>, name: &str) -> Option<&'a str> {
    r.headers().get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test]
async fn any_origin_by_default_with_preflights_answered() {
    let (app, _dir) = server(CorsConfig::default());
    for path in [
        "/api/v2/jsonRPC",
        "/api/v3/message",
        "/api/v3/masterchainInfo",
    ] {
        let r = send(&app, preflight(path, "https://dapp.example")).await;
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(header(&r, "access-control-allow-origin"), Some("*"));
        let methods = header(&r, "access-control-allow-methods").unwrap();
        assert!(
            methods.contains("POST") && methods.contains("GET"),
            "{methods}"
        );
        let headers = header(&r, "access-control-allow-headers").unwrap();
        assert!(headers.contains("content-type") && headers.contains("x-api-key"));
        assert_eq!(header(&r, "access-control-max-age"), Some("86400"));
    }
    // Answers carry the header, errors included.
    let r = send(&app, get("/healthcheck", "https://dapp.example")).await;
    assert_eq!(header(&r, "access-control-allow-origin"), Some("*"));
    let r = send(&app, get("/api/v3/nothing", "https://dapp.example")).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(header(&r, "access-control-allow-origin"), Some("*"));
}

#[tokio::test]
async fn origins_can_be_narrowed_or_cors_turned_off() {
    let (app, _dir) = server(CorsConfig {
        allow_origins: vec!["https://good.example".into()],
        ..CorsConfig::default()
    });
    let r = send(&app, preflight("/api/v2/jsonRPC", "https://good.example")).await;
    assert_eq!(
        header(&r, "access-control-allow-origin"),
        Some("https://good.example")
    );
    let r = send(&app, get("/healthcheck", "https://evil.example")).await;
    assert_eq!(header(&r, "access-control-allow-origin"), None);

    let (app, _dir) = server(CorsConfig {
        enabled: false,
        ..CorsConfig::default()
    });
    let r = send(&app, get("/healthcheck", "https://dapp.example")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(header(&r, "access-control-allow-origin"), None);
    let bad = CorsConfig {
        allow_origins: vec!["bad\norigin".into()],
        ..CorsConfig::default()
    };
    assert!(bad.check().is_err());
}

/// Kills the child on drop.
struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("which").arg(name).output().ok()?;
            out.status
                .success()
                .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        })
}

#[test]
fn a_browser_calls_both_apis_from_another_origin() {
    let browser = chromium()
        .expect("a headless Chromium is needed (apt-get install chromium; .ci/run installs it)");
    let dir = tempfile::tempdir().unwrap();
    // The API: a devnet, so that there is a chain to read.
    let api_port = common::free_port();
    let _api = Child(
        common::dev_command(&dir.path().join("db"), api_port)
            .spawn()
            .unwrap(),
    );
    // The page, from another origin (another port).
    let page_port = common::free_port();
    let pages = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let _pages = Child(
        Command::new("python3")
            .args([
                "-m",
                "http.server",
                &page_port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .current_dir(&pages)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    common::wait_listening(api_port);
    common::wait_listening(page_port);
    let profile = dir.path().join("profile");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!(
            "http://127.0.0.1:{page_port}/cors.html?http://127.0.0.1:{api_port}"
        ))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("CORS-OK v3=1 v2=1"),
        "the page says: {dom}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
