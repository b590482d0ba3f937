//! The follower: walks masterchain blocks from a lite server, from the
//! index's cursor forward, and indexes each with the shard blocks it
//! commits — one unit, one WriteBatch, through the same `Indexer` as an
//! import — so a restart resumes where the last committed unit ended.
//!
//! Trust: this follower checks that every block it is given has the root
//! and file hash it asked for (and that a masterchain block's shard blocks
//! are the ones it names), but not yet the validator signatures of
//! masterchain blocks; it runs only when told to trust its lite servers.

use std::time::Duration;

use anyhow::{anyhow, bail, Context as _};
use ton_liteapi::client::LiteClient;
use ton_liteapi::tl::common::{BlockId as LiteBlockId, BlockIdExt as LiteBlockIdExt, Int256};
use tonindex_model::{BlockId, BlockIdExt};
use tonindex_storage::Db;

use super::LiteServerAddr;
use crate::decode::state::decode_state_file;
use crate::decode::{decode_block, file_hash, DecodedBlock};
use crate::index::{Indexer, Unit};
use crate::query;

/// Where a follow starts and stops.
#[derive(Debug, Clone, Default)]
pub struct FollowOptions {
    /// The first masterchain block to index on an empty index (default 1,
    /// the first after the zero state).
    pub from_seqno: Option<u32>,
    /// Stop once this masterchain block is indexed (else follow forever).
    pub until_seqno: Option<u32>,
}

/// What a follow indexed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FollowSummary {
    pub mc_blocks: u64,
    pub shard_blocks: u64,
    pub transactions: u64,
    pub last_mc_seqno: Option<u32>,
}

fn lite_id(id: &BlockIdExt) -> LiteBlockIdExt {
    LiteBlockIdExt {
        workchain: id.id.workchain,
        shard: id.id.shard,
        seqno: id.id.seqno,
        root_hash: Int256(id.root_hash),
        file_hash: Int256(id.file_hash),
    }
}

fn model_id(id: &LiteBlockIdExt) -> BlockIdExt {
    BlockIdExt {
        id: BlockId {
            workchain: id.workchain,
            shard: id.shard,
            seqno: id.seqno,
        },
        root_hash: id.root_hash.0,
        file_hash: id.file_hash.0,
    }
}

/// A block by its full id, checked against it and decoded.
async fn fetch(client: &mut LiteClient, id: &BlockIdExt) -> anyhow::Result<DecodedBlock> {
    let boc = client
        .get_block(lite_id(id))
        .await
        .map_err(|e| anyhow!("getBlock {id:?}: {e:?}"))?;
    if file_hash(&boc) != id.file_hash {
        bail!("the lite server sent a block whose file hash is not {id:?}'s");
    }
    let block = decode_block(&boc).with_context(|| format!("decoding block {id:?}"))?;
    if block.record.id != *id {
        bail!("the lite server sent another block than {id:?}");
    }
    Ok(block)
}

/// A zero state by its id (a lite server gives those whole), checked
/// against the id and imported as `tonindex import` imports state files.
async fn import_zero_state(
    indexer: &Indexer<'_>,
    client: &mut LiteClient,
    id: &BlockIdExt,
) -> anyhow::Result<()> {
    let state = client
        .get_state(lite_id(id))
        .await
        .map_err(|e| anyhow!("getState of zero state {id:?}: {e:?}"))?;
    if file_hash(&state.data) != id.file_hash {
        bail!("the lite server sent a zero state whose file hash is not {id:?}'s");
    }
    let root = tycho_types::boc::Boc::decode(&state.data)?;
    if root.repr_hash().0 != id.root_hash {
        bail!("the lite server sent a zero state whose root hash is not {id:?}'s");
    }
    let file = decode_state_file(&root).with_context(|| format!("decoding zero state {id:?}"))?;
    indexer.apply_state_file(&file)?;
    Ok(())
}

/// The zero states the first blocks of a unit start from (a block with
/// seqno 1 follows its chain's zero state): on a fresh follow they come
/// first, so that the index replays every state from there, as an import
/// of the chain's files with its zero states does.
async fn zero_states_of(
    indexer: &Indexer<'_>,
    client: &mut LiteClient,
    blocks: &[DecodedBlock],
) -> anyhow::Result<()> {
    for b in blocks.iter().filter(|b| b.record.id.id.seqno == 1) {
        for prev in b
            .record
            .prev_blocks
            .iter()
            .filter(|p| p.block.id.seqno == 0)
        {
            import_zero_state(indexer, client, &prev.block).await?;
        }
    }
    Ok(())
}

/// The full id of masterchain block `seqno`.
async fn mc_block_id(client: &mut LiteClient, seqno: u32) -> anyhow::Result<BlockIdExt> {
    let header = client
        .lookup_block(
            (),
            LiteBlockId {
                workchain: -1,
                shard: query::MASTER_SHARD,
                seqno,
            },
            Some(()),
            None,
            None,
            false,
            false,
            false,
            false,
            false,
        )
        .await
        .map_err(|e| anyhow!("lookupBlock of masterchain block {seqno}: {e:?}"))?;
    Ok(model_id(&header.id))
}

/// The shard blocks masterchain block `mc` commits that the index does not
/// hold yet, oldest first: from each shard's new top back along its
/// previous blocks to the top the previous masterchain block committed.
async fn new_shard_blocks(
    db: &Db,
    client: &mut LiteClient,
    mc: &DecodedBlock,
) -> anyhow::Result<Vec<DecodedBlock>> {
    let mut out = Vec::new();
    for top in &mc.shards {
        let mut chain = Vec::new();
        let mut id = top.block;
        loop {
            if query::blocks::block(&db.reader(), &id.id)?.is_some() {
                break;
            }
            let block = fetch(client, &id).await?;
            let prev = match block.record.prev_blocks.as_slice() {
                [prev] => prev.block,
                [] => bail!("shard block {id:?} has no previous block"),
                _ => bail!("shard block {id:?} follows a merge: not followed yet"),
            };
            let first = block.record.id.id.seqno <= 1;
            chain.push(block);
            if first || prev.id.seqno == 0 || prev.id.shard != id.id.shard {
                // Back at the zero state (or a split): nothing older to fetch.
                break;
            }
            id = prev;
        }
        chain.reverse();
        out.extend(chain);
    }
    Ok(out)
}

/// Connects to `server`, retrying for a second (a server just started, or
/// restarting), then gives up saying why.
async fn connect(server: &LiteServerAddr) -> anyhow::Result<LiteClient> {
    let mut tries = 0;
    loop {
        match LiteClient::connect(server.addr, server.key).await {
            Ok(c) => return Ok(c),
            Err(e) if tries >= 25 => {
                bail!("connecting to the lite server at {}: {e:?}", server.addr)
            }
            Err(_) => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
        }
    }
}

/// Follows the chain `server` serves into `db` until `until_seqno` (or
/// forever), polling for new masterchain blocks every `poll`.
pub async fn follow(
    db: &Db,
    server: &LiteServerAddr,
    opts: &FollowOptions,
    poll: Duration,
    mut progress: impl FnMut(&FollowSummary, u32),
) -> anyhow::Result<FollowSummary> {
    let mut client = connect(server).await?;
    let indexer = Indexer::new(db);
    let mut summary = FollowSummary::default();
    let mut next = match db.cursor()?.last_mc_seqno {
        Some(last) => last + 1,
        None => opts.from_seqno.unwrap_or(1).max(1),
    };
    loop {
        if opts.until_seqno.is_some_and(|until| next > until) {
            return Ok(summary);
        }
        let tip = client
            .get_masterchain_info()
            .await
            .map_err(|e| anyhow!("getMasterchainInfo: {e:?}"))?
            .last
            .seqno;
        if next > tip {
            tokio::time::sleep(poll).await;
            continue;
        }
        let mc_id = mc_block_id(&mut client, next).await?;
        let mc = fetch(&mut client, &mc_id).await?;
        let mut blocks = new_shard_blocks(db, &mut client, &mc).await?;
        summary.shard_blocks += blocks.len() as u64;
        blocks.push(mc);
        zero_states_of(&indexer, &mut client, &blocks).await?;
        summary.transactions += blocks
            .iter()
            .map(|b| b.transactions.len() as u64)
            .sum::<u64>();
        indexer
            .apply(&Unit { blocks })
            .with_context(|| format!("indexing masterchain block {next}"))?;
        summary.mc_blocks += 1;
        summary.last_mc_seqno = Some(next);
        progress(&summary, tip);
        next += 1;
    }
}
