//! TEP-64 token content (spec v3 §6.6): what a Jetton master, NFT
//! collection or NFT item says about itself, as the JSON object v3 shows
//! (`jetton_content`, `collection_content`, `content`).
//!
//! * `offchain#01` + snake string → `{"uri": …}`;
//! * `onchain#00` + `HashmapE 256 ^ContentData` keyed by the SHA-256 of
//!   the attribute's name: the known attributes, each `snake#00` or
//!   `chunks#01` (`HashmapE 32 ^(SnakeData ~0)`), also when the value sits
//!   in the dictionary leaf itself instead of behind a reference (a
//!   non-standard variant seen on mainnet); `image_data` is shown base64,
//!   other values as UTF-8 with NUL bytes removed, values that are not
//!   UTF-8 are left out.

use std::collections::BTreeMap;

use base64::Engine;
use sha2::{Digest, Sha256};
use tycho_types::cell::{Cell, CellBuilder, CellSlice, Load};
use tycho_types::dict::RawDict;

/// The attributes v3 reads from on-chain content.
const ATTRIBUTES: &[&str] = &[
    "uri",
    "name",
    "description",
    "image",
    "image_data",
    "symbol",
    "decimals",
    "amount_style",
    "render_type",
];

/// Snake data longer than this is cut off (a contract's content is read in
/// the index step: one cannot make it walk an unbounded chain).
const MAX_BYTES: usize = 64 * 1024;

/// Content as v3 shows it: attribute → string.
pub type Content = BTreeMap<String, String>;

/// TEP-64 content by layout (v2's `getTokenData` tells them apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tep64 {
    /// `offchain#01`: the URI.
    Offchain(String),
    /// `onchain#00`: the known attributes.
    Onchain(Content),
}

/// Parses TEP-64 content as v3 shows it (an off-chain URI as `{"uri": …}`);
/// `None` when the cell is neither layout.
pub fn parse(cell: &Cell) -> Option<Content> {
    match parse_layout(cell)? {
        Tep64::Offchain(uri) => Some(Content::from([("uri".to_string(), uri)])),
        Tep64::Onchain(c) => Some(c),
    }
}

/// Parses TEP-64 content, keeping its layout.
pub fn parse_layout(cell: &Cell) -> Option<Tep64> {
    let mut cs = cell.as_slice().ok()?;
    match cs.load_u8().ok()? {
        0x01 => text(snake_bytes(cs)?).map(Tep64::Offchain),
        0x00 => {
            let dict = RawDict::<256>::load_from(&mut cs).ok()?;
            let mut out = Content::new();
            for name in ATTRIBUTES {
                let key = Sha256::digest(name.as_bytes());
                let mut kb = CellBuilder::new();
                kb.store_raw(&key, 256).ok()?;
                let key_cell = kb.build().ok()?;
                let Ok(Some(value)) = dict.get(key_cell.as_slice().ok()?) else {
                    continue;
                };
                let Some(bytes) = content_data(value) else {
                    continue;
                };
                let shown = if *name == "image_data" {
                    Some(base64::engine::general_purpose::STANDARD.encode(bytes))
                } else {
                    text(bytes)
                };
                if let Some(v) = shown {
                    out.insert(name.to_string(), v);
                }
            }
            Some(Tep64::Onchain(out))
        }
        _ => None,
    }
}

/// A dictionary value: `^ContentData`, or ContentData in the leaf itself.
fn content_data(mut value: CellSlice<'_>) -> Option<Vec<u8>> {
    let mut data = if value.size_bits() == 0 && value.size_refs() >= 1 {
        value.load_reference_as_slice().ok()?
    } else {
        value
    };
    match data.load_u8().ok()? {
        0x00 => snake_bytes(data),
        0x01 => {
            let chunks = RawDict::<32>::load_from(&mut data).ok()?;
            let mut out = Vec::new();
            for entry in chunks.iter() {
                let (_, mut chunk) = entry.ok()?;
                let cell = chunk.load_reference_as_slice().ok()?;
                out.extend(snake_bytes(cell)?);
                if out.len() > MAX_BYTES {
                    return None;
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// The bytes of snake data starting at `cs` (whole bytes of each cell,
/// continued in its first reference).
fn snake_bytes(mut cs: CellSlice<'_>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let bytes = cs.size_bits() / 8;
        let mut buf = vec![0u8; bytes as usize];
        cs.load_raw(&mut buf, bytes * 8).ok()?;
        out.extend_from_slice(&buf);
        if out.len() > MAX_BYTES {
            return None;
        }
        if cs.size_refs() == 0 {
            return Some(out);
        }
        cs = cs.load_reference_as_slice().ok()?;
    }
}

fn text(bytes: Vec<u8>) -> Option<String> {
    let s = String::from_utf8(bytes).ok()?;
    Some(s.replace('\0', ""))
}

/// Helpers for other modules' tests: content cells built by hand.
#[cfg(test)]
pub(crate) mod build {
    use super::*;

    pub fn snake(prefix: Option<u8>, bytes: &[u8]) -> Cell {
        fn chain(chunks: &[&[u8]]) -> Cell {
            let mut b = CellBuilder::new();
            b.store_raw(chunks[0], chunks[0].len() as u16 * 8).unwrap();
            if chunks.len() > 1 {
                b.store_reference(chain(&chunks[1..])).unwrap();
            }
            b.build().unwrap()
        }
        let mut b = CellBuilder::new();
        let first = bytes.len().min(126);
        if let Some(p) = prefix {
            b.store_u8(p).unwrap();
        }
        b.store_raw(&bytes[..first], first as u16 * 8).unwrap();
        let rest: Vec<&[u8]> = bytes[first..].chunks(127).collect();
        if !rest.is_empty() {
            b.store_reference(chain(&rest)).unwrap();
        }
        b.build().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use tycho_types::cell::{CellFamily, Store};
    use tycho_types::dict::RawDict;

    use super::build::snake;
    use super::*;

    fn key(name: &str) -> CellBuilder {
        let mut b = CellBuilder::new();
        b.store_raw(&Sha256::digest(name.as_bytes()), 256).unwrap();
        b
    }

    fn onchain(entries: &[(&str, Cell, bool)]) -> Cell {
        let mut dict = RawDict::<256>::new();
        for (name, value, inline) in entries {
            let mut v = CellBuilder::new();
            if *inline {
                v.store_slice(value.as_slice().unwrap()).unwrap();
            } else {
                v.store_reference(value.clone()).unwrap();
            }
            let k = key(name).build().unwrap();
            dict.set(k.as_slice().unwrap(), &v).unwrap();
        }
        let mut b = CellBuilder::new();
        b.store_u8(0).unwrap();
        dict.store_into(&mut b, Cell::empty_context()).unwrap();
        b.build().unwrap()
    }

    #[test]
    fn offchain_is_a_uri() {
        let long = format!("https://example.org/{}.json", "x".repeat(300));
        let c = parse(&snake(Some(1), long.as_bytes())).unwrap();
        assert_eq!(c["uri"], long);
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn onchain_snake_chunked_and_inline_values() {
        let chunks = {
            let mut d = RawDict::<32>::new();
            for (i, part) in ["Tether ", "USD"].iter().enumerate() {
                let mut v = CellBuilder::new();
                v.store_reference(snake(None, part.as_bytes())).unwrap();
                let mut k = CellBuilder::new();
                k.store_u32(i as u32).unwrap();
                d.set(k.build().unwrap().as_slice().unwrap(), &v).unwrap();
            }
            let mut b = CellBuilder::new();
            b.store_u8(1).unwrap();
            d.store_into(&mut b, Cell::empty_context()).unwrap();
            b.build().unwrap()
        };
        let content = onchain(&[
            ("name", chunks, false),
            ("symbol", snake(Some(0), b"USD\0T"), false),
            ("decimals", snake(Some(0), b"6"), true),
            ("image_data", snake(Some(0), &[0xff, 0x00, 0x10]), false),
            ("description", snake(Some(0), &[0xff, 0xfe]), false),
            ("not_an_attribute", snake(Some(0), b"x"), false),
        ]);
        let c = parse(&content).unwrap();
        assert_eq!(c["name"], "Tether USD");
        assert_eq!(c["symbol"], "USDT");
        assert_eq!(c["decimals"], "6");
        assert_eq!(c["image_data"], "/wAQ");
        assert!(!c.contains_key("description"), "not UTF-8: left out");
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn other_layouts_are_not_content() {
        let mut b = CellBuilder::new();
        b.store_u8(7).unwrap();
        assert_eq!(parse(&b.build().unwrap()), None);
    }
}
