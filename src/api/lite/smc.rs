//! `runSmcMethod`: a get-method run on the in-process TVM on an account's
//! state as of a masterchain block, answered as a liteserver answers it —
//! the account's proofs (mode bit 0), a Merkle proof of the account cells
//! the run read (bit 1), and the result stack as a `VmStack` BoC (bit 2).

use std::sync::Arc;

use ton_liteapi::tl::request::RunSmcMethod;
use ton_liteapi::tl::response::{Response, RunMethodResult};
use tonindex_model::{Address, BlockId};
use tycho_types::boc::Boc;
use tycho_types::cell::{CellBuilder, HashBytes, Lazy, UsageTree, UsageTreeMode};
use tycho_types::merkle::MerkleProof;
use tycho_types::models::ShardAccount;
use tycho_vm::Stack;

use super::{code, error, refuse, LiteServer, Refusal};
use crate::api::getmethod::{self, At, TvmError};
use crate::state::account::{self, Status};
use crate::tvm::getmethod::Method;

/// A liteserver's exit code for a get-method on an account that is not
/// active (no account, uninitialized or frozen): nothing is run.
const NOT_ACTIVE_EXIT_CODE: i32 = -256;

/// The mode bits `runSmcMethod` honours: block proofs, the state proof and
/// the result. `init_c7` (bit 3) and `lib_extras` (bit 4) are not given,
/// and the answer's mode says so.
const PROOFS: u32 = 1;
const STATE_PROOF: u32 = 2;
const RESULT: u32 = 4;

/// What one run gives back, before it is shaped into the answer.
struct Ran {
    shard_proof: Vec<u8>,
    proof: Vec<u8>,
    state_proof: Vec<u8>,
    exit_code: i32,
    result: Vec<u8>,
}

impl LiteServer {
    pub(super) async fn run_smc_method(&self, r: RunSmcMethod) -> Response {
        let Ok(method) = i64::try_from(r.method_id) else {
            return error(code::PROTOVIOLATION, "method_id is out of range");
        };
        let mc = match self.known_block(&r.id).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let blocks = match self.account_blocks(&r.id, &r.account).await {
            Ok(b) => Arc::new(b),
            Err(e) => return *e,
        };
        let shardblk = blocks.shardblk.clone();
        let at = At {
            mc_seqno: mc.id.id.seqno,
            gen_utime: mc.gen_utime,
        };
        let source = BlockId {
            workchain: shardblk.workchain,
            shard: shardblk.shard,
            seqno: shardblk.seqno,
        };
        let address = Address {
            workchain: r.account.workchain,
            id: r.account.id.0,
        };
        let mode = r.mode;
        let params = r.params;
        let ran = self
            .read(move |ctx| {
                // The parameters are a `VmStack`, as the C++ server reads
                // them (parsed here: stack values stay on one thread).
                let stack = Boc::decode(&params)
                    .map_err(|e| e.to_string())
                    .and_then(|c| c.parse::<Stack>().map_err(|e| e.to_string()))
                    .map_err(|e| {
                        refuse(
                            code::PROTOVIOLATION,
                            format!("params are not a serialized VmStack: {e}"),
                        )
                    })?
                    .items;
                let (shard_proof, proof, sa) = blocks.prove(&ctx.reader, &HashBytes(address.id))?;
                let Some(sa) = sa else {
                    return Ok(Ran {
                        shard_proof,
                        proof,
                        state_proof: Vec::new(),
                        exit_code: NOT_ACTIVE_EXIT_CODE,
                        result: Vec::new(),
                    });
                };
                // The run reads the account through a usage tree: the state
                // proof keeps the cells it touched.
                let usage = UsageTree::new(UsageTreeMode::OnDataAccess);
                let root = sa.account.inner().clone();
                let tracked = ShardAccount {
                    account: Lazy::from_raw(usage.track(&root))
                        .map_err(|e| refuse(code::ERROR, e.to_string()))?,
                    last_trans_hash: sa.last_trans_hash,
                    last_trans_lt: sa.last_trans_lt,
                };
                let view = account::view(&address, &tracked, Some(source), at.gen_utime)
                    .map_err(|e| refuse(code::ERROR, e.to_string()))?;
                let (exit_code, result) = if view.status == Status::Active {
                    let out = getmethod::run(ctx, &view, Some(at), &Method::Id(method), stack)
                        .map_err(tvm_refusal)?;
                    let stack = Stack { items: out.stack };
                    let cell = CellBuilder::build_from(&stack)
                        .map_err(|e| refuse(code::ERROR, format!("the result stack: {e}")))?;
                    (out.exit_code, crate::boc::encode(cell.as_ref()))
                } else {
                    (NOT_ACTIVE_EXIT_CODE, Vec::new())
                };
                drop(view);
                let state_proof = MerkleProof::create(root.as_ref(), usage)
                    .build()
                    .and_then(|p| CellBuilder::build_from(&p))
                    .map(|c| crate::boc::encode(c.as_ref()))
                    .map_err(|e| refuse(code::ERROR, format!("the state proof: {e}")))?;
                Ok(Ran {
                    shard_proof,
                    proof,
                    state_proof,
                    exit_code,
                    result,
                })
            })
            .await;
        let ran = match ran {
            Ok(ran) => ran,
            Err(e) => return *e,
        };
        let with = |bit: u32, v: Vec<u8>| (mode & bit != 0).then_some(v);
        Response::RunMethodResult(RunMethodResult {
            mode: (),
            id: r.id,
            shardblk,
            shard_proof: with(PROOFS, ran.shard_proof),
            proof: with(PROOFS, ran.proof),
            state_proof: with(STATE_PROOF, ran.state_proof),
            init_c7: None,
            lib_extras: None,
            exit_code: ran.exit_code,
            result: with(RESULT, ran.result),
        })
    }
}

/// A get-method that could not run, as a lite API error.
fn tvm_refusal(e: TvmError) -> Refusal {
    match e {
        TvmError::Busy => refuse(code::NOTREADY, e.to_string()),
        TvmError::TimeLimit(_) => refuse(code::TIMEOUT, e.to_string()),
        TvmError::Invalid(_) => refuse(code::PROTOVIOLATION, e.to_string()),
        TvmError::NotHeld(_) => refuse(code::NOTREADY, e.to_string()),
        TvmError::Internal(_) => refuse(code::ERROR, e.to_string()),
    }
}
