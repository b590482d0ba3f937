//! TVM stack entries in the JSON forms of API v2 (spec v2 §4.6):
//! the legacy `[type, value]` pairs of `runGetMethod` and the
//! `tvm.stackEntry*` objects of `runGetMethodStd` (also used inside legacy
//! tuples and lists). One parser and one printer per form, over tycho-vm's
//! stack values.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use num_bigint::BigInt;
use serde_json::{json, Value};
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, CellFamily, CellSlice, DynCell};
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
pub fn parse_int(v: &Value) -> Result<BigInt, StackError> {
    let parsed = match v {
        Value::Number(n) => n.as_i64().map(BigInt::from),
        Value::String(s) => parse_int_str(s),
        _ => None,
    };
    let n = parsed.ok_or_else(|| StackError::invalid(format!("invalid number: {v}")))?;
    if !fits_257(&n) {
        return Err(StackError::invalid(format!("number out of TVM range: {v}")));
    }
    Ok(n)
}

fn parse_int_str(s: &str) -> Option<BigInt> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (radix, digits) = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        Some(h) => (16, h),
        None => (10, rest),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let n = BigInt::parse_bytes(digits.as_bytes(), radix)?;
    Some(if neg { -n } else { n })
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
    Boc::decode(&bytes).map_err(|e| StackError::invalid(format!("invalid BoC: {e}")))
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
    let len = data.get("len").and_then(Value::as_u64).ok_or_else(bad)? as u16;
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
    b.build().map_err(|_| bad())
}

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
    STANDARD.encode(Boc::encode(cell))
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

/// The Python server's cell object, recursively.
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
                    json!(["cell", {"bytes": boc_b64(c.as_ref()), "object": cell_object(c.as_ref())}])
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
}
