//! TON archive packages (`.pack`), as a node keeps them under
//! `db/archive/packages/` and public archive dumps publish them: a 4-byte
//! header, then entries of a block, its proof or its proof link, each a
//! small header, a name and the raw BoC.
//!
//! Packages are several GiB, so they are never read whole: [`index_package`]
//! walks the entry headers (seeking over the data) and [`read_entry`] reads
//! one entry's bytes by offset, checking a block against the file hash its
//! name carries. A package a node was writing when it stopped can end in
//! a partial entry: the walk keeps the whole entries before it and names
//! the cut.
//!
//! Layout (ton-blockchain/ton `validator/db/package.cpp`): header u32 LE
//! `0xAE8FDD01`; entry: u32 LE `0x1E8B | name_len << 16`, u32 LE data
//! length, the name, the data. Names: `block_(wc,shard,seqno):ROOT:FILE`,
//! `proof_(…)` (a masterchain block's proof with signatures) and
//! `prooflink_(…)` (a shard block's), shard in hex, hashes in hex.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use tonindex_model::{BlockId, BlockIdExt};

/// The package header.
pub const PACKAGE_MAGIC: u32 = 0xAE8F_DD01;
/// The low half of every entry header.
pub const ENTRY_MAGIC: u16 = 0x1E8B;

/// Why a package could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}: not an archive package (header {found:#010x}, expected {PACKAGE_MAGIC:#010x})"
    )]
    BadMagic { path: PathBuf, found: u32 },
    #[error("{path}: entry {index} at byte {offset}: bad entry header {found:#06x} (expected {ENTRY_MAGIC:#06x})")]
    BadEntry {
        path: PathBuf,
        index: usize,
        offset: u64,
        found: u16,
    },
    #[error("{path}: entry {index} at byte {offset}: name {name:?} does not parse ({why})")]
    BadName {
        path: PathBuf,
        index: usize,
        offset: u64,
        name: String,
        why: &'static str,
    },
    #[error(
        "{path}: entry {name}: its data hashes to {found}, not to the file hash its name gives"
    )]
    HashMismatch {
        path: PathBuf,
        name: String,
        found: String,
    },
}

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    /// `block_`: the block's BoC.
    Block,
    /// `proof_`: a masterchain block's proof, with the validators' signatures.
    Proof,
    /// `prooflink_`: a shard block's proof link (no signatures).
    ProofLink,
}

impl EntryKind {
    fn prefix(self) -> &'static str {
        match self {
            EntryKind::Block => "block_",
            EntryKind::Proof => "proof_",
            EntryKind::ProofLink => "prooflink_",
        }
    }
}

/// An entry's parsed name: what it holds and the block it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryName {
    pub kind: EntryKind,
    pub block: BlockIdExt,
}

impl std::fmt::Display for EntryName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = self.block.id;
        write!(
            f,
            "{}({},{:016x},{}):{}:{}",
            self.kind.prefix(),
            id.workchain,
            id.shard,
            id.seqno,
            hex::encode_upper(self.block.root_hash),
            hex::encode_upper(self.block.file_hash)
        )
    }
}

/// Parses `kind_(wc,shard,seqno):ROOT:FILE`.
pub fn parse_entry_name(name: &str) -> Result<EntryName, &'static str> {
    // `prooflink_` before `proof_`: the shorter is a prefix of the longer.
    let (kind, rest) = [EntryKind::ProofLink, EntryKind::Proof, EntryKind::Block]
        .into_iter()
        .find_map(|k| name.strip_prefix(k.prefix()).map(|rest| (k, rest)))
        .ok_or("not a block_, proof_ or prooflink_ entry")?;
    let rest = rest.strip_prefix('(').ok_or("no '(' after the kind")?;
    let (id, hashes) = rest.split_once(')').ok_or("no ')' closing the block id")?;
    let mut parts = id.split(',');
    let (Some(wc), Some(shard), Some(seqno), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("the block id is not (workchain,shard,seqno)");
    };
    let workchain: i32 = wc.parse().map_err(|_| "the workchain is not a number")?;
    let shard = u64::from_str_radix(shard, 16).map_err(|_| "the shard is not hex")?;
    if shard == 0 {
        return Err("shard 0 is not a shard");
    }
    let seqno: u32 = seqno.parse().map_err(|_| "the seqno is not a number")?;
    let hashes = hashes
        .strip_prefix(':')
        .ok_or("no ':' after the block id")?;
    let (root, file) = hashes.split_once(':').ok_or("not two hashes")?;
    let hash = |h: &str| -> Result<[u8; 32], &'static str> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(h, &mut out).map_err(|_| "a hash is not 64 hex digits")?;
        Ok(out)
    };
    Ok(EntryName {
        kind,
        block: BlockIdExt {
            id: BlockId {
                workchain,
                shard,
                seqno,
            },
            root_hash: hash(root)?,
            file_hash: hash(file)?,
        },
    })
}

/// What a package's file name says: masterchain blocks, the shard blocks
/// they commit, or key blocks; and its number (the first masterchain seqno
/// it covers, for the first two kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PackageName {
    /// `archive.NNNNN.pack`
    Masterchain(u32),
    /// `archive.NNNNN.WC_SHARD.pack` (older nodes: `WC:SHARD`)
    Shard {
        number: u32,
        workchain: i32,
        shard: u64,
    },
    /// `key.archive.NNNNNN.pack`
    Key(u32),
}

/// Reads a package's file name in any of the forms nodes have written;
/// `None` for a name of another shape (the package is still read: its
/// entries name themselves).
pub fn parse_package_name(file_name: &str) -> Option<PackageName> {
    let stem = file_name.strip_suffix(".pack")?;
    if let Some(n) = stem.strip_prefix("key.archive.") {
        return n.parse().ok().map(PackageName::Key);
    }
    let rest = stem.strip_prefix("archive.")?;
    match rest.split_once('.') {
        None => rest.parse().ok().map(PackageName::Masterchain),
        Some((n, shard)) => {
            let (wc, prefix) = shard.split_once(['_', ':'])?;
            Some(PackageName::Shard {
                number: n.parse().ok()?,
                workchain: wc.parse().ok()?,
                shard: u64::from_str_radix(prefix, 16).ok()?,
            })
        }
    }
}

/// One entry of a package: its name and where its data lies.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef {
    pub name: EntryName,
    /// Position among the package's entries.
    pub index: usize,
    /// Byte offset of the data in the file.
    pub offset: u64,
    pub len: u32,
}

/// Where a package ends in a partial entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// The partial entry's position and byte offset.
    pub index: usize,
    pub offset: u64,
}

/// A package's entries, walked without reading their data.
#[derive(Debug, Clone)]
pub struct PackageIndex {
    pub path: PathBuf,
    pub name: Option<PackageName>,
    pub entries: Vec<EntryRef>,
    /// Set when the file ends inside an entry: the entries before it are whole.
    pub cut: Option<Cut>,
}

/// Whether a path names a package (by its `.pack` extension).
pub fn is_package(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pack")
}

/// Walks a package's entry headers (the data is skipped, not read).
pub fn index_package(path: &Path) -> Result<PackageIndex, PackageError> {
    let io = |source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let mut r = BufReader::with_capacity(64 * 1024, file);
    let mut header = [0u8; 4];
    read_full(&mut r, &mut header).map_err(io)?;
    let magic = u32::from_le_bytes(header);
    if size < 4 || magic != PACKAGE_MAGIC {
        return Err(PackageError::BadMagic {
            path: path.to_path_buf(),
            found: if size < 4 { 0 } else { magic },
        });
    }
    let mut entries = Vec::new();
    let mut offset = 4u64;
    let mut cut = None;
    while offset < size {
        let index = entries.len();
        let mut h = [0u8; 8];
        if size - offset < 8 {
            cut = Some(Cut { index, offset });
            break;
        }
        r.read_exact(&mut h).map_err(io)?;
        let tag = u16::from_le_bytes([h[0], h[1]]);
        if tag != ENTRY_MAGIC {
            return Err(PackageError::BadEntry {
                path: path.to_path_buf(),
                index,
                offset,
                found: tag,
            });
        }
        let name_len = u64::from(u16::from_le_bytes([h[2], h[3]]));
        let len = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
        if size - offset - 8 < name_len + u64::from(len) {
            cut = Some(Cut { index, offset });
            break;
        }
        let mut name = vec![0u8; name_len as usize];
        r.read_exact(&mut name).map_err(io)?;
        let bad_name = |name: String, why| PackageError::BadName {
            path: path.to_path_buf(),
            index,
            offset,
            name,
            why,
        };
        let text = String::from_utf8(name)
            .map_err(|e| bad_name(String::from_utf8_lossy(e.as_bytes()).into(), "not UTF-8"))?;
        let parsed = parse_entry_name(&text).map_err(|why| bad_name(text.clone(), why))?;
        let data_offset = offset + 8 + name_len;
        entries.push(EntryRef {
            name: parsed,
            index,
            offset: data_offset,
            len,
        });
        r.seek_relative(i64::from(len)).map_err(io)?;
        offset = data_offset + u64::from(len);
    }
    Ok(PackageIndex {
        path: path.to_path_buf(),
        name: path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_package_name),
        entries,
        cut,
    })
}

/// Reads as much of `buf` as the file has (a file shorter than the header
/// leaves the rest zero; the caller checks the size).
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match r.read(&mut buf[done..])? {
            0 => break,
            n => done += n,
        }
    }
    Ok(())
}

/// Reads one entry's data; a block's must hash to the file hash in its name.
pub fn read_entry(path: &Path, file: &File, entry: &EntryRef) -> Result<Vec<u8>, PackageError> {
    use std::os::unix::fs::FileExt as _;
    let mut data = vec![0u8; entry.len as usize];
    file.read_exact_at(&mut data, entry.offset)
        .map_err(|source| PackageError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if entry.name.kind == EntryKind::Block {
        let hash = crate::decode::file_hash(&data);
        if hash != entry.name.block.file_hash {
            return Err(PackageError::HashMismatch {
                path: path.to_path_buf(),
                name: entry.name.to_string(),
                found: hex::encode_upper(hash),
            });
        }
    }
    Ok(data)
}

/// Appends entries to the package at `path`, creating it (header first)
/// when it does not exist yet. A writer that stops midway leaves a cut
/// that [`index_package`] names, as a node's would.
pub fn append_entries(path: &Path, entries: &[(EntryName, Vec<u8>)]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut out = Vec::new();
    if file.metadata()?.len() == 0 {
        out.extend(PACKAGE_MAGIC.to_le_bytes());
    }
    for (name, data) in entries {
        let name = name.to_string();
        let len = u32::try_from(data.len()).map_err(std::io::Error::other)?;
        out.extend((u32::from(ENTRY_MAGIC) | (name.len() as u32) << 16).to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(name.as_bytes());
        out.extend(data);
    }
    file.write_all(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_in_every_kind() {
        let root = "E592BA3755F2417299FD222102DA27D8DB38FBA767FBCD9D1C9082BF28BA8206";
        let file = "77DC5C75260C0DFC1E185B085BE4995552D795CD48E41E245E7D471A0CB4D9F8";
        for (prefix, kind) in [
            ("block_", EntryKind::Block),
            ("proof_", EntryKind::Proof),
            ("prooflink_", EntryKind::ProofLink),
        ] {
            let text = format!("{prefix}(0,8000000000000000,1):{root}:{file}");
            let name = parse_entry_name(&text).unwrap();
            assert_eq!(name.kind, kind);
            assert_eq!(name.block.id.shard, 0x8000_0000_0000_0000);
            assert_eq!(name.block.id.seqno, 1);
            assert_eq!(name.to_string(), text);
        }
        let mc = format!("proof_(-1,8000000000000000,99):{root}:{file}");
        assert_eq!(parse_entry_name(&mc).unwrap().block.id.workchain, -1);
        for bad in [
            "zerostate_(0,8000000000000000,0)".to_string(),
            format!("block_(0,8000000000000000):{root}:{file}"),
            format!("block_(0,zz,1):{root}:{file}"),
            format!("block_(0,8000000000000000,1):{root}"),
            format!("block_(0,8000000000000000,1):{root}:00"),
            format!("block_(0,0,1):{root}:{file}"),
        ] {
            assert!(parse_entry_name(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn package_names_in_every_form() {
        assert_eq!(
            parse_package_name("archive.00000.pack"),
            Some(PackageName::Masterchain(0))
        );
        let shard = Some(PackageName::Shard {
            number: 100,
            workchain: 0,
            shard: 0x8000_0000_0000_0000,
        });
        assert_eq!(
            parse_package_name("archive.00100.0_8000000000000000.pack"),
            shard
        );
        assert_eq!(
            parse_package_name("archive.00100.0:8000000000000000.pack"),
            shard
        );
        assert_eq!(
            parse_package_name("key.archive.000042.pack"),
            Some(PackageName::Key(42))
        );
        assert_eq!(parse_package_name("archive.pack"), None);
        assert_eq!(parse_package_name("blocks.boc"), None);
    }
}
