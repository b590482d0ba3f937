//! The key layouts of the tables (see [`crate::tables`] for which table
//! uses which): each field order is the sort order RocksDB keeps, so a
//! range of keys is a range of whatever the key leads with. Notation as in
//! [`crate::tables`].

use tonindex_model::{Address, BlockId, Hash};

use crate::codec::{Key, KeyReader, KeyWriter};
use crate::Error;

/// The first 8 bytes of a hash, standing for the hash where an index row
/// names a message: the rows of `/messages`' indexes are keyed by a value
/// (a destination, a created_lt) and then the hash, which only breaks ties
/// and finds the record. Random bytes do not compress, and 24 fewer of them
/// in a dozen rows a message is ~200 bytes a transaction on disk. The order
/// is still the hash's. A reader finds the record by this prefix and checks
/// it against the rest of the row's key, so a tag that two stored messages
/// share (about one pair in mainnet's history) resolves to the right one;
/// two messages whose keys are equal up to the tag (made on purpose: 2^32
/// tries) share one row, which the reader expands to both.
pub type HashTag = [u8; 8];

/// The tag of `hash`.
pub fn hash_tag(hash: &Hash) -> HashTag {
    let mut tag = [0; 8];
    tag.copy_from_slice(&hash[..8]);
    tag
}

/// `mc_seqno u32 | block`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McBlockKey {
    pub mc_seqno: u32,
    pub block: BlockId,
}

impl McBlockKey {
    /// Prefix of all rows of one masterchain block.
    pub fn prefix(mc_seqno: u32) -> Vec<u8> {
        KeyWriter::default().u32(mc_seqno).finish()
    }
}

impl Key for McBlockKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(20)
            .u32(self.mc_seqno)
            .block(&self.block)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = McBlockKey {
            mc_seqno: r.u32()?,
            block: r.block()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `account | lt u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountLtKey {
    pub account: Address,
    pub lt: u64,
}

impl AccountLtKey {
    /// Prefix of all rows of one account.
    pub fn prefix(account: &Address) -> Vec<u8> {
        KeyWriter::with_capacity(36).address(account).finish()
    }
}

impl Key for AccountLtKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(44)
            .address(&self.account)
            .u64(self.lt)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = AccountLtKey {
            account: r.address()?,
            lt: r.u64()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `account number u64 | lt u64`: one account's transactions under the
/// dense number [`crate::tables::AccountNumbers`] gives it, so its history
/// is one contiguous run of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumLtKey {
    pub num: u64,
    pub lt: u64,
}

impl NumLtKey {
    /// Prefix of all rows of one account number.
    pub fn prefix(num: u64) -> Vec<u8> {
        KeyWriter::with_capacity(8).u64(num).finish()
    }
}

impl Key for NumLtKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(16)
            .u64(self.num)
            .u64(self.lt)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = NumLtKey {
            num: r.u64()?,
            lt: r.u64()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// The end of a key that lists transactions by lt (after a time or a
/// masterchain block) and then account: `wc i32 | account tag [8] | tx_id
/// u64` → (). The account's id is cut to its [`HashTag`] (random bytes do
/// not compress; 24 fewer in three such rows a transaction) and the
/// transaction's id, which the row exists to give, ends the key and keeps
/// it unique. Ties of lt go by account, as the full id would order them,
/// unless two accounts share a tag (then by id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TxTail {
    pub workchain: i32,
    pub account_tag: HashTag,
    pub tx_id: u64,
}

impl TxTail {
    /// The tail of transaction `tx_id` of `account`.
    pub fn new(account: &Address, tx_id: u64) -> Self {
        TxTail {
            workchain: account.workchain,
            account_tag: hash_tag(&account.id),
            tx_id,
        }
    }

    /// The lowest tail: key bounds start at it.
    pub const MIN: TxTail = TxTail {
        workchain: i32::MIN,
        account_tag: [0; 8],
        tx_id: 0,
    };

    fn write(&self, w: KeyWriter) -> KeyWriter {
        w.i32(self.workchain)
            .bytes(&self.account_tag)
            .u64(self.tx_id)
    }

    fn read(r: &mut KeyReader<'_>) -> Result<Self, Error> {
        Ok(TxTail {
            workchain: r.i32()?,
            account_tag: r.tag()?,
            tx_id: r.u64()?,
        })
    }
}

/// `now u32 | lt u64 | tail`: a transaction by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeLtAccountKey {
    pub now: u32,
    pub lt: u64,
    pub tx: TxTail,
}

impl Key for TimeLtAccountKey {
    fn encode(&self) -> Vec<u8> {
        let w = KeyWriter::with_capacity(32).u32(self.now).u64(self.lt);
        self.tx.write(w).finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = TimeLtAccountKey {
            now: r.u32()?,
            lt: r.u64()?,
            tx: TxTail::read(&mut r)?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `gen_utime u32 | block`: a block by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeBlockKey {
    pub utime: u32,
    pub block: BlockId,
}

impl Key for TimeBlockKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(20)
            .u32(self.utime)
            .block(&self.block)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = TimeBlockKey {
            utime: r.u32()?,
            block: r.block()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `kind u8 | now u32 | lt u64 | hash [32]`: a token event by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTimeKey {
    pub kind: u8,
    pub now: u32,
    pub lt: u64,
    pub hash: Hash,
}

impl EventTimeKey {
    /// Bounds of the kind's rows with `lo <= now <= hi`.
    pub fn now_range(kind: u8, lo: u32, hi: u32) -> (Vec<u8>, Option<Vec<u8>>) {
        let prefix = |now: u32| KeyWriter::with_capacity(5).u8(kind).u32(now).finish();
        let upper = match hi.checked_add(1) {
            Some(now) => Some(prefix(now)),
            None => crate::db::prefix_successor(&[kind]),
        };
        (prefix(lo), upper)
    }
}

impl Key for EventTimeKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(45)
            .u8(self.kind)
            .u32(self.now)
            .u64(self.lt)
            .hash(&self.hash)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = EventTimeKey {
            kind: r.u8()?,
            now: r.u32()?,
            lt: r.u64()?,
            hash: r.hash()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `kind u8 | account | now u32 | lt u64 | hash [32]`: an account's token
/// event by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountEventTimeKey {
    pub kind: u8,
    pub account: Address,
    pub now: u32,
    pub lt: u64,
    pub hash: Hash,
}

impl AccountEventTimeKey {
    /// Bounds of the account's rows of the kind with `lo <= now <= hi`.
    pub fn now_range(kind: u8, account: &Address, lo: u32, hi: u32) -> (Vec<u8>, Option<Vec<u8>>) {
        let prefix = || KeyWriter::with_capacity(45).u8(kind).address(account);
        let upper = match hi.checked_add(1) {
            Some(now) => Some(prefix().u32(now).finish()),
            None => crate::db::prefix_successor(&prefix().finish()),
        };
        (prefix().u32(lo).finish(), upper)
    }
}

impl Key for AccountEventTimeKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(81)
            .u8(self.kind)
            .address(&self.account)
            .u32(self.now)
            .u64(self.lt)
            .hash(&self.hash)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = AccountEventTimeKey {
            kind: r.u8()?,
            account: r.address()?,
            now: r.u32()?,
            lt: r.u64()?,
            hash: r.hash()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `flags u8 | [account] | type (u8 length, bytes) | end u64 | hash [32]`:
/// a trace by one of its action types, by account or not. `flags`: bit 0
/// the order (0 end lt, 1 end time), bit 1 set when the account follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeEndKey {
    /// 0: `end` is the trace's end lt; 1: its end time.
    pub order: u8,
    pub account: Option<Address>,
    pub kind: String,
    pub end: u64,
    /// The trace's [`HashTag`].
    pub tag: HashTag,
}

impl TypeEndKey {
    fn head(order: u8, account: Option<&Address>, kind: &str) -> KeyWriter {
        let flags = (order & 1) | (u8::from(account.is_some()) << 1);
        let w = KeyWriter::with_capacity(110).u8(flags);
        let w = match account {
            Some(a) => w.address(a),
            None => w,
        };
        let bytes = kind.as_bytes();
        let len = bytes.len().min(255);
        w.u8(len as u8).bytes(&bytes[..len])
    }

    /// Bounds of the rows of one type (and account) with `lo <= end <= hi`.
    pub fn end_range(
        order: u8,
        account: Option<&Address>,
        kind: &str,
        lo: u64,
        hi: u64,
    ) -> (Vec<u8>, Option<Vec<u8>>) {
        let lower = Self::head(order, account, kind).u64(lo).finish();
        let upper = match hi.checked_add(1) {
            Some(end) => Some(Self::head(order, account, kind).u64(end).finish()),
            None => crate::db::prefix_successor(&Self::head(order, account, kind).finish()),
        };
        (lower, upper)
    }
}

impl Key for TypeEndKey {
    fn encode(&self) -> Vec<u8> {
        Self::head(self.order, self.account.as_ref(), &self.kind)
            .u64(self.end)
            .bytes(&self.tag)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let flags = r.u8()?;
        let account = if flags & 2 != 0 {
            Some(r.address()?)
        } else {
            None
        };
        let len = usize::from(r.u8()?);
        let kind = String::from_utf8(r.bytes(len)?.to_vec())
            .map_err(|_| Error::Corrupt("an action type that is not UTF-8"))?;
        let k = TypeEndKey {
            order: flags & 1,
            account,
            kind,
            end: r.u64()?,
            tag: r.tag()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `lt u64 | tail` (see [`TxTail`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LtAccountKey {
    pub lt: u64,
    pub tx: TxTail,
}

impl Key for LtAccountKey {
    fn encode(&self) -> Vec<u8> {
        let w = KeyWriter::with_capacity(28).u64(self.lt);
        self.tx.write(w).finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = LtAccountKey {
            lt: r.u64()?,
            tx: TxTail::read(&mut r)?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `block | tx_id u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockTxKey {
    pub block: BlockId,
    pub tx_id: u64,
}

impl BlockTxKey {
    /// Prefix of all transactions of one block.
    pub fn prefix(block: &BlockId) -> Vec<u8> {
        Key::encode(block)
    }
}

impl Key for BlockTxKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(24)
            .block(&self.block)
            .u64(self.tx_id)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = BlockTxKey {
            block: r.block()?,
            tx_id: r.u64()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `mc_seqno u32 | lt u64 | tail` (see [`TxTail`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McLtAccountKey {
    pub mc_seqno: u32,
    pub lt: u64,
    pub tx: TxTail,
}

impl McLtAccountKey {
    /// Prefix of all transactions of one masterchain block.
    pub fn prefix(mc_seqno: u32) -> Vec<u8> {
        KeyWriter::default().u32(mc_seqno).finish()
    }
}

impl Key for McLtAccountKey {
    fn encode(&self) -> Vec<u8> {
        let w = KeyWriter::with_capacity(32).u32(self.mc_seqno).u64(self.lt);
        self.tx.write(w).finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = McLtAccountKey {
            mc_seqno: r.u32()?,
            lt: r.u64()?,
            tx: TxTail::read(&mut r)?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `account | lt u64 | msg hash [32]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountLtHashKey {
    pub account: Address,
    pub lt: u64,
    pub hash: Hash,
}

impl AccountLtHashKey {
    /// Prefix of all rows of one account.
    pub fn prefix(account: &Address) -> Vec<u8> {
        KeyWriter::with_capacity(36).address(account).finish()
    }

    /// Key bounds `[lower, upper)` of one account's rows with `lo <= lt <= hi`.
    pub fn lt_range(account: &Address, lo: u64, hi: u64) -> (Vec<u8>, Option<Vec<u8>>) {
        let key = |lt| {
            AccountLtHashKey {
                account: *account,
                lt,
                hash: [0; 32],
            }
            .encode()
        };
        let upper = match hi.checked_add(1) {
            Some(lt) => Some(key(lt)),
            None => crate::db::prefix_successor(&Self::prefix(account)),
        };
        (key(lo), upper)
    }
}

impl Key for AccountLtHashKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(76)
            .address(&self.account)
            .u64(self.lt)
            .hash(&self.hash)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = AccountLtHashKey {
            account: r.address()?,
            lt: r.u64()?,
            hash: r.hash()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `account | lt u64 | tag [8]`: the messages an account sent (by
/// created_lt), the traces it took part in or has actions in (by end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountLtTagKey {
    pub account: Address,
    pub lt: u64,
    pub tag: HashTag,
}

impl AccountLtTagKey {
    /// Key bounds `[lower, upper)` of one account's rows with `lo <= lt <= hi`.
    pub fn lt_range(account: &Address, lo: u64, hi: u64) -> (Vec<u8>, Option<Vec<u8>>) {
        let key = |lt| {
            AccountLtTagKey {
                account: *account,
                lt,
                tag: [0; 8],
            }
            .encode()
        };
        let upper = match hi.checked_add(1) {
            Some(lt) => Some(key(lt)),
            None => crate::db::prefix_successor(&AccountLtHashKey::prefix(account)),
        };
        (key(lo), upper)
    }
}

impl Key for AccountLtTagKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(52)
            .address(&self.account)
            .u64(self.lt)
            .bytes(&self.tag)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = AccountLtTagKey {
            account: r.address()?,
            lt: r.u64()?,
            tag: r.tag()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `account | account`: one account's relation to another (an owner and
/// its Jetton wallet, a master and its wallet, an admin and its master).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountPairKey {
    pub first: Address,
    pub second: Address,
}

impl AccountPairKey {
    /// Prefix of all rows of `first`.
    pub fn prefix(first: &Address) -> Vec<u8> {
        KeyWriter::with_capacity(36).address(first).finish()
    }
}

impl Key for AccountPairKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(72)
            .address(&self.first)
            .address(&self.second)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = AccountPairKey {
            first: r.address()?,
            second: r.address()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `hash [32] | account`: accounts under a hash (a domain's items).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashAccountKey {
    pub hash: Hash,
    pub account: Address,
}

impl HashAccountKey {
    /// Prefix of the rows under one hash.
    pub fn prefix(hash: &Hash) -> Vec<u8> {
        hash.to_vec()
    }
}

impl Key for HashAccountKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(68)
            .hash(&self.hash)
            .address(&self.account)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = HashAccountKey {
            hash: r.hash()?,
            account: r.address()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `nanotons u128 | account`: an account in balance order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceAccountKey {
    pub balance: u128,
    pub account: Address,
}

impl Key for BalanceAccountKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(52)
            .u128(self.balance)
            .address(&self.account)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = BalanceAccountKey {
            balance: r.u128()?,
            account: r.address()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `hash [32] | msg hash [32]`: messages by a hash of theirs other than
/// their own (normalized hash, body hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashMsgKey {
    pub hash: Hash,
    pub msg_hash: Hash,
}

impl Key for HashMsgKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(64)
            .hash(&self.hash)
            .hash(&self.msg_hash)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = HashMsgKey {
            hash: r.hash()?,
            msg_hash: r.hash()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `lt u64 | hash [32]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LtHashKey {
    pub lt: u64,
    pub hash: Hash,
}

impl Key for LtHashKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(40)
            .u64(self.lt)
            .hash(&self.hash)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = LtHashKey {
            lt: r.u64()?,
            hash: r.hash()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `mc_seqno u32 | end lt u64 | trace tag [8]`: the traces one
/// masterchain block completed (see [`LtTagKey`] for the tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McLtTagKey {
    pub mc_seqno: u32,
    pub lt: u64,
    pub tag: HashTag,
}

impl McLtTagKey {
    /// Prefix of the traces of one masterchain block.
    pub fn prefix(mc_seqno: u32) -> Vec<u8> {
        KeyWriter::with_capacity(4).u32(mc_seqno).finish()
    }
}

impl Key for McLtTagKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(20)
            .u32(self.mc_seqno)
            .u64(self.lt)
            .bytes(&self.tag)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = McLtTagKey {
            mc_seqno: r.u32()?,
            lt: r.u64()?,
            tag: r.tag()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `tag [8] | id u64`: a row found by the [`HashTag`] of a hash, that
/// names the row holding the whole hash (a transaction by its id). The
/// reader checks the hash there: two hashes may share a tag, and each has
/// a row of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagIdKey {
    pub tag: HashTag,
    pub id: u64,
}

impl Key for TagIdKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(16)
            .bytes(&self.tag)
            .u64(self.id)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = TagIdKey {
            tag: r.tag()?,
            id: r.u64()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `tag [8] | other tag [8]`: as [`TagIdKey`], naming a row by the tag of
/// another hash (an action's trace, whose rows hold the action's id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagPairKey {
    pub tag: HashTag,
    pub other: HashTag,
}

impl Key for TagPairKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(16)
            .bytes(&self.tag)
            .bytes(&self.other)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = TagPairKey {
            tag: r.tag()?,
            other: r.tag()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `end u64 | trace tag [8]`: traces by an end (lt or time). Trace
/// listings end in the trace id's [`HashTag`] as message indexes end in
/// the message's: the reader finds the trace by the tag and checks its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LtTagKey {
    pub lt: u64,
    pub tag: HashTag,
}

impl Key for LtTagKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(16)
            .u64(self.lt)
            .bytes(&self.tag)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = LtTagKey {
            lt: r.u64()?,
            tag: r.tag()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `null flag u8 | value u64 | msg tag [8]`: messages ordered by a value
/// some of them lack (then by hash: the tag is the hash's first bytes,
/// see [`HashTag`]). The flag is 0 with a value and 1 without (value 0),
/// so missing values sort last ascending and first descending, as Postgres
/// orders nulls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullableOrderKey {
    pub value: Option<u64>,
    pub tag: HashTag,
}

impl NullableOrderKey {
    /// Its encoded length.
    pub const LEN: usize = 1 + 8 + 8;

    /// Key bounds `[lower, upper)` of the rows whose value lies in `lo..=hi`.
    pub fn value_range(lo: u64, hi: u64) -> (Vec<u8>, Option<Vec<u8>>) {
        let lower = KeyWriter::with_capacity(9).u8(0).u64(lo).finish();
        let upper = match hi.checked_add(1) {
            Some(next) => KeyWriter::with_capacity(9).u8(0).u64(next).finish(),
            None => vec![1],
        };
        (lower, Some(upper))
    }

    /// Key prefix of the rows without a value.
    pub fn null_prefix() -> Vec<u8> {
        vec![1]
    }
}

impl Key for NullableOrderKey {
    fn encode(&self) -> Vec<u8> {
        let (flag, value) = match self.value {
            Some(v) => (0, v),
            None => (1, 0),
        };
        KeyWriter::with_capacity(NullableOrderKey::LEN)
            .u8(flag)
            .u64(value)
            .bytes(&self.tag)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let flag = r.u8()?;
        let value = r.u64()?;
        let k = NullableOrderKey {
            value: match flag {
                0 => Some(value),
                1 => None,
                _ => return Err(Error::Corrupt("bad null flag in key")),
            },
            tag: r.tag()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// `group | null flag u8 | value u64 | msg tag [8]`: the messages of one
/// group (a destination account, a body hash, an opcode) in a
/// [`NullableOrderKey`] order, so that a filtered `/messages` page is a
/// key range walked in answer order. `group` has a fixed length per table
/// (see [`MessageGroupKey`]); the order is always the last
/// [`NullableOrderKey::LEN`] bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupOrderKey {
    pub group: Vec<u8>,
    pub order: NullableOrderKey,
}

/// The group part of a [`GroupOrderKey`].
pub enum MessageGroupKey<'a> {
    /// `account` (36 bytes).
    Account(&'a Address),
    /// A body hash's [`HashTag`] (`[8]`): bodies are mostly distinct, so
    /// the group is as random as the message's own hash. A range of one
    /// body's rows also holds those of any body whose hash shares the tag
    /// (none short of 2^64 tries against a given body); the reader checks
    /// each record's body and passes over the others.
    BodyHash(&'a Hash),
    /// `u32`.
    Opcode(u32),
}

impl MessageGroupKey<'_> {
    pub fn encode(&self) -> Vec<u8> {
        match self {
            MessageGroupKey::Account(a) => KeyWriter::with_capacity(36).address(a).finish(),
            MessageGroupKey::BodyHash(h) => hash_tag(h).to_vec(),
            MessageGroupKey::Opcode(op) => op.to_be_bytes().to_vec(),
        }
    }
}

impl GroupOrderKey {
    /// Key bounds `[lower, upper)` of the group's rows whose value lies in `lo..=hi`.
    pub fn value_range(group: &[u8], lo: u64, hi: u64) -> (Vec<u8>, Option<Vec<u8>>) {
        let (lower, upper) = NullableOrderKey::value_range(lo, hi);
        let join = |tail: &[u8]| [group, tail].concat();
        (join(&lower), upper.map(|u| join(&u)))
    }

    /// Key bounds `[lower, upper)` of the group's rows without a value.
    pub fn null_range(group: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
        let lower = [group, &NullableOrderKey::null_prefix()].concat();
        let upper = crate::prefix_successor(&lower);
        (lower, upper)
    }
}

impl Key for GroupOrderKey {
    fn encode(&self) -> Vec<u8> {
        [self.group.as_slice(), &self.order.encode()].concat()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let split = bytes
            .len()
            .checked_sub(NullableOrderKey::LEN)
            .ok_or(Error::Corrupt("short group order key"))?;
        Ok(GroupOrderKey {
            group: bytes[..split].to_vec(),
            order: NullableOrderKey::decode(&bytes[split..])?,
        })
    }
}

/// `wc i32 | shard u64`: one shard of one workchain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShardKey {
    pub workchain: i32,
    pub shard: u64,
}

impl Key for ShardKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(12)
            .i32(self.workchain)
            .u64(self.shard)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = ShardKey {
            workchain: r.i32()?,
            shard: r.u64()?,
        };
        r.end()?;
        Ok(k)
    }
}

/// A shard key is also a value (of [`crate::tables::StateReleases`]).
impl crate::codec::Value for ShardKey {
    fn encode(&self) -> Vec<u8> {
        Key::encode(self)
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Key::decode(bytes)
    }
}

/// `mc_seqno u32 | root [32]`: a state root released after a masterchain block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateReleaseKey {
    pub mc_seqno: u32,
    pub root: Hash,
}

impl StateReleaseKey {
    /// Prefix of the releases after one masterchain block.
    pub fn prefix(mc_seqno: u32) -> Vec<u8> {
        KeyWriter::default().u32(mc_seqno).finish()
    }
}

impl Key for StateReleaseKey {
    fn encode(&self) -> Vec<u8> {
        KeyWriter::with_capacity(36)
            .u32(self.mc_seqno)
            .hash(&self.root)
            .finish()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = KeyReader::new(bytes);
        let k = StateReleaseKey {
            mc_seqno: r.u32()?,
            root: r.hash()?,
        };
        r.end()?;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Transaction list keys read back, and sort as (lt, account) does
    /// where accounts' tags differ: the order v3 pages tie by.
    #[test]
    fn transaction_tails_sort_as_their_accounts() {
        let accounts: Vec<Address> = (0u8..24)
            .map(|i| Address {
                workchain: [-1, 0, 5][usize::from(i % 3)],
                id: std::array::from_fn(|j| i.wrapping_mul(37).wrapping_add(j as u8 * 11)),
            })
            .collect();
        let mut keys: Vec<(u64, Address, Vec<u8>)> = Vec::new();
        for (n, a) in accounts.iter().enumerate() {
            for lt in [7u64, 8] {
                let k = LtAccountKey {
                    lt,
                    tx: TxTail::new(a, 1000 - n as u64),
                };
                assert_eq!(LtAccountKey::decode(&k.encode()).unwrap(), k);
                let t = TimeLtAccountKey {
                    now: 3,
                    lt,
                    tx: k.tx,
                };
                assert_eq!(TimeLtAccountKey::decode(&t.encode()).unwrap(), t);
                keys.push((lt, *a, k.encode()));
            }
        }
        let mut by_bytes = keys.clone();
        by_bytes.sort_by(|x, y| x.2.cmp(&y.2));
        keys.sort_by_key(|x| (x.0, x.1));
        assert_eq!(keys, by_bytes);
    }

    #[test]
    fn type_keys_read_back_and_their_ranges_hold_only_their_type() {
        let a = Address {
            workchain: -1,
            id: [7; 32],
        };
        for account in [None, Some(a)] {
            for kind in ["ton_transfer", "jetton_swap", ""] {
                let k = TypeEndKey {
                    order: 1,
                    account,
                    kind: kind.into(),
                    end: 42,
                    tag: [9; 8],
                };
                assert_eq!(TypeEndKey::decode(&k.encode()).unwrap(), k);
                let (lo, hi) = TypeEndKey::end_range(1, account.as_ref(), kind, 42, 42);
                let e = k.encode();
                assert!(lo <= e && hi.as_ref().is_none_or(|h| e < *h));
                // Another type, order or end falls outside.
                for other in [
                    TypeEndKey {
                        kind: format!("{kind}x"),
                        ..k.clone()
                    },
                    TypeEndKey {
                        order: 0,
                        ..k.clone()
                    },
                    TypeEndKey {
                        end: 43,
                        ..k.clone()
                    },
                ] {
                    let o = other.encode();
                    assert!(o < lo || hi.as_ref().is_some_and(|h| o >= *h), "{other:?}");
                }
            }
        }
    }
}
