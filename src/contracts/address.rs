//! Reading `MsgAddress` out of contract data and message bodies, once for
//! the action matchers and the contract readers.

use tonindex_model::Address;
use tycho_types::cell::CellSlice;

/// A standard address as the index stores it (getters hand back
/// `StdAddr`s; rows and answers hold [`Address`]).
pub fn from_std(a: &tycho_types::models::StdAddr) -> Address {
    Address {
        workchain: i32::from(a.workchain),
        id: *a.address.as_array(),
    }
}

/// `MsgAddress`: `Some(Some(a))` for a standard address, `Some(None)` for
/// `addr_none` and for the external and variable-length forms (read past,
/// as toncenter's reader does); `None` (a parse failure) when the bits do
/// not hold one.
pub fn msg_address(s: &mut CellSlice<'_>) -> Option<Option<Address>> {
    match s.load_small_uint(2).ok()? {
        0b00 => Some(None),
        0b01 => {
            let len = s.load_uint(9).ok()? as u16;
            s.skip_first(len, 0).ok()?;
            Some(None)
        }
        0b10 => {
            if s.load_bit().ok()? {
                return None; // anycast: not in any contract we read
            }
            let workchain = s.load_u8().ok()? as i8;
            let id = s.load_u256().ok()?;
            Some(Some(Address {
                workchain: i32::from(workchain),
                id: *id.as_array(),
            }))
        }
        _ => {
            if s.load_bit().ok()? {
                return None;
            }
            let len = s.load_uint(9).ok()? as u16;
            s.skip_first(32 + len, 0).ok()?;
            Some(None)
        }
    }
}
