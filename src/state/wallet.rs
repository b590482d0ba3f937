//! The standard wallet contracts, told apart by code hash (spec v3 §3.4,
//! v2 getWalletInformation), and what their data cells say.

use tycho_types::cell::{Cell, HashBytes};

/// What a wallet's data holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalletInfo {
    /// "wallet v4 r2" spelling.
    pub wallet_type: &'static str,
    pub seqno: Option<u32>,
    pub wallet_id: Option<u32>,
    /// v5 only.
    pub is_signature_allowed: Option<bool>,
}

/// How a wallet's data cell starts.
#[derive(Clone, Copy)]
enum Layout {
    /// `seqno:uint32`
    Seqno,
    /// `seqno:uint32 wallet_id:uint32`
    SeqnoId,
    /// `is_signature_allowed:1 seqno:uint32 wallet_id:uint32`
    V5,
}

/// (type, code hash hex, data layout).
const WALLETS: &[(&str, &str, Layout)] = &[
    (
        "wallet v1 r1",
        "a0cfc2c48aee16a271f2cfc0b7382d81756cecb1017d077faaab3bb602f6868c",
        Layout::Seqno,
    ),
    (
        "wallet v1 r2",
        "d4902fcc9fad74698fa8e353220a68da0dcf72e32bcb2eb9ee04217c17d3062c",
        Layout::Seqno,
    ),
    (
        "wallet v1 r3",
        "587cc789eff1c84f46ec3797e45fc809a14ff5ae24f1e0c7a6a99cc9dc9061ff",
        Layout::Seqno,
    ),
    (
        "wallet v2 r1",
        "5c9a5e68c108e18721a07c42f9956bfb39ad77ec6d624b60c576ec88eee65329",
        Layout::Seqno,
    ),
    (
        "wallet v2 r2",
        "fe9530d3243853083ef2ef0b4c2908c0abf6fa1c31ea243aacaa5bf8c7d753f1",
        Layout::Seqno,
    ),
    (
        "wallet v3 r1",
        "b61041a58a7980b946e8fb9e198e3c904d24799ffa36574ea4251c41a566f581",
        Layout::SeqnoId,
    ),
    (
        "wallet v3 r2",
        "84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599",
        Layout::SeqnoId,
    ),
    (
        "wallet v4 r1",
        "64dd54805522c5be8a9db59cea0105ccf0d08786ca79beb8cb79e880a8d7322d",
        Layout::SeqnoId,
    ),
    (
        "wallet v4 r2",
        "feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0",
        Layout::SeqnoId,
    ),
    (
        "wallet v5 beta",
        "f3d7ca53493deedac28b381986a849403cbac3d2c584779af081065af0ac4b93",
        Layout::V5,
    ),
    (
        "wallet v5 r1",
        "20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f",
        Layout::V5,
    ),
];

/// The wallet type of `code_hash`, with the fields `data` holds; `None`
/// for any other contract.
pub fn detect(code_hash: &HashBytes, data: Option<&Cell>) -> Option<WalletInfo> {
    let hex = hex::encode(code_hash.as_array());
    let &(wallet_type, _, layout) = WALLETS.iter().find(|(_, h, _)| *h == hex)?;
    let mut info = WalletInfo {
        wallet_type,
        seqno: None,
        wallet_id: None,
        is_signature_allowed: None,
    };
    let Some(mut s) = data.and_then(|d| d.as_slice().ok()) else {
        return Some(info);
    };
    match layout {
        Layout::Seqno => info.seqno = s.load_u32().ok(),
        Layout::SeqnoId => {
            info.seqno = s.load_u32().ok();
            info.wallet_id = s.load_u32().ok();
        }
        Layout::V5 => {
            info.is_signature_allowed = s.load_bit().ok();
            info.seqno = s.load_u32().ok();
            info.wallet_id = s.load_u32().ok();
        }
    }
    Some(info)
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use super::*;

    /// The table's hex hashes are the spec's base64 ones.
    #[test]
    fn code_hashes_match_the_spec() {
        let spec = [
            "oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=",
            "1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=",
            "WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=",
            "XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=",
            "/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=",
            "thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=",
            "hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=",
            "ZN1UgFUixb6KnbWc6gEFzPDQh4bKeb64y3nogKjXMi0=",
            "/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=",
            "89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=",
            "IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=",
        ];
        for ((_, hex_hash, _), b64) in WALLETS.iter().zip(spec) {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            assert_eq!(*hex_hash, hex::encode(bytes));
        }
    }
}

/// A highload wallet as tonlib reports it in `getExtendedAddressInformation`
/// (v3 and `getWalletInformation` do not list highload wallets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HighloadInfo {
    /// `wallet.highload.v1.accountState` or `wallet.highload.v2.accountState`.
    pub tonlib_type: &'static str,
    /// The code's revision (r1 → 1).
    pub revision: u32,
    pub wallet_id: u32,
    /// v1 only.
    pub seqno: Option<u32>,
}

/// (tonlib type, revision, code hash hex). Highload v1 data is `seqno:uint32
/// wallet_id:uint32 …`, v2 data `wallet_id:uint32 last_cleaned:uint64 …`.
/// The unrevisioned first highload v2 code is left out: tonlib's revision
/// for it is not known here, and an unknown code reads as a raw state.
const HIGHLOAD: &[(&str, u32, &str)] = &[
    (
        "wallet.highload.v1.accountState",
        1,
        "d8cdbbb79f2c5caa677ac450770be0351be21e1250486de85cc52aa33dd16484",
    ),
    (
        "wallet.highload.v1.accountState",
        2,
        "0dceed21269d66013e95b19fbb5c55a6f01adad40837baa8e521cde3a02aa46c",
    ),
    (
        "wallet.highload.v2.accountState",
        1,
        "8ceb45b3cd4b5cc60eaae1c13b9c092392677fe536b2e9b2d801b62eff931fe1",
    ),
    (
        "wallet.highload.v2.accountState",
        2,
        "203dd4f358adb49993129aa925cac39916b68a0e4f78d26e8f2c2b69eafa5679",
    ),
];

/// The highload wallet of `code_hash` with what `data` holds; `None` for
/// any other contract or data that does not read.
pub fn detect_highload(code_hash: &HashBytes, data: &Cell) -> Option<HighloadInfo> {
    let hex = hex::encode(code_hash.as_array());
    let &(tonlib_type, revision, _) = HIGHLOAD.iter().find(|(_, _, h)| *h == hex)?;
    let mut s = data.as_slice().ok()?;
    let (seqno, wallet_id) = if tonlib_type == "wallet.highload.v1.accountState" {
        (Some(s.load_u32().ok()?), s.load_u32().ok()?)
    } else {
        (None, s.load_u32().ok()?)
    };
    Some(HighloadInfo {
        tonlib_type,
        revision,
        wallet_id,
        seqno,
    })
}
