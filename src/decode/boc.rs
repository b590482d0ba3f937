//! BoC encoding for the many small trees a block decode writes out: one
//! per transaction (message bodies and StateInits are read back from
//! those, not stored again).
//!
//! `Boc::encode` builds a new hash map with a randomly seeded hasher for
//! every tree. Here each thread keeps one map and reuses it, keyed with
//! the first bytes of the cells' representation hashes, which are uniformly
//! random already. The bytes are exactly those of `Boc::encode`.

use std::cell::RefCell;
use std::hash::{BuildHasherDefault, Hasher};

use tycho_types::boc::ser::{BocHeader, BocHeaderCache};
use tycho_types::cell::DynCell;

/// Hashes a representation hash by taking its first 8 bytes: they are
/// SHA-256 output already. (The slice length a key's `Hash` writes first
/// is ignored.)
#[derive(Default)]
struct ReprHashHasher(u64);

impl Hasher for ReprHashHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(word) = bytes.first_chunk::<8>() {
            self.0 = u64::from_le_bytes(*word);
        }
    }

    fn write_usize(&mut self, _len: usize) {}
}

/// Cells a kept map may have room for; typical trees have a few dozen.
const KEPT_CAPACITY: usize = 256;

type Cache = BocHeaderCache<BuildHasherDefault<ReprHashHasher>>;

thread_local! {
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// The BoC of the tree under `root`, byte for byte what `Boc::encode` gives.
pub fn encode(root: &DynCell) -> Vec<u8> {
    CACHE.with(|slot| {
        let cache = slot
            .borrow_mut()
            .take()
            .unwrap_or_else(|| Cache::with_capacity(64));
        let header = BocHeader::with_root_and_cache(root, cache);
        let mut out = Vec::new();
        header.encode(&mut out);
        // Emptying a map costs its capacity: keep only small ones (a big
        // tree, a config say, is rare).
        let cache = header.into_cache();
        if cache.rev_indices_capacity() <= KEPT_CAPACITY {
            *slot.borrow_mut() = Some(cache);
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use tycho_types::boc::Boc;
    use tycho_types::cell::CellBuilder;

    #[test]
    fn same_bytes_as_tycho_for_shared_and_deep_trees() {
        let leaf = CellBuilder::build_from(0xdead_beef_u32).unwrap();
        let mut b = CellBuilder::new();
        b.store_reference(leaf.clone()).unwrap();
        b.store_reference(leaf.clone()).unwrap();
        let mut tree = b.build().unwrap();
        for i in 0..300u32 {
            let mut b = CellBuilder::new();
            b.store_u32(i).unwrap();
            b.store_reference(tree).unwrap();
            if i % 7 == 0 {
                b.store_reference(leaf.clone()).unwrap();
            }
            tree = b.build().unwrap();
        }
        for cell in [&leaf, &tree, &leaf] {
            assert_eq!(super::encode(cell.as_ref()), Boc::encode(cell));
        }
    }
}
