//! The `details` of LayerZero, tgBTC and Cocoon.

use serde::Serialize;
use tonindex_model::ActionRecord;
use utoipa::ToSchema;

use super::{ra, unreadable, ActionDetails};
use crate::api::encoding::RawAddr;
use crate::trace::action_data::{self as data, ActionData, Cocoon};

/// A LayerZero packet (ids and OApps as `0x` hex).
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroPacketData {
    pub dst_eid: u32,
    pub dst_oapp: String,
    pub guid: String,
    pub message: String,
    pub nonce: u64,
    pub src_eid: u32,
    pub src_oapp: String,
}

impl From<data::LayerZeroPacket> for LayerZeroPacketData {
    fn from(p: data::LayerZeroPacket) -> Self {
        Self {
            dst_eid: p.dst_eid,
            dst_oapp: p.dst_oapp,
            guid: p.guid,
            message: p.message,
            nonce: p.nonce,
            src_eid: p.src_eid,
            src_oapp: p.src_oapp,
        }
    }
}

/// A LayerZero send's own fields (its packet apart).
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroSendData {
    pub channel: Option<RawAddr>,
    pub endpoint: Option<RawAddr>,
    pub msglib: String,
    pub msglib_manager: String,
    pub native_fee: Option<String>,
    pub send_request_id: u64,
    pub uln: Option<RawAddr>,
    pub zro_fee: Option<String>,
}

/// `layerzero_send`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroSendDetails {
    pub initiator: Option<RawAddr>,
    pub layerzero_send_data: LayerZeroSendData,
    pub layerzero_packet_data: LayerZeroPacketData,
}

/// `layerzero_send_tokens`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroSendTokensDetails {
    pub sender: Option<RawAddr>,
    pub sender_wallet: Option<RawAddr>,
    pub oapp: Option<RawAddr>,
    pub oapp_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
    pub layerzero_send_data: LayerZeroSendData,
    pub layerzero_packet_data: LayerZeroPacketData,
}

/// `layerzero_receive`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroReceiveDetails {
    pub sender: Option<RawAddr>,
    pub oapp: Option<RawAddr>,
    pub channel: Option<RawAddr>,
    pub layerzero_packet_data: LayerZeroPacketData,
}

/// `layerzero_commit_packet`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroCommitPacketDetails {
    pub sender: Option<RawAddr>,
    pub endpoint: Option<RawAddr>,
    pub uln: Option<RawAddr>,
    pub uln_connection: Option<RawAddr>,
    pub channel: Option<RawAddr>,
    pub msglib_connection: Option<RawAddr>,
    pub layerzero_packet_data: LayerZeroPacketData,
}

/// `layerzero_dvn_verify`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LayerZeroDvnVerifyDetails {
    pub initiator: Option<RawAddr>,
    pub nonce: u64,
    pub status: String,
    pub dvn: Option<RawAddr>,
    pub proxy: Option<RawAddr>,
    pub uln: Option<RawAddr>,
    pub uln_connection: Option<RawAddr>,
}

/// `tgbtc_mint` and `tgbtc_mint_fallback`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TgbtcMintDetails {
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub amount: Option<String>,
    pub asset: Option<RawAddr>,
    /// Hex, in Bitcoin's byte order.
    pub bitcoin_tx_id: String,
    pub destination_wallet: Option<RawAddr>,
}

/// `tgbtc_burn` and `tgbtc_burn_fallback`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TgbtcBurnDetails {
    pub source: Option<RawAddr>,
    pub source_wallet: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub amount: Option<String>,
    pub asset: Option<RawAddr>,
}

/// `tgbtc_new_key` and `tgbtc_new_key_fallback`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TgbtcNewKeyDetails {
    pub source: Option<RawAddr>,
    /// Hex.
    pub pubkey: String,
    pub coordinator: Option<RawAddr>,
    pub pegout: Option<RawAddr>,
    pub amount: Option<String>,
    pub asset: Option<RawAddr>,
}

/// `tgbtc_dkg_log_fallback`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TgbtcDkgLogDetails {
    pub coordinator: Option<RawAddr>,
    /// Hex.
    pub pubkey: String,
    pub timestamp: Option<String>,
}

/// Cocoon's types (`cocoon_*`): the fields of the type's own shape, then
/// the row's addresses and amount where it has them.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct CocoonDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_tokens: Option<String>,
    /// `regular` or `last`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payout_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_state: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_tokens: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seqno: Option<u32>,
    /// A raw address, an external `bits;hex` one, or null.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub expected_address: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_tokens_used: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// Hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_secret_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_wallet: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_stake: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withdraw_amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_secondary: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_secondary: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
}

impl CocoonDetails {
    /// The fields of a Cocoon type's shape.
    fn from_data(c: Cocoon) -> Self {
        let mut o = Self::default();
        match c {
            Cocoon::Query(c) => o.query_id = Some(c.query_id),
            Cocoon::WorkerPayout(c) => {
                o.new_tokens = Some(c.new_tokens);
                o.payout_type = Some(c.payout_type);
                o.query_id = Some(c.query_id);
                o.worker_state = Some(c.worker_state);
                o.worker_tokens = Some(c.worker_tokens);
            }
            Cocoon::UnregisterProxy(c) => {
                o.query_id = Some(c.query_id);
                o.seqno = Some(c.seqno);
            }
            Cocoon::TokensUsed(c) => {
                o.expected_address = Some(c.expected_address);
                o.new_tokens_used = Some(c.new_tokens_used);
                o.query_id = Some(c.query_id);
            }
            Cocoon::ClientRegister(c) => {
                o.nonce = Some(c.nonce);
                o.query_id = Some(c.query_id);
            }
            Cocoon::SecretHash(c) => {
                o.new_secret_hash = Some(c.new_secret_hash);
                o.query_id = Some(c.query_id);
            }
            Cocoon::RequestRefund(c) => {
                o.query_id = Some(c.query_id);
                o.via_wallet = Some(c.via_wallet);
            }
            Cocoon::IncreaseStake(c) => {
                o.new_stake = Some(c.new_stake);
                o.query_id = Some(c.query_id);
            }
            Cocoon::Withdraw(c) => {
                o.query_id = Some(c.query_id);
                o.withdraw_amount = Some(c.withdraw_amount);
            }
        }
        o
    }
}

/// The details of LayerZero, tgBTC and Cocoon.
pub(super) fn details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "layerzero_send" | "layerzero_send_tokens" => {
            let d: Box<data::LayerZeroSend> = fields!(r, LayerZeroSend);
            let d = *d;
            let send = LayerZeroSendData {
                channel: ra(&d.channel),
                endpoint: ra(&d.endpoint),
                msglib: d.msglib,
                msglib_manager: d.msglib_manager,
                native_fee: d.native_fee,
                send_request_id: d.send_request_id,
                uln: ra(&d.uln),
                zro_fee: d.zro_fee,
            };
            if kind == "layerzero_send" {
                LayerZeroSendDetails {
                    initiator: ra(&r.source),
                    layerzero_send_data: send,
                    layerzero_packet_data: d.packet.into(),
                }
                .into()
            } else {
                LayerZeroSendTokensDetails {
                    sender: ra(&r.source),
                    sender_wallet: ra(&r.source_secondary),
                    oapp: ra(&r.destination),
                    oapp_wallet: ra(&r.destination_secondary),
                    asset: ra(&r.asset),
                    amount: r.amount.clone(),
                    layerzero_send_data: send,
                    layerzero_packet_data: d.packet.into(),
                }
                .into()
            }
        }
        "layerzero_receive" => {
            let d: Box<data::LayerZeroPacketOnly> = fields!(r, LayerZeroPacket);
            let d = *d;
            LayerZeroReceiveDetails {
                sender: ra(&r.source),
                oapp: ra(&r.destination),
                channel: ra(&r.destination_secondary),
                layerzero_packet_data: d.packet.into(),
            }
            .into()
        }
        "layerzero_commit_packet" => {
            let d: Box<data::LayerZeroPacketOnly> = fields!(r, LayerZeroPacket);
            let d = *d;
            LayerZeroCommitPacketDetails {
                sender: ra(&r.source),
                endpoint: ra(&r.source_secondary),
                uln: ra(&r.destination),
                uln_connection: ra(&r.destination_secondary),
                channel: ra(&r.asset),
                msglib_connection: ra(&r.asset_secondary),
                layerzero_packet_data: d.packet.into(),
            }
            .into()
        }
        "layerzero_dvn_verify" => {
            let d: data::LayerZeroDvnVerify = fields!(r, LayerZeroDvnVerify);
            LayerZeroDvnVerifyDetails {
                initiator: ra(&r.source),
                nonce: d.nonce,
                status: d.status,
                dvn: ra(&d.dvn),
                proxy: ra(&d.proxy),
                uln: ra(&d.uln),
                uln_connection: ra(&d.uln_connection),
            }
            .into()
        }
        "tgbtc_mint" | "tgbtc_mint_fallback" => {
            let d: data::TgbtcMint = fields!(r, TgbtcMint);
            TgbtcMintDetails {
                source: ra(&r.source),
                destination: ra(&r.destination),
                amount: r.amount.clone(),
                asset: ra(&r.asset),
                bitcoin_tx_id: d.bitcoin_tx_id,
                destination_wallet: ra(&r.destination_secondary),
            }
            .into()
        }
        "tgbtc_burn" | "tgbtc_burn_fallback" => TgbtcBurnDetails {
            source: ra(&r.source),
            source_wallet: ra(&r.source_secondary),
            destination: ra(&r.destination),
            amount: r.amount.clone(),
            asset: ra(&r.asset),
        }
        .into(),
        "tgbtc_new_key" | "tgbtc_new_key_fallback" => {
            let d: data::TgbtcKey = fields!(r, TgbtcKey);
            TgbtcNewKeyDetails {
                source: ra(&r.source),
                pubkey: d.pubkey,
                coordinator: ra(&r.destination),
                pegout: ra(&r.destination_secondary),
                amount: r.amount.clone(),
                asset: ra(&r.asset),
            }
            .into()
        }
        "tgbtc_dkg_log_fallback" => {
            let d: data::TgbtcKey = fields!(r, TgbtcKey);
            TgbtcDkgLogDetails {
                coordinator: ra(&r.source),
                pubkey: d.pubkey,
                timestamp: r.value.clone(),
            }
            .into()
        }
        k if k.starts_with("cocoon_") => {
            let mut o = match ActionData::read(kind, &r.data) {
                Ok(ActionData::Cocoon(c)) => CocoonDetails::from_data(c),
                Ok(_) => CocoonDetails::default(),
                Err(e) => return Some(unreadable(r, &e)),
            };
            o.source = ra(&r.source);
            o.source_secondary = ra(&r.source_secondary);
            o.destination = ra(&r.destination);
            o.destination_secondary = ra(&r.destination_secondary);
            o.amount = r.amount.clone();
            o.into()
        }
        _ => return None,
    })
}
