//! The basic types' `details` (TON transfers, contract calls), Jettons,
//! elections, wallet subscriptions, multisig orders and vesting wallets.

use std::collections::BTreeMap;

use serde::Serialize;
use tonindex_model::ActionRecord;
use utoipa::ToSchema;

use super::{ra, unreadable, ActionDetails};
use crate::api::encoding::RawAddr;
use crate::trace::action_data as data;

/// `ton_transfer`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TonTransferDetails {
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub value: Option<String>,
    /// Always empty.
    pub value_extra_currencies: BTreeMap<String, String>,
    /// The comment's text, or for an encrypted one the base64 of its bytes.
    pub comment: Option<String>,
    pub encrypted: bool,
}

/// `call_contract` and `contract_deploy`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CallContractDetails {
    /// `0x` and 8 hex digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opcode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub value: Option<String>,
    /// `call_contract` only; always empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_currencies: Option<BTreeMap<String, String>>,
}

/// `tick_tock` and `unknown`: no fields.
#[derive(Debug, Serialize, ToSchema)]
pub struct EmptyDetails {}

/// A type toncenter's server does not show.
#[derive(Debug, Serialize, ToSchema)]
pub struct UnsupportedDetails {
    pub error: String,
}

/// `jetton_transfer`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JettonTransferDetails {
    pub asset: Option<RawAddr>,
    pub sender: Option<RawAddr>,
    pub receiver: Option<RawAddr>,
    pub sender_jetton_wallet: Option<RawAddr>,
    pub receiver_jetton_wallet: Option<RawAddr>,
    pub amount: Option<String>,
    pub comment: Option<String>,
    pub is_encrypted_comment: bool,
    pub query_id: Option<String>,
    pub response_destination: Option<RawAddr>,
    /// Base64 BoC.
    pub custom_payload: Option<String>,
    /// Base64 BoC.
    pub forward_payload: Option<String>,
    pub forward_amount: Option<String>,
}

/// `jetton_mint`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JettonMintDetails {
    pub asset: Option<RawAddr>,
    pub receiver: Option<RawAddr>,
    pub receiver_jetton_wallet: Option<RawAddr>,
    pub amount: Option<String>,
    pub ton_amount: Option<String>,
}

/// `jetton_burn`.
#[derive(Debug, Serialize, ToSchema)]
pub struct JettonBurnDetails {
    pub owner: Option<RawAddr>,
    pub owner_jetton_wallet: Option<RawAddr>,
    pub asset: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `election_deposit` and `election_recover`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ElectionDetails {
    pub stake_holder: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
}

/// `subscribe` and `unsubscribe` (the Go server's `omitempty` fields left
/// out when null; a subscription always names its amount).
#[derive(Debug, Serialize, ToSchema)]
pub struct SubscriptionDetails {
    pub subscriber: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beneficiary: Option<RawAddr>,
    pub subscription: Option<RawAddr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub amount: Option<Option<String>>,
}

/// `multisig_create_order`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MultisigCreateOrderDetails {
    pub query_id: Option<String>,
    pub order_seqno: Option<String>,
    pub is_created_by_signer: bool,
    pub is_signed_by_creator: bool,
    pub creator_index: u8,
    pub expiration_date: u64,
    /// Base64 BoC.
    pub order_boc: Option<String>,
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub destination_order: Option<RawAddr>,
}

/// `multisig_approve`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MultisigApproveDetails {
    /// -1 for an approval by comment.
    pub signer_index: i64,
    pub exit_code: u32,
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
}

/// `multisig_execute`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MultisigExecuteDetails {
    pub query_id: Option<String>,
    pub order_seqno: Option<String>,
    pub expiration_date: u64,
    pub approvals_num: u8,
    /// Base64 of the signers' hash.
    pub signers_hash: Option<String>,
    /// Base64 BoC.
    pub order_boc: Option<String>,
    pub source: Option<RawAddr>,
    pub destination: Option<RawAddr>,
}

/// `vesting_send_message`.
#[derive(Debug, Serialize, ToSchema)]
pub struct VestingSendMessageDetails {
    pub query_id: Option<String>,
    /// Base64 BoC.
    pub message_boc: Option<String>,
    pub source: Option<RawAddr>,
    pub vesting: Option<RawAddr>,
    pub destination: Option<RawAddr>,
    pub amount: Option<String>,
}

/// `vesting_add_whitelist`.
#[derive(Debug, Serialize, ToSchema)]
pub struct VestingAddWhitelistDetails {
    pub query_id: Option<String>,
    pub accounts_added: Vec<Option<RawAddr>>,
    pub source: Option<RawAddr>,
    pub vesting: Option<RawAddr>,
}

/// The details of the basic, Jetton, election, subscription, multisig and
/// vesting types.
pub(super) fn details(r: &ActionRecord) -> Option<ActionDetails> {
    let kind = r.kind.as_str();
    Some(match kind {
        "ton_transfer" => {
            let d: data::Comment = fields!(r, Comment);
            TonTransferDetails {
                source: ra(&r.source),
                destination: ra(&r.destination),
                value: r.value.clone(),
                value_extra_currencies: BTreeMap::new(),
                comment: d.content,
                encrypted: d.encrypted,
            }
            .into()
        }
        "call_contract" | "contract_deploy" => CallContractDetails {
            opcode: r.opcode.map(crate::api::v3::models::opcode_str),
            source: ra(&r.source),
            destination: ra(&r.destination),
            value: r.value.clone(),
            extra_currencies: (kind == "call_contract").then(BTreeMap::new),
        }
        .into(),
        "tick_tock" | "unknown" => EmptyDetails {}.into(),
        "jetton_transfer" => {
            let d: data::JettonTransfer = fields!(r, JettonTransfer);
            JettonTransferDetails {
                asset: ra(&r.asset),
                sender: ra(&r.source),
                receiver: ra(&r.destination),
                sender_jetton_wallet: ra(&r.source_secondary),
                receiver_jetton_wallet: ra(&r.destination_secondary),
                amount: r.amount.clone(),
                comment: d.comment,
                is_encrypted_comment: d.is_encrypted_comment,
                query_id: d.query_id,
                response_destination: ra(&d.response_destination),
                custom_payload: d.custom_payload,
                forward_payload: d.forward_payload,
                forward_amount: d.forward_amount,
            }
            .into()
        }
        "jetton_mint" => JettonMintDetails {
            asset: ra(&r.asset),
            receiver: ra(&r.destination),
            receiver_jetton_wallet: ra(&r.destination_secondary),
            amount: r.amount.clone(),
            ton_amount: r.value.clone(),
        }
        .into(),
        "jetton_burn" => JettonBurnDetails {
            owner: ra(&r.source),
            owner_jetton_wallet: ra(&r.source_secondary),
            asset: ra(&r.asset),
            amount: r.amount.clone(),
        }
        .into(),
        "election_deposit" | "election_recover" => ElectionDetails {
            stake_holder: ra(&r.source),
            amount: r.amount.clone(),
        }
        .into(),
        "subscribe" | "unsubscribe" => SubscriptionDetails {
            subscriber: ra(&r.source),
            beneficiary: ra(&r.destination),
            subscription: ra(&r.destination_secondary),
            amount: (kind == "subscribe" || r.amount.is_some()).then(|| r.amount.clone()),
        }
        .into(),
        "multisig_create_order" => {
            let d: data::MultisigCreateOrder = fields!(r, MultisigCreateOrder);
            MultisigCreateOrderDetails {
                query_id: d.query_id,
                order_seqno: d.order_seqno,
                is_created_by_signer: d.is_created_by_signer,
                is_signed_by_creator: d.is_signed_by_creator,
                creator_index: d.creator_index,
                expiration_date: d.expiration_date,
                order_boc: d.order_boc,
                source: ra(&r.source),
                destination: ra(&r.destination),
                destination_order: ra(&r.destination_secondary),
            }
            .into()
        }
        "multisig_approve" => {
            let d: data::MultisigApprove = fields!(r, MultisigApprove);
            MultisigApproveDetails {
                signer_index: d.signer_index,
                exit_code: d.exit_code,
                source: ra(&r.source),
                destination: ra(&r.destination),
            }
            .into()
        }
        "multisig_execute" => {
            let d: data::MultisigExecute = fields!(r, MultisigExecute);
            MultisigExecuteDetails {
                query_id: d.query_id,
                order_seqno: d.order_seqno,
                expiration_date: d.expiration_date,
                approvals_num: d.approvals_num,
                signers_hash: d.signers_hash,
                order_boc: d.order_boc,
                source: ra(&r.source),
                destination: ra(&r.destination),
            }
            .into()
        }
        "vesting_send_message" => {
            let d: data::VestingSend = fields!(r, VestingSend);
            VestingSendMessageDetails {
                query_id: d.query_id,
                message_boc: d.message_boc,
                source: ra(&r.source),
                vesting: ra(&r.destination),
                destination: ra(&r.destination_secondary),
                amount: r.amount.clone(),
            }
            .into()
        }
        "vesting_add_whitelist" => {
            let d: data::VestingWhitelist = fields!(r, VestingWhitelist);
            VestingAddWhitelistDetails {
                query_id: d.query_id,
                accounts_added: d.accounts_added.iter().map(ra).collect(),
                source: ra(&r.source),
                vesting: ra(&r.destination),
            }
            .into()
        }
        _ => return None,
    })
}
