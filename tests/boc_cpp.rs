//! Every BoC tonindex writes is byte for byte what the C++ node writes
//! (`std_boc_serialize` with `Mode::WithCRC32C`, as tonlib and toncenter
//! hand them out). The oracle: a real toncenter v3 `/traces` response
//! (../shared/fixtures/api-golden/v3-traces, testnet), whose message
//! bodies and init states the C++ index worker serialized. Each is decoded
//! and written again by `tonindex::boc`, and must come out identical.
//!
//! (Other fixture vectors are not used: some of their BoCs were written by
//! other libraries — a root whose references are not in the increasing
//! order C++ always writes, say — so they prove nothing about C++.)

mod common;

use base64::Engine;
use tycho_types::boc::Boc;

/// Base64 BoCs with a CRC trailer (`te6cck…`) found in a fixture file.
fn crc_bocs(rel: &str) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(common::fixture(rel)).unwrap();
    text.split('"')
        .filter(|piece| piece.starts_with("te6cck"))
        .filter_map(|piece| base64::engine::general_purpose::STANDARD.decode(piece).ok())
        .collect()
}

#[test]
fn toncenter_bocs_are_written_again_identically() {
    let bocs = crc_bocs("api-golden/v3-traces/axelar_v3_traces.json");
    assert!(bocs.len() >= 300, "only {} BoCs found", bocs.len());
    let mut cells = 0;
    for boc in &bocs {
        let cell = Boc::decode(boc).unwrap();
        let ours = tonindex::boc::encode_crc(cell.as_ref());
        assert_eq!(
            hex::encode(&ours),
            hex::encode(boc),
            "cell {}",
            cell.repr_hash()
        );
        // The same bytes without the trailer are the plain form.
        let plain = tonindex::boc::encode(cell.as_ref());
        assert_eq!(plain[5..], boc[5..boc.len() - 4]);
        cells += u32::from_be_bytes([0, 0, 0, boc[6]]);
    }
    // Not only single cells: trees of several cells, with shared subtrees.
    assert!(
        cells as usize > 3 * bocs.len(),
        "{cells} cells in {} BoCs",
        bocs.len()
    );
}
