//! The `address_book` wrapper and `GET /addressBook` (spec v3 §1.8, §3.1).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use tonindex_model::Address;
use tycho_types::cell::HashBytes;

use super::{BookArgs, V3Error};
use crate::api::encoding::{friendly, parse_address, raw_upper, FriendlyFlags};
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;
use crate::query::{self, accounts::CodeSeen};
use crate::state::wallet;

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AddressBookRow {
    pub user_friendly: Option<String>,
    pub domain: Option<String>,
    pub interfaces: Vec<String>,
}

pub type AddressBook = BTreeMap<String, AddressBookRow>;

/// How an [`AddressBook`] appears in the documents (by that name): rows by
/// raw address.
#[derive(utoipa::ToSchema)]
#[schema(as = AddressBook)]
pub struct AddressBookDoc(#[allow(dead_code)] BTreeMap<String, AddressBookRow>);

/// The user-friendly form toncenter shows for an address: bounceable
/// unless the account has no code or is one of the standard wallets. With
/// no state held for the account, the code is the one the state update of
/// its newest transaction's block showed, else "has code" falls back to
/// "last seen active" from its transactions.
fn row(ctx: &Ctx<'_>, a: &Address) -> Result<AddressBookRow, V3Error> {
    let seen = query::accounts::code_seen(&ctx.reader, a)?;
    let mut row = row_from(ctx, a, seen, &mut HashMap::new())?;
    row.domain = query::dns::domain_of(&ctx.reader, a)?;
    Ok(row)
}

/// A row from what the index knows of the account's code, its domain left
/// to the caller; `facts` keeps the interfaces of codes already read (many
/// accounts share a code).
fn row_from(
    ctx: &Ctx<'_>,
    a: &Address,
    seen: CodeSeen,
    facts: &mut HashMap<[u8; 32], Vec<&'static str>>,
) -> Result<AddressBookRow, V3Error> {
    let bounceable = match seen {
        CodeSeen::State(code) => {
            code.is_some_and(|h| wallet::detect(&HashBytes(h), None).is_none())
        }
        CodeSeen::Transactions { active } => active,
        CodeSeen::Unknown => false,
    };
    let interfaces = match seen {
        CodeSeen::State(Some(code)) => match facts.get(&code) {
            Some(known) => known.clone(),
            None => {
                let read = query::accounts::code_facts(&ctx.reader, &code)?.interfaces;
                facts.insert(code, read.clone());
                read
            }
        },
        _ => Vec::new(),
    };
    Ok(shaped(ctx, a, bounceable, &interfaces))
}

/// A row from what is known of the account.
fn shaped(ctx: &Ctx<'_>, a: &Address, bounceable: bool, interfaces: &[&str]) -> AddressBookRow {
    AddressBookRow {
        user_friendly: Some(friendly(
            a,
            FriendlyFlags {
                bounceable,
                testnet: ctx.cfg.testnet,
                url_safe: true,
            },
        )),
        domain: None,
        interfaces: interfaces.iter().map(|i| i.to_string()).collect(),
    }
}

/// The address book of accounts whose states the answer read (from the
/// index or a lite server): each row from the state at hand.
pub fn build_from_views(
    ctx: &Ctx<'_>,
    book_args: &BookArgs,
    views: &[crate::state::account::AccountView],
) -> Result<AddressBook, V3Error> {
    let mut book = AddressBook::new();
    if book_args.x_no_address_book.unwrap_or(false) {
        return Ok(book);
    }
    for v in views {
        let bounceable = v
            .code_hash()
            .is_some_and(|h| wallet::detect(&h, None).is_none());
        let interfaces = match &v.code {
            Some(code) => query::accounts::code_facts_of(&ctx.reader, code)?.interfaces,
            None => Vec::new(),
        };
        let mut row = shaped(ctx, &v.address, bounceable, &interfaces);
        row.domain = query::dns::domain_of(&ctx.reader, &v.address)?;
        book.insert(raw_upper(&v.address), row);
    }
    Ok(book)
}

/// The address book of a response, keyed by raw address; empty when the
/// client asked for none (`X-No-Address-Book`).
pub fn build(
    ctx: &Ctx<'_>,
    book_args: &BookArgs,
    addresses: impl IntoIterator<Item = Address>,
) -> Result<AddressBook, V3Error> {
    let mut book = AddressBook::new();
    if book_args.x_no_address_book.unwrap_or(false) {
        return Ok(book);
    }
    // Each account once, its code known from one batched read.
    let mut seen = HashSet::new();
    let distinct: Vec<Address> = addresses.into_iter().filter(|a| seen.insert(*a)).collect();
    let codes = query::accounts::codes_seen(&ctx.reader, &distinct)?;
    let domains = query::dns::domains_of(&ctx.reader, &distinct)?;
    // Each code's interfaces, the codes read together.
    let mut code_hashes: Vec<[u8; 32]> = codes
        .iter()
        .filter_map(|c| match c {
            CodeSeen::State(Some(h)) => Some(*h),
            _ => None,
        })
        .collect();
    code_hashes.sort_unstable();
    code_hashes.dedup();
    let read = query::accounts::code_facts_many(&ctx.reader, &code_hashes)?;
    let mut facts: HashMap<[u8; 32], Vec<&'static str>> = code_hashes
        .into_iter()
        .zip(read)
        .map(|(h, f)| (h, f.interfaces))
        .collect();
    for ((a, code), domain) in distinct.iter().zip(codes).zip(domains) {
        let mut row = row_from(ctx, a, code, &mut facts)?;
        row.domain = domain;
        book.insert(raw_upper(a), row);
    }
    Ok(book)
}

request! {
    /// Addresses as sent, each kept as its key (`/addressBook`, `/metadata`).
    pub struct AddressesRequest {
        /// Addresses (an unreadable one gets an empty entry)
        [required] address: Vec<String>,
    }
}

/// `GET /addressBook?address=…` — keyed by the strings exactly as sent.
pub fn address_book(
    ctx: &Ctx<'_>,
    _: &Params,
    q: AddressesRequest,
) -> Result<AddressBook, V3Error> {
    if q.address.is_empty() {
        return Err(V3Error::invalid("at least 1 address required"));
    }
    let mut book = AddressBook::new();
    for s in &q.address {
        let r = match parse_address(s) {
            Some(parsed) => row(ctx, &parsed.address)?,
            None => AddressBookRow {
                user_friendly: None,
                domain: None,
                interfaces: Vec::new(),
            },
        };
        book.insert(s.to_string(), r);
    }
    Ok(book)
}
