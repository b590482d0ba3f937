//! A pool-like contract on the devnet (`reference_pool.fc`, ours): it
//! answers every call, returning what is left of the call's value to the
//! caller with a reply — as a DEX pool answers each swap — so that
//! `bench-dev --profile mainnet` has one hot contract whose every inbound
//! message makes an outbound one. The code was compiled from
//! `reference_pool.fc` with func-js 0.11.0 (FunC v0.4.6); its `calls`
//! get-method counts the calls answered.

use base64::Engine as _;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder};
use tycho_types::models::{StateInit, StdAddr};

/// The compiled `reference_pool.fc`.
const CODE: &str = "te6ccgEBBAEAcwABFP8A9KQT9LzyyAsBAgFiAgMAqNAzMdDTAwFxsJFb4PpAMO1E0NM/MKQgyMs/ye1UcCPXScJfmjACgCDXIdM/MAKRM+KCEFBPT0xwgBDIywVQBM8WI/oCE8tqEssfEss/yz/JgED7AAARoG2j2omhrhZ/";

/// The op a call carries (`CALL`; the pool answers any body).
pub const CALL: u32 = 0x4341_4c4c;
/// The op of the pool's reply (`POOL`), then the call's query id and the
/// calls answered so far.
pub const REPLY: u32 = 0x504f_4f4c;

/// The pool: its address and state init (no call answered yet).
#[derive(Debug, Clone)]
pub struct Pool {
    pub address: StdAddr,
    pub init: StateInit,
}

impl Pool {
    pub fn new() -> Result<Self, tycho_types::error::Error> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(CODE)
            .expect("embedded pool code is base64");
        let code = Boc::decode(bytes).expect("embedded pool code is a BoC");
        let mut data = CellBuilder::new();
        data.store_u64(0)?;
        let init = StateInit {
            split_depth: None,
            special: None,
            code: Some(code),
            data: Some(data.build()?),
            libraries: Default::default(),
        };
        let address = StdAddr::new(0, *CellBuilder::build_from(&init)?.repr_hash());
        Ok(Self { address, init })
    }
}

/// A call's body: [`CALL`] and `query_id` (echoed in the reply).
pub fn call_body(query_id: u64) -> Result<Cell, tycho_types::error::Error> {
    let mut b = CellBuilder::new();
    b.store_u32(CALL)?;
    b.store_u64(query_id)?;
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded code has the hash the compiled BoC had when func-js
    /// wrote it (read then with @ton/core), and the source beside it is
    /// the one that answers with the rest of the call's value.
    #[test]
    fn the_code_is_the_one_compiled_from_the_source() {
        let pool = Pool::new().unwrap();
        let code = pool.init.code.as_ref().unwrap();
        assert_eq!(
            hex::encode(code.repr_hash().0),
            "0ac6d49e808c23ab9e05b90774c24be255673466ecea9242016d5b4cf9c14a89"
        );
        assert!(include_str!("reference_pool.fc").contains("send_raw_message(reply, 64)"));
    }
}
