//! The test data is what `tests/data/PROVENANCE.md` says it is: every
//! file under `fixtures/`, `spec/` and `schema17-db/` is listed there with
//! its SHA-256, and every listed file is there with those bytes. A file
//! changed, added or removed without its provenance fails here.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};

/// The checked directories, relative to `tests/data`.
const CHECKED: &[&str] = &["fixtures", "spec", "schema17-db"];

/// `path → sha256` from the table rows of PROVENANCE.md: the first code
/// span of a row is the path, the last one the hash.
fn listed(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let spans: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        let (Some(path), Some(hash)) = (spans.first(), spans.last()) else {
            continue;
        };
        let is_hash = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        if CHECKED.iter().any(|d| path.starts_with(&format!("{d}/"))) && is_hash {
            let old = out.insert(path.to_string(), hash.to_string());
            assert!(old.is_none(), "{path} is listed twice");
        }
    }
    out
}

/// `path → sha256` of every file under `dir`, paths relative to `root`.
fn hashed(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            hashed(root, &path, out);
        } else {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let digest = Sha256::digest(std::fs::read(&path).unwrap());
            out.insert(rel, hex::encode(digest));
        }
    }
}

#[test]
fn test_data_is_what_its_provenance_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = std::fs::read_to_string(root.join("PROVENANCE.md")).unwrap();
    let listed = listed(&text);
    let mut present = BTreeMap::new();
    for dir in CHECKED {
        hashed(&root, &root.join(dir), &mut present);
    }
    assert!(present.len() > 200, "only {} files", present.len());
    let unlisted: Vec<_> = present
        .keys()
        .filter(|p| !listed.contains_key(*p))
        .collect();
    let missing: Vec<_> = listed
        .keys()
        .filter(|p| !present.contains_key(*p))
        .collect();
    let changed: Vec<_> = present
        .iter()
        .filter(|(p, h)| listed.get(*p).is_some_and(|l| l != *h))
        .map(|(p, _)| p)
        .collect();
    assert!(
        unlisted.is_empty(),
        "files without provenance: {unlisted:?}"
    );
    assert!(missing.is_empty(), "listed but absent: {missing:?}");
    assert!(
        changed.is_empty(),
        "bytes differ from the listed hash: {changed:?}"
    );
}

/// Every licence file the provenance names is there.
#[test]
fn every_named_licence_text_is_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = std::fs::read_to_string(root.join("PROVENANCE.md")).unwrap();
    let named: Vec<&str> = text
        .split('`')
        .filter(|s| s.starts_with("licenses/") && s.ends_with(".txt"))
        .collect();
    assert!(named.len() >= 10, "{named:?}");
    for name in named {
        assert!(root.join(name).is_file(), "{name} is named but absent");
    }
}
