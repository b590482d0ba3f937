//! GetGems auctions, and the auctions of TON DNS and Telemint items, as
//! toncenter's classifier reads them: a TON transfer to an auction the index
//! knows is a bid (`auction_bid`; to a DNS item, only when it outbids
//! someone); the auction's refund of the previous bid — GetGems' with its
//! "outbid" comment, an item's as `outbid_notification#557cea20` — is
//! `auction_outbid`; the seller's "cancel" with the NFT coming back is
//! `nft_cancel_auction`, and "stop"/"finish" with the sale to the best
//! bidder is `nft_finish_auction` (or, with the NFT coming back unsold, a
//! finish that cancels). A Telemint item's owner starts an auction of it
//! (`teleitem_start_auction`) and cancels one that has no bid
//! (`teleitem_cancel_auction`), each with the item's optional
//! `teleitem_ok#a37a0983`.

use crate::trace::action_data::{ActionData, AuctionBid, AuctionOutbid, Marketplace, NftListing};

use super::{deployed_here, Block, BlockId, Cols, Graph, Interfaces, NftSale};

/// What the auction writes in the refund of an outbid bid.
const OUTBID_COMMENT: &str = "Your bid has been outbid by another user";
/// The seller's commands by opcode: `cancel`, `finish`, `stop`.
const OP_CANCEL: u32 = 0x5616_c572;
const OP_FINISH: u32 = 0x20c9_eb18;
const OP_STOP: u32 = 0xb956_16b6;
/// What a DNS or Telemint item sends the bidder it outbids, with the bid back.
const OP_OUTBID_NOTIFICATION: u32 = 0x557c_ea20;
/// A Telemint item's owner's commands and the item's answer.
const OP_TELEITEM_START_AUCTION: u32 = 0x487a_8e81;
const OP_TELEITEM_CANCEL_AUCTION: u32 = 0x3716_38ae;
const OP_TELEITEM_OK: u32 = 0xa37a_0983;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_TELEITEM_START_AUCTION];

fn comment<'a>(g: &'a Graph<'_>, b: BlockId) -> Option<&'a str> {
    (g.kind(b) == "ton_transfer")
        .then(|| g.block(b).data.comment())
        .flatten()
}

/// A TON transfer to an auction: the bid's amount, bidder and lot.
pub(crate) fn bid(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.kind(b) != "ton_transfer" || matches!(comment(g, b), Some("cancel" | "finish" | "stop")) {
        return None;
    }
    let n = g.leaf(b)?;
    let t = &g.tree.txs[n];
    if deployed_here(t) {
        return None;
    }
    // A GetGems auction of an NFT, or a DNS item auctioning itself.
    let (lot, item, kind) = match interfaces.nft_auction(&t.account) {
        Some(auction) => (auction.nft, interfaces.nft_item(&auction.nft), "getgems"),
        None => {
            let item = interfaces.nft_item(&t.account)?;
            let outbids = g
                .block(b)
                .next
                .iter()
                .any(|&x| g.call_op(x) == Some(OP_OUTBID_NOTIFICATION));
            // A Telemint item takes any bid; a DNS item's counts only when
            // it outbids someone (toncenter's rules).
            let dns_bid = outbids && super::dns::is_dns_item(interfaces, &t.account, &item);
            if !(interfaces.teleitem(&t.account) || dns_bid) {
                return None;
            }
            (t.account, Some(item), "fragment")
        }
    };
    let m = t.in_msg.as_ref()?;
    let cols = Cols {
        source: m.source,
        destination: Some(t.account),
        asset_secondary: Some(lot),
        asset: item.as_ref().and_then(|i| i.collection),
        value: Some(m.value),
        accounts: vec![lot],
        ..Cols::default()
    };
    let mut blk = Block::of("auction_bid", vec![b], g.block(b).failed, cols);
    // toncenter's auction type: "fragment" for an item's own auction.
    blk.data = ActionData::AuctionBid(AuctionBid {
        marketplace: Some(kind.into()),
        nft_item_index: item.map(|i| i.index),
    });
    Some(blk)
}

/// The refund a bid makes the auction send its previous bidder (exactly
/// one, as toncenter requires).
pub(crate) fn outbid(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let blk = g.block(b);
    if blk.kind != "auction_bid" {
        return None;
    }
    let auction = blk.cols.destination?;
    let item_auction = matches!(
        &blk.data,
        ActionData::AuctionBid(bid) if bid.marketplace.as_deref() == Some("fragment")
    );
    let mut refunds = blk.next.iter().copied().filter(|&x| {
        g.block(x).cols.source == Some(auction)
            && if item_auction {
                g.call_op(x) == Some(OP_OUTBID_NOTIFICATION)
            } else {
                comment(g, x).is_some_and(|c| c.contains(OUTBID_COMMENT))
            }
    });
    let refund = refunds.next()?;
    if refunds.next().is_some() {
        return None;
    }
    let r = g.block(refund);
    let cols = Cols {
        source: Some(auction),
        destination: r.cols.destination,
        source_secondary: blk.cols.source,
        asset_secondary: blk.cols.asset_secondary,
        asset: blk.cols.asset,
        amount: r.cols.value,
        accounts: blk.cols.asset_secondary.into_iter().collect(),
        ..Cols::default()
    };
    let mut out = Block::of("auction_outbid", vec![refund], r.failed, cols);
    let comment = if item_auction {
        None
    } else {
        r.data.comment().map(str::to_string)
    };
    out.data = ActionData::AuctionOutbid(AuctionOutbid { comment });
    Some(out)
}

/// The seller's command to an auction: (whether it is `finish`/`stop`,
/// the auction).
fn command(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<(bool, NftSale)> {
    let finish = match (comment(g, b), g.call_op(b)) {
        (Some("finish" | "stop"), _) | (_, Some(OP_FINISH | OP_STOP)) => true,
        (Some("cancel"), _) | (_, Some(OP_CANCEL)) => false,
        _ => return None,
    };
    let t = &g.tree.txs[g.leaf(b)?];
    Some((finish, interfaces.nft_auction(&t.account)?))
}

/// `cols` of a command's action: the NFT's receiver as the owner.
fn command_cols(g: &Graph<'_>, b: BlockId, to: BlockId, auction: &NftSale) -> Option<Cols> {
    let t = &g.tree.txs[g.leaf(b)?];
    let got = g.block(to);
    Some(Cols {
        source: got.cols.destination,
        destination: Some(t.account),
        asset_secondary: Some(auction.nft),
        asset: got.cols.asset,
        accounts: vec![auction.nft],
        ..Cols::default()
    })
}

/// `finish`/`stop` with the auction's sale to the best bidder.
pub(crate) fn finish(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let (true, auction) = command(g, b, interfaces)? else {
        return None;
    };
    let sold = g.block(b).next.iter().copied().find(|&x| {
        g.kind(x) == "nft_purchase" && g.block(x).cols.asset_secondary == Some(auction.nft)
    })?;
    let cols = command_cols(g, b, sold, &auction)?;
    let mut blk = Block::of("nft_finish_auction", vec![b], g.block(b).failed, cols);
    // toncenter leaves the marketplace of a finish unnamed.
    blk.data = ActionData::Marketplace(Marketplace {
        marketplace_address: None,
    });
    Some(blk)
}

/// `cancel` (or a finish without a sale) with the NFT coming back.
pub(crate) fn cancel(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    let (finish, auction) = command(g, b, interfaces)?;
    let back = g.block(b).next.iter().copied().find(|&x| {
        g.kind(x) == "nft_transfer" && g.block(x).cols.asset_secondary == Some(auction.nft)
    })?;
    let cols = command_cols(g, b, back, &auction)?;
    let kind = if finish {
        "nft_finish_auction"
    } else {
        "nft_cancel_auction"
    };
    let mut blk = Block::of(kind, vec![b], g.block(b).failed, cols);
    blk.data = ActionData::Marketplace(Marketplace {
        marketplace_address: auction.marketplace,
    });
    Some(blk)
}

/// A command to a Telemint item the index knows, as an action of `kind`:
/// the owner to the item (members: the command and the item's `ok`), with
/// the item's NFT row and the command's message.
fn teleitem_command<'g>(
    g: &'g Graph<'_>,
    b: BlockId,
    op: u32,
    kind: &'static str,
    interfaces: &dyn Interfaces,
) -> Option<(Block, super::NftItem, &'g crate::trace::TraceMsg)> {
    if g.call_op(b) != Some(op) {
        return None;
    }
    let n = g.leaf(b)?;
    let m = g.tree.txs[n].in_msg.as_ref()?;
    let item = m.destination?;
    if !interfaces.teleitem(&item) {
        return None;
    }
    let nft = interfaces.nft_item(&item)?;
    let mut members = vec![b];
    members.extend(g.next_call(b, OP_TELEITEM_OK));
    let cols = Cols {
        source: m.source,
        destination: Some(item),
        asset: nft.collection,
        asset_secondary: Some(item),
        accounts: vec![item],
        ..Cols::default()
    };
    let blk = Block::of(kind, members, g.tree.txs[n].aborted, cols);
    Some((blk, nft, m))
}

/// `teleitem_msg_start_auction#487a8e81 query_id:int64
/// auction_config:^[beneficiary initial_min_bid:Coins max_bid:Coins
/// min_bid_step:uint8 min_extend_time:uint32 duration:uint32]`: the owner
/// puts the item up for auction; the beneficiary is where the bids go.
pub(crate) fn teleitem_start_auction(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    let (mut blk, nft, m) = teleitem_command(
        g,
        b,
        OP_TELEITEM_START_AUCTION,
        "teleitem_start_auction",
        interfaces,
    )?;
    let mut s = super::body::after_op(m.body.as_ref()?)?;
    s.load_u64().ok()?;
    let mut cfg = s.load_reference_as_slice().ok()?;
    let beneficiary = super::body::msg_address(&mut cfg)?;
    let min_bid = super::body::coins(&mut cfg)?;
    let max_bid = super::body::coins(&mut cfg)?;
    // No marketplace takes a fee: toncenter's zeros. Unlike toncenter,
    // which knows a Telemint item by its content URI on nft.fragment.com,
    // the index knows it by its code's getters (any Telemint collection).
    blk.data = ActionData::NftListing(Box::new(NftListing {
        nft_item_index: Some(nft.index),
        marketplace_fee_factor: Some("0".into()),
        marketplace_fee_base: Some("0".into()),
        royalty_fee_base: Some("0".into()),
        max_bid: Some(max_bid.to_string()),
        min_bid: Some(min_bid.to_string()),
        marketplace_fee_address: beneficiary,
        ..NftListing::default()
    }));
    Some(blk)
}

/// `teleitem_msg_cancel_auction#371638ae query_id:int64`: the owner takes
/// back an auction no one has bid in.
pub(crate) fn teleitem_cancel_auction(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    let (blk, _, _) = teleitem_command(
        g,
        b,
        OP_TELEITEM_CANCEL_AUCTION,
        "teleitem_cancel_auction",
        interfaces,
    )?;
    Some(blk)
}
