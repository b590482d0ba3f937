//! Where blocks come from: files today; devnet and liteservers later.

pub mod devnet;
pub mod files;
pub mod link;
