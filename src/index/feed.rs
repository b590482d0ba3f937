//! The commit feed: after each batch the indexer commits, what it added,
//! for followers inside the process — the devnet's sends today; streams,
//! pending-trace eviction and metrics later. Followers read the feed, not
//! the tables behind the index's back. It is a bounded broadcast: a
//! follower too slow to keep up loses the oldest events (and is told so),
//! never the index.

use std::sync::Arc;

use tokio::sync::broadcast;
use tonindex_model::{Address, BlockIdExt, Hash};

/// A transaction a commit added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedTx {
    pub hash: Hash,
    pub account: Address,
    pub lt: u64,
    /// The inbound message's hash.
    pub in_msg: Option<Hash>,
    /// The masterchain block that commits it, when known.
    pub mc_seqno: Option<u32>,
}

/// What one committed batch added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Committed {
    /// The unit's masterchain block, if it has one.
    pub mc_seqno: Option<u32>,
    pub blocks: Vec<BlockIdExt>,
    pub transactions: Vec<CommittedTx>,
    /// Traces this commit settled (every message delivered): what pending
    /// traces give way to.
    pub settled_traces: Vec<Hash>,
    /// Complete traces whose actions this commit wrote (each among
    /// `settled_traces`: a trace is classified in the commit settling it).
    pub classified_traces: Vec<Hash>,
    /// In-message hashes of the transactions whose traces this commit
    /// wrote (a unit's traces are written in a commit of their own, after
    /// the unit's and before the next unit's): what emulated traces give
    /// way to.
    pub traced_in_msgs: Vec<Hash>,
    /// External messages a block producer refused (the devnet knows; a
    /// follower does not): their emulated traces never come true. Sent
    /// alone, after the commits of the round that refused them.
    pub dropped_externals: Vec<Hash>,
}

/// The sending side, held by whoever indexes; clone it to subscribe.
#[derive(Clone, Debug)]
pub struct CommitFeed {
    tx: broadcast::Sender<Arc<Committed>>,
}

impl CommitFeed {
    /// A feed keeping up to `capacity` events for its slowest follower.
    pub fn new(capacity: usize) -> Self {
        Self {
            tx: broadcast::channel(capacity.max(1)).0,
        }
    }

    /// Follows every commit from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Committed>> {
        self.tx.subscribe()
    }

    /// Publishes a commit (nobody following is fine).
    pub(crate) fn publish(&self, committed: Committed) {
        let _ = self.tx.send(Arc::new(committed));
    }
}
