//! The decode side of an import: chunks of files read, decoded on the
//! pool (the writer helping while it waits) and handed to the writer in
//! order.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::sources::Source;
use super::{IngestError, IngestOptions};
use crate::decode::{decode_chain_boc, file_hash, ChainItem, DecodeError};
use crate::index::in_place_scope;
use tonindex_model::{BlockIdExt, Hash};

/// A chain file's BoC bytes with their SHA-256 (a block's file hash), and
/// the block a package entry's name says it is.
type ReadFile = (Vec<u8>, Hash, Option<BlockIdExt>);

/// Reads files and entries, hashing each as it comes: the reading thread
/// has the time the decode pool would otherwise spend on it. The first
/// that cannot be read stops it.
fn read_files(sources: &[Source]) -> Result<Vec<ReadFile>, IngestError> {
    sources
        .iter()
        .map(|s| {
            let boc = s.read()?;
            let hash = file_hash(&boc);
            Ok((boc, hash, s.named_block()))
        })
        .collect()
}

/// Decodes one BoC; a package entry must decode to the block its name gives.
fn decode_file((boc, hash, named): &ReadFile, keep_state_update: bool) -> Decoded {
    let item = decode_chain_boc(boc, *hash, keep_state_update)?;
    if let Some(named) = named {
        let found = match &item {
            ChainItem::Block(b) => Some(b.record.id),
            ChainItem::State(_) => None,
        };
        if found != Some(*named) {
            return Err(DecodeError::NotNamed {
                named: super::order::block_name(named),
                found: found.map_or("not a block".into(), |f| super::order::block_name(&f)),
            });
        }
    }
    Ok(item)
}

/// One chunk's files while they are decoded. The decode pool's threads
/// take files from it one at a time, biggest first, and so does the writer
/// whenever it has nothing to write (see [`decode_ahead`]).
///
/// Biggest first: a chunk is done when its last file is, and a big block
/// decoded last would leave the other threads idle meanwhile.
struct ChunkDecode {
    files: Vec<ReadFile>,
    keep_state_updates: bool,
    /// File positions, biggest file first.
    order: Vec<usize>,
    /// The next position in `order` to take.
    next: AtomicUsize,
    /// Results by file position, and how many are in.
    results: Mutex<(Vec<Option<Decoded>>, usize)>,
    all_in: Condvar,
}

type Decoded = Result<ChainItem, DecodeError>;

impl ChunkDecode {
    fn new(files: Vec<ReadFile>, keep_state_updates: bool) -> Self {
        let mut order: Vec<usize> = (0..files.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(files[i].0.len()));
        let results = (files.iter().map(|_| None).collect(), 0);
        Self {
            files,
            keep_state_updates,
            order,
            next: AtomicUsize::new(0),
            results: Mutex::new(results),
            all_in: Condvar::new(),
        }
    }

    /// Decodes files until every one is taken.
    fn decode_all(&self) {
        while self.decode_one() {}
    }

    /// Decodes the next file nobody has taken; `false` if there was none.
    /// A panic in the decoder becomes that file's error, so that the
    /// chunk still completes.
    fn decode_one(&self) -> bool {
        let Some(&i) = self.order.get(self.next.fetch_add(1, Ordering::Relaxed)) else {
            return false;
        };
        let file = &self.files[i];
        let result = std::panic::catch_unwind(|| decode_file(file, self.keep_state_updates))
            .unwrap_or_else(|panic| Err(DecodeError::from_panic(panic)));
        let mut results = lock(&self.results);
        results.0[i] = Some(result);
        results.1 += 1;
        if results.1 == self.files.len() {
            self.all_in.notify_all();
        }
        true
    }

    /// Leaves the files nobody has taken undecoded, for an import that
    /// stops; nobody may [`Self::wait`] for this chunk after.
    fn abandon(&self) {
        self.next.store(self.order.len(), Ordering::Relaxed);
    }

    /// Whether a file is left for a thread to take.
    fn has_untaken(&self) -> bool {
        self.next.load(Ordering::Relaxed) < self.order.len()
    }

    /// Waits until every file is decoded; the results in file order.
    fn wait(&self) -> Vec<Decoded> {
        let mut results = lock(&self.results);
        while results.1 < self.files.len() {
            results = self
                .all_in
                .wait(results)
                .unwrap_or_else(PoisonError::into_inner);
        }
        std::mem::take(&mut results.0)
            .into_iter()
            .map(|r| r.expect("every file has a result"))
            .collect()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Finishes a decoded chunk; any failure is reported with every failing
/// file. Blocks decoded again run on `pool` (`None`: the global one).
///
/// Blocks keep their state update once `keep_state_updates` is set: the
/// database held a shard state when the import began, or a state file came
/// in this chunk or an earlier one. A chunk whose blocks were decoded
/// without it (the state file came in this chunk, or in the one before,
/// decoded alongside) has its blocks decoded again, keeping it: the writer
/// imports a chunk's states before its blocks.
fn finish_chunk(
    paths: &[Source],
    chunk: &ChunkDecode,
    keep_state_updates: &mut bool,
    pool: Option<&rayon::ThreadPool>,
) -> Result<Vec<ChainItem>, IngestError> {
    let mut results = chunk.wait();
    if results.iter().any(|r| matches!(r, Ok(ChainItem::State(_)))) {
        *keep_state_updates = true;
    }
    if *keep_state_updates && !chunk.keep_state_updates {
        // Only the blocks again: a state file decodes the same either way.
        let mut redecode = || {
            results
                .par_iter_mut()
                .zip(&chunk.files)
                .filter(|(r, _)| matches!(r, Ok(ChainItem::Block(_))))
                .for_each(|(r, file)| *r = decode_file(file, true))
        };
        match pool {
            Some(pool) => pool.install(redecode),
            None => redecode(),
        }
    }
    let mut blocks = Vec::with_capacity(results.len());
    let mut failures = Vec::new();
    for (r, path) in results.into_iter().zip(paths) {
        match r {
            Ok(b) => blocks.push(b),
            Err(e) => failures.push((path.label(), e)),
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

/// Decoded chunks waiting for the writer, at most. One keeps decoder and
/// writer both busy when chunks are alike (a long import); each more would
/// even out uneven chunks at the cost of a chunk of decoded blocks in memory.
const DECODED_AHEAD: usize = 1;

/// Time spent decoding, as [`decode_ahead`] measured it.
#[derive(Debug, Default, Clone, Copy)]
pub struct DecodeTimes {
    /// What the pool's threads spent decoding files, summed over threads.
    pub pool: Duration,
    /// What the writer spent decoding files while it had nothing to write.
    pub writer: Duration,
}

/// Between the decode side and the writer: decoded chunks in order, and
/// the chunks being decoded, which the writer helps with while it waits.
#[derive(Default)]
struct Handoff {
    state: Mutex<HandoffState>,
    changed: Condvar,
    /// Whether the writer decodes while it waits: only where a core is left
    /// over by the decode threads. Where there is none, its decoding only
    /// takes turns with theirs on the same cores.
    writer_decodes: bool,
}

#[derive(Default)]
struct HandoffState {
    decoded: VecDeque<Result<Vec<ChainItem>, IngestError>>,
    /// Oldest first.
    decoding: VecDeque<Arc<ChunkDecode>>,
    /// No more chunks will come (the decode side ended or failed).
    decode_ended: bool,
    /// The writer stopped (done or failed): the decode side stops too.
    writer_ended: bool,
}

/// What the writer is to do next.
enum Next {
    Write(Result<Vec<ChainItem>, IngestError>),
    Decode(Arc<ChunkDecode>),
    End,
}

impl Handoff {
    /// Offers a chunk the pool starts on to the writer.
    fn start(&self, chunk: Arc<ChunkDecode>) {
        lock(&self.state).decoding.push_back(chunk);
        self.changed.notify_all();
    }

    /// Queues the oldest chunk, decoded, waiting while [`DECODED_AHEAD`]
    /// already wait; `false` if the writer has stopped.
    fn push(&self, decoded: Result<Vec<ChainItem>, IngestError>) -> bool {
        let mut state = lock(&self.state);
        state.decoding.pop_front();
        while state.decoded.len() >= DECODED_AHEAD && !state.writer_ended {
            state = self.wait(state);
        }
        if state.writer_ended {
            return false;
        }
        state.decoded.push_back(decoded);
        self.changed.notify_all();
        true
    }

    /// The writer's next task: a decoded chunk if one waits, else a file of
    /// a chunk being decoded, else it waits for either.
    fn next(&self) -> Next {
        let mut state = lock(&self.state);
        loop {
            if let Some(decoded) = state.decoded.pop_front() {
                self.changed.notify_all();
                return Next::Write(decoded);
            }
            if self.writer_decodes {
                if let Some(chunk) = state.decoding.iter().find(|c| c.has_untaken()) {
                    return Next::Decode(chunk.clone());
                }
            }
            if state.decode_ended {
                return Next::End;
            }
            state = self.wait(state);
        }
    }

    fn end(&self, side: impl FnOnce(&mut HandoffState)) {
        side(&mut lock(&self.state));
        self.changed.notify_all();
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, HandoffState>) -> MutexGuard<'a, HandoffState> {
        self.changed
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks its side of a [`Handoff`] ended when dropped, a panic or an
/// early return included, so that the other side never waits for it.
struct EndOnDrop<'a, F: Fn(&mut HandoffState)>(&'a Handoff, F);

impl<F: Fn(&mut HandoffState)> Drop for EndOnDrop<'_, F> {
    fn drop(&mut self) {
        self.0.end(&self.1);
    }
}

/// Decodes `chunks` in order on the decode pool and hands each decoded
/// chunk (with its position) to `consume` on the calling thread. Stops at
/// the first failure. `states_held`: whether the database holds a shard
/// state, so that blocks must keep their state updates from the start.
///
/// A thread of its own reads the files of the next chunk while the pool
/// decodes the current one, so disk reads and text decoding stay off the
/// pool, and queues the next chunk's files behind the current one's: a
/// pool thread that finds no file left in the current chunk goes on with
/// the next instead of waiting for the current one's last file.
///
/// The calling thread (the writer) decodes too when the machine has more
/// cores than the pool has threads: when no decoded chunk waits for it, it
/// takes files of a chunk being decoded instead of idling. With few decode
/// threads they are what limits an import, and the writer's idle time is
/// theirs to use; when the writer is the limit, a decoded chunk is always
/// waiting and it never decodes.
pub fn decode_ahead<'p>(
    chunks: impl Iterator<Item = &'p [Source]> + Send,
    opts: &IngestOptions,
    states_held: bool,
    consume: impl FnMut(usize, Vec<ChainItem>) -> Result<(), IngestError>,
) -> Result<DecodeTimes, IngestError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let writer_decodes = decode_threads(opts) < cores;
    decode_ahead_with(chunks, opts, states_held, writer_decodes, consume)
}

/// Threads of the pool that decodes for `opts`.
pub(super) fn decode_threads(opts: &IngestOptions) -> usize {
    opts.decode_pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
}

/// [`decode_ahead`], told whether the writer decodes.
fn decode_ahead_with<'p>(
    chunks: impl Iterator<Item = &'p [Source]> + Send,
    opts: &IngestOptions,
    states_held: bool,
    writer_decodes: bool,
    mut consume: impl FnMut(usize, Vec<ChainItem>) -> Result<(), IngestError>,
) -> Result<DecodeTimes, IngestError> {
    let threads = decode_threads(opts);
    let pool = opts.decode_pool.as_deref();
    let handoff = Handoff {
        writer_decodes,
        ..Handoff::default()
    };
    // Microseconds the pool's threads spent decoding.
    let pool_busy = AtomicU64::new(0);
    std::thread::scope(|scope| {
        let (handoff, pool_busy) = (&handoff, &pool_busy);
        let decoder = scope.spawn(move || {
            let _ended = EndOnDrop(handoff, |s: &mut HandoffState| s.decode_ended = true);
            let mut keep_state_updates = states_held;
            // Finishes the oldest chunk and hands it on; whether to go on.
            let finish = |paths: &[Source], chunk: &ChunkDecode, keep: &mut bool| {
                let decoded = finish_chunk(paths, chunk, keep, pool);
                let failed = decoded.is_err();
                handoff.push(decoded) && !failed
            };
            in_place_scope(pool, |s| {
                let mut in_flight: Option<(&[Source], Arc<ChunkDecode>)> = None;
                for paths in chunks {
                    let files = match read_files(paths) {
                        Ok(files) => files,
                        Err(e) => {
                            if let Some((paths, chunk)) = in_flight.take() {
                                if !finish(paths, &chunk, &mut keep_state_updates) {
                                    return;
                                }
                            }
                            handoff.push(Err(e));
                            return;
                        }
                    };
                    let chunk = Arc::new(ChunkDecode::new(files, keep_state_updates));
                    handoff.start(chunk.clone());
                    for _ in 0..threads.min(chunk.files.len()) {
                        let chunk = chunk.clone();
                        s.spawn(move |_| {
                            let t = Instant::now();
                            chunk.decode_all();
                            pool_busy.fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
                        });
                    }
                    if let Some((paths, previous)) = in_flight.replace((paths, chunk)) {
                        if !finish(paths, &previous, &mut keep_state_updates) {
                            in_flight.iter().for_each(|(_, c)| c.abandon());
                            return;
                        }
                    }
                }
                if let Some((paths, chunk)) = in_flight {
                    finish(paths, &chunk, &mut keep_state_updates);
                }
            });
        });
        let _ended = EndOnDrop(handoff, |s: &mut HandoffState| s.writer_ended = true);
        let mut helped = Duration::ZERO;
        let mut position = 0;
        loop {
            match handoff.next() {
                Next::Write(decoded) => {
                    consume(position, decoded?)?;
                    position += 1;
                }
                Next::Decode(chunk) => {
                    let t = Instant::now();
                    chunk.decode_one();
                    helped += t.elapsed();
                }
                Next::End => break,
            }
        }
        decoder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(DecodeTimes {
            pool: Duration::from_micros(pool_busy.load(Ordering::Relaxed)),
            writer: helped,
        })
    })
}

/// How much lower than the writer's the decode threads' scheduling priority
/// is (Linux nice levels).
const DECODE_NICE: i32 = 10;

/// A decode pool of `threads` threads (0: one per core) whose threads run
/// at a lower scheduling priority than the writer. The writer is the one
/// serial stage: when it shares a core with decode threads, it should get
/// the time it needs, the decode threads the rest, rather than falling
/// behind while they fill the queue and then stall.
pub fn decode_pool(threads: usize) -> rayon::ThreadPoolBuilder {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| crate::priority::lower_current_thread(DECODE_NICE))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::chain::files::{collect_paths, FileError};
    use crate::decode::decode_block;

    fn series() -> Vec<Source> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fixtures/blocks/ever-block-mainnet-2019");
        collect_paths(&[root.join("mc"), root.join("shard")])
            .unwrap()
            .into_iter()
            .map(Source::File)
            .collect()
    }

    fn ids(items: &[ChainItem]) -> Vec<BlockIdExt> {
        items
            .iter()
            .map(|item| match item {
                ChainItem::Block(b) => b.record.id,
                ChainItem::State(_) => panic!("the series holds blocks only"),
            })
            .collect()
    }

    fn expected_ids(paths: &[Source]) -> Vec<BlockIdExt> {
        paths
            .iter()
            .map(|p| decode_block(&p.read().unwrap()).unwrap().record.id)
            .collect()
    }

    #[test]
    fn a_chunk_keeps_file_order_whoever_decodes_its_files() {
        let paths = series();
        let chunk = ChunkDecode::new(read_files(&paths).unwrap(), false);
        // The writer takes the three biggest files, another thread the rest.
        for _ in 0..3 {
            assert!(chunk.decode_one());
        }
        std::thread::scope(|s| {
            s.spawn(|| chunk.decode_all());
        });
        assert!(!chunk.has_untaken() && !chunk.decode_one());
        let items = finish_chunk(&paths, &chunk, &mut false, None).unwrap();
        assert_eq!(ids(&items), expected_ids(&paths));
    }

    fn one_thread() -> IngestOptions {
        IngestOptions {
            decode_pool: Some(Arc::new(decode_pool(1).build().unwrap())),
            ..IngestOptions::with_chunk_size(5)
        }
    }

    #[test]
    fn with_the_writer_decoding_chunks_arrive_whole_and_in_order() {
        let paths = series();
        let opts = one_thread();
        for writer_decodes in [true, false] {
            let mut got = Vec::new();
            let mut positions = Vec::new();
            let chunks = paths.chunks(opts.chunk_size);
            decode_ahead_with(chunks, &opts, false, writer_decodes, |i, items| {
                positions.push(i);
                got.extend(ids(&items));
                Ok(())
            })
            .unwrap();
            assert_eq!(positions, (0..paths.len().div_ceil(5)).collect::<Vec<_>>());
            assert_eq!(got, expected_ids(&paths));
        }
    }

    #[test]
    fn a_failing_writer_stops_the_decoders() {
        let paths = series();
        let opts = one_thread();
        let mut calls = 0;
        let r = decode_ahead_with(paths.chunks(5), &opts, false, true, |_, _| {
            calls += 1;
            Err(IngestError::Decode(Vec::new()))
        });
        assert!(matches!(r, Err(IngestError::Decode(f)) if f.is_empty()));
        assert_eq!(calls, 1);
    }

    #[test]
    fn chunks_before_an_unreadable_file_are_written_and_the_error_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("garbage.boc");
        std::fs::write(&garbage, b"not a bag of cells").unwrap();
        let mut paths = series()[..10].to_vec();
        paths.push(Source::File(garbage.clone()));
        paths.extend_from_slice(&series()[10..15]);
        let mut got = Vec::new();
        let r = decode_ahead_with(paths.chunks(5), &one_thread(), false, true, |i, items| {
            got.push((i, ids(&items)));
            Ok(())
        });
        assert!(matches!(r, Err(IngestError::File(FileError::NotBoc { path })) if path == garbage));
        let expected = expected_ids(&paths[..10]);
        assert_eq!(
            got,
            vec![(0, expected[..5].to_vec()), (1, expected[5..].to_vec())]
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn decode_threads_run_at_a_lower_priority_than_the_writer() {
        // SAFETY: reads the calling thread's own priority.
        let nice =
            || unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) };
        let writer = nice();
        let decoder = decode_pool(1).build().unwrap().install(nice);
        assert_eq!(decoder, (writer + DECODE_NICE).min(19));
    }

    #[test]
    fn a_panic_in_the_decoder_becomes_an_error_with_its_message() {
        let e = std::panic::catch_unwind(|| panic!("bad cell {}", 7)).unwrap_err();
        assert!(DecodeError::from_panic(e)
            .to_string()
            .contains("bad cell 7"));
        let e = std::panic::catch_unwind(|| std::panic::panic_any("plain")).unwrap_err();
        assert!(DecodeError::from_panic(e).to_string().contains("plain"));
    }
}
