//! Validator elections (spec v3 §4.5 `election_deposit`,
//! `election_recover`): a stake sent to the elector with `new_stake`, which
//! the elector confirms (or returns: then the deposit failed), and a
//! `recover_stake` request, which the elector answers with the stake it
//! holds for the sender (or an error: then nothing was recovered).

use tonindex_model::Address;

use super::{Block, BlockId, Cols, Graph, Interfaces};

/// The elector (mainnet's config param 1, where toncenter looks for it).
const ELECTOR: Address = Address {
    workchain: -1,
    id: [0x33; 32],
};

/// `new_stake#4e73744b` (validator → elector).
const OP_NEW_STAKE: u32 = 0x4e73_744b;
/// `new_stake_confirmation#f374484c` (elector → validator).
const OP_NEW_STAKE_CONFIRMATION: u32 = 0xf374_484c;
/// `recover_stake#47657424` (validator → elector).
const OP_RECOVER_STAKE: u32 = 0x4765_7424;
/// `recover_stake_ok#f96f7324` (elector → validator, with the stake).
const OP_RECOVER_STAKE_OK: u32 = 0xf96f_7324;

/// A call to the elector with `op`, and its answer with `answer_op`.
fn elector_call(
    g: &Graph<'_>,
    b: BlockId,
    op: u32,
    answer_op: u32,
) -> Option<(Block, Option<BlockId>)> {
    if g.call_op(b) != Some(op) {
        return None;
    }
    let m = g.msg(b)?;
    if m.destination != Some(ELECTOR) {
        return None;
    }
    let answer = g.next_call(b, answer_op);
    let mut members = vec![b];
    members.extend(answer);
    let cols = Cols {
        source: m.source,
        ..Cols::default()
    };
    Some((Block::of("", members, answer.is_none(), cols), answer))
}

/// A stake sent to the elector (its amount the message's value).
pub(crate) fn deposit(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let (mut blk, _) = elector_call(g, b, OP_NEW_STAKE, OP_NEW_STAKE_CONFIRMATION)?;
    blk.kind = "election_deposit";
    blk.cols.amount = Some(g.msg(b)?.value);
    Some(blk)
}

/// A stake recovered from the elector (its amount what the elector sent).
pub(crate) fn recover(g: &Graph<'_>, b: BlockId, _: &dyn Interfaces) -> Option<Block> {
    let (mut blk, answer) = elector_call(g, b, OP_RECOVER_STAKE, OP_RECOVER_STAKE_OK)?;
    blk.kind = "election_recover";
    blk.cols.amount = match answer {
        Some(a) => Some(g.msg(a)?.value),
        None => None,
    };
    Some(blk)
}
