//! NFT flows (TEP-62): a deployed item (mint), a transfer, and an
//! ownership notice with no transfer in front of it.

use crate::trace::action_data::{
    ActionData, Marketplace, NftIndex, NftListing, NftTransfer, NftUpdateSale,
};

use super::body::{self, coins, either_payload, maybe_ref, msg_address};
use tonindex_model::{Address, MsgKind};
use tycho_types::cell::Cell;

use super::{
    call_failed, deployed_here, Block, BlockId, Cols, Graph, Interfaces, NftItem, Tree, OP_EXCESSES,
};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[
    OP_TRANSFER,
    OP_OWNERSHIP_ASSIGNED,
    OP_SALE_UPDATE,
    OP_REPORT_STATIC_DATA,
];

pub(crate) const OP_TRANSFER: u32 = 0x5fcc_3d14;
pub(crate) const OP_OWNERSHIP_ASSIGNED: u32 = 0x0513_8d91;

/// A transaction that deployed a known NFT item.
pub(crate) fn mint(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let tree = g.tree;
    let n = g.leaf(b)?;
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
    b.data = ActionData::NftIndex(NftIndex {
        nft_item_index: Some(item.index.clone()),
    });
    Some(b)
}

fn transfer_data(
    item: &NftItem,
    query_id: Option<u64>,
    response_destination: Option<Option<tonindex_model::Address>>,
    custom_payload: Option<String>,
    forward_amount: Option<u128>,
    forward_payload: Option<&tycho_types::cell::Cell>,
) -> NftTransfer {
    let (comment, encrypted) = body::payload_comment(forward_payload);
    NftTransfer {
        comment,
        custom_payload,
        forward_amount: forward_amount.map(|v| v.to_string()),
        forward_payload: forward_payload.map(body::boc_b64),
        is_encrypted_comment: encrypted,
        nft_item_index: Some(item.index.clone()),
        query_id: query_id.map(|q| q.to_string()),
        response_destination: response_destination.flatten(),
        ..NftTransfer::default()
    }
}

/// A purchase the transfer completes: what the sale or auction contract
/// that sent it says.
struct Purchase {
    price: u128,
    seller: Option<Address>,
    marketplace: Option<Address>,
}

/// The transfer was sent by a sale contract (paid by the new owner with a
/// plain TON transfer) or an auction contract of this item, whose seller
/// is not the buyer.
fn purchase_of(
    g: &Graph<'_>,
    b: BlockId,
    item: &Address,
    new_owner: Option<Address>,
    interfaces: &dyn Interfaces,
) -> Option<Purchase> {
    let p = g.block(b).prev?;
    let sender = g.tree.txs[*g.block(p).nodes.first()?].account;
    let paid_by_buyer = g.kind(p) == "ton_transfer"
        && g.leaf(p)
            .and_then(|n| g.tree.txs[n].in_msg.as_ref())
            .is_some_and(|m| m.source.is_some() && m.source == new_owner);
    let sale = paid_by_buyer
        .then(|| interfaces.nft_sale(&sender))
        .flatten()
        .or_else(|| interfaces.nft_auction(&sender))?;
    (sale.nft == *item && sale.owner != new_owner).then_some(Purchase {
        price: sale.price,
        seller: sale.owner,
        marketplace: sale.marketplace,
    })
}

/// Whether the block before a purchase's transfer is part of it: the
/// buyer's payment (not a `finish`/`stop` command) or an external message.
fn takes_prev(g: &Graph<'_>, p: BlockId) -> bool {
    let Some(n) = g.leaf(p) else { return false };
    let Some(m) = g.tree.txs[n].in_msg.as_ref() else {
        return false;
    };
    match g.kind(p) {
        "ton_transfer" => !matches!(g.block(p).data.comment(), Some("finish" | "stop")),
        "call_contract" => m.kind == MsgKind::ExternalIn,
        _ => false,
    }
}

/// `transfer#5fcc3d14 query_id new_owner response_destination
/// custom_payload:(Maybe ^Cell) forward_amount forward_payload`.
pub(crate) struct NftTransferBody {
    pub query_id: u64,
    pub new_owner: Option<Address>,
    pub response_destination: Option<Address>,
    pub custom_payload: Option<Cell>,
    pub forward_amount: u128,
    pub forward_payload: Option<Cell>,
}

pub(crate) fn transfer_body(cell: &Cell) -> Option<NftTransferBody> {
    let mut s = body::after_op(cell)?;
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
    Some(NftTransferBody {
        query_id,
        new_owner,
        response_destination,
        custom_payload,
        forward_amount,
        forward_payload,
    })
}

/// transfer (→ ownership_assigned or excesses) at a known NFT item; a
/// purchase when a sale or auction contract sent it.
pub(crate) fn transfer(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_TRANSFER) {
        return None;
    }
    let tree = g.tree;
    let n = g.leaf(b)?;
    let t = &tree.txs[n];
    let item = interfaces.nft_item(&t.account)?;
    let m = t.in_msg.as_ref()?;
    let NftTransferBody {
        query_id,
        new_owner,
        response_destination,
        custom_payload,
        forward_amount,
        forward_payload,
    } = transfer_body(m.body.as_ref()?)?;
    let mut members = vec![b];
    let mut assigned = None;
    for &x in &g.block(b).next {
        match g.call_op(x) {
            Some(OP_OWNERSHIP_ASSIGNED) => {
                assigned.get_or_insert(x);
            }
            Some(OP_EXCESSES) => {}
            _ => continue,
        }
        members.extend(g.with_change(x));
    }
    let prev_owner = match assigned
        .and_then(|a| g.leaf(a))
        .and_then(|a| assigned_prev_owner(tree, a))
    {
        Some(p) => p,
        None => m.source,
    };
    let purchase = purchase_of(g, b, &t.account, new_owner, interfaces);
    if purchase.is_some() {
        if let Some(p) = g.block(b).prev.filter(|&p| takes_prev(g, p)) {
            members.push(p);
        }
    }
    let cols = Cols {
        source: prev_owner,
        destination: new_owner,
        asset_secondary: Some(t.account),
        asset: item.collection,
        ..Cols::default()
    };
    let mut blk = Block::of("nft_transfer", members, call_failed(tree, n), cols);
    let mut data = transfer_data(
        &item,
        Some(query_id),
        Some(response_destination),
        custom_payload.as_ref().map(body::boc_b64),
        Some(forward_amount),
        forward_payload.as_ref(),
    );
    if let Some(p) = purchase {
        data.is_purchase = true;
        data.price = Some(p.price.to_string());
        data.marketplace = Some("getgems".into());
        data.marketplace_address = p.marketplace;
        data.real_prev_owner = p.seller;
    }
    blk.data = ActionData::NftTransfer(Box::new(data));
    Some(blk)
}

const OP_TELEITEM_BID_INFO: u32 = 0x3812_7de1;
use super::dns::OP_FILL_UP;
const OP_TELEITEM_MINT: u32 = 0x299a_3e15;

/// A Telegram item (Fragment) sold: its ownership notice to the buyer
/// carries the winning bid; the item's payouts go with it.
pub(crate) fn telegram_purchase(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_OWNERSHIP_ASSIGNED) {
        return None;
    }
    let n = g.leaf(b)?;
    let m = g.tree.txs[n].in_msg.as_ref()?;
    let item_addr = m.source?;
    let item = interfaces.nft_item(&item_addr)?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok()?;
    let prev_owner = msg_address(&mut s)?;
    let payload = match s.load_bit() {
        Ok(true) => s.load_reference_cloned().ok(),
        Ok(false) => body::rest_cell(&s),
        Err(_) => None,
    };
    let bid = payload.as_ref().and_then(|p| {
        let mut ps = p.as_slice().ok()?;
        (ps.load_u32().ok()? == OP_TELEITEM_BID_INFO).then_some(())?;
        coins(&mut ps)
    });
    let mut members = vec![b];
    let mut purchase = bid.is_some();
    let mut payouts: Vec<(u64, BlockId, u128, Option<Address>)> = Vec::new();
    if let Some(p) = g.block(b).prev {
        let pn = g.leaf(p);
        let ext = pn
            .and_then(|pn| g.tree.txs[pn].in_msg.as_ref())
            .is_some_and(|pm| pm.kind == MsgKind::ExternalIn);
        if g.call_op(p) == Some(OP_TELEITEM_MINT) || g.kind(p) == "nft_mint" {
            purchase = false;
        } else if g.kind(p) == "ton_transfer" || (g.kind(p) == "call_contract" && ext) {
            for x in g.next_calls(p, OP_FILL_UP) {
                let xn = g.leaf(x)?;
                let xm = g.tree.txs[xn].in_msg.as_ref()?;
                payouts.push((xm.created_lt.unwrap_or(0), x, xm.value, xm.destination));
            }
            payouts.sort_by_key(|p| p.0);
            members.extend(payouts.iter().map(|p| p.1));
            members.push(p);
        }
    }
    let cols = Cols {
        source: prev_owner,
        destination: m.destination,
        asset_secondary: Some(item_addr),
        asset: item.collection,
        ..Cols::default()
    };
    let mut blk = Block::of("nft_transfer", members, false, cols);
    let mut data = transfer_data(&item, Some(query_id), None, None, None, payload.as_ref());
    if purchase {
        data.is_purchase = true;
        data.price = bid.map(|v| v.to_string());
        data.marketplace = Some("fragment".into());
        let (royalty, payout) = match payouts.as_slice() {
            [r, p, ..] => (Some(r), Some(p)),
            [p] => (None, Some(p)),
            [] => (None, None),
        };
        if let Some(p) = payout {
            data.payout_amount = Some(p.2.to_string());
            data.payout_address = p.3;
        }
        if let Some(r) = royalty {
            data.royalty_amount = Some(r.2.to_string());
            data.royalty_address = r.3;
        }
    }
    blk.data = ActionData::NftTransfer(Box::new(data));
    Some(blk)
}

/// A Getgems sale or auction: the purchase transfer with the seller's
/// payout from the same contract.
pub(crate) fn getgems_purchase(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let blk = g.block(b);
    let ActionData::NftTransfer(transfer) = &blk.data else {
        return None;
    };
    if blk.kind != "nft_transfer"
        || transfer.marketplace.as_deref() != Some("getgems")
        || !transfer.is_purchase
    {
        return None;
    }
    let seller = transfer.real_prev_owner?;
    // After a `finish` command the payout is the command's sibling.
    let from = match blk.prev {
        Some(p)
            if g.kind(p) == "ton_transfer"
                && matches!(g.block(p).data.comment(), Some("finish" | "stop")) =>
        {
            p
        }
        _ => b,
    };
    let payout = g.block(from).next.iter().copied().find(|&x| {
        x != b && g.kind(x) == "ton_transfer" && g.block(x).cols.destination == Some(seller)
    })?;
    let pay = g.block(payout);
    let mut out = Block::of("nft_purchase", vec![b, payout], false, blk.cols.clone());
    let mut data = transfer.clone();
    data.royalty_amount = None;
    data.payout_amount = pay.cols.value.map(|v| v.to_string());
    let (comment, encrypted) = match &pay.data {
        ActionData::Comment(c) => (c.content.clone(), c.encrypted),
        _ => (None, false),
    };
    data.payout_comment_encrypted = Some(encrypted);
    data.payout_comment_encoded = Some(encrypted);
    data.payout_comment = comment;
    out.data = ActionData::NftTransfer(data);
    Some(out)
}

/// `ownership_assigned#05138d91 query_id prev_owner forward_payload`: the prev owner.
fn assigned_prev_owner(tree: &Tree<'_>, n: usize) -> Option<Option<tonindex_model::Address>> {
    let mut s = body::after_op(tree.txs[n].in_msg.as_ref()?.body.as_ref()?)?;
    s.load_u64().ok()?;
    msg_address(&mut s)
}

/// `cancel#3` to a GetGems fixed-price sale.
const OP_CANCEL_SALE: u32 = 3;

/// GetGems' own marketplace (named so in toncenter's action corpus); other
/// marketplaces are not named.
const GETGEMS_MARKETPLACE: &str =
    "0:584EE61B2DFF0837116D0FCB5078D93964BCBE9C05FD6A141B1BFCA5D6A43E18";

/// The marketplace's name, where it is one tonindex knows.
pub(crate) fn marketplace_name(marketplace: Option<&Address>) -> Option<&'static str> {
    (marketplace.map(super::raw).as_deref() == Some(GETGEMS_MARKETPLACE)).then_some("getgems")
}

/// A GetGems sale cancelled: `cancel#3` to a sale the index knows, which
/// sends its NFT back (an `nft_transfer` of that very item). As toncenter
/// builds it, the action is the call; the transfer back stays an action of
/// its own.
pub(crate) fn cancel_sale(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_CANCEL_SALE) {
        return None;
    }
    let n = g.leaf(b)?;
    let sale_address = g.tree.txs[n].account;
    let sale = interfaces.nft_sale(&sale_address)?;
    let back = g
        .block(b)
        .next
        .iter()
        .map(|&x| g.block(x))
        .find(|x| x.kind == "nft_transfer" && x.cols.asset_secondary == Some(sale.nft))?;
    let cols = Cols {
        source: back.cols.destination,
        destination: Some(sale_address),
        asset_secondary: Some(sale.nft),
        asset: back.cols.asset,
        accounts: vec![sale.nft],
        ..Cols::default()
    };
    let mut blk = Block::of("nft_cancel_sale", vec![b], call_failed(g.tree, n), cols);
    blk.data = ActionData::Marketplace(Marketplace {
        marketplace_address: sale.marketplace,
    });
    Some(blk)
}

/// `sale_update#6c6c2080 query_id:uint64 new_full_price:Coins
/// new_marketplace_fee:Coins new_royalty_amount:Coins`, to a GetGems sale.
const OP_SALE_UPDATE: u32 = 0x6c6c_2080;

/// A GetGems sale's price changed: `sale_update` to a sale the index knows
/// is nft_update_sale with the new price and fees the message asks for; it
/// failed when the sale's transaction aborted (a sale that does not take
/// the message, or a sender that may not).
pub(crate) fn update_sale(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_SALE_UPDATE) {
        return None;
    }
    let n = g.leaf(b)?;
    let t = &g.tree.txs[n];
    let sale = interfaces.nft_sale(&t.account)?;
    let m = t.in_msg.as_ref()?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    s.load_u64().ok()?;
    let (price, fee, royalty) = (coins(&mut s)?, coins(&mut s)?, coins(&mut s)?);
    let cols = Cols {
        source: m.source,
        destination: Some(t.account),
        asset_secondary: Some(sale.nft),
        accounts: vec![sale.nft],
        ..Cols::default()
    };
    let mut blk = Block::of("nft_update_sale", vec![b], t.aborted, cols);
    blk.data = ActionData::NftUpdateSale(NftUpdateSale {
        full_price: Some(price.to_string()),
        marketplace_address: sale.marketplace,
        marketplace_fee: Some(fee.to_string()),
        royalty_amount: Some(royalty.to_string()),
    });
    Some(blk)
}

/// `get_static_data#2fcb26a2 query_id:uint64` to an NFT item.
const OP_GET_STATIC_DATA: u32 = 0x2fcb_26a2;
/// `report_static_data#8b771735 query_id:uint64 index:uint256
/// collection:MsgAddress`, the item's answer.
const OP_REPORT_STATIC_DATA: u32 = 0x8b77_1735;

/// An NFT item asked what it is (TEP-62 `get_static_data`) with its
/// report: nft_discovery, with the index and collection the item reports.
pub(crate) fn discovery(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_GET_STATIC_DATA) {
        return None;
    }
    let m = g.msg(b)?;
    let report = g.next_call(b, OP_REPORT_STATIC_DATA)?;
    let mut s = body::after_op(g.body(report)?)?;
    s.load_u64().ok()?;
    let index = num_bigint::BigUint::from_bytes_be(s.load_u256().ok()?.as_array());
    let collection = msg_address(&mut s)?;
    let cols = Cols {
        source: m.source,
        asset_secondary: m.destination,
        asset: collection,
        ..Cols::default()
    };
    let mut blk = Block::of("nft_discovery", vec![b, report], false, cols);
    blk.data = ActionData::NftIndex(NftIndex {
        nft_item_index: Some(index.to_string()),
    });
    Some(blk)
}

/// A GetGems listing: the seller's NFT transfer to a listing contract (a
/// deployer), which deploys the sale or auction contract and hands it the
/// NFT — the transfer, the deployment and the second transfer under it are
/// `nft_put_on_sale` or `nft_put_on_auction`, for a contract the index
/// knows that sells that NFT. Details as toncenter's: the seller the
/// contract names, the listing contract, and the price (an auction's
/// bids) and fees from the contract's own word.
pub(crate) fn put_on_sale(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let first = g.block(b);
    if first.kind != "nft_transfer" {
        return None;
    }
    let listing = first.cols.destination?;
    let nft = first.cols.asset_secondary?;
    let deploys = |x: BlockId| {
        matches!(g.kind(x), "ton_transfer" | "call_contract")
            && g.leaf(x).is_some_and(|n| deployed_here(&g.tree.txs[n]))
    };
    let init = first.next.iter().copied().find(|&x| deploys(x))?;
    let contract = g.tree.txs[g.leaf(init)?].account;
    let to_contract = first.next.iter().copied().find(|&x| {
        let t = g.block(x);
        t.kind == "nft_transfer"
            && t.cols.asset_secondary == Some(nft)
            && t.cols.destination == Some(contract)
    })?;
    let (kind, sale) = match interfaces.nft_sale(&contract) {
        Some(s) => ("nft_put_on_sale", s),
        None => ("nft_put_on_auction", interfaces.nft_auction(&contract)?),
    };
    if sale.nft != nft {
        return None;
    }
    let item = interfaces.nft_item(&nft);
    let cols = Cols {
        source: sale.owner,
        source_secondary: Some(listing),
        destination: Some(contract),
        asset: first.cols.asset,
        asset_secondary: Some(nft),
        accounts: vec![nft],
        ..Cols::default()
    };
    let mut blk = Block::of(kind, vec![b, init, to_contract], false, cols);
    let mut listing = NftListing {
        nft_item_index: item.map(|i| i.index),
        marketplace_address: sale.marketplace,
        marketplace_fee_address: sale.fee_address,
        royalty_address: sale.royalty_address,
        ..NftListing::default()
    };
    match &sale.terms {
        None => {
            listing.full_price = Some(sale.price.to_string());
            listing.marketplace_fee = sale.fee.map(|v| v.to_string());
            listing.royalty_amount = sale.royalty.map(|v| v.to_string());
        }
        Some(t) => {
            listing.marketplace_fee_factor = t.mp_fee_factor.clone();
            listing.marketplace_fee_base = t.mp_fee_base.clone();
            listing.royalty_fee_base = t.royalty_fee_base.clone();
            listing.max_bid = t.max_bid.clone();
            listing.min_bid = t.min_bid.clone();
        }
    }
    blk.data = ActionData::NftListing(Box::new(listing));
    Some(blk)
}
