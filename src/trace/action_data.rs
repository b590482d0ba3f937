//! The per-type fields of an action (toncenter's `<type>_data`), one typed
//! shape per family of action types. The classifier builds them, the
//! action row stores them as JSON text (`ActionRecord::data`, the form
//! toncenter's corpus checks), and v3 reads them back by the row's type to
//! build the typed `details` of `/actions`.
//!
//! Every field reads as absent when an older row lacks it (`default`), and
//! a key no shape declares is refused, so a row the types cannot read is
//! reported rather than half shown. Addresses are raw `wc:HEX` strings;
//! numbers that may exceed 64 bits (coins, indexes) are decimal strings.

use serde::{Deserialize, Serialize};
use tonindex_model::Address;

/// Optional addresses as raw `wc:HEX` strings (upper case) or null.
mod raw_opt {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use tonindex_model::Address;

    pub fn serialize<S: Serializer>(a: &Option<Address>, s: S) -> Result<S::Ok, S::Error> {
        match a {
            Some(a) => s.serialize_str(&crate::trace::classify::raw(a)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Address>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) => crate::trace::classify::parse_raw(&s)
                .map(Some)
                .ok_or_else(|| D::Error::custom(format!("not a raw address: {s}"))),
        }
    }
}

/// A list of optional raw addresses.
mod raw_list {
    use serde::{de::Error, ser::SerializeSeq, Deserialize, Deserializer, Serializer};
    use tonindex_model::Address;

    pub fn serialize<S: Serializer>(list: &[Option<Address>], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(list.len()))?;
        for a in list {
            seq.serialize_element(&a.as_ref().map(crate::trace::classify::raw))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Option<Address>>, D::Error> {
        Vec::<Option<String>>::deserialize(d)?
            .into_iter()
            .map(|s| match s {
                None => Ok(None),
                Some(s) => crate::trace::classify::parse_raw(&s)
                    .map(Some)
                    .ok_or_else(|| D::Error::custom(format!("not a raw address: {s}"))),
            })
            .collect()
    }
}

/// Declares a data shape: a struct whose JSON is the stored form, fields
/// in the stored (sorted) order, every field defaulting when absent.
macro_rules! shape {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }
    };
}

shape! {
    /// No fields of its own (`{}`).
    Empty {}
}

shape! {
    /// A TON transfer's comment: text, or for an encrypted comment the
    /// base64 of its bytes.
    Comment {
        content: Option<String>,
        encrypted: bool,
    }
}

shape! {
    /// A Jetton transfer's message fields.
    JettonTransfer {
        comment: Option<String>,
        /// Base64 BoC.
        custom_payload: Option<String>,
        forward_amount: Option<String>,
        /// Base64 BoC.
        forward_payload: Option<String>,
        is_encrypted_comment: bool,
        query_id: Option<String>,
        #[serde(with = "raw_opt")]
        response_destination: Option<Address>,
    }
}

shape! {
    /// An NFT item's index (a mint, a discovery).
    NftIndex {
        nft_item_index: Option<String>,
    }
}

shape! {
    /// An NFT transfer, and a purchase through a marketplace (Getgems: the
    /// seller and the payout; Fragment: the payouts).
    NftTransfer {
        comment: Option<String>,
        custom_payload: Option<String>,
        forward_amount: Option<String>,
        forward_payload: Option<String>,
        is_encrypted_comment: bool,
        is_purchase: bool,
        /// `getgems` or `fragment` for a purchase.
        marketplace: Option<String>,
        #[serde(with = "raw_opt")]
        marketplace_address: Option<Address>,
        nft_item_index: Option<String>,
        #[serde(with = "raw_opt")]
        payout_address: Option<Address>,
        payout_amount: Option<String>,
        payout_comment: Option<String>,
        payout_comment_encoded: Option<bool>,
        payout_comment_encrypted: Option<bool>,
        price: Option<String>,
        query_id: Option<String>,
        #[serde(with = "raw_opt")]
        real_prev_owner: Option<Address>,
        #[serde(with = "raw_opt")]
        response_destination: Option<Address>,
        #[serde(with = "raw_opt")]
        royalty_address: Option<Address>,
        royalty_amount: Option<String>,
    }
}

shape! {
    /// The marketplace of a sale or auction cancelled or finished.
    Marketplace {
        #[serde(with = "raw_opt")]
        marketplace_address: Option<Address>,
    }
}

shape! {
    /// A sale's new terms.
    NftUpdateSale {
        full_price: Option<String>,
        #[serde(with = "raw_opt")]
        marketplace_address: Option<Address>,
        marketplace_fee: Option<String>,
        royalty_amount: Option<String>,
    }
}

shape! {
    /// An NFT put on sale or auction: a sale's price and fees, or an
    /// auction's fee factors and bids (Getgems, Telemint).
    NftListing {
        full_price: Option<String>,
        #[serde(with = "raw_opt")]
        marketplace_address: Option<Address>,
        marketplace_fee: Option<String>,
        #[serde(with = "raw_opt")]
        marketplace_fee_address: Option<Address>,
        marketplace_fee_base: Option<String>,
        marketplace_fee_factor: Option<String>,
        max_bid: Option<String>,
        min_bid: Option<String>,
        nft_item_index: Option<String>,
        #[serde(with = "raw_opt")]
        royalty_address: Option<Address>,
        royalty_amount: Option<String>,
        royalty_fee_base: Option<String>,
    }
}

shape! {
    /// A bid: where (`getgems`, `fragment`) and on which item.
    AuctionBid {
        marketplace: Option<String>,
        nft_item_index: Option<String>,
    }
}

shape! {
    /// An outbid's refund comment.
    AuctionOutbid {
        comment: Option<String>,
    }
}

shape! {
    /// A .ton domain sold by its auction, or released.
    DnsSale {
        nft_item_index: Option<String>,
        payout_amount: Option<String>,
        price: Option<String>,
        query_id: Option<String>,
    }
}

shape! {
    /// A DNS record set (`change_dns`) or deleted (`delete_dns`, no value).
    DnsRecord {
        flags: Option<u8>,
        /// The record's key, 64 hex digits.
        key: Option<String>,
        /// A raw address, hex, or text, as `value_schema` says.
        value: Option<String>,
        /// `DNSNextResolver`, `DNSAdnlAddress`, `DNSSmcAddress`,
        /// `DNSStorageAddress`, `DNSText` or `Unknown`.
        value_schema: Option<String>,
    }
}

shape! {
    /// A multisig v2 order created.
    MultisigCreateOrder {
        creator_index: u8,
        expiration_date: u64,
        is_created_by_signer: bool,
        is_signed_by_creator: bool,
        order_boc: Option<String>,
        order_seqno: Option<String>,
        query_id: Option<String>,
    }
}

shape! {
    /// A multisig v2 order approved.
    MultisigApprove {
        exit_code: u32,
        /// -1 for an approval by comment.
        signer_index: i64,
    }
}

shape! {
    /// A multisig v2 order executed.
    MultisigExecute {
        approvals_num: u8,
        expiration_date: u64,
        order_boc: Option<String>,
        order_seqno: Option<String>,
        query_id: Option<String>,
        /// Base64 of the signers' hash.
        signers_hash: Option<String>,
    }
}

shape! {
    /// A vesting wallet's message sent.
    VestingSend {
        message_boc: Option<String>,
        query_id: Option<String>,
    }
}

shape! {
    /// Accounts added to a vesting wallet's whitelist.
    VestingWhitelist {
        #[serde(with = "raw_list")]
        accounts_added: Vec<Option<Address>>,
        query_id: Option<String>,
    }
}

shape! {
    /// A stake and its withdrawal, by provider (`nominator`,
    /// `liquid_staking`, `ethena`).
    Staking {
        /// What was staked with Ethena (USDe).
        #[serde(with = "raw_opt")]
        asset2: Option<Address>,
        provider: String,
        tokens_burnt: Option<String>,
        tokens_minted: Option<String>,
        /// Tonstakers' withdrawal NFT.
        #[serde(with = "raw_opt")]
        ts_nft: Option<Address>,
    }
}

shape! {
    /// One transfer of a swap, into or out of the DEX.
    SwapTransfer {
        amount: Option<String>,
        #[serde(with = "raw_opt")]
        asset: Option<Address>,
        #[serde(with = "raw_opt")]
        destination: Option<Address>,
        #[serde(with = "raw_opt")]
        destination_jetton_wallet: Option<Address>,
        #[serde(with = "raw_opt")]
        source: Option<Address>,
        #[serde(with = "raw_opt")]
        source_jetton_wallet: Option<Address>,
    }
}

shape! {
    /// One hop of a multi-hop swap.
    SwapHop {
        amount_in: Option<String>,
        amount_out: Option<String>,
        #[serde(with = "raw_opt")]
        asset_in: Option<Address>,
        #[serde(with = "raw_opt")]
        asset_out: Option<Address>,
    }
}

shape! {
    /// A swap on a DEX.
    Swap {
        /// The asset received.
        #[serde(with = "raw_opt")]
        asset2: Option<Address>,
        dex: String,
        dex_incoming_transfer: SwapTransfer,
        dex_outgoing_transfer: SwapTransfer,
        min_out_amount: Option<String>,
        peer_swaps: Vec<SwapHop>,
        #[serde(with = "raw_opt")]
        sender: Option<Address>,
    }
}

shape! {
    /// An amount returned by a vault (asset null for TON).
    VaultExcess {
        amount: Option<String>,
        #[serde(with = "raw_opt")]
        asset: Option<Address>,
    }
}

shape! {
    /// Liquidity deposited (DeDust, Coffee, TONCO, STON.fi v2).
    DexDeposit {
        amount1: Option<String>,
        amount2: Option<String>,
        #[serde(with = "raw_opt")]
        asset1: Option<Address>,
        #[serde(with = "raw_opt")]
        asset2: Option<Address>,
        dex: String,
        lp_tokens_minted: Option<String>,
        #[serde(with = "raw_opt")]
        nft_address: Option<Address>,
        nft_index: Option<String>,
        target_amount_1: Option<String>,
        target_amount_2: Option<String>,
        #[serde(with = "raw_opt")]
        target_asset_1: Option<Address>,
        #[serde(with = "raw_opt")]
        target_asset_2: Option<Address>,
        tick_lower: Option<i32>,
        tick_upper: Option<i32>,
        #[serde(with = "raw_opt")]
        user_jetton_wallet_1: Option<Address>,
        #[serde(with = "raw_opt")]
        user_jetton_wallet_2: Option<Address>,
        vault_excesses: Vec<VaultExcess>,
    }
}

shape! {
    /// Liquidity withdrawn (DeDust, Coffee, TONCO, STON.fi v2).
    DexWithdraw {
        amount1: Option<String>,
        amount2: Option<String>,
        #[serde(with = "raw_opt")]
        asset1_out: Option<Address>,
        #[serde(with = "raw_opt")]
        asset2_out: Option<Address>,
        #[serde(with = "raw_opt")]
        burned_nft_address: Option<Address>,
        burned_nft_index: Option<String>,
        dex: String,
        #[serde(with = "raw_opt")]
        dex_jetton_wallet_1: Option<Address>,
        #[serde(with = "raw_opt")]
        dex_jetton_wallet_2: Option<Address>,
        #[serde(with = "raw_opt")]
        dex_wallet_1: Option<Address>,
        #[serde(with = "raw_opt")]
        dex_wallet_2: Option<Address>,
        /// A STON.fi v2 refund.
        is_refund: Option<bool>,
        lp_tokens_burnt: Option<String>,
        tick_lower: Option<i32>,
        tick_upper: Option<i32>,
        #[serde(with = "raw_opt")]
        user_jetton_wallet_1: Option<Address>,
        #[serde(with = "raw_opt")]
        user_jetton_wallet_2: Option<Address>,
    }
}

shape! {
    /// A TONCO pool deployed.
    ToncoDeployPool {
        initial_price_x96: Option<String>,
        #[serde(with = "raw_opt")]
        jetton0_minter: Option<Address>,
        #[serde(with = "raw_opt")]
        jetton0_router_wallet: Option<Address>,
        #[serde(with = "raw_opt")]
        jetton1_minter: Option<Address>,
        #[serde(with = "raw_opt")]
        jetton1_router_wallet: Option<Address>,
        lp_fee_base: Option<u16>,
        lp_fee_current: Option<u16>,
        pool_active: Option<bool>,
        protocol_fee: Option<u16>,
        tick_spacing: Option<i32>,
    }
}

shape! {
    /// A Coffee pool creator deployed: the pool's two assets.
    CoffeePoolCreator {
        #[serde(with = "raw_opt")]
        asset2: Option<Address>,
        #[serde(with = "raw_opt")]
        asset2_secondary: Option<Address>,
    }
}

shape! {
    /// A Coffee pool created.
    CoffeeCreatePool {
        amount_1: Option<String>,
        amount_2: Option<String>,
        #[serde(with = "raw_opt")]
        asset2: Option<Address>,
        #[serde(with = "raw_opt")]
        initiator_1: Option<Address>,
        #[serde(with = "raw_opt")]
        initiator_2: Option<Address>,
        lp_tokens_minted: Option<String>,
        #[serde(with = "raw_opt")]
        provided_asset: Option<Address>,
    }
}

shape! {
    /// A Coffee staking deposit and the item it minted.
    CoffeeStakingDeposit {
        #[serde(with = "raw_opt")]
        minted_item_address: Option<Address>,
        minted_item_index: Option<String>,
    }
}

shape! {
    /// A Coffee staking withdrawal and the item it burnt.
    CoffeeStakingWithdraw {
        #[serde(with = "raw_opt")]
        nft_address: Option<Address>,
        nft_index: Option<String>,
        points: Option<String>,
    }
}

shape! {
    /// An EVAA supply.
    EvaaSupply {
        /// `0x` and hex.
        asset_id: Option<String>,
        is_ton: bool,
        #[serde(with = "raw_opt")]
        master: Option<Address>,
        #[serde(with = "raw_opt")]
        master_jetton_wallet: Option<Address>,
        #[serde(with = "raw_opt")]
        recipient_jetton_wallet: Option<Address>,
    }
}

shape! {
    /// An EVAA withdrawal, or why it failed.
    EvaaWithdraw {
        asset_id: Option<String>,
        fail_reason: Option<String>,
        is_ton: bool,
        #[serde(with = "raw_opt")]
        master: Option<Address>,
        #[serde(with = "raw_opt")]
        master_jetton_wallet: Option<Address>,
        #[serde(with = "raw_opt")]
        recipient_jetton_wallet: Option<Address>,
    }
}

shape! {
    /// An EVAA liquidation, or why it failed.
    EvaaLiquidate {
        asset_id: Option<String>,
        /// The collateral's asset id, decimal.
        collateral: Option<String>,
        debt_amount: Option<String>,
        fail_reason: Option<String>,
    }
}

shape! {
    /// A JVault stake.
    JvaultStake {
        period: u32,
        #[serde(with = "raw_opt")]
        stake_wallet: Option<Address>,
    }
}

shape! {
    /// A JVault unstake (or its request): the stake Jetton.
    JvaultUnstake {
        #[serde(with = "raw_opt")]
        asset2: Option<Address>,
    }
}

shape! {
    /// JVault rewards claimed: Jettons and their amounts, pairwise.
    JvaultClaim {
        claimed_amounts: Vec<String>,
        #[serde(with = "raw_list")]
        claimed_jettons: Vec<Option<Address>>,
    }
}

shape! {
    /// A LayerZero packet (ids and OApps as `0x` hex).
    LayerZeroPacket {
        dst_eid: u32,
        dst_oapp: String,
        guid: String,
        message: String,
        nonce: u64,
        src_eid: u32,
        src_oapp: String,
    }
}

shape! {
    /// A LayerZero send, with its packet.
    LayerZeroSend {
        #[serde(with = "raw_opt")]
        channel: Option<Address>,
        #[serde(with = "raw_opt")]
        endpoint: Option<Address>,
        msglib: String,
        msglib_manager: String,
        native_fee: Option<String>,
        packet: LayerZeroPacket,
        send_request_id: u64,
        #[serde(with = "raw_opt")]
        uln: Option<Address>,
        zro_fee: Option<String>,
    }
}

shape! {
    /// A LayerZero packet received or committed.
    LayerZeroPacketOnly {
        packet: LayerZeroPacket,
    }
}

shape! {
    /// A LayerZero DVN's verification.
    LayerZeroDvnVerify {
        #[serde(with = "raw_opt")]
        dvn: Option<Address>,
        nonce: u64,
        #[serde(with = "raw_opt")]
        proxy: Option<Address>,
        status: String,
        #[serde(with = "raw_opt")]
        uln: Option<Address>,
        #[serde(with = "raw_opt")]
        uln_connection: Option<Address>,
    }
}

shape! {
    /// tgBTC minted for a Bitcoin transaction.
    TgbtcMint {
        /// Hex, in Bitcoin's byte order.
        bitcoin_tx_id: String,
    }
}

shape! {
    /// A tgBTC key (new or logged by the DKG).
    TgbtcKey {
        /// Hex.
        pubkey: String,
    }
}

/// Cocoon's actions, each with its own fields (shown as they are).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cocoon {
    Query(CocoonQuery),
    WorkerPayout(CocoonWorkerPayout),
    UnregisterProxy(CocoonUnregisterProxy),
    TokensUsed(CocoonTokensUsed),
    ClientRegister(CocoonClientRegister),
    SecretHash(CocoonSecretHash),
    RequestRefund(CocoonRequestRefund),
    IncreaseStake(CocoonIncreaseStake),
    Withdraw(CocoonWithdraw),
}

shape! {
    /// A Cocoon call answered by query id alone.
    CocoonQuery { query_id: String, }
}

shape! {
    /// A Cocoon worker paid out.
    CocoonWorkerPayout {
        new_tokens: String,
        /// `regular` or `last`.
        payout_type: String,
        query_id: String,
        worker_state: u8,
        worker_tokens: String,
    }
}

shape! {
    /// A Cocoon proxy unregistered.
    CocoonUnregisterProxy { query_id: String, seqno: u32, }
}

shape! {
    /// A Cocoon proxy's charge or refund grant: the tokens used.
    CocoonTokensUsed {
        /// A raw address, an external `bits;hex` one, or null.
        expected_address: Option<String>,
        new_tokens_used: String,
        query_id: String,
    }
}

shape! {
    /// A Cocoon client registered.
    CocoonClientRegister { nonce: String, query_id: String, }
}

shape! {
    /// A Cocoon client's secret hash changed (hex).
    CocoonSecretHash { new_secret_hash: String, query_id: String, }
}

shape! {
    /// A Cocoon client's refund requested.
    CocoonRequestRefund { query_id: String, via_wallet: bool, }
}

shape! {
    /// A Cocoon client's stake increased.
    CocoonIncreaseStake { new_stake: String, query_id: String, }
}

shape! {
    /// A Cocoon client's withdrawal.
    CocoonWithdraw { query_id: String, withdraw_amount: String, }
}

/// An action's own fields, by shape; its JSON is the shape's (untagged),
/// the row's type says which shape to read it as.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ActionData {
    Empty(Empty),
    Comment(Comment),
    JettonTransfer(JettonTransfer),
    NftIndex(NftIndex),
    NftTransfer(Box<NftTransfer>),
    Marketplace(Marketplace),
    NftUpdateSale(NftUpdateSale),
    NftListing(Box<NftListing>),
    AuctionBid(AuctionBid),
    AuctionOutbid(AuctionOutbid),
    DnsSale(DnsSale),
    DnsRecord(DnsRecord),
    MultisigCreateOrder(MultisigCreateOrder),
    MultisigApprove(MultisigApprove),
    MultisigExecute(MultisigExecute),
    VestingSend(VestingSend),
    VestingWhitelist(VestingWhitelist),
    Staking(Staking),
    Swap(Box<Swap>),
    DexDeposit(Box<DexDeposit>),
    DexWithdraw(Box<DexWithdraw>),
    ToncoDeployPool(Box<ToncoDeployPool>),
    CoffeePoolCreator(CoffeePoolCreator),
    CoffeeCreatePool(Box<CoffeeCreatePool>),
    CoffeeStakingDeposit(CoffeeStakingDeposit),
    CoffeeStakingWithdraw(CoffeeStakingWithdraw),
    EvaaSupply(EvaaSupply),
    EvaaWithdraw(EvaaWithdraw),
    EvaaLiquidate(EvaaLiquidate),
    JvaultStake(JvaultStake),
    JvaultUnstake(JvaultUnstake),
    JvaultClaim(JvaultClaim),
    LayerZeroSend(Box<LayerZeroSend>),
    LayerZeroPacket(Box<LayerZeroPacketOnly>),
    LayerZeroDvnVerify(LayerZeroDvnVerify),
    TgbtcMint(TgbtcMint),
    TgbtcKey(TgbtcKey),
    Cocoon(Cocoon),
}

impl Default for ActionData {
    fn default() -> Self {
        ActionData::Empty(Empty {})
    }
}

/// A stored row's fields that its type's shape cannot read.
#[derive(Debug, thiserror::Error)]
#[error("the fields of a {kind} action do not read as its shape: {source}")]
pub struct UnreadableData {
    pub kind: String,
    pub source: serde_json::Error,
}

impl ActionData {
    /// The stored form (JSON text).
    pub fn to_text(&self) -> String {
        // Plain structs of strings, numbers and lists always serialize.
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }

    /// Reads a stored row's fields as the shape of its (shown) type.
    pub fn read(kind: &str, text: &str) -> Result<ActionData, UnreadableData> {
        use serde_json::from_str as parse;
        let read = || -> Result<ActionData, serde_json::Error> {
            Ok(match kind {
                "ton_transfer" => ActionData::Comment(parse(text)?),
                "jetton_transfer" => ActionData::JettonTransfer(parse(text)?),
                "nft_mint" | "nft_discovery" => ActionData::NftIndex(parse(text)?),
                "nft_transfer" | "nft_purchase" => ActionData::NftTransfer(parse(text)?),
                "nft_cancel_sale" | "nft_cancel_auction" | "nft_finish_auction" => {
                    ActionData::Marketplace(parse(text)?)
                }
                "nft_update_sale" => ActionData::NftUpdateSale(parse(text)?),
                "nft_put_on_sale" | "nft_put_on_auction" | "teleitem_start_auction" => {
                    ActionData::NftListing(parse(text)?)
                }
                "auction_bid" => ActionData::AuctionBid(parse(text)?),
                "auction_outbid" => ActionData::AuctionOutbid(parse(text)?),
                "dns_purchase" | "dns_release" => ActionData::DnsSale(parse(text)?),
                "change_dns" | "delete_dns" => ActionData::DnsRecord(parse(text)?),
                "multisig_create_order" => ActionData::MultisigCreateOrder(parse(text)?),
                "multisig_approve" => ActionData::MultisigApprove(parse(text)?),
                "multisig_execute" => ActionData::MultisigExecute(parse(text)?),
                "vesting_send_message" => ActionData::VestingSend(parse(text)?),
                "vesting_add_whitelist" => ActionData::VestingWhitelist(parse(text)?),
                "stake_deposit" | "stake_withdrawal" | "stake_withdrawal_request" => {
                    ActionData::Staking(parse(text)?)
                }
                "jetton_swap" => ActionData::Swap(parse(text)?),
                "dex_deposit_liquidity" => ActionData::DexDeposit(parse(text)?),
                "dex_withdraw_liquidity" => ActionData::DexWithdraw(parse(text)?),
                "tonco_deploy_pool" => ActionData::ToncoDeployPool(parse(text)?),
                "coffee_create_pool_creator" => ActionData::CoffeePoolCreator(parse(text)?),
                "coffee_create_pool" => ActionData::CoffeeCreatePool(parse(text)?),
                "coffee_staking_deposit" => ActionData::CoffeeStakingDeposit(parse(text)?),
                "coffee_staking_withdraw" => ActionData::CoffeeStakingWithdraw(parse(text)?),
                "evaa_supply" => ActionData::EvaaSupply(parse(text)?),
                "evaa_withdraw" => ActionData::EvaaWithdraw(parse(text)?),
                "evaa_liquidate" => ActionData::EvaaLiquidate(parse(text)?),
                "jvault_stake" => ActionData::JvaultStake(parse(text)?),
                "jvault_unstake" | "jvault_unstake_request" => {
                    ActionData::JvaultUnstake(parse(text)?)
                }
                "jvault_claim" => ActionData::JvaultClaim(parse(text)?),
                "layerzero_send" | "layerzero_send_tokens" => {
                    ActionData::LayerZeroSend(parse(text)?)
                }
                "layerzero_receive" | "layerzero_commit_packet" => {
                    ActionData::LayerZeroPacket(parse(text)?)
                }
                "layerzero_dvn_verify" => ActionData::LayerZeroDvnVerify(parse(text)?),
                "tgbtc_mint" | "tgbtc_mint_fallback" => ActionData::TgbtcMint(parse(text)?),
                "tgbtc_new_key" | "tgbtc_new_key_fallback" | "tgbtc_dkg_log_fallback" => {
                    ActionData::TgbtcKey(parse(text)?)
                }
                "cocoon_proxy_payout" | "cocoon_client_top_up" | "cocoon_register_proxy" => {
                    ActionData::Cocoon(Cocoon::Query(parse(text)?))
                }
                "cocoon_worker_payout" => ActionData::Cocoon(Cocoon::WorkerPayout(parse(text)?)),
                "cocoon_unregister_proxy" => {
                    ActionData::Cocoon(Cocoon::UnregisterProxy(parse(text)?))
                }
                "cocoon_proxy_charge" | "cocoon_grant_refund" => {
                    ActionData::Cocoon(Cocoon::TokensUsed(parse(text)?))
                }
                "cocoon_client_register" => {
                    ActionData::Cocoon(Cocoon::ClientRegister(parse(text)?))
                }
                "cocoon_client_change_secret_hash" => {
                    ActionData::Cocoon(Cocoon::SecretHash(parse(text)?))
                }
                "cocoon_client_request_refund" => {
                    ActionData::Cocoon(Cocoon::RequestRefund(parse(text)?))
                }
                "cocoon_client_increase_stake" => {
                    ActionData::Cocoon(Cocoon::IncreaseStake(parse(text)?))
                }
                "cocoon_client_withdraw" => ActionData::Cocoon(Cocoon::Withdraw(parse(text)?)),
                // Every other type has no fields of its own.
                _ => ActionData::Empty(parse(text)?),
            })
        };
        read().map_err(|source| UnreadableData {
            kind: kind.to_string(),
            source,
        })
    }

    /// A TON transfer's comment (what the matchers read of a transfer
    /// they take: "w", "d", "approve", a refund's text).
    pub fn comment(&self) -> Option<&str> {
        match self {
            ActionData::Comment(c) => c.content.as_deref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_as_the_shape_of_its_type() {
        let text = r#"{"content":"hi","encrypted":false}"#;
        let data = ActionData::read("ton_transfer", text).expect("reads");
        assert_eq!(data.comment(), Some("hi"));
        assert_eq!(data.to_text(), text);
        // The same fields are no Jetton transfer's.
        assert!(ActionData::read("jetton_transfer", text).is_err());
    }

    #[test]
    fn addresses_are_raw_both_ways() {
        let text =
            r#"{"asset2":"0:0101010101010101010101010101010101010101010101010101010101010101"}"#;
        let ActionData::JvaultUnstake(d) = ActionData::read("jvault_unstake", text).unwrap() else {
            panic!("not an unstake");
        };
        assert_eq!(
            d.asset2,
            Some(Address {
                workchain: 0,
                id: [1; 32]
            })
        );
        assert!(ActionData::read("jvault_unstake", r#"{"asset2":"EQAB"}"#).is_err());
    }

    #[test]
    fn an_older_row_without_a_field_reads_it_as_absent() {
        // A staking row of a provider that has no withdrawal NFT.
        let data = ActionData::read("stake_withdrawal", r#"{"provider":"nominator"}"#).unwrap();
        let ActionData::Staking(s) = data else {
            panic!("not staking");
        };
        assert_eq!((s.provider.as_str(), s.ts_nft), ("nominator", None));
    }

    #[test]
    fn a_field_no_shape_declares_is_refused() {
        let err = ActionData::read("auction_outbid", r#"{"comment":null,"surprise":1}"#)
            .expect_err("refused");
        assert!(err.to_string().contains("auction_outbid"), "{err}");
        // Types without fields of their own hold none.
        assert!(ActionData::read("tick_tock", "{}").is_ok());
        assert!(ActionData::read("tick_tock", r#"{"x":1}"#).is_err());
    }
}
