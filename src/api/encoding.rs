//! Wire encodings shared by API v2 and v3: address forms, hashes, shard ids,
//! numbers-as-strings and BoCs. Each exists once, here.

use std::fmt::{Display, Write as _};

use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde::{Serialize, Serializer};
use tonindex_model::{Address, Hash};
use tycho_types::cell::HashBytes;
use tycho_types::models::{Base64StdAddrFlags, DisplayBase64StdAddr, StdAddr, StdAddrFormat};

/// Standard padded base64 (hashes, BoCs).
pub fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// `wc:` and the account id in hex. Written out because addresses are
/// formatted by the hundred per response and the `hex` crate goes through
/// a char iterator.
fn raw(a: &Address, upper: bool) -> String {
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut hex = [0u8; 64];
    for (pair, b) in hex.chunks_exact_mut(2).zip(a.id) {
        pair[0] = digits[usize::from(b >> 4)];
        pair[1] = digits[usize::from(b & 0x0f)];
    }
    let mut out = String::with_capacity(69);
    let _ = write!(out, "{}:", a.workchain);
    out.push_str(std::str::from_utf8(&hex).unwrap_or_default());
    out
}

/// Raw form `wc:HEX` with upper-case hex (v3 everywhere, v2 `ext.transaction.account`).
pub fn raw_upper(a: &Address) -> String {
    raw(a, true)
}

/// Raw form `wc:hex` with lower-case hex (v2 short tx ids, detectAddress).
pub fn raw_lower(a: &Address) -> String {
    raw(a, false)
}

/// Flags of a user-friendly address form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FriendlyFlags {
    pub bounceable: bool,
    pub testnet: bool,
    pub url_safe: bool,
}

/// The 48-character user-friendly form. Workchains outside `i8` have no
/// friendly form; the raw form is returned for them.
pub fn friendly(a: &Address, flags: FriendlyFlags) -> String {
    let Ok(workchain) = i8::try_from(a.workchain) else {
        return raw_upper(a);
    };
    let addr = StdAddr::new(workchain, HashBytes(a.id));
    DisplayBase64StdAddr {
        addr: &addr,
        flags: Base64StdAddrFlags {
            testnet: flags.testnet,
            base64_url: flags.url_safe,
            bounceable: flags.bounceable,
        },
    }
    .to_string()
}

/// The form tonlib gives addresses inside transactions and messages:
/// bounceable, url-safe, mainnet.
pub fn friendly_bounceable(a: &Address) -> String {
    friendly(
        a,
        FriendlyFlags {
            bounceable: true,
            testnet: false,
            url_safe: true,
        },
    )
}

/// An address parsed from user input, with the flags of its friendly form
/// (`None` when it was given raw).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedAddress {
    pub address: Address,
    pub friendly: Option<FriendlyFlags>,
}

/// Parses any accepted address form: raw `wc:hex` (any case) or the
/// 48-character friendly form in standard or url-safe base64 with a valid
/// CRC16. Returns `None` for anything else.
pub fn parse_address(s: &str) -> Option<ParsedAddress> {
    let s = s.trim();
    if let Some((wc, hex_part)) = s.split_once(':') {
        let workchain: i32 = wc.parse().ok()?;
        if hex_part.len() != 64 {
            return None;
        }
        let mut id = [0u8; 32];
        hex::decode_to_slice(hex_part, &mut id).ok()?;
        return Some(ParsedAddress {
            address: Address { workchain, id },
            friendly: None,
        });
    }
    if s.len() != 48 {
        return None;
    }
    // tycho picks the alphabet from the presence of `-`/`_`; a string mixing
    // both alphabets is not an address.
    if s.contains(['-', '_']) && s.contains(['+', '/']) {
        return None;
    }
    let (addr, flags) = StdAddr::from_str_ext(s, StdAddrFormat::any()).ok()?;
    Some(ParsedAddress {
        address: Address {
            workchain: i32::from(addr.workchain),
            id: addr.address.0,
        },
        friendly: Some(FriendlyFlags {
            bounceable: flags.bounceable,
            testnet: flags.testnet,
            url_safe: flags.base64_url,
        }),
    })
}

/// Parses a 32-byte hash given as 64 hex digits (optionally `0x`-prefixed),
/// 44-character base64 (standard or url-safe) or 43-character unpadded
/// url-safe base64 — or as a `0x` number with its leading zeros dropped:
/// @ton/walletkit's `sendBoc` answers `0x${BigInt(hash).toString(16)}` and
/// asks for the pending trace by that (one hash in 16 has a zero first
/// digit; toncenter refuses those), and its `getTrace` takes such a string
/// of odd length for base64 and pads it with `=`, which is dropped here.
pub fn parse_hash(s: &str) -> Option<Hash> {
    let s = s.trim();
    let hex_part = s.strip_prefix("0x").unwrap_or(s);
    let mut out = [0u8; 32];
    if hex_part.len() == 64 {
        return hex::decode_to_slice(hex_part, &mut out).ok().map(|_| out);
    }
    let decoded = match s.len() {
        44 if s.contains(['-', '_']) => URL_SAFE.decode(s).ok(),
        44 => STANDARD.decode(s).ok(),
        43 => URL_SAFE_NO_PAD.decode(s).ok(),
        _ => None,
    };
    if let Some(bytes) = decoded {
        return bytes.try_into().ok();
    }
    let digits = s.strip_prefix("0x")?.trim_end_matches('=');
    if digits.is_empty() || digits.len() > 64 {
        return None;
    }
    hex::decode_to_slice(format!("{digits:0>64}"), &mut out)
        .ok()
        .map(|_| out)
}

/// Shard id as v3 writes it: the u64 in upper-case hex, 16 digits.
pub fn shard_hex(shard: u64) -> String {
    format!("{shard:016X}")
}

/// Shard id as v2 writes it: the u64 reinterpreted as i64, in decimal.
pub fn shard_signed(shard: u64) -> String {
    (shard as i64).to_string()
}

/// A BoC with a CRC32C trailer (`te6cckE…`), the form v3 uses for message
/// bodies and init states. A BoC with the flag is the same bytes with the
/// `has_crc32c` header bit set and the checksum appended, so the stored
/// BoC is patched rather than re-serialized. `None` if it is not a BoC.
pub fn boc_with_crc(boc: &[u8]) -> Option<Vec<u8>> {
    const MAGIC: [u8; 4] = [0xb5, 0xee, 0x9c, 0x72];
    const HAS_CRC: u8 = 0x40;
    if boc.len() < 5 || boc[..4] != MAGIC {
        return None;
    }
    if boc[4] & HAS_CRC != 0 {
        return Some(boc.to_vec());
    }
    let mut out = Vec::with_capacity(boc.len() + 4);
    out.extend_from_slice(boc);
    out[4] |= HAS_CRC;
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Some(out)
}

/// A number written as a JSON string of its decimal form (`"48598466000004"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dec<T>(pub T);

impl<T: Display> Serialize for Dec<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A hash written as standard padded base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct B64(pub Hash);

impl Serialize for B64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 44];
        let n = STANDARD
            .encode_slice(self.0, &mut buf)
            .map_err(serde::ser::Error::custom)?;
        s.serialize_str(std::str::from_utf8(&buf[..n]).map_err(serde::ser::Error::custom)?)
    }
}

/// Bytes (a BoC) written as standard padded base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct B64Bytes(pub Vec<u8>);

impl Serialize for B64Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&b64(&self.0))
    }
}

/// An address in v3's raw upper-case form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawAddr(pub Address);

impl Serialize for RawAddr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&raw_upper(&self.0))
    }
}

/// An ADNL address in the text form tonlib gives it (55 characters): the
/// tag byte 0x2d, the 32 bytes and their CRC-16/XMODEM, in lowercase
/// RFC 4648 base32 without the first character (always `f`).
pub fn adnl_text(address: &[u8; 32]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut buf = Vec::with_capacity(35);
    buf.push(0x2d);
    buf.extend_from_slice(address);
    let crc = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM).checksum(&buf);
    buf.extend_from_slice(&crc.to_be_bytes());
    // 35 bytes are 280 bits: exactly 56 characters, no padding.
    let mut out = String::with_capacity(56);
    let (mut acc, mut bits) = (0u32, 0u32);
    for byte in buf {
        acc = (acc << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
        }
    }
    out.split_off(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors from Python's own base32 and CRC-CCITT (`binascii.crc_hqx`
    /// with 0, i.e. XMODEM): `b32encode(b"\x2d" + id + crc).lower()[1:]`.
    #[test]
    fn adnl_text_form() {
        let ascending: [u8; 32] = std::array::from_fn(|i| i as u8);
        assert_eq!(
            adnl_text(&ascending),
            "uaacaqdaqcqmbyibefawdanbyhraeiscmkbkfqxdamrugy4dupb7x7f"
        );
        assert_eq!(
            adnl_text(&[0xff; 32]),
            "x777777777777777777777777777777777777777777777777777cno"
        );
    }

    const RAW: &str = "0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8";
    const BOUNCEABLE: &str = "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N";
    const NON_BOUNCEABLE: &str = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI";

    #[test]
    fn address_forms_round_trip_and_checksums_are_verified() {
        let raw = parse_address(RAW).unwrap();
        assert_eq!(raw.friendly, None);
        assert_eq!(
            parse_address(&RAW.to_lowercase()).unwrap().address,
            raw.address
        );
        let b = parse_address(BOUNCEABLE).unwrap();
        assert_eq!(b.address, raw.address);
        assert!(b.friendly.unwrap().bounceable);
        let nb = parse_address(NON_BOUNCEABLE).unwrap();
        assert!(!nb.friendly.unwrap().bounceable);
        assert_eq!(friendly_bounceable(&raw.address), BOUNCEABLE);
        assert_eq!(raw_upper(&raw.address), RAW);
        assert_eq!(raw_lower(&raw.address), RAW.to_lowercase());

        // One changed character breaks the CRC.
        let mut bad = BOUNCEABLE.to_string();
        bad.replace_range(10..11, "A");
        assert!(parse_address(&bad).is_none());
        for s in [
            "",
            "0:12",
            "x:00",
            "EQ",
            "0:zz3dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8",
        ] {
            assert!(parse_address(s).is_none(), "{s}");
        }
        let test_only = friendly(
            &raw.address,
            FriendlyFlags {
                bounceable: false,
                testnet: true,
                url_safe: true,
            },
        );
        let parsed = parse_address(&test_only).unwrap();
        assert!(parsed.friendly.unwrap().testnet);
        assert!(test_only.starts_with("0Q"));
    }

    #[test]
    fn hash_forms() {
        let h: Hash = core::array::from_fn(|i| (i * 37 + 250) as u8);
        let hexs = hex::encode(h);
        for s in [
            hexs.clone(),
            hexs.to_uppercase(),
            format!("0x{hexs}"),
            STANDARD.encode(h),
            URL_SAFE.encode(h),
            URL_SAFE_NO_PAD.encode(h),
        ] {
            assert_eq!(parse_hash(&s), Some(h), "{s}");
        }
        let std43 = STANDARD.encode(h)[..43].to_string();
        for s in ["", "not a hash", &hexs[..62], &std43, "0x", "0xzz"] {
            assert_eq!(parse_hash(s), None, "{s}");
        }
        // A `0x` number without its leading zeros (walletkit's form).
        let mut low = h;
        low[..2].copy_from_slice(&[0x00, 0x0a]);
        let number = format!("0x{}", hex::encode(low).trim_start_matches('0'));
        assert_eq!(number.len(), 2 + 61, "{number}");
        assert_eq!(parse_hash(&number), Some(low), "{number}");
        // Of odd length, padded as base64 by walletkit's getTrace.
        let padded = format!("{number}{}", "=".repeat(4 - number.len() % 4));
        assert_eq!(padded.len(), 64, "{padded}");
        assert_eq!(parse_hash(&padded), Some(low), "{padded}");
        let mut one = h;
        one[0] = 0x0a;
        let number = format!("0x{}", hex::encode(one).trim_start_matches('0'));
        let padded = format!("{number}===");
        assert_eq!((number.len() + 3) % 4, 0, "{padded}");
        assert_eq!(parse_hash(&padded), Some(one), "{padded}");
        assert_eq!(
            parse_hash("0x1"),
            Some(core::array::from_fn(|i| u8::from(i == 31)))
        );
        assert_eq!(parse_hash(&format!("0x0{hexs}")), None, "65 digits");
    }

    #[test]
    fn shard_forms_and_crc_boc() {
        assert_eq!(shard_hex(0x8000_0000_0000_0000), "8000000000000000");
        assert_eq!(shard_signed(0x8000_0000_0000_0000), "-9223372036854775808");
        let empty =
            tycho_types::boc::Boc::encode(tycho_types::cell::CellBuilder::new().build().unwrap());
        assert_eq!(
            b64(&boc_with_crc(&empty).unwrap()),
            "te6cckEBAQEAAgAAAEysuc0="
        );
        // Equal to tycho's own CRC serialization of a bigger tree.
        let mut b = tycho_types::cell::CellBuilder::new();
        b.store_u64(0xdead_beef_0bad_f00d).unwrap();
        b.store_reference(tycho_types::cell::CellBuilder::new().build().unwrap())
            .unwrap();
        let cell = b.build().unwrap();
        let mut want = Vec::new();
        tycho_types::boc::ser::BocHeader::<std::hash::RandomState>::with_root(cell.as_ref())
            .with_crc(true)
            .encode(&mut want);
        let plain = tycho_types::boc::Boc::encode(&cell);
        assert_eq!(boc_with_crc(&plain).unwrap(), want);
        assert!(tycho_types::boc::Boc::decode(&want).is_ok());
        assert_eq!(boc_with_crc(b"nope"), None);
    }
}

/// The wallet fields v2 `getWalletInformation` and v3 `walletStates` show,
/// each omitted when unknown (non-wallets have none).
#[derive(Debug, Default, Serialize, utoipa::ToSchema)]
pub struct WalletFields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wallet_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seqno: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wallet_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_signature_allowed: Option<bool>,
}

impl From<Option<crate::state::wallet::WalletInfo>> for WalletFields {
    fn from(w: Option<crate::state::wallet::WalletInfo>) -> Self {
        w.map_or_else(Self::default, |w| Self {
            wallet_type: Some(w.wallet_type),
            seqno: w.seqno,
            wallet_id: w.wallet_id,
            is_signature_allowed: w.is_signature_allowed,
        })
    }
}

// ---------------------------------------------------------------------------
// How the wire types above appear in the OpenAPI documents (the structs
// that hold them derive `utoipa::ToSchema`).

mod schemas {
    use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
    use utoipa::openapi::RefOr;
    use utoipa::{PartialSchema, ToSchema};

    use super::{B64Bytes, Dec, RawAddr, B64};

    fn string(pattern: Option<&str>, about: &str) -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(pattern)
            .description(Some(about))
            .into()
    }

    // `Dec<T>` is generic, so utoipa's derive composes it: utoipa 6's
    // `ComposeSchema` (pinned exactly in Cargo.toml) gives its schema.
    impl<T> utoipa::__dev::ComposeSchema for Dec<T> {
        fn compose(_: Vec<RefOr<Schema>>) -> RefOr<Schema> {
            string(Some("^-?[0-9]+$"), "An integer written in decimal")
        }
    }
    impl<T> ToSchema for Dec<T> {}

    impl PartialSchema for B64 {
        fn schema() -> RefOr<Schema> {
            string(
                Some("^[A-Za-z0-9+/]{43}=$"),
                "A 32-byte hash in standard base64",
            )
        }
    }
    impl ToSchema for B64 {}

    impl PartialSchema for B64Bytes {
        fn schema() -> RefOr<Schema> {
            string(None, "Bytes (a bag of cells) in standard base64")
        }
    }
    impl ToSchema for B64Bytes {}

    impl PartialSchema for RawAddr {
        fn schema() -> RefOr<Schema> {
            string(
                Some("^-?[0-9]+:[0-9A-F]{64}$"),
                "An address in raw form: workchain, colon, 64 upper-case hex digits",
            )
        }
    }
    impl ToSchema for RawAddr {}
}
