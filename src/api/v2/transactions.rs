//! v2 Transactions group (spec v2 §4.4): block transactions, account
//! history, and locating the transactions on both ends of a message.

use serde::Serialize;
use tonindex_model::{Address, BlockRecord, Hash};

use super::blocks::block_from_params;
use super::models::{transaction_json, TonBlockIdExt, TxShape};
use super::{required, to_json, V2Error, V2Result};
use crate::api::encoding::{b64, parse_address, parse_hash, raw_lower};
use crate::api::params::Params;
use crate::api::Ctx;
use crate::query::{self, messages::Side, transactions::FullTx};

/// `after_hash`: a hash, or (CPP) any address form whose account id is used.
fn account_id(v: &str) -> Option<Hash> {
    parse_hash(v).or_else(|| parse_address(v).map(|a| a.address.id))
}

/// The block's transactions in `(account, lt)` order after the cursor, up to
/// `count`, and whether more remain.
fn block_page(
    ctx: &Ctx<'_>,
    p: &Params,
) -> Result<(BlockRecord, usize, Vec<FullTx>, bool), V2Error> {
    let count = match p.int::<i64>("count")? {
        None => 40,
        Some(c) if (1..=10_000).contains(&c) => c as usize,
        Some(_) => return Err(V2Error::invalid("count should be in range [1, 10000]")),
    };
    let after_lt: Option<u64> = p.int("after_lt")?;
    let after_hash = p.parsed("after_hash", "a hash", account_id)?;
    if after_lt.is_some() != after_hash.is_some() {
        return Err(V2Error::invalid(
            "after_lt and after_hash should be used together",
        ));
    }
    let block = block_from_params(ctx, p)?;
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
    let txs = query::transactions::with_messages(r, page)?;
    Ok((block, count, txs, more))
}

#[derive(Serialize)]
struct ShortTxId {
    #[serde(rename = "@type")]
    ty: &'static str,
    mode: u32,
    account: String,
    lt: String,
    hash: String,
}

#[derive(Serialize)]
struct BlockTransactions<T> {
    #[serde(rename = "@type")]
    ty: &'static str,
    id: TonBlockIdExt,
    req_count: usize,
    incomplete: bool,
    transactions: Vec<T>,
}

pub fn get_block_transactions(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let (block, count, txs, incomplete) = block_page(ctx, p)?;
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
    to_json(&BlockTransactions {
        ty: "blocks.transactions",
        id: (&block.id).into(),
        req_count: count,
        incomplete,
        transactions,
    })
}

pub fn get_block_transactions_ext(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let (block, count, txs, incomplete) = block_page(ctx, p)?;
    to_json(&BlockTransactions {
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
    p: &Params,
    lt_zero_is_given: bool,
) -> Result<Vec<FullTx>, V2Error> {
    let address = required(p.address("address")?, "address")?.address;
    let limit = match p.int::<i64>("limit")? {
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
    let lt = p
        .int::<u64>("lt")?
        .filter(|&lt| lt_zero_is_given || lt != 0);
    let hash = p.hash("hash")?;
    if lt.is_some() != hash.is_some() {
        return Err(V2Error::invalid("lt and hash should be used together"));
    }
    let to_lt: u64 = p.int("to_lt")?.unwrap_or(0);
    let r = &ctx.reader;
    let ids: Vec<u64> = query::transactions::account_tx_ids_iter(
        r,
        &address,
        to_lt.saturating_add(1),
        lt.unwrap_or(u64::MAX),
        true,
    )
    .take(limit)
    .collect::<Result<_, _>>()?;
    let txs = query::transactions::full_txs(r, &ids)?;
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

pub fn get_transactions(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let txs = account_history(ctx, p, false)?;
    to_json(
        &txs.iter()
            .map(|t| transaction_json(t, TxShape::Ext))
            .collect::<Vec<_>>(),
    )
}

pub fn get_transactions_std(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    let txs = account_history(ctx, p, true)?;
    // tonlib's cursor after the last item: its previous transaction (lt 0 at the start of history).
    let (prev_lt, prev_hash) = txs.last().map_or((0, [0u8; 32]), |t| {
        (t.tx.prev_trans_lt, t.tx.prev_trans_hash)
    });
    to_json(&serde_json::json!({
        "@type": "raw.transactions",
        "transactions": txs.iter().map(|t| transaction_json(t, TxShape::Raw)).collect::<Vec<_>>(),
        "previous_transaction_id": {
            "@type": "internal.transactionId",
            "lt": prev_lt.to_string(),
            "hash": b64(&prev_hash),
        },
    }))
}

/// Messages from `source` to `destination` created at `created_lt`.
fn located_messages(ctx: &Ctx<'_>, p: &Params) -> Result<Vec<Hash>, V2Error> {
    let source = required(p.address("source")?, "source")?.address;
    let destination = required(p.address("destination")?, "destination")?.address;
    let created_lt: u64 = required(p.int("created_lt")?, "created_lt")?;
    let mut out = Vec::new();
    let sent = query::messages::sent_msg_hashes(&ctx.reader, &source, created_lt, created_lt)?;
    for hash in sent {
        if let Some(m) = query::messages::message(&ctx.reader, &hash)? {
            if m.destination == Some(destination) {
                out.push(hash);
            }
        }
    }
    Ok(out)
}

fn locate(ctx: &Ctx<'_>, p: &Params, side: Side) -> V2Result {
    for hash in located_messages(ctx, p)? {
        if let Some(id) = query::messages::first_tx_of_message(&ctx.reader, &hash, side)? {
            let txs = query::transactions::full_txs(&ctx.reader, &[id])?;
            if let Some(t) = txs.first() {
                return to_json(&transaction_json(t, TxShape::Ext));
            }
        }
    }
    Err(V2Error::not_found("transaction was not found"))
}

/// The destination's transaction that received the message.
pub fn try_locate_tx(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    locate(ctx, p, Side::Receiver)
}

/// The source's transaction that sent the message.
pub fn try_locate_source_tx(ctx: &Ctx<'_>, p: &Params) -> V2Result {
    locate(ctx, p, Side::Sender)
}
