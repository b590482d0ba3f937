//! TON DNS items (TEP-81), read the way toncenter's worker reads them
//! (spec v3 §6.4): only items of the `.ton` root collections and the
//! `.t.me` collection; the domain from `get_domain` (+ `.ton`) or
//! `get_full_domain` (reversed NUL-separated labels), the records from
//! `dnsresolve("\0", 0)` — a dictionary keyed by the sha256 of each
//! category's name.

use tycho_types::cell::{Cell, CellBuilder, HashBytes};
use tycho_types::dict::Dict;
use tycho_types::models::StdAddr;
use tycho_vm::{OwnedCellSlice, RcStackValue, SafeRc};

use super::jetton::ok_stack;
use crate::tvm::getmethod::RunOutput;

/// The collections whose items v3 indexes as DNS entries (workchain 0):
/// `.ton` on mainnet and on testnet, and `.t.me` (spec v3 §3.8).
pub const DNS_COLLECTIONS: [&str; 3] = [
    "b774d95eb20543f186c06b371ab88ad704f7e256130caf96189368a7d0cb6ccf",
    "e33ed33a42eb2032059f97d90c706f8400bb256d32139ca707f1564ad699c7dd",
    "80d78a35f955a14b679faa887ff4cd5bfc0f43b4a4eea2a7e6927f3701b273c2",
];

/// Whether items of `collection` are DNS entries.
pub fn is_dns_collection(collection: &StdAddr) -> bool {
    collection.workchain == 0 && DNS_COLLECTIONS.contains(&hex::encode(collection.address).as_str())
}

/// What an item's records say (categories toncenter keeps).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    /// `dns_next_resolver#ba93 resolver:MsgAddressInt`.
    pub next_resolver: Option<StdAddr>,
    /// `dns_smc_address#9fd3 smc_addr:MsgAddressInt …` under `wallet`.
    pub wallet: Option<StdAddr>,
    /// `dns_adnl_address#ad01 adnl_addr:bits256 …` under `site`.
    pub site_adnl: Option<HashBytes>,
    /// `dns_storage_address#7473 bag_id:bits256` under `storage`.
    pub storage_bag_id: Option<HashBytes>,
}

fn slice_bytes(v: &RcStackValue) -> Option<Vec<u8>> {
    let slice = v.as_cell_slice()?;
    let cs = slice.apply();
    let bits = cs.size_bits();
    let mut buf = vec![0u8; (bits / 8) as usize];
    cs.get_raw(0, &mut buf, bits - bits % 8).ok()?;
    Some(buf)
}

/// `get_domain` → the label (a slice of UTF-8 bytes), as `label.ton`.
pub fn ton_domain(out: &RunOutput) -> Option<String> {
    let s = ok_stack(out, 1)?;
    let label = String::from_utf8(slice_bytes(&s[0])?).ok()?;
    (!label.is_empty()).then(|| format!("{label}.ton"))
}

/// `get_full_domain` → `me\0t\0name\0` read backwards as `name.t.me`.
pub fn full_domain(out: &RunOutput) -> Option<String> {
    let s = ok_stack(out, 1)?;
    let raw = String::from_utf8(slice_bytes(&s[0])?).ok()?;
    let labels: Vec<&str> = raw.split('\0').filter(|l| !l.is_empty()).collect();
    (!labels.is_empty()).then(|| labels.into_iter().rev().collect::<Vec<_>>().join("."))
}

/// The arguments of `dnsresolve("\0", 0)`: every record of the item itself.
pub fn resolve_all_args() -> Option<Vec<RcStackValue>> {
    let mut b = CellBuilder::new();
    b.store_u8(0).ok()?;
    let subdomain = OwnedCellSlice::new_allow_exotic(b.build().ok()?);
    Some(vec![
        SafeRc::new_dyn_value(subdomain),
        SafeRc::new_dyn_value(num_bigint::BigInt::from(0)),
    ])
}

fn sha256(s: &str) -> HashBytes {
    use sha2::Digest as _;
    HashBytes(sha2::Sha256::digest(s.as_bytes()).into())
}

/// `dnsresolve` → `(resolved_bits, records)`: the records dictionary
/// (`None` when the call failed; no records is the default). A category
/// holding a record of another kind than its own is left out.
pub fn records(out: &RunOutput) -> Option<Records> {
    let s = ok_stack(out, 2)?;
    if s[1].is_null() {
        return Some(Records::default());
    }
    let dict = Dict::<HashBytes, Cell>::from_raw(Some(s[1].as_cell()?.clone()));
    let record = |name: &str| -> Option<DnsRecord> {
        let cell = dict.get(sha256(name)).ok()??;
        DnsRecord::load(&mut cell.as_slice().ok()?)
    };
    let std = |a: tonindex_model::Address| {
        Some(StdAddr::new(
            i8::try_from(a.workchain).ok()?,
            HashBytes(a.id),
        ))
    };
    let mut out = Records::default();
    if let Some(DnsRecord::NextResolver(a)) = record("dns_next_resolver") {
        out.next_resolver = a.and_then(std);
    }
    if let Some(DnsRecord::Smc { address, .. }) = record("wallet") {
        out.wallet = address.and_then(std);
    }
    if let Some(DnsRecord::Adnl { address, .. }) = record("site") {
        out.site_adnl = Some(HashBytes(address));
    }
    if let Some(DnsRecord::Storage(bag)) = record("storage") {
        out.storage_bag_id = Some(HashBytes(bag));
    }
    Some(out)
}

/// A `DNSRecord` (block.tlb), as a resolver keeps one under a category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DnsRecord {
    /// `dns_next_resolver#ba93 resolver:MsgAddressInt` (`None`: not a
    /// standard address).
    NextResolver(Option<tonindex_model::Address>),
    /// `dns_adnl_address#ad01 adnl_addr:bits256 flags:(## 8) …`.
    Adnl { address: [u8; 32], flags: u8 },
    /// `dns_smc_address#9fd3 smc_addr:MsgAddressInt flags:(## 8) …`.
    Smc {
        address: Option<tonindex_model::Address>,
        flags: u8,
    },
    /// `dns_storage_address#7473 bag_id:bits256`.
    Storage([u8; 32]),
    /// `dns_text#1eda _:Text`.
    Text(String),
    /// A tag block.tlb does not define.
    Unknown,
}

impl DnsRecord {
    /// Reads a record; `None` when the bits after its tag do not fit it.
    pub fn load(s: &mut tycho_types::cell::CellSlice<'_>) -> Option<Self> {
        use super::address::msg_address;
        let bits256 = |s: &mut tycho_types::cell::CellSlice<'_>| -> Option<[u8; 32]> {
            Some(*s.load_u256().ok()?.as_array())
        };
        Some(match s.load_u16().ok()? {
            0xba93 => Self::NextResolver(msg_address(s)?),
            0xad01 => {
                let address = bits256(s)?;
                Self::Adnl {
                    address,
                    flags: s.load_u8().ok()?,
                }
            }
            0x9fd3 => {
                let address = msg_address(s)?;
                Self::Smc {
                    address,
                    flags: s.load_u8().ok()?,
                }
            }
            0x7473 => Self::Storage(bits256(s)?),
            0x1eda => Self::Text(text(s)?),
            _ => Self::Unknown,
        })
    }
}

/// `Text`: a chunk count, then chunks of a length byte and its bytes, each
/// after the first in the previous chunk's reference.
fn text(s: &mut tycho_types::cell::CellSlice<'_>) -> Option<String> {
    let chunks = s.load_u8().ok()?;
    let mut bytes = Vec::new();
    let mut cur = *s;
    for i in 0..chunks {
        if i > 0 {
            cur = cur.load_reference_as_slice().ok()?;
        }
        let len = cur.load_u8().ok()?;
        let mut chunk = vec![0u8; usize::from(len)];
        cur.load_raw(&mut chunk, u16::from(len) * 8).ok()?;
        bytes.extend(chunk);
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The longest name `dnsresolve` is asked about, encoded (TEP-81: the
/// name must fit one cell's bytes).
pub const MAX_ENCODED_NAME: usize = 127;

/// TEP-81's wire form of a name: its labels from the last to the first,
/// each ended by a zero byte (`a.b.` → `\0b\0a\0`; `""` and `"."` → `\0`),
/// as tonlib encodes the names it resolves.
pub fn encode_name(name: &[u8]) -> Vec<u8> {
    if name.is_empty() || name == b"." {
        return vec![0];
    }
    let mut out = Vec::with_capacity(name.len() + 1);
    let mut rest = name;
    while !rest.is_empty() {
        match rest.iter().rposition(|&b| b == b'.') {
            Some(dot) => {
                out.extend_from_slice(&rest[dot + 1..]);
                rest = &rest[..dot];
            }
            None => {
                out.extend_from_slice(rest);
                rest = &[];
            }
        }
        out.push(0);
    }
    out
}

/// [`encode_name`] undone for a resolved prefix (`\0ton` → `ton.`), as
/// tonlib names a partly resolved entry.
pub fn decode_name(encoded: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded.len() + 1);
    let mut rest = encoded;
    while !rest.is_empty() {
        match rest.iter().rposition(|&b| b == 0) {
            Some(zero) => {
                out.extend_from_slice(&rest[zero + 1..]);
                rest = &rest[..zero];
                out.push(b'.');
            }
            None => {
                out.extend_from_slice(rest);
                rest = &[];
            }
        }
    }
    out
}

/// The arguments of `dnsresolve(encoded, category)`.
pub fn resolve_args(encoded: &[u8], category: &HashBytes) -> Option<Vec<RcStackValue>> {
    let mut b = CellBuilder::new();
    b.store_raw(encoded, u16::try_from(encoded.len() * 8).ok()?)
        .ok()?;
    let subdomain = OwnedCellSlice::new_allow_exotic(b.build().ok()?);
    let category = num_bigint::BigInt::from_bytes_be(num_bigint::Sign::Plus, category.as_array());
    Some(vec![
        SafeRc::new_dyn_value(subdomain),
        SafeRc::new_dyn_value(category),
    ])
}

/// What one `dnsresolve` call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// Nothing resolved (no value, or a prefix of 0 bits).
    Nothing,
    /// The first `bytes` of the encoded name resolved to the next
    /// resolver's record; the rest is for that resolver.
    Partly { bytes: usize, record: Cell },
    /// The whole name resolved: its records (for category 0, every record
    /// of the dictionary with the category it is kept under).
    Fully(Vec<(HashBytes, Cell)>),
}

/// `dnsresolve`'s answer `(resolved_bits, value)` for an encoded name of
/// `encoded_len` bytes and `category`, checked as tonlib checks it; the
/// error says what is wrong with the answer.
pub fn resolved(
    out: &RunOutput,
    encoded_len: usize,
    category: &HashBytes,
) -> Result<Resolved, String> {
    if out.exit_code != 0 && out.exit_code != 1 {
        return Err(format!(
            "dnsresolve failed with exit code {}",
            out.exit_code
        ));
    }
    let [.., bits, value] = out.stack.as_slice() else {
        return Err("dnsresolve returned fewer than 2 values".into());
    };
    let value = if value.is_null() {
        return Ok(Resolved::Nothing);
    } else {
        value
            .as_cell()
            .ok_or("dnsresolve returned a value that is not a cell")?
            .clone()
    };
    let bits = bits
        .as_int()
        .and_then(|b| usize::try_from(b).ok())
        .filter(|&b| b <= encoded_len * 8)
        .ok_or("dnsresolve returned a prefix outside the name")?;
    if bits % 8 != 0 {
        return Err("dnsresolve returned a prefix that is not whole bytes".into());
    }
    let bytes = bits / 8;
    if bytes == 0 {
        return Ok(Resolved::Nothing);
    }
    if bytes < encoded_len {
        return Ok(Resolved::Partly {
            bytes,
            record: value,
        });
    }
    if *category != HashBytes::ZERO {
        return Ok(Resolved::Fully(vec![(*category, value)]));
    }
    let dict = tycho_types::dict::RawDict::<256>::from(Some(value));
    let mut records = Vec::new();
    for entry in dict.iter() {
        let (key, v) = entry.map_err(|_| "dnsresolve returned a broken category dictionary")?;
        // A record is kept as `^DNSRecord` (no bits, one reference);
        // anything else under a key is not one, and is passed over.
        if v.size_bits() != 0 || v.size_refs() != 1 {
            continue;
        }
        let mut k = [0u8; 32];
        k.copy_from_slice(&key.raw_data()[..32]);
        let cell = v
            .get_reference_cloned(0)
            .map_err(|_| "dnsresolve returned a broken category dictionary")?;
        records.push((HashBytes(k), cell));
    }
    Ok(Resolved::Fully(records))
}

/// The category tonlib files a next resolver under:
/// sha256("dns_next_resolver").
pub fn next_resolver_category() -> HashBytes {
    sha256("dns_next_resolver")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_encode_as_tonlib_encodes_them() {
        assert_eq!(encode_name(b""), b"\0");
        assert_eq!(encode_name(b"."), b"\0");
        assert_eq!(encode_name(b"test.ton."), b"\0ton\0test\0");
        assert_eq!(encode_name(b"sub"), b"sub\0");
        assert_eq!(encode_name(b"a.b.c"), b"c\0b\0a\0");
        // A resolved prefix named back: the root part and a label.
        assert_eq!(decode_name(b"\0"), b".");
        assert_eq!(decode_name(b"\0ton"), b"ton.");
        assert_eq!(decode_name(b"\0ton\0"), b".ton.");
        assert_eq!(decode_name(b"sub"), b"sub");
    }

    fn cell(build: impl FnOnce(&mut CellBuilder)) -> Cell {
        let mut b = CellBuilder::new();
        build(&mut b);
        b.build().unwrap()
    }

    #[test]
    fn records_read_every_tag() {
        let load = |c: &Cell| DnsRecord::load(&mut c.as_slice().unwrap());
        let adnl = cell(|b| {
            b.store_u16(0xad01).unwrap();
            b.store_u256(&HashBytes([7; 32])).unwrap();
            b.store_u8(1).unwrap();
        });
        assert_eq!(
            load(&adnl),
            Some(DnsRecord::Adnl {
                address: [7; 32],
                flags: 1
            })
        );
        let text = cell(|b| {
            b.store_u16(0x1eda).unwrap();
            b.store_u8(2).unwrap();
            b.store_u8(2).unwrap();
            b.store_raw(b"he", 16).unwrap();
            b.store_reference(cell(|n| {
                n.store_u8(3).unwrap();
                n.store_raw(b"llo", 24).unwrap();
            }))
            .unwrap();
        });
        assert_eq!(load(&text), Some(DnsRecord::Text("hello".into())));
        let unknown = cell(|b| b.store_u16(0xffff).unwrap());
        assert_eq!(load(&unknown), Some(DnsRecord::Unknown));
        // A storage record cut short does not fit its tag.
        let short = cell(|b| {
            b.store_u16(0x7473).unwrap();
            b.store_u8(1).unwrap();
        });
        assert_eq!(load(&short), None);
    }

    fn output(exit_code: i32, stack: Vec<RcStackValue>) -> RunOutput {
        RunOutput {
            exit_code,
            gas_used: 0,
            vm_steps: 0,
            stack,
            missing_library: None,
        }
    }

    fn int(n: i64) -> RcStackValue {
        SafeRc::new_dyn_value(num_bigint::BigInt::from(n))
    }

    #[test]
    fn answers_are_checked_as_tonlib_checks_them() {
        let record = cell(|b| b.store_u16(0xba93).unwrap());
        let value = || SafeRc::new_dyn_value(record.clone());
        let zero = HashBytes::ZERO;
        // 8 of 40 bits resolved: the next resolver's part.
        assert_eq!(
            resolved(&output(0, vec![int(8), value()]), 5, &zero),
            Ok(Resolved::Partly {
                bytes: 1,
                record: record.clone()
            })
        );
        // No value, or nothing resolved.
        let null = tycho_vm::Stack::make_null();
        assert_eq!(
            resolved(&output(0, vec![int(8), null]), 5, &zero),
            Ok(Resolved::Nothing)
        );
        assert_eq!(
            resolved(&output(0, vec![int(0), value()]), 5, &zero),
            Ok(Resolved::Nothing)
        );
        // A prefix beyond the name, or not whole bytes; a failed run.
        assert!(resolved(&output(0, vec![int(48), value()]), 5, &zero).is_err());
        assert!(resolved(&output(0, vec![int(12), value()]), 5, &zero).is_err());
        assert!(resolved(&output(11, vec![]), 5, &zero).is_err());
        // The whole name for category 0: every `^DNSRecord` of the
        // dictionary, anything else under a key passed over.
        let mut dict = Dict::<HashBytes, Cell>::new();
        dict.set(HashBytes([1; 32]), record.clone()).unwrap();
        let dict_cell = dict.into_root().unwrap();
        let full = resolved(
            &output(0, vec![int(40), SafeRc::new_dyn_value(dict_cell)]),
            5,
            &zero,
        );
        assert_eq!(
            full,
            Ok(Resolved::Fully(vec![(HashBytes([1; 32]), record.clone())]))
        );
        // One category: the value itself.
        assert_eq!(
            resolved(&output(0, vec![int(40), value()]), 5, &HashBytes([2; 32])),
            Ok(Resolved::Fully(vec![(HashBytes([2; 32]), record)]))
        );
    }
}
