//! Every BoC tonindex writes is byte for byte what the C++ node writes
//! (`std_boc_serialize` with `Mode::WithCRC32C`, as tonlib and toncenter
//! hand them out). The oracle: toncenter's own mainnet traces as its C++
//! index worker stored them (ton-indexer's test corpus,
//! tests/data/fixtures/api-golden/ton-indexer-actions, read as
//! tests/it/actions_corpus.rs reads it), whose message
//! bodies and init states that worker serialized. Each is decoded and
//! written again by `tonindex::boc`, and must come out identical.
//!
//! (Other fixture vectors are not used: some of their BoCs were written by
//! other libraries — a root whose references are not in the increasing
//! order C++ always writes, say — so they prove nothing about C++.)

use base64::Engine;
use tycho_types::boc::Boc;

/// Base64 BoCs with a CRC trailer (`te6cck…`) anywhere in a msgpack value.
fn collect_crc_bocs(value: &rmpv::Value, out: &mut Vec<Vec<u8>>) {
    use rmpv::Value as M;
    let text = match value {
        M::String(s) => s.as_bytes(),
        M::Binary(b) => b.as_slice(),
        M::Array(items) => {
            items.iter().for_each(|v| collect_crc_bocs(v, out));
            return;
        }
        M::Map(entries) => {
            for (k, v) in entries {
                collect_crc_bocs(k, out);
                collect_crc_bocs(v, out);
            }
            return;
        }
        _ => return,
    };
    if text.starts_with(b"te6cck") {
        out.push(
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .expect("a base64 BoC"),
        );
    }
}

/// Every `te6cck…` BoC of the corpus's traces.
fn crc_bocs() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for path in crate::actions_corpus::trace_files() {
        collect_crc_bocs(&crate::actions_corpus::read_trace_value(&path), &mut out);
    }
    out
}

#[test]
fn toncenter_bocs_are_written_again_identically() {
    let bocs = crc_bocs();
    assert!(bocs.len() >= 1000, "only {} BoCs found", bocs.len());
    let (mut cells, mut large) = (0, 0);
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
        // The cell count: the header's first number, `ref_size` bytes.
        let ref_size = usize::from(boc[4] & 7);
        let count = boc[6..6 + ref_size]
            .iter()
            .fold(0usize, |n, &b| n << 8 | usize::from(b));
        cells += count;
        // Trees of over 64 cells are where the C++ serializer's weights
        // make "special" cells that are visited early.
        large += usize::from(count > 64);
    }
    // Not only single cells: trees of several cells, with shared subtrees,
    // and large trees (contract code in init states).
    assert!(
        cells > 3 * bocs.len(),
        "{cells} cells in {} BoCs",
        bocs.len()
    );
    assert!(large >= 5, "only {large} BoCs of over 64 cells");
    println!(
        "{} BoCs, {cells} cells, {large} of over 64 cells",
        bocs.len()
    );
}
