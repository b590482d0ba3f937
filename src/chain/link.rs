//! The one narrow road from the API to a chain it can write to: sending an
//! external message, and the devnet's own requests. The API holds a
//! `dyn ChainLink` only when the process runs a chain (`tonindex dev`);
//! everything else it reads from the index like any imported data.

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::StdAddr;

/// Why a chain refused a request; `status` is the HTTP status both APIs use.
#[derive(Debug, Clone)]
pub struct Refused {
    pub status: u16,
    pub message: String,
}

impl Refused {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }
}

/// A transaction the chain executed and indexed for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executed {
    pub tx_hash: HashBytes,
    pub lt: u64,
    pub mc_seqno: u32,
}

/// The proofs of `liteServer.shardBlockProof` (BoCs of Merkle proofs).
#[derive(Debug, Clone)]
pub struct ShardBlockProof {
    /// The masterchain block down to the shard hashes listing the target
    /// (`None` when the target is that masterchain block).
    pub link: Option<Vec<u8>>,
    /// From `from` back to the committing masterchain block (`None` when
    /// they are the same block).
    pub back: Option<LinkBack>,
}

/// `blocks.blockLinkBack`'s proofs.
#[derive(Debug, Clone)]
pub struct LinkBack {
    /// The older block's header.
    pub dest_proof: Vec<u8>,
    /// The newer block's header and state update.
    pub proof: Vec<u8>,
    /// The newer block's state down to its entry for the older block.
    pub state_proof: Vec<u8>,
}

/// What a block is looked up by in its shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Seqno(u32),
    Lt(u64),
    Utime(u32),
}

/// `liteServer.outMsgQueueSizes`: each shard's newest block with the
/// messages in its outbound queue, and how many external messages a
/// node's queue takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSizes {
    pub shards: Vec<(tonindex_model::BlockIdExt, u64)>,
    pub ext_msg_queue_size_limit: u32,
}

/// What a node's external message queue holds at most (the C++ node's
/// default), where the chain does not say otherwise.
pub const EXT_MSG_QUEUE_SIZE_LIMIT: u32 = 8000;

/// A block's signatures as `(node_id_short, signature)`.
pub type Signatures = Vec<(HashBytes, [u8; 64])>;

/// One trace of shard blocks no masterchain block has committed yet (the
/// streams' `confirmed` level): its transactions with their blocks, in lt
/// order, the external message's first.
#[derive(Debug, Clone)]
pub struct ConfirmedTrace {
    pub txs: Vec<(Cell, tonindex_model::BlockId)>,
    /// TEP-467 normalized hash of its external message.
    pub external_hash_norm: tonindex_model::Hash,
}

/// An account as a shard block no masterchain block commits yet left it
/// (the streams' `account_state_change` at `confirmed`).
#[derive(Debug, Clone)]
pub struct ConfirmedState {
    pub account: tonindex_model::Address,
    /// The newest of the round's blocks that changed it.
    pub block: tonindex_model::BlockId,
    /// That block's time.
    pub gen_utime: u32,
    pub after: crate::decode::accounts_after::AccountAfter,
    /// The account as the block's state update shows it, its unchanged
    /// cells pruned (to complete from the cell store for a getter); `None`
    /// where the decode did not keep the update.
    pub shard_account: Option<tycho_types::models::ShardAccount>,
}

/// What a round's shard blocks hold, as a chain announces them before
/// the masterchain block that commits them.
#[derive(Debug, Clone, Default)]
pub struct Confirmed {
    pub traces: Vec<ConfirmedTrace>,
    /// Each account the blocks changed, as the newest of them left it.
    pub states: Vec<ConfirmedState>,
}

impl Confirmed {
    /// Nothing to announce.
    pub fn is_empty(&self) -> bool {
        self.traces.is_empty() && self.states.is_empty()
    }
}

/// A round's confirmed traces and account states, as a chain announces them.
pub type ConfirmedRound = std::sync::Arc<Confirmed>;

/// An emulated trace: its transaction cells in execution order, and the
/// blocks whose states the emulation started from (one per shard it ran
/// on, or more), by which an emulated transaction names its block as
/// toncenter's emulator does.
#[derive(Debug, Clone, Default)]
pub struct Emulated {
    pub txs: Vec<Cell>,
    pub bases: Vec<tonindex_model::BlockId>,
}

impl Emulated {
    /// The block whose state `account`'s emulation started from: the base
    /// of its workchain whose shard holds it.
    pub fn base_of(
        bases: &[tonindex_model::BlockId],
        account: &tonindex_model::Address,
    ) -> Option<tonindex_model::BlockId> {
        bases
            .iter()
            .find(|b| b.workchain == account.workchain && account.in_shard(b.shard))
            .copied()
    }
}

/// A chain the API may hand messages to.
pub trait ChainLink: Send + Sync {
    /// Checks `msg` (an external-in message the API has parsed) against
    /// the current state and queues it. With automine, returns once the
    /// blocks it causes are indexed. A message the account does not accept
    /// is refused, never queued.
    fn send(&self, msg: Cell) -> Result<(), Refused>;
    /// The transactions `msg` (an external-in message) would cause on the
    /// current state, as emulated transaction cells in execution order,
    /// with the blocks whose states they started from; `None` where this
    /// chain does not emulate (its messages land at once, or it cannot).
    fn emulate_trace(&self, _msg: Cell) -> Option<Result<Emulated, Refused>> {
        None
    }
    /// Whether the API emulates a sent message itself, on the newest state
    /// this node knows (the index's, else its lite servers'), to show it as
    /// pending until the index commits its trace: a follower, whose blocks
    /// come later from elsewhere. A chain that emulates for itself answers
    /// [`ChainLink::emulate_trace`] instead.
    fn emulates_on_known_state(&self) -> bool {
        false
    }
    /// The feed of what the index this chain writes commits, for pending
    /// traces to give way to real ones; `None` where it has none here.
    fn commit_feed(&self) -> Option<crate::ingest::CommitFeed> {
        None
    }
    /// The traces of shard blocks made before the masterchain block that
    /// commits them, as they are made; `None` where this chain announces
    /// none (then there is no `confirmed` level).
    fn confirmed_feed(&self) -> Option<tokio::sync::broadcast::Receiver<ConfirmedRound>> {
        None
    }
    /// The newest shard block of each shard that this chain made and no
    /// masterchain block commits yet, for its lite server's
    /// `liteServer.nonfinal.getPendingShardBlocks`; `None` where this
    /// chain makes no blocks (the query is then refused).
    fn pending_shard_blocks(&self) -> Option<Vec<tonindex_model::BlockIdExt>> {
        None
    }
    /// The signatures of a masterchain block this chain produced, as
    /// `(node_id_short, signature)`; `None` when it holds none.
    fn block_signatures(
        &self,
        _root_hash: &HashBytes,
        _file_hash: &HashBytes,
    ) -> Option<Vec<(HashBytes, [u8; 64])>> {
        None
    }
    /// The signatures of masterchain block `block` as a lite server gives
    /// them, checked against the validators of `key_block` (the key block
    /// in force for it); `None` where this chain cannot ask.
    fn proven_block_signatures(
        &self,
        _block: &tonindex_model::BlockIdExt,
        _key_block: &tonindex_model::BlockIdExt,
    ) -> Option<Result<Signatures, Refused>> {
        None
    }
    /// A block the index does not hold (yet), looked up on the chain —
    /// its header proven to be the block's and to match `by`; `None`
    /// where this chain cannot look blocks up.
    fn lookup_block(
        &self,
        _workchain: i32,
        _shard: u64,
        _by: Lookup,
    ) -> Option<Result<tonindex_model::BlockIdExt, Refused>> {
        None
    }
    /// Each shard's newest block and the messages in its outbound queue;
    /// `None` when the chain cannot say.
    fn out_msg_queue_sizes(&self) -> Option<Result<QueueSizes, Refused>> {
        None
    }
    /// The consensus masterchain seqno of the chain's lite servers (the
    /// highest tip among those that answer); `None` where the chain has
    /// no lite servers to watch (the index's newest block is the answer).
    fn consensus_block(&self) -> Option<Result<u32, Refused>> {
        None
    }
    /// Merkle proofs for `getShardBlockProof` of blocks this chain produced:
    /// `target` committed by masterchain block `mc`, proved from the newer
    /// (or same) masterchain block `from`. `None` when it keeps no blocks.
    fn shard_block_proof(
        &self,
        _target: &tonindex_model::BlockIdExt,
        _mc: &tonindex_model::BlockIdExt,
        _from: &tonindex_model::BlockIdExt,
    ) -> Option<Result<ShardBlockProof, Refused>> {
        None
    }
    /// The state of `account` as of the indexed masterchain block `mc`,
    /// fetched from the chain's lite servers and checked by its proofs;
    /// `None` when this chain cannot fetch states (the devnet holds all
    /// of its own).
    fn account_state(
        &self,
        _account: &tonindex_model::Address,
        _mc: &tonindex_model::BlockIdExt,
    ) -> Option<Result<crate::chain::liteserver::proofs::ProvenAccount, Refused>> {
        None
    }
    /// Public library cells by hash from the chain's lite servers, each
    /// checked against the hash it was asked by (unknown ones are left
    /// out): for code that refers to a library a follower's index does not
    /// hold (it keeps no masterchain state). `None` where this chain has no
    /// servers to ask.
    fn libraries(&self, _hashes: &[HashBytes]) -> Option<Result<Vec<Cell>, Refused>> {
        None
    }
    /// The devnet's `/dev/` requests; `None` for a chain without them.
    fn dev(&self) -> Option<&dyn DevLink> {
        None
    }
}

/// What only `tonindex dev` answers.
pub trait DevLink: Send + Sync {
    /// The genesis wallets as `GET /dev/accounts` lists them (JSON array).
    fn accounts(&self) -> serde_json::Value;
    /// Sends `amount` nanotons from the faucet to `to` (not bounceable) and
    /// returns the receiving transaction once it is indexed.
    fn fund(&self, to: StdAddr, amount: u128) -> Result<Executed, Refused>;
    /// Produces a block pair now; returns the masterchain seqno.
    fn produce_block(&self) -> Result<u32, Refused>;
}
