//! ADNL-TCP and lite API vectors (F7), read in place from
//! tests/data/fixtures/vectors: the ADNL handshake and packet framing of
//! adnl-rs's own test vectors, the lite API queries pytoniq-core encodes
//! (cross-checked there against TON's docs and adnl-rs), and two real
//! mainnet answers tongo recorded. Every one decodes with the crates the
//! lite server and client use (`adnl`, `ton_liteapi`) and encodes back to
//! the same bytes.

use crate::common;

use adnl::crypto::PublicKey;
use adnl::{AdnlAddress, AdnlAesParams, AdnlCodec, AdnlHandshake};
use serde_json::Value;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, Encoder};
use ton_liteapi::tl::adnl::Message;
use ton_liteapi::tl::request::{LiteQuery, Request};
use ton_liteapi::tl::response::Response;

fn hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn vectors(name: &str) -> Value {
    common::json(&format!("vectors/{name}"))
}

fn aes(v: &Value) -> AdnlAesParams {
    let raw: [u8; 160] = hex(v).try_into().unwrap();
    AdnlAesParams::from(raw)
}

/// The other end's parameters: receive and send keys and nonces swapped.
fn swapped(v: &Value) -> AdnlAesParams {
    let p = hex(v);
    let mut s = [0u8; 160];
    s[..32].copy_from_slice(&p[32..64]);
    s[32..64].copy_from_slice(&p[..32]);
    s[64..80].copy_from_slice(&p[80..96]);
    s[80..96].copy_from_slice(&p[64..80]);
    s[96..].copy_from_slice(&p[96..]);
    AdnlAesParams::from(s)
}

#[test]
fn adnl_handshakes_encode_byte_for_byte() {
    let v = vectors("adnl/adnl-rs-tcp-vectors.json");
    let cases = v["handshake"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for c in cases {
        let key = |k: &str| PublicKey::from_bytes(hex(&c[k]).try_into().unwrap()).unwrap();
        let ecdh: [u8; 32] = hex(&c["ecdh"]).try_into().unwrap();
        let handshake = AdnlHandshake::new(
            AdnlAddress::from(&key("remote_public")),
            key("local_public"),
            ecdh,
            aes(&c["aes_params"]),
        );
        assert_eq!(
            handshake.to_bytes().as_slice(),
            hex(&c["expected_handshake"]),
            "{}",
            c["test"]
        );
    }
}

#[test]
fn adnl_packets_frame_and_unframe() {
    let v = vectors("adnl/adnl-rs-tcp-vectors.json");
    for c in v["send"].as_array().unwrap() {
        let buffer = hex(&c["buffer"]);
        let expected = hex(&c["expected_packet"]);
        // The recorded packet, read by the receiving end, is the buffer.
        let mut server = AdnlCodec::client(&swapped(&c["aes_params"]));
        let got = server
            .decode(&mut BytesMut::from(expected.as_slice()))
            .unwrap()
            .expect("a whole packet");
        assert_eq!(got.as_ref(), buffer.as_slice(), "{}", c["test"]);
        // Framing the buffer again: the same bytes but for the random nonce
        // and the hash over it (length, then the encrypted payload).
        let mut client = AdnlCodec::client(&aes(&c["aes_params"]));
        let mut packet = BytesMut::new();
        client.encode(buffer.clone().into(), &mut packet).unwrap();
        assert_eq!(packet.len(), expected.len());
        assert_eq!(packet[..4], expected[..4]);
        assert_eq!(
            packet[36..packet.len() - 32],
            expected[36..expected.len() - 32],
            "{}",
            c["test"]
        );
        let mut server = AdnlCodec::client(&swapped(&c["aes_params"]));
        assert_eq!(
            server.decode(&mut packet).unwrap().unwrap().as_ref(),
            buffer.as_slice()
        );
        // The buffer is a lite API query: it decodes and encodes back.
        let msg: Message = tl_proto::deserialize(&buffer).unwrap();
        assert!(matches!(
            &msg,
            Message::Query { query, .. } if matches!(query.wrapped_request.request, Request::GetTime)
        ));
        assert_eq!(tl_proto::serialize(&msg), buffer);
    }
    for c in v["recv"].as_array().unwrap() {
        // One codec: the stream cipher runs on across packets.
        let mut codec = AdnlCodec::client(&aes(&c["aes_params"]));
        for p in c["packets"].as_array().unwrap() {
            let data = codec
                .decode(&mut BytesMut::from(hex(&p["encrypted"]).as_slice()))
                .unwrap()
                .expect("a whole packet");
            let expected = hex(&p["expected_data"]);
            assert_eq!(data.as_ref(), expected.as_slice(), "{}", c["test"]);
            if !expected.is_empty() {
                // adnl.message.answer(liteServer.currentTime).
                let msg: Message = tl_proto::deserialize(&expected).unwrap();
                let Message::Answer { answer, .. } = &msg else {
                    panic!("{msg:?}");
                };
                assert!(matches!(answer, Response::CurrentTime(t) if t.now > 1_647_000_000));
                assert_eq!(tl_proto::serialize(&msg), expected);
            }
        }
    }
}

#[test]
fn lite_api_queries_encode_byte_for_byte() {
    let v = vectors("liteapi/pytoniq-derived-liteapi-tl.json");
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 13);
    let mut methods = Vec::new();
    for c in cases {
        let method = c["method"].as_str().unwrap();
        let tl = hex(&c["tl_hex"]);
        let request: Request =
            tl_proto::deserialize(&tl).unwrap_or_else(|e| panic!("{method}: {e:?}"));
        if method == "liteServer.listBlockTransactions" {
            // ton_liteapi 0.2 keeps only the mode bits that carry fields
            // (5, 6, 7): bits 0-2 (want account, lt, hash) are dropped on
            // decoding, so this query is not carried faithfully. Known gap,
            // asserted exactly: everything but the mode word round-trips.
            // The follower's lite client (F7) needs a type that keeps the
            // whole mode before it can list block transactions.
            let back = tl_proto::serialize(&request);
            let mode_at = 4 + 80; // constructor, then tonNode.blockIdExt
            assert_eq!(back.len(), tl.len());
            assert_eq!(back[..mode_at], tl[..mode_at]);
            assert_eq!(back[mode_at + 4..], tl[mode_at + 4..]);
            let mode = |b: &[u8]| u32::from_le_bytes(b[mode_at..mode_at + 4].try_into().unwrap());
            assert_eq!((mode(&tl), mode(&back)), (7, 0));
            continue;
        }
        assert_eq!(tl_proto::serialize(&request), tl, "{method}");
        let wrapped = hex(&c["liteServer.query_hex"]);
        let query: LiteQuery = tl_proto::deserialize(&wrapped).unwrap();
        assert_eq!(query.wrapped_request.request, request, "{method}");
        assert_eq!(tl_proto::serialize(&query), wrapped, "{method}");
        let key = c
            .as_object()
            .unwrap()
            .keys()
            .find(|k| k.starts_with("adnl.message.query_hex"))
            .unwrap();
        let adnl = hex(&c[key.as_str()]);
        let msg: Message = tl_proto::deserialize(&adnl).unwrap();
        assert!(matches!(&msg, Message::Query { query: q, .. } if *q == query));
        assert_eq!(tl_proto::serialize(&msg), adnl, "{method}");
        methods.push(method);
    }
    assert!(methods.contains(&"liteServer.getAccountState"));
    assert!(methods.contains(&"liteServer.runSmcMethod"));
}

#[test]
fn recorded_mainnet_answers_decode_and_encode_back() {
    let read =
        |name: &str| std::fs::read(common::fixture(&format!("vectors/liteapi/{name}"))).unwrap();
    let info = read("get-last-config-all-1.bin");
    let answer: Response = tl_proto::deserialize(&info).unwrap();
    let Response::MasterchainInfo(m) = &answer else {
        panic!("{answer:?}");
    };
    assert_eq!(
        (m.last.workchain, m.last.shard),
        (-1, 0x8000_0000_0000_0000)
    );
    assert_eq!(m.last.seqno, 26_309_435);
    // The mainnet zero state.
    assert!(hex::encode(m.init.root_hash.0).starts_with("17a3a929"));
    assert_eq!(tl_proto::serialize(&answer), info);

    let config = read("get-last-config-all-2.bin");
    let answer: Response = tl_proto::deserialize(&config).unwrap();
    let Response::ConfigInfo(c) = &answer else {
        panic!("not a configInfo");
    };
    assert_eq!(c.id.seqno, 26_309_435);
    assert_eq!(tl_proto::serialize(&answer), config);
    // Its proofs are BoCs tycho reads.
    for proof in [&c.state_proof, &c.config_proof] {
        tycho_types::boc::Boc::decode(proof).unwrap();
    }
}
