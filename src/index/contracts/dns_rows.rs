//! DNS entries in the contracts step (spec v3 §6.4): an NFT item its
//! `.ton` or `.t.me` collection confirmed gets its domain and records read
//! with its own get-methods, in the same batch as the item.

use sha2::Digest as _;

use tonindex_model::Address;
use tonindex_storage::tables::{DnsByDomain, DnsByWallet, DnsEntries, HashAccountKey};
use tonindex_storage::{Batch, Db, DnsRecord, NftItemRecord};

use super::{model_addr, repoint, run, Active, ContractsDone};
use crate::contracts::dns;
use crate::tvm::getmethod::Context;

fn domain_key(domain: &str) -> [u8; 32] {
    sha2::Sha256::digest(domain.as_bytes()).into()
}

/// Reads an item's domain and records; the item's content gets its
/// `domain`, as toncenter's items show it. An item whose domain does not
/// read is left without an entry.
pub(super) fn index_entry(
    db: &Db,
    batch: &mut Batch<'_>,
    ctx: &Context,
    address: &Address,
    acc: &Active,
    item: &mut NftItemRecord,
    done: &mut ContractsDone,
) -> Result<(), tonindex_storage::Error> {
    done.getmethod_runs += 1;
    let domain = match run(&acc.contract, ctx, "get_domain", vec![])
        .and_then(|o| dns::ton_domain(&o))
    {
        Some(d) => Some(d),
        None => {
            done.getmethod_runs += 1;
            run(&acc.contract, ctx, "get_full_domain", vec![]).and_then(|o| dns::full_domain(&o))
        }
    };
    let Some(domain) = domain else {
        return Ok(());
    };
    done.getmethod_runs += 1;
    let records = dns::resolve_all_args()
        .and_then(|args| run(&acc.contract, ctx, "dnsresolve", args))
        .and_then(|o| dns::records(&o))
        .unwrap_or_default();
    let record = DnsRecord {
        domain: domain.clone(),
        next_resolver: records.next_resolver.as_ref().map(model_addr),
        wallet: records.wallet.as_ref().map(model_addr),
        site_adnl: records.site_adnl.map(|h| h.0),
        storage_bag_id: records.storage_bag_id.map(|h| h.0),
    };
    let old = db.get::<DnsEntries>(address)?;
    if let Some(old) = &old {
        batch.delete::<DnsByDomain>(&HashAccountKey {
            hash: domain_key(&old.domain),
            account: *address,
        });
    }
    batch.put::<DnsByDomain>(
        &HashAccountKey {
            hash: domain_key(&record.domain),
            account: *address,
        },
        &(),
    );
    repoint::<DnsByWallet>(batch, old.and_then(|o| o.wallet), record.wallet, address);
    batch.put::<DnsEntries>(address, &record);
    let content = item.content.get_or_insert_with(Vec::new);
    content.retain(|(k, _)| k != "domain");
    content.push(("domain".into(), domain));
    content.sort();
    done.dns_entries += 1;
    Ok(())
}
