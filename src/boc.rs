//! BoCs written as the C++ node writes them (`vm::std_boc_serialize`): the
//! same cell order, no stored hashes, the smallest reference and offset
//! sizes, one root. Clients' parsers are written against those bytes:
//! tonweb, for one, cannot read a cell whose hashes are stored (tycho keeps
//! a descriptor's `store_hashes` flag from the BoC a cell came from) and
//! checks completion tags that C++ always writes. Every BoC that the APIs
//! hand out, and every one the decoder stores, comes from here; v2 and v3
//! send them with a CRC32C trailer, as tonlib's `to_bytes` does
//! (`Mode::WithCRC32C`).
//!
//! The order: cells are first numbered children-first (depth first, each
//! reference in turn, a cell met again keeps its number). Then, from the
//! root, a cell is "visited" by visiting its references last to first and
//! then numbering them last to first; a "special" cell's subtree is
//! pre-visited first, which reaches down to the next special cells and
//! visits those early. Cells are written from the last numbered (the root)
//! to the first, and a reference is written as that written position.
//!
//! "Special" is the C++ serializer's word for a cell whose weight is 0, not
//! an exotic cell: each cell weighs one plus its references' weights
//! (capped at 255), then, parents first, a cell's references share a
//! budget of 63 — a reference over its share is cut down to it — and,
//! children first, a cell heavier than its (cut) weight allows becomes
//! special. Only trees of more than about 64 cells have special cells, so
//! small BoCs never show the difference.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tycho_types::cell::{CellDescriptor, DynCell, HashBytes};

/// Hashes a representation hash by its first 8 bytes: SHA-256 output is
/// uniform already. (The length a slice key writes first is ignored.)
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

/// Pre-visited, in the C++ serializer's terms.
const PREVISITED: i32 = -2;
/// Visited: references visited and numbered.
const VISITED: i32 = -3;
/// Not reached yet.
const FRESH: i32 = -1;

/// One distinct cell of the tree being written.
struct Node<'a> {
    cell: &'a DynCell,
    refs: [u32; 4],
    ref_count: u8,
    /// The C++ serializer's weight; 0 marks a special cell.
    wt: u8,
    /// `FRESH`, `PREVISITED`, `VISITED`, or the final number (>= 0).
    new_idx: i32,
}

/// Scratch space kept per thread: typical trees are a few dozen cells.
#[derive(Default)]
struct Scratch {
    index: HashMap<HashBytes, u32, BuildHasherDefault<ReprHashHasher>>,
    order: Vec<u32>,
}

/// Scratch kept only while it is small: emptying a map costs its capacity.
const KEPT_CAPACITY: usize = 512;

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

/// The BoC of the tree under `root`, as `std_boc_serialize(root, 0)`.
pub fn encode<T: AsRef<DynCell> + ?Sized>(root: &T) -> Vec<u8> {
    write(root.as_ref(), false)
}

/// The BoC of the tree under `root` with a CRC32C trailer (`te6cck…`), as
/// `std_boc_serialize(root, Mode::WithCRC32C)`: what tonlib and the
/// toncenter APIs hand out.
pub fn encode_crc<T: AsRef<DynCell> + ?Sized>(root: &T) -> Vec<u8> {
    write(root.as_ref(), true)
}

fn write(root: &DynCell, crc: bool) -> Vec<u8> {
    SCRATCH.with(|slot| {
        let mut scratch = slot.borrow_mut().take().unwrap_or_default();
        let out = write_with(root, crc, &mut scratch);
        scratch.index.clear();
        scratch.order.clear();
        if scratch.index.capacity() <= KEPT_CAPACITY {
            *slot.borrow_mut() = Some(scratch);
        }
        out
    })
}

fn write_with(root: &DynCell, crc: bool, scratch: &mut Scratch) -> Vec<u8> {
    let mut nodes: Vec<Node<'_>> = Vec::new();
    let mut int_refs = 0u64;
    let mut data_bytes = 0u64;
    let root_idx = import(
        root,
        &mut nodes,
        &mut scratch.index,
        &mut int_refs,
        &mut data_bytes,
    );

    // Number the cells in the C++ order.
    weigh(&mut nodes);
    let order = &mut scratch.order;
    revisit(&mut nodes, order, root_idx, 0);
    revisit(&mut nodes, order, root_idx, 1);
    revisit(&mut nodes, order, root_idx, 2);
    let count = nodes.len() as u64;
    debug_assert_eq!(order.len() as u64, count);

    let ref_size = bytes_for(count);
    let data_size = data_bytes + int_refs * ref_size as u64;
    let offset_size = bytes_for(data_size);

    let mut out = Vec::with_capacity(4 + 2 + 3 * ref_size + offset_size + data_size as usize + 8);
    out.extend_from_slice(&[0xb5, 0xee, 0x9c, 0x72]);
    out.push(if crc { 0x40 } else { 0 } | ref_size as u8);
    out.push(offset_size as u8);
    put(&mut out, count, ref_size);
    put(&mut out, 1, ref_size);
    put(&mut out, 0, ref_size);
    put(&mut out, data_size, offset_size);
    // The root is numbered last, so it is written first.
    put(&mut out, 0, ref_size);
    for &idx in order.iter().rev() {
        let node = &nodes[idx as usize];
        let d = node.cell.descriptor();
        out.push(d.d1 & !CellDescriptor::STORE_HASHES_MASK);
        out.push(d.d2);
        out.extend_from_slice(node.cell.data());
        for &r in &node.refs[..node.ref_count as usize] {
            let number = nodes[r as usize].new_idx as u64;
            put(&mut out, count - 1 - number, ref_size);
        }
    }
    if crc {
        let sum = crc32c::crc32c(&out);
        out.extend_from_slice(&sum.to_le_bytes());
    }
    out
}

/// Numbers the distinct cells children-first; returns the cell's number.
fn import<'a>(
    cell: &'a DynCell,
    nodes: &mut Vec<Node<'a>>,
    index: &mut HashMap<HashBytes, u32, BuildHasherDefault<ReprHashHasher>>,
    int_refs: &mut u64,
    data_bytes: &mut u64,
) -> u32 {
    if let Some(&idx) = index.get(cell.repr_hash()) {
        return idx;
    }
    let mut refs = [0u32; 4];
    let mut ref_count = 0u8;
    let mut wt = 1u32;
    for (i, child) in cell.references().enumerate() {
        refs[i] = import(child, nodes, index, int_refs, data_bytes);
        wt += u32::from(nodes[refs[i] as usize].wt);
        ref_count += 1;
        *int_refs += 1;
    }
    let idx = nodes.len() as u32;
    *data_bytes += 2 + cell.data().len() as u64;
    nodes.push(Node {
        cell,
        refs,
        ref_count,
        wt: wt.min(255) as u8,
        new_idx: FRESH,
    });
    index.insert(*cell.repr_hash(), idx);
    idx
}

/// The C++ serializer's weights (`reorder_cells`): each cell's references
/// share a budget of `MAX_WEIGHT - 1`, the light ones first; the heavy ones
/// are cut to an even share of what is left. Then a cell whose references
/// weigh more than its own (cut) weight allows becomes special (0).
fn weigh(nodes: &mut [Node<'_>]) {
    const BUDGET: i32 = MAX_WEIGHT - 1;
    for i in (0..nodes.len()).rev() {
        let (refs, n) = (nodes[i].refs, nodes[i].ref_count as usize);
        let (mut heavy, mut left, mut light) = (n as i32, BUDGET, 0u8);
        for (j, &r) in refs[..n].iter().enumerate() {
            let wt = i32::from(nodes[r as usize].wt);
            if wt <= (BUDGET + j as i32) / n as i32 {
                left -= wt;
                heavy -= 1;
                light |= 1 << j;
            }
        }
        if heavy > 0 {
            for (j, &r) in refs[..n].iter().enumerate() {
                if light & (1 << j) == 0 {
                    let share = left / heavy;
                    left += 1;
                    let child = &mut nodes[r as usize];
                    if i32::from(child.wt) > share {
                        child.wt = share as u8;
                    }
                }
            }
        }
    }
    for i in 0..nodes.len() {
        let (refs, n) = (nodes[i].refs, nodes[i].ref_count as usize);
        let sum = 1 + refs[..n]
            .iter()
            .map(|&r| i32::from(nodes[r as usize].wt))
            .sum::<i32>();
        nodes[i].wt = if sum <= i32::from(nodes[i].wt) {
            sum as u8
        } else {
            0
        };
    }
}

/// `max_cell_whs` of the C++ serializer.
const MAX_WEIGHT: i32 = 64;

/// The C++ serializer's `revisit`: `force` 0 pre-visits (down to special
/// cells, which are visited), 1 visits, 2 gives the cell its number.
fn revisit(nodes: &mut [Node<'_>], order: &mut Vec<u32>, idx: u32, force: u8) -> i32 {
    let i = idx as usize;
    let state = nodes[i].new_idx;
    if state >= 0 {
        return state;
    }
    let (refs, n) = (nodes[i].refs, nodes[i].ref_count as usize);
    match force {
        0 => {
            if state != FRESH {
                return state;
            }
            for &child in refs[..n].iter().rev() {
                let child_force = u8::from(nodes[child as usize].wt == 0);
                revisit(nodes, order, child, child_force);
            }
            nodes[i].new_idx = PREVISITED;
            PREVISITED
        }
        2 => {
            let number = order.len() as i32;
            order.push(idx);
            nodes[i].new_idx = number;
            number
        }
        _ => {
            if state == VISITED {
                return state;
            }
            if nodes[i].wt == 0 {
                revisit(nodes, order, idx, 0);
            }
            for &child in refs[..n].iter().rev() {
                revisit(nodes, order, child, 1);
            }
            for &child in refs[..n].iter().rev() {
                revisit(nodes, order, child, 2);
            }
            nodes[i].new_idx = VISITED;
            VISITED
        }
    }
}

/// The fewest bytes (at least one) that hold `value` (C++'s size loops).
fn bytes_for(value: u64) -> usize {
    let mut n = 0;
    while n < 8 && value >> (n * 8) != 0 {
        n += 1;
    }
    n.max(1)
}

fn put(out: &mut Vec<u8>, value: u64, size: usize) {
    out.extend_from_slice(&value.to_be_bytes()[8 - size..]);
}

#[cfg(test)]
mod tests {
    use tycho_types::boc::Boc;
    use tycho_types::cell::{Cell, CellBuilder};

    use super::*;

    fn tree() -> Cell {
        let leaf = CellBuilder::build_from(0xdead_beef_u32).unwrap();
        let mut tree = leaf.clone();
        for i in 0..300u32 {
            let mut b = CellBuilder::new();
            b.store_u32(i).unwrap();
            b.store_bit_one().unwrap();
            b.store_reference(tree).unwrap();
            if i % 7 == 0 {
                b.store_reference(leaf.clone()).unwrap();
            }
            tree = b.build().unwrap();
        }
        tree
    }

    #[test]
    fn same_cells_any_parser_reads_back() {
        let t = tree();
        for boc in [encode(t.as_ref()), encode_crc(t.as_ref())] {
            let back = Boc::decode(&boc).unwrap();
            assert_eq!(back.repr_hash(), t.repr_hash());
        }
        let plain = encode(t.as_ref());
        let with_crc = encode_crc(t.as_ref());
        assert_eq!(plain[4] | 0x40, with_crc[4]);
        assert_eq!(plain[5..], with_crc[5..with_crc.len() - 4]);
    }

    #[test]
    fn sizes_follow_the_counts() {
        assert_eq!(bytes_for(0), 1);
        assert_eq!(bytes_for(255), 1);
        assert_eq!(bytes_for(256), 2);
        assert_eq!(bytes_for(65_535), 2);
        assert_eq!(bytes_for(65_536), 3);
        // One cell, four data bytes: 1-byte refs and offsets.
        let leaf = CellBuilder::build_from(7u32).unwrap();
        let boc = encode(leaf.as_ref());
        assert_eq!(
            boc,
            [0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 1, 1, 0, 6, 0, 0x00, 0x08, 0, 0, 0, 7]
        );
    }
}
