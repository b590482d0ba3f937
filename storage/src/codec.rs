//! How keys and values become bytes.
//!
//! Keys are fixed-width big-endian so that RocksDB's byte order is the order
//! users ask for. Signed numbers are stored with their sign bit flipped so
//! that `-1` sorts before `0`. Small records are `bincode`; large blobs (BoCs)
//! are `lz4_flex`-compressed by the types that hold them.

use serde::{de::DeserializeOwned, Serialize};
use tonindex_model::{Address, BlockId, Hash};

use crate::Error;

/// A table key: fixed layout, big-endian, order-preserving. Never empty:
/// the empty key of every table is deleted by each batch (`Db::write`).
pub trait Key: Sized {
    fn encode(&self) -> Vec<u8>;
    fn decode(bytes: &[u8]) -> Result<Self, Error>;
}

/// A table value.
pub trait Value: Sized {
    fn encode(&self) -> Vec<u8>;
    fn decode(bytes: &[u8]) -> Result<Self, Error>;
}

/// Appends key fields in order; every key layout in `tables.rs` is built with it.
#[derive(Default)]
pub struct KeyWriter(Vec<u8>);

impl KeyWriter {
    pub fn with_capacity(n: usize) -> Self {
        Self(Vec::with_capacity(n))
    }
    pub fn i32(mut self, v: i32) -> Self {
        self.0
            .extend_from_slice(&((v as u32) ^ 0x8000_0000).to_be_bytes());
        self
    }
    pub fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u128(mut self, v: u128) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn hash(mut self, v: &Hash) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    pub fn address(self, a: &Address) -> Self {
        self.i32(a.workchain).hash(&a.id)
    }
    /// Raw bytes; a layout that has more after them gives their length first.
    pub fn bytes(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    pub fn block(self, b: &BlockId) -> Self {
        self.i32(b.workchain).u64(b.shard).u32(b.seqno)
    }
    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// Reads key fields back in the order they were written.
pub struct KeyReader<'a>(&'a [u8]);

impl<'a> KeyReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self(bytes)
    }
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        if self.0.len() < N {
            return Err(Error::Corrupt("key too short"));
        }
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        Ok(head.try_into().expect("length checked"))
    }
    pub fn i32(&mut self) -> Result<i32, Error> {
        Ok((u32::from_be_bytes(self.take()?) ^ 0x8000_0000) as i32)
    }
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take::<1>()?[0])
    }
    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_be_bytes(self.take()?))
    }
    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_be_bytes(self.take()?))
    }
    pub fn u128(&mut self) -> Result<u128, Error> {
        Ok(u128::from_be_bytes(self.take()?))
    }
    pub fn hash(&mut self) -> Result<Hash, Error> {
        self.take()
    }
    /// A hash's tag (its first 8 bytes, see [`crate::keys::HashTag`]).
    pub fn tag(&mut self) -> Result<crate::keys::HashTag, Error> {
        self.take()
    }
    /// `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.0.len() < n {
            return Err(Error::Corrupt("key too short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    pub fn address(&mut self) -> Result<Address, Error> {
        Ok(Address {
            workchain: self.i32()?,
            id: self.hash()?,
        })
    }
    pub fn block(&mut self) -> Result<BlockId, Error> {
        Ok(BlockId {
            workchain: self.i32()?,
            shard: self.u64()?,
            seqno: self.u32()?,
        })
    }
    /// Fails unless every byte was consumed, so a layout change is caught.
    pub fn end(self) -> Result<(), Error> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::Corrupt("trailing bytes in key"))
        }
    }
}

impl Key for BlockId {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(16).block(self).finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let b = r.block()?;
        r.end()?;
        Ok(b)
    }
}

impl Key for Address {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(36).address(self).finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let a = r.address()?;
        r.end()?;
        Ok(a)
    }
}

/// A hash (`[32]`) or a hash's tag (`[8]`), as its bytes.
impl<const N: usize> Key for [u8; N] {
    fn encode(&self) -> Vec<u8> {
        self.to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        bytes.try_into().map_err(|_| Error::Corrupt("hash key"))
    }
}

impl Key for u32 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Ok(u32::from_be_bytes(
            bytes.try_into().map_err(|_| Error::Corrupt("u32 key"))?,
        ))
    }
}

impl Key for u64 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Ok(u64::from_be_bytes(
            bytes.try_into().map_err(|_| Error::Corrupt("u64 key"))?,
        ))
    }
}

/// An empty value, for index tables whose key says everything.
impl Value for () {
    fn encode(&self) -> Vec<u8> {
        Vec::new()
    }
    fn decode(_: &[u8]) -> Result<Self, Error> {
        Ok(())
    }
}

/// A transaction number (or any u64) stored big-endian.
impl Value for u64 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        <u64 as Key>::decode(bytes)
    }
}

impl Value for u32 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        <u32 as Key>::decode(bytes)
    }
}

/// A block id used as a value (hash → block index).
impl Value for BlockId {
    fn encode(&self) -> Vec<u8> {
        Key::encode(self)
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Key::decode(bytes)
    }
}

/// A fixed-length byte string used as a value: a hash (a pending message
/// → its trace id) or a hash's tag (a transaction → its trace's tag).
impl<const N: usize> Value for [u8; N] {
    fn encode(&self) -> Vec<u8> {
        self.to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        bytes
            .try_into()
            .map_err(|_| Error::Corrupt("a fixed-length value of another length"))
    }
}

/// A large blob stored `lz4_flex`-compressed (size-prepended block format).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lz4Bytes(pub Vec<u8>);

impl Value for Lz4Bytes {
    fn encode(&self) -> Vec<u8> {
        lz4_flex::compress_prepend_size(&self.0)
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        lz4_flex::decompress_size_prepended(bytes)
            .map(Lz4Bytes)
            .map_err(|_| Error::Corrupt("lz4 value"))
    }
}

/// Bytes stored as they are, for values whose layout a higher layer owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBytes(pub Vec<u8>);

impl Value for RawBytes {
    fn encode(&self) -> Vec<u8> {
        self.0.clone()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Ok(RawBytes(bytes.to_vec()))
    }
}

/// A transaction's BoC with its dense id in front (`tx_id u64 | BoC`):
/// the row of an account's history that names the transaction every
/// other index points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxBoc {
    pub tx_id: u64,
    pub boc: Vec<u8>,
}

impl Value for TxBoc {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.boc.len());
        out.extend_from_slice(&self.tx_id.to_be_bytes());
        out.extend_from_slice(&self.boc);
        out
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let (id, boc) = bytes
            .split_first_chunk::<8>()
            .ok_or(Error::Corrupt("transaction BoC row"))?;
        Ok(TxBoc {
            tx_id: u64::from_be_bytes(*id),
            boc: boc.to_vec(),
        })
    }
}

/// A shared row with its reference count in front (`count u32 | bytes`),
/// for tables whose rows many others point to and that are collected when
/// none does (the cell store). A writer moves counts with merge operands
/// ([`crate::Batch::add_refs`]) without reading the row; [`counted_merge`]
/// folds them in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    pub count: u32,
    pub bytes: Vec<u8>,
}

impl Value for Counted {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.bytes.len());
        out.extend_from_slice(&self.count.to_be_bytes());
        out.extend_from_slice(&self.bytes);
        out
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let (count, rest) = bytes
            .split_first_chunk::<4>()
            .ok_or(Error::Corrupt("counted value"))?;
        Ok(Counted {
            count: u32::from_be_bytes(*count),
            bytes: rest.to_vec(),
        })
    }
}

/// A merge operand of a [`Counted`] table: a signed change of the count
/// (`i32` big-endian).
pub(crate) fn count_delta(delta: i32) -> [u8; 4] {
    delta.to_be_bytes()
}

fn sum_deltas(operands: &rocksdb::MergeOperands) -> i64 {
    operands
        .iter()
        .filter_map(|op| op.try_into().ok().map(i32::from_be_bytes))
        .map(i64::from)
        .sum()
}

/// Full merge of a [`Counted`] row: the stored count plus every delta. A
/// count moved below zero stays at zero. Deltas on a row that does not exist
/// (a reference to a row already collected: a bug, never a user's input)
/// give a row with no bytes, which its reader reports as corrupt, rather
/// than a merge failure, which would stop RocksDB's compactions.
pub(crate) fn counted_merge(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    let (count, bytes) = match existing.and_then(|e| e.split_first_chunk::<4>()) {
        Some((count, rest)) => (i64::from(u32::from_be_bytes(*count)), rest),
        None => (0, &[][..]),
    };
    let count = (count + sum_deltas(operands)).clamp(0, i64::from(u32::MAX)) as u32;
    Some(
        Counted {
            count,
            bytes: bytes.to_vec(),
        }
        .encode(),
    )
}

/// Partial merge: consecutive deltas summed into one.
pub(crate) fn counted_partial_merge(
    _key: &[u8],
    _existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    let sum = sum_deltas(operands).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    Some(count_delta(sum).to_vec())
}

pub(crate) fn bincode_encode<T: Serialize>(v: &T) -> Vec<u8> {
    bincode::serde::encode_to_vec(v, bincode::config::standard())
        .expect("in-memory bincode encoding cannot fail")
}

pub(crate) fn bincode_decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map(|(v, _)| v)
        .map_err(|_| Error::Corrupt("bincode value"))
}

/// Declares that a serde type is stored as a `bincode` value.
macro_rules! bincode_value {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::codec::Value for $t {
            fn encode(&self) -> Vec<u8> {
                $crate::codec::bincode_encode(self)
            }
            fn decode(bytes: &[u8]) -> Result<Self, $crate::Error> {
                $crate::codec::bincode_decode(bytes)
            }
        }
    )*};
}
pub(crate) use bincode_value;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_workchains_sort_before_positive() {
        let a = KeyWriter::default().i32(-1).finish();
        let b = KeyWriter::default().i32(0).finish();
        let c = KeyWriter::default().i32(i32::MIN).finish();
        assert!(c < a && a < b);
        assert_eq!(KeyReader::new(&a).i32().unwrap(), -1);
    }

    #[test]
    fn block_key_round_trips_and_orders_by_seqno() {
        let k1 = BlockId {
            workchain: -1,
            shard: 0x8000_0000_0000_0000,
            seqno: 9,
        };
        let k2 = BlockId { seqno: 10, ..k1 };
        assert!(Key::encode(&k1) < Key::encode(&k2));
        assert_eq!(<BlockId as Key>::decode(&Key::encode(&k2)).unwrap(), k2);
        assert!(<BlockId as Key>::decode(&[0; 15]).is_err());
    }

    #[test]
    fn lz4_round_trip_and_corruption() {
        let v = Lz4Bytes(vec![7; 1000]);
        let enc = v.encode();
        assert!(enc.len() < 100);
        assert_eq!(Lz4Bytes::decode(&enc).unwrap(), v);
        assert!(Lz4Bytes::decode(&enc[..enc.len() - 3]).is_err());
    }
}
