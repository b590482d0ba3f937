//! What an import reads: loose chain files (blocks, shard states,
//! accounts) and the entries of archive packages, behind one [`Source`]
//! that the decode side reads without knowing which it is.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tonindex_model::BlockIdExt;

use super::IngestError;
use crate::chain::files::{collect_paths, read_boc_file};
use crate::chain::package::{
    index_package, is_package, parse_package_name, read_entry, EntryRef, PackageIndex, PackageName,
};

/// An open package and what its walk found.
#[derive(Debug)]
pub struct OpenPackage {
    pub index: PackageIndex,
    file: File,
}

impl OpenPackage {
    /// Walks the package's entries and keeps the file open to read them.
    pub fn open(path: &Path) -> Result<Self, IngestError> {
        let index = index_package(path)?;
        let file = File::open(path).map_err(|source| crate::chain::package::PackageError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self { index, file })
    }

    /// One entry's bytes (a block's checked against its file hash).
    pub fn read(&self, entry: &EntryRef) -> Result<Vec<u8>, IngestError> {
        Ok(read_entry(&self.index.path, &self.file, entry)?)
    }
}

/// One BoC an import reads: a file, or a block entry of a package.
#[derive(Debug, Clone)]
pub enum Source {
    File(PathBuf),
    Entry {
        package: Arc<OpenPackage>,
        entry: EntryRef,
    },
}

impl Source {
    /// The BoC's bytes: a file's (binary, hex or base64), or an entry's
    /// (refused unless they hash to the file hash its name gives).
    pub fn read(&self) -> Result<Vec<u8>, IngestError> {
        match self {
            Source::File(path) => Ok(read_boc_file(path)?),
            Source::Entry { package, entry } => package.read(entry),
        }
    }

    /// The block an entry's name promises (`None` for a file, which names
    /// nothing): what it decodes to must be that block.
    pub fn named_block(&self) -> Option<BlockIdExt> {
        match self {
            Source::File(_) => None,
            Source::Entry { entry, .. } => Some(entry.name.block),
        }
    }

    /// Its size in bytes, as far as known before reading it (a file that
    /// cannot be read counts 0: reading it names the error).
    pub fn bytes(&self) -> u64 {
        match self {
            Source::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            Source::Entry { entry, .. } => u64::from(entry.len),
        }
    }

    /// Where it is, for messages: the file, or the package and entry.
    pub fn label(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Entry { package, entry } => {
                format!("{}: entry {}", package.index.path.display(), entry.name)
            }
        }
    }
}

/// Bytes of BoCs decoded together at most by default (a chunk holds at
/// least one file). Small enough that the writer starts early and decoding
/// runs beside it, big enough that a chunk's blocks keep the decode
/// threads busy: on 82,000 devnet transactions in 84 blocks of ~0.7 MB,
/// 512-file chunks (one chunk) decoded everything before the writer began.
pub const CHUNK_BYTES: u64 = 2 << 20;

/// Splits `sources` into chunks of at most `max_files` files and, past
/// the first file, at most `max_bytes` bytes: the units the decode pool
/// works on ahead of the writer.
pub fn chunks(sources: &[Source], max_files: usize, max_bytes: u64) -> Vec<&[Source]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, s) in sources.iter().enumerate() {
        let b = s.bytes();
        if i > start && (i - start >= max_files.max(1) || bytes + b > max_bytes) {
            out.push(&sources[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += b;
    }
    if start < sources.len() {
        out.push(&sources[start..]);
    }
    out
}

/// One group's inputs, opened: loose files and packages whose entries
/// have been walked.
#[derive(Debug, Default)]
pub struct Inputs {
    pub files: Vec<PathBuf>,
    pub packages: Vec<Arc<OpenPackage>>,
}

/// An import's inputs, expanded but not opened: a history of hundreds of
/// thousands of packages is opened (and its entries walked) one group at
/// a time, never all at once.
#[derive(Debug, Default)]
pub struct InputPaths {
    pub files: Vec<PathBuf>,
    pub packages: Vec<PathBuf>,
}

/// Expands files and directories (recursively) into loose chain files and
/// packages.
pub fn collect_inputs(paths: &[PathBuf]) -> Result<InputPaths, IngestError> {
    let mut inputs = InputPaths::default();
    for path in collect_paths(paths)? {
        if is_package(&path) {
            inputs.packages.push(path);
        } else {
            inputs.files.push(path);
        }
    }
    Ok(inputs)
}

/// How many bytes of packages one group plans at most by default (a
/// group of one number is never split).
pub const GROUP_BYTES: u64 = 2 << 30;

/// The packages' sizes on disk (one that cannot be read counts 0: opening
/// it names the error).
fn package_bytes(packages: &[PathBuf]) -> u64 {
    packages
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

impl InputPaths {
    /// Opens the group's packages and walks their entries: a package that
    /// is not one fails here, before anything of its group is imported.
    pub fn open(self) -> Result<Inputs, IngestError> {
        let packages = self
            .packages
            .iter()
            .map(|p| OpenPackage::open(p).map(Arc::new))
            .collect::<Result<_, _>>()?;
        Ok(Inputs {
            files: self.files,
            packages,
        })
    }

    /// Splits the input into the groups an import plans and writes one
    /// after the other, by the packages' file names: the packages of one
    /// number (a masterchain package and the shard packages of the blocks
    /// it commits) go into one group, numbers in order, consecutive ones
    /// together up to `group_bytes`; loose files and packages
    /// whose names say nothing go with the first; key-block packages
    /// (copies of blocks the others hold) come last, together.
    pub fn into_groups(self, group_bytes: u64) -> Vec<InputPaths> {
        use std::collections::BTreeMap;
        let mut numbered: BTreeMap<u32, Vec<PathBuf>> = BTreeMap::new();
        let mut first = InputPaths {
            files: self.files,
            packages: Vec::new(),
        };
        let mut keys = Vec::new();
        for p in self.packages {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(parse_package_name);
            match name {
                Some(PackageName::Masterchain(n)) | Some(PackageName::Shard { number: n, .. }) => {
                    numbered.entry(n).or_default().push(p)
                }
                Some(PackageName::Key(_)) => keys.push(p),
                None => first.packages.push(p),
            }
        }
        // Consecutive numbers are planned together up to `group_bytes` of
        // packages: each group drains the decode pipeline once, so a node's
        // small packages (100 masterchain blocks each) are taken by the
        // dozen, and a group stays small enough to plan in memory.
        let mut groups = vec![first];
        for packages in numbered.into_values() {
            let last = groups.last_mut().expect("the first group is there");
            let fits = package_bytes(&last.packages) + package_bytes(&packages) <= group_bytes;
            if last.packages.is_empty() || fits {
                last.packages.extend(packages);
            } else {
                groups.push(InputPaths {
                    files: Vec::new(),
                    packages,
                });
            }
        }
        if !keys.is_empty() {
            groups.push(InputPaths {
                files: Vec::new(),
                packages: keys,
            });
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_at_their_file_count_or_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [300u64, 300, 300, 900, 50, 50, 50, 50, 2000, 10];
        let sources: Vec<Source> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let path = dir.path().join(format!("{i}.boc"));
                std::fs::write(&path, vec![0u8; n as usize]).unwrap();
                Source::File(path)
            })
            .collect();
        let lens = |max_files, max_bytes| -> Vec<usize> {
            chunks(&sources, max_files, max_bytes)
                .iter()
                .map(|c| c.len())
                .collect()
        };
        // 1,000 bytes: 300+300+300, then 900+50+50, then 50+50, then
        // 2,000 (over the bound, alone), then 10.
        assert_eq!(lens(100, 1000), [3, 3, 2, 1, 1]);
        // Three files at most as well.
        assert_eq!(lens(3, 1000), [3, 3, 2, 1, 1]);
        assert_eq!(lens(2, u64::MAX), [2, 2, 2, 2, 2]);
        // Every file is in exactly one chunk, in order, whatever the bounds.
        for (files, bytes) in [(1, 1), (0, 0), (7, 10_000), (100, u64::MAX)] {
            let all: Vec<String> = chunks(&sources, files, bytes)
                .concat()
                .iter()
                .map(Source::label)
                .collect();
            assert_eq!(all, sources.iter().map(Source::label).collect::<Vec<_>>());
        }
        assert!(chunks(&[], 5, 5).is_empty());
    }
}
