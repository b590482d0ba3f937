//! The devnet's zerostates: a basechain state holding the genesis accounts
//! and a masterchain state holding the config (whose param 12 names the
//! basechain zerostate) and the basechain's seqno-0 entry in its shard
//! hashes, as TON's own zerostates are laid out.

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, HashBytes, Lazy, StorageStat, Store};
use tycho_types::dict::{AugDict, Dict};
use tycho_types::error::Error;
use tycho_types::models::{
    Account, AccountState, BlockchainConfig, CurrencyCollection, DepthBalanceInfo, IntAddr,
    LibDescr, McStateExtra, OptionalAccount, ShardAccount, ShardAccounts, ShardDescription,
    ShardHashes, ShardIdent, ShardStateUnsplit, StateInit, StdAddr, StorageInfo, StorageUsed,
    ValidatorInfo,
};
use tycho_types::num::{Tokens, VarUint56};

use super::genesis_config::{self as config, ConfigInputs};
use crate::state::storage_dict;

/// An account present at genesis.
#[derive(Debug, Clone)]
pub struct GenesisAccount {
    pub address: StdAddr,
    pub balance: Tokens,
    /// Code and data make it active; without them it is uninit with coins.
    pub state_init: Option<StateInit>,
}

/// A zerostate and the BoC whose hash is its file hash.
#[derive(Debug, Clone)]
pub struct Zerostate {
    pub root: Cell,
    pub boc: Vec<u8>,
    pub root_hash: HashBytes,
    pub file_hash: HashBytes,
}

impl Zerostate {
    fn new(state: &ShardStateUnsplit) -> Result<Self, Error> {
        let root = CellBuilder::build_from(state)?;
        let boc = Boc::encode(root.as_ref());
        Ok(Self {
            root_hash: *root.repr_hash(),
            file_hash: HashBytes(sha256(&boc)),
            root,
            boc,
        })
    }
}

/// Both zerostates.
pub struct Genesis {
    pub masterchain: Zerostate,
    pub basechain: Zerostate,
}

pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes).into()
}

/// Builds the zerostates: `accounts` in the workchain of their address,
/// `libraries` public in the masterchain (published by the config contract).
pub fn build(
    global_id: i32,
    validator_key: [u8; 32],
    utime: u32,
    accounts: &[GenesisAccount],
    libraries: &[Cell],
) -> Result<Genesis, Error> {
    let (mc_accounts, wc_accounts): (Vec<_>, Vec<_>) =
        accounts.iter().partition(|a| a.address.workchain == -1);

    let basechain = ShardStateUnsplit {
        global_id,
        shard_ident: ShardIdent::new_full(0),
        gen_utime: utime,
        out_msg_queue_info: empty_out_msg_queue_info()?,
        ..shard_state_with(&wc_accounts, utime)?
    };
    let basechain = Zerostate::new(&basechain)?;

    let inputs = ConfigInputs {
        global_id,
        validator_key,
        genesis_utime: utime,
        basechain_zerostate: (basechain.root_hash, basechain.file_hash),
    };
    let params = config::genesis_config(&inputs)?;
    let mc_base = shard_state_with(&mc_accounts, utime)?;
    let wc_state: ShardStateUnsplit = basechain.root.parse()?;
    let mut global_balance = mc_base.total_balance.clone();
    global_balance.tokens = global_balance
        .tokens
        .checked_add(wc_state.total_balance.tokens)
        .ok_or(Error::IntOverflow)?;
    let extra = McStateExtra {
        shards: ShardHashes::from_shards([(
            &ShardIdent::new_full(0),
            &zerostate_descr(&basechain, utime),
        )])?,
        config: BlockchainConfig {
            address: config::CONFIG_ADDRESS,
            params,
        },
        validator_info: ValidatorInfo {
            validator_list_hash_short: config::validator_list_hash_short(&inputs),
            catchain_seqno: 0,
            nx_cc_updated: true,
        },
        prev_blocks: AugDict::new(),
        after_key_block: true,
        last_key_block: None,
        block_create_stats: None,
        global_balance,
    };
    let masterchain = ShardStateUnsplit {
        global_id,
        shard_ident: ShardIdent::MASTERCHAIN,
        gen_utime: utime,
        out_msg_queue_info: empty_out_msg_queue_info()?,
        custom: Some(Lazy::new(&extra)?),
        libraries: public_libraries(libraries)?,
        ..mc_base
    };
    Ok(Genesis {
        masterchain: Zerostate::new(&masterchain)?,
        basechain,
    })
}

/// The masterchain's library dictionary holding `libraries`, each
/// published by the config contract.
fn public_libraries(libraries: &[Cell]) -> Result<Dict<HashBytes, LibDescr>, Error> {
    let mut dict = Dict::new();
    for lib in libraries {
        let mut publishers = Dict::new();
        publishers.set(config::CONFIG_ADDRESS, ())?;
        dict.set(
            *lib.repr_hash(),
            LibDescr {
                lib: lib.clone(),
                publishers,
            },
        )?;
    }
    Ok(dict)
}

/// The masterchain's entry for the basechain at its zerostate.
fn zerostate_descr(zs: &Zerostate, utime: u32) -> ShardDescription {
    ShardDescription {
        seqno: 0,
        reg_mc_seqno: 0,
        start_lt: 0,
        end_lt: 0,
        root_hash: zs.root_hash,
        file_hash: zs.file_hash,
        before_split: false,
        before_merge: false,
        want_split: false,
        want_merge: false,
        nx_cc_updated: true,
        next_catchain_seqno: 0,
        next_validator_shard: ShardIdent::new_full(0).prefix(),
        min_ref_mc_seqno: u32::MAX,
        gen_utime: utime,
        split_merge_at: None,
        fees_collected: CurrencyCollection::ZERO,
        funds_created: CurrencyCollection::ZERO,
    }
}

/// A state with `accounts` and their total balance; the caller sets the rest.
fn shard_state_with(accounts: &[&GenesisAccount], utime: u32) -> Result<ShardStateUnsplit, Error> {
    let mut dict = ShardAccounts::new();
    for acc in accounts {
        let shard_account = genesis_account(acc, utime)?;
        dict.set(
            acc.address.address,
            DepthBalanceInfo {
                split_depth: 0,
                balance: CurrencyCollection::new(acc.balance.into_inner()),
            },
            shard_account,
        )?;
    }
    let total = dict.root_extra().balance.clone();
    Ok(ShardStateUnsplit {
        accounts: Lazy::new(&dict)?,
        total_balance: total,
        ..ShardStateUnsplit::default()
    })
}

/// `_ out_queue:OutMsgQueue proc_info:ProcessedInfo ihr_pending:IhrPendingInfo`,
/// all empty: an empty augmented dictionary (`0` and its `uint64` extra 0)
/// and two empty dictionaries.
pub fn empty_out_msg_queue_info() -> Result<Cell, Error> {
    let mut b = CellBuilder::new();
    b.store_bit(false)?;
    b.store_u64(0)?;
    b.store_bit(false)?;
    b.store_bit(false)?;
    b.build()
}

/// A genesis account as a `ShardAccount` with no transaction yet.
pub fn genesis_account(acc: &GenesisAccount, utime: u32) -> Result<ShardAccount, Error> {
    let state = match &acc.state_init {
        Some(init) => AccountState::Active(init.clone()),
        None => AccountState::Uninit,
    };
    let mut account = Account {
        address: IntAddr::Std(acc.address.clone()),
        storage_stat: StorageInfo {
            used: StorageUsed::ZERO,
            storage_extra: Default::default(),
            last_paid: utime,
            due_payment: None,
        },
        last_trans_lt: 0,
        balance: CurrencyCollection::new(acc.balance.into_inner()),
        state,
    };
    account.storage_stat.used = storage_used(&account)?;
    account.storage_stat.storage_extra = storage_dict::storage_extra(&account)?;
    Ok(ShardAccount {
        account: Lazy::new(&OptionalAccount(Some(account)))?,
        last_trans_hash: HashBytes::ZERO,
        last_trans_lt: 0,
    })
}

/// Cells and bits of the account's storage as a node counts them: every
/// distinct cell below the `AccountStorage` root, plus the root.
fn storage_used(account: &Account) -> Result<StorageUsed, Error> {
    let cx = Cell::empty_context();
    let mut b = CellBuilder::new();
    b.store_u64(account.last_trans_lt)?;
    account.balance.store_into(&mut b, cx)?;
    account.state.store_into(&mut b, cx)?;
    let mut stat = StorageStat::unlimited();
    for child in b.references() {
        stat.add_cell(child.as_ref());
    }
    let s = stat.stats();
    Ok(StorageUsed {
        cells: VarUint56::new(s.cell_count + 1),
        bits: VarUint56::new(s.bit_count + u64::from(b.size_bits())),
    })
}
