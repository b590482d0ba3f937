//! `GET /dns/records` (spec v3 §3.8): DNS items of the `.ton` and `.t.me`
//! collections by domain or by the wallet their records name.

use serde::Serialize;
use tonindex_model::Address;

use super::address_book::{self, AddressBook};
use super::{BookArgs, Paging, PagingArgs, V3Error};
use crate::api::encoding::{b64, raw_upper, ParsedAddress};
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::query;

#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = DnsRecord)]
pub struct Record {
    nft_item_address: String,
    nft_item_owner: Option<String>,
    domain: String,
    dns_next_resolver: Option<String>,
    dns_wallet: Option<String>,
    dns_site_adnl: Option<String>,
    dns_storage_bag_id: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct DnsRecords {
    records: Vec<Record>,
    #[schema(value_type = crate::api::v3::address_book::AddressBookDoc)]
    address_book: AddressBook,
}

request! {
    /// A wallet or a domain.
    pub struct DnsRecordsRequest {
        /// The wallet the records name
        wallet: Option<ParsedAddress>,
        /// The domain (`name.ton`, `name.t.me`)
        domain: Option<String>,
    }
    with { paging: PagingArgs, book: BookArgs }
}

/// `GET /dns/records?wallet=…` or `?domain=…`.
pub fn dns_records(ctx: &Ctx<'_>, _: &Params, q: DnsRecordsRequest) -> Result<DnsRecords, V3Error> {
    let paging = Paging::from_args(ctx, &q.paging)?;
    let wallet = q.wallet;
    let domain = q.domain.as_deref().filter(|d| !d.is_empty());
    let entries = match (wallet, domain) {
        (None, None) => {
            return Err(V3Error::invalid(
                "either wallet address or domain is required",
            ))
        }
        (Some(_), Some(_)) => {
            return Err(V3Error::invalid(
                "provide either wallet address or domain, not both",
            ))
        }
        (Some(w), None) => query::dns::by_wallet(&ctx.reader, &w.address)?,
        (None, Some(d)) => query::dns::by_domain(&ctx.reader, d)?,
    };
    let page: Vec<_> = entries
        .into_iter()
        .skip(paging.offset)
        .take(paging.limit)
        .collect();
    let mentioned: Vec<Address> = page
        .iter()
        .flat_map(|e| {
            std::iter::once(e.item)
                .chain(e.owner)
                .chain(e.record.next_resolver)
                .chain(e.record.wallet)
        })
        .collect();
    let records = page
        .into_iter()
        .map(|e| Record {
            nft_item_address: raw_upper(&e.item),
            nft_item_owner: e.owner.as_ref().map(raw_upper),
            domain: e.record.domain,
            dns_next_resolver: e.record.next_resolver.as_ref().map(raw_upper),
            dns_wallet: e.record.wallet.as_ref().map(raw_upper),
            dns_site_adnl: e.record.site_adnl.map(|h| b64(&h)),
            dns_storage_bag_id: e.record.storage_bag_id.map(|h| b64(&h)),
        })
        .collect();
    Ok(DnsRecords {
        records,
        address_book: address_book::build(ctx, &q.book, mentioned)?,
    })
}
