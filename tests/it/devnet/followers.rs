//! The devnet's lite server and the followers that read it: pytoniq's
//! lite client, a second tonindex syncing and following (`sync`, `run`),
//! trust from the init block, pending messages, library-coded Jetton
//! wallets, and a killed sync resuming.

use super::*;

/// The lite API on the devnet (F7 item 6): `--liteserver-listen` serves it
/// and `--liteserver-config` writes a global config; pytoniq's LiteClient
/// (PyPI, installed by .ci/run) connects from that config and checks
/// what it is given at trust level 1 (block hashes, header proofs,
/// getAllShardsInfo's two proofs), reads masterchain info, a block, its
/// header and the shards (equal to v2's), and sends a wallet transfer that
/// executes; then runs get-methods through `runSmcMethod` (seqno, public
/// key, one with arguments, an unknown one: exit code 11), reads the
/// wallet's history (`getTransactions`, hash-chained), its block by lt
/// and a masterchain block by time (`lookupBlock`), its block's
/// transactions (`listBlockTransactions`, the proof checked with
/// pytoniq-core), the config (`getConfigAll`/`getConfigParams`, proofs
/// checked) and libraries — each equal to v2's answer; a replayed message
/// and an unanswered query are refused.
#[test]
fn pytoniq_lite_client_talks_to_the_devnets_lite_server() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, port) = dev_with_lite_server(dir.path(), &[]);
    // The config as TON tools read it.
    let cfg: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let ls = &cfg["liteservers"][0];
    assert_eq!(ls["ip"], 0x7f00_0001);
    assert_eq!(ls["port"], port);
    let (_, info) = json(dev.port, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(
        cfg["validator"]["zero_state"]["root_hash"],
        info["result"]["init"]["root_hash"]
    );
    let v = python(
        "devnet_liteclient.py",
        &[config.as_os_str(), std::ffi::OsStr::new(&dev.url())],
    );
    assert_eq!(v["sent"], true, "{v}");
    assert_eq!(v["shards"], 1, "{v}");
    assert_eq!(v["get_methods"], true, "{v}");
    assert_eq!(v["lookups"], true, "{v}");
    assert_eq!(v["shard_block_proof"], true, "{v}");
    assert_eq!(v["unknown_method_exit_code"], 11, "{v}");
    assert!(v["transactions"].as_u64() >= Some(1), "{v}");
    assert!(v["block_transactions"].as_u64() >= Some(1), "{v}");
    assert!(v["config_params"].as_u64() > Some(20), "{v}");
    assert!(v["replay_refused"].is_number(), "{v}");
    assert_eq!(v["one_transaction"], true, "{v}");
    // The masterchain's and the basechain's newest blocks.
    assert_eq!(v["out_msg_queue_sizes"], 2, "{v}");
    assert!(v["unsupported_refused"].is_number(), "{v}");
}

/// Hostile lite clients (F7, bad input): a connection that never
/// completes the ADNL handshake is dropped after the handshake timeout, one
/// that sends garbage at once, and neither holds the server: a follower
/// syncs from it meanwhile.
#[test]
fn the_lite_server_drops_silent_and_garbage_clients() {
    use std::io::Read as _;
    let dir = tempfile::tempdir().unwrap();
    let (_dev, config, port) = dev_with_lite_server(dir.path(), &[]);
    let silent: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let mut garbage = TcpStream::connect(("127.0.0.1", port)).unwrap();
    garbage.write_all(&[0x5a; 300]).unwrap();
    let out = Command::new(common::tonindex_bin())
        .args(["sync", "--until-seqno", "1", "--db"])
        .arg(dir.path().join("follower"))
        .arg("--global-config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let closed = |mut s: &TcpStream, within: Duration| {
        s.set_read_timeout(Some(within)).unwrap();
        let mut buf = [0u8; 64];
        // End of stream or a reset: the server let go of it. A read that
        // times out means it still holds it.
        loop {
            match s.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) => {
                    return !matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    )
                }
            }
        }
    };
    assert!(closed(&garbage, Duration::from_secs(3)), "garbage kept");
    let start = Instant::now();
    for s in &silent {
        assert!(closed(s, Duration::from_secs(10)), "a silent client kept");
    }
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(9), "dropped after {waited:?}");
}

/// A second tonindex follows the devnet through its lite server (F7 item
/// 4, first part): `tonindex sync --global-config` with the config the
/// devnet wrote fetches the zero states and every block over ADNL-TCP
/// while transfers are being sent (in both workchains), stops at a given
/// masterchain block and resumes from its cursor, checking every
/// masterchain block's validator signatures from the config's zero state
/// (F7 item 2: no `--trust-liteservers`); in the end every table (blocks,
/// transactions, messages, the cell store, account states) has the same
/// digest as the devnet's own. A config naming another zero state is
/// refused.
#[test]
fn a_second_tonindex_syncs_from_the_devnets_lite_server() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    let db = dir.path().join("db");
    let targets = [
        "0:5151515151515151515151515151515151515151515151515151515151515151",
        "-1:5252525252525252525252525252525252525252525252525252525252525252",
    ];
    for t in targets {
        fund(&dev, t, 2_000_000_000);
    }
    let follower = dir.path().join("follower");
    let sync = |until: u64| {
        Command::new(common::tonindex_bin())
            .args(["sync", "--db"])
            .arg(&follower)
            .arg("--global-config")
            .arg(&config)
            .args(["--until-seqno", &until.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Follows past the tip: it waits for blocks the sends below produce.
    let first_stop = dev.mc_seqno() + 2;
    let running = sync(first_stop);
    for t in targets.iter().cycle().take(4) {
        fund(&dev, t, 1_000_000_000);
    }
    let out = running.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Resumes from its cursor up to the devnet's tip.
    let tip = dev.mc_seqno();
    assert!(tip > first_stop);
    let out = sync(tip).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("last masterchain block {tip}")),
        "{said}"
    );
    // Trust starts at the global config's zero state: a config naming
    // another one is not the chain this server serves, and nothing is
    // believed.
    let refused = sync_with_forged(dir.path(), &config, "zero_state", "root_hash");
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("zero state"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    dev.stop(false);
    let (a, b) = (table_digests(&db), table_digests(&follower));
    assert!(a.as_array().is_some_and(|t| t.len() > 10), "{a}");
    assert_eq!(a, b, "tables of the devnet and of the follower");
}

/// Trust across key blocks (F7 item 2): a devnet making every third
/// masterchain block a key block writes its first key block as the global
/// config's `init_block`. pytoniq at trust level 0 (its own signature,
/// validator-set and proof checks) walks the lite server's forward links
/// from that init block through the key blocks to the tip and proves every
/// older block backward. `tonindex run --from-seqno` on an empty database
/// checks its first block through the same chain of key blocks, indexes
/// from there (no older masterchain block, only the shard blocks the first
/// one commits) and serves the blocks and transactions as the devnet
/// does, and account states (and get-methods on them) it did not replay as
/// the lite server proves them — fetched for each changed account as its
/// unit is indexed, and on demand for the rest; a config naming another
/// init block is not believed.
#[test]
fn trust_walks_key_blocks_from_the_init_block() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &["--key-block-every", "3"]);
    let mut n = 0u8;
    while dev.mc_seqno() < 11 {
        n += 1;
        fund(&dev, &format!("0:{}", hex::encode([n; 32])), 1_000_000_000);
    }
    let v = python(
        "devnet_trust.py",
        &[config.as_os_str(), std::ffi::OsStr::new(&dev.url())],
    );
    assert!(v["last_key_block"].as_u64() >= Some(9), "{v}");
    assert!(v["proven"].as_array().is_some_and(|p| p.len() >= 10), "{v}");

    // A follower starting at block 8: trust goes 1 -> 3 -> 6 -> 8.
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", "8"],
    );
    let tip = dev.mc_seqno();
    wait_for_seqno(&mut run, http, tip);
    let strip = |mut v: Value| {
        v.as_object_mut().map(|o| o.remove("@extra"));
        v
    };
    let mc = "workchain=-1&shard=-9223372036854775808";
    // Block 7 is before the follow: not in the index (its header is not
    // served), though a lookup finds it on the lite server.
    let (status, _) = json(
        http,
        "GET",
        &format!("/api/v2/getBlockHeader?{mc}&seqno=7"),
        "",
    );
    assert_eq!(status, 404, "block 7 is before the follow");
    let path = format!("/api/v2/lookupBlock?{mc}&seqno=7");
    assert_eq!(
        json(http, "GET", &path, "").1["result"],
        json(dev.port, "GET", &path, "").1["result"]
    );
    for seqno in 8..=tip {
        for path in [
            format!("/api/v2/lookupBlock?{mc}&seqno={seqno}"),
            format!("/api/v2/shards?seqno={seqno}"),
        ] {
            let (_, ours) = json(http, "GET", &path, "");
            let (_, theirs) = json(dev.port, "GET", &path, "");
            assert_eq!(strip(ours), strip(theirs), "{path}");
        }
        // The same transactions; the account states around them are the
        // devnet's, while the follower, which replayed nothing before block
        // 8, says it does not know them (null) rather than make them up.
        let path = format!("/api/v3/transactionsByMasterchainBlock?seqno={seqno}");
        let (_, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        let txs = |mut v: Value| {
            let list = v["transactions"].as_array_mut().unwrap();
            for tx in list.iter_mut() {
                let o = tx.as_object_mut().unwrap();
                o.remove("account_state_before");
                o.remove("account_state_after");
            }
            v["transactions"].take()
        };
        let unknown = ours["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["account_state_after"]["account_status"].is_null())
            .count();
        assert!(unknown > 0, "{ours}");
        assert_eq!(txs(ours), txs(theirs), "{path}");
    }
    // Accounts last touched before block 8 (genesis wallet 0) or after:
    // their states come from the lite server, checked by their proofs, as
    // the devnet has them; get-methods run on them; an unused address is
    // proven not to exist.
    let (_, accounts) = json(dev.port, "GET", "/dev/accounts", "");
    let wallet = accounts[0]["address"].as_str().unwrap().to_string();
    let unused = format!("0:{}", hex::encode([0xeeu8; 32]));
    for path in [
        format!("/api/v2/getAddressInformation?address={wallet}"),
        format!(
            "/api/v2/getAddressInformation?address=0:{}",
            hex::encode([1u8; 32])
        ),
        format!("/api/v2/getAddressInformation?address={unused}"),
        format!("/api/v2/getWalletInformation?address={wallet}"),
        format!("/api/v2/runGetMethod?address={wallet}&method=get_public_key&stack=%5B%5D"),
        format!("/api/v3/walletStates?address={wallet}"),
    ] {
        let (status, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        assert_eq!(status, 200, "{path}: {ours}");
        let (mut ours, mut theirs) = (strip(ours), strip(theirs));
        for v in [&mut ours, &mut theirs] {
            // The block an answer names is each node's own newest.
            v["result"].as_object_mut().map(|o| o.remove("block_id"));
        }
        assert_eq!(ours, theirs, "{path}");
    }
    run.kill().unwrap();
    run.wait().unwrap();

    // The follower's index itself holds the states of the accounts blocks
    // 8 on changed (read from the lite server with proofs as each unit was
    // indexed): served without any chain, the last funded account is
    // there as on the devnet, while one changed only before block 8 is
    // unknown.
    let http = common::free_port();
    let mut serve = Command::new(common::tonindex_bin())
        .args(["serve", "--db"])
        .arg(dir.path().join("follower"))
        .args(["--listen", &format!("127.0.0.1:{http}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::wait_listening(http);
    let last_funded = format!("0:{}", hex::encode([n; 32]));
    let path = format!("/api/v3/accountStates?address={last_funded}&include_boc=false");
    let (status, ours) = json(http, "GET", &path, "");
    let (_, theirs) = json(dev.port, "GET", &path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["accounts"].as_array().map(Vec::len), Some(1), "{ours}");
    assert_eq!(ours["accounts"], theirs["accounts"]);
    let first_funded = format!("0:{}", hex::encode([1u8; 32]));
    let (status, v) = json(
        http,
        "GET",
        &format!("/api/v2/getAddressInformation?address={first_funded}"),
        "",
    );
    assert_eq!(status, 404, "{v}");
    serve.kill().unwrap();
    serve.wait().unwrap();

    // An init block the chain does not have: nothing is believed.
    let refused = sync_with_forged(dir.path(), &config, "init_block", "file_hash");
    assert!(!refused.status.success());
    dev.stop(false);
}

/// `tonindex run` (F7 items 4 and 5, first part): one process follows the
/// devnet through its lite server and serves v2 and v3 over what it
/// indexed — the same tip, the same balances and get-method answers as
/// the devnet's own API — and hands a sent message (built by pytoniq) to
/// the lite server: the transfer executes on the devnet and the follower
/// sees it; sent again, the lite server's refusal comes back.
#[test]
fn tonindex_run_follows_serves_and_forwards_sends() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    let funded = "0:5353535353535353535353535353535353535353535353535353535353535353";
    fund(&dev, funded, 3_000_000_000);

    let (mut run, http) = start_run(&dir.path().join("follower"), &config, &[]);
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    // Block signatures (checked against the key block's validators) and
    // a shard block's proofs, from the lite server, as the devnet gives
    // them; the init block's own signers are a zero-state key block's,
    // which the follower does not ask for.
    let tip = dev.mc_seqno();
    let shard = "workchain=0&shard=-9223372036854775808";
    for path in [
        format!("/api/v2/getAddressBalance?address={funded}"),
        "/api/v3/masterchainInfo".to_string(),
        format!("/api/v2/getMasterchainBlockSignatures?seqno={tip}"),
        format!("/api/v2/getShardBlockProof?{shard}&seqno=2&from_seqno={tip}"),
        format!("/api/v2/getShardBlockProof?{shard}&seqno=2&from_seqno=2"),
    ] {
        let (_, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        let strip = |mut v: Value| {
            v.as_object_mut().map(|o| o.remove("@extra"));
            v
        };
        assert_eq!(strip(ours), strip(theirs), "{path}");
    }

    // A transfer built by pytoniq, sent to the follower.
    let t = python("wallet_transfer.py", &[dev.url()]);
    let body = serde_json::json!({ "boc": t["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v2/sendBoc", &body);
    assert_eq!(status, 200, "{v}");
    wait_for_wallet_seqno(http, &t);
    // The same message again: the devnet refuses it, and so does the follower.
    let (status, v) = json(http, "POST", "/api/v2/sendBoc", &body);
    assert_eq!(status, 500, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("LITE_SERVER_UNKNOWN"),
        "{v}"
    );
    // The follower has no /dev/ routes.
    let (status, _) = http_status(http, "/dev/accounts");
    assert_eq!(status, 404);
    let _ = run.kill();
    let _ = run.wait();
    // A devnet without --confirm-gap refuses nonfinal queries as a node
    // without --nonfinal-ls does; the follower says so (no confirmed level).
    let mut log = String::new();
    run.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(log.contains("does not offer nonfinal queries"), "{log}");
}

/// The `confirmed` level on a follower: `tonindex dev --block-interval
/// --confirm-gap` makes each round's shard blocks a gap before it commits
/// them, and its lite server lists them in
/// `liteServer.nonfinal.getPendingShardBlocks` — as pytoniq, whose TL
/// schema is the C++ node's, reads it (`tests/python/devnet_nonfinal.py`:
/// the listed block newer than the committed top, served by `getBlock`
/// with its hash checked, gone once committed). `tonindex run` following
/// that lite server asks the same and fetches the blocks: PyPI toncenter's
/// ToncenterSSE subscribed to the follower hears a transfer sent to the
/// follower at `pending` (emulated), `confirmed` (the shard block's own
/// transactions) and `finalized` — each kind once per level, never going
/// down (`tests/python/streaming_pending.py`). Then the Jetton steps of
/// `devnet_jettons.mjs confirmed` run through the follower.
#[test]
fn a_follower_hears_shard_blocks_before_their_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(
        dir.path(),
        &["--block-interval", "1500", "--confirm-gap", "1000"],
    );
    let v = python(
        "devnet_nonfinal.py",
        &[config.to_str().unwrap(), dev.url().as_str()],
    );
    assert_eq!(v["ok"], true, "{v}");

    let (mut run, http) = start_run(&dir.path().join("follower"), &config, &[]);
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    let follower = format!("http://127.0.0.1:{http}");
    let v = python(
        "streaming_pending.py",
        &[dev.url(), "confirmed".into(), follower.clone()],
    );
    assert_eq!(v["ok"], true, "{v}");
    // The Jetton steps through the follower (its wallets funded by the
    // devnet's faucet): each change of a Jetton wallet the follower's
    // index knew comes at `confirmed`, read from the shard block's state
    // completed from its own cell store, then at `finalized`.
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let fixtures = common::fixtures();
    let out = node(
        "devnet_jettons.mjs",
        &[
            &follower,
            fixtures.to_str().unwrap(),
            "confirmed",
            &dev.url(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    let _ = run.kill();
    let _ = run.wait();
}

/// Pending traces on a follower (F6 item 4 on a live node): the devnet
/// makes blocks only when asked; a transfer built by pytoniq, sent to
/// `tonindex run`, is emulated at once on the state the follower knows
/// (the index's, else the lite server's) and shown in `/pendingTraces`,
/// `/pendingActions` and `/pendingTransactions` before its block exists;
/// once the follower indexes that block the trace is a real one and no
/// longer pending. The follower starts after the zero state, as one from
/// a network's tip does: it keeps the config of the key block in force
/// there, and a wallet whose code is a library it does not hold (it keeps
/// no masterchain state) has its get-methods run and its transfer
/// emulated with the library fetched from the lite server.
#[test]
fn a_follower_shows_sent_messages_as_pending_until_their_blocks() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let config = dir.path().join("global.json");
    // A wallet whose code is a library reference to the v4 code, which
    // the devnet publishes (the follower holds no masterchain state).
    let lib = node("library_wallet.mjs", &["prepare"]);
    let library = dir.path().join("wallet_v4.boc");
    std::fs::write(
        &library,
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            lib["library_boc"].as_str().unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--liteserver-listen",
            &format!("127.0.0.1:{port}"),
            "--liteserver-config",
            config.to_str().unwrap(),
            "--block-interval",
            "60000",
            "--library",
            library.to_str().unwrap(),
            "--account",
            lib["account"].as_str().unwrap(),
        ],
    );
    common::wait_listening(port);
    for _ in 0..2 {
        let (status, _) = json(dev.port, "POST", "/dev/block", "");
        assert_eq!(status, 200);
    }
    // From a later block, as a follower of a real network starts (at its
    // tip): no zero state, so no masterchain state and none of its
    // libraries, and no account state until a block touches it.
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", "2"],
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    // It keeps the config of the key block in force where it starts.
    let path = "/api/v2/getConfigParam?config_id=20";
    let (status, ours) = json(http, "GET", path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["result"], json(dev.port, "GET", path, "").1["result"]);

    let t = python("wallet_transfer.py", &[dev.url()]);
    let body = serde_json::json!({ "boc": t["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap().to_string();
    let (transfer, _) = pending_transfer_is_shown(http, &hash, "1000000000");
    assert_eq!(transfer["details"]["comment"], "from pytoniq");

    // The block comes; the follower indexes it and the trace is real.
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200, "{v}");
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    let real = real_trace_of(http, &hash);
    assert!(
        real["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"] == "ton_transfer"
                && a["details"]["value"] == "1000000000"
                && a["details"]["comment"] == "from pytoniq"),
        "{real}"
    );

    library_wallet_runs_on_the_follower(&dev, &mut run, http, &lib);
    let _ = run.kill();
    let _ = run.wait();
}

/// The library wallet `lib` (`library_wallet.mjs prepare`): its get-method
/// on the follower runs the library fetched from the lite server (the
/// answer is the devnet's own), its transfer is emulated with it, and once
/// its block comes the trace is a real one.
fn library_wallet_runs_on_the_follower(dev: &Dev, run: &mut Child, http: u16, lib: &Value) {
    let address = lib["address"].as_str().unwrap();
    let aq: String = form_urlencoded::byte_serialize(address.as_bytes()).collect();
    let seqno_path = format!("/api/v2/runGetMethod?address={aq}&method=seqno&stack=%5B%5D");
    let (status, ours) = json(http, "GET", &seqno_path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["result"]["exit_code"], 0, "{ours}");
    let (_, theirs) = json(dev.port, "GET", &seqno_path, "");
    assert_eq!(ours["result"]["stack"], theirs["result"]["stack"]);
    let seqno = ours["result"]["stack"][0][1].as_str().unwrap();
    let seqno = u32::from_str_radix(seqno.trim_start_matches("0x"), 16).unwrap();
    let sent = node(
        "library_wallet.mjs",
        &[
            "send",
            &lib["mnemonic"].to_string(),
            address,
            &seqno.to_string(),
        ],
    );
    let body = serde_json::json!({ "boc": sent["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap().to_string();
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    let trace = &v["traces"][0];
    assert_eq!(trace["trace_info"]["transactions"], 2, "{v}");
    let first = &trace["transactions"][trace["transactions_order"][0].as_str().unwrap()];
    assert_eq!(
        first["description"]["compute_ph"]["success"], true,
        "the library code ran: {first}"
    );
    assert!(
        trace["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"] == "ton_transfer"
                && a["details"]["value"] == "500000000"
                && a["details"]["comment"] == "from a library wallet"),
        "{trace}"
    );
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200, "{v}");
    wait_for_seqno(run, http, dev.mc_seqno());
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert!(v["traces"].is_null(), "no longer pending: {v}");
    let (_, v) = json(http, "GET", &format!("/api/v3/traces?msg_hash={q}"), "");
    assert_eq!(v["traces"][0]["trace_info"]["transactions"], 2, "{v}");
}

/// Jetton wallets whose code is a library (as USDT's is), on a follower
/// that starts after the zero state and so holds no masterchain state
/// (tests/clients/library_jetton.mjs): the follower fetches the library
/// with `getLibraries` and indexes the wallet, balance and minter as the
/// steps imply.
#[test]
fn a_follower_indexes_jetton_wallets_whose_code_is_a_library() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixtures();
    let prepared = node(
        "library_jetton.mjs",
        &["prepare", fixtures.to_str().unwrap()],
    );
    let library = dir.path().join("jetton_wallet.boc");
    std::fs::write(
        &library,
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            prepared["library_boc"].as_str().unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let port = common::free_port();
    let config = dir.path().join("global.json");
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--liteserver-listen",
            &format!("127.0.0.1:{port}"),
            "--liteserver-config",
            config.to_str().unwrap(),
            "--library",
            library.to_str().unwrap(),
        ],
    );
    common::wait_listening(port);
    for i in 0..2u8 {
        fund(
            &dev,
            &format!("0:{}", hex::encode([0x60 + i; 32])),
            1_000_000_000,
        );
    }
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", "2"],
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    let out = node(
        "library_jetton.mjs",
        &[
            "run",
            &dev.url(),
            &format!("http://127.0.0.1:{http}"),
            fixtures.to_str().unwrap(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    let _ = run.kill();
    let _ = run.wait();
}

/// A follower that starts after a Jetton's mint
/// (tests/clients/follower_jetton_parent.mjs): the minter is in none of the
/// blocks it follows, yet the wallets a later transfer changes are
/// confirmed by it — the follower fetches the master's proven state with
/// the unit — and listed with the balances, owners and master the devnet
/// lists, the minter among the masters and the transfer among the
/// transfers.
#[test]
fn a_follower_confirms_wallets_of_a_master_it_never_saw_change() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixtures();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    let minted = node(
        "follower_jetton_parent.mjs",
        &["mint", &dev.url(), fixtures.to_str().unwrap()],
    );
    let from = (dev.mc_seqno() + 1).to_string();
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", &from],
    );
    let out = node(
        "follower_jetton_parent.mjs",
        &[
            "transfer",
            &dev.url(),
            &format!("http://127.0.0.1:{http}"),
            fixtures.to_str().unwrap(),
            &minted["mnemonic"].to_string(),
            minted["minter"].as_str().unwrap(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    let _ = run.kill();
    let _ = run.wait();
}

fn http_status(port: u16, path: &str) -> (u16, String) {
    http(port, "GET", path, "")
}

/// Kill -9 of `tonindex sync` at varying moments, each run resuming the
/// last (F7, what must be shown): in the end no block or transaction is
/// missing or doubled — every table's digest equals the devnet's.
#[test]
fn a_killed_sync_resumes_without_gaps_or_doubles() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    let db = dir.path().join("db");
    for i in 0..30u8 {
        let target = format!("0:{}", hex::encode([i + 1; 32]));
        fund(&dev, &target, 1_000_000_000);
    }
    let tip = dev.mc_seqno();
    let follower = dir.path().join("follower");
    let sync = |until: Option<u64>| {
        let mut c = Command::new(common::tonindex_bin());
        c.args(["sync", "--trust-liteservers", "--db"])
            .arg(&follower)
            .arg("--global-config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(u) = until {
            c.args(["--until-seqno", &u.to_string()]);
        }
        c
    };
    let cursor = |db: &Path| -> Option<u64> {
        let out = Command::new(common::tonindex_bin())
            .args(["stats", "--db"])
            .arg(db)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).ok()?;
        v["cursor"]["last_mc_seqno"].as_u64()
    };
    let mut kills = 0;
    for i in 0..12u64 {
        let mut child = sync(None).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(20 + 17 * i));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        kills += 1;
        if cursor(&follower).is_some_and(|c| c >= tip) {
            break;
        }
    }
    assert!(
        kills >= 2,
        "the follower finished before it could be killed twice"
    );
    let out = sync(Some(tip)).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    dev.stop(false);
    assert_eq!(
        table_digests(&db),
        table_digests(&follower),
        "after {kills} kills"
    );
}
