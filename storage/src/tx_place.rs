//! A transaction's place ([`TxPlace`], the value of
//! [`crate::tables::Transactions`]) and the merge operands that complete it
//! after its transaction is written: the masterchain block that commits it
//! and the tag of its trace. Both come later than the row (the shard block
//! may be stored before its masterchain block; trace assembly runs after
//! the unit's commit) and are written blind, without reading the row.
//!
//! The trace tag lives here rather than in a table of its own (`trace_of_tx`
//! until schema 36, 11.8 SST bytes a transaction on the 10M corpus): every
//! page that shows a transaction reads its place anyway, and the tag came
//! with a random read of its own.

use serde::{Deserialize, Serialize};
use tonindex_model::BlockId;

use crate::codec::{bincode_encode, Value};
use crate::keys::HashTag;
use crate::Error;

/// Where a stored transaction sits: what its BoC does not say. The
/// transaction's record is rebuilt from the BoC and this (every other field
/// is in the BoC), so the index keeps each transaction once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxPlace {
    pub block: BlockId,
    /// The masterchain block that commits `block`, once known.
    pub mc_block_seqno: Option<u32>,
    /// The block's `gen_software` version: how its messages' `ihr_fee`
    /// header field reads (`extra_flags` from version 12). Readers decode
    /// a page's message records from the BoC's own message cells with it
    /// instead of looking each one up in the `messages` table (a few
    /// hundred random block reads a 100-transaction page).
    pub global_version: u32,
    /// Its account's number and its lt: the key of its BoC in
    /// [`crate::tables::TxBocs`].
    pub account_num: u64,
    pub lt: u64,
    /// The tag of its trace's id, once the trace is assembled: readers
    /// find the trace by it (and, should two stored traces share it, take
    /// the one whose record lists the transaction).
    pub trace_tag: Option<HashTag>,
}

impl TxPlace {
    /// The key of the transaction's BoC.
    pub fn boc_key(&self) -> crate::keys::NumLtKey {
        crate::keys::NumLtKey {
            num: self.account_num,
            lt: self.lt,
        }
    }
}

/// The first byte of an operand that sets the trace tag (8 bytes follow).
const TRACE_TAG: u8 = 1;
/// The first byte of an operand that sets the masterchain seqno (4 bytes
/// follow, big-endian).
const MC_SEQNO: u8 = 2;

/// The operand that sets a place's trace tag.
pub(crate) fn trace_tag_operand(tag: &HashTag) -> Vec<u8> {
    let mut out = Vec::with_capacity(9);
    out.push(TRACE_TAG);
    out.extend_from_slice(tag);
    out
}

/// The operand that sets a place's masterchain seqno.
pub(crate) fn mc_seqno_operand(seqno: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(5);
    out.push(MC_SEQNO);
    out.extend_from_slice(&seqno.to_be_bytes());
    out
}

/// Applies the operands in `bytes` (back to back, oldest first) to `place`
/// (or to nothing, when `place` is `None`: then they are only checked).
fn apply(mut bytes: &[u8], mut place: Option<&mut TxPlace>) -> Result<(), Error> {
    const BAD: Error = Error::Corrupt("transaction place operand");
    while let Some((&kind, rest)) = bytes.split_first() {
        match kind {
            TRACE_TAG => {
                let (tag, rest) = rest.split_first_chunk::<8>().ok_or(BAD)?;
                if let Some(p) = place.as_deref_mut() {
                    p.trace_tag = Some(*tag);
                }
                bytes = rest;
            }
            MC_SEQNO => {
                let (seqno, rest) = rest.split_first_chunk::<4>().ok_or(BAD)?;
                if let Some(p) = place.as_deref_mut() {
                    p.mc_block_seqno = Some(u32::from_be_bytes(*seqno));
                }
                bytes = rest;
            }
            _ => return Err(BAD),
        }
    }
    Ok(())
}

/// A stored place: its bincode encoding, then any operands a merge could
/// not fold in (none once merged).
impl Value for TxPlace {
    fn encode(&self) -> Vec<u8> {
        bincode_encode(self)
    }

    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let (mut place, used): (TxPlace, usize) =
            bincode::serde::decode_from_slice(bytes, bincode::config::standard())
                .map_err(|_| Error::Corrupt("transaction place"))?;
        apply(&bytes[used..], Some(&mut place))?;
        Ok(place)
    }
}

/// Full merge of [`crate::tables::Transactions`]: the place with its
/// operands applied. Bytes that do not read as a place and operands (an
/// operand for a place never written) are kept as they are, back to back,
/// for the reader to refuse, rather than failing the merge, which would
/// stop compaction.
pub(crate) fn place_merge(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    // 0xff starts no bincode varint: a row of operands alone never reads
    // as a place.
    let mut all = existing.map_or_else(|| vec![ORPHAN_OPERANDS], <[u8]>::to_vec);
    operands.iter().for_each(|op| all.extend_from_slice(op));
    Some(match existing.map(|_| TxPlace::decode(&all)) {
        Some(Ok(place)) => place.encode(),
        _ => all,
    })
}

/// The first byte of a row that holds operands and no place.
const ORPHAN_OPERANDS: u8 = 0xff;

/// Partial merge: the operands back to back (each sets a field, so the
/// later one wins when the full merge applies them in order).
pub(crate) fn place_partial_merge(
    _key: &[u8],
    _existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    let mut all = Vec::new();
    operands.iter().for_each(|op| all.extend_from_slice(op));
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> TxPlace {
        TxPlace {
            block: BlockId {
                workchain: 0,
                shard: 1 << 63,
                seqno: 7,
            },
            mc_block_seqno: None,
            global_version: 11,
            account_num: 42,
            lt: 1_000,
            trace_tag: None,
        }
    }

    #[test]
    fn operands_after_a_place_set_its_fields_the_latest_winning() {
        let mut bytes = place().encode();
        bytes.extend(trace_tag_operand(&[1; 8]));
        bytes.extend(mc_seqno_operand(5));
        bytes.extend(trace_tag_operand(&[2; 8]));
        let read = TxPlace::decode(&bytes).unwrap();
        assert_eq!(read.trace_tag, Some([2; 8]));
        assert_eq!(read.mc_block_seqno, Some(5));
        assert_eq!(
            TxPlace {
                trace_tag: None,
                mc_block_seqno: None,
                ..read
            },
            place()
        );
        // A torn operand and an unknown one are refused.
        let mut torn = place().encode();
        torn.extend(&trace_tag_operand(&[1; 8])[..5]);
        assert!(TxPlace::decode(&torn).is_err());
        let mut unknown = place().encode();
        unknown.push(9);
        assert!(TxPlace::decode(&unknown).is_err());
        let mut orphan = vec![ORPHAN_OPERANDS];
        orphan.extend(trace_tag_operand(&[1; 8]));
        assert!(TxPlace::decode(&orphan).is_err());
    }
}
