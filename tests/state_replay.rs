//! Exact state replay on real mainnet data: a full shard state imported,
//! the following blocks applied through their Merkle updates, and the
//! result compared with the real later state, account by account.

mod common;

use std::collections::BTreeMap;

use tonindex::chain::files::{collect_paths, read_boc_file};
use tonindex::decode::state::{decode_state_file, StateFile};
use tonindex::ingest::{import_files, IngestOptions};
use tonindex_model::Address;
use tonindex_storage::tables::{workchain_prefix, AccountStates, ShardKey, ShardStates};
use tonindex_storage::{Db, DbOptions};
use tycho_types::boc::Boc;

fn opts() -> IngestOptions {
    IngestOptions {
        chunk_size: 8,
        unit_delay: None,
        decode_pool: None,
    }
}

fn state(
    rel: &str,
) -> (
    tycho_types::cell::Cell,
    tonindex::decode::state::DecodedState,
) {
    let boc = read_boc_file(&common::fixture(rel)).unwrap();
    let root = Boc::decode(&boc).unwrap();
    match decode_state_file(&root).unwrap() {
        StateFile::State(s) => (root, s),
        StateFile::Account(_) => panic!("{rel} is a shard state"),
    }
}

/// Every account of `expected` is stored with the same ShardAccount, and
/// the shard holds no other account.
fn assert_accounts_equal(db: &Db, expected: &tonindex::decode::state::DecodedState) {
    let want: BTreeMap<Address, [u8; 32]> = expected
        .accounts
        .iter()
        .map(|(a, c)| (*a, *c.repr_hash().as_array()))
        .collect();
    let reader = db.reader();
    let mut got = BTreeMap::new();
    for row in reader.prefix::<AccountStates>(&workchain_prefix(expected.workchain), false) {
        let (addr, rec) = row.unwrap();
        let cell = Boc::decode(&rec.shard_account).unwrap();
        got.insert(addr, *cell.repr_hash().as_array());
    }
    assert_eq!(got.len(), want.len(), "account count");
    let differing = want.iter().filter(|(a, h)| got.get(*a) != Some(*h)).count();
    assert_eq!(differing, 0, "accounts whose stored state differs");
}

#[test]
fn shard_and_masterchain_states_replay_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let mut paths = vec![
        common::fixture("accounts/ever-block-mainnet-2019/state_571524.boc"),
        common::fixture("accounts/ever-block-mainnet-2019/state_2659.boc"),
    ];
    paths.extend(
        collect_paths(&[
            common::fixture("blocks/ever-block-mainnet-2019/mc"),
            common::fixture("blocks/ever-block-mainnet-2019/shard"),
        ])
        .unwrap(),
    );
    let s = import_files(&db, &paths, &opts(), |_, _| {}).unwrap();
    assert_eq!(s.states, 2);
    assert_eq!(
        s.applied.state_updates, 62,
        "every block advanced its shard state"
    );

    for (before, after, workchain, shard) in [
        ("state_571524", "state_571555", 0, 0x2000_0000_0000_0000u64),
        ("state_2659", "state_2690", -1, 0x8000_0000_0000_0000),
    ] {
        let (start_root, _) = state(&format!("accounts/ever-block-mainnet-2019/{before}.boc"));
        let (root, expected) = state(&format!("accounts/ever-block-mainnet-2019/{after}.boc"));
        assert_ne!(start_root.repr_hash(), root.repr_hash());
        let held = db
            .get::<ShardStates>(&ShardKey { workchain, shard })
            .unwrap()
            .unwrap();
        assert_eq!(held.seqno, expected.seqno);
        assert_eq!(
            &held.root_hash,
            root.repr_hash().as_array(),
            "{after} root hash"
        );
        assert_accounts_equal(&db, &expected);
    }

    // Re-importing the blocks changes nothing: the states are past them.
    let again = import_files(&db, &paths[2..], &opts(), |_, _| {}).unwrap();
    assert_eq!(again.applied.state_updates, 0);
    assert_eq!(again.applied.blocks, 0);
}

#[test]
fn a_block_that_does_not_follow_the_held_state_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let mut paths = vec![common::fixture(
        "accounts/ever-block-mainnet-2019/state_571524.boc",
    )];
    // 571527 without 571525–571526: a gap.
    paths.push(common::fixture(
        "blocks/ever-block-mainnet-2019/shard/571527.boc",
    ));
    let s = import_files(&db, &paths, &opts(), |_, _| {}).unwrap();
    assert_eq!(s.applied.blocks, 1);
    assert_eq!(s.applied.state_updates, 0);
    let held = db
        .get::<ShardStates>(&ShardKey {
            workchain: 0,
            shard: 0x2000_0000_0000_0000,
        })
        .unwrap()
        .unwrap();
    assert_eq!(held.seqno, 571524);
}

#[test]
fn single_account_states_import() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let path = common::fixture("accounts/ton-core/accountState.txt");
    let s = import_files(&db, &[path], &opts(), |_, _| {}).unwrap();
    assert_eq!(s.states, 1);
    let elector = Address {
        workchain: -1,
        id: [0x33; 32],
    };
    let rec = db.get::<AccountStates>(&elector).unwrap().unwrap();
    assert_eq!(rec.state, None);
    let cell = Boc::decode(&rec.shard_account).unwrap();
    // ShardAccount → ^Account: the imported Account's hash (PROVENANCE.md).
    assert_eq!(
        hex::encode(cell.reference(0).unwrap().repr_hash().as_array()),
        "38ca07263352adebf3b8de4a36b6b3898e1de5953991f7356b0160bb0fb15ef7"
    );
}
