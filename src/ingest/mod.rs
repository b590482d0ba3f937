//! The import pipeline: block files and archive packages → chain order
//! (and the packages' signatures checked) → decode (rayon) → units → index.
//!
//! Inputs are planned a group at a time (loose files with the first
//! packages, then the packages number by number): every block's head is
//! read first, so a file that is not a chain file, a doctored package or a
//! block whose signatures fail stops the import before anything of its
//! group is written. Blocks are then decoded a chunk at a time, in
//! parallel; units committed before a failure stay committed (each is
//! whole), and re-running the import skips them.

mod decode_ahead;
pub mod order;
pub mod pipeline;
pub mod sources;

pub use decode_ahead::{decode_ahead, decode_pool, DecodeTimes};
pub use order::{OrderError, Plan};
pub use pipeline::{
    CommitFeed, Committed, FetchedAccount, HeldState, IndexView, Pipeline, SourceUnit,
};
pub use sources::Source;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::chain::files::{read_boc_file, FileError};
use crate::chain::package::{Cut, PackageError};
use crate::decode::{decode_block, ChainItem, DecodeError, DecodedBlock};
use crate::index::state::StateWork;
use crate::index::{Applied, IndexError, Indexer, Planner, RowEncoding, Unit};
use tonindex_model::BlockId;
use tonindex_storage::Db;

/// Import settings.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Files decoded together at most.
    pub chunk_size: usize,
    /// Bytes decoded together at most ([`sources::CHUNK_BYTES`] by default).
    pub chunk_bytes: u64,
    /// Pause after each committed unit; a testing aid for crash tests.
    pub unit_delay: Option<Duration>,
    /// Pool that decodes; `None` = rayon's global pool.
    pub decode_pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Assemble traces and classify actions (off only to measure their cost).
    pub traces: bool,
    /// Import the masterchain blocks of archive packages without checking
    /// their signatures (`--trust-files`).
    pub trust_files: bool,
    /// Bytes of archive packages planned together at most (see
    /// [`sources::InputPaths::into_groups`]; [`GROUP_BYTES`] by default).
    pub group_bytes: u64,
    /// The masterchain blocks whose states the index keeps.
    pub keep_states: crate::index::retention::KeepStates,
}

impl IngestOptions {
    /// The settings an import of files starts from: `chunk_size` files
    /// (and at most [`CHUNK_BYTES`]) decoded together on rayon's global
    /// pool, traces and actions on, package signatures checked, the
    /// default state retention.
    pub fn with_chunk_size(chunk_size: usize) -> Self {
        Self {
            chunk_size,
            chunk_bytes: CHUNK_BYTES,
            unit_delay: None,
            decode_pool: None,
            traces: true,
            trust_files: false,
            group_bytes: GROUP_BYTES,
            keep_states: crate::index::retention::KeepStates::DEFAULT,
        }
    }
}

pub use sources::{CHUNK_BYTES, GROUP_BYTES};

/// What planning an import found, for its summary: packages read, where
/// they were cut, what could not be placed, what was checked.
#[derive(Debug, Default, Clone)]
pub struct PlanReport {
    pub packages: u64,
    pub cuts: Vec<(PathBuf, Cut)>,
    /// Shard blocks no masterchain block of the input commits.
    pub uncommitted: Vec<BlockId>,
    pub signatures_checked: u64,
    pub unchecked: u64,
    pub duplicates: u64,
}

/// Totals of one import run.
#[derive(Debug, Default, Clone)]
pub struct IngestSummary {
    pub files: u64,
    /// What planning found (packages, cuts, checks).
    pub plan: PlanReport,
    pub units: u64,
    pub applied: Applied,
    /// Shard states and account states imported.
    pub states: u64,
    /// Decoded transactions (including those of blocks already stored).
    pub transactions_seen: u64,
    pub elapsed: Duration,
    /// Wall time the writer spent applying units (the serial part of an import).
    pub write_time: Duration,
    /// Time the decode pool's threads spent decoding, summed over threads.
    pub decode_time: Duration,
    /// Wall time the writer spent decoding while it had nothing to write.
    pub writer_decode_time: Duration,
    /// The applying time by step (see `StepTimes`: steps may overlap).
    pub steps: crate::index::step_times::StepTimes,
}

/// Set when the process was asked to stop (SIGTERM, SIGINT): the import
/// stops after the unit it is writing, whose batch is whole.
static STOP_REQUESTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks a running import to stop after its current unit (safe to call from
/// a signal handler: one atomic store).
pub fn request_stop() {
    STOP_REQUESTED.store(true, std::sync::atomic::Ordering::SeqCst);
}

fn stop_requested() -> bool {
    STOP_REQUESTED.load(std::sync::atomic::Ordering::SeqCst)
}

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// Asked to stop; everything committed before stays committed.
    #[error("stopped on request after {units} unit(s); run the same import again to go on")]
    Stopped { units: u64 },
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Package(#[from] PackageError),
    #[error(transparent)]
    Order(#[from] OrderError),
    #[error(transparent)]
    Unlinked(#[from] crate::index::Unlinked),
    /// Files (or package entries, by their label) and why each failed.
    #[error("{} file(s) could not be imported:\n{}", .0.len(), format_failures(.0))]
    Decode(Vec<(String, DecodeError)>),
    #[error(transparent)]
    Index(#[from] IndexError),
}

fn format_failures(f: &[(String, DecodeError)]) -> String {
    let mut lines: Vec<String> = f
        .iter()
        .take(20)
        .map(|(p, e)| format!("  {p}: {e}"))
        .collect();
    if f.len() > 20 {
        lines.push(format!("  … and {} more", f.len() - 20));
    }
    lines.join("\n")
}

/// Reads and decodes a file that must hold a block.
pub fn decode_block_file(path: &Path) -> Result<DecodedBlock, IngestError> {
    let boc = read_boc_file(path)?;
    decode_block(&boc).map_err(|e| IngestError::Decode(vec![(path.display().to_string(), e)]))
}

/// Imports `paths` (chain files, archive packages, directories of either)
/// into `db`.
///
/// Every block's head is read first and the input put in chain order, the
/// packages' masterchain blocks checked by their signatures
/// ([`order::plan_import`]); state files come first. Decoding then runs
/// ahead on a rayon pool (the global one unless `opts.decode_pool` is set)
/// while the calling thread indexes what is decoded, so decode and index
/// overlap. `on_unit` is called after every committed unit (for progress
/// display).
pub fn import_files(
    db: &Db,
    paths: &[PathBuf],
    opts: &IngestOptions,
    on_unit: impl FnMut(&Unit, &Applied),
) -> Result<IngestSummary, IngestError> {
    let start = Instant::now();
    let inputs = sources::collect_inputs(paths)?;
    let packages = inputs.packages.len() as u64;
    let mut writer = ImportWriter::new(db, opts, on_unit);
    let mut report = PlanReport {
        packages,
        ..PlanReport::default()
    };
    let (mut files, mut decode_time, mut writer_decode_time) = (0, Duration::ZERO, Duration::ZERO);
    // Group by group: each planned (and its signatures checked) against
    // what the groups before it wrote.
    let groups = inputs.into_groups(opts.group_bytes);
    let count = groups.len();
    for (i, group) in groups.into_iter().enumerate() {
        if !group.packages.is_empty() && count > 1 {
            tracing::info!(
                group = i + 1,
                of = count,
                packages = group.packages.len(),
                "planning a group of packages"
            );
        }
        let group = group.open()?;
        let mut plan = order::plan_import(db, &group, opts.trust_files)?;
        let mut all = std::mem::take(&mut plan.states);
        let states_given = !all.is_empty();
        all.append(&mut plan.blocks);
        let chunks = sources::chunks(&all, opts.chunk_size, opts.chunk_bytes);
        // Blocks keep their state updates from the first if a state is
        // held or comes with them (states are written before any block):
        // decided here, no chunk is decoded twice.
        let states_held =
            states_given || StateWork::holds_any_state(db).map_err(IndexError::from)?;
        let decode = decode_ahead(chunks.into_iter(), opts, states_held, |_, items| {
            writer.push(items)
        })?;
        files += all.len() as u64;
        decode_time += decode.pool;
        writer_decode_time += decode.writer;
        report.cuts.extend(plan.cuts);
        report.uncommitted.extend(plan.uncommitted);
        report.signatures_checked += plan.signatures_checked;
        report.unchecked += plan.unchecked;
        report.duplicates += plan.duplicates;
    }
    let mut summary = writer.finish()?;
    // Shard blocks a later group's masterchain block committed are not
    // uncommitted after all.
    let mut uncommitted = Vec::new();
    for id in std::mem::take(&mut report.uncommitted) {
        let row = db.get::<tonindex_storage::tables::Blocks>(&id);
        if row
            .map_err(IndexError::from)?
            .is_none_or(|b| b.mc_block_seqno.is_none())
        {
            uncommitted.push(id);
        }
    }
    report.uncommitted = uncommitted;
    summary.files = files;
    summary.plan = report;
    summary.decode_time = decode_time;
    summary.writer_decode_time = writer_decode_time;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// Decode threads from which a big unit's rows are encoded in parallel.
/// With one, the writer encodes by itself. On 2 cores, once decoding
/// runs beside the writer (chunks bounded by bytes), the writer is the
/// limit and the encoding threads use the time decoding leaves: 82,000
/// transactions imported in 2.3-2.4 s with them, 2.7-2.8 s without.
const PARALLEL_ENCODING_THREADS: usize = 2;

/// Threads of the writer's own pool at most: it runs a unit's trace
/// assembly, row encoding and the last unit's classification while the
/// writer works, and more threads only wake and spin beside them (16
/// decode threads on 16 cores: the writer waited 6.2-7.9 µs/tx for
/// assembly and rows with 4 threads, 7.6-9.2 with 16, five runs each).
const MAX_ENCODING_THREADS: usize = 4;

/// Where the writer encodes a unit's rows: on a pool of its own, as many
/// threads as decode (at most [`MAX_ENCODING_THREADS`]), at the writer's
/// priority. Not on the decode pool:
/// there a job the writer hands over waits until the decoding queued
/// before it is done, at the decode threads' lower priority, and the
/// writer — the serial part of an import — waits with it. The writer's
/// threads run only while the writer waits for them, on the core it
/// leaves idle and on cores they take from the lower-priority decoding.
/// (Measured on 16 cores: at 4 decode threads decode+index ran 1.34x as
/// fast as with encoding on the decode pool; at the writer's priority
/// rather than between it and decoding's, 1.06x at 16.)
fn row_encoding(opts: &IngestOptions) -> RowEncoding {
    let threads = decode_ahead::decode_threads(opts);
    if threads < PARALLEL_ENCODING_THREADS {
        return RowEncoding::Serial;
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.min(MAX_ENCODING_THREADS))
        .thread_name(|i| format!("encode-{i}"))
        .build()
    {
        Ok(pool) => RowEncoding::Parallel(Some(std::sync::Arc::new(pool))),
        Err(e) => {
            tracing::warn!(error = %e, "no encoding threads; the writer encodes alone");
            RowEncoding::Serial
        }
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
            indexer: Indexer::new(db)
                .with_encoding(row_encoding(opts))
                .with_traces(opts.traces)
                .with_keep_states(opts.keep_states),
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
        let units = self.planner.push(blocks)?;
        self.apply(units)
    }

    /// Applies the blocks still waiting for a masterchain block, one unit each.
    pub fn finish(mut self) -> Result<IngestSummary, IngestError> {
        let rest = std::mem::replace(&mut self.planner, Planner::new(0)).finish();
        self.apply(rest)?;
        // The last unit's complete traces: classified and written now.
        let t = Instant::now();
        self.indexer.flush()?;
        self.summary.write_time += t.elapsed();
        self.summary.steps = self.indexer.step_times();
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
            if stop_requested() {
                self.indexer.flush()?;
                return Err(IngestError::Stopped {
                    units: self.summary.units,
                });
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
    total.state_gaps += a.state_gaps;
    total.released.states += a.released.states;
    total.released.cells += a.released.cells;
}
