//! Replicas behind HAProxy ([R]): two replicas restored from one snapshot
//! of a devnet follower run `tonindex run` behind Debian's HAProxy with
//! `deploy/haproxy.cfg` (its addresses replaced). Reads go through the
//! balancer all along while one replica is killed with SIGKILL and started
//! again and the chain moves on: not one read fails. Both replicas catch
//! up and end with every table equal to the devnet's.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{common, dev_with_lite_server, fund, http, start_run, table_digests, wait_for_seqno};

fn tonindex(args: &[&str]) {
    let out = Command::new(common::tonindex_bin())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tonindex run` on `db` serving on `port`, healthy within one block of
/// its lite servers.
fn replica(db: &Path, config: &Path, port: u16) -> Child {
    let lag = [("TONINDEX_SERVE__MAX_LAG_BLOCKS", "1")];
    super::run_on(db, config, port, &[], &lag, Stdio::null())
}

fn healthy(port: u16) {
    let start = Instant::now();
    while http(port, "GET", "/healthcheck", "").0 != 200 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "replica on {port} never healthy"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn stop(child: Child) {
    let _ = super::sigterm(child);
}

#[test]
fn replicas_behind_haproxy_serve_every_read_through_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    let (dev, config, _) = dev_with_lite_server(dir.path(), &[]);
    fund(&dev, &format!("0:{}", "71".repeat(32)), 2_000_000_000);
    let (mut source, source_http) = start_run(&d("source"), &config, &[]);
    wait_for_seqno(&mut source, source_http, dev.mc_seqno());
    let snapshot = d("snap.bin");
    let snap = snapshot.to_str().unwrap();
    tonindex(&[
        "snapshot",
        "create",
        "--db",
        d("source").to_str().unwrap(),
        "--out",
        snap,
    ]);
    stop(source);
    for name in ["r1", "r2"] {
        tonindex(&[
            "snapshot",
            "restore",
            snap,
            "--db",
            d(name).to_str().unwrap(),
        ]);
    }
    let (p1, p2, front) = (
        common::free_port(),
        common::free_port(),
        common::free_port(),
    );
    let mut r1 = replica(&d("r1"), &config, p1);
    let r2 = replica(&d("r2"), &config, p2);
    healthy(p1);
    healthy(p2);

    // Debian's HAProxy with the shipped config, on this test's ports.
    let shipped =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/haproxy.cfg"))
            .unwrap();
    let cfg = shipped
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{front}"))
        .replace("127.0.0.1:8081", &format!("127.0.0.1:{p1}"))
        .replace("127.0.0.1:8082", &format!("127.0.0.1:{p2}"));
    assert_ne!(cfg, shipped);
    std::fs::write(d("haproxy.cfg"), cfg).unwrap();
    let haproxy = Command::new("haproxy")
        .args(["-db", "-f"])
        .arg(d("haproxy.cfg"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("haproxy runs (.ci/run installs Debian's package)");
    let haproxy = scopeguard(haproxy);
    common::wait_listening(front);

    // Reads through the balancer, all along.
    let done = Arc::new(AtomicBool::new(false));
    let (reads, failed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let reader = {
        let (done, reads, failed) = (done.clone(), reads.clone(), failed.clone());
        std::thread::spawn(move || {
            let mut first_failure = None;
            while !done.load(Ordering::SeqCst) {
                let (status, body) = http(front, "GET", "/api/v2/getMasterchainInfo", "");
                reads.fetch_add(1, Ordering::SeqCst);
                if status != 200 || !body.contains("\"ok\":true") {
                    failed.fetch_add(1, Ordering::SeqCst);
                    first_failure.get_or_insert(format!("{status} {body}"));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            first_failure
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    // One replica killed; the chain moves on; the replica started again.
    let before_kill = reads.load(Ordering::SeqCst);
    unsafe {
        libc::kill(r1.id() as i32, libc::SIGKILL);
    }
    let _ = r1.wait();
    // Reads meet the dead replica before the checks take it out.
    std::thread::sleep(Duration::from_millis(1000));
    let while_dead = reads.load(Ordering::SeqCst) - before_kill;
    assert!(
        while_dead >= 5,
        "{while_dead} reads while a replica was dead"
    );
    fund(&dev, &format!("0:{}", "72".repeat(32)), 2_000_000_000);
    std::thread::sleep(Duration::from_millis(500));
    fund(&dev, &format!("-1:{}", "73".repeat(32)), 2_000_000_000);
    r1 = replica(&d("r1"), &config, p1);
    let tip = dev.mc_seqno();
    let mut r2 = r2;
    wait_for_seqno(&mut r1, p1, tip);
    wait_for_seqno(&mut r2, p2, tip);
    healthy(p1);
    // Back in the balancer's rotation (two checks passed).
    std::thread::sleep(Duration::from_millis(1000));
    done.store(true, Ordering::SeqCst);
    let first_failure = reader.join().unwrap();
    let (reads, failed) = (reads.load(Ordering::SeqCst), failed.load(Ordering::SeqCst));
    assert!(reads >= 20, "{reads} reads");
    assert_eq!(
        failed, 0,
        "{failed} of {reads} reads failed, first: {first_failure:?}"
    );
    drop(haproxy);
    stop(r1);
    stop(r2);
    dev.stop(false);
    let devnet_tables = table_digests(&d("db"));
    assert_eq!(table_digests(&d("r1")), devnet_tables);
    assert_eq!(table_digests(&d("r2")), devnet_tables);
}

/// Kills the child when dropped (a failed assertion leaves no HAProxy).
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scopeguard(child: Child) -> Guard {
    Guard(child)
}
