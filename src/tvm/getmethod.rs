//! Running a get-method: tycho-vm with the c7 a TON node gives a getter.

use num_bigint::BigInt;
use tycho_types::cell::{Cell, CellBuilder, CellSliceParts, HashBytes};
use tycho_types::dict::Dict;
use tycho_types::models::{BlockchainConfigParams, CurrencyCollection, IntAddr, LibDescr, StdAddr};
use tycho_vm::{
    GasParams, RcStackValue, SafeRc, SmcInfoBase, Tuple, UnpackedConfig, VmGetterMethodId,
    VmStateBuilder, VmVersion,
};

/// The contract a get-method runs on.
#[derive(Debug, Clone)]
pub struct Contract {
    pub code: Cell,
    pub data: Cell,
    pub address: StdAddr,
    pub balance: CurrencyCollection,
}

/// The block context of a run (c7 fields the contract does not own).
#[derive(Debug, Clone)]
pub struct Context {
    pub config: BlockchainConfigParams,
    /// Public libraries by hash (the masterchain state's `HashmapE 256
    /// LibDescr`), for code that refers to them (e.g. USDT wallets).
    pub libraries: Dict<HashBytes, LibDescr>,
    pub now: u32,
    /// Block and transaction lt in c7 (the account's last transaction lt on a node).
    pub lt: u64,
    /// Used as given (a node's getter does not mix it with the address).
    pub rand_seed: HashBytes,
    pub gas_limit: u64,
}

/// Reads a library collection in the emulator's form (`HashmapE 256 ^Cell`)
/// as the masterchain state's `HashmapE 256 LibDescr`.
pub fn libraries_from_cells(
    root: Option<Cell>,
) -> Result<Dict<HashBytes, LibDescr>, tycho_types::error::Error> {
    let mut out = Dict::new();
    let mut publishers = Dict::<HashBytes, ()>::new();
    publishers.set(HashBytes::ZERO, ())?;
    for entry in Dict::<HashBytes, Cell>::from_raw(root).iter() {
        let (hash, lib) = entry?;
        out.set(
            hash,
            LibDescr {
                lib,
                publishers: publishers.clone(),
            },
        )?;
    }
    Ok(out)
}

/// Gas a get-method may spend unless the caller says otherwise (a liteserver's limit).
pub const DEFAULT_GAS_LIMIT: u64 = 1_000_000;

/// A method by name (CRC16 id, as FunC/Tact assign them) or by numeric id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    Name(String),
    Id(i64),
}

impl Method {
    /// The C++ server's rule: an integer, or a string that parses as one
    /// (decimal or `0x` hex), is an id; any other string is a name.
    pub fn parse(s: &str) -> Self {
        let t = s.trim();
        let id = match t.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).ok(),
            None => t.parse::<i64>().ok(),
        };
        match id {
            Some(id) => Self::Id(id),
            None => Self::Name(s.to_string()),
        }
    }

    /// The id TVM dispatches on.
    pub fn id(&self) -> BigInt {
        match self {
            Self::Name(n) => BigInt::from(n.as_str().as_getter_method_id()),
            Self::Id(id) => BigInt::from(*id),
        }
    }
}

/// What a run produced. A non-zero exit code is a result, not an error.
#[derive(Debug)]
pub struct RunOutput {
    pub exit_code: i32,
    pub gas_used: u64,
    pub vm_steps: u64,
    pub stack: Vec<RcStackValue>,
    /// A library cell the code needed and the context lacked.
    pub missing_library: Option<HashBytes>,
}

/// Errors that stop a run before the VM starts.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("invalid blockchain config: {0}")]
    Config(tycho_types::error::Error),
}

/// c7's unpacked config (TVM v6+): the storage prices in force at `now`
/// and params 19, 20, 21, 24, 25, 43 as slices. Storage prices are read
/// through their typed dictionary: tycho-vm's own reader rejects the
/// entries mainnet has carried since 2026.
fn unpacked_config(
    params: &BlockchainConfigParams,
    now: u32,
) -> Result<SafeRc<Tuple>, tycho_types::error::Error> {
    let mut storage = None;
    for prices in params.get_storage_prices()?.values() {
        let prices = prices?;
        if prices.utime_since <= now {
            storage = Some(CellSliceParts::from(CellBuilder::build_from(prices)?));
        }
    }
    let dict = params.as_dict();
    Ok(UnpackedConfig {
        latest_storage_prices: storage,
        global_id: dict.get(19)?,
        mc_gas_prices: dict.get(20)?,
        gas_prices: dict.get(21)?,
        mc_fwd_prices: dict.get(24)?,
        fwd_prices: dict.get(25)?,
        size_limits_config: dict.get(43)?,
    }
    .into_tuple())
}

/// Runs `method` with `stack` (bottom first) on `contract`.
pub fn run(
    contract: &Contract,
    ctx: &Context,
    method: &Method,
    mut stack: Vec<RcStackValue>,
) -> Result<RunOutput, RunError> {
    stack.push(SafeRc::new_dyn_value(method.id()));
    // The VM follows the network's global version, as a node does.
    let version = ctx
        .config
        .get_global_version()
        .map(|v| VmVersion::Ton(v.version))
        .unwrap_or(VmVersion::LATEST_TON);
    let smc_info = SmcInfoBase::new()
        .with_now(ctx.now)
        .with_block_lt(ctx.lt)
        .with_tx_lt(ctx.lt)
        .with_raw_rand_seed(ctx.rand_seed)
        .with_account_balance(contract.balance.clone())
        .with_account_addr(IntAddr::Std(contract.address.clone()))
        .with_config(ctx.config.clone())
        .require_ton_v4()
        .with_code(contract.code.clone())
        .require_ton_v6()
        .with_unpacked_config(unpacked_config(&ctx.config, ctx.now).map_err(RunError::Config)?)
        .require_ton_v11();
    let libraries = &ctx.libraries;
    let mut vm = VmStateBuilder::new()
        .with_smc_info(smc_info)
        .with_code(contract.code.clone())
        .with_data(contract.data.clone())
        .with_libraries(libraries)
        .with_init_selector(false)
        .with_stack(stack)
        .with_gas(GasParams {
            max: ctx.gas_limit,
            limit: ctx.gas_limit,
            credit: 0,
            price: GasParams::getter().price,
        })
        .with_version(version)
        .build();
    let exit_code = !vm.run();
    Ok(RunOutput {
        exit_code,
        gas_used: vm.gas.consumed(),
        vm_steps: vm.steps,
        stack: vm.stack.items.clone(),
        missing_library: vm.gas.missing_library(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_and_ids() {
        assert_eq!(Method::parse("seqno").id(), BigInt::from(85143));
        assert_eq!(Method::parse("get_wallet_data").id(), BigInt::from(97026));
        assert_eq!(Method::parse("85143"), Method::Id(85143));
        assert_eq!(Method::parse("0x14c97"), Method::Id(85143));
        assert_eq!(Method::parse("-1"), Method::Id(-1));
    }
}
