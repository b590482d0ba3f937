//! Followers among several lite servers: failing, lying, pruned and
//! stalled servers are left for the next, blocks the follower has not
//! indexed are looked up, servers are chosen by their tips, and queries in
//! flight are bounded.

use super::*;

/// Lite servers that fail (F7 item 3 and bad input, first part): the
/// global config lists one that accepts and never answers, one that sends
/// garbage and closes, and one where nothing listens, before the devnet's.
/// The watch over the servers' tips finds that only the devnet's answers,
/// so the follower starts with it (saying so in its log) and syncs the
/// whole chain without waiting on the others. (Servers that fail in the
/// middle of a step are left for the next: the lying and pruned servers'
/// tests.)
#[test]
fn sync_leaves_failing_lite_servers_for_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, written, _) = dev_with_lite_server(dir.path(), &[]);
    for i in 0..3u8 {
        fund(
            &dev,
            &format!("0:{}", hex::encode([0x60 + i; 32])),
            1_000_000_000,
        );
    }
    // A server that accepts and keeps every connection without a word.
    let hanging = common::bind_free();
    let hanging_port = hanging.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        for s in hanging.incoming().flatten() {
            kept.push(s);
        }
    });
    // A server that answers the handshake with garbage and hangs up.
    let garbage = common::bind_free();
    let garbage_port = garbage.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in garbage.incoming().flatten() {
            let mut buf = [0u8; 256];
            let _ = s.read(&mut buf);
            let _ = s.write_all(&[0xa5; 300]);
        }
    });
    let dead_port = common::free_port();
    let mut cfg: Value = serde_json::from_slice(&std::fs::read(&written).unwrap()).unwrap();
    let good = cfg["liteservers"][0].clone();
    let at = |port: u16| {
        let mut s = good.clone();
        s["port"] = port.into();
        s
    };
    cfg["liteservers"] = Value::Array(vec![
        at(hanging_port),
        at(garbage_port),
        at(dead_port),
        good,
    ]);
    let config = dir.path().join("four.json");
    std::fs::write(&config, cfg.to_string()).unwrap();

    let tip = dev.mc_seqno();
    let out = Command::new(common::tonindex_bin())
        .args([
            "sync",
            "--trust-liteservers",
            "--liteserver-timeout-ms",
            "700",
            "--db",
        ])
        .arg(dir.path().join("follower"))
        .arg("--global-config")
        .arg(&config)
        .args(["--until-seqno", &tip.to_string()])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("last masterchain block {tip}")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let good_port = cfg["liteservers"][3]["port"].as_u64().unwrap();
    assert!(
        log.contains(&format!(
            "asking lite server 127.0.0.1:{good_port} first (1 of 4 answer)"
        )),
        "{log}"
    );
    for port in [hanging_port, garbage_port, dead_port] {
        assert!(
            !log.contains(&format!("lite server 127.0.0.1:{port} failed")),
            "{port}: {log}"
        );
    }
}

/// A lite server that lies (F7, trust): it forwards the queries a
/// follower makes to the devnet's lite server and passes every answer on
/// unchanged, except that it flips one bit of each validator signature in
/// the block proofs. Blocks, states and hashes all check out; only the
/// signatures betray it. Returns its address and public key.
/// How a test lite server in front of the devnet's misbehaves.
#[derive(Clone, Copy, PartialEq)]
enum Lie {
    /// Flips a bit of every signature, says existing accounts do not exist.
    Signatures,
    /// Says the first masterchain info forever (a server that stopped
    /// following its network); honest otherwise.
    Frozen,
    /// Honest about the tip, but has no block more than two masterchain
    /// blocks below it (a node that is not archival): looking one up,
    /// getting one or an account state at one is refused, as such a node
    /// refuses them.
    Pruned,
    /// Honest, but takes 1.5 s over every lookup of a block after the
    /// second.
    Slow,
}

/// The most lookups of blocks after the second a test lite server had in
/// flight at once.
type MaxInFlight = std::sync::Arc<std::sync::atomic::AtomicUsize>;

fn lying_lite_server(
    upstream: std::net::SocketAddr,
    upstream_key: [u8; 32],
    lie: Lie,
) -> (u16, [u8; 32], MaxInFlight) {
    use std::convert::Infallible;
    use std::sync::Arc;
    use ton_liteapi::client::LiteClient;
    use ton_liteapi::tl::adnl::Message;
    use ton_liteapi::tl::request::Request;

    let secret = [7u8; 32];
    let public = tonindex::api::lite::public_key(&secret);
    let port = common::free_port();
    let max_in_flight = MaxInFlight::default();
    let most = std::sync::Arc::clone(&max_in_flight);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let client = Arc::new(tokio::sync::Mutex::new(
                LiteClient::connect(upstream, upstream_key).await.unwrap(),
            ));
            let frozen = Arc::new(tokio::sync::Mutex::new(None));
            let forward = move |req: Request| {
                let client = Arc::clone(&client);
                let frozen = Arc::clone(&frozen);
                async move {
                    let mut c = client.lock().await;
                    forwarded(&mut c, req, lie, &frozen, (upstream, upstream_key)).await
                }
            };
            let in_flight = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let service = tower04::service_fn(move |msg: Message| {
                use std::sync::atomic::Ordering;
                let forward = forward.clone();
                let (in_flight, most) = (Arc::clone(&in_flight), Arc::clone(&most));
                async move {
                    Ok::<_, Infallible>(match msg {
                        Message::Query { query_id, query } => {
                            let request = query.wrapped_request.request;
                            // Lookups of blocks past the first two (not the
                            // watch's probe, not the follower's).
                            let counted =
                                matches!(&request, Request::LookupBlock(r) if r.id.seqno >= 3);
                            if counted {
                                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                                most.fetch_max(now, Ordering::SeqCst);
                                if lie == Lie::Slow {
                                    tokio::time::sleep(Duration::from_millis(1500)).await;
                                }
                            }
                            let answer = forward(request).await;
                            if counted {
                                in_flight.fetch_sub(1, Ordering::SeqCst);
                            }
                            Message::Answer { query_id, answer }
                        }
                        Message::Ping { random_id } => Message::Pong { random_id },
                        other => other,
                    })
                }
            });
            let key = adnl::crypto::KeyPair::from(&adnl::crypto::SecretKey::from_bytes(secret));
            let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
            let _ =
                ton_liteapi::server::serve(&addr, key, tower04::make::Shared::new(service)).await;
        });
    });
    common::wait_listening(port);
    (port, public, max_in_flight)
}

/// One request of the follower, forwarded to the honest lite server `c`
/// (at `upstream`, for the calls `c` has none of its own for) with `lie`
/// told: a frozen tip (`frozen` keeps the first), pruned blocks, broken
/// signatures, an account said not to exist.
async fn forwarded(
    c: &mut ton_liteapi::client::LiteClient,
    req: ton_liteapi::tl::request::Request,
    lie: Lie,
    frozen: &tokio::sync::Mutex<Option<ton_liteapi::tl::response::MasterchainInfo>>,
    (upstream, upstream_key): (std::net::SocketAddr, [u8; 32]),
) -> ton_liteapi::tl::response::Response {
    use ton_liteapi::tl::common::BlockLink;
    use ton_liteapi::tl::request::Request;
    use ton_liteapi::tl::response::{BlockData, Error as LiteError, Response};
    let fail = |e: String| {
        Response::Error(LiteError {
            code: 651,
            message: e.as_str().into(),
        })
    };
    if lie == Lie::Pruned {
        let asked = match &req {
            Request::GetBlock(r) => Some(r.id.seqno),
            Request::LookupBlock(r) if r.seqno.is_some() => Some(r.id.seqno),
            Request::GetAccountState(r) => Some(r.id.seqno),
            _ => None,
        };
        let tip = c.get_masterchain_info().await.map(|i| i.last.seqno);
        if let (Some(asked), Ok(tip)) = (asked, tip) {
            if asked + 2 < tip {
                return fail("block is not in db (possibly out of sync)".into());
            }
        }
    }
    match req {
        Request::GetMasterchainInfo => {
            let mut kept = frozen.lock().await;
            match (&*kept, lie) {
                (Some(info), Lie::Frozen) => Response::MasterchainInfo(Clone::clone(info)),
                _ => match c.get_masterchain_info().await {
                    Ok(info) => {
                        *kept = Some(info.clone());
                        Response::MasterchainInfo(info)
                    }
                    Err(e) => fail(format!("{e:?}")),
                },
            }
        }
        Request::LookupBlock(r) => c
            .lookup_block(
                (),
                r.id,
                r.seqno,
                r.lt,
                r.utime,
                false,
                false,
                false,
                false,
                false,
            )
            .await
            .map_or_else(|e| fail(format!("{e:?}")), Response::BlockHeader),
        Request::GetBlock(r) => c.get_block(r.id.clone()).await.map_or_else(
            |e| fail(format!("{e:?}")),
            |data| Response::BlockData(BlockData { id: r.id, data }),
        ),
        Request::GetState(r) => c
            .get_state(r.id)
            .await
            .map_or_else(|e| fail(format!("{e:?}")), Response::BlockState),
        Request::GetBlockProof(r) => {
            match c
                .get_block_proof(r.known_block, r.target_block, false, false)
                .await
            {
                Ok(mut proof) if lie == Lie::Signatures => {
                    for step in &mut proof.steps {
                        if let BlockLink::BlockLinkForward { signatures, .. } = step {
                            for s in &mut signatures.signatures {
                                s.signature[0] ^= 1;
                            }
                        }
                    }
                    Response::PartialBlockProof(proof)
                }
                Ok(proof) => Response::PartialBlockProof(proof),
                Err(e) => fail(format!("{e:?}")),
            }
        }
        // An account that exists is said not to.
        Request::GetAccountState(r) => match c.get_account_state(r.id, r.account).await {
            Ok(mut a) => {
                if lie == Lie::Signatures {
                    a.state.clear();
                }
                Response::AccountState(a)
            }
            Err(e) => fail(format!("{e:?}")),
        },
        // LiteClient has no call of its own for it.
        Request::GetOutMsgQueueSizes(r) => {
            use tonindex::chain::liteserver::client::Multiplexed;
            let server = tonindex::chain::liteserver::LiteServerAddr {
                addr: upstream,
                key: upstream_key,
            };
            match Multiplexed::connect(&server).await {
                Ok(conn) => conn
                    .query(Request::GetOutMsgQueueSizes(r))
                    .await
                    .unwrap_or_else(|e| fail(format!("{e:?}"))),
                Err(e) => fail(format!("{e:?}")),
            }
        }
        _ => fail("not forwarded".into()),
    }
}

/// The devnet's global config `config`, and the `liteservers` entry of a
/// misbehaving proxy (`lie`) started in front of its lite server.
fn proxy_in_front(config: &Path, lie: Lie) -> (Value, Value, MaxInFlight) {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let honest: Value = serde_json::from_slice(&std::fs::read(config).unwrap()).unwrap();
    let ls = &honest["liteservers"][0];
    let upstream_port = ls["port"].as_u64().unwrap() as u16;
    let upstream_key: [u8; 32] = b64
        .decode(ls["id"]["key"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let (port, key, most) =
        lying_lite_server(([127, 0, 0, 1], upstream_port).into(), upstream_key, lie);
    let entry = serde_json::json!({
        "ip": 2130706433, "port": port,
        "id": {"@type": "pub.ed25519", "key": b64.encode(key)},
    });
    (honest, entry, most)
}

/// A lite server that alters validator signatures is caught by the
/// follower's checks (F7 item 2): alone in the config, the sync stops
/// saying the signatures do not verify and indexes nothing past the init
/// block; listed before the honest server, it is left for it and the chain
/// is synced whole;
/// with `--trust-liteservers` the same liar is believed (so it is the
/// signature check, not anything else, that caught it). Its account states
/// (it says existing accounts do not exist) are refused by their proofs,
/// even so; listed before the honest server, the honest one's are taken
/// (as blocks are indexed and when the API asks), and a message sent to
/// both at once executes.
#[test]
fn a_lite_server_that_lies_about_signatures_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    fund(
        &dev,
        "0:5454545454545454545454545454545454545454545454545454545454545454",
        1_000_000_000,
    );
    let (honest, liar, _) = proxy_in_front(&config, Lie::Signatures);
    let ls = &honest["liteservers"][0];
    let port = liar["port"].as_u64().unwrap();
    let with_servers = |name: &str, servers: Vec<Value>| {
        let mut c = honest.clone();
        c["liteservers"] = Value::Array(servers);
        let path = dir.path().join(name);
        std::fs::write(&path, c.to_string()).unwrap();
        path
    };
    let tip = dev.mc_seqno();
    let sync = |db: &str, config: &Path, extra: &[&str]| {
        Command::new(common::tonindex_bin())
            .args(["sync", "--liteserver-timeout-ms", "3000"])
            .args(extra)
            .arg("--db")
            .arg(dir.path().join(db))
            .arg("--global-config")
            .arg(config)
            .args(["--until-seqno", &tip.to_string()])
            .output()
            .unwrap()
    };

    let only_liar = with_servers("liar.json", vec![liar.clone()]);
    let out = sync("caught", &only_liar, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("signature does not verify"), "{err}");
    let caught = Db::open(
        &dir.path().join("caught"),
        &DbOptions {
            sync_writes: false,
            write_only_memtables: false,
            scratch: false,
            bulk: false,
        },
    )
    .unwrap();
    // Nothing past the init block (which the config names by its hashes:
    // trusted as given, as tonlib trusts it).
    assert_eq!(
        caught.cursor().unwrap().last_mc_seqno,
        Some(1),
        "nothing indexed past the init block"
    );

    let liar_first = with_servers("both.json", vec![liar.clone(), ls.clone()]);
    let out = sync("both", &liar_first, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port} failed")), "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("last masterchain block {tip}")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let out = sync("believed", &only_liar, &["--trust-liteservers"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Account states are checked by their proofs whatever the flag: a
    // follow that replayed none (it starts at the tip) reads the states of
    // the accounts each block changed, and the liar (which also says that
    // accounts that exist do not) is caught there.
    let out = Command::new(common::tonindex_bin())
        .args([
            "sync",
            "--trust-liteservers",
            "--liteserver-timeout-ms",
            "3000",
        ])
        .args(["--from-seqno", &tip.to_string()])
        .args(["--until-seqno", &tip.to_string()])
        .arg("--db")
        .arg(dir.path().join("states"))
        .arg("--global-config")
        .arg(&only_liar)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("the proven state holds it"), "{err}");
    let funded = "0:5454545454545454545454545454545454545454545454545454545454545454";

    // With the honest server listed after the liar, the account is read
    // from it after the liar's proof fails, and a message sent goes to
    // both at once: the honest one takes it (the liar does not forward
    // sends) and the transfer executes.
    let tip_arg = tip.to_string();
    let (mut run, http) = start_run(
        &dir.path().join("states-both"),
        &liar_first,
        &["--trust-liteservers", "--from-seqno", &tip_arg],
    );
    let path = format!("/api/v2/getAddressBalance?address={funded}");
    let start = Instant::now();
    let ours = loop {
        let (status, v) = json(http, "GET", &path, "");
        if status == 200 {
            break v;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{v}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let (_, theirs) = json(dev.port, "GET", &path, "");
    assert_eq!(ours["result"], theirs["result"]);
    let t = python("wallet_transfer.py", &[dev.url()]);
    let body = serde_json::json!({ "boc": t["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v2/sendBoc", &body);
    assert_eq!(status, 200, "{v}");
    wait_for_wallet_seqno(dev.port, &t);
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}

/// A lite server that stopped following its network (it says the same
/// masterchain info forever) is left for the next one once its tip has
/// stood still for a while (F7 item 3: health by seqno): `tonindex run`
/// with it listed first reaches blocks the devnet makes after the start.
#[test]
fn a_lite_server_whose_tip_stands_still_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    let (honest, frozen, _) = proxy_in_front(&config, Lie::Frozen);
    let mut both = honest.clone();
    both["liteservers"] = serde_json::json!([frozen, honest["liteservers"][0].clone()]);
    let both_config = dir.path().join("both.json");
    std::fs::write(&both_config, both.to_string()).unwrap();
    let (mut run, http) = start_run(&dir.path().join("follower"), &both_config, &[]);
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    // New blocks the frozen server never reports.
    fund(
        &dev,
        "0:5656565656565656565656565656565656565656565656565656565656565656",
        1_000_000_000,
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}

/// v2 `lookupBlock` of blocks a follower has not indexed (F7 item 5):
/// `tonindex run --until-seqno 2` stops following at block 2 and goes on
/// serving; later masterchain and shard blocks — by seqno, by lt, by time
/// — are looked up on the lite server, their headers checked, and answer
/// as the devnet does; one that does not exist is the lite server's 404.
#[test]
fn a_follower_looks_up_blocks_it_has_not_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--until-seqno", "2"],
    );
    while dev.mc_seqno() < 5 {
        fund(
            &dev,
            "0:5757575757575757575757575757575757575757575757575757575757575757",
            1_000_000_000,
        );
    }
    wait_for_seqno(&mut run, http, 2);
    let (_, info) = json(http, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(info["result"]["last"]["seqno"], 2, "{info}");
    let (_, header) = json(
        dev.port,
        "GET",
        "/api/v2/getBlockHeader?workchain=0&shard=-9223372036854775808&seqno=4",
        "",
    );
    let lt = header["result"]["start_lt"].as_str().unwrap().to_string();
    let utime = header["result"]["gen_utime"].as_u64().unwrap();
    let mc = "workchain=-1&shard=-9223372036854775808";
    let base = "workchain=0&shard=-9223372036854775808";
    for query in [
        format!("{mc}&seqno=4"),
        format!("{base}&seqno=4"),
        format!("{base}&lt={lt}"),
        format!("{mc}&unixtime={utime}"),
    ] {
        let path = format!("/api/v2/lookupBlock?{query}");
        let (status, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        assert_eq!(status, 200, "{path}: {ours}");
        assert_eq!(ours["result"], theirs["result"], "{path}");
    }
    let (status, v) = json(
        http,
        "GET",
        &format!("/api/v2/lookupBlock?{mc}&seqno=999"),
        "",
    );
    assert_eq!(status, 404, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("LITE_SERVER_UNKNOWN"),
        "{v}"
    );
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}

/// The follower and the API go by what every lite server shows (F7 item
/// 3): with a server that keeps no old blocks listed first, `tonindex run
/// --archival-after 2` asks the archival one for the blocks far below the
/// tip (never failing on the pruned one), `getConsensusBlock` is the
/// servers' highest tip, `getOutMsgQueueSize` is the lite server's answer
/// (equal to the devnet's own), and once every server is gone the node
/// says `no workers alive` — and goes on serving what it indexed.
#[test]
fn servers_are_asked_by_their_tips_and_archival_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    while dev.mc_seqno() < 8 {
        fund(
            &dev,
            "0:5858585858585858585858585858585858585858585858585858585858585858",
            1_000_000_000,
        );
    }
    let (honest, pruned, _) = proxy_in_front(&config, Lie::Pruned);
    let honest_port = honest["liteservers"][0]["port"].as_u64().unwrap();
    let pruned_port = pruned["port"].as_u64().unwrap();
    let mut both = honest.clone();
    both["liteservers"] = serde_json::json!([pruned, honest["liteservers"][0].clone()]);
    let both_config = dir.path().join("both.json");
    std::fs::write(&both_config, both.to_string()).unwrap();
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &both_config,
        &["--archival-after", "2"],
    );
    let tip = dev.mc_seqno();
    wait_for_seqno(&mut run, http, tip);

    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = json(http, "GET", "/api/v2/getConsensusBlock", "");
        assert_eq!(status, 200, "{v}");
        if v["result"]["consensus_block"] == tip {
            break;
        }
        assert!(Instant::now() < until, "{v}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let path = "/api/v2/getOutMsgQueueSize";
    let (status, ours) = json(http, "GET", path, "");
    let (_, theirs) = json(dev.port, "GET", path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["result"], theirs["result"]);
    assert!(
        ours["result"]["shards"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{ours}"
    );

    dev.stop(false);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, v) = json(http, "GET", "/api/v2/getConsensusBlock", "");
        if status == 500 {
            assert_eq!(v["error"], "no workers alive", "{v}");
            break;
        }
        assert!(Instant::now() < until, "{v}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The follow failed with every server gone; the API still serves.
    let (status, v) = json(http, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["last"]["seqno"], tip, "{v}");
    assert!(run.try_wait().unwrap().is_none(), "tonindex run stopped");
    run.kill().unwrap();
    run.wait().unwrap();
    let mut log = String::new();
    run.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(
        log.contains(&format!(
            "lite server 127.0.0.1:{honest_port} is better placed for masterchain block 1"
        )),
        "{log}"
    );
    // The pruned server never refused the follower a block (after the
    // devnet stopped, every server fails, but not for that reason).
    assert!(!log.contains("block is not in db"), "{log}");
    assert!(log.contains(&format!("127.0.0.1:{pruned_port}")), "{log}");
}

/// Queries in flight per lite server are bounded (F7 item 3): with a slow
/// server listed first, `tonindex run --liteserver-concurrency 2` never
/// has more than two of the API's block lookups on it at once; the rest
/// go to the next server once no place frees within a second, and every
/// lookup answers as the devnet does.
#[test]
fn queries_in_flight_on_a_lite_server_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    while dev.mc_seqno() < 8 {
        fund(
            &dev,
            "0:5959595959595959595959595959595959595959595959595959595959595959",
            1_000_000_000,
        );
    }
    let (honest, slow, most) = proxy_in_front(&config, Lie::Slow);
    let mut both = honest.clone();
    both["liteservers"] = serde_json::json!([slow, honest["liteservers"][0].clone()]);
    let both_config = dir.path().join("both.json");
    std::fs::write(&both_config, both.to_string()).unwrap();
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &both_config,
        &["--until-seqno", "2", "--liteserver-concurrency", "2"],
    );
    wait_for_seqno(&mut run, http, 2);
    // What the follower itself asked of the slow server is done.
    std::thread::sleep(Duration::from_secs(2));
    most.store(0, std::sync::atomic::Ordering::SeqCst);
    let lookups: Vec<_> = (3..=6)
        .map(|seqno| {
            std::thread::spawn(move || {
                let path = format!(
                    "/api/v2/lookupBlock?workchain=-1&shard=-9223372036854775808&seqno={seqno}"
                );
                (json(http, "GET", &path, ""), path)
            })
        })
        .collect();
    for lookup in lookups {
        let ((status, ours), path) = lookup.join().unwrap();
        let (_, theirs) = json(dev.port, "GET", &path, "");
        assert_eq!(status, 200, "{path}: {ours}");
        assert_eq!(ours["result"], theirs["result"], "{path}");
    }
    let most = most.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        (1..=2).contains(&most),
        "{most} queries at once on the slow server"
    );
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}
