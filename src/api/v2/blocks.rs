//! v2 Blocks group (spec v2 §4.3): masterchain info, block lookup, shards,
//! headers, and the proofs the index cannot supply.

use serde::Serialize;
use tonindex_model::{BlockId, BlockIdExt, BlockRecord};

use super::models::TonBlockIdExt;
use super::{positive_seqno, required, BlockArgs, V2Error};
use crate::api::encoding::{parse_hash, B64Bytes, B64};
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::chain::link::Lookup;
use crate::query::{self, blocks::BlockAt};
use tycho_types::cell::HashBytes;

/// The network's zero state, for `getMasterchainInfo.init`.
fn zerostate(ctx: &Ctx<'_>) -> Result<BlockIdExt, V2Error> {
    let z = &ctx.cfg.zerostate;
    let hash = |s: &str| {
        parse_hash(s).ok_or_else(|| V2Error::new(500, "the configured zero state hash is invalid"))
    };
    Ok(BlockIdExt {
        id: BlockId {
            workchain: -1,
            shard: query::blocks::MASTER_SHARD,
            seqno: 0,
        },
        root_hash: hash(&z.root_hash)?,
        file_hash: hash(&z.file_hash)?,
    })
}

fn latest_mc(ctx: &Ctx<'_>) -> Result<BlockRecord, V2Error> {
    query::blocks::mc_block_range(&ctx.reader)?
        .map(|(_, last)| last)
        .ok_or_else(|| V2Error::new(500, "no masterchain blocks are indexed"))
}

#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = TonlibMasterchainInfo)]
pub struct MasterchainInfo {
    #[serde(rename = "@type")]
    ty: &'static str,
    last: TonBlockIdExt,
    state_root_hash: B64,
    init: TonBlockIdExt,
}

pub fn get_masterchain_info(ctx: &Ctx<'_>, _: &Params, _: ()) -> Result<MasterchainInfo, V2Error> {
    let last = latest_mc(ctx)?;
    Ok(MasterchainInfo {
        ty: "blocks.masterchainInfo",
        last: (&last.id).into(),
        state_root_hash: B64(last.state_root_hash),
        init: (&zerostate(ctx)?).into(),
    })
}

/// On a follower, the highest masterchain tip among its lite servers that
/// answer (500 `no workers alive` when none does, as the C++ server); else
/// the index's newest masterchain block.
pub fn get_consensus_block(ctx: &Ctx<'_>, _: &Params, _: ()) -> Result<ConsensusBlock, V2Error> {
    let seqno = match ctx.chain.and_then(|c| c.consensus_block()) {
        Some(Ok(seqno)) => seqno,
        Some(Err(refused)) => return Err(V2Error::new(refused.status, refused.message)),
        None => latest_mc(ctx)?.id.id.seqno,
    };
    let now = crate::api::unix_now();
    Ok(ConsensusBlock {
        ty: "ext.blocks.consensusBlock",
        consensus_block: seqno,
        timestamp: now,
    })
}

/// The C++ server's `ext.blocks.consensusBlock`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ConsensusBlock {
    #[serde(rename = "@type")]
    ty: &'static str,
    consensus_block: u32,
    timestamp: u64,
}

request! {
    /// A masterchain block by seqno.
    pub struct McSeqnoArgs {
        /// Masterchain block seqno
        [required] seqno: Option<i64>,
    }
}

/// tonlib's `blocks.blockSignatures`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BlockSignatures {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    signatures: Vec<Signature>,
}

/// One validator's signature (`blocks.signature`).
#[derive(Serialize, utoipa::ToSchema)]
pub struct Signature {
    #[serde(rename = "@type")]
    ty: &'static str,
    node_id_short: B64,
    signature: B64Bytes,
}

/// What the index cannot answer because block files do not carry it (and
/// no chain this process runs supplies).
fn unavailable(what: &str) -> V2Error {
    V2Error::new(
        501,
        format!("{what} is not available: the index holds blocks, not {what}"),
    )
}

/// Answered where this process runs the chain (`tonindex dev`: its
/// validator's signatures of the indexed masterchain block) or follows one
/// (`tonindex run`: a lite server's, checked against the validators of
/// the key block in force).
pub fn get_masterchain_block_signatures(
    ctx: &Ctx<'_>,
    _: &Params,
    q: McSeqnoArgs,
) -> Result<BlockSignatures, V2Error> {
    let seqno = required(positive_seqno(q.seqno, "seqno")?, "seqno")?;
    let Some(chain) = ctx.chain else {
        return Err(unavailable("block signatures"));
    };
    let block = query::blocks::mc_block(&ctx.reader, seqno)?.ok_or_else(|| {
        V2Error::not_found(format!("masterchain block {seqno} is not in the index"))
    })?;
    let signatures = match chain.block_signatures(
        &HashBytes(block.id.root_hash),
        &HashBytes(block.id.file_hash),
    ) {
        Some(s) => s,
        // A followed chain: from a lite server, checked against the
        // validators of the key block in force for the block.
        None => {
            let key = query::blocks::mc_block(&ctx.reader, block.prev_key_block_seqno)?
                .filter(|k| k.key_block && block.prev_key_block_seqno > 0)
                .ok_or_else(|| unavailable("block signatures"))?;
            // A lite server is waited for on the read pool, not inline.
            if ctx.reader.exhaust_budget() {
                return Err(unavailable("block signatures"));
            }
            chain
                .proven_block_signatures(&block.id, &key.id)
                .ok_or_else(|| unavailable("block signatures"))?
                .map_err(|r| V2Error::new(r.status, r.message))?
        }
    };
    Ok(BlockSignatures {
        ty: "blocks.blockSignatures",
        id: TonBlockIdExt::from(&block.id),
        signatures: signatures
            .iter()
            .map(|(node, sig)| Signature {
                ty: "blocks.signature",
                node_id_short: B64(node.0),
                signature: B64Bytes(sig.to_vec()),
            })
            .collect(),
    })
}

request! {
    /// A block, and the masterchain block to prove it from.
    pub struct ShardBlockProofRequest {
        /// Workchain
        [required] workchain: Option<i32>,
        /// Shard id as a signed 64-bit integer
        [required] shard: Option<i64>,
        /// Block seqno
        [required] seqno: Option<i64>,
        /// Prove from this masterchain block (default: the newest)
        from_seqno: Option<u32>,
    }
}

/// tonlib's `blocks.shardBlockProof`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ShardBlockProof {
    #[serde(rename = "@type")]
    ty: &'static str,
    from: TonBlockIdExt,
    mc_id: TonBlockIdExt,
    links: Vec<ShardBlockLink>,
    mc_proof: Vec<BlockLinkBack>,
}

/// `blocks.shardBlockLink`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ShardBlockLink {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    proof: B64Bytes,
}

/// `blocks.blockLinkBack`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BlockLinkBack {
    #[serde(rename = "@type")]
    ty: &'static str,
    to_key_block: bool,
    from: TonBlockIdExt,
    to: TonBlockIdExt,
    dest_proof: B64Bytes,
    proof: B64Bytes,
    state_proof: B64Bytes,
}

/// Answered where this process runs the chain and keeps its blocks
/// (`tonindex dev`) or follows one (`tonindex run`: the lite server's
/// proofs): the Merkle proofs of a liteserver's `shardBlockProof`, from
/// the newest masterchain block or `from_seqno`.
pub fn get_shard_block_proof(
    ctx: &Ctx<'_>,
    _: &Params,
    q: ShardBlockProofRequest,
) -> Result<ShardBlockProof, V2Error> {
    let workchain = required(q.workchain, "workchain")?;
    let shard = required(q.shard.map(|s| s as u64), "shard")?;
    let seqno = required(positive_seqno(q.seqno, "seqno")?, "seqno")?;
    let from_seqno = q.from_seqno;
    let Some(chain) = ctx.chain else {
        return Err(unavailable("block proofs"));
    };
    let id = BlockId {
        workchain,
        shard,
        seqno,
    };
    let target = query::blocks::block(&ctx.reader, &id)?.ok_or_else(|| {
        V2Error::not_found(format!(
            "block ({workchain},{},{seqno}) is not in the index",
            shard as i64
        ))
    })?;
    let mc = if workchain == -1 {
        target.clone()
    } else {
        let mc_seqno = target.mc_block_seqno.ok_or_else(|| {
            V2Error::not_found("no masterchain block commits this block yet".to_string())
        })?;
        query::blocks::mc_block(&ctx.reader, mc_seqno)?.ok_or_else(|| {
            V2Error::not_found(format!("masterchain block {mc_seqno} is not in the index"))
        })?
    };
    let from = match from_seqno {
        Some(s) => query::blocks::mc_block(&ctx.reader, s)?.ok_or_else(|| {
            V2Error::not_found(format!("masterchain block {s} is not in the index"))
        })?,
        None => latest_mc(ctx)?,
    };
    if from.id.id.seqno < mc.id.id.seqno {
        return Err(V2Error::invalid(format!(
            "from_seqno {} is older than masterchain block {} that commits the block",
            from.id.id.seqno, mc.id.id.seqno
        )));
    }
    // A lite server is waited for on the read pool, not inline.
    if ctx.reader.exhaust_budget() {
        return Err(unavailable("block proofs"));
    }
    let proofs = chain
        .shard_block_proof(&target.id, &mc.id, &from.id)
        .ok_or_else(|| unavailable("block proofs"))?
        .map_err(|r| V2Error::new(r.status, r.message))?;
    let links = proofs
        .link
        .iter()
        .map(|proof| ShardBlockLink {
            ty: "blocks.shardBlockLink",
            id: TonBlockIdExt::from(&target.id),
            proof: B64Bytes(proof.clone()),
        })
        .collect();
    let mc_proof = proofs
        .back
        .iter()
        .map(|b| BlockLinkBack {
            ty: "blocks.blockLinkBack",
            to_key_block: false,
            from: TonBlockIdExt::from(&from.id),
            to: TonBlockIdExt::from(&mc.id),
            dest_proof: B64Bytes(b.dest_proof.clone()),
            proof: B64Bytes(b.proof.clone()),
            state_proof: B64Bytes(b.state_proof.clone()),
        })
        .collect();
    Ok(ShardBlockProof {
        ty: "blocks.shardBlockProof",
        from: TonBlockIdExt::from(&from.id),
        mc_id: TonBlockIdExt::from(&mc.id),
        links,
        mc_proof,
    })
}

/// tonlib's `blocks.outMsgQueueSizes`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct OutMsgQueueSizes {
    #[serde(rename = "@type")]
    ty: &'static str,
    shards: Vec<OutMsgQueueSize>,
    ext_msg_queue_size_limit: u32,
}

/// One shard's queue (`blocks.outMsgQueueSize`).
#[derive(Serialize, utoipa::ToSchema)]
pub struct OutMsgQueueSize {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    size: u64,
}

/// Answered where this process runs or follows a chain: the outbound
/// queue of each shard's newest block (the devnet's own, or a lite
/// server's `getOutMsgQueueSizes`).
pub fn get_out_msg_queue_size(
    ctx: &Ctx<'_>,
    _: &Params,
    _: (),
) -> Result<OutMsgQueueSizes, V2Error> {
    let chain = ctx
        .chain
        .ok_or_else(|| unavailable("out message queue sizes"))?;
    // The chain is waited for on the read pool, not inline.
    if ctx.reader.exhaust_budget() {
        return Err(unavailable("out message queue sizes"));
    }
    let sizes = chain
        .out_msg_queue_sizes()
        .ok_or_else(|| unavailable("out message queue sizes"))?
        .map_err(|refused| V2Error::new(refused.status, refused.message))?;
    Ok(OutMsgQueueSizes {
        ty: "blocks.outMsgQueueSizes",
        shards: sizes
            .shards
            .iter()
            .map(|(id, size)| OutMsgQueueSize {
                ty: "blocks.outMsgQueueSize",
                id: TonBlockIdExt::from(id),
                size: *size,
            })
            .collect(),
        ext_msg_queue_size_limit: sizes.ext_msg_queue_size_limit,
    })
}

/// `(workchain, shard, seqno[, root_hash, file_hash])` → the indexed block.
/// The hashes, when both are given, must match.
pub fn block_from_args(ctx: &Ctx<'_>, a: &BlockArgs) -> Result<BlockRecord, V2Error> {
    let workchain = required(a.workchain, "workchain")?;
    let shard = required(a.shard.map(|s| s as u64), "shard")?;
    let seqno = required(positive_seqno(a.seqno, "seqno")?, "seqno")?;
    let (root_hash, file_hash) = (a.root_hash, a.file_hash);
    let id = BlockId {
        workchain,
        shard,
        seqno,
    };
    let block = query::blocks::block(&ctx.reader, &id)?
        .filter(|b| root_hash.is_none_or(|h| h == b.id.root_hash))
        .filter(|b| file_hash.is_none_or(|h| h == b.id.file_hash));
    block.ok_or_else(|| {
        V2Error::not_found(format!(
            "block ({workchain},{},{seqno}) is not in the index",
            shard as i64
        ))
    })
}

request! {
    /// A block of a shard by seqno, logical time or unix time.
    pub struct LookupBlockRequest {
        /// Workchain
        [required] workchain: Option<i32>,
        /// Shard id as a signed 64-bit integer
        [required] shard: Option<i64>,
        /// Block seqno
        seqno: Option<i64>,
        /// A logical time within the block
        lt: Option<u64>,
        /// The block generated at or before this unix time
        unixtime: Option<u32>,
    }
}

pub fn lookup_block(
    ctx: &Ctx<'_>,
    _: &Params,
    q: LookupBlockRequest,
) -> Result<TonBlockIdExt, V2Error> {
    let workchain = required(q.workchain, "workchain")?;
    let shard = required(q.shard.map(|s| s as u64), "shard")?;
    let seqno = positive_seqno(q.seqno, "seqno")?;
    let (lt, unixtime) = (q.lt, q.unixtime);
    if seqno.is_none() && lt.is_none() && unixtime.is_none() {
        return Err(V2Error::invalid(
            "exactly one of seqno, lt, unixtime should be specified",
        ));
    }
    let r = &ctx.reader;
    let found = if let Some(seqno) = seqno {
        query::blocks::block(
            r,
            &BlockId {
                workchain,
                shard,
                seqno,
            },
        )?
        .filter(|b| lt.is_none_or(|lt| b.start_lt <= lt && lt <= b.end_lt))
        .filter(|b| unixtime.is_none_or(|t| b.gen_utime <= t))
    } else if let Some(lt) = lt {
        query::blocks::lookup(r, workchain, shard, BlockAt::Lt(lt))?
    } else {
        let t = unixtime.unwrap_or_default();
        query::blocks::lookup(r, workchain, shard, BlockAt::Utime(t))?
    };
    // By time, the newest indexed block of the shard is the answer only if
    // no later block exists: a followed chain may hold one.
    let maybe_later = |b: &BlockRecord| -> Result<bool, V2Error> {
        let next = BlockId {
            seqno: b.id.id.seqno + 1,
            ..b.id.id
        };
        Ok(seqno.is_none() && lt.is_none() && query::blocks::block(r, &next)?.is_none())
    };
    let by = match (seqno, lt, unixtime) {
        (Some(s), _, _) => Lookup::Seqno(s),
        (None, Some(lt), _) => Lookup::Lt(lt),
        (None, None, t) => Lookup::Utime(t.unwrap_or_default()),
    };
    // Not indexed (yet), or maybe not the newest: a followed chain's lite
    // server is asked, on the read pool.
    let ask_chain = match &found {
        None => true,
        Some(b) => maybe_later(b)?,
    };
    if ask_chain {
        if let Some(chain) = ctx.chain {
            if ctx.reader.exhaust_budget() {
                return Err(V2Error::not_found("block is not in the index"));
            }
            match chain.lookup_block(workchain, shard, by) {
                Some(Ok(id)) => return Ok(TonBlockIdExt::from(&id)),
                Some(Err(r)) if found.is_none() => return Err(V2Error::new(r.status, r.message)),
                _ => {}
            }
        }
    }
    match found {
        Some(b) => Ok(TonBlockIdExt::from(&b.id)),
        None => Err(V2Error::not_found("block is not in the index")),
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Shards {
    #[serde(rename = "@type")]
    ty: &'static str,
    shards: Vec<TonBlockIdExt>,
}

pub fn get_shards(ctx: &Ctx<'_>, _: &Params, q: McSeqnoArgs) -> Result<Shards, V2Error> {
    let seqno = required(positive_seqno(q.seqno, "seqno")?, "seqno")?;
    if query::blocks::mc_block(&ctx.reader, seqno)?.is_none() {
        return Err(V2Error::not_found(format!(
            "masterchain block {seqno} is not in the index"
        )));
    }
    let shards = query::blocks::shard_state(&ctx.reader, seqno)?
        .iter()
        .map(|d| TonBlockIdExt::from(&d.block))
        .collect();
    Ok(Shards {
        ty: "blocks.shards",
        shards,
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BlockHeader {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    global_id: i32,
    version: u32,
    after_merge: bool,
    after_split: bool,
    before_split: bool,
    want_merge: bool,
    want_split: bool,
    validator_list_hash_short: i32,
    catchain_seqno: u32,
    min_ref_mc_seqno: u32,
    is_key_block: bool,
    prev_key_block_seqno: u32,
    start_lt: String,
    end_lt: String,
    gen_utime: u32,
    prev_blocks: Vec<TonBlockIdExt>,
}

pub fn get_block_header(ctx: &Ctx<'_>, _: &Params, q: BlockArgs) -> Result<BlockHeader, V2Error> {
    let b = block_from_args(ctx, &q)?;
    Ok(BlockHeader {
        ty: "blocks.header",
        id: (&b.id).into(),
        global_id: b.global_id,
        version: b.version,
        after_merge: b.after_merge,
        after_split: b.after_split,
        before_split: b.before_split,
        want_merge: b.want_merge,
        want_split: b.want_split,
        validator_list_hash_short: b.validator_list_hash_short as i32,
        catchain_seqno: b.gen_catchain_seqno,
        min_ref_mc_seqno: b.min_ref_mc_seqno,
        is_key_block: b.key_block,
        prev_key_block_seqno: b.prev_key_block_seqno,
        start_lt: b.start_lt.to_string(),
        end_lt: b.end_lt.to_string(),
        gen_utime: b.gen_utime,
        prev_blocks: b.prev_blocks.iter().map(|r| (&r.block).into()).collect(),
    })
}
