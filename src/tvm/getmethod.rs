//! Running a get-method: tycho-vm with the c7 a TON node gives a getter.

use std::time::{Duration, Instant};

use num_bigint::BigInt;
use tycho_types::cell::{Cell, CellBuilder, CellSliceParts, HashBytes, Load};
use tycho_types::dict::Dict;
use tycho_types::models::{BlockchainConfigParams, CurrencyCollection, IntAddr, LibDescr, StdAddr};
use tycho_vm::{
    CustomSmcInfo, GasParams, OwnedCellSlice, RcStackValue, SafeRc, SmcInfo, SmcInfoBase,
    SmcInfoTonV11, SmcInfoTonV6, Stack, Tuple, UnpackedConfig, VmException, VmGetterMethodId,
    VmState, VmStateBuilder, VmVersion,
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
    /// Wall time a run may take; `None`: bounded by gas alone.
    pub time_limit: Option<Duration>,
}

/// A library cell as a public library entry for the VM and executor
/// (which read only the cell; an entry needs a publisher, so the zero
/// hash stands for one).
pub fn library_descr(lib: Cell) -> LibDescr {
    let mut publishers = Dict::<HashBytes, ()>::new();
    // Setting a key in an in-memory dictionary cannot fail here.
    let _ = publishers.set(HashBytes::ZERO, ());
    LibDescr { lib, publishers }
}

/// Reads a library collection in the emulator's form (`HashmapE 256 ^Cell`)
/// as the masterchain state's `HashmapE 256 LibDescr`.
pub fn libraries_from_cells(
    root: Option<Cell>,
) -> Result<Dict<HashBytes, LibDescr>, tycho_types::error::Error> {
    let mut out = Dict::new();
    for entry in Dict::<HashBytes, Cell>::from_raw(root).iter() {
        let (hash, lib) = entry?;
        out.set(hash, library_descr(lib))?;
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
    /// The run was stopped at its wall-time limit (its gas was not spent yet).
    #[error("get-method stopped at its time limit of {} ms", .0.as_millis())]
    TimeLimit(Duration),
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
    let smc_info = node_smc_info(
        smc_info,
        precompiled_gas(&ctx.config, &contract.code).map_err(RunError::Config)?,
    );
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
    let exit_code = !match ctx.time_limit {
        None => vm.run(),
        Some(limit) => {
            run_until(&mut vm, Instant::now() + limit).ok_or(RunError::TimeLimit(limit))?
        }
    };
    Ok(RunOutput {
        exit_code,
        gas_used: vm.gas.consumed(),
        vm_steps: vm.steps,
        stack: vm.stack.items.clone(),
        missing_library: vm.gas.missing_library(),
    })
}

/// The gas config param 45 fixes for contracts with this code hash
/// ("precompiled" contracts: a node may run them natively and charges the
/// listed gas): `precompiled_contracts_config#c0 list:(HashmapE 256
/// PrecompiledSmc)`, `precompiled_smc#b0 gas_usage:uint64`.
pub fn precompiled_gas(
    config: &BlockchainConfigParams,
    code: &Cell,
) -> Result<Option<u64>, tycho_types::error::Error> {
    use tycho_types::error::Error;
    let Some(param) = config.as_dict().get(45)? else {
        return Ok(None);
    };
    let mut cs = param.as_slice()?;
    if cs.load_u8()? != 0xc0 {
        return Err(Error::InvalidTag);
    }
    // Values are read by hand: `()` only names the dictionary's key type.
    let list = Dict::<HashBytes, ()>::load_from(&mut cs)?;
    let Some(mut entry) = list.get_raw(code.repr_hash())? else {
        return Ok(None);
    };
    if entry.load_u8()? != 0xb0 {
        return Err(Error::InvalidTag);
    }
    entry.load_u64().map(Some)
}

/// c7 as tycho-vm builds it for TVM v11, with the one item it leaves null
/// filled in: `precompiled_gas_usage` (item 16), the gas param 45 lists for
/// the contract's code, as a node's getter sets it.
fn node_smc_info(info: SmcInfoTonV11, precompiled_gas: Option<u64>) -> CustomSmcInfo {
    let version = info.version();
    let mut c7 = info.build_c7();
    let params = c7.first().and_then(|t| t.as_tuple()).map(<[_]>::to_vec);
    if let (Some(gas), Some(mut params)) = (precompiled_gas, params) {
        if let Some(item) = params.get_mut(SmcInfoTonV6::PRECOMPILED_GAS_IDX) {
            *item = SafeRc::new_dyn_value(BigInt::from(gas));
            c7 = SafeRc::new(vec![SafeRc::new_dyn_value(params)]);
        }
    }
    CustomSmcInfo { version, c7 }
}

/// VM steps between two looks at the clock (a few microseconds of work).
const STEPS_PER_CLOCK_CHECK: u32 = 256;

/// `VmState::run` with a deadline: the same step loop, exception handling
/// and final commit, looking at the clock every few hundred steps; `None`
/// once the deadline has passed. tycho-vm's own loop offers no such check.
///
/// A child VM (`RUNVM`) is resumed by tycho-vm's private machinery, so at
/// the first `RUNVM` the rest of the run is handed to `VmState::run` and is
/// bounded by gas alone.
fn run_until(vm: &mut VmState<'_>, deadline: Instant) -> Option<i32> {
    if vm.throw_on_code_access || vm.parent.is_some() {
        return Some(vm.run());
    }
    let mut until_check = 0u32;
    let mut res = 0;
    while res == 0 {
        if until_check == 0 {
            if Instant::now() >= deadline {
                return None;
            }
            until_check = STEPS_PER_CLOCK_CHECK;
        }
        until_check -= 1;
        if starts_child_vm(&vm.code) {
            return Some(vm.run());
        }
        res = match vm.step() {
            Ok(res) => res,
            Err(e) if e.is_out_of_gas() => {
                vm.steps += 1;
                vm.throw_out_of_gas()
            }
            Err(e) => {
                let exception = e.as_exception();
                vm.steps += 1;
                match vm.throw_exception(exception as i32) {
                    Ok(res) => res,
                    Err(e) if e.is_out_of_gas() => {
                        vm.steps += 1;
                        vm.throw_out_of_gas()
                    }
                    // An exception while raising one ends the run with it.
                    Err(_) => return Some(exception.as_exit_code()),
                }
            }
        };
    }
    // Normal ends (exit codes 0 and 1, here negated) commit c4 and c5.
    if res | 1 == -1 && !vm.try_commit() {
        vm.stack = SafeRc::new(Stack {
            items: vec![Stack::make_zero()],
        });
        return Some(VmException::CellOverflow.as_exit_code());
    }
    Some(res)
}

/// Whether the next instruction is `RUNVM` (`DB4xxx`) or `RUNVMX` (`DB50`).
fn starts_child_vm(code: &OwnedCellSlice) -> bool {
    let code = code.apply();
    match code.get_uint(0, 16) {
        Ok(op) => op >> 4 == 0xDB4 || op == 0xDB50,
        Err(_) => code.get_uint(0, 12).is_ok_and(|op| op == 0xDB4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tycho_types::cell::{CellFamily, Store};

    #[test]
    fn method_names_and_ids() {
        assert_eq!(Method::parse("seqno").id(), BigInt::from(85143));
        assert_eq!(Method::parse("get_wallet_data").id(), BigInt::from(97026));
        assert_eq!(Method::parse("85143"), Method::Id(85143));
        assert_eq!(Method::parse("0x14c97"), Method::Id(85143));
        assert_eq!(Method::parse("-1"), Method::Id(-1));
    }

    /// c7 item 16 holds the gas param 45 lists for the running code
    /// (`GETPRECOMPILEDGAS`), and null for code it does not list.
    #[test]
    fn precompiled_gas_reaches_c7() {
        let mut b = CellBuilder::new();
        b.store_u16(0xF839).unwrap(); // GETPRECOMPILEDGAS
        let code = b.build().unwrap();
        let mut list = Dict::<HashBytes, (u8, u64)>::new();
        list.set(code.repr_hash(), (0xb0, 1234)).unwrap();
        let mut param = CellBuilder::new();
        param.store_u8(0xc0).unwrap();
        list.store_into(&mut param, Cell::empty_context()).unwrap();
        let mut config = crate::tvm::blockchain_config::builtin();
        config.set_raw(45, param.build().unwrap()).unwrap();

        let ctx = Context {
            config,
            libraries: Dict::new(),
            now: 1_700_000_000,
            lt: 0,
            rand_seed: HashBytes::ZERO,
            gas_limit: DEFAULT_GAS_LIMIT,
            time_limit: None,
        };
        let contract = |code: Cell| Contract {
            code,
            data: Cell::empty_cell(),
            address: StdAddr::new(0, HashBytes([1; 32])),
            balance: CurrencyCollection::new(0u128),
        };
        let top = |out: &RunOutput| out.stack.last().cloned().expect("a value on the stack");
        let listed = run(&contract(code.clone()), &ctx, &Method::Id(0), vec![]).unwrap();
        assert_eq!(listed.exit_code, 0);
        assert_eq!(top(&listed).as_int(), Some(&BigInt::from(1234)));
        assert_eq!(precompiled_gas(&ctx.config, &code).unwrap(), Some(1234));

        let mut b = CellBuilder::new();
        b.store_u16(0xF839).unwrap();
        b.store_u8(0x00).unwrap(); // NOP: another hash
        let other = run(&contract(b.build().unwrap()), &ctx, &Method::Id(0), vec![]).unwrap();
        assert_eq!(other.exit_code, 0);
        assert!(top(&other).is_null(), "{other:?}");
    }
}
