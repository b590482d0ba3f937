//! `/transactions`, `/transactionsByMasterchainBlock`,
//! `/transactionsByMessage`, `/adjacentTransactions` (spec v3 §2.5–2.8).

use std::cmp::Ordering;

use serde::Serialize;
use tonindex_model::{Address, BlockId, Hash, TransactionRecord};

use super::address_book::{self, AddressBook};
use super::models::{AccountState, Transaction};
use super::{parse_direction, BookArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::ParsedAddress;
use crate::api::params::Params;
use crate::api::request::{request, DirectionWords, OpcodeArg, ShardArg, Utime, Word};
use crate::api::Ctx;
use crate::query::{
    self,
    messages::Side,
    transactions::{FullTx, IndexedTx, LoadedTx},
};

#[derive(Serialize, utoipa::ToSchema)]
pub struct TransactionsResponse {
    transactions: Vec<Transaction>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
}

/// Builds the response: transactions in the given order and the address
/// book of their accounts, in-message sources and out-message destinations.
fn respond(
    ctx: &Ctx<'_>,
    book: &BookArgs,
    rows: Vec<LoadedTx>,
) -> Result<TransactionsResponse, V3Error> {
    let txs = query::transactions::with_messages(&ctx.reader, rows)?;
    let addresses = txs.iter().flat_map(|t: &FullTx| {
        std::iter::once(t.tx.account)
            .chain(t.in_msg.as_ref().and_then(|m| m.record.source))
            .chain(t.out_msgs.iter().filter_map(|m| m.record.destination))
    });
    let address_book = address_book::build(ctx, book, addresses.collect::<Vec<_>>())?;
    let mut transactions: Vec<Transaction> = txs.iter().map(Transaction::from).collect();
    AccountState::fill_all(
        transactions
            .iter_mut()
            .flat_map(|t| [&mut t.account_state_before, &mut t.account_state_after]),
        &ctx.reader,
    )?;
    Ok(TransactionsResponse {
        transactions,
        address_book,
    })
}

request! {
    /// `/transactions`' filters.
    pub struct TransactionsRequest {
        /// Workchain
        workchain: Option<i32>,
        /// Shard id
        shard: Option<ShardArg>,
        /// Block seqno
        seqno: Option<u32>,
        /// Committed by this masterchain block
        mc_seqno: Option<u32>,
        /// Accounts
        account: Vec<ParsedAddress>,
        /// Transaction hashes
        hash: Vec<[u8; 32]>,
        /// Logical time
        lt: Option<u64>,
        /// Not before this unix time
        start_utime: Option<Utime>,
        /// Not after this unix time
        end_utime: Option<Utime>,
        /// Not below this logical time
        start_lt: Option<u64>,
        /// Not above this logical time
        end_lt: Option<u64>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

/// Row-level filters of `/transactions`.
#[derive(Default)]
struct TxFilter {
    block: (Option<i32>, Option<u64>, Option<u32>),
    mc_seqno: Option<u32>,
    accounts: Vec<Address>,
    hashes: Vec<Hash>,
    lt: Option<u64>,
    start_utime: Option<u64>,
    end_utime: Option<u64>,
    start_lt: Option<u64>,
    end_lt: Option<u64>,
}

impl TxFilter {
    fn from_request(q: &TransactionsRequest) -> Self {
        Self {
            block: (q.workchain, q.shard.map(|s| s.0), q.seqno),
            mc_seqno: q.mc_seqno,
            accounts: q.account.iter().map(|a| a.address).collect(),
            hashes: q.hash.clone(),
            lt: q.lt,
            start_utime: q.start_utime.map(|t| t.0),
            end_utime: q.end_utime.map(|t| t.0),
            start_lt: q.start_lt,
            end_lt: q.end_lt,
        }
    }

    /// The inclusive lt range every match lies in.
    fn lt_range(&self) -> (u64, u64) {
        let lo = self.start_lt.unwrap_or(0).max(self.lt.unwrap_or(0));
        let hi = self
            .end_lt
            .unwrap_or(u64::MAX)
            .min(self.lt.unwrap_or(u64::MAX));
        (lo, hi)
    }

    fn has_utime(&self) -> bool {
        self.start_utime.is_some() || self.end_utime.is_some()
    }

    fn matches(&self, row: &TransactionRecord) -> bool {
        let t = row;
        let (lo, hi) = self.lt_range();
        let (wc, shard, seqno) = self.block;
        t.lt >= lo
            && t.lt <= hi
            && wc.is_none_or(|w| w == t.block.workchain)
            && shard.is_none_or(|s| s == t.block.shard)
            && seqno.is_none_or(|s| s == t.block.seqno)
            && self.mc_seqno.is_none_or(|m| Some(m) == t.mc_block_seqno)
            && (self.accounts.is_empty() || self.accounts.contains(&t.account))
            && (self.hashes.is_empty() || self.hashes.contains(&t.hash))
            && self.start_utime.is_none_or(|u| u64::from(t.now) >= u)
            && self.end_utime.is_none_or(|u| u64::from(t.now) <= u)
    }
}

/// `lt <s>, account asc` (or `now <s>, lt <s>, account asc` with a utime filter).
fn order_by_lt(a: &TransactionRecord, b: &TransactionRecord, desc: bool, by_now: bool) -> Ordering {
    let (x, y) = (a, b);
    let primary = if by_now {
        (x.now, x.lt).cmp(&(y.now, y.lt))
    } else {
        x.lt.cmp(&y.lt)
    };
    let primary = if desc { primary.reverse() } else { primary };
    primary.then_with(|| x.account.cmp(&y.account))
}

/// Walks one account's ids in lt order, keeping rows that pass the
/// filter, until `needed` are kept and the last kept row's lt ties are all
/// in.
fn collect_ordered(
    ctx: &Ctx<'_>,
    f: &TxFilter,
    needed: usize,
    ids: impl Iterator<Item = Result<u64, tonindex_storage::Error>>,
) -> Result<Vec<LoadedTx>, V3Error> {
    let tie = |t: &TransactionRecord| t.lt;
    let mut kept: Vec<LoadedTx> = Vec::new();
    for id in ids {
        let id = id?;
        let row = query::transactions::load_tx(&ctx.reader, id)?;
        if kept.len() >= needed
            && kept
                .last()
                .is_some_and(|l| tie(&l.record) != tie(&row.record))
        {
            break;
        }
        if f.matches(&row.record) {
            kept.push(row);
        }
    }
    Ok(kept)
}

/// Loads the given ids and keeps the rows that pass the filter.
fn collect_all(ctx: &Ctx<'_>, f: &TxFilter, ids: &[u64]) -> Result<Vec<LoadedTx>, V3Error> {
    let mut rows = query::transactions::load_txs(&ctx.reader, ids)?;
    rows.retain(|row| f.matches(&row.record));
    Ok(rows)
}

fn require_mc_block(ctx: &Ctx<'_>, seqno: u32) -> Result<(), V3Error> {
    match query::blocks::mc_block(&ctx.reader, seqno)? {
        Some(_) => Ok(()),
        None => Err(V3Error::not_found(format!(
            "masterchain block {seqno} not found"
        ))),
    }
}

/// Ids of the transactions of one masterchain block and the shard blocks it commits.
fn mc_block_tx_ids(ctx: &Ctx<'_>, seqno: u32) -> Result<Vec<u64>, V3Error> {
    Ok(query::transactions::mc_block_tx_ids(&ctx.reader, seqno)?)
}

pub fn transactions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: TransactionsRequest,
) -> Result<TransactionsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let f = TxFilter::from_request(&q);
    let r = &ctx.reader;
    let (lo, hi) = f.lt_range();
    let by_now = f.has_utime();
    let needed = paging.needed();
    if let Some(mc) = f.mc_seqno {
        require_mc_block(ctx, mc)?;
    }

    let mut rows = if !f.hashes.is_empty() {
        let mut rows = Vec::new();
        for h in &f.hashes {
            rows.extend(query::transactions::tx_by_hash(r, h)?);
        }
        rows.retain(|row| f.matches(&row.record));
        rows.sort_by(|a, b| {
            let o = a.record.hash.cmp(&b.record.hash);
            if paging.desc {
                o.reverse()
            } else {
                o
            }
        });
        rows
    } else if !f.accounts.is_empty() {
        // The top `needed` of the union are among each account's top `needed`.
        let mut rows = Vec::new();
        for account in &f.accounts {
            // A time window is an lt range of one account's history.
            let range = if by_now {
                let window = (f.start_utime, f.end_utime);
                query::transactions::account_lt_range_in_time(r, account, (lo, hi), window)?
            } else {
                Some((lo, hi))
            };
            let Some((lo, hi)) = range else { continue };
            if f.accounts.len() == 1 && f.block == (None, None, None) && f.mc_seqno.is_none() {
                // One account's lt range is every filter, and its history
                // in key order is the answer's order: the offset skips
                // rows undecoded, and the page's BoCs come from the same
                // range read.
                let rows = query::transactions::account_txs_iter(r, account, lo, hi, paging.desc);
                let mut page = Vec::with_capacity(paging.limit.min(1024));
                for (i, row) in rows.enumerate() {
                    if page.len() == paging.limit {
                        break;
                    }
                    let (_, row) = row?;
                    if i >= paging.offset {
                        page.push(row);
                    }
                }
                return respond(ctx, &q.book, query::transactions::load_rows(r, page)?);
            }
            let ids = query::transactions::account_tx_ids_iter(r, account, lo, hi, paging.desc);
            rows.extend(collect_ordered(ctx, &f, needed, ids)?);
        }
        if f.accounts.len() == 1 {
            // `account, lt <s>`: one account's history is already in order.
            rows
        } else {
            rows.sort_by(|a, b| order_by_lt(&a.record, &b.record, paging.desc, by_now));
            rows
        }
    } else if let (Some(workchain), Some(shard), Some(seqno)) = f.block {
        let block = BlockId {
            workchain,
            shard,
            seqno,
        };
        let ids = query::blocks::block_tx_ids(r, &block)?;
        let mut rows = collect_all(ctx, &f, &ids)?;
        rows.sort_by(|a, b| order_by_lt(&a.record, &b.record, paging.desc, by_now));
        rows
    } else if let Some(mc) = f.mc_seqno {
        let mut rows = collect_all(ctx, &f, &mc_block_tx_ids(ctx, mc)?)?;
        rows.sort_by(|a, b| order_by_lt(&a.record, &b.record, paging.desc, by_now));
        rows
    } else {
        return every_account(ctx, &q.book, &f, &paging);
    };
    rows = paging.page(rows);
    respond(ctx, &q.book, rows)
}

/// Every account's transactions in a time or lt window (v3 orders by
/// `now, lt, account` with a time filter, else `lt, account`): the window
/// is a key range of the time or the lt index and the other window and the
/// workchain are read from its keys, so only keys are walked — up to the
/// page's end and the ties there — and only the page's transactions read.
/// A shard or seqno without a whole block is checked on the records.
fn every_account(
    ctx: &Ctx<'_>,
    book: &BookArgs,
    f: &TxFilter,
    paging: &Paging,
) -> Result<TransactionsResponse, V3Error> {
    let r = &ctx.reader;
    let (lo, hi) = f.lt_range();
    let by_now = f.has_utime();
    let keys: Box<dyn Iterator<Item = _>> = if by_now {
        let (start, end) = (f.start_utime.unwrap_or(0), f.end_utime.unwrap_or(u64::MAX));
        query::transactions::now_txs_iter(r, start, end, paging.desc)
    } else {
        Box::new(query::transactions::lt_txs_iter(r, lo, hi, paging.desc))
    };
    let workchain = f.block.0;
    let keyed =
        |k: &IndexedTx| k.lt >= lo && k.lt <= hi && workchain.is_none_or(|w| w == k.tx.workchain);
    let on_records = f.block.1.is_some() || f.block.2.is_some();
    let tie = |k: &IndexedTx| (k.now, k.lt);
    let needed = paging.needed();
    let mut kept: Vec<IndexedTx> = Vec::new();
    let mut loaded: Vec<LoadedTx> = Vec::new();
    for k in keys {
        let k = k?;
        if !keyed(&k) {
            continue;
        }
        if kept.len() >= needed && kept.last().is_some_and(|l| tie(l) != tie(&k)) {
            break;
        }
        if on_records {
            let row = query::transactions::load_tx(r, k.tx.tx_id)?;
            if !f.matches(&row.record) {
                continue;
            }
            loaded.push(row);
        }
        kept.push(k);
    }
    // Ties (same time and lt) are by account ascending in either direction
    // (the key's tag of it, then the id should two accounts share one).
    let order = |a: &IndexedTx, b: &IndexedTx| {
        let primary = (a.now, a.lt).cmp(&(b.now, b.lt));
        let primary = if paging.desc {
            primary.reverse()
        } else {
            primary
        };
        primary.then_with(|| a.tx.cmp(&b.tx))
    };
    if on_records {
        let mut rows: Vec<(IndexedTx, LoadedTx)> = kept.into_iter().zip(loaded).collect();
        rows.sort_by(|a, b| order(&a.0, &b.0));
        let rows = paging.page(rows.into_iter().map(|(_, row)| row).collect::<Vec<_>>());
        return respond(ctx, book, rows);
    }
    kept.sort_by(order);
    let page: Vec<u64> = kept
        .into_iter()
        .skip(paging.offset)
        .take(paging.limit)
        .map(|k| k.tx.tx_id)
        .collect();
    respond(ctx, book, query::transactions::load_txs(r, &page)?)
}

request! {
    /// A masterchain block's transactions.
    pub struct ByMcBlockRequest {
        /// Masterchain block seqno
        [required] seqno: Option<u32>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

pub fn transactions_by_masterchain_block(
    ctx: &Ctx<'_>,
    _: &Params,
    q: ByMcBlockRequest,
) -> Result<TransactionsResponse, V3Error> {
    let Some(seqno) = q.seqno else {
        return Err(V3Error::invalid("seqno is required"));
    };
    let paging = Paging::from_args(ctx, &q.paging)?;
    require_mc_block(ctx, seqno)?;
    let f = TxFilter::default();
    let mut rows = collect_all(ctx, &f, &mc_block_tx_ids(ctx, seqno)?)?;
    rows.sort_by(|a, b| order_by_lt(&a.record, &b.record, paging.desc, false));
    respond(ctx, &q.book, paging.page(rows))
}

/// Transaction ids on the `in` (received) and/or `out` (sent) side of a message.
fn tx_ids_of_message(
    ctx: &Ctx<'_>,
    hash: &Hash,
    direction: Option<bool>,
) -> Result<Vec<u64>, V3Error> {
    let r = &ctx.reader;
    let mut ids = Vec::new();
    if direction != Some(false) {
        ids.extend(query::messages::txs_of_message(r, hash, Side::Receiver)?);
    }
    if direction != Some(true) {
        ids.extend(query::messages::txs_of_message(r, hash, Side::Sender)?);
    }
    Ok(ids)
}

request! {
    /// Transactions of messages (one filter is required).
    pub struct ByMessageRequest {
        /// Message hashes (or normalized hashes)
        msg_hash: Vec<[u8; 32]>,
        /// Body hash
        body_hash: Option<[u8; 32]>,
        /// Body opcode
        opcode: Option<OpcodeArg>,
        /// in: received by a transaction; out: sent by one
        direction: Option<Word<DirectionWords>>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

pub fn transactions_by_message(
    ctx: &Ctx<'_>,
    _: &Params,
    q: ByMessageRequest,
) -> Result<TransactionsResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let msg_hashes = q.msg_hash;
    let body_hash = q.body_hash;
    let opcode = q.opcode.map(|o| o.0);
    let mut direction = parse_direction(&q.direction)?;
    if msg_hashes.is_empty() && body_hash.is_none() && opcode.is_none() {
        return Err(V3Error::invalid(
            "at least one of msg_hash, body_hash, opcode should be specified",
        ));
    }
    if opcode.is_some() {
        direction = Some(true);
    }
    let r = &ctx.reader;
    let wanted = |m: &tonindex_model::MessageRecord| {
        body_hash.is_none_or(|h| h == m.body_hash) && opcode.is_none_or(|o| Some(o) == m.opcode)
    };
    // Messages named by hash; otherwise those with that body or opcode.
    let hashes: Vec<Hash> = if !msg_hashes.is_empty() {
        let mut out = Vec::new();
        for h in &query::messages::msg_hashes_or_norm(r, &msg_hashes)? {
            if body_hash.is_none() && opcode.is_none() {
                out.push(*h);
            } else if let Some(m) = query::messages::message(r, h)? {
                if wanted(&m) {
                    out.push(*h);
                }
            }
        }
        out
    } else {
        let candidates = match (&body_hash, opcode) {
            (Some(h), _) => query::messages::msg_hashes_by_body(r, h)?,
            (None, Some(op)) => query::messages::msg_hashes_by_opcode(r, op)?,
            (None, None) => Vec::new(),
        };
        query::messages::messages(r, &candidates)?
            .into_iter()
            .filter(|m| wanted(m))
            .map(|m| m.hash)
            .collect()
    };
    let mut ids = Vec::new();
    for h in &hashes {
        ids.extend(tx_ids_of_message(ctx, h, direction)?);
    }
    ids.sort_unstable();
    ids.dedup();
    let mut rows = collect_all(ctx, &TxFilter::default(), &ids)?;
    rows.sort_by(|a, b| order_by_lt(&a.record, &b.record, true, false));
    respond(ctx, &q.book, paging.page(rows))
}

request! {
    /// A transaction whose parent and children are asked for.
    pub struct AdjacentRequest {
        /// Transaction hash
        [required] hash: Option<[u8; 32]>,
        /// in: the parent; out: the children
        direction: Option<Word<DirectionWords>>,
    }
    with { book: BookArgs }
}

pub fn adjacent_transactions(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AdjacentRequest,
) -> Result<TransactionsResponse, V3Error> {
    let Some(hash) = q.hash else {
        return Err(V3Error::invalid("hash is required"));
    };
    let direction = parse_direction(&q.direction)?;
    let r = &ctx.reader;
    let Some(tx) = query::transactions::tx_by_hash(r, &hash)? else {
        return Err(V3Error::not_found("adjacent transactions not found"));
    };
    let tx = tx.record;
    let mut ids = Vec::new();
    if direction != Some(false) {
        // The parent: the transaction that sent this one's in-message.
        if let Some(m) = &tx.in_msg {
            ids.extend(tx_ids_of_message(ctx, m, Some(false))?);
        }
    }
    if direction != Some(true) {
        // The children: transactions that received its out-messages.
        for m in &tx.out_msgs {
            ids.extend(tx_ids_of_message(ctx, m, Some(true))?);
        }
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(V3Error::not_found("adjacent transactions not found"));
    }
    let mut rows = collect_all(ctx, &TxFilter::default(), &ids)?;
    rows.sort_by(|a, b| order_by_lt(&a.record, &b.record, false, false));
    respond(ctx, &q.book, rows)
}
