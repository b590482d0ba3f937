//! Records that exist only in storage: the latest-state row and the
//! ingest cursor; and the storage encoding of the model records.

use serde::{Deserialize, Serialize};
use tonindex_model::{
    AccountStatus, ActionRecord, Address, BlockId, BlockRecord, Hash, MessageRecord,
    ShardDescrRecord, TraceRecord, TransactionRecord,
};

use crate::codec::bincode_value;

/// The newest thing the index knows about an account, from its transactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatestAccount {
    pub last_tx_lt: u64,
    pub last_tx_hash: Hash,
    pub last_tx_id: u64,
    pub status: AccountStatus,
    /// `now` of the last transaction.
    pub timestamp: u32,
    pub state_hash: Hash,
    /// The code hash of its state after the block of its last transaction,
    /// as that block's state update shows it (`None`: not active, no code,
    /// or not shown) — what the index knows of its code where it holds no
    /// state.
    pub code_hash: Option<Hash>,
}

/// An account's place in the balance order (see `tables::AccountBalances`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BalanceRecord {
    /// Nanotons.
    pub balance: u128,
    /// The lt of the last transaction the held state includes, so that a
    /// reader can tell a state older than the account's indexed history.
    pub last_trans_lt: u64,
}

/// The full state the index holds for a shard (see `tables::ShardStates`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardStateRecord {
    pub seqno: u32,
    /// Representation hash of the `ShardStateUnsplit` root cell.
    pub root_hash: Hash,
    pub gen_utime: u32,
    pub gen_lt: u64,
}

/// One account's exact state and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountStateRecord {
    /// BoC of the account's `ShardAccount` (account cell, last tx hash and lt).
    #[serde(with = "byte_string")]
    pub shard_account: Vec<u8>,
    /// The shard state this row was taken from: its shard and seqno
    /// (`None` for a ShardAccount imported on its own).
    pub state: Option<BlockId>,
    /// `gen_utime` of that state (0 when unknown).
    pub gen_utime: u32,
    /// Hash of the account's code when active: the address book's
    /// bounceable rule needs only this, not the whole BoC.
    pub code_hash: Option<Hash>,
}

/// What the index read from one contract code, once per code hash (see
/// `tables::Codes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeRecord {
    /// Get-method ids the code declares, ascending; `None` when the code
    /// is not laid out as `SETCP0; DICTPUSHCONST` (or is a library cell).
    pub methods: Option<Vec<u32>>,
}

/// A Jetton wallet the index believes: its master's `get_wallet_address`
/// of its owner gives its address (see `tables::JettonWallets`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JettonWalletRecord {
    pub balance: u128,
    pub owner: Address,
    pub jetton: Address,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
    /// A mintless-airdrop wallet's `is_claimed`; `None` when the code has
    /// no such get-method (not a mintless wallet).
    pub mintless_is_claimed: Option<bool>,
}

/// A Jetton master as `get_jetton_data` describes it (see `tables::JettonMasters`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JettonMasterRecord {
    pub total_supply: u128,
    pub mintable: bool,
    pub admin: Option<Address>,
    /// TEP-64 content as attribute → value; `None` when it did not parse.
    pub content: Option<Vec<(String, String)>>,
    pub wallet_code_hash: Hash,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
}

/// A Jetton transfer: a transaction of a known Jetton wallet whose
/// in-message is `transfer#0f8a7ea5` (see `tables::JettonTransfers`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JettonTransferRecord {
    pub tx_id: u64,
    pub tx_hash: Hash,
    pub tx_lt: u64,
    pub tx_now: u32,
    pub tx_aborted: bool,
    pub query_id: u64,
    pub amount: u128,
    /// The in-message's sender (the owner).
    pub source: Option<Address>,
    /// The body's destination (the receiving owner).
    pub destination: Option<Address>,
    pub source_wallet: Address,
    pub jetton_master: Address,
    pub response_destination: Option<Address>,
    /// BoC of the custom payload, if any.
    #[serde(with = "opt_byte_string")]
    pub custom_payload: Option<Vec<u8>>,
    pub forward_ton_amount: u128,
    /// BoC of the forward payload, if any.
    #[serde(with = "opt_byte_string")]
    pub forward_payload: Option<Vec<u8>>,
}

/// A Jetton burn: a transaction of a known Jetton wallet whose in-message
/// is `burn#595f07bc` (see `tables::JettonBurns`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JettonBurnRecord {
    pub tx_id: u64,
    pub tx_hash: Hash,
    pub tx_lt: u64,
    pub tx_now: u32,
    pub tx_aborted: bool,
    pub query_id: u64,
    pub amount: u128,
    /// The in-message's sender (the owner).
    pub owner: Option<Address>,
    pub jetton_wallet: Address,
    pub jetton_master: Address,
    pub response_destination: Option<Address>,
    #[serde(with = "opt_byte_string")]
    pub custom_payload: Option<Vec<u8>>,
}

/// An NFT collection as `get_collection_data` describes it (see
/// `tables::NftCollections`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NftCollectionRecord {
    /// Decimal (an integer of any size).
    pub next_item_index: String,
    pub owner: Option<Address>,
    pub content: Option<Vec<(String, String)>>,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
}

/// An NFT item the index believes: standalone, or confirmed by its
/// collection's `get_nft_address_by_index` (see `tables::NftItems`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NftItemRecord {
    pub init: bool,
    /// The index, big-endian in 256 bits (the by-collection key's order).
    pub index: Hash,
    pub collection: Option<Address>,
    pub owner: Option<Address>,
    /// Full content (the collection's `get_nft_content` for an item of a
    /// collection), TEP-64 parsed.
    pub content: Option<Vec<(String, String)>>,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
}

/// A value of an NFT sale's details (see [`NftSaleRecord`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaleDetail {
    Bool(bool),
    Int(i64),
    /// A decimal amount.
    Amount(String),
    Address(Option<Address>),
    /// Text (a Telemint item's token name).
    Text(String),
}

/// Which contract a sale row describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaleKind {
    /// A GetGems fixed-price sale.
    FixedPrice,
    /// A GetGems auction.
    Auction,
    /// A Telemint item (Fragment's usernames and numbers) auctioning
    /// itself: the row's key is the item.
    Telemint,
}

/// A GetGems fixed-price sale or auction, or a Telemint item's auction, as
/// its contract describes itself (see `tables::NftSales`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NftSaleRecord {
    pub kind: SaleKind,
    pub nft: Address,
    /// The seller.
    pub owner: Option<Address>,
    pub marketplace: Option<Address>,
    /// `None` where the contract does not say (a Telemint item).
    pub created_at: Option<i64>,
    /// Named values as v3 writes them, in its order.
    pub details: Vec<(String, SaleDetail)>,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
}

/// A DNS item's domain and records (see `tables::DnsEntries`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DnsRecord {
    pub domain: String,
    pub next_resolver: Option<Address>,
    pub wallet: Option<Address>,
    pub site_adnl: Option<Hash>,
    pub storage_bag_id: Option<Hash>,
}

/// A multisig v2 wallet as `get_multisig_data` gives it (see `tables::Multisigs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultisigRecord {
    /// The lt of the state the index first read it from: the order v3's
    /// `id` (insertion order) stands for.
    pub first_lt: u64,
    /// Decimal; `-1` when the multisig accepts arbitrary order seqnos.
    pub next_order_seqno: String,
    pub threshold: u32,
    pub signers: Vec<Address>,
    pub proposers: Vec<Address>,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
}

/// A multisig v2 order its multisig confirms (`get_order_address`), as
/// `get_order_data` gives it (see `tables::MultisigOrders`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultisigOrderRecord {
    /// As [`MultisigRecord::first_lt`].
    pub first_lt: u64,
    pub multisig: Address,
    /// Decimal (256 bits).
    pub order_seqno: String,
    pub threshold: u32,
    pub sent_for_execution: bool,
    pub signers: Vec<Address>,
    /// Decimal.
    pub approvals_mask: String,
    pub approvals_num: u32,
    pub expiration_date: u64,
    /// BoC of the order's actions.
    #[serde(with = "byte_string")]
    pub order_boc: Vec<u8>,
    pub last_tx_lt: u64,
    pub code_hash: Hash,
    pub data_hash: Hash,
}

/// A standard vesting wallet as `get_vesting_data` gives it (see `tables::Vestings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VestingRecord {
    /// As [`MultisigRecord::first_lt`].
    pub first_lt: u64,
    pub start_time: u64,
    pub total_duration: u64,
    pub unlock_period: u64,
    pub cliff_duration: u64,
    pub total_amount: u128,
    pub sender: Option<Address>,
    pub owner: Option<Address>,
    pub whitelist: Vec<Address>,
}

/// An NFT transfer: a transaction of a known item whose in-message is
/// `transfer#5fcc3d14` (see `tables::NftTransfers`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NftTransferRecord {
    pub tx_id: u64,
    pub tx_hash: Hash,
    pub tx_lt: u64,
    pub tx_now: u32,
    pub tx_aborted: bool,
    pub query_id: u64,
    pub nft: Address,
    pub collection: Option<Address>,
    /// The in-message's sender.
    pub old_owner: Option<Address>,
    pub new_owner: Option<Address>,
    pub response_destination: Option<Address>,
    #[serde(with = "opt_byte_string")]
    pub custom_payload: Option<Vec<u8>>,
    pub forward_amount: u128,
    #[serde(with = "opt_byte_string")]
    pub forward_payload: Option<Vec<u8>>,
}

/// Where ingestion stands; written in the same batch as the rows it counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IngestCursor {
    /// Next transaction number to hand out.
    pub next_tx_id: u64,
    /// Next account number to hand out ([`crate::tables::AccountNumbers`]).
    pub next_account_num: u64,
    /// Units (one masterchain block with its shard blocks, or one standalone block) committed.
    pub units: u64,
    pub blocks: u64,
    pub transactions: u64,
    /// Message references written (in + out per transaction); a message
    /// seen from both ends is counted twice, stored once.
    pub messages: u64,
    /// Highest masterchain seqno indexed.
    pub last_mc_seqno: Option<u32>,
}

pub use crate::tx_place::TxPlace;

bincode_value!(
    TransactionRecord,
    LatestAccount,
    ShardStateRecord,
    AccountStateRecord,
    BalanceRecord,
    CodeRecord,
    JettonWalletRecord,
    JettonMasterRecord,
    JettonTransferRecord,
    JettonBurnRecord,
    NftCollectionRecord,
    NftItemRecord,
    NftTransferRecord,
    NftSaleRecord,
    DnsRecord,
    MultisigRecord,
    MultisigOrderRecord,
    VestingRecord,
    IngestCursor,
    BlockRecord,
    ShardDescrRecord,
    MessageRecord,
    TraceRecord,
    ActionRecord,
    Address
);

/// A byte vector (de)serialized as bytes, not as a sequence of numbers:
/// bincode writes both alike (a length, then the bytes), but reads a
/// sequence one element at a time and bytes in one copy, which matters
/// for the BoCs a page of transactions reads for every account state.
mod byte_string {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

/// [`byte_string`] for an optional byte vector.
mod opt_byte_string {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    struct BytesRef<'a>(&'a [u8]);

    impl Serialize for BytesRef<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            super::byte_string::serialize(self.0, s)
        }
    }

    struct Bytes(Vec<u8>);

    impl<'de> Deserialize<'de> for Bytes {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            super::byte_string::deserialize(d).map(Bytes)
        }
    }

    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(b) => s.serialize_some(&BytesRef(b)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Ok(Option::<Bytes>::deserialize(d)?.map(|b| b.0))
    }
}

#[cfg(test)]
mod byte_string_tests {
    use super::*;

    /// The same record with its BoC as a plain `Vec<u8>` (how rows were
    /// written before): the bytes on disk must not change.
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct AsSequence {
        shard_account: Vec<u8>,
        state: Option<tonindex_model::BlockId>,
        gen_utime: u32,
        code_hash: Option<tonindex_model::Hash>,
    }

    #[test]
    fn byte_strings_keep_the_stored_form() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let old = AsSequence {
            shard_account: bytes.clone(),
            state: None,
            gen_utime: 7,
            code_hash: Some([9; 32]),
        };
        let encoded = crate::codec::bincode_encode(&old);
        let new: AccountStateRecord = crate::codec::bincode_decode(&encoded).unwrap();
        assert_eq!(new.shard_account, bytes);
        assert_eq!(crate::codec::bincode_encode(&new), encoded);
    }

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct OptionalSequence {
        payload: Option<Vec<u8>>,
        after: u32,
    }

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct OptionalBytes {
        #[serde(with = "opt_byte_string")]
        payload: Option<Vec<u8>>,
        after: u32,
    }

    #[test]
    fn optional_byte_strings_keep_the_stored_form() {
        for payload in [None, Some(Vec::new()), Some((0..=255u8).collect())] {
            let old = OptionalSequence {
                payload: payload.clone(),
                after: 5,
            };
            let encoded = crate::codec::bincode_encode(&old);
            let new: OptionalBytes = crate::codec::bincode_decode(&encoded).unwrap();
            assert_eq!((new.payload.clone(), new.after), (payload, 5));
            assert_eq!(crate::codec::bincode_encode(&new), encoded);
        }
    }
}
