//! The `confirmed` level on a follower: shard blocks the validators have
//! signed but no masterchain block commits yet, as a lite server run with
//! `--nonfinal-ls` lists them (`liteServer.nonfinal.getPendingShardBlocks`,
//! then `getBlock` of each). `ton_liteapi` 0.2 knows neither the function
//! nor its answer, so both are declared here and travel as bytes
//! (`frames.rs`); the devnet's lite server answers the same query from
//! the shard blocks it made during `--confirm-gap`.
//!
//! What a follower can check of such a block: its file and root hashes
//! are the ones listed, and it extends a block of its shard. That the
//! validators signed it is the server's word (a shard block's signatures
//! are not part of what the lite API serves); the masterchain block that
//! commits it is proven as every other block is, and only then is a trace
//! `finalized`.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tl_proto::{TlRead, TlWrite};
use ton_liteapi::tl::common::BlockIdExt as LiteBlockIdExt;
use tonindex_model::BlockIdExt;

use super::client::Multiplexed;
use super::follow::model_id;
use super::upstream::Conns;
use crate::chain::link::ConfirmedRound;
use crate::decode::{decode_block, DecodedBlock};
use crate::ingest::{CommitFeed, Committed};

/// How often the pending shard blocks are asked for (a shard block comes
/// every ~2 s on mainnet, a masterchain block every ~0.4 s).
pub const POLL: Duration = Duration::from_millis(200);
/// How long to wait before asking again when no server offers the query.
pub const RETRY: Duration = Duration::from_secs(60);
/// How many blocks back from a listed one are fetched at most (the server
/// lists only the newest signed block of each shard).
pub const MAX_WALK: usize = 8;
/// How many announced blocks are remembered (not to announce one twice).
const REMEMBERED: usize = 4096;

/// `liteServer.nonfinal.getPendingShardBlocks`: the newest signed and the
/// newest candidate block of each shard (or of the one asked for).
#[derive(Debug, Clone, PartialEq, Eq, TlRead, TlWrite)]
#[tl(
    boxed,
    id = "liteServer.nonfinal.getPendingShardBlocks",
    scheme_inline = r"liteServer.nonfinal.getPendingShardBlocks mode:# wc:mode.0?int shard:mode.0?long = liteServer.nonfinal.PendingShardBlocks;"
)]
pub struct GetPendingShardBlocks {
    #[tl(flags)]
    pub mode: (),
    /// Workchain and shard prefix, when one shard is asked for.
    #[tl(flags_bit = "mode.0")]
    pub shard: Option<(i32, u64)>,
}

/// `liteServer.nonfinal.pendingShardBlocks`: its answer.
#[derive(Debug, Clone, PartialEq, Eq, TlRead, TlWrite)]
#[tl(
    boxed,
    id = "liteServer.nonfinal.pendingShardBlocks",
    scheme_inline = r"liteServer.nonfinal.pendingShardBlocks signed_blocks:(vector tonNode.blockIdExt) candidates:(vector tonNode.blockIdExt) = liteServer.nonfinal.PendingShardBlocks;"
)]
pub struct PendingShardBlocks {
    /// Blocks the shard's validators signed (accepted), newest of each shard.
    pub signed_blocks: Vec<LiteBlockIdExt>,
    /// Blocks proposed and not yet signed.
    pub candidates: Vec<LiteBlockIdExt>,
}

/// The constructor id of a function call (its first four bytes).
pub fn constructor(call: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(call.get(..4)?.try_into().ok()?))
}

/// Whether `call` is a `getPendingShardBlocks` call.
pub fn is_get_pending_shard_blocks(call: &[u8]) -> bool {
    constructor(call) == Some(GetPendingShardBlocks::TL_ID)
}

/// Which shard blocks are still to be announced: newer than what the
/// index committed of their shard, and not announced before.
#[derive(Default)]
pub struct Seen {
    committed: HashMap<(i32, u64), u32>,
    announced: HashSet<BlockIdExt>,
    order: VecDeque<BlockIdExt>,
}

impl Seen {
    /// Takes in what the index committed.
    pub fn commit(&mut self, c: &Committed) {
        for b in c.blocks.iter().filter(|b| b.id.workchain != -1) {
            let top = self
                .committed
                .entry((b.id.workchain, b.id.shard))
                .or_default();
            *top = (*top).max(b.id.seqno);
        }
    }

    /// Whether `id` is a basechain block not yet committed nor announced.
    pub fn wanted(&self, id: &BlockIdExt) -> bool {
        id.id.workchain != -1
            && !self.announced.contains(id)
            && self
                .committed
                .get(&(id.id.workchain, id.id.shard))
                .is_none_or(|&top| id.id.seqno > top)
    }

    /// Remembers `id` as announced (the oldest are forgotten past a bound).
    pub fn announce(&mut self, id: BlockIdExt) {
        if self.announced.insert(id) {
            self.order.push_back(id);
        }
        while self.order.len() > REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.announced.remove(&old);
            }
        }
    }
}

/// `getPendingShardBlocks` on `conn`: `Ok(None)` when the server refuses
/// it (not run with `--nonfinal-ls`, or older than the query); `Err` when
/// it answers otherwise than the schema says or not at all.
async fn pending_blocks(conn: &Multiplexed) -> anyhow::Result<Option<Vec<BlockIdExt>>> {
    let call = tl_proto::serialize(GetPendingShardBlocks {
        mode: (),
        shard: None,
    });
    match conn.query_raw(call).await? {
        Err(refusal) => {
            tracing::debug!("nonfinal.getPendingShardBlocks refused: {refusal}");
            Ok(None)
        }
        Ok(answer) => {
            let p: PendingShardBlocks = tl_proto::deserialize(&answer).map_err(|e| {
                anyhow::anyhow!("a nonfinal.pendingShardBlocks that does not parse: {e:?}")
            })?;
            Ok(Some(p.signed_blocks.iter().map(model_id).collect()))
        }
    }
}

/// The listed signed blocks not yet announced and the ones between them
/// and what the index committed, fetched from `conn` and decoded, each
/// checked to be the block its id names (oldest of a shard first).
async fn fetch_new(
    conn: &Multiplexed,
    listed: Vec<BlockIdExt>,
    seen: &Seen,
) -> anyhow::Result<Vec<DecodedBlock>> {
    let mut fresh: Vec<DecodedBlock> = Vec::new();
    for top in listed {
        let mut next = Some(top);
        let mut walked = 0;
        while let Some(id) = next.take() {
            if walked == MAX_WALK || !seen.wanted(&id) || fresh.iter().any(|b| b.record.id == id) {
                break;
            }
            walked += 1;
            let data = conn.block(&id).await?;
            let block = decode_block(&data)
                .map_err(|e| anyhow::anyhow!("pending shard block {:?}: {e}", id.id))?;
            if block.record.id != id {
                anyhow::bail!("the lite server's block {:?} is not the one listed", id.id);
            }
            // One previous block (a merge's two end the walk).
            if let [prev] = block.record.prev_blocks.as_slice() {
                next = Some(prev.block);
            }
            fresh.push(block);
        }
    }
    fresh.sort_by_key(|b| {
        (
            b.record.id.id.workchain,
            b.record.id.id.shard,
            b.record.id.id.seqno,
        )
    });
    Ok(fresh)
}

/// Asks the lite servers for pending shard blocks every [`POLL`] and
/// announces the traces of each new one on `out` (the `confirmed` level),
/// until `out` has no receiver left and `feed` closes. Servers that do
/// not offer the query are skipped (said once each); when none does,
/// there is no confirmed level and it asks again every [`RETRY`].
pub(super) async fn watch(
    conns: Arc<Conns>,
    feed: CommitFeed,
    out: tokio::sync::broadcast::Sender<ConfirmedRound>,
) {
    let mut commits = feed.subscribe();
    let mut seen = Seen::default();
    let mut refusing: HashSet<usize> = HashSet::new();
    let mut said_none = false;
    loop {
        loop {
            use tokio::sync::broadcast::error::TryRecvError;
            match commits.try_recv() {
                Ok(c) => seen.commit(&c),
                Err(TryRecvError::Lagged(_)) => continue,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Closed) => return,
            }
        }
        let order: Vec<usize> = conns
            .tips()
            .order(None)
            .into_iter()
            .filter(|i| !refusing.contains(i))
            .collect();
        if order.is_empty() {
            if !said_none {
                tracing::info!(
                    "no lite server offers liteServer.nonfinal.getPendingShardBlocks (a node \
                     runs it with --nonfinal-ls): streams have no confirmed level; asking again \
                     every {RETRY:?}"
                );
                said_none = true;
            }
            tokio::time::sleep(RETRY).await;
            refusing.clear();
            continue;
        }
        for i in order {
            let server = conns.tips().servers()[i].addr;
            let (known, all) = (&seen, &conns);
            let asked = conns
                .with(i, |conn| async move {
                    let listed = match pending_blocks(&conn).await {
                        Ok(Some(listed)) => listed,
                        Ok(None) => return Ok(None),
                        // A server that fails the query itself (one that
                        // drops the connection on a query it does not
                        // know, say) is taken not to offer it; its
                        // connection is made again for the next query.
                        Err(e) => {
                            tracing::debug!("lite server {server}: {e:#}");
                            all.forget(i, &conn).await;
                            return Ok(None);
                        }
                    };
                    fetch_new(&conn, listed, known).await.map(Some)
                })
                .await;
            match asked {
                Ok(Some(fresh)) => {
                    said_none = false;
                    for b in &fresh {
                        seen.announce(b.record.id);
                    }
                    let round = crate::chain::confirm::confirmed_round(&fresh);
                    if !round.is_empty() && out.send(Arc::new(round)).is_err() {
                        tracing::debug!("confirmed traces made with nobody following");
                    }
                    break;
                }
                Ok(None) => {
                    if refusing.insert(i) {
                        tracing::info!(
                            "lite server {server} does not offer nonfinal queries: its shard \
                             blocks are seen only once committed"
                        );
                    }
                }
                // Fetching a listed block failed: asked again next time.
                Err(e) => {
                    tracing::debug!("lite server {server} failed a pending shard block: {e}");
                }
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constructor ids the C++ node's schema gives (as pytoniq-core's
    /// copy of lite_api.tl computes them, and other implementations list).
    #[test]
    fn constructor_ids_are_the_schemas() {
        assert_eq!(GetPendingShardBlocks::TL_ID, 0x5a8ee82c);
        assert_eq!(PendingShardBlocks::TL_ID, 0x1fd06e4d);
    }

    #[test]
    fn a_shard_call_carries_its_shard_under_mode_bit_0() {
        let all = tl_proto::serialize(GetPendingShardBlocks {
            mode: (),
            shard: None,
        });
        assert_eq!(all.len(), 8);
        assert!(is_get_pending_shard_blocks(&all));
        let one = GetPendingShardBlocks {
            mode: (),
            shard: Some((0, 0x8000_0000_0000_0000)),
        };
        let bytes = tl_proto::serialize(&one);
        assert_eq!(&bytes[4..8], &1u32.to_le_bytes());
        assert_eq!(
            tl_proto::deserialize::<GetPendingShardBlocks>(&bytes).unwrap(),
            one
        );
    }

    fn id(shard: u64, seqno: u32) -> BlockIdExt {
        BlockIdExt {
            id: tonindex_model::BlockId {
                workchain: 0,
                shard,
                seqno,
            },
            root_hash: [seqno as u8; 32],
            file_hash: [1; 32],
        }
    }

    #[test]
    fn a_block_is_wanted_until_committed_or_announced() {
        let shard = 0x8000_0000_0000_0000;
        let mut seen = Seen::default();
        assert!(seen.wanted(&id(shard, 5)));
        seen.commit(&Committed {
            blocks: vec![id(shard, 5)],
            ..Default::default()
        });
        assert!(!seen.wanted(&id(shard, 5)));
        assert!(!seen.wanted(&id(shard, 4)));
        assert!(seen.wanted(&id(shard, 6)));
        seen.announce(id(shard, 6));
        assert!(!seen.wanted(&id(shard, 6)));
        let mut masterchain = id(shard, 7);
        masterchain.id.workchain = -1;
        assert!(!seen.wanted(&masterchain));
        for s in 0..(REMEMBERED as u32 + 10) {
            seen.announce(id(shard, 100 + s));
        }
        assert_eq!(seen.announced.len(), REMEMBERED);
        assert!(seen.wanted(&id(shard, 100)), "the oldest are forgotten");
    }
}
