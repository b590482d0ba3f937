//! Fuzz entry points: what the server and the importer do with bytes that
//! come from outside (BoCs, blocks and states, addresses, hashes, query
//! strings, JSON bodies, TVM stacks). Each takes arbitrary bytes, must
//! never panic, and checks the round trips that must hold. `fuzz/` drives
//! them with libFuzzer (`scripts/fuzz.sh`); tests/it/fuzz_corpus.rs replays
//! the committed corpus (`fuzz/corpus/<target>/`) in CI.

use serde_json::Value as Json;

use crate::api::encoding::{friendly, parse_address, parse_hash, raw_upper, FriendlyFlags};
use crate::api::params::Params;

/// One fuzz entry point: takes any bytes, panics only on a bug.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/fuzz_targets/<name>.rs` and
/// `fuzz/corpus/<name>/` call them.
pub const TARGETS: &[(&str, Target)] = &[
    ("boc", boc),
    ("chain_file", chain_file),
    ("address", address),
    ("hash", hash),
    ("query", query),
    ("json_body", json_body),
    ("stack", stack),
];

/// A BoC: if tycho reads it, our C++-order writer writes the same tree
/// (same root hash) in a form tycho reads back.
pub fn boc(data: &[u8]) {
    let Ok(cell) = tycho_types::boc::Boc::decode(data) else {
        return;
    };
    for bytes in [crate::boc::encode(&cell), crate::boc::encode_crc(&cell)] {
        let back = tycho_types::boc::Boc::decode(&bytes).expect("our BoC reads back");
        assert_eq!(back.repr_hash(), cell.repr_hash(), "same tree");
    }
}

/// A block, shard state or account file, as `tonindex import` reads it.
pub fn chain_file(data: &[u8]) {
    let _ = crate::decode::decode_chain_boc(data, crate::decode::file_hash(data), true);
}

/// An address in any accepted form: what parses writes back (raw, and
/// friendly where the workchain fits) and parses to the same address.
pub fn address(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some(parsed) = parse_address(&text) else {
        return;
    };
    let a = parsed.address;
    let raw = parse_address(&raw_upper(&a)).expect("raw form parses");
    assert_eq!(raw.address, a);
    if i8::try_from(a.workchain).is_ok() {
        for url_safe in [false, true] {
            let flags = FriendlyFlags {
                bounceable: true,
                testnet: false,
                url_safe,
            };
            let back = parse_address(&friendly(&a, flags)).expect("friendly form parses");
            assert_eq!(back.address, a);
        }
    }
}

/// A hash in any accepted form: base64 of what parses parses the same.
pub fn hash(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(h) = parse_hash(&text) {
        assert_eq!(parse_hash(&crate::api::encoding::b64(&h)), Some(h));
        assert_eq!(parse_hash(&hex::encode(h)), Some(h));
    }
}

/// Names the handlers read, so that every typed getter sees the input.
const NAMES: &[&str] = &[
    "address",
    "hash",
    "lt",
    "seqno",
    "limit",
    "offset",
    "workchain",
    "shard",
    "method",
    "stack",
    "boc",
    "msg_hash",
    "start_utime",
    "end_utime",
    "to_lt",
    "archival",
    "sort",
    "opcode",
];

fn read_all(p: &Params) {
    for name in NAMES {
        let _ = p.int::<i64>(name);
        let _ = p.int::<u64>(name);
        let _ = p.int::<i32>(name);
        let _ = p.bool(name);
        let _ = p.hash(name);
        let _ = p.address(name);
        let _ = p.all(name);
        let _ = p.json_list(name);
    }
}

/// A query string, read by every typed getter.
pub fn query(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    read_all(&Params::from_query(Some(&text)));
}

/// A JSON body (POST or JSON-RPC `params`), read by every typed getter.
pub fn json_body(data: &[u8]) {
    let Ok(body) = serde_json::from_slice::<Json>(data) else {
        return;
    };
    if let Ok(p) = Params::from_json(&body) {
        read_all(&p);
    }
    if let Some(params) = body.get("params") {
        if let Ok(p) = Params::from_json(params) {
            read_all(&p);
        }
    }
}

/// A get-method stack in each API's JSON form: what parses is written
/// back in every form without failing for anything the parser accepted.
pub fn stack(data: &[u8]) {
    use crate::tvm::stack;
    let Ok(v) = serde_json::from_slice::<Json>(data) else {
        return;
    };
    for parsed in [
        stack::parse_legacy_stack(&v),
        stack::parse_std_stack(&v),
        stack::parse_v3_stack(&v),
    ]
    .into_iter()
    .flatten()
    {
        let _ = stack::legacy_stack(&parsed);
        let _ = stack::std_stack(&parsed);
        let _ = stack::v3_stack(&parsed);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn targets_take_empty_and_junk_input() {
        for (_, target) in super::TARGETS {
            target(b"");
            target(b"\xb5\xee\x9c\x72\x01\x01\x01\x01\x00");
            target(b"{\"params\": [[\"num\", \"0x\"]]}");
        }
    }
}
