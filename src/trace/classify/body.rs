//! Reading message bodies: addresses, coins, comments, payloads — the
//! TL-B pieces the action matchers parse, each returning `None` (never
//! panicking) on a body that does not fit.

use base64::Engine;
use tonindex_model::Address;
use tycho_types::cell::{Cell, CellBuilder, CellSlice, Load};
use tycho_types::num::Tokens;

/// `op:uint32` of a body, when it has 32 bits.
pub fn opcode(body: &Cell) -> Option<u32> {
    body.as_slice().ok()?.load_u32().ok()
}

/// A body slice positioned after its `op` (and `query_id` when asked).
pub fn after_op(body: &Cell) -> Option<CellSlice<'_>> {
    let mut s = body.as_slice().ok()?;
    s.skip_first(32, 0).ok()?;
    Some(s)
}

pub fn coins(s: &mut CellSlice<'_>) -> Option<u128> {
    Tokens::load_from(s).ok().map(|t| t.into_inner())
}

pub use crate::contracts::address::msg_address;

/// `Maybe ^Cell`.
pub fn maybe_ref(s: &mut CellSlice<'_>) -> Option<Option<Cell>> {
    if s.load_bit().ok()? {
        Some(Some(s.load_reference_cloned().ok()?))
    } else {
        Some(None)
    }
}

/// The rest of a slice as a cell of its own.
pub fn rest_cell(s: &CellSlice<'_>) -> Option<Cell> {
    CellBuilder::build_from(*s).ok()
}

/// `forward_payload:(Either Cell ^Cell)` at the end of a body, as toncenter
/// reads it: nothing left → `None`; the referenced cell, or the rest of the
/// slice inline.
pub fn either_payload(s: &mut CellSlice<'_>) -> Option<Cell> {
    if s.size_bits() == 0 {
        return None;
    }
    if s.load_bit().ok()? {
        s.load_reference_cloned().ok()
    } else {
        rest_cell(s)
    }
}

/// A cell as a base64 BoC with a CRC32C trailer (`te6cck…`).
pub fn boc_b64(cell: &Cell) -> String {
    base64::engine::general_purpose::STANDARD.encode(crate::boc::encode_crc(cell.as_ref()))
}

/// Snake bytes: the data of a cell and of its chain of single references,
/// each a whole number of bytes. `None` if the chain breaks either rule.
pub fn snake_bytes(s: CellSlice<'_>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = s;
    let mut hops = 0;
    loop {
        let bits = cur.size_bits();
        if !bits.is_multiple_of(8) || cur.size_refs() > 1 {
            return None;
        }
        let mut buf = vec![0u8; usize::from(bits / 8)];
        cur.load_raw(&mut buf, bits).ok()?;
        out.extend_from_slice(&buf);
        if cur.size_refs() == 0 {
            return Some(out);
        }
        hops += 1;
        if hops > 1024 {
            return None;
        }
        let next = cur.load_reference().ok()?;
        cur = next.as_slice().ok()?;
    }
}

/// Text as toncenter shows it: UTF-8 with each invalid byte as `\xNN`,
/// and NUL characters removed.
pub fn text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                for b in &bad[..n] {
                    out.push_str(&format!("\\x{b:02x}"));
                }
                rest = &bad[n..];
            }
        }
    }
    out.replace('\0', "")
}

/// Text comment (`op` 0) and encrypted comment (`op` 0x2167da4b) opcodes.
pub const OP_COMMENT: u32 = 0;
pub const OP_ENCRYPTED_COMMENT: u32 = 0x2167_da4b;

/// A comment body read as a TON transfer's: `(content, encrypted)`.
/// Content is the text, or for an encrypted comment the base64 of the
/// bytes after the op; `None` when the body carries none or breaks the
/// snake rules.
pub fn transfer_comment(body: Option<&Cell>) -> (Option<String>, bool) {
    let Some(body) = body else {
        return (None, false);
    };
    let Ok(mut s) = body.as_slice() else {
        return (None, false);
    };
    let Ok(op) = s.load_u32() else {
        return (None, false);
    };
    let encrypted = op == OP_ENCRYPTED_COMMENT;
    let bits = s.size_bits();
    if bits < 8 || !bits.is_multiple_of(8) || s.size_refs() > 1 {
        return (None, encrypted);
    }
    let content = snake_bytes(s).map(|bytes| {
        if encrypted {
            base64::engine::general_purpose::STANDARD.encode(bytes)
        } else {
            text(&bytes)
        }
    });
    (content, encrypted)
}

/// A payload's comment as jetton and NFT transfers read it: `(comment,
/// encrypted)` for op 0 or 0x2167da4b.
pub fn payload_comment(payload: Option<&Cell>) -> (Option<String>, bool) {
    let Some(p) = payload else {
        return (None, false);
    };
    let Ok(mut s) = p.as_slice() else {
        return (None, false);
    };
    if s.size_bits() < 32 {
        return (None, false);
    }
    let Ok(op) = s.load_u32() else {
        return (None, false);
    };
    match op {
        OP_COMMENT => (snake_bytes(s).map(|b| text(&b)), false),
        OP_ENCRYPTED_COMMENT => match snake_bytes(s) {
            Some(b) => (
                Some(base64::engine::general_purpose::STANDARD.encode(b)),
                true,
            ),
            None => (None, false),
        },
        _ => (None, false),
    }
}

/// A `MsgAddress` as toncenter's reader renders every form it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyAddress {
    None,
    Std(Address),
    /// `addr_extern`, written `"{bits};{hex}"` (hex without leading zeros).
    Extern(String),
}

impl AnyAddress {
    pub fn std(&self) -> Option<Address> {
        match self {
            AnyAddress::Std(a) => Some(*a),
            _ => None,
        }
    }

    /// As text: a raw address, the external form, or none.
    pub fn text(&self) -> Option<String> {
        match self {
            AnyAddress::None => None,
            AnyAddress::Std(a) => Some(super::raw(a)),
            AnyAddress::Extern(s) => Some(s.clone()),
        }
    }
}

/// `MsgAddress` with the external form kept and an anycast prefix read
/// past (not applied); `addr_var` is refused, as toncenter's reader does.
pub fn any_address(s: &mut CellSlice<'_>) -> Option<AnyAddress> {
    match s.load_small_uint(2).ok()? {
        0b00 => Some(AnyAddress::None),
        0b01 => {
            let len = s.load_uint(9).ok()? as u16;
            let mut bits = String::with_capacity(usize::from(len));
            for _ in 0..len {
                bits.push(if s.load_bit().ok()? { '1' } else { '0' });
            }
            let hex = bits_to_hex(&bits);
            let mut hex_digits = hex.trim_start_matches('0').to_string();
            if hex_digits.is_empty() {
                hex_digits.push('0');
            }
            Some(AnyAddress::Extern(format!("{len};{hex_digits}")))
        }
        0b10 => {
            if s.load_bit().ok()? {
                let depth = s.load_small_uint(5).ok()?;
                if depth == 0 {
                    return None;
                }
                s.skip_first(u16::from(depth), 0).ok()?;
            }
            let workchain = s.load_u8().ok()? as i8;
            let id = s.load_u256().ok()?;
            Some(AnyAddress::Std(Address {
                workchain: i32::from(workchain),
                id: *id.as_array(),
            }))
        }
        _ => None,
    }
}

/// A binary string as hex of the same number.
fn bits_to_hex(bits: &str) -> String {
    let pad = (4 - bits.len() % 4) % 4;
    let padded = format!("{}{bits}", "0".repeat(pad));
    padded
        .as_bytes()
        .chunks(4)
        .map(|c| {
            let v = c.iter().fold(0u8, |acc, &b| (acc << 1) | (b - b'0'));
            char::from_digit(u32::from(v), 16).unwrap_or('0')
        })
        .collect()
}

/// An unsigned integer as Python's `hex(n)[2:]` writes it: lower case,
/// no leading zeros.
pub fn hex_int(bytes: &[u8]) -> String {
    let s = hex::encode(bytes);
    let t = s.trim_start_matches('0');
    if t.is_empty() {
        "0".into()
    } else {
        t.into()
    }
}
