//! `parse_actions` of v3 `/multisig/orders` (spec v3 §3.9): a multisig v2
//! order (`Hashmap 8 ^Action`) as the list of what it will do — each
//! outgoing message with its destination, value and body decoded when it
//! is one of the bodies multisig users send (TON with a comment, Jetton,
//! NFT, Jetton-admin, single-nominator and vesting bodies), and each
//! parameter update with its new signers.
//!
//! Shapes follow toncenter's Go server, with two deliberate differences: a
//! text comment is the text after its 32-bit zero tag (the Go server keeps
//! the four NUL bytes of the tag in `comment`), and new signers and
//! proposers are listed in their dictionary order (the Go server's order is
//! a map's).

use serde_json::{json, Value as Json};
use tycho_types::cell::{Cell, CellSlice, Load};
use tycho_types::dict::{Dict, RawDict};
use tycho_types::models::{IntAddr, RelaxedMessage, RelaxedMsgInfo};
use tycho_types::num::Tokens;

use crate::api::encoding::raw_upper;
use crate::decode::body::{self, Read};

/// The actions of an order, in key order; an action that does not read is
/// reported as not parsed, with why.
pub fn parse(order: &Cell) -> Vec<Json> {
    let dict = RawDict::<8>::from(Some(order.clone()));
    let mut out = Vec::new();
    for entry in dict.iter() {
        let action = match entry {
            Ok((_, value)) => action(&value)
                .unwrap_or_else(|e| failed(&format!("failed to parse order action: {e}"))),
            Err(e) => failed(&format!("failed to load all dictionary entries: {e}")),
        };
        out.push(action);
    }
    out
}

fn failed(why: &str) -> Json {
    json!({
        "destination": null, "value": null, "body_raw": null, "parsed": false,
        "error": why, "parsed_body": null, "parsed_body_type": "unknown", "send_mode": 0,
    })
}

fn e(err: impl std::fmt::Display) -> String {
    err.to_string()
}

fn boc(cell: &Cell) -> String {
    body::boc_b64(cell)
}

fn address(cs: &mut CellSlice<'_>) -> Read<Json> {
    body::address(cs)
}

fn coins(cs: &mut CellSlice<'_>) -> Read<String> {
    Ok(Tokens::load_from(cs).map_err(e)?.into_inner().to_string())
}

fn maybe_ref(cs: &mut CellSlice<'_>) -> Read<Json> {
    Ok(match Option::<Cell>::load_from(cs).map_err(e)? {
        Some(c) => json!(boc(&c)),
        None => Json::Null,
    })
}

/// `Either Cell ^Cell`: the rest of the slice, or its reference.
fn either_cell(cs: &mut CellSlice<'_>) -> Read<Cell> {
    if cs.load_bit().map_err(e)? {
        cs.load_reference_cloned().map_err(e)
    } else {
        body::rest_cell(cs)
    }
}

/// Snake text, with bytes that are not UTF-8 replaced (as the Go server reads it).
fn snake(cs: CellSlice<'_>) -> Read<String> {
    Ok(String::from_utf8_lossy(&body::snake_bytes(cs)?).into_owned())
}

/// Nanotons as TON with the trailing zeros cut (`1500000000` → `"1.5"`).
fn ton_decimal(nano: u128) -> String {
    let whole = nano / 1_000_000_000;
    let frac = nano % 1_000_000_000;
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:09}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

fn action(value: &CellSlice<'_>) -> Read<Json> {
    let mut value = *value;
    let cell = value.load_reference_cloned().map_err(e)?;
    let mut cs = cell.as_slice().map_err(e)?;
    let tag = cs.load_u32().map_err(e)?;
    match tag {
        // send_message#f1381e5b mode:uint8 message:^Cell
        0xf1381e5b => {
            let mode = cs.load_u8().map_err(e)?;
            let msg_cell = cs.load_reference_cloned().map_err(e)?;
            let msg: RelaxedMessage<'_> = msg_cell.parse().map_err(e)?;
            let (destination, value) = match &msg.info {
                RelaxedMsgInfo::Int(info) => (
                    match &info.dst {
                        IntAddr::Std(a) => json!(raw_upper(&tonindex_model::Address {
                            workchain: a.workchain as i32,
                            id: *a.address.as_array(),
                        })),
                        IntAddr::Var(_) => Json::Null,
                    },
                    info.value.tokens.into_inner().to_string(),
                ),
                RelaxedMsgInfo::ExtOut(_) => (Json::Null, "0".to_string()),
            };
            let body = body::rest_cell(&mut { msg.body })?;
            let (kind, parsed) = match body_json(&body) {
                Ok(v) => v,
                Err(_) => ("unknown", json!({"opcode": 0, "data": boc(&body)})),
            };
            Ok(json!({
                "destination": destination, "value": value, "body_raw": boc(&body),
                "parsed": true, "error": null, "parsed_body": parsed,
                "parsed_body_type": kind, "send_mode": mode,
            }))
        }
        // update_multisig_param#1d0cfbd3 threshold:uint8
        //   signers:^(Hashmap 8 MsgAddressInt) proposers:(HashmapE 8 MsgAddressInt)
        0x1d0cfbd3 => {
            let threshold = cs.load_u8().map_err(e)?;
            let signers = Some(cs.load_reference_cloned().map_err(e)?);
            let proposers = Option::<Cell>::load_from(&mut cs).map_err(e)?;
            let list = |root: Option<Cell>| -> Read<Json> {
                if root.is_none() {
                    return Ok(Json::Null);
                }
                let mut out = Vec::new();
                for entry in Dict::<u8, IntAddr>::from_raw(root).iter() {
                    match entry.map_err(e)?.1 {
                        IntAddr::Std(a) => out.push(json!(raw_upper(&tonindex_model::Address {
                            workchain: a.workchain as i32,
                            id: *a.address.as_array(),
                        }))),
                        IntAddr::Var(_) => return Err("a variable-length address".into()),
                    }
                }
                Ok(Json::Array(out))
            };
            Ok(json!({
                "destination": null, "value": null, "body_raw": null, "parsed": true,
                "error": null,
                "parsed_body": {
                    "new_threshold": threshold,
                    "new_signers": list(signers)?,
                    "new_proposers": list(proposers)?,
                },
                "parsed_body_type": "multisig_update_params", "send_mode": 0,
            }))
        }
        other => Err(format!("unknown order action type: {other}")),
    }
}

/// A message body as `(parsed_body_type, parsed_body)`.
fn body_json(body: &Cell) -> Read<(&'static str, Json)> {
    let mut cs = body.as_slice().map_err(e)?;
    if cs.size_bits() < 32 {
        return Ok(("ton_transfer", simple_comment(cs)));
    }
    let op = cs.load_u32().map_err(e)?;
    let query_id = |cs: &mut CellSlice<'_>| cs.load_u64().map_err(e);
    Ok(match op {
        0 => ("ton_transfer", simple_comment(cs)),
        0x2167da4b => (
            "ton_transfer",
            json!({"comment": snake(cs)?, "encrypted": true}),
        ),
        0x0f8a7ea5 => jetton_transfer_json(cs)?,
        0x595f07bc => {
            let query_id = query_id(&mut cs)?;
            let amount = coins(&mut cs)?;
            let response = address(&mut cs)?;
            (
                "jetton_burn",
                json!({"query_id": query_id, "amount": amount, "response_destination": response}),
            )
        }
        0x642b7d07 => jetton_mint_json(op, cs)?,
        0x5fcc3d14 => nft_transfer_json(cs)?,
        0x00009fd3 => ("jetton_top_up", json!({"query_id": query_id(&mut cs)?})),
        0x6501f354 => {
            let query_id = query_id(&mut cs)?;
            let admin = address(&mut cs)?;
            (
                "jetton_change_admin",
                json!({"query_id": query_id, "new_admin_address": admin}),
            )
        }
        0xfb88e119 => (
            "jetton_claim_admin",
            json!({"query_id": query_id(&mut cs)?}),
        ),
        0xcb862902 => {
            let query_id = query_id(&mut cs)?;
            (
                "jetton_change_content",
                json!({"query_id": query_id, "new_metadata_url": snake(cs)?}),
            )
        }
        0x235caf52 => jetton_call_to_json(cs)?,
        0xeed236d3 => {
            let query_id = query_id(&mut cs)?;
            let status = cs.load_u8().map_err(e)?;
            (
                "jetton_set_status",
                json!({"query_id": query_id, "new_status": status}),
            )
        }
        0x00001000 => {
            let query_id = query_id(&mut cs)?;
            (
                "single_nominator_withdraw",
                json!({"query_id": query_id, "coins": coins(&mut cs)?}),
            )
        }
        0x00001001 => {
            let query_id = query_id(&mut cs)?;
            (
                "single_nominator_change_validator",
                json!({"query_id": query_id, "validator_address": address(&mut cs)?}),
            )
        }
        0x75097f5d => vesting_transfer_json(cs)?,
        _ => ("unknown", json!({"opcode": op, "data": boc(body)})),
    })
}

/// `transfer#0f8a7ea5`'s fields, with its forward payload read.
fn jetton_transfer_json(mut cs: CellSlice<'_>) -> Read<(&'static str, Json)> {
    let query_id = cs.load_u64().map_err(e)?;
    let amount = coins(&mut cs)?;
    let destination = address(&mut cs)?;
    let response = address(&mut cs)?;
    let custom_payload = maybe_ref(&mut cs)?;
    let forward_amount = coins(&mut cs)?;
    let forward = either_cell(&mut cs)?;
    let mut v = json!({
        "query_id": query_id, "amount": amount, "destination": destination,
        "response": response, "custom_payload": custom_payload,
        "forward_amount": forward_amount, "comment": "", "encrypted_comment": false,
        "forward_payload": boc(&forward), "payload_sum_type": "",
        "stonfi_swap_body": null,
    });
    forward_payload(&forward, &mut v);
    Ok(("jetton_transfer", v))
}

/// `mint#642b7d07 query_id to_address ton_amount master_msg:^(op query_id
/// jetton_amount)`'s fields.
fn jetton_mint_json(op: u32, mut cs: CellSlice<'_>) -> Read<(&'static str, Json)> {
    let query_id = cs.load_u64().map_err(e)?;
    let to = address(&mut cs)?;
    let ton_amount = coins(&mut cs)?;
    let mut master = cs.load_reference_as_slice().map_err(e)?;
    let _op = master.load_u32().map_err(e)?;
    let master_query_id = master.load_u64().map_err(e)?;
    let jetton_amount = coins(&mut master)?;
    Ok((
        "jetton_mint",
        json!({
            "opcode": op, "query_id": query_id, "to_address": to,
            "ton_amount": ton_amount, "master_msg_query_id": master_query_id,
            "master_msg_jetton_amount": jetton_amount,
        }),
    ))
}

/// An NFT `transfer#5fcc3d14`'s fields.
fn nft_transfer_json(mut cs: CellSlice<'_>) -> Read<(&'static str, Json)> {
    let query_id = cs.load_u64().map_err(e)?;
    let new_owner = address(&mut cs)?;
    let response = address(&mut cs)?;
    let custom_payload = maybe_ref(&mut cs)?;
    let forward_amount = coins(&mut cs)?;
    let forward = either_cell(&mut cs)?;
    Ok((
        "nft_transfer",
        json!({
            "query_id": query_id, "new_owner": new_owner,
            "response_destination": response, "custom_payload": custom_payload,
            "forward_amount": forward_amount, "forward_payload": boc(&forward),
        }),
    ))
}

/// A Jetton master's `call_to#235caf52`: the call it makes and its kind.
fn jetton_call_to_json(mut cs: CellSlice<'_>) -> Read<(&'static str, Json)> {
    let query_id = cs.load_u64().map_err(e)?;
    let to = address(&mut cs)?;
    let ton_amount = coins(&mut cs)?;
    let action = cs.load_reference_cloned().map_err(e)?;
    let mut acs = action.as_slice().map_err(e)?;
    let action_type = if acs.size_bits() >= 32 {
        match acs.load_u32().map_err(e)? {
            0xeed236d3 => "JettonSetStatus",
            0x0f8a7ea5 => "JettonTransfer",
            0x595f07bc => "JettonBurn",
            _ => "Unknown",
        }
    } else {
        ""
    };
    Ok((
        "jetton_call_to",
        json!({
            "query_id": query_id, "to_address": to, "ton_amount": ton_amount,
            "action_type": action_type, "action_data": boc(&action),
        }),
    ))
}

/// A vesting wallet's internal transfer: `query_id send_mode:uint8
/// msg:^MessageRelaxed`, the message's destination, value, body and comment.
fn vesting_transfer_json(mut cs: CellSlice<'_>) -> Read<(&'static str, Json)> {
    let query_id = cs.load_u64().map_err(e)?;
    let send_mode = cs.load_u8().map_err(e)?;
    let msg_cell = cs.load_reference_cloned().map_err(e)?;
    let msg: RelaxedMessage<'_> = msg_cell.parse().map_err(e)?;
    let mut v = json!({
        "query_id": query_id, "send_mode": send_mode, "destination": null,
        "value": null, "message_body": null, "comment": "",
    });
    if let RelaxedMsgInfo::Int(info) = &msg.info {
        if let IntAddr::Std(a) = &info.dst {
            v["destination"] = json!(raw_upper(&tonindex_model::Address {
                workchain: a.workchain as i32,
                id: *a.address.as_array(),
            }));
        }
        v["value"] = json!(info.value.tokens.into_inner().to_string());
        let body = body::rest_cell(&mut { msg.body })?;
        v["message_body"] = json!(boc(&body));
        let mut bcs = msg.body;
        if bcs.size_bits() >= 32 && bcs.load_u32().map_err(e)? == 0 {
            v["comment"] = json!(snake(bcs)?);
        }
    }
    Ok(("vesting_internal_transfer", v))
}

/// A plain transfer's body: a comment when its bytes read as one.
fn simple_comment(cs: CellSlice<'_>) -> Json {
    let bits = cs.size_bits();
    let comment = if bits >= 8 && bits.is_multiple_of(8) && cs.size_refs() <= 1 {
        snake(cs).unwrap_or_default()
    } else {
        String::new()
    };
    json!({"comment": comment, "encrypted": false})
}

/// What a Jetton transfer's forward payload says, as the Go server reads it.
fn forward_payload(payload: &Cell, v: &mut Json) {
    let Ok(mut cs) = payload.as_slice() else {
        return;
    };
    if cs.size_bits() == 0 {
        return;
    }
    let Ok(tag) = cs.load_u32() else {
        v["payload_sum_type"] = json!("Unknown");
        return;
    };
    match tag {
        0 => {
            v["payload_sum_type"] = json!("TextComment");
            if let Ok(c) = snake(cs) {
                v["comment"] = json!(c);
            }
        }
        0x2167da4b => {
            v["payload_sum_type"] = json!("EncryptedTextComment");
            v["encrypted_comment"] = json!(true);
            if let Ok(c) = snake(cs) {
                v["comment"] = json!(c);
            }
        }
        // swap#25938561 jetton_wallet min_amount:Coins user_address …
        0x25938561 => {
            let swap = (|| -> Read<Json> {
                let wallet = address(&mut cs)?;
                let min = Tokens::load_from(&mut cs).map_err(e)?.into_inner();
                let user = address(&mut cs)?;
                Ok(json!({
                    "jetton_wallet": wallet, "min_amount": ton_decimal(min), "user_address": user,
                }))
            })();
            match swap {
                Ok(body) => {
                    v["payload_sum_type"] = json!("StonfiSwap");
                    v["stonfi_swap_body"] = body;
                }
                Err(_) => v["payload_sum_type"] = json!("Unknown"),
            }
        }
        _ => v["payload_sum_type"] = json!("Unknown"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ton_amounts_print_as_the_go_server_prints_them() {
        assert_eq!(ton_decimal(1_500_000_000), "1.5");
        assert_eq!(ton_decimal(1), "0.000000001");
        assert_eq!(ton_decimal(2_000_000_000), "2");
        assert_eq!(ton_decimal(0), "0");
    }
}
