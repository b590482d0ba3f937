//! `tonindex tvm run`: one get-method on given code and data, printed as
//! v2's `runGetMethod` result.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, HashBytes};
use tycho_types::models::{CurrencyCollection, StdAddr};

use crate::chain::files::{boc_from_bytes, read_boc_file};
use crate::tvm::getmethod::{self, Context, Contract, Method, DEFAULT_GAS_LIMIT};
use crate::tvm::{blockchain_config as config, stack};

#[derive(Debug, Args)]
pub struct TvmArgs {
    #[command(subcommand)]
    pub command: TvmCommand,
}

#[derive(Debug, Subcommand)]
pub enum TvmCommand {
    /// Run a get-method and print the v2 runGetMethod result as JSON.
    Run(RunArgs),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Contract code: a BoC file, or the BoC as hex or base64.
    #[arg(long, value_name = "FILE|HEX|B64")]
    pub code: String,
    /// Contract data: a BoC file, or the BoC as hex or base64.
    #[arg(long, value_name = "FILE|HEX|B64")]
    pub data: String,
    /// Method name (e.g. `seqno`) or numeric id.
    #[arg(long, value_name = "NAME|ID")]
    pub method: String,
    /// Input stack in runGetMethod's form, e.g. '[["num", "0x7b"]]'.
    #[arg(long, value_name = "JSON", default_value = "[]")]
    pub stack: String,
    /// The contract's address (any form).
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "0:0000000000000000000000000000000000000000000000000000000000000000"
    )]
    pub address: String,
    /// Balance in nanotons.
    #[arg(long, value_name = "NANO", default_value_t = 0)]
    pub balance: u128,
    /// Unix time in c7 (default: now).
    #[arg(long, value_name = "UNIX")]
    pub now: Option<u32>,
    /// Logical time in c7.
    #[arg(long, value_name = "LT", default_value_t = 0)]
    pub lt: u64,
    /// Random seed in c7, 64 hex digits.
    #[arg(long, value_name = "HEX")]
    pub rand_seed: Option<String>,
    /// Gas limit.
    #[arg(long, value_name = "GAS", default_value_t = DEFAULT_GAS_LIMIT)]
    pub gas_limit: u64,
    /// Wall-time limit of the run in milliseconds (an error when reached).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub time_limit_ms: u64,
    /// Blockchain config BoC (ConfigParams dictionary); default: built-in mainnet config.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// A cell given as a file path or inline hex/base64.
fn load_cell(arg: &str, what: &str) -> anyhow::Result<Cell> {
    let bytes = if Path::new(arg).is_file() {
        read_boc_file(Path::new(arg))?
    } else {
        boc_from_bytes(arg.as_bytes())
            .ok_or_else(|| anyhow::anyhow!("--{what}: not a file nor a hex/base64 BoC"))?
    };
    Boc::decode(&bytes).map_err(|e| anyhow::anyhow!("--{what}: invalid BoC: {e}"))
}

pub fn run(args: &TvmArgs) -> anyhow::Result<()> {
    match &args.command {
        TvmCommand::Run(a) => {
            let result = run_get_method(a)?;
            super::print_out(&serde_json::to_string_pretty(&result)?)
        }
    }
}

fn run_get_method(a: &RunArgs) -> anyhow::Result<serde_json::Value> {
    let address = crate::api::encoding::parse_address(&a.address)
        .ok_or_else(|| anyhow::anyhow!("--address: not an address: {}", a.address))?
        .address;
    let workchain = i8::try_from(address.workchain)
        .map_err(|_| anyhow::anyhow!("--address: workchain out of range"))?;
    let rand_seed = match &a.rand_seed {
        Some(h) => {
            let mut b = [0u8; 32];
            hex::decode_to_slice(h, &mut b)
                .map_err(|_| anyhow::anyhow!("--rand-seed: expected 64 hex digits"))?;
            HashBytes(b)
        }
        None => HashBytes::ZERO,
    };
    let contract = Contract {
        code: load_cell(&a.code, "code")?,
        data: load_cell(&a.data, "data")?,
        address: StdAddr::new(workchain, HashBytes(address.id)),
        balance: CurrencyCollection::new(a.balance),
    };
    let ctx = Context {
        config: match &a.config {
            Some(path) => config::from_file(path)?,
            None => config::builtin(),
        },
        libraries: Default::default(),
        now: a
            .now
            .unwrap_or_else(|| crate::clock::unix_now().try_into().unwrap_or(u32::MAX)),
        lt: a.lt,
        rand_seed,
        gas_limit: a.gas_limit,
        time_limit: Some(Duration::from_millis(a.time_limit_ms)),
    };
    let input: serde_json::Value =
        serde_json::from_str(&a.stack).map_err(|e| anyhow::anyhow!("--stack: {e}"))?;
    let input = stack::parse_legacy_stack(&input).map_err(|e| anyhow::anyhow!("--stack: {e}"))?;
    let out = getmethod::run(&contract, &ctx, &Method::parse(&a.method), input)?;
    Ok(serde_json::json!({
        "@type": "smc.runResult",
        "gas_used": out.gas_used,
        "stack": stack::legacy_stack(&out.stack)?,
        "exit_code": out.exit_code,
    }))
}
