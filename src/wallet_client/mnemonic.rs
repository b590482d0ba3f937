//! TON mnemonics as @ton/crypto (and every TON wallet app) reads them: the
//! words give an entropy (HMAC-SHA512 keyed by the words, over the
//! password), PBKDF2-HMAC-SHA512 stretches it into a seed, and the first
//! 32 bytes of the seed are the ed25519 secret key.

use hmac::{Hmac, Mac};
use sha2::Sha512;
use tycho_crypto::ed25519;

const KEY_SALT: &[u8] = b"TON default seed";
const KEY_ROUNDS: u32 = 100_000;
const VERSION_SALT: &[u8] = b"TON seed version";
/// `max(1, 100000 / 256)` rounds: TON's check that words form a mnemonic.
const VERSION_ROUNDS: u32 = 390;

/// Why words are not a usable mnemonic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MnemonicError {
    #[error("a TON mnemonic has 24 words, not {0}")]
    WordCount(usize),
    #[error("these words are not a TON mnemonic (their seed check fails)")]
    NotBasic,
}

/// An ed25519 key pair from a mnemonic.
#[derive(Clone)]
pub struct Keys {
    pub secret: [u8; 32],
    pub public: [u8; 32],
}

impl Keys {
    /// The key pair of a 32-byte ed25519 secret.
    pub fn from_secret(secret: [u8; 32]) -> Self {
        let public = ed25519::PublicKey::from(&ed25519::SecretKey::from_bytes(secret)).to_bytes();
        Self { secret, public }
    }

    /// The 64-byte secret key as @ton/crypto and tweetnacl hold it:
    /// the 32-byte secret followed by the public key.
    pub fn secret_64(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.secret);
        out[32..].copy_from_slice(&self.public);
        out
    }

    /// Signs `data` (a cell hash, for wallet messages).
    pub fn sign(&self, data: &[u8]) -> [u8; 64] {
        ed25519::KeyPair::from(&ed25519::SecretKey::from_bytes(self.secret)).sign_raw(data)
    }
}

fn normalize(words: &str) -> Vec<&str> {
    words.split_whitespace().collect()
}

fn entropy(words: &[&str], password: &str) -> [u8; 64] {
    let mut mac = <Hmac<Sha512> as Mac>::new_from_slice(words.join(" ").as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(password.as_bytes());
    mac.finalize().into_bytes().into()
}

fn pbkdf2(entropy: &[u8; 64], salt: &[u8], rounds: u32) -> [u8; 64] {
    let mut out = [0u8; 64];
    pbkdf2::pbkdf2_hmac::<Sha512>(entropy, salt, rounds, &mut out);
    out
}

/// The key pair of a 24-word mnemonic (no password), after TON's check
/// that the words form one.
pub fn keys(words: &str) -> Result<Keys, MnemonicError> {
    let words = normalize(words);
    if words.len() != 24 {
        return Err(MnemonicError::WordCount(words.len()));
    }
    let entropy = entropy(&words, "");
    if pbkdf2(&entropy, VERSION_SALT, VERSION_ROUNDS)[0] != 0 {
        return Err(MnemonicError::NotBasic);
    }
    let seed = pbkdf2(&entropy, KEY_SALT, KEY_ROUNDS);
    let mut secret = [0u8; 32];
    secret.copy_from_slice(&seed[..32]);
    Ok(Keys::from_secret(secret))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::devnet::DEFAULT_MNEMONIC;

    #[test]
    fn the_default_mnemonic_is_one_and_signs() {
        let k = keys(DEFAULT_MNEMONIC).unwrap();
        let sig = k.sign(b"hello");
        let public = ed25519::PublicKey::from_bytes(k.public).unwrap();
        assert!(public.verify_raw(b"hello", &sig));
        assert_eq!(&k.secret_64()[32..], &k.public);
        // Extra spaces do not matter; one word more or another word does.
        let spaced = format!("  {}  ", DEFAULT_MNEMONIC.replace(' ', "   "));
        assert_eq!(keys(&spaced).unwrap().public, k.public);
        assert_eq!(
            keys(&format!("{DEFAULT_MNEMONIC} abandon")).err(),
            Some(MnemonicError::WordCount(25))
        );
        let other = DEFAULT_MNEMONIC.replacen("ostrich", "abandon", 1);
        // 1 in 256 word lists passes the check; this one does not.
        assert_eq!(keys(&other).err(), Some(MnemonicError::NotBasic));
    }
}
