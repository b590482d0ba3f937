//! Where blocks come from: block files, the devnet this process runs, and
//! the liteservers of a network.

pub mod devnet;
pub mod files;
pub mod link;
pub mod liteserver;
