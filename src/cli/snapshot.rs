//! `tonindex snapshot create` and `restore`: a whole index in one file (or
//! pipe), for a new replica to start from instead of syncing from scratch.
//!
//! `create` reads the database as a follower does — beside a running
//! `tonindex run` or `dev`, which it neither stops nor slows beyond the
//! reads — caught up once, so the snapshot is the index as of one commit.
//! Its header says what that index is: the network's zero state (when the
//! index starts at block 1), the newest masterchain block, the schema, the
//! tonindex version; every table follows with its row count and digest
//! (`tonindex stats`' digests), and a checksum of the whole.
//!
//! `restore` writes into a directory of its own beside the target and
//! renames it into place only once every table matched its digest and the
//! restored database, read back, gives the same digests: a refused, cut or
//! killed restore leaves no database at the target (a restore killed
//! before leaves a scratch directory that the next one removes).

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context as _};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use tonindex_storage::snapshot::{read_snapshot, write_snapshot, SnapshotTable};
use tonindex_storage::{Db, DbOptions};

use crate::config::Config;
use crate::query;

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(subcommand)]
    pub action: SnapshotAction,
}

#[derive(Debug, Subcommand)]
pub enum SnapshotAction {
    /// Write the index (of a running node too) to FILE, or `-` for standard output.
    Create {
        /// Database directory (overrides the config's `db`).
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Where the snapshot goes: a file (not there yet), or `-`.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Restore a snapshot (FILE, or `-` for standard input) into a new database directory.
    Restore {
        /// The snapshot, or `-`.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Database directory to create (absent or empty).
        #[arg(long, value_name = "DIR")]
        db: PathBuf,
        /// Refuse a snapshot of another network than this global config's
        /// (its zero state).
        #[arg(long, value_name = "FILE")]
        global_config: Option<PathBuf>,
        /// Pause after each table (testing aid: a restore to kill midway).
        #[arg(long, hide = true, value_name = "MS")]
        pause_ms: Option<u64>,
    },
}

/// A block by seqno and hashes (hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotBlock {
    pub seqno: u32,
    pub root_hash: String,
    pub file_hash: String,
}

/// What a snapshot's header says of the index it holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotHeader {
    pub tonindex_version: String,
    /// When the snapshot was made (unix time).
    pub created_utime: u64,
    /// The network's global id (-239 mainnet, -3 testnet), from its blocks.
    pub global_id: Option<i32>,
    /// The masterchain zero state, when the index holds block 1.
    pub zero_state: Option<SnapshotBlock>,
    /// The newest masterchain block the index holds: a node restored from
    /// it follows on from the next one.
    pub mc_block: Option<SnapshotBlock>,
    pub transactions: u64,
}

pub fn run(cfg: &Config, args: &SnapshotArgs) -> anyhow::Result<()> {
    match &args.action {
        SnapshotAction::Create { out, .. } => create(&cfg.db, out),
        SnapshotAction::Restore {
            file,
            db,
            global_config,
            pause_ms,
        } => restore(file, db, global_config.as_deref(), *pause_ms),
    }
}

fn block(b: &tonindex_model::BlockIdExt) -> SnapshotBlock {
    SnapshotBlock {
        seqno: b.id.seqno,
        root_hash: hex::encode(b.root_hash),
        file_hash: hex::encode(b.file_hash),
    }
}

/// The header of the index `db` holds.
fn header_of(db: &Db) -> anyhow::Result<SnapshotHeader> {
    let reader = db.reader();
    let range = query::blocks::mc_block_range(&reader)?;
    let zero_state = match &range {
        Some((first, _)) if first.id.id.seqno == 1 => first
            .prev_blocks
            .first()
            .filter(|p| p.block.id.seqno == 0)
            .map(|p| block(&p.block)),
        _ => None,
    };
    Ok(SnapshotHeader {
        tonindex_version: env!("CARGO_PKG_VERSION").to_string(),
        created_utime: crate::clock::unix_now(),
        global_id: range.as_ref().map(|(_, last)| last.global_id),
        zero_state,
        mc_block: range.as_ref().map(|(_, last)| block(&last.id)),
        transactions: db.cursor()?.transactions,
    })
}

fn bar(what: &str) -> ProgressBar {
    ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} [{{elapsed_precise}}] {what} {{bytes}} ({{bytes_per_sec}}) {{msg}}"
        ))
        .expect("static template"),
    )
}

fn create(db_dir: &Path, out: &Path) -> anyhow::Result<()> {
    if !db_dir.join("CURRENT").is_file() {
        bail!("no database at {}", db_dir.display());
    }
    // Read as a follower: a running node keeps the database's lock.
    let scratch = tempfile::tempdir()?;
    let db = Db::open_follower(db_dir, scratch.path())?;
    db.catch_up()?;
    let header = header_of(&db)?;
    let to_stdout = out == Path::new("-");
    let (sink, partial): (Box<dyn Write>, Option<PathBuf>) = if to_stdout {
        (Box::new(std::io::stdout().lock()), None)
    } else {
        if out.exists() {
            bail!("{} exists: give a new file", out.display());
        }
        let partial = out.with_extension("partial");
        let file = std::fs::File::create(&partial)
            .with_context(|| format!("creating {}", partial.display()))?;
        (
            Box::new(BufWriter::with_capacity(1 << 20, file)),
            Some(partial),
        )
    };
    let bar = bar("snapshot");
    let started = Instant::now();
    let written = write_snapshot(&db, &serde_json::to_vec(&header)?, sink, |table, bytes| {
        bar.set_position(bytes);
        bar.set_message(table.to_string());
    });
    bar.finish_and_clear();
    let tables = match written {
        Ok(t) => t,
        Err(e) => {
            if let Some(p) = &partial {
                let _ = std::fs::remove_file(p);
            }
            return Err(e.into());
        }
    };
    let bytes = match &partial {
        Some(p) => {
            std::fs::File::open(p)?.sync_all()?;
            std::fs::rename(p, out)?;
            std::fs::metadata(out)?.len()
        }
        None => 0,
    };
    let rows: u64 = tables.iter().map(|t| t.rows).sum();
    eprintln!(
        "snapshot of {} ({}): {} tables, {rows} rows{} in {:.1}s",
        db_dir.display(),
        describe(&header),
        tables.len(),
        if to_stdout {
            String::new()
        } else {
            format!(", {bytes} bytes to {}", out.display())
        },
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn describe(h: &SnapshotHeader) -> String {
    match &h.mc_block {
        Some(b) => format!(
            "masterchain block {}, {} transactions, global id {}",
            b.seqno,
            h.transactions,
            h.global_id.unwrap_or_default()
        ),
        None => "no masterchain block".into(),
    }
}

/// Scratch directories a restore into `db` uses: beside it, so that the
/// final rename stays on one filesystem.
fn scratch_prefix(db: &Path) -> anyhow::Result<(PathBuf, String)> {
    let name = db
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("--db {} has no usable name", db.display()))?;
    let parent = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, format!(".{name}.restoring-")))
}

fn restore(
    file: &Path,
    db_dir: &Path,
    global_config: Option<&Path>,
    pause_ms: Option<u64>,
) -> anyhow::Result<()> {
    if db_dir.exists() {
        let empty = db_dir.is_dir() && std::fs::read_dir(db_dir)?.next().is_none();
        if !empty {
            bail!(
                "{} exists and is not an empty directory: restore into a new one (nothing was \
                 changed)",
                db_dir.display()
            );
        }
    }
    let expected_zero_state = match global_config {
        Some(path) => {
            let config: serde_json::Value = serde_json::from_slice(
                &std::fs::read(path).with_context(|| format!("reading {}", path.display()))?,
            )
            .with_context(|| format!("{} is not JSON", path.display()))?;
            Some(block(&crate::chain::liteserver::zero_state(&config)?))
        }
        None => None,
    };
    let input: Box<dyn Read> = if file == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(BufReader::with_capacity(
            1 << 20,
            std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?,
        ))
    };
    // A restore killed before left its scratch directory: ours by name.
    let (parent, prefix) = scratch_prefix(db_dir)?;
    std::fs::create_dir_all(&parent)?;
    for entry in std::fs::read_dir(&parent)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    let scratch = parent.join(format!("{prefix}{}", std::process::id()));
    let result = restore_into(&scratch, input, expected_zero_state, pause_ms);
    let (header, tables) = match result {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(e);
        }
    };
    if db_dir.exists() {
        std::fs::remove_dir(db_dir)?;
    }
    std::fs::rename(&scratch, db_dir)
        .with_context(|| format!("moving the restored database to {}", db_dir.display()))?;
    std::fs::File::open(&parent)?.sync_all()?;
    let rows: u64 = tables.iter().map(|t| t.rows).sum();
    println!(
        "restored {} ({}): {} tables, {rows} rows, each matching the snapshot's digest",
        db_dir.display(),
        describe(&header),
        tables.len()
    );
    Ok(())
}

fn restore_into(
    scratch: &Path,
    input: Box<dyn Read>,
    expected_zero_state: Option<SnapshotBlock>,
    pause_ms: Option<u64>,
) -> anyhow::Result<(SnapshotHeader, Vec<SnapshotTable>)> {
    let db = Db::open(
        scratch,
        &DbOptions {
            sync_writes: false,
            write_only_memtables: false,
            scratch: false,
            bulk: false,
        },
    )?;
    let mut header: Option<SnapshotHeader> = None;
    let bar = bar("restore");
    let read = read_snapshot(
        input,
        &db,
        |bytes| {
            let h: SnapshotHeader = serde_json::from_slice(bytes)
                .map_err(|e| format!("its header does not read: {e}"))?;
            if let Some(expected) = &expected_zero_state {
                match &h.zero_state {
                    Some(z) if z == expected => {}
                    Some(z) => {
                        return Err(format!(
                            "it is of another network: its zero state is {}, the global \
                             config's {}",
                            z.root_hash, expected.root_hash
                        ))
                    }
                    None => {
                        return Err("it does not name its zero state (its index starts after \
                                    block 1), so its network cannot be checked against the \
                                    global config; restore without --global-config to accept it"
                            .into())
                    }
                }
            }
            header = Some(h);
            Ok(())
        },
        |table, bytes| {
            bar.set_position(bytes);
            bar.set_message(table.to_string());
            if let Some(ms) = pause_ms {
                std::thread::sleep(std::time::Duration::from_millis(ms));
            }
        },
    );
    bar.finish_and_clear();
    let (_, tables) = read?;
    let header = header.ok_or_else(|| anyhow!("the snapshot has no header"))?;
    db.flush()?;
    // Read back: what the database now holds is what the snapshot held.
    for (stored, said) in db.stats()?.iter().zip(&tables) {
        if stored.name != said.name || stored.rows != said.rows || stored.digest.0 != said.digest {
            bail!(
                "table {} reads back as {} rows with digest {:016x}, the snapshot held {} with \
                 {:016x}",
                stored.name,
                stored.rows,
                stored.digest.0,
                said.rows,
                said.digest
            );
        }
    }
    drop(db);
    sync_dir(scratch)?;
    Ok((header, tables))
}

/// Makes the directory's files and entries durable before the rename.
fn sync_dir(dir: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() {
            std::fs::File::open(&path)?.sync_all()?;
        }
    }
    std::fs::File::open(dir)?.sync_all()?;
    Ok(())
}
