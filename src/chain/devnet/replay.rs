//! What the official emulator needs to re-run the devnet's transactions:
//! from exported block files and zerostates, each account's transactions of
//! each block with the account state before the block (the states come
//! from applying each block's Merkle update to the one before), the
//! block's start lt and random seed, and the config. Used by the devnet
//! test (hashes must match) and by `tonindex bench-dev` (the emulator's
//! rate for the same transactions).

use std::path::Path;

use anyhow::{anyhow, Context as _};
use base64::Engine as _;
use serde_json::{json, Value};
use tycho_types::boc::Boc;
use tycho_types::cell::{Cell, CellBuilder, HashBytes, Lazy};
use tycho_types::models::{Block, OptionalAccount, ShardAccount, ShardStateUnsplit, Transaction};

/// One transaction to re-run and what it must give.
#[derive(Debug, Clone)]
pub struct Expected {
    pub tx_hash: HashBytes,
    /// The account after it, where it is its account's last transaction of
    /// the block and the account exists after it.
    pub account_hash: Option<HashBytes>,
    pub masterchain: bool,
}

/// The emulator's input (`{config, runs}` for `devnet_replay.mjs`) and the
/// transactions in the order it runs them.
pub struct ReplayInput {
    pub json: Value,
    pub expected: Vec<Expected>,
}

fn b64(c: &Cell) -> String {
    base64::engine::general_purpose::STANDARD.encode(Boc::encode(c.as_ref()))
}

/// Reads `dir` as `tonindex dev --export-blocks` writes it; blocks whose
/// masterchain or basechain seqno is below `from_seqno` are applied but not
/// replayed.
pub fn emulator_input(dir: &Path, from_seqno: u32) -> anyhow::Result<ReplayInput> {
    let read = |name: &str| -> anyhow::Result<Cell> {
        let bytes = std::fs::read(dir.join(name)).with_context(|| format!("reading {name}"))?;
        Boc::decode(bytes).map_err(|e| anyhow!("{name}: {e}"))
    };
    let mc_zero = read("zerostate_masterchain.boc")?;
    let extra = mc_zero
        .parse::<ShardStateUnsplit>()?
        .load_custom()?
        .ok_or_else(|| anyhow!("the masterchain zerostate has no extra"))?;
    let config = b64(extra
        .config
        .params
        .as_dict()
        .root()
        .as_ref()
        .ok_or_else(|| anyhow!("empty config"))?);

    let mut runs = Vec::new();
    let mut expected = Vec::new();
    for (prefix, zerostate) in [
        ("mc_", "zerostate_masterchain.boc"),
        ("wc0_", "zerostate_basechain.boc"),
    ] {
        let mut state = read(zerostate)?;
        let mut files: Vec<String> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(prefix))
            .collect();
        files.sort();
        // One chain of states per workchain: a split basechain's blocks
        // start from halves of their parent's state, which this does not
        // build.
        if let Some(split) = files
            .iter()
            .find(|n| n.starts_with("wc0_") && !n.starts_with("wc0_8000000000000000_"))
        {
            return Err(anyhow!(
                "{split}: the emulator replay reads one-shard chains only (this devnet's \
                 basechain is split)"
            ));
        }
        for name in files {
            let block: Block = read(&name)?.parse()?;
            let info = block.load_info()?;
            let extra = block.load_extra()?;
            let next = block.state_update.load()?.apply(&state)?;
            if info.seqno >= from_seqno {
                let before = state.parse::<ShardStateUnsplit>()?.load_accounts()?;
                let after = next.parse::<ShardStateUnsplit>()?.load_accounts()?;
                for entry in extra.account_blocks.load()?.iter() {
                    let (account, _, ab) = entry?;
                    let start = match before.get(account)? {
                        Some((_, a)) => a,
                        None => ShardAccount {
                            account: Lazy::new(&OptionalAccount(None))?,
                            last_trans_hash: HashBytes::ZERO,
                            last_trans_lt: 0,
                        },
                    };
                    let end = match after.get(account)? {
                        Some((_, a)) => Some(*CellBuilder::build_from(&a)?.repr_hash()),
                        None => None,
                    };
                    let cells = ab
                        .transactions
                        .iter()
                        .map(|e| e.map(|(_, _, tx)| tx.into_inner()))
                        .collect::<Result<Vec<_>, _>>()?;
                    let mut txs = Vec::new();
                    for (i, cell) in cells.iter().enumerate() {
                        let tx: Transaction = cell.parse()?;
                        let msg = tx
                            .in_msg
                            .as_ref()
                            .ok_or_else(|| anyhow!("a devnet transaction without a message"))?;
                        txs.push(json!({ "message": b64(msg), "now": tx.now }));
                        expected.push(Expected {
                            tx_hash: *cell.repr_hash(),
                            account_hash: if i + 1 == cells.len() { end } else { None },
                            masterchain: prefix == "mc_",
                        });
                    }
                    runs.push(json!({
                        "lt": info.start_lt.to_string(),
                        "seed_hex": hex::encode(extra.rand_seed.0),
                        "shard_account": b64(&CellBuilder::build_from(&start)?),
                        "txs": txs,
                    }));
                }
            }
            state = next;
        }
    }
    Ok(ReplayInput {
        json: json!({ "config": config, "runs": runs }),
        expected,
    })
}
