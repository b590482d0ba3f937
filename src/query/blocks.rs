//! Blocks: by id and hash, the indexed masterchain range, the shard blocks
//! a masterchain block commits, a shard's blocks in order, and the
//! transactions of one block.

use tonindex_model::{BlockId, BlockRecord, Hash, ShardDescrRecord};
use tonindex_storage::tables::{
    self, BlockByHash, BlockByUtime, BlockTxKey, Blocks, McBlockKey, McBlocks, McShardState,
    TimeBlockKey, TxByBlock,
};
use tonindex_storage::{Error, Key, Reader};

/// The masterchain's only shard.
pub const MASTER_SHARD: u64 = 0x8000_0000_0000_0000;

/// The lowest and highest indexed masterchain blocks.
pub fn mc_block_range(r: &Reader<'_>) -> Result<Option<(BlockRecord, BlockRecord)>, Error> {
    let prefix = tables::shard_blocks_prefix(-1, MASTER_SHARD);
    let first = r.prefix::<Blocks>(&prefix, false).next().transpose()?;
    let last = r.prefix::<Blocks>(&prefix, true).next().transpose()?;
    Ok(first.zip(last).map(|((_, f), (_, l))| (f, l)))
}

pub fn block(r: &Reader<'_>, id: &BlockId) -> Result<Option<BlockRecord>, Error> {
    r.get::<Blocks>(id)
}

/// A block by its root or file hash.
pub fn block_by_hash(r: &Reader<'_>, hash: &Hash) -> Result<Option<BlockRecord>, Error> {
    match r.get::<BlockByHash>(hash)? {
        Some(id) => block(r, &id),
        None => Ok(None),
    }
}

/// The masterchain block `seqno`.
pub fn mc_block(r: &Reader<'_>, seqno: u32) -> Result<Option<BlockRecord>, Error> {
    block(
        r,
        &BlockId {
            workchain: -1,
            shard: MASTER_SHARD,
            seqno,
        },
    )
}

/// The top shard blocks fixed by masterchain block `seqno` (empty when unknown).
pub fn shard_state(r: &Reader<'_>, mc_seqno: u32) -> Result<Vec<ShardDescrRecord>, Error> {
    r.prefix::<McShardState>(&McBlockKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(_, v)| v))
        .collect()
}

/// The indexed blocks among `ids` (in their order; those not indexed are
/// left out).
pub fn blocks(r: &Reader<'_>, ids: &[BlockId]) -> Result<Vec<BlockRecord>, Error> {
    Ok(r.multi_get::<Blocks>(ids)?.into_iter().flatten().collect())
}

/// Every indexed block that masterchain block `mc_seqno` commits (itself
/// included), in key order.
pub fn blocks_of_mc_block(r: &Reader<'_>, mc_seqno: u32) -> Result<Vec<BlockRecord>, Error> {
    let ids: Vec<BlockId> = r
        .prefix::<McBlocks>(&McBlockKey::prefix(mc_seqno), false)
        .map(|x| x.map(|(k, ())| k.block))
        .collect::<Result<_, _>>()?;
    blocks(r, &ids)
}

/// Which blocks [`blocks_iter`] walks.
#[derive(Debug, Clone, Copy)]
pub enum BlockScope {
    /// Every indexed block.
    All,
    /// One workchain's blocks.
    Workchain(i32),
    /// One shard's blocks.
    Shard(i32, u64),
}

/// The blocks of a scope in key order (workchain, shard, seqno).
pub fn blocks_iter<'a>(
    r: &Reader<'a>,
    scope: BlockScope,
) -> impl Iterator<Item = Result<BlockRecord, Error>> + 'a {
    let prefix = match scope {
        BlockScope::All => Vec::new(),
        BlockScope::Workchain(w) => tables::workchain_prefix(w),
        BlockScope::Shard(w, s) => tables::shard_blocks_prefix(w, s),
    };
    r.prefix::<Blocks>(&prefix, false)
        .map(|x| x.map(|(_, b)| b))
}

/// The ids of blocks made at `lo <= gen_utime <= hi` that `keep` (seeing
/// only the id) keeps, by time then id, oldest or newest first. The
/// records are read by the caller, for the ids it uses.
pub fn block_ids_by_utime<'a>(
    r: &Reader<'a>,
    lo: u64,
    hi: u64,
    desc: bool,
    keep: impl Fn(&BlockId) -> bool + 'a,
) -> Box<dyn Iterator<Item = Result<BlockId, Error>> + 'a> {
    let key = |utime: u32| {
        TimeBlockKey {
            utime,
            block: BlockId {
                workchain: i32::MIN,
                shard: 0,
                seqno: 0,
            },
        }
        .encode()
    };
    let Some((lo, past)) = super::u32_time_bounds(lo, hi) else {
        return Box::new(std::iter::empty());
    };
    let upper = past.map(key);
    Box::new(
        r.range::<BlockByUtime>(&key(lo), upper, desc)
            .filter_map(move |x| match x {
                Ok((k, ())) => keep(&k.block).then_some(Ok(k.block)),
                Err(e) => Some(Err(e)),
            }),
    )
}

/// The ids of one block's transactions, in `(account, lt)` order.
pub fn block_tx_ids(r: &Reader<'_>, block: &BlockId) -> Result<Vec<u64>, Error> {
    r.prefix::<TxByBlock>(&BlockTxKey::prefix(block), false)
        .map(|x| x.map(|(k, ())| k.tx_id))
        .collect()
}

/// What a shard's block is looked up by besides its seqno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockAt {
    /// The block whose lt range holds this lt.
    Lt(u64),
    /// The newest block generated at or before this time.
    Utime(u32),
}

/// The block of shard `(workchain, shard)` that `at` names, if indexed.
/// Lts and times grow with the seqno within a shard, so the search is a
/// bisection over seqnos by point lookups; where the indexed range has
/// gaps, or `at` comes before the first one, a walk over the shard's
/// blocks (bounded by the reader's deadline).
pub fn lookup(
    r: &Reader<'_>,
    workchain: i32,
    shard: u64,
    at: BlockAt,
) -> Result<Option<BlockRecord>, Error> {
    let prefix = tables::shard_blocks_prefix(workchain, shard);
    let ends = (
        r.prefix::<Blocks>(&prefix, false).next().transpose()?,
        r.prefix::<Blocks>(&prefix, true).next().transpose()?,
    );
    let (Some((_, first)), Some((_, last))) = ends else {
        return Ok(None);
    };
    // Whether block `b` is at or before `at` (the answer is the last such).
    let before = |b: &BlockRecord| match at {
        BlockAt::Lt(lt) => b.start_lt <= lt,
        BlockAt::Utime(t) => b.gen_utime <= t,
    };
    if !before(&first) {
        // Nothing before `at`, or an index that mixes chains (lts and
        // times not growing with seqnos): the walk decides.
        return walk(r, workchain, shard, at);
    }
    let (mut lo, mut hi) = (first, last.clone());
    if before(&last) {
        lo = last;
    } else {
        // Invariant: before(lo), !before(hi).
        while hi.id.id.seqno - lo.id.id.seqno > 1 {
            let mid = lo.id.id.seqno + (hi.id.id.seqno - lo.id.id.seqno) / 2;
            let id = BlockId {
                workchain,
                shard,
                seqno: mid,
            };
            let Some(b) = block(r, &id)? else {
                return walk(r, workchain, shard, at);
            };
            if before(&b) {
                lo = b;
            } else {
                hi = b;
            }
        }
    }
    Ok(match at {
        BlockAt::Lt(lt) => (lo.start_lt <= lt && lt <= lo.end_lt).then_some(lo),
        BlockAt::Utime(_) => Some(lo),
    })
}

/// [`lookup`] by a walk over the shard's blocks (for ranges with gaps).
fn walk(
    r: &Reader<'_>,
    workchain: i32,
    shard: u64,
    at: BlockAt,
) -> Result<Option<BlockRecord>, Error> {
    let mut best: Option<BlockRecord> = None;
    for b in blocks_iter(r, BlockScope::Shard(workchain, shard)) {
        let b = b?;
        match at {
            BlockAt::Lt(lt) if b.start_lt <= lt && lt <= b.end_lt => return Ok(Some(b)),
            BlockAt::Lt(_) => {}
            BlockAt::Utime(t) => {
                if b.gen_utime <= t && best.as_ref().is_none_or(|x| b.gen_utime >= x.gen_utime) {
                    best = Some(b);
                }
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonindex_storage::{Db, DbOptions};

    /// Real consecutive shard blocks (mainnet 2019) written as the index
    /// writes them, `skip` left out.
    fn db_with(dir: &std::path::Path, skip: &[u32], mixed: bool) -> (Db, Vec<BlockRecord>) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fixtures/blocks/ever-block-mainnet-2019/shard");
        let mut records: Vec<BlockRecord> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| {
                crate::ingest::decode_block_file(&e.unwrap().path())
                    .unwrap()
                    .record
            })
            .filter(|r| !skip.contains(&r.id.id.seqno))
            .collect();
        // A block of the same shard years later (tongo's fixture).
        let later = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fixtures/blocks/tongo/block-8.bin");
        records.push(crate::ingest::decode_block_file(&later).unwrap().record);
        if mixed {
            // An index holding blocks of another chain under the same shard
            // (as the API fixtures do): a low seqno with later lts and time.
            let mut other = records[3].clone();
            other.id.id.seqno = 1000;
            other.gen_utime = records[10].gen_utime + 1_000_000;
            other.start_lt = records[10].end_lt * 2;
            other.end_lt = other.start_lt + 10;
            records.push(other);
        }
        records.sort_by_key(|r| r.id.id.seqno);
        let db = Db::open(dir, &DbOptions::default()).unwrap();
        let mut batch = db.batch();
        for r in &records {
            batch.put::<Blocks>(&r.id.id, r);
        }
        db.write(batch).unwrap();
        (db, records)
    }

    /// What a lookup must find, by its definition over every block.
    fn expected(records: &[BlockRecord], at: BlockAt) -> Option<u32> {
        match at {
            BlockAt::Lt(lt) => records
                .iter()
                .find(|b| b.start_lt <= lt && lt <= b.end_lt)
                .map(|b| b.id.id.seqno),
            BlockAt::Utime(t) => records
                .iter()
                .filter(|b| b.gen_utime <= t)
                .max_by_key(|b| (b.gen_utime, b.id.id.seqno))
                .map(|b| b.id.id.seqno),
        }
    }

    #[test]
    fn blocks_are_found_by_lt_and_time_with_and_without_gaps() {
        let gaps = &[571530, 571531, 571540][..];
        for (skip, mixed) in [(&[][..], false), (gaps, false), (&[][..], true)] {
            let dir = tempfile::tempdir().unwrap();
            let (db, records) = db_with(dir.path(), skip, mixed);
            assert!(records.len() > 20);
            let (wc, shard) = (records[0].id.id.workchain, records[0].id.id.shard);
            let r = db.reader();
            let mut probes = Vec::new();
            for b in &records {
                probes.extend([
                    BlockAt::Lt(b.start_lt),
                    BlockAt::Lt(b.end_lt),
                    BlockAt::Lt(b.start_lt.saturating_sub(1)),
                    BlockAt::Lt(b.end_lt + 1),
                    BlockAt::Utime(b.gen_utime),
                    BlockAt::Utime(b.gen_utime - 1),
                    BlockAt::Utime(b.gen_utime + 1),
                ]);
            }
            probes.extend([BlockAt::Lt(0), BlockAt::Lt(u64::MAX), BlockAt::Utime(0)]);
            for at in probes {
                let got = lookup(&r, wc, shard, at).unwrap().map(|b| b.id.id.seqno);
                assert_eq!(got, expected(&records, at), "{at:?}, skipping {skip:?}");
            }
            assert!(lookup(&r, wc, shard ^ 1 << 62, BlockAt::Lt(1))
                .unwrap()
                .is_none());
        }
    }
}
