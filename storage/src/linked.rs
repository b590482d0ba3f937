//! Rows that hold a record and the ids of the rows at its two ends (a
//! message with the transactions that sent and received it), written
//! piecewise by merge operands: each end is usually written by a later
//! unit than the record, and reading the row back to add an id would cost
//! the writer a lookup per message. Keeping the ids in the record's row
//! instead of in two tables keyed by the full hash saved ~55 bytes a
//! transaction on disk (two 32-byte random keys per link).
//!
//! Stored value and merge operands share one layout, a sequence of frames:
//! `0 | len varint | record bytes`, or `1 + end | id varint`. A merge
//! concatenates them and normalizes: the last record wins (as a put
//! would), each end's ids ascending, each once.

use crate::codec::Value;
use crate::Error;

/// A record and the ids at its two ends (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked<T> {
    /// `None` while only ids were written (never, for rows the indexer
    /// writes: a record comes in the batch of its first id).
    pub record: Option<T>,
    /// The ids at each end, ascending, each once.
    pub ends: [Vec<u64>; 2],
}

impl<T> Linked<T> {
    /// The ids at `end` (0 or 1).
    pub fn at(&self, end: usize) -> &[u64] {
        &self.ends[end]
    }
}

const RECORD: u8 = 0;
const END: u8 = 1;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn take_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A record frame (a merge operand that sets the record).
pub(crate) fn record_operand(record: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(record.len() + 6);
    out.push(RECORD);
    put_varint(&mut out, record.len() as u64);
    out.extend_from_slice(record);
    out
}

/// An id frame (a merge operand that adds `id` at `end`).
pub(crate) fn link_operand(end: usize, id: u64) -> Vec<u8> {
    debug_assert!(end < 2);
    let mut out = Vec::with_capacity(11);
    out.push(END + end as u8);
    put_varint(&mut out, id);
    out
}

/// Frames parsed without decoding the record.
#[derive(Default)]
struct Frames<'a> {
    record: Option<&'a [u8]>,
    ends: [Vec<u64>; 2],
}

impl<'a> Frames<'a> {
    /// Adds the frames of `bytes`; `None` if they are malformed.
    fn add(&mut self, mut bytes: &'a [u8]) -> Option<()> {
        while let Some((&kind, rest)) = bytes.split_first() {
            bytes = rest;
            match kind {
                RECORD => {
                    let len = usize::try_from(take_varint(&mut bytes)?).ok()?;
                    if len > bytes.len() {
                        return None;
                    }
                    let (record, rest) = bytes.split_at(len);
                    self.record = Some(record);
                    bytes = rest;
                }
                k if k == END || k == END + 1 => {
                    let id = take_varint(&mut bytes)?;
                    self.ends[usize::from(k - END)].push(id);
                }
                _ => return None,
            }
        }
        Some(())
    }

    fn normalize(&mut self) {
        for ids in &mut self.ends {
            ids.sort_unstable();
            ids.dedup();
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = match self.record {
            Some(r) => record_operand(r),
            None => Vec::new(),
        };
        for (end, ids) in self.ends.iter().enumerate() {
            for &id in ids {
                out.push(END + end as u8);
                put_varint(&mut out, id);
            }
        }
        out
    }
}

impl<T: Value> Value for Linked<T> {
    fn encode(&self) -> Vec<u8> {
        let record = self.record.as_ref().map(Value::encode);
        let mut frames = Frames {
            record: record.as_deref(),
            ends: self.ends.clone(),
        };
        frames.normalize();
        frames.encode()
    }

    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut frames = Frames::default();
        frames
            .add(bytes)
            .ok_or(Error::Corrupt("linked row frames"))?;
        frames.normalize();
        Ok(Linked {
            record: frames.record.map(T::decode).transpose()?,
            ends: frames.ends,
        })
    }
}

/// Folds `existing` and `operands` into one normalized value (full merge)
/// or operand (partial merge: `existing` is `None`). Malformed input is
/// kept as it came, concatenated, so that the row's reader reports it;
/// failing the merge would stop RocksDB's compactions instead.
fn fold(existing: Option<&[u8]>, operands: &rocksdb::MergeOperands) -> Vec<u8> {
    let mut frames = Frames::default();
    let whole = existing
        .into_iter()
        .chain(operands.iter())
        .all(|bytes| frames.add(bytes).is_some());
    if !whole {
        let mut out = existing.map(<[u8]>::to_vec).unwrap_or_default();
        operands.iter().for_each(|op| out.extend_from_slice(op));
        return out;
    }
    frames.normalize();
    frames.encode()
}

pub(crate) fn linked_merge(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    Some(fold(existing, operands))
}

pub(crate) fn linked_partial_merge(
    _key: &[u8],
    _existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    Some(fold(None, operands))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::RawBytes;

    fn decode(bytes: &[u8]) -> Linked<RawBytes> {
        Linked::decode(bytes).unwrap()
    }

    #[test]
    fn frames_fold_as_puts_and_sets() {
        let mut bytes = link_operand(1, 300);
        bytes.extend(record_operand(b"first"));
        bytes.extend(link_operand(0, 7));
        bytes.extend(link_operand(1, 2));
        bytes.extend(record_operand(b"second"));
        bytes.extend(link_operand(1, 300));
        bytes.extend(link_operand(0, u64::MAX));
        let row = decode(&bytes);
        assert_eq!(row.record, Some(RawBytes(b"second".to_vec())));
        assert_eq!(row.ends, [vec![7, u64::MAX], vec![2, 300]]);
        // Encoding normalizes; decoding the normal form gives the same row.
        assert_eq!(decode(&row.encode()), row);
        let ids_only = decode(&link_operand(0, 5));
        assert_eq!(ids_only.record, None);
        assert_eq!(ids_only.at(0), &[5]);
    }

    #[test]
    fn malformed_frames_are_reported() {
        for bad in [vec![9u8], vec![RECORD, 5, 1], vec![END, 0x80]] {
            assert!(Linked::<RawBytes>::decode(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn varints_round_trip() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(take_varint(&mut out.as_slice()), Some(v));
        }
    }
}
