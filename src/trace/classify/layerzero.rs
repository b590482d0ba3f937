//! LayerZero v2 on TON: an OApp's send through endpoint, channel and ULN
//! (and the same preceded by a Jetton transfer: an OFT send), a packet
//! received and executed, a packet committed, a DVN's verification. Known
//! by opcode and shape; the packet and send details are read from the
//! metadata objects the messages carry.

use crate::trace::action_data::{
    ActionData, LayerZeroDvnVerify, LayerZeroPacket, LayerZeroPacketOnly, LayerZeroSend,
};
use tycho_types::cell::{Cell, CellSlice};

use super::body::hex_int;
use super::{Block, BlockId, Cols, Graph, Interfaces};

const OP_ENDPOINT_SEND: u32 = 0xdd4e_a3b4;
const OP_CHANNEL_SEND: u32 = 0x536f_eb09;
const OP_MSGLIB_SEND: u32 = 0x4002_b790;
const OP_ULN_SEND: u32 = 0x5de6_8393;
const OP_MSGLIB_SEND_CALLBACK: u32 = 0x421c_1a25;
const OP_EVENT: u32 = 0xe33b_9873;
const OP_CHANNEL_SEND_CALLBACK: u32 = 0xa2b5_fbae;
const OP_CHANNEL_RECEIVE_PREPARE: u32 = 0x22f3_ac09;
const OP_OAPP_RECEIVE_PREPARE: u32 = 0x97df_404c;
const OP_RECEIVE_LOCK: u32 = 0xb768_0bc6;
const OP_RECEIVE_EXECUTE: u32 = 0x0c7b_8418;
const OP_RECEIVE_EXECUTE_CALLBACK: u32 = 0xcaae_25a1;
const OP_ULN_COMMIT_PACKET: u32 = 0x28b9_7077;
const OP_ULN_CONNECTION_COMMIT: u32 = 0xf9d3_7b80;
const OP_ENDPOINT_COMMIT: u32 = 0x5dab_749a;
const OP_CHANNEL_COMMIT: u32 = 0x5388_cd88;
const OP_COMMIT_CALLBACK: u32 = 0x5e17_8f33;
const OP_DVN_VERIFY: u32 = 0xa0d5_1a8d;
const OP_PROXY_CALL: u32 = 0x09f0_47d9;
const OP_ULN_VERIFY: u32 = 0x994a_af4e;
const OP_ULN_CONNECTION_VERIFY: u32 = 0x4ec8_f80a;
const OP_VERIFY_CALLBACK: u32 = 0x3cb3_8090;

/// The opcodes whose bodies these matchers read.
pub(crate) const BODY_OPS: &[u32] = &[
    OP_CHANNEL_SEND_CALLBACK,
    OP_RECEIVE_EXECUTE,
    OP_CHANNEL_COMMIT,
    OP_VERIFY_CALLBACK,
];

/// Metadata object headers (type name and field layout, as the contracts
/// write them) and the all-ones filler after them: `(header bits, header
/// value in hex, filler bits)`.
const PATH: (u16, &str, u16) = (152, "70617468515ee05fb527ee0a7b", 198);
const PACKET: (u16, &str, u16) = (152, "5061636b657493ff24ffd615ee067b", 198);
const LZ_SEND: (u16, &str, u16) = (
    260,
    "6c7a53656e64615ee067b829ee200393ff1e4037980e4ffd9bff26ffd",
    90,
);
const VERIFICATION_STATUS: (u16, &str, u16) = (116, "76657269737461747573615ed467b", 234);

/// A metadata object's fields, after its header is checked.
fn md_fields<'c>(
    cell: &'c Cell,
    (bits, header, filler): (u16, &str, u16),
) -> Option<CellSlice<'c>> {
    let mut s = cell.as_slice().ok()?;
    let mut read = String::with_capacity(usize::from(bits));
    for _ in 0..bits {
        read.push(if s.load_bit().ok()? { '1' } else { '0' });
    }
    let want: String = header
        .chars()
        .map(|c| format!("{:04b}", c.to_digit(16).unwrap_or(0)))
        .collect();
    let want = format!("{want:0>width$}", width = usize::from(bits));
    if read != want {
        return None;
    }
    for _ in 0..filler {
        if !s.load_bit().ok()? {
            return None;
        }
    }
    Some(s)
}

/// `0x` and the number in hex, as Python's `hex()` writes it.
fn hex_u256(s: &mut CellSlice<'_>) -> Option<String> {
    Some(format!("0x{}", hex_int(s.load_u256().ok()?.as_array())))
}

/// A packet: path (source and destination OApps and endpoints), message,
/// nonce, guid.
fn packet(cell: &Cell) -> Option<LayerZeroPacket> {
    let mut s = md_fields(cell, PACKET)?;
    let path = s.load_reference_cloned().ok()?;
    let message = s.load_reference_cloned().ok()?;
    let nonce = s.load_u64().ok()?;
    let guid = hex_u256(&mut s)?;
    let mut p = md_fields(&path, PATH)?;
    let src_eid = p.load_u32().ok()?;
    let src_oapp = hex_u256(&mut p)?;
    let dst_eid = p.load_u32().ok()?;
    let dst_oapp = hex_u256(&mut p)?;
    Some(LayerZeroPacket {
        dst_eid,
        dst_oapp,
        guid,
        message: format!("0x{}", hex::encode(data_bytes(&message)?)),
        nonce,
        src_eid,
        src_oapp,
    })
}

/// A cell's own data bits as bytes, the last one zero-padded.
fn data_bytes(cell: &Cell) -> Option<Vec<u8>> {
    let mut s = cell.as_slice().ok()?;
    let mut out = Vec::new();
    while s.size_bits() > 0 {
        let take = s.size_bits().min(8);
        let v = s.load_uint(take).ok()? as u8;
        out.push(v << (8 - take));
    }
    Some(out)
}

/// The metadata object a message carries: its body's first reference, and
/// that one's first reference.
fn md_of(g: &Graph<'_>, b: BlockId) -> Option<Cell> {
    let outer = g.body(b)?.reference_cloned(0)?;
    outer.reference_cloned(0)
}

fn dst(g: &Graph<'_>, b: BlockId) -> Option<tonindex_model::Address> {
    g.msg(b)?.destination
}

fn src(g: &Graph<'_>, b: BlockId) -> Option<tonindex_model::Address> {
    g.msg(b)?.source
}

/// A required chain of calls, each the next's parent: the blocks, with the
/// change under each.
fn chain(
    g: &Graph<'_>,
    from: BlockId,
    ops: &[u32],
    members: &mut Vec<BlockId>,
) -> Option<Vec<BlockId>> {
    let mut at = from;
    let mut out = Vec::new();
    for &op in ops {
        at = g.next_call(at, op)?;
        members.extend(g.with_change(at));
        out.push(at);
    }
    Some(out)
}

/// An OApp's send: endpoint → channel → msglib connection → ULN →
/// callback to the channel (event, fee payouts, callback to the OApp).
pub(crate) fn send(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_ENDPOINT_SEND) {
        return None;
    }
    let mut members = vec![b];
    let steps = chain(
        g,
        b,
        &[
            OP_CHANNEL_SEND,
            OP_MSGLIB_SEND,
            OP_ULN_SEND,
            OP_MSGLIB_SEND_CALLBACK,
        ],
        &mut members,
    )?;
    let (channel_send, uln_send, callback) = (steps[0], steps[2], steps[3]);
    let event = g.next_call(callback, OP_EVENT)?;
    members.extend(g.with_change(event));
    let mut fees = Vec::new();
    while fees.len() < 5 {
        match g.next_kind(callback, "ton_transfer", &fees) {
            Some(t) => fees.push(t),
            None => break,
        }
    }
    for &t in &fees {
        members.extend(g.with_change(t));
    }
    let oapp_callback = g.next_call(callback, OP_CHANNEL_SEND_CALLBACK)?;
    members.extend(g.with_change(oapp_callback));
    if let Some(e) = g.next_call(oapp_callback, OP_EVENT) {
        members.extend(g.with_change(e));
    }
    if let Some(t) = g.next_kind(oapp_callback, "ton_transfer", &[]) {
        members.extend(g.with_change(t));
    }
    // The callback's metadata is a message receipt holding the send.
    let lz_send = md_of(g, oapp_callback)?.reference_cloned(0)?;
    let mut s = md_fields(&lz_send, LZ_SEND)?;
    let request_id = s.load_u64().ok()?;
    let manager = hex_u256(&mut s)?;
    let msglib = hex_u256(&mut s)?;
    let packet_cell = s.load_reference_cloned().ok()?;
    s.load_reference().ok()?;
    let fees_cell = s.load_reference_cloned().ok()?;
    let mut f = fees_cell.as_slice().ok()?;
    f.load_u256().ok()?;
    let native_fee = f.load_u128().ok()?;
    let zro_fee = f.load_u128().ok()?;
    let d = LayerZeroSend {
        channel: dst(g, channel_send),
        endpoint: dst(g, b),
        msglib,
        msglib_manager: manager,
        native_fee: Some(native_fee.to_string()),
        packet: packet(&packet_cell)?,
        send_request_id: request_id,
        uln: dst(g, uln_send),
        zro_fee: Some(zro_fee.to_string()),
    };
    let cols = Cols {
        source: src(g, b),
        ..Cols::default()
    };
    let mut blk = Block::of("layerzero_send", members, false, cols);
    blk.data = ActionData::LayerZeroSend(Box::new(d));
    Some(blk)
}

/// A send paid with Jettons: the Jetton transfer to the OApp (and the
/// OApp's own event) before its send.
pub(crate) fn send_tokens(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let send = g.block(b);
    if send.kind != "layerzero_send" {
        return None;
    }
    let transfer = send.prev.filter(|&p| g.kind(p) == "jetton_transfer")?;
    let event = g.next_call(transfer, OP_EVENT)?;
    let t = g.block(transfer);
    let cols = Cols {
        source: t.cols.source,
        source_secondary: t.cols.source_secondary,
        destination: t.cols.destination,
        destination_secondary: t.cols.destination_secondary,
        asset: t.cols.asset,
        amount: t.cols.amount,
        ..send.cols.clone()
    };
    let mut blk = Block::of(
        "layerzero_send_tokens",
        vec![b, transfer, event],
        false,
        cols,
    );
    blk.data = send.data.clone();
    Some(blk)
}

/// A packet received: the executor's prepare at the channel, the OApp's
/// lock, the execution and its callback.
pub(crate) fn receive(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_CHANNEL_RECEIVE_PREPARE) {
        return None;
    }
    let mut members = vec![b];
    if let Some(t) = g.next_kind(b, "ton_transfer", &[]) {
        members.extend(g.with_change(t));
    }
    let steps = chain(
        g,
        b,
        &[OP_OAPP_RECEIVE_PREPARE, OP_RECEIVE_LOCK, OP_RECEIVE_EXECUTE],
        &mut members,
    )?;
    let execute = steps[2];
    if let Some(e) = g.next_call(execute, OP_EVENT) {
        members.extend(g.with_change(e));
    }
    let callback = g.next_call(execute, OP_RECEIVE_EXECUTE_CALLBACK)?;
    members.extend(g.with_change(callback));
    if let Some(e) = g.next_call(callback, OP_EVENT) {
        members.extend(g.with_change(e));
    }
    if let Some(t) = g.next_kind(callback, "ton_transfer", &[]) {
        members.extend(g.with_change(t));
    }
    let packet = packet(&md_of(g, execute)?)?;
    let oapp = dst(g, execute)?;
    // The packet must be for the OApp that executed it.
    if packet.dst_oapp.trim_start_matches("0x") != hex_int(&oapp.id) {
        return None;
    }
    let cols = Cols {
        source: src(g, b),
        destination: Some(oapp),
        destination_secondary: src(g, execute),
        ..Cols::default()
    };
    let mut blk = Block::of("layerzero_receive", members, false, cols);
    blk.data = ActionData::LayerZeroPacket(Box::new(LayerZeroPacketOnly { packet }));
    Some(blk)
}

/// A packet committed: ULN → connection → endpoint → channel, and the
/// channel's callback to the connection.
pub(crate) fn commit_packet(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_ULN_COMMIT_PACKET) {
        return None;
    }
    let mut members = vec![b];
    let steps = chain(
        g,
        b,
        &[
            OP_ULN_CONNECTION_COMMIT,
            OP_ENDPOINT_COMMIT,
            OP_CHANNEL_COMMIT,
        ],
        &mut members,
    )?;
    let (connection, endpoint, channel) = (steps[0], steps[1], steps[2]);
    if let Some(e) = g.next_call(channel, OP_EVENT) {
        members.extend(g.with_change(e));
    }
    let callback = g.next_call(channel, OP_COMMIT_CALLBACK)?;
    members.extend(g.with_change(callback));
    if let Some(t) = g.next_kind(callback, "ton_transfer", &[]) {
        members.extend(g.with_change(t));
    }
    let packet = packet(&md_of(g, channel)?)?;
    // toncenter names the connection as the ULN too.
    let cols = Cols {
        source: src(g, b),
        source_secondary: dst(g, endpoint),
        destination: dst(g, connection),
        destination_secondary: dst(g, connection),
        asset: dst(g, channel),
        asset_secondary: dst(g, callback),
        ..Cols::default()
    };
    let mut blk = Block::of("layerzero_commit_packet", members, false, cols);
    blk.data = ActionData::LayerZeroPacket(Box::new(LayerZeroPacketOnly { packet }));
    Some(blk)
}

/// A DVN's verification: DVN → proxy → ULN → connection, and the
/// connection's callback with the verification status.
pub(crate) fn dvn_verify(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    if g.call_op(b) != Some(OP_DVN_VERIFY) {
        return None;
    }
    let mut members = vec![b];
    let steps = chain(
        g,
        b,
        &[OP_PROXY_CALL, OP_ULN_VERIFY, OP_ULN_CONNECTION_VERIFY],
        &mut members,
    )?;
    let (proxy, uln, connection) = (steps[0], steps[1], steps[2]);
    if let Some(e) = g.next_call(connection, OP_EVENT) {
        members.extend(g.with_change(e));
    }
    let callback = g.next_call(connection, OP_VERIFY_CALLBACK)?;
    members.extend(g.with_change(callback));
    if let Some(t) = g.next_kind(callback, "ton_transfer", &[]) {
        members.extend(g.with_change(t));
    }
    let status_cell = md_of(g, callback)?;
    let mut s = md_fields(&status_cell, VERIFICATION_STATUS)?;
    let nonce = s.load_u64().ok()?;
    let status = match s.load_u32().ok()? {
        0x3bbc_306b => "succeeded".to_string(),
        0x7fcb_b4ac => "nonce_out_of_range".to_string(),
        0x29c5_3fab => "dvn_not_configured".to_string(),
        other => format!("unknown_{other}"),
    };
    let cols = Cols {
        source: src(g, b),
        ..Cols::default()
    };
    let mut blk = Block::of("layerzero_dvn_verify", members, false, cols);
    blk.data = ActionData::LayerZeroDvnVerify(LayerZeroDvnVerify {
        dvn: dst(g, b),
        nonce,
        proxy: dst(g, proxy),
        status,
        uln: dst(g, uln),
        uln_connection: dst(g, connection),
    });
    Some(blk)
}
