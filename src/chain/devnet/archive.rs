//! The devnet's blocks as TON archive packages, as a node files them: per
//! 100 masterchain blocks one package of masterchain blocks, each with a
//! `proof_` entry carrying the validator's signature, and one of the
//! basechain blocks they commit. What `tonindex import` reads from a
//! node's archive, made from a chain whose keys we hold: for tests of the
//! signature check through key blocks, and for backfill benchmarks.

use std::path::Path;

use tycho_types::boc::Boc;
use tycho_types::cell::{CellBuilder, HashBytes};
use tycho_types::dict::Dict;
use tycho_types::models::{
    Block, BlockId as TychoBlockId, BlockProof, BlockSignature, BlockSignatures, ShardIdent,
    Signature, ValidatorBaseInfo,
};

use tonindex_model::{BlockId, BlockIdExt};

use super::collator::Produced;
use crate::chain::liteserver::trust::node_id_short;
use crate::chain::package::{append_entries, EntryKind, EntryName};
use crate::wallet_client::mnemonic::Keys;

/// A node files every basechain block in the package of the whole
/// workchain's shard, whatever shard made it.
const FULL_SHARD: u64 = 0x8000_0000_0000_0000;

/// Masterchain blocks one package holds, as a node's older archive does.
const PACKAGE_SPAN: u32 = 100;

/// Appends a round's blocks (its basechain blocks, then the masterchain
/// block that commits them) to the packages in `dir`.
pub fn export(dir: &Path, blocks: &[Produced], validator: &Keys) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let Some(mc) = blocks.iter().find(|b| b.workchain == -1) else {
        anyhow::bail!("a round without a masterchain block");
    };
    let number = mc.seqno / PACKAGE_SPAN * PACKAGE_SPAN;
    let name = |b: &Produced, kind| EntryName {
        kind,
        block: BlockIdExt {
            id: BlockId {
                workchain: b.workchain,
                shard: b.shard.prefix(),
                seqno: b.seqno,
            },
            root_hash: b.root_hash.0,
            file_hash: b.file_hash.0,
        },
    };
    let shard: Vec<_> = blocks
        .iter()
        .filter(|b| b.workchain != -1)
        .map(|b| (name(b, EntryKind::Block), b.boc.clone()))
        .collect();
    if !shard.is_empty() {
        let file = format!("archive.{number:05}.0_{FULL_SHARD:016x}.pack");
        append_entries(&dir.join(file), &shard)?;
    }
    let proof = proof_of(mc, validator)?;
    let masters = [
        (name(mc, EntryKind::Proof), proof),
        (name(mc, EntryKind::Block), mc.boc.clone()),
    ];
    append_entries(&dir.join(format!("archive.{number:05}.pack")), &masters)?;
    Ok(())
}

/// A masterchain block's proof: its header (a Merkle proof of the block
/// keeping its info) and the validator's signature of its id.
fn proof_of(mc: &Produced, validator: &Keys) -> anyhow::Result<Vec<u8>> {
    let root = Boc::decode(&mc.boc)?;
    let header = super::proof::proof_cell_of(&root, |c| {
        let block: Block = c.parse()?;
        block.load_info().map(drop)
    })?;
    let info = root.parse::<Block>()?.load_info()?;
    let signature = mc
        .signature
        .ok_or_else(|| anyhow::anyhow!("masterchain block {} is not signed", mc.seqno))?;
    let mut signatures = Dict::new();
    signatures.set(
        0u16,
        BlockSignature {
            node_id_short: HashBytes(node_id_short(&validator.public)),
            signature: Signature(signature),
        },
    )?;
    let proof = BlockProof {
        proof_for: TychoBlockId {
            shard: ShardIdent::MASTERCHAIN,
            seqno: mc.seqno,
            root_hash: mc.root_hash,
            file_hash: mc.file_hash,
        },
        root: header,
        signatures: Some(BlockSignatures {
            validator_info: ValidatorBaseInfo {
                validator_list_hash_short: info.gen_validator_list_hash_short,
                catchain_seqno: info.gen_catchain_seqno,
            },
            signature_count: 1,
            // The devnet's one validator holds all the weight (1).
            total_weight: 1,
            signatures,
        }),
    };
    Ok(Boc::encode(CellBuilder::build_from(&proof)?))
}
