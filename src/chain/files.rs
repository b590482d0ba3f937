//! Block files on disk: binary BoC (`.boc`, `.bin`), hex (`.hex`) or base64
//! (`.txt`, `.b64`) text, told apart by content rather than by name.

use std::path::{Path, PathBuf};

/// Why a file could not be read as a BoC.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: empty file")]
    Empty { path: PathBuf },
    #[error("{path}: not a bag of cells (neither binary BoC nor hex/base64 BoC text)")]
    NotBoc { path: PathBuf },
    #[error("{path}: no block files found (looked for .boc .bin .hex .txt .b64 .pack)")]
    NoFiles { path: PathBuf },
}

/// Extensions picked up when walking a directory (`pack`: archive
/// packages). Files named explicitly are always read, whatever their name.
const BLOCK_EXTENSIONS: &[&str] = &["boc", "bin", "hex", "txt", "b64", "pack"];

/// Serialized BoC magic prefixes (generic, and the two legacy indexed forms).
const BOC_MAGICS: &[[u8; 4]] = &[
    [0xb5, 0xee, 0x9c, 0x72],
    [0x68, 0xff, 0x65, 0xf3],
    [0xac, 0xc3, 0xa7, 0x28],
];

/// Expands files and directories (recursively) into a sorted list of block
/// files and archive packages.
pub fn collect_paths(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, FileError> {
    let mut out = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|source| FileError::Io {
            path: input.clone(),
            source,
        })?;
        if meta.is_dir() {
            let before = out.len();
            walk(input, &mut out)?;
            if out.len() == before {
                return Err(FileError::NoFiles {
                    path: input.clone(),
                });
            }
        } else {
            out.push(input.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), FileError> {
    let io = |source| FileError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            // A node keeps a RocksDB `.index` directory beside each
            // package: its files are not chain data.
            if path.extension().is_some_and(|e| e == "index") {
                continue;
            }
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| BLOCK_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads a file and returns the binary BoC it holds.
pub fn read_boc_file(path: &Path) -> Result<Vec<u8>, FileError> {
    let bytes = std::fs::read(path).map_err(|source| FileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if is_boc(&bytes) {
        // A binary BoC is taken as read, without a copy.
        return Ok(bytes);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(FileError::Empty {
            path: path.to_path_buf(),
        });
    }
    boc_from_bytes(&bytes).ok_or_else(|| FileError::NotBoc {
        path: path.to_path_buf(),
    })
}

/// Binary BoC as is; otherwise hex or base64 text that decodes to one.
pub fn boc_from_bytes(bytes: &[u8]) -> Option<Vec<u8>> {
    if is_boc(bytes) {
        return Some(bytes.to_vec());
    }
    let trimmed = bytes.trim_ascii();
    let text: std::borrow::Cow<'_, [u8]> = if trimmed.iter().any(u8::is_ascii_whitespace) {
        trimmed
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect::<Vec<u8>>()
            .into()
    } else {
        trimmed.into()
    };
    // Hex dumps of big blocks are common; `faster-hex` decodes them with SIMD.
    if text.len().is_multiple_of(2) {
        let mut decoded = vec![0; text.len() / 2];
        if faster_hex::hex_decode(&text, &mut decoded).is_ok() {
            return is_boc(&decoded).then_some(decoded);
        }
    }
    use base64::Engine as _;
    let engines = [
        &base64::engine::general_purpose::STANDARD,
        &base64::engine::general_purpose::URL_SAFE,
        &base64::engine::general_purpose::STANDARD_NO_PAD,
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines
        .iter()
        .filter_map(|e| e.decode(&text).ok())
        .find(|d| is_boc(d))
}

/// Whether `b` starts with a BoC magic.
fn is_boc(b: &[u8]) -> bool {
    b.len() >= 4 && BOC_MAGICS.iter().any(|m| b[..4] == *m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_all_three_encodings() {
        let boc = vec![0xb5, 0xee, 0x9c, 0x72, 1, 2, 3];
        assert_eq!(boc_from_bytes(&boc), Some(boc.clone()));
        let hex_text = format!("{}\n", hex::encode_upper(&boc));
        assert_eq!(boc_from_bytes(hex_text.as_bytes()), Some(boc.clone()));
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD.encode(&boc);
        assert_eq!(boc_from_bytes(b64.as_bytes()), Some(boc.clone()));
        assert_eq!(boc_from_bytes(b"hello world"), None);
        assert_eq!(boc_from_bytes(b"00112233"), None);
    }
}
