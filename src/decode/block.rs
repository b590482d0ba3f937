//! Block header, shard hashes and key-block config.

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{Block, BlockExtra, BlockInfo, PrevBlockRef, ShardIdent};

use tonindex_model::{BlockId, BlockIdExt, BlockRecord, BlockRef, Hash, ShardDescrRecord};

use super::{coins, hash, DecodeError};

/// The header fields of a block as a record (`tx_count` is filled by the caller).
pub fn block_record(
    root: &Cell,
    file_hash: Hash,
    block: &Block,
    info: &BlockInfo,
    extra: &BlockExtra,
) -> Result<BlockRecord, DecodeError> {
    let shard = info.shard;
    let id = BlockId {
        workchain: shard.workchain(),
        shard: shard.prefix(),
        seqno: info.seqno,
    };
    let ctx = |e| {
        DecodeError::Block(
            format!("({},{:016x},{})", id.workchain, id.shard, id.seqno),
            e,
        )
    };
    let to_ref = |r: &tycho_types::models::BlockRef, shard: ShardIdent| BlockRef {
        block: block_id_ext(shard, r.seqno, &r.root_hash, &r.file_hash),
        end_lt: r.end_lt,
    };
    let prev_blocks = match info.load_prev_ref().map_err(ctx)? {
        PrevBlockRef::Single(r) => {
            let prev_shard = if info.after_split {
                shard.merge().unwrap_or(shard)
            } else {
                shard
            };
            vec![to_ref(&r, prev_shard)]
        }
        PrevBlockRef::AfterMerge { left, right } => {
            let (l, r) = shard.split().unwrap_or((shard, shard));
            vec![to_ref(&left, l), to_ref(&right, r)]
        }
    };
    let master_ref = info
        .load_master_ref()
        .map_err(ctx)?
        .map(|r| to_ref(&r, ShardIdent::MASTERCHAIN));
    Ok(BlockRecord {
        id: BlockIdExt {
            id,
            root_hash: hash(root.repr_hash()),
            file_hash,
        },
        global_id: block.global_id,
        version: info.version,
        after_merge: info.after_merge,
        before_split: info.before_split,
        after_split: info.after_split,
        want_split: info.want_split,
        want_merge: info.want_merge,
        key_block: info.key_block,
        vert_seqno_incr: info.prev_vert_ref.is_some(),
        flags: info.flags,
        gen_utime: info.gen_utime,
        start_lt: info.start_lt,
        end_lt: info.end_lt,
        validator_list_hash_short: info.gen_validator_list_hash_short,
        gen_catchain_seqno: info.gen_catchain_seqno,
        min_ref_mc_seqno: info.min_ref_mc_seqno,
        prev_key_block_seqno: info.prev_key_block_seqno,
        vert_seqno: info.vert_seqno,
        gen_software_version: info.gen_software.version,
        gen_software_capabilities: info.gen_software.capabilities.into_inner(),
        master_ref,
        prev_blocks,
        rand_seed: hash(&extra.rand_seed),
        created_by: hash(&extra.created_by),
        state_root_hash: hash(&block.load_state_update().map_err(ctx)?.new_hash),
        tx_count: 0,
        mc_block_seqno: shard.is_masterchain().then_some(info.seqno),
    })
}

/// Shard hashes and (for key blocks) the config dictionary of a masterchain block.
/// Either failing is a warning: the block is still indexed.
pub fn masterchain_extra(
    extra: &BlockExtra,
    warnings: &mut Vec<String>,
) -> (Vec<ShardDescrRecord>, Option<Vec<u8>>) {
    let mc = match extra.load_custom() {
        Ok(Some(mc)) => mc,
        Ok(None) => return (Vec::new(), None),
        Err(e) => {
            warnings.push(format!("McBlockExtra unreadable: {e}"));
            return (Vec::new(), None);
        }
    };
    let mut shards = Vec::new();
    for item in mc.shards.iter() {
        match item {
            Ok((ident, d)) => shards.push(ShardDescrRecord {
                block: block_id_ext(ident, d.seqno, &d.root_hash, &d.file_hash),
                reg_mc_seqno: d.reg_mc_seqno,
                start_lt: d.start_lt,
                end_lt: d.end_lt,
                before_split: d.before_split,
                before_merge: d.before_merge,
                want_split: d.want_split,
                want_merge: d.want_merge,
                nx_cc_updated: d.nx_cc_updated,
                next_catchain_seqno: d.next_catchain_seqno,
                next_validator_shard: d.next_validator_shard,
                min_ref_mc_seqno: d.min_ref_mc_seqno,
                gen_utime: d.gen_utime,
                fees_collected: coins(&d.fees_collected).unwrap_or_default(),
                funds_created: coins(&d.funds_created).unwrap_or_default(),
            }),
            Err(e) => {
                warnings.push(format!("shard description unreadable: {e}"));
                break;
            }
        }
    }
    let config_boc = mc.config.as_ref().and_then(|c| {
        c.params
            .as_dict()
            .root()
            .as_ref()
            .map(|c| crate::boc::encode(c.as_ref()))
    });
    (shards, config_boc)
}

/// A block id with hashes, from tycho's shard ident and a reference's fields.
fn block_id_ext(shard: ShardIdent, seqno: u32, root: &HashBytes, file: &HashBytes) -> BlockIdExt {
    BlockIdExt {
        id: BlockId {
            workchain: shard.workchain(),
            shard: shard.prefix(),
            seqno,
        },
        root_hash: hash(root),
        file_hash: hash(file),
    }
}
