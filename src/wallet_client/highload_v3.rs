//! Highload wallet v3 (ton-blockchain/highload-wallet-contract-v3), as an
//! exchange drives it: no seqno — each external carries a query id (a
//! 13-bit shift and a 10-bit bit number) that the wallet remembers for its
//! timeout, a creation time within that timeout, and one internal message
//! to send.

use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, HashBytes};
use tycho_types::models::{StateInit, StdAddr};

use super::mnemonic::Keys;
use super::standard::{external_to, Outgoing};

/// The contract's code, as its repository builds it (code hash 11acad79…8525).
const CODE_HEX: &str = "b5ee9c7241021001000228000114ff00f4a413f4bcf2c80b01020120020d02014803040078d020d74bc00101c060b0915be101d0d3030171b0915be0fa4030f828c705b39130e0d31f018210ae42e5a4ba9d8040d721d74cf82a01ed55fb04e030020120050a02027306070011adce76a2686b85ffc00201200809001aabb6ed44d0810122d721d70b3f0018aa3bed44d08307d721d70b1f0201200b0c001bb9a6eed44d0810162d721d70b15800e5b8bf2eda2edfb21ab09028409b0ed44d0810120d721f404f404d33fd315d1058e1bf82325a15210b99f326df82305aa0015a112b992306dde923033e2923033e25230800df40f6fa19ed021d721d70a00955f037fdb31e09130e259800df40f6fa19cd001d721d70a00937fdb31e0915be270801f6f2d48308d718d121f900ed44d0d3ffd31ff404f404d33fd315d1f82321a15220b98e12336df82324aa00a112b9926d32de58f82301de541675f910f2a106d0d31fd4d307d30cd309d33fd315d15168baf2a2515abaf2a6f8232aa15250bcf2a304f823bbf2a35304800df40f6fa199d024d721d70a00f2649130e20e01fe5309800df40f6fa18e13d05004d718d20001f264c858cf16cf8301cf168e1030c824cf40cf8384095005a1a514cf40e2f800c94039800df41704c8cbff13cb1ff40012f40012cb3f12cb15c9ed54f80f21d0d30001f265d3020171b0925f03e0fa4001d70b01c000f2a5fa4031fa0031f401fa0031fa00318060d721d300010f0020f265d2000193d431d19130e272b1fb00b585bf03";

/// One highload v3 wallet: its key, subwallet id and query timeout.
#[derive(Debug, Clone)]
pub struct HighloadV3 {
    pub public_key: [u8; 32],
    pub subwallet_id: u32,
    /// Seconds a query id is remembered (and a message valid), 22 bits.
    pub timeout: u32,
}

impl HighloadV3 {
    pub fn code() -> Cell {
        let bytes = hex::decode(CODE_HEX).expect("embedded highload v3 code is hex");
        Boc::decode(bytes).expect("embedded highload v3 code is a BoC")
    }

    /// The initial data: `public_key subwallet_id old_queries queries
    /// last_clean_time timeout`, both query dictionaries empty.
    pub fn data(&self) -> Result<Cell, tycho_types::error::Error> {
        let mut b = CellBuilder::new();
        b.store_u256(&HashBytes(self.public_key))?;
        b.store_u32(self.subwallet_id)?;
        b.store_bit_zero()?;
        b.store_bit_zero()?;
        b.store_u64(0)?;
        b.store_uint(u64::from(self.timeout), 22)?;
        b.build()
    }

    pub fn state_init(&self) -> Result<StateInit, tycho_types::error::Error> {
        Ok(StateInit {
            code: Some(Self::code()),
            data: Some(self.data()?),
            ..Default::default()
        })
    }

    pub fn address(&self) -> Result<StdAddr, tycho_types::error::Error> {
        let init = CellBuilder::build_from(self.state_init()?)?;
        Ok(StdAddr::new(0, *init.repr_hash()))
    }

    /// A signed external sending `out` (send mode 3) under query number
    /// `query` (below 8192 × 1023: its shift and bit number), created at
    /// `created_at`: the signature, then a reference to `subwallet_id
    /// ^message send_mode query_id created_at timeout`.
    pub fn transfer(
        &self,
        keys: &Keys,
        query: u32,
        created_at: u64,
        out: &Outgoing,
    ) -> Result<Cell, tycho_types::error::Error> {
        let mut signed = CellBuilder::new();
        signed.store_u32(self.subwallet_id)?;
        signed.store_reference(out.message()?)?;
        signed.store_u8(3)?;
        // A bit number runs to 1022 (1023 values) under each shift.
        signed.store_uint(u64::from(query / 1023), 13)?;
        signed.store_uint(u64::from(query % 1023), 10)?;
        signed.store_u64(created_at)?;
        signed.store_uint(u64::from(self.timeout), 22)?;
        let signed = signed.build()?;
        let signature = keys.sign(signed.repr_hash().as_array());
        let mut body = CellBuilder::new();
        body.store_raw(&signature, 512)?;
        body.store_reference(signed)?;
        external_to(&self.address()?, body.build()?, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_code_is_the_published_one() {
        assert_eq!(
            HighloadV3::code().repr_hash().to_string(),
            "11acad7955844090f283bf238bc1449871f783e7cc0979408d3f4859483e8525"
        );
    }
}
