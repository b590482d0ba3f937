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
    /// `^[ a:T b:U ]`: fields of their own cell, shown in the parent.
    Anon(Vec<(String, Ty)>),
    /// `(HashmapE n T)` / `(Hashmap n T)`: the dictionary's root cell, shown
    /// as its BoC (the root is optional for `HashmapE`).
    Dict {
        optional: bool,
    },
}

/// A field named `_` (or a bare `^[ … ]`) is anonymous: its object's fields
/// are shown in the parent's object, as if written there.
const ANONYMOUS: &str = "_";

#[derive(Debug, Clone)]
struct Constructor {
    name: String,
    tag: u32,
    tag_bits: u16,
    fields: Vec<(String, Ty)>,
}

struct Scheme {
    /// By result type.
    by_result: HashMap<String, Constructors>,
}

/// One result type's constructors, in the file's order, indexed by tag:
/// a body is tried only against the constructors its first bits name,
/// where a walk of every `InternalMsgBody` constructor (over a hundred)
/// read a tag for each and was a tenth of an account page's time.
struct Constructors {
    list: Vec<Constructor>,
    /// The tag widths the constructors use, each once.
    widths: Vec<u16>,
    /// Positions in `list` by `(tag width, tag)`, ascending.
    by_tag: HashMap<(u16, u32), Vec<usize>>,
}

impl Constructors {
    fn new(list: Vec<Constructor>) -> Self {
        let mut widths: Vec<u16> = list.iter().map(|c| c.tag_bits).collect();
        widths.sort_unstable();
        widths.dedup();
        let mut by_tag: HashMap<(u16, u32), Vec<usize>> = HashMap::new();
        for (i, c) in list.iter().enumerate() {
            by_tag.entry((c.tag_bits, c.tag)).or_default().push(i);
        }
        Self {
            list,
            widths,
            by_tag,
        }
    }

    /// The constructors whose tags begin `cs`, in the file's order.
    fn matching(&self, cs: &CellSlice<'_>) -> Vec<&Constructor> {
        let mut at: Vec<usize> = Vec::new();
        for &w in &self.widths {
            if cs.size_bits() < w {
                break;
            }
            let Ok(tag) = cs.get_uint(0, w) else { break };
            if let Some(found) = self.by_tag.get(&(w, tag as u32)) {
                at.extend_from_slice(found);
            }
        }
        at.sort_unstable();
        at.into_iter().map(|i| &self.list[i]).collect()
    }
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' | '[' => {
                depth += 1;
                cur.push(ch);
            }
            ')' | ']' => {
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
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        return Ok(Ty::Anon(parse_fields("^[ ]", &split_top(inner))?));
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
            ["HashmapE", _, _] => Ok(Ty::Dict { optional: true }),
            ["Hashmap", _, _] => Ok(Ty::Dict { optional: false }),
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

/// A constructor's tag: `#` hex or `$` binary digits, `_` for none.
fn parse_tag(head: &str) -> Result<(String, u32, u16), String> {
    let (name, tag, radix, digit_bits) = if let Some((n, t)) = head.split_once('#') {
        (n, t, 16, 4)
    } else if let Some((n, t)) = head.split_once('$') {
        (n, t, 2, 1)
    } else {
        return Err(format!(
            "{head}: constructors are written name#tag or name$bits"
        ));
    };
    if tag == "_" {
        return Ok((name.to_string(), 0, 0));
    }
    let tag_bits = u16::try_from(tag.len() * digit_bits).map_err(|_| "tag too long")?;
    if tag_bits > 32 {
        return Err(format!("{head}: tag longer than 32 bits"));
    }
    let tag = u32::from_str_radix(tag, radix).map_err(|_| format!("bad tag {tag}"))?;
    Ok((name.to_string(), tag, tag_bits))
}

fn parse_fields(name: &str, tokens: &[String]) -> Result<Vec<(String, Ty)>, String> {
    let mut parsed = Vec::new();
    for f in tokens {
        if f.starts_with("^[") {
            parsed.push((ANONYMOUS.to_string(), parse_ty(f)?));
            continue;
        }
        let (fname, ty) = f
            .split_once(':')
            .ok_or_else(|| format!("{name}: field {f} has no type"))?;
        parsed.push((fname.to_string(), parse_ty(ty)?));
    }
    Ok(parsed)
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
        let (name, tag, tag_bits) = parse_tag(head)?;
        let fields = parse_fields(&name, fields)?;
        by_result
            .entry(result.trim().to_string())
            .or_default()
            .push(Constructor {
                name,
                tag,
                tag_bits,
                fields,
            });
    }
    // Every named type a field uses is declared.
    for cs in by_result.values() {
        for c in cs {
            for (_, ty) in &c.fields {
                check_declared(ty, &by_result).map_err(|t| format!("{}: no type {t}", c.name))?;
            }
        }
    }
    Ok(Scheme {
        by_result: by_result
            .into_iter()
            .map(|(k, list)| (k, Constructors::new(list)))
            .collect(),
    })
}

fn check_declared(ty: &Ty, declared: &HashMap<String, Vec<Constructor>>) -> Result<(), String> {
    match ty {
        Ty::Named(n) if !declared.contains_key(n) => Err(n.clone()),
        Ty::Maybe(t) | Ty::Ref(t) => check_declared(t, declared),
        Ty::Either(a, b) => {
            check_declared(a, declared)?;
            check_declared(b, declared)
        }
        Ty::Anon(fields) => fields
            .iter()
            .try_for_each(|(_, t)| check_declared(t, declared)),
        _ => Ok(()),
    }
}

fn scheme() -> &'static Scheme {
    static S: OnceLock<Scheme> = OnceLock::new();
    S.get_or_init(|| parse_scheme(SCHEME).expect("schemes.tlb reads (tested)"))
}

/// The message-body constructor named for a 32-bit opcode, if the scheme
/// has one (`0x0f8a7ea5` → `jetton_transfer`).
pub fn opcode_name(opcode: u32) -> Option<&'static str> {
    let constructors = scheme().by_result.get("InternalMsgBody")?;
    let first = *constructors.by_tag.get(&(32, opcode))?.first()?;
    Some(constructors.list[first].name.as_str())
}

/// A body decoded by the scheme; `Err` says why not. Where several
/// constructors share a tag, the one that reads the whole cell wins; one
/// that leaves bits or references unread is taken only when none does.
pub fn decode(body: &Cell) -> Result<Json, String> {
    decode_as(body, "InternalMsgBody", 0, Fit::Prefer)
}

/// A body decoded only by a constructor that reads all of it: the test of
/// the scheme's layouts against real bodies.
pub fn decode_exact(body: &Cell) -> Result<Json, String> {
    decode_as(body, "InternalMsgBody", 0, Fit::Require)
}

/// A read of a cell, or why it failed.
pub(crate) type Read<T> = Result<T, String>;

fn e(err: impl std::fmt::Display) -> String {
    err.to_string()
}

/// How a decode of a whole cell treats bits and references left unread.
#[derive(Clone, Copy, PartialEq)]
enum Fit {
    /// A constructor that reads everything first, else the first that reads.
    Prefer,
    /// Only a constructor that reads everything.
    Require,
}

fn decode_as(cell: &Cell, result: &str, depth: usize, fit: Fit) -> Read<Json> {
    let cs = cell.as_slice().map_err(e)?;
    decode_slice(&mut cs.clone(), result, depth, Some(fit))
}

/// Reads one `result` from `cs`; `whole` when `cs` is a cell of its own
/// (then what is left unread counts), `None` inside a larger cell.
fn decode_slice(
    cs: &mut CellSlice<'_>,
    result: &str,
    depth: usize,
    whole: Option<Fit>,
) -> Read<Json> {
    let constructors = scheme()
        .by_result
        .get(result)
        .ok_or_else(|| format!("no type {result}"))?;
    let mut last_err = None;
    let mut partial: Option<(CellSlice<'_>, Json)> = None;
    for c in constructors.matching(cs) {
        let mut attempt = *cs;
        attempt.skip_first(c.tag_bits, 0).map_err(e)?;
        match fields(&mut attempt, c, depth, whole) {
            Ok(v) => {
                let all_read = attempt.size_bits() == 0 && attempt.size_refs() == 0;
                if whole.is_none() || all_read {
                    *cs = attempt;
                    return Ok(v);
                }
                last_err = Some(format!(
                    "{}: {} bits and {} references left unread",
                    c.name,
                    attempt.size_bits(),
                    attempt.size_refs()
                ));
                if partial.is_none() && whole == Some(Fit::Prefer) {
                    partial = Some((attempt, v));
                }
            }
            Err(err) => last_err = Some(format!("{}: {err}", c.name)),
        }
    }
    match partial {
        Some((rest, v)) => {
            *cs = rest;
            Ok(v)
        }
        None => Err(last_err.unwrap_or_else(|| format!("no constructor of {result} matches"))),
    }
}

fn fields(cs: &mut CellSlice<'_>, c: &Constructor, depth: usize, whole: Option<Fit>) -> Read<Json> {
    let mut out = Map::new();
    out.insert("@type".into(), json!(c.name));
    out.insert("type".into(), json!(c.name));
    for (name, ty) in &c.fields {
        let v = value(cs, ty, depth, whole).map_err(|err| format!("{name}: {err}"))?;
        if name == ANONYMOUS {
            if let Json::Object(inner) = v {
                for (k, v) in inner {
                    if k != "@type" && k != "type" {
                        out.insert(k, v);
                    }
                }
            }
            continue;
        }
        out.insert(name.clone(), v);
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
        if let Ok(v) = decode_as(cell, "InternalMsgBody", depth + 1, Fit::Prefer) {
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

/// One field's value. `whole` is the fit of the cell being read, passed to
/// inline named types so that a tag they share is chosen by what follows.
fn value(cs: &mut CellSlice<'_>, ty: &Ty, depth: usize, whole: Option<Fit>) -> Read<Json> {
    Ok(match ty {
        Ty::Uint(n) if *n <= 128 => number(cs.load_uint_wide(*n)?, *n),
        Ty::Uint(n) | Ty::Int(n) if *n > 128 => {
            let mut buf = vec![0u8; usize::from(n.div_ceil(8))];
            cs.load_raw(&mut buf, *n).map_err(e)?;
            let shift = buf.len() * 8 - usize::from(*n);
            let v = num_bigint::BigUint::from_bytes_be(&buf) >> shift;
            if matches!(ty, Ty::Int(_)) && v.bit(u64::from(*n) - 1) {
                let signed =
                    num_bigint::BigInt::from(v) - (num_bigint::BigInt::from(1) << usize::from(*n));
                json!(signed.to_string())
            } else {
                json!(v.to_string())
            }
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
                value(cs, t, depth, whole)?
            } else {
                Json::Null
            }
        }
        Ty::Either(a, b) => {
            if cs.load_bit().map_err(e)? {
                value(cs, b, depth, whole)?
            } else {
                value(cs, a, depth, whole)?
            }
        }
        Ty::Dict { optional } => {
            if *optional && !cs.load_bit().map_err(e)? {
                Json::Null
            } else {
                json!(boc_b64(&cs.load_reference_cloned().map_err(e)?))
            }
        }
        Ty::Anon(fields) => {
            let mut out = Map::new();
            for (name, ty) in fields {
                let v = value(cs, ty, depth, whole).map_err(|err| format!("{name}: {err}"))?;
                out.insert(name.clone(), v);
            }
            Json::Object(out)
        }
        Ty::Ref(t) => {
            let cell = cs.load_reference_cloned().map_err(e)?;
            let fit = whole.unwrap_or(Fit::Prefer);
            match t.as_ref() {
                Ty::Rest => cell_value(&cell, depth),
                Ty::Named(name) => decode_as(&cell, name, depth + 1, fit)?,
                other => {
                    let mut inner = cell.as_slice().map_err(e)?;
                    let v = value(&mut inner, other, depth + 1, Some(fit))?;
                    if fit == Fit::Require && (inner.size_bits() > 0 || inner.size_refs() > 0) {
                        return Err("a referenced cell left partly unread".into());
                    }
                    v
                }
            }
        }
        Ty::Named(name) => decode_slice(cs, name, depth + 1, None)?,
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
        assert!(s.by_result["InternalMsgBody"].list.len() > 20);
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
            json!({"@type": "text_comment", "type": "text_comment", "comment": "hello"})
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

    fn addr(b: &mut CellBuilder, byte: u8) {
        b.store_small_uint(0b100, 3).unwrap(); // addr_std, no anycast
        b.store_u8(0).unwrap(); // workchain
        b.store_raw(&[byte; 32], 256).unwrap();
    }

    #[test]
    fn a_shared_tag_goes_to_the_constructor_that_reads_the_whole_cell() {
        // 0xb30c7310: Coffee's claim_rewards call (with a Maybe payload)
        // and its event (without one) share the tag.
        let mut b = CellBuilder::new();
        b.store_u32(0xb30c7310).unwrap();
        b.store_u64(1).unwrap();
        addr(&mut b, 0x11);
        Tokens::new(5)
            .store_into(&mut b, Cell::empty_context())
            .unwrap();
        addr(&mut b, 0x22);
        let event = b.build().unwrap();
        let v = decode_exact(&event).unwrap();
        assert_eq!(v["@type"], "coffee_staking_rewards_claimed");
        assert_eq!(v["amount"], "5");
        assert_eq!(
            opcode_name(0xb30c7310),
            Some("coffee_staking_claim_rewards")
        );

        let mut b = CellBuilder::new();
        b.store_slice(event.as_slice().unwrap()).unwrap();
        b.store_bit(false).unwrap(); // no forward data
        let call = decode_exact(&b.build().unwrap()).unwrap();
        assert_eq!(call["@type"], "coffee_staking_claim_rewards");
        assert_eq!(call["payload"], Json::Null);
    }

    /// EVAA's withdrawal request in its older and newer layouts, and a
    /// refusal: each read whole by its own version.
    #[test]
    fn evaa_bodies_read_by_the_version_that_fits() {
        let withdraw = |newer: bool| {
            let mut b = CellBuilder::new();
            b.store_u32(0x2).unwrap();
            b.store_u64(7).unwrap();
            b.store_raw(&[0x1a; 32], 256).unwrap(); // asset id
            b.store_u64(1_000_000_000).unwrap();
            addr(&mut b, 0x44);
            b.store_small_uint(0b11, 2).unwrap(); // include_user_code: bool_true
            if newer {
                b.store_u64(50_000_000).unwrap(); // forward_ton_amount
                b.store_reference(Cell::empty_cell()).unwrap(); // response payload
            }
            b.store_reference(Cell::empty_cell()).unwrap(); // prices
            b.build().unwrap()
        };
        for newer in [false, true] {
            let v = decode_exact(&withdraw(newer)).unwrap();
            assert_eq!(v["@type"], "evaa_withdraw_master");
            assert_eq!(v["amount"], "1000000000");
            assert_eq!(v["include_user_code"]["@type"], "bool_true");
            assert_eq!(v.get("forward_ton_amount").is_some(), newer, "{v}");
        }
        let mut b = CellBuilder::new();
        b.store_u32(0x11f).unwrap();
        b.store_u64(7).unwrap();
        addr(&mut b, 0x45);
        b.store_raw(&[0x1a; 32], 256).unwrap();
        b.store_u64(5).unwrap();
        let v = decode_exact(&b.build().unwrap()).unwrap();
        assert_eq!(v["@type"], "evaa_supply_fail");
        assert_eq!(v["amount"], "5");
        // The name of tag 0x1 reads no body: a supply request is read as one.
        let mut b = CellBuilder::new();
        b.store_u32(0x1).unwrap();
        b.store_u64(7).unwrap();
        b.store_small_uint(0b00, 2).unwrap();
        b.store_u64(9).unwrap();
        addr(&mut b, 0x46);
        b.store_u64(0).unwrap();
        b.store_reference(Cell::empty_cell()).unwrap();
        let v = decode_exact(&b.build().unwrap()).unwrap();
        assert_eq!(v["@type"], "evaa_supply_master");
    }

    #[test]
    fn tonstakers_withdrawals_read_with_and_without_the_pool_flags() {
        let body = |flags: bool| {
            let mut b = CellBuilder::new();
            b.store_u32(0x319b0cdc).unwrap();
            b.store_u64(3).unwrap();
            Tokens::new(2_000_000_000)
                .store_into(&mut b, Cell::empty_context())
                .unwrap();
            addr(&mut b, 0x11);
            addr(&mut b, 0x22);
            if flags {
                b.store_bit(true).unwrap(); // wait_till_round_end
                b.store_bit(false).unwrap(); // fill_or_kill
            }
            b.build().unwrap()
        };
        let plain = decode_exact(&body(false)).unwrap();
        assert_eq!(plain["@type"], "tonstake_pool_withdraw");
        assert_eq!(plain["jetton_amount"], "2000000000");
        assert!(plain.get("fill_or_kill").is_none());
        let flagged = decode_exact(&body(true)).unwrap();
        assert_eq!(flagged["wait_till_round_end"], true);
        assert_eq!(flagged["fill_or_kill"], false);
        assert_eq!(opcode_name(0x47d54391), Some("tonstake_pool_deposit"));
        assert_eq!(opcode_name(0x7bcd1fef), Some("whales_nominators_deposit"));
        // EVAA's 0x1 is Pyth's and plugin wallets' too: named for all
        // three, as toncenter names it; its other tags are EVAA's alone.
        assert_eq!(
            opcode_name(0x1),
            Some("evaa_supply_master,pyth_update_guardian_set,w4_deploy_install_plugin")
        );
        assert_eq!(opcode_name(0x211), Some("evaa_withdraw_collateralized"));
    }

    #[test]
    fn binary_tags_anonymous_fields_and_inline_cells_read() {
        // dedust_swap_event: DedustAsset by `$` tags, then `^[ … ]`, whose
        // fields are shown in the event's object.
        let mut inner = CellBuilder::new();
        addr(&mut inner, 0x33);
        inner.store_small_uint(0, 2).unwrap(); // no referral
        for r in [7u128, 9] {
            Tokens::new(r)
                .store_into(&mut inner, Cell::empty_context())
                .unwrap();
        }
        let mut b = CellBuilder::new();
        b.store_u32(0x9c610de3).unwrap();
        b.store_small_uint(0b0000, 4).unwrap(); // native
        b.store_small_uint(0b0001, 4).unwrap(); // jetton
        b.store_u8(0xff).unwrap(); // workchain -1
        b.store_raw(&[0xab; 32], 256).unwrap();
        for a in [100u128, 42] {
            Tokens::new(a)
                .store_into(&mut b, Cell::empty_context())
                .unwrap();
        }
        b.store_reference(inner.build().unwrap()).unwrap();
        let v = decode_exact(&b.build().unwrap()).unwrap();
        assert_eq!(v["asset_in"]["@type"], "dedust_native");
        assert_eq!(v["asset_out"]["workchain_id"], -1);
        assert_eq!(v["asset_out"]["address"], "ab".repeat(32));
        assert_eq!(v["amount_out"], "42");
        assert_eq!(v["sender_addr"], format!("0:{}", "33".repeat(32)));
        assert_eq!(v["referral_addr"], Json::Null);
        assert_eq!(v["reserve1"], "9");
        assert!(v.get("_").is_none());
    }

    #[test]
    fn wide_signed_integers_and_dictionaries_read() {
        // tonco_swap_info inside tonco_router_pay_to: int256 fee growths.
        let mut info = CellBuilder::new();
        info.store_raw(&[0; 16], 128).unwrap(); // liquidity
        info.store_raw(&[0; 20], 160).unwrap(); // price_sqrt
        info.store_uint(0xff_fffe, 24).unwrap(); // tick = -2
        info.store_raw(&[0xff; 32], 256).unwrap(); // -1
        let mut one = [0u8; 32];
        one[31] = 1;
        info.store_raw(&one, 256).unwrap(); // 1
        let mut b = CellBuilder::new();
        b.store_u32(0xa1daa96d).unwrap();
        b.store_u64(0).unwrap();
        b.store_small_uint(0, 2).unwrap();
        b.store_small_uint(0, 2).unwrap();
        b.store_u32(0).unwrap(); // exit code
        b.store_u64(3).unwrap(); // seqno
        b.store_bit(false).unwrap(); // no coins info
        b.store_bit(true).unwrap();
        b.store_reference(info.build().unwrap()).unwrap();
        let v = decode_exact(&b.build().unwrap()).unwrap();
        let i = &v["indexer_swap_info_cell"];
        assert_eq!(i["tick"], -2);
        assert_eq!(i["fee_growth_global_0x128"], "-1");
        assert_eq!(i["fee_growth_global_1x128"], "1");

        // jvault_claim_rewards_msg: a HashmapE shown as its root's BoC.
        let root = CellBuilder::new().build().unwrap();
        let mut b = CellBuilder::new();
        b.store_u32(0x78d9f109).unwrap();
        b.store_u64(9).unwrap();
        b.store_bit(true).unwrap();
        b.store_reference(root.clone()).unwrap();
        let v = decode_exact(&b.build().unwrap()).unwrap();
        assert_eq!(v["jettons_to_claim"], json!(boc_b64(&root)));
    }
}
