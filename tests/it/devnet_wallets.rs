//! The devnet's genesis wallets against the clients people use: the key
//! pair of the default mnemonic as @ton/crypto derives it, and every
//! wallet's address as @ton/ton computes it (v4r2 and v5r1, several
//! wallet ids, mainnet's and another network's global id), and signatures.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};
use tonindex::chain::devnet::DEFAULT_MNEMONIC;
use tonindex::wallet_client::mnemonic;
use tonindex::wallet_client::standard::{Version, Wallet};

#[test]
fn keys_and_addresses_match_ton_crypto_and_ton_ton() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients");
    common::npm_install(&dir, &["@ton/ton", "@ton/crypto"]);
    let keys = mnemonic::keys(DEFAULT_MNEMONIC).unwrap();
    for global_id in [-239, 1337] {
        let mut ours = Vec::new();
        let mut asked = Vec::new();
        for n in 0..5u16 {
            for version in [Version::V3R2, Version::V4R2, Version::V5R1] {
                let w = Wallet::nth(version, &keys, n, global_id);
                ours.push(w.address().to_string());
                asked.push(json!({"version": version.name(), "n": n}));
            }
        }
        let data = [0x5au8; 32];
        let input = json!({"mnemonic": DEFAULT_MNEMONIC, "global_id": global_id,
                           "sign_hex": hex::encode(data), "wallets": asked});
        let out = Command::new("node")
            .arg("devnet_wallets.mjs")
            .arg(input.to_string())
            .current_dir(&dir)
            .output()
            .expect("node runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(theirs["valid"], true);
        assert_eq!(theirs["public_key"], hex::encode(keys.public));
        assert_eq!(theirs["secret_key"], hex::encode(keys.secret_64()));
        // ed25519 is deterministic: the same signature as tweetnacl's.
        assert_eq!(theirs["signature"], hex::encode(keys.sign(&data)));
        let theirs: Vec<String> = theirs["wallets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        assert_eq!(ours, theirs, "global id {global_id}");
        // Fifteen distinct wallets.
        let mut unique = ours.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 15);
    }
}
