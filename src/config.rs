//! Configuration: built-in defaults < `configs/tonindex.toml` (or `--config
//! FILE`) < `TONINDEX_*` environment < command-line flags.
//!
//! Unknown keys in a file are errors; only known `TONINDEX_*` variables are
//! read from the environment (others, e.g. test settings, are not ours).

use std::path::{Path, PathBuf};

use figment::providers::{Env, Format, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};

use crate::api::ApiConfig;

/// [`Config::block_cache_mb`]'s default: [`tonindex_storage::tables::BLOCK_CACHE_BYTES`].
fn default_block_cache_mb() -> u64 {
    (tonindex_storage::tables::BLOCK_CACHE_BYTES >> 20) as u64
}

/// The smallest block cache accepted: below it the index and filter
/// blocks the tables pin in it would not fit.
const MIN_BLOCK_CACHE_MB: u64 = 16;

/// The config file read when `--config` is not given and the file exists.
pub const DEFAULT_CONFIG_PATH: &str = "configs/tonindex.toml";

/// Environment keys we read, after the `TONINDEX_` prefix (nested with `__`).
const ENV_KEYS: &[&str] = &[
    "db",
    "log_level",
    "log_format",
    "sync_writes",
    "block_cache_mb",
    "import__threads",
    "import__chunk_size",
    "import__chunk_bytes",
    "index__keep_states",
    "serve__listen",
    "serve__default_limit",
    "serve__max_limit",
    "serve__request_timeout_ms",
    "serve__getmethod_time_limit_ms",
    "serve__catch_up_interval_ms",
    "serve__testnet",
    "serve__max_connections",
    "serve__header_timeout_ms",
    "serve__body_timeout_ms",
    "serve__max_body_bytes",
    "serve__max_concurrent_reads",
    "serve__max_queued_reads",
    "serve__max_response_bytes",
    "serve__zerostate__root_hash",
    "serve__zerostate__file_hash",
    "serve__max_block_age_secs",
    "serve__max_lag_blocks",
    "serve__cors__enabled",
    "serve__rate_limit__anonymous_v2_rps",
    "serve__rate_limit__anonymous_v3_rps",
    "serve__rate_limit__anonymous_streams",
    "serve__cors__max_age_secs",
    "serve__offchain_metadata__enabled",
    "serve__offchain_metadata__timeout_ms",
    "serve__offchain_metadata__max_bytes",
    "serve__offchain_metadata__concurrency",
    "serve__offchain_metadata__ipfs_gateway",
    "serve__offchain_metadata__allow_private_addresses",
    "serve__offchain_metadata__retry_after_secs",
    "serve__offchain_metadata__refresh_after_secs",
    "serve__offchain_metadata__max_cached_bytes",
    "dev__mnemonic",
    "dev__wallets",
    "dev__wallet_balance",
    "dev__global_id",
    "dev__block_interval_ms",
    "dev__confirm_gap_ms",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Database directory.
    pub db: PathBuf,
    /// `tracing` filter: `error`, `warn`, `info`, `debug`, `trace` or a directive list.
    pub log_level: String,
    /// Log lines as `text` (for people) or `json` (one object per line, for
    /// log collectors).
    #[serde(default = "default_log_format")]
    pub log_format: String,
    /// fsync every committed unit (power-loss durability; slower).
    pub sync_writes: bool,
    /// The block cache every table shares, in MiB: uncompressed blocks
    /// kept in memory (a random read that misses it decompresses a block).
    #[serde(default = "default_block_cache_mb")]
    pub block_cache_mb: u64,
    pub import: ImportConfig,
    #[serde(default)]
    pub index: IndexConfig,
    pub serve: ApiConfig,
    /// `tonindex dev`'s local chain.
    pub dev: DevConfig,
}

/// `[dev]`: the local chain of `tonindex dev` (flags override each key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DevConfig {
    /// The 24-word TON mnemonic of the genesis wallets (and, derived from
    /// it, the validator key). The default is public: never put real funds
    /// on its wallets.
    pub mnemonic: String,
    /// Genesis wallets, alternately wallet v4r2 and v5r1.
    pub wallets: u16,
    /// Nanotons each genesis wallet holds (a decimal string).
    pub wallet_balance: String,
    /// The chain's global id (blocks, v5r1 wallet ids). -239 is mainnet's,
    /// so that clients' default v5r1 wallets have the listed addresses.
    pub global_id: i32,
    /// 0 = automine (a block pair per sent message); else a block pair
    /// every so many milliseconds, sent messages waiting for it.
    pub block_interval_ms: u64,
    /// With a block interval: how long before its masterchain block is
    /// indexed a round's shard-block traces are announced (`confirmed`);
    /// 0 = not announced.
    #[serde(default)]
    pub confirm_gap_ms: u64,
    /// More genesis accounts.
    pub accounts: Vec<DevAccount>,
}

/// A genesis account of `[[dev.accounts]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DevAccount {
    /// Raw (`wc:hex`) or friendly address, workchain 0 or -1.
    pub address: String,
    /// Nanotons (a decimal string).
    pub balance: String,
    /// Code and data BoCs (base64); both or neither. Without them the
    /// account is uninit with its balance.
    pub code: Option<String>,
    pub data: Option<String>,
}

impl Default for DevConfig {
    fn default() -> Self {
        Self {
            mnemonic: crate::chain::devnet::DEFAULT_MNEMONIC.into(),
            wallets: 10,
            wallet_balance: (1_000_000u128 * 1_000_000_000).to_string(),
            global_id: -239,
            block_interval_ms: 0,
            confirm_gap_ms: 0,
            accounts: Vec::new(),
        }
    }
}

/// `[index]`: what the index keeps, whichever command writes it (`import`,
/// `run`, `dev`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IndexConfig {
    /// Account states kept: those of the newest N masterchain blocks
    /// (older superseded state cells are collected, so the cell store
    /// stays near the size of the live state), or `"all"` (an archive: v2
    /// reads with any `seqno`, every transaction's account states in v3).
    pub keep_states: crate::index::retention::KeepStates,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportConfig {
    /// Decode threads; 0 = one per core.
    pub threads: usize,
    /// Files decoded together (a chunk) at most; the decode threads work
    /// a chunk or two ahead of the writer.
    pub chunk_size: usize,
    /// Bytes of block files decoded together at most (a chunk holds at
    /// least one file): with big blocks, a chunk bounded by files alone
    /// held the whole input and the writer waited for all of it.
    pub chunk_bytes: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            db: PathBuf::from("tonindex-db"),
            log_level: "info".into(),
            log_format: default_log_format(),
            sync_writes: false,
            block_cache_mb: default_block_cache_mb(),
            import: ImportConfig {
                threads: 0,
                chunk_size: 512,
                chunk_bytes: crate::ingest::CHUNK_BYTES,
            },
            index: IndexConfig::default(),
            serve: ApiConfig::default(),
            dev: DevConfig::default(),
        }
    }
}

fn default_log_format() -> String {
    "text".into()
}

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {0} does not exist")]
    Missing(PathBuf),
    #[error("invalid configuration: {0}")]
    Invalid(#[from] Box<figment::Error>),
    #[error("invalid configuration: {0}")]
    Value(String),
}

impl Config {
    /// Loads defaults, the config file and the environment. `explicit` must
    /// exist; without it the default path is read only if present.
    pub fn load(explicit: Option<&Path>) -> Result<Self, ConfigError> {
        let mut fig = Figment::from(Serialized::defaults(Config::default()));
        match explicit {
            Some(p) if !p.is_file() => return Err(ConfigError::Missing(p.to_path_buf())),
            Some(p) => fig = fig.merge(Toml::file(p)),
            None if Path::new(DEFAULT_CONFIG_PATH).is_file() => {
                fig = fig.merge(Toml::file(DEFAULT_CONFIG_PATH))
            }
            None => {}
        }
        let env = Env::prefixed("TONINDEX_")
            .filter(|k| ENV_KEYS.contains(&k.as_str().to_ascii_lowercase().as_str()))
            .split("__");
        let cfg: Config = fig.merge(env).extract().map_err(Box::new)?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        tracing_subscriber::EnvFilter::try_new(&self.log_level)
            .map_err(|e| ConfigError::Value(format!("log_level {:?}: {e}", self.log_level)))?;
        if self.block_cache_mb < MIN_BLOCK_CACHE_MB {
            return Err(ConfigError::Value(format!(
                "block_cache_mb must be at least {MIN_BLOCK_CACHE_MB}"
            )));
        }
        if self.import.chunk_size == 0 {
            return Err(ConfigError::Value(
                "import.chunk_size must be at least 1".into(),
            ));
        }
        if self.import.chunk_bytes == 0 {
            return Err(ConfigError::Value(
                "import.chunk_bytes must be at least 1".into(),
            ));
        }
        if !matches!(self.log_format.as_str(), "text" | "json") {
            return Err(ConfigError::Value(format!(
                "log_format {:?}: must be \"text\" or \"json\"",
                self.log_format
            )));
        }
        let s = &self.serve;
        if s.default_limit == 0 || s.max_limit == 0 || s.default_limit > s.max_limit {
            return Err(ConfigError::Value(
                "serve.default_limit and serve.max_limit must be at least 1, default <= max".into(),
            ));
        }
        let o = &s.offchain_metadata;
        if o.enabled && (o.timeout_ms == 0 || o.max_bytes == 0 || o.concurrency == 0) {
            return Err(ConfigError::Value(
                "serve.offchain_metadata: timeout_ms, max_bytes and concurrency must be at least 1"
                    .into(),
            ));
        }
        if o.enabled
            && !(o.ipfs_gateway.starts_with("https://") || o.ipfs_gateway.starts_with("http://"))
        {
            return Err(ConfigError::Value(format!(
                "serve.offchain_metadata.ipfs_gateway {:?}: must be an http(s) URL prefix",
                o.ipfs_gateway
            )));
        }
        if s.request_timeout_ms == 0 {
            return Err(ConfigError::Value(
                "serve.request_timeout_ms must be at least 1".into(),
            ));
        }
        if s.getmethod_time_limit_ms == 0 || s.getmethod_time_limit_ms > s.request_timeout_ms {
            return Err(ConfigError::Value(
                "serve.getmethod_time_limit_ms must be at least 1 and at most serve.request_timeout_ms"
                    .into(),
            ));
        }
        for (name, v) in [
            ("max_connections", s.max_connections as u64),
            ("header_timeout_ms", s.header_timeout_ms),
            ("body_timeout_ms", s.body_timeout_ms),
            ("max_body_bytes", s.max_body_bytes as u64),
            ("max_response_bytes", s.max_response_bytes as u64),
        ] {
            if v == 0 {
                return Err(ConfigError::Value(format!(
                    "serve.{name} must be at least 1"
                )));
            }
        }
        for h in [&s.zerostate.root_hash, &s.zerostate.file_hash] {
            if crate::api::encoding::parse_hash(h).is_none() {
                return Err(ConfigError::Value(format!(
                    "serve.zerostate: {h:?} is not a 32-byte hash"
                )));
            }
        }
        s.cors.check().map_err(ConfigError::Value)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::result_large_err)] // figment::Jail's closure signature
    fn file_then_env_override_defaults_and_unknown_keys_fail() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("a.toml", "db = \"/from/file\"\n[import]\nchunk_size = 7\n")?;
            jail.set_env("TONINDEX_LOG_LEVEL", "debug");
            jail.set_env("TONINDEX_IMPORT__THREADS", "3");
            jail.set_env("TONINDEX_SOMETHING_ELSE", "ignored");
            let cfg = Config::load(Some(Path::new("a.toml"))).unwrap();
            assert_eq!(cfg.db, PathBuf::from("/from/file"));
            assert_eq!(cfg.import.chunk_size, 7);
            assert_eq!(cfg.import.threads, 3);
            assert_eq!(cfg.log_level, "debug");

            jail.create_file("bad.toml", "dbb = \"typo\"\n")?;
            let err = Config::load(Some(Path::new("bad.toml")))
                .unwrap_err()
                .to_string();
            assert!(err.contains("dbb"), "{err}");

            jail.create_file("badval.toml", "[import]\nchunk_size = \"many\"\n")?;
            assert!(Config::load(Some(Path::new("badval.toml"))).is_err());
            assert!(matches!(
                Config::load(Some(Path::new("nope.toml"))),
                Err(ConfigError::Missing(_))
            ));
            jail.set_env("TONINDEX_LOG_LEVEL", "info,=[");
            assert!(Config::load(Some(Path::new("a.toml"))).is_err());
            Ok(())
        });
    }
}

#[cfg(test)]
mod documented {
    use super::*;

    /// Every leaf key of `v` as a dotted path; an array is one key.
    fn leaves(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, child) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    leaves(child, &p, out);
                }
            }
            _ => out.push(path.to_string()),
        }
    }

    /// Every key of the config struct is named in the operating guide's
    /// configuration section and in the shipped config file, and every
    /// one that is not a list can be set from the environment.
    #[test]
    fn every_config_key_is_documented_and_settable() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let guide = std::fs::read_to_string(root.join("docs/operating.md")).unwrap();
        let section = guide
            .split("## Configuration")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("docs/operating.md has a Configuration section");
        let shipped = std::fs::read_to_string(root.join(DEFAULT_CONFIG_PATH)).unwrap();
        let mut keys = Vec::new();
        leaves(
            &serde_json::to_value(Config::default()).unwrap(),
            "",
            &mut keys,
        );
        assert!(keys.len() > 40, "{keys:?}");
        let mut missing = Vec::new();
        for key in &keys {
            let last = key.rsplit('.').next().unwrap();
            if !section.contains(&format!("`{key}`")) {
                missing.push(format!(
                    "{key}: not in docs/operating.md's Configuration section"
                ));
            }
            let in_file = shipped.lines().any(|l| {
                let l = l.trim_start_matches(['#', ' ']);
                l.starts_with(&format!("{last} =")) || l.starts_with(&format!("[[{key}]]"))
            });
            if !in_file {
                missing.push(format!("{key}: not in {DEFAULT_CONFIG_PATH}"));
            }
            let is_list = serde_json::to_value(Config::default())
                .unwrap()
                .pointer(&format!("/{}", key.replace('.', "/")))
                .is_some_and(|v| v.is_array());
            if !is_list && !ENV_KEYS.contains(&key.replace('.', "__").as_str()) {
                missing.push(format!("{key}: no TONINDEX_ environment name"));
            }
        }
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }
}
