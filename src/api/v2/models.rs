//! v2 objects shared by several methods (spec v2 §1.8–1.9): block ids,
//! transactions and messages in their tonlib shapes.

use serde::Serialize;
use tonindex_model::{Address, BlockIdExt, Coins};
use tycho_types::cell::CellSlice;

use crate::api::encoding::{b64, friendly_bounceable, raw_upper, shard_signed, Dec, B64};
use crate::query::{messages::Message, transactions::FullTx};

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TonBlockIdExt {
    #[serde(rename = "@type")]
    pub ty: &'static str,
    pub workchain: i32,
    pub shard: String,
    pub seqno: u32,
    pub root_hash: B64,
    pub file_hash: B64,
}

impl From<&BlockIdExt> for TonBlockIdExt {
    fn from(b: &BlockIdExt) -> Self {
        Self {
            ty: "ton.blockIdExt",
            workchain: b.id.workchain,
            shard: shard_signed(b.id.shard),
            seqno: b.id.seqno,
            root_hash: B64(b.root_hash),
            file_hash: B64(b.file_hash),
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AccountAddress {
    #[serde(rename = "@type")]
    pub ty: &'static str,
    pub account_address: String,
}

impl AccountAddress {
    fn new(a: Option<&Address>) -> Self {
        Self {
            ty: "accountAddress",
            account_address: a.map(friendly_bounceable).unwrap_or_default(),
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TransactionId {
    #[serde(rename = "@type")]
    pub ty: &'static str,
    pub lt: Dec<u64>,
    pub hash: B64,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ExtraCurrency {
    #[serde(rename = "@type")]
    pub ty: &'static str,
    pub id: u32,
    pub amount: String,
}

pub fn extra_currencies(c: Option<&Coins>) -> Vec<ExtraCurrency> {
    c.map(|c| {
        c.extra
            .iter()
            .map(|(id, amount)| ExtraCurrency {
                ty: "extraCurrency",
                id: *id,
                amount: amount.clone(),
            })
            .collect()
    })
    .unwrap_or_default()
}

/// `msg.Data`: a text comment, an encrypted comment, or the raw body.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(tag = "@type")]
pub enum MsgData {
    #[serde(rename = "msg.dataRaw")]
    Raw { body: String, init_state: String },
    #[serde(rename = "msg.dataText")]
    Text { text: String },
    #[serde(rename = "msg.dataEncryptedText")]
    EncryptedText { text: String },
}

/// Op code of a text comment, and of an encrypted one.
const OP_TEXT: u32 = 0;
const OP_ENCRYPTED: u32 = 0x2167_da4b;

/// The bytes of a "snake" string: the data after the 32-bit op code, then
/// the data of each first reference in turn. `None` if not byte-aligned.
fn snake_bytes(body: &CellSlice<'_>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut slice = *body;
    slice.skip_first(32, 0).ok()?;
    loop {
        let bits = slice.size_bits();
        if !bits.is_multiple_of(8) {
            return None;
        }
        let mut buf = vec![0u8; usize::from(bits / 8)];
        slice.load_raw(&mut buf, bits).ok()?;
        out.extend_from_slice(&buf);
        if slice.size_refs() == 0 {
            return Some(out);
        }
        let next = slice.load_reference().ok()?;
        slice = next.as_slice().ok()?;
    }
}

/// `msg_data` and the decoded `message` convenience string (tonlib rules).
fn msg_data(m: &Message) -> (MsgData, Option<String>) {
    let init_state = m
        .contents
        .init_state
        .as_ref()
        .map(|c| b64(&crate::boc::encode_crc(c)))
        .unwrap_or_default();
    let cell = &m.contents.body;
    let raw = || MsgData::Raw {
        body: b64(&crate::boc::encode_crc(cell)),
        init_state: init_state.clone(),
    };
    let Ok(slice) = cell.as_slice() else {
        return (raw(), None);
    };
    if init_state.is_empty() {
        match m.record.opcode {
            Some(OP_TEXT) => {
                if let Some(text) = snake_bytes(&slice).and_then(|b| String::from_utf8(b).ok()) {
                    let encoded = b64(text.as_bytes());
                    return (MsgData::Text { text: encoded }, Some(text));
                }
            }
            Some(OP_ENCRYPTED) => {
                if let Some(bytes) = snake_bytes(&slice) {
                    return (MsgData::EncryptedText { text: b64(&bytes) }, None);
                }
            }
            _ => {}
        }
    }
    // Raw: base64 of the root cell's data bits (last byte zero-padded) and "\n".
    let data = cell.data();
    let bytes = usize::from(cell.bit_len()).div_ceil(8);
    let mut root = data[..bytes.min(data.len())].to_vec();
    if !cell.bit_len().is_multiple_of(8) {
        if let Some(last) = root.last_mut() {
            *last &= 0xffu8 << (8 - cell.bit_len() % 8);
        }
    }
    (raw(), Some(format!("{}\n", b64(&root))))
}

/// A message's address: a plain string in the C++ `ext.message` form, an
/// `accountAddress` in tonlib's `raw.message`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum MsgAddress {
    Text(String),
    Object(AccountAddress),
}

/// A message as tonlib shows it (`ext.message` or `raw.message`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TonlibMessage {
    #[serde(rename = "@type")]
    pub ty: &'static str,
    pub hash: String,
    pub source: MsgAddress,
    pub destination: MsgAddress,
    pub value: String,
    pub extra_currencies: Vec<ExtraCurrency>,
    pub fwd_fee: String,
    pub ihr_fee: String,
    pub created_lt: String,
    pub body_hash: String,
    pub msg_data: MsgData,
    /// `ext.message` only: the body as text (a comment) or base64 and a newline
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A message as tonlib shows it; `ext` selects the C++ `ext.message` form
/// (plain string addresses, `message`) over `raw.message`.
pub fn message_json(message: &Message, ext: bool) -> TonlibMessage {
    let (data, decoded) = msg_data(message);
    let m = &message.record;
    let zero = || "0".to_string();
    let address = |a: Option<&Address>| {
        if ext {
            MsgAddress::Text(a.map(friendly_bounceable).unwrap_or_default())
        } else {
            MsgAddress::Object(AccountAddress::new(a))
        }
    };
    TonlibMessage {
        ty: if ext { "ext.message" } else { "raw.message" },
        hash: b64(&m.hash),
        source: address(m.source.as_ref()),
        destination: address(m.destination.as_ref()),
        value: m.value.as_ref().map_or_else(zero, |v| v.grams.to_string()),
        extra_currencies: extra_currencies(m.value.as_ref()),
        fwd_fee: m.fwd_fee.map_or_else(zero, |v| v.to_string()),
        ihr_fee: m.ihr_fee.map_or_else(zero, |v| v.to_string()),
        created_lt: m.created_lt.map_or_else(zero, |v| v.to_string()),
        body_hash: b64(&m.body_hash),
        msg_data: data,
        message: decoded.filter(|_| ext),
    }
}

/// Which tonlib transaction shape to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxShape {
    /// `ext.transaction` with `account` (getTransactions, tryLocate*).
    Ext,
    /// `raw.transaction` (getTransactionsStd).
    Raw,
    /// `raw.transaction` plus `account` (getBlockTransactionsExt).
    RawWithAccount,
}

/// A transaction as tonlib shows it (`ext.transaction` or `raw.transaction`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TonlibTransaction {
    #[serde(rename = "@type")]
    pub ty: &'static str,
    pub address: AccountAddress,
    pub utime: u32,
    /// The transaction as a base64 BoC
    pub data: String,
    pub transaction_id: TransactionId,
    pub fee: String,
    pub storage_fee: String,
    pub other_fee: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_msg: Option<TonlibMessage>,
    pub out_msgs: Vec<TonlibMessage>,
    /// The account in raw form (not in `raw.transactions`)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
}

pub fn transaction_json(t: &FullTx, shape: TxShape) -> TonlibTransaction {
    let r = &t.tx;
    let fee = r.total_fees.grams;
    let storage_fee = r
        .description
        .as_ref()
        .and_then(|d| d.storage_ph.as_ref())
        .map_or(0, |s| s.storage_fees_collected);
    let ext = shape == TxShape::Ext;
    // Stored without the trailer; tonlib's BoCs carry one.
    let data = b64(&crate::api::encoding::boc_with_crc(&t.boc).unwrap_or_else(|| t.boc.clone()));
    TonlibTransaction {
        ty: if ext {
            "ext.transaction"
        } else {
            "raw.transaction"
        },
        address: AccountAddress::new(Some(&r.account)),
        utime: r.now,
        data,
        transaction_id: TransactionId {
            ty: "internal.transactionId",
            lt: Dec(r.lt),
            hash: B64(r.hash),
        },
        fee: fee.to_string(),
        storage_fee: storage_fee.to_string(),
        other_fee: fee.saturating_sub(storage_fee).to_string(),
        in_msg: t.in_msg.as_ref().map(|m| message_json(m, ext)),
        out_msgs: t.out_msgs.iter().map(|m| message_json(m, ext)).collect(),
        account: (shape != TxShape::Raw).then(|| raw_upper(&r.account)),
    }
}
