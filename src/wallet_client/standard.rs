//! The devnet's genesis wallets: standard wallet contracts (v4r2, v5r1) of
//! one key, told apart by their wallet ids, with their addresses as every
//! TON client computes them (the hash of the state init).
//!
//! The code is the public code BoC of each contract, as deployed on
//! mainnet (code hashes checked by a test).

use base64::Engine as _;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, CellSliceParts, HashBytes};
use tycho_types::models::{
    ExtInMsgInfo, IntAddr, MessageLayout, MsgInfo, OwnedMessage, RelaxedIntMsgInfo, RelaxedMessage,
    RelaxedMsgInfo, StateInit, StdAddr,
};
use tycho_types::num::Tokens;

use super::mnemonic::Keys;

/// Wallet v4r2's code (code hash feb5ff68…d5c0).
const V4R2_CODE: &str = "te6cckECFAEAAtQAART/APSkE/S88sgLAQIBIAIDAgFIBAUE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjACHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAubQAdDTAyFxsJJfBOAi10nBIJJfBOAC0x8hghBwbHVnvSKCEGRzdHK9sJJfBeAD+kAwIPpEAcjKB8v/ydDtRNCBAUDXIfQEMFyBAQj0Cm+hMbOSXwfgBdM/yCWCEHBsdWe6kjgw4w0DghBkc3RyupJfBuMNBgcCASAICQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+wAGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAKCwBZvSQrb2omhAgKBrkPoCGEcNQICEekk30pkQzmkD6f+YN4EoAbeBAUiYcVnzGEAgFYDA0AEbjJftRNDXCx+AA9sp37UTQgQFA1yH0BDACyMoHy//J0AGBAQj0Cm+hMYAIBIA4PABmtznaiaEAga5Drhf/AABmvHfaiaEAQa5DrhY/AAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9FHyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVGliJeU=";
/// Wallet v3r2's code (code hash 84dafa44…d599).
const V3R2_CODE: &str = "te6cckEBAQEAcQAA3v8AIN0gggFMl7ohggEznLqxn3Gw7UTQ0x/THzHXC//jBOCk8mCDCNcYINMf0x/TH/gjE7vyY+1E0NMf0x/T/9FRMrryoVFEuvKiBPkBVBBV+RDyo/gAkyDXSpbTB9QC+wDo0QGkyMsfyx/L/8ntVBC9ba0=";
/// Wallet v5r1's code (code hash 20834b7b…b72f).
const V5R1_CODE: &str = "te6cckECFAEAAoEAART/APSkE/S88sgLAQIBIAINAgFIAwQC3NAg10nBIJFbj2Mg1wsfIIIQZXh0br0hghBzaW50vbCSXwPgghBleHRuuo60gCDXIQHQdNch+kAw+kT4KPpEMFi9kVvg7UTQgQFB1yH0BYMH9A5voTGRMOGAQNchcH/bPOAxINdJgQKAuZEw4HDiEA8CASAFDAIBIAYJAgFuBwgAGa3OdqJoQCDrkOuF/8AAGa8d9qJoQBDrkOuFj8ACAUgKCwAXsyX7UTQcdch1wsfgABGyYvtRNDXCgCAAGb5fD2omhAgKDrkPoCwBAvIOAR4g1wsfghBzaWduuvLgin8PAeaO8O2i7fshgwjXIgKDCNcjIIAg1yHTH9Mf0x/tRNDSANMfINMf0//XCgAK+QFAzPkQmiiUXwrbMeHywIffArNQB7Dy0IRRJbry4IVQNrry4Ib4I7vy0IgikvgA3gGkf8jKAMsfAc8Wye1UIJL4D95w2zzYEAP27aLt+wL0BCFukmwhjkwCIdc5MHCUIccAs44tAdcoIHYeQ2wg10nACPLgkyDXSsAC8uCTINcdBscSwgBSMLDy0InXTNc5MAGk6GwShAe78uCT10rAAPLgk+1V4tIAAcAAkVvg69csCBQgkXCWAdcsCBwS4lIQseMPINdKERITAJYB+kAB+kT4KPpEMFi68uCR7UTQgQFB1xj0BQSdf8jKAEAEgwf0U/Lgi44UA4MH9Fvy4Iwi1woAIW4Bs7Dy0JDiyFADzxYS9ADJ7VQAcjDXLAgkji0h8uCS0gDtRNDSAFETuvLQj1RQMJExnAGBAUDXIdcKAPLgjuLIygBYzxbJ7VST8sCN4gAQk1vbMeHXTNC01sNe";

/// The default wallet id of v4r2 (and v3) wallets in the basechain.
pub const V4_DEFAULT_WALLET_ID: u32 = 698_983_191;

/// A standard wallet contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V3R2,
    V4R2,
    V5R1,
}

impl Version {
    /// The name clients and the APIs use (`wallet_v4r2`, `wallet_v5r1`).
    pub fn name(self) -> &'static str {
        match self {
            Version::V3R2 => "wallet_v3r2",
            Version::V4R2 => "wallet_v4r2",
            Version::V5R1 => "wallet_v5r1",
        }
    }

    /// The contract's code.
    pub fn code(self) -> Cell {
        let b64 = match self {
            Version::V3R2 => V3R2_CODE,
            Version::V4R2 => V4R2_CODE,
            Version::V5R1 => V5R1_CODE,
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .expect("embedded wallet code is base64");
        Boc::decode(bytes).expect("embedded wallet code is a BoC")
    }
}

/// One wallet: its contract, key and wallet id.
#[derive(Debug, Clone)]
pub struct Wallet {
    pub version: Version,
    pub public_key: [u8; 32],
    /// The 32-bit wallet id stored in the data (v5r1: the network's global
    /// id mixed with the wallet's context, as @ton/ton computes it).
    pub wallet_id: u32,
    pub workchain: i8,
}

/// v5r1's wallet id for a client wallet: the context (a client flag, the
/// workchain, version 0, a 15-bit subwallet number) XOR the network's
/// global id.
pub fn v5r1_wallet_id(global_id: i32, workchain: i8, subwallet: u16) -> u32 {
    let context: u32 =
        (1 << 31) | (u32::from(workchain as u8) << 23) | (u32::from(subwallet & 0x7fff));
    context ^ (global_id as u32)
}

impl Wallet {
    /// The `n`-th wallet of `version` for `keys` in the basechain:
    /// v4r2 with wallet id 698983191 + n, v5r1 with subwallet number n of
    /// the network `global_id` (n = 0 is each client's default wallet).
    pub fn nth(version: Version, keys: &Keys, n: u16, global_id: i32) -> Self {
        let wallet_id = match version {
            Version::V3R2 | Version::V4R2 => V4_DEFAULT_WALLET_ID + u32::from(n),
            Version::V5R1 => v5r1_wallet_id(global_id, 0, n),
        };
        Self {
            version,
            public_key: keys.public,
            wallet_id,
            workchain: 0,
        }
    }

    /// The contract's initial data: seqno 0, the wallet id, the key, no
    /// plugins or extensions.
    pub fn data(&self) -> Cell {
        let mut b = CellBuilder::new();
        let built = (|| {
            if self.version == Version::V5R1 {
                b.store_bit_one()?; // signature allowed
            }
            b.store_u32(0)?; // seqno
            b.store_u32(self.wallet_id)?;
            b.store_u256(&HashBytes(self.public_key))?;
            if self.version != Version::V3R2 {
                b.store_bit_zero()?; // empty plugins / extensions dictionary
            }
            b.build()
        })();
        built.expect("wallet data fits in one cell")
    }

    /// The state init a deploy carries.
    pub fn state_init(&self) -> StateInit {
        StateInit {
            code: Some(self.version.code()),
            data: Some(self.data()),
            ..Default::default()
        }
    }

    /// The wallet's address: the hash of its state init.
    pub fn address(&self) -> StdAddr {
        let init = CellBuilder::build_from(self.state_init()).expect("a state init fits");
        StdAddr::new(self.workchain, *init.repr_hash())
    }
}

/// One internal message a wallet sends: where, how much, whether it
/// bounces, and its body (empty when `None`).
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub to: StdAddr,
    pub amount: u128,
    pub bounce: bool,
    pub body: Option<Cell>,
    /// A state init to deploy the destination with.
    pub init: Option<StateInit>,
}

/// A text comment body (`0x00000000` then the text, TEP-74's form; the
/// text must fit one cell: at most 123 bytes).
pub fn comment_body(text: &str) -> Result<Cell, tycho_types::error::Error> {
    let mut b = CellBuilder::new();
    b.store_u32(0)?;
    b.store_raw(
        text.as_bytes(),
        u16::try_from(text.len() * 8).unwrap_or(u16::MAX),
    )?;
    b.build()
}

impl Outgoing {
    /// The internal message (`MessageRelaxed`) a wallet puts in its action.
    pub(crate) fn message(&self) -> Result<Cell, tycho_types::error::Error> {
        let body = match &self.body {
            Some(b) => b.clone(),
            None => Cell::empty_cell(),
        };
        let internal = RelaxedMessage {
            info: RelaxedMsgInfo::Int(RelaxedIntMsgInfo {
                ihr_disabled: true,
                bounce: self.bounce,
                dst: IntAddr::Std(self.to.clone()),
                value: Tokens::new(self.amount).into(),
                ..Default::default()
            }),
            init: self.init.clone(),
            body: body.as_slice()?,
            layout: None,
        };
        CellBuilder::build_from(internal)
    }
}

impl Wallet {
    /// The external-in message carrying a signed `body` to this wallet.
    fn external(&self, body: Cell) -> Result<Cell, tycho_types::error::Error> {
        external_to(
            &self.address(),
            body,
            Some(MessageLayout {
                init_to_cell: false,
                body_to_cell: true,
            }),
        )
    }

    /// A transfer of this wallet's version to the wallet deployed at
    /// `address` (whose data need not be the initial one), signed with
    /// `keys`: for emulations that skip signature checks, any keys do.
    pub fn transfers_at(
        &self,
        address: &StdAddr,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
        outgoing: &[Outgoing],
    ) -> Result<Cell, tycho_types::error::Error> {
        let signed = self.transfers(keys, seqno, valid_until, outgoing)?;
        let msg: OwnedMessage = signed.parse()?;
        // The body is a reference of its own there (`body_to_cell`); sent
        // from a wallet app it is inline where it fits, as client
        // libraries lay messages out (the import fee counts the cells).
        external_to(address, msg.body.1, None)
    }

    /// A signed external message of a v4r2 wallet sending `amount`
    /// nanotons to `to` (send mode 3: fees paid apart, errors ignored).
    pub fn v4r2_transfer(
        &self,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
        to: &StdAddr,
        amount: u128,
        bounce: bool,
    ) -> Result<Cell, tycho_types::error::Error> {
        let out = Outgoing {
            to: to.clone(),
            amount,
            bounce,
            body: None,
            init: None,
        };
        self.v4r2_transfers(keys, seqno, valid_until, &[out])
    }

    /// A signed external message of a v4r2 wallet sending up to four
    /// internal messages (each with send mode 3).
    pub fn v4r2_transfers(
        &self,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
        outgoing: &[Outgoing],
    ) -> Result<Cell, tycho_types::error::Error> {
        self.seqno_wallet_transfers(keys, seqno, valid_until, outgoing, Some(0))
    }

    /// v3/v4's body: the signature, then wallet id, valid until, seqno,
    /// v4's op (`Some(0)`: simple send; v3 has none, having no plugins)
    /// and a send mode and message reference each.
    fn seqno_wallet_transfers(
        &self,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
        outgoing: &[Outgoing],
        op: Option<u8>,
    ) -> Result<Cell, tycho_types::error::Error> {
        let mut unsigned = CellBuilder::new();
        unsigned.store_u32(self.wallet_id)?;
        unsigned.store_u32(valid_until)?;
        unsigned.store_u32(seqno)?;
        if let Some(op) = op {
            unsigned.store_u8(op)?;
        }
        for out in outgoing {
            unsigned.store_u8(3)?; // pay fees apart, ignore errors
            unsigned.store_reference(out.message()?)?;
        }
        let unsigned = unsigned.build()?;
        let signature = keys.sign(unsigned.repr_hash().as_array());
        let mut body = CellBuilder::new();
        body.store_raw(&signature, 512)?;
        body.store_slice(unsigned.as_slice()?)?;
        let body = body.build()?;
        self.external(body)
    }

    /// A signed external message of a v5r1 wallet sending up to 255
    /// internal messages (each with send mode 3): `external_signed`
    /// (`0x7369676e`), wallet id, valid until, seqno, the out actions as a
    /// linked list of `action_send_msg` (`0x0ec3c86d`), no other actions,
    /// and the signature last, over the hash of everything before it.
    pub fn v5r1_transfers(
        &self,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
        outgoing: &[Outgoing],
    ) -> Result<Cell, tycho_types::error::Error> {
        let mut list = Cell::empty_cell();
        for out in outgoing {
            let mut node = CellBuilder::new();
            node.store_reference(list)?;
            node.store_u32(0x0ec3_c86d)?;
            node.store_u8(3)?;
            node.store_reference(out.message()?)?;
            list = node.build()?;
        }
        let mut signed = CellBuilder::new();
        signed.store_u32(0x7369_676e)?;
        signed.store_u32(self.wallet_id)?;
        signed.store_u32(valid_until)?;
        signed.store_u32(seqno)?;
        signed.store_bit_one()?; // out actions present
        signed.store_reference(list)?;
        signed.store_bit_zero()?; // no other actions
        let unsigned = signed.clone().build()?;
        let signature = keys.sign(unsigned.repr_hash().as_array());
        signed.store_raw(&signature, 512)?;
        let body = signed.build()?;
        self.external(body)
    }

    /// A signed transfer of this wallet's version (see
    /// [`Self::v4r2_transfers`], [`Self::v5r1_transfers`]).
    pub fn transfers(
        &self,
        keys: &Keys,
        seqno: u32,
        valid_until: u32,
        outgoing: &[Outgoing],
    ) -> Result<Cell, tycho_types::error::Error> {
        match self.version {
            Version::V3R2 => self.seqno_wallet_transfers(keys, seqno, valid_until, outgoing, None),
            Version::V4R2 => self.v4r2_transfers(keys, seqno, valid_until, outgoing),
            Version::V5R1 => self.v5r1_transfers(keys, seqno, valid_until, outgoing),
        }
    }
}

/// The external-in message carrying `body` to `dst`, laid out as
/// `layout` says (`None`: inline where it fits).
pub(crate) fn external_to(
    dst: &StdAddr,
    body: Cell,
    layout: Option<MessageLayout>,
) -> Result<Cell, tycho_types::error::Error> {
    let msg = OwnedMessage {
        info: MsgInfo::ExtIn(ExtInMsgInfo {
            src: None,
            dst: IntAddr::Std(dst.clone()),
            import_fee: Tokens::ZERO,
        }),
        init: None,
        body: CellSliceParts::from(body),
        layout,
    };
    CellBuilder::build_from(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_code_is_the_public_code() {
        for (version, head, tail) in [
            (Version::V3R2, "84dafa44", "d599"),
            (Version::V4R2, "feb5ff68", "d5c0"),
            (Version::V5R1, "20834b7b", "b72f"),
        ] {
            let hash = version.code().repr_hash().to_string();
            assert!(hash.starts_with(head) && hash.ends_with(tail), "{hash}");
        }
    }

    #[test]
    fn v5r1_wallet_ids_as_clients_compute_them() {
        // @ton/ton's default v5r1 wallet on mainnet and on testnet.
        assert_eq!(v5r1_wallet_id(-239, 0, 0), 2_147_483_409);
        assert_eq!(v5r1_wallet_id(-3, 0, 0), 2_147_483_645);
    }
}
