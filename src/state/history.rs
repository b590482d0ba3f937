//! Account states at earlier blocks, read from the cell store.
//!
//! The states the index keeps (`[index] keep_states`: those of the newest
//! masterchain blocks, or all) are in the content-addressed cell store, so
//! the state after such a block is reachable from its state root hash; a
//! released state's root is missing ([`CellError::Missing`]). One account is found by
//! walking the `ShardAccounts` dictionary down its key, loading only the
//! cells on the path, then its `Account` subtree.
//!
//! `ShardStateUnsplit` keeps the accounts in its second reference,
//! `accounts:^ShardAccounts`, where `ShardAccounts = HashmapAugE 256
//! ShardAccount DepthBalanceInfo`:
//! `ahme_root$1 root:^(HashmapAug 256 ..) extra:DepthBalanceInfo`;
//! each node `label:(HmLabel ~l n)` then a leaf `extra:DepthBalanceInfo
//! value:ShardAccount` or a fork `left:^ right:^ extra:DepthBalanceInfo`;
//! `depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection`.

use tycho_types::cell::{CellBuilder, CellSlice, HashBytes};
use tycho_types::error::Error as TlbError;
use tycho_types::models::{ExtraCurrencyCollection, OptionalAccount, ShardAccount};

use crate::state::cells::{CellError, CellRows, Loader};
use crate::state::libraries::skip_currency;

/// The `ShardAccount` of account `id` in the shard state whose root cell is
/// `state_root`; `Ok(None)` when the state has no such account.
/// `CellError::Missing` with the root hash means the state is not held.
pub fn shard_account_at(
    rows: &dyn CellRows,
    state_root: &HashBytes,
    id: &[u8; 32],
) -> Result<Option<ShardAccount>, CellError> {
    let mut loader = Loader::new(rows);
    let root = loader.shallow(state_root)?;
    let corrupt = |hash: &HashBytes| {
        let hash = *hash;
        move |_: TlbError| CellError::Corrupt(hash)
    };
    let accounts_hash = root
        .as_ref()
        .reference_repr_hash(1)
        .ok_or(CellError::Corrupt(*state_root))?;
    let accounts = loader.shallow(&accounts_hash)?;
    let mut cs = accounts.as_slice_allow_exotic();
    if !cs.load_bit().map_err(corrupt(&accounts_hash))? {
        return Ok(None);
    }
    let mut node_hash = accounts
        .as_ref()
        .reference_repr_hash(0)
        .ok_or(CellError::Corrupt(accounts_hash))?;
    let mut pos = 0u16;
    loop {
        let node = loader.shallow(&node_hash)?;
        let mut cs = node.as_slice_allow_exotic();
        let bad = corrupt(&node_hash);
        match label_len_if_matches(&mut cs, 256 - pos, id, pos).map_err(&bad)? {
            None => return Ok(None),
            Some(len) => pos += len,
        }
        if pos < 256 {
            // A fork: the key's next bit picks the branch.
            let bit = key_bit(id, pos);
            pos += 1;
            node_hash = node
                .as_ref()
                .reference_repr_hash(u8::from(bit))
                .ok_or(CellError::Corrupt(node_hash))?;
            continue;
        }
        // The leaf: skip the DepthBalanceInfo, then read the ShardAccount.
        cs.skip_first(5, 0).map_err(&bad)?;
        let refs_before = skip_currency(&mut cs).map_err(&bad)?;
        let account_hash = node
            .as_ref()
            .reference_repr_hash(refs_before)
            .ok_or(CellError::Corrupt(node_hash))?;
        let last_trans_hash = cs.load_u256().map_err(&bad)?;
        let last_trans_lt = cs.load_u64().map_err(&bad)?;
        let account = loader.whole(&account_hash)?;
        let mut b = CellBuilder::new();
        b.store_reference(account).map_err(&bad)?;
        b.store_u256(&last_trans_hash).map_err(&bad)?;
        b.store_u64(last_trans_lt).map_err(&bad)?;
        let cell = b.build().map_err(&bad)?;
        return cell.parse::<ShardAccount>().map(Some).map_err(bad);
    }
}

fn key_bit(id: &[u8; 32], pos: u16) -> bool {
    id[usize::from(pos / 8)] & (0x80 >> (pos % 8)) != 0
}

/// Reads an `HmLabel ~l max` and returns its length `l` when its bits equal
/// the key's from `pos` on, `None` when they differ (the key is absent).
fn label_len_if_matches(
    cs: &mut CellSlice<'_>,
    max: u16,
    id: &[u8; 32],
    pos: u16,
) -> Result<Option<u16>, TlbError> {
    // `#<= max` takes as many bits as `max` needs.
    let len_bits = (16 - max.leading_zeros()) as u16;
    let (len, same) = if !cs.load_bit()? {
        // hml_short$0 len:(Unary ~n) s:(n * Bit)
        let mut n = 0u16;
        while cs.load_bit()? {
            n += 1;
        }
        (n, None)
    } else if !cs.load_bit()? {
        // hml_long$10 n:(#<= m) s:(n * Bit)
        (cs.load_uint(len_bits)? as u16, None)
    } else {
        // hml_same$11 v:Bit n:(#<= m)
        let v = cs.load_bit()?;
        (cs.load_uint(len_bits)? as u16, Some(v))
    };
    if len > max {
        return Err(TlbError::InvalidData);
    }
    let mut matches = true;
    for i in 0..len {
        let bit = match same {
            Some(v) => v,
            None => cs.load_bit()?,
        };
        matches &= bit == key_bit(id, pos + i);
    }
    Ok(matches.then_some(len))
}

/// The hash of `account_none$0`, the state of an account that does not
/// exist: known without a row.
pub fn empty_account_hash() -> HashBytes {
    static HASH: std::sync::OnceLock<HashBytes> = std::sync::OnceLock::new();
    *HASH.get_or_init(|| {
        *CellBuilder::build_from(&OptionalAccount::EMPTY)
            .expect("account_none is one bit")
            .repr_hash()
    })
}

/// The account state whose `Account` cell hash is `hash` (what a
/// transaction's state update names), read from the cell store; `Ok(None)`
/// when the store does not hold that cell. The states after each kept
/// block are held, so the state after an account's last transaction in
/// such a block is, and the states between two of its transactions in one
/// block are not. Code and data come back shallow (their hashes are known, their
/// trees are not loaded); extra currencies are loaded whole.
pub fn account_by_hash(
    rows: &dyn CellRows,
    hash: &HashBytes,
) -> Result<Option<OptionalAccount>, CellError> {
    let mut loader = Loader::new(rows);
    let cell = match loader.one_level(hash) {
        Ok(cell) => cell,
        Err(CellError::Missing(h)) if h == *hash => {
            // `account_none$0` is known by its hash alone.
            return Ok((*hash == empty_account_hash()).then_some(OptionalAccount::EMPTY));
        }
        Err(e) => return Err(e),
    };
    let mut account: OptionalAccount = cell.parse().map_err(|_| CellError::Corrupt(*hash))?;
    if let Some(a) = account.0.as_mut() {
        if let Some(root) = a.balance.other.as_dict().root() {
            let whole = loader.whole(root.repr_hash())?;
            a.balance.other = ExtraCurrencyCollection::from_raw(Some(whole));
        }
    }
    Ok(Some(account))
}
