//! TON DNS record changes (spec v3 §4.5 `change_dns`, `delete_dns`,
//! `renew_dns`): a `change_dns_record` call to a DNS item. With a value it
//! sets a record; without one it deletes the record of its key, or, with
//! the zero key, only renews the domain (as the owner's periodic touch does).

use serde_json::Value;
use tycho_types::cell::CellSlice;

use super::body::{self, msg_address};
use super::{addr, call_failed, Block, BlockId, Cols, Graph, Interfaces};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_CHANGE_DNS_RECORD];

/// `change_dns_record#4eb1f0f9 query_id:uint64 key:uint256 value:(Maybe ^DNSRecord)`.
pub(crate) const OP_CHANGE_DNS_RECORD: u32 = 0x4eb1_f0f9;

/// A `change_dns_record` call and the change it returns.
pub(crate) fn change_record(
    g: &Graph<'_>,
    b: BlockId,
    interfaces: &dyn Interfaces,
) -> Option<Block> {
    if g.call_op(b) != Some(OP_CHANGE_DNS_RECORD) {
        return None;
    }
    let n = g.leaf(b)?;
    let m = g.tree.txs[n].in_msg.as_ref()?;
    let mut s = body::after_op(m.body.as_ref()?)?;
    s.load_u64().ok()?;
    let mut key = [0u8; 32];
    s.load_raw(&mut key, 256).ok()?;
    let value = if s.size_refs() > 0 {
        Some(record(&mut s.load_reference_as_slice().ok()?)?)
    } else {
        None
    };
    let item = m.destination?;
    let collection = interfaces.nft_item(&item).and_then(|i| i.collection);
    let cols = Cols {
        source: m.source,
        destination: Some(item),
        asset: collection,
        ..Cols::default()
    };
    let kind = match (&value, key == [0; 32]) {
        (Some(_), _) => "change_dns",
        (None, true) => "renew_dns",
        (None, false) => "delete_dns",
    };
    let mut blk = Block::of(kind, g.with_change(b), call_failed(g.tree, n), cols);
    if kind != "renew_dns" {
        blk.data
            .insert("key".into(), Value::String(hex::encode(key)));
    }
    if let Some((schema, value, flags)) = value {
        blk.data
            .insert("value_schema".into(), Value::String(schema.into()));
        blk.data.insert("value".into(), value);
        blk.data
            .insert("flags".into(), flags.map_or(Value::Null, Value::from));
    }
    Some(blk)
}

/// A `DNSRecord` as toncenter stores it: its schema name, its value
/// (addresses raw, ADNL and bag ids in hex, text as text) and flags.
fn record(s: &mut CellSlice<'_>) -> Option<(&'static str, Value, Option<u8>)> {
    let hash = |s: &mut CellSlice<'_>| -> Option<Value> {
        let mut h = [0u8; 32];
        s.load_raw(&mut h, 256).ok()?;
        Some(Value::String(hex::encode(h)))
    };
    Some(match s.load_u16().ok()? {
        0xba93 => ("DNSNextResolver", addr(msg_address(s)?), None),
        0xad01 => {
            let adnl = hash(s)?;
            ("DNSAdnlAddress", adnl, Some(s.load_u8().ok()?))
        }
        0x9fd3 => {
            let a = addr(msg_address(s)?);
            ("DNSSmcAddress", a, Some(s.load_u8().ok()?))
        }
        0x7473 => ("DNSStorageAddress", hash(s)?, None),
        0x1eda => ("DNSText", Value::String(text(s)?), None),
        _ => ("Unknown", Value::Null, None),
    })
}

/// `dns_text#1eda _:Text`: a chunk count, then chunks of a length byte and
/// its bytes, each after the first in the next reference.
fn text(s: &mut CellSlice<'_>) -> Option<String> {
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
