//! `tonindex bench`: decode and index throughput on real block files.
//!
//! Three rates, each at every requested thread count:
//! - **raw**: what tycho-types alone does — BoC decode, `Block`/`BlockExtra`
//!   parse, and every `Transaction` parsed from the account blocks;
//! - **decode**: our full decode (`decode::decode_block`: transactions with
//!   all phases, messages with bodies, descriptor envelopes, BoCs);
//! - **decode+index**: the import pipeline (`ingest::decode_ahead` on the
//!   pool, one writer applying WriteBatches through `ingest::ImportWriter`
//!   and decoding while it waits, where a core is left over) in steady
//!   state: the set imported `--index-rounds` times, each into a
//!   fresh database with the importer's options, the next round decoding
//!   while the previous one is written. No shard state is held, so blocks
//!   do not keep their state updates, as in an import of blocks alone.
//!
//! The writer's time per transaction is shown by step (traces, the
//! transactions' rows, the commit), with traces and without, since the
//! writer is the serial part an import waits for.
//!
//! Rates are transactions per second, also per decode thread, and as ratios
//! to the raw rate at the same thread count. The writer and RocksDB's
//! threads are not counted as decode threads. Per-core rates (Linux): the
//! process pinned to as many cores as decode threads, for the lowest and
//! the highest thread count in turns; the writer then only writes.
//!
//! Each rate is the median of `--samples` measurements, the phases taking
//! turns (raw, decode, decode+index, raw, …), so that a slow spell of the
//! machine spreads over all three instead of landing on one; the spread of
//! the samples is printed beside it.
//!
//! Then the writer alone (`bench_writer`): the set decoded beforehand and
//! applied by one writer with its row-encoding threads, with traces and
//! without: the ceiling decode+index reaches once decode threads are
//! plenty. Last, the contracts step's cost on real account states
//! (`bench_contracts`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;
use tonindex_storage::{Db, DbOptions};
use tycho_types::models::{Block, BlockExtra};

use crate::chain::files::{collect_paths, read_boc_file};
use crate::config::Config;
use crate::decode::decode_block;
use crate::index::{Applied, Unit};
use crate::ingest::{
    decode_ahead, import_files, ImportWriter, IngestError, IngestOptions, IngestSummary, Source,
};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Block files or directories (default: tests/data/fixtures/blocks).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Thread counts to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub threads: Vec<usize>,
    /// Transactions per raw or decode sample (the block set is repeated to reach it).
    #[arg(long, default_value_t = 60_000)]
    pub min_tx: u64,
    /// Fresh-database imports per decode+index sample. A sample starts
    /// with the writer waiting for the first round and ends with it writing
    /// the last one alone: more rounds, less of that fill and drain, which a
    /// long import does not have.
    #[arg(long, default_value_t = 40)]
    pub index_rounds: u32,
    /// Samples per phase and thread count; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub samples: u32,
    /// Row-encoding threads of the writer-alone phase (default: the cores
    /// beside the writer, at most 4, an import writer's most); 0 skips it.
    #[arg(long)]
    pub encoding_threads: Option<usize>,
}

/// What tycho-types does on its own: decode the BoC and parse every transaction.
fn raw_decode(boc: &[u8]) -> anyhow::Result<u64> {
    let root = tycho_types::boc::Boc::decode(boc)?;
    let block: Block = root.parse()?;
    block.load_info()?;
    let extra: BlockExtra = block.load_extra()?;
    let mut n = 0;
    for entry in extra.account_blocks.load()?.iter() {
        let (_, _, account_block) = entry?;
        for tx in account_block.transactions.iter() {
            let (_, _, tx) = tx?;
            tx.load()?;
            n += 1;
        }
    }
    Ok(n)
}

/// The database as `tonindex import` opens it.
pub(super) const IMPORTER: DbOptions = DbOptions {
    sync_writes: false,
    write_only_memtables: true,
    scratch: false,
    bulk: true,
};

/// One phase at one thread count: the rate (tx/s) of every sample.
struct Rate {
    phase: &'static str,
    threads: usize,
    samples: Vec<f64>,
}

impl Rate {
    fn per_sec(&self) -> f64 {
        median(&self.samples)
    }

    fn spread(&self) -> (f64, f64) {
        let min = self.samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.samples.iter().copied().fold(0.0, f64::max);
        (min, max)
    }
}

/// Samples of the writer's time per transaction, in all and by step.
#[derive(Default)]
pub(super) struct WriterSteps {
    apply: Vec<f64>,
    traces: Vec<f64>,
    settle: Vec<f64>,
    rows: Vec<f64>,
    rows_wait: Vec<f64>,
    commit: Vec<f64>,
    trace_commit: Vec<f64>,
    classify: Vec<f64>,
    traces_wait: Vec<f64>,
}

impl WriterSteps {
    pub(super) fn push(&mut self, s: &IngestSummary) {
        let per_tx =
            |d: std::time::Duration| d.as_secs_f64() * 1e6 / s.applied.transactions.max(1) as f64;
        self.apply.push(per_tx(s.write_time));
        self.traces.push(per_tx(s.steps.traces));
        self.settle.push(per_tx(s.steps.settle));
        self.rows.push(per_tx(s.steps.rows));
        self.rows_wait.push(per_tx(s.steps.rows_wait));
        self.commit.push(per_tx(s.steps.commit));
        self.trace_commit.push(per_tx(s.steps.trace_commit));
        self.classify.push(per_tx(s.steps.classify));
        self.traces_wait.push(per_tx(s.steps.traces_wait));
    }

    pub(super) fn show(&self, traces: bool) -> String {
        let (traces, classify) = if traces {
            (
                format!(
                    "traces {:.1} of which settling {:.1}, ",
                    median(&self.traces),
                    median(&self.settle)
                ),
                format!(
                    ", waiting for rows {:.1}, for the last unit's traces {:.1}); classifying {:.1}, committing traces {:.1} (where rows are encoded in parallel, they are encoded beside the writer's work on the unit, and a unit's traces are assembled, classified and committed beside its work on the next)",
                    median(&self.rows_wait),
                    median(&self.traces_wait),
                    median(&self.classify),
                    median(&self.trace_commit)
                ),
            )
        } else {
            (String::new(), ")".to_string())
        };
        format!(
            "{:.1} ({traces}tx rows {:.1}, commit {:.1}{classify}",
            median(&self.apply),
            median(&self.rows),
            median(&self.commit)
        )
    }
}

pub(super) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let inputs = if args.paths.is_empty() {
        vec![PathBuf::from("tests/data/fixtures/blocks")]
    } else {
        args.paths.clone()
    };
    let (files, bocs, set_tx) = load_blocks(&inputs)?;
    anyhow::ensure!(set_tx > 0, "no transactions in the given blocks");
    let repeat = args.min_tx.div_ceil(set_tx).max(1) as usize;
    let work: Vec<&[u8]> = (0..repeat)
        .flat_map(|_| bocs.iter().map(Vec::as_slice))
        .collect();
    println!(
        "tonindex bench: {} blocks, {} transactions per set; a raw or decode sample decodes the \
         set {}x, a decode+index sample imports it {}x; {} samples per phase; machine: {} cores",
        bocs.len(),
        set_tx,
        repeat,
        args.index_rounds.max(1),
        args.samples,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    let mut rates = Vec::new();
    for &threads in &args.threads {
        let pool = Arc::new(crate::ingest::decode_pool(threads).build()?);
        // Warm up caches and the allocator once per pool.
        pool.install(|| {
            work.par_iter()
                .take(bocs.len())
                .for_each(|b| drop(decode_block(b)))
        });

        let mut raw = Vec::new();
        let mut decode = Vec::new();
        let mut indexed = Vec::new();
        let mut untraced = Vec::new();
        let (mut decoder_busy, mut writer_busy, mut writer_decoding, mut cpu_per_tx) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // The writer's microseconds per transaction: applying in all, then
        // by step (traces, rows, commit); without traces and with them.
        let (mut writer_bare, mut writer_traced) = (WriterSteps::default(), WriterSteps::default());
        for _ in 0..args.samples {
            let t = Instant::now();
            let tx: u64 =
                pool.install(|| work.par_iter().map(|b| raw_decode(b).unwrap_or(0)).sum());
            raw.push(tx as f64 / t.elapsed().as_secs_f64());

            let t = Instant::now();
            let tx: u64 = pool.install(|| {
                work.par_iter()
                    .map(|b| decode_block(b).map_or(0, |d| d.transactions.len() as u64))
                    .sum()
            });
            decode.push(tx as f64 / t.elapsed().as_secs_f64());

            let bare = steady_import(&files, &pool, args.index_rounds, false)?.summary;
            untraced.push(bare.applied.transactions as f64 / bare.elapsed.as_secs_f64());
            writer_bare.push(&bare);
            let steady = steady_import(&files, &pool, args.index_rounds, true)?;
            let s = &steady.summary;
            writer_traced.push(s);
            let elapsed = s.elapsed.as_secs_f64();
            let tx = s.applied.transactions;
            indexed.push(tx as f64 / elapsed);
            decoder_busy.push(100.0 * s.decode_time.as_secs_f64() / elapsed / threads as f64);
            writer_busy.push(100.0 * s.write_time.as_secs_f64() / elapsed);
            writer_decoding.push(100.0 * s.writer_decode_time.as_secs_f64() / elapsed);
            if let Some(cpu) = steady.cpu {
                cpu_per_tx.push(cpu.as_secs_f64() * 1e6 / tx.max(1) as f64);
            }
        }
        println!(
            "threads {threads}: of the decode+index wall time each decode thread decoded {:.0}%, \
             the writer writing {:.0}% and decoding {:.0}%{} (medians)",
            median(&decoder_busy),
            median(&writer_busy),
            median(&writer_decoding),
            if cpu_per_tx.is_empty() {
                String::new()
            } else {
                format!(
                    "; CPU time of all threads (RocksDB's included) {:.1} us/tx",
                    median(&cpu_per_tx)
                )
            }
        );
        println!(
            "threads {threads}: the writer's us/tx applying units (medians) without traces {}; \
             with them {}",
            writer_bare.show(false),
            writer_traced.show(true)
        );
        for (phase, samples) in [
            ("raw", raw),
            ("decode", decode),
            ("index-notrace", untraced),
            ("decode+index", indexed),
        ] {
            rates.push(Rate {
                phase,
                threads,
                samples,
            });
        }
    }

    print_rates(&rates, &args.threads);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let encoding_threads = args
        .encoding_threads
        .unwrap_or_else(|| cores.saturating_sub(1).clamp(1, 4));
    if encoding_threads > 0 {
        super::bench_writer::run(&bocs, encoding_threads, args.index_rounds, args.samples)?;
    }
    if let (Some(&lo), Some(&hi)) = (args.threads.iter().min(), args.threads.iter().max()) {
        if hi > lo {
            println!("\nscaling {lo} -> {hi} threads (medians):");
            for phase in ["raw", "decode", "decode+index"] {
                let at = |n| {
                    rates
                        .iter()
                        .find(|r| r.phase == phase && r.threads == n)
                        .map(Rate::per_sec)
                };
                if let (Some(a), Some(b)) = (at(lo), at(hi)) {
                    println!("  {phase:<14}{:.2}x", b / a);
                }
            }
            println!(
                "  (unpinned: beside {lo} decode thread(s) the writer and RocksDB use the other \
                 cores, the writer decoding too while it waits)"
            );
            #[cfg(target_os = "linux")]
            per_core(&files, lo, hi, args)?;
        }
    }

    disk_per_tx(&files)?;
    let scratch = scratch_dir()?;
    super::bench_contracts::run(args.samples, &scratch)?;
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    Ok(())
}

/// decode+index per core: the process pinned to `lo` cores with `lo`
/// decode threads, then to `hi` cores with `hi`, in turns. The writer and
/// RocksDB share those cores, and the writer never decodes (no core is
/// left over), so the two rates compare the work one core and `hi` cores
/// get done.
#[cfg(target_os = "linux")]
fn per_core(files: &[PathBuf], lo: usize, hi: usize, args: &BenchArgs) -> anyhow::Result<()> {
    use super::affinity::Cpus;
    let all = Cpus::current()?;
    if all.count() < hi {
        println!(
            "\nper core: not measured, the process may use {} CPUs and {hi} threads need {hi}",
            all.count()
        );
        return Ok(());
    }
    let pools = [lo, hi]
        .into_iter()
        .map(|n| crate::ingest::decode_pool(n).build().map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let mut rates = [lo, hi].map(|threads| Rate {
        phase: "decode+index",
        threads,
        samples: Vec::new(),
    });
    let measured = (|| -> anyhow::Result<()> {
        for _ in 0..args.samples {
            for (rate, pool) in rates.iter_mut().zip(&pools) {
                all.first(rate.threads).apply_to_process()?;
                let s = steady_import(files, pool, args.index_rounds, true)?.summary;
                rate.samples
                    .push(s.applied.transactions as f64 / s.elapsed.as_secs_f64());
            }
        }
        Ok(())
    })();
    all.apply_to_process()?;
    measured?;
    println!(
        "\nper core: decode+index with the process pinned to as many cores as decode threads \
         (medians):"
    );
    for r in &rates {
        let (min, max) = r.spread();
        println!(
            "  {} core(s), {} thread(s){:>12.0} tx/s{:>22}",
            r.threads,
            r.threads,
            r.per_sec(),
            format!("{min:.0}-{max:.0}")
        );
    }
    println!(
        "  scaling {lo} -> {hi} cores  {:.2}x",
        rates[1].per_sec() / rates[0].per_sec()
    );
    Ok(())
}

/// What [`steady_import`] measured.
struct Steady {
    summary: IngestSummary,
    /// CPU time of every thread of the process over the same wall time.
    cpu: Option<std::time::Duration>,
}

/// decode+index in steady state: the block set imported `rounds` times,
/// each time into a fresh database, through one pipeline, so that the next
/// round's blocks decode while the previous round's are written, as in a
/// long import. (One import of a small set is mostly pipeline fill and
/// drain: its biggest blocks come last, and standalone shard blocks wait
/// for a masterchain block until the end.)
fn steady_import(
    files: &[PathBuf],
    pool: &Arc<rayon::ThreadPool>,
    rounds: u32,
    traces: bool,
) -> anyhow::Result<Steady> {
    fn ignore(_: &Unit, _: &Applied) {}
    let opts = IngestOptions {
        decode_pool: Some(pool.clone()),
        traces,
        ..IngestOptions::with_chunk_size(Config::default().import.chunk_size)
    };
    let mut dirs = Vec::new();
    let mut dbs = Vec::new();
    for _ in 0..rounds.max(1) {
        let dir = scratch_dir()?;
        dbs.push(Db::open(&dir, &IMPORTER)?);
        dirs.push(dir);
    }
    let sources: Vec<Source> = files.iter().cloned().map(Source::File).collect();
    let per_round = crate::ingest::sources::chunks(&sources, opts.chunk_size, opts.chunk_bytes);
    let chunks = (0..dbs.len()).flat_map(|_| per_round.iter().copied());
    let mut writers: Vec<_> = dbs
        .iter()
        .map(|db| Some(ImportWriter::new(db, &opts, ignore as fn(&Unit, &Applied))))
        .collect();
    let mut total = IngestSummary::default();
    let mut finish = |writer: Option<ImportWriter<'_, _>>| -> Result<(), IngestError> {
        let s = writer.expect("each round finishes once").finish()?;
        total.applied.transactions += s.applied.transactions;
        total.write_time += s.write_time;
        total.steps += s.steps;
        Ok(())
    };
    let cpu_before = process_cpu_time();
    let start = Instant::now();
    let mut finished = 0;
    let decode = decode_ahead(chunks, &opts, false, |i, items| {
        let round = i / per_round.len();
        while finished < round {
            finish(writers[finished].take())?;
            finished += 1;
        }
        writers[round]
            .as_mut()
            .expect("a round in progress")
            .push(items)
    })?;
    for writer in &mut writers[finished..] {
        finish(writer.take())?;
    }
    total.elapsed = start.elapsed();
    total.decode_time = decode.pool;
    total.writer_decode_time = decode.writer;
    let cpu = process_cpu_time()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    drop(writers);
    drop(dbs);
    for dir in dirs {
        std::fs::remove_dir_all(dir)?;
    }
    Ok(Steady {
        summary: total,
        cpu,
    })
}

/// User + system CPU time of this process so far, from `/proc/self/stat`
/// (Linux, 100 ticks per second); `None` elsewhere.
fn process_cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(std::time::Duration::from_millis((utime + stime) * 10))
}

pub(super) fn scratch_dir() -> anyhow::Result<PathBuf> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tonindex-bench-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(dir)
}

/// The block files among `inputs` (a fixture folder may hold other BoCs),
/// their bytes, and the transactions they hold in all.
fn load_blocks(inputs: &[PathBuf]) -> anyhow::Result<(Vec<PathBuf>, Vec<Vec<u8>>, u64)> {
    let mut files = Vec::new();
    let mut bocs = Vec::new();
    let mut set_tx = 0u64;
    for path in collect_paths(inputs)? {
        let Ok(boc) = read_boc_file(&path) else {
            continue;
        };
        let Ok(n) = raw_decode(&boc) else { continue };
        set_tx += n;
        files.push(path);
        bocs.push(boc);
    }
    Ok((files, bocs, set_tx))
}

/// The rates table: each phase's median, spread and rate per thread, next
/// to the raw decode's; then what traces and actions cost.
fn print_rates(rates: &[Rate], thread_counts: &[usize]) {
    println!(
        "\n{:<14}{:>8}{:>14}{:>22}{:>16}{:>12}",
        "phase", "threads", "tx/s", "samples min-max", "tx/s/thread", "vs raw"
    );
    for r in rates {
        let raw = rates
            .iter()
            .find(|x| x.phase == "raw" && x.threads == r.threads)
            .map_or(f64::NAN, Rate::per_sec);
        let (min, max) = r.spread();
        println!(
            "{:<14}{:>8}{:>14.0}{:>22}{:>16.0}{:>12.2}",
            r.phase,
            r.threads,
            r.per_sec(),
            format!("{min:.0}-{max:.0}"),
            r.per_sec() / r.threads as f64,
            r.per_sec() / raw
        );
    }
    for &threads in thread_counts {
        let at = |phase| {
            rates
                .iter()
                .find(|r| r.phase == phase && r.threads == threads)
                .map_or(f64::NAN, Rate::per_sec)
        };
        println!(
            "threads {threads}: decode+index with traces and actions runs at {:.2}x the rate \
             without them (index-notrace: assembly and classification off)",
            at("decode+index") / at("index-notrace")
        );
    }
}

/// Bytes on disk per transaction: one import of `files`, flushed and
/// compacted, table by table.
fn disk_per_tx(files: &[PathBuf]) -> anyhow::Result<()> {
    let dir = scratch_dir()?;
    let db = Db::open(&dir, &IMPORTER)?;
    let s = import_files(&db, files, &IngestOptions::with_chunk_size(64), |_, _| {})?;
    db.flush()?;
    db.compact()?;
    let tables = db.stats()?;
    let sst: u64 = tables.iter().map(|t| t.sst_bytes).sum();
    let tx = s.applied.transactions.max(1);
    println!(
        "\ndisk after compaction: {} bytes in SST files for {} transactions = {:.0} bytes/tx",
        sst,
        s.applied.transactions,
        sst as f64 / tx as f64
    );
    for t in tables.iter().filter(|t| t.sst_bytes > 0) {
        println!(
            "  {:<20}{:>10} bytes {:>8.0} bytes/tx",
            t.name,
            t.sst_bytes,
            t.sst_bytes as f64 / tx as f64
        );
    }
    drop(db);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
