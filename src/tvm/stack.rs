//! TVM stack entries in the JSON forms of API v2 (spec v2 §4.6):
//! the legacy `[type, value]` pairs of `runGetMethod` and the
//! `tvm.stackEntry*` objects of `runGetMethodStd` (also used inside legacy
//! tuples and lists). One parser and one printer per form, over tycho-vm's
//! stack values.

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use num_bigint::BigInt;
use serde_json::{json, Value};
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, CellSlice, DynCell, HashBytes};
use tycho_vm::{OwnedCellSlice, RcStackValue, SafeRc, Stack, StackValueType};

/// Nesting depth of tuples and lists a result may have (the C++ server's
/// `max_stack_entry_depth`).
pub const MAX_DEPTH: usize = 256;

/// Why a stack could not be read or written. `code` is the v2 status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StackError {
    pub code: u16,
    pub message: String,
}

impl StackError {
    fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: 422,
            message: message.into(),
        }
    }
}

/// An integer as the APIs accept it: a JSON integer, or a string in decimal
/// or `0x` hex with an optional `-`; TVM range (257-bit signed).
///
/// A string is checked for length before it is parsed: a TVM integer has
/// at most 78 decimal or 65 hex digits (leading zeros aside), and parsing
/// a longer one costs time quadratic in its length for nothing.
pub fn parse_int(v: &Value) -> Result<BigInt, StackError> {
    let parsed = match v {
        Value::Number(n) => n.as_i64().map(BigInt::from).ok_or(IntError::Invalid),
        Value::String(s) => parse_int_str(s),
        _ => Err(IntError::Invalid),
    };
    let n = match parsed {
        Ok(n) => n,
        Err(IntError::Invalid) => {
            return Err(StackError::invalid(format!("invalid number: {}", echo(v))))
        }
        Err(IntError::OutOfRange) => {
            return Err(StackError::invalid(format!(
                "number out of TVM range: {}",
                echo(v)
            )))
        }
    };
    if !fits_257(&n) {
        return Err(StackError::invalid(format!(
            "number out of TVM range: {}",
            echo(v)
        )));
    }
    Ok(n)
}

/// Why a number string was refused.
enum IntError {
    Invalid,
    OutOfRange,
}

/// Most significant digits a TVM integer can have: 2^256 has 78 decimal
/// digits and 65 hex digits.
const MAX_DEC_DIGITS: usize = 78;
const MAX_HEX_DIGITS: usize = 65;

fn parse_int_str(s: &str) -> Result<BigInt, IntError> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (radix, digits, max) = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        Some(h) => (16, h, MAX_HEX_DIGITS),
        None => (10, rest, MAX_DEC_DIGITS),
    };
    let valid = |b: u8| {
        if radix == 16 {
            b.is_ascii_hexdigit()
        } else {
            b.is_ascii_digit()
        }
    };
    if digits.is_empty() || !digits.bytes().all(valid) {
        return Err(IntError::Invalid);
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > max {
        return Err(IntError::OutOfRange);
    }
    if significant.is_empty() {
        return Ok(BigInt::from(0));
    }
    let n = BigInt::parse_bytes(significant.as_bytes(), radix).ok_or(IntError::Invalid)?;
    Ok(if neg { -n } else { n })
}

/// At most this many characters of a client's input are quoted back in an
/// error message.
pub const ECHO_CHARS: usize = 64;

/// A client's value for an error message, cut to [`ECHO_CHARS`] characters
/// with the full length noted: an error must not echo unbounded input.
pub fn echo(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    cut(&text)
}

/// `text` cut to [`ECHO_CHARS`] characters, noting the length it had.
pub fn cut(text: &str) -> String {
    match text.char_indices().nth(ECHO_CHARS) {
        None => text.to_string(),
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], text.len()),
    }
}

fn fits_257(n: &BigInt) -> bool {
    // -2^256 <= n < 2^256
    let magnitude_bits = if n.sign() == num_bigint::Sign::Minus {
        (-n - 1u8).bits()
    } else {
        n.bits()
    };
    magnitude_bits <= 256
}

/// A BoC in standard or url-safe base64.
pub fn decode_boc_b64(s: &str) -> Result<Cell, StackError> {
    let bytes = STANDARD
        .decode(s.trim())
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(s.trim()))
        .map_err(|_| StackError::invalid("invalid base64 encoded bytes"))?;
    if bytes.is_empty() {
        return Err(StackError::invalid("empty BoC"));
    }
    let cell = Boc::decode(&bytes).map_err(|e| StackError::invalid(format!("invalid BoC: {e}")))?;
    check_depth(cell.as_ref())?;
    Ok(cell)
}

/// Deepest cell tree TON accepts (a node refuses to build a deeper cell).
pub const MAX_CELL_DEPTH: u16 = 1024;

fn check_depth(cell: &DynCell) -> Result<(), StackError> {
    let depth = cell.repr_depth();
    if depth > MAX_CELL_DEPTH {
        return Err(StackError::invalid(format!(
            "invalid BoC: cell depth {depth} exceeds {MAX_CELL_DEPTH}"
        )));
    }
    Ok(())
}

/// A cell object of the Python server: `{"data":{"b64","len"},"refs":[…],"special"}`.
fn cell_from_object(v: &Value, depth: usize) -> Result<Cell, StackError> {
    if depth > MAX_DEPTH {
        return Err(StackError::invalid("cell object nested too deep"));
    }
    let bad = || StackError::invalid("invalid cell object");
    let data = v.get("data").ok_or_else(bad)?;
    let bytes = STANDARD
        .decode(data.get("b64").and_then(Value::as_str).ok_or_else(bad)?)
        .map_err(|_| bad())?;
    let len = data
        .get("len")
        .and_then(Value::as_u64)
        .and_then(|l| u16::try_from(l).ok())
        .filter(|&l| l <= MAX_BIT_LEN)
        .ok_or_else(bad)?;
    let mut b = CellBuilder::new();
    if usize::from(len) > bytes.len() * 8 {
        return Err(bad());
    }
    b.store_raw(&bytes, len).map_err(|_| bad())?;
    if let Some(refs) = v.get("refs").and_then(Value::as_array) {
        for r in refs {
            b.store_reference(cell_from_object(r, depth + 1)?)
                .map_err(|_| bad())?;
        }
    }
    if v.get("special").and_then(Value::as_bool).unwrap_or(false) {
        b.set_exotic(true);
    }
    let cell = b.build().map_err(|_| bad())?;
    check_depth(cell.as_ref())?;
    Ok(cell)
}

/// Data bits a cell holds at most.
const MAX_BIT_LEN: u16 = 1023;

/// The cell of a legacy `cell`/`slice` value: `{"bytes": b64}` (C++) or a
/// JSON string holding a cell object (Python).
fn legacy_cell(v: &Value) -> Result<Cell, StackError> {
    match v {
        Value::Object(o) => match o.get("bytes").and_then(Value::as_str) {
            Some(b) => decode_boc_b64(b),
            None => cell_from_object(v, 0),
        },
        Value::String(s) => {
            let obj: Value = serde_json::from_str(s)
                .map_err(|_| StackError::invalid("invalid cell object string"))?;
            cell_from_object(&obj, 0)
        }
        _ => Err(StackError::invalid("invalid cell value")),
    }
}

fn slice_value(cell: Cell) -> RcStackValue {
    SafeRc::new_dyn_value(OwnedCellSlice::new_allow_exotic(cell))
}

fn builder_value(cell: &DynCell) -> Result<RcStackValue, StackError> {
    let mut b = CellBuilder::new();
    b.store_slice(cell.as_slice_allow_exotic())
        .map_err(|e| StackError::invalid(format!("invalid builder: {e}")))?;
    Ok(SafeRc::new_dyn_value(b))
}

/// A TVM list `(a, (b, (c, null)))` of the given elements.
fn make_list(items: Vec<RcStackValue>) -> RcStackValue {
    items
        .into_iter()
        .rev()
        .fold(Stack::make_null(), |tail, head| {
            SafeRc::new_dyn_value(vec![head, tail])
        })
}

/// Parses a `runGetMethod` stack: `[type, value]` pairs.
pub fn parse_legacy_stack(v: &Value) -> Result<Vec<RcStackValue>, StackError> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().map(parse_legacy_entry).collect(),
        _ => Err(StackError::invalid("stack must be an array")),
    }
}

fn parse_legacy_entry(entry: &Value) -> Result<RcStackValue, StackError> {
    let pair = entry
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| StackError::invalid("stack entry must be a [type, value] pair"))?;
    let ty = pair[0]
        .as_str()
        .ok_or_else(|| StackError::invalid("stack entry type must be a string"))?;
    let value = &pair[1];
    let b64 = || {
        value
            .as_str()
            .ok_or_else(|| StackError::invalid(format!("{ty} value must be a base64 BoC")))
    };
    match ty {
        "num" | "number" | "int" | "integer" => Ok(SafeRc::new_dyn_value(parse_int(value)?)),
        "tvm.Cell" => Ok(SafeRc::new_dyn_value(decode_boc_b64(b64()?)?)),
        "tvm.Slice" => Ok(slice_value(decode_boc_b64(b64()?)?)),
        "tvm.Builder" => builder_value(decode_boc_b64(b64()?)?.as_ref()),
        "cell" => Ok(SafeRc::new_dyn_value(legacy_cell(value)?)),
        "slice" => Ok(slice_value(legacy_cell(value)?)),
        "tuple" | "tvm.Tuple" => Ok(SafeRc::new_dyn_value(std_elements(value, "tuple", 1)?)),
        "list" | "tvm.List" => Ok(make_list(std_elements(value, "list", 1)?)),
        other => Err(StackError {
            code: 542,
            message: format!("Unsupported stack entry type: {other}"),
        }),
    }
}

/// `{"elements": [tvm.StackEntry…]}` of a tuple or list.
fn std_elements(v: &Value, what: &str, depth: usize) -> Result<Vec<RcStackValue>, StackError> {
    if depth > MAX_DEPTH {
        return Err(StackError::invalid("stack entries nested too deep"));
    }
    v.get("elements")
        .and_then(Value::as_array)
        .ok_or_else(|| StackError::invalid(format!("{what} must have an elements array")))?
        .iter()
        .map(|e| parse_std_entry_at(e, depth))
        .collect()
}

/// Parses a `runGetMethodStd` stack: `tvm.stackEntry*` objects.
pub fn parse_std_stack(v: &Value) -> Result<Vec<RcStackValue>, StackError> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().map(|e| parse_std_entry_at(e, 0)).collect(),
        _ => Err(StackError::invalid("stack must be an array")),
    }
}

fn parse_std_entry_at(e: &Value, depth: usize) -> Result<RcStackValue, StackError> {
    let ty = e
        .get("@type")
        .and_then(Value::as_str)
        .ok_or_else(|| StackError::invalid("stack entry must have an @type"))?;
    let field = |name: &str| {
        e.get(name)
            .ok_or_else(|| StackError::invalid(format!("{ty} must have {name}")))
    };
    let bytes = |name: &str| -> Result<Cell, StackError> {
        let b = field(name)?
            .get("bytes")
            .and_then(Value::as_str)
            .ok_or_else(|| StackError::invalid(format!("{ty}.{name} must have bytes")))?;
        decode_boc_b64(b)
    };
    match ty {
        "tvm.stackEntryNumber" => {
            let n = field("number")?
                .get("number")
                .ok_or_else(|| StackError::invalid("tvm.numberDecimal must have number"))?;
            Ok(SafeRc::new_dyn_value(parse_int(n)?))
        }
        "tvm.stackEntryCell" => Ok(SafeRc::new_dyn_value(bytes("cell")?)),
        "tvm.stackEntrySlice" => Ok(slice_value(bytes("slice")?)),
        "tvm.stackEntryTuple" => Ok(SafeRc::new_dyn_value(std_elements(
            field("tuple")?,
            "tuple",
            depth + 1,
        )?)),
        "tvm.stackEntryList" => Ok(make_list(std_elements(field("list")?, "list", depth + 1)?)),
        other => Err(StackError {
            code: 542,
            message: format!("Unsupported stack entry type: {other}"),
        }),
    }
}

fn boc_b64(cell: &DynCell) -> String {
    STANDARD.encode(crate::boc::encode_crc(cell))
}

/// The cell a slice's remaining bits and refs make (tonlib returns slices so).
fn slice_to_cell(s: &CellSlice<'_>) -> Result<Cell, StackError> {
    let mut b = CellBuilder::new();
    b.store_slice(s)
        .and_then(|_| b.build_ext(Cell::empty_context()))
        .map_err(|e| StackError {
            code: 500,
            message: format!("cannot serialize a slice: {e}"),
        })
}

/// Cells a legacy `object` may expand to. The object form writes a cell
/// tree with no sharing, so a BoC of a few cells that reference each other
/// many times (a "DAG bomb") would expand exponentially; the size is known
/// before anything is written, each distinct cell visited once.
pub const MAX_OBJECT_CELLS: u64 = 1 << 16;
/// Deepest cell tree written as an `object`: each level nests two JSON
/// values, and the envelope around it five more, so this keeps a response
/// within the 128 levels common JSON parsers accept.
pub const MAX_OBJECT_DEPTH: u16 = 56;

/// How many cells the tree under `cell` has when every reference is
/// written out in full (saturating), each distinct cell computed once.
fn expanded_cells(cell: &DynCell, memo: &mut HashMap<HashBytes, u64>) -> u64 {
    if let Some(&n) = memo.get(cell.repr_hash()) {
        return n;
    }
    let mut n = 1u64;
    for child in cell.references() {
        n = n.saturating_add(expanded_cells(child, memo));
    }
    memo.insert(*cell.repr_hash(), n);
    n
}

/// The Python server's cell object of `cell`, or a 533 when it would be
/// deeper than [`MAX_OBJECT_DEPTH`] or larger than [`MAX_OBJECT_CELLS`]
/// (the `bytes` form has no such limit; `runGetMethodStd` returns only it).
fn bounded_cell_object(cell: &DynCell) -> Result<Value, StackError> {
    let too_large = |what: String| StackError {
        code: 533,
        message: format!(
            "Result cell too large for the object form: {what}; runGetMethodStd returns it as a BoC"
        ),
    };
    let depth = cell.repr_depth();
    if depth > MAX_OBJECT_DEPTH {
        return Err(too_large(format!("depth {depth} > {MAX_OBJECT_DEPTH}")));
    }
    // The depth bound keeps this recursion shallow.
    let cells = expanded_cells(cell, &mut HashMap::new());
    if cells > MAX_OBJECT_CELLS {
        return Err(too_large(format!(
            "{cells} cells written out > {MAX_OBJECT_CELLS}"
        )));
    }
    Ok(cell_object(cell))
}

/// The Python server's cell object, recursively (callers bound the size).
fn cell_object(cell: &DynCell) -> Value {
    let bits = cell.bit_len();
    let data = &cell.data()[..usize::from(bits).div_ceil(8)];
    json!({
        "data": {"b64": STANDARD.encode(data), "len": bits},
        "refs": cell.references().map(cell_object).collect::<Vec<_>>(),
        "special": cell.is_exotic(),
    })
}

/// What a stack value is, for the printers.
enum Entry<'a> {
    Int(&'a BigInt),
    NaN,
    Cell(Cell),
    Slice(Cell),
    List(Vec<&'a RcStackValue>),
    Tuple(&'a [RcStackValue]),
    Unsupported,
}

fn classify(v: &RcStackValue) -> Result<Entry<'_>, StackError> {
    let ty = v.raw_ty();
    Ok(if ty == StackValueType::Int as u8 {
        match v.as_int() {
            Some(n) => Entry::Int(n),
            None => Entry::NaN,
        }
    } else if ty == StackValueType::Cell as u8 {
        Entry::Cell(v.as_cell().cloned().ok_or(StackError::invalid("cell"))?)
    } else if ty == StackValueType::Slice as u8 {
        let s = v.as_cell_slice().ok_or(StackError::invalid("slice"))?;
        Entry::Slice(slice_to_cell(&s.apply())?)
    } else if ty == StackValueType::Builder as u8 {
        let b = v.as_cell_builder().ok_or(StackError::invalid("builder"))?;
        Entry::Cell(b.clone().build().map_err(|e| StackError {
            code: 500,
            message: format!("cannot serialize a builder: {e}"),
        })?)
    } else if ty == StackValueType::Null as u8 {
        Entry::List(Vec::new())
    } else if ty == StackValueType::Tuple as u8 {
        let items = v.as_tuple().unwrap_or_default();
        match as_list(v) {
            Some(list) if !items.is_empty() => Entry::List(list),
            _ => Entry::Tuple(items),
        }
    } else {
        Entry::Unsupported
    })
}

/// The elements of a TVM list `(a, (b, … null))`, if `v` is one.
fn as_list(v: &RcStackValue) -> Option<Vec<&RcStackValue>> {
    let mut out = Vec::new();
    let mut cur = v;
    loop {
        if cur.raw_ty() == StackValueType::Null as u8 {
            return Some(out);
        }
        let pair = cur.as_tuple().filter(|t| t.len() == 2)?;
        out.push(&pair[0]);
        cur = &pair[1];
    }
}

fn depth_error() -> StackError {
    StackError {
        code: 533,
        message: format!("Result stack depth >= {MAX_DEPTH}"),
    }
}

fn hex_int(n: &BigInt) -> String {
    if n.sign() == num_bigint::Sign::Minus {
        format!("-0x{:x}", -n)
    } else {
        format!("0x{n:x}")
    }
}

/// A result stack in `runGetMethod`'s legacy form.
pub fn legacy_stack(stack: &[RcStackValue]) -> Result<Vec<Value>, StackError> {
    stack
        .iter()
        .map(|v| {
            Ok(match classify(v)? {
                Entry::Int(n) => json!(["num", hex_int(n)]),
                Entry::NaN => json!(["num", "NaN"]),
                Entry::Cell(c) | Entry::Slice(c) => {
                    json!(["cell", {"bytes": boc_b64(c.as_ref()), "object": bounded_cell_object(c.as_ref())?}])
                }
                Entry::List(items) => json!(["list", {
                    "@type": "tvm.list",
                    "elements": items.into_iter().map(|e| std_entry(e, 1)).collect::<Result<Vec<_>, _>>()?,
                }]),
                Entry::Tuple(items) => json!(["tuple", {
                    "@type": "tvm.tuple",
                    "elements": items.iter().map(|e| std_entry(e, 1)).collect::<Result<Vec<_>, _>>()?,
                }]),
                Entry::Unsupported => json!(["unsupported", ""]),
            })
        })
        .collect()
}

/// A result stack in v3's `{type, value}` form (numbers as hex strings,
/// cells and slices as BoCs, tuples and lists nested).
pub fn v3_stack(stack: &[RcStackValue]) -> Result<Vec<Value>, StackError> {
    stack.iter().map(|v| v3_entry(v, 0)).collect()
}

fn v3_entry(v: &RcStackValue, depth: usize) -> Result<Value, StackError> {
    if depth >= MAX_DEPTH {
        return Err(depth_error());
    }
    let nested = |items: Vec<&RcStackValue>| -> Result<Vec<Value>, StackError> {
        items.into_iter().map(|e| v3_entry(e, depth + 1)).collect()
    };
    Ok(match classify(v)? {
        Entry::Int(n) => json!({"type": "num", "value": hex_int(n)}),
        Entry::NaN => json!({"type": "num", "value": "NaN"}),
        Entry::Cell(c) => json!({"type": "cell", "value": boc_b64(c.as_ref())}),
        Entry::Slice(c) => json!({"type": "slice", "value": boc_b64(c.as_ref())}),
        Entry::List(items) => json!({"type": "list", "value": nested(items)?}),
        Entry::Tuple(items) => json!({"type": "tuple", "value": nested(items.iter().collect())?}),
        Entry::Unsupported => {
            return Err(StackError {
                code: 501,
                message: "unsupported stack entry in the result".into(),
            })
        }
    })
}

/// Reads v3's request stack `[{"type": "num"|"cell"|"slice", "value"}]`
/// through the legacy reader (`num` → `num`, `cell` → `tvm.Cell`,
/// `slice` → `tvm.Slice`).
pub fn parse_v3_stack(v: &Value) -> Result<Vec<RcStackValue>, StackError> {
    let entries = v
        .as_array()
        .ok_or_else(|| StackError::invalid("stack must be an array"))?;
    let legacy = entries
        .iter()
        .map(|e| {
            let ty = e.get("type").and_then(Value::as_str);
            let value = e.get("value").cloned().unwrap_or(Value::Null);
            let tag = match ty {
                Some("num") => "num",
                Some("cell") => "tvm.Cell",
                Some("slice") => "tvm.Slice",
                other => {
                    return Err(StackError::invalid(format!(
                        "unsupported stack entry type: {}",
                        other.unwrap_or("(none)")
                    )))
                }
            };
            Ok(json!([tag, value]))
        })
        .collect::<Result<Vec<_>, _>>()?;
    parse_legacy_stack(&Value::Array(legacy))
}

/// A result stack in `runGetMethodStd`'s `tvm.stackEntry*` form.
pub fn std_stack(stack: &[RcStackValue]) -> Result<Vec<Value>, StackError> {
    stack.iter().map(|v| std_entry(v, 0)).collect()
}

fn std_entry(v: &RcStackValue, depth: usize) -> Result<Value, StackError> {
    if depth >= MAX_DEPTH {
        return Err(depth_error());
    }
    Ok(match classify(v)? {
        Entry::Int(n) => json!({
            "@type": "tvm.stackEntryNumber",
            "number": {"@type": "tvm.numberDecimal", "number": n.to_string()},
        }),
        Entry::NaN => json!({
            "@type": "tvm.stackEntryNumber",
            "number": {"@type": "tvm.numberDecimal", "number": "NaN"},
        }),
        Entry::Cell(c) => json!({
            "@type": "tvm.stackEntryCell",
            "cell": {"@type": "tvm.cell", "bytes": boc_b64(c.as_ref())},
        }),
        Entry::Slice(c) => json!({
            "@type": "tvm.stackEntrySlice",
            "slice": {"@type": "tvm.slice", "bytes": boc_b64(c.as_ref())},
        }),
        Entry::List(items) => json!({
            "@type": "tvm.stackEntryList",
            "list": {
                "@type": "tvm.list",
                "elements": items.into_iter().map(|e| std_entry(e, depth + 1)).collect::<Result<Vec<_>, _>>()?,
            },
        }),
        Entry::Tuple(items) => json!({
            "@type": "tvm.stackEntryTuple",
            "tuple": {
                "@type": "tvm.tuple",
                "elements": items.iter().map(|e| std_entry(e, depth + 1)).collect::<Result<Vec<_>, _>>()?,
            },
        }),
        Entry::Unsupported => json!({"@type": "tvm.stackEntryUnsupported"}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_every_accepted_form() {
        for (input, want) in [
            (json!(123), "123"),
            (json!("123"), "123"),
            (json!("0x7b"), "123"),
            (json!("-5"), "-5"),
            (json!("-0x1a"), "-26"),
        ] {
            assert_eq!(parse_int(&input).unwrap().to_string(), want, "{input}");
        }
        let max = format!("0x{}", "f".repeat(64));
        assert!(parse_int(&json!(max)).is_ok());
        let over = format!("0x1{}", "0".repeat(64));
        assert!(parse_int(&json!(over)).is_err());
        let min = format!("-0x1{}", "0".repeat(64));
        assert!(parse_int(&json!(min)).is_ok());
        for bad in [
            json!("abc"),
            json!(""),
            json!("0x"),
            json!(1.5),
            json!(null),
            json!("1e3"),
        ] {
            assert!(parse_int(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hex_output_as_toncenter_writes_it() {
        assert_eq!(hex_int(&BigInt::from(26)), "0x1a");
        assert_eq!(hex_int(&BigInt::from(-26)), "-0x1a");
        assert_eq!(hex_int(&BigInt::from(0)), "0x0");
    }

    #[test]
    fn lists_tuples_and_null_round_trip() {
        let input = json!([
            ["num", "0x10"],
            ["list", {"@type": "tvm.list", "elements": [
                {"@type": "tvm.stackEntryNumber", "number": {"@type": "tvm.numberDecimal", "number": "1"}},
                {"@type": "tvm.stackEntryNumber", "number": {"@type": "tvm.numberDecimal", "number": "2"}}
            ]}],
            ["tuple", {"@type": "tvm.tuple", "elements": []}],
        ]);
        let stack = parse_legacy_stack(&input).unwrap();
        let out = legacy_stack(&stack).unwrap();
        assert_eq!(out[0], json!(["num", "0x10"]));
        assert_eq!(out[1][0], "list");
        assert_eq!(out[1][1]["elements"][1]["number"]["number"], "2");
        assert_eq!(out[2][0], "tuple");
        let null = legacy_stack(&[Stack::make_null()]).unwrap();
        assert_eq!(
            null[0],
            json!(["list", {"@type": "tvm.list", "elements": []}])
        );
    }

    #[test]
    fn cells_in_both_variants() {
        let mut b = CellBuilder::new();
        b.store_u32(0xdeadbeef).unwrap();
        let cell = b.build().unwrap();
        let b64 = boc_b64(cell.as_ref());
        let cpp = parse_legacy_stack(&json!([["cell", {"bytes": b64}]])).unwrap();
        let object = cell_object(cell.as_ref());
        let py = parse_legacy_stack(&json!([["slice", object.to_string()]])).unwrap();
        let out = legacy_stack(&[cpp[0].clone(), py[0].clone()]).unwrap();
        assert_eq!(out[0][1]["bytes"], b64);
        // Slices come back as cells of their content.
        assert_eq!(out[1][1]["bytes"], b64);
        assert_eq!(out[0][1]["object"]["data"]["len"], 32);
    }

    #[test]
    fn bad_entries_are_clear_errors() {
        for (input, code) in [
            (json!([["num"]]), 422),
            (json!([[1, 2]]), 422),
            (json!([["tvm.Cell", "!!!"]]), 422),
            (json!([["tvm.Cell", ""]]), 422),
            (json!([["num", {"x": 1}]]), 422),
            (json!([["cont", "x"]]), 542),
            (json!({"a": 1}), 422),
        ] {
            assert_eq!(
                parse_legacy_stack(&input).unwrap_err().code,
                code,
                "{input}"
            );
        }
    }
    /// A BoC of `levels` cells, each referencing the one below four times.
    fn dag_bomb(levels: usize) -> Cell {
        let mut cell = Cell::empty_cell();
        for _ in 1..levels {
            let mut b = CellBuilder::new();
            for _ in 0..4 {
                b.store_reference(cell.clone()).unwrap();
            }
            cell = b.build().unwrap();
        }
        cell
    }

    #[test]
    fn a_cell_dag_bomb_is_refused_in_the_object_form_at_once() {
        for levels in [12, 24] {
            let bomb = dag_bomb(levels);
            let value = SafeRc::new_dyn_value(bomb.clone());
            let start = std::time::Instant::now();
            let err = legacy_stack(std::slice::from_ref(&value)).unwrap_err();
            assert!(start.elapsed() < std::time::Duration::from_millis(100));
            assert_eq!(err.code, 533, "{}", err.message);
            assert!(err.message.contains("cells written out"), "{}", err.message);
            // The BoC forms are linear in distinct cells and stay available.
            let std = std_stack(std::slice::from_ref(&value)).unwrap();
            assert_eq!(std[0]["cell"]["bytes"], boc_b64(bomb.as_ref()));
            assert!(v3_stack(std::slice::from_ref(&value)).is_ok());
        }
        // A small DAG (4^5 = 1024 cells written out) still has its object.
        let small = dag_bomb(6);
        let out = legacy_stack(&[SafeRc::new_dyn_value(small)]).unwrap();
        assert_eq!(out[0][1]["object"]["refs"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn deep_cells_are_refused_in_the_object_form_and_as_input() {
        let chain = |depth: usize| {
            let mut cell = Cell::empty_cell();
            for _ in 0..depth {
                let mut b = CellBuilder::new();
                b.store_reference(cell).unwrap();
                cell = b.build().unwrap();
            }
            cell
        };
        let ok = chain(usize::from(MAX_OBJECT_DEPTH));
        assert!(legacy_stack(&[SafeRc::new_dyn_value(ok)]).is_ok());
        let deep = chain(usize::from(MAX_OBJECT_DEPTH) + 1);
        let err = legacy_stack(&[SafeRc::new_dyn_value(deep)]).unwrap_err();
        assert_eq!(err.code, 533);
        assert!(err.message.contains("depth"), "{}", err.message);

        let too_deep = boc_b64(chain(usize::from(MAX_CELL_DEPTH) + 1).as_ref());
        let err = parse_legacy_stack(&json!([["tvm.Cell", too_deep]])).unwrap_err();
        assert_eq!(err.code, 422);
        assert!(err.message.contains("depth"), "{}", err.message);
        let deepest = boc_b64(chain(usize::from(MAX_CELL_DEPTH)).as_ref());
        assert!(parse_legacy_stack(&json!([["tvm.Cell", deepest]])).is_ok());
    }

    #[test]
    fn huge_numbers_are_refused_before_parsing_and_not_echoed() {
        let digits = "7".repeat(2_000_000);
        let start = std::time::Instant::now();
        let err = parse_int(&json!(digits)).unwrap_err();
        assert!(start.elapsed() < std::time::Duration::from_millis(100));
        assert_eq!(err.code, 422);
        assert!(err.message.len() < 200, "{}", err.message);
        assert!(err.message.contains("2000000 bytes"), "{}", err.message);
        // Leading zeros do not count against the length.
        let padded = format!("0x{}1", "0".repeat(1000));
        assert_eq!(parse_int(&json!(padded)).unwrap(), BigInt::from(1));
        assert_eq!(parse_int(&json!("-000")).unwrap(), BigInt::from(0));
        // The longest numbers in range still parse; one digit more does not.
        let max_dec = format!("{}", (BigInt::from(1) << 256u32) - 1);
        assert_eq!(max_dec.len(), 78);
        assert!(parse_int(&json!(max_dec)).is_ok());
        assert!(parse_int(&json!(format!("{max_dec}0"))).is_err());
        assert!(parse_int(&json!(format!("-0x1{}", "0".repeat(64)))).is_ok());
        assert!(parse_int(&json!(format!("-0x10{}", "0".repeat(64)))).is_err());
    }

    #[test]
    fn a_cell_object_length_does_not_wrap() {
        let obj = json!({"data": {"b64": STANDARD.encode([0u8; 8193]), "len": 65544}, "refs": []});
        let err = parse_legacy_stack(&json!([["cell", obj.to_string()]])).unwrap_err();
        assert_eq!(err.code, 422);
        let obj = json!({"data": {"b64": STANDARD.encode([0u8; 128]), "len": 1024}, "refs": []});
        assert!(parse_legacy_stack(&json!([["cell", obj.to_string()]])).is_err());
        let obj = json!({"data": {"b64": STANDARD.encode([0xffu8; 128]), "len": 1023}, "refs": []});
        assert!(parse_legacy_stack(&json!([["cell", obj.to_string()]])).is_ok());
    }
}
