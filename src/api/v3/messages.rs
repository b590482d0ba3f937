//! `/messages` (spec v3 §2.9).

use std::cmp::Ordering;

use serde::Serialize;
use tonindex_model::{Address, Hash, MessageRecord};

use super::address_book::{self, AddressBook};
use super::metadata::{self, Metadata};
use super::models::Message;
use super::{parse_direction, BookMetadataArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{parse_address, B64};
use crate::api::params::Params;
use crate::api::request::{request, DirectionWords, OpcodeArg, ParamValue, Utime, Word};
use crate::api::Ctx;
use crate::query::{
    self,
    messages::{MessageGroup, MessageOrder, MsgIndex, Side, Stored},
};

#[derive(Serialize, utoipa::ToSchema)]
pub struct MessagesResponse {
    messages: Vec<Message>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
    #[schema(value_type = crate::api::v3::metadata::MetadataDoc)]
    metadata: Metadata,
}

/// An address filter that may ask for "no address" (`null`: external messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrFilter {
    Any,
    Null,
    Is(Address),
}

impl ParamValue for AddrFilter {
    const EXPECTED: &'static str = "an address";
    fn parse(text: &str) -> Option<Self> {
        if text == "null" {
            return Some(AddrFilter::Null);
        }
        parse_address(text).map(|a| AddrFilter::Is(a.address))
    }
    fn schema(_: bool) -> serde_json::Value {
        serde_json::json!({
            "type": "string",
            "description": "an address, or `null` for no address",
        })
    }
}

request! {
    /// `/messages`' filters.
    pub struct MessagesRequest {
        /// Message hashes (or normalized hashes)
        msg_hash: Vec<[u8; 32]>,
        /// Same as msg_hash
        hash: Vec<[u8; 32]>,
        /// Body hash
        body_hash: Option<[u8; 32]>,
        /// Source address, or `null` for external-in
        source: Option<AddrFilter>,
        /// Destination address, or `null` for external-out
        destination: Option<AddrFilter>,
        /// Body opcode
        opcode: Option<OpcodeArg>,
        /// in: received by a transaction; out: sent by one
        direction: Option<Word<DirectionWords>>,
        /// Leave out external messages
        exclude_externals: Option<bool>,
        /// Only external messages
        only_externals: Option<bool>,
        /// Not before this unix time
        start_utime: Option<Utime>,
        /// Not after this unix time
        end_utime: Option<Utime>,
        /// Not below this logical time
        start_lt: Option<u64>,
        /// Not above this logical time
        end_lt: Option<u64>,
    }
    with { paging: PagingArgs, shape: BookMetadataArgs }
}

fn addr_matches(f: AddrFilter, a: Option<Address>) -> bool {
    match f {
        AddrFilter::Any => true,
        AddrFilter::Null => a.is_none(),
        AddrFilter::Is(x) => a == Some(x),
    }
}

/// The filters of one `/messages` request that every candidate must pass.
struct MessageFilter {
    body_hash: Option<Hash>,
    source: AddrFilter,
    destination: AddrFilter,
    opcode: Option<u32>,
    /// `Some(true)`: only messages a transaction received; `Some(false)`: sent.
    direction: Option<bool>,
    utime: (Option<u64>, Option<u64>),
    lt: (Option<u64>, Option<u64>),
    exclude_externals: bool,
    only_externals: bool,
    /// Order by `created_at` (a time bound was given) rather than `created_lt`.
    by_utime: bool,
}

impl MessageFilter {
    /// The value the response is ordered by; `None` (external-in messages
    /// by lt, external-out ones by time too) sorts as Postgres' null.
    fn order_key(&self, m: &MessageRecord) -> Option<u64> {
        if self.by_utime {
            m.created_at.map(u64::from)
        } else {
            m.created_lt
        }
    }

    /// Whether walking the index of `group` (every message when `None`)
    /// in this filter's order, over its window, yields exactly the messages
    /// [`Self::keeps`] keeps: then an offset skips keys without reading
    /// the messages.
    fn decided_by_index(&self, group: Option<&MessageGroup>) -> bool {
        let narrowing = usize::from(matches!(self.destination, AddrFilter::Is(_)))
            + usize::from(self.body_hash.is_some())
            + usize::from(self.opcode.is_some());
        self.source == AddrFilter::Any
            && self.destination != AddrFilter::Null
            && self.direction.is_none()
            && narrowing == usize::from(group.is_some())
            && !(self.by_utime && (self.lt.0.is_some() || self.lt.1.is_some()))
    }

    fn keeps(&self, stored: &Stored) -> bool {
        let m = stored.record();
        let within = |v: Option<u64>, (lo, hi): (Option<u64>, Option<u64>)| {
            lo.is_none_or(|lo| v.is_some_and(|v| v >= lo))
                && hi.is_none_or(|hi| v.is_some_and(|v| v <= hi))
        };
        let ok = self.body_hash.is_none_or(|h| h == m.body_hash)
            && addr_matches(self.source, m.source)
            && addr_matches(self.destination, m.destination)
            && self.opcode.is_none_or(|o| Some(o) == m.opcode)
            && within(m.created_at.map(u64::from), self.utime)
            && within(m.created_lt, self.lt)
            && !(self.exclude_externals && self.order_key(m).is_none())
            && !(self.only_externals && self.order_key(m).is_some());
        ok && match self.direction {
            None => true,
            Some(true) => stored.first_tx(Side::Receiver).is_some(),
            Some(false) => stored.first_tx(Side::Sender).is_some(),
        }
    }
}

/// Messages read in response order from the `created_lt` or `created_at`
/// index of every message or of one `group` (a destination, body hash or
/// opcode): stops once the page is full instead of reading every
/// candidate.
fn in_index_order(
    ctx: &Ctx<'_>,
    filter: &MessageFilter,
    group: Option<&MessageGroup>,
    paging: &Paging,
) -> Result<Vec<Stored>, V3Error> {
    let (lo, hi) = if filter.by_utime {
        filter.utime
    } else {
        filter.lt
    };
    let bounded = lo.is_some() || hi.is_some();
    let (lo, hi) = (lo.unwrap_or(0), hi.unwrap_or(u64::MAX));
    if lo > hi {
        return Ok(Vec::new());
    }
    let (mut skip, want) = (paging.offset, paging.limit);
    let mut page = Vec::with_capacity(want.min(256));
    /// Messages read per step.
    const CHUNK: usize = 64;
    let order = if filter.by_utime {
        MessageOrder::CreatedAt
    } else {
        MessageOrder::CreatedLt
    };
    // Messages without the value (external ones) are ruled out by a bound
    // or by `exclude_externals`.
    let mut keys = query::messages::rows_in_order(
        &ctx.reader,
        order,
        group,
        (lo, hi),
        !filter.only_externals,
        !filter.exclude_externals && !bounded,
        paging.desc,
    );
    if filter.decided_by_index(group) {
        // Every key is a match: the offset skips keys, never messages.
        for _ in 0..std::mem::take(&mut skip) {
            if keys.next().transpose()?.is_none() {
                return Ok(Vec::new());
            }
        }
    }
    let index = MsgIndex::Ordered { order, group };
    loop {
        let rows = keys.by_ref().take(CHUNK).collect::<Result<Vec<_>, _>>()?;
        if rows.is_empty() {
            break;
        }
        for m in query::messages::load_indexed(&ctx.reader, &index, &rows, paging.desc)? {
            if !filter.keeps(&m) {
                continue;
            }
            if skip > 0 {
                skip -= 1;
                continue;
            }
            page.push(m);
            if page.len() == want {
                return Ok(page);
            }
        }
    }
    Ok(page)
}

/// The messages `source` sent, in response order, read from its index
/// only as far as the page needs. Every message an account sends has a
/// `created_lt` and a `created_at` (no null to place), and its messages
/// are in time order as in lt order: a time window becomes an lt range of
/// them.
fn sent_by(
    ctx: &Ctx<'_>,
    source: &Address,
    filter: &MessageFilter,
    paging: &Paging,
) -> Result<Vec<Stored>, V3Error> {
    let r = &ctx.reader;
    let lts = (filter.lt.0.unwrap_or(0), filter.lt.1.unwrap_or(u64::MAX));
    let range = if filter.by_utime {
        query::messages::sent_lt_range_in_time(r, source, lts, filter.utime)?
    } else {
        Some(lts)
    };
    let Some(range) = range else {
        return Ok(Vec::new());
    };
    let needed = paging.needed();
    let mut keys = query::messages::sent_rows(r, source, range, paging.desc);
    let mut kept: Vec<Stored> = Vec::new();
    /// Messages read per step.
    const CHUNK: usize = 64;
    'walk: loop {
        let rows = keys.by_ref().take(CHUNK).collect::<Result<Vec<_>, _>>()?;
        if rows.is_empty() {
            break;
        }
        for m in query::messages::load_indexed(r, &MsgIndex::Sent(source), &rows, paging.desc)? {
            // By time, ties go by hash, not lt: take the last kept
            // second's messages whole before stopping.
            let created_at = m.record().created_at;
            let tie = |x: &Stored| filter.by_utime && x.record().created_at == created_at;
            if kept.len() >= needed && !kept.last().is_some_and(tie) {
                break 'walk;
            }
            if filter.keeps(&m) {
                kept.push(m);
            }
        }
    }
    if filter.by_utime {
        kept.sort_by_key(|m| (m.record().created_at, m.record().hash));
        if paging.desc {
            kept.reverse();
        }
    }
    Ok(paging.page(kept))
}

/// The page of `candidates` that pass the filter, in `/messages` order:
/// `<key> <s>, msg_hash <s>`, a null key last ascending and first
/// descending, as Postgres sorts.
fn sorted_page(filter: &MessageFilter, paging: &Paging, candidates: Vec<Stored>) -> Vec<Stored> {
    let mut kept: Vec<Stored> = candidates.into_iter().filter(|m| filter.keeps(m)).collect();
    kept.sort_by(|a, b| {
        let (a, b) = (a.record(), b.record());
        let o = match (filter.order_key(a), filter.order_key(b)) {
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
    paging.page(kept)
}

pub fn messages(
    ctx: &Ctx<'_>,
    _: &Params,
    q: MessagesRequest,
) -> Result<MessagesResponse, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let mut hashes = q.msg_hash;
    hashes.extend(q.hash);
    let start_utime = q.start_utime.map(|t| t.0);
    let end_utime = q.end_utime.map(|t| t.0);
    let filter = MessageFilter {
        body_hash: q.body_hash,
        source: q.source.unwrap_or(AddrFilter::Any),
        destination: q.destination.unwrap_or(AddrFilter::Any),
        opcode: q.opcode.map(|o| o.0),
        direction: parse_direction(&q.direction)?,
        utime: (start_utime, end_utime),
        lt: (q.start_lt, q.end_lt),
        exclude_externals: q.exclude_externals.unwrap_or(false),
        only_externals: q.only_externals.unwrap_or(false),
        by_utime: start_utime.is_some() || end_utime.is_some(),
    };

    let r = &ctx.reader;
    // The narrowest index; every filter is applied to what it yields.
    let group = match (filter.destination, &filter.body_hash, filter.opcode) {
        (AddrFilter::Is(a), _, _) => Some(MessageGroup::Destination(a)),
        (_, Some(h), _) => Some(MessageGroup::BodyHash(*h)),
        (_, None, Some(op)) => Some(MessageGroup::Opcode(op)),
        _ => None,
    };
    let page = if !hashes.is_empty() {
        let found =
            query::messages::stored_messages(r, &query::messages::msg_hashes_or_norm(r, &hashes)?)?;
        sorted_page(&filter, &paging, found)
    } else if let AddrFilter::Is(source) = filter.source {
        sent_by(ctx, &source, &filter, &paging)?
    } else {
        in_index_order(ctx, &filter, group.as_ref(), &paging)?
    };
    let addresses: Vec<Address> = page
        .iter()
        .flat_map(|m| m.record().source.into_iter().chain(m.record().destination))
        .collect();
    let mut out = Vec::with_capacity(page.len());
    for m in page {
        let (received, sent) = (m.first_tx(Side::Receiver), m.first_tx(Side::Sender));
        let (in_msg_tx_hash, out_msg_tx_hash) = (
            m.first_tx_hash(Side::Receiver).map(B64),
            m.first_tx_hash(Side::Sender).map(B64),
        );
        // Every indexed message was indexed from a transaction that holds it.
        let holder = sent.or(received).ok_or(tonindex_storage::Error::Corrupt(
            "a message no transaction links to",
        ))?;
        // A message belongs to the trace of the transaction that holds it.
        let trace_id = query::traces::traces_of_tx_ids(r, &[holder])?
            .first()
            .copied()
            .map(B64);
        out.push(Message {
            in_msg_tx_hash,
            out_msg_tx_hash,
            trace_id,
            ..Message::from(&m.message)
        });
    }
    let address_book = address_book::build(ctx, &q.shape.book, addresses.iter().copied())?;
    Ok(MessagesResponse {
        messages: out,
        address_book,
        metadata: metadata::build(ctx, &q.shape, addresses)?,
    })
}
