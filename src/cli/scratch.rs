//! Scratch directories in the system's temporary directory (a follower's
//! secondary-instance files, `tonindex dev`'s throwaway chain) that the
//! next process of the same kind removes when the one that made them was
//! killed (SIGKILL, OOM): a dropped [`tempfile::TempDir`] removes itself,
//! a killed process cannot. Each holds an owner file its process keeps
//! locked (`flock`, released by the kernel when the process dies, seen
//! from every process of the host whatever its pid namespace).

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The file a scratch directory's owner keeps locked.
const OWNER: &str = ".owner";

/// A scratch directory, removed on drop.
pub struct Scratch {
    path: PathBuf,
    _owner: File,
}

impl Scratch {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A new scratch directory `<prefix>…`, after removing those of `prefix`
/// whose owner is gone. It is made under another name, locked, then
/// renamed, so that no other process ever sees it unlocked.
pub fn dir(prefix: &str) -> anyhow::Result<Scratch> {
    let tmp = std::env::temp_dir();
    remove_orphans(&tmp, prefix);
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{prefix}"))
        .tempdir_in(&tmp)
        .context("creating a scratch directory")?;
    let owner = File::create(staging.path().join(OWNER)).context("creating a scratch directory")?;
    owner.lock().context("locking a scratch directory")?;
    let name = staging
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix('.'))
        .map(str::to_string)
        .context("naming a scratch directory")?;
    let path = tmp.join(name);
    std::fs::rename(staging.keep(), &path).context("naming a scratch directory")?;
    Ok(Scratch {
        path,
        _owner: owner,
    })
}

/// Removes the `<prefix>…` directories under `under` whose owner file is
/// not locked (its process is gone). Directories without one are left.
fn remove_orphans(under: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(under) else {
        return;
    };
    for entry in entries.flatten() {
        let named = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(prefix));
        if !named {
            continue;
        }
        let Ok(owner) = File::open(entry.path().join(OWNER)) else {
            continue;
        };
        if owner.try_lock().is_ok() {
            if let Err(e) = std::fs::remove_dir_all(entry.path()) {
                tracing::debug!("removing {}: {e}", entry.path().display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    #[test]
    fn an_unlocked_scratch_goes_a_locked_one_stays() {
        let under = tempfile::tempdir().unwrap();
        let dead = under.path().join("tonindex-test-dead");
        let live = under.path().join("tonindex-test-live");
        let unowned = under.path().join("tonindex-test-unowned");
        for d in [&dead, &live, &unowned] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("LOG"), b"x").unwrap();
        }
        File::create(dead.join(super::OWNER)).unwrap();
        // flock locks belong to the open file: another open of the same
        // file (as in another process) cannot take it while this is held.
        let held = File::create(live.join(super::OWNER)).unwrap();
        held.lock().unwrap();
        super::remove_orphans(under.path(), "tonindex-test-");
        assert!(!dead.exists());
        assert!(live.exists());
        assert!(unowned.exists());
    }

    #[test]
    fn a_scratch_is_locked_while_held_and_gone_when_dropped() {
        let s = super::dir("tonindex-scratch-test-").unwrap();
        let path = s.path().to_path_buf();
        assert!(path.is_dir());
        let other = File::open(path.join(super::OWNER)).unwrap();
        assert!(other.try_lock().is_err());
        drop(other);
        drop(s);
        assert!(!path.exists());
    }
}
