//! Trust in what lite servers send (F7 item 2): a masterchain block is
//! believed only when the masterchain validators in force have signed its
//! id — more than two thirds of their weight, each signature checked with
//! the validator's ed25519 key — as tonlib checks a forward block link.
//!
//! The validators in force come from the last key block the follower
//! trusts: first the network's zero state (whose hashes the global config
//! holds), then each key block it verified on the way, whose config
//! carries the next set. The masterchain subset is computed as nodes
//! compute it (config param 28's shuffle, the block's catchain seqno), and
//! its short hash must be the one the block header and the signature set
//! name.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Context as _};
use tycho_crypto::ed25519;
use tycho_types::cell::HashBytes;
use tycho_types::models::{BlockchainConfigParams, CatchainConfig, ShardIdent, ValidatorSet};
use tycho_types::prelude::*;

/// The validator set of one key block (or the zero state) and the
/// catchain settings its subsets are computed with.
#[derive(Debug, Clone)]
pub struct Validators {
    set: ValidatorSet,
    catchain: CatchainConfig,
}

/// One signature of a block id, as a signature set carries it.
#[derive(Debug, Clone)]
pub struct BlockSignature {
    /// SHA-256 of the validator's TL public key.
    pub node_id_short: [u8; 32],
    pub signature: Vec<u8>,
}

impl Validators {
    /// The current validator set (param 34, or 35 when temporary
    /// validators are in force) and param 28 of a config.
    pub fn from_config(config: &BlockchainConfigParams) -> anyhow::Result<Self> {
        let set = config
            .get_current_validator_set()
            .context("the config holds no current validator set (param 34)")?;
        let catchain = config
            .get_catchain_config()
            .context("the config holds no catchain settings (param 28)")?;
        Ok(Self { set, catchain })
    }

    /// The config a key block carries in its masterchain extra.
    pub fn from_key_block(block: &Cell) -> anyhow::Result<Self> {
        let block: tycho_types::models::Block = block.parse()?;
        let config = block
            .load_extra()?
            .load_custom()?
            .and_then(|mc| mc.config)
            .ok_or_else(|| anyhow!("the block carries no config: it is not a key block"))?;
        Self::from_config(&config)
    }

    /// The config of a masterchain state (the zero state).
    pub fn from_state(state: &Cell) -> anyhow::Result<Self> {
        let state: tycho_types::models::ShardStateUnsplit = state.parse()?;
        let extra = state
            .load_custom()?
            .ok_or_else(|| anyhow!("not a masterchain state"))?;
        Self::from_config(&extra.config)
    }

    /// Checks that the masterchain block `(root_hash, file_hash)`, whose
    /// header names `catchain_seqno` and `list_hash_short`, is signed by
    /// more than two thirds of the weight of this set's masterchain
    /// subset. `set_hash` is the signature set's own `validator_set_hash`.
    pub fn check(
        &self,
        root_hash: &[u8; 32],
        file_hash: &[u8; 32],
        catchain_seqno: u32,
        list_hash_short: u32,
        set_hash: u32,
        signatures: &[BlockSignature],
    ) -> anyhow::Result<()> {
        let (subset, hash_short) = self
            .set
            .compute_subset(ShardIdent::MASTERCHAIN, &self.catchain, catchain_seqno)
            .ok_or_else(|| anyhow!("the validator set has no masterchain subset"))?;
        if hash_short != list_hash_short {
            bail!(
                "the block names validator list {list_hash_short:#010x}, but the set in force \
                 gives {hash_short:#010x}"
            );
        }
        if set_hash != hash_short {
            bail!("the signatures are of validator list {set_hash:#010x}, not {hash_short:#010x}");
        }
        let by_node: HashMap<[u8; 32], (&HashBytes, u64)> = subset
            .iter()
            .map(|v| (node_id_short(&v.public_key.0), (&v.public_key, v.weight)))
            .collect();
        let total: u64 = subset.iter().map(|v| v.weight).sum();
        let message = to_sign(root_hash, file_hash);
        let mut signed = 0u64;
        let mut seen = std::collections::HashSet::new();
        for s in signatures {
            let Some((key, weight)) = by_node.get(&s.node_id_short) else {
                bail!("a signature by a node outside the validator subset");
            };
            if !seen.insert(s.node_id_short) {
                bail!("two signatures by one validator");
            }
            let key = ed25519::PublicKey::from_bytes(key.0)
                .ok_or_else(|| anyhow!("a validator key is not an ed25519 point"))?;
            let sig: [u8; 64] = s
                .signature
                .as_slice()
                .try_into()
                .map_err(|_| anyhow!("a signature is not 64 bytes"))?;
            if !key.verify_raw(&message, &sig) {
                bail!("a validator signature does not verify");
            }
            signed += weight;
        }
        // More than two thirds: 3 * signed > 2 * total.
        if u128::from(signed) * 3 <= u128::from(total) * 2 {
            bail!("signatures of {signed} of {total} validator weight: two thirds are needed");
        }
        Ok(())
    }
}

/// A validator's short node id: the SHA-256 of its TL public key
/// (`pub.ed25519#4813b4c6 key:int256`).
pub fn node_id_short(public: &[u8; 32]) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(0x4813_b4c6u32.to_le_bytes());
    h.update(public);
    h.finalize().into()
}

/// What validators sign for a block: the TL `ton.blockId#706e0bc5
/// root_cell_hash:int256 file_hash:int256`.
pub fn to_sign(root_hash: &[u8; 32], file_hash: &[u8; 32]) -> Vec<u8> {
    let mut data = Vec::with_capacity(68);
    // `ton.blockId#c50b6e70`, its TL id written little-endian.
    data.extend_from_slice(&0xc50b_6e70u32.to_le_bytes());
    data.extend_from_slice(root_hash);
    data.extend_from_slice(file_hash);
    data
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU16;

    use tycho_types::models::ValidatorDescription;

    use super::*;

    fn key(i: u8) -> ed25519::KeyPair {
        ed25519::KeyPair::from(&ed25519::SecretKey::from_bytes([i; 32]))
    }

    /// Three validators weighing 2, 1 and 1, all of the masterchain.
    fn validators() -> Validators {
        let list: Vec<_> = [(1u8, 2u64), (2, 1), (3, 1)]
            .into_iter()
            .scan(0, |prev, (i, weight)| {
                let d = ValidatorDescription {
                    public_key: HashBytes(key(i).public_key.to_bytes()),
                    weight,
                    adnl_addr: None,
                    mc_seqno_since: 0,
                    prev_total_weight: *prev,
                };
                *prev += weight;
                Some(d)
            })
            .collect();
        Validators {
            set: ValidatorSet {
                utime_since: 0,
                utime_until: u32::MAX,
                main: NonZeroU16::new(3).unwrap(),
                total_weight: 4,
                list,
            },
            catchain: CatchainConfig {
                isolate_mc_validators: false,
                shuffle_mc_validators: true,
                mc_catchain_lifetime: 250,
                shard_catchain_lifetime: 250,
                shard_validators_lifetime: 1000,
                shard_validators_num: 23,
            },
        }
    }

    fn sign(i: u8, root: &[u8; 32], file: &[u8; 32]) -> BlockSignature {
        let k = key(i);
        BlockSignature {
            node_id_short: node_id_short(&k.public_key.to_bytes()),
            signature: k.sign_raw(&to_sign(root, file)).to_vec(),
        }
    }

    #[test]
    fn signatures_of_two_thirds_of_the_weight() {
        let v = validators();
        let cc = 7;
        let (_, hash) = v
            .set
            .compute_subset(ShardIdent::MASTERCHAIN, &v.catchain, cc)
            .unwrap();
        let (root, file) = ([0xaa; 32], [0xbb; 32]);
        let check = |sigs: &[BlockSignature]| v.check(&root, &file, cc, hash, hash, sigs);

        // 2 + 1 of 4: more than two thirds.
        check(&[sign(1, &root, &file), sign(2, &root, &file)]).unwrap();
        check(&[
            sign(1, &root, &file),
            sign(2, &root, &file),
            sign(3, &root, &file),
        ])
        .unwrap();
        // 1 + 1 of 4, and 2 of 4: not enough.
        assert!(check(&[sign(2, &root, &file), sign(3, &root, &file)]).is_err());
        assert!(check(&[sign(1, &root, &file)]).is_err());
        // One validator twice counts once (and is refused).
        assert!(check(&[sign(1, &root, &file), sign(1, &root, &file)]).is_err());
        // A signature of another block, or altered, does not verify.
        let other = sign(2, &[0xcc; 32], &file);
        assert!(check(&[sign(1, &root, &file), other]).is_err());
        let mut altered = sign(2, &root, &file);
        altered.signature[5] ^= 1;
        assert!(check(&[sign(1, &root, &file), altered]).is_err());
        // A key outside the set.
        assert!(check(&[sign(1, &root, &file), sign(9, &root, &file)]).is_err());
        // The block or the signature set naming another validator list.
        let good = [sign(1, &root, &file), sign(2, &root, &file)];
        assert!(v.check(&root, &file, cc, hash ^ 1, hash, &good).is_err());
        assert!(v.check(&root, &file, cc, hash, hash ^ 1, &good).is_err());
        // Another catchain seqno gives another list.
        assert!(v.check(&root, &file, cc + 1, hash, hash, &good).is_err());
    }
}
