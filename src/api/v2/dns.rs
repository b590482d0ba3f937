//! v2 `dnsResolve` (spec v2 §4.2, the C++ server's extra): a TEP-81 name
//! resolved the way tonlib resolves it — `dnsresolve` run on the held
//! state of the given resolver (at `seqno` or the newest block), and,
//! while `ttl` allows and the answer is a next resolver for a prefix, on
//! that resolver for the rest of the name.

use serde::Serialize;
use serde_json::{json, Value as Json};
use tonindex_model::Address;
use tycho_types::cell::{Cell, HashBytes};

use super::accounts::{locate, locate_at, Located};
use super::{AccountAtArgs, V2Error};
use crate::api::encoding::{adnl_text, b64, friendly_bounceable};
use crate::api::getmethod;
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::contracts::dns::{self, DnsRecord, Resolved};
use crate::tvm::getmethod::Method;

/// Why a resolver's answer cannot be used: the contract is not a resolver
/// as TEP-81 has it, or answered against it.
fn not_a_resolver(address: &str, why: impl std::fmt::Display) -> V2Error {
    V2Error::new(
        409,
        format!("Smart contract {address} cannot resolve the name: {why}"),
    )
}

/// One record in tonlib's `dns.entry` form. A record whose tag block.tlb
/// does not define, or whose bits do not fit it, is `dns.entryDataUnknown`
/// with the record's BoC, rather than failing the whole answer.
fn entry(name: &[u8], category: &HashBytes, record: &Cell) -> DnsEntry {
    let account =
        |a: &Address| json!({"@type": "accountAddress", "account_address": friendly_bounceable(a)});
    let parsed = record
        .as_slice()
        .ok()
        .and_then(|mut s| DnsRecord::load(&mut s));
    let data = match parsed {
        Some(DnsRecord::NextResolver(Some(a))) => {
            json!({"@type": "dns.entryDataNextResolver", "resolver": account(&a)})
        }
        Some(DnsRecord::Smc {
            address: Some(a), ..
        }) => json!({"@type": "dns.entryDataSmcAddress", "smc_address": account(&a)}),
        Some(DnsRecord::Adnl { address, .. }) => json!({
            "@type": "dns.entryDataAdnlAddress",
            "adnl_address": {"@type": "adnlAddress", "adnl_address": adnl_text(&address)},
        }),
        Some(DnsRecord::Storage(bag)) => {
            json!({"@type": "dns.entryDataStorageAddress", "bag_id": hex::encode(bag)})
        }
        Some(DnsRecord::Text(text)) => json!({"@type": "dns.entryDataText", "text": text}),
        _ => json!({
            "@type": "dns.entryDataUnknown",
            "bytes": b64(&crate::boc::encode_crc(record.as_ref())),
        }),
    };
    DnsEntry {
        ty: "dns.entry",
        name: String::from_utf8_lossy(name).into_owned(),
        category: b64(category.as_array()),
        entry: data,
    }
}

/// tonlib's `dns.entry`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DnsEntry {
    #[serde(rename = "@type")]
    ty: &'static str,
    name: String,
    /// The category's hash, base64
    category: String,
    /// `dns.entryDataNextResolver`, `dns.entryDataSmcAddress`,
    /// `dns.entryDataAdnlAddress`, `dns.entryDataStorageAddress`,
    /// `dns.entryDataText` or `dns.entryDataUnknown`
    entry: Json,
}

/// tonlib's `dns.resolved`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DnsResolved {
    #[serde(rename = "@type")]
    ty: &'static str,
    entries: Vec<DnsEntry>,
}

request! {
    /// A name and the resolver to start from.
    pub struct DnsResolveRequest {
        /// The name (`example.ton`; taken as absolute)
        name: Option<String>,
        /// Accepted and not used: every category is asked for (as the C++ server)
        category: Option<String>,
        /// How many next resolvers to follow (default 0)
        ttl: Option<i64>,
    }
    with { at: AccountAtArgs }
}

pub fn dns_resolve(
    ctx: &Ctx<'_>,
    _: &Params,
    q: DnsResolveRequest,
) -> Result<DnsResolved, V2Error> {
    let ttl = match q.ttl {
        None => 0,
        Some(t) if t < 0 => return Err(V2Error::invalid("ttl should be non-negative")),
        Some(t) => i32::try_from(t).map_err(|_| V2Error::invalid("ttl is too large"))?,
    };
    // As the C++ server does: every category is asked for (`category` is
    // accepted and not used), and a name is taken as absolute.
    let category = HashBytes::ZERO;
    let mut name = q.name.as_deref().unwrap_or_default().as_bytes().to_vec();
    if name.last() != Some(&b'.') {
        name.push(b'.');
    }
    let mut resolver: Located = locate(ctx, &q.at)?;
    let mut ttl = ttl;
    loop {
        let shown = friendly_bounceable(&resolver.account.address);
        let encoded = dns::encode_name(&name);
        if encoded.len() > dns::MAX_ENCODED_NAME {
            return Err(V2Error::invalid("DNS encoded name is too long"));
        }
        let args = dns::resolve_args(&encoded, &category)
            .ok_or_else(|| V2Error::new(500, "internal error: dnsresolve arguments"))?;
        let out = getmethod::run(
            ctx,
            &resolver.account,
            resolver.at,
            &Method::Name("dnsresolve".into()),
            args,
        )?;
        if out.exit_code == getmethod::NO_CODE_EXIT_CODE {
            return Err(not_a_resolver(&shown, "the account has no code"));
        }
        let records = match dns::resolved(&out, encoded.len(), &category)
            .map_err(|why| not_a_resolver(&shown, why))?
        {
            Resolved::Nothing => Vec::new(),
            Resolved::Partly { bytes, record } => {
                let got = dns::decode_name(&encoded[..bytes]);
                if ttl <= 0 {
                    return Ok(DnsResolved {
                        ty: "dns.resolved",
                        entries: vec![entry(&got, &dns::next_resolver_category(), &record)],
                    });
                }
                // The rest of the name goes to the next resolver, which the
                // resolved part must end at a label boundary of.
                let Some(split) = name.len().checked_sub(got.len()) else {
                    return Err(not_a_resolver(
                        &shown,
                        "the resolved part is longer than the name",
                    ));
                };
                if name[split..] != got[..] {
                    return Err(not_a_resolver(
                        &shown,
                        "the resolved part is not a suffix of the name",
                    ));
                }
                let prefix = &name[..split];
                if !prefix.is_empty() && !prefix.ends_with(b".") && !got.starts_with(b".") {
                    return Err(not_a_resolver(&shown, "the name is split inside a label"));
                }
                let next = record
                    .as_slice()
                    .ok()
                    .and_then(|mut s| DnsRecord::load(&mut s));
                let Some(DnsRecord::NextResolver(Some(next))) = next else {
                    return Err(not_a_resolver(
                        &shown,
                        "the record for the prefix is not a next resolver",
                    ));
                };
                resolver = locate_at(ctx, next, resolver.at.map(|a| a.mc_seqno))?;
                name = prefix.to_vec();
                ttl -= 1;
                continue;
            }
            Resolved::Fully(records) => records,
        };
        let entries = records
            .iter()
            .map(|(category, record)| entry(&name, category, record))
            .collect();
        return Ok(DnsResolved {
            ty: "dns.resolved",
            entries,
        });
    }
}
