//! The import pipeline: block files → decode (rayon) → units → index.
//!
//! Files are decoded a chunk at a time, in parallel. A file that fails stops
//! the import before anything of its chunk is written; units committed
//! before it stay committed (each is whole), and re-running the import
//! skips them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::chain::files::{read_boc_file, FileError};
use crate::decode::{
    decode_block, decode_chain_boc, file_hash, ChainItem, DecodeError, DecodedBlock,
};
use crate::index::state::StateWork;
use crate::index::{Applied, IndexError, Indexer, Planner, RowEncoding, Unit};
use tonindex_model::Hash;
use tonindex_storage::Db;

/// Import settings.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    pub chunk_size: usize,
    /// Pause after each committed unit; a testing aid for crash tests.
    pub unit_delay: Option<Duration>,
    /// Pool that decodes; `None` = rayon's global pool.
    pub decode_pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

/// Totals of one import run.
#[derive(Debug, Default, Clone, Copy)]
pub struct IngestSummary {
    pub files: u64,
    pub units: u64,
    pub applied: Applied,
    /// Shard states and account states imported.
    pub states: u64,
    /// Decoded transactions (including those of blocks already stored).
    pub transactions_seen: u64,
    pub elapsed: Duration,
    /// Wall time the writer spent applying units (the serial part of an import).
    pub write_time: Duration,
    /// Wall time the decode pool spent decoding (reading the next chunk's
    /// files overlaps it).
    pub decode_time: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{} file(s) could not be imported:\n{}", .0.len(), format_failures(.0))]
    Decode(Vec<(PathBuf, DecodeError)>),
    #[error(transparent)]
    Index(#[from] IndexError),
}

fn format_failures(f: &[(PathBuf, DecodeError)]) -> String {
    let mut lines: Vec<String> = f
        .iter()
        .take(20)
        .map(|(p, e)| format!("  {}: {e}", p.display()))
        .collect();
    if f.len() > 20 {
        lines.push(format!("  … and {} more", f.len() - 20));
    }
    lines.join("\n")
}

/// Reads and decodes a file that must hold a block.
pub fn decode_block_file(path: &Path) -> Result<DecodedBlock, IngestError> {
    let boc = read_boc_file(path)?;
    decode_block(&boc).map_err(|e| IngestError::Decode(vec![(path.to_path_buf(), e)]))
}

/// A chain file's BoC bytes with their SHA-256 (a block's file hash).
type ReadFile = (Vec<u8>, Hash);

/// Reads files, hashing each as it comes: the reading thread has the time
/// the decode pool would otherwise spend on it. The first file that cannot
/// be read stops it.
fn read_files(paths: &[PathBuf]) -> Result<Vec<ReadFile>, IngestError> {
    paths
        .iter()
        .map(|p| {
            let boc = read_boc_file(p)?;
            let hash = file_hash(&boc);
            Ok((boc, hash))
        })
        .collect()
}

/// Decodes the BoCs read from `paths`, in parallel; any failure is
/// reported with every failing file.
///
/// Blocks keep their state update once `keep_state_updates` is set: the
/// database held a shard state when the import began, or a state file came
/// in this chunk or an earlier one (the chunk's blocks are then decoded
/// again, keeping it: the writer imports a chunk's states before its
/// blocks).
fn decode_bocs(
    paths: &[PathBuf],
    files: Vec<ReadFile>,
    keep_state_updates: &mut bool,
) -> Result<Vec<ChainItem>, IngestError> {
    let keep = *keep_state_updates;
    // Biggest files first, each thread taking the next one as it gets free:
    // a chunk is done when its last file is, and a big block decoded last
    // would leave the other threads idle meanwhile.
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].0.len()));
    let mut decoded: Vec<(usize, Result<ChainItem, DecodeError>)> = order
        .into_iter()
        .par_bridge()
        .map(|i| (i, decode_chain_boc(&files[i].0, files[i].1, keep)))
        .collect();
    decoded.sort_unstable_by_key(|(i, _)| *i);
    let mut results: Vec<Result<ChainItem, DecodeError>> =
        decoded.into_iter().map(|(_, r)| r).collect();
    if !keep && results.iter().any(|r| matches!(r, Ok(ChainItem::State(_)))) {
        *keep_state_updates = true;
        // Only the blocks again: a state file decodes the same either way.
        results
            .par_iter_mut()
            .zip(&files)
            .filter(|(r, _)| matches!(r, Ok(ChainItem::Block(_))))
            .for_each(|(r, (boc, hash))| *r = decode_chain_boc(boc, *hash, true));
    }
    let mut blocks = Vec::with_capacity(results.len());
    let mut failures = Vec::new();
    for (r, path) in results.into_iter().zip(paths) {
        match r {
            Ok(b) => blocks.push(b),
            Err(e) => failures.push((path.clone(), e)),
        }
    }
    if !failures.is_empty() {
        return Err(IngestError::Decode(failures));
    }
    for item in &blocks {
        let ChainItem::Block(b) = item else { continue };
        for w in &b.warnings {
            let id = b.record.id.id;
            tracing::warn!(block = %format!("({},{:016x},{})", id.workchain, id.shard, id.seqno), "{w}");
        }
    }
    Ok(blocks)
}

/// Imports `paths` (already expanded into files) into `db`.
///
/// Decoding runs ahead on a rayon pool (the global one unless
/// `opts.decode_pool` is set) while the calling thread indexes what is
/// decoded, so decode and index overlap. `on_unit` is called after every
/// committed unit (for progress display).
pub fn import_files(
    db: &Db,
    paths: &[PathBuf],
    opts: &IngestOptions,
    on_unit: impl FnMut(&Unit, &Applied),
) -> Result<IngestSummary, IngestError> {
    let start = Instant::now();
    let mut writer = ImportWriter::new(db, opts, on_unit);
    let chunks = paths.chunks(opts.chunk_size.max(1));
    let states_held = StateWork::holds_any_state(db).map_err(IndexError::from)?;
    let decode_time = decode_ahead(chunks, opts, states_held, |_, items| writer.push(items))?;
    let mut summary = writer.finish()?;
    summary.files = paths.len() as u64;
    summary.decode_time = decode_time;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// Decoded chunks waiting for the writer, at most. One keeps decoder and
/// writer both busy when chunks are alike (a long import); each more would
/// even out uneven chunks at the cost of a chunk of decoded blocks in memory.
const DECODED_AHEAD: usize = 1;

/// Decodes `chunks` in order on the decode pool and hands each decoded
/// chunk (with its position) to `consume` on the calling thread. A thread
/// of its own reads the files of the next chunk while the pool decodes the
/// current one, so disk reads and text decoding stay off the pool. Stops at
/// the first failure. Returns how long decoding took (the pool's wall time).
/// `states_held`: whether the database holds a shard state, so that blocks
/// must keep their state updates from the start.
pub fn decode_ahead<'p>(
    chunks: impl Iterator<Item = &'p [PathBuf]> + Send,
    opts: &IngestOptions,
    states_held: bool,
    mut consume: impl FnMut(usize, Vec<ChainItem>) -> Result<(), IngestError>,
) -> Result<Duration, IngestError> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(DECODED_AHEAD);
        let decoder = scope.spawn(move || {
            let mut busy = Duration::ZERO;
            let mut keep_state_updates = states_held;
            let mut chunks = chunks.map(|c| (c, read_files(c)));
            let mut current = chunks.next();
            while let Some((paths, read)) = current.take() {
                let t = Instant::now();
                let mut decoded = None;
                in_place_scope(opts.decode_pool.as_deref(), |s| {
                    s.spawn(|_| {
                        decoded =
                            Some(read.and_then(|files| {
                                decode_bocs(paths, files, &mut keep_state_updates)
                            }))
                    });
                    current = chunks.next();
                });
                busy += t.elapsed();
                let decoded = decoded.expect("the scope ran the decode");
                let failed = decoded.is_err();
                if tx.send(decoded).is_err() || failed {
                    break;
                }
            }
            busy
        });
        for (i, decoded) in rx.into_iter().enumerate() {
            consume(i, decoded?)?;
        }
        Ok(decoder.join().unwrap_or_default())
    })
}

/// Runs `op` on the calling thread; what it spawns runs on `pool` (`None`:
/// the global one), and the call returns when that is done too.
fn in_place_scope<'scope, R>(
    pool: Option<&rayon::ThreadPool>,
    op: impl FnOnce(&rayon::Scope<'scope>) -> R,
) -> R {
    match pool {
        Some(pool) => pool.in_place_scope(op),
        None => rayon::in_place_scope(op),
    }
}

/// Decode threads from which a big unit's rows are encoded on the decode
/// pool. With fewer, its threads are busy decoding, and the writer
/// encoding by itself beats waiting behind them (measured on 2 cores).
const PARALLEL_ENCODING_THREADS: usize = 3;

fn row_encoding(opts: &IngestOptions) -> RowEncoding {
    let threads = opts
        .decode_pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    if threads >= PARALLEL_ENCODING_THREADS {
        RowEncoding::Parallel(opts.decode_pool.clone())
    } else {
        RowEncoding::Serial
    }
}

/// The writing half of an import into one database: groups decoded blocks
/// into units and applies them, one batch each.
pub struct ImportWriter<'a, F> {
    indexer: Indexer<'a>,
    planner: Planner,
    summary: IngestSummary,
    unit_delay: Option<Duration>,
    on_unit: F,
}

impl<'a, F: FnMut(&Unit, &Applied)> ImportWriter<'a, F> {
    pub fn new(db: &'a Db, opts: &IngestOptions, on_unit: F) -> Self {
        Self {
            indexer: Indexer::new(db).with_encoding(row_encoding(opts)),
            planner: Planner::new(opts.chunk_size * 4),
            summary: IngestSummary::default(),
            unit_delay: opts.unit_delay,
            on_unit,
        }
    }

    /// Indexes a decoded chunk: its states first (a chunk's blocks may be
    /// the ones that advance them), then every unit its blocks complete.
    pub fn push(&mut self, items: Vec<ChainItem>) -> Result<(), IngestError> {
        let mut blocks = Vec::new();
        for item in items {
            match item {
                ChainItem::Block(b) => blocks.push(*b),
                ChainItem::State(s) => {
                    self.indexer.apply_state_file(&s)?;
                    self.summary.states += 1;
                }
            }
        }
        let units = self.planner.push(blocks);
        self.apply(units)
    }

    /// Applies the blocks still waiting for a masterchain block, one unit each.
    pub fn finish(mut self) -> Result<IngestSummary, IngestError> {
        let rest = std::mem::replace(&mut self.planner, Planner::new(0)).finish();
        self.apply(rest)?;
        Ok(self.summary)
    }

    fn apply(&mut self, units: Vec<Unit>) -> Result<(), IngestError> {
        for unit in units {
            let t = Instant::now();
            let a = self.indexer.apply(&unit)?;
            let summary = &mut self.summary;
            summary.write_time += t.elapsed();
            summary.units += 1;
            summary.transactions_seen += unit
                .blocks
                .iter()
                .map(|b| b.transactions.len() as u64)
                .sum::<u64>();
            add(&mut summary.applied, &a);
            tracing::debug!(
                blocks = unit.blocks.len(),
                written = a.blocks,
                "unit committed"
            );
            (self.on_unit)(&unit, &a);
            if let Some(d) = self.unit_delay {
                std::thread::sleep(d);
            }
        }
        Ok(())
    }
}

fn add(total: &mut Applied, a: &Applied) {
    total.blocks += a.blocks;
    total.transactions += a.transactions;
    total.messages += a.messages;
    total.skipped_blocks += a.skipped_blocks;
    total.adopted_blocks += a.adopted_blocks;
    total.state_updates += a.state_updates;
}
