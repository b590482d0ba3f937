//! `tonindex snapshot create` and `restore` ([R]): a snapshot of a running
//! `tonindex run` follower of the devnet, restored twice into equal tables;
//! a restored node follows on from the snapshot's block with `tonindex run`
//! (serving at once, no re-sync) and ends with the devnet's tables; a
//! snapshot through a pipe; corrupted, cut, foreign and non-snapshot input
//! and a non-empty target refused with nothing left behind; a restore
//! killed midway leaves no database, and the next one succeeds.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::{common, dev_with_lite_server, fund, json, start_run, table_digests, wait_for_seqno};

fn tonindex(args: &[&str]) -> std::process::Output {
    Command::new(common::tonindex_bin())
        .args(args)
        .output()
        .unwrap()
}

fn restore(snapshot: &Path, db: &Path, config: &Path) -> std::process::Output {
    tonindex(&[
        "snapshot",
        "restore",
        snapshot.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--global-config",
        config.to_str().unwrap(),
    ])
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `tonindex run` on `db` with `serve.max_lag_blocks = 1`, serving on `port`.
fn run_with_max_lag(db: &Path, config: &Path, port: u16, extra: &[&str]) -> std::process::Child {
    let lag = [("TONINDEX_SERVE__MAX_LAG_BLOCKS", "1")];
    super::run_on(db, config, port, extra, &lag, Stdio::null())
}

/// `/healthcheck`'s body once `want(status, body)` holds (30 s at most).
fn poll_health(port: u16, want: impl Fn(u16, &str) -> bool) -> String {
    let start = std::time::Instant::now();
    loop {
        let (status, body) = super::http(port, "GET", "/healthcheck", "");
        if want(status, &body) {
            return body;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "/healthcheck said {status} {body}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn stop(child: std::process::Child) {
    assert!(super::sigterm(child).success());
}

#[test]
fn snapshots_of_a_running_follower_restore_follow_on_and_refuse_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    fund(&dev, &format!("0:{}", "61".repeat(32)), 2_000_000_000);
    let (mut run, http) = start_run(&d("follower"), &config, &[]);
    wait_for_seqno(&mut run, http, dev.mc_seqno());

    // Made while the follower runs (and keeps its lock).
    let snapshot = d("snap.bin");
    let out = tonindex(&[
        "snapshot",
        "create",
        "--db",
        d("follower").to_str().unwrap(),
        "--out",
        snapshot.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let at = dev.mc_seqno();
    assert!(
        text(&out).contains(&format!("masterchain block {at}")),
        "{}",
        text(&out)
    );
    // An existing file is not overwritten.
    let again = tonindex(&[
        "snapshot",
        "create",
        "--db",
        d("follower").to_str().unwrap(),
        "--out",
        snapshot.to_str().unwrap(),
    ]);
    assert!(!again.status.success());
    // The chain goes on after the snapshot.
    fund(&dev, &format!("0:{}", "62".repeat(32)), 2_000_000_000);
    fund(&dev, &format!("-1:{}", "63".repeat(32)), 2_000_000_000);

    // Restored twice: the same tables.
    for name in ["r1", "r2"] {
        let out = restore(&snapshot, &d(name), &config);
        assert!(out.status.success(), "{}", text(&out));
    }
    let r2_tables = table_digests(&d("r2"));
    assert_eq!(table_digests(&d("r1")), r2_tables);
    // Through a pipe: `--out -` into `restore -`.
    let piped = d("piped.bin");
    let status = Command::new(common::tonindex_bin())
        .args(["snapshot", "create", "--db"])
        .arg(d("r2"))
        .args(["--out", "-"])
        .stdout(Stdio::from(std::fs::File::create(&piped).unwrap()))
        .status()
        .unwrap();
    assert!(status.success());
    let status = Command::new(common::tonindex_bin())
        .args(["snapshot", "restore", "-", "--db"])
        .arg(d("r3"))
        .stdin(Stdio::from(std::fs::File::open(&piped).unwrap()))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(table_digests(&d("r3")), r2_tables);

    // Held at the snapshot's block while the chain went on, a node tells a
    // load balancer it is behind (503, saying by how much).
    let lagging_http = common::free_port();
    let lagging = run_with_max_lag(
        &d("r1"),
        &config,
        lagging_http,
        &["--until-seqno", &at.to_string()],
    );
    let behind = poll_health(lagging_http, |status, body| {
        status == 503 && body.contains("catching up")
    });
    assert!(
        behind.contains("masterchain blocks behind the lite servers"),
        "{behind}"
    );
    stop(lagging);

    // A restored node follows on from the snapshot's block, serving at once.
    let resumed_http = common::free_port();
    let mut resumed = run_with_max_lag(&d("r1"), &config, resumed_http, &[]);
    let (_, info) = json(resumed_http, "GET", "/api/v2/getMasterchainInfo", "");
    assert!(
        info["result"]["last"]["seqno"].as_u64() >= Some(at),
        "{info}"
    );
    wait_for_seqno(&mut resumed, resumed_http, dev.mc_seqno());
    let ready = poll_health(resumed_http, |status, _| status == 200);
    assert!(
        ready.starts_with("OK: 0 masterchain blocks behind"),
        "{ready}"
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    stop(resumed);
    stop(run);
    dev.stop(false);
    let devnet_tables = table_digests(&d("db"));
    assert_eq!(table_digests(&d("follower")), devnet_tables);
    assert_eq!(
        table_digests(&d("r1")),
        devnet_tables,
        "the restored node caught up"
    );

    bad_restores_are_refused(dir.path(), &snapshot, &config, &r2_tables);
}

/// Bad input to `snapshot restore` (corrupted, cut, not a snapshot, of
/// another network, a target that is not empty): refused, non-zero, no
/// database left at the target and a non-empty one left as it was. A
/// restore killed with SIGKILL midway leaves no database; the next one
/// clears its scratch and succeeds with `r2_tables`.
fn bad_restores_are_refused(dir: &Path, snapshot: &Path, config: &Path, r2_tables: &Value) {
    let d = |name: &str| dir.join(name);
    let bytes = std::fs::read(snapshot).unwrap();
    let mut corrupted = bytes.clone();
    let middle = corrupted.len() / 2;
    corrupted[middle] ^= 0x10;
    let foreign = {
        let mut c: Value = serde_json::from_slice(&std::fs::read(config).unwrap()).unwrap();
        c["validator"]["zero_state"]["root_hash"] =
            serde_json::json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
        let path = d("foreign.json");
        std::fs::write(&path, c.to_string()).unwrap();
        path
    };
    let cases: [(&str, Vec<u8>, &Path, &str); 4] = [
        ("corrupted", corrupted, config, "snapshot"),
        ("cut", bytes[..bytes.len() - 5].to_vec(), config, "snapshot"),
        (
            "not one",
            b"{\"hello\": 1}".to_vec(),
            config,
            "not a tonindex snapshot",
        ),
        ("foreign", bytes.clone(), &foreign, "another network"),
    ];
    for (name, content, cfg, said) in cases {
        let file = d(&format!("{name}.bin"));
        std::fs::write(&file, content).unwrap();
        let target = d(&format!("bad-{}", name.replace(' ', "-")));
        let out = restore(&file, &target, cfg);
        assert!(!out.status.success(), "{name}");
        assert!(text(&out).contains(said), "{name}: {}", text(&out));
        assert!(!target.exists(), "{name}: nothing is left at the target");
    }
    // A target that is not empty is left as it was.
    let out = restore(snapshot, &d("r2"), config);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("not an empty directory"),
        "{}",
        text(&out)
    );
    assert_eq!(&table_digests(&d("r2")), r2_tables);

    // kill -9 midway through a restore: no database at the target; the
    // next restore clears the scratch and succeeds.
    let mut killed = Command::new(common::tonindex_bin())
        .args(["snapshot", "restore"])
        .arg(snapshot)
        .arg("--db")
        .arg(d("r4"))
        .args(["--pause-ms", "100"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    unsafe {
        libc::kill(killed.id() as i32, libc::SIGKILL);
    }
    let _ = killed.wait();
    assert!(!d("r4").exists(), "a killed restore leaves no database");
    let scratch_left = || {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".r4.restoring-")
            })
            .count()
    };
    assert_eq!(scratch_left(), 1, "the killed restore's scratch directory");
    let out = restore(snapshot, &d("r4"), config);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(&table_digests(&d("r4")), r2_tables);
    assert_eq!(scratch_left(), 0);
}
