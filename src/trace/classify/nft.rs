//! NFT flows (TEP-62): a deployed item (mint), a transfer, and an
//! ownership notice with no transfer in front of it.

use serde_json::{Map, Value};

use super::body::{self, coins, either_payload, maybe_ref, msg_address};
use super::{
    addr, call_failed, change_of, child_with, dec, deployed_here, Block, Claims, Cols, Interfaces,
    NftItem, Tree, OP_EXCESSES,
};

pub(crate) const OP_TRANSFER: u32 = 0x5fcc_3d14;
pub(crate) const OP_OWNERSHIP_ASSIGNED: u32 = 0x0513_8d91;

/// A transaction that deployed a known NFT item.
pub(crate) fn mint(
    tree: &Tree<'_>,
    _claims: &Claims,
    n: usize,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    let t = &tree.txs[n];
    if !deployed_here(t) {
        return None;
    }
    let item = interfaces.nft_item(&t.account)?;
    let m = t.in_msg.as_ref()?;
    let cols = Cols {
        source: m.source,
        destination: Some(t.account),
        asset_secondary: Some(t.account),
        asset: item.collection,
        opcode: m.opcode,
        ..Cols::default()
    };
    let mut b = Block::new("nft_mint", vec![n], false, cols);
    b.data.insert("nft_item_index".into(), dec(&item.index));
    Some(b)
}

fn transfer_data(
    item: &NftItem,
    query_id: Option<u64>,
    response_destination: Option<Option<tonindex_model::Address>>,
    custom_payload: Option<Value>,
    forward_amount: Option<u128>,
    forward_payload: Option<&tycho_types::cell::Cell>,
) -> Map<String, Value> {
    let (comment, encrypted) = body::payload_comment(forward_payload);
    let mut d = Map::new();
    d.insert("query_id".into(), query_id.map(dec).unwrap_or(Value::Null));
    d.insert("is_purchase".into(), false.into());
    d.insert("price".into(), Value::Null);
    d.insert("nft_item_index".into(), dec(&item.index));
    d.insert(
        "forward_amount".into(),
        forward_amount.map(dec).unwrap_or(Value::Null),
    );
    d.insert(
        "custom_payload".into(),
        custom_payload.unwrap_or(Value::Null),
    );
    d.insert(
        "forward_payload".into(),
        forward_payload.map(body::boc_b64).into(),
    );
    d.insert(
        "response_destination".into(),
        addr(response_destination.flatten()),
    );
    d.insert("comment".into(), comment.into());
    d.insert("is_encrypted_comment".into(), encrypted.into());
    d.insert("marketplace".into(), Value::Null);
    d.insert("real_prev_owner".into(), Value::Null);
    d
}

/// transfer (→ ownership_assigned or excesses) at a known NFT item.
pub(crate) fn transfer(
    tree: &Tree<'_>,
    claims: &Claims,
    n: usize,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if tree.opcode(n) != Some(OP_TRANSFER) {
        return None;
    }
    let t = &tree.txs[n];
    let item = interfaces.nft_item(&t.account)?;
    let m = t.in_msg.as_ref()?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    let new_owner = msg_address(&mut s)?;
    let response_destination = msg_address(&mut s)?;
    let custom_payload = maybe_ref(&mut s)?;
    let forward_amount = coins(&mut s)?;
    let forward_payload = if s.size_bits() > 0 {
        either_payload(&mut s)
    } else {
        None
    };
    let mut nodes = vec![n];
    let assigned = child_with(tree, claims, n, OP_OWNERSHIP_ASSIGNED);
    let excess = child_with(tree, claims, n, OP_EXCESSES);
    for c in assigned.iter().chain(excess.iter()) {
        nodes.push(*c);
        nodes.extend(change_of(tree, claims, *c));
    }
    let prev_owner = match assigned.and_then(|a| assigned_prev_owner(tree, a)) {
        Some(p) => p,
        None => m.source,
    };
    let cols = Cols {
        source: prev_owner,
        destination: new_owner,
        asset_secondary: Some(t.account),
        asset: item.collection,
        ..Cols::default()
    };
    let mut b = Block::new("nft_transfer", nodes, call_failed(tree, n), cols);
    b.data = transfer_data(
        &item,
        Some(query_id),
        Some(response_destination),
        Some(custom_payload.as_ref().map(body::boc_b64).into()),
        Some(forward_amount),
        forward_payload.as_ref(),
    );
    Some(b)
}

/// `ownership_assigned#05138d91 query_id prev_owner forward_payload`: the prev owner.
fn assigned_prev_owner(tree: &Tree<'_>, n: usize) -> Option<Option<tonindex_model::Address>> {
    let mut s = body::after_op(tree.txs[n].in_msg.as_ref()?.body.as_ref()?)?;
    s.load_u64().ok()?;
    msg_address(&mut s)
}

/// An ownership notice from a known item with no transfer in front of it
/// (what an item sends its first owner): a transfer to the notice's receiver.
pub(crate) fn ownership_assigned(
    tree: &Tree<'_>,
    _claims: &Claims,
    n: usize,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if tree.opcode(n) != Some(OP_OWNERSHIP_ASSIGNED) {
        return None;
    }
    let m = tree.txs[n].in_msg.as_ref()?;
    let item_addr = m.source?;
    let item = interfaces.nft_item(&item_addr)?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    let prev_owner = msg_address(&mut s)?;
    let payload = match either_payload(&mut s) {
        Some(p) => p,
        None => body::rest_cell(&s)?,
    };
    let cols = Cols {
        source: prev_owner,
        destination: m.destination,
        asset_secondary: Some(item_addr),
        asset: item.collection,
        ..Cols::default()
    };
    let mut b = Block::new("nft_transfer", vec![n], false, cols);
    b.data = transfer_data(&item, Some(query_id), None, None, None, Some(&payload));
    Some(b)
}
