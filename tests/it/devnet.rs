//! `tonindex dev` as a process, driven by real clients and checked by
//! implementations that are not ours: @ton/ton, tonweb and Python's tonutils
//! send, deploy and read through the APIs; the official emulator re-runs
//! every transaction; pytoniq-core parses the blocks the devnet exported;
//! `tonindex import` of those files builds the same tables; a restart (SIGTERM
//! and kill -9) continues the chain; bad input is refused and changes nothing.
//! Needs node (the npm packages are installed into tests/clients on first
//! use) and python3 with pytoniq-core and tonutils (installed by `.ci/run`).

use crate::common;
/// Contracts deployed and driven by real clients.
mod contracts;

mod followers;

mod lite_servers;
/// Replicas restored from a snapshot behind HAProxy.
mod replicas;
/// `--shards` and `--split-merge-every`: a split basechain, end to end.
mod shards;
/// `tonindex snapshot create` and `restore` of a running follower.
mod snapshots;

mod streaming;

/// Emulate API v1.
mod emulate;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tonindex_model::BlockId;
use tonindex_storage::tables::{Blocks, ShardKey, ShardStates};
use tonindex_storage::{Db, DbOptions};

const FULL_SHARD: u64 = 0x8000_0000_0000_0000;

fn clients_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

/// A chunked body's data (a chunk cut short ends it).
fn dechunk(body: &str) -> String {
    let mut rest = body.as_bytes();
    let mut out = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol]).unwrap_or("").trim();
        let Ok(n) = usize::from_str_radix(size, 16) else {
            break;
        };
        let data = &rest[eol + 2..];
        if n == 0 || data.len() < n {
            break;
        }
        out.extend_from_slice(&data[..n]);
        rest = data[n..].strip_prefix(b"\r\n").unwrap_or(&data[n..]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A plain HTTP/1.1 request; returns (status, body), the body cut to the
/// JSON in it.
fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let (status, body) = http_text(port, method, path, body);
    // The JSON is the part between the braces.
    let json = match (body.find(['{', '[']), body.rfind(['}', ']'])) {
        (Some(a), Some(b)) if a <= b => body[a..=b].to_string(),
        _ => body,
    };
    (status, json)
}

/// A plain HTTP/1.1 request; returns (status, body) as sent.
fn http_text(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // A server refusing a big body answers before reading it all: the
    // write may break off, the answer is still there to read.
    let _ = write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    let status = buf.split_whitespace().nth(1).unwrap().parse().unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn json(port: u16, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, text) = http(port, method, path, body);
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
    (status, v)
}

/// A running `tonindex dev`.
struct Dev {
    child: Child,
    port: u16,
}

impl Dev {
    fn start(db: &Path, extra: &[&str]) -> Dev {
        Self::start_env(db, extra, &[])
    }

    /// [`Dev::start`] with settings in `TONINDEX_*` variables.
    fn start_env(db: &Path, extra: &[&str], env: &[(&str, &str)]) -> Dev {
        let port = common::free_port();
        let child = Command::new(common::tonindex_bin())
            .args(["dev", "--db"])
            .arg(db)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let dev = Dev { child, port };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return dev;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("tonindex dev did not start listening");
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn mc_seqno(&self) -> u64 {
        let (_, v) = json(self.port, "GET", "/api/v2/getMasterchainInfo", "");
        v["result"]["last"]["seqno"].as_u64().unwrap()
    }

    /// Stops it with SIGTERM (or SIGKILL) and waits for the exit.
    fn stop(mut self, kill: bool) {
        let sig = if kill { libc::SIGKILL } else { libc::SIGTERM };
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("tonindex dev did not stop");
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A child process killed when the test ends, however it ends.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tonindex dev` over `dir/db` with the config `toml` (written to
/// `dir/tonindex.toml`), listening: the process and its port.
fn dev_configured(dir: &Path, toml: &str) -> (KillOnDrop, u16) {
    let config = dir.join("tonindex.toml");
    std::fs::write(&config, toml).unwrap();
    let port = common::free_port();
    let dev = KillOnDrop(
        common::dev_command_configured(Some(&config), &dir.join("db"), port)
            .spawn()
            .unwrap(),
    );
    common::wait_listening(port);
    (dev, port)
}

fn node(script: &str, args: &[&str]) -> Value {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .current_dir(clients_dir())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap()
}

/// A devnet whose genesis accounts are what `script prepare FIXTURES`
/// prints (its `accounts`, each an `--account` spec), with the rest of
/// what it printed.
fn dev_prepared(script: &str, fixtures: &Path, dir: &Path) -> (Dev, Value) {
    let prepared = node(script, &["prepare", fixtures.to_str().unwrap()]);
    let mut args = Vec::new();
    for spec in prepared["accounts"].as_array().unwrap() {
        args.push("--account");
        args.push(spec.as_str().unwrap());
    }
    let dev = Dev::start(&dir.join("db"), &args);
    (dev, prepared)
}

/// A client script's two steps on a fresh devnet: `prepare FIXTURES`
/// gives the genesis accounts, `run BASE PREPARED_JSON` the checks, which
/// must end in `{"ok": true, …}` (returned).
fn prepared_run(script: &str) -> Value {
    let fixtures = common::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (dev, prepared) = dev_prepared(script, &fixtures, dir.path());
    let out = node(script, &["run", &dev.url(), &prepared.to_string()]);
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
    out
}

fn fund(dev: &Dev, address: &str, amount: u64) -> Value {
    let body = serde_json::json!({"address": address, "amount": amount.to_string()}).to_string();
    let (status, v) = json(dev.port, "POST", "/dev/fund", &body);
    assert_eq!(status, 200, "{v}");
    v
}

/// Runs `tests/python/<script>` with `args` (the Python packages come from
/// .ci/run) and returns the JSON of its last line of output; a failure
/// shows what it printed.
fn python<S: AsRef<std::ffi::OsStr>>(script: &str, args: &[S]) -> Value {
    let out = Command::new("python3")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/python")
                .join(script),
        )
        .args(args)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed (are its packages installed? .ci/run installs them):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim().lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{script}: {e}: {stdout}"))
}

/// `tonindex stats`' per-table row counts and digests of a database.
fn table_digests(db: &Path) -> Value {
    let out = Command::new(common::tonindex_bin())
        .args(["stats", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["tables"].clone()
}

/// A devnet in `dir/db` (with `extra` flags) that also serves the lite
/// API; returns it with the global config it wrote (`dir/global.json`)
/// and the lite server's port.
fn dev_with_lite_server(dir: &Path, extra: &[&str]) -> (Dev, PathBuf, u16) {
    let port = common::free_port();
    let config = dir.join("global.json");
    let listen = format!("127.0.0.1:{port}");
    let mut args = vec![
        "--liteserver-listen",
        &listen,
        "--liteserver-config",
        config.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let dev = Dev::start(&dir.join("db"), &args);
    common::wait_listening(port);
    (dev, config, port)
}

/// `tonindex run` on database `db` following the global config `config`
/// (with `extra` flags), serving on a free port: the process and the port,
/// once it listens.
fn start_run(db: &Path, config: &Path, extra: &[&str]) -> (Child, u16) {
    let http = common::free_port();
    let child = run_on(db, config, http, extra, &[], Stdio::piped());
    (child, http)
}

/// `tonindex run` on `db` following `config`, serving on `port`, with
/// `extra` flags and `env` variables, once it listens.
fn run_on(
    db: &Path,
    config: &Path,
    port: u16,
    extra: &[&str],
    env: &[(&str, &str)],
    stderr: Stdio,
) -> Child {
    let child = Command::new(common::tonindex_bin())
        .arg("run")
        .args(extra)
        .arg("--db")
        .arg(db)
        .arg("--global-config")
        .arg(config)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    common::wait_listening(port);
    child
}

/// Stops a process with SIGTERM and waits for it.
fn sigterm(mut child: Child) -> std::process::ExitStatus {
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    child.wait().unwrap()
}

/// `tonindex sync` (into `dir/other`) with a copy of `config` whose
/// `validator.<block>.<field>` hash is zeros: a chain the servers do not
/// serve.
fn sync_with_forged(dir: &Path, config: &Path, block: &str, field: &str) -> std::process::Output {
    let mut other: Value = serde_json::from_slice(&std::fs::read(config).unwrap()).unwrap();
    other["validator"][block][field] =
        serde_json::json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    let other_config = dir.join("other.json");
    std::fs::write(&other_config, other.to_string()).unwrap();
    Command::new(common::tonindex_bin())
        .args(["sync", "--liteserver-timeout-ms", "2000", "--db"])
        .arg(dir.join("other"))
        .arg("--global-config")
        .arg(&other_config)
        .output()
        .unwrap()
}

/// Waits (60 s at most) until the node `run` serving on `port` has indexed
/// masterchain block `seqno`; a node that stops meanwhile fails the test
/// with what it said.
fn wait_for_seqno(run: &mut Child, port: u16, seqno: u64) {
    let start = Instant::now();
    loop {
        let (_, v) = json(port, "GET", "/api/v2/getMasterchainInfo", "");
        if v["result"]["last"]["seqno"].as_u64() >= Some(seqno) {
            return;
        }
        if let Ok(Some(status)) = run.try_wait() {
            let mut err = String::new();
            if let Some(e) = run.stderr.as_mut() {
                e.read_to_string(&mut err).unwrap();
            }
            panic!("tonindex run stopped ({status}): {err}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "masterchain block {seqno} not reached: {v}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ton_clients_send_and_blocks_parse_independently() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let exported = dir.path().join("blocks");
    let dev = Dev::start(&db, &["--export-blocks", exported.to_str().unwrap()]);

    // @ton/ton: fund, deploy (v4r2 and v5r1), estimate, send, read, bounce.
    for version in ["v4", "v5"] {
        let out = node("devnet_tonton.mjs", &[&dev.url(), version]);
        assert_eq!(out["ok"], true, "{out}");
    }
    // The genesis wallets are the ones @ton/ton derives from the mnemonic.
    let (_, accounts) = json(dev.port, "GET", "/dev/accounts", "");
    let accounts = accounts.as_array().unwrap();
    assert_eq!(accounts.len(), 10);
    assert_eq!(accounts[0]["version"], "wallet_v4r2");
    assert_eq!(accounts[1]["version"], "wallet_v5r1");
    dev.stop(false);

    // pytoniq-core parses every exported block.
    let parsed = python("devnet_blocks.py", &[&exported]);
    let blocks = parsed["blocks"].as_array().unwrap();
    let zerostates = &parsed["zerostates"];

    let index = Db::open(&db, &DbOptions::default()).unwrap();
    let hex32 = common::hex32;
    // Each chain's blocks, by seqno.
    let mut by_chain: HashMap<i64, Vec<&Value>> = HashMap::new();
    for b in blocks {
        by_chain
            .entry(b["workchain"].as_i64().unwrap())
            .or_default()
            .push(b);
    }
    let mut transactions = 0;
    for (workchain, mut chain) in by_chain.clone() {
        chain.sort_by_key(|b| b["seqno"].as_u64().unwrap());
        let zs = if workchain == -1 {
            "zerostate_masterchain.boc"
        } else {
            "zerostate_basechain.boc"
        };
        let mut prev_state = zerostates[zs].clone();
        for (i, b) in chain.iter().enumerate() {
            let seqno = b["seqno"].as_u64().unwrap() as u32;
            assert_eq!(seqno as usize, i + 1, "no gap in workchain {workchain}");
            assert_eq!(b["global_id"], -239);
            // The Merkle update goes from the previous state to the next.
            assert_eq!(b["old_hash"], prev_state, "{b}");
            prev_state = b["new_hash"].clone();
            let id = BlockId {
                workchain: workchain as i32,
                shard: FULL_SHARD,
                seqno,
            };
            let rec = index
                .get::<Blocks>(&id)
                .unwrap()
                .expect("the block is indexed");
            assert_eq!(rec.id.root_hash, hex32(&b["root_hash"]));
            assert_eq!(rec.id.file_hash, hex32(&b["file_hash"]));
            assert_eq!(rec.state_root_hash, hex32(&b["new_hash"]));
            assert_eq!(rec.key_block, b["key_block"].as_bool().unwrap());
            // Every transaction, as pytoniq-core hashes it, is indexed in it.
            let reader = index.reader();
            let (ours, theirs) = common::block_transactions(&reader, &id, b);
            assert_eq!(ours, theirs, "transactions of {id:?}");
            transactions += theirs.len();
            // The masterchain block's shard hashes point at our basechain block.
            if workchain == -1 {
                let shards = b["shards"].as_array().unwrap();
                assert_eq!(shards.len(), 1);
                let top = by_chain[&0]
                    .iter()
                    .find(|s| s["seqno"] == shards[0]["seqno"])
                    .expect("the listed shard block was produced");
                assert_eq!(shards[0]["root_hash"], top["root_hash"]);
                assert_eq!(shards[0]["file_hash"], top["file_hash"]);
            }
        }
        // The last update ends at the state the index holds.
        let held = index
            .get::<ShardStates>(&ShardKey {
                workchain: workchain as i32,
                shard: FULL_SHARD,
            })
            .unwrap()
            .unwrap();
        assert_eq!(prev_state.as_str().unwrap(), hex::encode(held.root_hash));
    }
    // Funds, deploys, transfers and bounces of two wallet runs.
    assert!(transactions >= 12, "{transactions} transactions");
    drop(index);

    // The official emulator re-runs every transaction to the same hash and
    // the same account state.
    let (replayed, masterchain) = replay_in_the_emulator(&exported);
    assert!(
        replayed >= transactions,
        "{replayed} of {transactions} replayed"
    );
    assert!(masterchain >= 2, "{masterchain} masterchain transactions");

    // `tonindex import` of the exported files builds the same tables.
    let imported = dir.path().join("imported");
    let out = Command::new(common::tonindex_bin())
        .args(["import", "--db"])
        .arg(&imported)
        .arg(&exported)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (a, b) = (table_digests(&db), table_digests(&imported));
    assert!(a.as_array().is_some_and(|t| t.len() > 10), "{a}");
    assert_eq!(
        a, b,
        "tables of the devnet and of its exported blocks imported"
    );
}

/// Re-runs every transaction of the exported blocks on @ton/sandbox's
/// emulator, from the account states the blocks' Merkle updates give:
/// same transaction hashes in the same order, and the same account after
/// each account's last transaction of a block. Returns the transactions
/// replayed and how many were in the masterchain.
fn replay_in_the_emulator(exported: &Path) -> (usize, usize) {
    use tonindex::chain::devnet::replay::emulator_input;
    use tycho_types::boc::Boc;
    use tycho_types::models::Transaction;

    let input = emulator_input(exported, 0).unwrap();
    let emulator_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/emulator");
    common::npm_install(&emulator_dir, &["@ton/sandbox"]);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), input.json.to_string()).unwrap();
    let out = Command::new("node")
        .arg(emulator_dir.join("devnet_replay.mjs"))
        .arg(file.path())
        .output()
        .expect("node runs the emulator");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got.len(), input.expected.len(), "{got:?}");
    for (g, want) in got.iter().zip(&input.expected) {
        let tx_hash = hex::encode(want.tx_hash.0);
        if g["tx_hash"].as_str() != Some(tx_hash.as_str()) {
            let theirs: Transaction = Boc::decode_base64(g["tx"].as_str().unwrap())
                .unwrap()
                .parse()
                .unwrap();
            panic!(
                "transaction {tx_hash} differs: the emulator's is {theirs:?} (info {:?})",
                theirs.load_info()
            );
        }
        if let Some(account_hash) = want.account_hash {
            assert_eq!(
                g["account_hash"].as_str(),
                Some(hex::encode(account_hash.0).as_str()),
                "{g}"
            );
        }
    }
    let masterchain = input.expected.iter().filter(|e| e.masterchain).count();
    (input.expected.len(), masterchain)
}

#[test]
fn masterchain_blocks_are_signed_by_the_configured_validator() {
    use base64::Engine as _;
    use tycho_types::boc::Boc;
    use tycho_types::models::ValidatorSet;

    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let (_, v) = json(dev.port, "POST", "/dev/block", "");
    let seqno = v["mc_seqno"].as_u64().unwrap();
    // The validator set the config (param 34) names.
    let (_, param) = json(dev.port, "GET", "/api/v2/getConfigParam?config_id=34", "");
    let boc = param["result"]["config"]["bytes"].as_str().unwrap();
    let set: ValidatorSet = Boc::decode_base64(boc).unwrap().parse().unwrap();
    assert_eq!(set.list.len(), 1);
    let key = set.list[0].public_key.0;
    let b64 = |s: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(s.as_str().unwrap())
            .unwrap()
    };
    for seqno in 1..=seqno {
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v2/getMasterchainBlockSignatures?seqno={seqno}"),
            "",
        );
        assert_eq!(status, 200, "{v}");
        let r = &v["result"];
        assert_eq!(r["@type"], "blocks.blockSignatures");
        assert_eq!(r["id"]["seqno"].as_u64(), Some(seqno));
        let sigs = r["signatures"].as_array().unwrap();
        assert_eq!(sigs.len(), 1);
        // node_id_short = sha256(pub.ed25519#4813b4c6 key), the signature
        // over ton.blockId#c50b6e70 root_hash file_hash (the TL id written
        // little-endian, as pytoniq-core signs and checks it).
        let mut tl = 0x4813_b4c6u32.to_le_bytes().to_vec();
        tl.extend_from_slice(&key);
        use sha2::Digest as _;
        assert_eq!(
            b64(&sigs[0]["node_id_short"]),
            sha2::Sha256::digest(&tl).to_vec()
        );
        let mut signed = 0xc50b_6e70u32.to_le_bytes().to_vec();
        signed.extend(b64(&r["id"]["root_hash"]));
        signed.extend(b64(&r["id"]["file_hash"]));
        let signature: [u8; 64] = b64(&sigs[0]["signature"]).try_into().unwrap();
        let public = tycho_crypto::ed25519::PublicKey::from_bytes(key).unwrap();
        assert!(public.verify_raw(&signed, &signature), "block {seqno}");
    }
    // The outbound queues of both chains' newest blocks.
    let (status, v) = json(dev.port, "GET", "/api/v2/getOutMsgQueueSize", "");
    assert_eq!(status, 200, "{v}");
    let shards = v["result"]["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2);
    assert!(shards.iter().all(|s| s["size"] == 0), "{v}");
    // getShardBlockProof, checked by pytoniq-core: basechain block 1 proved
    // from the newest masterchain block (2) back to the one committing it (1).
    let checked = python("devnet_proofs.py", &[dev.url(), "1".into()]);
    assert_eq!(checked["from"].as_u64(), Some(seqno));
    // The state proof hides the state after the newest block.
    let (_, info) = json(dev.port, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(
        hex::encode(b64(&info["result"]["state_root_hash"])),
        checked["state_root"].as_str().unwrap()
    );
    // A from_seqno older than the committing block is refused.
    let (status, _) = json(
        dev.port,
        "GET",
        "/api/v2/getShardBlockProof?workchain=0&shard=-9223372036854775808&seqno=2&from_seqno=1",
        "",
    );
    assert_eq!(status, 422);
}

#[test]
fn python_tonutils_sends_and_reads_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let v = python("devnet_tonutils.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn tonweb_sends_and_reads_end_to_end() {
    common::npm_install(&clients_dir(), &["tonweb"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let out = node("devnet_tonweb.mjs", &[&dev.url()]);
    assert_eq!(out["ok"], true, "{out}");
}

#[test]
fn with_a_block_interval_accepted_messages_wait_and_survive_a_crash() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // Automine builds the messages (the script's own first send goes through).
    let dev = Dev::start(&db, &[]);
    let msgs = node("devnet_refusals.mjs", &[&dev.url()]);
    dev.stop(false);

    // A block a minute: the accepted message waits for it.
    let slow = ["--block-interval", "60000"];
    let dev = Dev::start(&db, &slow);
    let before = dev.mc_seqno();
    let body = serde_json::json!({ "boc": msgs["good"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v2/sendBocReturnHash", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["result"]["hash"].as_str().unwrap().to_string();
    assert_eq!(
        dev.mc_seqno(),
        before,
        "nothing produced before the interval"
    );
    // A refused message is not queued.
    let bad = serde_json::json!({ "boc": msgs["wrong_signature"] }).to_string();
    assert_eq!(json(dev.port, "POST", "/api/v2/sendBoc", &bad).0, 500);
    dev.stop(true);

    // After kill -9 the accepted message is still waiting; the next block has it.
    let dev = Dev::start(&db, &slow);
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200);
    assert_eq!(v["mc_seqno"].as_u64(), Some(before + 1));
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/transactionsByMessage?msg_hash={q}&direction=in"),
        "",
    );
    assert_eq!(v["transactions"].as_array().map(Vec::len), Some(1), "{v}");
    let (_, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(
        v["mc_seqno"].as_u64(),
        Some(before + 2),
        "an empty block pair"
    );

    // The next transfer, sent while blocks wait: emulated at once, shown as
    // pending (traces, actions, transactions) until its block, then as a
    // real trace and no longer pending.
    let body = serde_json::json!({ "boc": msgs["next"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap().to_string();
    let (transfer, wq) = pending_transfer_is_shown(dev.port, &hash, "100000000");
    assert_eq!(json(dev.port, "GET", "/api/v3/pendingTraces", "").0, 422);

    let (_, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(v["mc_seqno"].as_u64(), Some(before + 3));
    let real = real_trace_of(dev.port, &hash);
    let (status, _) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingTransactions?account={wq}"),
        "",
    );
    assert_eq!(status, 404);
    let real_transfer = real["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "ton_transfer")
        .unwrap();
    // The emulation saw what the chain did (the message's lt and time, and
    // so its hash and the action's id, are the block's own).
    assert_eq!(real_transfer["details"], transfer["details"]);
    assert_eq!(real_transfer["finality"], "finalized");
}

/// `/api/v3/blocks` asked for one block (200 asserted).
fn indexed_block(port: u16, workchain: i64, shard: u64, seqno: u64) -> Value {
    let path = format!("/api/v3/blocks?workchain={workchain}&shard={shard:016X}&seqno={seqno}");
    let (status, blocks) = json(port, "GET", &path, "");
    assert_eq!(status, 200, "{blocks}");
    blocks
}

/// The pending trace of the external message `hash` (a wallet's transfer,
/// not in a block yet): emulated, `pending`, naming the indexed block
/// whose state its emulation started from (the account's shard), its
/// `ton_transfer` of `value` found by account in `/pendingActions` and its
/// wallet's transaction in `/pendingTransactions`. The transfer action and
/// the wallet's address (query-encoded).
fn pending_transfer_is_shown(port: u16, hash: &str, value: &str) -> (Value, String) {
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (status, v) = json(
        port,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    let traces = v["traces"].as_array().expect("a pending trace");
    assert_eq!(traces.len(), 1, "{v}");
    let t = &traces[0];
    assert_eq!(t["external_hash"], hash);
    assert_eq!(
        t["trace_info"]["transactions"], 2,
        "wallet and receiver: {t}"
    );
    let order = t["transactions_order"].as_array().unwrap();
    for h in order {
        let tx = &t["transactions"][h.as_str().unwrap()];
        assert_eq!(tx["emulated"], true);
        assert_eq!(tx["finality"], "pending");
        // It names the masterchain block it was emulated on, one the index
        // holds (toncenter's emulator names it so).
        let mc = tx["mc_block_seqno"]
            .as_u64()
            .unwrap_or_else(|| panic!("{tx}"));
        let mc_block = indexed_block(port, -1, 1 << 63, mc);
        assert_eq!(mc_block["blocks"].as_array().unwrap().len(), 1, "{tx}");
        // The base block is one the index holds, of the account's shard.
        let b = &tx["block_ref"];
        let shard = u64::from_str_radix(b["shard"].as_str().unwrap(), 16).unwrap();
        let id = hex::decode(&tx["account"].as_str().unwrap()[2..]).unwrap();
        let prefix = u64::from_be_bytes(id[..8].try_into().unwrap());
        // The bits above the shard's tag bit are the account's (none for
        // the whole workchain).
        let bits = shard.trailing_zeros() + 1;
        let high = |x: u64| x.checked_shr(bits).unwrap_or(0);
        assert_eq!(high(prefix), high(shard), "{tx}");
        let blocks = indexed_block(
            port,
            b["workchain"].as_i64().unwrap(),
            shard,
            b["seqno"].as_u64().unwrap(),
        );
        assert_eq!(
            blocks["blocks"].as_array().unwrap().len(),
            1,
            "{tx} {blocks}"
        );
        // And the base block is committed by then.
        let committed = &blocks["blocks"][0]["masterchain_block_ref"]["seqno"];
        assert!(committed.as_u64().is_some_and(|c| c <= mc), "{tx} {blocks}");
    }
    let transfer = t["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "ton_transfer")
        .unwrap_or_else(|| panic!("a pending ton_transfer: {t}"));
    assert_eq!(transfer["details"]["value"], value);
    assert_eq!(transfer["finality"], "pending");
    let wallet = t["transactions"][order[0].as_str().unwrap()]["account"]
        .as_str()
        .unwrap()
        .to_string();
    let wq: String = form_urlencoded::byte_serialize(wallet.as_bytes()).collect();
    let (_, v) = json(
        port,
        "GET",
        &format!("/api/v3/pendingActions?account={wq}"),
        "",
    );
    assert!(
        v["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["action_id"] == transfer["action_id"]),
        "{v}"
    );
    let (status, v) = json(
        port,
        "GET",
        &format!("/api/v3/pendingTransactions?account={wq}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["transactions"].as_array().unwrap().len(),
        1,
        "the wallet's: {v}"
    );
    (transfer.clone(), wq)
}

/// The trace of the external message `hash` once its block is indexed:
/// no longer pending, a complete trace of two transactions (a wallet and
/// its receiver), with its actions.
fn real_trace_of(port: u16, hash: &str) -> Value {
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (_, v) = json(
        port,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert!(v["traces"].is_null(), "no longer pending: {v}");
    let (_, v) = json(
        port,
        "GET",
        &format!("/api/v3/traces?msg_hash={q}&include_actions=true"),
        "",
    );
    let real = &v["traces"][0];
    assert_eq!(real["trace_info"]["trace_state"], "complete", "{v}");
    assert_eq!(real["trace_info"]["transactions"], 2);
    real.clone()
}

#[test]
fn genesis_accounts_from_flags_and_hashes_of_sent_messages() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    use tycho_types::boc::Boc;
    use tycho_types::cell::{CellBuilder, HashBytes};
    let dir = tempfile::tempdir().unwrap();
    // Three more genesis accounts from --account: uninit with coins (one of
    // them in the masterchain), and an active one with wallet v4r2's code and
    // data of seqno 41 at an address of our choosing.
    let code = tonindex::wallet_client::standard::Version::V4R2.code();
    let mut data = CellBuilder::new();
    data.store_u32(41).unwrap();
    data.store_u32(698_983_191).unwrap();
    data.store_u256(&HashBytes([9; 32])).unwrap();
    data.store_bit_zero().unwrap();
    let data = data.build().unwrap();
    let active = format!(
        "0:9999999999999999999999999999999999999999999999999999999999999999:777:{}:{}",
        Boc::encode_base64(code.as_ref()),
        Boc::encode_base64(data.as_ref())
    );
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--wallets",
            "4",
            "--account",
            "0:7777777777777777777777777777777777777777777777777777777777777777:123456789",
            "--account",
            "-1:8888888888888888888888888888888888888888888888888888888888888888:5",
            "--account",
            &active,
        ],
    );
    let (status, v) = json(
        dev.port,
        "GET",
        "/api/v2/runGetMethod?address=0:9999999999999999999999999999999999999999999999999999999999999999&method=seqno&stack=[]",
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["stack"][0][1], "0x29", "{v}");
    let (_, accounts) = json(dev.port, "GET", "/dev/accounts", "");
    assert_eq!(accounts.as_array().unwrap().len(), 4);
    for (address, balance, state) in [
        (
            "0:7777777777777777777777777777777777777777777777777777777777777777",
            "123456789",
            "uninitialized",
        ),
        (
            "-1:8888888888888888888888888888888888888888888888888888888888888888",
            "5",
            "uninitialized",
        ),
    ] {
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v2/getAddressInformation?address={address}"),
            "",
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["result"]["balance"], balance);
        assert_eq!(v["result"]["state"], state);
    }
    // sendBocReturnHash and v3 /message report the message's hash and its
    // TEP-467 normalized hash, as indexed.
    let msgs = node("devnet_refusals.mjs", &[&dev.url()]);
    let body = serde_json::json!({ "boc": msgs["good"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap();
    let norm = v["message_hash_norm"].as_str().unwrap();
    let q = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let (_, m) = json(
        dev.port,
        "GET",
        &format!("/api/v3/messages?msg_hash={}", q(hash)),
        "",
    );
    let m = &m["messages"][0];
    assert_eq!(m["hash"], hash);
    assert_eq!(m["hash_norm"].as_str().unwrap_or(hash), norm, "{m}");
}

#[test]
fn a_restarted_devnet_continues_its_chain() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let target = "0:2222222222222222222222222222222222222222222222222222222222222222";

    let dev = Dev::start(&db, &[]);
    let first = fund(&dev, target, 1_000_000_000);
    let seqno = dev.mc_seqno();
    assert_eq!(first["mc_seqno"].as_u64(), Some(seqno));
    dev.stop(false);

    // SIGTERM: the chain continues where it stopped.
    let dev = Dev::start(&db, &[]);
    assert_eq!(dev.mc_seqno(), seqno);
    let second = fund(&dev, target, 2_000_000_000);
    assert_eq!(second["mc_seqno"].as_u64(), Some(seqno + 1));
    dev.stop(true);

    // kill -9 right after an answered send: nothing answered is lost.
    let dev = Dev::start(&db, &[]);
    assert_eq!(dev.mc_seqno(), seqno + 1);
    for fund_answer in [&first, &second] {
        let hash = fund_answer["tx_hash"].as_str().unwrap();
        let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v3/transactions?hash={q}"),
            "",
        );
        assert_eq!(status, 200);
        assert_eq!(v["transactions"].as_array().unwrap().len(), 1, "{v}");
    }
    let (_, info) = json(
        dev.port,
        "GET",
        &format!("/api/v2/getAddressBalance?address={target}"),
        "",
    );
    // Both transfers arrived; the uninit account may have paid a few
    // nanotons of storage fee in between.
    let balance: u64 = info["result"].as_str().unwrap().parse().unwrap();
    assert!(
        (2_999_990_000..=3_000_000_000).contains(&balance),
        "{balance}"
    );
    let (status, block) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200);
    assert_eq!(block["mc_seqno"].as_u64(), Some(seqno + 2));
    dev.stop(false);

    // No gap: every block of both chains is indexed.
    let index = Db::open(&db, &DbOptions::default()).unwrap();
    for workchain in [-1, 0] {
        for seqno in 1..=(seqno + 2) as u32 {
            let id = BlockId {
                workchain,
                shard: FULL_SHARD,
                seqno,
            };
            assert!(index.contains::<Blocks>(&id).unwrap(), "{id:?} is missing");
        }
    }
}

#[test]
fn bad_input_is_refused_and_the_chain_goes_on() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    // Messages a client could send: the node script builds them.
    let msgs = node("devnet_refusals.mjs", &[&dev.url()]);
    let before = dev.mc_seqno();
    let send = |boc: &str| {
        let body = serde_json::json!({ "boc": boc }).to_string();
        json(dev.port, "POST", "/api/v2/sendBoc", &body)
    };
    // Refused by the account as a liteserver refuses: 500, nothing queued.
    for case in ["wrong_signature", "replayed_seqno"] {
        let (status, v) = send(msgs[case].as_str().unwrap());
        assert_eq!(status, 500, "{case}: {v}");
        assert_eq!(v["ok"], false);
        let error = v["error"].as_str().unwrap();
        assert!(
            error.contains("External message was not accepted"),
            "{case}: {error}"
        );
        let (status, v) = json(
            dev.port,
            "POST",
            "/api/v3/message",
            &serde_json::json!({ "boc": msgs[case] }).to_string(),
        );
        assert_eq!(status, 500, "{case} (v3): {v}");
        assert!(v["error"].as_str().unwrap().contains("not accepted"));
    }
    // Not a message to send: 422.
    for case in ["internal", "unknown_workchain"] {
        let (status, v) = send(msgs[case].as_str().unwrap());
        assert_eq!(status, 422, "{case}: {v}");
    }
    let (status, _) = send("not base64 at all!");
    assert_eq!(status, 422);
    let (status, v) = send("te6ccgEBAQEAAgAAAA==");
    assert_eq!(status, 422, "{v}");
    // A body over the limit, and /dev/ requests that make no sense.
    let huge = format!("{{\"boc\":\"{}\"}}", "A".repeat(2 << 20));
    let (status, _) = http(dev.port, "POST", "/api/v2/sendBoc", &huge);
    assert_eq!(status, 413);
    let (status, _) = json(dev.port, "GET", "/dev/nothing", "");
    assert_eq!(status, 404);
    for body in [
        r#"{"address":"0:22","amount":"1"}"#,
        r#"{"address":"0:2222222222222222222222222222222222222222222222222222222222222222","amount":"-5"}"#,
        r#"{"address":"0:2222222222222222222222222222222222222222222222222222222222222222"}"#,
        r#"not json"#,
    ] {
        let (status, v) = json(dev.port, "POST", "/dev/fund", body);
        assert_eq!(status, 422, "{body}: {v}");
        assert!(v["error"].is_string());
    }
    // Nothing was queued or produced; the chain still produces.
    assert_eq!(dev.mc_seqno(), before);
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200);
    assert_eq!(v["mc_seqno"].as_u64(), Some(before + 1));
    // The good message of the script still goes through afterwards.
    let (status, v) = send(msgs["good"].as_str().unwrap());
    assert_eq!(status, 200, "{v}");
    assert_eq!(dev.mc_seqno(), before + 2);
}

/// v3 transactions carry the account states around them where the node
/// holds them (F8 item 1c): the devnet holds the state after every block,
/// so a funded address shows nonexist → uninit, the next funding starts
/// from that state, and the faucet's state after its newest transaction
/// is what v2 and v3's account reads (other tables, other code) report.
#[test]
fn transactions_carry_the_account_states_the_node_holds() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &["--wallets", "2"]);
    let addr = "0:5555555555555555555555555555555555555555555555555555555555555555";
    fund(&dev, addr, 3_000_000_000);
    fund(&dev, addr, 2_000_000_000);
    let get = |path: String| json(dev.port, "GET", &path, "").1;
    let v = get(format!(
        "/api/v3/transactions?account={addr}&sort=asc&limit=10"
    ));
    let txs = v["transactions"].as_array().unwrap();
    assert_eq!(txs.len(), 2, "{v}");
    let (first, second) = (&txs[0], &txs[1]);

    let before = &first["account_state_before"];
    assert_eq!(before["account_status"], "nonexist", "{before}");
    assert_eq!(before["balance"], "0");
    let after = &first["account_state_after"];
    assert_eq!(after["account_status"], "uninit", "{after}");
    assert!(after["code_hash"].is_null() && after["data_hash"].is_null());
    let credited: u64 = after["balance"].as_str().unwrap().parse().unwrap();
    assert!(
        (2_900_000_000..=3_000_000_000).contains(&credited),
        "{after}"
    );
    // One state, seen from both sides.
    assert_eq!(second["account_state_before"], *after);
    let balance = get(format!("/api/v2/getAddressBalance?address={addr}"));
    assert_eq!(second["account_state_after"]["balance"], balance["result"]);
    assert_eq!(second["account_state_after"]["account_status"], "uninit");

    // The faucet (the second funding's sender) is active: its state after
    // that transaction is its newest.
    let in_msg = second["in_msg"]["hash"].as_str().unwrap();
    let faucet_txs = get(format!(
        "/api/v3/transactionsByMessage?msg_hash={}&direction=out",
        common::api::q(in_msg)
    ));
    let faucet_tx = &faucet_txs["transactions"][0];
    let faucet = faucet_tx["account"].as_str().unwrap();
    let state = &faucet_tx["account_state_after"];
    assert_eq!(state["account_status"], "active", "{faucet_tx}");
    let held = get(format!("/api/v3/accountStates?address={faucet}"));
    let held = &held["accounts"][0];
    assert_eq!(state["balance"], held["balance"], "{held}");
    assert_eq!(state["code_hash"], held["code_hash"]);
    assert_eq!(state["data_hash"], held["data_hash"]);
    assert_eq!(state["hash"], held["account_state_hash"]);
    let info = get(format!("/api/v2/getAddressBalance?address={faucet}"));
    assert_eq!(state["balance"], info["result"]);
}

/// Waits (30 s at most) until the wallet of a `wallet_transfer.py` transfer
/// `t` has the seqno after it, as the node on `port` reads it.
fn wait_for_wallet_seqno(port: u16, t: &Value) {
    let wallet = t["wallet"].as_str().unwrap();
    let path = format!("/api/v2/runGetMethod?address={wallet}&method=seqno&stack=%5B%5D");
    let want = format!("0x{:x}", t["seqno"].as_u64().unwrap() + 1);
    let start = Instant::now();
    loop {
        let (_, v) = json(port, "GET", &path, "");
        if v["result"]["stack"][0][1] == want.as_str() {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
