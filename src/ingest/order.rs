//! Chain order and trust for an import, decided before anything is
//! written.
//!
//! Every block's head is read first: a loose file's from the file, a
//! masterchain entry's from its package (shard entries are known by their
//! names). Blocks are then put in the order their chain made them —
//! masterchain by seqno, each after the shard blocks it commits, those by
//! seqno — whatever the files are called or however packages split them,
//! so that each block's state update finds the state before it. Shard
//! blocks no masterchain block of the input commits come last, named.
//!
//! Masterchain blocks from packages are believed only when their `proof_`
//! entry carries signatures of more than two thirds of the validators in
//! force, as the follower checks a lite server's blocks: from the network's
//! zero state (or the config the index already holds) through each key
//! block on the way. A block that fails fails the import before any unit
//! is written.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;
use tycho_types::boc::Boc;
use tycho_types::cell::Cell;
use tycho_types::models::{BlockProof, BlockchainConfigParams, ShardStateUnsplit};

use tonindex_model::{BlockId, BlockIdExt};
use tonindex_storage::tables::{Blocks, ShardKey, ShardStates};
use tonindex_storage::Db;

use super::sources::{Inputs, OpenPackage, Source};
use super::IngestError;
use crate::chain::liteserver::trust::{BlockSignature, Validators};
use crate::chain::package::{Cut, EntryKind, EntryRef};
use crate::decode::{decode_block_head, file_hash, state::is_block, BlockHead, DecodeError};

/// What an import reads, in the order it is to be applied.
#[derive(Debug, Default)]
pub struct Plan {
    /// Shard state and account files: applied before any block.
    pub states: Vec<Source>,
    /// Blocks in chain order.
    pub blocks: Vec<Source>,
    /// Shard blocks no masterchain block of the input commits (at the end
    /// of `blocks`, each a unit of its own).
    pub uncommitted: Vec<BlockId>,
    /// Packages that end in a partial entry, and where.
    pub cuts: Vec<(PathBuf, Cut)>,
    /// Masterchain blocks whose signatures were checked.
    pub signatures_checked: u64,
    /// Masterchain blocks of packages taken without a check (`--trust-files`).
    pub unchecked: u64,
    /// The same block given more than once (read once).
    pub duplicates: u64,
}

/// Why the input cannot be trusted or ordered.
#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    #[error("two different blocks are both named {0}: {1} and {2}")]
    Conflict(String, String, String),
    #[error("{0}: masterchain block {1} has no proof_ entry in the packages, so its signatures cannot be checked (--trust-files imports without the check)")]
    NoProof(String, u32),
    #[error("{0}: the signatures of masterchain block {1} do not hold: {2:#}")]
    Signatures(String, u32, anyhow::Error),
    #[error("masterchain block {0}: no validator set is known for it: import the network's zero state first (or the packages from genesis), or pass --trust-files")]
    NoValidators(u32),
    #[error("{0}: masterchain block {1} follows key block {2}, which neither the input nor the index holds, so the validators in force are unknown (or --trust-files)")]
    MissingKeyBlock(String, u32, u32),
    #[error("{0}: masterchain block {1} does not follow {2}: its previous block is {3} (packages of another network or a forked chain?)")]
    Link(String, u32, String, String),
    #[error("{0}: loose masterchain block files carry no signatures; import them apart from packages, or pass --trust-files")]
    LooseMasterchain(String),
    #[error("{0}: {1}")]
    Config(String, String),
}

/// One block of the input, as far as ordering and trust read it.
struct Head {
    source: Source,
    id: BlockIdExt,
    /// A masterchain block's head (shard blocks of packages are known by
    /// name only; loose shard blocks carry theirs, unused).
    mc: Option<BlockHead>,
}

/// A masterchain state among the input's files: its seqno, root hash and
/// the config in force after it.
struct McState {
    seqno: u32,
    root_hash: [u8; 32],
    config: BlockchainConfigParams,
}

/// Reads every block's head, checks the packages' signatures (unless
/// `trust_files`) and puts the input in chain order.
pub fn plan_import(db: &Db, inputs: &Inputs, trust_files: bool) -> Result<Plan, IngestError> {
    let mut plan = Plan::default();
    let (file_heads, mc_states) = read_files(inputs, &mut plan)?;
    let package_heads = read_packages(inputs, &mut plan)?;
    let from_packages = package_heads.iter().filter(|h| h.mc.is_some()).count();
    let (mut mcs, shards) = sort_heads(file_heads.into_iter().chain(package_heads), &mut plan)?;
    if from_packages > 0 {
        if trust_files {
            plan.unchecked = from_packages as u64;
            tracing::warn!(
                blocks = from_packages,
                "--trust-files: masterchain blocks of the packages are imported without checking \
                 their signatures"
            );
        } else {
            if let Some(loose) = mcs.values().find(|h| matches!(h.source, Source::File(_))) {
                return Err(OrderError::LooseMasterchain(loose.source.label()).into());
            }
            plan.signatures_checked = check_signatures(db, inputs, &mcs, &mc_states)?;
        }
    }
    chain_order(&mut mcs, shards, &mut plan);
    Ok(plan)
}

/// Loose files: block heads read, state files set apart (masterchain
/// states kept for the config they carry).
fn read_files(inputs: &Inputs, plan: &mut Plan) -> Result<(Vec<Head>, Vec<McState>), IngestError> {
    enum Read {
        Block(Box<Head>),
        State(Option<McState>),
    }
    let read: Vec<Result<Read, IngestError>> = inputs
        .files
        .par_iter()
        .map(|path| {
            let source = Source::File(path.clone());
            let boc = source.read()?;
            let failed = |e| IngestError::Decode(vec![(source.label(), e)]);
            let root = Boc::decode(&boc).map_err(|e| failed(DecodeError::Boc(e.to_string())))?;
            if !is_block(&root) {
                return Ok(Read::State(masterchain_state(&root)));
            }
            let head = decode_block_head(&root, file_hash(&boc)).map_err(failed)?;
            Ok(Read::Block(Box::new(Head {
                id: head.record.id,
                mc: (head.record.id.id.workchain == -1).then_some(head),
                source,
            })))
        })
        .collect();
    let mut heads = Vec::new();
    let mut states = Vec::new();
    let mut failures = Vec::new();
    for (r, path) in read.into_iter().zip(&inputs.files) {
        match r {
            Ok(Read::Block(h)) => heads.push(*h),
            Ok(Read::State(mc)) => {
                plan.states.push(Source::File(path.clone()));
                states.extend(mc);
            }
            // A file that cannot be read stops the import as it did before.
            Err(IngestError::Decode(mut f)) => failures.append(&mut f),
            Err(e) => return Err(e),
        }
    }
    if !failures.is_empty() {
        return Err(IngestError::Decode(failures));
    }
    Ok((heads, states))
}

/// A masterchain state's seqno, root and config, when the root is one
/// (anything else is left to the state decoder, which says what it is).
fn masterchain_state(root: &Cell) -> Option<McState> {
    let state: ShardStateUnsplit = root.parse().ok()?;
    let extra = state.load_custom().ok()??;
    Some(McState {
        seqno: state.seqno,
        root_hash: root.repr_hash().0,
        config: extra.config.params,
    })
}

/// Packages: masterchain entries read for their heads (in parallel),
/// shard entries known by name; cuts recorded.
fn read_packages(inputs: &Inputs, plan: &mut Plan) -> Result<Vec<Head>, IngestError> {
    let mut heads = Vec::new();
    let mut masters = Vec::new();
    for package in &inputs.packages {
        if let Some(cut) = package.index.cut {
            tracing::warn!(
                package = %package.index.path.display(),
                entry = cut.index,
                offset = cut.offset,
                "the package ends inside an entry (a node stopped while writing it?): its whole \
                 entries before it are imported"
            );
            plan.cuts.push((package.index.path.clone(), cut));
        }
        for entry in &package.index.entries {
            if entry.name.kind != EntryKind::Block {
                continue;
            }
            let source = Source::Entry {
                package: package.clone(),
                entry: *entry,
            };
            if entry.name.block.id.workchain == -1 {
                masters.push(source);
            } else {
                heads.push(Head {
                    id: entry.name.block,
                    mc: None,
                    source,
                });
            }
        }
    }
    let read: Vec<Result<Head, IngestError>> = masters
        .into_par_iter()
        .map(|source| {
            let boc = source.read()?;
            let failed = |e| IngestError::Decode(vec![(source.label(), e)]);
            let root = Boc::decode(&boc).map_err(|e| failed(DecodeError::Boc(e.to_string())))?;
            let head = decode_block_head(&root, file_hash(&boc)).map_err(failed)?;
            let named = source
                .named_block()
                .expect("a package entry names its block");
            if head.record.id != named {
                return Err(failed(DecodeError::NotNamed {
                    named: block_name(&named),
                    found: block_name(&head.record.id),
                }));
            }
            Ok(Head {
                id: named,
                mc: Some(head),
                source,
            })
        })
        .collect();
    for r in read {
        heads.push(r?);
    }
    Ok(heads)
}

/// `(wc,shard,seqno)` with short hashes, for messages.
pub fn block_name(id: &BlockIdExt) -> String {
    format!(
        "({},{:016x},{}):{}…:{}…",
        id.id.workchain,
        id.id.shard,
        id.id.seqno,
        &hex::encode_upper(id.root_hash)[..8],
        &hex::encode_upper(id.file_hash)[..8]
    )
}

type McHeads = BTreeMap<u32, Head>;
/// Shard blocks by (workchain, seqno, shard): a block's predecessors sort before it.
type ShardHeads = BTreeMap<(i32, u32, u64), Head>;

/// Masterchain heads by seqno and shard heads by chain position; the same
/// block twice is read once, two different blocks under one id refused.
fn sort_heads(
    heads: impl Iterator<Item = Head>,
    plan: &mut Plan,
) -> Result<(McHeads, ShardHeads), IngestError> {
    let mut mcs = McHeads::new();
    let mut shards = ShardHeads::new();
    for head in heads {
        let id = head.id.id;
        if id.workchain == -1 {
            insert_head(&mut mcs, id.seqno, head, plan)?;
        } else {
            insert_head(&mut shards, (id.workchain, id.seqno, id.shard), head, plan)?;
        }
    }
    Ok((mcs, shards))
}

fn insert_head<K: Ord>(
    map: &mut BTreeMap<K, Head>,
    key: K,
    head: Head,
    plan: &mut Plan,
) -> Result<(), IngestError> {
    match map.entry(key) {
        std::collections::btree_map::Entry::Occupied(o) => same_or_conflict(o.get(), &head, plan),
        std::collections::btree_map::Entry::Vacant(v) => {
            v.insert(head);
            Ok(())
        }
    }
}

fn same_or_conflict(held: &Head, new: &Head, plan: &mut Plan) -> Result<(), IngestError> {
    if held.id != new.id {
        return Err(OrderError::Conflict(
            block_name(&held.id),
            held.source.label(),
            new.source.label(),
        )
        .into());
    }
    plan.duplicates += 1;
    Ok(())
}

/// Checks every masterchain block's signatures; returns how many.
fn check_signatures(
    db: &Db,
    inputs: &Inputs,
    mcs: &McHeads,
    mc_states: &[McState],
) -> Result<u64, IngestError> {
    let Some((&first, first_head)) = mcs.iter().next() else {
        return Ok(0);
    };
    let proofs: HashMap<BlockIdExt, (&Arc<OpenPackage>, &EntryRef)> = inputs
        .packages
        .iter()
        .flat_map(|p| {
            p.index
                .entries
                .iter()
                .filter(|e| e.name.kind == EntryKind::Proof)
                .map(move |e| (e.name.block, (p, e)))
        })
        .collect();
    // The validators in force before the first block, and the block or
    // state it must follow.
    let (mut key_seqno, mut validators) = initial_validators(db, first, mc_states)?;
    check_first_link(db, first_head, mc_states)?;
    // Each block with the validators that sign it: a key block's config
    // puts the next set in force after it.
    let mut jobs = Vec::with_capacity(mcs.len());
    let mut prev: Option<&Head> = None;
    for (&seqno, head) in mcs {
        let record = &head.mc.as_ref().expect("masterchain heads are read").record;
        if let Some(p) = prev.filter(|p| p.id.id.seqno + 1 == seqno) {
            let named = record.prev_blocks.first().map(|r| r.block);
            if named != Some(p.id) {
                return Err(OrderError::Link(
                    head.source.label(),
                    seqno,
                    block_name(&p.id),
                    named.map_or("none".into(), |n| block_name(&n)),
                )
                .into());
            }
        }
        if record.prev_key_block_seqno > key_seqno {
            return Err(OrderError::MissingKeyBlock(
                head.source.label(),
                seqno,
                record.prev_key_block_seqno,
            )
            .into());
        }
        jobs.push((head, validators.clone()));
        if record.key_block {
            let config = head.mc.as_ref().and_then(|m| m.config_boc.as_deref());
            let set = config
                .ok_or_else(|| "the key block carries no config".to_string())
                .and_then(|c| validators_of(c).map_err(|e| format!("{e:#}")))
                .map_err(|e| OrderError::Config(head.source.label(), e))?;
            validators = Arc::new(set);
            key_seqno = seqno;
        }
        prev = Some(head);
    }
    jobs.par_iter()
        .map(|(head, validators)| check_proof(head, validators, &proofs))
        .collect::<Result<Vec<()>, IngestError>>()?;
    Ok(jobs.len() as u64)
}

/// The validator set of a config dictionary BoC (as the index keeps it).
fn validators_of(config_boc: &[u8]) -> anyhow::Result<Validators> {
    let root = Boc::decode(config_boc)?;
    Validators::from_config(&BlockchainConfigParams::from_raw(root))
}

/// The validators in force before masterchain block `first`, with the
/// seqno of the key block (or state) that put them in force: a
/// masterchain state of the input at or below `first - 1`, else the
/// config the index holds there.
fn initial_validators(
    db: &Db,
    first: u32,
    mc_states: &[McState],
) -> Result<(u32, Arc<Validators>), IngestError> {
    let before = first.saturating_sub(1);
    let from_input = mc_states
        .iter()
        .filter(|s| s.seqno <= before)
        .max_by_key(|s| s.seqno);
    let held = crate::query::config_in_force::config_at(&db.reader(), Some(before))
        .map_err(crate::index::IndexError::from)?;
    // The newer of the two puts the validators in force.
    let (seqno, set) = match (from_input, held) {
        (Some(s), Some((k, boc))) if k > s.seqno => (k, validators_of(&boc)),
        (Some(s), _) => (s.seqno, Validators::from_config(&s.config)),
        (None, Some((k, boc))) => (k, validators_of(&boc)),
        (None, None) => return Err(OrderError::NoValidators(first).into()),
    };
    let set = set.map_err(|e| {
        OrderError::Config(
            format!("the config in force at masterchain block {seqno}"),
            format!("{e:#}"),
        )
    })?;
    Ok((seqno, Arc::new(set)))
}

/// The first masterchain block of the input must follow what the index
/// (or the input's masterchain state) holds before it, where either does:
/// packages of another network are refused here.
fn check_first_link(db: &Db, head: &Head, mc_states: &[McState]) -> Result<(), IngestError> {
    let seqno = head.id.id.seqno;
    let record = &head.mc.as_ref().expect("masterchain heads are read").record;
    let Some(prev) = record.prev_blocks.first().map(|r| r.block) else {
        return Ok(());
    };
    let mismatch =
        |what: String| OrderError::Link(head.source.label(), seqno, what, block_name(&prev));
    if let Some(state) = mc_states.iter().find(|s| s.seqno + 1 == seqno) {
        if state.root_hash != prev.root_hash {
            let what = format!(
                "the masterchain state {} of the input",
                hex::encode_upper(state.root_hash)
            );
            return Err(mismatch(what).into());
        }
        return Ok(());
    }
    let before = BlockId {
        workchain: -1,
        shard: prev.id.shard,
        seqno: seqno.saturating_sub(1),
    };
    let held = db
        .get::<Blocks>(&before)
        .map_err(crate::index::IndexError::from)?;
    if let Some(b) = held {
        if b.id != prev {
            return Err(mismatch(format!("the index's block {}", block_name(&b.id))).into());
        }
        return Ok(());
    }
    let key = ShardKey {
        workchain: -1,
        shard: prev.id.shard,
    };
    let state = db
        .get::<ShardStates>(&key)
        .map_err(crate::index::IndexError::from)?;
    if let Some(s) = state.filter(|s| s.seqno + 1 == seqno) {
        if s.root_hash != prev.root_hash {
            let what = format!(
                "the index's masterchain state {}",
                hex::encode_upper(s.root_hash)
            );
            return Err(mismatch(what).into());
        }
    }
    Ok(())
}

/// Checks a masterchain block's `proof_` entry: it is of this very block
/// and carries signatures of more than two thirds of `validators`' weight.
fn check_proof(
    head: &Head,
    validators: &Validators,
    proofs: &HashMap<BlockIdExt, (&Arc<OpenPackage>, &EntryRef)>,
) -> Result<(), IngestError> {
    let seqno = head.id.id.seqno;
    let Some((package, entry)) = proofs.get(&head.id) else {
        return Err(OrderError::NoProof(head.source.label(), seqno).into());
    };
    let label = format!("{}: entry {}", package.index.path.display(), entry.name);
    let fail =
        |e: anyhow::Error| IngestError::from(OrderError::Signatures(label.clone(), seqno, e));
    let data = package.read(entry)?;
    let proof: BlockProof = Boc::decode(&data)
        .map_err(|e| fail(anyhow::anyhow!("not a BoC: {e}")))?
        .parse()
        .map_err(|e| fail(anyhow::anyhow!("not a block proof: {e}")))?;
    let p = &proof.proof_for;
    if p.shard.workchain() != -1
        || p.seqno != seqno
        || p.root_hash.0 != head.id.root_hash
        || p.file_hash.0 != head.id.file_hash
    {
        return Err(fail(anyhow::anyhow!("the proof is of another block")));
    }
    let sigs = proof
        .signatures
        .ok_or_else(|| fail(anyhow::anyhow!("the proof carries no signatures")))?;
    let list: Vec<BlockSignature> = sigs
        .signatures
        .values()
        .map(|s| {
            s.map(|s| BlockSignature {
                node_id_short: s.node_id_short.0,
                signature: s.signature.0.to_vec(),
            })
        })
        .collect::<Result<_, _>>()
        .map_err(|e| fail(anyhow::anyhow!("unreadable signatures: {e}")))?;
    let record = &head.mc.as_ref().expect("masterchain heads are read").record;
    validators
        .check(
            &head.id.root_hash,
            &head.id.file_hash,
            record.gen_catchain_seqno,
            record.validator_list_hash_short,
            sigs.validator_info.validator_list_hash_short,
            &list,
        )
        .map_err(fail)
}

/// The span of shard ids a shard prefix covers.
fn shard_span(shard: u64) -> (u64, u64) {
    let low = shard & shard.wrapping_neg();
    (shard - (low - 1), shard | (low - 1))
}

/// Whether one of two shards contains the other.
fn overlaps(a: u64, b: u64) -> bool {
    let (a0, a1) = shard_span(a);
    let (b0, b1) = shard_span(b);
    a0 <= b1 && b0 <= a1
}

/// Puts the blocks in chain order: for each masterchain block, the shard
/// blocks it commits — every block not yet placed whose shard overlaps a
/// top's and whose seqno is at most the top's (a shard's blocks are its
/// tops' ancestors, seqnos growing along every split and merge) — by
/// seqno, then the masterchain block itself.
fn chain_order(mcs: &mut McHeads, mut shards: ShardHeads, plan: &mut Plan) {
    for (_, mc) in std::mem::take(mcs) {
        let tops: Vec<BlockIdExt> = mc
            .mc
            .as_ref()
            .map(|h| h.shards.iter().map(|s| s.block).collect())
            .unwrap_or_default();
        let mut claimed: Vec<(i32, u32, u64)> = Vec::new();
        let workchains: std::collections::BTreeSet<i32> =
            tops.iter().map(|t| t.id.workchain).collect();
        for wc in workchains {
            let highest = tops
                .iter()
                .filter(|t| t.id.workchain == wc)
                .map(|t| t.id.seqno)
                .max()
                .unwrap_or(0);
            for (&key, _) in shards.range((wc, 0, 0)..=(wc, highest, u64::MAX)) {
                let (_, seqno, shard) = key;
                let committed = tops.iter().any(|t| {
                    t.id.workchain == wc && t.id.seqno >= seqno && overlaps(t.id.shard, shard)
                });
                if committed {
                    claimed.push(key);
                }
            }
        }
        // Keys sort by (workchain, seqno, shard): predecessors first.
        claimed.sort_by_key(|&(wc, seqno, shard)| (seqno, wc, shard));
        for key in claimed {
            if let Some(h) = shards.remove(&key) {
                plan.blocks.push(h.source);
            }
        }
        plan.blocks.push(mc.source);
    }
    let mut rest: Vec<_> = shards.into_iter().collect();
    rest.sort_by_key(|&((wc, seqno, shard), _)| (seqno, wc, shard));
    for (_, h) in rest {
        plan.uncommitted.push(h.id.id);
        plan.blocks.push(h.source);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_overlap_when_one_holds_the_other() {
        let root = 0x8000_0000_0000_0000;
        let (l, r) = (0x4000_0000_0000_0000, 0xc000_0000_0000_0000);
        let ll = 0x2000_0000_0000_0000;
        assert!(overlaps(root, l) && overlaps(r, root) && overlaps(l, ll));
        assert!(!overlaps(l, r) && !overlaps(ll, r));
        assert!(!overlaps(0x6000_0000_0000_0000, ll));
        assert_eq!(shard_span(root), (1, u64::MAX));
    }
}
