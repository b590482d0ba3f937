//! Get-method ids read from a contract's code (spec v3 §6.7).
//!
//! FunC, Tolk and most compilers start code with `SETCP0` followed by
//! `DICTPUSHCONST n` whose reference is the dictionary of methods keyed by
//! `n`-bit method ids. Code laid out otherwise (or a library cell, whose
//! body is not at hand here) declares no methods we can read: `None`, as
//! toncenter's worker reports it.

use tycho_types::cell::Cell;
use tycho_types::dict::RawKeys;

/// `SETCP0`: `FF 00`.
const SETCP0: u16 = 0xff00;
/// `DICTPUSHCONST n`: the 13-bit prefix `1111 0100 1010 0`, a set bit, then `n:10`.
const DICTPUSHCONST_PREFIX: u64 = 0b1_1110_1001_0100;

/// The get-method ids `code` declares, ascending and without duplicates;
/// `None` when the code does not start with `SETCP0; DICTPUSHCONST`.
pub fn method_ids(code: &Cell) -> Option<Vec<u32>> {
    let mut s = code.as_slice().ok()?;
    if s.load_u16().ok()? != SETCP0 {
        return None;
    }
    if s.load_uint(13).ok()? != DICTPUSHCONST_PREFIX || !s.load_bit().ok()? {
        return None;
    }
    let key_len = s.load_uint(10).ok()? as u16;
    if key_len == 0 || key_len > 32 {
        return None;
    }
    let root = Some(s.load_reference_cloned().ok()?);
    let mut ids = Vec::new();
    for key in RawKeys::new(&root, key_len) {
        let key = key.ok()?;
        let mut k = key.as_data_slice();
        ids.push(k.load_uint(key_len).ok()? as u32);
    }
    ids.sort_unstable();
    ids.dedup();
    Some(ids)
}

#[cfg(test)]
mod tests {
    use tycho_types::cell::CellFamily;

    use super::*;

    #[test]
    fn other_layouts_declare_nothing() {
        let mut b = tycho_types::cell::CellBuilder::new();
        b.store_u16(0xff00).unwrap();
        b.store_u16(0x1234).unwrap();
        assert_eq!(method_ids(&b.build().unwrap()), None);
        assert_eq!(method_ids(&Cell::empty_cell()), None);
    }
}
