//! TON DNS items (TEP-81), read the way toncenter's worker reads them
//! (spec v3 §6.4): only items of the `.ton` root collections and the
//! `.t.me` collection; the domain from `get_domain` (+ `.ton`) or
//! `get_full_domain` (reversed NUL-separated labels), the records from
//! `dnsresolve("\0", 0)` — a dictionary keyed by the sha256 of each
//! category's name.

use tycho_types::cell::{Cell, CellBuilder, HashBytes, Load};
use tycho_types::dict::Dict;
use tycho_types::models::{IntAddr, StdAddr};
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

fn std_addr(cs: &mut tycho_types::cell::CellSlice<'_>) -> Option<StdAddr> {
    match IntAddr::load_from(cs).ok()? {
        IntAddr::Std(a) => Some(a),
        IntAddr::Var(_) => None,
    }
}

/// `dnsresolve` → `(resolved_bits, records)`: the records dictionary
/// (`None` when the call failed; no records is the default).
pub fn records(out: &RunOutput) -> Option<Records> {
    let s = ok_stack(out, 2)?;
    if s[1].is_null() {
        return Some(Records::default());
    }
    let dict = Dict::<HashBytes, Cell>::from_raw(Some(s[1].as_cell()?.clone()));
    let record = |name: &str, tag: u16| -> Option<tycho_types::cell::Cell> {
        let cell = dict.get(sha256(name)).ok()??;
        let mut cs = cell.as_slice().ok()?;
        (cs.load_u16().ok()? == tag).then_some(cell)
    };
    fn after_tag(c: &Cell) -> Option<tycho_types::cell::CellSlice<'_>> {
        let mut cs = c.as_slice().ok()?;
        cs.skip_first(16, 0).ok()?;
        Some(cs)
    }
    let mut out = Records::default();
    if let Some(c) = record("dns_next_resolver", 0xba93) {
        out.next_resolver = after_tag(&c).and_then(|mut cs| std_addr(&mut cs));
    }
    if let Some(c) = record("wallet", 0x9fd3) {
        out.wallet = after_tag(&c).and_then(|mut cs| std_addr(&mut cs));
    }
    if let Some(c) = record("site", 0xad01) {
        out.site_adnl = after_tag(&c).and_then(|mut cs| cs.load_u256().ok());
    }
    if let Some(c) = record("storage", 0x7473) {
        out.storage_bag_id = after_tag(&c).and_then(|mut cs| cs.load_u256().ok());
    }
    Some(out)
}
