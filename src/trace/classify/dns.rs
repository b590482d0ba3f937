//! TON DNS record changes (spec v3 §4.5 `change_dns`, `delete_dns`,
//! `renew_dns`): a `change_dns_record` call to a DNS item. With a value it
//! sets a record; without one it deletes the record of its key, or, with
//! the zero key, only renews the domain (as the owner's periodic touch does).
//! And `dns_release`: anyone's bid for a domain left unrenewed for a year,
//! which puts it up for auction again; `dns_purchase`: once an auction has
//! ended, the first call to the item hands it to the highest bidder and
//! sends the winning bid on to the collection (`fill_up`).

use crate::trace::action_data::{ActionData, DnsRecord as RecordData, DnsSale};
use tycho_types::cell::CellSlice;

use super::body;
use crate::contracts::dns::DnsRecord;
use tonindex_model::{Address, Hash};

use super::{call_failed, Block, BlockId, Cols, Graph, Interfaces, NftItem};

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[OP_CHANGE_DNS_RECORD, OP_DNS_BALANCE_RELEASE, OP_FILL_UP];

/// `fill_up#370fec51 query_id:uint64`: a DNS item's winning bid to its
/// collection (and Fragment's payouts, see `nft`).
pub(crate) const OP_FILL_UP: u32 = 0x370f_ec51;

/// `dns_balance_release#4ed14b65 query_id:uint64` (anyone → DNS item).
const OP_DNS_BALANCE_RELEASE: u32 = 0x4ed1_4b65;

/// The `.ton` DNS collection (toncenter's `DNS_COLLECTION`).
const DNS_COLLECTION: Address = Address {
    workchain: 0,
    id: [
        0xb7, 0x74, 0xd9, 0x5e, 0xb2, 0x05, 0x43, 0xf1, 0x86, 0xc0, 0x6b, 0x37, 0x1a, 0xb8, 0x8a,
        0xd7, 0x04, 0xf7, 0xe2, 0x56, 0x13, 0x0c, 0xaf, 0x96, 0x18, 0x93, 0x68, 0xa7, 0xd0, 0xcb,
        0x6c, 0xcf,
    ],
};

/// The DNS item code hash (toncenter's `DNS_CODE_HASH`).
const DNS_ITEM_CODE_HASH: Hash = [
    0x8b, 0x5f, 0xfc, 0x9e, 0xbf, 0xd3, 0x90, 0x64, 0xd8, 0xd5, 0xf5, 0x6e, 0x46, 0x59, 0xc8, 0x26,
    0xbb, 0x75, 0x93, 0x92, 0x3f, 0x5c, 0xa4, 0x87, 0x28, 0xbe, 0x4d, 0x60, 0xaf, 0x6f, 0x51, 0xf9,
];

/// Whether `item` (an NFT item the index knows) is a TON DNS item: of the
/// `.ton` collection, or of the DNS item code, as toncenter tells them.
pub(crate) fn is_dns_item(interfaces: &dyn Interfaces, item: &Address, nft: &NftItem) -> bool {
    nft.collection == Some(DNS_COLLECTION) || interfaces.code_hash(item) == Some(DNS_ITEM_CODE_HASH)
}

/// A bid that releases an expired domain: the call alone (the auction it
/// starts is the item's state), failed when the item refused it.
pub(crate) fn release(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_DNS_BALANCE_RELEASE) {
        return None;
    }
    let n = g.leaf(b)?;
    let m = g.tree.txs[n].in_msg.as_ref()?;
    let item = m.destination?;
    let nft = interfaces.nft_item(&item)?;
    if !is_dns_item(interfaces, &item, &nft) {
        return None;
    }
    let mut s = body::after_op(m.body.as_ref()?)?;
    let query_id = s.load_u64().ok();
    let cols = Cols {
        source: m.source,
        destination: Some(item),
        asset: nft.collection,
        value: Some(m.value),
        ..Cols::default()
    };
    let mut blk = Block::of("dns_release", vec![b], g.tree.txs[n].aborted, cols);
    blk.data = ActionData::DnsSale(DnsSale {
        nft_item_index: Some(nft.index),
        query_id: query_id.map(|q| q.to_string()),
        ..DnsSale::default()
    });
    Some(blk)
}

/// A DNS item taken after its auction: the item's `fill_up` to its
/// collection (the winning bid) under the call that made the item take it,
/// whose sender is the new owner, as toncenter reads it. The action is the
/// `fill_up` alone; the call stays an action of its own.
pub(crate) fn purchase(g: &Graph<'_>, b: BlockId, interfaces: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_FILL_UP) {
        return None;
    }
    let parent = g.block(b).prev?;
    if g.kind(parent) != "call_contract" {
        return None;
    }
    let n = g.leaf(b)?;
    let m = g.tree.txs[n].in_msg.as_ref()?;
    let item = m.source?;
    let nft = interfaces.nft_item(&item)?;
    if !is_dns_item(interfaces, &item, &nft) {
        return None;
    }
    let new_owner = g.msg(parent)?.source;
    let query_id = body::after_op(m.body.as_ref()?).and_then(|mut s| s.load_u64().ok());
    let cols = Cols {
        destination: new_owner,
        asset: nft.collection,
        asset_secondary: Some(item),
        ..Cols::default()
    };
    let mut blk = Block::of("dns_purchase", vec![b], g.tree.txs[n].aborted, cols);
    blk.data = ActionData::DnsSale(DnsSale {
        nft_item_index: Some(nft.index),
        payout_amount: Some(m.value.to_string()),
        price: Some(m.value.to_string()),
        query_id: query_id.map(|q| q.to_string()),
    });
    Some(blk)
}

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
        let mut data = RecordData {
            key: Some(hex::encode(key)),
            ..RecordData::default()
        };
        if let Some((schema, value, flags)) = value {
            data.value_schema = Some(schema.into());
            data.value = value;
            data.flags = flags;
        }
        blk.data = ActionData::DnsRecord(data);
    }
    Some(blk)
}

/// A `DNSRecord` as toncenter stores it: its schema name, its value
/// (addresses raw, ADNL and bag ids in hex, text as text) and flags.
fn record(s: &mut CellSlice<'_>) -> Option<(&'static str, Option<String>, Option<u8>)> {
    let raw = |a: Option<Address>| a.as_ref().map(super::raw);
    Some(match DnsRecord::load(s)? {
        DnsRecord::NextResolver(a) => ("DNSNextResolver", raw(a), None),
        DnsRecord::Adnl { address, flags } => {
            ("DNSAdnlAddress", Some(hex::encode(address)), Some(flags))
        }
        DnsRecord::Smc { address, flags } => ("DNSSmcAddress", raw(address), Some(flags)),
        DnsRecord::Storage(bag) => ("DNSStorageAddress", Some(hex::encode(bag)), None),
        DnsRecord::Text(t) => ("DNSText", Some(t), None),
        DnsRecord::Unknown => ("Unknown", None, None),
    })
}
