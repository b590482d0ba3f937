//! Message bodies decoded from one TL-B scheme (`schemes.tlb`, beside this
//! file): v3's `decoded_opcode`, `message_content.decoded` and `/decode`
//! (spec v3 §1.9, §3.11, §6.8). The scheme is read once; decoding walks
//! its constructors, so a new body is a line of TL-B, not code.
//!
//! JSON shape (toncenter's printer is not public, spec v3 §9): an object
//! with `@type` (and `type`) the constructor's name and one key per field;
//! integers up to 53 bits are JSON numbers, wider ones decimal strings;
//! amounts (`Coins`) decimal strings; addresses raw (`0:ABC…`, `null` for
//! `addr_none`); bits hex; a cell decoded recursively when it is a known
//! body (an empty one is `{"@type": "empty_cell"}`), else its BoC in base64.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{json, Map, Value as Json};
use tycho_types::cell::{Cell, CellBuilder, CellSlice, Load};
use tycho_types::models::IntAddr;
use tycho_types::num::Tokens;

const SCHEME: &str = include_str!("schemes.tlb");

/// How deep cells inside cells are decoded.
const MAX_DEPTH: usize = 10;

/// A field type of the subset the scheme uses.
#[derive(Debug, Clone, PartialEq)]
enum Ty {
    Uint(u16),
    Int(u16),
    Bits(u16),
    Bool,
    Coins,
    Address,
    /// The rest of the cell.
    Rest,
    Snake,
    Bytes,
    Maybe(Box<Ty>),
    Either(Box<Ty>, Box<Ty>),
    Ref(Box<Ty>),
    /// A result type declared in the scheme.
    Named(String),
}

#[derive(Debug, Clone)]
struct Constructor {
    name: String,
    tag: u32,
    tag_bits: u16,
    fields: Vec<(String, Ty)>,
}

struct Scheme {
    /// By result type, in the file's order.
    by_result: HashMap<String, Vec<Constructor>>,
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' => {
                depth += 1;
                cur.push(ch);
            }
            ')' => {
                depth -= 1;
                cur.push(ch);
            }
            c if c.is_whitespace() && depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn parse_ty(s: &str) -> Result<Ty, String> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('^') {
        return Ok(Ty::Ref(Box::new(parse_ty(inner)?)));
    }
    if let Some(inner) = s.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        let parts = split_top(inner);
        return match parts
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["Maybe", t] => Ok(Ty::Maybe(Box::new(parse_ty(t)?))),
            ["Either", a, b] => Ok(Ty::Either(Box::new(parse_ty(a)?), Box::new(parse_ty(b)?))),
            ["##", n] => Ok(Ty::Uint(n.parse().map_err(|_| format!("bad width {n}"))?)),
            ["VarUInteger", "16"] => Ok(Ty::Coins),
            _ => Err(format!("unsupported type {s}")),
        };
    }
    let width = |rest: &str| rest.parse::<u16>().map_err(|_| format!("bad width in {s}"));
    Ok(match s {
        "Bool" => Ty::Bool,
        "Coins" | "Grams" => Ty::Coins,
        "MsgAddress" | "MsgAddressInt" => Ty::Address,
        "Cell" | "Any" => Ty::Rest,
        "SnakeString" => Ty::Snake,
        "Bytes" => Ty::Bytes,
        _ if s.starts_with("uint") => Ty::Uint(width(&s[4..])?),
        _ if s.starts_with("int") => Ty::Int(width(&s[3..])?),
        _ if s.starts_with("bits") => Ty::Bits(width(&s[4..])?),
        _ => Ty::Named(s.to_string()),
    })
}

fn parse_scheme(text: &str) -> Result<Scheme, String> {
    let mut by_result: HashMap<String, Vec<Constructor>> = HashMap::new();
    let stripped: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    for stmt in stripped.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let (lhs, result) = stmt
            .rsplit_once('=')
            .ok_or_else(|| format!("no result type: {stmt}"))?;
        let tokens = split_top(lhs);
        let (head, fields) = tokens.split_first().ok_or("empty constructor")?;
        let (name, tag) = head
            .split_once('#')
            .ok_or_else(|| format!("{head}: only #tag constructors are read"))?;
        let tag_bits = u16::try_from(tag.len() * 4).map_err(|_| "tag too long")?;
        let tag = u32::from_str_radix(tag, 16).map_err(|_| format!("bad tag {tag}"))?;
        let mut parsed = Vec::new();
        for f in fields {
            let (fname, ty) = f
                .split_once(':')
                .ok_or_else(|| format!("{name}: field {f} has no type"))?;
            parsed.push((fname.to_string(), parse_ty(ty)?));
        }
        by_result
            .entry(result.trim().to_string())
            .or_default()
            .push(Constructor {
                name: name.to_string(),
                tag,
                tag_bits,
                fields: parsed,
            });
    }
    Ok(Scheme { by_result })
}

fn scheme() -> &'static Scheme {
    static S: OnceLock<Scheme> = OnceLock::new();
    S.get_or_init(|| parse_scheme(SCHEME).expect("schemes.tlb reads (tested)"))
}

/// The message-body constructor named for a 32-bit opcode, if the scheme
/// has one (`0x0f8a7ea5` → `jetton_transfer`).
pub fn opcode_name(opcode: u32) -> Option<&'static str> {
    scheme()
        .by_result
        .get("InternalMsgBody")?
        .iter()
        .find(|c| c.tag == opcode && c.tag_bits == 32)
        .map(|c| c.name.as_str())
}

/// A body decoded by the scheme; `Err` says why not.
pub fn decode(body: &Cell) -> Result<Json, String> {
    decode_as(body, "InternalMsgBody", 0)
}

/// A read of a cell, or why it failed.
pub(crate) type Read<T> = Result<T, String>;

fn e(err: impl std::fmt::Display) -> String {
    err.to_string()
}

fn decode_as(cell: &Cell, result: &str, depth: usize) -> Read<Json> {
    let cs = cell.as_slice().map_err(e)?;
    decode_slice(&mut cs.clone(), result, depth)
}

fn decode_slice(cs: &mut CellSlice<'_>, result: &str, depth: usize) -> Read<Json> {
    let constructors = scheme()
        .by_result
        .get(result)
        .ok_or_else(|| format!("no type {result}"))?;
    let mut last_err = format!("no constructor of {result} matches");
    for c in constructors {
        let mut attempt = *cs;
        if attempt.size_bits() < c.tag_bits {
            continue;
        }
        let tag = attempt.load_uint(c.tag_bits).map_err(e)? as u32;
        if tag != c.tag {
            continue;
        }
        match fields(&mut attempt, c, depth) {
            Ok(v) => {
                *cs = attempt;
                return Ok(v);
            }
            Err(err) => last_err = format!("{}: {err}", c.name),
        }
    }
    Err(last_err)
}

fn fields(cs: &mut CellSlice<'_>, c: &Constructor, depth: usize) -> Read<Json> {
    let mut out = Map::new();
    out.insert("@type".into(), json!(c.name));
    out.insert("type".into(), json!(c.name));
    for (name, ty) in &c.fields {
        out.insert(
            name.clone(),
            value(cs, ty, depth).map_err(|err| format!("{name}: {err}"))?,
        );
    }
    Ok(Json::Object(out))
}

fn number(v: u128, bits: u16) -> Json {
    if bits <= 53 {
        json!(v as u64)
    } else {
        json!(v.to_string())
    }
}

/// The rest of a slice as a cell of its own; the slice is left empty.
pub(crate) fn rest_cell(cs: &mut CellSlice<'_>) -> Read<Cell> {
    let mut b = CellBuilder::new();
    b.store_slice(*cs).map_err(e)?;
    let c = b.build().map_err(e)?;
    cs.skip_first(cs.size_bits(), cs.size_refs()).map_err(e)?;
    Ok(c)
}

/// A cell as a nested body when the scheme knows it, else its BoC.
fn cell_value(cell: &Cell, depth: usize) -> Json {
    if cell.bit_len() == 0 && cell.reference_count() == 0 {
        return json!({"@type": "empty_cell"});
    }
    if depth < MAX_DEPTH {
        if let Ok(v) = decode_as(cell, "InternalMsgBody", depth + 1) {
            return v;
        }
    }
    json!(boc_b64(cell))
}

/// A cell's BoC with its CRC (`te6cck…`) in base64, as the APIs print cells.
pub(crate) fn boc_b64(cell: &Cell) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(crate::boc::encode_crc(cell))
}

/// A message address: raw (`0:ABC…`), `null` for `addr_none`.
pub(crate) fn address(cs: &mut CellSlice<'_>) -> Read<Json> {
    if cs.size_bits() >= 2 && cs.get_small_uint(0, 2).map_err(e)? == 0 {
        cs.skip_first(2, 0).map_err(e)?;
        return Ok(Json::Null);
    }
    match IntAddr::load_from(cs).map_err(e)? {
        IntAddr::Std(a) => Ok(json!(format!(
            "{}:{}",
            a.workchain,
            hex::encode_upper(a.address.as_array())
        ))),
        IntAddr::Var(_) => Err("a variable-length address".into()),
    }
}

/// Snake data: every whole byte of each cell, continued in its first reference.
pub(crate) fn snake_bytes(mut cs: CellSlice<'_>) -> Read<Vec<u8>> {
    let mut bytes = Vec::new();
    loop {
        let n = cs.size_bits() / 8;
        let mut buf = vec![0u8; usize::from(n)];
        cs.load_raw(&mut buf, n * 8).map_err(e)?;
        bytes.extend_from_slice(&buf);
        if cs.size_refs() == 0 {
            return Ok(bytes);
        }
        cs = cs.load_reference_as_slice().map_err(e)?;
    }
}

fn value(cs: &mut CellSlice<'_>, ty: &Ty, depth: usize) -> Read<Json> {
    Ok(match ty {
        Ty::Uint(n) if *n <= 128 => number(cs.load_uint_wide(*n)?, *n),
        Ty::Uint(n) | Ty::Int(n) if *n > 128 => {
            let mut buf = vec![0u8; usize::from(n.div_ceil(8))];
            cs.load_raw(&mut buf, *n).map_err(e)?;
            let v = num_bigint::BigUint::from_bytes_be(&buf) >> (buf.len() * 8 - usize::from(*n));
            json!(v.to_string())
        }
        Ty::Uint(_) => unreachable!("widths above are covered"),
        Ty::Int(n) => {
            let raw = cs.load_uint_wide(*n)?;
            let v = if *n > 0 && *n < 128 && raw >> (n - 1) & 1 == 1 {
                raw as i128 - (1i128 << n)
            } else {
                raw as i128
            };
            if *n <= 53 {
                json!(v as i64)
            } else {
                json!(v.to_string())
            }
        }
        Ty::Bits(n) => {
            let mut buf = vec![0u8; usize::from(n.div_ceil(8))];
            cs.load_raw(&mut buf, *n).map_err(e)?;
            json!(hex::encode(buf))
        }
        Ty::Bool => json!(cs.load_bit().map_err(e)?),
        Ty::Coins => json!(Tokens::load_from(cs).map_err(e)?.into_inner().to_string()),
        Ty::Address => address(cs)?,
        Ty::Rest => cell_value(&rest_cell(cs)?, depth),
        Ty::Snake => {
            let bytes = snake_bytes(*cs)?;
            cs.skip_first(cs.size_bits(), cs.size_refs()).map_err(e)?;
            json!(String::from_utf8(bytes).map_err(|_| "not UTF-8 text")?)
        }
        Ty::Bytes => {
            let cell = rest_cell(cs)?;
            json!(boc_b64(&cell))
        }
        Ty::Maybe(t) => {
            if cs.load_bit().map_err(e)? {
                value(cs, t, depth)?
            } else {
                Json::Null
            }
        }
        Ty::Either(a, b) => {
            if cs.load_bit().map_err(e)? {
                value(cs, b, depth)?
            } else {
                value(cs, a, depth)?
            }
        }
        Ty::Ref(t) => {
            let cell = cs.load_reference_cloned().map_err(e)?;
            match t.as_ref() {
                Ty::Rest => cell_value(&cell, depth),
                Ty::Named(name) => decode_as(&cell, name, depth + 1)?,
                other => {
                    let mut inner = cell.as_slice().map_err(e)?;
                    value(&mut inner, other, depth + 1)?
                }
            }
        }
        Ty::Named(name) => decode_slice(cs, name, depth + 1)?,
    })
}

trait LoadWide {
    fn load_uint_wide(&mut self, bits: u16) -> Read<u128>;
}

impl LoadWide for CellSlice<'_> {
    fn load_uint_wide(&mut self, bits: u16) -> Read<u128> {
        if bits <= 64 {
            return self.load_uint(bits).map(u128::from).map_err(e);
        }
        let hi = self.load_uint(bits - 64).map_err(e)?;
        let lo = self.load_u64().map_err(e)?;
        Ok((u128::from(hi) << 64) | u128::from(lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tycho_types::cell::{CellFamily, Store};

    #[test]
    fn the_scheme_reads() {
        let s = parse_scheme(SCHEME).unwrap();
        assert!(s.by_result["InternalMsgBody"].len() > 20);
        assert_eq!(opcode_name(0x0f8a7ea5), Some("jetton_transfer"));
        assert_eq!(opcode_name(0), Some("text_comment"));
        assert_eq!(opcode_name(0x12345678), None);
    }

    #[test]
    fn comments_and_jetton_transfers_decode() {
        let mut b = CellBuilder::new();
        b.store_u32(0).unwrap();
        b.store_raw(b"hello", 40).unwrap();
        let v = decode(&b.build().unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"@type": "text_comment", "type": "text_comment", "text": "hello"})
        );

        let mut b = CellBuilder::new();
        b.store_u32(0x0f8a7ea5).unwrap();
        b.store_u64(7).unwrap();
        Tokens::new(100)
            .store_into(&mut b, Cell::empty_context())
            .unwrap();
        b.store_small_uint(0, 2).unwrap(); // addr_none
        b.store_small_uint(0, 2).unwrap();
        b.store_bit(false).unwrap(); // no custom payload
        Tokens::new(1)
            .store_into(&mut b, Cell::empty_context())
            .unwrap();
        b.store_bit(false).unwrap(); // inline forward payload: empty
        let v = decode(&b.build().unwrap()).unwrap();
        assert_eq!(v["@type"], "jetton_transfer");
        assert_eq!(v["query_id"], "7");
        assert_eq!(v["amount"], "100");
        assert_eq!(v["destination"], Json::Null);
        assert_eq!(v["forward_payload"], json!({"@type": "empty_cell"}));
    }
}
