//! `tonindex import` of TON archive packages: mainnet's genesis packages
//! with both zero states (`tests/data/fixtures/archives/mainnet-genesis`),
//! held against pytoniq-core reading the same packages
//! (`tests/python/archive_packages.py`); the same blocks as loose files in
//! any order; doctored, cut and foreign input; kill -9 mid-import.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use tonindex_model::BlockId;
use tonindex_storage::tables::{Blocks, McBlockKey, McShardState, ShardKey, ShardStates};
use tonindex_storage::{Db, DbOptions};

use super::{blocks_in, stats, text, tonindex};

const MC_PACK: &str = "archive.00000.pack";
const SHARD_PACK: &str = "archive.00000.0_8000000000000000.pack";
const MC_ZERO: &str = "5E994FCF4D425C0A6CE6A792594B7173205F740A39CD56F537DEFD28B48A0F6E.boc";
const BC_ZERO: &str = "EE0BEDFE4B32761FB35E9E1D8818EA720CAD1A0E7B4D2ED673C488E72E910342.boc";

fn genesis(name: &str) -> PathBuf {
    super::common::fixture("archives/mainnet-genesis").join(name)
}

fn import(db: &Path, inputs: &[PathBuf], extra: &[&str]) -> std::process::Output {
    let mut args = vec!["import", "--db", db.to_str().unwrap()];
    args.extend(extra);
    let inputs: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
    args.extend(inputs);
    tonindex(&args)
}

/// (name, data) of every whole entry of a package, read here on its own.
fn entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let data = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut off = 4;
    while off + 8 <= data.len() {
        let head = u32::from_le_bytes(data[off..off + 4].try_into().unwrap());
        let len = u32::from_le_bytes(data[off + 4..off + 8].try_into().unwrap()) as usize;
        let name_len = (head >> 16) as usize;
        let name = String::from_utf8(data[off + 8..off + 8 + name_len].to_vec()).unwrap();
        let start = off + 8 + name_len;
        out.push((name, data[start..start + len].to_vec()));
        off = start + len;
    }
    out
}

/// A package of the given entries.
fn package(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = 0xAE8F_DD01u32.to_le_bytes().to_vec();
    for (name, data) in entries {
        out.extend((0x1E8B | (name.len() as u32) << 16).to_le_bytes());
        out.extend((data.len() as u32).to_le_bytes());
        out.extend(name.as_bytes());
        out.extend(data);
    }
    out
}

fn python(args: &[PathBuf]) -> Value {
    let out = Command::new("python3")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/archive_packages.py"))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "archive_packages.py failed (pytoniq-core installed? .ci/run installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

use super::common::hex32;

fn shard_of(v: &Value) -> u64 {
    u64::from_str_radix(v["shard"].as_str().unwrap(), 16).unwrap()
}

#[test]
fn genesis_packages_apply_every_block_and_agree_with_pytoniq() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let all = genesis("");
    let o = import(&db, &[all], &[]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("imported 299 blocks"), "{out}");
    assert!(
        out.contains("2 state file(s) imported, 299 block(s) applied"),
        "{out}"
    );
    assert!(out.contains("99 masterchain block(s) checked"), "{out}");
    assert!(!out.contains("WARN") && !out.contains("warning"), "{out}");

    let parsed = python(&[genesis(MC_PACK), genesis(SHARD_PACK)]);
    let blocks = parsed["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 299);
    let index = Db::open(&db, &DbOptions::default()).unwrap();
    let reader = index.reader();
    let (mut txs, mut messages) = (0, 0);
    // The newest state hash of every shard, by pytoniq's reading.
    let mut newest: HashMap<(i32, u64), (u32, [u8; 32])> = HashMap::new();
    for b in blocks {
        let id = BlockId {
            workchain: b["workchain"].as_i64().unwrap() as i32,
            shard: shard_of(b),
            seqno: b["seqno"].as_u64().unwrap() as u32,
        };
        let rec = index.get::<Blocks>(&id).unwrap().expect("indexed");
        assert_eq!(rec.id.root_hash, hex32(&b["root_hash"]), "{id:?}");
        assert_eq!(rec.id.file_hash, hex32(&b["file_hash"]), "{id:?}");
        assert_eq!(rec.state_root_hash, hex32(&b["new_hash"]), "{id:?}");
        assert!(rec.mc_block_seqno.is_some(), "{id:?} is committed");
        let theirs_txs = b["transactions"].as_array().unwrap();
        let (ours, theirs) = super::common::block_transactions(&reader, &id, b);
        assert_eq!(ours, theirs, "{id:?}");
        txs += theirs.len();
        messages += theirs_txs
            .iter()
            .map(|t| t["messages"].as_u64().unwrap())
            .sum::<u64>();
        let slot = newest
            .entry((id.workchain, id.shard))
            .or_insert((0, [0; 32]));
        if id.seqno > slot.0 {
            *slot = (id.seqno, hex32(&b["new_hash"]));
        }
        // The shard layout a masterchain block stores is the one it names.
        if let Some(shards) = b["shards"].as_array() {
            let mut stored: Vec<(u32, [u8; 32], [u8; 32])> = reader
                .prefix::<McShardState>(&McBlockKey::prefix(id.seqno), false)
                .map(|r| {
                    let (_, d) = r.unwrap();
                    (d.block.id.seqno, d.block.root_hash, d.block.file_hash)
                })
                .collect();
            let mut named: Vec<(u32, [u8; 32], [u8; 32])> = shards
                .iter()
                .map(|s| {
                    let seqno = s["seqno"].as_u64().unwrap() as u32;
                    (seqno, hex32(&s["root_hash"]), hex32(&s["file_hash"]))
                })
                .collect();
            stored.sort();
            named.sort();
            assert_eq!(
                stored, named,
                "shard layout at masterchain block {}",
                id.seqno
            );
        }
    }
    assert_eq!(txs, 1087);
    let summary_messages = out
        .split(" messages")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    assert_eq!(summary_messages, Some(messages), "{out}");
    // Every shard state the index holds is the one its newest block made.
    for ((workchain, shard), (seqno, hash)) in &newest {
        let key = ShardKey {
            workchain: *workchain,
            shard: *shard,
        };
        if let Some(held) = index.get::<ShardStates>(&key).unwrap() {
            if held.seqno == *seqno {
                assert_eq!(held.root_hash, *hash, "({workchain},{shard:016x})");
            }
        }
    }
    let mc = index
        .get::<ShardStates>(&ShardKey {
            workchain: -1,
            shard: 0x8000_0000_0000_0000,
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        (mc.seqno, mc.root_hash),
        newest[&(-1, 0x8000_0000_0000_0000)]
    );
    // The config in force at genesis is the zero state's.
    let config = tonindex::query::config_in_force::config_at(&reader, Some(50)).unwrap();
    assert_eq!(config.map(|(seqno, _)| seqno), Some(0));
    drop(reader);
    drop(index);

    // Served: getConfigParam and getConfigAll, and get-methods run with it.
    let port = super::common::free_port();
    let mut server = Command::new(super::common::tonindex_bin())
        .args(["serve", "--db", db.to_str().unwrap()])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    super::common::wait_listening(port);
    let (status, _, body) = http_get(port, "/api/v2/getConfigParam?config_id=34&seqno=10");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"ok\":true"), "{body}");
    let (status, _, body) = http_get(port, "/api/v2/getConfigAll?seqno=10");
    assert_eq!(status, 200, "{body}");
    let elector = "-1:3333333333333333333333333333333333333333333333333333333333333333";
    let (status, head, body) = http_get(
        port,
        &format!("/api/v2/runGetMethod?address={elector}&method=active_election_id&stack=%5B%5D"),
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"exit_code\":0"), "{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("x-tonindex-config: key_block=0"),
        "{head}"
    );
}

/// A GET over loopback: status, headers, body.
fn http_get(port: u16, path: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

/// The package's blocks as loose files with the names given.
fn loose_copy(dir: &Path, name: impl Fn(usize, &str) -> String) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for zs in [MC_ZERO, BC_ZERO] {
        std::fs::copy(genesis(zs), dir.join(zs)).unwrap();
    }
    let mut i = 0;
    for pack in [MC_PACK, SHARD_PACK] {
        for (entry, data) in entries(&genesis(pack)) {
            if let Some(rest) = entry.strip_prefix("block_(") {
                let id = rest.split(')').next().unwrap().replace(',', "_");
                std::fs::write(dir.join(name(i, &id)), data).unwrap();
                i += 1;
            }
        }
    }
    dir.to_path_buf()
}

#[test]
fn loose_files_in_any_order_give_the_tables_of_the_packages() {
    let dir = tempfile::tempdir().unwrap();
    let packed = dir.path().join("packed");
    assert!(import(&packed, &[genesis("")], &[]).status.success());
    let want = stats(&packed);

    // `wc_shard_seqno.boc` sorts child shards before their parents; a
    // scrambled numbering puts every block anywhere.
    let named = loose_copy(&dir.path().join("named"), |_, id| format!("{id}.boc"));
    let scrambled = loose_copy(&dir.path().join("scrambled"), |i, _| {
        format!("{:08}.boc", (i * 7919 + 13) % 1009)
    });
    for (k, files) in [named, scrambled].iter().enumerate() {
        let db = dir.path().join(format!("loose{k}"));
        // Chunks of 16 files: the input spans many chunks, so the order
        // the import chooses is what the writer sees.
        let o = Command::new(super::common::tonindex_bin())
            .args(["import", "--db", db.to_str().unwrap()])
            .arg(files)
            .env_remove("TONINDEX_DB")
            .env("TONINDEX_IMPORT__CHUNK_SIZE", "16")
            .output()
            .unwrap();
        let out = text(&o);
        assert!(o.status.success(), "{out}");
        assert!(out.contains("299 block(s) applied"), "{out}");
        assert!(!out.contains("WARN"), "{out}");
        let got = stats(&db);
        assert_eq!(got["tables"], want["tables"], "{}", files.display());
        assert_eq!(got["cursor"], want["cursor"]);
    }
}

#[test]
fn packages_split_by_number_import_group_by_group_to_the_same_tables() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    assert!(import(&clean, &[genesis("")], &[]).status.success());
    let want = stats(&clean);
    // Masterchain blocks 1-50 in package 0, 51-99 in package 50, each
    // shard block in the package of the masterchain block that commits it
    // (as a node files them), the latter first on disk.
    let committed_by: HashMap<String, u32> = {
        let index = Db::open(&clean, &DbOptions::default()).unwrap();
        entries(&genesis(SHARD_PACK))
            .iter()
            .filter_map(|(name, _)| {
                let rest = name.strip_prefix("block_(0,")?;
                let (shard, rest) = rest.split_once(',')?;
                let seqno: u32 = rest.split(')').next()?.parse().ok()?;
                let id = BlockId {
                    workchain: 0,
                    shard: u64::from_str_radix(shard, 16).ok()?,
                    seqno,
                };
                let rec = index.get::<Blocks>(&id).unwrap()?;
                Some((format!("(0,{shard},{seqno})"), rec.mc_block_seqno?))
            })
            .collect()
    };
    let seqno_of = |name: &str| -> u32 {
        let id = &name[name.find('(').unwrap()..=name.find(')').unwrap()];
        if let Some(mc) = id.strip_prefix("(-1,8000000000000000,") {
            mc.trim_end_matches(')').parse().unwrap()
        } else {
            committed_by[id]
        }
    };
    let split = dir.path().join("split");
    std::fs::create_dir(&split).unwrap();
    for (pack, shard_name) in [(MC_PACK, ""), (SHARD_PACK, ".0_8000000000000000")] {
        let all = entries(&genesis(pack));
        let (low, high): (Vec<_>, Vec<_>) = all.into_iter().partition(|(n, _)| seqno_of(n) <= 50);
        std::fs::write(
            split.join(format!("archive.00050{shard_name}.pack")),
            package(&high),
        )
        .unwrap();
        std::fs::write(
            split.join(format!("archive.00000{shard_name}.pack")),
            package(&low),
        )
        .unwrap();
    }
    for zs in [MC_ZERO, BC_ZERO] {
        std::fs::copy(genesis(zs), split.join(zs)).unwrap();
    }
    let db = dir.path().join("grouped");
    let o = import(&db, &[split], &["--group-bytes", "1"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("299 block(s) applied"), "{out}");
    assert!(
        out.contains("packages: 4 read; 99 masterchain block(s) checked"),
        "{out}"
    );
    // Planned as two groups (each number on its own under --group-bytes 1).
    assert_eq!(
        out.matches("planning a group of packages").count(),
        2,
        "{out}"
    );
    assert!(
        !out.contains("WARN") && !out.contains("not committed"),
        "{out}"
    );
    let got = stats(&db);
    assert_eq!(got["tables"], want["tables"]);
    assert_eq!(got["cursor"], want["cursor"]);
}

#[test]
fn doctored_cut_and_foreign_packages() {
    let dir = tempfile::tempdir().unwrap();
    let zero = [genesis(MC_ZERO), genesis(BC_ZERO)];
    let mc_entries = entries(&genesis(MC_PACK));
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };

    // One byte changed in masterchain block 50: refused, named, nothing written.
    let mut doctored = mc_entries.clone();
    let i = doctored
        .iter()
        .position(|(n, _)| n.starts_with("block_(-1,8000000000000000,50)"))
        .unwrap();
    let mid = doctored[i].1.len() / 2;
    doctored[i].1[mid] ^= 0x20;
    let bad = write("archive.00000.pack", &package(&doctored));
    let db = dir.path().join("doctored");
    let o = import(&db, &[zero[0].clone(), zero[1].clone(), bad.clone()], &[]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("block_(-1,8000000000000000,50)"), "{out}");
    assert!(out.contains("file hash"), "{out}");
    assert_eq!(blocks_in(&db), 0);

    // Its proof's signatures taken from block 49's proof: refused by the check.
    let mut swapped = mc_entries.clone();
    let p50 = swapped
        .iter()
        .position(|(n, _)| n.starts_with("proof_(-1,8000000000000000,50)"))
        .unwrap();
    let p49 = swapped
        .iter()
        .position(|(n, _)| n.starts_with("proof_(-1,8000000000000000,49)"))
        .unwrap();
    swapped[p50].1 = swapped[p49].1.clone();
    let bad = write("archive.00000.pack", &package(&swapped));
    let db = dir.path().join("swapped");
    let o = import(&db, &[zero[0].clone(), zero[1].clone(), bad], &[]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("proof_(-1,8000000000000000,50)"), "{out}");
    assert!(out.contains("signatures of masterchain block 50"), "{out}");
    assert_eq!(blocks_in(&db), 0);

    // A shard block replaced by another under its id (its global id
    // changed, the entry renamed to its new hashes, so the entry itself
    // checks out): not the block the chain commits, refused.
    let shard_entries = forged_shard_entries();
    let forged = write(
        "archive.00000.0_8000000000000000.pack",
        &package(&shard_entries),
    );
    let db = dir.path().join("forged-shard");
    let o = import(
        &db,
        &[zero[0].clone(), zero[1].clone(), genesis(MC_PACK), forged],
        &[],
    );
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("shard block (0,8000000000000000,5) is not the one masterchain block"),
        "{out}"
    );
    assert!(blocks_in(&db) < 10, "{out}");
    let _ = std::fs::remove_file(dir.path().join("archive.00000.0_8000000000000000.pack"));

    // Without a zero state nothing says who the validators are.
    let db = dir.path().join("no-zero-state");
    let o = import(&db, &[genesis(MC_PACK)], &[]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("no validator set is known"),
        "{}",
        text(&o)
    );
    assert_eq!(blocks_in(&db), 0);
    // --trust-files imports them unchecked, and says so.
    let o = import(&db, &[genesis(MC_PACK)], &["--trust-files"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("99 taken unchecked"), "{}", text(&o));

    // Cut inside entry 101 (block 51's): blocks 1-50 imported, the cut named.
    let whole = std::fs::read(genesis(MC_PACK)).unwrap();
    let upto: usize = 4 + mc_entries[..101]
        .iter()
        .map(|(n, d)| 8 + n.len() + d.len())
        .sum::<usize>();
    let cut = write("archive.00000.pack", &whole[..upto + 100]);
    let db = dir.path().join("cut");
    let o = import(&db, &[zero[0].clone(), zero[1].clone(), cut], &[]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("cut inside entry 101"), "{out}");
    assert_eq!(blocks_in(&db), 50, "{out}");
    // The whole package later: everything.
    let o = import(&db, &[genesis("")], &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(blocks_in(&db), 299);

    // Another network's zero state (mainnet's with another global id):
    // block 1 does not follow it, so the packages are refused.
    let foreign = foreign_zero_state(&zero[0]);
    let foreign = write("foreign-zerostate.boc", &foreign);
    let db = dir.path().join("foreign");
    let o = import(&db, &[foreign, genesis(MC_PACK)], &[]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("masterchain block 1 does not follow"), "{out}");
    assert_eq!(blocks_in(&db), 0);

    // Not a package, a bad entry header, a name that does not parse.
    let mut bad_header = package(&mc_entries[..4]);
    bad_header[4] ^= 0xff;
    let mut bad_name = mc_entries[..4].to_vec();
    bad_name[2].0 = "block_(-1,8000000000000000)".into();
    for (bytes, why) in [
        (b"not a package at all".to_vec(), "not an archive package"),
        (bad_header, "bad entry header"),
        (package(&bad_name), "does not parse"),
    ] {
        let p = write("archive.00001.pack", &bytes);
        let db = dir.path().join("bad");
        let o = import(&db, &[p], &[]);
        let out = text(&o);
        assert!(!o.status.success(), "{out}");
        assert!(
            out.contains("archive.00001.pack") && out.contains(why),
            "{out}"
        );
        assert!(!out.contains("panicked"), "{out}");
        assert_eq!(blocks_in(&db), 0);
    }
}

/// The genesis shard package with block (0,8000000000000000,5) replaced by
/// another under its id: its global id changed and the entry renamed to
/// its new hashes, so the entry itself checks out.
fn forged_shard_entries() -> Vec<(String, Vec<u8>)> {
    use tycho_types::boc::Boc;
    use tycho_types::cell::CellBuilder;
    use tycho_types::models::Block;
    let mut shard_entries = entries(&genesis(SHARD_PACK));
    let k = shard_entries
        .iter()
        .position(|(n, _)| n.starts_with("block_(0,8000000000000000,5)"))
        .unwrap();
    let mut block: Block = Boc::decode(&shard_entries[k].1).unwrap().parse().unwrap();
    block.global_id = -3;
    let root = CellBuilder::build_from(&block).unwrap();
    let data = Boc::encode(&root);
    let name = format!(
        "block_(0,8000000000000000,5):{}:{}",
        hex::encode_upper(root.repr_hash().0),
        hex::encode_upper(tonindex::decode::file_hash(&data))
    );
    shard_entries[k] = (name, data);
    shard_entries
}

/// The masterchain zero state at `zero` with another global id: another
/// network's.
fn foreign_zero_state(zero: &Path) -> Vec<u8> {
    use tycho_types::boc::Boc;
    use tycho_types::cell::CellBuilder;
    use tycho_types::models::ShardStateUnsplit;
    let root = Boc::decode(std::fs::read(zero).unwrap()).unwrap();
    let mut state: ShardStateUnsplit = root.parse().unwrap();
    state.global_id = -3;
    Boc::encode(CellBuilder::build_from(&state).unwrap())
}

#[test]
fn kill_9_during_a_package_import_then_rerun_equals_a_clean_one() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    assert!(import(&clean, &[genesis("")], &[]).status.success());
    let want = stats(&clean);
    let db = dir.path().join("killed");
    for after in [3, 17, 41] {
        let packages = genesis("");
        let args = ["--db", db.to_str().unwrap(), packages.to_str().unwrap()];
        super::import_killed_after(15, &args, after);
    }
    let o = import(&db, &[genesis("")], &[]);
    assert!(o.status.success(), "{}", text(&o));
    let got = stats(&db);
    assert_eq!(got["tables"], want["tables"]);
    assert_eq!(got["cursor"], want["cursor"]);
}

/// Packages written by the devnet (`bench-dev --export-packages`, a key
/// block every third masterchain block, each block's proof signed by its
/// validator): checked through every key block, equal to the loose files
/// of the same chain; a key block left out stops the check.
#[test]
fn devnet_packages_are_checked_through_its_key_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let (loose, packs) = (dir.path().join("loose"), dir.path().join("packs"));
    let o = tonindex(&[
        "bench-dev",
        "--wallets",
        "4",
        "--blocks",
        "12",
        "--key-block-every",
        "3",
        "--export-blocks",
        loose.to_str().unwrap(),
        "--export-packages",
        packs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let from_packages = dir.path().join("from-packages");
    let o = import(&from_packages, std::slice::from_ref(&packs), &[]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("14 masterchain block(s) checked"), "{out}");
    assert!(out.contains("28 block(s) applied"), "{out}");
    let from_files = dir.path().join("from-files");
    assert!(import(&from_files, &[loose], &[]).status.success());
    assert_eq!(
        stats(&from_packages)["tables"],
        stats(&from_files)["tables"]
    );

    // Key block 6 (and its proof) left out (the devnet's key blocks are 1,
    // 3, 6, 9, 12): block 7 follows a key block nothing holds, so its
    // validators are unknown.
    let mc = packs.join(MC_PACK);
    let kept: Vec<_> = entries(&mc)
        .into_iter()
        .filter(|(n, _)| !n.contains("(-1,8000000000000000,6)"))
        .collect();
    std::fs::write(&mc, package(&kept)).unwrap();
    let db = dir.path().join("gap");
    let o = import(&db, &[packs], &[]);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("masterchain block 7 follows key block 6"),
        "{out}"
    );
    assert_eq!(blocks_in(&db), 0);
}
