//! Following a chain through its liteservers (F7): the lite servers a TON
//! global config lists, and the follower (`follow.rs`) that walks
//! masterchain blocks from them and hands each with its shard blocks to
//! the same indexer as `tonindex import`; `upstream.rs` is the API's road
//! to the same servers (sending messages, proven states the index does
//! not hold). The ADNL-TCP client and the lite API's TL types are the
//! `adnl` and `ton_liteapi` crates'.

pub mod client;
pub mod follow;
pub mod frames;
pub mod nonfinal;
pub mod proofs;
pub mod tips;
pub mod trust;
pub mod upstream;

use std::net::{Ipv4Addr, SocketAddr};

use anyhow::{anyhow, Context as _};

/// One lite server of a global config: where it listens and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteServerAddr {
    pub addr: SocketAddr,
    /// Its ed25519 public key (the ADNL handshake is made to it).
    pub key: [u8; 32],
}

/// The lite servers of a TON global config (`liteservers`: `ip` a signed
/// 32-bit integer, `port`, `id` a `pub.ed25519` key in base64).
pub fn liteservers(config: &serde_json::Value) -> anyhow::Result<Vec<LiteServerAddr>> {
    use base64::Engine as _;
    let list = config["liteservers"]
        .as_array()
        .ok_or_else(|| anyhow!("the global config lists no liteservers"))?;
    list.iter()
        .enumerate()
        .map(|(i, ls)| {
            let ip = ls["ip"]
                .as_i64()
                .and_then(|ip| i32::try_from(ip).ok())
                .ok_or_else(|| anyhow!("liteserver {i}: ip is not a 32-bit integer"))?;
            let port = ls["port"]
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .ok_or_else(|| anyhow!("liteserver {i}: no port"))?;
            if ls["id"]["@type"] != "pub.ed25519" {
                return Err(anyhow!("liteserver {i}: the id is not a pub.ed25519 key"));
            }
            let key = base64::engine::general_purpose::STANDARD
                .decode(ls["id"]["key"].as_str().unwrap_or_default())
                .ok()
                .and_then(|k| <[u8; 32]>::try_from(k).ok())
                .ok_or_else(|| anyhow!("liteserver {i}: the key is not 32 bytes of base64"))?;
            Ok(LiteServerAddr {
                addr: SocketAddr::from((Ipv4Addr::from(ip as u32), port)),
                key,
            })
        })
        .collect()
}

/// The masterchain zero state a global config names
/// (`validator.zero_state`: `workchain`, `shard`, `seqno`, base64
/// `root_hash` and `file_hash`): the chain a lite server must serve.
pub fn zero_state(config: &serde_json::Value) -> anyhow::Result<tonindex_model::BlockIdExt> {
    let zs = masterchain_block(config, "zero_state")?;
    if zs.id.seqno != 0 {
        return Err(anyhow!(
            "validator.zero_state is not the masterchain's zero state (seqno 0)"
        ));
    }
    Ok(zs)
}

/// Where trust in a global config's chain starts: its `init_block` (a
/// masterchain key block that tonlib trusts as given) when it names one
/// after the zero state, else the zero state.
pub fn trust_anchor(config: &serde_json::Value) -> anyhow::Result<tonindex_model::BlockIdExt> {
    let zero = zero_state(config)?;
    if config["validator"]["init_block"].is_null() {
        return Ok(zero);
    }
    let init = masterchain_block(config, "init_block")?;
    Ok(if init.id.seqno == 0 { zero } else { init })
}

/// A masterchain block id of the config's `validator` section.
fn masterchain_block(
    config: &serde_json::Value,
    field: &str,
) -> anyhow::Result<tonindex_model::BlockIdExt> {
    use base64::Engine as _;
    let b = &config["validator"][field];
    let hash = |name: &str| -> anyhow::Result<[u8; 32]> {
        base64::engine::general_purpose::STANDARD
            .decode(b[name].as_str().unwrap_or_default())
            .ok()
            .and_then(|h| <[u8; 32]>::try_from(h).ok())
            .ok_or_else(|| anyhow!("validator.{field}.{name} is not 32 bytes of base64"))
    };
    let seqno = b["seqno"]
        .as_u64()
        .and_then(|s| u32::try_from(s).ok())
        .ok_or_else(|| anyhow!("validator.{field}.seqno is missing"))?;
    if b["workchain"].as_i64() != Some(-1) {
        return Err(anyhow!(
            "validator.{field} is not a masterchain block (workchain -1)"
        ));
    }
    Ok(tonindex_model::BlockIdExt {
        id: tonindex_model::BlockId {
            workchain: -1,
            shard: 0x8000_0000_0000_0000,
            seqno,
        },
        root_hash: hash("root_hash")?,
        file_hash: hash("file_hash")?,
    })
}

/// The global config of a network tonindex knows by name (`mainnet`,
/// `testnet`): its public lite servers, zero state and init block, built
/// into the binary (`configs/networks/`) so that `--network` needs no file.
pub fn embedded_config(name: &str) -> anyhow::Result<serde_json::Value> {
    let text = match name {
        "mainnet" => include_str!("../../../configs/networks/mainnet.json"),
        "testnet" => include_str!("../../../configs/networks/testnet.json"),
        other => return Err(anyhow!("no built-in global config for network {other:?}")),
    };
    serde_json::from_str(text).with_context(|| format!("the built-in {name} config"))
}

/// Reads a global config file.
pub fn read_config(path: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is not JSON", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn liteservers_of_a_global_config() {
        let config = serde_json::json!({"liteservers": [
            {"ip": 2130706433, "port": 4924, "id": {"@type": "pub.ed25519", "key": "5E9W/88xUouX9lyAXEdogheYJowemkrAHCD2IeSiAIU="}},
            // Mainnet's configs carry addresses above 2^31 as negative numbers.
            {"ip": -2018135749, "port": 53312, "id": {"@type": "pub.ed25519", "key": "5E9W/88xUouX9lyAXEdogheYJowemkrAHCD2IeSiAIU="}},
        ]});
        let ls = liteservers(&config).unwrap();
        assert_eq!(ls[0].addr, "127.0.0.1:4924".parse().unwrap());
        assert_eq!(ls[1].addr, "135.181.177.59:53312".parse().unwrap());
        let bad = serde_json::json!({"liteservers": [{"ip": 1, "port": 2, "id": {"@type": "pub.aes", "key": ""}}]});
        assert!(liteservers(&bad).is_err());
    }

    /// The built-in network configs say what the networks' own published
    /// configs say (read in place from the fixtures): the same lite servers,
    /// zero state and init block; trust starts at the init block.
    #[test]
    fn built_in_networks_match_their_published_configs() {
        for (name, published) in [
            ("mainnet", "config/ston-fi/mainnet_public.json"),
            ("testnet", "config/ston-fi/testnet_public.json"),
        ] {
            let ours = embedded_config(name).unwrap();
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/fixtures")
                .join(published);
            let theirs = read_config(&path).unwrap();
            assert_eq!(liteservers(&ours).unwrap(), liteservers(&theirs).unwrap());
            assert!(liteservers(&ours).unwrap().len() > 10);
            assert_eq!(zero_state(&ours).unwrap(), zero_state(&theirs).unwrap());
            let anchor = trust_anchor(&ours).unwrap();
            assert_eq!(anchor, trust_anchor(&theirs).unwrap());
            assert!(anchor.id.seqno > 1_000_000, "{name}: {anchor:?}");
        }
        // Mainnet's zero state, as the fixtures' provenance states it.
        use base64::Engine as _;
        let zs = zero_state(&embedded_config("mainnet").unwrap()).unwrap();
        assert_eq!(
            base64::engine::general_purpose::STANDARD.encode(zs.root_hash),
            "F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk="
        );
        assert!(embedded_config("devnet").is_err());
    }
}
