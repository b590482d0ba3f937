//! `getBlockProof` forward: the chain of block links a lite client walks
//! from a masterchain key block it trusts (or the zero state) to a newer
//! masterchain block — one link to each key block on the way, then one to
//! the target — each carrying the `to` block's header proof, the
//! signatures of its validators as the chain gave them, and a
//! `config_proof` of the `from` key block's validator params (the set that
//! signed), as tonlib and pytoniq check them — and backward, from a newer
//! trusted block to an older one: through the state of each `from`, whose
//! `prev_blocks` list every older masterchain block and whose
//! `last_key_block` names the key block before it.

use ton_liteapi::tl::common::{BlockIdExt, BlockLink, Int256, Signature, SignatureSet};
use ton_liteapi::tl::response::{PartialBlockProof, Response, ShardBlockLink, ShardBlockProof};
use tonindex_model::BlockRecord;
use tycho_types::boc::Boc;
use tycho_types::cell::HashBytes;

use super::{block_id, code, refuse, storage_error, LiteServer, Refusal};
use crate::chain::devnet::proof;
use crate::query;

/// The most links one answer carries; a longer chain is answered
/// incomplete and the client asks again from its last `to`.
const MAX_LINKS: usize = 16;

impl LiteServer {
    pub(super) async fn block_proof(
        &self,
        known: BlockIdExt,
        target: Option<BlockIdExt>,
    ) -> Response {
        match self.forward_links(known, target).await {
            Ok(r) => r,
            Err(e) => *e,
        }
    }

    async fn forward_links(
        &self,
        known: BlockIdExt,
        target: Option<BlockIdExt>,
    ) -> Result<Response, Refusal> {
        let target = match target {
            Some(t) => t,
            None => block_id(&self.last().await?),
        };
        if known.workchain != -1 || target.workchain != -1 {
            return Err(refuse(
                code::ERROR,
                "block proofs link masterchain blocks only",
            ));
        }
        if known.seqno > target.seqno {
            return self.backward_links(known, target).await;
        }
        // The known block is the zero state or a key block of the index.
        let known_zero = known.seqno == 0
            && known.root_hash == self.zerostate.root_hash
            && known.file_hash == self.zerostate.file_hash;
        if !known_zero && !self.known_block(&known).await?.key_block {
            return Err(refuse(
                code::ERROR,
                "the known block is not a key block: a forward link starts at one",
            ));
        }
        let target_record = self.known_block(&target).await?;
        // The key blocks between them, oldest first, then the target.
        let (from_seqno, to) = (known.seqno, target_record.clone());
        let mut hops: Vec<BlockRecord> = self
            .read(move |ctx| {
                let mut keys = Vec::new();
                let mut k = to.prev_key_block_seqno;
                while k > from_seqno && keys.len() < MAX_LINKS {
                    let b = query::blocks::mc_block(&ctx.reader, k)
                        .map_err(storage_error)?
                        .ok_or_else(|| {
                            refuse(code::NOTREADY, format!("key block {k} is not indexed"))
                        })?;
                    k = b.prev_key_block_seqno;
                    keys.push(b);
                }
                Ok(keys)
            })
            .await?;
        hops.reverse();
        if known.seqno < target.seqno {
            hops.push(target_record);
        }
        hops.truncate(MAX_LINKS);
        let complete = hops.last().is_none_or(|b| b.id.id.seqno == target.seqno);
        let mut steps = Vec::with_capacity(hops.len());
        let mut from = known.clone();
        for to in hops {
            let to_id = block_id(&to);
            steps.push(
                self.forward_link(&from, known_zero && from == known, &to)
                    .await?,
            );
            from = to_id;
        }
        Ok(Response::PartialBlockProof(PartialBlockProof {
            complete,
            from: known,
            to: from,
            steps,
        }))
    }

    /// Backward from `known` to the older `target`: to a block that is not
    /// a key block, one link through `known`'s state's `prev_blocks`; to a
    /// key block, one link per key block on the way back, each through its
    /// `from`'s `last_key_block`.
    async fn backward_links(
        &self,
        known: BlockIdExt,
        target: BlockIdExt,
    ) -> Result<Response, Refusal> {
        let known_record = self.known_block(&known).await?;
        let target_record = self.known_block(&target).await?;
        let mut steps = Vec::new();
        let mut from = known_record;
        loop {
            let to = if target_record.key_block {
                // The key block before `from` (its state's `last_key_block`).
                let seqno = from.prev_key_block_seqno;
                let k = self
                    .read(move |ctx| {
                        query::blocks::mc_block(&ctx.reader, seqno)
                            .map_err(storage_error)?
                            .ok_or_else(|| {
                                refuse(code::NOTREADY, format!("key block {seqno} is not indexed"))
                            })
                    })
                    .await?;
                if k.id.id.seqno < target.seqno || !k.key_block {
                    return Err(refuse(
                        code::ERROR,
                        "no chain of key blocks leads back to the target",
                    ));
                }
                k
            } else {
                target_record.clone()
            };
            steps.push(self.backward_link(&from, &to).await?);
            let done = to.id.id.seqno == target.seqno;
            from = to;
            if done || steps.len() >= MAX_LINKS {
                break;
            }
        }
        Ok(Response::PartialBlockProof(PartialBlockProof {
            complete: from.id.id.seqno == target.seqno,
            from: known,
            to: block_id(&from),
            steps,
        }))
    }

    /// One backward link from masterchain block `from` to the older `to`:
    /// `from`'s header with its state update (`proof`), its state down to
    /// `to`'s entry (`prev_blocks`, or `last_key_block` for a key block),
    /// and `to`'s header (`dest_proof`).
    async fn backward_link(
        &self,
        from: &BlockRecord,
        to: &BlockRecord,
    ) -> Result<BlockLink, Refusal> {
        let (from_id, to_id) = (block_id(from), block_id(to));
        let header = |bytes: Vec<u8>| {
            Boc::decode(&bytes)
                .map_err(|e| e.to_string())
                .and_then(|root| proof::header_and_state(&root).map_err(|e| e.to_string()))
                .map_err(|e| refuse(code::ERROR, format!("cannot prove a block header: {e}")))
        };
        let (proof, state_hash) = header(self.block_file(&from_id).await?)?;
        // `to`'s header alone, as the devnet's v2 getShardBlockProof gives it.
        let to_bytes = self.block_file(&to_id).await?;
        let dest_proof = Boc::decode(&to_bytes)
            .map_err(|e| e.to_string())
            .and_then(|root| proof::header(&root).map_err(|e| e.to_string()))
            .map_err(|e| refuse(code::ERROR, format!("cannot prove a block header: {e}")))?;
        let (key, seqno) = (to.key_block, to.id.id.seqno);
        let state_proof = self
            .read(move |ctx| {
                if key {
                    proof::last_key_block_entry(&ctx.reader, &state_hash)
                } else {
                    proof::prev_block_entry(&ctx.reader, &state_hash, seqno)
                }
                .map_err(|e| refuse(code::ERROR, format!("cannot prove the link back: {e:#}")))
            })
            .await?;
        Ok(BlockLink::BlockLinkBack {
            to_key_block: key,
            from: from_id,
            to: to_id,
            dest_proof,
            proof,
            state_proof,
        })
    }

    /// One forward link from `from` (a key block, or the zero state when
    /// `from_zero`) to masterchain block `to`.
    async fn forward_link(
        &self,
        from: &BlockIdExt,
        from_zero: bool,
        to: &BlockRecord,
    ) -> Result<BlockLink, Refusal> {
        let to_id = block_id(to);
        let signatures = self
            .api
            .chain()
            .and_then(|chain| {
                chain.block_signatures(&HashBytes(to.id.root_hash), &HashBytes(to.id.file_hash))
            })
            .ok_or_else(|| refuse(code::ERROR, "this lite server holds no block signatures"))?;
        let to_bytes = self.block_file(&to_id).await?;
        let dest_proof = Boc::decode(&to_bytes)
            .map_err(|e| e.to_string())
            .and_then(|root| proof::header_and_state(&root).map_err(|e| e.to_string()))
            .map_err(|e| refuse(code::ERROR, format!("cannot prove the block header: {e}")))?
            .0;
        let config_proof = if from_zero {
            let root = HashBytes(from.root_hash.0);
            self.read(move |ctx| {
                proof::zero_state_config(&ctx.reader, &root).map_err(|e| {
                    refuse(
                        code::ERROR,
                        format!("cannot prove the zero state's config: {e:#}"),
                    )
                })
            })
            .await?
        } else {
            let from_bytes = self.block_file(from).await?;
            Boc::decode(&from_bytes)
                .map_err(|e| e.to_string())
                .and_then(|root| proof::key_block_config(&root).map_err(|e| e.to_string()))
                .map_err(|e| {
                    refuse(
                        code::ERROR,
                        format!("cannot prove the key block's config: {e}"),
                    )
                })?
        };
        Ok(BlockLink::BlockLinkForward {
            to_key_block: to.key_block,
            from: from.clone(),
            to: to_id,
            dest_proof,
            config_proof,
            signatures: SignatureSet {
                validator_set_hash: to.validator_list_hash_short,
                catchain_seqno: to.gen_catchain_seqno,
                signatures: signatures
                    .into_iter()
                    .map(|(node, sig)| Signature {
                        node_id_short: Int256(node.0),
                        signature: sig.to_vec(),
                    })
                    .collect(),
            },
        })
    }
}

impl LiteServer {
    /// `getShardBlockProof`: the masterchain block that committed shard
    /// block `id`, and one link — that block's shard hashes naming `id` —
    /// when `id` is the top it committed (a block committed below the top
    /// is not proven here yet). A masterchain block has no links.
    pub(super) async fn shard_block_proof(&self, id: BlockIdExt) -> Response {
        match self.shard_links(id).await {
            Ok(r) => r,
            Err(e) => *e,
        }
    }

    async fn shard_links(&self, id: BlockIdExt) -> Result<Response, Refusal> {
        let target = self.known_block(&id).await?;
        if id.workchain == -1 {
            return Ok(Response::ShardBlockProof(ShardBlockProof {
                masterchain_id: id,
                links: Vec::new(),
            }));
        }
        let mc_seqno = target.mc_block_seqno.ok_or_else(|| {
            refuse(
                code::NOTREADY,
                "no masterchain block commits this block yet",
            )
        })?;
        let (mc, tops) = self
            .read(move |ctx| {
                let mc = query::blocks::mc_block(&ctx.reader, mc_seqno)
                    .map_err(storage_error)?
                    .ok_or_else(|| refuse(code::NOTREADY, "the committing block is not indexed"))?;
                let tops =
                    query::blocks::shard_state(&ctx.reader, mc_seqno).map_err(storage_error)?;
                Ok((mc, tops))
            })
            .await?;
        if !tops.iter().any(|d| d.block.id == target.id.id) {
            return Err(refuse(
                code::ERROR,
                "the block is not the top its masterchain block committed: not proven here yet",
            ));
        }
        let chain = self
            .api
            .chain()
            .ok_or_else(|| refuse(code::ERROR, "this lite server keeps no block proofs"))?;
        let proofs = chain
            .shard_block_proof(&target.id, &mc.id, &mc.id)
            .ok_or_else(|| refuse(code::ERROR, "this lite server keeps no block proofs"))?
            .map_err(|r| refuse(code::ERROR, r.message))?;
        let proof = proofs
            .link
            .ok_or_else(|| refuse(code::ERROR, "no link from the masterchain block"))?;
        Ok(Response::ShardBlockProof(ShardBlockProof {
            masterchain_id: block_id(&mc),
            links: vec![ShardBlockLink {
                id: block_id(&target),
                proof,
            }],
        }))
    }
}
