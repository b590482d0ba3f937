//! Where blocks come from: block files, archive packages, the devnet this
//! process runs, and the liteservers of a network.

pub mod devnet;
pub mod files;
pub mod link;
pub mod liteserver;
pub mod package;
