//! A shard state's outbound message queue (`OutMsgQueueInfo`): messages to
//! another shard (of this workchain or the other) wait here until that
//! shard's next block imports them, and how far this shard has imported
//! from its neighbours (one watermark: every shard imports all its
//! neighbours' waiting messages in (lt, hash) order each block).
//!
//! ```text
//! _ out_queue:OutMsgQueue proc_info:ProcessedInfo ihr_pending:IhrPendingInfo = OutMsgQueueInfo;
//! _ (HashmapAugE 352 EnqueuedMsg uint64) = OutMsgQueue;   key: next wc i32 | next addr prefix u64 | msg hash
//! _ (HashmapE 96 ProcessedUpto) = ProcessedInfo;           key: shard u64 | mc_seqno u32
//! processed_upto$_ last_msg_lt:uint64 last_msg_hash:bits256 = ProcessedUpto;
//! ```

use tycho_types::cell::{
    Cell, CellBuilder, CellContext, CellDataBuilder, CellFamily, CellSlice, HashBytes, Load, Store,
};
use tycho_types::dict::{AugDict, AugDictExtra, Dict, DictKey, LoadDictKey, StoreDictKey};
use tycho_types::error::Error;
use tycho_types::models::{EnqueuedMsg, IntAddr, MsgInfo, ShardIdent};

/// Where a queued message goes next, and which message it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct QueueKey {
    pub workchain: i32,
    pub prefix: u64,
    pub hash: HashBytes,
}

impl DictKey for QueueKey {
    const BITS: u16 = 32 + 64 + 256;
}

impl StoreDictKey for QueueKey {
    fn store_into_data(&self, data: &mut CellDataBuilder) -> Result<(), Error> {
        data.store_u32(self.workchain as u32)?;
        data.store_u64(self.prefix)?;
        data.store_u256(&self.hash)
    }
}

impl LoadDictKey for QueueKey {
    fn load_from_data(data: &CellDataBuilder) -> Option<Self> {
        let raw = data.raw_data();
        Some(Self {
            workchain: i32::from_be_bytes(raw.get(0..4)?.try_into().ok()?),
            prefix: u64::from_be_bytes(raw.get(4..12)?.try_into().ok()?),
            hash: HashBytes(raw.get(12..44)?.try_into().ok()?),
        })
    }
}

impl QueueKey {
    /// Whether the message's next hop lies in `shard`.
    pub fn goes_to(&self, shard: &ShardIdent) -> bool {
        let bits = shard.prefix_len();
        let mask = if bits == 0 { 0 } else { !0u64 << (64 - bits) };
        self.workchain == shard.workchain() && (self.prefix ^ shard.prefix()) & mask == 0
    }
}

/// The queue's augmentation: the lowest enqueued lt below a node.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MinLt(pub u64);

impl Store for MinLt {
    fn store_into(&self, b: &mut CellBuilder, _: &dyn CellContext) -> Result<(), Error> {
        b.store_u64(self.0)
    }
}

impl<'a> Load<'a> for MinLt {
    fn load_from(slice: &mut CellSlice<'a>) -> Result<Self, Error> {
        slice.load_u64().map(Self)
    }
}

impl AugDictExtra for MinLt {
    fn comp_add(
        left: &mut CellSlice,
        right: &mut CellSlice,
        b: &mut CellBuilder,
        _: &dyn CellContext,
    ) -> Result<(), Error> {
        let (l, r) = (left.load_u64()?, right.load_u64()?);
        b.store_u64(l.min(r))
    }
}

/// `shard:uint64 mc_seqno:uint32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProcessedKey {
    shard: u64,
    mc_seqno: u32,
}

impl DictKey for ProcessedKey {
    const BITS: u16 = 96;
}

impl StoreDictKey for ProcessedKey {
    fn store_into_data(&self, data: &mut CellDataBuilder) -> Result<(), Error> {
        data.store_u64(self.shard)?;
        data.store_u32(self.mc_seqno)
    }
}

impl LoadDictKey for ProcessedKey {
    fn load_from_data(data: &CellDataBuilder) -> Option<Self> {
        let raw = data.raw_data();
        Some(Self {
            shard: u64::from_be_bytes(raw.get(0..8)?.try_into().ok()?),
            mc_seqno: u32::from_be_bytes(raw.get(8..12)?.try_into().ok()?),
        })
    }
}

/// Up to which message (by enqueued lt, then hash) a shard has imported.
pub type Processed = (u64, HashBytes);

/// A shard's `OutMsgQueueInfo`, read and rebuilt.
#[derive(Clone)]
pub struct QueueInfo {
    pub queue: AugDict<QueueKey, MinLt, EnqueuedMsg>,
    /// What this shard has imported from its neighbours, at most.
    pub processed: Option<Processed>,
    processed_at: ProcessedAt,
}

#[derive(Clone, Copy)]
struct ProcessedAt {
    shard: u64,
    mc_seqno: u32,
}

impl QueueInfo {
    /// Reads the cell a state holds.
    pub fn load(cell: &Cell, shard: u64) -> Result<Self, Error> {
        let mut s = cell.as_slice()?;
        let queue = AugDict::load_from(&mut s)?;
        let proc: Dict<ProcessedKey, (u64, HashBytes)> = Dict::load_from(&mut s)?;
        let mut processed = None;
        let mut processed_at = ProcessedAt { shard, mc_seqno: 0 };
        for entry in proc.iter() {
            let (key, value) = entry?;
            if processed.is_none_or(|p| value > p) {
                processed = Some(value);
                processed_at = ProcessedAt {
                    shard: key.shard,
                    mc_seqno: key.mc_seqno,
                };
            }
        }
        Ok(Self {
            queue,
            processed,
            processed_at,
        })
    }

    /// Messages waiting for `shard` that it has not imported (it has
    /// imported up to `processed`), in import order.
    pub fn waiting_for(
        &self,
        shard: &ShardIdent,
        processed: Option<Processed>,
    ) -> Result<Vec<(QueueKey, EnqueuedMsg)>, Error> {
        let mut out = Vec::new();
        for entry in self.queue.iter() {
            let (key, _, msg) = entry?;
            if key.goes_to(shard) && processed.is_none_or(|p| (msg.enqueued_lt, key.hash) > p) {
                out.push((key, msg));
            }
        }
        out.sort_by_key(|(k, m)| (m.enqueued_lt, k.hash));
        Ok(out)
    }

    /// Messages for `shard` that it has imported: to dequeue.
    pub fn imported_by(
        &self,
        shard: &ShardIdent,
        processed: Option<Processed>,
    ) -> Result<Vec<(QueueKey, EnqueuedMsg)>, Error> {
        let Some(p) = processed else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for entry in self.queue.iter() {
            let (key, _, msg) = entry?;
            if key.goes_to(shard) && (msg.enqueued_lt, key.hash) <= p {
                out.push((key, msg));
            }
        }
        Ok(out)
    }

    /// The queue of `child`, one half of this shard after a split: the
    /// messages its accounts sent; it has imported what the parent had.
    pub fn split_off(&self, child: &ShardIdent) -> Result<Self, Error> {
        let mut queue = AugDict::new();
        for entry in self.queue.iter() {
            let (key, lt, msg) = entry?;
            let env = super::shard_work::read_envelope(&msg.out_msg_envelope)?.0;
            let MsgInfo::Int(info) = env.parse::<MsgInfo>()? else {
                return Err(Error::InvalidData);
            };
            let IntAddr::Std(src) = &info.src else {
                return Err(Error::InvalidData);
            };
            if child.contains_address(src) {
                queue.set(key, lt, msg)?;
            }
        }
        Ok(Self {
            queue,
            processed: self.processed,
            processed_at: ProcessedAt {
                shard: child.prefix(),
                ..self.processed_at
            },
        })
    }

    /// The queue of the shard two siblings merge into. Both imported every
    /// message waiting for them up to the same round, so the higher
    /// watermark covers both halves.
    pub fn merge(left: &Self, right: &Self, parent: &ShardIdent) -> Result<Self, Error> {
        let mut queue = left.queue.clone();
        for entry in right.queue.iter() {
            let (key, lt, msg) = entry?;
            queue.set(key, lt, msg)?;
        }
        let (processed, mc_seqno) = match (left.processed, right.processed) {
            (Some(l), Some(r)) if r > l => (Some(r), right.processed_at.mc_seqno),
            (None, Some(r)) => (Some(r), right.processed_at.mc_seqno),
            (l, _) => (l, left.processed_at.mc_seqno),
        };
        Ok(Self {
            queue,
            processed,
            processed_at: ProcessedAt {
                shard: parent.prefix(),
                mc_seqno,
            },
        })
    }

    /// Queued messages in all.
    pub fn count(&self) -> Result<u64, Error> {
        let mut n = 0;
        for key in self.queue.keys() {
            key?;
            n += 1;
        }
        Ok(n)
    }

    /// Notes an import from a neighbour's queue, as of masterchain `mc_seqno`.
    pub fn mark_processed(&mut self, upto: Processed, mc_seqno: u32) {
        if self.processed.is_none_or(|p| upto > p) {
            self.processed = Some(upto);
            self.processed_at.mc_seqno = mc_seqno;
        }
    }

    /// The `OutMsgQueueInfo` cell.
    pub fn build(&self) -> Result<Cell, Error> {
        let mut proc = Dict::<ProcessedKey, (u64, HashBytes)>::new();
        if let Some(p) = self.processed {
            proc.set(
                ProcessedKey {
                    shard: self.processed_at.shard,
                    mc_seqno: self.processed_at.mc_seqno,
                },
                p,
            )?;
        }
        let mut b = CellBuilder::new();
        self.queue.store_into(&mut b, Cell::empty_context())?;
        proc.store_into(&mut b, Cell::empty_context())?;
        b.store_bit(false)?; // no IHR pending
        b.build()
    }
}
