//! The devnet's basechain shards: where each shard's next block starts
//! from, and when shards split and merge.
//!
//! As on TON: a shard's block announces `before_split`; the masterchain
//! block that commits it says so in its shard hashes; each child's first
//! block (`after_split`) starts from its half of the parent's state.
//! Two siblings' blocks announce `want_merge`, the masterchain block marks
//! both `before_merge`, and the merged shard's first block (`after_merge`,
//! two previous blocks) starts from both states (`split_state`).

use tycho_types::cell::{Cell, CellBuilder, CellDataBuilder};
use tycho_types::error::Error as TlbError;
use tycho_types::models::{
    BlockRef, CurrencyCollection, PrevBlockRef, ShardHashes, ShardIdent, ShardStateUnsplit,
};

use super::queue::QueueInfo;
use super::shard_work::add;

/// Deepest split the devnet makes: 16 shards, as `--shards` allows.
pub const MAX_DEPTH: u16 = 4;

/// How a shard's next block starts.
#[derive(Debug, Clone)]
pub enum After {
    /// From its own previous block.
    Block,
    /// From its half of the parent's state; `parent_state` is the parent's
    /// whole state, whose cells a follower holds.
    Split { parent_state: Cell },
    /// From both siblings' states: `right` is the right sibling's last
    /// block, `halves` the `split_state` cell joining both states.
    Merge { right: BlockRef, halves: Cell },
}

/// A chain's newest block (or zerostate) and the state its next block
/// starts from.
#[derive(Debug, Clone)]
pub struct Tip {
    pub shard: ShardIdent,
    /// The state the next block starts from (after a split this shard's
    /// half of the parent's, after a merge both halves joined).
    pub state_root: Cell,
    /// The previous block (after a merge, the left sibling's).
    pub last: BlockRef,
    pub after: After,
}

impl Tip {
    /// The blocks whose states this tip's state comes from, as model ids:
    /// its last block; after a split the parent's last block (which holds
    /// this half); after a merge both siblings' last blocks, each its own
    /// half.
    pub fn bases(&self) -> Vec<tonindex_model::BlockId> {
        let id = |shard: ShardIdent, seqno: u32| tonindex_model::BlockId {
            workchain: shard.workchain(),
            shard: shard.prefix(),
            seqno,
        };
        match &self.after {
            After::Block => vec![id(self.shard, self.last.seqno)],
            After::Split { .. } => vec![id(
                self.shard.merge().unwrap_or(self.shard),
                self.last.seqno,
            )],
            After::Merge { right, .. } => match self.shard.split() {
                Some((left, right_half)) => {
                    vec![id(left, self.last.seqno), id(right_half, right.seqno)]
                }
                None => vec![id(self.shard, self.last.seqno)],
            },
        }
    }

    /// A shard whose next block follows its own last one.
    pub fn plain(shard: ShardIdent, state_root: Cell, last: BlockRef) -> Self {
        Self {
            shard,
            state_root,
            last,
            after: After::Block,
        }
    }

    /// The two children of a shard whose last block announced a split.
    pub fn children(
        parent: &ShardIdent,
        last: &BlockRef,
        parent_root: &Cell,
    ) -> Result<[Tip; 2], TlbError> {
        let state: ShardStateUnsplit = parent_root.parse()?;
        let (left, right) = parent.split().ok_or(TlbError::InvalidData)?;
        let child = |shard: ShardIdent| -> Result<Tip, TlbError> {
            Ok(Tip {
                shard,
                state_root: CellBuilder::build_from(&split_half(&state, &shard)?)?,
                last: last.clone(),
                after: After::Split {
                    parent_state: parent_root.clone(),
                },
            })
        };
        Ok([child(left)?, child(right)?])
    }

    /// The shard two siblings merge into, from each one's last block and
    /// state (left first).
    pub fn merged(left: (&BlockRef, &Cell), right: (&BlockRef, &Cell)) -> Result<Tip, TlbError> {
        let (l, r): (ShardStateUnsplit, ShardStateUnsplit) = (left.1.parse()?, right.1.parse()?);
        let state = merge_halves(&l, &r)?;
        let mut halves = CellBuilder::new();
        halves.store_u32(SPLIT_STATE_TAG)?;
        halves.store_reference(left.1.clone())?;
        halves.store_reference(right.1.clone())?;
        Ok(Tip {
            shard: state.shard_ident,
            state_root: CellBuilder::build_from(&state)?,
            last: left.0.clone(),
            after: After::Merge {
                right: right.0.clone(),
                halves: halves.build()?,
            },
        })
    }

    /// The seqno of the next block: one past the previous (after a merge,
    /// past the higher of the two).
    pub fn next_seqno(&self) -> u32 {
        match &self.after {
            After::Merge { right, .. } => self.last.seqno.max(right.seqno) + 1,
            _ => self.last.seqno + 1,
        }
    }

    /// The highest lt the previous block(s) used.
    pub fn end_lt(&self) -> u64 {
        match &self.after {
            After::Merge { right, .. } => self.last.end_lt.max(right.end_lt),
            _ => self.last.end_lt,
        }
    }

    /// The next block's reference to its previous block(s).
    pub fn prev_ref(&self) -> PrevBlockRef {
        match &self.after {
            After::Merge { right, .. } => PrevBlockRef::AfterMerge {
                left: self.last.clone(),
                right: right.clone(),
            },
            _ => PrevBlockRef::Single(self.last.clone()),
        }
    }

    /// The old side of the next block's state update, and (after a split)
    /// the parent state whose cells a follower holds.
    pub fn update_from(&self) -> (&Cell, Option<&Cell>) {
        match &self.after {
            After::Block => (&self.state_root, None),
            After::Split { parent_state } => (&self.state_root, Some(parent_state)),
            After::Merge { halves, .. } => (halves, None),
        }
    }

    fn is_plain(&self) -> bool {
        matches!(self.after, After::Block)
    }

    fn depth(&self) -> u16 {
        self.shard.prefix_len()
    }
}

/// `split_state#5f327da5 left:^ShardStateUnsplit right:^ShardStateUnsplit`.
const SPLIT_STATE_TAG: u32 = 0x5f32_7da5;

/// What a shard's block announces to the masterchain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announce {
    Nothing,
    Split,
    Merge,
}

/// The basechain's shard layout: `2^depth` shards, and optionally a
/// split (then the merge back) every `split_merge_every` masterchain blocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    pub depth: u16,
    pub split_merge_every: Option<u32>,
}

impl Layout {
    /// `shards` must be a power of two up to 16; a split and its merge
    /// need at least two masterchain blocks apart.
    pub fn new(shards: u32, split_merge_every: Option<u32>) -> Result<Self, String> {
        if !shards.is_power_of_two() || shards > 1 << MAX_DEPTH {
            return Err(format!(
                "--shards must be a power of two from 1 to {} (got {shards})",
                1 << MAX_DEPTH
            ));
        }
        if split_merge_every.is_some_and(|k| k < 2) {
            return Err("--split-merge-every must be at least 2 masterchain blocks".into());
        }
        Ok(Self {
            depth: shards.trailing_zeros() as u16,
            split_merge_every,
        })
    }

    /// Whether every shard is at the asked depth (at least) and none is
    /// in the middle of a split or merge.
    pub fn reached(&self, tips: &[Tip]) -> bool {
        tips.iter().all(|t| t.is_plain() && t.depth() >= self.depth)
    }

    /// What each shard's block of masterchain block `mc_seqno` announces
    /// (`tips` sorted by prefix, so siblings are neighbours).
    pub fn plan(&self, tips: &[Tip], mc_seqno: u32) -> Vec<Announce> {
        let mut plan = vec![Announce::Nothing; tips.len()];
        // Growing toward the asked layout, a level a round.
        if tips.iter().any(|t| t.depth() < self.depth) {
            for (p, t) in plan.iter_mut().zip(tips) {
                if t.is_plain() && t.depth() < self.depth {
                    *p = Announce::Split;
                }
            }
            return plan;
        }
        let Some(every) = self.split_merge_every else {
            return plan;
        };
        if !mc_seqno.is_multiple_of(every) || !tips.iter().all(Tip::is_plain) {
            return plan;
        }
        let event = (mc_seqno / every) as usize;
        // A pair an earlier event split merges back.
        let siblings = |i: usize| {
            tips[i].shard.is_left_child()
                && tips
                    .get(i + 1)
                    .is_some_and(|r| Some(r.shard) == tips[i].shard.opposite())
        };
        if let Some(i) = (0..tips.len()).find(|&i| tips[i].depth() > self.depth && siblings(i)) {
            plan[i] = Announce::Merge;
            plan[i + 1] = Announce::Merge;
        } else if self.depth < MAX_DEPTH {
            plan[event / 2 % tips.len()] = Announce::Split;
        } else {
            // At the deepest layout a pair merges, and splits back once merged.
            let pairs: Vec<usize> = (0..tips.len()).filter(|&i| siblings(i)).collect();
            if let Some(&i) = pairs.get(event / 2 % pairs.len().max(1)) {
                plan[i] = Announce::Merge;
                plan[i + 1] = Announce::Merge;
            }
        }
        plan
    }
}

/// The basechain tips a masterchain state's shard hashes describe, each
/// shard's state read by `state_of(shard, seqno)`: a shard marked
/// `before_split` becomes its two children, two marked `before_merge`
/// their merged parent.
pub fn tips_of(
    shards: &ShardHashes,
    mut state_of: impl FnMut(&ShardIdent, u32) -> anyhow::Result<Cell>,
) -> anyhow::Result<Vec<Tip>> {
    let mut listed = Vec::new();
    for entry in shards.iter() {
        let (ident, descr) = entry?;
        if ident.workchain() == 0 {
            let last = BlockRef {
                end_lt: descr.end_lt,
                seqno: descr.seqno,
                root_hash: descr.root_hash,
                file_hash: descr.file_hash,
            };
            let state = state_of(&ident, descr.seqno)?;
            listed.push((ident, last, state, descr.before_split, descr.before_merge));
        }
    }
    let mut tips = Vec::new();
    let mut i = 0;
    while i < listed.len() {
        let (ident, last, state, before_split, before_merge) = &listed[i];
        if *before_split {
            tips.extend(Tip::children(ident, last, state)?);
        } else if *before_merge {
            let (_, r_last, r_state, _, _) = listed.get(i + 1).ok_or_else(|| {
                anyhow::anyhow!("shard {ident} is marked before_merge without its sibling")
            })?;
            tips.push(Tip::merged((last, state), (r_last, r_state))?);
            i += 1;
        } else {
            tips.push(Tip::plain(*ident, state.clone(), last.clone()));
        }
        i += 1;
    }
    Ok(tips)
}

/// `child`'s half of its parent's state: the parent's accounts under its
/// prefix, the messages they queued, the parent's import watermark.
pub fn split_half(
    parent: &ShardStateUnsplit,
    child: &ShardIdent,
) -> Result<ShardStateUnsplit, TlbError> {
    let mut key = CellDataBuilder::new();
    let bits = parent.shard_ident.prefix_len();
    if bits > 0 {
        key.store_uint(parent.shard_ident.prefix() >> (64 - bits), bits)?;
    }
    let (left, right) = parent
        .load_accounts()?
        .split_by_prefix(&key.as_data_slice())?;
    let is_left = child.is_left_child();
    let accounts = if is_left { left } else { right };
    let queue = QueueInfo::load(&parent.out_msg_queue_info, parent.shard_ident.prefix())?
        .split_off(child)?;
    Ok(ShardStateUnsplit {
        shard_ident: *child,
        before_split: false,
        accounts: tycho_types::cell::Lazy::new(&accounts)?,
        total_balance: accounts.root_extra().balance.clone(),
        // The fees stay whole with the left child (a merge adds them back).
        total_validator_fees: if is_left {
            parent.total_validator_fees.clone()
        } else {
            CurrencyCollection::ZERO
        },
        out_msg_queue_info: queue.build()?,
        ..parent.clone()
    })
}

/// The state two siblings' states merge into.
pub fn merge_halves(
    left: &ShardStateUnsplit,
    right: &ShardStateUnsplit,
) -> Result<ShardStateUnsplit, TlbError> {
    let parent = left.shard_ident.merge().ok_or(TlbError::InvalidData)?;
    if right.shard_ident.merge() != Some(parent) || right.shard_ident == left.shard_ident {
        return Err(TlbError::InvalidData);
    }
    let mut accounts = left.load_accounts()?;
    for entry in right.load_accounts()?.iter() {
        let (address, extra, account) = entry?;
        accounts.set(address, extra, account)?;
    }
    let queue = QueueInfo::merge(
        &QueueInfo::load(&left.out_msg_queue_info, left.shard_ident.prefix())?,
        &QueueInfo::load(&right.out_msg_queue_info, right.shard_ident.prefix())?,
        &parent,
    )?;
    let mut fees = left.total_validator_fees.clone();
    fees.tokens = add(fees.tokens, right.total_validator_fees.tokens)?;
    Ok(ShardStateUnsplit {
        shard_ident: parent,
        seqno: left.seqno.max(right.seqno),
        gen_utime: left.gen_utime.max(right.gen_utime),
        gen_lt: left.gen_lt.max(right.gen_lt),
        min_ref_mc_seqno: left.min_ref_mc_seqno.min(right.min_ref_mc_seqno),
        out_msg_queue_info: queue.build()?,
        before_split: false,
        accounts: tycho_types::cell::Lazy::new(&accounts)?,
        total_balance: accounts.root_extra().balance.clone(),
        total_validator_fees: fees,
        overload_history: 0,
        underload_history: 0,
        ..left.clone()
    })
}

#[cfg(test)]
mod tests {
    use tycho_types::cell::{HashBytes, Lazy};
    use tycho_types::models::{
        Account, AccountState, DepthBalanceInfo, OptionalAccount, ShardAccount, ShardAccounts,
        StdAddr, StorageInfo,
    };

    use super::*;
    use crate::chain::devnet::genesis::empty_out_msg_queue_info;

    /// A state of `shard` holding an active account at each address.
    fn state_with(shard: ShardIdent, addresses: &[[u8; 32]]) -> ShardStateUnsplit {
        let mut accounts = ShardAccounts::new();
        for (i, a) in addresses.iter().enumerate() {
            let balance = CurrencyCollection::new(1_000 + i as u128);
            let account = Account {
                address: StdAddr::new(0, HashBytes(*a)).into(),
                storage_stat: StorageInfo::default(),
                last_trans_lt: 0,
                balance: balance.clone(),
                state: AccountState::Uninit,
            };
            let sa = ShardAccount {
                account: Lazy::new(&OptionalAccount(Some(account))).unwrap(),
                last_trans_hash: HashBytes::ZERO,
                last_trans_lt: 0,
            };
            accounts
                .set(
                    HashBytes(*a),
                    DepthBalanceInfo {
                        split_depth: 0,
                        balance,
                    },
                    sa,
                )
                .unwrap();
        }
        ShardStateUnsplit {
            shard_ident: shard,
            accounts: Lazy::new(&accounts).unwrap(),
            total_balance: accounts.root_extra().balance.clone(),
            total_validator_fees: CurrencyCollection::new(7),
            out_msg_queue_info: empty_out_msg_queue_info().unwrap(),
            ..Default::default()
        }
    }

    fn addr(first: u8, rest: u8) -> [u8; 32] {
        let mut a = [rest; 32];
        a[0] = first;
        a
    }

    #[test]
    fn a_split_and_its_merge_give_back_the_parent_state() {
        let parent = ShardIdent::new(0, 0x4000_0000_0000_0000).unwrap(); // prefix 0
        let addresses = [addr(0x01, 1), addr(0x22, 2), addr(0x3f, 3), addr(0x55, 4)];
        let state = state_with(parent, &addresses);
        let (l, r) = parent.split().unwrap();
        let (left, right) = (
            split_half(&state, &l).unwrap(),
            split_half(&state, &r).unwrap(),
        );
        let keys = |s: &ShardStateUnsplit| -> Vec<HashBytes> {
            s.load_accounts()
                .unwrap()
                .iter()
                .map(|e| e.unwrap().0)
                .collect()
        };
        // Each half holds exactly the parent's accounts under its prefix.
        assert_eq!(
            keys(&left),
            vec![
                HashBytes(addresses[0]),
                HashBytes(addresses[1]),
                HashBytes(addresses[2])
            ]
        );
        assert_eq!(keys(&right), vec![HashBytes(addresses[3])]);
        assert!(keys(&left).iter().all(|k| l.contains_account(k)));
        assert_eq!(left.shard_ident, l);
        let tokens = |s: &ShardStateUnsplit| s.total_balance.tokens.into_inner();
        assert_eq!(tokens(&left) + tokens(&right), tokens(&state));
        // Merged back: the parent's accounts dictionary, cell for cell.
        let merged = merge_halves(&left, &right).unwrap();
        assert_eq!(merged.shard_ident, parent);
        assert_eq!(merged.accounts.repr_hash(), state.accounts.repr_hash());
        assert_eq!(merged.total_balance, state.total_balance);
        assert_eq!(merged.total_validator_fees, state.total_validator_fees);
        // Not siblings: refused.
        let other = ShardIdent::new(0, 0xc000_0000_0000_0000).unwrap();
        assert!(merge_halves(&left, &state_with(other, &[])).is_err());
    }

    fn tips(shards: &[u64]) -> Vec<Tip> {
        let cell = CellBuilder::build_from(state_with(ShardIdent::new_full(0), &[])).unwrap();
        shards
            .iter()
            .map(|&s| {
                Tip::plain(
                    ShardIdent::new(0, s).unwrap(),
                    cell.clone(),
                    BlockRef {
                        end_lt: 0,
                        seqno: 1,
                        root_hash: HashBytes::ZERO,
                        file_hash: HashBytes::ZERO,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn the_layout_grows_then_splits_and_merges_back_every_k_blocks() {
        let layout = Layout::new(4, Some(3)).unwrap();
        // Growing: every shard shallower than asked splits, whatever the seqno.
        let one = tips(&[0x8000_0000_0000_0000]);
        assert_eq!(layout.plan(&one, 1), vec![Announce::Split]);
        assert!(!layout.reached(&one));
        let four = tips(&[
            0x2000_0000_0000_0000,
            0x6000_0000_0000_0000,
            0xa000_0000_0000_0000,
            0xe000_0000_0000_0000,
        ]);
        assert!(layout.reached(&four));
        // Between events nothing happens; an event splits one shard.
        assert!(layout
            .plan(&four, 4)
            .iter()
            .all(|a| *a == Announce::Nothing));
        let plan = layout.plan(&four, 6);
        assert_eq!(plan.iter().filter(|a| **a == Announce::Split).count(), 1);
        // With one shard split, the next event merges that pair back.
        let five = tips(&[
            0x2000_0000_0000_0000,
            0x5000_0000_0000_0000,
            0x7000_0000_0000_0000,
            0xa000_0000_0000_0000,
            0xe000_0000_0000_0000,
        ]);
        assert_eq!(
            layout.plan(&five, 9),
            vec![
                Announce::Nothing,
                Announce::Merge,
                Announce::Merge,
                Announce::Nothing,
                Announce::Nothing
            ]
        );
        // Sixteen shards cannot split further: a pair merges (and regrows).
        let deepest = Layout::new(16, Some(2)).unwrap();
        let sixteen: Vec<u64> = (0..16u64).map(|i| (i << 60) | (1 << 59)).collect();
        let plan = deepest.plan(&tips(&sixteen), 2);
        assert_eq!(plan.iter().filter(|a| **a == Announce::Merge).count(), 2);
        // Bad layouts are refused.
        assert!(Layout::new(3, None).is_err());
        assert!(Layout::new(32, None).is_err());
        assert!(Layout::new(2, Some(1)).is_err());
    }
}
