//! What the index knows about a contract from its code (and, later, its
//! data): the get-methods its code declares and the standard interfaces
//! they make it (spec v3 §1.8, §6.7). Pure functions over cells; the index
//! step caches their results per code hash, the API reads the cache.

pub mod address;
pub mod content;
pub mod dns;
pub mod interfaces;
pub mod jetton;
pub mod methods;
pub mod multisig;
pub mod nft;
pub mod nft_sale;
