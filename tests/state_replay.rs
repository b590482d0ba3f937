//! Exact state replay on real mainnet data: a full shard state imported,
//! the following blocks applied through their Merkle updates, and the
//! result compared with the real later state, account by account.

mod common;

use std::collections::{BTreeMap, HashMap};

use tonindex::chain::files::{collect_paths, read_boc_file};
use tonindex::decode::state::{decode_state_file, StateFile};
use tonindex::ingest::{import_files, IngestOptions};
use tonindex::state::cells::CellError;
use tonindex::state::history;
use tonindex_model::Address;
use tonindex_storage::tables::{
    workchain_prefix, AccountStates, BlockTxKey, Blocks, ShardKey, ShardStates, Transactions,
    TxByBlock,
};
use tonindex_storage::{Db, DbOptions};
use tycho_types::boc::Boc;
use tycho_types::cell::{CellBuilder, HashBytes};
use tycho_types::models::ShardAccount;

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

    assert_states_after_every_block(&db);

    // Re-importing the blocks changes nothing: the states are past them.
    let again = import_files(&db, &paths[2..], &opts(), |_, _| {}).unwrap();
    assert_eq!(again.applied.state_updates, 0);
    assert_eq!(again.applied.blocks, 0);
}

/// Earlier states stay readable from the cell store: after every replayed
/// block, each account of the starting state has the `Account` cell its
/// newest transaction up to that block left (the block's own
/// `account_state_hash_after`), or the starting one when none touched it;
/// an id no state holds is absent.
fn assert_states_after_every_block(db: &Db) {
    let reader = db.reader();
    let mut b = CellBuilder::new();
    b.store_bit_zero().unwrap();
    let account_none = b.build().unwrap();
    for (start, workchain, shard) in [
        ("state_571524", 0, 0x2000_0000_0000_0000u64),
        ("state_2659", -1, 0x8000_0000_0000_0000),
    ] {
        let (_, start) = state(&format!("accounts/ever-block-mainnet-2019/{start}.boc"));
        let mut expected: HashMap<Address, [u8; 32]> = start
            .accounts
            .iter()
            .map(|(a, c)| {
                let sa: ShardAccount = c.parse().unwrap();
                (*a, *sa.account.inner().repr_hash().as_array())
            })
            .collect();
        let mut blocks: Vec<_> = reader
            .prefix::<Blocks>(&[], false)
            .map(|r| r.unwrap().1)
            .filter(|b| b.id.id.workchain == workchain && b.id.id.shard == shard)
            .filter(|b| b.id.id.seqno > start.seqno)
            .collect();
        blocks.sort_by_key(|b| b.id.id.seqno);
        assert_eq!(blocks.len(), 31);
        for b in &blocks {
            let ids: Vec<u64> = reader
                .prefix::<TxByBlock>(&BlockTxKey::prefix(&b.id.id), false)
                .map(|r| r.unwrap().0.tx_id)
                .collect();
            let mut txs: Vec<_> = reader
                .multi_get::<Transactions>(&ids)
                .unwrap()
                .into_iter()
                .map(Option::unwrap)
                .collect();
            txs.sort_by_key(|t| t.lt);
            for t in txs {
                expected.insert(t.account, t.account_state_hash_after);
            }
            let root = HashBytes(b.state_root_hash);
            for (address, want) in &expected {
                // An account a transaction left nonexistent is `account_none$0`.
                let got = match history::shard_account_at(&reader, &root, &address.id).unwrap() {
                    Some(sa) => *sa.account.inner().repr_hash(),
                    None => *account_none.repr_hash(),
                };
                assert_eq!(got.as_array(), want, "{address:?} after {:?}", b.id.id);
            }
            let absent = history::shard_account_at(&reader, &root, &[0x17; 32]).unwrap();
            assert!(absent.is_none());
        }
    }
    // A state the index never held.
    let err = history::shard_account_at(&reader, &HashBytes([9; 32]), &[0; 32]).unwrap_err();
    assert!(matches!(err, CellError::Missing(h) if h == HashBytes([9; 32])));
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
