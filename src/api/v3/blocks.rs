//! `/masterchainInfo`, `/blocks`, `/masterchainBlockShardState`,
//! `/masterchainBlockShards` (spec v3 §2.1–2.4).

use axum::http::StatusCode;
use serde::Serialize;
use tonindex_model::{BlockId, BlockRecord};

use super::models::Block;
use super::{Paging, PagingArgs, V3Error};
use crate::api::params::Params;
use crate::api::request::{request, ShardArg, Utime};
use crate::api::Ctx;
use crate::query::{self, blocks::BlockScope};

#[derive(Serialize, utoipa::ToSchema)]
pub struct MasterchainInfo {
    last: Block,
    first: Block,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BlocksResponse {
    blocks: Vec<Block>,
}

pub fn masterchain_info(ctx: &Ctx<'_>, _: &Params, _: ()) -> Result<MasterchainInfo, V3Error> {
    let Some((first, last)) = query::blocks::mc_block_range(&ctx.reader)? else {
        return Err(V3Error::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "no masterchain blocks are indexed",
        ));
    };
    Ok(MasterchainInfo {
        last: (&last).into(),
        first: (&first).into(),
    })
}

request! {
    /// `/blocks`' filters.
    pub struct BlocksRequest {
        /// Workchain
        workchain: Option<i32>,
        /// Shard id
        shard: Option<ShardArg>,
        /// Block seqno
        seqno: Option<u32>,
        /// Block root hash
        root_hash: Option<[u8; 32]>,
        /// Block file hash
        file_hash: Option<[u8; 32]>,
        /// Masterchain block that committed the blocks
        mc_seqno: Option<u32>,
        /// Not before this unix time
        start_utime: Option<Utime>,
        /// Not after this unix time
        end_utime: Option<Utime>,
        /// Not below this logical time
        start_lt: Option<u64>,
        /// Not above this logical time
        end_lt: Option<u64>,
    }
    with { paging: PagingArgs }
}

/// Filters of `/blocks`.
#[derive(Default)]
struct BlockFilter {
    workchain: Option<i32>,
    shard: Option<u64>,
    seqno: Option<u32>,
    root_hash: Option<[u8; 32]>,
    file_hash: Option<[u8; 32]>,
    mc_seqno: Option<u32>,
    start_utime: Option<u64>,
    end_utime: Option<u64>,
    start_lt: Option<u64>,
    end_lt: Option<u64>,
}

impl BlockFilter {
    fn from_request(q: &BlocksRequest) -> Self {
        Self {
            workchain: q.workchain,
            shard: q.shard.map(|s| s.0),
            seqno: q.seqno,
            root_hash: q.root_hash,
            file_hash: q.file_hash,
            mc_seqno: q.mc_seqno,
            start_utime: q.start_utime.map(|t| t.0),
            end_utime: q.end_utime.map(|t| t.0),
            start_lt: q.start_lt,
            end_lt: q.end_lt,
        }
    }

    /// Whether [`candidates`] walks the time index: no narrower key is
    /// given, and a time window or a `sort` is.
    fn by_time(&self, paging: &Paging) -> bool {
        let narrower = self.root_hash.or(self.file_hash).is_some()
            || (self.workchain.is_some() && self.shard.is_some() && self.seqno.is_some())
            || self.mc_seqno.is_some();
        !narrower && (self.start_utime.is_some() || self.end_utime.is_some() || paging.sort_given)
    }

    fn matches(&self, b: &BlockRecord) -> bool {
        let id = &b.id.id;
        let mc_seqno = if id.workchain == -1 {
            Some(id.seqno)
        } else {
            b.mc_block_seqno
        };
        self.workchain.is_none_or(|w| w == id.workchain)
            && self.shard.is_none_or(|s| s == id.shard)
            && self.seqno.is_none_or(|s| s == id.seqno)
            && self.root_hash.is_none_or(|h| h == b.id.root_hash)
            && self.file_hash.is_none_or(|h| h == b.id.file_hash)
            && self.mc_seqno.is_none_or(|m| Some(m) == mc_seqno)
            && self.start_utime.is_none_or(|t| u64::from(b.gen_utime) >= t)
            && self.end_utime.is_none_or(|t| u64::from(b.gen_utime) <= t)
            && self.start_lt.is_none_or(|lt| b.start_lt >= lt)
            && self.end_lt.is_none_or(|lt| b.start_lt <= lt)
    }
}

/// The candidate blocks for a filter, in key order, from the narrowest index.
fn candidates<'a>(
    ctx: &'a Ctx<'_>,
    f: &BlockFilter,
    paging: &Paging,
) -> Result<Box<dyn Iterator<Item = Result<BlockRecord, V3Error>> + 'a>, V3Error> {
    let r = &ctx.reader;
    if let Some(h) = f.root_hash.or(f.file_hash) {
        return Ok(Box::new(
            query::blocks::block_by_hash(r, &h)?.into_iter().map(Ok),
        ));
    }
    if let (Some(workchain), Some(shard), Some(seqno)) = (f.workchain, f.shard, f.seqno) {
        let id = BlockId {
            workchain,
            shard,
            seqno,
        };
        return Ok(Box::new(query::blocks::block(r, &id)?.into_iter().map(Ok)));
    }
    if let Some(mc) = f.mc_seqno {
        let blocks = query::blocks::blocks_of_mc_block(r, mc)?;
        return Ok(Box::new(blocks.into_iter().map(Ok)));
    }
    if f.by_time(paging) {
        // By time, as `sort` orders (and any order will do without it): a
        // time window is a key range; ids of other shards are passed over
        // without reading their records.
        let (lo, hi) = (f.start_utime.unwrap_or(0), f.end_utime.unwrap_or(u64::MAX));
        let (workchain, shard, seqno) = (f.workchain, f.shard, f.seqno);
        let keep = move |id: &BlockId| {
            workchain.is_none_or(|w| w == id.workchain)
                && shard.is_none_or(|s| s == id.shard)
                && seqno.is_none_or(|s| s == id.seqno)
        };
        let ids =
            query::blocks::block_ids_by_utime(r, lo, hi, paging.sort_given && paging.desc, keep);
        return Ok(Box::new(ids.filter_map(move |id| {
            match id.and_then(|id| query::blocks::block(r, &id)) {
                Ok(block) => block.map(Ok),
                Err(e) => Some(Err(V3Error::from(e))),
            }
        })));
    }
    let scope = match (f.workchain, f.shard) {
        (Some(w), Some(s)) => BlockScope::Shard(w, s),
        (Some(w), None) => BlockScope::Workchain(w),
        _ => BlockScope::All,
    };
    Ok(Box::new(
        query::blocks::blocks_iter(r, scope).map(|x| x.map_err(V3Error::from)),
    ))
}

/// Orders by `gen_utime` when `sort` is given (ties by block id, so pages
/// are stable), else keeps the candidates' order; then pages. Candidates
/// from the time index come in that order already: only the page's first
/// `offset + limit` are read.
fn sorted_page(
    paging: &Paging,
    items: impl Iterator<Item = Result<BlockRecord, V3Error>>,
    in_time_order: bool,
) -> Result<Vec<Block>, V3Error> {
    let blocks: Vec<BlockRecord> = if paging.sort_given && !in_time_order {
        let mut all = items.collect::<Result<Vec<_>, _>>()?;
        all.sort_by_key(|b| (b.gen_utime, b.id.id));
        if paging.desc {
            all.reverse();
        }
        paging.page(all)
    } else {
        let firsts = items.take(paging.needed()).collect::<Result<Vec<_>, _>>()?;
        paging.page(firsts)
    };
    Ok(blocks.iter().map(Block::from).collect())
}

pub fn blocks(ctx: &Ctx<'_>, _: &Params, q: BlocksRequest) -> Result<BlocksResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let f = BlockFilter::from_request(&q);
    let matching =
        candidates(ctx, &f, &paging)?.filter(|b| b.as_ref().map_or(true, |b| f.matches(b)));
    Ok(BlocksResponse {
        blocks: sorted_page(&paging, matching, f.by_time(&paging))?,
    })
}

request! {
    /// A masterchain block by seqno.
    pub struct McSeqnoRequest {
        /// Masterchain block seqno (0 when not given)
        [required] seqno: Option<u32>,
    }
}

pub fn masterchain_block_shard_state(
    ctx: &Ctx<'_>,
    _: &Params,
    q: McSeqnoRequest,
) -> Result<BlocksResponse, V3Error> {
    let seqno = q.seqno.unwrap_or(0);
    let r = &ctx.reader;
    let mut blocks = Vec::new();
    if let Some(mc) = query::blocks::mc_block(r, seqno)? {
        blocks.push(mc);
        let ids: Vec<BlockId> = query::blocks::shard_state(r, seqno)?
            .iter()
            .map(|d| d.block.id)
            .collect();
        blocks.extend(query::blocks::blocks(r, &ids)?);
    }
    if blocks.is_empty() {
        return Err(V3Error::not_found("blocks not found"));
    }
    blocks.sort_by_key(|b| b.id.id);
    Ok(BlocksResponse {
        blocks: blocks.iter().map(Block::from).collect(),
    })
}

request! {
    /// A masterchain block by seqno, and a page of its shard blocks.
    pub struct McSeqnoPageRequest {}
    with { block: McSeqnoRequest, paging: PagingArgs }
}

pub fn masterchain_block_shards(
    ctx: &Ctx<'_>,
    _: &Params,
    q: McSeqnoPageRequest,
) -> Result<BlocksResponse, V3Error> {
    let seqno = q.block.seqno.unwrap_or(0);
    let paging = Paging::from_args(ctx, &q.paging)?;
    let f = BlockFilter {
        mc_seqno: Some(seqno),
        ..BlockFilter::default()
    };
    let blocks = sorted_page(&paging, candidates(ctx, &f, &paging)?, f.by_time(&paging))?;
    if blocks.is_empty() {
        return Err(V3Error::not_found("blocks not found"));
    }
    Ok(BlocksResponse { blocks })
}
