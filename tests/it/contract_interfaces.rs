//! Contract interfaces against an independent detector: tonkeeper's tongo
//! (`contracts/tongo-inspect-cases.json`: real mainnet code and the
//! interfaces tongo's inspector reports for it). tongo and toncenter name
//! interfaces differently and know different sets; [`TONGO_TO_V3`] says
//! which tongo names are interfaces of the spec's table (v3 §1.8) and what
//! v3 calls them. For those, both must agree both ways: a case tongo tags
//! with one has it in our answer, and a case we tag with one is tagged
//! with it by tongo.

use crate::common;

use std::collections::BTreeSet;

use tonindex::contracts::{interfaces, methods};
use tycho_types::boc::Boc;

/// tongo's name → v3's name, for the interfaces both tables know.
const TONGO_TO_V3: &[(&str, &str)] = &[
    ("WalletV4R2", "wallet_v4r2"),
    ("WalletV5R1", "wallet_v5r1"),
    ("WalletVesting", "wallet_vesting"),
    ("JettonMaster", "jetton_master"),
    ("JettonWallet", "jetton_wallet"),
    ("NftCollection", "nft_collection"),
    ("NftItem", "nft_item"),
    ("Sbt", "sbt"),
    ("NftSaleGetgemsV4", "nft_sale_getgems_v4"),
    ("SubscriptionV2", "subscription_v2"),
    ("StonfiPool", "stonfi_pool"),
    ("MegatonfiRouter", "megatonfi_router"),
    ("MegatonfiExchange", "megatonfi_exchange"),
    ("TvPool", "tv_pool"),
    ("TonstakePool", "tonstake_pool"),
    ("BidaskPool", "bidask_pool"),
    ("BidaskRange", "bidask_range"),
    ("BidaskLpMultitoken", "bidask_lp_multitoken"),
    ("MoonPool", "moon_pool"),
    ("MoonBooster", "moon_booster"),
    ("MoonOrderFactory", "moon_order_factory"),
    ("MoonOrder", "moon_order"),
    ("ToncoPool", "tonco_pool"),
    ("ToncoRouter", "tonco_router"),
    ("CoffeePool", "coffee_pool"),
    ("PythOracle", "pyth_price_oracle"),
    ("StormVault", "storm_vault"),
    ("StormVaultNative", "storm_vault"),
    ("StormVamm", "storm_vamm"),
    ("StormVammCoinm", "storm_vamm"),
];

/// Where v3's rules (which we follow) and tongo's part ways, each with
/// its reason: `(case, v3 interface, true if we report it and tongo does
/// not)`. Every entry must still happen, so a change that removes one shows.
const DIVERGENCES: &[(&str, &str, bool)] = &[
    // v3 tags any code with get_jetton_data + get_wallet_address as a
    // Jetton master (this pool is its LP token's master; XTR is a Jetton);
    // tongo's inspector gives these contracts their own interface only.
    ("stonfi pool", "jetton_master", true),
    ("xtr master", "jetton_master", true),
    // v3's table lists this pool's code hash under moon_pool, and a
    // code-hash match names exactly one interface.
    ("mooncx pool", "jetton_master", false),
];

#[test]
fn interfaces_agree_with_tongo() {
    let cases = common::json("contracts/tongo-inspect-cases.json");
    let v3_names: BTreeSet<&str> = TONGO_TO_V3.iter().map(|(_, v)| *v).collect();
    let mut seen = BTreeSet::new();
    let (mut agreeing, mut library_code) = (0, 0);
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let code = Boc::decode(hex::decode(case["code_hex"].as_str().unwrap()).unwrap()).unwrap();
        let ids = methods::method_ids(&code);
        let ours: BTreeSet<&str> = interfaces::detect(code.repr_hash().as_array(), ids.as_deref())
            .into_iter()
            .collect();
        let tongo: BTreeSet<&str> = case["want_interfaces"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| {
                let t = v.as_str().unwrap();
                TONGO_TO_V3.iter().find(|(k, _)| *k == t).map(|(_, v)| *v)
            })
            .collect();
        if code.descriptor().is_library() {
            // A library cell: the code itself is in the masterchain's
            // libraries, which the fixture does not carry (tongo's test
            // fetched them). Nothing can be read from the hash alone
            // unless v3's table lists it.
            assert!(ids.is_none(), "{name}: methods read from a library cell");
            library_code += 1;
            continue;
        }
        let ours_v3: BTreeSet<&str> = ours.intersection(&v3_names).copied().collect();
        for extra in ours_v3.difference(&tongo) {
            assert!(
                DIVERGENCES.contains(&(name, extra, true)),
                "{name}: we report {extra}, tongo does not (ours {ours:?})"
            );
            seen.insert((name, *extra));
        }
        for missing in tongo.difference(&ours_v3) {
            assert!(
                DIVERGENCES.contains(&(name, missing, false)),
                "{name}: tongo reports {missing}, we do not (ours {ours:?})"
            );
            seen.insert((name, *missing));
        }
        if ours_v3 == tongo {
            agreeing += 1;
        }
    }
    for (name, iface, _) in DIVERGENCES {
        assert!(
            seen.contains(&(*name, *iface)),
            "divergence {name}/{iface} no longer happens"
        );
    }
    println!(
        "{agreeing} cases agree on every interface both tables know; {} named divergences; \
         {library_code} cases with library code",
        DIVERGENCES.len()
    );
    assert!(agreeing >= 50, "only {agreeing} cases agree");
}

/// A method id as TON computes it, written here from the definition
/// (CRC-16/XMODEM of the name, with bit 16 set) rather than taken from
/// the crate under test.
fn crc16_method_id(name: &str) -> u32 {
    let mut reg: u16 = 0;
    for b in name.bytes() {
        reg ^= (b as u16) << 8;
        for _ in 0..8 {
            reg = if reg & 0x8000 != 0 {
                (reg << 1) ^ 0x1021
            } else {
                reg << 1
            };
        }
    }
    reg as u32 | 0x10000
}

#[test]
fn method_ids_are_read_from_the_code() {
    let cases = common::json("contracts/tongo-inspect-cases.json");
    let wallet = cases
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "wallet")
        .unwrap();
    let code = Boc::decode(hex::decode(wallet["code_hex"].as_str().unwrap()).unwrap()).unwrap();
    let ids = methods::method_ids(&code).unwrap();
    // Wallet v4r2's five getters and its two receivers: recv_internal (0)
    // and recv_external (-1, as the dictionary's unsigned 19-bit key).
    let mut want: Vec<u32> = [
        "seqno",
        "get_subwallet_id",
        "get_public_key",
        "get_plugin_list",
        "is_plugin_installed",
    ]
    .map(crc16_method_id)
    .to_vec();
    want.extend([0, (1 << 19) - 1]);
    want.sort_unstable();
    assert_eq!(ids, want);
    assert_eq!(
        interfaces::method_id("get_jetton_data"),
        crc16_method_id("get_jetton_data")
    );
}
