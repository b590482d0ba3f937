//! Blockchain configs for TVM runs: read from a file, or the built-in
//! mainnet-like one for runs with no network at hand (`tonindex tvm run`).

use std::path::Path;

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, Load};
use tycho_types::dict::{Dict, RawDict};
use tycho_types::models::{
    BlockchainConfigParams, GasLimitsPrices, GlobalCapabilities, GlobalVersion, MsgForwardPrices,
    StoragePrices, WorkchainDescription,
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
/// (8 global version, 18 storage, 20/21 gas, 24/25 forwarding).
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
    Ok(params)
}

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
            "/../shared/fixtures/blocks/tonutils-go/tvm_replay_fat_block_66519406.json"
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
    }
}
