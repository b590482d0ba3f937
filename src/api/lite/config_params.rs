//! The blockchain config over the lite API: `getConfigAll` and
//! `getConfigParams` — the config of a masterchain block's state with its
//! proofs (the block's header down to the state update, and the state
//! down to the config params asked for, each param whole).

use ton_liteapi::tl::common::BlockIdExt;
use ton_liteapi::tl::response::{ConfigInfo, Response};

use super::{code, error, refuse, LiteServer};
use crate::chain::devnet::proof;

impl LiteServer {
    /// The config of masterchain block `id`'s state: every param, or
    /// those of `params`. `from_key_block` (mode bit 15: the config as the
    /// key block carries it) is not answered yet.
    pub(super) async fn config(
        &self,
        id: BlockIdExt,
        params: Option<Vec<i32>>,
        from_key_block: bool,
    ) -> Response {
        if from_key_block {
            return error(
                code::PROTOVIOLATION,
                "tonindex's lite server gives the config of a block's state, not of its key \
                 block extra (mode bit 15) yet",
            );
        }
        if id.workchain != -1 {
            return error(
                code::PROTOVIOLATION,
                "the config is read at masterchain blocks",
            );
        }
        // Negative ids are no params (the dictionary's keys are 32-bit unsigned).
        let params: Option<Vec<u32>> = params.map(|p| {
            p.into_iter()
                .filter_map(|p| u32::try_from(p).ok())
                .collect()
        });
        let bytes = match self.block_file(&id).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let proofs = self
            .read(move |ctx| {
                proof::config_of(&ctx.reader, &bytes, params.as_deref())
                    .map_err(|e| refuse(code::ERROR, format!("cannot prove the config: {e:#}")))
            })
            .await;
        match proofs {
            Ok((state_proof, config_proof)) => Response::ConfigInfo(ConfigInfo {
                mode: (),
                id,
                state_proof,
                config_proof,
                with_state_root: None,
                with_libraries: None,
                with_state_extra_root: None,
                with_shard_hashes: None,
                with_validator_set: None,
                with_special_smc: None,
                with_accounts_root: None,
                with_prev_blocks: None,
                with_workchain_info: None,
                with_capabilities: None,
                extract_from_key_block: None,
            }),
            Err(e) => *e,
        }
    }
}
