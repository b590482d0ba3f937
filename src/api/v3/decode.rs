//! `GET`/`POST /decode` (spec v3 §3.11): opcodes to constructor names and
//! message bodies to JSON, from the TL-B scheme of `crate::decode::body`.

use serde::Serialize;
use serde_json::{json, Value as Json};

use super::V3Error;
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::decode::body;

const MAX_ITEMS: usize = 1000;

/// `0x`-prefixed or bare hex first, then decimal, then signed decimal.
fn parse_opcode(s: &str) -> Option<u32> {
    let t = s.trim();
    let hex = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    u32::from_str_radix(hex, 16)
        .ok()
        .or_else(|| t.parse::<u32>().ok())
        .or_else(|| t.parse::<i32>().ok().map(|v| v as u32))
}

fn decode_body(s: &str) -> Json {
    let Some(boc) = crate::chain::files::boc_from_bytes(s.as_bytes()) else {
        return json!({"error": "unknown: not a BoC in base64 or hex"});
    };
    match tycho_types::boc::Boc::decode(&boc) {
        Ok(cell) => match body::decode(&cell) {
            Ok(v) => v,
            Err(why) => json!({ "error": format!("unknown: {why}") }),
        },
        Err(e) => json!({ "error": format!("unknown: {e}") }),
    }
}

request! {
    /// What to decode.
    pub struct DecodeRequest {
        /// Opcodes: hex (optionally 0x), decimal or signed decimal
        opcodes: Vec<String>,
        /// Message bodies: base64 or hex BoCs
        bodies: Vec<String>,
    }
}

/// Decoded opcodes and bodies, in the order sent.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Decoded {
    /// Constructor names (`unknown` where none is known)
    opcodes: Vec<&'static str>,
    /// Each body as JSON, or `{"error"}` where it cannot be decoded
    bodies: Vec<Json>,
}

/// `/decode?opcodes=…&bodies=…` or its JSON body.
pub fn decode(_ctx: &Ctx<'_>, _: &Params, q: DecodeRequest) -> Result<Decoded, V3Error> {
    let (opcodes, bodies) = (q.opcodes, q.bodies);
    if opcodes.len() > MAX_ITEMS {
        return Err(V3Error::invalid(
            "opcodes list exceeds maximum length of 1000",
        ));
    }
    if bodies.len() > MAX_ITEMS {
        return Err(V3Error::invalid(
            "bodies list exceeds maximum length of 1000",
        ));
    }
    let mut names = Vec::with_capacity(opcodes.len());
    for (i, s) in opcodes.iter().enumerate() {
        let op = parse_opcode(s)
            .ok_or_else(|| V3Error::invalid(format!("invalid opcode format at index {i}: {s}")))?;
        names.push(body::opcode_name(op).unwrap_or("unknown"));
    }
    let bodies: Vec<Json> = bodies.iter().map(|b| decode_body(b)).collect();
    Ok(Decoded {
        opcodes: names,
        bodies,
    })
}

#[cfg(test)]
mod tests {
    use super::parse_opcode;

    #[test]
    fn opcodes_read_hex_then_decimal_then_signed() {
        assert_eq!(parse_opcode("0x0f8a7ea5"), Some(0x0f8a7ea5));
        assert_eq!(parse_opcode("0f8a7ea5"), Some(0x0f8a7ea5));
        assert_eq!(parse_opcode("395134233"), Some(395_134_233));
        assert_eq!(parse_opcode("-1"), Some(u32::MAX));
        assert_eq!(parse_opcode("nope"), None);
    }
}
