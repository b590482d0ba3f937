//! Blockchain configs for TVM runs: read from a file, or the built-in
//! mainnet-like one for runs with no network at hand (`tonindex tvm run`).

use std::path::Path;

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, HashBytes, Load};
use tycho_types::dict::{Dict, RawDict};
use tycho_types::models::{
    BlockchainConfigParams, GasLimitsPrices, GlobalCapabilities, GlobalVersion, MsgForwardPrices,
    StoragePrices, WorkchainDescription, WorkchainFormat, WorkchainFormatBasic,
};

use crate::chain::files::read_boc_file;

/// Reads a config BoC: the `ConfigParams` dictionary root, or a
/// `ConfigParams` cell (`config_addr:bits256 config:^(Hashmap 32 ^Cell)`).
pub fn from_boc(bytes: &[u8]) -> anyhow::Result<BlockchainConfigParams> {
    let root = Boc::decode(bytes).map_err(|e| anyhow::anyhow!("invalid config BoC: {e}"))?;
    let dict_root = if root.bit_len() == 256 && root.reference_count() == 1 {
        root.reference_cloned(0)
            .ok_or_else(|| anyhow::anyhow!("config cell has no dictionary"))?
    } else {
        root
    };
    let params = BlockchainConfigParams::from_raw(dict_root);
    params
        .get_global_version()
        .map_err(|e| anyhow::anyhow!("config has no readable global version (param 8): {e}"))?;
    Ok(params)
}

/// Reads a config file in any BoC encoding `import` accepts.
pub fn from_file(path: &Path) -> anyhow::Result<BlockchainConfigParams> {
    let bytes = read_boc_file(path)?;
    from_boc(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// `workchain_v2#a7` (mainnet since 2025) is `workchain#a6` followed by
/// split/merge timings; the bits after the tag that both share.
const WORKCHAIN_V1_BODY_BITS: u16 = 32 + 8 + 8 + 8 + 16 + 256 + 256 + 32 + 100;

/// The config with its workchain descriptions (param 12) in the `#a6` form
/// tycho-types reads. Mainnet writes `workchain_v2#a7`, whose extra
/// split/merge timings no transaction phase reads; a description that is
/// neither form is left out. The executor needs the list to route messages.
pub fn with_readable_workchains(
    params: &BlockchainConfigParams,
) -> Result<BlockchainConfigParams, tycho_types::error::Error> {
    let Some(raw) = params.as_dict().get(12)? else {
        return Ok(params.clone());
    };
    let list = RawDict::<32>::load_from(&mut raw.as_slice()?)?;
    let mut out = Dict::<i32, WorkchainDescription>::new();
    for entry in list.iter() {
        let (key, mut value) = entry?;
        let workchain = key.as_data_slice().load_u32()? as i32;
        let descr = match value.load_u8()? {
            0xa6 | 0xa7 => {
                let mut b = CellBuilder::new();
                b.store_u8(0xa6)?;
                b.store_slice(value.get_prefix(WORKCHAIN_V1_BODY_BITS, 0))?;
                WorkchainDescription::load_from(&mut b.as_full_slice())
            }
            _ => continue,
        };
        if let Ok(descr) = descr {
            out.set(workchain, descr)?;
        }
    }
    let mut params = params.clone();
    params.set_workchains(&out)?;
    Ok(params)
}

/// A config with mainnet's prices and global version (as of May 2026; the
/// test holds them against that config), built here rather
/// than shipped: the params a get-method or a fee computation reads
/// (8 global version, 18 storage, 20/21 gas, 24/25 forwarding), and those
/// the executor needs to run a transaction at all (0/1 the config and
/// elector addresses, 12 the basechain, 31 the fundamental addresses), all
/// mainnet's.
pub fn builtin() -> BlockchainConfigParams {
    build_builtin().expect("the built-in config is well-formed")
}

fn build_builtin() -> Result<BlockchainConfigParams, tycho_types::error::Error> {
    // Any param gives the non-empty dictionary a root; 8 is overwritten below.
    let mut seed = tycho_types::dict::Dict::<u32, Cell>::new();
    seed.set(8, CellBuilder::build_from(GLOBAL_VERSION)?)?;
    let mut params = BlockchainConfigParams::from_raw(
        seed.into_root()
            .expect("a dictionary with one entry has a root"),
    );
    params.set_global_version(&GLOBAL_VERSION)?;
    params.set_storage_prices(&[STORAGE_PRICES])?;
    params.set_gas_prices(true, &MC_GAS)?;
    params.set_gas_prices(false, &BC_GAS)?;
    params.set_msg_forward_prices(true, &MC_FWD)?;
    params.set_msg_forward_prices(false, &BC_FWD)?;
    params.set_raw(0, CellBuilder::build_from(HashBytes([0x55; 32]))?)?;
    params.set_elector_address(&HashBytes([0x33; 32]))?;
    let mut workchains = Dict::<i32, WorkchainDescription>::new();
    workchains.set(0, BASECHAIN)?;
    params.set_workchains(&workchains)?;
    params.set_fundamental_addresses(&FUNDAMENTAL_ADDRESSES.map(|h| {
        let mut a = [0u8; 32];
        hex::decode_to_slice(h, &mut a).expect("a 64-digit hex address");
        HashBytes(a)
    }))?;
    Ok(params)
}

/// Mainnet's basechain (param 12, in the `#a6` form the executor reads).
const BASECHAIN: WorkchainDescription = WorkchainDescription {
    enabled_since: 1573821854,
    actual_min_split: 0,
    min_split: 0,
    max_split: 4,
    active: true,
    accept_msgs: true,
    zerostate_root_hash: HashBytes([
        0x55, 0xb1, 0x3f, 0x6d, 0x0e, 0x1d, 0x0c, 0x34, 0xc9, 0xc2, 0x16, 0x0f, 0x6f, 0x91, 0x8e,
        0x92, 0xd8, 0x2b, 0xf9, 0xdd, 0xcf, 0x8d, 0xe2, 0xe4, 0xc9, 0x4a, 0x3f, 0xdf, 0x39, 0xd1,
        0x54, 0x46,
    ]),
    zerostate_file_hash: HashBytes([
        0xee, 0x0b, 0xed, 0xfe, 0x4b, 0x32, 0x76, 0x1f, 0xb3, 0x5e, 0x9e, 0x1d, 0x88, 0x18, 0xea,
        0x72, 0x0c, 0xad, 0x1a, 0x0e, 0x7b, 0x4d, 0x2e, 0xd6, 0x73, 0xc4, 0x88, 0xe7, 0x2e, 0x91,
        0x03, 0x42,
    ]),
    version: 0,
    format: WorkchainFormat::Basic(WorkchainFormatBasic {
        vm_version: -1,
        vm_mode: 0,
    }),
};

/// Mainnet's fundamental (special) masterchain accounts (param 31).
const FUNDAMENTAL_ADDRESSES: [&str; 7] = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0ebd7ff9ca70e06e9e22a8922f5ae75211a9d6a34a8094e8e1587b606bdbb662",
    "3333333333333333333333333333333333333333333333333333333333333333",
    "3b9bbfd0ad5338b9700f0833380ee17d463e51c1ae671ee6f08901bde899b202",
    "4d5c0210b35daddaa219fac459dba0fdefb1fae4e97a0d0797739fe050d694ca",
    "dd24c4a1f2b88f8b7053513b5cc6c5a31bc44b2a72dcb4d8c0338af0f0d37ec5",
    "ead7da389bde317c5fb285807ce507baad31c35fe5534b3c418785e901f64c68",
];

const GLOBAL_VERSION: GlobalVersion = GlobalVersion {
    version: 13,
    capabilities: GlobalCapabilities::new(0x1ee),
};

const STORAGE_PRICES: StoragePrices = StoragePrices {
    utime_since: 0,
    bit_price_ps: 0,
    cell_price_ps: 135,
    mc_bit_price_ps: 1000,
    mc_cell_price_ps: 500_000,
};

const MC_GAS: GasLimitsPrices = GasLimitsPrices {
    flat_gas_limit: 100,
    flat_gas_price: 1_000_000,
    gas_price: 655_360_000,
    gas_limit: 1_000_000,
    special_gas_limit: 70_000_000,
    gas_credit: 10_000,
    block_gas_limit: 2_500_000,
    freeze_due_limit: 100_000_000,
    delete_due_limit: 1_000_000_000,
};

const BC_GAS: GasLimitsPrices = GasLimitsPrices {
    flat_gas_limit: 100,
    flat_gas_price: 6_667,
    gas_price: 4_369_067,
    gas_limit: 1_000_000,
    special_gas_limit: 1_000_000,
    gas_credit: 10_000,
    block_gas_limit: 10_000_000,
    freeze_due_limit: 100_000_000,
    delete_due_limit: 1_000_000_000,
};

const MC_FWD: MsgForwardPrices = MsgForwardPrices {
    lump_price: 10_000_000,
    bit_price: 655_360_000,
    cell_price: 65_536_000_000,
    ihr_price_factor: 98_304,
    first_frac: 21_845,
    next_frac: 21_845,
};

const BC_FWD: MsgForwardPrices = MsgForwardPrices {
    lump_price: 66_667,
    bit_price: 4_369_067,
    cell_price: 436_906_667,
    ihr_price_factor: 98_304,
    first_frac: 21_845,
    next_frac: 21_845,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Mainnet's config under masterchain block 66519406 (May 2026).
    pub(crate) fn mainnet_2026() -> BlockchainConfigParams {
        // Absolute: figment's test jail changes the working directory of
        // this test binary while other tests run.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fixtures/blocks/tonutils-go/tvm_replay_fat_block_66519406.json"
        );
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let b64 = json["config"]["config_root_boc_base64"].as_str().unwrap();
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        from_boc(&bytes).unwrap()
    }

    #[test]
    fn builtin_prices_equal_mainnet() {
        let ours = builtin();
        let main = mainnet_2026();
        assert_eq!(
            ours.get_global_version().unwrap(),
            main.get_global_version().unwrap()
        );
        for mc in [true, false] {
            assert_eq!(
                ours.get_gas_prices(mc).unwrap(),
                main.get_gas_prices(mc).unwrap(),
                "gas mc={mc}"
            );
            assert_eq!(
                ours.get_msg_forward_prices(mc).unwrap(),
                main.get_msg_forward_prices(mc).unwrap(),
                "fwd mc={mc}"
            );
        }
        let storage = |c: &BlockchainConfigParams| {
            c.get_storage_prices()
                .unwrap()
                .values()
                .last()
                .unwrap()
                .unwrap()
        };
        let (mut want, got) = (storage(&main), storage(&ours));
        want.utime_since = 0;
        assert_eq!(got, want);
        // What the executor needs, as mainnet has it.
        let readable = with_readable_workchains(&main).unwrap();
        let list = |c: &BlockchainConfigParams| {
            c.get_workchains()
                .unwrap()
                .iter()
                .map(|e| e.unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(list(&ours), list(&readable));
        let special = |c: &BlockchainConfigParams| {
            c.get_fundamental_addresses()
                .unwrap()
                .keys()
                .map(|k| k.unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(special(&ours), special(&main));
        for id in [0, 1] {
            assert_eq!(
                ours.as_dict().get(id).unwrap(),
                main.as_dict().get(id).unwrap(),
                "param {id}"
            );
        }
    }

    /// The executor runs on the built-in config (an index without a key
    /// block's config estimates fees and emulates with it).
    #[test]
    fn builtin_config_runs_the_executor() {
        crate::tvm::emulate::ExecConfig::new(builtin(), 1_780_000_000)
            .expect("the built-in config is enough for the executor");
    }
}
