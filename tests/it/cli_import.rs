//! The `tonindex` binary: help and version, bad input, idempotence, crash
//! safety; archive packages in `packages`, state retention in `retention`.

use crate::common;
mod packages;
mod retention;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn tonindex(args: &[&str]) -> Output {
    Command::new(common::tonindex_bin())
        .args(args)
        .env_remove("TONINDEX_DB")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn stats(db: &Path) -> serde_json::Value {
    let o = tonindex(&["stats", "--db", db.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn blocks_in(db: &Path) -> u64 {
    stats(db)["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "blocks")
        .unwrap()["rows"]
        .as_u64()
        .unwrap()
}

/// Runs `tonindex import ARGS` slowly (`delay_ms` after each unit) and
/// kills it (SIGKILL) once `units` units are committed; how many were.
fn import_killed_after(delay_ms: u32, args: &[&str], units: usize) -> usize {
    let mut child = Command::new(common::tonindex_bin())
        .args(["--log-level", "tonindex=debug", "import", "--unit-delay-ms"])
        .arg(delay_ms.to_string())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut committed = 0;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        if line.unwrap().contains("unit committed") {
            committed += 1;
            if committed == units {
                child.kill().unwrap(); // SIGKILL on Unix
                break;
            }
        }
    }
    child.wait().unwrap();
    committed
}

/// The 2019 series' two directories, and a clean import of them in
/// `dir/clean` (what an interrupted import must end equal to).
fn series_and_clean_import(dir: &Path) -> (Vec<String>, std::path::PathBuf) {
    let series: Vec<String> = ["mc", "shard"]
        .iter()
        .map(|d| {
            common::fixture(&format!("blocks/ever-block-mainnet-2019/{d}"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let clean = dir.join("clean");
    let mut args = vec!["import", "--db", clean.to_str().unwrap()];
    args.extend(series.iter().map(String::as_str));
    assert!(tonindex(&args).status.success());
    (series, clean)
}

#[test]
fn version_and_help_on_every_subcommand() {
    let o = tonindex(&["--version"]);
    assert!(o.status.success());
    assert!(text(&o).contains(env!("CARGO_PKG_VERSION")));
    for sub in [
        &["--help"][..],
        &["import", "--help"],
        &["stats", "--help"],
        &["compact", "--help"],
        &["bench", "--help"],
    ] {
        let o = tonindex(sub);
        assert!(o.status.success(), "{sub:?}");
        assert!(text(&o).contains("Usage"), "{sub:?}");
    }
    let o = tonindex(&["import"]);
    assert!(!o.status.success(), "import without paths must fail");
}

#[test]
fn bad_input_names_the_file_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db_s = db.to_str().unwrap();
    let block = std::fs::read(common::fixture("blocks/tongo/block-1.bin")).unwrap();

    let truncated = dir.path().join("truncated.boc");
    std::fs::write(&truncated, &block[..block.len() / 2]).unwrap();
    let random = dir.path().join("random.bin");
    std::fs::write(
        &random,
        (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let not_a_block = common::fixture("contracts/wallets/wallet_v4r2.code");
    let empty_dir = dir.path().join("empty");
    std::fs::create_dir(&empty_dir).unwrap();

    for (path, why) in [
        (truncated.as_path(), "bag of cells"),
        (random.as_path(), "not a bag of cells"),
        (not_a_block.as_path(), "not a block"),
        (empty_dir.as_path(), "no block files"),
    ] {
        let o = tonindex(&["import", "--db", db_s, path.to_str().unwrap()]);
        let out = text(&o);
        assert!(!o.status.success(), "{path:?} must fail: {out}");
        assert!(
            out.contains(path.file_name().unwrap().to_str().unwrap()),
            "{path:?}: {out}"
        );
        assert!(out.contains(why), "{path:?}: {out}");
        assert!(!out.contains("panicked"), "{out}");
    }
    // A directory with good blocks and one bad file: nothing of it is written.
    let mixed = dir.path().join("mixed");
    std::fs::create_dir(&mixed).unwrap();
    std::fs::write(mixed.join("a.bin"), &block).unwrap();
    std::fs::copy(&truncated, mixed.join("b.boc")).unwrap();
    let o = tonindex(&["import", "--db", db_s, mixed.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("b.boc"));
    assert_eq!(blocks_in(&db), 0);
    // The same directory without the bad file imports.
    std::fs::remove_file(mixed.join("b.boc")).unwrap();
    let o = tonindex(&["import", "--db", db_s, mixed.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("imported 1 blocks"), "{}", text(&o));
}

/// A reader that closes the pipe before `stats` writes (`stats | head`)
/// ends it quietly: no panic, a success.
#[test]
fn stats_into_a_closed_pipe_exits_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let (_, clean) = series_and_clean_import(dir.path());
    let mut child = Command::new(common::tonindex_bin())
        .args(["stats", "--db", clean.to_str().unwrap()])
        .env_remove("TONINDEX_DB")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closed before the process has opened the database, let alone written.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn import_twice_gives_identical_content() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let blocks = common::fixture("blocks");
    let args = [
        "import",
        "--db",
        db.to_str().unwrap(),
        blocks.to_str().unwrap(),
    ];
    // The fixture folder also holds a non-block BoC (a hashmap) and JSON: import
    // the block files only.
    let files: Vec<String> = tonindex::chain::files::collect_paths(std::slice::from_ref(&blocks))
        .unwrap()
        .into_iter()
        .filter(|p| !p.ends_with("hashmap_aug.hex"))
        .map(|p| p.display().to_string())
        .collect();
    let mut full: Vec<&str> = args[..3].to_vec();
    full.extend(files.iter().map(String::as_str));
    let o = tonindex(&full);
    assert!(o.status.success(), "{}", text(&o));
    // The import leaves its rows in files, not only in the log that a
    // follower (`tonindex serve`) would replay into memory at every start.
    // (Read before `stats`, whose writer would flush the log on opening.)
    let table_file = std::fs::read_dir(&db)
        .unwrap()
        .flatten()
        .any(|e| e.path().extension().is_some_and(|x| x == "sst"));
    assert!(table_file, "no table file after the import");
    let first = stats(&db);
    assert_eq!(blocks_in(&db), 89);
    let o = tonindex(&full);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("imported 0 blocks (89 already present"),
        "{}",
        text(&o)
    );
    assert_eq!(stats(&db)["tables"], first["tables"]);
}

#[test]
fn sigkill_mid_import_then_rerun_equals_clean_import() {
    let dir = tempfile::tempdir().unwrap();
    let (series, clean) = series_and_clean_import(dir.path());
    let series: Vec<&str> = series.iter().map(String::as_str).collect();

    // Import slowly, and kill the process after a few units are committed.
    let crashed = dir.path().join("crashed");
    let mut args = vec!["--db", crashed.to_str().unwrap()];
    args.extend(&series);
    let committed = import_killed_after(40, &args, 10);
    assert_eq!(committed, 10);
    let partial = stats(&crashed);
    let units = partial["cursor"]["units"].as_u64().unwrap();
    assert!(
        (10..62).contains(&units),
        "killed run committed {units} units"
    );

    let mut args = vec!["import", "--db", crashed.to_str().unwrap()];
    args.extend(&series);
    let o = tonindex(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(stats(&crashed)["tables"], stats(&clean)["tables"]);
    assert_eq!(stats(&crashed)["cursor"], stats(&clean)["cursor"]);
}

#[test]
fn sigterm_stops_an_import_after_a_whole_unit_and_a_rerun_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (series, clean) = series_and_clean_import(dir.path());
    let series: Vec<&str> = series.iter().map(String::as_str).collect();

    let stopped = dir.path().join("stopped");
    let mut child = Command::new(common::tonindex_bin())
        .args([
            "--log-level",
            "tonindex=debug",
            "import",
            "--unit-delay-ms",
            "40",
            "--db",
            stopped.to_str().unwrap(),
        ])
        .args(&series)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut committed = 0;
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().contains("unit committed") {
            committed += 1;
            if committed == 5 {
                unsafe {
                    libc::kill(child.id() as i32, libc::SIGTERM);
                }
                break;
            }
        }
    }
    for _ in lines {} // drain
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "exit {:?}", out.status);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("stopped on request after"), "{said}");
    let units = stats(&stopped)["cursor"]["units"].as_u64().unwrap();
    assert!((5..62).contains(&units), "stopped after {units} units");

    let mut args = vec!["import", "--db", stopped.to_str().unwrap()];
    args.extend(&series);
    let o = tonindex(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(stats(&stopped)["tables"], stats(&clean)["tables"]);
    assert_eq!(stats(&stopped)["cursor"], stats(&clean)["cursor"]);
}

/// Twenty SIGKILLs at varying moments of one import, each run resuming
/// the last: the tables end equal to an uninterrupted import's.
#[test]
fn twenty_sigkills_at_varying_moments_then_equal_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (series, clean) = series_and_clean_import(dir.path());
    let series: Vec<&str> = series.iter().map(String::as_str).collect();

    let crashed = dir.path().join("crashed");
    let mut kills = 0;
    // A fixed, varied schedule: kill after 1..=4 newly written units, or
    // at a moment between units (right after a unit's log line, while the
    // writer sleeps or starts the next batch).
    for round in 0..40u32 {
        if kills == 20 {
            break;
        }
        let after = 1 + (round * 7 + 3) % 4;
        let mut child = Command::new(common::tonindex_bin())
            .args([
                "--log-level",
                "tonindex=debug",
                "import",
                "--unit-delay-ms",
                "15",
                "--db",
                crashed.to_str().unwrap(),
            ])
            .args(&series)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut written = 0;
        let mut killed = false;
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            if line.contains("unit committed") && !line.contains("written=0") {
                written += 1;
                if written == after {
                    if round % 3 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(7));
                    }
                    child.kill().unwrap(); // SIGKILL
                    killed = true;
                    break;
                }
            }
        }
        child.wait().unwrap();
        if killed {
            kills += 1;
        } else {
            // The import finished before the kill: start over, fresh.
            std::fs::remove_dir_all(&crashed).unwrap();
        }
    }
    assert_eq!(kills, 20);
    let mut args = vec!["import", "--db", crashed.to_str().unwrap()];
    args.extend(&series);
    let o = tonindex(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(stats(&crashed)["tables"], stats(&clean)["tables"]);
    assert_eq!(stats(&crashed)["cursor"], stats(&clean)["cursor"]);
}

/// `tonindex compact` rewrites every table to its last level and changes
/// no row (digests equal before and after); a database that is not there
/// is a clear error.
#[test]
fn compact_changes_no_row_and_refuses_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let (_, clean) = series_and_clean_import(dir.path());
    let before = stats(&clean);
    let o = tonindex(&["compact", "--db", clean.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let tables = tonindex_storage::tables::all().len();
    assert!(
        text(&o).contains(&format!("compacted {tables} tables")),
        "{}",
        text(&o)
    );
    let after = stats(&clean);
    assert_eq!(after["tables"], before["tables"]);
    // Bytes per transaction: the tables' keys and values over the cursor's transactions.
    let bytes: u64 = after["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["key_bytes"].as_u64().unwrap() + t["value_bytes"].as_u64().unwrap())
        .sum();
    let txs = after["cursor"]["transactions"].as_u64().unwrap();
    let per_tx = after["bytes_per_tx"].as_f64().unwrap();
    assert!(
        txs > 0 && (per_tx - bytes as f64 / txs as f64).abs() < 0.06,
        "{per_tx}"
    );
    assert_eq!(after["cursor"], before["cursor"]);
    let missing = dir.path().join("missing");
    let o = tonindex(&["compact", "--db", missing.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("no database at"), "{}", text(&o));
    assert!(!missing.exists(), "compact must not create a database");
}

/// A database an older build wrote (schema 17, kept in tests/data, see its
/// PROVENANCE.md) is refused by each command that opens it, naming both
/// versions and how to rebuild, and is left exactly as it was: the check
/// runs before the database is opened for writing (which would add this
/// build's new tables to it).
#[test]
fn an_older_schema_is_refused_with_how_to_rebuild_and_left_untouched() {
    let kept = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema17-db");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old");
    std::fs::create_dir(&db).unwrap();
    for entry in std::fs::read_dir(&kept).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), db.join(entry.file_name())).unwrap();
    }
    let files = |d: &Path| -> std::collections::BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                // What a read-only open may write beside the data.
                !(name.starts_with("LOG") || name.starts_with("OPTIONS") || name == "LOCK")
            })
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    };
    let before = files(&db);
    assert!(
        before.keys().any(|n| n.ends_with(".sst")),
        "{:?}",
        before.keys()
    );
    let path = db.to_str().unwrap();
    let block = common::fixture("blocks/ton-benchmark/testnet_mc_49375158_block.boc");
    let commands: [Vec<&str>; 3] = [
        vec!["stats", "--db", path],
        vec!["compact", "--db", path],
        vec!["import", "--db", path, block.to_str().unwrap()],
    ];
    let expected = format!(
        "schema version 17, this build needs {}; re-import into a new directory",
        tonindex_storage::SCHEMA_VERSION
    );
    for args in &commands {
        let o = tonindex(args);
        assert!(!o.status.success(), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(&expected), "{args:?}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{args:?}: {}", text(&o));
    }
    assert!(
        files(&db) == before,
        "the refused database was changed: {:?}",
        files(&db).keys().collect::<Vec<_>>()
    );
}

/// `bench-dev --profile mainnet` makes the traffic it names: bounces from
/// nonexistent accounts, comments, three-message batches and a hot wallet
/// that receives far more than any other — counted in the imported chain;
/// and Jetton transfers of a TEP-74 Jetton minted to every fourth sender:
/// the contracts' own getters (run by the index) account for every unit
/// minted, spread over more wallets than were minted to; NFT transfers
/// of a collection's items, each item owned by its last transfer's new
/// owner; a highload v3 wallet's payouts, every one executed; and calls
/// to a pool that answers each, as its own getter counts them.
#[test]
fn bench_dev_mainnet_profile_makes_its_mix() {
    use std::collections::HashMap;
    use tonindex_model::{MessageRecord, MsgKind};
    let dir = tempfile::tempdir().unwrap();
    let blocks = dir.path().join("blocks");
    let o = tonindex(&[
        "bench-dev",
        "--wallets",
        "40",
        "--blocks",
        "8",
        "--profile",
        "mainnet",
        "--export-blocks",
        blocks.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let db = dir.path().join("db");
    let o = tonindex(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        blocks.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let db = tonindex_storage::Db::open(&db, &tonindex_storage::DbOptions::default()).unwrap();
    let msgs: Vec<MessageRecord> = common::all_messages(&db.reader())
        .into_iter()
        .filter(|m| m.kind == MsgKind::Internal)
        .collect();
    // One highload v3 wallet (the published code hash), five payouts a
    // round over the warm-up and eight measured rounds.
    let highload: Vec<_> = db
        .reader()
        .prefix::<tonindex_storage::tables::LatestAccounts>(&[], false)
        .map(|x| x.unwrap())
        .filter(|(_, l)| {
            l.code_hash.map(hex::encode).as_deref()
                == Some("11acad7955844090f283bf238bc1449871f783e7cc0979408d3f4859483e8525")
        })
        .map(|(a, _)| a)
        .collect();
    assert_eq!(highload.len(), 1);
    let paid = msgs
        .iter()
        .filter(|m| m.source == Some(highload[0]))
        .count();
    assert_eq!(paid, 45, "the highload wallet's payouts");
    let with_op = |op: u32| msgs.iter().filter(|m| m.opcode == Some(op)).count();
    // 10 holders' mints arrive as internal transfers, as do the transfers.
    let (transfers, internal) = (with_op(0x0f8a_7ea5), with_op(0x178d_4519));
    assert!(
        transfers >= 3 && internal >= 10 + transfers,
        "{transfers} {internal}"
    );
    let bounced = msgs.iter().filter(|m| m.bounced == Some(true)).count();
    let comments = msgs.iter().filter(|m| m.opcode == Some(0)).count();
    let mut received: HashMap<_, usize> = HashMap::new();
    for m in &msgs {
        *received.entry(m.destination).or_default() += 1;
    }
    let mut counts: Vec<usize> = received.values().copied().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    assert!(bounced >= 2, "{bounced} bounced of {}", msgs.len());
    assert!(comments >= 10, "{comments} comments of {}", msgs.len());
    assert!(
        counts[0] >= 3 * counts[1] && counts[0] * 10 >= msgs.len(),
        "the hot wallet: {:?} of {}",
        &counts[..3],
        msgs.len()
    );
    // The pool answers every message it gets (its deploy and the calls)
    // with a reply to the message's sender, and its `calls` getter (run
    // by the index on its state) counts them.
    let calls: Vec<&MessageRecord> = msgs
        .iter()
        .filter(|m| m.opcode == Some(0x4341_4c4c))
        .collect();
    assert!(calls.len() >= 3, "{} pool calls", calls.len());
    let pool = calls[0].destination.expect("a call's destination");
    assert!(calls.iter().all(|m| m.destination == Some(pool)));
    let mut asked: Vec<_> = msgs
        .iter()
        .filter(|m| m.destination == Some(pool))
        .map(|m| m.source)
        .collect();
    let mut answered: Vec<_> = msgs
        .iter()
        .filter(|m| m.source == Some(pool))
        .inspect(|m| assert_eq!(m.opcode, Some(0x504f_4f4c), "a pool reply"))
        .map(|m| m.destination)
        .collect();
    asked.sort_unstable();
    answered.sort_unstable();
    assert_eq!(
        asked, answered,
        "every message to the pool is answered to its sender"
    );
    let db = std::sync::Arc::new(db);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let pool_text = format!("0:{}", hex::encode(pool.id));
    let got = api_get(
        &rt,
        &db,
        &format!("/api/v2/runGetMethod?address={pool_text}&method=calls&stack=%5B%5D"),
    );
    assert_eq!(got["result"]["exit_code"], 0, "{got}");
    assert_eq!(
        got["result"]["stack"][0][1],
        format!("{:#x}", asked.len()),
        "{got}"
    );
    tokens_of_the_mix(&rt, &db);
    drop(db);
    codes_without_states(dir.path(), &blocks);
}

/// The mix's tokens, as the index's getters see them: its one Jetton's
/// every minted unit held, over more wallets than were minted to; its NFT
/// collection's 20 items, each owned by its last transfer's new owner.
fn tokens_of_the_mix(rt: &tokio::runtime::Runtime, db: &std::sync::Arc<tonindex_storage::Db>) {
    let masters = api_get(rt, db, "/api/v3/jetton/masters");
    let masters = masters["jetton_masters"].as_array().unwrap();
    assert_eq!(masters.len(), 1, "{masters:?}");
    let minted: u128 = 10 * 1_000_000_000;
    assert_eq!(masters[0]["total_supply"], minted.to_string());
    let minter = masters[0]["address"].as_str().unwrap();
    let wallets = api_get(
        rt,
        db,
        &format!("/api/v3/jetton/wallets?jetton_address={minter}&limit=1000"),
    );
    let wallets = wallets["jetton_wallets"].as_array().unwrap();
    let held: u128 = wallets
        .iter()
        .map(|w| w["balance"].as_str().unwrap().parse::<u128>().unwrap())
        .sum();
    assert_eq!(held, minted, "every unit minted is held");
    assert!(wallets.len() > 10, "{} wallets", wallets.len());
    // The NFT collection: two items for every fourth sender (10 owners),
    // and each item's owner (the item's own getter) is the new owner of its
    // last transfer (read from the messages), where it was transferred.
    let collections = api_get(rt, db, "/api/v3/nft/collections");
    let collections = collections["nft_collections"].as_array().unwrap();
    assert_eq!(collections.len(), 1, "{collections:?}");
    assert_eq!(collections[0]["next_item_index"], "20");
    let collection = collections[0]["address"].as_str().unwrap();
    let items = api_get(
        rt,
        db,
        &format!("/api/v3/nft/items?collection_address={collection}&limit=1000"),
    );
    let items = items["nft_items"].as_array().unwrap();
    assert_eq!(items.len(), 20);
    let transfers = api_get(
        rt,
        db,
        &format!("/api/v3/nft/transfers?collection_address={collection}&sort=asc&limit=1000"),
    );
    let transfers = transfers["nft_transfers"].as_array().unwrap();
    assert!(!transfers.is_empty(), "no NFT transfer in the mix");
    for item in items {
        let last = transfers
            .iter()
            .rfind(|t| t["nft_address"] == item["address"]);
        if let Some(t) = last {
            assert_eq!(t["new_owner"], item["owner_address"], "{item} {t}");
        }
    }
}

/// The JSON of a v3 GET on an API over `db`.
fn api_get(
    rt: &tokio::runtime::Runtime,
    db: &std::sync::Arc<tonindex_storage::Db>,
    path: &str,
) -> serde_json::Value {
    use tonindex::api::{router, Api, ApiConfig};
    use tower::ServiceExt;
    let _entered = rt.enter();
    let app = router(Api::new(db.clone(), ApiConfig::default()));
    let req = axum::http::Request::get(path)
        .body(axum::body::Body::empty())
        .unwrap();
    let body = rt.block_on(async {
        let resp = app.oneshot(req).await.unwrap();
        assert_eq!(resp.status(), 200, "{path}");
        axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap()
    });
    serde_json::from_slice(&body).unwrap()
}

/// An index of blocks alone (no zero state: no account state held) still
/// knows each changed account's code from its block's state update: every
/// sender of the mainnet profile is a v3r2, v4r2 or v5r1 wallet (their public code
/// hashes), so v3's address book shows it non-bounceable (`UQ…`, as
/// toncenter does) with its wallet interface; the token contracts
/// bounceable (`EQ…`).
fn codes_without_states(dir: &Path, exported: &Path) {
    use tonindex_model::AccountStatus;
    use tonindex_storage::tables::{AccountStates, LatestAccounts};
    const V4R2: &str = "feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0";
    const V5R1: &str = "20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f";
    const V3R2: &str = "84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599";
    // The blocks without the zero states they start from.
    let blocks = dir.join("blocks-only");
    std::fs::create_dir(&blocks).unwrap();
    for f in std::fs::read_dir(exported).unwrap() {
        let f = f.unwrap();
        if !f.file_name().to_string_lossy().starts_with("zerostate") {
            std::fs::copy(f.path(), blocks.join(f.file_name())).unwrap();
        }
    }
    let db = dir.join("db-blocks-only");
    let o = tonindex(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        blocks.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let db = std::sync::Arc::new(
        tonindex_storage::Db::open(&db, &tonindex_storage::DbOptions::default()).unwrap(),
    );
    let r = db.reader();
    assert_eq!(
        r.prefix::<AccountStates>(&[], false).count(),
        0,
        "no state is held"
    );
    let latest: Vec<_> = r
        .prefix::<LatestAccounts>(&[], false)
        .map(|x| x.unwrap())
        .collect();
    // The reference Jetton's minter and wallets (published code hashes).
    const JETTON: [&str; 2] = [
        "13f5d7a316c6d76e1053e88ac59b5de65a072a388451371dc5c5becbba13f50e",
        "beb0683ebeb8927fe9fc8ec0a18bc7dd17899689825a121eab46c5a3a860d0ce",
    ];
    let mut jetton_contracts = 0;
    let mut wallets = Vec::new();
    let mut contracts = Vec::new();
    let mut inactive = Vec::new();
    for (account, l) in &latest {
        match (l.status, l.code_hash.map(hex::encode)) {
            (AccountStatus::Active, Some(h)) if [V3R2, V4R2, V5R1].contains(&h.as_str()) => {
                wallets.push((*account, h))
            }
            // The Jetton's and the NFT collection's contracts.
            (AccountStatus::Active, Some(h)) => {
                jetton_contracts += usize::from(JETTON.contains(&h.as_str()));
                contracts.push(*account)
            }
            (AccountStatus::Active, None) => panic!("{account:?}: active, code not read"),
            (_, code) => {
                assert_eq!(code, None, "{account:?}: {l:?}");
                inactive.push(*account);
            }
        }
    }
    assert!(
        wallets.len() >= 40,
        "{} wallets of {}",
        wallets.len(),
        latest.len()
    );
    for version in [V3R2, V4R2, V5R1] {
        assert!(
            wallets.iter().any(|(_, h)| h == version),
            "no {version} wallet"
        );
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let book = |account: &tonindex_model::Address| {
        let raw = tonindex::api::encoding::raw_upper(account);
        api_get(&rt, &db, &format!("/api/v3/addressBook?address={raw}"))[&raw].clone()
    };
    let v3r2 = wallets.iter().filter(|(_, h)| h == V3R2).take(2);
    for (account, code) in wallets.iter().take(6).chain(v3r2) {
        let row = book(account);
        let friendly = row["user_friendly"].as_str().unwrap();
        assert!(friendly.starts_with("UQ"), "{row}");
        let want = match code.as_str() {
            V3R2 => "wallet_v3r2",
            V4R2 => "wallet_v4r2",
            _ => "wallet_v5r1",
        };
        assert_eq!(row["interfaces"], serde_json::json!([want]), "{row}");
    }
    // The token contracts: bounceable.
    assert!(jetton_contracts > 10, "{jetton_contracts} Jetton contracts");
    for account in contracts.iter().take(3) {
        let row = book(account);
        assert!(
            row["user_friendly"].as_str().unwrap().starts_with("EQ"),
            "{row}"
        );
    }
    // The bounces' nonexistent targets: no code, non-bounceable too.
    assert!(!inactive.is_empty());
    for account in inactive.iter().take(3) {
        let row = book(account);
        assert!(
            row["user_friendly"].as_str().unwrap().starts_with("UQ"),
            "{row}"
        );
        assert_eq!(row["interfaces"], serde_json::json!([]), "{row}");
    }
}
