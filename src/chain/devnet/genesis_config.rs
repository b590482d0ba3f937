//! The devnet's blockchain config, built here: mainnet's prices, limits,
//! global version and capabilities (held against mainnet's own config by a
//! test), one workchain (the basechain, with the devnet's own zerostate
//! hashes) and a one-validator set whose key the devnet holds.
//!
//! What the devnet leaves out, on purpose: param 5 (fee burning: the devnet
//! burns nothing), 7's currencies (none are minted), the elections' own
//! contracts (no elector or config contract is deployed; their addresses,
//! params 0 and 1, are mainnet's), and the suspended and precompiled
//! contract lists (44, 45) of mainnet's history.

use std::num::{NonZeroU16, NonZeroU32};

use tycho_types::cell::{Cell, CellBuilder, CellFamily, HashBytes, Lazy, Store};
use tycho_types::dict::Dict;
use tycho_types::error::Error;
use tycho_types::models::{
    BlockCreationRewards, BlockLimits, BlockParamLimits, BlockchainConfigParams, CatchainConfig,
    ConfigProposalSetup, ConfigVotingSetup, ConsensusConfig, ElectionTimings, ValidatorCountParams,
    ValidatorDescription, ValidatorSet, ValidatorStakeParams, WorkchainDescription,
    WorkchainFormat, WorkchainFormatBasic,
};
use tycho_types::num::Tokens;

use crate::tvm::blockchain_config as tvm_config;

/// Mainnet's config contract address (param 0).
pub const CONFIG_ADDRESS: HashBytes = HashBytes([0x55; 32]);
/// Mainnet's elector address (param 1).
pub const ELECTOR_ADDRESS: HashBytes = HashBytes([0x33; 32]);
/// Mainnet's minter address (param 2).
pub const MINTER_ADDRESS: HashBytes = HashBytes([0x00; 32]);

/// What the config depends on that is the devnet's own.
pub struct ConfigInputs {
    pub global_id: i32,
    /// The validator's ed25519 public key.
    pub validator_key: [u8; 32],
    /// When the genesis happened (validator set and workchain start).
    pub genesis_utime: u32,
    /// The basechain zerostate's root and file hashes (param 12).
    pub basechain_zerostate: (HashBytes, HashBytes),
}

/// The genesis config.
pub fn genesis_config(inputs: &ConfigInputs) -> Result<BlockchainConfigParams, Error> {
    // Mainnet's prices and global version come from the shared built-in config.
    let mut p = tvm_config::builtin();
    p.set_raw(0, CellBuilder::build_from(CONFIG_ADDRESS)?)?;
    p.set_elector_address(&ELECTOR_ADDRESS)?;
    p.set_minter_address(&MINTER_ADDRESS)?;
    // An empty extra-currency dictionary: nothing to mint.
    p.set_raw(7, CellBuilder::build_from(false)?)?;
    p.set_mandatory_params(&[
        0, 1, 9, 10, 12, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 25, 28, 34,
    ])?;
    p.set_critical_params(&[0, 1, 9, 10, 12, 14, 15, 16, 17, 32, 34, 36])?;
    p.set_raw(
        11,
        CellBuilder::build_from(ConfigVotingSetup {
            normal_params: Lazy::new(&ConfigProposalSetup {
                min_total_rounds: 2,
                max_total_rounds: 6,
                min_wins: 2,
                max_losses: 5,
                min_store_sec: 1_000_000,
                max_store_sec: 10_000_000,
                bit_price: 1,
                cell_price: 500,
            })?,
            critical_params: Lazy::new(&ConfigProposalSetup {
                min_total_rounds: 4,
                max_total_rounds: 7,
                min_wins: 3,
                max_losses: 5,
                min_store_sec: 5_000_000,
                max_store_sec: 20_000_000,
                bit_price: 2,
                cell_price: 1000,
            })?,
        })?,
    )?;
    let mut workchains = Dict::<i32, WorkchainDescription>::new();
    workchains.set(
        0,
        WorkchainDescription {
            enabled_since: inputs.genesis_utime,
            actual_min_split: 0,
            min_split: 0,
            max_split: 4,
            active: true,
            accept_msgs: true,
            zerostate_root_hash: inputs.basechain_zerostate.0,
            zerostate_file_hash: inputs.basechain_zerostate.1,
            version: 0,
            format: WorkchainFormat::Basic(WorkchainFormatBasic {
                vm_version: -1,
                vm_mode: 0,
            }),
        },
    )?;
    p.set_workchains(&workchains)?;
    p.set_raw(13, complaint_pricing()?)?;
    p.set_block_creation_rewards(&BlockCreationRewards {
        masterchain_block_fee: Tokens::new(1_700_000_000),
        basechain_block_fee: Tokens::new(1_000_000_000),
    })?;
    p.set_election_timings(&ElectionTimings {
        validators_elected_for: 65536,
        elections_start_before: 32768,
        elections_end_before: 8192,
        stake_held_for: 32768,
    })?;
    p.set_validator_count_params(&ValidatorCountParams {
        max_validators: 400,
        max_main_validators: 100,
        min_validators: 75,
    })?;
    p.set_validator_stake_params(&ValidatorStakeParams {
        min_stake: Tokens::new(300_000_000_000_000),
        max_stake: Tokens::new(10_000_000_000_000_000),
        min_total_stake: Tokens::new(75_000_000_000_000_000),
        max_stake_factor: 196608,
    })?;
    p.set_global_id(inputs.global_id)?;
    let limits = |bytes: [u32; 3], gas: [u32; 3]| BlockLimits {
        bytes: param_limits(bytes),
        gas: param_limits(gas),
        lt_delta: param_limits([1000, 5000, 10000]),
    };
    p.set_block_limits(
        true,
        &limits([131072, 524288, 1048576], [200000, 1000000, 2500000]),
    )?;
    p.set_block_limits(
        false,
        &limits([262144, 1048576, 2097152], [2000000, 10000000, 20000000]),
    )?;
    p.set_catchain_config(&CatchainConfig {
        isolate_mc_validators: false,
        shuffle_mc_validators: true,
        mc_catchain_lifetime: 250,
        shard_catchain_lifetime: 250,
        shard_validators_lifetime: 1000,
        shard_validators_num: 23,
    })?;
    p.set_consensus_config(&ConsensusConfig {
        new_catchain_ids: true,
        round_candidates: NonZeroU32::new(3).expect("non-zero"),
        next_candidate_delay_ms: 2000,
        consensus_timeout_ms: 16000,
        fast_attempts: 3,
        attempt_duration: 8,
        catchain_max_deps: 4,
        max_block_bytes: 2_097_152,
        max_collated_bytes: 2_097_152,
    })?;
    p.set_fundamental_addresses(&[MINTER_ADDRESS, ELECTOR_ADDRESS])?;
    p.set_raw(34, CellBuilder::build_from(validator_set(inputs))?)?;
    Ok(p)
}

/// The one-validator set: the devnet's key, all the weight, from genesis
/// for as long as a `u32` time reaches (the devnet holds no elections).
pub fn validator_set(inputs: &ConfigInputs) -> ValidatorSet {
    ValidatorSet {
        utime_since: inputs.genesis_utime,
        utime_until: u32::MAX,
        main: NonZeroU16::new(1).expect("non-zero"),
        total_weight: 1,
        list: vec![ValidatorDescription {
            public_key: HashBytes(inputs.validator_key),
            weight: 1,
            adnl_addr: None,
            mc_seqno_since: 0,
            prev_total_weight: 0,
        }],
    }
}

/// The short hash of the masterchain validator list (block headers carry it).
pub fn validator_list_hash_short(inputs: &ConfigInputs) -> u32 {
    validator_set(inputs)
        .compute_mc_subset(0, true)
        .map(|(_, hash)| hash)
        .unwrap_or(0)
}

fn param_limits([underload, soft_limit, hard_limit]: [u32; 3]) -> BlockParamLimits {
    BlockParamLimits {
        underload,
        soft_limit,
        hard_limit,
    }
}

/// `complaint_prices#1a deposit:Grams bit_price:Grams cell_price:Grams`,
/// mainnet's values (1 TON, 1, 500).
fn complaint_pricing() -> Result<Cell, Error> {
    let mut b = CellBuilder::new();
    b.store_u8(0x1a)?;
    Tokens::new(1_000_000_000).store_into(&mut b, Cell::empty_context())?;
    Tokens::new(1).store_into(&mut b, Cell::empty_context())?;
    Tokens::new(500).store_into(&mut b, Cell::empty_context())?;
    b.build()
}
