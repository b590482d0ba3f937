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
    index_package, is_package, read_entry, EntryRef, PackageIndex, PackageName,
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

/// An import's inputs, expanded: loose files and open packages.
#[derive(Debug, Default)]
pub struct Inputs {
    pub files: Vec<PathBuf>,
    pub packages: Vec<Arc<OpenPackage>>,
}

/// Expands files and directories (recursively) into loose chain files and
/// packages; every package's entries are walked here, so a package that
/// is not one fails before anything is imported.
pub fn collect_inputs(paths: &[PathBuf]) -> Result<Inputs, IngestError> {
    let mut inputs = Inputs::default();
    for path in collect_paths(paths)? {
        if is_package(&path) {
            inputs.packages.push(Arc::new(OpenPackage::open(&path)?));
        } else {
            inputs.files.push(path);
        }
    }
    Ok(inputs)
}

impl Inputs {
    /// Splits the input into the groups an import plans and writes one
    /// after the other, so that a history of thousands of packages is
    /// never planned at once: the packages of one number (a masterchain
    /// package and the shard packages of the blocks it commits) make a
    /// group, in number order; loose files and packages whose names say
    /// nothing go with the first; key-block packages (copies of blocks
    /// the others hold) come last, together.
    pub fn into_groups(self) -> Vec<Inputs> {
        use std::collections::BTreeMap;
        let mut numbered: BTreeMap<u32, Vec<Arc<OpenPackage>>> = BTreeMap::new();
        let mut first = Inputs {
            files: self.files,
            packages: Vec::new(),
        };
        let mut keys = Vec::new();
        for p in self.packages {
            match p.index.name {
                Some(PackageName::Masterchain(n)) | Some(PackageName::Shard { number: n, .. }) => {
                    numbered.entry(n).or_default().push(p)
                }
                Some(PackageName::Key(_)) => keys.push(p),
                None => first.packages.push(p),
            }
        }
        let mut groups = Vec::new();
        let mut numbered = numbered.into_values();
        if let Some(lowest) = numbered.next() {
            first.packages.extend(lowest);
        }
        groups.push(first);
        groups.extend(numbered.map(|packages| Inputs {
            files: Vec::new(),
            packages,
        }));
        if !keys.is_empty() {
            groups.push(Inputs {
                files: Vec::new(),
                packages: keys,
            });
        }
        groups
    }
}
