//! Contracts on the devnet, deployed and driven by real clients: Jettons,
//! NFTs and their sales and auctions, multisig orders, vesting, DNS,
//! nominator pools, subscriptions, elections and highload wallets — each
//! followed by the index step by step and shown as toncenter shows it.

use super::*;

/// Off-chain token content on the devnet (tests/clients/devnet_offchain.mjs):
/// with fetching on (and let reach the script's own server on 127.0.0.1),
/// TEP-64 documents of deployed Jettons show in `metadata`, broken, oversized
/// and missing ones as `valid: false`, and a mintless-airdrop Jetton's
/// unclaimed wallets carry the claims its custom payload API serves.
#[test]
fn offchain_content_and_mintless_claims_are_fetched() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start_env(
        &dir.path().join("db"),
        &[],
        &[
            ("TONINDEX_SERVE__OFFCHAIN_METADATA__ENABLED", "true"),
            (
                "TONINDEX_SERVE__OFFCHAIN_METADATA__ALLOW_PRIVATE_ADDRESSES",
                "true",
            ),
            ("TONINDEX_SERVE__OFFCHAIN_METADATA__MAX_BYTES", "4096"),
            ("TONINDEX_SERVE__OFFCHAIN_METADATA__TIMEOUT_MS", "3000"),
        ],
    );
    let fixtures = common::fixtures();
    let out = node(
        "devnet_offchain.mjs",
        &[&dev.url(), fixtures.to_str().unwrap()],
    );
    assert_eq!(out["ok"], true, "{out}");
}

/// tests/clients/devnet_jettons.mjs on `dev` (`extra`: its further
/// arguments), which must pass; its summary.
fn jetton_steps(dev: &Dev, extra: &[&str]) -> Value {
    let fixtures = common::fixtures();
    let url = dev.url();
    let mut args = vec![url.as_str(), fixtures.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = node("devnet_jettons.mjs", &args);
    assert_eq!(out["ok"], true, "{out}");
    out
}

/// Jettons on the devnet, driven by @ton/ton (tests/clients/devnet_jettons.mjs):
/// a TEP-74 minter deployed, minting to two wallets, a transfer and a burn
/// show in `/jetton/masters` and `/jetton/wallets` exactly as the steps
/// imply, and a fake wallet claiming the real minter never does (it is
/// counted in `/metrics` as left out); a Streaming API v2 subscriber hears
/// each change of the real wallets once (`jettons_change`).
#[test]
fn jettons_follow_every_step_and_fakes_are_left_out() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let out = jetton_steps(&dev, &[]);
    // The fake wallet, left out, is counted as such (its master does not
    // derive it), so that an operator can tell "not a token" from "broken".
    // (`http` keeps a body from its first brace: the label, unique to
    // tonindex_token_contracts_left_out_total, is what is looked for.)
    let (status, metrics) = http(dev.port, "GET", "/metrics", "");
    assert_eq!(status, 200);
    let left_out = metrics
        .lines()
        .find(|l| l.contains(r#"{reason="jetton_wallet_not_confirmed_by_master"}"#))
        .and_then(|l| l.rsplit(' ').next()?.parse::<f64>().ok());
    assert!(left_out.is_some_and(|n| n >= 1.0), "{metrics}");
    dev.stop(false);

    // One more transfer, sent while blocks wait: emulated at once and
    // classified with the token tables, it is a pending jetton_transfer.
    let dev = Dev::start(&dir.path().join("db"), &["--block-interval", "60000"]);
    let body = serde_json::json!({ "boc": out["pending_transfer_boc"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let q: String =
        form_urlencoded::byte_serialize(v["message_hash"].as_str().unwrap().as_bytes()).collect();
    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    let actions = v["traces"][0]["actions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let transfer = actions
        .iter()
        .find(|a| a["type"] == "jetton_transfer")
        .unwrap_or_else(|| panic!("a pending jetton_transfer: {v}"));
    assert_eq!(transfer["details"]["amount"], "10", "{transfer}");
    assert_eq!(transfer["finality"], "pending");
    let wallet = out["alice_wallet"].as_str().unwrap().to_uppercase();
    assert_eq!(
        transfer["details"]["sender_jetton_wallet"]
            .as_str()
            .map(str::to_uppercase),
        Some(wallet.clone()),
        "{transfer}"
    );
    // The pending answers carry the metadata of the token contracts they
    // name: the Jetton wallet and its master, with its content.
    let minter = out["minter"].as_str().unwrap().to_uppercase();
    let symbol = |v: &serde_json::Value| v["metadata"][&minter]["token_info"][0]["symbol"].clone();
    assert_eq!(symbol(&v), "DVD", "{v}");
    assert_eq!(
        v["metadata"][&wallet]["token_info"][0]["type"], "jetton_wallets",
        "{v}"
    );
    let owner: String =
        form_urlencoded::byte_serialize(transfer["details"]["sender"].as_str().unwrap().as_bytes())
            .collect();
    let (status, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingActions?account={owner}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(symbol(&v), "DVD", "{v}");
    dev.stop(false);
}

/// The same Jetton steps on a devnet that announces its shard blocks a gap
/// before their commit (`--block-interval --confirm-gap`): a subscriber
/// from `confirmed` on hears each change of a wallet the index already
/// knew at `confirmed` (the shard block's state, completed from the cell
/// store, at the balance and lt the finalized one then has), then at
/// `finalized`; a wallet's first change at `finalized` only.
#[test]
fn jettons_change_comes_at_confirmed_before_finalized() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &["--block-interval", "1500", "--confirm-gap", "700"],
    );
    jetton_steps(&dev, &["confirmed"]);
    dev.stop(false);
}

/// NFTs on the devnet, driven by @ton/ton (tests/clients/devnet_nfts.mjs):
/// a standard collection deployed, two items minted, one transferred; the
/// v3 NFT endpoints, the classifier and v2 getTokenData show each step, and
/// a `get_static_data` to an item is `nft_discovery` with what its getter
/// says.
#[test]
fn nfts_follow_every_step() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let out = node("devnet_nfts.mjs", &[&dev.url()]);
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// PyPI pytoncenter, unchanged (tests/python/devnet_pytoncenter.py): its
/// API v3 client, whose pydantic models validate every answer, and its API
/// v2 client read a devnet where @ton/ton made a Jetton and an NFT
/// collection, after a fresh wallet's transfer went through the v3 client's
/// `estimate_fee`, `send_message` and `wait_message_exists`. What they parse
/// must match what was done, each other, and the Jetton master's getters.
/// Then PyPI toncenter's `ToncenterRestClient`
/// (tests/python/devnet_toncenter_rest.py) does the same with every call of
/// its v2 and v3 resource groups.
#[test]
fn pytoncenter_and_toncenter_rest_read_what_the_devnet_made() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let jettons = jetton_steps(&dev, &[]);
    let nfts = node("devnet_nfts.mjs", &[&dev.url()]);
    assert_eq!(nfts["ok"], true, "{nfts}");
    let made = serde_json::json!({
        "minter": jettons["minter"],
        "alice_wallet": jettons["alice_wallet"],
        "bob_wallet": jettons["bob_wallet"],
        "collection": nfts["collection"],
        "items": nfts["items"],
    });
    let v = python("devnet_pytoncenter.py", &[dev.url(), made.to_string()]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["items"], 2, "{v}");
    // PyPI toncenter's REST client on the same devnet: every call of its
    // v2 and v3 resource groups, through its pydantic models.
    let v = python("devnet_toncenter_rest.py", &[dev.url(), made.to_string()]);
    assert_eq!(v["ok"], true, "{v}");
    dev.stop(false);
}

/// Multisig v2 and a vesting wallet on the devnet, driven by @ton/ton
/// (tests/clients/devnet_multisig.mjs): the devnet holds the multisig's
/// Order code as a public library (its orders' code refers to it by hash,
/// as on mainnet); an order is proposed, decoded, approved and executed,
/// a vesting wallet deployed and whitelisted — v3 `/multisig/*` and
/// `/vesting` show each step, and `/actions` the order's creation, each
/// approval (one accepted, one rejected by the executed order) and its
/// execution, for every signer.
#[test]
fn multisig_orders_and_vesting_follow_every_step() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixtures();
    let compiled: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures.join("contracts/multisig-v2/Order.compiled.json")).unwrap(),
    )
    .unwrap();
    let library = dir.path().join("order.boc");
    std::fs::write(
        &library,
        hex::decode(compiled["hex"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &["--library", library.to_str().unwrap()],
    );
    let out = node(
        "devnet_multisig.mjs",
        &[&dev.url(), fixtures.to_str().unwrap()],
    );
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// TON DNS on the devnet (tests/clients/devnet_dns.mjs): a `.ton` item of
/// real mainnet DNS item code at genesis, under mainnet's `.ton`
/// collection address; `/dns/records` (also as @ton/walletkit resolves a
/// domain and a wallet), the address book's `domain` and the item's
/// content show it, and follow the owner's change of its `wallet` record;
/// an expired item's release is a `dns_release` action, and a higher bid
/// on it an `auction_bid` with the notice refunding the first bidder an
/// `auction_outbid`; the winner's first call after an ended auction, a
/// `dns_purchase`.
#[test]
fn dns_records_follow_the_items() {
    common::npm_install(&clients_dir(), &["@ton/ton", "lru-cache"]);
    let fixtures = common::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (dev, prepared) = dev_prepared("devnet_dns.mjs", &fixtures, dir.path());
    let out = node(
        "devnet_dns.mjs",
        &[
            "run",
            &dev.url(),
            &prepared["mnemonic"].to_string(),
            prepared["item"].as_str().unwrap(),
            prepared["adnl"].as_str().unwrap(),
            prepared["expired"].as_str().unwrap(),
            prepared["won"].as_str().unwrap(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// v2 `dnsResolve` on the devnet (tests/clients/devnet_dns_resolve.mjs): a
/// DNS item of mainnet's code with every kind of record and a next
/// resolver for its subdomains; each record, the walk to the next resolver
/// (`ttl`), JSON-RPC and `seqno` agree with tonweb's own resolver and with
/// what genesis wrote; bad input is a 4xx.
#[test]
fn dns_resolve_agrees_with_tonweb() {
    common::npm_install(&clients_dir(), &["@ton/ton", "tonweb"]);
    let out = prepared_run("devnet_dns_resolve.mjs");
    assert_eq!(out["records"], 6, "{out}");
}

/// GetGems fixed-price sales traded on the devnet
/// (tests/clients/devnet_nft_trade.mjs): two sales of mainnet's v4 code at
/// genesis, their storage held to the contract's own getter first. A
/// purchase is `nft_purchase` with the price, buyer, seller and payout the
/// chain shows (the item's owner, the balances the sale paid); a cancel is
/// `nft_cancel_sale` with the item back with its seller, and clients of
/// the v2 action set see the call and the transfer instead. A price update
/// is `nft_update_sale`: failed on the v4 sale, which refuses the older
/// sales' message, successful on a third sale of GetGems' v3r3 code, whose
/// getter and /nft/sales row then show the new price and fees.
#[test]
fn getgems_sales_bought_and_cancelled_are_actions() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    prepared_run("devnet_nft_trade.mjs");
}

/// GetGems auctions on the devnet (tests/clients/devnet_nft_auction.mjs):
/// two auctions of mainnet's code at genesis, their storage held to the
/// contract's own getter first. Two bids are `auction_bid`s, the refund of
/// the first is `auction_outbid`, the seller's stop is
/// `nft_finish_auction` and her cancel of the other `nft_cancel_auction`,
/// each held to the getter, the items' owners and the refund on chain.
#[test]
fn getgems_auctions_are_actions() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    prepared_run("devnet_nft_auction.mjs");
}

/// A GetGems listing on the devnet (tests/clients/devnet_nft_listing.mjs):
/// the seller's NFT transfer to GetGems' sale deployer (its shipped code),
/// which deploys a version 4 sale (mainnet's code) and hands it the NFT, is
/// `nft_put_on_sale` with the seller, the deployer, the sale and its price
/// and fees as the sale's own getter gives them; the item shows on sale.
/// The same through an auction (mainnet's code) is `nft_put_on_auction`
/// with the auction's bids and fee terms.
#[test]
fn getgems_listings_are_put_on_sale_and_auction() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    prepared_run("devnet_nft_listing.mjs");
}

/// A Telemint auction on the devnet (tests/clients/devnet_telemint.mjs):
/// Telegram's Telemint collection at genesis with a deploy key made by the
/// script; a signed deploy with the first bid makes the item, whose v3
/// `/nft/sales` row (type `telemint`) follows its auction; a higher bid is
/// `auction_bid` and the refund `auction_outbid`; the end is a Fragment
/// purchase at the winning bid with its royalty and payout; the new
/// owner's new auction and its cancel are `teleitem_start_auction` and
/// `teleitem_cancel_auction`.
#[test]
fn telemint_auctions_are_sales_and_actions() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    prepared_run("devnet_telemint.mjs");
}

/// Nominator pool staking on the devnet (tests/clients/devnet_staking.mjs):
/// a pool of mainnet's nominator pool code at genesis, idle; a basechain
/// wallet's "d" and "w" show as a `stake_deposit` and a `stake_withdrawal`
/// (provider `nominator`, the payout the pool sent), while the pool's own
/// getter follows; a kept request paid by `process_withdraw_requests` (op
/// 2) is a `stake_withdrawal` of its nominator (the caller's change is
/// not); a masterchain wallet's deposit, which the pool refuses, shows as a
/// failed `stake_deposit`.
#[test]
fn nominator_pool_deposits_and_withdrawals_are_actions() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let fixtures = common::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (dev, _) = dev_prepared("devnet_staking.mjs", &fixtures, dir.path());
    let out = node("devnet_staking.mjs", &["run", &dev.url()]);
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// Wallet v4 subscription plugins on the devnet
/// (tests/clients/devnet_subscriptions.mjs): a wallet with mainnet's
/// simple subscription plugin installed at genesis; a collection asked of
/// the due plugin shows as `subscribe` (the requested amount, the
/// beneficiary paid), the owner's removal of the plugin as `unsubscribe`.
#[test]
fn subscription_payments_and_removal_are_actions() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let fixtures = common::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (dev, prepared) = dev_prepared("devnet_subscriptions.mjs", &fixtures, dir.path());
    let out = node(
        "devnet_subscriptions.mjs",
        &[
            "run",
            &dev.url(),
            &prepared["mnemonic"].to_string(),
            prepared["plugin"].as_str().unwrap(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// Validator elections on the devnet (tests/clients/devnet_elections.mjs):
/// mainnet's elector code at the elector address with open elections and
/// a credit for a masterchain wallet; recovering the credit shows as
/// `election_recover` with what the elector sent (its getter then holds
/// nothing), a badly signed stake as a failed `election_deposit`, and a
/// properly signed one as a successful deposit the elector counts.
#[test]
fn election_deposits_and_recoveries_are_actions() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let fixtures = common::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (dev, prepared) = dev_prepared("devnet_elections.mjs", &fixtures, dir.path());
    let out = node(
        "devnet_elections.mjs",
        &[
            "run",
            &dev.url(),
            &prepared["mnemonic"].to_string(),
            &prepared["elect_at"].to_string(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
}

/// Highload wallets (v1 r2, v2 r2; code from the fixtures) held at genesis
/// show in v2 `getExtendedAddressInformation` as tonlib reports them, with
/// the wallet id and seqno their data cells hold by the contracts' layout.
#[test]
fn highload_wallets_in_extended_address_information() {
    use tycho_types::boc::Boc;
    use tycho_types::cell::CellBuilder;
    let code = |name: &str| {
        let boc = tonindex::chain::files::read_boc_file(
            &common::fixtures().join(format!("contracts/wallets/{name}.code")),
        )
        .unwrap();
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, boc)
    };
    // v1: seqno:uint32 wallet_id:uint32 public_key:bits256
    let mut b = CellBuilder::new();
    b.store_u32(5).unwrap();
    b.store_u32(698_983_191).unwrap();
    b.store_u256(&tycho_types::cell::HashBytes([7; 32]))
        .unwrap();
    let v1 = Boc::encode_base64(b.build().unwrap());
    // v2: wallet_id:uint32 last_cleaned:uint64 public_key:bits256 old_queries:(HashmapE 64)
    let mut b = CellBuilder::new();
    b.store_u32(42).unwrap();
    b.store_u64(0).unwrap();
    b.store_u256(&tycho_types::cell::HashBytes([9; 32]))
        .unwrap();
    b.store_bit(false).unwrap();
    let v2 = Boc::encode_base64(b.build().unwrap());
    let a1 = format!("0:{}", "a1".repeat(32));
    let a2 = format!("0:{}", "a2".repeat(32));
    let spec1 = format!("{a1}:1000000000:{}:{v1}", code("highload_v1r2"));
    let spec2 = format!("{a2}:1000000000:{}:{v2}", code("highload_v2r2"));
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &["--account", &spec1, "--account", &spec2],
    );
    let get = |a: &str| {
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v2/getExtendedAddressInformation?address={a}"),
            "",
        );
        assert_eq!(status, 200, "{v}");
        v["result"].clone()
    };
    let r1 = get(&a1);
    assert_eq!(
        r1["account_state"],
        serde_json::json!({"@type": "wallet.highload.v1.accountState", "wallet_id": 698_983_191, "seqno": 5}),
        "{r1}"
    );
    assert_eq!(r1["revision"], 2);
    let r2 = get(&a2);
    assert_eq!(
        r2["account_state"],
        serde_json::json!({"@type": "wallet.highload.v2.accountState", "wallet_id": 42}),
        "{r2}"
    );
    assert_eq!(r2["revision"], 2);
    dev.stop(false);
}

/// GetGems sales on the devnet (F5): genesis holds tongo's real mainnet
/// version 4 fixed-price sale and auction (code and data from its corpus)
/// and standalone NFT items (token-contract's item code) at the addresses
/// those contracts name: the sale's item is owned by the sale contract,
/// the auction's by its seller directly. `/nft/sales` gives both as their
/// contracts describe themselves; `/nft/items` shows the sale's item
/// `on_sale` with `sale_contract_address` and `real_owner` (the seller),
/// and the other item not on sale; `include_on_sale` counts the listed
/// item for its seller, and only then.
#[test]
fn nft_sales_show_on_items_and_by_address() {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let cases: Vec<Value> = serde_json::from_slice(
        &std::fs::read(common::fixtures().join("contracts/tongo-getmethod-cases.json")).unwrap(),
    )
    .unwrap();
    let case = |name: &str| cases.iter().find(|c| c["name"] == name).unwrap().clone();
    let hex_b64 = |v: &Value| b64.encode(hex::decode(v.as_str().unwrap()).unwrap());
    let (sale, auction) = (case("nft_sale v4"), case("GetSaleData for getgems auction"));
    let raw = |s: &str| s.to_lowercase();
    let sale_addr = "0:1111111111111111111111111111111111111111111111111111111111111111";
    let auction_addr = raw(auction["account"].as_str().unwrap());
    // What the contracts' data names (tongo's decoding of the same data).
    let sale_nft = "0:2bec4a9921bec898153bc77079e33ba4e5a80b888d687071004ea8f41fdb8702";
    let seller = "0:fe0ee3565678799a4c93d85f00316521b4dd0268f78e80f79965667732b34802";
    let auction_nft = "0:49c0c5bac43d013f4715d78cdbeda382a360a98171f62699ade96815220eb15d";
    let auction_seller = "0:047efbb81020160d28464124271660d1565daad67fa6f984a4f4c116586f5968";
    for (literal, want) in [
        (&sale, sale_nft),
        (&sale, seller),
        (&auction, auction_nft),
        (&auction, auction_seller),
    ] {
        assert!(
            literal["want_go_literal"].as_str().unwrap().contains(want),
            "{want}"
        );
    }
    let item_code = token_contract_item_code();
    let accounts = [
        format!(
            "{sale_addr}:1000000000:{}:{}",
            hex_b64(&sale["code_hex"]),
            hex_b64(&sale["data_hex"])
        ),
        format!(
            "{auction_addr}:1000000000:{}:{}",
            hex_b64(&auction["code_hex"]),
            hex_b64(&auction["data_hex"])
        ),
        format!("{sale_nft}:1000000000:{item_code}:{}", item_data(sale_addr)),
        format!(
            "{auction_nft}:1000000000:{item_code}:{}",
            item_data(auction_seller)
        ),
    ];
    let mut args = Vec::new();
    for a in &accounts {
        args.push("--account");
        args.push(a.as_str());
    }
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &args);
    let upper = |s: &str| {
        let (wc, h) = s.split_once(':').unwrap();
        format!("{wc}:{}", h.to_uppercase())
    };

    let (status, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/nft/sales?address={sale_addr}&address={auction_addr}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    let sales = v["nft_sales"].as_array().unwrap();
    assert_eq!(sales.len(), 2, "{v}");
    let by_type = |t: &str| sales.iter().find(|s| s["type"] == t).unwrap();
    let fixed = by_type("getgems_sale");
    assert_eq!(fixed["address"], upper(sale_addr));
    assert_eq!(fixed["nft_address"], upper(sale_nft));
    assert_eq!(fixed["nft_owner_address"], upper(seller));
    assert_eq!(fixed["created_at"], 1730477278);
    assert_eq!(fixed["details"]["is_complete"], true);
    assert_eq!(fixed["details"]["full_price"], "0");
    assert_eq!(fixed["details"]["marketplace_fee"], "5000");
    assert_eq!(fixed["nft_item"]["on_sale"], true, "{fixed}");
    let auc = by_type("getgems_auction");
    assert_eq!(auc["nft_owner_address"], upper(auction_seller));
    assert_eq!(auc["details"]["min_bid"], "4400000000");
    assert_eq!(auc["details"]["mp_fee_factor"], 5);
    assert_eq!(auc["details"]["end_flag"], false);
    // addr_none (no bid yet) is left out.
    assert!(auc["details"].get("last_member").is_none(), "{auc}");
    assert_eq!(auc["nft_item"]["on_sale"], false, "{auc}");
    assert!(v["address_book"][upper(seller)].is_object(), "{v}");

    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/nft/items?address={sale_nft}&address={auction_nft}"),
        "",
    );
    let items = v["nft_items"].as_array().unwrap();
    let listed = items
        .iter()
        .find(|i| i["address"] == upper(sale_nft))
        .unwrap();
    assert_eq!(listed["on_sale"], true);
    assert_eq!(listed["owner_address"], upper(sale_addr));
    assert_eq!(listed["sale_contract_address"], upper(sale_addr));
    assert_eq!(listed["real_owner"], upper(seller));
    assert!(listed.get("auction_contract_address").is_none(), "{listed}");
    let kept = items
        .iter()
        .find(|i| i["address"] == upper(auction_nft))
        .unwrap();
    assert_eq!(kept["on_sale"], false);
    assert!(kept.get("real_owner").is_none(), "{kept}");

    let owned = |extra: &str| {
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v3/nft/items?owner_address={seller}{extra}"),
            "",
        );
        assert_eq!(status, 200, "{v}");
        v["nft_items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["address"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(owned("").is_empty());
    assert!(owned("&include_on_sale=false").is_empty());
    assert_eq!(owned("&include_on_sale=true"), vec![upper(sale_nft)]);
    let (status, v) = json(dev.port, "GET", "/api/v3/nft/sales", "");
    assert_eq!(status, 422, "{v}");
    assert_eq!(v["error"], "at least 1 address required");
    dev.stop(false);
}

/// token-contract's NFT item code (base64), as the node clients' module
/// holds it.
fn token_contract_item_code() -> String {
    let clients = std::fs::read_to_string(clients_dir().join("nft_codes.mjs")).unwrap();
    clients
        .lines()
        .find_map(|l| l.strip_prefix("export const ITEM_CODE = \""))
        .unwrap()
        .trim_end_matches("\";")
        .to_string()
}

/// token-contract's NFT item data (`index:uint64 collection owner
/// content:^Cell`, base64): item 1 of no collection, owned by `owner`.
fn item_data(owner: &str) -> String {
    use base64::Engine as _;
    use tycho_types::boc::Boc;
    use tycho_types::cell::{Cell, CellBuilder, CellFamily as _, HashBytes, Store as _};
    use tycho_types::models::{IntAddr, StdAddr};
    let (wc, h) = owner.split_once(':').unwrap();
    let owner = StdAddr::new(
        wc.parse().unwrap(),
        HashBytes(hex::decode(h).unwrap().try_into().unwrap()),
    );
    let mut content = CellBuilder::new();
    content.store_u8(1).unwrap();
    content.store_raw(b"item.json", 72).unwrap();
    let mut b = CellBuilder::new();
    b.store_u64(1).unwrap();
    b.store_small_uint(0, 2).unwrap(); // no collection
    IntAddr::Std(owner)
        .store_into(&mut b, Cell::empty_context())
        .unwrap();
    b.store_reference(content.build().unwrap()).unwrap();
    base64::engine::general_purpose::STANDARD.encode(Boc::encode(b.build().unwrap()))
}
