//! Jetton transfers and burns and NFT transfers of a unit (spec v3 §6.3,
//! §6.4), written in the unit's batch after the contracts step: a
//! transaction of an account the index believes is a Jetton wallet or an
//! NFT item (stored, or confirmed by this unit) whose in-message is
//! `transfer#0f8a7ea5`, `burn#595f07bc` or `transfer#5fcc3d14`.

use std::collections::HashMap;

use tonindex_model::{Address, Hash};
use tonindex_storage::tables::{
    AccountEventTimeKey, AccountLtHashKey, EventTable, EventTimeKey, JettonBurns,
    JettonBurnsByAccount, JettonRole, JettonTransfers, JettonTransfersByAccount, JettonWallets,
    LtHashKey, NftItems, NftRole, NftTransfers, NftTransfersByAccount, Table,
    TokenEventsByAccountNow, TokenEventsByNow,
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
    put_roles::<NftTransfers, NftTransfersByAccount>(
        batch,
        &[
            (old_owner, NftRole::OLD_OWNER),
            (t.new_owner, NftRole::NEW_OWNER),
            (Some(rec.account), NftRole::ITEM),
            (item.collection, NftRole::COLLECTION),
        ],
        (rec.now, rec.lt, &rec.hash),
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

/// The listing rows of one event of table `E` (keyed `lt | hash`, made
/// at `now`): by time, and each account's roles by lt (`I`) and by time.
fn put_roles<E: EventTable, I: Table<Key = AccountLtHashKey, Value = u32>>(
    batch: &mut Batch<'_>,
    roles: &[(Option<Address>, u32)],
    (now, lt, hash): (u32, u64, &Hash),
) {
    let mut merged: Vec<(Address, u32)> = Vec::new();
    for (a, role) in roles {
        let Some(a) = a else { continue };
        match merged.iter_mut().find(|(x, _)| x == a) {
            Some((_, r)) => *r |= role,
            None => merged.push((*a, *role)),
        }
    }
    let hash = *hash;
    let kind = E::KIND;
    batch.put::<TokenEventsByNow>(
        &EventTimeKey {
            kind,
            now,
            lt,
            hash,
        },
        &(),
    );
    for (account, role) in merged {
        batch.put::<I>(&AccountLtHashKey { account, lt, hash }, &role);
        let by_time = AccountEventTimeKey {
            kind,
            account,
            now,
            lt,
            hash,
        };
        batch.put::<TokenEventsByAccountNow>(&by_time, &role);
    }
}

/// A transaction of a Jetton wallet whose in-message has a transfer or
/// burn opcode but does not read as one (`what`): no row, said in the log
/// and counted.
fn unreadable(tx_hash: &Hash, what: &'static str) {
    tracing::debug!(
        tx = %hex::encode(tx_hash),
        what,
        "a Jetton wallet's transfer or burn message does not read as one; no row"
    );
    metrics::counter!("tonindex_jetton_events_unreadable_total", "what" => what).increment(1);
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
                unreadable(&tx.record.hash, "no_body");
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
                    unreadable(&rec.hash, "transfer");
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
                put_roles::<JettonTransfers, JettonTransfersByAccount>(
                    batch,
                    &[
                        (source, JettonRole::SOURCE),
                        (t.destination, JettonRole::DESTINATION),
                        (Some(rec.account), JettonRole::WALLET),
                        (Some(wallet.jetton), JettonRole::MASTER),
                    ],
                    (rec.now, rec.lt, &rec.hash),
                );
                done.jetton_transfers += 1;
            } else {
                let Some(b) = burn_body(&body) else {
                    unreadable(&rec.hash, "burn");
                    continue;
                };
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
                put_roles::<JettonBurns, JettonBurnsByAccount>(
                    batch,
                    &[
                        (source, JettonRole::SOURCE),
                        (Some(rec.account), JettonRole::WALLET),
                        (Some(wallet.jetton), JettonRole::MASTER),
                    ],
                    (rec.now, rec.lt, &rec.hash),
                );
                done.jetton_burns += 1;
            }
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::jettons::{transfers, EventFilter};
    use tonindex_storage::{DbOptions, JettonTransferRecord};

    /// xorshift64*: deterministic, so a failure repeats.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Jetton transfers by time (all accounts and by owner, time and lt
    /// windows, both directions, offsets) against filtering every row:
    /// times and lts disagree in order, as across shards, so the answer
    /// order (`tx_now, tx_lt, tx_hash`) is not the lt index's.
    #[test]
    fn transfers_by_time_equal_a_scan() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let owners: Vec<Address> = (0..6u8)
            .map(|i| Address {
                workchain: 0,
                id: [i; 32],
            })
            .collect();
        let mut seed = 0x1234_5678_9abc_def1_u64;
        let mut rows = Vec::new();
        let mut batch = db.batch();
        for i in 0..400u64 {
            let r = next(&mut seed);
            let row = JettonTransferRecord {
                tx_id: i,
                tx_hash: {
                    let mut h = [0u8; 32];
                    h[..8].copy_from_slice(&next(&mut seed).to_be_bytes());
                    h
                },
                // Time steps with i; lt jitters around it, across "shards".
                tx_now: 1_000 + (i / 4) as u32,
                tx_lt: 10_000 + i * 10 + (r % 97),
                tx_aborted: r.is_multiple_of(11),
                query_id: i,
                amount: 1,
                source: (!r.is_multiple_of(5)).then(|| owners[(r >> 8) as usize % owners.len()]),
                destination: Some(owners[(r >> 16) as usize % owners.len()]),
                source_wallet: owners[0],
                jetton_master: owners[1],
                response_destination: None,
                custom_payload: None,
                forward_ton_amount: 0,
                forward_payload: None,
            };
            batch.put::<JettonTransfers>(
                &LtHashKey {
                    lt: row.tx_lt,
                    hash: row.tx_hash,
                },
                &row,
            );
            put_roles::<JettonTransfers, JettonTransfersByAccount>(
                &mut batch,
                &[
                    (row.source, JettonRole::SOURCE),
                    (row.destination, JettonRole::DESTINATION),
                ],
                (row.tx_now, row.tx_lt, &row.tx_hash),
            );
            rows.push(row);
        }
        db.write(batch).unwrap();
        let reader = db.reader();
        let mut seen = 0;
        for _ in 0..300 {
            let r = next(&mut seed);
            let (a, b) = (1_000 + (r % 110) as u32, 1_000 + ((r >> 8) % 110) as u32);
            let lt = (r >> 16).is_multiple_of(3);
            let (l1, l2) = (10_000 + (r >> 20) % 4_100, 10_000 + (r >> 32) % 4_100);
            let owner = (r >> 44)
                .is_multiple_of(2)
                .then(|| owners[(r >> 48) as usize % owners.len()]);
            let f = EventFilter {
                by: owner
                    .map(|o| vec![(o, JettonRole::SOURCE | JettonRole::DESTINATION)])
                    .unwrap_or_default(),
                start_utime: Some(a.min(b)),
                end_utime: Some(a.max(b)),
                start_lt: lt.then_some(l1.min(l2)),
                end_lt: lt.then_some(l1.max(l2)),
                exclude_aborted: true,
                desc: (r >> 52).is_multiple_of(2),
                ..EventFilter::default()
            };
            let (offset, limit) = (((r >> 56) % 7) as usize, 1 + ((r >> 60) % 9) as usize);
            let mut expected: Vec<&JettonTransferRecord> = rows
                .iter()
                .filter(|t| !t.tx_aborted)
                .filter(|t| (a.min(b)..=a.max(b)).contains(&t.tx_now))
                .filter(|t| !lt || (l1.min(l2)..=l1.max(l2)).contains(&t.tx_lt))
                .filter(|t| owner.is_none_or(|o| t.source == Some(o) || t.destination == Some(o)))
                .collect();
            expected.sort_by_key(|t| (t.tx_now, t.tx_lt, t.tx_hash));
            if f.desc {
                expected.reverse();
            }
            let expected: Vec<u64> = expected
                .iter()
                .skip(offset)
                .take(limit)
                .map(|t| t.tx_id)
                .collect();
            let got: Vec<u64> = transfers(&reader, &f, offset, limit)
                .unwrap()
                .iter()
                .map(|(t, _)| t.tx_id)
                .collect();
            assert_eq!(got, expected, "{f:?} offset {offset} limit {limit}");
            seen += usize::from(!expected.is_empty());
        }
        assert!(seen > 150, "{seen}");
    }
}
