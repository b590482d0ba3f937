//! The contracts step of a unit: what the index reads from the account
//! states the unit writes, in the unit's batch.
//!
//! * Each contract code is read once — its get-method ids go to [`Codes`],
//!   the interface cache — so a known code costs one point lookup.
//! * Jetton masters and wallets (spec v3 §6.3) are read with their
//!   get-methods on the in-process TVM, only for code that declares them
//!   (or whose methods cannot be read: library code such as USDT's
//!   wallets). A wallet is written only when its master's
//!   `get_wallet_address(owner)` gives the wallet's address; that check
//!   runs again only when the wallet's owner, master or code changes.
//! * NFT collections and items (spec v3 §6.4), multisig v2 wallets and
//!   orders and vesting wallets (§6.5, `multisig`) the same way.
//! * GetGems sales and auctions (§6.4) as they describe themselves, for
//!   code known to declare `get_sale_data` or `get_fix_price_data_v4`:
//!   the API counts one for an item only while the item's owner is it.
//!   Telemint items (code that declares `get_telemint_token_name`) the
//!   same way, keyed by the item, which is also read as an NFT item.

mod dns_rows;
mod multisig_rows;

use std::collections::HashMap;
use std::sync::Mutex;

use tycho_types::cell::{Cell, HashBytes};
use tycho_types::dict::Dict;
use tycho_types::models::{AccountState, BlockchainConfigParams, LibDescr, ShardAccount, StdAddr};

use tonindex_model::Address;
use tonindex_storage::tables::{
    AccountPairKey, AccountStates, Codes, CollectionIndexKey, FetchedLibraries, JettonMasters,
    JettonMastersByAdmin, JettonWallets, JettonWalletsByJetton, JettonWalletsByOwner,
    MultisigOrders, NftCollections, NftCollectionsByOwner, NftItems, NftItemsByCollection,
    NftItemsByOwner, NftSales, NftSalesBySeller,
};
use tonindex_storage::{
    Batch, CodeRecord, Db, JettonMasterRecord, JettonWalletRecord, NftCollectionRecord,
    NftItemRecord, NftSaleRecord, RawBytes, SaleDetail, SaleKind,
};
use tycho_types::boc::Boc;

use crate::contracts::address::from_std as model_addr;
use crate::contracts::{
    content, interfaces::method_id, jetton, methods::method_ids, nft, nft_sale,
};
use crate::trace::classify::{
    Interfaces, JettonWallet as ClassifierJettonWallet, MultisigOrder, NftItem,
    NftSale as ClassifierNftSale,
};
use crate::tvm::getmethod::{self, Context, Contract, Method, RunOutput};

/// Gas one detection get-method may spend (a liteserver's getter limit).
const GAS_LIMIT: u64 = getmethod::DEFAULT_GAS_LIMIT;

/// The code of an active account's `ShardAccount` cell.
pub(crate) fn code_of(shard_account: &Cell) -> Option<Cell> {
    let sa: ShardAccount = shard_account.parse().ok()?;
    match sa.load_account().ok()??.state {
        AccountState::Active(init) => init.code,
        _ => None,
    }
}

/// An active account with code and data, as a get-method runs on it.
struct Active {
    contract: Contract,
    last_tx_lt: u64,
}

fn active(address: &Address, shard_account: &Cell) -> Option<Active> {
    let sa: ShardAccount = shard_account.parse().ok()?;
    let account = sa.load_account().ok()??;
    let AccountState::Active(init) = account.state else {
        return None;
    };
    Some(Active {
        contract: Contract {
            code: init.code?,
            data: init.data?,
            address: std_addr(address)?,
            balance: account.balance,
        },
        last_tx_lt: sa.last_trans_lt,
    })
}

/// Whether `parent`'s getter `method(args)` gives the address `expected`:
/// how a Jetton master, NFT collection or multisig vouches for a contract.
fn derives(
    parent: &Active,
    ctx: &Context,
    method: &str,
    args: Vec<tycho_vm::RcStackValue>,
    expected: &StdAddr,
) -> bool {
    run(&parent.contract, ctx, method, args)
        .and_then(|o| jetton::address_result(&o))
        .as_ref()
        == Some(expected)
}

/// The newest state of the contract that vouches for another (a Jetton
/// master, an NFT collection, a multisig): this unit's, else the stored
/// one; `None` when the index holds no active state of it.
fn parent(
    db: &Db,
    unit: &HashMap<Address, &Cell>,
    address: &Address,
) -> Result<Option<Active>, tonindex_storage::Error> {
    let cell = match unit.get(address) {
        Some(c) => Some((*c).clone()),
        None => db
            .get::<AccountStates>(address)?
            .and_then(|r| Boc::decode(&r.shard_account).ok()),
    };
    Ok(cell.and_then(|c| active(address, &c)))
}

fn std_addr(a: &Address) -> Option<StdAddr> {
    Some(StdAddr::new(
        i8::try_from(a.workchain).ok()?,
        HashBytes(a.id),
    ))
}

type Libraries = Dict<HashBytes, LibDescr>;

/// The config and libraries get-methods in the index run with, decoded
/// once per key block and per library dictionary rather than per unit.
#[derive(Default)]
pub struct TvmEnv {
    config: Mutex<Option<(Option<u32>, BlockchainConfigParams)>>,
    libraries: Mutex<Option<(Option<HashBytes>, Libraries)>>,
    /// Library cells a source fetched for code the held masterchain state
    /// does not cover (a follower holds none), by hash: those of this
    /// process and those read back from `FetchedLibraries`.
    fetched: Mutex<HashMap<HashBytes, Cell>>,
}

impl TvmEnv {
    /// Of `hashes`, the libraries neither the held masterchain state nor
    /// an earlier fetch (of this process, or stored) has. Stored ones are
    /// taken into memory here, for the get-methods of the units after.
    pub fn missing_libraries(&self, db: &Db, hashes: &[HashBytes]) -> Vec<HashBytes> {
        let held = self.context(db, None, 0).libraries;
        let mut fetched = self.fetched.lock().unwrap_or_else(|p| p.into_inner());
        let mut missing = Vec::new();
        for h in hashes {
            if fetched.contains_key(h) || matches!(held.get(*h), Ok(Some(_))) {
                continue;
            }
            match crate::state::libraries::fetched(&db.reader(), h) {
                Some(cell) => {
                    fetched.insert(*h, cell);
                }
                None => missing.push(*h),
            }
        }
        missing
    }

    /// Keeps library cells a source fetched (each checked against its
    /// hash), for the get-methods of every later unit, and stores them in
    /// one batch so that a restart has them.
    pub fn add_libraries(&self, db: &Db, cells: Vec<Cell>) -> Result<(), tonindex_storage::Error> {
        let mut batch = db.batch();
        for c in &cells {
            batch.put::<FetchedLibraries>(c.repr_hash().as_array(), &RawBytes(Boc::encode(c)));
        }
        db.write(batch)?;
        let mut fetched = self.fetched.lock().unwrap_or_else(|p| p.into_inner());
        for c in cells {
            fetched.insert(*c.repr_hash(), c);
        }
        Ok(())
    }

    fn context(&self, db: &Db, mc_seqno: Option<u32>, now: u32) -> Context {
        let reader = db.reader();
        let found = crate::query::config_in_force::config_at(&reader, mc_seqno)
            .ok()
            .flatten();
        let key = found.as_ref().map(|(s, _)| *s);
        let config = {
            let mut cached = self.config.lock().unwrap_or_else(|p| p.into_inner());
            match cached.as_ref() {
                Some((k, c)) if *k == key => c.clone(),
                _ => {
                    let c = found
                        .and_then(|(_, boc)| crate::tvm::blockchain_config::from_boc(&boc).ok())
                        .unwrap_or_else(crate::tvm::blockchain_config::builtin);
                    *cached = Some((key, c.clone()));
                    c
                }
            }
        };
        let root = crate::state::libraries::root_hash(&reader).ok().flatten();
        let libraries = {
            let mut cached = self.libraries.lock().unwrap_or_else(|p| p.into_inner());
            match cached.as_ref() {
                Some((k, l)) if *k == root => l.clone(),
                _ => {
                    let l = root
                        .and_then(|r| crate::state::libraries::load(&reader, &r).ok())
                        .unwrap_or_default();
                    *cached = Some((root, l.clone()));
                    l
                }
            }
        };
        let mut libraries = libraries;
        for (hash, cell) in self
            .fetched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            let _ = libraries.set(*hash, crate::tvm::getmethod::library_descr(cell.clone()));
        }
        Context {
            config,
            libraries,
            now,
            lt: 0,
            rand_seed: HashBytes::ZERO,
            gas_limit: GAS_LIMIT,
            time_limit: None,
        }
    }
}

/// What the step did, for the caller's counters.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ContractsDone {
    pub new_codes: usize,
    pub getmethod_runs: usize,
    pub jetton_masters: usize,
    pub jetton_wallets: usize,
    /// Contracts that claim to be a Jetton wallet and whose master does
    /// not confirm them (or whose master's state the index does not hold).
    pub unconfirmed_wallets: usize,
    pub nft_collections: usize,
    pub nft_items: usize,
    /// NFT items their collection does not confirm (or whose collection's
    /// state the index does not hold).
    pub unconfirmed_items: usize,
    pub multisigs: usize,
    pub multisig_orders: usize,
    /// Orders their multisig does not confirm (or whose multisig's state
    /// the index does not hold).
    pub unconfirmed_orders: usize,
    pub vestings: usize,
    pub dns_entries: usize,
    /// GetGems sales and auctions read.
    pub nft_sales: usize,
}

/// Whether code with get-method ids `methods` may answer `name` (code
/// whose ids cannot be read, such as a library reference, may).
fn declares(methods: &Option<Vec<u32>>, name: &str) -> bool {
    methods
        .as_ref()
        .is_none_or(|m| m.binary_search(&method_id(name)).is_ok())
}

/// The get-method ids of the library a library-reference code cell
/// names, when the context holds that library.
fn library_methods(code: &Cell, ctx: &Context) -> Option<Vec<u32>> {
    if code.descriptor().cell_type() != tycho_types::cell::CellType::LibraryReference {
        return None;
    }
    let hash = HashBytes(code.data().get(1..33)?.try_into().ok()?);
    let descr = ctx.libraries.get(hash).ok()??;
    method_ids(&descr.lib)
}

/// Whether `acc`'s code (whose methods the step has read into `codes`)
/// may answer `name`.
fn declares_method(acc: &Active, codes: &HashMap<HashBytes, Option<Vec<u32>>>, name: &str) -> bool {
    codes
        .get(acc.contract.code.repr_hash())
        .is_none_or(|m| declares(m, name))
}

/// The contracts step over the account states a unit wrote (oldest
/// first): `mc_seqno` picks the config in force, `now` the time of runs.
pub(crate) fn index_contracts(
    db: &Db,
    env: &TvmEnv,
    batch: &mut Batch<'_>,
    written: &[(Address, Cell)],
    mc_seqno: Option<u32>,
    now: u32,
) -> Result<ContractsStep, tonindex_storage::Error> {
    let mut done = ContractsDone::default();
    let mut confirmed_now = HashMap::new();
    let mut items_now = HashMap::new();
    // The newest state of each account the unit wrote.
    let mut newest: HashMap<Address, &Cell> = HashMap::new();
    for (a, c) in written {
        newest.insert(*a, c);
    }
    let mut codes: HashMap<HashBytes, Option<Vec<u32>>> = HashMap::new();
    let mut context: Option<Context> = None;
    let mut order: Vec<&Address> = newest.keys().collect();
    order.sort();
    // Masters first, so that a wallet whose master the same unit changed
    // sees the master's new state.
    let mut wallets = Vec::new();
    for address in order {
        let Some(acc) = active(address, newest[address]) else {
            continue;
        };
        let code_hash = *acc.contract.code.repr_hash();
        let methods = match codes.get(&code_hash) {
            Some(m) => m.clone(),
            None => {
                let m = code_methods(db, batch, &acc, &mut done, || {
                    context.get_or_insert_with(|| env.context(db, mc_seqno, now))
                })?;
                codes.insert(code_hash, m.clone());
                m
            }
        };
        let declares = |name: &str| declares(&methods, name);
        let (maybe_master, maybe_wallet) =
            (declares("get_jetton_data"), declares("get_wallet_data"));
        let (maybe_collection, maybe_item) =
            (declares("get_collection_data"), declares("get_nft_data"));
        let (maybe_multisig, maybe_order) =
            (declares("get_multisig_data"), declares("get_order_data"));
        let vesting = code_hash == crate::contracts::multisig::VESTING_CODE_HASH;
        // Sales only where the code's methods are known to include the
        // getter (no library-code contract is a GetGems sale).
        let surely = |name: &str| {
            methods
                .as_ref()
                .is_some_and(|m| m.binary_search(&method_id(name)).is_ok())
        };
        let (sale_v4, sale) = (surely("get_fix_price_data_v4"), surely("get_sale_data"));
        let telemint = surely("get_telemint_token_name") && maybe_item;
        if !(maybe_master
            || maybe_wallet
            || maybe_collection
            || maybe_item
            || maybe_multisig
            || maybe_order
            || vesting
            || sale_v4
            || sale
            || telemint)
        {
            continue;
        }
        let ctx = context.get_or_insert_with(|| env.context(db, mc_seqno, now));
        // A Telemint item's own auction; the item is then read as an NFT
        // item like any other.
        if telemint {
            if let Some(data) = telemint_row(&acc.contract, ctx, &mut done) {
                put_sale(db, batch, address, &acc, &data)?;
                done.nft_sales += 1;
            }
        }
        let kinds = Standalone {
            sale_v4,
            sale,
            vesting,
            multisig: maybe_multisig,
            master: maybe_master,
            collection: maybe_collection,
        };
        if index_standalone(db, batch, ctx, address, &acc, kinds, &mut done)? {
            continue;
        }
        if maybe_wallet || maybe_item || maybe_order {
            wallets.push((address, acc, maybe_wallet, maybe_item, maybe_order));
        }
    }
    // Then what a master, collection or multisig of the unit confirms.
    for (address, acc, maybe_wallet, maybe_item, maybe_order) in wallets {
        let Some(ctx) = context.as_ref() else { break };
        if maybe_order
            && multisig_rows::index_order(db, batch, ctx, &newest, address, &acc, &mut done)?
        {
            continue;
        }
        let w = if maybe_wallet {
            done.getmethod_runs += 1;
            run(&acc.contract, ctx, "get_wallet_data", vec![]).and_then(|o| jetton::wallet_data(&o))
        } else {
            None
        };
        let Some(w) = w else {
            if maybe_item {
                index_item(
                    db,
                    batch,
                    ctx,
                    &newest,
                    address,
                    &acc,
                    &mut done,
                    &mut items_now,
                )?;
            }
            continue;
        };
        let wallet = index_jetton_wallet(
            db, batch, ctx, &newest, &codes, address, &acc, &w, &mut done,
        );
        if let Some(record) = wallet? {
            confirmed_now.insert(*address, record);
        }
    }
    Ok(ContractsStep {
        done,
        wallets: confirmed_now,
        items: items_now,
    })
}

/// What a contract's methods say it may be, of the kinds that stand on
/// their own (no other contract confirms them).
#[derive(Clone, Copy)]
struct Standalone {
    sale_v4: bool,
    sale: bool,
    vesting: bool,
    multisig: bool,
    master: bool,
    collection: bool,
}

/// Runs the getters of the standalone kinds `acc` may be, in order (a
/// GetGems sale, a vesting wallet, a multisig, a Jetton master, an NFT
/// collection), and stores the first that answers: true when one did
/// (a vesting wallet is done with either way).
fn index_standalone(
    db: &Db,
    batch: &mut Batch<'_>,
    ctx: &Context,
    address: &Address,
    acc: &Active,
    kinds: Standalone,
    done: &mut ContractsDone,
) -> Result<bool, tonindex_storage::Error> {
    if kinds.sale_v4 || kinds.sale {
        done.getmethod_runs += 1;
        let data = if kinds.sale_v4 {
            run(&acc.contract, ctx, "get_fix_price_data_v4", vec![])
                .and_then(|o| nft_sale::fix_price_data_v4(&o))
        } else {
            run(&acc.contract, ctx, "get_sale_data", vec![]).and_then(|o| nft_sale::sale_data(&o))
        };
        if let Some(data) = data {
            put_sale(db, batch, address, acc, &data)?;
            done.nft_sales += 1;
            return Ok(true);
        }
    }
    if kinds.vesting {
        done.getmethod_runs += 1;
        if let Some(v) = run(&acc.contract, ctx, "get_vesting_data", vec![])
            .and_then(|o| crate::contracts::multisig::vesting_data(&o))
        {
            multisig_rows::put_vesting(db, batch, address, acc, &v)?;
            done.vestings += 1;
        }
        return Ok(true);
    }
    if kinds.multisig {
        done.getmethod_runs += 1;
        if let Some(m) = run(&acc.contract, ctx, "get_multisig_data", vec![])
            .and_then(|o| crate::contracts::multisig::multisig_data(&o))
        {
            multisig_rows::put_multisig(db, batch, address, acc, &m)?;
            done.multisigs += 1;
            return Ok(true);
        }
    }
    if kinds.master {
        done.getmethod_runs += 1;
        if let Some(m) =
            run(&acc.contract, ctx, "get_jetton_data", vec![]).and_then(|o| jetton::master_data(&o))
        {
            put_master(db, batch, address, acc, &m)?;
            done.jetton_masters += 1;
            return Ok(true);
        }
    }
    if kinds.collection {
        done.getmethod_runs += 1;
        if let Some(c) = run(&acc.contract, ctx, "get_collection_data", vec![])
            .and_then(|o| nft::collection_data(&o))
        {
            put_collection(db, batch, address, acc, &c)?;
            done.nft_collections += 1;
            return Ok(true);
        }
    }
    Ok(false)
}

/// A Jetton wallet the unit wrote, its `get_wallet_data` answered (`w`):
/// stored, repointed in the owner and Jetton listings, unless its master
/// does not confirm it (logged, left out). Hands back the stored record.
#[allow(clippy::too_many_arguments)]
fn index_jetton_wallet(
    db: &Db,
    batch: &mut Batch<'_>,
    ctx: &Context,
    newest: &HashMap<Address, &Cell>,
    codes: &HashMap<HashBytes, Option<Vec<u32>>>,
    address: &Address,
    acc: &Active,
    w: &jetton::WalletData,
    done: &mut ContractsDone,
) -> Result<Option<JettonWalletRecord>, tonindex_storage::Error> {
    // Mintless-airdrop wallets answer `is_claimed` (spec v3 §6.3).
    let mintless_is_claimed = if declares_method(acc, codes, "is_claimed") {
        done.getmethod_runs += 1;
        run(&acc.contract, ctx, "is_claimed", vec![]).and_then(|o| jetton::is_claimed(&o))
    } else {
        None
    };
    let record = JettonWalletRecord {
        balance: w.balance,
        owner: model_addr(&w.owner),
        jetton: model_addr(&w.jetton),
        last_tx_lt: acc.last_tx_lt,
        code_hash: *acc.contract.code.repr_hash().as_array(),
        data_hash: *acc.contract.data.repr_hash().as_array(),
        mintless_is_claimed,
    };
    let old = db.get::<JettonWallets>(address)?;
    let confirmed_before = old.as_ref().is_some_and(|o| {
        o.owner == record.owner && o.jetton == record.jetton && o.code_hash == record.code_hash
    });
    if !confirmed_before {
        done.getmethod_runs += 1;
        if !confirmed(db, ctx, newest, w, &acc.contract.address)? {
            done.unconfirmed_wallets += 1;
            left_out(
                &acc.contract.address,
                "jetton_wallet_not_confirmed_by_master",
            );
            return Ok(None);
        }
    }
    repoint::<JettonWalletsByOwner>(
        batch,
        old.as_ref().map(|o| o.owner),
        Some(record.owner),
        address,
    );
    repoint::<JettonWalletsByJetton>(
        batch,
        old.as_ref().map(|o| o.jetton),
        Some(record.jetton),
        address,
    );
    batch.put::<JettonWallets>(address, &record);
    done.jetton_wallets += 1;
    Ok(Some(record))
}

/// The get-method ids of `acc`'s code: its stored row, else read from
/// the code (and the row put); library code (USDT's wallets, mintless
/// Jettons) takes them from the library it names, where held (its row
/// says what the code cell itself declares: none, as toncenter's
/// `contract_methods` has it).
fn code_methods<'c>(
    db: &Db,
    batch: &mut Batch<'_>,
    acc: &Active,
    done: &mut ContractsDone,
    context: impl FnOnce() -> &'c Context,
) -> Result<Option<Vec<u32>>, tonindex_storage::Error> {
    let code_hash = acc.contract.code.repr_hash();
    let m = match db.get::<Codes>(code_hash.as_array())? {
        Some(r) => r.methods,
        None => {
            let m = method_ids(&acc.contract.code);
            batch.put::<Codes>(code_hash.as_array(), &CodeRecord { methods: m.clone() });
            done.new_codes += 1;
            m
        }
    };
    Ok(m.or_else(|| library_methods(&acc.contract.code, context())))
}

/// The contracts that vouch for others among `accounts` (a Jetton
/// wallet's master, an NFT item's collection, a multisig order's multisig)
/// whose state the index does not hold: what a source that can fetch
/// states (a follower that started after they last changed) fetches with
/// the unit, so that the contracts step can confirm them. A contract the
/// index confirmed before is not asked again.
pub(crate) fn parents_wanted(
    db: &Db,
    env: &TvmEnv,
    accounts: &[(Address, Cell)],
    mc_seqno: Option<u32>,
    now: u32,
) -> Result<Vec<Address>, tonindex_storage::Error> {
    let given: std::collections::HashSet<Address> = accounts.iter().map(|(a, _)| *a).collect();
    let mut context: Option<Context> = None;
    let mut out = std::collections::BTreeSet::new();
    for (address, cell) in accounts {
        let Some(acc) = active(address, cell) else {
            continue;
        };
        let methods = match db.get::<Codes>(acc.contract.code.repr_hash().as_array())? {
            Some(r) => r.methods,
            None => method_ids(&acc.contract.code),
        };
        let declares = |name: &str| declares(&methods, name);
        let wallet = declares("get_wallet_data") && !db.contains::<JettonWallets>(address)?;
        let item = declares("get_nft_data") && !db.contains::<NftItems>(address)?;
        let order = declares("get_order_data") && !db.contains::<MultisigOrders>(address)?;
        if !(wallet || item || order) {
            continue;
        }
        let ctx = context.get_or_insert_with(|| env.context(db, mc_seqno, now));
        let mut parent = None;
        if wallet {
            parent = run(&acc.contract, ctx, "get_wallet_data", vec![])
                .and_then(|o| jetton::wallet_data(&o))
                .map(|w| w.jetton);
        }
        if parent.is_none() && item {
            parent = run(&acc.contract, ctx, "get_nft_data", vec![])
                .and_then(|o| nft::item_data(&o))
                .and_then(|i| i.collection);
        }
        if parent.is_none() && order {
            parent = run(&acc.contract, ctx, "get_order_data", vec![])
                .and_then(|o| crate::contracts::multisig::order_data(&o))
                .map(|o| o.multisig);
        }
        let Some(parent) = parent.map(|p| model_addr(&p)) else {
            continue;
        };
        if !given.contains(&parent) && !db.contains::<AccountStates>(&parent)? {
            out.insert(parent);
        }
    }
    Ok(out.into_iter().collect())
}

/// What the contracts step of a unit did and the token rows it wrote, for
/// the step after it (token events) to see.
pub(crate) struct ContractsStep {
    pub done: ContractsDone,
    pub wallets: HashMap<Address, JettonWalletRecord>,
    pub items: HashMap<Address, NftItemRecord>,
}

fn put_collection(
    db: &Db,
    batch: &mut Batch<'_>,
    address: &Address,
    acc: &Active,
    c: &nft::CollectionData,
) -> Result<(), tonindex_storage::Error> {
    let record = NftCollectionRecord {
        next_item_index: c.next_item_index.to_string(),
        owner: c.owner.as_ref().map(model_addr),
        content: content::parse(&c.content).map(|c| c.into_iter().collect()),
        last_tx_lt: acc.last_tx_lt,
        code_hash: *acc.contract.code.repr_hash().as_array(),
        data_hash: *acc.contract.data.repr_hash().as_array(),
    };
    let old = db.get::<NftCollections>(address)?.and_then(|o| o.owner);
    repoint::<NftCollectionsByOwner>(batch, old, record.owner, address);
    batch.put::<NftCollections>(address, &record);
    Ok(())
}

/// A Telemint item's row from its getters (none while it is not deployed:
/// its token-name getter then fails).
fn telemint_row(
    contract: &Contract,
    ctx: &Context,
    done: &mut ContractsDone,
) -> Option<nft_sale::SaleData> {
    let mut get = |name: &str| {
        done.getmethod_runs += 1;
        run(contract, ctx, name, vec![])
    };
    let name = get("get_telemint_token_name").and_then(|o| nft_sale::telemint_token_name(&o))?;
    let (state, config, royalty) = (
        get("get_telemint_auction_state"),
        get("get_telemint_auction_config"),
        get("royalty_params"),
    );
    nft_sale::telemint(
        contract.address.clone(),
        name,
        state.as_ref(),
        config.as_ref(),
        royalty.as_ref(),
    )
}

/// A GetGems sale or auction as its contract describes itself: the
/// contract's own word (the API counts it for the NFT's seller only while
/// the NFT's owner is this contract).
fn put_sale(
    db: &Db,
    batch: &mut Batch<'_>,
    address: &Address,
    acc: &Active,
    data: &nft_sale::SaleData,
) -> Result<(), tonindex_storage::Error> {
    let details = data
        .details
        .iter()
        .map(|(name, value)| {
            let value = match value {
                nft_sale::Detail::Bool(b) => SaleDetail::Bool(*b),
                nft_sale::Detail::Int(i) => SaleDetail::Int(*i),
                nft_sale::Detail::Amount(a) => SaleDetail::Amount(a.clone()),
                nft_sale::Detail::Address(a) => SaleDetail::Address(a.as_ref().map(model_addr)),
                nft_sale::Detail::Text(t) => SaleDetail::Text(t.clone()),
            };
            (name.to_string(), value)
        })
        .collect();
    let record = NftSaleRecord {
        kind: data.kind,
        nft: model_addr(&data.nft),
        owner: data.owner.as_ref().map(model_addr),
        marketplace: data.marketplace.as_ref().map(model_addr),
        created_at: data.created_at,
        details,
        last_tx_lt: acc.last_tx_lt,
        code_hash: *acc.contract.code.repr_hash().as_array(),
        data_hash: *acc.contract.data.repr_hash().as_array(),
    };
    let old = db.get::<NftSales>(address)?.and_then(|o| o.owner);
    repoint::<NftSalesBySeller>(batch, old, record.owner, address);
    batch.put::<NftSales>(address, &record);
    Ok(())
}

/// Moves `address`'s row in a `first account | address` index (by owner,
/// admin, seller, wallet …) from `old` to `new` (either may be none).
pub(super) fn repoint<T>(
    batch: &mut Batch<'_>,
    old: Option<Address>,
    new: Option<Address>,
    address: &Address,
) where
    T: tonindex_storage::tables::Table<Key = AccountPairKey, Value = ()>,
{
    if let Some(first) = old {
        batch.delete::<T>(&AccountPairKey {
            first,
            second: *address,
        });
    }
    if let Some(first) = new {
        batch.put::<T>(
            &AccountPairKey {
                first,
                second: *address,
            },
            &(),
        );
    }
}

/// An index as the by-collection key orders it: big-endian in 256 bits
/// (`None` for a negative or wider one).
fn index_key(index: &num_bigint::BigInt) -> Option<[u8; 32]> {
    let (sign, bytes) = index.to_bytes_be();
    if sign == num_bigint::Sign::Minus || bytes.len() > 32 {
        return None;
    }
    let mut out = [0u8; 32];
    out[32 - bytes.len()..].copy_from_slice(&bytes);
    Some(out)
}

/// Reads an NFT item (`get_nft_data`); an item of a collection is written
/// only when the collection derives its address from its index, with the
/// full content the collection gives for it.
#[allow(clippy::too_many_arguments)]
fn index_item(
    db: &Db,
    batch: &mut Batch<'_>,
    ctx: &Context,
    unit: &HashMap<Address, &Cell>,
    address: &Address,
    acc: &Active,
    done: &mut ContractsDone,
    items_now: &mut HashMap<Address, NftItemRecord>,
) -> Result<(), tonindex_storage::Error> {
    done.getmethod_runs += 1;
    let Some(item) =
        run(&acc.contract, ctx, "get_nft_data", vec![]).and_then(|o| nft::item_data(&o))
    else {
        return Ok(());
    };
    let Some(index) = index_key(&item.index) else {
        return Ok(());
    };
    let content_cell = match &item.collection {
        Some(coll) => {
            let Some(collection) = parent(db, unit, &model_addr(coll))? else {
                done.unconfirmed_items += 1;
                left_out(&acc.contract.address, "nft_item_collection_not_held");
                return Ok(());
            };
            done.getmethod_runs += 2;
            let index = vec![nft::index_arg(&item.index)];
            if !derives(
                &collection,
                ctx,
                "get_nft_address_by_index",
                index,
                &acc.contract.address,
            ) {
                done.unconfirmed_items += 1;
                left_out(
                    &acc.contract.address,
                    "nft_item_not_confirmed_by_collection",
                );
                return Ok(());
            }
            run(
                &collection.contract,
                ctx,
                "get_nft_content",
                nft::content_args(&item),
            )
            .and_then(|o| nft::content_result(&o))
        }
        None => Some(item.individual_content.clone()),
    };
    let mut record = NftItemRecord {
        init: item.init,
        index,
        collection: item.collection.as_ref().map(model_addr),
        owner: item.owner.as_ref().map(model_addr),
        content: content_cell
            .as_ref()
            .and_then(content::parse)
            .map(|c| c.into_iter().collect()),
        last_tx_lt: acc.last_tx_lt,
        code_hash: *acc.contract.code.repr_hash().as_array(),
        data_hash: *acc.contract.data.repr_hash().as_array(),
    };
    if item
        .collection
        .as_ref()
        .is_some_and(crate::contracts::dns::is_dns_collection)
    {
        dns_rows::index_entry(db, batch, ctx, address, acc, &mut record, done)?;
    }
    let old = db.get::<NftItems>(address)?;
    repoint::<NftItemsByOwner>(
        batch,
        old.as_ref().and_then(|o| o.owner),
        record.owner,
        address,
    );
    if let Some(old) = old {
        if let Some(coll) = old.collection {
            batch.delete::<NftItemsByCollection>(&CollectionIndexKey {
                collection: coll,
                index: old.index,
                item: *address,
            });
        }
    }
    if let Some(coll) = record.collection {
        batch.put::<NftItemsByCollection>(
            &CollectionIndexKey {
                collection: coll,
                index,
                item: *address,
            },
            &(),
        );
    }
    batch.put::<NftItems>(address, &record);
    items_now.insert(*address, record);
    done.nft_items += 1;
    Ok(())
}

fn run(
    contract: &Contract,
    ctx: &Context,
    method: &str,
    stack: Vec<tycho_vm::RcStackValue>,
) -> Option<RunOutput> {
    match getmethod::run(contract, ctx, &Method::Name(method.into()), stack) {
        Ok(out) => {
            // 0 and 1 are success; anything else is the contract throwing.
            if !matches!(out.exit_code, 0 | 1) {
                getter_failed(
                    &contract.address,
                    method,
                    &format!("exit code {}", out.exit_code),
                );
            }
            Some(out)
        }
        Err(e) => {
            getter_failed(&contract.address, method, &e.to_string());
            None
        }
    }
}

/// A getter the token tables rely on failed on `account`: told (debug)
/// and counted, so that an operator can tell "not a token" from "broken".
fn getter_failed(account: &StdAddr, getter: &str, why: &str) {
    tracing::debug!(%account, getter, why, "a contract's getter failed: left out of the token tables");
    metrics::counter!("tonindex_token_getter_failures_total", "getter" => getter.to_string())
        .increment(1);
}

/// A contract that looks like a token but is left out: its master or
/// collection does not vouch for it (or is not held).
fn left_out(account: &StdAddr, reason: &'static str) {
    tracing::debug!(%account, reason, "a token contract was left out of the token tables");
    metrics::counter!("tonindex_token_contracts_left_out_total", "reason" => reason).increment(1);
}

fn put_master(
    db: &Db,
    batch: &mut Batch<'_>,
    address: &Address,
    acc: &Active,
    m: &jetton::MasterData,
) -> Result<(), tonindex_storage::Error> {
    let record = JettonMasterRecord {
        total_supply: m.total_supply,
        mintable: m.mintable,
        admin: m.admin.as_ref().map(model_addr),
        content: content::parse(&m.content).map(|c| c.into_iter().collect()),
        wallet_code_hash: *m.wallet_code.repr_hash().as_array(),
        last_tx_lt: acc.last_tx_lt,
        code_hash: *acc.contract.code.repr_hash().as_array(),
        data_hash: *acc.contract.data.repr_hash().as_array(),
    };
    let old = db.get::<JettonMasters>(address)?.and_then(|o| o.admin);
    repoint::<JettonMastersByAdmin>(batch, old, record.admin, address);
    batch.put::<JettonMasters>(address, &record);
    Ok(())
}

/// Whether the wallet's master, in its newest state the index holds (this
/// unit's, else the stored one), derives `wallet` for the wallet's owner.
fn confirmed(
    db: &Db,
    ctx: &Context,
    unit: &HashMap<Address, &Cell>,
    w: &jetton::WalletData,
    wallet: &StdAddr,
) -> Result<bool, tonindex_storage::Error> {
    let Some(acc) = parent(db, unit, &model_addr(&w.jetton))? else {
        return Ok(false);
    };
    let Some(arg) = jetton::owner_arg(&w.owner) else {
        return Ok(false);
    };
    Ok(derives(&acc, ctx, "get_wallet_address", vec![arg], wallet))
}

/// What the classifier may ask the index about contracts: the token tables
/// and account states as stored. A unit's traces are assembled and
/// classified once it is committed (see `crate::index::traces::Deferred`),
/// so that unit's own rows are among them.
pub(crate) struct IndexInterfaces<'a> {
    pub db: &'a Db,
}

impl Interfaces for IndexInterfaces<'_> {
    fn jetton_wallet(&self, account: &Address) -> Option<ClassifierJettonWallet> {
        let w = self.db.get::<JettonWallets>(account).ok()??;
        Some(ClassifierJettonWallet {
            owner: w.owner,
            jetton: w.jetton,
        })
    }
    fn nft_item(&self, account: &Address) -> Option<NftItem> {
        let i = self.db.get::<NftItems>(account).ok()??;
        Some(NftItem {
            collection: i.collection,
            index: num_bigint::BigUint::from_bytes_be(&i.index).to_string(),
        })
    }
    fn nft_sale(&self, account: &Address) -> Option<ClassifierNftSale> {
        crate::query::tokens::sale_interface(&self.sale(account)?, SaleKind::FixedPrice)
    }
    fn nft_auction(&self, account: &Address) -> Option<ClassifierNftSale> {
        crate::query::tokens::sale_interface(&self.sale(account)?, SaleKind::Auction)
    }
    fn teleitem(&self, account: &Address) -> bool {
        self.sale(account)
            .is_some_and(|s| s.kind == SaleKind::Telemint)
    }
    fn code_hash(&self, account: &Address) -> Option<tonindex_model::Hash> {
        self.db.get::<AccountStates>(account).ok()??.code_hash
    }
    fn multisig_order(&self, account: &Address) -> Option<MultisigOrder> {
        let o = self.db.get::<MultisigOrders>(account).ok()??;
        Some(MultisigOrder { signers: o.signers })
    }
    fn account_data(&self, account: &Address) -> Option<Cell> {
        let record = self.db.get::<AccountStates>(account).ok()??;
        crate::contracts::active_data(&record.shard_account)
    }
}

impl IndexInterfaces<'_> {
    fn sale(&self, account: &Address) -> Option<NftSaleRecord> {
        self.db.get::<NftSales>(account).ok()?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use tonindex_storage::{AccountStateRecord, DbOptions};
    use tycho_types::models::IntAddr;

    /// Active accounts of the tonutils-go fat block (mainnet): address,
    /// ShardAccount BoC and cell, and the data cell as the state holds it.
    fn fat_block_accounts() -> Vec<(Address, Vec<u8>, Cell, Cell)> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fixtures/blocks/tonutils-go/tvm_replay_fat_block_66519406.json"
        );
        let j: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).expect("fat block fixture")).unwrap();
        j["previous_accounts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| {
                let boc = base64::engine::general_purpose::STANDARD
                    .decode(a["shard_account_boc_base64"].as_str()?)
                    .ok()?;
                let cell = Boc::decode(&boc).ok()?;
                let account = cell.parse::<ShardAccount>().ok()?.load_account().ok()??;
                let (AccountState::Active(init), IntAddr::Std(std)) =
                    (account.state, account.address)
                else {
                    return None;
                };
                Some((model_addr(&std), boc, cell, init.data?))
            })
            .collect()
    }

    /// The classifier's `account_data`: an account's data cell as the
    /// index stores its state, in the index step and in the API's reads
    /// alike; an account the index holds no state of has none.
    #[test]
    fn account_data_comes_from_the_stored_state() {
        let accounts = fat_block_accounts();
        let [(a, _, _, _), (b, b_boc, _, b_data), ..] = accounts.as_slice() else {
            panic!("two active accounts in the fat block");
        };
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), &DbOptions::default()).unwrap();
        let mut batch = db.batch();
        let record = AccountStateRecord {
            shard_account: b_boc.clone(),
            state: None,
            gen_utime: 0,
            code_hash: None,
        };
        batch.put::<AccountStates>(b, &record);
        db.write(batch).unwrap();
        let index = IndexInterfaces { db: &db };
        let hash = |c: Option<Cell>| c.map(|c| *c.repr_hash());
        assert_eq!(hash(index.account_data(b)), Some(*b_data.repr_hash()));
        assert!(index.account_data(a).is_none());
        let nobody = Address {
            workchain: 0,
            id: [7; 32],
        };
        assert!(index.account_data(&nobody).is_none());
        let reader = db.reader();
        let stored = crate::query::tokens::StoredInterfaces(&reader);
        assert_eq!(hash(stored.account_data(b)), Some(*b_data.repr_hash()));
        assert!(stored.account_data(a).is_none());
    }
}
