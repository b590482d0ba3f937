//! Message cell → [`MessageRecord`].
//!
//! The header (`CommonMsgInfo`) is read by our own loader: tycho-types reads
//! the old `ihr_fee` field as `extra_flags` and rejects values above 3, which
//! real pre-v12 messages carry. The sub-fields (addresses, coins, StateInit)
//! use tycho-types' loaders.

use tycho_types::cell::{Cell, CellBuilder, CellSlice, Load};
use tycho_types::models::{IntAddr, StateInit};
use tycho_types::num::{Tokens, Uint9};

use tonindex_model::{Address, MessageRecord, MsgKind};

use super::{coins, DecodeError};

/// Global version from which the old `ihr_fee` header field means `extra_flags`.
const EXTRA_FLAGS_VERSION: u32 = 12;

/// Decodes one message cell. `global_version` is the producing block's
/// `gen_software` version; it decides how the `ihr_fee` field is reported.
pub fn decode_message(cell: &Cell, global_version: u32) -> Result<MessageRecord, DecodeError> {
    decode_message_with_contents(cell, global_version).map(|(rec, _)| rec)
}

/// [`decode_message`], with the init state and body it read on the way:
/// kept with a decoded transaction, so that what reads bodies later (trace
/// classification, token events) does not parse the message again.
pub fn decode_message_with_contents(
    cell: &Cell,
    global_version: u32,
) -> Result<(MessageRecord, MessageContents), DecodeError> {
    let ctx = |e| DecodeError::Message(hex::encode(cell.repr_hash().as_array()), e);
    let mut s = cell.as_slice().map_err(ctx)?;
    let mut rec = blank(*cell.repr_hash().as_array());
    load_header(&mut s, &mut rec, global_version).map_err(ctx)?;
    let contents = load_contents(&mut s).map_err(ctx)?;
    rec.init_state_hash = contents
        .init_state
        .as_ref()
        .map(|c| *c.repr_hash().as_array());
    let body = &contents.body;
    let mut body_slice = body.as_slice_allow_exotic();
    if body_slice.size_bits() >= 32 {
        rec.opcode = body_slice.load_u32().ok();
    }
    rec.body_hash = *body.repr_hash().as_array();
    if rec.kind == MsgKind::ExternalIn {
        if let Some(dest) = &rec.destination {
            rec.hash_norm = Some(normalized_hash(dest, body).map_err(ctx)?);
        }
    }
    Ok((rec, contents))
}

/// A message's init state and body as standalone cells: what the index
/// does not store on its own, since the transaction BoC holds them.
#[derive(Debug, Clone)]
pub struct MessageContents {
    pub init_state: Option<Cell>,
    pub body: Cell,
}

/// The init state and body of a message cell.
pub fn message_contents(cell: &Cell) -> Result<MessageContents, tycho_types::error::Error> {
    let mut s = cell.as_slice()?;
    let mut scratch = blank([0; 32]);
    load_header(&mut s, &mut scratch, EXTRA_FLAGS_VERSION)?;
    load_contents(&mut s)
}

/// `init:(Maybe (Either StateInit ^StateInit)) body:(Either X ^X)`, after the header.
fn load_contents(s: &mut CellSlice<'_>) -> Result<MessageContents, tycho_types::error::Error> {
    let init_state = if s.load_bit()? {
        Some(if s.load_bit()? {
            s.load_reference_cloned()?
        } else {
            let before = *s;
            StateInit::load_from(s)?;
            let used = before.get_prefix(
                before.size_bits() - s.size_bits(),
                before.size_refs() - s.size_refs(),
            );
            CellBuilder::build_from(used)?
        })
    } else {
        None
    };
    let body = if s.load_bit()? {
        s.load_reference_cloned()?
    } else {
        CellBuilder::build_from(*s)?
    };
    Ok(MessageContents { init_state, body })
}

/// A record with only the hash set, for [`load_header`] to fill.
fn blank(hash: [u8; 32]) -> MessageRecord {
    MessageRecord {
        hash,
        kind: MsgKind::Internal,
        source: None,
        destination: None,
        value: None,
        fwd_fee: None,
        ihr_fee: None,
        extra_flags: None,
        import_fee: None,
        created_lt: None,
        created_at: None,
        ihr_disabled: None,
        bounce: None,
        bounced: None,
        opcode: None,
        body_hash: [0; 32],
        init_state_hash: None,
        metadata: None,
        hash_norm: None,
    }
}

fn load_header(
    s: &mut CellSlice<'_>,
    rec: &mut MessageRecord,
    global_version: u32,
) -> Result<(), tycho_types::error::Error> {
    if !s.load_bit()? {
        // int_msg_info$0 ihr_disabled bounce bounced src dest value ihr_fee fwd_fee created_lt created_at
        rec.kind = MsgKind::Internal;
        rec.ihr_disabled = Some(s.load_bit()?);
        rec.bounce = Some(s.load_bit()?);
        rec.bounced = Some(s.load_bit()?);
        rec.source = int_addr(&IntAddr::load_from(s)?);
        rec.destination = int_addr(&IntAddr::load_from(s)?);
        rec.value = Some(coins(&Load::load_from(s)?)?);
        let ihr_field = Tokens::load_from(s)?.into_inner();
        if global_version >= EXTRA_FLAGS_VERSION {
            rec.extra_flags = Some(ihr_field);
            rec.ihr_fee = Some(0);
        } else {
            rec.ihr_fee = Some(ihr_field);
        }
        rec.fwd_fee = Some(Tokens::load_from(s)?.into_inner());
        rec.created_lt = Some(s.load_u64()?);
        rec.created_at = Some(s.load_u32()?);
    } else if !s.load_bit()? {
        // ext_in_msg_info$10 src:MsgAddressExt dest:MsgAddressInt import_fee:Grams
        rec.kind = MsgKind::ExternalIn;
        skip_ext_addr(s)?;
        rec.destination = int_addr(&IntAddr::load_from(s)?);
        rec.import_fee = Some(Tokens::load_from(s)?.into_inner());
    } else {
        // ext_out_msg_info$11 src:MsgAddressInt dest:MsgAddressExt created_lt created_at
        rec.kind = MsgKind::ExternalOut;
        rec.source = int_addr(&IntAddr::load_from(s)?);
        skip_ext_addr(s)?;
        rec.created_lt = Some(s.load_u64()?);
        rec.created_at = Some(s.load_u32()?);
    }
    Ok(())
}

/// `addr_none$00 | addr_extern$01 len:(## 9) external_address:(bits len)`.
fn skip_ext_addr(s: &mut CellSlice<'_>) -> Result<(), tycho_types::error::Error> {
    if s.load_bit()? {
        return Err(tycho_types::error::Error::InvalidTag);
    }
    if s.load_bit()? {
        let len = Uint9::load_from(s)?.into_inner();
        s.skip_first(len, 0)?;
    }
    Ok(())
}

/// A standard address as a record; variable-length ones keep their first 256 bits.
pub fn int_addr(addr: &IntAddr) -> Option<Address> {
    match addr {
        IntAddr::Std(a) => Some(Address {
            workchain: i32::from(a.workchain),
            id: *a.address.as_array(),
        }),
        IntAddr::Var(a) => {
            let mut id = [0u8; 32];
            let n = a.address.len().min(32);
            id[..n].copy_from_slice(&a.address[..n]);
            Some(Address {
                workchain: a.workchain,
                id,
            })
        }
    }
}

/// TEP-467: the hash of the external-in message with `src = addr_none`,
/// `import_fee = 0`, no init, and the body in a reference.
pub fn normalized_hash(dest: &Address, body: &Cell) -> Result<[u8; 32], tycho_types::error::Error> {
    let mut b = CellBuilder::new();
    b.store_bit_one()?; // ext_in_msg_info$10
    b.store_bit_zero()?;
    b.store_bit_zero()?; // src: addr_none$00
    b.store_bit_zero()?;
    // dest: addr_std$10 anycast:nothing workchain_id:int8 address:bits256
    b.store_bit_one()?;
    b.store_bit_zero()?;
    b.store_bit_zero()?;
    b.store_u8(dest.workchain as i8 as u8)?;
    b.store_u256(&tycho_types::cell::HashBytes(dest.id))?;
    b.store_small_uint(0, 4)?; // import_fee: Grams 0
    b.store_bit_zero()?; // init: nothing
    b.store_bit_one()?; // body: ^X
    b.store_reference(body.clone())?;
    Ok(*b.build()?.repr_hash().as_array())
}
