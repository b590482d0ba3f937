//! An index built once from the mainnet fixture blocks, the API router over
//! it, and the decoded blocks to check responses against.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tonindex::api::{router, Api, ApiConfig};
use tonindex::chain::files::collect_paths;
use tonindex::decode::transaction::DecodedTransaction;
use tonindex::decode::DecodedBlock;
use tonindex::ingest::{decode_block_file, import_files, IngestOptions};
use tonindex_model::MessageRecord;
use tonindex_storage::{Db, DbOptions};
use tower::ServiceExt;

pub struct Fixture {
    pub router: tonindex::api::App,
    pub blocks: Vec<DecodedBlock>,
    _dir: tempfile::TempDir,
}

/// The ShardAccount BoCs of the 234 accounts in the tonutils-go fat block
/// (mainnet, 2026: wallets v3/v4/v5, highload, USDT jetton wallets); the
/// one nonexistent account (`account_none`, no address) is left out.
pub fn fat_block_shard_accounts() -> Vec<Vec<u8>> {
    use base64::Engine as _;
    let path = super::fixture("blocks/tonutils-go/tvm_replay_fat_block_66519406.json");
    let j: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    j["previous_accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            base64::engine::general_purpose::STANDARD
                .decode(a["shard_account_boc_base64"].as_str().unwrap())
                .unwrap()
        })
        .filter(|boc| {
            tycho_types::boc::Boc::decode(boc)
                .unwrap()
                .parse::<tycho_types::models::ShardAccount>()
                .unwrap()
                .load_account()
                .unwrap()
                .is_some()
        })
        .collect()
}

/// The account-state inputs: the 2019 masterchain and shard states (which
/// the 2019 blocks then advance), and the fat block's accounts written out
/// as ShardAccount files in `dir`.
fn state_paths(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![
        super::fixture("accounts/ever-block-mainnet-2019/state_2659.boc"),
        super::fixture("accounts/ever-block-mainnet-2019/state_571524.boc"),
    ];
    for (i, boc) in fat_block_shard_accounts().into_iter().enumerate() {
        let p = dir.join(format!("shard_account_{i:03}.boc"));
        std::fs::write(&p, boc).unwrap();
        out.push(p);
    }
    out
}

/// The mainnet fixture blocks: the 2019 series and singles, ston-fi, tongo.
fn paths() -> Vec<std::path::PathBuf> {
    collect_paths(&[
        super::fixture("blocks/ever-block-mainnet-2019"),
        super::fixture("blocks/ston-fi"),
        super::fixture("blocks/tongo"),
    ])
    .unwrap()
    .into_iter()
    .filter(|p| !p.to_string_lossy().ends_with("hashmap_aug.hex"))
    .collect()
}

pub fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let paths = paths();
        {
            let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
            let opts = IngestOptions {
                chunk_size: 16,
                chunk_bytes: tonindex::ingest::CHUNK_BYTES,
                unit_delay: None,
                decode_pool: None,
                traces: true,
                trust_files: false,
                group_bytes: tonindex::ingest::GROUP_BYTES,
                // The 2019 series' states are read at their own blocks,
                // millions of masterchain blocks before the newest fixture
                // block: an archive's retention.
                keep_states: tonindex::index::retention::KeepStates::All,
            };
            let accounts = tempfile::tempdir().unwrap();
            let mut all = state_paths(accounts.path());
            all.extend(paths.iter().cloned());
            import_files(&db, &all, &opts, |_, _| {}).unwrap();
        }
        // Serve the way `tonindex serve` does: as a follower.
        let scratch = tempfile::tempdir().unwrap().keep();
        let db = Db::open_follower(dir.path(), &scratch).unwrap();
        let router = router(Api::new(Arc::new(db), ApiConfig::default()));
        let blocks = paths
            .iter()
            .map(|p| decode_block_file(p).unwrap())
            .collect();
        Fixture {
            router,
            blocks,
            _dir: dir,
        }
    })
}

impl Fixture {
    /// The index's directory, for tests that scan its tables directly.
    pub fn db_path(&self) -> &std::path::Path {
        self._dir.path()
    }

    /// Every decoded transaction by hash, with its block.
    pub fn txs(&self) -> HashMap<[u8; 32], (&DecodedBlock, &DecodedTransaction)> {
        self.blocks
            .iter()
            .flat_map(|b| b.transactions.iter().map(move |t| (t.record.hash, (b, t))))
            .collect()
    }

    /// Every decoded message by its base64 hash, the form both APIs print.
    pub fn messages_by_b64(&self) -> HashMap<String, &MessageRecord> {
        self.blocks
            .iter()
            .flat_map(|b| &b.transactions)
            .flat_map(|t| t.in_msg.iter().chain(&t.out_msgs))
            .map(|m| (b64(&m.hash), m))
            .collect()
    }

    /// Transactions of `account` newest first.
    pub fn account_txs(&self, account: &tonindex_model::Address) -> Vec<&DecodedTransaction> {
        let mut v: Vec<_> = self
            .txs()
            .into_values()
            .filter(|(_, t)| t.record.account == *account)
            .map(|(_, t)| t)
            .collect();
        v.sort_by_key(|t| std::cmp::Reverse(t.record.lt));
        v
    }

    /// The first message (in block order) sent by one fixture transaction
    /// and received by another, with its sender and receiver.
    pub fn internal_pair(&self) -> (&MessageRecord, &DecodedTransaction, &DecodedTransaction) {
        let all = || self.blocks.iter().flat_map(|b| &b.transactions);
        all()
            .find_map(|receiver| {
                let m = receiver.in_msg.as_ref()?;
                let sender = all().find(|s| s.out_msgs.iter().any(|o| o.hash == m.hash))?;
                Some((m, sender, receiver))
            })
            .expect("a message with both ends in the fixture index")
    }

    /// The newest masterchain block for which `pred` holds.
    pub fn newest_mc(&self, pred: impl Fn(&DecodedBlock) -> bool) -> &DecodedBlock {
        self.blocks
            .iter()
            .filter(|b| b.record.id.id.workchain == -1 && pred(b))
            .max_by_key(|b| b.record.id.id.seqno)
            .expect("a masterchain block in the fixtures")
    }

    /// The account with the most transactions.
    pub fn busiest_account(&self) -> tonindex_model::Address {
        let mut count: HashMap<tonindex_model::Address, usize> = HashMap::new();
        for (_, t) in self.txs().values() {
            *count.entry(t.record.account).or_default() += 1;
        }
        count.into_iter().max_by_key(|(a, n)| (*n, *a)).unwrap().0
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub json: Value,
}

/// One request through the fixture router.
pub fn run(req: Request<Body>) -> Reply {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let resp = fixture().router.clone().oneshot(req).await.unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        let json = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Reply {
            status,
            headers,
            json,
        }
    })
}

pub fn get(uri: &str) -> Reply {
    run(Request::get(uri).body(Body::empty()).unwrap())
}

pub fn post(uri: &str, body: &Value) -> Reply {
    run(Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap())
}

/// A body-less request with any HTTP method.
pub fn request(method: &str, uri: &str) -> Reply {
    run(Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::empty())
        .unwrap())
}

pub fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The root cell hash of a base64 BoC in an answer.
pub fn boc_root_hash(boc: &Value) -> [u8; 32] {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(boc.as_str().expect("a base64 BoC"))
        .unwrap();
    *tycho_types::boc::Boc::decode(bytes)
        .unwrap()
        .repr_hash()
        .as_array()
}

/// Percent-encodes a query value.
pub fn q(v: &str) -> String {
    form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// The fixture index served on a real socket, through the server's own
/// connection layer (cap, timeouts, parser errors), as `tonindex serve`
/// runs it.
pub fn serve_fixture() -> (tokio::runtime::Runtime, std::net::SocketAddr) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = super::bind_free();
    listener.set_nonblocking(true).unwrap();
    let listener = {
        let _entered = rt.enter();
        tokio::net::TcpListener::from_std(listener).unwrap()
    };
    let addr = listener.local_addr().unwrap();
    let limits = tonindex::api::server::ConnLimits {
        max_connections: 64,
        max_refusing: 8,
        header_timeout: std::time::Duration::from_secs(10),
    };
    rt.spawn(tonindex::api::server::serve(
        listener,
        fixture().router.clone(),
        limits,
        std::future::pending(),
    ));
    (rt, addr)
}
