//! GetGems sales read as the index reads them (spec v3 §3.7, §6.4), on
//! real mainnet contracts: tongo's get-method corpus gives the code and
//! data of an auction (`get_sale_data`) and of a version 4 fixed-price
//! sale (`get_fix_price_data_v4`) with the values tongo decodes from them;
//! ours must be the same, field by field. The expectations are read out
//! of tongo's Go literals, not written here.

use crate::common;

use std::collections::BTreeMap;

use serde_json::Value;
use tonindex::api::encoding::parse_address;
use tonindex::contracts::nft_sale::{self, Detail, SaleData, SaleKind};
use tonindex::tvm::getmethod::{self, Context, Contract, Method};
use tycho_types::boc::Boc;
use tycho_types::cell::HashBytes;
use tycho_types::models::{CurrencyCollection, StdAddr};

fn case(name: &str) -> (Contract, String) {
    let cases: Vec<Value> = serde_json::from_slice(
        &std::fs::read(common::fixtures().join("contracts/tongo-getmethod-cases.json")).unwrap(),
    )
    .unwrap();
    let case = cases
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("tongo's case {name}"));
    let cell = |k: &str| Boc::decode(hex::decode(case[k].as_str().unwrap()).unwrap()).unwrap();
    let account = parse_address(case["account"].as_str().unwrap())
        .unwrap()
        .address;
    let contract = Contract {
        code: cell("code_hex"),
        data: cell("data_hex"),
        address: StdAddr::new(account.workchain as i8, HashBytes(account.id)),
        balance: CurrencyCollection::new(1_000_000_000),
    };
    (
        contract,
        case["want_go_literal"].as_str().unwrap().to_string(),
    )
}

fn ctx() -> Context {
    Context {
        config: tonindex::tvm::blockchain_config::builtin(),
        libraries: Default::default(),
        now: 1_700_000_000,
        lt: 0,
        rand_seed: HashBytes::ZERO,
        gas_limit: getmethod::DEFAULT_GAS_LIMIT,
        time_limit: None,
    }
}

/// `Field: value,` lines of a Go literal, values normalized: addresses as
/// raw `0:hex` (or `none`), numbers in decimal, booleans as words.
fn go_fields(literal: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in literal.lines() {
        let Some((k, v)) = line.trim().split_once(':') else {
            continue;
        };
        let v = v.trim().trim_end_matches(',');
        let value = if let Some(a) = v.split('"').nth(1).filter(|_| v.contains("MsgAddress(")) {
            a.to_lowercase()
        } else if v.contains("AddrNone") {
            "none".into()
        } else if v == "tlb.Int257{}" {
            "0".into()
        } else if let Some(h) = v.strip_prefix("0x") {
            u64::from_str_radix(h, 16).unwrap().to_string()
        } else {
            v.to_string()
        };
        out.insert(k.trim().to_string(), value);
    }
    out
}

fn addr(a: &Option<StdAddr>) -> String {
    a.as_ref().map_or("none".into(), |a| {
        format!("{}:{}", a.workchain, hex::encode(a.address.0))
    })
}

fn detail(sale: &SaleData, name: &str) -> String {
    match &sale.details.iter().find(|(k, _)| *k == name).unwrap().1 {
        Detail::Bool(b) => b.to_string(),
        Detail::Int(i) => i.to_string(),
        Detail::Amount(a) | Detail::Text(a) => a.clone(),
        Detail::Address(a) => addr(a),
    }
}

#[test]
fn a_getgems_auction_reads_as_tongo_reads_it() {
    let (contract, literal) = case("GetSaleData for getgems auction");
    let want = go_fields(&literal);
    let out = getmethod::run(&contract, &ctx(), &Method::parse("get_sale_data"), vec![]).unwrap();
    let sale = nft_sale::sale_data(&out).expect("an auction's sale data");
    assert_eq!(sale.kind, SaleKind::Auction);
    assert_eq!(want["Magic"], nft_sale::AUCTION_MAGIC.to_string());
    assert_eq!(addr(&Some(sale.nft.clone())), want["Nft"]);
    assert_eq!(addr(&sale.owner), want["Owner"]);
    assert_eq!(addr(&sale.marketplace), want["Marketplace"]);
    assert_eq!(sale.created_at.unwrap().to_string(), want["CreatedAt"]);
    for (ours, theirs) in [
        ("end_flag", "End"),
        ("end_time", "EndTime"),
        ("last_bid", "LastBid"),
        ("last_member", "LastMember"),
        ("min_step", "MinStep"),
        ("mp_fee_address", "MarketFeeAddress"),
        ("mp_fee_factor", "MpFeeFactor"),
        ("mp_fee_base", "MpFeeBase"),
        ("royalty_fee_address", "RoyaltyAddress"),
        ("royalty_fee_factor", "RoyaltyFeeFactor"),
        ("royalty_fee_base", "RoyaltyFeeBase"),
        ("max_bid", "MaxBid"),
        ("min_bid", "MinBid"),
        ("last_bid_at", "LastBidAt"),
        ("is_canceled", "IsCanceled"),
    ] {
        assert_eq!(
            detail(&sale, ours),
            want[theirs],
            "{ours} vs tongo's {theirs}"
        );
    }
    assert_eq!(sale.details.len(), 15);
    // The same contract is not a fixed-price sale.
    let out = getmethod::run(
        &contract,
        &ctx(),
        &Method::parse("get_fix_price_data_v4"),
        vec![],
    );
    assert!(out.map_or(true, |o| nft_sale::fix_price_data_v4(&o).is_none()));
}

#[test]
fn a_getgems_v4_sale_reads_as_tongo_reads_it() {
    let (contract, literal) = case("nft_sale v4");
    let want = go_fields(&literal);
    let out = getmethod::run(
        &contract,
        &ctx(),
        &Method::parse("get_fix_price_data_v4"),
        vec![],
    )
    .unwrap();
    let sale = nft_sale::fix_price_data_v4(&out).expect("a v4 sale's data");
    assert_eq!(sale.kind, SaleKind::FixedPrice);
    assert_eq!(addr(&Some(sale.nft.clone())), want["NftAddress"]);
    // tongo writes the owner as pointer(mustToMsgAddress("…")).
    assert_eq!(addr(&sale.owner), want["NftOwnerAddress"]);
    assert_eq!(addr(&sale.marketplace), want["MarketplaceAddress"]);
    assert_eq!(sale.created_at.unwrap().to_string(), want["CreatedAt"]);
    for (ours, theirs) in [
        ("is_complete", "IsComplete"),
        ("full_price", "FullPrice"),
        ("marketplace_fee_address", "FeeAddress"),
        ("marketplace_fee", "FeePercent"),
        ("royalty_address", "RoyaltyAddress"),
        ("royalty_amount", "RoyaltyPercent"),
    ] {
        assert_eq!(
            detail(&sale, ours),
            want[theirs],
            "{ours} vs tongo's {theirs}"
        );
    }
}
