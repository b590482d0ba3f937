//! Where blocks come from: block files, archive packages, the devnet this
//! process runs, and the liteservers of a network — and the shard blocks
//! either of the last two shows before it commits them (`confirm`).

pub mod confirm;
pub mod devnet;
pub mod files;
pub mod link;
pub mod liteserver;
pub mod package;

#[cfg(test)]
mod tests {
    /// One road into the index: the sources under `src/chain/` hand units
    /// to the ingest pipeline and read the index through its view; none
    /// imports the storage crate, the indexer or the API.
    #[test]
    fn sources_reach_the_index_only_through_the_ingest_pipeline() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/chain");
        let mut stack = vec![root];
        let mut files = 0;
        let mut found = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    // Spelt in halves, so that this line does not name them.
                    for banned in [
                        concat!("tonindex", "_storage"),
                        concat!("Index", "er"),
                        concat!("crate::", "index"),
                        concat!("crate::", "api"),
                    ] {
                        if code.contains(banned) {
                            found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                        }
                    }
                }
            }
        }
        assert!(files > 20, "src/chain was read ({files} files)");
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
}
