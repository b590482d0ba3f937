//! The follower: walks masterchain blocks from a lite server, from the
//! index's cursor forward, and indexes each with the shard blocks it
//! commits — one unit, one WriteBatch, handed to the ingest pipeline as an
//! import's units are — so a restart resumes where the last committed unit
//! ended. What the index holds it asks the pipeline's view.
//!
//! Several lite servers: one is asked at a time; one that cannot be
//! reached, hangs past the step timeout, drops the connection or sends
//! what does not check out is left for the next, in the config's order,
//! and the same block is asked again.
//!
//! Trust: every block must have the root and file hash it was asked by
//! (so a masterchain block's shard blocks are the ones it names, and a
//! zero state the one the global config names). With a trust anchor (the
//! global config's init block, else its zero state), each masterchain
//! block must also be signed by the validators in force — reached by the
//! forward block links from the last trusted key block through every key
//! block after it (`getBlockProof`; each key block's signatures checked
//! and its config put in force, `trust.rs`) — and follow the block indexed
//! before it; a lite server that fails either, or serves another zero
//! state, is left like one that hangs. Without an anchor
//! (`--trust-liteservers`) the signatures are not checked.
//!
//! A follow that starts after the first block (`--from-seqno`) indexes the
//! shard blocks its first masterchain block commits, not those before.
//!
//! Catching up, up to `FETCH_AHEAD` (8) masterchain blocks are fetched ahead
//! (with their shard blocks) on connections of their own to the server the
//! last step used, so that round trips overlap; each is still checked and
//! indexed in order by the step, and one that failed is fetched again
//! there.

use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context as _};
use ton_liteapi::client::LiteClient;
use ton_liteapi::tl::common::{BlockId as LiteBlockId, BlockIdExt as LiteBlockIdExt, Int256};
use tonindex_model::{BlockId, BlockIdExt};

use super::client::Multiplexed;
use super::proofs::check_account_state;
use super::trust::{BlockSignature, Validators};
use super::LiteServerAddr;
use crate::decode::state::decode_state_file;
use crate::decode::{decode_block, file_hash, DecodedBlock};
use crate::ingest::{FetchedAccount, IndexView, Pipeline, SourceUnit};
use crate::query;
use tycho_types::models::ShardAccount;

/// Where a follow starts and stops.
#[derive(Debug, Clone, Default)]
pub struct FollowOptions {
    /// The first masterchain block to index on an empty index (default 1,
    /// the first after the zero state, or the tip with `from_tip`).
    pub from_seqno: Option<u32>,
    /// Without `from_seqno`, an empty index starts at the chain's tip.
    pub from_tip: bool,
    /// Stop once this masterchain block is indexed (else follow forever).
    pub until_seqno: Option<u32>,
    /// How long one lite server may take over one masterchain block's
    /// queries (connecting included) before the next is asked; default
    /// [`STEP_TIMEOUT`].
    pub step_timeout: Option<Duration>,
    /// Where trust starts: the global config's `init_block` (a key block
    /// trusted as given, as tonlib trusts it) or, without one, its zero
    /// state — the block the validators in force are first read from.
    /// `None` = believe the lite servers (no signature checks).
    pub anchor: Option<BlockIdExt>,
    /// The global config's zero state: a lite server whose masterchain
    /// info names another serves another chain and is left.
    pub zero_state: Option<BlockIdExt>,
    /// What the servers last showed (their tips, which keep old blocks):
    /// the follower asks the best placed for the block it wants — alive
    /// ones, archival ones while far behind — and leaves one that falls
    /// behind. `None`: the config's order, in turn.
    pub tips: Option<std::sync::Arc<super::tips::Tips>>,
}

/// The last key block the follower trusts and the validators its config
/// puts in force.
struct Trusted {
    key_block: BlockIdExt,
    validators: Validators,
}

/// What a follow indexed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FollowSummary {
    pub mc_blocks: u64,
    pub shard_blocks: u64,
    pub transactions: u64,
    pub last_mc_seqno: Option<u32>,
    /// When the newest indexed masterchain block was made (unix time).
    pub last_mc_utime: Option<u32>,
}

pub(super) fn lite_id(id: &BlockIdExt) -> LiteBlockIdExt {
    LiteBlockIdExt {
        workchain: id.id.workchain,
        shard: id.id.shard,
        seqno: id.id.seqno,
        root_hash: Int256(id.root_hash),
        file_hash: Int256(id.file_hash),
    }
}

pub(super) fn model_id(id: &LiteBlockIdExt) -> BlockIdExt {
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
    Ok(fetch_boc(client, id).await?.0)
}

/// [`fetch`], with the block's BoC.
async fn fetch_boc(
    client: &mut LiteClient,
    id: &BlockIdExt,
) -> anyhow::Result<(DecodedBlock, Vec<u8>)> {
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
    Ok((block, boc))
}

/// A masterchain state by its full id, checked against it.
async fn fetch_state(
    client: &mut LiteClient,
    id: &BlockIdExt,
) -> anyhow::Result<tycho_types::cell::Cell> {
    let state = client
        .get_state(lite_id(id))
        .await
        .map_err(|e| anyhow!("getState of {id:?}: {e:?}"))?;
    if file_hash(&state.data) != id.file_hash {
        bail!("the lite server sent a state whose file hash is not {id:?}'s");
    }
    let root = tycho_types::boc::Boc::decode(&state.data)?;
    if root.repr_hash().0 != id.root_hash {
        bail!("the lite server sent a state whose root hash is not {id:?}'s");
    }
    Ok(root)
}

/// The validators in force after `key_block` (a key block, or the zero
/// state), read from it as the lite server sends it and checked by its
/// hashes.
async fn trusted_at(client: &mut LiteClient, key_block: &BlockIdExt) -> anyhow::Result<Trusted> {
    let validators = if key_block.id.seqno == 0 {
        Validators::from_state(&fetch_state(client, key_block).await?)
    } else {
        let (_, boc) = fetch_boc(client, key_block).await?;
        Validators::from_key_block(&tycho_types::boc::Boc::decode(&boc)?)
    }
    .with_context(|| format!("the validators of key block {}", key_block.id.seqno))?;
    Ok(Trusted {
        key_block: *key_block,
        validators,
    })
}

/// Where trust starts: the key block in force at the index's newest
/// masterchain block (the zero state or a key block it holds), else the
/// anchor.
async fn initial_trust(
    index: &IndexView,
    client: &mut LiteClient,
    anchor: &BlockIdExt,
) -> anyhow::Result<Trusted> {
    let key_block = match index.last_mc_block()? {
        Some(last) => {
            let seqno = if last.key_block {
                last.id.id.seqno
            } else {
                last.prev_key_block_seqno
            };
            if seqno == 0 {
                *anchor
            } else {
                let id = BlockId {
                    workchain: -1,
                    shard: query::MASTER_SHARD,
                    seqno,
                };
                index
                    .block(&id)?
                    .ok_or_else(|| anyhow!("the index lacks key block {seqno}"))?
                    .id
            }
        }
        None => *anchor,
    };
    trusted_at(client, &key_block).await
}

/// Checks masterchain block `mc` against the validators in force: the
/// forward block links from the trusted key block — through each key block
/// on the way, whose signatures are checked and whose config puts the next
/// validators in force — to `mc`, whose signatures must verify. The
/// anchor itself is trusted as given.
async fn check_signatures(
    client: &mut LiteClient,
    trusted: &mut Trusted,
    mc: &DecodedBlock,
) -> anyhow::Result<()> {
    let id = mc.record.id;
    if id == trusted.key_block {
        return Ok(());
    }
    if id.id.seqno < trusted.key_block.id.seqno {
        bail!(
            "masterchain block {} is older than the trusted key block {}: start at or after \
             it (--from-seqno), or --trust-liteservers",
            id.id.seqno,
            trusted.key_block.id.seqno
        );
    }
    loop {
        let proof = client
            .get_block_proof(
                lite_id(&trusted.key_block),
                Some(lite_id(&id)),
                false,
                false,
            )
            .await
            .map_err(|e| anyhow!("getBlockProof of masterchain block {}: {e:?}", id.id.seqno))?;
        if proof.steps.is_empty() {
            bail!(
                "the lite server gave no block links to masterchain block {}",
                id.id.seqno
            );
        }
        for step in &proof.steps {
            let ton_liteapi::tl::common::BlockLink::BlockLinkForward {
                to_key_block,
                from,
                to,
                signatures,
                ..
            } = step
            else {
                bail!("the lite server gave a backward link where a forward one was asked");
            };
            if model_id(from) != trusted.key_block {
                bail!("a block link does not start at the trusted key block");
            }
            let sigs: Vec<BlockSignature> = signatures
                .signatures
                .iter()
                .map(|s| BlockSignature {
                    node_id_short: s.node_id_short.0,
                    signature: s.signature.clone(),
                })
                .collect();
            let to = model_id(to);
            // The header fields the signatures are checked with: the
            // target's, or the key block's on the way (fetched by the id
            // the signatures cover, so hash-checked).
            let (record, key_boc) = if to == id {
                (mc.record.clone(), None)
            } else if *to_key_block {
                let (block, boc) = fetch_boc(client, &to).await?;
                (block.record, Some(boc))
            } else {
                bail!("a block link leads to a block that is neither the target nor a key block");
            };
            trusted
                .validators
                .check(
                    &to.root_hash,
                    &to.file_hash,
                    record.gen_catchain_seqno,
                    record.validator_list_hash_short,
                    signatures.validator_set_hash,
                    &sigs,
                )
                .with_context(|| format!("masterchain block {}'s signatures", to.id.seqno))?;
            if to == id {
                return Ok(());
            }
            if let Some(boc) = key_boc {
                if !record.key_block {
                    bail!("block {} is called a key block but is not one", to.id.seqno);
                }
                // The key block's config puts the next validators in force.
                *trusted = Trusted {
                    key_block: to,
                    validators: Validators::from_key_block(&tycho_types::boc::Boc::decode(&boc)?)
                        .with_context(|| {
                        format!("the validators of key block {}", to.id.seqno)
                    })?,
                };
            }
        }
        // An incomplete chain: asked again from the key block reached.
    }
}

/// A zero state by its id (a lite server gives those whole), checked
/// against the id and imported as `tonindex import` imports state files.
async fn import_zero_state(
    pipeline: &Pipeline,
    client: &mut LiteClient,
    id: &BlockIdExt,
) -> anyhow::Result<()> {
    let root = fetch_state(client, id).await?;
    let file = decode_state_file(&root).with_context(|| format!("decoding zero state {id:?}"))?;
    pipeline.apply_state(&file)?;
    Ok(())
}

/// The zero states the first blocks of a unit start from (a block with
/// seqno 1 follows its chain's zero state): on a fresh follow they come
/// first, so that the index replays every state from there, as an import
/// of the chain's files with its zero states does.
async fn zero_states_of(
    pipeline: &Pipeline,
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
            import_zero_state(pipeline, client, &prev.block).await?;
        }
    }
    Ok(())
}

/// The libraries the unit's accounts' code names (a library reference at
/// the root, as USDT wallets' code is) that the index's get-methods would
/// lack — a follower holds no masterchain state — fetched with
/// `getLibraries`, each checked against its hash, and handed to the index.
async fn fetch_libraries(
    pipeline: &Pipeline,
    client: &mut LiteClient,
    accounts: &[FetchedAccount],
) -> anyhow::Result<()> {
    let mut wanted: Vec<tycho_types::cell::HashBytes> = accounts
        .iter()
        .filter_map(|a| a.shard_account.parse::<ShardAccount>().ok())
        .filter_map(|sa| crate::tvm::emulate::code_library(&sa))
        .collect();
    wanted.sort();
    wanted.dedup();
    let missing = pipeline.missing_libraries(&wanted);
    for chunk in missing.chunks(16) {
        let entries = client
            .get_libraries(chunk.iter().map(|h| Int256(h.0)).collect())
            .await
            .map_err(|e| anyhow!("getLibraries: {e:?}"))?;
        let cells = super::client::checked_libraries(entries, chunk)?;
        pipeline.add_libraries(cells)?;
    }
    Ok(())
}

/// The states of the contracts that vouch for the step's fetched accounts
/// (the master of a Jetton wallet, the collection of an NFT item, the
/// multisig of an order) that the index does not hold — a follower from the
/// tip never saw them change — proven at the step's masterchain block and
/// added to its accounts (with the libraries their code needs), so the
/// unit confirms its tokens as an index from the zero state would.
async fn fetch_parents(
    pipeline: &Pipeline,
    client: &mut LiteClient,
    conn: &std::sync::Arc<Multiplexed>,
    s: &mut Stepped,
) -> anyhow::Result<()> {
    let Some(mc) = s.blocks.last() else {
        return Ok(());
    };
    let (mc_id, now) = (mc.record.id, mc.record.gen_utime);
    let parents = pipeline.parents_to_fetch(&s.accounts, mc_id.id.seqno, now)?;
    if parents.is_empty() {
        return Ok(());
    }
    let wanted: Vec<_> = parents.into_iter().map(|a| (a, None)).collect();
    let fetched = fetch_states(conn, &mc_id, &wanted).await?;
    fetch_libraries(pipeline, client, &fetched).await?;
    s.accounts.extend(fetched);
    Ok(())
}

/// The config of the key block in force at masterchain block `mc`, when
/// the index holds none at or below it (a follow that starts after that
/// key block, as one from the tip does): the verified key block the trust
/// walk reached, else the one the lite server names, its hashes checked.
async fn config_in_force(
    index: &IndexView,
    client: &mut LiteClient,
    mc: Option<&DecodedBlock>,
    trusted: Option<&Trusted>,
) -> anyhow::Result<Option<(u32, Vec<u8>)>> {
    let Some(mc) = mc else { return Ok(None) };
    let seqno = mc.record.id.id.seqno;
    if mc.record.key_block || mc.record.prev_key_block_seqno == 0 || index.has_config_at(seqno)? {
        // A key block brings its own; the zero state's is the import's.
        return Ok(None);
    }
    let key = mc.record.prev_key_block_seqno;
    let id = match trusted {
        Some(t) if t.key_block.id.seqno == key => t.key_block,
        _ => mc_block_id(client, key).await?,
    };
    let (block, _) = fetch_boc(client, &id).await?;
    let config = block
        .config_boc
        .ok_or_else(|| anyhow!("key block {key} carries no config"))?;
    tracing::info!("keeping the config of key block {key}, in force at masterchain block {seqno}");
    Ok(Some((key, config)))
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
/// previous blocks (both of them after a merge; the parent after a split)
/// to the blocks the previous masterchain block committed (held by the
/// index, or named in `stop` on a fresh start).
async fn new_shard_blocks(
    index: Option<&IndexView>,
    client: &mut LiteClient,
    mc: &DecodedBlock,
    stop: &[BlockId],
) -> anyhow::Result<Vec<DecodedBlock>> {
    let mut pending: Vec<BlockIdExt> = mc.shards.iter().map(|s| s.block).collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while let Some(id) = pending.pop() {
        if !seen.insert(id.id) || id.id.seqno == 0 || committed_before(stop, &id.id) {
            continue;
        }
        if let Some(index) = index {
            if index.block(&id.id)?.is_some() {
                continue;
            }
        }
        let block = fetch(client, &id).await?;
        if block.record.prev_blocks.is_empty() {
            bail!("shard block {id:?} has no previous block");
        }
        pending.extend(block.record.prev_blocks.iter().map(|p| p.block));
        out.push(block);
    }
    // Seqnos grow along a shard's history (across splits and merges too):
    // ordered by them, every block comes after the blocks it follows.
    out.sort_by_key(|b| (b.record.id.id.seqno, b.record.id.id.shard));
    Ok(out)
}

/// Whether shard block `id` is at or before a block of `stop` of its
/// shard, or of a shard it split from or merged into (seqnos grow along a
/// shard's history, across splits and merges).
fn committed_before(stop: &[BlockId], id: &BlockId) -> bool {
    stop.iter().any(|s| {
        s.workchain == id.workchain && shards_intersect(s.shard, id.shard) && id.seqno <= s.seqno
    })
}

/// Whether two shards (TON's tagged prefixes) share accounts: one holds
/// the other.
fn shards_intersect(a: u64, b: u64) -> bool {
    let bits = |s: u64| 63 - s.trailing_zeros(); // prefix length
    let len = bits(a).min(bits(b));
    if len == 0 {
        return true;
    }
    let mask = !0u64 << (64 - len);
    (a & mask) == (b & mask)
}

/// How long one lite server may take over one masterchain block's
/// queries before the follower gives up on it and asks the next.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(15);

/// How long the current lite server's tip may stand still, with the index
/// at it, before the next server is asked (one that stopped following its
/// network would otherwise hold the follower back for good).
pub const STALE_AFTER: Duration = Duration::from_secs(20);

/// How many times in a row every lite server may fail before the follow
/// stops with the last error.
const ROUNDS: usize = 3;

/// The lite servers a follow may ask, one connection at a time: a server
/// that cannot be reached, hangs, drops the connection or sends what does
/// not check out is left for the next one, in the config's order.
struct Pool<'a> {
    servers: &'a [LiteServerAddr],
    current: usize,
    client: Option<LiteClient>,
    /// Failures since the last step that succeeded.
    failures: usize,
    timeout: Duration,
    /// What the servers last showed, if watched: the next server is the
    /// next in its order for the block wanted.
    tips: Option<std::sync::Arc<super::tips::Tips>>,
    /// The masterchain block the follower wants next.
    want: Option<u32>,
}

impl<'a> Pool<'a> {
    fn new(
        servers: &'a [LiteServerAddr],
        timeout: Duration,
        tips: Option<std::sync::Arc<super::tips::Tips>>,
    ) -> Self {
        Self {
            servers,
            current: 0,
            client: None,
            failures: 0,
            timeout,
            tips,
            want: None,
        }
    }

    /// The server to ask after the current one: the next in the tips'
    /// order for the block wanted, else in the config's.
    fn next_server(&self) -> usize {
        match &self.tips {
            Some(tips) => {
                let order = tips.order(self.want);
                let at = order.iter().position(|&i| i == self.current);
                at.map_or(order[0], |at| order[(at + 1) % order.len()])
            }
            None => (self.current + 1) % self.servers.len(),
        }
    }

    /// A server better placed than the current one for the block wanted,
    /// if the tips know one.
    fn better_server(&self) -> Option<usize> {
        let tips = self.tips.as_ref()?;
        let best = *tips.order(self.want).first()?;
        (best != self.current && tips.better(best, self.current, self.want)).then_some(best)
    }

    /// Moves to server `i` (not as a failure).
    fn switch(&mut self, i: usize) {
        self.client = None;
        self.current = i;
    }

    fn server(&self) -> &LiteServerAddr {
        &self.servers[self.current]
    }

    /// The connection to the current server, made if need be.
    async fn client(&mut self) -> anyhow::Result<&mut LiteClient> {
        if self.client.is_none() {
            let server = self.server().clone();
            let client =
                tokio::time::timeout(self.timeout, LiteClient::connect(server.addr, server.key))
                    .await
                    .map_err(|_| anyhow!("connecting to {} timed out", server.addr))?
                    .map_err(|e| anyhow!("connecting to {}: {e:?}", server.addr))?;
            self.client = Some(client);
        }
        Ok(self.client.as_mut().expect("connected above"))
    }

    /// Moves on to the next server without counting a failure.
    fn rotate(&mut self) {
        self.switch(self.next_server());
    }

    /// Leaves the current server after `e`; an error once every server has
    /// failed [`ROUNDS`] times in a row.
    async fn fail(&mut self, e: anyhow::Error) -> anyhow::Result<()> {
        self.failures += 1;
        tracing::warn!(
            "lite server {} failed: {e:#}; asking the next one",
            self.server().addr
        );
        self.switch(self.next_server());
        if self.failures >= ROUNDS * self.servers.len() {
            return Err(e.context("every lite server failed"));
        }
        if self.failures.is_multiple_of(self.servers.len()) {
            // A round over every server: give them a moment.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        Ok(())
    }
}

/// What the follower holds of the server it follows now: units fetched
/// ahead (seqno, task) and idle connections for them, the tip and server
/// they were fetched under, the connection account states are read on,
/// and since when the server has shown no block past the index's.
#[derive(Default)]
struct FromServer {
    ahead: std::collections::VecDeque<(u32, AheadTask)>,
    idle: Vec<LiteClient>,
    known_tip: Option<(u32, usize)>,
    states: Option<(usize, std::sync::Arc<Multiplexed>)>,
    still_since: Option<Instant>,
}

impl FromServer {
    /// Drops all of it (the server is left, or the follow ends).
    fn leave(&mut self) {
        for (_, task) in self.ahead.drain(..) {
            task.abort();
        }
        *self = Self::default();
    }

    /// Catching up: keeps [`FETCH_AHEAD`] units past `next` (up to
    /// `until`) in flight from the server the last step checked, when
    /// that is still `current`.
    fn fetch_ahead(
        &mut self,
        servers: &[LiteServerAddr],
        current: usize,
        next: u32,
        until: Option<u32>,
        timeout: Duration,
    ) {
        let Some((tip, server)) = self.known_tip.filter(|(_, s)| *s == current) else {
            return;
        };
        let last = until.map_or(tip, |u| u.min(tip));
        let mut s = self
            .ahead
            .back()
            .map_or(next + 1, |(s, _)| s + 1)
            .max(next + 1);
        while s <= last && s <= next + FETCH_AHEAD {
            let task = tokio::spawn(fetch_ahead(
                servers[server].clone(),
                self.idle.pop(),
                s,
                timeout,
            ));
            self.ahead.push_back((s, task));
            s += 1;
        }
    }

    /// Unit `next`, if it was fetched ahead (one that failed is fetched
    /// again in the step, with the pool's failover).
    async fn fetched(&mut self, next: u32) -> Ahead {
        if self.ahead.front().is_none_or(|(s, _)| *s != next) {
            return Ahead::Nothing;
        }
        let (_, task) = self.ahead.pop_front().expect("checked above");
        match (task.await, self.known_tip) {
            (Ok((client, Ok(blocks))), Some((tip, _))) => {
                self.idle.extend(client);
                Ahead::Fetched { tip, blocks }
            }
            (Ok((_, Err(e))), _) => {
                tracing::debug!("fetching masterchain block {next} ahead failed: {e:#}");
                Ahead::Nothing
            }
            _ => Ahead::Nothing,
        }
    }
}

/// A unit being fetched ahead, and the connection it hands back.
type AheadTask = tokio::task::JoinHandle<(Option<LiteClient>, anyhow::Result<Vec<DecodedBlock>>)>;

/// What a step finds fetched ahead for its masterchain block.
enum Ahead {
    Nothing,
    /// The unit (shard blocks, then the masterchain block), fetched from a
    /// server whose chain was checked, while the tip was `tip`.
    Fetched {
        tip: u32,
        blocks: Vec<DecodedBlock>,
    },
}

/// How many masterchain blocks are fetched ahead while catching up, each
/// on a connection of its own: on a real network most of a block's time
/// is round trips, and these overlap.
const FETCH_AHEAD: u32 = 8;

/// Masterchain block `seqno` and the shard blocks it commits, fetched on
/// a connection of its own (made if `client` is `None`) and handed back
/// with it: the block by `lookupBlock`, its shard blocks back to those the
/// previous masterchain block committed (that block is fetched for its
/// shard tops). Hash-checked; not trusted until the follower checks it.
async fn fetch_ahead(
    server: LiteServerAddr,
    client: Option<LiteClient>,
    seqno: u32,
    timeout: Duration,
) -> (Option<LiteClient>, anyhow::Result<Vec<DecodedBlock>>) {
    let mut client = match client {
        Some(c) => c,
        None => {
            match tokio::time::timeout(timeout, LiteClient::connect(server.addr, server.key)).await
            {
                Ok(Ok(c)) => c,
                Ok(Err(e)) => return (None, Err(anyhow!("connecting: {e:?}"))),
                Err(_) => return (None, Err(anyhow!("connecting timed out"))),
            }
        }
    };
    let work = async {
        let mc_id = mc_block_id(&mut client, seqno).await?;
        let mc = fetch(&mut client, &mc_id).await?;
        let stop: Vec<BlockId> = match mc.record.prev_blocks.first() {
            Some(prev) if seqno > 1 => fetch(&mut client, &prev.block)
                .await?
                .shards
                .iter()
                .map(|s| s.block.id)
                .collect(),
            _ => Vec::new(),
        };
        let mut blocks = new_shard_blocks(None, &mut client, &mc, &stop).await?;
        blocks.push(mc);
        anyhow::Ok(blocks)
    };
    let out = tokio::time::timeout(timeout, work)
        .await
        .unwrap_or_else(|_| Err(anyhow!("no answer in {timeout:?}")));
    (out.is_ok().then_some(client), out)
}

/// What one step fetched: the chain's tip, and the unit of masterchain
/// block `next` once the tip has reached it.
#[allow(clippy::too_many_arguments)]
async fn step(
    pipeline: &Pipeline,
    client: &mut LiteClient,
    trusted: Option<&mut Trusted>,
    zero_state: Option<&BlockIdExt>,
    next: u32,
    ahead: Ahead,
    states: Option<&std::sync::Arc<Multiplexed>>,
) -> anyhow::Result<(u32, Option<Stepped>)> {
    // The tip is asked for (and the server's chain checked) unless a
    // prefetched unit of a server already checked is at hand.
    let (tip, mut prefetched) = match ahead {
        Ahead::Fetched { tip, blocks } => (tip, Some(blocks)),
        Ahead::Nothing => {
            let info = client
                .get_masterchain_info()
                .await
                .map_err(|e| anyhow!("getMasterchainInfo: {e:?}"))?;
            if let Some(zs) = zero_state {
                if info.init.root_hash.0 != zs.root_hash || info.init.file_hash.0 != zs.file_hash {
                    bail!(
                        "the lite server serves another chain: its zero state is not the \
                         global config's"
                    );
                }
            }
            (info.last.seqno, None)
        }
    };
    if next > tip {
        return Ok((tip, None));
    }
    let mc = match prefetched.as_mut().and_then(|b| b.pop()) {
        Some(mc) => mc,
        None => {
            let mc_id = mc_block_id(client, next).await?;
            fetch(client, &mc_id).await?
        }
    };
    if mc.record.id.id.seqno != next || mc.record.id.id.workchain != -1 {
        bail!("the lite server sent another block than masterchain block {next}");
    }
    if let Some(trusted) = trusted {
        check_signatures(client, trusted, &mc).await?;
        // It follows the block indexed before it.
        let prev_id = BlockId {
            workchain: -1,
            shard: query::MASTER_SHARD,
            seqno: next - 1,
        };
        if let Some(prev) = pipeline.view().block(&prev_id)? {
            if mc.record.prev_blocks.first().map(|p| p.block) != Some(prev.id) {
                bail!(
                    "masterchain block {next} does not follow the indexed block {}",
                    next - 1
                );
            }
        }
    }
    // On a fresh start after the first block, the shard blocks committed
    // before this masterchain block are not fetched: the walk back stops at
    // the tops the previous masterchain block committed.
    let prev_mc = BlockId {
        workchain: -1,
        shard: query::MASTER_SHARD,
        seqno: next - 1,
    };
    let mut blocks = match prefetched {
        Some(shard_blocks) => shard_blocks,
        None => {
            let stop = match mc.record.prev_blocks.first() {
                Some(prev) if next > 1 && pipeline.view().block(&prev_mc)?.is_none() => {
                    fetch(client, &prev.block)
                        .await?
                        .shards
                        .iter()
                        .map(|s| s.block.id)
                        .collect()
                }
                _ => Vec::new(),
            };
            new_shard_blocks(Some(pipeline.view()), client, &mc, &stop).await?
        }
    };
    let mc_id = mc.record.id;
    blocks.push(mc);
    zero_states_of(pipeline, client, &blocks).await?;
    let accounts = match states {
        Some(conn) => fetch_account_states(pipeline.view(), conn, &mc_id, &blocks).await?,
        None => Vec::new(),
    };
    Ok((tip, Some(Stepped { blocks, accounts })))
}

/// One step's unit, and the states of the accounts it changed that the
/// index holds no shard state for.
struct Stepped {
    blocks: Vec<DecodedBlock>,
    accounts: Vec<FetchedAccount>,
}

/// How many account states are asked for at once on one connection.
const ACCOUNTS_AT_ONCE: usize = 256;

/// The states, as of masterchain block `mc`, of the accounts `blocks`
/// changed whose shard state the index does not hold (a follow that did
/// not start at the zero state replays none): asked for all at once on
/// one connection, each believed only when its proofs lead from `mc`'s
/// root hash to it (`proofs.rs`). An account the proven state lacks is
/// recorded as none, after its newest transaction in the unit.
async fn fetch_account_states(
    index: &IndexView,
    conn: &std::sync::Arc<Multiplexed>,
    mc: &BlockIdExt,
    blocks: &[DecodedBlock],
) -> anyhow::Result<Vec<FetchedAccount>> {
    let held: Vec<(i32, u64)> = index
        .held_states()?
        .into_iter()
        .map(|h| (h.workchain, h.shard))
        .collect();
    // Each changed account whose shard state is not held, with its newest
    // transaction in the unit.
    let mut changed: std::collections::HashMap<tonindex_model::Address, (u64, [u8; 32])> =
        Default::default();
    for tx in blocks.iter().flat_map(|b| &b.transactions) {
        let a = tx.record.account;
        if held
            .iter()
            .any(|(wc, shard)| *wc == a.workchain && a.in_shard(*shard))
        {
            continue;
        }
        let e = changed.entry(a).or_insert((0, [0; 32]));
        if tx.record.lt >= e.0 {
            *e = (tx.record.lt, tx.record.hash);
        }
    }
    let changed: Vec<_> = changed.into_iter().map(|(a, n)| (a, Some(n))).collect();
    fetch_states(conn, mc, &changed).await
}

/// An account's newest transaction in a unit: `(lt, hash)`.
type NewestTx = (u64, [u8; 32]);

/// The states of `wanted` as of masterchain block `mc`, asked for all at
/// once on one connection, each believed only when its proofs lead from
/// `mc`'s root hash to it (`proofs.rs`). An account the proven state lacks
/// is recorded as none after its newest transaction in the unit, where
/// one is given, else left out.
async fn fetch_states(
    conn: &std::sync::Arc<Multiplexed>,
    mc: &BlockIdExt,
    wanted: &[(tonindex_model::Address, Option<NewestTx>)],
) -> anyhow::Result<Vec<FetchedAccount>> {
    let mut out = Vec::with_capacity(wanted.len());
    for chunk in wanted.chunks(ACCOUNTS_AT_ONCE) {
        let mut asked = tokio::task::JoinSet::new();
        for (address, newest) in chunk.iter().copied() {
            let (conn, mc) = (std::sync::Arc::clone(conn), *mc);
            asked.spawn(async move {
                let request = ton_liteapi::tl::request::Request::GetAccountState(
                    ton_liteapi::tl::request::GetAccountState {
                        id: lite_id(&mc),
                        account: ton_liteapi::tl::common::AccountId {
                            workchain: address.workchain,
                            id: Int256(address.id),
                        },
                    },
                );
                let answer = match conn.query(request).await {
                    Ok(ton_liteapi::tl::response::Response::AccountState(a)) => a,
                    Ok(other) => bail!("getAccountState answered {other:?}"),
                    Err(e) => bail!("getAccountState of {address:?}: {e:?}"),
                };
                let proven = check_account_state(
                    &mc,
                    &tycho_types::cell::HashBytes(address.id),
                    &model_id(&answer.shardblk),
                    &answer.shard_proof,
                    &answer.proof,
                    &answer.state,
                )
                .with_context(|| format!("the state of {address:?}"))?;
                let shard_account = match (proven.shard_account, newest) {
                    (Some(sa), _) => sa,
                    (None, Some(newest)) => ShardAccount {
                        account: tycho_types::cell::Lazy::new(
                            &tycho_types::models::OptionalAccount::EMPTY,
                        )?,
                        last_trans_hash: tycho_types::cell::HashBytes(newest.1),
                        last_trans_lt: newest.0,
                    },
                    (None, None) => return anyhow::Ok(None),
                };
                anyhow::Ok(Some(FetchedAccount {
                    address,
                    shard_account: tycho_types::cell::CellBuilder::build_from(&shard_account)?,
                    source: proven.shard_block.id,
                    gen_utime: proven.gen_utime,
                }))
            });
        }
        while let Some(done) = asked.join_next().await {
            out.extend(done.map_err(|e| anyhow!("an account read stopped: {e}"))??);
        }
    }
    Ok(out)
}

/// The newest masterchain block's seqno, from the pool's servers in turn.
async fn tip_now(pool: &mut Pool<'_>, timeout: Duration) -> anyhow::Result<u32> {
    loop {
        let tip = match pool.client().await {
            Ok(client) => tokio::time::timeout(timeout, client.get_masterchain_info())
                .await
                .map_err(|_| anyhow!("no answer in {timeout:?}"))
                .and_then(|r| r.map_err(|e| anyhow!("getMasterchainInfo: {e:?}"))),
            Err(e) => Err(e),
        };
        match tip {
            Ok(info) => return Ok(info.last.seqno),
            Err(e) => pool.fail(e).await?,
        }
    }
}

/// The masterchain block a follow starts at: the one after the index's
/// newest, else the one asked for, else the tip (`from_tip`), else 1.
async fn first_seqno(
    pipeline: &Pipeline,
    opts: &FollowOptions,
    pool: &mut Pool<'_>,
    timeout: Duration,
) -> anyhow::Result<u32> {
    Ok(match (pipeline.view().last_mc_seqno()?, opts.from_seqno) {
        (Some(last), _) => last + 1,
        (None, Some(from)) => from.max(1),
        (None, None) if opts.from_tip => {
            let tip = tip_now(pool, timeout).await?;
            tracing::info!("following from the tip, masterchain block {tip}");
            tip
        }
        (None, None) => 1,
    })
}

/// Follows the chain the lite servers serve into `db` until `until_seqno`
/// (or forever), polling for new masterchain blocks every `poll`.
pub async fn follow(
    pipeline: &Pipeline,
    servers: &[LiteServerAddr],
    opts: &FollowOptions,
    poll: Duration,
    mut progress: impl FnMut(&FollowSummary, u32),
) -> anyhow::Result<FollowSummary> {
    if servers.is_empty() {
        bail!("no lite server to follow");
    }
    let timeout = opts.step_timeout.unwrap_or(STEP_TIMEOUT);
    let mut pool = Pool::new(servers, timeout, opts.tips.clone());
    if let Some(tips) = &opts.tips {
        // Start with the best placed server, once every one was asked.
        tips.first_round(timeout).await;
        pool.switch(tips.order(None)[0]);
        tracing::info!(
            "asking lite server {} first ({} of {} answer)",
            servers[pool.current].addr,
            tips.answering(),
            servers.len()
        );
    }
    if opts.anchor.is_none() {
        tracing::warn!(
            "following without trust checks: masterchain blocks are NOT checked against \
             validator signatures, and a lying lite server would be believed"
        );
    }
    let mut trusted: Option<Trusted> = None;
    let mut summary = FollowSummary::default();
    let mut next = first_seqno(pipeline, opts, &mut pool, timeout).await?;
    let mut srv = FromServer::default();
    loop {
        if opts.until_seqno.is_some_and(|until| next > until) {
            srv.leave();
            return Ok(summary);
        }
        pool.want = Some(next);
        // A server that fell behind the others (or, far behind, one that
        // keeps old blocks when this one does not) is left for the best.
        if let Some(best) = pool.better_server() {
            tracing::info!(
                "lite server {} is better placed for masterchain block {next} than {}; \
                 asking it",
                servers[best].addr,
                servers[pool.current].addr
            );
            pool.switch(best);
            srv.leave();
        }
        srv.fetch_ahead(servers, pool.current, next, opts.until_seqno, timeout);
        let prefetched = srv.fetched(next).await;
        let current = pool.current;
        if srv.states.as_ref().is_some_and(|(s, _)| *s != current) {
            srv.states = None;
        }
        let fetched = match pool.client().await {
            Ok(client) => {
                let at = Fetch {
                    server: &servers[current],
                    current,
                    next,
                    prefetched,
                };
                fetch_unit(pipeline, opts, client, &mut trusted, &mut srv, at, timeout).await
            }
            Err(e) => Err(e),
        };
        let ((tip, blocks), config) = match fetched {
            Ok(f) => f,
            Err(e) => {
                srv.leave();
                pool.fail(e).await?;
                continue;
            }
        };
        pool.failures = 0;
        srv.known_tip = Some((tip, pool.current));
        let Some(Stepped { blocks, accounts }) = blocks else {
            // At this server's tip. One whose tip stands still while others
            // may have moved on is left for the next (not as a failure: on
            // a quiet chain every server's tip stands still).
            let stands_since = *srv.still_since.get_or_insert_with(Instant::now);
            if servers.len() > 1 && stands_since.elapsed() >= STALE_AFTER {
                tracing::info!(
                    "lite server {} has had no new masterchain block for {STALE_AFTER:?}; \
                     asking the next one",
                    servers[pool.current].addr
                );
                pool.rotate();
                srv.leave();
            }
            tokio::time::sleep(poll).await;
            continue;
        };
        srv.still_since = None;
        // A key block puts the validators of its config in force.
        let new_key_block = match (&trusted, blocks.last()) {
            (Some(_), Some(mc)) if mc.record.key_block => Some(mc.record.id),
            _ => None,
        };
        summary.shard_blocks += blocks.len() as u64 - 1;
        summary.transactions += blocks
            .iter()
            .map(|b| b.transactions.len() as u64)
            .sum::<u64>();
        let utime = blocks.last().map(|mc| mc.record.gen_utime);
        pipeline
            .apply(SourceUnit {
                blocks,
                accounts,
                config,
            })
            .with_context(|| format!("indexing masterchain block {next}"))?;
        if next >= tip {
            // At the tip, the next block is seconds away: the traces of
            // this one are assembled and classified now rather than with it.
            pipeline
                .flush()
                .with_context(|| format!("writing the traces of masterchain block {next}"))?;
        }
        summary.mc_blocks += 1;
        summary.last_mc_seqno = Some(next);
        summary.last_mc_utime = utime;
        if new_key_block.is_some() {
            // Read again from the index on the next step.
            trusted = None;
        }
        progress(&summary, tip);
        next += 1;
    }
}

/// Where one step of [`follow`] reads: the server asked (and its index
/// among the servers), the masterchain block wanted, and what was
/// prefetched of it.
struct Fetch<'a> {
    server: &'a LiteServerAddr,
    current: usize,
    next: u32,
    prefetched: Ahead,
}

/// One step of [`follow`] within `timeout`: the validator set trusted
/// (first time), the connection account states are read on, the unit of
/// masterchain block `at.next` (or the tip when it is not there yet), the
/// config in force at it, and the libraries and parent states it needs.
async fn fetch_unit(
    pipeline: &Pipeline,
    opts: &FollowOptions,
    client: &mut LiteClient,
    trusted: &mut Option<Trusted>,
    srv: &mut FromServer,
    at: Fetch<'_>,
    timeout: Duration,
) -> anyhow::Result<((u32, Option<Stepped>), Option<(u32, Vec<u8>)>)> {
    tokio::time::timeout(timeout, async {
        if let (Some(anchor), None) = (&opts.anchor, &*trusted) {
            *trusted = Some(initial_trust(pipeline.view(), client, anchor).await?);
        }
        if srv.states.is_none() {
            let conn = Multiplexed::connect(at.server)
                .await
                .map_err(|e| anyhow!("connecting to {}: {e:?}", at.server.addr))?;
            srv.states = Some((at.current, std::sync::Arc::new(conn)));
        }
        let mut stepped = step(
            pipeline,
            client,
            trusted.as_mut(),
            opts.zero_state.as_ref(),
            at.next,
            at.prefetched,
            srv.states.as_ref().map(|(_, c)| c),
        )
        .await?;
        let mc = stepped.1.as_ref().and_then(|s| s.blocks.last());
        let config = config_in_force(pipeline.view(), client, mc, trusted.as_ref()).await?;
        if let Some(s) = &mut stepped.1 {
            fetch_libraries(pipeline, client, &s.accounts).await?;
            if let Some((_, conn)) = srv.states.as_ref() {
                fetch_parents(pipeline, client, conn, s).await?;
            }
        }
        Ok((stepped, config))
    })
    .await
    .unwrap_or_else(|_| Err(anyhow!("no answer in {timeout:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(shard: u64, seqno: u32) -> BlockId {
        BlockId {
            workchain: 0,
            shard,
            seqno,
        }
    }

    #[test]
    fn blocks_before_the_previous_tops_are_not_fetched_across_splits_and_merges() {
        let full = 0x8000_0000_0000_0000;
        let (left, right) = (0x4000_0000_0000_0000, 0xc000_0000_0000_0000);
        let left_left = 0x2000_0000_0000_0000;
        assert!(shards_intersect(full, left) && shards_intersect(right, full));
        assert!(!shards_intersect(left, right));
        assert!(shards_intersect(left_left, left) && !shards_intersect(left_left, right));
        // The previous masterchain block committed the whole shard at 10.
        let stop = [id(full, 10)];
        assert!(committed_before(&stop, &id(full, 10)));
        assert!(committed_before(&stop, &id(full, 9)));
        assert!(!committed_before(&stop, &id(full, 11)));
        // After a split, the children (seqno 11 on) are new.
        assert!(!committed_before(&stop, &id(left, 11)));
        // Two halves committed at 20 and 22: their merge (23) is new, the
        // halves and older blocks of either are not.
        let stop = [id(left, 20), id(right, 22)];
        assert!(!committed_before(&stop, &id(full, 23)));
        assert!(committed_before(&stop, &id(left, 20)));
        assert!(committed_before(&stop, &id(right, 21)));
        assert!(!committed_before(&stop, &id(left, 21)));
        // Another workchain is never covered.
        let other = BlockId {
            workchain: 1,
            ..id(left, 1)
        };
        assert!(!committed_before(&stop, &other));
    }
}
