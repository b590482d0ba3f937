//! Helpers shared by the integration tests. The public chain data they
//! read lives in the repository, under `tests/data/fixtures` (sources,
//! licences and hashes in `tests/data/PROVENANCE.md`), and the peers'
//! OpenAPI schemas under `tests/data/spec`.
#![allow(dead_code)]

use std::path::PathBuf;

pub mod wallets;

/// Runs `npm install` in `dir` unless every package in `needed` is there
/// (the node tests' pinned packages; `.ci/run` installs them up front).
pub fn npm_install(dir: &std::path::Path, needed: &[&str]) {
    if needed
        .iter()
        .all(|p| dir.join("node_modules").join(p).is_dir())
    {
        return;
    }
    let status = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status()
        .expect("npm is required for the node tests (apt install nodejs npm)");
    assert!(status.success(), "npm install in {} failed", dir.display());
}

/// The test data directory (`tests/data/fixtures`).
pub fn fixtures() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixtures");
    assert!(p.is_dir(), "test data not found at {}", p.display());
    p
}

/// The peers' machine-readable schemas (`tests/data/spec`).
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/spec")
}

pub fn fixture(rel: &str) -> PathBuf {
    fixtures().join(rel)
}

pub fn json(rel: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The pytoniq-core per-block summary: file path → figures.
pub fn pytoniq_blocks() -> serde_json::Map<String, serde_json::Value> {
    json("verification/pytoniq-summary.json")["blocks"]
        .as_object()
        .unwrap()
        .clone()
}

/// A port nothing listens on now, never handed to another test of this
/// run, and outside the kernel's range of ports for `bind(…:0)` and
/// outgoing connections where that range leaves room below it. The child
/// a test starts binds the port seconds later (a devnet makes its zero
/// state first); a port from that range could meanwhile be taken by
/// anything binding port 0 or connecting out, and two tests given one
/// port had one of them talk to the other's server (a follower's streams
/// that never carried a block).
pub fn free_port() -> u16 {
    /// Ports handed out, and how far this process has counted.
    struct Ports {
        given: Vec<u16>,
        next: u32,
    }
    static PORTS: std::sync::Mutex<Ports> = std::sync::Mutex::new(Ports {
        given: Vec::new(),
        next: 0,
    });
    let mut ports = PORTS.lock().unwrap_or_else(|p| p.into_inner());
    let below = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u16>().ok())
        .filter(|&low| low > 12_000)
        .map(|low| 10_000..low);
    loop {
        let port = match &below {
            // Counting up from a point of this process's own, checked free
            // by binding.
            Some(range) => {
                let span = u32::from(range.end - range.start);
                let at = std::process::id()
                    .wrapping_mul(7919)
                    .wrapping_add(ports.next)
                    % span;
                ports.next += 1;
                let port = range.start + at as u16;
                if std::net::TcpListener::bind(("127.0.0.1", port)).is_err() {
                    continue;
                }
                port
            }
            None => match std::net::TcpListener::bind("127.0.0.1:0") {
                Ok(l) => l.local_addr().unwrap().port(),
                Err(_) => continue,
            },
        };
        if !ports.given.contains(&port) {
            ports.given.push(port);
            return port;
        }
    }
}

/// A listener of this process on a port from [`free_port`]: bound to port
/// 0, the kernel could pick one just handed to a child that has not bound
/// it yet.
pub fn bind_free() -> std::net::TcpListener {
    loop {
        if let Ok(listener) = std::net::TcpListener::bind(("127.0.0.1", free_port())) {
            return listener;
        }
    }
}

pub fn tonindex_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tonindex"))
}

pub mod api;

/// An active account of the tonutils-go fat block (mainnet, May 2026) as
/// it stood before the block.
pub struct FatBlockAccount {
    /// The ShardAccount BoC as the fixture has it.
    pub boc: Vec<u8>,
    pub state: tycho_types::models::ShardAccount,
    pub address: tycho_types::models::StdAddr,
    pub balance: tycho_types::models::CurrencyCollection,
    pub code: tycho_types::cell::Cell,
    pub data: tycho_types::cell::Cell,
}

/// The fat block's active accounts with code and data (wallets v3/v4/v5,
/// highload v3, USDT jetton wallets, …).
pub fn fat_block_active_accounts() -> Vec<FatBlockAccount> {
    use base64::Engine as _;
    use tycho_types::models::{AccountState, IntAddr, ShardAccount};
    let j = json("blocks/tonutils-go/tvm_replay_fat_block_66519406.json");
    j["previous_accounts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| {
            let boc = base64::engine::general_purpose::STANDARD
                .decode(a["shard_account_boc_base64"].as_str().unwrap())
                .unwrap();
            let state: ShardAccount = tycho_types::boc::Boc::decode(&boc)
                .unwrap()
                .parse()
                .unwrap();
            let acc = state.load_account().unwrap()?;
            let (AccountState::Active(init), IntAddr::Std(address)) = (acc.state, acc.address)
            else {
                return None;
            };
            Some(FatBlockAccount {
                code: init.code?,
                data: init.data?,
                balance: acc.balance,
                address,
                boc,
                state,
            })
        })
        .collect()
}

/// `tonindex dev` on the database `db`, listening on `port` (output to
/// null; set env, extra args or pipes on the returned command).
pub fn dev_command(db: &std::path::Path, port: u16) -> std::process::Command {
    dev_command_configured(None, db, port)
}

/// [`dev_command`] reading the config file `config` (given before the
/// subcommand, as the CLI takes it).
pub fn dev_command_configured(
    config: Option<&std::path::Path>,
    db: &std::path::Path,
    port: u16,
) -> std::process::Command {
    let mut c = std::process::Command::new(tonindex_bin());
    if let Some(config) = config {
        c.arg("--config").arg(config);
    }
    c.args(["dev", "--db"])
        .arg(db)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    c
}

/// Waits (a minute at most) until `port` on loopback accepts a connection.
/// A connection whose own port is `port` does not count: connecting to a
/// loopback port nothing listens on yet can pick that very port as its
/// source and connect to itself (TCP simultaneous open), which once let a
/// test go on before its server listened.
pub fn wait_listening(port: u16) {
    let start = std::time::Instant::now();
    let listening = || {
        std::net::TcpStream::connect(("127.0.0.1", port))
            .and_then(|s| s.local_addr())
            .is_ok_and(|local| local.port() != port)
    };
    while !listening() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "port {port} never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The transaction hashes the index holds for block `id` and those an
/// independent parser listed for it (`parsed["transactions"][i]["hash"]`,
/// hex), both sorted: equal when the index has every transaction it should.
pub fn block_transactions(
    reader: &tonindex_storage::Reader<'_>,
    id: &tonindex_model::BlockId,
    parsed: &serde_json::Value,
) -> (Vec<[u8; 32]>, Vec<[u8; 32]>) {
    use tonindex_storage::tables::{BlockTxKey, TxByBlock};
    let ids: Vec<u64> = reader
        .prefix::<TxByBlock>(&BlockTxKey::prefix(id), false)
        .map(|r| r.unwrap().0.tx_id)
        .collect();
    let mut ours: Vec<[u8; 32]> = tonindex::query::transactions::tx_records(reader, &ids)
        .unwrap()
        .into_iter()
        .map(|t| t.hash)
        .collect();
    let mut theirs: Vec<[u8; 32]> = parsed["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            hex::decode(t["hash"].as_str().unwrap())
                .unwrap()
                .try_into()
                .unwrap()
        })
        .collect();
    ours.sort();
    theirs.sort();
    (ours, theirs)
}

/// Every message the index holds, in hash order: a scan of the
/// `messages` rows, each read as the APIs read it (from a linked
/// transaction's BoC). What the property tests compare the indexes with.
pub fn all_messages(reader: &tonindex_storage::Reader<'_>) -> Vec<tonindex_model::MessageRecord> {
    use tonindex_storage::tables::Messages;
    let tags: Vec<[u8; 8]> = reader
        .prefix::<Messages>(&[], false)
        .map(|x| x.unwrap().0)
        .collect();
    let msgs: Vec<_> = tonindex::query::messages::under_tags(reader, &tags)
        .unwrap()
        .into_iter()
        .flatten()
        .map(|m| m.message.record)
        .collect();
    assert!(msgs.len() >= tags.len());
    msgs
}

/// A 32-byte hash given as hex in a parser's JSON.
pub fn hex32(v: &serde_json::Value) -> [u8; 32] {
    hex::decode(v.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}
