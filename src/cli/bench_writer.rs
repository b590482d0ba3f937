//! The writer alone in `tonindex bench`: the block set decoded beforehand
//! into units, then applied to fresh databases by one writer with its own
//! row-encoding threads, as an import's writer, with no decoding in the
//! way. That is the ceiling of decode+index once decode threads are
//! plenty, the regime where traces cost the writer most (their rows, their
//! assembly and classification beside its work). Its threads are the
//! writer and `encoding_threads`, so a machine with a core for each
//! measures that regime without the decode threads' contention: on a
//! 2-core machine, the writer and one encoding thread.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tonindex_storage::Db;

use super::bench::{median, scratch_dir, WriterSteps, IMPORTER};
use crate::decode::decode_block;
use crate::index::{Indexer, Planner, RowEncoding, Unit};
use crate::ingest::IngestSummary;

/// Decodes `bocs` (one block set) into the units an import applies.
fn units(bocs: &[Vec<u8>]) -> anyhow::Result<Vec<Unit>> {
    let blocks = bocs
        .par_iter()
        .map(|b| decode_block(b))
        .collect::<Result<Vec<_>, _>>()?;
    let mut planner = Planner::new(blocks.len());
    let mut units = planner.push(blocks)?;
    units.extend(planner.finish());
    Ok(units)
}

/// One sample: the units applied `rounds` times, each into a fresh
/// database, every unit's traces written before the round's database is
/// closed. Database opening and closing are not timed.
fn sample(
    units: &[Unit],
    pool: &Arc<rayon::ThreadPool>,
    rounds: u32,
    traces: bool,
) -> anyhow::Result<IngestSummary> {
    let mut total = IngestSummary::default();
    for _ in 0..rounds.max(1) {
        let dir = scratch_dir()?;
        let db = Db::open(&dir, &IMPORTER)?;
        let indexer = Indexer::new(&db)
            .with_traces(traces)
            .with_encoding(RowEncoding::Parallel(Some(pool.clone())));
        let start = Instant::now();
        for unit in units {
            let applied = indexer.apply(unit)?;
            total.applied.transactions += applied.transactions;
        }
        indexer.flush()?;
        total.write_time += start.elapsed();
        total.steps += indexer.step_times();
        drop(indexer);
        drop(db);
        std::fs::remove_dir_all(&dir)?;
    }
    total.elapsed = total.write_time;
    Ok(total)
}

/// Runs the phase and prints its rates, without traces and with them, and
/// the writer's time by step.
pub fn run(
    bocs: &[Vec<u8>],
    encoding_threads: usize,
    rounds: u32,
    samples: u32,
) -> anyhow::Result<()> {
    let units = units(bocs)?;
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(encoding_threads.max(1))
            .thread_name(|i| format!("encode-{i}"))
            .build()?,
    );
    let rate = |s: &IngestSummary| {
        s.applied.transactions as f64 / s.elapsed.max(Duration::from_nanos(1)).as_secs_f64()
    };
    let (mut bare, mut traced) = (Vec::new(), Vec::new());
    let (mut bare_steps, mut traced_steps) = (WriterSteps::default(), WriterSteps::default());
    // One warm-up round of each, then samples in turns.
    sample(&units, &pool, 1, false)?;
    sample(&units, &pool, 1, true)?;
    for _ in 0..samples {
        let s = sample(&units, &pool, rounds, false)?;
        bare.push(rate(&s));
        bare_steps.push(&s);
        let s = sample(&units, &pool, rounds, true)?;
        traced.push(rate(&s));
        traced_steps.push(&s);
    }
    println!(
        "\nthe writer alone (the set decoded beforehand, {} encoding thread(s), {rounds} fresh \
         databases a sample, medians of {samples}): {:.0} tx/s without traces, {:.0} with them: \
         {:.2}x",
        encoding_threads.max(1),
        median(&bare),
        median(&traced),
        median(&traced) / median(&bare)
    );
    println!(
        "  the writer's us/tx without traces {}; with them {}",
        bare_steps.show(false),
        traced_steps.show(true)
    );
    Ok(())
}
