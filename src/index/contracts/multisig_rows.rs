//! Multisig v2 wallets and orders, and standard vesting wallets, in the
//! contracts step (spec v3 §6.5). An order is written only when its
//! multisig's `get_order_address(order_seqno)` gives the order's address;
//! that check runs again only when the order's multisig, seqno or code
//! changes.

use std::collections::{BTreeMap, HashMap};

use tycho_types::boc::Boc;
use tycho_types::cell::Cell;

use tonindex_model::Address;
use tonindex_storage::tables::{
    AccountPairKey, MultisigOrders, MultisigOrdersByMultisig, Multisigs, MultisigsByWallet,
    VestingRole, Vestings, VestingsByWallet,
};
use tonindex_storage::{Batch, Db, MultisigOrderRecord, MultisigRecord, VestingRecord};

use super::{derives, model_addr, parent, run, Active, ContractsDone};
use crate::contracts::multisig;
use crate::tvm::getmethod::Context;

type Result<T> = std::result::Result<T, tonindex_storage::Error>;

fn pair(first: Address, second: Address) -> AccountPairKey {
    AccountPairKey { first, second }
}

/// Writes a multisig and moves its signer and proposer rows.
pub(super) fn put_multisig(
    db: &Db,
    batch: &mut Batch<'_>,
    address: &Address,
    acc: &Active,
    m: &multisig::MultisigData,
) -> Result<()> {
    let old = db.get::<Multisigs>(address)?;
    let record = MultisigRecord {
        first_lt: old.as_ref().map_or(acc.last_tx_lt, |o| o.first_lt),
        next_order_seqno: m.next_order_seqno.to_string(),
        threshold: m.threshold,
        signers: m.signers.iter().map(model_addr).collect(),
        proposers: m.proposers.iter().map(model_addr).collect(),
        last_tx_lt: acc.last_tx_lt,
        code_hash: *acc.contract.code.repr_hash().as_array(),
        data_hash: *acc.contract.data.repr_hash().as_array(),
    };
    if let Some(old) = &old {
        for w in old.signers.iter().chain(&old.proposers) {
            batch.delete::<MultisigsByWallet>(&pair(*w, *address));
        }
    }
    for w in record.signers.iter().chain(&record.proposers) {
        batch.put::<MultisigsByWallet>(&pair(*w, *address), &());
    }
    batch.put::<Multisigs>(address, &record);
    Ok(())
}

/// Reads a contract as a multisig order (`get_order_data`); `false` when
/// it does not read as one. An order its multisig does not confirm is
/// counted and left out.
#[allow(clippy::too_many_arguments)]
pub(super) fn index_order(
    db: &Db,
    batch: &mut Batch<'_>,
    ctx: &Context,
    unit: &HashMap<Address, &Cell>,
    address: &Address,
    acc: &Active,
    done: &mut ContractsDone,
) -> Result<bool> {
    done.getmethod_runs += 1;
    let Some(order) =
        run(&acc.contract, ctx, "get_order_data", vec![]).and_then(|o| multisig::order_data(&o))
    else {
        return Ok(false);
    };
    let multisig_addr = model_addr(&order.multisig);
    let old = db.get::<MultisigOrders>(address)?;
    let order_seqno = order.order_seqno.to_string();
    let code_hash = *acc.contract.code.repr_hash().as_array();
    let confirmed_before = old.as_ref().is_some_and(|o| {
        o.multisig == multisig_addr && o.order_seqno == order_seqno && o.code_hash == code_hash
    });
    if !confirmed_before {
        let Some(ms) = parent(db, unit, &multisig_addr)? else {
            done.unconfirmed_orders += 1;
            return Ok(true);
        };
        done.getmethod_runs += 1;
        let seqno = vec![multisig::seqno_arg(&order.order_seqno)];
        if !derives(&ms, ctx, "get_order_address", seqno, &acc.contract.address) {
            done.unconfirmed_orders += 1;
            return Ok(true);
        }
    }
    let record = MultisigOrderRecord {
        first_lt: old.as_ref().map_or(acc.last_tx_lt, |o| o.first_lt),
        multisig: multisig_addr,
        order_seqno,
        threshold: order.threshold,
        sent_for_execution: order.sent_for_execution,
        signers: order.signers.iter().map(model_addr).collect(),
        approvals_mask: order.approvals_mask.to_string(),
        approvals_num: order.approvals_num,
        expiration_date: order.expiration_date,
        order_boc: Boc::encode(order.order.as_ref()),
        last_tx_lt: acc.last_tx_lt,
        code_hash,
        data_hash: *acc.contract.data.repr_hash().as_array(),
    };
    super::repoint::<MultisigOrdersByMultisig>(
        batch,
        old.as_ref().map(|o| o.multisig),
        Some(record.multisig),
        address,
    );
    batch.put::<MultisigOrders>(address, &record);
    done.multisig_orders += 1;
    Ok(true)
}

/// Writes a vesting wallet and moves the rows of the wallets it names.
pub(super) fn put_vesting(
    db: &Db,
    batch: &mut Batch<'_>,
    address: &Address,
    acc: &Active,
    v: &multisig::VestingData,
) -> Result<()> {
    let old = db.get::<Vestings>(address)?;
    let record = VestingRecord {
        first_lt: old.as_ref().map_or(acc.last_tx_lt, |o| o.first_lt),
        start_time: v.start_time,
        total_duration: v.total_duration,
        unlock_period: v.unlock_period,
        cliff_duration: v.cliff_duration,
        total_amount: v.total_amount,
        sender: v.sender.as_ref().map(model_addr),
        owner: v.owner.as_ref().map(model_addr),
        whitelist: v.whitelist.iter().map(model_addr).collect(),
    };
    if let Some(old) = &old {
        for (w, _) in roles(old) {
            batch.delete::<VestingsByWallet>(&pair(w, *address));
        }
    }
    for (w, role) in roles(&record) {
        batch.put::<VestingsByWallet>(&pair(w, *address), &role);
    }
    batch.put::<Vestings>(address, &record);
    Ok(())
}

/// Each wallet a vesting wallet names, with its roles.
fn roles(v: &VestingRecord) -> BTreeMap<Address, u32> {
    let mut out = BTreeMap::new();
    for a in v.owner.iter().chain(&v.sender) {
        *out.entry(*a).or_insert(0) |= VestingRole::OWNER_OR_SENDER;
    }
    for a in &v.whitelist {
        *out.entry(*a).or_insert(0) |= VestingRole::WHITELISTED;
    }
    out
}
