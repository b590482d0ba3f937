//! `/messages` (spec v3 §2.9).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::{Address, Hash, MessageRecord};
use tonindex_storage::tables::{
    AccountLtHashKey, HashTxKey, Messages, MsgByDestination, MsgBySource, TxByInMsg, TxByOutMsg,
};
use tonindex_storage::Key;

use super::address_book::{self, AddressBook};
use super::models::Message;
use super::{parse_direction, parse_opcode, parse_utime, to_json, Paging, V3Error, V3Result};
use crate::api::chain;
use crate::api::encoding::{parse_hash, B64};
use crate::api::params::Params;
use crate::api::Ctx;

#[derive(Serialize)]
struct MessagesResponse {
    messages: Vec<Message>,
    address_book: AddressBook,
    metadata: BTreeMap<String, ()>,
}

/// An address filter that may ask for "no address" (`null`: external messages).
#[derive(Clone, Copy, PartialEq, Eq)]
enum AddrFilter {
    Any,
    Null,
    Is(Address),
}

fn addr_filter(p: &Params, name: &str) -> Result<AddrFilter, V3Error> {
    match p.get(name) {
        None => Ok(AddrFilter::Any),
        Some("null") => Ok(AddrFilter::Null),
        Some(_) => Ok(p
            .address(name)?
            .map_or(AddrFilter::Any, |a| AddrFilter::Is(a.address))),
    }
}

fn addr_matches(f: AddrFilter, a: Option<Address>) -> bool {
    match f {
        AddrFilter::Any => true,
        AddrFilter::Null => a.is_none(),
        AddrFilter::Is(x) => a == Some(x),
    }
}

/// Messages of one account from an `account | lt | hash` index, within an lt range.
fn from_account_index<T>(
    ctx: &Ctx<'_>,
    account: &Address,
    lo: u64,
    hi: u64,
) -> Result<Vec<Hash>, V3Error>
where
    T: tonindex_storage::tables::Table<Key = AccountLtHashKey, Value = ()>,
{
    let key = |lt| {
        AccountLtHashKey {
            account: *account,
            lt,
            hash: [0; 32],
        }
        .encode()
    };
    let upper = match hi.checked_add(1) {
        Some(lt) => Some(key(lt)),
        None => tonindex_storage::prefix_successor(&AccountLtHashKey::prefix(account)),
    };
    Ok(ctx
        .reader
        .range::<T>(&key(lo), upper, false)
        .map(|x| x.map(|(k, ())| k.hash))
        .collect::<Result<_, _>>()?)
}

/// The hash of the first transaction on one side of a message.
fn linked_tx_hash<T>(ctx: &Ctx<'_>, msg: &Hash) -> Result<Option<Hash>, V3Error>
where
    T: tonindex_storage::tables::Table<Key = HashTxKey, Value = ()>,
{
    match ctx
        .reader
        .prefix::<T>(&HashTxKey::prefix(msg), false)
        .next()
        .transpose()?
    {
        Some((k, ())) => Ok(Some(chain::tx_record(&ctx.reader, k.tx_id)?.hash)),
        None => Ok(None),
    }
}

pub fn messages(ctx: &Ctx<'_>, p: &Params) -> V3Result {
    let paging = Paging::from_params(ctx, p)?;
    let mut hashes = p.parsed_all("msg_hash", "a hash", parse_hash)?;
    hashes.extend(p.parsed_all("hash", "a hash", parse_hash)?);
    let body_hash = p.hash("body_hash")?;
    let source = addr_filter(p, "source")?;
    let destination = addr_filter(p, "destination")?;
    let opcode = p.parsed("opcode", "an opcode", parse_opcode)?;
    let direction = parse_direction(p)?;
    let start_utime = p.parsed("start_utime", "a unix time", parse_utime)?;
    let end_utime = p.parsed("end_utime", "a unix time", parse_utime)?;
    let start_lt: Option<u64> = p.int("start_lt")?;
    let end_lt: Option<u64> = p.int("end_lt")?;
    let exclude_externals = p.bool("exclude_externals")?.unwrap_or(false);
    let only_externals = p.bool("only_externals")?.unwrap_or(false);
    let by_utime = start_utime.is_some() || end_utime.is_some();
    let (lo, hi) = (start_lt.unwrap_or(0), end_lt.unwrap_or(u64::MAX));

    let r = &ctx.reader;
    // Candidates from the narrowest index; every filter is applied after.
    let candidates: Vec<MessageRecord> = if !hashes.is_empty() {
        chain::messages(r, &chain::msg_hashes_or_norm(r, &hashes)?)?
    } else if let AddrFilter::Is(a) = source {
        chain::messages(r, &from_account_index::<MsgBySource>(ctx, &a, lo, hi)?)?
    } else if let AddrFilter::Is(a) = destination {
        chain::messages(
            r,
            &from_account_index::<MsgByDestination>(ctx, &a, 0, u64::MAX)?,
        )?
    } else if let Some(h) = &body_hash {
        chain::messages(r, &chain::msg_hashes_by_body(r, h)?)?
    } else if let Some(op) = opcode {
        chain::messages(r, &chain::msg_hashes_by_opcode(r, op, lo, hi)?)?
    } else {
        r.prefix::<Messages>(&[], false)
            .map(|x| x.map(|(_, m)| m))
            .collect::<Result<_, _>>()?
    };
    let order_key = |m: &MessageRecord| {
        if by_utime {
            m.created_at.map(u64::from)
        } else {
            m.created_lt
        }
    };
    let mut kept = Vec::new();
    for m in candidates {
        let ok = body_hash.is_none_or(|h| h == m.body_hash)
            && addr_matches(source, m.source)
            && addr_matches(destination, m.destination)
            && opcode.is_none_or(|o| Some(o) == m.opcode)
            && start_utime.is_none_or(|u| m.created_at.is_some_and(|t| u64::from(t) >= u))
            && end_utime.is_none_or(|u| m.created_at.is_some_and(|t| u64::from(t) <= u))
            && start_lt.is_none_or(|lt| m.created_lt.is_some_and(|x| x >= lt))
            && end_lt.is_none_or(|lt| m.created_lt.is_some_and(|x| x <= lt))
            && !(exclude_externals && order_key(&m).is_none())
            && !(only_externals && order_key(&m).is_some());
        if !ok {
            continue;
        }
        if let Some(incoming) = direction {
            let side = if incoming {
                linked_tx_hash::<TxByInMsg>(ctx, &m.hash)?
            } else {
                linked_tx_hash::<TxByOutMsg>(ctx, &m.hash)?
            };
            if side.is_none() {
                continue;
            }
        }
        kept.push(m);
    }
    // `<key> <s>, msg_hash <s>`; a null key sorts as Postgres does: last
    // ascending, first descending.
    kept.sort_by(|a, b| {
        let o = match (order_key(a), order_key(b)) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(x), Some(y)) => x.cmp(&y),
        }
        .then_with(|| a.hash.cmp(&b.hash));
        if paging.desc {
            o.reverse()
        } else {
            o
        }
    });
    let page = paging.page(kept);
    let mut out = Vec::with_capacity(page.len());
    for m in &page {
        let mut json = Message::from(m);
        json.in_msg_tx_hash = linked_tx_hash::<TxByInMsg>(ctx, &m.hash)?.map(B64);
        json.out_msg_tx_hash = linked_tx_hash::<TxByOutMsg>(ctx, &m.hash)?.map(B64);
        out.push(json);
    }
    let addresses: Vec<Address> = page
        .iter()
        .flat_map(|m| m.source.into_iter().chain(m.destination))
        .collect();
    let address_book = address_book::build(ctx, p, addresses)?;
    to_json(&MessagesResponse {
        messages: out,
        address_book,
        metadata: BTreeMap::new(),
    })
}
