//! Our own loaders for a block's `InMsgDescr` and `OutMsgDescr`.
//!
//! tycho-types does not know every constructor mainnet writes today:
//! `msg_envelope_v2` (with the message metadata traces need), the deferred
//! InMsg/OutMsg variants, discards and dequeues. These loaders read the raw
//! dictionaries and report, per entry, the message hash, the constructor
//! and the envelope's metadata. An entry we cannot read is counted as
//! `Unreadable` and never stops the block from being indexed.

use tycho_types::cell::{Cell, CellSlice, Load};
use tycho_types::dict::RawDict;
use tycho_types::models::{CurrencyCollection, IntAddr};
use tycho_types::num::Tokens;

use tonindex_model::{Hash, MsgMetadata};

use super::message::int_addr;

/// The InMsg / OutMsg constructor of one descriptor entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescrKind {
    ImportExt,
    ImportIhr,
    ImportImm,
    ImportFin,
    ImportTr,
    DiscardFin,
    DiscardTr,
    ImportDeferredFin,
    ImportDeferredTr,
    ExportExt,
    ExportImm,
    ExportNew,
    ExportTr,
    ExportDeq,
    ExportDeqShort,
    ExportTrReq,
    ExportDeqImm,
    ExportNewDefer,
    ExportDeferredTr,
    /// An entry whose constructor or fields we could not read.
    Unreadable,
}

/// One entry of InMsgDescr or OutMsgDescr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescrEntry {
    /// The dictionary key: the message hash (for `msg_export_deq_short`, the envelope hash).
    pub key: Hash,
    pub kind: DescrKind,
    /// Envelope version (1 or 2) of the entry's main envelope, if it has one.
    pub envelope_version: Option<u8>,
    /// `emitted_lt` of a v2 envelope.
    pub emitted_lt: Option<u64>,
    pub metadata: Option<MsgMetadata>,
}

/// Reads `InMsgDescr = HashmapAugE 256 InMsg ImportFees`.
pub fn load_in_msg_descr(cell: &Cell) -> Result<Vec<DescrEntry>, tycho_types::error::Error> {
    load_descr(cell, |s| {
        // import_fees$_ fees_collected:Grams value_imported:CurrencyCollection
        Tokens::load_from(s)?;
        let _ = CurrencyCollection::load_from(s)?;
        read_in_msg(s)
    })
}

/// Reads `OutMsgDescr = HashmapAugE 256 OutMsg CurrencyCollection`.
pub fn load_out_msg_descr(cell: &Cell) -> Result<Vec<DescrEntry>, tycho_types::error::Error> {
    load_descr(cell, |s| {
        let _ = CurrencyCollection::load_from(s)?;
        read_out_msg(s)
    })
}

type Read = (DescrKind, Option<Envelope>);

fn load_descr(
    cell: &Cell,
    read: impl Fn(&mut CellSlice<'_>) -> Result<Read, tycho_types::error::Error>,
) -> Result<Vec<DescrEntry>, tycho_types::error::Error> {
    // ahme_empty$0 extra:Y | ahme_root$1 root:^(HashmapAug 256 X Y) extra:Y
    let mut s = cell.as_slice()?;
    let root = if s.load_bit()? {
        Some(s.load_reference_cloned()?)
    } else {
        None
    };
    let dict = RawDict::<256>::from(root);
    let mut out = Vec::new();
    for entry in dict.iter() {
        let (key, mut value) = entry?;
        let mut key_slice = key.as_data_slice();
        let key = *key_slice.load_u256()?.as_array();
        let (kind, env) = read(&mut value).unwrap_or((DescrKind::Unreadable, None));
        out.push(DescrEntry {
            key,
            kind,
            envelope_version: env.as_ref().map(|e| e.version),
            emitted_lt: env.as_ref().and_then(|e| e.emitted_lt),
            metadata: env.and_then(|e| e.metadata),
        });
    }
    Ok(out)
}

fn read_in_msg(s: &mut CellSlice<'_>) -> Result<Read, tycho_types::error::Error> {
    let env = |s: &mut CellSlice<'_>| envelope(&s.load_reference_cloned()?);
    Ok(match s.load_small_uint(3)? {
        0b000 => (DescrKind::ImportExt, None),
        0b010 => (DescrKind::ImportIhr, None),
        0b011 => (DescrKind::ImportImm, Some(env(s)?)),
        0b100 => (DescrKind::ImportFin, Some(env(s)?)),
        0b101 => (DescrKind::ImportTr, Some(env(s)?)),
        0b110 => (DescrKind::DiscardFin, Some(env(s)?)),
        0b111 => (DescrKind::DiscardTr, Some(env(s)?)),
        _ => match s.load_small_uint(2)? {
            // msg_import_deferred_fin$00100 / msg_import_deferred_tr$00101
            0b00 => (DescrKind::ImportDeferredFin, Some(env(s)?)),
            0b01 => (DescrKind::ImportDeferredTr, Some(env(s)?)),
            _ => return Err(tycho_types::error::Error::InvalidTag),
        },
    })
}

fn read_out_msg(s: &mut CellSlice<'_>) -> Result<Read, tycho_types::error::Error> {
    let env = |s: &mut CellSlice<'_>| envelope(&s.load_reference_cloned()?);
    Ok(match s.load_small_uint(3)? {
        0b000 => (DescrKind::ExportExt, None),
        0b010 => (DescrKind::ExportImm, Some(env(s)?)),
        0b001 => (DescrKind::ExportNew, Some(env(s)?)),
        0b011 => (DescrKind::ExportTr, Some(env(s)?)),
        0b111 => (DescrKind::ExportTrReq, Some(env(s)?)),
        0b100 => (DescrKind::ExportDeqImm, Some(env(s)?)),
        0b110 => {
            if s.load_bit()? {
                (DescrKind::ExportDeqShort, None)
            } else {
                (DescrKind::ExportDeq, Some(env(s)?))
            }
        }
        _ => match s.load_small_uint(2)? {
            // msg_export_new_defer$10100 / msg_export_deferred_tr$10101
            0b00 => (DescrKind::ExportNewDefer, Some(env(s)?)),
            0b01 => (DescrKind::ExportDeferredTr, Some(env(s)?)),
            _ => return Err(tycho_types::error::Error::InvalidTag),
        },
    })
}

/// What an envelope tells beyond the message itself.
#[derive(Debug, Clone)]
struct Envelope {
    version: u8,
    emitted_lt: Option<u64>,
    metadata: Option<MsgMetadata>,
}

/// `msg_envelope#4 cur_addr next_addr fwd_fee_remaining:Grams msg:^(Message Any)`
/// `msg_envelope_v2#5 … msg:^(Message Any) emitted_lt:(Maybe uint64) metadata:(Maybe MsgMetadata)`
/// `msg_metadata#0 depth:uint32 initiator_addr:MsgAddressInt initiator_lt:uint64`
fn envelope(cell: &Cell) -> Result<Envelope, tycho_types::error::Error> {
    let mut s = cell.as_slice()?;
    let version = match s.load_small_uint(4)? {
        4 => 1,
        5 => 2,
        _ => return Err(tycho_types::error::Error::InvalidTag),
    };
    skip_intermediate_addr(&mut s)?;
    skip_intermediate_addr(&mut s)?;
    Tokens::load_from(&mut s)?;
    s.load_reference()?;
    let mut env = Envelope {
        version,
        emitted_lt: None,
        metadata: None,
    };
    if version == 2 {
        if s.load_bit()? {
            env.emitted_lt = Some(s.load_u64()?);
        }
        if s.load_bit()? {
            if s.load_small_uint(4)? != 0 {
                return Err(tycho_types::error::Error::InvalidTag);
            }
            let depth = s.load_u32()?;
            let initiator = int_addr(&IntAddr::load_from(&mut s)?);
            let initiator_lt = s.load_u64()?;
            env.metadata = initiator.map(|initiator| MsgMetadata {
                depth,
                initiator,
                initiator_lt,
            });
        }
    }
    Ok(env)
}

/// `interm_addr_regular$0 use_dest_bits:(#<= 96)` (7 bits) |
/// `interm_addr_simple$10 workchain_id:int8 addr_pfx:uint64` |
/// `interm_addr_ext$11 workchain_id:int32 addr_pfx:uint64`.
///
/// Read here because tycho-types 0.3.6 loads `use_dest_bits` as 8 bits.
pub(crate) fn skip_intermediate_addr(
    s: &mut CellSlice<'_>,
) -> Result<(), tycho_types::error::Error> {
    if !s.load_bit()? {
        if s.load_small_uint(7)? > 96 {
            return Err(tycho_types::error::Error::InvalidData);
        }
        return Ok(());
    }
    let wc_bits = if s.load_bit()? { 32 } else { 8 };
    s.skip_first(wc_bits + 64, 0)
}
