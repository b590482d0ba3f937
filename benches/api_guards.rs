//! What the guards and request metrics cost per request, without the
//! network: the API's service with and without them ([`Api::new`] against
//! [`Api::without_guards`]), driven in-process on one thread, in turns.
//! `bench-serve` measures the same over HTTP, where the load generator
//! shares the machine; this isolates the server's own work, and under
//! `valgrind --tool=callgrind` gives instruction counts that do not move
//! with the machine's load (run it with two `N` and take the difference).
//!
//! `cargo bench --bench api_guards -- DB [PATH]` (an index directory, e.g.
//! one `tonindex import` built; PATH defaults to v3's masterchainInfo).
//! Environment: `N` requests per round (50000), `ROUNDS` (5), `ONLY`
//! (`guarded` or `bare`, for profiling one side).

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::Request;
use tonindex::api::{router, Api, ApiConfig};
use tonindex_storage::Db;
use tower::ServiceExt;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with('-'));
    let Some(path) = args.next() else {
        eprintln!("usage: cargo bench --bench api_guards -- DB [PATH]");
        return;
    };
    let uri = args
        .next()
        .unwrap_or_else(|| "/api/v3/masterchainInfo".into());
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let db =
        Arc::new(Db::open_follower(std::path::Path::new(&path), scratch.path()).expect("an index"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let guarded = rt.block_on(async { router(Api::new(Arc::clone(&db), ApiConfig::default())) });
    let bare =
        rt.block_on(async { router(Api::without_guards(Arc::clone(&db), ApiConfig::default())) });
    let n: u32 = env_or("N", 50_000);
    let rounds: u32 = env_or("ROUNDS", 5);
    let only = std::env::var("ONLY").unwrap_or_default();
    println!("{uri}: {n} requests per round");
    for round in 0..rounds {
        for (name, app) in [("guarded", &guarded), ("bare", &bare)] {
            if !only.is_empty() && only != name {
                continue;
            }
            let t = Instant::now();
            rt.block_on(async {
                for _ in 0..n {
                    let req = Request::get(uri.as_str())
                        .body(Body::empty())
                        .expect("a request");
                    let resp = app.clone().oneshot(req).await.expect("infallible");
                    let _ = axum::body::to_bytes(resp.into_body(), usize::MAX).await;
                }
            });
            println!(
                "round {round} {name}: {:.2} µs/request",
                t.elapsed().as_secs_f64() * 1e6 / f64::from(n)
            );
        }
    }
}
