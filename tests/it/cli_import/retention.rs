//! State retention (`[index] keep_states`): the cell store keeps the
//! states of the newest masterchain blocks and collects the rest, checked
//! against a brute-force walk of every kept state and against an archive
//! import of the same chain.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use tonindex::query::blocks::{block, mc_block, shard_state};
use tonindex::state::cells::{child_hashes, CellError};
use tonindex::state::history;
use tonindex_model::Address;
use tonindex_storage::tables::{AccountStates, Cells, ShardStates, StateReleases};
use tonindex_storage::{Db, DbOptions, Reader};
use tycho_types::cell::HashBytes;

use super::text;

fn import_keeping(db: &Path, blocks: &Path, keep_states: &str) {
    let o = Command::new(super::common::tonindex_bin())
        .args([
            "import",
            "--db",
            db.to_str().unwrap(),
            blocks.to_str().unwrap(),
        ])
        .env_remove("TONINDEX_DB")
        .env("TONINDEX_INDEX__KEEP_STATES", keep_states)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// Every stored cell is reachable from a kept state (the roots that the
/// shard-state and release rows name), every reachable cell is stored, and
/// each stored count is the number of stored cells referring to it plus
/// one if it is a kept state's root — counted by walking the trees, not by
/// the code that keeps the counts. Returns the number of cells.
fn assert_counts_are_exact(r: &Reader<'_>) -> usize {
    let mut roots = HashSet::new();
    for row in r.prefix::<ShardStates>(&[], false) {
        roots.insert(HashBytes(row.unwrap().1.root_hash));
    }
    for row in r.prefix::<StateReleases>(&[], false) {
        roots.insert(HashBytes(row.unwrap().0.root));
    }
    let stored: HashMap<HashBytes, (u32, Vec<u8>)> = r
        .prefix::<Cells>(&[], false)
        .map(|row| {
            let (hash, counted) = row.unwrap();
            (HashBytes(hash), (counted.count, counted.bytes))
        })
        .collect();
    let mut want: HashMap<HashBytes, u32> = roots.iter().map(|h| (*h, 1)).collect();
    let mut seen = HashSet::new();
    let mut stack: Vec<HashBytes> = roots.iter().copied().collect();
    while let Some(hash) = stack.pop() {
        if !seen.insert(hash) {
            continue;
        }
        let (_, row) = stored
            .get(&hash)
            .unwrap_or_else(|| panic!("cell {hash} of a kept state is not stored"));
        for child in child_hashes(&hash, row).unwrap() {
            *want.entry(child).or_default() += 1;
            stack.push(child);
        }
    }
    let unreachable: Vec<_> = stored.keys().filter(|h| !seen.contains(*h)).collect();
    assert!(
        unreachable.is_empty(),
        "{} stored cells no kept state reaches, e.g. {}",
        unreachable.len(),
        unreachable[0]
    );
    let wrong: Vec<_> = stored
        .iter()
        .filter(|(h, (count, _))| want.get(*h) != Some(count))
        .map(|(h, (count, _))| (*h, *count, want.get(h).copied()))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} cells with a wrong count, e.g. {:?}",
        wrong.len(),
        wrong[0]
    );
    stored.len()
}

/// The state roots after masterchain block `seqno`: its own and its shards'.
fn roots_after(r: &Reader<'_>, seqno: u32) -> Vec<HashBytes> {
    let mc = mc_block(r, seqno).unwrap().unwrap();
    let mut roots = vec![HashBytes(mc.state_root_hash)];
    for top in shard_state(r, seqno).unwrap() {
        let b = block(r, &top.block.id).unwrap().unwrap();
        roots.push(HashBytes(b.state_root_hash));
    }
    roots
}

/// An account's state in the state `root`, as its `ShardAccount` cell hash
/// (`None`: no such account; `Err`: the state is not held).
fn account_in(r: &Reader<'_>, root: &HashBytes, a: &Address) -> Result<Option<String>, CellError> {
    history::shard_account_at(r, root, &a.id).map(|sa| {
        sa.map(|sa| {
            let cell = tycho_types::cell::CellBuilder::build_from(&sa).unwrap();
            cell.repr_hash().to_string()
        })
    })
}

/// One v2 `getAddressInformation` through the API over `db`: status and JSON.
fn address_information(db: Db, address: &Address, seqno: u32) -> (u16, serde_json::Value) {
    use tower::ServiceExt;
    let app = tonindex::api::router(tonindex::api::Api::new(
        std::sync::Arc::new(db),
        tonindex::api::ApiConfig::default(),
    ));
    let uri = format!(
        "/api/v2/getAddressInformation?address={}:{}&seqno={seqno}",
        address.workchain,
        hex::encode(address.id)
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let req = axum::http::Request::get(uri)
            .body(axum::body::Body::empty())
            .unwrap();
        let resp = app.oneshot(req).await.unwrap();
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    })
}

/// A chain of 2 shards that split and merge, imported keeping every state
/// and keeping 3 masterchain blocks': the kept states answer as the
/// archive's do for every account, older ones are gone, every count is
/// exact, and importing the chain again changes nothing.
#[test]
fn kept_states_answer_as_an_archive_and_released_cells_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = dir.path().join("blocks");
    let o = super::tonindex(&[
        "bench-dev",
        "--wallets",
        "24",
        "--blocks",
        "24",
        "--shards",
        "2",
        "--split-merge-every",
        "4",
        "--export-blocks",
        blocks.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let (all, kept) = (dir.path().join("all"), dir.path().join("kept"));
    import_keeping(&all, &blocks, "all");
    import_keeping(&kept, &blocks, "3");
    // Again: nothing new, nothing counted twice.
    import_keeping(&kept, &blocks, "3");

    let all = Db::open(&all, &DbOptions::default()).unwrap();
    let kept = Db::open(&kept, &DbOptions::default()).unwrap();
    let (ra, rk) = (all.reader(), kept.reader());
    let cells_all = assert_counts_are_exact(&ra);
    let cells_kept = assert_counts_are_exact(&rk);
    assert!(
        cells_kept * 3 < cells_all,
        "kept {cells_kept} cells, the archive {cells_all}"
    );

    let newest = rk.cursor().unwrap().last_mc_seqno.unwrap();
    assert!(newest >= 24, "{newest}");
    let accounts: Vec<Address> = ra
        .prefix::<AccountStates>(&[], false)
        .map(|row| row.unwrap().0)
        .collect();
    assert!(accounts.len() >= 24);
    for seqno in 1..=newest {
        let roots = roots_after(&ra, seqno);
        assert_eq!(roots, roots_after(&rk, seqno), "block {seqno}");
        if seqno + 3 > newest {
            for root in &roots {
                for a in &accounts {
                    assert_eq!(
                        account_in(&rk, root, a).unwrap(),
                        account_in(&ra, root, a).unwrap(),
                        "{a:?} in {root} after block {seqno}"
                    );
                }
            }
        } else {
            // The masterchain's own state of an older block is released
            // (a shard's may still be kept: it stays the state of its
            // shard until a block of that shard replaces it).
            assert!(
                matches!(account_in(&rk, &roots[0], &accounts[0]), Err(CellError::Missing(h)) if h == roots[0]),
                "block {seqno}'s state is still held"
            );
            assert!(account_in(&ra, &roots[0], &accounts[0]).is_ok());
        }
    }

    // Through v2: a kept block answers as the archive does; an older one
    // says the state is no longer held (a node without a lite server).
    let wallet = accounts.iter().find(|a| a.workchain == 0).copied().unwrap();
    let (kept_dir, all_dir) = (kept.path().to_path_buf(), all.path().to_path_buf());
    drop((ra, rk));
    drop((all, kept));
    let open = |dir: &Path| Db::open(dir, &DbOptions::default()).unwrap();
    let (status, kept_answer) = address_information(open(&kept_dir), &wallet, newest - 1);
    assert_eq!(status, 200, "{kept_answer}");
    let (_, all_answer) = address_information(open(&all_dir), &wallet, newest - 1);
    assert_eq!(kept_answer["result"], all_answer["result"]);
    assert!(kept_answer["result"]["balance"].as_str().unwrap() != "0");
    let (status, old) = address_information(open(&kept_dir), &wallet, newest - 10);
    assert_eq!(status, 501, "{old}");
    assert_eq!(old["ok"], false);
    assert!(
        old["error"].as_str().unwrap().contains("keep_states"),
        "{old}"
    );
    let (status, _) = address_information(open(&all_dir), &wallet, newest - 10);
    assert_eq!(status, 200);
}
