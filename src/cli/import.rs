//! `tonindex import`: block files, state files and archive packages into
//! the database, with progress and a summary.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tonindex_storage::{Db, DbOptions};

use crate::config::Config;
use crate::ingest::{import_files, IngestOptions};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Database directory (overrides the config's `db`).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Decode threads (0 = one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Bytes of archive packages planned (read, ordered, checked) together
    /// at most; consecutive package numbers are grouped up to it (testing
    /// aid: 1 plans each number on its own).
    #[arg(long, hide = true, value_name = "BYTES")]
    pub group_bytes: Option<u64>,
    /// Pause after every committed unit (testing aid for crash tests).
    #[arg(long, hide = true, value_name = "MS")]
    pub unit_delay_ms: Option<u64>,
    /// Import the masterchain blocks of archive packages without checking
    /// their validators' signatures (the check needs the network's zero
    /// state, or the index's config, to start from).
    #[arg(long)]
    pub trust_files: bool,
    /// Block and state files, archive packages (.pack), or directories
    /// searched recursively for .boc .bin .hex .txt .b64 .pack (a node's
    /// `db/archive/packages/`, a dump's bags, `db/import/`).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// SIGTERM and SIGINT ask the import to stop after the unit it is writing.
#[cfg(target_os = "linux")]
fn stop_on_signals() {
    extern "C" fn on_signal(_: libc::c_int) {
        crate::ingest::request_stop();
    }
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
}

pub fn run(cfg: &Config, args: &ImportArgs) -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    stop_on_signals();
    super::init_threads(cfg.import.threads)?;
    let db = Db::open(
        &cfg.db,
        &DbOptions {
            sync_writes: cfg.sync_writes,
            write_only_memtables: true,
            scratch: false,
            bulk: true,
        },
    )?;
    let bar = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {pos} blocks {msg}")
            .expect("static template"),
    );
    let opts = IngestOptions {
        chunk_size: cfg.import.chunk_size,
        chunk_bytes: cfg.import.chunk_bytes,
        unit_delay: args.unit_delay_ms.map(Duration::from_millis),
        decode_pool: None,
        traces: true,
        trust_files: args.trust_files,
        group_bytes: args.group_bytes.unwrap_or(crate::ingest::GROUP_BYTES),
        keep_states: cfg.index.keep_states,
    };
    let mut txs = 0u64;
    let summary = import_files(&db, &args.paths, &opts, |unit, applied| {
        bar.inc(unit.blocks.len() as u64);
        txs += applied.transactions;
        bar.set_message(format!("{txs} tx"));
    });
    bar.finish_and_clear();
    if let Err(crate::ingest::IngestError::Stopped { units }) = &summary {
        db.flush()?;
        println!(
            "stopped on request after {units} unit(s), each whole and flushed; run the same \
             import again to go on"
        );
        return Ok(());
    }
    let s = summary?;
    // What the import left in memtables goes to files now, once: a follower
    // opened over the index (`tonindex serve`) would otherwise replay the
    // whole log into memtables at every start (a 100k-transaction import:
    // 5.5 s and 443 MB to its first answer, against 0.07 s and 59 MB).
    let flush_start = std::time::Instant::now();
    db.flush()?;
    tracing::info!(
        "memtables flushed to files in {:.2}s",
        flush_start.elapsed().as_secs_f64()
    );
    let secs = s.elapsed.as_secs_f64();
    tracing::info!(
        "time: {:.2}s in all; the writer applied units for {:.2}s and decoded for {:.2}s while \
         it had nothing to write; the decode pool's threads decoded for {:.2}s",
        secs,
        s.write_time.as_secs_f64(),
        s.writer_decode_time.as_secs_f64(),
        s.decode_time.as_secs_f64(),
    );
    let a = s.applied;
    println!(
        "imported {} blocks ({} already present, {} shard blocks linked to their masterchain block), \
         {} transactions, {} messages from {} files and entries in {:.2}s ({:.0} tx/s) into {}",
        a.blocks,
        a.skipped_blocks,
        a.adopted_blocks,
        a.transactions,
        a.messages,
        s.files,
        secs,
        s.transactions_seen as f64 / secs.max(1e-9),
        cfg.db.display()
    );
    if s.states > 0 || a.state_updates > 0 {
        println!(
            "account state: {} state file(s) imported, {} block(s) applied to held shard states",
            s.states, a.state_updates
        );
    }
    if a.released.states > 0 {
        println!(
            "state retention: {} older state(s) released, {} cell(s) no kept state uses deleted \
             (index.keep_states = {})",
            a.released.states, a.released.cells, cfg.index.keep_states
        );
    }
    let p = &s.plan;
    if p.packages > 0 {
        println!(
            "packages: {} read; {} masterchain block(s) checked by their validators' signatures{}",
            p.packages,
            p.signatures_checked,
            if p.unchecked > 0 {
                format!(", {} taken unchecked (--trust-files)", p.unchecked)
            } else {
                String::new()
            }
        );
    }
    if p.duplicates > 0 {
        println!(
            "{} block(s) given more than once were read once",
            p.duplicates
        );
    }
    if !p.uncommitted.is_empty() {
        let first = p.uncommitted[0];
        println!(
            "{} shard block(s) are not committed by any masterchain block of the input (the first: \
             ({},{:016x},{})); each was imported as a unit of its own",
            p.uncommitted.len(),
            first.workchain,
            first.shard,
            first.seqno
        );
    }
    if a.state_gaps > 0 {
        println!(
            "warning: {} block(s) could not advance their shard's held state (each named in a \
             warning above)",
            a.state_gaps
        );
    }
    if !p.cuts.is_empty() {
        for (path, cut) in &p.cuts {
            eprintln!(
                "{}: cut inside entry {} (byte {}): the {} whole entries before it were imported",
                path.display(),
                cut.index,
                cut.offset,
                cut.index
            );
        }
        anyhow::bail!(
            "{} package(s) end inside an entry; import the complete package(s) again to read the rest",
            p.cuts.len()
        );
    }
    Ok(())
}
