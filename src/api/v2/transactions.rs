//! v2 Transactions group (spec v2 §4.4): block transactions, account
//! history, and locating the transactions on both ends of a message.

use serde::Serialize;
use tonindex_model::{Address, BlockRecord, Hash};

use super::blocks::block_from_args;
use super::models::{transaction_json, TonBlockIdExt, TonlibTransaction, TransactionId, TxShape};
use super::{required, AddressArgs, BlockArgs, V2Error};
use crate::api::encoding::{b64, parse_address, parse_hash, raw_lower, Dec, ParsedAddress, B64};
use crate::api::params::Params;
use crate::api::request::{request, ParamValue};
use crate::api::Ctx;
use crate::query::{self, messages::Side, transactions::FullTx};

/// `after_hash`: a hash, or (CPP) any address form whose account id is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountId(pub Hash);

impl ParamValue for AccountId {
    const EXPECTED: &'static str = "a hash";
    fn parse(v: &str) -> Option<Self> {
        parse_hash(v)
            .or_else(|| parse_address(v).map(|a| a.address.id))
            .map(AccountId)
    }
    fn schema(_: bool) -> serde_json::Value {
        serde_json::json!({
            "type": "string",
            "description": "an account id as a hash, or an address whose account id is used",
        })
    }
}

request! {
    /// A page of a block's transactions.
    pub struct BlockTransactionsRequest {
        /// Page size, 1 to 10000 (default 40)
        count: Option<i64>,
        /// Cursor: the last transaction's lt (with after_hash)
        after_lt: Option<u64>,
        /// Cursor: the last transaction's account id (with after_lt)
        after_hash: Option<AccountId>,
    }
    with { block: BlockArgs }
}

/// The block's transactions in `(account, lt)` order after the cursor, up to
/// `count`, and whether more remain.
fn block_page(
    ctx: &Ctx<'_>,
    q: &BlockTransactionsRequest,
) -> Result<(BlockRecord, usize, Vec<FullTx>, bool), V2Error> {
    let count = match q.count {
        None => 40,
        Some(c) if (1..=10_000).contains(&c) => c as usize,
        Some(_) => return Err(V2Error::invalid("count should be in range [1, 10000]")),
    };
    let after_lt = q.after_lt;
    let after_hash = q.after_hash.map(|a| a.0);
    if after_lt.is_some() != after_hash.is_some() {
        return Err(V2Error::invalid(
            "after_lt and after_hash should be used together",
        ));
    }
    let block = block_from_args(ctx, &q.block)?;
    let r = &ctx.reader;
    let ids = query::blocks::block_tx_ids(r, &block.id.id)?;
    // Ids follow (account, lt) within a block; skip up to the cursor.
    let mut page = Vec::new();
    let mut more = false;
    for id in ids {
        let t = query::transactions::load_tx(r, id)?;
        if let (Some(lt), Some(acc)) = (after_lt, after_hash) {
            if (t.record.account.id, t.record.lt) <= (acc, lt) {
                continue;
            }
        }
        if page.len() == count {
            more = true;
            break;
        }
        page.push(t);
    }
    let txs = query::transactions::with_messages_untraced(page)?;
    Ok((block, count, txs, more))
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ShortTxId {
    #[serde(rename = "@type")]
    ty: &'static str,
    mode: u32,
    account: String,
    lt: String,
    hash: String,
}

/// tonlib's `blocks.transactions`: short ids of a block's transactions.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BlockTransactions {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    req_count: usize,
    incomplete: bool,
    transactions: Vec<ShortTxId>,
}

/// tonlib's `blocks.transactionsExt`: a block's transactions in full.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BlockTransactionsExt {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    req_count: usize,
    incomplete: bool,
    transactions: Vec<TonlibTransaction>,
}

pub fn get_block_transactions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: BlockTransactionsRequest,
) -> Result<BlockTransactions, V2Error> {
    let (block, count, txs, incomplete) = block_page(ctx, &q)?;
    let transactions = txs
        .iter()
        .map(|t| {
            let r = &t.tx;
            ShortTxId {
                ty: "blocks.shortTxId",
                // Both reference servers always send an "after" cursor: mode 7 + 128.
                mode: 135,
                account: raw_lower(&Address {
                    workchain: block.id.id.workchain,
                    id: r.account.id,
                }),
                lt: r.lt.to_string(),
                hash: b64(&r.hash),
            }
        })
        .collect();
    Ok(BlockTransactions {
        ty: "blocks.transactions",
        id: (&block.id).into(),
        req_count: count,
        incomplete,
        transactions,
    })
}

pub fn get_block_transactions_ext(
    ctx: &Ctx<'_>,
    _: &Params,
    q: BlockTransactionsRequest,
) -> Result<BlockTransactionsExt, V2Error> {
    let (block, count, txs, incomplete) = block_page(ctx, &q)?;
    Ok(BlockTransactionsExt {
        ty: "blocks.transactionsExt",
        id: (&block.id).into(),
        req_count: count,
        incomplete,
        transactions: txs
            .iter()
            .map(|t| transaction_json(t, TxShape::RawWithAccount))
            .collect(),
    })
}

/// An account's transactions newest first from `(lt, hash)` inclusive,
/// stopping before `to_lt`. `lt_zero_is_given`: getTransactionsStd counts
/// `lt=0` as given, getTransactions as absent.
fn account_history(
    ctx: &Ctx<'_>,
    q: &HistoryRequest,
    lt_zero_is_given: bool,
) -> Result<Vec<FullTx>, V2Error> {
    let address = required(q.account.address, "address")?.address;
    let limit = match q.limit {
        None => 10,
        Some(l) if l < 1 => return Err(V2Error::invalid("limit should be positive")),
        Some(l) if l > i64::from(ctx.cfg.max_limit) => {
            return Err(V2Error::invalid(format!(
                "limit should be less or equal {}",
                ctx.cfg.max_limit
            )))
        }
        Some(l) => l as usize,
    };
    let lt = q.lt.filter(|&lt| lt_zero_is_given || lt != 0);
    let hash = q.hash;
    if lt.is_some() != hash.is_some() {
        return Err(V2Error::invalid("lt and hash should be used together"));
    }
    let to_lt: u64 = q.to_lt.unwrap_or(0);
    let r = &ctx.reader;
    let rows: Vec<_> = query::transactions::account_txs_iter(
        r,
        &address,
        to_lt.saturating_add(1),
        lt.unwrap_or(u64::MAX),
        true,
    )
    .take(limit)
    .map(|row| row.map(|(_, row)| row))
    .collect::<Result<_, _>>()?;
    let txs =
        query::transactions::with_messages_untraced(query::transactions::load_rows(r, rows)?)?;
    if let (Some(lt), Some(hash)) = (lt, hash) {
        match txs.first() {
            Some(t) if t.tx.lt == lt && t.tx.hash == hash => {}
            _ => {
                return Err(V2Error::not_found(
                    "cannot locate transaction: no transaction of the account has this lt and hash",
                ))
            }
        }
    }
    Ok(txs)
}

request! {
    /// A page of an account's history, newest first.
    pub struct HistoryRequest {
        /// Page size (default 10, at most serve.max_limit)
        limit: Option<i64>,
        /// Start from this transaction's lt (with hash)
        lt: Option<u64>,
        /// Start from this transaction's hash (with lt)
        hash: Option<[u8; 32]>,
        /// Stop before this lt
        to_lt: Option<u64>,
    }
    with { account: AddressArgs }
}

pub fn get_transactions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: HistoryRequest,
) -> Result<Vec<TonlibTransaction>, V2Error> {
    let txs = account_history(ctx, &q, false)?;
    Ok(txs
        .iter()
        .map(|t| transaction_json(t, TxShape::Ext))
        .collect())
}

/// tonlib's `raw.transactions`, with the cursor after the last one.
#[derive(Serialize, utoipa::ToSchema)]
pub struct RawTransactions {
    #[serde(rename = "@type")]
    ty: &'static str,
    transactions: Vec<TonlibTransaction>,
    previous_transaction_id: TransactionId,
}

pub fn get_transactions_std(
    ctx: &Ctx<'_>,
    _: &Params,
    q: HistoryRequest,
) -> Result<RawTransactions, V2Error> {
    let txs = account_history(ctx, &q, true)?;
    // tonlib's cursor after the last item: its previous transaction (lt 0 at the start of history).
    let (prev_lt, prev_hash) = txs.last().map_or((0, [0u8; 32]), |t| {
        (t.tx.prev_trans_lt, t.tx.prev_trans_hash)
    });
    Ok(RawTransactions {
        ty: "raw.transactions",
        transactions: txs
            .iter()
            .map(|t| transaction_json(t, TxShape::Raw))
            .collect(),
        previous_transaction_id: TransactionId {
            ty: "internal.transactionId",
            lt: Dec(prev_lt),
            hash: B64(prev_hash),
        },
    })
}

request! {
    /// A message by its ends and creation lt.
    pub struct LocateRequest {
        /// Message source
        [required] source: Option<ParsedAddress>,
        /// Message destination
        [required] destination: Option<ParsedAddress>,
        /// Message created_lt
        [required] created_lt: Option<u64>,
    }
}

/// Messages from `source` to `destination` created at `created_lt`.
fn located_messages(ctx: &Ctx<'_>, q: &LocateRequest) -> Result<Vec<Hash>, V2Error> {
    let source = required(q.source, "source")?.address;
    let destination = required(q.destination, "destination")?.address;
    let created_lt: u64 = required(q.created_lt, "created_lt")?;
    let sent = query::messages::sent_messages(&ctx.reader, &source, created_lt, created_lt)?;
    Ok(sent
        .into_iter()
        .filter(|m| m.destination == Some(destination))
        .map(|m| m.hash)
        .collect())
}

fn locate(ctx: &Ctx<'_>, q: &LocateRequest, side: Side) -> Result<TonlibTransaction, V2Error> {
    for hash in located_messages(ctx, q)? {
        if let Some(id) = query::messages::first_tx_of_message(&ctx.reader, &hash, side)? {
            let loaded = query::transactions::load_txs(&ctx.reader, &[id])?;
            let txs = query::transactions::with_messages_untraced(loaded)?;
            if let Some(t) = txs.first() {
                return Ok(transaction_json(t, TxShape::Ext));
            }
        }
    }
    Err(V2Error::not_found("transaction was not found"))
}

/// The destination's transaction that received the message.
pub fn try_locate_tx(
    ctx: &Ctx<'_>,
    _: &Params,
    q: LocateRequest,
) -> Result<TonlibTransaction, V2Error> {
    locate(ctx, &q, Side::Receiver)
}

/// The source's transaction that sent the message.
pub fn try_locate_source_tx(
    ctx: &Ctx<'_>,
    _: &Params,
    q: LocateRequest,
) -> Result<TonlibTransaction, V2Error> {
    locate(ctx, &q, Side::Sender)
}
