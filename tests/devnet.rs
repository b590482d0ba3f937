//! `tonindex dev` as a process, driven by real clients and checked by
//! implementations that are not ours: @ton/ton, tonweb and Python's tonutils
//! send, deploy and read through the APIs; the official emulator re-runs
//! every transaction; pytoniq-core parses the blocks the devnet exported;
//! `tonindex import` of those files builds the same tables; a restart (SIGTERM
//! and kill -9) continues the chain; bad input is refused and changes nothing.
//! Needs node (the npm packages are installed into tests/clients on first
//! use) and python3 with pytoniq-core and tonutils (installed by `.ci/run`).

mod common;
/// Replicas restored from a snapshot behind HAProxy.
#[path = "devnet/replicas.rs"]
mod replicas;
/// `--shards` and `--split-merge-every`: a split basechain, end to end.
#[path = "devnet/shards.rs"]
mod shards;
/// `tonindex snapshot create` and `restore` of a running follower.
#[path = "devnet/snapshots.rs"]
mod snapshots;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tonindex_model::BlockId;
use tonindex_storage::tables::{Blocks, ShardKey, ShardStates};
use tonindex_storage::{Db, DbOptions};

const FULL_SHARD: u64 = 0x8000_0000_0000_0000;

fn clients_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

/// A plain HTTP/1.1 request; returns (status, body).
fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // A server refusing a big body answers before reading it all: the
    // write may break off, the answer is still there to read.
    let _ = write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    let status = buf.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = buf.split_once("\r\n\r\n").unwrap().1.to_string();
    // Bodies may come chunked; the JSON is the part between the braces.
    let json = match (body.find(['{', '[']), body.rfind(['}', ']'])) {
        (Some(a), Some(b)) if a <= b => body[a..=b].to_string(),
        _ => body,
    };
    (status, json)
}

fn json(port: u16, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, text) = http(port, method, path, body);
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
    (status, v)
}

/// A running `tonindex dev`.
struct Dev {
    child: Child,
    port: u16,
}

impl Dev {
    fn start(db: &Path, extra: &[&str]) -> Dev {
        Self::start_env(db, extra, &[])
    }

    /// [`Dev::start`] with settings in `TONINDEX_*` variables.
    fn start_env(db: &Path, extra: &[&str], env: &[(&str, &str)]) -> Dev {
        let port = common::free_port();
        let child = Command::new(common::tonindex_bin())
            .args(["dev", "--db"])
            .arg(db)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let dev = Dev { child, port };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return dev;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("tonindex dev did not start listening");
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn mc_seqno(&self) -> u64 {
        let (_, v) = json(self.port, "GET", "/api/v2/getMasterchainInfo", "");
        v["result"]["last"]["seqno"].as_u64().unwrap()
    }

    /// Stops it with SIGTERM (or SIGKILL) and waits for the exit.
    fn stop(mut self, kill: bool) {
        let sig = if kill { libc::SIGKILL } else { libc::SIGTERM };
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("tonindex dev did not stop");
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn node(script: &str, args: &[&str]) -> Value {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .current_dir(clients_dir())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap()
}

/// A devnet whose genesis accounts are what `script prepare FIXTURES`
/// prints (its `accounts`, each an `--account` spec), with the rest of
/// what it printed.
fn dev_prepared(script: &str, fixtures: &Path, dir: &Path) -> (Dev, Value) {
    let prepared = node(script, &["prepare", fixtures.to_str().unwrap()]);
    let mut args = Vec::new();
    for spec in prepared["accounts"].as_array().unwrap() {
        args.push("--account");
        args.push(spec.as_str().unwrap());
    }
    let dev = Dev::start(&dir.join("db"), &args);
    (dev, prepared)
}

/// A client script's two steps on a fresh devnet: `prepare FIXTURES`
/// gives the genesis accounts, `run BASE PREPARED_JSON` the checks, which
/// must end in `{"ok": true, …}` (returned).
fn prepared_run(script: &str) -> Value {
    let fixtures = common::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (dev, prepared) = dev_prepared(script, &fixtures, dir.path());
    let out = node(script, &["run", &dev.url(), &prepared.to_string()]);
    assert_eq!(out["ok"], true, "{out}");
    dev.stop(false);
    out
}

fn fund(dev: &Dev, address: &str, amount: u64) -> Value {
    let body = serde_json::json!({"address": address, "amount": amount.to_string()}).to_string();
    let (status, v) = json(dev.port, "POST", "/dev/fund", &body);
    assert_eq!(status, 200, "{v}");
    v
}

/// Runs `tests/python/<script>` with `args` (the Python packages come from
/// .ci/run) and returns the JSON of its last line of output; a failure
/// shows what it printed.
fn python<S: AsRef<std::ffi::OsStr>>(script: &str, args: &[S]) -> Value {
    let out = Command::new("python3")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/python")
                .join(script),
        )
        .args(args)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed (are its packages installed? .ci/run installs them):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim().lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{script}: {e}: {stdout}"))
}

/// `tonindex stats`' per-table row counts and digests of a database.
fn table_digests(db: &Path) -> Value {
    let out = Command::new(common::tonindex_bin())
        .args(["stats", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["tables"].clone()
}

/// A devnet in `dir/db` that also serves the lite API; returns it with the
/// global config it wrote (`dir/global.json`) and the lite server's port.
fn dev_with_lite_server(dir: &Path) -> (Dev, PathBuf, u16) {
    let port = common::free_port();
    let config = dir.join("global.json");
    let dev = Dev::start(
        &dir.join("db"),
        &[
            "--liteserver-listen",
            &format!("127.0.0.1:{port}"),
            "--liteserver-config",
            config.to_str().unwrap(),
        ],
    );
    common::wait_listening(port);
    (dev, config, port)
}

/// `tonindex run` on database `db` following the global config `config`
/// (with `extra` flags), serving on a free port: the process and the port,
/// once it listens.
fn start_run(db: &Path, config: &Path, extra: &[&str]) -> (Child, u16) {
    let http = common::free_port();
    let child = run_on(db, config, http, extra, &[], Stdio::piped());
    (child, http)
}

/// `tonindex run` on `db` following `config`, serving on `port`, with
/// `extra` flags and `env` variables, once it listens.
fn run_on(
    db: &Path,
    config: &Path,
    port: u16,
    extra: &[&str],
    env: &[(&str, &str)],
    stderr: Stdio,
) -> Child {
    let child = Command::new(common::tonindex_bin())
        .arg("run")
        .args(extra)
        .arg("--db")
        .arg(db)
        .arg("--global-config")
        .arg(config)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    common::wait_listening(port);
    child
}

/// Stops a process with SIGTERM and waits for it.
fn sigterm(mut child: Child) -> std::process::ExitStatus {
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    child.wait().unwrap()
}

/// `tonindex sync` (into `dir/other`) with a copy of `config` whose
/// `validator.<block>.<field>` hash is zeros: a chain the servers do not
/// serve.
fn sync_with_forged(dir: &Path, config: &Path, block: &str, field: &str) -> std::process::Output {
    let mut other: Value = serde_json::from_slice(&std::fs::read(config).unwrap()).unwrap();
    other["validator"][block][field] =
        serde_json::json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    let other_config = dir.join("other.json");
    std::fs::write(&other_config, other.to_string()).unwrap();
    Command::new(common::tonindex_bin())
        .args(["sync", "--liteserver-timeout-ms", "2000", "--db"])
        .arg(dir.join("other"))
        .arg("--global-config")
        .arg(&other_config)
        .output()
        .unwrap()
}

/// Waits (60 s at most) until the node `run` serving on `port` has indexed
/// masterchain block `seqno`; a node that stops meanwhile fails the test
/// with what it said.
fn wait_for_seqno(run: &mut Child, port: u16, seqno: u64) {
    let start = Instant::now();
    loop {
        let (_, v) = json(port, "GET", "/api/v2/getMasterchainInfo", "");
        if v["result"]["last"]["seqno"].as_u64() >= Some(seqno) {
            return;
        }
        if let Ok(Some(status)) = run.try_wait() {
            let mut err = String::new();
            if let Some(e) = run.stderr.as_mut() {
                e.read_to_string(&mut err).unwrap();
            }
            panic!("tonindex run stopped ({status}): {err}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "masterchain block {seqno} not reached: {v}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

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

/// Jettons on the devnet, driven by @ton/ton (tests/clients/devnet_jettons.mjs):
/// a TEP-74 minter deployed, minting to two wallets, a transfer and a burn
/// show in `/jetton/masters` and `/jetton/wallets` exactly as the steps
/// imply, and a fake wallet claiming the real minter never does.
#[test]
fn jettons_follow_every_step_and_fakes_are_left_out() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let fixtures = common::fixtures();
    let out = node(
        "devnet_jettons.mjs",
        &[&dev.url(), fixtures.to_str().unwrap()],
    );
    assert_eq!(out["ok"], true, "{out}");
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
        Some(wallet),
        "{transfer}"
    );
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
/// collection address; `/dns/records`, the address book's `domain` and the
/// item's content show it, and follow the owner's change of its `wallet`
/// record; an expired item's release is a `dns_release` action, and a
/// higher bid on it an `auction_bid` with the notice refunding the first
/// bidder an `auction_outbid`; the winner's first call after an ended
/// auction, a `dns_purchase`.
#[test]
fn dns_records_follow_the_items() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
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

#[test]
fn ton_clients_send_and_blocks_parse_independently() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let exported = dir.path().join("blocks");
    let dev = Dev::start(&db, &["--export-blocks", exported.to_str().unwrap()]);

    // @ton/ton: fund, deploy (v4r2 and v5r1), estimate, send, read, bounce.
    for version in ["v4", "v5"] {
        let out = node("devnet_tonton.mjs", &[&dev.url(), version]);
        assert_eq!(out["ok"], true, "{out}");
    }
    // The genesis wallets are the ones @ton/ton derives from the mnemonic.
    let (_, accounts) = json(dev.port, "GET", "/dev/accounts", "");
    let accounts = accounts.as_array().unwrap();
    assert_eq!(accounts.len(), 10);
    assert_eq!(accounts[0]["version"], "wallet_v4r2");
    assert_eq!(accounts[1]["version"], "wallet_v5r1");
    dev.stop(false);

    // pytoniq-core parses every exported block.
    let parsed = python("devnet_blocks.py", &[&exported]);
    let blocks = parsed["blocks"].as_array().unwrap();
    let zerostates = &parsed["zerostates"];

    let index = Db::open(&db, &DbOptions::default()).unwrap();
    let hex32 = common::hex32;
    // Each chain's blocks, by seqno.
    let mut by_chain: HashMap<i64, Vec<&Value>> = HashMap::new();
    for b in blocks {
        by_chain
            .entry(b["workchain"].as_i64().unwrap())
            .or_default()
            .push(b);
    }
    let mut transactions = 0;
    for (workchain, mut chain) in by_chain.clone() {
        chain.sort_by_key(|b| b["seqno"].as_u64().unwrap());
        let zs = if workchain == -1 {
            "zerostate_masterchain.boc"
        } else {
            "zerostate_basechain.boc"
        };
        let mut prev_state = zerostates[zs].clone();
        for (i, b) in chain.iter().enumerate() {
            let seqno = b["seqno"].as_u64().unwrap() as u32;
            assert_eq!(seqno as usize, i + 1, "no gap in workchain {workchain}");
            assert_eq!(b["global_id"], -239);
            // The Merkle update goes from the previous state to the next.
            assert_eq!(b["old_hash"], prev_state, "{b}");
            prev_state = b["new_hash"].clone();
            let id = BlockId {
                workchain: workchain as i32,
                shard: FULL_SHARD,
                seqno,
            };
            let rec = index
                .get::<Blocks>(&id)
                .unwrap()
                .expect("the block is indexed");
            assert_eq!(rec.id.root_hash, hex32(&b["root_hash"]));
            assert_eq!(rec.id.file_hash, hex32(&b["file_hash"]));
            assert_eq!(rec.state_root_hash, hex32(&b["new_hash"]));
            assert_eq!(rec.key_block, b["key_block"].as_bool().unwrap());
            // Every transaction, as pytoniq-core hashes it, is indexed in it.
            let reader = index.reader();
            let (ours, theirs) = common::block_transactions(&reader, &id, b);
            assert_eq!(ours, theirs, "transactions of {id:?}");
            transactions += theirs.len();
            // The masterchain block's shard hashes point at our basechain block.
            if workchain == -1 {
                let shards = b["shards"].as_array().unwrap();
                assert_eq!(shards.len(), 1);
                let top = by_chain[&0]
                    .iter()
                    .find(|s| s["seqno"] == shards[0]["seqno"])
                    .expect("the listed shard block was produced");
                assert_eq!(shards[0]["root_hash"], top["root_hash"]);
                assert_eq!(shards[0]["file_hash"], top["file_hash"]);
            }
        }
        // The last update ends at the state the index holds.
        let held = index
            .get::<ShardStates>(&ShardKey {
                workchain: workchain as i32,
                shard: FULL_SHARD,
            })
            .unwrap()
            .unwrap();
        assert_eq!(prev_state.as_str().unwrap(), hex::encode(held.root_hash));
    }
    // Funds, deploys, transfers and bounces of two wallet runs.
    assert!(transactions >= 12, "{transactions} transactions");
    drop(index);

    // The official emulator re-runs every transaction to the same hash and
    // the same account state.
    let (replayed, masterchain) = replay_in_the_emulator(&exported);
    assert!(
        replayed >= transactions,
        "{replayed} of {transactions} replayed"
    );
    assert!(masterchain >= 2, "{masterchain} masterchain transactions");

    // `tonindex import` of the exported files builds the same tables.
    let imported = dir.path().join("imported");
    let out = Command::new(common::tonindex_bin())
        .args(["import", "--db"])
        .arg(&imported)
        .arg(&exported)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (a, b) = (table_digests(&db), table_digests(&imported));
    assert!(a.as_array().is_some_and(|t| t.len() > 10), "{a}");
    assert_eq!(
        a, b,
        "tables of the devnet and of its exported blocks imported"
    );
}

/// Re-runs every transaction of the exported blocks on @ton/sandbox's
/// emulator, from the account states the blocks' Merkle updates give:
/// same transaction hashes in the same order, and the same account after
/// each account's last transaction of a block. Returns the transactions
/// replayed and how many were in the masterchain.
fn replay_in_the_emulator(exported: &Path) -> (usize, usize) {
    use tonindex::chain::devnet::replay::emulator_input;
    use tycho_types::boc::Boc;
    use tycho_types::models::Transaction;

    let input = emulator_input(exported, 0).unwrap();
    let emulator_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/emulator");
    common::npm_install(&emulator_dir, &["@ton/sandbox"]);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), input.json.to_string()).unwrap();
    let out = Command::new("node")
        .arg(emulator_dir.join("devnet_replay.mjs"))
        .arg(file.path())
        .output()
        .expect("node runs the emulator");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got.len(), input.expected.len(), "{got:?}");
    for (g, want) in got.iter().zip(&input.expected) {
        let tx_hash = hex::encode(want.tx_hash.0);
        if g["tx_hash"].as_str() != Some(tx_hash.as_str()) {
            let theirs: Transaction = Boc::decode_base64(g["tx"].as_str().unwrap())
                .unwrap()
                .parse()
                .unwrap();
            panic!(
                "transaction {tx_hash} differs: the emulator's is {theirs:?} (info {:?})",
                theirs.load_info()
            );
        }
        if let Some(account_hash) = want.account_hash {
            assert_eq!(
                g["account_hash"].as_str(),
                Some(hex::encode(account_hash.0).as_str()),
                "{g}"
            );
        }
    }
    let masterchain = input.expected.iter().filter(|e| e.masterchain).count();
    (input.expected.len(), masterchain)
}

#[test]
fn masterchain_blocks_are_signed_by_the_configured_validator() {
    use base64::Engine as _;
    use tycho_types::boc::Boc;
    use tycho_types::models::ValidatorSet;

    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let (_, v) = json(dev.port, "POST", "/dev/block", "");
    let seqno = v["mc_seqno"].as_u64().unwrap();
    // The validator set the config (param 34) names.
    let (_, param) = json(dev.port, "GET", "/api/v2/getConfigParam?config_id=34", "");
    let boc = param["result"]["config"]["bytes"].as_str().unwrap();
    let set: ValidatorSet = Boc::decode_base64(boc).unwrap().parse().unwrap();
    assert_eq!(set.list.len(), 1);
    let key = set.list[0].public_key.0;
    let b64 = |s: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(s.as_str().unwrap())
            .unwrap()
    };
    for seqno in 1..=seqno {
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v2/getMasterchainBlockSignatures?seqno={seqno}"),
            "",
        );
        assert_eq!(status, 200, "{v}");
        let r = &v["result"];
        assert_eq!(r["@type"], "blocks.blockSignatures");
        assert_eq!(r["id"]["seqno"].as_u64(), Some(seqno));
        let sigs = r["signatures"].as_array().unwrap();
        assert_eq!(sigs.len(), 1);
        // node_id_short = sha256(pub.ed25519#4813b4c6 key), the signature
        // over ton.blockId#c50b6e70 root_hash file_hash (the TL id written
        // little-endian, as pytoniq-core signs and checks it).
        let mut tl = 0x4813_b4c6u32.to_le_bytes().to_vec();
        tl.extend_from_slice(&key);
        use sha2::Digest as _;
        assert_eq!(
            b64(&sigs[0]["node_id_short"]),
            sha2::Sha256::digest(&tl).to_vec()
        );
        let mut signed = 0xc50b_6e70u32.to_le_bytes().to_vec();
        signed.extend(b64(&r["id"]["root_hash"]));
        signed.extend(b64(&r["id"]["file_hash"]));
        let signature: [u8; 64] = b64(&sigs[0]["signature"]).try_into().unwrap();
        let public = tycho_crypto::ed25519::PublicKey::from_bytes(key).unwrap();
        assert!(public.verify_raw(&signed, &signature), "block {seqno}");
    }
    // The outbound queues of both chains' newest blocks.
    let (status, v) = json(dev.port, "GET", "/api/v2/getOutMsgQueueSize", "");
    assert_eq!(status, 200, "{v}");
    let shards = v["result"]["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2);
    assert!(shards.iter().all(|s| s["size"] == 0), "{v}");
    // getShardBlockProof, checked by pytoniq-core: basechain block 1 proved
    // from the newest masterchain block (2) back to the one committing it (1).
    let checked = python("devnet_proofs.py", &[dev.url(), "1".into()]);
    assert_eq!(checked["from"].as_u64(), Some(seqno));
    // The state proof hides the state after the newest block.
    let (_, info) = json(dev.port, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(
        hex::encode(b64(&info["result"]["state_root_hash"])),
        checked["state_root"].as_str().unwrap()
    );
    // A from_seqno older than the committing block is refused.
    let (status, _) = json(
        dev.port,
        "GET",
        "/api/v2/getShardBlockProof?workchain=0&shard=-9223372036854775808&seqno=2&from_seqno=1",
        "",
    );
    assert_eq!(status, 422);
}

#[test]
fn python_tonutils_sends_and_reads_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let v = python("devnet_tonutils.py", &[dev.url()]);
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn tonweb_sends_and_reads_end_to_end() {
    common::npm_install(&clients_dir(), &["tonweb"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    let out = node("devnet_tonweb.mjs", &[&dev.url()]);
    assert_eq!(out["ok"], true, "{out}");
}

#[test]
fn with_a_block_interval_accepted_messages_wait_and_survive_a_crash() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // Automine builds the messages (the script's own first send goes through).
    let dev = Dev::start(&db, &[]);
    let msgs = node("devnet_refusals.mjs", &[&dev.url()]);
    dev.stop(false);

    // A block a minute: the accepted message waits for it.
    let slow = ["--block-interval", "60000"];
    let dev = Dev::start(&db, &slow);
    let before = dev.mc_seqno();
    let body = serde_json::json!({ "boc": msgs["good"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v2/sendBocReturnHash", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["result"]["hash"].as_str().unwrap().to_string();
    assert_eq!(
        dev.mc_seqno(),
        before,
        "nothing produced before the interval"
    );
    // A refused message is not queued.
    let bad = serde_json::json!({ "boc": msgs["wrong_signature"] }).to_string();
    assert_eq!(json(dev.port, "POST", "/api/v2/sendBoc", &bad).0, 500);
    dev.stop(true);

    // After kill -9 the accepted message is still waiting; the next block has it.
    let dev = Dev::start(&db, &slow);
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200);
    assert_eq!(v["mc_seqno"].as_u64(), Some(before + 1));
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/transactionsByMessage?msg_hash={q}&direction=in"),
        "",
    );
    assert_eq!(v["transactions"].as_array().map(Vec::len), Some(1), "{v}");
    let (_, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(
        v["mc_seqno"].as_u64(),
        Some(before + 2),
        "an empty block pair"
    );

    // The next transfer, sent while blocks wait: emulated at once, shown as
    // pending (traces, actions, transactions) until its block, then as a
    // real trace and no longer pending.
    let body = serde_json::json!({ "boc": msgs["next"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap().to_string();
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (status, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    let traces = v["traces"].as_array().expect("a pending trace");
    assert_eq!(traces.len(), 1, "{v}");
    let t = &traces[0];
    assert_eq!(t["external_hash"], hash.as_str());
    assert_eq!(
        t["trace_info"]["transactions"], 2,
        "wallet and receiver: {t}"
    );
    let order = t["transactions_order"].as_array().unwrap();
    for h in order {
        let tx = &t["transactions"][h.as_str().unwrap()];
        assert_eq!(tx["emulated"], true);
        assert_eq!(tx["finality"], "pending");
        assert!(tx["block_ref"].is_null());
    }
    let transfer = t["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "ton_transfer")
        .unwrap_or_else(|| panic!("a pending ton_transfer: {t}"));
    assert_eq!(transfer["details"]["value"], "100000000");
    assert_eq!(transfer["finality"], "pending");
    let wallet = t["transactions"][order[0].as_str().unwrap()]["account"]
        .as_str()
        .unwrap()
        .to_string();
    let wq: String = form_urlencoded::byte_serialize(wallet.as_bytes()).collect();
    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingActions?account={wq}"),
        "",
    );
    assert!(
        v["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["action_id"] == transfer["action_id"]),
        "{v}"
    );
    let (status, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingTransactions?account={wq}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["transactions"].as_array().unwrap().len(),
        1,
        "the wallet's: {v}"
    );
    assert_eq!(json(dev.port, "GET", "/api/v3/pendingTraces", "").0, 422);

    let (_, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(v["mc_seqno"].as_u64(), Some(before + 3));
    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert!(v["traces"].is_null(), "no longer pending: {v}");
    let (status, _) = json(
        dev.port,
        "GET",
        &format!("/api/v3/pendingTransactions?account={wq}"),
        "",
    );
    assert_eq!(status, 404);
    let (_, v) = json(
        dev.port,
        "GET",
        &format!("/api/v3/traces?msg_hash={q}&include_actions=true"),
        "",
    );
    let real = &v["traces"][0];
    assert_eq!(real["trace_info"]["trace_state"], "complete", "{v}");
    assert_eq!(real["trace_info"]["transactions"], 2);
    let real_transfer = real["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "ton_transfer")
        .unwrap();
    // The emulation saw what the chain did (the message's lt and time, and
    // so its hash and the action's id, are the block's own).
    assert_eq!(real_transfer["details"], transfer["details"]);
    assert_eq!(real_transfer["finality"], "finalized");
}

#[test]
fn genesis_accounts_from_flags_and_hashes_of_sent_messages() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    use tycho_types::boc::Boc;
    use tycho_types::cell::{CellBuilder, HashBytes};
    let dir = tempfile::tempdir().unwrap();
    // Three more genesis accounts from --account: uninit with coins (one of
    // them in the masterchain), and an active one with wallet v4r2's code and
    // data of seqno 41 at an address of our choosing.
    let code = tonindex::chain::devnet::wallets::Version::V4R2.code();
    let mut data = CellBuilder::new();
    data.store_u32(41).unwrap();
    data.store_u32(698_983_191).unwrap();
    data.store_u256(&HashBytes([9; 32])).unwrap();
    data.store_bit_zero().unwrap();
    let data = data.build().unwrap();
    let active = format!(
        "0:9999999999999999999999999999999999999999999999999999999999999999:777:{}:{}",
        Boc::encode_base64(code.as_ref()),
        Boc::encode_base64(data.as_ref())
    );
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--wallets",
            "4",
            "--account",
            "0:7777777777777777777777777777777777777777777777777777777777777777:123456789",
            "--account",
            "-1:8888888888888888888888888888888888888888888888888888888888888888:5",
            "--account",
            &active,
        ],
    );
    let (status, v) = json(
        dev.port,
        "GET",
        "/api/v2/runGetMethod?address=0:9999999999999999999999999999999999999999999999999999999999999999&method=seqno&stack=[]",
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["stack"][0][1], "0x29", "{v}");
    let (_, accounts) = json(dev.port, "GET", "/dev/accounts", "");
    assert_eq!(accounts.as_array().unwrap().len(), 4);
    for (address, balance, state) in [
        (
            "0:7777777777777777777777777777777777777777777777777777777777777777",
            "123456789",
            "uninitialized",
        ),
        (
            "-1:8888888888888888888888888888888888888888888888888888888888888888",
            "5",
            "uninitialized",
        ),
    ] {
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v2/getAddressInformation?address={address}"),
            "",
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["result"]["balance"], balance);
        assert_eq!(v["result"]["state"], state);
    }
    // sendBocReturnHash and v3 /message report the message's hash and its
    // TEP-467 normalized hash, as indexed.
    let msgs = node("devnet_refusals.mjs", &[&dev.url()]);
    let body = serde_json::json!({ "boc": msgs["good"] }).to_string();
    let (status, v) = json(dev.port, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap();
    let norm = v["message_hash_norm"].as_str().unwrap();
    let q = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let (_, m) = json(
        dev.port,
        "GET",
        &format!("/api/v3/messages?msg_hash={}", q(hash)),
        "",
    );
    let m = &m["messages"][0];
    assert_eq!(m["hash"], hash);
    assert_eq!(m["hash_norm"].as_str().unwrap_or(hash), norm, "{m}");
}

#[test]
fn a_restarted_devnet_continues_its_chain() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let target = "0:2222222222222222222222222222222222222222222222222222222222222222";

    let dev = Dev::start(&db, &[]);
    let first = fund(&dev, target, 1_000_000_000);
    let seqno = dev.mc_seqno();
    assert_eq!(first["mc_seqno"].as_u64(), Some(seqno));
    dev.stop(false);

    // SIGTERM: the chain continues where it stopped.
    let dev = Dev::start(&db, &[]);
    assert_eq!(dev.mc_seqno(), seqno);
    let second = fund(&dev, target, 2_000_000_000);
    assert_eq!(second["mc_seqno"].as_u64(), Some(seqno + 1));
    dev.stop(true);

    // kill -9 right after an answered send: nothing answered is lost.
    let dev = Dev::start(&db, &[]);
    assert_eq!(dev.mc_seqno(), seqno + 1);
    for fund_answer in [&first, &second] {
        let hash = fund_answer["tx_hash"].as_str().unwrap();
        let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
        let (status, v) = json(
            dev.port,
            "GET",
            &format!("/api/v3/transactions?hash={q}"),
            "",
        );
        assert_eq!(status, 200);
        assert_eq!(v["transactions"].as_array().unwrap().len(), 1, "{v}");
    }
    let (_, info) = json(
        dev.port,
        "GET",
        &format!("/api/v2/getAddressBalance?address={target}"),
        "",
    );
    // Both transfers arrived; the uninit account may have paid a few
    // nanotons of storage fee in between.
    let balance: u64 = info["result"].as_str().unwrap().parse().unwrap();
    assert!(
        (2_999_990_000..=3_000_000_000).contains(&balance),
        "{balance}"
    );
    let (status, block) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200);
    assert_eq!(block["mc_seqno"].as_u64(), Some(seqno + 2));
    dev.stop(false);

    // No gap: every block of both chains is indexed.
    let index = Db::open(&db, &DbOptions::default()).unwrap();
    for workchain in [-1, 0] {
        for seqno in 1..=(seqno + 2) as u32 {
            let id = BlockId {
                workchain,
                shard: FULL_SHARD,
                seqno,
            };
            assert!(index.contains::<Blocks>(&id).unwrap(), "{id:?} is missing");
        }
    }
}

#[test]
fn bad_input_is_refused_and_the_chain_goes_on() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &[]);
    // Messages a client could send: the node script builds them.
    let msgs = node("devnet_refusals.mjs", &[&dev.url()]);
    let before = dev.mc_seqno();
    let send = |boc: &str| {
        let body = serde_json::json!({ "boc": boc }).to_string();
        json(dev.port, "POST", "/api/v2/sendBoc", &body)
    };
    // Refused by the account as a liteserver refuses: 500, nothing queued.
    for case in ["wrong_signature", "replayed_seqno"] {
        let (status, v) = send(msgs[case].as_str().unwrap());
        assert_eq!(status, 500, "{case}: {v}");
        assert_eq!(v["ok"], false);
        let error = v["error"].as_str().unwrap();
        assert!(
            error.contains("External message was not accepted"),
            "{case}: {error}"
        );
        let (status, v) = json(
            dev.port,
            "POST",
            "/api/v3/message",
            &serde_json::json!({ "boc": msgs[case] }).to_string(),
        );
        assert_eq!(status, 500, "{case} (v3): {v}");
        assert!(v["error"].as_str().unwrap().contains("not accepted"));
    }
    // Not a message to send: 422.
    for case in ["internal", "unknown_workchain"] {
        let (status, v) = send(msgs[case].as_str().unwrap());
        assert_eq!(status, 422, "{case}: {v}");
    }
    let (status, _) = send("not base64 at all!");
    assert_eq!(status, 422);
    let (status, v) = send("te6ccgEBAQEAAgAAAA==");
    assert_eq!(status, 422, "{v}");
    // A body over the limit, and /dev/ requests that make no sense.
    let huge = format!("{{\"boc\":\"{}\"}}", "A".repeat(2 << 20));
    let (status, _) = http(dev.port, "POST", "/api/v2/sendBoc", &huge);
    assert_eq!(status, 413);
    let (status, _) = json(dev.port, "GET", "/dev/nothing", "");
    assert_eq!(status, 404);
    for body in [
        r#"{"address":"0:22","amount":"1"}"#,
        r#"{"address":"0:2222222222222222222222222222222222222222222222222222222222222222","amount":"-5"}"#,
        r#"{"address":"0:2222222222222222222222222222222222222222222222222222222222222222"}"#,
        r#"not json"#,
    ] {
        let (status, v) = json(dev.port, "POST", "/dev/fund", body);
        assert_eq!(status, 422, "{body}: {v}");
        assert!(v["error"].is_string());
    }
    // Nothing was queued or produced; the chain still produces.
    assert_eq!(dev.mc_seqno(), before);
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200);
    assert_eq!(v["mc_seqno"].as_u64(), Some(before + 1));
    // The good message of the script still goes through afterwards.
    let (status, v) = send(msgs["good"].as_str().unwrap());
    assert_eq!(status, 200, "{v}");
    assert_eq!(dev.mc_seqno(), before + 2);
}

/// v3 transactions carry the account states around them where the node
/// holds them (F8 item 1c): the devnet holds the state after every block,
/// so a funded address shows nonexist → uninit, the next funding starts
/// from that state, and the faucet's state after its newest transaction
/// is what v2 and v3's account reads (other tables, other code) report.
#[test]
fn transactions_carry_the_account_states_the_node_holds() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Dev::start(&dir.path().join("db"), &["--wallets", "2"]);
    let addr = "0:5555555555555555555555555555555555555555555555555555555555555555";
    fund(&dev, addr, 3_000_000_000);
    fund(&dev, addr, 2_000_000_000);
    let get = |path: String| json(dev.port, "GET", &path, "").1;
    let v = get(format!(
        "/api/v3/transactions?account={addr}&sort=asc&limit=10"
    ));
    let txs = v["transactions"].as_array().unwrap();
    assert_eq!(txs.len(), 2, "{v}");
    let (first, second) = (&txs[0], &txs[1]);

    let before = &first["account_state_before"];
    assert_eq!(before["account_status"], "nonexist", "{before}");
    assert_eq!(before["balance"], "0");
    let after = &first["account_state_after"];
    assert_eq!(after["account_status"], "uninit", "{after}");
    assert!(after["code_hash"].is_null() && after["data_hash"].is_null());
    let credited: u64 = after["balance"].as_str().unwrap().parse().unwrap();
    assert!(
        (2_900_000_000..=3_000_000_000).contains(&credited),
        "{after}"
    );
    // One state, seen from both sides.
    assert_eq!(second["account_state_before"], *after);
    let balance = get(format!("/api/v2/getAddressBalance?address={addr}"));
    assert_eq!(second["account_state_after"]["balance"], balance["result"]);
    assert_eq!(second["account_state_after"]["account_status"], "uninit");

    // The faucet (the second funding's sender) is active: its state after
    // that transaction is its newest.
    let in_msg = second["in_msg"]["hash"].as_str().unwrap();
    let faucet_txs = get(format!(
        "/api/v3/transactionsByMessage?msg_hash={}&direction=out",
        common::api::q(in_msg)
    ));
    let faucet_tx = &faucet_txs["transactions"][0];
    let faucet = faucet_tx["account"].as_str().unwrap();
    let state = &faucet_tx["account_state_after"];
    assert_eq!(state["account_status"], "active", "{faucet_tx}");
    let held = get(format!("/api/v3/accountStates?address={faucet}"));
    let held = &held["accounts"][0];
    assert_eq!(state["balance"], held["balance"], "{held}");
    assert_eq!(state["code_hash"], held["code_hash"]);
    assert_eq!(state["data_hash"], held["data_hash"]);
    assert_eq!(state["hash"], held["account_state_hash"]);
    let info = get(format!("/api/v2/getAddressBalance?address={faucet}"));
    assert_eq!(state["balance"], info["result"]);
}

/// The lite API on the devnet (F7 item 6): `--liteserver-listen` serves it
/// and `--liteserver-config` writes a global config; pytoniq's LiteClient
/// (PyPI, installed by .ci/run) connects from that config and checks
/// what it is given at trust level 1 (block hashes, header proofs,
/// getAllShardsInfo's two proofs), reads masterchain info, a block, its
/// header and the shards (equal to v2's), and sends a wallet transfer that
/// executes; then runs get-methods through `runSmcMethod` (seqno, public
/// key, one with arguments, an unknown one: exit code 11), reads the
/// wallet's history (`getTransactions`, hash-chained), its block by lt
/// and a masterchain block by time (`lookupBlock`), its block's
/// transactions (`listBlockTransactions`, the proof checked with
/// pytoniq-core), the config (`getConfigAll`/`getConfigParams`, proofs
/// checked) and libraries — each equal to v2's answer; a replayed message
/// and an unanswered query are refused.
#[test]
fn pytoniq_lite_client_talks_to_the_devnets_lite_server() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, port) = dev_with_lite_server(dir.path());
    // The config as TON tools read it.
    let cfg: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let ls = &cfg["liteservers"][0];
    assert_eq!(ls["ip"], 0x7f00_0001);
    assert_eq!(ls["port"], port);
    let (_, info) = json(dev.port, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(
        cfg["validator"]["zero_state"]["root_hash"],
        info["result"]["init"]["root_hash"]
    );
    let v = python(
        "devnet_liteclient.py",
        &[config.as_os_str(), std::ffi::OsStr::new(&dev.url())],
    );
    assert_eq!(v["sent"], true, "{v}");
    assert_eq!(v["shards"], 1, "{v}");
    assert_eq!(v["get_methods"], true, "{v}");
    assert_eq!(v["lookups"], true, "{v}");
    assert_eq!(v["shard_block_proof"], true, "{v}");
    assert_eq!(v["unknown_method_exit_code"], 11, "{v}");
    assert!(v["transactions"].as_u64() >= Some(1), "{v}");
    assert!(v["block_transactions"].as_u64() >= Some(1), "{v}");
    assert!(v["config_params"].as_u64() > Some(20), "{v}");
    assert!(v["replay_refused"].is_number(), "{v}");
    assert_eq!(v["one_transaction"], true, "{v}");
    // The masterchain's and the basechain's newest blocks.
    assert_eq!(v["out_msg_queue_sizes"], 2, "{v}");
    assert!(v["unsupported_refused"].is_number(), "{v}");
}

/// Hostile lite clients (F7, bad input): a connection that never
/// completes the ADNL handshake is dropped after the handshake timeout, one
/// that sends garbage at once, and neither holds the server: a follower
/// syncs from it meanwhile.
#[test]
fn the_lite_server_drops_silent_and_garbage_clients() {
    use std::io::Read as _;
    let dir = tempfile::tempdir().unwrap();
    let (_dev, config, port) = dev_with_lite_server(dir.path());
    let silent: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let mut garbage = TcpStream::connect(("127.0.0.1", port)).unwrap();
    garbage.write_all(&[0x5a; 300]).unwrap();
    let out = Command::new(common::tonindex_bin())
        .args(["sync", "--until-seqno", "1", "--db"])
        .arg(dir.path().join("follower"))
        .arg("--global-config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let closed = |mut s: &TcpStream, within: Duration| {
        s.set_read_timeout(Some(within)).unwrap();
        let mut buf = [0u8; 64];
        // End of stream or a reset: the server let go of it. A read that
        // times out means it still holds it.
        loop {
            match s.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) => {
                    return !matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    )
                }
            }
        }
    };
    assert!(closed(&garbage, Duration::from_secs(3)), "garbage kept");
    let start = Instant::now();
    for s in &silent {
        assert!(closed(s, Duration::from_secs(10)), "a silent client kept");
    }
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(9), "dropped after {waited:?}");
}

/// A second tonindex follows the devnet through its lite server (F7 item
/// 4, first part): `tonindex sync --global-config` with the config the
/// devnet wrote fetches the zero states and every block over ADNL-TCP
/// while transfers are being sent (in both workchains), stops at a given
/// masterchain block and resumes from its cursor, checking every
/// masterchain block's validator signatures from the config's zero state
/// (F7 item 2: no `--trust-liteservers`); in the end every table (blocks,
/// transactions, messages, the cell store, account states) has the same
/// digest as the devnet's own. A config naming another zero state is
/// refused.
#[test]
fn a_second_tonindex_syncs_from_the_devnets_lite_server() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    let db = dir.path().join("db");
    let targets = [
        "0:5151515151515151515151515151515151515151515151515151515151515151",
        "-1:5252525252525252525252525252525252525252525252525252525252525252",
    ];
    for t in targets {
        fund(&dev, t, 2_000_000_000);
    }
    let follower = dir.path().join("follower");
    let sync = |until: u64| {
        Command::new(common::tonindex_bin())
            .args(["sync", "--db"])
            .arg(&follower)
            .arg("--global-config")
            .arg(&config)
            .args(["--until-seqno", &until.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Follows past the tip: it waits for blocks the sends below produce.
    let first_stop = dev.mc_seqno() + 2;
    let running = sync(first_stop);
    for t in targets.iter().cycle().take(4) {
        fund(&dev, t, 1_000_000_000);
    }
    let out = running.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Resumes from its cursor up to the devnet's tip.
    let tip = dev.mc_seqno();
    assert!(tip > first_stop);
    let out = sync(tip).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("last masterchain block {tip}")),
        "{said}"
    );
    // Trust starts at the global config's zero state: a config naming
    // another one is not the chain this server serves, and nothing is
    // believed.
    let refused = sync_with_forged(dir.path(), &config, "zero_state", "root_hash");
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("zero state"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    dev.stop(false);
    let (a, b) = (table_digests(&db), table_digests(&follower));
    assert!(a.as_array().is_some_and(|t| t.len() > 10), "{a}");
    assert_eq!(a, b, "tables of the devnet and of the follower");
}

/// Trust across key blocks (F7 item 2): a devnet making every third
/// masterchain block a key block writes its first key block as the global
/// config's `init_block`. pytoniq at trust level 0 (its own signature,
/// validator-set and proof checks) walks the lite server's forward links
/// from that init block through the key blocks to the tip and proves every
/// older block backward. `tonindex run --from-seqno` on an empty database
/// checks its first block through the same chain of key blocks, indexes
/// from there (no older masterchain block, only the shard blocks the first
/// one commits) and serves the blocks and transactions as the devnet
/// does, and account states (and get-methods on them) it did not replay as
/// the lite server proves them — fetched for each changed account as its
/// unit is indexed, and on demand for the rest; a config naming another
/// init block is not believed.
#[test]
fn trust_walks_key_blocks_from_the_init_block() {
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let config = dir.path().join("global.json");
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--liteserver-listen",
            &format!("127.0.0.1:{port}"),
            "--liteserver-config",
            config.to_str().unwrap(),
            "--key-block-every",
            "3",
        ],
    );
    common::wait_listening(port);
    let mut n = 0u8;
    while dev.mc_seqno() < 11 {
        n += 1;
        fund(&dev, &format!("0:{}", hex::encode([n; 32])), 1_000_000_000);
    }
    let v = python(
        "devnet_trust.py",
        &[config.as_os_str(), std::ffi::OsStr::new(&dev.url())],
    );
    assert!(v["last_key_block"].as_u64() >= Some(9), "{v}");
    assert!(v["proven"].as_array().is_some_and(|p| p.len() >= 10), "{v}");

    // A follower starting at block 8: trust goes 1 -> 3 -> 6 -> 8.
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", "8"],
    );
    let tip = dev.mc_seqno();
    wait_for_seqno(&mut run, http, tip);
    let strip = |mut v: Value| {
        v.as_object_mut().map(|o| o.remove("@extra"));
        v
    };
    let mc = "workchain=-1&shard=-9223372036854775808";
    // Block 7 is before the follow: not in the index (its header is not
    // served), though a lookup finds it on the lite server.
    let (status, _) = json(
        http,
        "GET",
        &format!("/api/v2/getBlockHeader?{mc}&seqno=7"),
        "",
    );
    assert_eq!(status, 404, "block 7 is before the follow");
    let path = format!("/api/v2/lookupBlock?{mc}&seqno=7");
    assert_eq!(
        json(http, "GET", &path, "").1["result"],
        json(dev.port, "GET", &path, "").1["result"]
    );
    for seqno in 8..=tip {
        for path in [
            format!("/api/v2/lookupBlock?{mc}&seqno={seqno}"),
            format!("/api/v2/shards?seqno={seqno}"),
        ] {
            let (_, ours) = json(http, "GET", &path, "");
            let (_, theirs) = json(dev.port, "GET", &path, "");
            assert_eq!(strip(ours), strip(theirs), "{path}");
        }
        // The same transactions; the account states around them are the
        // devnet's, while the follower, which replayed nothing before block
        // 8, says it does not know them (null) rather than make them up.
        let path = format!("/api/v3/transactionsByMasterchainBlock?seqno={seqno}");
        let (_, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        let txs = |mut v: Value| {
            let list = v["transactions"].as_array_mut().unwrap();
            for tx in list.iter_mut() {
                let o = tx.as_object_mut().unwrap();
                o.remove("account_state_before");
                o.remove("account_state_after");
            }
            v["transactions"].take()
        };
        let unknown = ours["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["account_state_after"]["account_status"].is_null())
            .count();
        assert!(unknown > 0, "{ours}");
        assert_eq!(txs(ours), txs(theirs), "{path}");
    }
    // Accounts last touched before block 8 (genesis wallet 0) or after:
    // their states come from the lite server, checked by their proofs, as
    // the devnet has them; get-methods run on them; an unused address is
    // proven not to exist.
    let (_, accounts) = json(dev.port, "GET", "/dev/accounts", "");
    let wallet = accounts[0]["address"].as_str().unwrap().to_string();
    let unused = format!("0:{}", hex::encode([0xeeu8; 32]));
    for path in [
        format!("/api/v2/getAddressInformation?address={wallet}"),
        format!(
            "/api/v2/getAddressInformation?address=0:{}",
            hex::encode([1u8; 32])
        ),
        format!("/api/v2/getAddressInformation?address={unused}"),
        format!("/api/v2/getWalletInformation?address={wallet}"),
        format!("/api/v2/runGetMethod?address={wallet}&method=get_public_key&stack=%5B%5D"),
        format!("/api/v3/walletStates?address={wallet}"),
    ] {
        let (status, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        assert_eq!(status, 200, "{path}: {ours}");
        let (mut ours, mut theirs) = (strip(ours), strip(theirs));
        for v in [&mut ours, &mut theirs] {
            // The block an answer names is each node's own newest.
            v["result"].as_object_mut().map(|o| o.remove("block_id"));
        }
        assert_eq!(ours, theirs, "{path}");
    }
    run.kill().unwrap();
    run.wait().unwrap();

    // The follower's index itself holds the states of the accounts blocks
    // 8 on changed (read from the lite server with proofs as each unit was
    // indexed): served without any chain, the last funded account is
    // there as on the devnet, while one changed only before block 8 is
    // unknown.
    let http = common::free_port();
    let mut serve = Command::new(common::tonindex_bin())
        .args(["serve", "--db"])
        .arg(dir.path().join("follower"))
        .args(["--listen", &format!("127.0.0.1:{http}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::wait_listening(http);
    let last_funded = format!("0:{}", hex::encode([n; 32]));
    let path = format!("/api/v3/accountStates?address={last_funded}&include_boc=false");
    let (status, ours) = json(http, "GET", &path, "");
    let (_, theirs) = json(dev.port, "GET", &path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["accounts"].as_array().map(Vec::len), Some(1), "{ours}");
    assert_eq!(ours["accounts"], theirs["accounts"]);
    let first_funded = format!("0:{}", hex::encode([1u8; 32]));
    let (status, v) = json(
        http,
        "GET",
        &format!("/api/v2/getAddressInformation?address={first_funded}"),
        "",
    );
    assert_eq!(status, 404, "{v}");
    serve.kill().unwrap();
    serve.wait().unwrap();

    // An init block the chain does not have: nothing is believed.
    let refused = sync_with_forged(dir.path(), &config, "init_block", "file_hash");
    assert!(!refused.status.success());
    dev.stop(false);
}

/// `tonindex run` (F7 items 4 and 5, first part): one process follows the
/// devnet through its lite server and serves v2 and v3 over what it
/// indexed — the same tip, the same balances and get-method answers as
/// the devnet's own API — and hands a sent message (built by pytoniq) to
/// the lite server: the transfer executes on the devnet and the follower
/// sees it; sent again, the lite server's refusal comes back.
#[test]
fn tonindex_run_follows_serves_and_forwards_sends() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    let funded = "0:5353535353535353535353535353535353535353535353535353535353535353";
    fund(&dev, funded, 3_000_000_000);

    let (mut run, http) = start_run(&dir.path().join("follower"), &config, &[]);
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    // Block signatures (checked against the key block's validators) and
    // a shard block's proofs, from the lite server, as the devnet gives
    // them; the init block's own signers are a zero-state key block's,
    // which the follower does not ask for.
    let tip = dev.mc_seqno();
    let shard = "workchain=0&shard=-9223372036854775808";
    for path in [
        format!("/api/v2/getAddressBalance?address={funded}"),
        "/api/v3/masterchainInfo".to_string(),
        format!("/api/v2/getMasterchainBlockSignatures?seqno={tip}"),
        format!("/api/v2/getShardBlockProof?{shard}&seqno=2&from_seqno={tip}"),
        format!("/api/v2/getShardBlockProof?{shard}&seqno=2&from_seqno=2"),
    ] {
        let (_, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        let strip = |mut v: Value| {
            v.as_object_mut().map(|o| o.remove("@extra"));
            v
        };
        assert_eq!(strip(ours), strip(theirs), "{path}");
    }

    // A transfer built by pytoniq, sent to the follower.
    let t = python("wallet_transfer.py", &[dev.url()]);
    let body = serde_json::json!({ "boc": t["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v2/sendBoc", &body);
    assert_eq!(status, 200, "{v}");
    wait_for_wallet_seqno(http, &t);
    // The same message again: the devnet refuses it, and so does the follower.
    let (status, v) = json(http, "POST", "/api/v2/sendBoc", &body);
    assert_eq!(status, 500, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("LITE_SERVER_UNKNOWN"),
        "{v}"
    );
    // The follower has no /dev/ routes.
    let (status, _) = http_status(http, "/dev/accounts");
    assert_eq!(status, 404);
    let _ = run.kill();
    let _ = run.wait();
}

/// Pending traces on a follower (F6 item 4 on a live node): the devnet
/// makes blocks only when asked; a transfer built by pytoniq, sent to
/// `tonindex run`, is emulated at once on the state the follower knows
/// (the index's, else the lite server's) and shown in `/pendingTraces`,
/// `/pendingActions` and `/pendingTransactions` before its block exists;
/// once the follower indexes that block the trace is a real one and no
/// longer pending. The follower starts after the zero state, as one from
/// a network's tip does: it keeps the config of the key block in force
/// there, and a wallet whose code is a library it does not hold (it keeps
/// no masterchain state) has its get-methods run and its transfer
/// emulated with the library fetched from the lite server.
#[test]
fn a_follower_shows_sent_messages_as_pending_until_their_blocks() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let config = dir.path().join("global.json");
    // A wallet whose code is a library reference to the v4 code, which
    // the devnet publishes (the follower holds no masterchain state).
    let lib = node("library_wallet.mjs", &["prepare"]);
    let library = dir.path().join("wallet_v4.boc");
    std::fs::write(
        &library,
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            lib["library_boc"].as_str().unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--liteserver-listen",
            &format!("127.0.0.1:{port}"),
            "--liteserver-config",
            config.to_str().unwrap(),
            "--block-interval",
            "60000",
            "--library",
            library.to_str().unwrap(),
            "--account",
            lib["account"].as_str().unwrap(),
        ],
    );
    common::wait_listening(port);
    for _ in 0..2 {
        let (status, _) = json(dev.port, "POST", "/dev/block", "");
        assert_eq!(status, 200);
    }
    // From a later block, as a follower of a real network starts (at its
    // tip): no zero state, so no masterchain state and none of its
    // libraries, and no account state until a block touches it.
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", "2"],
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    // It keeps the config of the key block in force where it starts.
    let path = "/api/v2/getConfigParam?config_id=20";
    let (status, ours) = json(http, "GET", path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["result"], json(dev.port, "GET", path, "").1["result"]);

    let t = python("wallet_transfer.py", &[dev.url()]);
    let body = serde_json::json!({ "boc": t["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap().to_string();
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (status, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert_eq!(status, 200, "{v}");
    let traces = v["traces"].as_array().expect("a pending trace");
    assert_eq!(traces.len(), 1, "{v}");
    let trace = &traces[0];
    assert_eq!(trace["external_hash"], hash.as_str());
    assert_eq!(trace["trace_info"]["transactions"], 2, "{trace}");
    let order = trace["transactions_order"].as_array().unwrap();
    for h in order {
        let tx = &trace["transactions"][h.as_str().unwrap()];
        assert_eq!(tx["emulated"], true);
        assert_eq!(tx["finality"], "pending");
    }
    let transfer = trace["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "ton_transfer")
        .unwrap_or_else(|| panic!("a pending ton_transfer: {trace}"));
    assert_eq!(transfer["details"]["value"], "1000000000");
    assert_eq!(transfer["details"]["comment"], "from pytoniq");
    let wallet = t["wallet"].as_str().unwrap();
    let wq: String = form_urlencoded::byte_serialize(wallet.as_bytes()).collect();
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingActions?account={wq}"),
        "",
    );
    assert!(
        v["actions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|a| a["action_id"] == transfer["action_id"])),
        "{v}"
    );
    let (status, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTransactions?account={wq}"),
        "",
    );
    assert_eq!(status, 200, "{v}");

    // The block comes; the follower indexes it and the trace is real.
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200, "{v}");
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert!(v["traces"].is_null(), "no longer pending: {v}");
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/traces?msg_hash={q}&include_actions=true"),
        "",
    );
    let real = &v["traces"][0];
    assert_eq!(real["trace_info"]["trace_state"], "complete", "{v}");
    assert_eq!(real["trace_info"]["transactions"], 2);
    assert!(
        real["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"] == "ton_transfer"
                && a["details"]["value"] == "1000000000"
                && a["details"]["comment"] == "from pytoniq"),
        "{real}"
    );

    // The library wallet: its get-method on the follower runs the library
    // fetched from the lite server (the answer is the devnet's own), and
    // its transfer is emulated with it.
    let address = lib["address"].as_str().unwrap();
    let aq: String = form_urlencoded::byte_serialize(address.as_bytes()).collect();
    let seqno_path = format!("/api/v2/runGetMethod?address={aq}&method=seqno&stack=%5B%5D");
    let (status, ours) = json(http, "GET", &seqno_path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["result"]["exit_code"], 0, "{ours}");
    let (_, theirs) = json(dev.port, "GET", &seqno_path, "");
    assert_eq!(ours["result"]["stack"], theirs["result"]["stack"]);
    let seqno = ours["result"]["stack"][0][1].as_str().unwrap();
    let seqno = u32::from_str_radix(seqno.trim_start_matches("0x"), 16).unwrap();
    let sent = node(
        "library_wallet.mjs",
        &[
            "send",
            &lib["mnemonic"].to_string(),
            address,
            &seqno.to_string(),
        ],
    );
    let body = serde_json::json!({ "boc": sent["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v3/message", &body);
    assert_eq!(status, 200, "{v}");
    let hash = v["message_hash"].as_str().unwrap().to_string();
    let q: String = form_urlencoded::byte_serialize(hash.as_bytes()).collect();
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    let trace = &v["traces"][0];
    assert_eq!(trace["trace_info"]["transactions"], 2, "{v}");
    let first = &trace["transactions"][trace["transactions_order"][0].as_str().unwrap()];
    assert_eq!(
        first["description"]["compute_ph"]["success"], true,
        "the library code ran: {first}"
    );
    assert!(
        trace["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"] == "ton_transfer"
                && a["details"]["value"] == "500000000"
                && a["details"]["comment"] == "from a library wallet"),
        "{trace}"
    );
    let (status, v) = json(dev.port, "POST", "/dev/block", "");
    assert_eq!(status, 200, "{v}");
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    let (_, v) = json(
        http,
        "GET",
        &format!("/api/v3/pendingTraces?ext_msg_hash={q}"),
        "",
    );
    assert!(v["traces"].is_null(), "no longer pending: {v}");
    let (_, v) = json(http, "GET", &format!("/api/v3/traces?msg_hash={q}"), "");
    assert_eq!(v["traces"][0]["trace_info"]["transactions"], 2, "{v}");
    let _ = run.kill();
    let _ = run.wait();
}

/// Jetton wallets whose code is a library (as USDT's is), on a follower
/// that starts after the zero state and so holds no masterchain state
/// (tests/clients/library_jetton.mjs): the follower fetches the library
/// with `getLibraries` and indexes the wallet, balance and minter as the
/// steps imply.
#[test]
fn a_follower_indexes_jetton_wallets_whose_code_is_a_library() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixtures();
    let prepared = node(
        "library_jetton.mjs",
        &["prepare", fixtures.to_str().unwrap()],
    );
    let library = dir.path().join("jetton_wallet.boc");
    std::fs::write(
        &library,
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            prepared["library_boc"].as_str().unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let port = common::free_port();
    let config = dir.path().join("global.json");
    let dev = Dev::start(
        &dir.path().join("db"),
        &[
            "--liteserver-listen",
            &format!("127.0.0.1:{port}"),
            "--liteserver-config",
            config.to_str().unwrap(),
            "--library",
            library.to_str().unwrap(),
        ],
    );
    common::wait_listening(port);
    for i in 0..2u8 {
        fund(
            &dev,
            &format!("0:{}", hex::encode([0x60 + i; 32])),
            1_000_000_000,
        );
    }
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", "2"],
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    let out = node(
        "library_jetton.mjs",
        &[
            "run",
            &dev.url(),
            &format!("http://127.0.0.1:{http}"),
            fixtures.to_str().unwrap(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    let _ = run.kill();
    let _ = run.wait();
}

/// A follower that starts after a Jetton's mint
/// (tests/clients/follower_jetton_parent.mjs): the minter is in none of the
/// blocks it follows, yet the wallets a later transfer changes are
/// confirmed by it — the follower fetches the master's proven state with
/// the unit — and listed with the balances, owners and master the devnet
/// lists, the minter among the masters and the transfer among the
/// transfers.
#[test]
fn a_follower_confirms_wallets_of_a_master_it_never_saw_change() {
    common::npm_install(&clients_dir(), &["@ton/ton"]);
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixtures();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    let minted = node(
        "follower_jetton_parent.mjs",
        &["mint", &dev.url(), fixtures.to_str().unwrap()],
    );
    let from = (dev.mc_seqno() + 1).to_string();
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--from-seqno", &from],
    );
    let out = node(
        "follower_jetton_parent.mjs",
        &[
            "transfer",
            &dev.url(),
            &format!("http://127.0.0.1:{http}"),
            fixtures.to_str().unwrap(),
            &minted["mnemonic"].to_string(),
            minted["minter"].as_str().unwrap(),
        ],
    );
    assert_eq!(out["ok"], true, "{out}");
    let _ = run.kill();
    let _ = run.wait();
}

fn http_status(port: u16, path: &str) -> (u16, String) {
    http(port, "GET", path, "")
}

/// Kill -9 of `tonindex sync` at varying moments, each run resuming the
/// last (F7, what must be shown): in the end no block or transaction is
/// missing or doubled — every table's digest equals the devnet's.
#[test]
fn a_killed_sync_resumes_without_gaps_or_doubles() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    let db = dir.path().join("db");
    for i in 0..30u8 {
        let target = format!("0:{}", hex::encode([i + 1; 32]));
        fund(&dev, &target, 1_000_000_000);
    }
    let tip = dev.mc_seqno();
    let follower = dir.path().join("follower");
    let sync = |until: Option<u64>| {
        let mut c = Command::new(common::tonindex_bin());
        c.args(["sync", "--trust-liteservers", "--db"])
            .arg(&follower)
            .arg("--global-config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(u) = until {
            c.args(["--until-seqno", &u.to_string()]);
        }
        c
    };
    let cursor = |db: &Path| -> Option<u64> {
        let out = Command::new(common::tonindex_bin())
            .args(["stats", "--db"])
            .arg(db)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).ok()?;
        v["cursor"]["last_mc_seqno"].as_u64()
    };
    let mut kills = 0;
    for i in 0..12u64 {
        let mut child = sync(None).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(20 + 17 * i));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        kills += 1;
        if cursor(&follower).is_some_and(|c| c >= tip) {
            break;
        }
    }
    assert!(
        kills >= 2,
        "the follower finished before it could be killed twice"
    );
    let out = sync(Some(tip)).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    dev.stop(false);
    assert_eq!(
        table_digests(&db),
        table_digests(&follower),
        "after {kills} kills"
    );
}

/// Lite servers that fail (F7 item 3 and bad input, first part): the
/// global config lists one that accepts and never answers, one that sends
/// garbage and closes, and one where nothing listens, before the devnet's.
/// The watch over the servers' tips finds that only the devnet's answers,
/// so the follower starts with it (saying so in its log) and syncs the
/// whole chain without waiting on the others. (Servers that fail in the
/// middle of a step are left for the next: the lying and pruned servers'
/// tests.)
#[test]
fn sync_leaves_failing_lite_servers_for_the_next() {
    use std::net::TcpListener;
    let dir = tempfile::tempdir().unwrap();
    let (dev, written, _) = dev_with_lite_server(dir.path());
    for i in 0..3u8 {
        fund(
            &dev,
            &format!("0:{}", hex::encode([0x60 + i; 32])),
            1_000_000_000,
        );
    }
    // A server that accepts and keeps every connection without a word.
    let hanging = TcpListener::bind("127.0.0.1:0").unwrap();
    let hanging_port = hanging.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        for s in hanging.incoming().flatten() {
            kept.push(s);
        }
    });
    // A server that answers the handshake with garbage and hangs up.
    let garbage = TcpListener::bind("127.0.0.1:0").unwrap();
    let garbage_port = garbage.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in garbage.incoming().flatten() {
            let mut buf = [0u8; 256];
            let _ = s.read(&mut buf);
            let _ = s.write_all(&[0xa5; 300]);
        }
    });
    let dead_port = common::free_port();
    let mut cfg: Value = serde_json::from_slice(&std::fs::read(&written).unwrap()).unwrap();
    let good = cfg["liteservers"][0].clone();
    let at = |port: u16| {
        let mut s = good.clone();
        s["port"] = port.into();
        s
    };
    cfg["liteservers"] = Value::Array(vec![
        at(hanging_port),
        at(garbage_port),
        at(dead_port),
        good,
    ]);
    let config = dir.path().join("four.json");
    std::fs::write(&config, cfg.to_string()).unwrap();

    let tip = dev.mc_seqno();
    let out = Command::new(common::tonindex_bin())
        .args([
            "sync",
            "--trust-liteservers",
            "--liteserver-timeout-ms",
            "700",
            "--db",
        ])
        .arg(dir.path().join("follower"))
        .arg("--global-config")
        .arg(&config)
        .args(["--until-seqno", &tip.to_string()])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("last masterchain block {tip}")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let good_port = cfg["liteservers"][3]["port"].as_u64().unwrap();
    assert!(
        log.contains(&format!(
            "asking lite server 127.0.0.1:{good_port} first (1 of 4 answer)"
        )),
        "{log}"
    );
    for port in [hanging_port, garbage_port, dead_port] {
        assert!(
            !log.contains(&format!("lite server 127.0.0.1:{port} failed")),
            "{port}: {log}"
        );
    }
}

/// A lite server that lies (F7, trust): it forwards the queries a
/// follower makes to the devnet's lite server and passes every answer on
/// unchanged, except that it flips one bit of each validator signature in
/// the block proofs. Blocks, states and hashes all check out; only the
/// signatures betray it. Returns its address and public key.
/// How a test lite server in front of the devnet's misbehaves.
#[derive(Clone, Copy, PartialEq)]
enum Lie {
    /// Flips a bit of every signature, says existing accounts do not exist.
    Signatures,
    /// Says the first masterchain info forever (a server that stopped
    /// following its network); honest otherwise.
    Frozen,
    /// Honest about the tip, but has no block more than two masterchain
    /// blocks below it (a node that is not archival): looking one up,
    /// getting one or an account state at one is refused, as such a node
    /// refuses them.
    Pruned,
    /// Honest, but takes 1.5 s over every lookup of a block after the
    /// second.
    Slow,
}

/// The most lookups of blocks after the second a test lite server had in
/// flight at once.
type MaxInFlight = std::sync::Arc<std::sync::atomic::AtomicUsize>;

fn lying_lite_server(
    upstream: std::net::SocketAddr,
    upstream_key: [u8; 32],
    lie: Lie,
) -> (u16, [u8; 32], MaxInFlight) {
    use std::convert::Infallible;
    use std::sync::Arc;
    use ton_liteapi::client::LiteClient;
    use ton_liteapi::tl::adnl::Message;
    use ton_liteapi::tl::common::BlockLink;
    use ton_liteapi::tl::request::Request;
    use ton_liteapi::tl::response::{BlockData, Error as LiteError, Response};

    let secret = [7u8; 32];
    let public = tonindex::api::lite::public_key(&secret);
    let port = common::free_port();
    let max_in_flight = MaxInFlight::default();
    let most = std::sync::Arc::clone(&max_in_flight);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let client = Arc::new(tokio::sync::Mutex::new(
                LiteClient::connect(upstream, upstream_key).await.unwrap(),
            ));
            let frozen = Arc::new(tokio::sync::Mutex::new(None));
            let forward = move |req: Request| {
                let client = Arc::clone(&client);
                let frozen = Arc::clone(&frozen);
                async move {
                    let mut c = client.lock().await;
                    let fail = |e: String| {
                        Response::Error(LiteError {
                            code: 651,
                            message: e.as_str().into(),
                        })
                    };
                    if lie == Lie::Pruned {
                        let asked = match &req {
                            Request::GetBlock(r) => Some(r.id.seqno),
                            Request::LookupBlock(r) if r.seqno.is_some() => Some(r.id.seqno),
                            Request::GetAccountState(r) => Some(r.id.seqno),
                            _ => None,
                        };
                        let tip = c.get_masterchain_info().await.map(|i| i.last.seqno);
                        if let (Some(asked), Ok(tip)) = (asked, tip) {
                            if asked + 2 < tip {
                                return fail("block is not in db (possibly out of sync)".into());
                            }
                        }
                    }
                    match req {
                        Request::GetMasterchainInfo => {
                            let mut kept = frozen.lock().await;
                            match (&*kept, lie) {
                                (Some(info), Lie::Frozen) => {
                                    Response::MasterchainInfo(Clone::clone(info))
                                }
                                _ => match c.get_masterchain_info().await {
                                    Ok(info) => {
                                        *kept = Some(info.clone());
                                        Response::MasterchainInfo(info)
                                    }
                                    Err(e) => fail(format!("{e:?}")),
                                },
                            }
                        }
                        Request::LookupBlock(r) => c
                            .lookup_block(
                                (),
                                r.id,
                                r.seqno,
                                r.lt,
                                r.utime,
                                false,
                                false,
                                false,
                                false,
                                false,
                            )
                            .await
                            .map_or_else(|e| fail(format!("{e:?}")), Response::BlockHeader),
                        Request::GetBlock(r) => c.get_block(r.id.clone()).await.map_or_else(
                            |e| fail(format!("{e:?}")),
                            |data| Response::BlockData(BlockData { id: r.id, data }),
                        ),
                        Request::GetState(r) => c
                            .get_state(r.id)
                            .await
                            .map_or_else(|e| fail(format!("{e:?}")), Response::BlockState),
                        Request::GetBlockProof(r) => {
                            match c
                                .get_block_proof(r.known_block, r.target_block, false, false)
                                .await
                            {
                                Ok(mut proof) if lie == Lie::Signatures => {
                                    for step in &mut proof.steps {
                                        if let BlockLink::BlockLinkForward { signatures, .. } = step
                                        {
                                            for s in &mut signatures.signatures {
                                                s.signature[0] ^= 1;
                                            }
                                        }
                                    }
                                    Response::PartialBlockProof(proof)
                                }
                                Ok(proof) => Response::PartialBlockProof(proof),
                                Err(e) => fail(format!("{e:?}")),
                            }
                        }
                        // An account that exists is said not to.
                        Request::GetAccountState(r) => {
                            match c.get_account_state(r.id, r.account).await {
                                Ok(mut a) => {
                                    if lie == Lie::Signatures {
                                        a.state.clear();
                                    }
                                    Response::AccountState(a)
                                }
                                Err(e) => fail(format!("{e:?}")),
                            }
                        }
                        // LiteClient has no call of its own for it.
                        Request::GetOutMsgQueueSizes(r) => {
                            use tonindex::chain::liteserver::client::Multiplexed;
                            let server = tonindex::chain::liteserver::LiteServerAddr {
                                addr: upstream,
                                key: upstream_key,
                            };
                            match Multiplexed::connect(&server).await {
                                Ok(conn) => conn
                                    .query(Request::GetOutMsgQueueSizes(r))
                                    .await
                                    .unwrap_or_else(|e| fail(format!("{e:?}"))),
                                Err(e) => fail(format!("{e:?}")),
                            }
                        }
                        _ => fail("not forwarded".into()),
                    }
                }
            };
            let in_flight = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let service = tower04::service_fn(move |msg: Message| {
                use std::sync::atomic::Ordering;
                let forward = forward.clone();
                let (in_flight, most) = (Arc::clone(&in_flight), Arc::clone(&most));
                async move {
                    Ok::<_, Infallible>(match msg {
                        Message::Query { query_id, query } => {
                            let request = query.wrapped_request.request;
                            // Lookups of blocks past the first two (not the
                            // watch's probe, not the follower's).
                            let counted =
                                matches!(&request, Request::LookupBlock(r) if r.id.seqno >= 3);
                            if counted {
                                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                                most.fetch_max(now, Ordering::SeqCst);
                                if lie == Lie::Slow {
                                    tokio::time::sleep(Duration::from_millis(1500)).await;
                                }
                            }
                            let answer = forward(request).await;
                            if counted {
                                in_flight.fetch_sub(1, Ordering::SeqCst);
                            }
                            Message::Answer { query_id, answer }
                        }
                        Message::Ping { random_id } => Message::Pong { random_id },
                        other => other,
                    })
                }
            });
            let key = adnl::crypto::KeyPair::from(&adnl::crypto::SecretKey::from_bytes(secret));
            let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
            let _ =
                ton_liteapi::server::serve(&addr, key, tower04::make::Shared::new(service)).await;
        });
    });
    common::wait_listening(port);
    (port, public, max_in_flight)
}

/// The devnet's global config `config`, and the `liteservers` entry of a
/// misbehaving proxy (`lie`) started in front of its lite server.
fn proxy_in_front(config: &Path, lie: Lie) -> (Value, Value, MaxInFlight) {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let honest: Value = serde_json::from_slice(&std::fs::read(config).unwrap()).unwrap();
    let ls = &honest["liteservers"][0];
    let upstream_port = ls["port"].as_u64().unwrap() as u16;
    let upstream_key: [u8; 32] = b64
        .decode(ls["id"]["key"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let (port, key, most) =
        lying_lite_server(([127, 0, 0, 1], upstream_port).into(), upstream_key, lie);
    let entry = serde_json::json!({
        "ip": 2130706433, "port": port,
        "id": {"@type": "pub.ed25519", "key": b64.encode(key)},
    });
    (honest, entry, most)
}

/// Waits (30 s at most) until the wallet of a `wallet_transfer.py` transfer
/// `t` has the seqno after it, as the node on `port` reads it.
fn wait_for_wallet_seqno(port: u16, t: &Value) {
    let wallet = t["wallet"].as_str().unwrap();
    let path = format!("/api/v2/runGetMethod?address={wallet}&method=seqno&stack=%5B%5D");
    let want = format!("0x{:x}", t["seqno"].as_u64().unwrap() + 1);
    let start = Instant::now();
    loop {
        let (_, v) = json(port, "GET", &path, "");
        if v["result"]["stack"][0][1] == want.as_str() {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A lite server that alters validator signatures is caught by the
/// follower's checks (F7 item 2): alone in the config, the sync stops
/// saying the signatures do not verify and indexes nothing past the init
/// block; listed before the honest server, it is left for it and the chain
/// is synced whole;
/// with `--trust-liteservers` the same liar is believed (so it is the
/// signature check, not anything else, that caught it). Its account states
/// (it says existing accounts do not exist) are refused by their proofs,
/// even so; listed before the honest server, the honest one's are taken
/// (as blocks are indexed and when the API asks), and a message sent to
/// both at once executes.
#[test]
fn a_lite_server_that_lies_about_signatures_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    fund(
        &dev,
        "0:5454545454545454545454545454545454545454545454545454545454545454",
        1_000_000_000,
    );
    let (honest, liar, _) = proxy_in_front(&config, Lie::Signatures);
    let ls = &honest["liteservers"][0];
    let port = liar["port"].as_u64().unwrap();
    let with_servers = |name: &str, servers: Vec<Value>| {
        let mut c = honest.clone();
        c["liteservers"] = Value::Array(servers);
        let path = dir.path().join(name);
        std::fs::write(&path, c.to_string()).unwrap();
        path
    };
    let tip = dev.mc_seqno();
    let sync = |db: &str, config: &Path, extra: &[&str]| {
        Command::new(common::tonindex_bin())
            .args(["sync", "--liteserver-timeout-ms", "3000"])
            .args(extra)
            .arg("--db")
            .arg(dir.path().join(db))
            .arg("--global-config")
            .arg(config)
            .args(["--until-seqno", &tip.to_string()])
            .output()
            .unwrap()
    };

    let only_liar = with_servers("liar.json", vec![liar.clone()]);
    let out = sync("caught", &only_liar, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("signature does not verify"), "{err}");
    let caught = Db::open(
        &dir.path().join("caught"),
        &DbOptions {
            sync_writes: false,
            write_only_memtables: false,
        },
    )
    .unwrap();
    // Nothing past the init block (which the config names by its hashes:
    // trusted as given, as tonlib trusts it).
    assert_eq!(
        caught.cursor().unwrap().last_mc_seqno,
        Some(1),
        "nothing indexed past the init block"
    );

    let liar_first = with_servers("both.json", vec![liar.clone(), ls.clone()]);
    let out = sync("both", &liar_first, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port} failed")), "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("last masterchain block {tip}")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let out = sync("believed", &only_liar, &["--trust-liteservers"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Account states are checked by their proofs whatever the flag: a
    // follow that replayed none (it starts at the tip) reads the states of
    // the accounts each block changed, and the liar (which also says that
    // accounts that exist do not) is caught there.
    let out = Command::new(common::tonindex_bin())
        .args([
            "sync",
            "--trust-liteservers",
            "--liteserver-timeout-ms",
            "3000",
        ])
        .args(["--from-seqno", &tip.to_string()])
        .args(["--until-seqno", &tip.to_string()])
        .arg("--db")
        .arg(dir.path().join("states"))
        .arg("--global-config")
        .arg(&only_liar)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("the proven state holds it"), "{err}");
    let funded = "0:5454545454545454545454545454545454545454545454545454545454545454";

    // With the honest server listed after the liar, the account is read
    // from it after the liar's proof fails, and a message sent goes to
    // both at once: the honest one takes it (the liar does not forward
    // sends) and the transfer executes.
    let tip_arg = tip.to_string();
    let (mut run, http) = start_run(
        &dir.path().join("states-both"),
        &liar_first,
        &["--trust-liteservers", "--from-seqno", &tip_arg],
    );
    let path = format!("/api/v2/getAddressBalance?address={funded}");
    let start = Instant::now();
    let ours = loop {
        let (status, v) = json(http, "GET", &path, "");
        if status == 200 {
            break v;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{v}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let (_, theirs) = json(dev.port, "GET", &path, "");
    assert_eq!(ours["result"], theirs["result"]);
    let t = python("wallet_transfer.py", &[dev.url()]);
    let body = serde_json::json!({ "boc": t["boc"] }).to_string();
    let (status, v) = json(http, "POST", "/api/v2/sendBoc", &body);
    assert_eq!(status, 200, "{v}");
    wait_for_wallet_seqno(dev.port, &t);
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}

/// A lite server that stopped following its network (it says the same
/// masterchain info forever) is left for the next one once its tip has
/// stood still for a while (F7 item 3: health by seqno): `tonindex run`
/// with it listed first reaches blocks the devnet makes after the start.
#[test]
fn a_lite_server_whose_tip_stands_still_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    let (honest, frozen, _) = proxy_in_front(&config, Lie::Frozen);
    let mut both = honest.clone();
    both["liteservers"] = serde_json::json!([frozen, honest["liteservers"][0].clone()]);
    let both_config = dir.path().join("both.json");
    std::fs::write(&both_config, both.to_string()).unwrap();
    let (mut run, http) = start_run(&dir.path().join("follower"), &both_config, &[]);
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    // New blocks the frozen server never reports.
    fund(
        &dev,
        "0:5656565656565656565656565656565656565656565656565656565656565656",
        1_000_000_000,
    );
    wait_for_seqno(&mut run, http, dev.mc_seqno());
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}

/// v2 `lookupBlock` of blocks a follower has not indexed (F7 item 5):
/// `tonindex run --until-seqno 2` stops following at block 2 and goes on
/// serving; later masterchain and shard blocks — by seqno, by lt, by time
/// — are looked up on the lite server, their headers checked, and answer
/// as the devnet does; one that does not exist is the lite server's 404.
#[test]
fn a_follower_looks_up_blocks_it_has_not_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &config,
        &["--until-seqno", "2"],
    );
    while dev.mc_seqno() < 5 {
        fund(
            &dev,
            "0:5757575757575757575757575757575757575757575757575757575757575757",
            1_000_000_000,
        );
    }
    wait_for_seqno(&mut run, http, 2);
    let (_, info) = json(http, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(info["result"]["last"]["seqno"], 2, "{info}");
    let (_, header) = json(
        dev.port,
        "GET",
        "/api/v2/getBlockHeader?workchain=0&shard=-9223372036854775808&seqno=4",
        "",
    );
    let lt = header["result"]["start_lt"].as_str().unwrap().to_string();
    let utime = header["result"]["gen_utime"].as_u64().unwrap();
    let mc = "workchain=-1&shard=-9223372036854775808";
    let base = "workchain=0&shard=-9223372036854775808";
    for query in [
        format!("{mc}&seqno=4"),
        format!("{base}&seqno=4"),
        format!("{base}&lt={lt}"),
        format!("{mc}&unixtime={utime}"),
    ] {
        let path = format!("/api/v2/lookupBlock?{query}");
        let (status, ours) = json(http, "GET", &path, "");
        let (_, theirs) = json(dev.port, "GET", &path, "");
        assert_eq!(status, 200, "{path}: {ours}");
        assert_eq!(ours["result"], theirs["result"], "{path}");
    }
    let (status, v) = json(
        http,
        "GET",
        &format!("/api/v2/lookupBlock?{mc}&seqno=999"),
        "",
    );
    assert_eq!(status, 404, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("LITE_SERVER_UNKNOWN"),
        "{v}"
    );
    run.kill().unwrap();
    run.wait().unwrap();
    dev.stop(false);
}

/// The follower and the API go by what every lite server shows (F7 item
/// 3): with a server that keeps no old blocks listed first, `tonindex run
/// --archival-after 2` asks the archival one for the blocks far below the
/// tip (never failing on the pruned one), `getConsensusBlock` is the
/// servers' highest tip, `getOutMsgQueueSize` is the lite server's answer
/// (equal to the devnet's own), and once every server is gone the node
/// says `no workers alive` — and goes on serving what it indexed.
#[test]
fn servers_are_asked_by_their_tips_and_archival_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    while dev.mc_seqno() < 8 {
        fund(
            &dev,
            "0:5858585858585858585858585858585858585858585858585858585858585858",
            1_000_000_000,
        );
    }
    let (honest, pruned, _) = proxy_in_front(&config, Lie::Pruned);
    let honest_port = honest["liteservers"][0]["port"].as_u64().unwrap();
    let pruned_port = pruned["port"].as_u64().unwrap();
    let mut both = honest.clone();
    both["liteservers"] = serde_json::json!([pruned, honest["liteservers"][0].clone()]);
    let both_config = dir.path().join("both.json");
    std::fs::write(&both_config, both.to_string()).unwrap();
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &both_config,
        &["--archival-after", "2"],
    );
    let tip = dev.mc_seqno();
    wait_for_seqno(&mut run, http, tip);

    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = json(http, "GET", "/api/v2/getConsensusBlock", "");
        assert_eq!(status, 200, "{v}");
        if v["result"]["consensus_block"] == tip {
            break;
        }
        assert!(Instant::now() < until, "{v}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let path = "/api/v2/getOutMsgQueueSize";
    let (status, ours) = json(http, "GET", path, "");
    let (_, theirs) = json(dev.port, "GET", path, "");
    assert_eq!(status, 200, "{ours}");
    assert_eq!(ours["result"], theirs["result"]);
    assert!(
        ours["result"]["shards"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{ours}"
    );

    dev.stop(false);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, v) = json(http, "GET", "/api/v2/getConsensusBlock", "");
        if status == 500 {
            assert_eq!(v["error"], "no workers alive", "{v}");
            break;
        }
        assert!(Instant::now() < until, "{v}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The follow failed with every server gone; the API still serves.
    let (status, v) = json(http, "GET", "/api/v2/getMasterchainInfo", "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["last"]["seqno"], tip, "{v}");
    assert!(run.try_wait().unwrap().is_none(), "tonindex run stopped");
    run.kill().unwrap();
    run.wait().unwrap();
    let mut log = String::new();
    run.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(
        log.contains(&format!(
            "lite server 127.0.0.1:{honest_port} is better placed for masterchain block 1"
        )),
        "{log}"
    );
    // The pruned server never refused the follower a block (after the
    // devnet stopped, every server fails, but not for that reason).
    assert!(!log.contains("block is not in db"), "{log}");
    assert!(log.contains(&format!("127.0.0.1:{pruned_port}")), "{log}");
}

/// Queries in flight per lite server are bounded (F7 item 3): with a slow
/// server listed first, `tonindex run --liteserver-concurrency 2` never
/// has more than two of the API's block lookups on it at once; the rest
/// go to the next server once no place frees within a second, and every
/// lookup answers as the devnet does.
#[test]
fn queries_in_flight_on_a_lite_server_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, config, _) = dev_with_lite_server(dir.path());
    while dev.mc_seqno() < 8 {
        fund(
            &dev,
            "0:5959595959595959595959595959595959595959595959595959595959595959",
            1_000_000_000,
        );
    }
    let (honest, slow, most) = proxy_in_front(&config, Lie::Slow);
    let mut both = honest.clone();
    both["liteservers"] = serde_json::json!([slow, honest["liteservers"][0].clone()]);
    let both_config = dir.path().join("both.json");
    std::fs::write(&both_config, both.to_string()).unwrap();
    let (mut run, http) = start_run(
        &dir.path().join("follower"),
        &both_config,
        &["--until-seqno", "2", "--liteserver-concurrency", "2"],
    );
    wait_for_seqno(&mut run, http, 2);
    // What the follower itself asked of the slow server is done.
    std::thread::sleep(Duration::from_secs(2));
    most.store(0, std::sync::atomic::Ordering::SeqCst);
    let lookups: Vec<_> = (3..=6)
        .map(|seqno| {
            std::thread::spawn(move || {
                let path = format!(
                    "/api/v2/lookupBlock?workchain=-1&shard=-9223372036854775808&seqno={seqno}"
                );
                (json(http, "GET", &path, ""), path)
            })
        })
        .collect();
    for lookup in lookups {
        let ((status, ours), path) = lookup.join().unwrap();
        let (_, theirs) = json(dev.port, "GET", &path, "");
        assert_eq!(status, 200, "{path}: {ours}");
        assert_eq!(ours["result"], theirs["result"], "{path}");
    }
    let most = most.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        (1..=2).contains(&most),
        "{most} queries at once on the slow server"
    );
    run.kill().unwrap();
    run.wait().unwrap();
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
    use tycho_types::boc::Boc;
    use tycho_types::cell::{Cell, CellBuilder, CellFamily as _, HashBytes, Store as _};
    use tycho_types::models::{IntAddr, StdAddr};
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
    // token-contract's NFT item: index:uint64 collection owner content:^Cell.
    let clients = std::fs::read_to_string(clients_dir().join("nft_codes.mjs")).unwrap();
    let item_code = clients
        .lines()
        .find_map(|l| l.strip_prefix("export const ITEM_CODE = \""))
        .unwrap()
        .trim_end_matches("\";")
        .to_string();
    let std_addr = |s: &str| {
        let (wc, h) = s.split_once(':').unwrap();
        StdAddr::new(
            wc.parse().unwrap(),
            HashBytes(hex::decode(h).unwrap().try_into().unwrap()),
        )
    };
    let item_data = |owner: &str| {
        let mut content = CellBuilder::new();
        content.store_u8(1).unwrap();
        content.store_raw(b"item.json", 72).unwrap();
        let mut b = CellBuilder::new();
        b.store_u64(1).unwrap();
        b.store_small_uint(0, 2).unwrap(); // no collection
        IntAddr::Std(std_addr(owner))
            .store_into(&mut b, Cell::empty_context())
            .unwrap();
        b.store_reference(content.build().unwrap()).unwrap();
        b64.encode(Boc::encode(b.build().unwrap()))
    };
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
