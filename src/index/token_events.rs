//! Jetton transfers and burns and NFT transfers of a unit (spec v3 §6.3,
//! §6.4), written in the unit's batch after the contracts step: a
//! transaction of an account the index believes is a Jetton wallet or an
//! NFT item (stored, or confirmed by this unit) whose in-message is
//! `transfer#0f8a7ea5`, `burn#595f07bc` or `transfer#5fcc3d14`.

use std::collections::HashMap;

use tonindex_model::{Address, Hash};
use tonindex_storage::tables::{
    AccountLtHashKey, JettonBurns, JettonBurnsByAccount, JettonRole, JettonTransfers,
    JettonTransfersByAccount, JettonWallets, LtHashKey, NftItems, NftRole, NftTransfers,
    NftTransfersByAccount,
};
use tonindex_storage::{
    Batch, Db, JettonBurnRecord, JettonTransferRecord, JettonWalletRecord, NftTransferRecord,
};

use super::contracts::ContractsStep;
use super::NewBlock;
use crate::decode::DecodedTransaction;
use crate::trace::classify::jetton::{burn_body, transfer_body, OP_BURN, OP_TRANSFER};
use crate::trace::classify::nft::{
    transfer_body as nft_transfer_body, OP_TRANSFER as NFT_TRANSFER,
};

/// Counts of rows written.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TokenEvents {
    pub jetton_transfers: usize,
    pub jetton_burns: usize,
    pub nft_transfers: usize,
}

/// An NFT transfer row for `tx` when it is a known item's transfer.
fn nft_transfer(
    db: &Db,
    batch: &mut Batch<'_>,
    step: &ContractsStep,
    tx: &DecodedTransaction,
    tx_id: u64,
) -> Result<bool, tonindex_storage::Error> {
    let rec = &tx.record;
    let item = match step.items.get(&rec.account) {
        Some(i) => i.clone(),
        None => match db.get::<NftItems>(&rec.account)? {
            Some(i) => i,
            None => return Ok(false),
        },
    };
    let Some(body) = in_body(tx) else {
        return Ok(false);
    };
    let Some(t) = nft_transfer_body(&body) else {
        return Ok(false);
    };
    let old_owner = tx.in_msg.as_ref().and_then(|m| m.source);
    let row = NftTransferRecord {
        tx_id,
        tx_hash: rec.hash,
        tx_lt: rec.lt,
        tx_now: rec.now,
        tx_aborted: aborted(tx),
        query_id: t.query_id,
        nft: rec.account,
        collection: item.collection,
        old_owner,
        new_owner: t.new_owner,
        response_destination: t.response_destination,
        custom_payload: t.custom_payload.as_ref().map(crate::boc::encode_crc),
        forward_amount: t.forward_amount,
        forward_payload: t.forward_payload.as_ref().map(crate::boc::encode_crc),
    };
    batch.put::<NftTransfers>(
        &LtHashKey {
            lt: rec.lt,
            hash: rec.hash,
        },
        &row,
    );
    put_roles::<NftTransfersByAccount>(
        batch,
        &[
            (old_owner, NftRole::OLD_OWNER),
            (t.new_owner, NftRole::NEW_OWNER),
            (Some(rec.account), NftRole::ITEM),
            (item.collection, NftRole::COLLECTION),
        ],
        rec.lt,
        &rec.hash,
    );
    Ok(true)
}

/// The body of the transaction's in-message.
fn in_body(tx: &DecodedTransaction) -> Option<tycho_types::cell::Cell> {
    tx.in_msg.as_ref()?;
    tx.msg_contents.first().map(|c| c.body.clone())
}

fn aborted(tx: &DecodedTransaction) -> bool {
    tx.record
        .description
        .as_ref()
        .and_then(|d| d.aborted)
        .unwrap_or(false)
}

fn put_roles<T: tonindex_storage::tables::Table<Key = AccountLtHashKey, Value = u32>>(
    batch: &mut Batch<'_>,
    roles: &[(Option<Address>, u32)],
    lt: u64,
    hash: &Hash,
) {
    let mut merged: Vec<(Address, u32)> = Vec::new();
    for (a, role) in roles {
        let Some(a) = a else { continue };
        match merged.iter_mut().find(|(x, _)| x == a) {
            Some((_, r)) => *r |= role,
            None => merged.push((*a, *role)),
        }
    }
    for (account, role) in merged {
        batch.put::<T>(
            &AccountLtHashKey {
                account,
                lt,
                hash: *hash,
            },
            &role,
        );
    }
}

/// Writes the Jetton transfer and burn rows of `blocks`; `confirmed` are
/// the wallets this unit's contracts step wrote.
pub(super) fn index_token_events(
    db: &Db,
    batch: &mut Batch<'_>,
    blocks: &[NewBlock<'_>],
    step: &ContractsStep,
) -> Result<TokenEvents, tonindex_storage::Error> {
    let confirmed = &step.wallets;
    let mut done = TokenEvents::default();
    let mut stored: HashMap<Address, Option<JettonWalletRecord>> = HashMap::new();
    for nb in blocks {
        for (i, tx) in nb.block.transactions.iter().enumerate() {
            let op = tx.in_msg.as_ref().and_then(|m| m.opcode);
            if op == Some(NFT_TRANSFER) {
                if nft_transfer(db, batch, step, tx, nb.first_tx_id + i as u64)? {
                    done.nft_transfers += 1;
                }
                continue;
            }
            if op != Some(OP_TRANSFER) && op != Some(OP_BURN) {
                continue;
            }
            let rec = &tx.record;
            let wallet = match confirmed.get(&rec.account) {
                Some(w) => Some(w.clone()),
                None => match stored.get(&rec.account) {
                    Some(w) => w.clone(),
                    None => {
                        let w = db.get::<JettonWallets>(&rec.account)?;
                        stored.insert(rec.account, w.clone());
                        w
                    }
                },
            };
            let Some(wallet) = wallet else { continue };
            let Some(body) = in_body(tx) else {
                continue;
            };
            let source = tx.in_msg.as_ref().and_then(|m| m.source);
            let tx_aborted = aborted(tx);
            let key = LtHashKey {
                lt: rec.lt,
                hash: rec.hash,
            };
            let tx_id = nb.first_tx_id + i as u64;
            if op == Some(OP_TRANSFER) {
                let Some(t) = transfer_body(&body) else {
                    continue;
                };
                let row = JettonTransferRecord {
                    tx_id,
                    tx_hash: rec.hash,
                    tx_lt: rec.lt,
                    tx_now: rec.now,
                    tx_aborted,
                    query_id: t.query_id,
                    amount: t.amount,
                    source,
                    destination: t.destination,
                    source_wallet: rec.account,
                    jetton_master: wallet.jetton,
                    response_destination: t.response_destination,
                    custom_payload: t.custom_payload.as_ref().map(crate::boc::encode_crc),
                    forward_ton_amount: t.forward_amount,
                    forward_payload: t.forward_payload.as_ref().map(crate::boc::encode_crc),
                };
                batch.put::<JettonTransfers>(&key, &row);
                put_roles::<JettonTransfersByAccount>(
                    batch,
                    &[
                        (source, JettonRole::SOURCE),
                        (t.destination, JettonRole::DESTINATION),
                        (Some(rec.account), JettonRole::WALLET),
                        (Some(wallet.jetton), JettonRole::MASTER),
                    ],
                    rec.lt,
                    &rec.hash,
                );
                done.jetton_transfers += 1;
            } else {
                let Some(b) = burn_body(&body) else { continue };
                let row = JettonBurnRecord {
                    tx_id,
                    tx_hash: rec.hash,
                    tx_lt: rec.lt,
                    tx_now: rec.now,
                    tx_aborted,
                    query_id: b.query_id,
                    amount: b.amount,
                    owner: source,
                    jetton_wallet: rec.account,
                    jetton_master: wallet.jetton,
                    response_destination: b.response_destination,
                    custom_payload: b.custom_payload.as_ref().map(crate::boc::encode_crc),
                };
                batch.put::<JettonBurns>(&key, &row);
                put_roles::<JettonBurnsByAccount>(
                    batch,
                    &[
                        (source, JettonRole::SOURCE),
                        (Some(rec.account), JettonRole::WALLET),
                        (Some(wallet.jetton), JettonRole::MASTER),
                    ],
                    rec.lt,
                    &rec.hash,
                );
                done.jetton_burns += 1;
            }
        }
    }
    Ok(done)
}
