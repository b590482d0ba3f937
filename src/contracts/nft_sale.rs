//! GetGems NFT sales and auctions, read the way toncenter's worker reads
//! them (spec v3 §3.7 `/nft/sales`, §6.4): a fixed-price sale by
//! `get_sale_data` (magic `0x46495850`, "FIXP", 11 values) or, version 4,
//! by `get_fix_price_data_v4` (13 values); an auction by `get_sale_data`
//! (magic `0x415543`, "AUC", 20 values). What they say is the contract's
//! own word: the index lets a sale stand for the NFT's seller only while
//! the NFT's owner is the sale contract itself. A Telemint item (Fragment's
//! usernames and numbers, TelegramMessenger/telemint) auctions itself: its
//! `get_telemint_*` getters and `royalty_params` give the row of type
//! `telemint`.

use num_bigint::BigInt;
use tycho_types::models::StdAddr;
use tycho_vm::RcStackValue;

pub use tonindex_storage::SaleKind;

use super::jetton::{address, ok_stack};
use crate::tvm::getmethod::RunOutput;

/// `get_sale_data`'s first value on a fixed-price sale: "FIXP".
pub const FIXED_PRICE_MAGIC: u32 = 0x4649_5850;
/// `get_sale_data`'s first value on an auction: "AUC".
pub const AUCTION_MAGIC: u32 = 0x41_5543;

/// A value of a sale's `details` (v3's JSON types: amounts as decimal
/// strings, small numbers as numbers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    Bool(bool),
    Int(i64),
    Amount(String),
    Address(Option<StdAddr>),
    Text(String),
}

/// What a sale or auction contract says of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaleData {
    pub kind: SaleKind,
    pub nft: StdAddr,
    /// The seller (`None`: the contract says `addr_none`).
    pub owner: Option<StdAddr>,
    pub marketplace: Option<StdAddr>,
    /// `None` where the contract does not say (a Telemint item).
    pub created_at: Option<i64>,
    /// v3's `details`, in the order the Go server writes them.
    pub details: Vec<(&'static str, Detail)>,
}

fn int(v: &RcStackValue) -> Option<&BigInt> {
    v.as_int()
}

fn small(v: &RcStackValue) -> Option<i64> {
    i64::try_from(int(v)?).ok()
}

fn flag(v: &RcStackValue) -> Option<bool> {
    Some(int(v)? != &BigInt::ZERO)
}

fn amount(v: &RcStackValue) -> Option<Detail> {
    Some(Detail::Amount(int(v)?.to_string()))
}

fn addr(v: &RcStackValue) -> Option<Detail> {
    Some(Detail::Address(address(v)?))
}

/// `get_sale_data` of a fixed-price sale or an auction.
pub fn sale_data(out: &RunOutput) -> Option<SaleData> {
    let magic = out.stack.first().and_then(small)?;
    if magic == i64::from(FIXED_PRICE_MAGIC) {
        // (magic, is_complete, created_at, marketplace, nft, nft_owner,
        //  full_price, marketplace_fee_address, marketplace_fee,
        //  royalty_address, royalty_amount)
        let s = ok_stack(out, 11)?;
        return Some(SaleData {
            kind: SaleKind::FixedPrice,
            nft: address(&s[4])??,
            owner: address(&s[5])?,
            marketplace: address(&s[3])?,
            created_at: Some(small(&s[2])?),
            details: vec![
                ("is_complete", Detail::Bool(flag(&s[1])?)),
                ("full_price", amount(&s[6])?),
                ("marketplace_fee_address", addr(&s[7])?),
                ("marketplace_fee", amount(&s[8])?),
                ("royalty_address", addr(&s[9])?),
                ("royalty_amount", amount(&s[10])?),
            ],
        });
    }
    if magic == i64::from(AUCTION_MAGIC) {
        // (magic, end, end_time, marketplace, nft, owner, last_bid,
        //  last_member, min_step, mp_fee_address, mp_fee_factor,
        //  mp_fee_base, royalty_address, royalty_fee_factor,
        //  royalty_fee_base, max_bid, min_bid, created_at, last_bid_at,
        //  is_canceled)
        let s = ok_stack(out, 20)?;
        return Some(SaleData {
            kind: SaleKind::Auction,
            nft: address(&s[4])??,
            owner: address(&s[5])?,
            marketplace: address(&s[3])?,
            created_at: Some(small(&s[17])?),
            details: vec![
                ("end_flag", Detail::Bool(flag(&s[1])?)),
                ("end_time", Detail::Int(small(&s[2])?)),
                ("last_bid", amount(&s[6])?),
                ("last_member", addr(&s[7])?),
                ("min_step", Detail::Int(small(&s[8])?)),
                ("mp_fee_address", addr(&s[9])?),
                ("mp_fee_factor", Detail::Int(small(&s[10])?)),
                ("mp_fee_base", Detail::Int(small(&s[11])?)),
                ("royalty_fee_address", addr(&s[12])?),
                ("royalty_fee_factor", Detail::Int(small(&s[13])?)),
                ("royalty_fee_base", Detail::Int(small(&s[14])?)),
                ("max_bid", amount(&s[15])?),
                ("min_bid", amount(&s[16])?),
                ("last_bid_at", Detail::Int(small(&s[18])?)),
                ("is_canceled", Detail::Bool(flag(&s[19])?)),
            ],
        });
    }
    None
}

/// `get_fix_price_data_v4` of a version 4 fixed-price sale: (is_complete,
/// created_at, marketplace, nft, nft_owner, full_price,
/// marketplace_fee_address, marketplace_fee, royalty_address,
/// royalty_amount, sold_at, sold_query_id, jetton prices or null).
pub fn fix_price_data_v4(out: &RunOutput) -> Option<SaleData> {
    let s = ok_stack(out, 13)?;
    Some(SaleData {
        kind: SaleKind::FixedPrice,
        nft: address(&s[3])??,
        owner: address(&s[4])?,
        marketplace: address(&s[2])?,
        created_at: Some(small(&s[1])?),
        details: vec![
            ("is_complete", Detail::Bool(flag(&s[0])?)),
            ("full_price", amount(&s[5])?),
            ("marketplace_fee_address", addr(&s[6])?),
            ("marketplace_fee", amount(&s[7])?),
            ("royalty_address", addr(&s[8])?),
            ("royalty_amount", amount(&s[9])?),
        ],
    })
}

/// A slice holding an address, or a TVM null (no bidder yet): as
/// [`address`], with null read as none.
fn address_or_null(v: &RcStackValue) -> Option<Option<StdAddr>> {
    if v.is_null() {
        return Some(None);
    }
    address(v)
}

/// `get_telemint_token_name` → the name's bytes (`len:(## 8)` dropped by
/// the contract) as text.
pub fn telemint_token_name(out: &RunOutput) -> Option<String> {
    let s = ok_stack(out, 1)?;
    let slice = s[0].as_cell_slice()?;
    let cs = slice.apply();
    let bits = cs.size_bits();
    if bits % 8 != 0 {
        return None;
    }
    let mut bytes = vec![0u8; usize::from(bits / 8)];
    cs.get_raw(0, &mut bytes, bits).ok()?;
    String::from_utf8(bytes).ok()
}

/// A Telemint item's row: its token name, and — while it holds an auction
/// — `get_telemint_auction_state` (bidder, bid, bid time, next minimum
/// bid, end time) and `get_telemint_auction_config` (beneficiary, initial
/// minimum and maximum bid, step in percent, extension and duration), with
/// `royalty_params`; the values and their JSON types as the Go server
/// writes them (`details` of type `telemint`). `item` is the item itself;
/// the row names no seller (toncenter's has none: the item's owner is on
/// the item).
pub fn telemint(
    item: StdAddr,
    token_name: String,
    state: Option<&RunOutput>,
    config: Option<&RunOutput>,
    royalty: Option<&RunOutput>,
) -> Option<SaleData> {
    let mut details = vec![("token_name", Detail::Text(token_name))];
    // The state getter throws when no auction runs.
    if let Some(s) = state.and_then(|o| ok_stack(o, 5)) {
        details.extend([
            ("bidder_address", Detail::Address(address_or_null(&s[0])?)),
            ("bid", amount(&s[1])?),
            ("bid_ts", amount(&s[2])?),
            ("min_bid", amount(&s[3])?),
            ("end_time", Detail::Int(small(&s[4])?)),
        ]);
        if let Some(c) = config.and_then(|o| ok_stack(o, 6)) {
            details.extend([
                (
                    "beneficiary_address",
                    Detail::Address(address_or_null(&c[0])?),
                ),
                ("initial_min_bid", amount(&c[1])?),
                ("max_bid", amount(&c[2])?),
                ("min_bid_step", amount(&c[3])?),
                ("min_extend_time", amount(&c[4])?),
                ("duration", amount(&c[5])?),
            ]);
        }
    }
    if let Some(r) = royalty.and_then(|o| ok_stack(o, 3)) {
        details.extend([
            ("royalty_numerator", Detail::Int(small(&r[0])?)),
            ("royalty_denominator", Detail::Int(small(&r[1])?)),
            ("royalty_destination", Detail::Address(address(&r[2])?)),
        ]);
    }
    Some(SaleData {
        kind: SaleKind::Telemint,
        nft: item,
        owner: None,
        marketplace: None,
        created_at: None,
        details,
    })
}
