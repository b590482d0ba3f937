//! Transactions over the lite API: `getTransactions` (an account's
//! history back from a given transaction, from the index),
//! `listBlockTransactions` (a block's transactions from its file, with the
//! Merkle proof a lite client checks them by) and `getOneTransaction` (one
//! of them, by account and lt, with its proof).

use ton_liteapi::tl::common::{BlockIdExt, Int256};
use ton_liteapi::tl::request::{GetOneTransaction, GetTransactions, ListBlockTransactions};
use ton_liteapi::tl::response::{
    BlockTransactions, Response, TransactionId, TransactionInfo, TransactionList,
};
use tonindex_model::Address;
use tycho_types::boc::Boc;
use tycho_types::cell::HashBytes;

use super::{block_id, code, error, refuse, storage_error, LiteServer};
use crate::chain::devnet::proof::{self, TxPage};
use crate::query;

/// The most transactions one `getTransactions` answer carries (a
/// liteserver's limit; clients page by the last one's previous).
const MAX_ACCOUNT_TXS: usize = 16;
/// The most transactions one `listBlockTransactions` answer carries.
const MAX_BLOCK_TXS: usize = 256;

impl LiteServer {
    /// `getTransactions`: up to `count` transactions of the account, the
    /// one `(lt, hash)` names first, then each one's previous; their BoC
    /// (one root per transaction) and the id of each one's block.
    pub(super) async fn transactions(&self, r: GetTransactions) -> Response {
        let count = (r.count as usize).min(MAX_ACCOUNT_TXS);
        let account = Address {
            workchain: r.account.workchain,
            id: r.account.id.0,
        };
        let (lt, hash) = (r.lt, r.hash.0);
        let answer = self
            .read(move |ctx| {
                let rows =
                    query::transactions::account_txs_iter(&ctx.reader, &account, 0, lt, true)
                        .take(count)
                        .map(|row| row.map(|(_, row)| row))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(storage_error)?;
                let loaded =
                    query::transactions::load_rows(&ctx.reader, rows).map_err(storage_error)?;
                let mut cells = Vec::new();
                let mut blocks = Vec::new();
                let mut expect = (lt, hash);
                for tx in loaded {
                    let rec = &tx.record;
                    // Each is the previous of the one before it.
                    if (rec.lt, rec.hash) != expect {
                        break;
                    }
                    expect = (rec.prev_trans_lt, rec.prev_trans_hash);
                    let cell = Boc::decode(&tx.boc)
                        .map_err(|e| refuse(code::ERROR, format!("a stored transaction: {e}")))?;
                    cells.push(cell);
                    blocks.push(rec.block);
                }
                if cells.is_empty() {
                    return Err(refuse(
                        code::NOTREADY,
                        "cannot locate a transaction of the account with this lt and hash",
                    ));
                }
                let records = query::blocks::blocks(&ctx.reader, &blocks).map_err(storage_error)?;
                if records.len() != blocks.len() {
                    return Err(refuse(code::ERROR, "a transaction's block is missing"));
                }
                let ids: Vec<BlockIdExt> = records.iter().map(block_id).collect();
                Ok((ids, proof::many_roots(&cells)))
            })
            .await;
        match answer {
            Ok((ids, transactions)) => {
                Response::TransactionList(TransactionList { ids, transactions })
            }
            Err(e) => *e,
        }
    }

    /// `listBlockTransactions`: a page of the block's transactions by
    /// account and lt, each named by account, lt and hash (mode 7), with a
    /// proof when asked.
    pub(super) async fn block_transactions(&self, r: ListBlockTransactions) -> Response {
        let bytes = match self.block_file(&r.id).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let page = TxPage {
            count: (r.count as usize).min(MAX_BLOCK_TXS),
            after: r.after.map(|a| (HashBytes(a.account.0), a.lt)),
            reverse: r.reverse_order.is_some(),
        };
        let listed = tokio::task::spawn_blocking(move || {
            let root = Boc::decode(&bytes).map_err(|e| e.to_string())?;
            proof::block_transactions(&root, page).map_err(|e| e.to_string())
        })
        .await;
        let (txs, incomplete, block_proof) = match listed {
            Ok(Ok(l)) => l,
            Ok(Err(e)) => return error(code::ERROR, format!("cannot list the block: {e}")),
            Err(_) => return error(code::ERROR, "internal error"),
        };
        let proof = if r.want_proof.is_some() {
            block_proof
        } else {
            Vec::new()
        };
        Response::BlockTransactions(BlockTransactions {
            id: r.id,
            req_count: r.count,
            incomplete,
            ids: txs
                .into_iter()
                .map(|t| TransactionId {
                    mode: (),
                    account: Some(Int256(t.account.0)),
                    lt: Some(t.lt),
                    hash: Some(Int256(t.hash.0)),
                    metadata: None,
                })
                .collect(),
            proof,
        })
    }

    /// `getOneTransaction`: the account's transaction at `lt` in the block
    /// (empty when it has none there) with a proof of the block down to it.
    pub(super) async fn one_transaction(&self, r: GetOneTransaction) -> Response {
        let bytes = match self.block_file(&r.id).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let (account, lt) = (HashBytes(r.account.id.0), r.lt);
        let workchain = r.account.workchain;
        if workchain != r.id.workchain {
            return error(
                code::PROTOVIOLATION,
                "the account is not in the block's workchain",
            );
        }
        let found = tokio::task::spawn_blocking(move || {
            let root = Boc::decode(&bytes).map_err(|e| e.to_string())?;
            proof::one_transaction(&root, &account, lt).map_err(|e| e.to_string())
        })
        .await;
        match found {
            Ok(Ok((tx, proof))) => Response::TransactionInfo(TransactionInfo {
                id: r.id,
                proof,
                transaction: tx.map_or_else(Vec::new, |tx| crate::boc::encode(tx.as_ref())),
            }),
            Ok(Err(e)) => error(code::ERROR, format!("cannot read the block: {e}")),
            Err(_) => error(code::ERROR, "internal error"),
        }
    }
}
