//! Checking what a lite server says about an account (F7 item 2, "account
//! states by their proofs"): `getAccountState` at a masterchain block the
//! node trusts is believed only when its Merkle proofs lead from that
//! block's root hash down to the account — the masterchain block's state
//! naming the shard block (`shard_proof`), the shard block's state holding
//! the account entry (`proof`), and the entry naming the very `Account`
//! cell sent (`state`) — as tonlib checks it.

use anyhow::{anyhow, bail, Context as _};
use tonindex_model::BlockIdExt;
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellSlice, HashBytes, Lazy, Load};
use tycho_types::dict::Dict;
use tycho_types::merkle::{MerkleProof, MerkleUpdate};
use tycho_types::models::{BlockInfo, DepthBalanceInfo, ShardAccount, ShardHashes, ShardIdent};

/// An account state a lite server proved.
#[derive(Debug, Clone)]
pub struct ProvenAccount {
    /// The account's entry (`None`: the proven state has no such account).
    pub shard_account: Option<ShardAccount>,
    /// The shard block whose state holds it, and that block's time.
    pub shard_block: BlockIdExt,
    pub gen_utime: u32,
}

/// The inner cell of a Merkle proof whose hidden root must be `expected`.
fn proven_root(proof: &Cell, expected: &[u8; 32], what: &str) -> anyhow::Result<Cell> {
    let proof: MerkleProof = proof
        .parse_exotic()
        .with_context(|| format!("{what} is not a Merkle proof"))?;
    if proof.hash.0 != *expected {
        bail!("{what} proves another root than the one asked for");
    }
    Ok(proof.cell)
}

/// A block's header from a proof of it: its info's time and the hash of
/// the state after it. Read by position (`block#11ef55aa global_id:int32
/// info:^BlockInfo value_flow:^ValueFlow state_update:^(MERKLE_UPDATE
/// ShardState) extra:^BlockExtra`): a proof prunes the value flow and the
/// extra, which a typed read of the whole block would refuse.
fn header(proof: &Cell, root_hash: &[u8; 32], what: &str) -> anyhow::Result<(u32, HashBytes)> {
    let block = proven_root(proof, root_hash, what)?;
    let mut s = block
        .as_slice()
        .with_context(|| format!("{what}: not a block"))?;
    if s.load_u32()? != 0x11ef_55aa {
        bail!("{what}: not a block");
    }
    let info: BlockInfo = block
        .reference_cloned(0)
        .ok_or_else(|| anyhow!("{what}: no header"))?
        .parse()
        .with_context(|| format!("{what}: the header"))?;
    let update: MerkleUpdate = block
        .reference_cloned(2)
        .ok_or_else(|| anyhow!("{what}: no state update"))?
        .parse_exotic()
        .with_context(|| format!("{what}: the state update"))?;
    Ok((info.gen_utime, update.new_hash))
}

/// A `ShardAccount` as a proof holds it: the `Account` cell may be pruned
/// (its hash is what counts), the last transaction beside it.
struct ProvenEntry {
    account_hash: HashBytes,
    last_trans_hash: HashBytes,
    last_trans_lt: u64,
}

impl<'a> Load<'a> for ProvenEntry {
    fn load_from(s: &mut CellSlice<'a>) -> Result<Self, tycho_types::error::Error> {
        let account = s.load_reference()?;
        Ok(Self {
            account_hash: *account.hash(0),
            last_trans_hash: s.load_u256()?,
            last_trans_lt: s.load_u64()?,
        })
    }
}

/// A shard state's cells by position (`shard_state#9023afe2 …
/// out_msg_queue_info:^… accounts:^ShardAccounts ^[…] custom:(Maybe
/// ^McStateExtra)`): a proof prunes what a typed read of the whole state
/// would need.
fn state_ref(state: &Cell, index: u8, what: &str) -> anyhow::Result<Cell> {
    let mut s = state.as_slice()?;
    if s.load_u32()? != 0x9023_afe2 {
        bail!("not a shard state");
    }
    state
        .reference_cloned(index)
        .ok_or_else(|| anyhow!("the state has no {what}"))
}

/// The entry of account `id` in a proven shard state (`accounts` is a
/// `HashmapAugE 256 ShardAccount DepthBalanceInfo`).
fn account_entry(
    state: &Cell,
    id: &HashBytes,
) -> anyhow::Result<Option<(DepthBalanceInfo, ProvenEntry)>> {
    let accounts = state_ref(state, 1, "accounts")?;
    let mut s = accounts.as_slice()?;
    if !s.load_bit()? {
        return Ok(None);
    }
    let root = accounts
        .reference_cloned(0)
        .ok_or_else(|| anyhow!("the accounts have no root"))?;
    let dict = Dict::<HashBytes, (DepthBalanceInfo, ProvenEntry)>::from_raw(Some(root));
    Ok(dict.get(id)?)
}

/// The shard hashes of a proven masterchain state (`custom` is
/// `masterchain_state_extra#cc26 shard_hashes:ShardHashes …`).
fn shard_hashes(state: &Cell) -> anyhow::Result<ShardHashes> {
    let custom = state_ref(state, 3, "masterchain extra")?;
    let mut s = custom.as_slice()?;
    if s.load_u16()? != 0xcc26 {
        bail!("not a masterchain state extra");
    }
    if !s.load_bit()? {
        return Ok(ShardHashes::from_dict(Dict::new()));
    }
    let root = custom
        .reference_cloned(0)
        .ok_or_else(|| anyhow!("the shard hashes have no root"))?;
    Ok(ShardHashes::from_dict(Dict::from_raw(Some(root))))
}

/// The header of block `id` from a proof of it (`lookupBlock`'s
/// `header_proof`): the proof must hide `id`'s root hash, and the header
/// name `id`'s shard and seqno.
pub fn check_header(proof: &[u8], id: &BlockIdExt) -> anyhow::Result<BlockInfo> {
    let proof = Boc::decode(proof).context("the header proof is not a BoC")?;
    let block = proven_root(&proof, &id.root_hash, "the header proof")?;
    let mut s = block.as_slice()?;
    if s.load_u32()? != 0x11ef_55aa {
        bail!("the header proof: not a block");
    }
    let info: BlockInfo = block
        .reference_cloned(0)
        .ok_or_else(|| anyhow!("the header proof: no header"))?
        .parse()
        .context("the header proof: the header")?;
    if info.seqno != id.id.seqno
        || info.shard.workchain() != id.id.workchain
        || info.shard.prefix() != id.id.shard
    {
        bail!("the header is of another block than the id names");
    }
    Ok(info)
}

/// Checks `getAccountState`'s answer for account `id` at the trusted
/// masterchain block `mc`: `shardblk` the shard block it names,
/// `shard_proof` and `proof` the two-root BoCs, `state` the `Account` BoC
/// (empty for none).
pub fn check_account_state(
    mc: &BlockIdExt,
    id: &HashBytes,
    shardblk: &BlockIdExt,
    shard_proof: &[u8],
    proof: &[u8],
    state: &[u8],
) -> anyhow::Result<ProvenAccount> {
    if shardblk.id.workchain == -1 {
        if shardblk != mc {
            bail!("a masterchain account is read at another block than the one asked for");
        }
    } else {
        // The masterchain block's state names the shard block.
        let (header_proof, state_proof) =
            Boc::decode_pair(shard_proof).context("shard_proof is not two proofs")?;
        let (_, mc_state) = header(&header_proof, &mc.root_hash, "shard_proof's block")?;
        let state = proven_root(&state_proof, &mc_state.0, "shard_proof's state")?;
        let shards = shard_hashes(&state).context("shard_proof's state")?;
        let shard = ShardIdent::new(shardblk.id.workchain, shardblk.id.shard)
            .ok_or_else(|| anyhow!("the shard block names no valid shard"))?;
        // The shard's entry (parts of the tree a proof prunes are skipped).
        let descr = shards
            .iter()
            .filter_map(Result::ok)
            .find(|(ident, _)| *ident == shard)
            .map(|(_, descr)| descr)
            .ok_or_else(|| anyhow!("the masterchain state does not list the shard block"))?;
        if descr.seqno != shardblk.id.seqno
            || descr.root_hash.0 != shardblk.root_hash
            || descr.file_hash.0 != shardblk.file_hash
        {
            bail!("the masterchain state names another top block of the shard");
        }
    }
    // The shard block's state holds the account's entry.
    let (header_proof, state_proof) = Boc::decode_pair(proof).context("proof is not two proofs")?;
    let (gen_utime, state_hash) = header(&header_proof, &shardblk.root_hash, "proof's block")?;
    let shard_state = proven_root(&state_proof, &state_hash.0, "proof's state")?;
    let entry = account_entry(&shard_state, id).context("proof's accounts")?;
    let shard_account = match entry {
        None => {
            if !state.is_empty() {
                bail!("an account was sent that the proven state does not have");
            }
            None
        }
        Some((_, entry)) => {
            if state.is_empty() {
                bail!("no account was sent, but the proven state holds it");
            }
            let cell = Boc::decode(state).context("state is not an Account BoC")?;
            if *cell.repr_hash() != entry.account_hash {
                bail!("the account sent is not the one the proven state holds");
            }
            Some(ShardAccount {
                account: Lazy::from_raw(cell)?,
                last_trans_hash: entry.last_trans_hash,
                last_trans_lt: entry.last_trans_lt,
            })
        }
    };
    Ok(ProvenAccount {
        shard_account,
        shard_block: *shardblk,
        gen_utime,
    })
}
