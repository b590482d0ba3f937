//! Exact state replay on real mainnet data: a full shard state imported,
//! the following blocks applied through their Merkle updates, and the
//! result compared with the real later state, account by account.

use crate::common;

use std::collections::{BTreeMap, HashMap};

use tonindex::chain::files::{collect_paths, read_boc_file};
use tonindex::decode::state::{decode_state_file, StateFile};
use tonindex::decode::StateUpdate;
use tonindex::ingest::{import_files, IngestOptions};
use tonindex::state::cells::CellError;
use tonindex::state::history;
use tonindex_model::Address;
use tonindex_storage::tables::{
    workchain_prefix, AccountStates, BlockTxKey, Blocks, ShardKey, ShardStates, TxByBlock,
};
use tonindex_storage::{Db, DbOptions};
use tycho_types::boc::Boc;
use tycho_types::cell::{CellBuilder, HashBytes};
use tycho_types::models::ShardAccount;

fn opts() -> IngestOptions {
    IngestOptions {
        chunk_size: 8,
        chunk_bytes: tonindex::ingest::CHUNK_BYTES,
        unit_delay: None,
        decode_pool: None,
        traces: true,
        trust_files: false,
        group_bytes: tonindex::ingest::GROUP_BYTES,
        keep_states: tonindex::index::retention::KeepStates::DEFAULT,
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
            let mut txs = tonindex::query::transactions::tx_records(&reader, &ids).unwrap();
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

/// A block decoded without its state update (an import that held no state
/// yet) and applied once its shard's state is held leaves the state where
/// it is; importing the block again, now that a state is held, keeps the
/// update and advances the state.
#[test]
fn a_block_decoded_without_its_update_advances_the_state_when_imported_again() {
    use tonindex::decode::{decode_chain_boc, file_hash, ChainItem};
    use tonindex::index::{state::StateStep, Indexer, Unit};

    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let shard = ShardKey {
        workchain: 0,
        shard: 0x2000_0000_0000_0000,
    };
    let held_seqno = || db.get::<ShardStates>(&shard).unwrap().unwrap().seqno;
    let block_path = common::fixture("blocks/ever-block-mainnet-2019/shard/571525.boc");
    let boc = read_boc_file(&block_path).unwrap();
    let ChainItem::Block(skipped) = decode_chain_boc(&boc, file_hash(&boc), false).unwrap() else {
        panic!("571525 is a block");
    };
    assert!(matches!(skipped.state_update, StateUpdate::Skipped));
    let ChainItem::Block(kept) = decode_chain_boc(&boc, file_hash(&boc), true).unwrap() else {
        panic!("571525 is a block");
    };
    assert!(matches!(kept.state_update, StateUpdate::Kept(_)));

    let state = common::fixture("accounts/ever-block-mainnet-2019/state_571524.boc");
    assert_eq!(
        import_files(&db, &[state], &opts(), |_, _| {})
            .unwrap()
            .states,
        1
    );
    let mut work = tonindex::index::state::StateWork::new(&db);
    let mut batch = db.batch();
    assert_eq!(
        work.apply_block(&mut batch, &skipped, 0).unwrap(),
        StateStep::UpdateSkipped
    );
    drop(batch);
    let a = Indexer::new(&db)
        .apply(&Unit {
            blocks: vec![*skipped],
        })
        .unwrap();
    assert_eq!((a.blocks, a.state_updates), (1, 0));
    assert_eq!(held_seqno(), 571524);

    let s = import_files(&db, &[block_path], &opts(), |_, _| {}).unwrap();
    assert_eq!((s.applied.blocks, s.applied.state_updates), (0, 1));
    assert_eq!(held_seqno(), 571525);
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

/// A state tracked across a shard split and a merge, on synthetic blocks
/// (the fixtures hold no real pair): the real state_571524 tree stands for
/// the held states, and each block's Merkle update names its unchanged
/// subtrees by hash, as a real one does.
///
/// Split: a child block's update starts from its half of the parent's
/// state, which the index does not build; it applies when every subtree it
/// names is a held cell, and the child's state is then exact (its root
/// hashes to the update's new hash). Merge: the update must start from
/// `split_state` of the two halves' held states (checked by hash).
#[test]
fn states_follow_shard_splits_and_merges() {
    use tonindex::index::{Indexer, Unit};
    use tonindex_model::{BlockIdExt, BlockRef};

    let (state_root, decoded) = state("accounts/ever-block-mainnet-2019/state_571524.boc");
    let parent_shard = 0x2000_0000_0000_0000u64;
    assert_eq!((decoded.shard, decoded.seqno), (parent_shard, 571524));
    let (left, right) = (0x1000_0000_0000_0000u64, 0x3000_0000_0000_0000u64);
    // A tree with the state root's children under a root with other data.
    let variant = |tag: u8| {
        let mut b = CellBuilder::new();
        b.store_u8(tag).unwrap();
        for child in state_root.references().cloned() {
            b.store_reference(child).unwrap();
        }
        b.build().unwrap()
    };
    let template = tonindex::ingest::decode_block_file(&common::fixture(
        "blocks/ever-block-mainnet-2019/shard/571525.boc",
    ))
    .unwrap();
    let block_ref = |shard: u64, seqno: u32| BlockRef {
        block: BlockIdExt {
            id: tonindex_model::BlockId {
                workchain: 0,
                shard,
                seqno,
            },
            root_hash: [seqno as u8; 32],
            file_hash: [shard as u8; 32],
        },
        end_lt: 1,
    };
    let block = |shard, seqno, prev, split, old: &_, new: &_| {
        synthetic_block(
            &template,
            (shard, seqno),
            prev,
            split,
            pruned_update(old, new),
        )
    };
    let held = |db: &Db, shard| {
        db.get::<ShardStates>(&ShardKey {
            workchain: 0,
            shard,
        })
        .unwrap()
    };

    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
    let indexer = Indexer::new(&db);
    indexer
        .apply_state_file(&StateFile::State(decoded.clone()))
        .unwrap();

    // Split: both halves start from the parent's state.
    let (half_l, new_l) = (variant(1), variant(2));
    let (half_r, new_r) = (variant(3), variant(4));
    for (shard, half, new) in [(left, &half_l, &new_l), (right, &half_r, &new_r)] {
        let b = block(
            shard,
            571525,
            vec![block_ref(parent_shard, 571524)],
            true,
            half,
            new,
        );
        let a = indexer.apply(&Unit { blocks: vec![b] }).unwrap();
        assert_eq!(a.state_updates, 1, "{shard:x}");
        let h = held(&db, shard).unwrap();
        assert_eq!(
            (h.seqno, &h.root_hash),
            (571525, new.repr_hash().as_array())
        );
    }
    // An update naming a subtree the index never held leaves the half untracked.
    let mut b = CellBuilder::new();
    b.store_u32(0xdead_beef).unwrap();
    let foreign = b.build().unwrap();
    let with_foreign = |tag: u8| {
        let mut b = CellBuilder::new();
        b.store_u8(tag).unwrap();
        b.store_reference(foreign.clone()).unwrap();
        b.build().unwrap()
    };
    let other = 0x0800_0000_0000_0000u64;
    let b = block(
        other,
        571526,
        vec![block_ref(left, 571525)],
        true,
        &with_foreign(5),
        &with_foreign(6),
    );
    let a = indexer.apply(&Unit { blocks: vec![b] }).unwrap();
    assert_eq!(a.state_updates, 0);
    assert!(held(&db, other).is_none());

    // Merge: the two halves at 571525 join into the parent shard at 571526.
    let prev = vec![block_ref(left, 571525), block_ref(right, 571525)];
    let mut joined = CellBuilder::new();
    joined.store_u32(0x5f32_7da5).unwrap();
    joined.store_reference(new_l.clone()).unwrap();
    joined.store_reference(new_r.clone()).unwrap();
    let joined = joined.build().unwrap();
    let merged = variant(7);
    // An update from anything but the joined halves does not apply.
    let wrong = block(
        parent_shard,
        571526,
        prev.clone(),
        false,
        &variant(8),
        &merged,
    );
    let a = indexer
        .apply(&Unit {
            blocks: vec![wrong],
        })
        .unwrap();
    assert_eq!(a.state_updates, 0);
    assert_eq!(held(&db, parent_shard).unwrap().seqno, 571524);
    let b = block(parent_shard, 571526, prev, false, &joined, &merged);
    let a = indexer.apply(&Unit { blocks: vec![b] }).unwrap();
    assert_eq!(a.state_updates, 1);
    let h = held(&db, parent_shard).unwrap();
    assert_eq!(
        (h.seqno, &h.root_hash),
        (571526, merged.repr_hash().as_array())
    );
    assert!(held(&db, left).is_none() && held(&db, right).is_none());
}

/// An update from `old` to `new` that names every child of either root
/// by hash (pruned branches), as a real block's update names the subtrees
/// it did not change: applying it needs those cells held.
fn pruned_update(
    old: &tycho_types::cell::Cell,
    new: &tycho_types::cell::Cell,
) -> tycho_types::merkle::MerkleUpdate {
    use tycho_types::cell::CellFamily;
    use tycho_types::merkle::{make_pruned_branch, MerkleUpdate};
    let pruned = |root: &tycho_types::cell::Cell| {
        let mut b = CellBuilder::new();
        b.store_cell_data(root.as_ref()).unwrap();
        for child in root.references() {
            let p = make_pruned_branch(child, 0, tycho_types::cell::Cell::empty_context()).unwrap();
            b.store_reference(p).unwrap();
        }
        b.build().unwrap()
    };
    let u = MerkleUpdate {
        old_hash: *old.repr_hash(),
        new_hash: *new.repr_hash(),
        old_depth: old.repr_depth(),
        new_depth: new.repr_depth(),
        old: pruned(old),
        new: pruned(new),
    };
    assert!(
        u.apply_trusted(|_: &HashBytes| None).is_err(),
        "the update must name held cells by hash"
    );
    u
}

/// `template` as basechain block `shard`:`seqno` after `prev` (split from
/// it, or merged from two), without transactions, its state moved by
/// `update`.
fn synthetic_block(
    template: &tonindex::decode::DecodedBlock,
    (shard, seqno): (u64, u32),
    prev: Vec<tonindex_model::BlockRef>,
    split: bool,
    update: tycho_types::merkle::MerkleUpdate,
) -> tonindex::decode::DecodedBlock {
    let mut b = template.clone();
    b.record.id = tonindex_model::BlockIdExt {
        id: tonindex_model::BlockId {
            workchain: 0,
            shard,
            seqno,
        },
        root_hash: [(seqno % 251) as u8 + 1; 32],
        file_hash: [shard.leading_zeros() as u8; 32],
    };
    b.record.after_split = split;
    b.record.after_merge = !split && prev.len() == 2;
    b.record.prev_blocks = prev;
    b.transactions.clear();
    b.in_msg_descr.clear();
    b.out_msg_descr.clear();
    b.state_update = StateUpdate::Kept(update);
    b
}
