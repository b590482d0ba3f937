//! State files → records: a full shard state (`ShardStateUnsplit`), or one
//! account (`ShardAccount`, or a bare `Account`). Pure, like the block decoder.

use tycho_types::cell::{Cell, CellBuilder, HashBytes, Lazy};
use tycho_types::models::{OptionalAccount, ShardAccount, ShardStateUnsplit, StdAddr};
use tycho_types::prelude::Load;

use tonindex_model::Address;

use super::DecodeError;

/// `shard_state#9023afe2`.
const SHARD_STATE_TAG: u32 = 0x9023_afe2;
/// `split_state#5f327da5`.
const SPLIT_STATE_TAG: u32 = 0x5f32_7da5;
/// `block#11ef55aa`.
const BLOCK_TAG: u32 = 0x11ef_55aa;

/// A full shard state.
#[derive(Debug, Clone)]
pub struct DecodedState {
    pub workchain: i32,
    pub shard: u64,
    pub seqno: u32,
    pub gen_utime: u32,
    pub gen_lt: u64,
    /// The `ShardStateUnsplit` root, every cell attached.
    pub root: Cell,
    /// Every account with its `ShardAccount` cell.
    pub accounts: Vec<(Address, Cell)>,
    /// A masterchain state's config dictionary BoC (the config in force
    /// at its seqno; for a zero state, the config at genesis).
    pub config_boc: Option<Vec<u8>>,
}

/// One account's `ShardAccount`, imported on its own.
#[derive(Debug, Clone)]
pub struct DecodedAccount {
    pub address: Address,
    pub shard_account: Cell,
}

/// What a non-block BoC holds.
#[derive(Debug, Clone)]
pub enum StateFile {
    State(DecodedState),
    Account(DecodedAccount),
}

/// True when the root cell starts with the block tag.
pub fn is_block(root: &Cell) -> bool {
    first_u32(root) == Some(BLOCK_TAG)
}

fn first_u32(root: &Cell) -> Option<u32> {
    root.as_slice_allow_exotic().load_u32().ok()
}

/// Reads a state or account BoC root.
pub fn decode_state_file(root: &Cell) -> Result<StateFile, DecodeError> {
    match first_u32(root) {
        Some(SHARD_STATE_TAG) => decode_shard_state(root).map(StateFile::State),
        Some(SPLIT_STATE_TAG) => Err(DecodeError::State(
            "a split shard state (split_state) is not supported; import the two halves".into(),
        )),
        _ => decode_account(root).map(StateFile::Account),
    }
}

fn decode_shard_state(root: &Cell) -> Result<DecodedState, DecodeError> {
    let err = |e: tycho_types::error::Error| DecodeError::State(format!("ShardStateUnsplit: {e}"));
    let state: ShardStateUnsplit = root.parse().map_err(err)?;
    let workchain = state.shard_ident.workchain();
    let accounts = state
        .load_accounts()
        .map_err(err)?
        .iter()
        .map(|item| {
            let (id, _, shard_account) = item.map_err(err)?;
            let cell = CellBuilder::build_from(&shard_account).map_err(err)?;
            Ok((address(workchain, &id), cell))
        })
        .collect::<Result<Vec<_>, DecodeError>>()?;
    let config_boc = match state.load_custom() {
        Ok(extra) => extra
            .and_then(|extra| extra.config.params.as_dict().root().clone())
            .map(|dict| crate::boc::encode(dict.as_ref())),
        Err(e) => {
            tracing::warn!(seqno = state.seqno, error = %e, "a masterchain state whose config cannot be read: none is kept from it");
            None
        }
    };
    Ok(DecodedState {
        config_boc,
        workchain,
        shard: state.shard_ident.prefix(),
        seqno: state.seqno,
        gen_utime: state.gen_utime,
        gen_lt: state.gen_lt,
        root: root.clone(),
        accounts,
    })
}

/// A `ShardAccount` (account ref + last tx hash and lt: 320 bits, one
/// reference) or a bare `Account` (then the last transaction is unknown: zeros).
fn decode_account(root: &Cell) -> Result<DecodedAccount, DecodeError> {
    let not_state =
        || DecodeError::State("not a block, shard state, ShardAccount or Account".into());
    let shard_account = if root.bit_len() == 320 && root.reference_count() == 1 {
        root.parse::<ShardAccount>().map_err(|_| not_state())?
    } else {
        let mut s = root.as_slice().map_err(|_| not_state())?;
        OptionalAccount::load_from(&mut s).map_err(|_| not_state())?;
        ShardAccount {
            account: Lazy::from_raw(root.clone()).map_err(|_| not_state())?,
            last_trans_hash: HashBytes::ZERO,
            last_trans_lt: 0,
        }
    };
    let account = shard_account
        .load_account()
        .map_err(|e| DecodeError::State(format!("Account: {e}")))?
        .ok_or_else(|| {
            DecodeError::State(
                "the account is account_none: it has no address to file it under".into(),
            )
        })?;
    let std: StdAddr = match account.address {
        tycho_types::models::IntAddr::Std(a) => a,
        tycho_types::models::IntAddr::Var(_) => {
            return Err(DecodeError::State("account with a var address".into()))
        }
    };
    let cell = CellBuilder::build_from(&shard_account)
        .map_err(|e| DecodeError::State(format!("ShardAccount: {e}")))?;
    Ok(DecodedAccount {
        address: address(std.workchain as i32, &std.address),
        shard_account: cell,
    })
}

fn address(workchain: i32, id: &HashBytes) -> Address {
    Address {
        workchain,
        id: *id.as_array(),
    }
}
