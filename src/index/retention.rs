//! State retention: which shard states the cell store keeps, and the
//! release of the others.
//!
//! Every applied block makes a new state; the cells it shares with the
//! state before are stored once (content-addressed), and each cell carries
//! the number of references to it — from stored cells, plus one for each
//! kept state whose root it is ([`super::state`] counts them as it writes).
//! A state that a newer one replaced is scheduled for release after the
//! masterchain block from which on the newer one is in force
//! (`state_releases`). Once that block falls out of the newest
//! `keep_states` masterchain blocks, no kept masterchain block has the old
//! state as its own (or its shard's), and its root is released: counts go
//! down along the tree, and a cell that no one refers to any more is
//! deleted, its children released in turn. The cell store then holds the
//! live state plus what changed during the kept window, whatever the
//! length of the history.

use std::collections::HashMap;
use std::num::NonZeroU32;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tycho_types::cell::HashBytes;

use tonindex_storage::tables::{Cells, ShardStates, StateReleaseKey, StateReleases};
use tonindex_storage::{prefix_successor, Db};

use super::IndexError;
use crate::state::cells::child_hashes;

/// How many masterchain blocks' states the index keeps (`[index]
/// keep_states`): the newest N (v2 reads with `seqno` of an older block
/// then answer from a lite server, or say the state is no longer held), or
/// all of them (an archive; the cell store grows with history).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepStates {
    All,
    Newest(NonZeroU32),
}

impl KeepStates {
    /// About three days of mainnet masterchain blocks (one every ~400 ms).
    pub const DEFAULT: KeepStates = KeepStates::Newest(NonZeroU32::new(650_000).unwrap());

    /// The newest masterchain seqno whose releases are due once block
    /// `newest_mc` is committed: a state replaced from block `m` on is the
    /// state of blocks before `m` only, and the kept blocks are
    /// `newest_mc - N + 1 ..= newest_mc`.
    pub fn release_through(self, newest_mc: u32) -> Option<u32> {
        match self {
            KeepStates::All => None,
            KeepStates::Newest(n) => (u64::from(newest_mc) + 1)
                .checked_sub(u64::from(n.get()))
                .map(|m| m as u32),
        }
    }
}

impl Default for KeepStates {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl std::fmt::Display for KeepStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeepStates::All => f.write_str("all"),
            KeepStates::Newest(n) => write!(f, "{n}"),
        }
    }
}

impl std::str::FromStr for KeepStates {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("all") {
            return Ok(KeepStates::All);
        }
        s.parse::<NonZeroU32>()
            .map(KeepStates::Newest)
            .map_err(|_| format!("keep_states is `all` or a number of masterchain blocks (at least 1), not `{s}`"))
    }
}

impl Serialize for KeepStates {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            KeepStates::All => s.serialize_str("all"),
            KeepStates::Newest(n) => s.serialize_u32(n.get()),
        }
    }
}

impl<'de> Deserialize<'de> for KeepStates {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Number(u64),
            Text(String),
        }
        let text = match Given::deserialize(d)? {
            Given::Number(n) => n.to_string(),
            Given::Text(t) => t,
        };
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What a release removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Released {
    /// States whose roots were released.
    pub states: u64,
    /// Cells deleted (no reference left).
    pub cells: u64,
}

/// States released in one batch at most, so that a long backlog (after
/// `keep_states` was lowered) is written in bounded batches.
const STATES_PER_BATCH: usize = 64;

/// Releases every state scheduled for release after masterchain blocks
/// `..= through`, in atomic batches (a release row goes in the batch that
/// releases its state, so a restart resumes where a crash stopped). The
/// writer calls it between units: it reads counts as committed, and nothing
/// else writes the cell store meanwhile.
pub fn release_states(db: &Db, through: u32) -> Result<Released, IndexError> {
    let mut done = Released::default();
    loop {
        let reader = db.reader();
        let upper = prefix_successor(&StateReleaseKey::prefix(through));
        let due: Vec<_> = reader
            .range::<StateReleases>(&[], upper, false)
            .take(STATES_PER_BATCH)
            .collect::<Result<_, _>>()?;
        if due.is_empty() {
            return Ok(done);
        }
        let mut batch = db.batch();
        let mut release = Release::new(db);
        for (key, shard) in &due {
            batch.delete::<StateReleases>(key);
            release.root(HashBytes(key.root))?;
            // A split parent's row is left for its second half to start
            // from; once the parent is released, no half needs it.
            if let Some(held) = db.get::<ShardStates>(shard)? {
                if held.root_hash == key.root {
                    batch.delete::<ShardStates>(shard);
                }
            }
        }
        done.states += due.len() as u64;
        done.cells += release.write(&mut batch);
        db.write(batch)?;
    }
}

/// The count changes of one batch of releases, per cell.
struct Release<'db> {
    db: &'db Db,
    cells: HashMap<HashBytes, Touched>,
}

/// A cell a release reached.
struct Touched {
    /// Its committed count.
    count: u32,
    /// References dropped in this batch.
    down: u32,
    row: Vec<u8>,
}

impl<'db> Release<'db> {
    fn new(db: &'db Db) -> Self {
        Self {
            db,
            cells: HashMap::new(),
        }
    }

    /// Drops one reference to the tree under `root`, and the references of
    /// every cell that loses its last one.
    fn root(&mut self, root: HashBytes) -> Result<(), IndexError> {
        let mut stack = vec![root];
        while let Some(hash) = stack.pop() {
            if !self.cells.contains_key(&hash) {
                let Some(row) = self.db.get::<Cells>(hash.as_array())? else {
                    // A split parent scheduled twice (its halves were
                    // committed by different masterchain blocks as this
                    // node saw them) is released once.
                    tracing::debug!(cell = %hash, "a released cell is not stored");
                    continue;
                };
                let touched = Touched {
                    count: row.count,
                    down: 0,
                    row: row.bytes,
                };
                self.cells.insert(hash, touched);
            }
            let Some(cell) = self.cells.get_mut(&hash) else {
                continue;
            };
            if cell.down >= cell.count {
                tracing::warn!(cell = %hash, count = cell.count, "a cell is released more often than it is referred to");
                continue;
            }
            cell.down += 1;
            if cell.down == cell.count {
                match child_hashes(&hash, &cell.row) {
                    Ok(children) => stack.extend(children),
                    Err(e) => tracing::warn!(
                        cell = %hash,
                        error = %e,
                        "a released cell's row is unreadable; its children stay"
                    ),
                }
            }
        }
        Ok(())
    }

    /// Writes the changes: cells without references deleted, the others'
    /// counts moved. Returns the number deleted.
    fn write(self, batch: &mut tonindex_storage::Batch<'_>) -> u64 {
        let mut deleted = 0;
        for (hash, cell) in self.cells {
            if cell.down == cell.count {
                batch.delete::<Cells>(hash.as_array());
                deleted += 1;
            } else if cell.down > 0 {
                batch.add_refs::<Cells>(hash.as_array(), -(cell.down as i32));
            }
        }
        deleted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_states_reads_all_or_a_positive_number_and_releases_what_no_kept_block_needs() {
        assert_eq!("all".parse::<KeepStates>(), Ok(KeepStates::All));
        assert_eq!(
            "3".parse::<KeepStates>(),
            Ok(KeepStates::Newest(NonZeroU32::new(3).unwrap()))
        );
        assert!("0".parse::<KeepStates>().is_err());
        assert!("-1".parse::<KeepStates>().is_err());
        assert!("some".parse::<KeepStates>().is_err());
        let three = KeepStates::Newest(NonZeroU32::new(3).unwrap());
        // Blocks 8, 9, 10 kept: block 8's state was replaced from 9 on.
        assert_eq!(three.release_through(10), Some(8));
        assert_eq!(three.release_through(1), None);
        assert_eq!(three.release_through(2), Some(0));
        assert_eq!(KeepStates::All.release_through(u32::MAX - 1), None);
    }
}
