//! The config in force: the config dictionary of the newest indexed key
//! block at or below a masterchain block.

use tonindex_storage::tables::KeyBlockConfig;
use tonindex_storage::{Error, Key, Reader};

/// The config dictionary BoC of the newest key block at or below `mc_seqno`
/// (any when `None`), with that block's seqno.
pub fn config_at(r: &Reader<'_>, mc_seqno: Option<u32>) -> Result<Option<(u32, Vec<u8>)>, Error> {
    let upper = mc_seqno.and_then(|s| s.checked_add(1)).map(|s| s.encode());
    let newest = r
        .range::<KeyBlockConfig>(&[], upper, true)
        .next()
        .transpose()?;
    Ok(newest.map(|(seqno, boc)| (seqno, boc.0)))
}
