//! Cells of shard states in the `cells` table: the row layout, a loader
//! that rebuilds subtrees, and the "shallow" cell a Merkle update is applied
//! against.
//!
//! Row layout (key = representation hash):
//! `d1 u8 | d2 u8 | bit_len u16 | (hash [32], depth u16) per level of the
//! level mask | data | child representation hash [32] per reference`.
//! Every hash is stored, not only the key, so a shallow cell answers
//! `hash(level)` for cells above level 0 too (Merkle proofs inside account
//! data).

use std::collections::HashMap;
use std::sync::Arc;

use tycho_types::cell::{
    Cell, CellBuilder, CellDescriptor, CellImpl, CellInner, DynCell, HashBytes,
};

/// Why a cell could not be read from the store.
#[derive(Debug, thiserror::Error)]
pub enum CellError {
    #[error("cell {0} is not in the cell store")]
    Missing(HashBytes),
    #[error("cell row {0} is malformed")]
    Corrupt(HashBytes),
    #[error("cell {0} rebuilt with a different hash")]
    HashMismatch(HashBytes),
    #[error("storage: {0}")]
    Storage(#[from] tonindex_storage::Error),
}

/// Where cell rows come from: the table, plus the rows a unit has not committed yet.
pub trait CellRows {
    fn row(&self, hash: &HashBytes) -> Result<Option<Vec<u8>>, CellError>;

    /// Whether each cell has a row, in order: a page asks this of every
    /// state its transactions name, nearly none of which an index that
    /// keeps a few days of states holds, and a store may answer them in
    /// one batch.
    fn held(&self, hashes: &[HashBytes]) -> Result<Vec<bool>, CellError> {
        hashes
            .iter()
            .map(|h| self.row(h).map(|r| r.is_some()))
            .collect()
    }
}

/// Encodes one cell as a row. Its children are referenced by hash only.
pub fn encode_row(cell: &DynCell) -> Vec<u8> {
    let d = cell.descriptor();
    let refs = d.reference_count() as usize;
    let levels = d.level_mask().level() as usize + 1;
    let mut row = Vec::with_capacity(4 + levels * 34 + cell.data().len() + refs * 32);
    row.extend_from_slice(&[d.d1, d.d2]);
    row.extend_from_slice(&cell.bit_len().to_be_bytes());
    for level in d.level_mask() {
        row.extend_from_slice(cell.hash(level).as_array());
        row.extend_from_slice(&cell.depth(level).to_be_bytes());
    }
    row.extend_from_slice(cell.data());
    for i in 0..refs as u8 {
        let child = cell
            .reference_repr_hash(i)
            .expect("descriptor counts this reference");
        row.extend_from_slice(child.as_array());
    }
    row
}

/// A decoded row.
struct Row {
    descriptor: CellDescriptor,
    bit_len: u16,
    hashes: Box<[(HashBytes, u16)]>,
    data: Box<[u8]>,
    refs: Vec<HashBytes>,
}

fn decode_row(hash: &HashBytes, bytes: &[u8]) -> Result<Row, CellError> {
    let bad = || CellError::Corrupt(*hash);
    let take = |at: &mut usize, n: usize| -> Result<&[u8], CellError> {
        let s = bytes.get(*at..*at + n).ok_or_else(bad)?;
        *at += n;
        Ok(s)
    };
    let mut at = 0;
    let d = take(&mut at, 2)?;
    let descriptor = CellDescriptor::new([d[0], d[1]]);
    let bit_len = u16::from_be_bytes(take(&mut at, 2)?.try_into().map_err(|_| bad())?);
    let mut hashes = Vec::new();
    for _ in descriptor.level_mask() {
        let h = HashBytes(take(&mut at, 32)?.try_into().map_err(|_| bad())?);
        let depth = u16::from_be_bytes(take(&mut at, 2)?.try_into().map_err(|_| bad())?);
        hashes.push((h, depth));
    }
    let data = take(&mut at, descriptor.byte_len() as usize)?.into();
    let mut refs = Vec::with_capacity(descriptor.reference_count() as usize);
    for _ in 0..descriptor.reference_count() {
        refs.push(HashBytes(take(&mut at, 32)?.try_into().map_err(|_| bad())?));
    }
    if at != bytes.len() || hashes.last().map(|h| &h.0) != Some(hash) {
        return Err(bad());
    }
    Ok(Row {
        descriptor,
        bit_len,
        hashes: hashes.into_boxed_slice(),
        data,
        refs,
    })
}

fn read_row(rows: &dyn CellRows, hash: &HashBytes) -> Result<Row, CellError> {
    let bytes = rows.row(hash)?.ok_or(CellError::Missing(*hash))?;
    decode_row(hash, &bytes)
}

/// A stored cell with its own data and hashes but without its children.
///
/// A Merkle update names the unchanged subtrees of the old state by hash;
/// to build the new state only their hashes and depths are needed, so the
/// applier gets these instead of whole subtrees. [`Loader::deepen`] turns
/// them into complete cells where content is needed.
struct ShallowCell(Row);

impl CellImpl for ShallowCell {
    fn untrack(self: CellInner<Self>) -> Cell {
        Cell::from(self)
    }
    fn descriptor(&self) -> CellDescriptor {
        self.0.descriptor
    }
    fn data(&self) -> &[u8] {
        &self.0.data
    }
    fn bit_len(&self) -> u16 {
        self.0.bit_len
    }
    fn reference(&self, _: u8) -> Option<&DynCell> {
        None
    }
    fn reference_cloned(&self, _: u8) -> Option<Cell> {
        None
    }
    fn reference_repr_hash(&self, index: u8) -> Option<HashBytes> {
        self.0.refs.get(index as usize).copied()
    }
    fn virtualize(&self) -> &DynCell {
        self
    }
    fn hash(&self, level: u8) -> &HashBytes {
        let i = self.0.descriptor.level_mask().hash_index(level) as usize;
        &self.0.hashes[i.min(self.0.hashes.len() - 1)].0
    }
    fn depth(&self, level: u8) -> u16 {
        let i = self.0.descriptor.level_mask().hash_index(level) as usize;
        self.0.hashes[i.min(self.0.hashes.len() - 1)].1
    }
}

/// True for a cell whose children are not attached (a [`ShallowCell`]).
pub fn is_shallow(cell: &DynCell) -> bool {
    cell.reference_count() > 0 && cell.reference(0).is_none()
}

/// Reads cells from the rows, shallow or whole.
pub struct Loader<'a> {
    rows: &'a dyn CellRows,
    loaded: HashMap<HashBytes, Cell>,
    /// Cells [`Loader::deepen`] found with nothing shallow below them: a
    /// tree is a DAG (a contract may reference one cell many times), and
    /// without this each cell would be walked once per path to it.
    whole_already: std::collections::HashSet<HashBytes>,
}

impl<'a> Loader<'a> {
    pub fn new(rows: &'a dyn CellRows) -> Self {
        Self {
            rows,
            loaded: HashMap::new(),
            whole_already: std::collections::HashSet::new(),
        }
    }

    /// The cell `hash` without its children (enough for hashing a parent).
    pub fn shallow(&self, hash: &HashBytes) -> Result<Cell, CellError> {
        let row = read_row(self.rows, hash)?;
        if row.refs.is_empty() {
            return self.build(hash, &row, Vec::new());
        }
        Ok(Cell::from(
            Arc::new(ShallowCell(row)) as CellInner<ShallowCell>
        ))
    }

    /// The cell `hash` with shallow children: enough to parse its own
    /// fields, references included (each known by its hash), without
    /// loading the subtrees.
    pub fn one_level(&self, hash: &HashBytes) -> Result<Cell, CellError> {
        let row = read_row(self.rows, hash)?;
        let children = row
            .refs
            .iter()
            .map(|h| self.shallow(h))
            .collect::<Result<Vec<_>, _>>()?;
        self.build(hash, &row, children)
    }

    /// The whole subtree under `hash`.
    pub fn whole(&mut self, hash: &HashBytes) -> Result<Cell, CellError> {
        if let Some(c) = self.loaded.get(hash) {
            return Ok(c.clone());
        }
        let row = read_row(self.rows, hash)?;
        let children = row
            .refs
            .iter()
            .map(|h| self.whole(h))
            .collect::<Result<Vec<_>, _>>()?;
        let cell = self.build(hash, &row, children)?;
        self.loaded.insert(*hash, cell.clone());
        Ok(cell)
    }

    /// `cell` with every shallow cell below it replaced by its whole subtree.
    pub fn deepen(&mut self, cell: &Cell) -> Result<Cell, CellError> {
        self.deepen_inner(cell).map(|(c, _)| c)
    }

    /// The deepened cell, and whether anything below it had to be loaded.
    fn deepen_inner(&mut self, cell: &Cell) -> Result<(Cell, bool), CellError> {
        if is_shallow(cell.as_ref()) {
            return Ok((self.whole(cell.repr_hash())?, true));
        }
        if cell.reference_count() == 0 {
            return Ok((cell.clone(), false));
        }
        if let Some(c) = self.loaded.get(cell.repr_hash()) {
            return Ok((c.clone(), true));
        }
        if self.whole_already.contains(cell.repr_hash()) {
            return Ok((cell.clone(), false));
        }
        let mut children = Vec::with_capacity(cell.reference_count() as usize);
        let mut changed = false;
        for child in cell.references().cloned() {
            let (c, ch) = self.deepen_inner(&child)?;
            changed |= ch;
            children.push(c);
        }
        if !changed {
            self.whole_already.insert(*cell.repr_hash());
            return Ok((cell.clone(), false));
        }
        let hash = *cell.repr_hash();
        let rebuilt = self.rebuild(&hash, cell, children)?;
        self.loaded.insert(hash, rebuilt.clone());
        Ok((rebuilt, true))
    }

    /// `cell`, taken from a Merkle update or proof, with each pruned branch
    /// under it replaced by the whole subtree the rows hold under the
    /// branch's level-0 hash: the cell as it is in the real state.
    pub fn unprune(&mut self, cell: &Cell) -> Result<Cell, CellError> {
        let level0 = *cell.hash(0);
        if cell.descriptor().cell_type() == tycho_types::cell::CellType::PrunedBranch {
            return self.whole(&level0);
        }
        if cell.descriptor().level_mask().is_empty() {
            return Ok(cell.clone());
        }
        let children = (0..cell.reference_count())
            .filter_map(|i| cell.reference_cloned(i))
            .map(|c| self.unprune(&c))
            .collect::<Result<Vec<_>, _>>()?;
        self.rebuild(&level0, cell, children)
    }

    /// `cell`'s own bits over new `children`, which must hash to `hash`.
    fn rebuild(
        &self,
        hash: &HashBytes,
        cell: &Cell,
        children: Vec<Cell>,
    ) -> Result<Cell, CellError> {
        let row = Row {
            descriptor: cell.descriptor(),
            bit_len: cell.bit_len(),
            hashes: Box::new([]),
            data: cell.data().into(),
            refs: Vec::new(),
        };
        self.build(hash, &row, children)
    }

    fn build(&self, hash: &HashBytes, row: &Row, children: Vec<Cell>) -> Result<Cell, CellError> {
        let mut b = CellBuilder::new();
        b.set_exotic(row.descriptor.is_exotic());
        b.store_raw(&row.data, row.bit_len)
            .map_err(|_| CellError::Corrupt(*hash))?;
        for c in children {
            b.store_reference(c)
                .map_err(|_| CellError::Corrupt(*hash))?;
        }
        let cell = b.build().map_err(|_| CellError::Corrupt(*hash))?;
        if cell.repr_hash() != hash {
            return Err(CellError::HashMismatch(*hash));
        }
        Ok(cell)
    }
}

/// The representation hashes of the children a stored row names, in
/// order (a child referenced twice is named twice).
pub fn child_hashes(hash: &HashBytes, row: &[u8]) -> Result<Vec<HashBytes>, CellError> {
    decode_row(hash, row).map(|r| r.refs)
}

/// Rows for every cell of the tree under `root`; shallow cells (which come
/// from the store) are skipped with everything below them. Each cell once.
#[cfg(test)]
fn new_rows(root: &DynCell) -> Vec<(HashBytes, Vec<u8>)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(cell) = stack.pop() {
        let hash = cell.repr_hash();
        if is_shallow(cell) || !seen.insert(*hash) {
            continue;
        }
        out.push((*hash, encode_row(cell)));
        stack.extend(cell.references());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tycho_types::cell::{CellBuilder, CellFamily};

    /// Rows of the given cells, as the cell table holds them.
    struct Rows(HashMap<HashBytes, Vec<u8>>);

    impl CellRows for Rows {
        fn row(&self, hash: &HashBytes) -> Result<Option<Vec<u8>>, CellError> {
            Ok(self.0.get(hash).cloned())
        }
    }

    #[test]
    fn deepening_a_dag_visits_each_cell_once() {
        // 40 levels, each cell referencing the one below four times: 4^39
        // paths, 40 distinct cells. A shallow cell at the bottom makes the
        // walk rebuild the whole tree; without one it only looks.
        let leaf = {
            let mut b = CellBuilder::new();
            b.store_u32(7).unwrap();
            b.store_reference(Cell::empty_cell()).unwrap();
            b.build().unwrap()
        };
        let rows = Rows(new_rows(leaf.as_ref()).into_iter().collect());
        let loader_leaf = Loader::new(&rows).shallow(leaf.repr_hash()).unwrap();
        assert!(is_shallow(loader_leaf.as_ref()));
        for bottom in [leaf.clone(), loader_leaf] {
            let mut cell = bottom;
            for _ in 0..40 {
                let mut b = CellBuilder::new();
                for _ in 0..4 {
                    b.store_reference(cell.clone()).unwrap();
                }
                cell = b.build().unwrap();
            }
            let start = std::time::Instant::now();
            let whole = Loader::new(&rows).deepen(&cell).unwrap();
            assert!(start.elapsed() < std::time::Duration::from_secs(1));
            assert_eq!(whole.repr_hash(), cell.repr_hash());
        }
    }
}
