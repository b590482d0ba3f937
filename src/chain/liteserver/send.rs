//! The API's road to the lite servers on a node that follows a chain
//! (`tonindex run`): sending (v2 `sendBoc`, v3 `POST /message`) to several
//! lite servers at once, as toncenter's v2 hands messages to liteservers
//! through tonlib, and reading the states of accounts whose state the
//! index does not hold — from one server, the next after a failure —
//! checked by their proofs (`proofs.rs`).

use std::sync::Arc;
use std::time::Duration;

use ton_liteapi::client::LiteClient;
use ton_liteapi::types::LiteError;
use tycho_types::cell::{Cell, HashBytes};

use super::client::{expect, Multiplexed};
use super::proofs::{check_account_state, ProvenAccount};
use super::tips::Tips;
use super::LiteServerAddr;
use crate::chain::link::{ChainLink, Refused};
use ton_liteapi::tl::response::Response;

/// How many lite servers a message goes to at once.
const SEND_TO: usize = 3;
/// How long a send or a read may take before the API answers without it.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A [`ChainLink`] over the lite servers of a global config.
pub struct LiteSender {
    /// The servers and what each last showed: they are tried in the
    /// order it gives (alive first; archival first for old blocks).
    tips: Arc<Tips>,
    runtime: tokio::runtime::Handle,
    /// The connection kept for reads and the server it goes to (dropped
    /// after a failure, and the next server asked).
    reads: tokio::sync::Mutex<(usize, Option<LiteClient>)>,
}

impl LiteSender {
    /// Uses the servers `tips` watches on `runtime` (the API's).
    pub fn new(tips: Arc<Tips>, runtime: tokio::runtime::Handle) -> Self {
        Self {
            tips,
            runtime,
            reads: tokio::sync::Mutex::new((0, None)),
        }
    }

    /// Sends `boc` through one server on a connection of its own.
    async fn send_one(server: LiteServerAddr, boc: Vec<u8>) -> Result<(), Refused> {
        let sent = tokio::time::timeout(TIMEOUT, async {
            let mut client = LiteClient::connect(server.addr, server.key)
                .await
                .map_err(|e| {
                    Refused::new(
                        503,
                        format!("LITE_SERVER_NETWORK: cannot reach {}: {e:?}", server.addr),
                    )
                })?;
            match client.send_message(boc).await {
                Ok(_) => Ok(()),
                Err(LiteError::ServerError(e)) => Err(Refused::new(
                    500,
                    format!("LITE_SERVER_UNKNOWN: {}", e.message),
                )),
                Err(e) => Err(Refused::new(500, format!("LITE_SERVER_NETWORK: {e:?}"))),
            }
        })
        .await;
        sent.unwrap_or_else(|_| {
            Err(Refused::new(
                504,
                format!(
                    "LITE_SERVER_NETWORK: {} did not answer in time",
                    server.addr
                ),
            ))
        })
    }

    /// The account's state at `mc` from the current read server, proofs
    /// checked; on a failure the next server is asked (once round).
    async fn fetch_account(
        &self,
        account: &tonindex_model::Address,
        mc: &tonindex_model::BlockIdExt,
    ) -> Result<ProvenAccount, Refused> {
        let mut slot = self.reads.lock().await;
        let mut last_error = None;
        for i in self.tips.order(Some(mc.id.seqno)) {
            if slot.0 != i {
                *slot = (i, None);
            }
            let server = self.tips.servers()[i].clone();
            match Self::read_account(&mut slot.1, &server, account, mc).await {
                Ok(proven) => return Ok(proven),
                // The account's own refusal is the same on every server.
                Err((refused, false)) => return Err(refused),
                Err((refused, true)) => {
                    tracing::warn!(
                        "lite server {} failed an account read: {}; asking the next one",
                        server.addr,
                        refused.message
                    );
                    slot.1 = None;
                    last_error = Some(refused);
                }
            }
        }
        Err(last_error.unwrap_or_else(|| Refused::new(503, "LITE_SERVER_NETWORK: no lite server")))
    }

    /// One read from `server`; an error says whether another server may
    /// do better (a network failure, a proof that does not check out).
    async fn read_account(
        conn: &mut Option<LiteClient>,
        server: &LiteServerAddr,
        account: &tonindex_model::Address,
        mc: &tonindex_model::BlockIdExt,
    ) -> Result<ProvenAccount, (Refused, bool)> {
        let network = |e: String| (Refused::new(503, format!("LITE_SERVER_NETWORK: {e}")), true);
        if conn.is_none() {
            let client = LiteClient::connect(server.addr, server.key)
                .await
                .map_err(|e| network(format!("cannot reach {}: {e:?}", server.addr)))?;
            *conn = Some(client);
        }
        let client = conn.as_mut().expect("connected above");
        let id = ton_liteapi::tl::common::AccountId {
            workchain: account.workchain,
            id: ton_liteapi::tl::common::Int256(account.id),
        };
        let answer = match client
            .get_account_state(super::follow::lite_id(mc), id)
            .await
        {
            Ok(a) => a,
            // Not there yet on this server, say: another may have it.
            Err(LiteError::ServerError(e)) => {
                return Err((
                    Refused::new(500, format!("LITE_SERVER_UNKNOWN: {}", e.message)),
                    true,
                ))
            }
            Err(e) => return Err(network(format!("{e:?}"))),
        };
        check_account_state(
            mc,
            &HashBytes(account.id),
            &super::follow::model_id(&answer.shardblk),
            &answer.shard_proof,
            &answer.proof,
            &answer.state,
        )
        .map_err(|e| {
            (
                Refused::new(
                    502,
                    format!(
                        "LITE_SERVER_UNKNOWN: the lite server's account state does not check \
                         out: {e:#}"
                    ),
                ),
                true,
            )
        })
    }
}

impl LiteSender {
    /// Asks the servers in turn, best placed for masterchain block
    /// `seqno` first (`None`: the newest), until one answers `f` (a
    /// network failure or a failed check moves on; a server's refusal is
    /// the answer).
    async fn ask<T, F, Fut>(&self, what: &str, seqno: Option<u32>, f: F) -> Result<T, Refused>
    where
        F: Fn(std::sync::Arc<Multiplexed>) -> Fut,
        Fut: std::future::Future<Output = anyhow::Result<T>>,
    {
        let mut last = None;
        for i in self.tips.order(seqno) {
            let server = &self.tips.servers()[i];
            let conn = match Multiplexed::connect(server).await {
                Ok(c) => std::sync::Arc::new(c),
                Err(e) => {
                    last = Some(format!("cannot reach {}: {e:?}", server.addr));
                    continue;
                }
            };
            match tokio::time::timeout(TIMEOUT, f(conn)).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(e)) => {
                    tracing::warn!("lite server {} failed {what}: {e:#}", server.addr);
                    last = Some(format!("{e:#}"));
                }
                Err(_) => last = Some(format!("{} did not answer in time", server.addr)),
            }
        }
        Err(Refused::new(
            503,
            format!(
                "LITE_SERVER_NETWORK: {what}: {}",
                last.unwrap_or_else(|| "no lite server".into())
            ),
        ))
    }
}

impl ChainLink for LiteSender {
    /// Forwards the message with `liteServer.sendMessage` to the first
    /// [`SEND_TO`] servers (alive ones first) at once; accepted when one
    /// accepts it, else the first server's refusal as it worded it.
    fn send(&self, msg: Cell) -> Result<(), Refused> {
        let boc = tycho_types::boc::Boc::encode(msg.as_ref());
        let servers: Vec<_> = self
            .tips
            .order(None)
            .into_iter()
            .take(SEND_TO)
            .map(|i| self.tips.servers()[i].clone())
            .collect();
        self.runtime.block_on(async move {
            let sends = servers
                .into_iter()
                .map(|server| tokio::spawn(Self::send_one(server, boc.clone())));
            let mut first_refusal = None;
            for sent in sends.collect::<Vec<_>>() {
                match sent.await {
                    Ok(Ok(())) => return Ok(()),
                    Ok(Err(refused)) => {
                        // A refusal by a server outranks one that is not reached.
                        let better = match &first_refusal {
                            None => true,
                            Some(Refused { status, .. }) => *status != 500 && refused.status == 500,
                        };
                        if better {
                            first_refusal = Some(refused);
                        }
                    }
                    Err(_) => {}
                }
            }
            Err(first_refusal
                .unwrap_or_else(|| Refused::new(503, "LITE_SERVER_NETWORK: no lite server")))
        })
    }

    /// `getShardBlockProof` from a lite server: the link from the
    /// committing masterchain block `mc` to `target`, and the link back
    /// from `from` to `mc` (`getBlockProof` backward) when they differ.
    fn shard_block_proof(
        &self,
        target: &tonindex_model::BlockIdExt,
        mc: &tonindex_model::BlockIdExt,
        from: &tonindex_model::BlockIdExt,
    ) -> Option<Result<crate::chain::link::ShardBlockProof, Refused>> {
        let (target, mc, from) = (*target, *mc, *from);
        Some(self.runtime.block_on(self.ask(
            "a shard block proof",
            Some(mc.id.seqno),
            |conn| async move {
                use ton_liteapi::tl::common::BlockLink;
                use ton_liteapi::tl::request::{GetShardBlockProof, Request};
                let link = if target.id.workchain == -1 {
                    None
                } else {
                    let answer = conn
                        .query(Request::GetShardBlockProof(GetShardBlockProof {
                            id: super::follow::lite_id(&target),
                        }))
                        .await;
                    let proof = expect(answer, |r| match r {
                        Response::ShardBlockProof(p) => Some(p),
                        _ => None,
                    })?;
                    if super::follow::model_id(&proof.masterchain_id) != mc {
                        anyhow::bail!("the lite server proves it from another masterchain block");
                    }
                    match proof.links.as_slice() {
                        [one] if super::follow::model_id(&one.id) == target => {
                            Some(one.proof.clone())
                        }
                        _ => {
                            anyhow::bail!("a proof of more than one link is not passed on yet")
                        }
                    }
                };
                let back = if from == mc {
                    None
                } else {
                    let proof = conn.block_proof(&from, &mc).await?;
                    match proof.steps.as_slice() {
                        [BlockLink::BlockLinkBack {
                            to_key_block: false,
                            dest_proof,
                            proof,
                            state_proof,
                            ..
                        }] => Some(crate::chain::link::LinkBack {
                            dest_proof: dest_proof.clone(),
                            proof: proof.clone(),
                            state_proof: state_proof.clone(),
                        }),
                        _ => anyhow::bail!("the link back is not one step through prev_blocks"),
                    }
                };
                Ok(crate::chain::link::ShardBlockProof { link, back })
            },
        )))
    }

    /// `lookupBlock` on a lite server, its header checked against the id
    /// and against what it was looked up by.
    fn lookup_block(
        &self,
        workchain: i32,
        shard: u64,
        by: crate::chain::link::Lookup,
    ) -> Option<Result<tonindex_model::BlockIdExt, Refused>> {
        use crate::chain::link::Lookup;
        // A masterchain block looked up by seqno is old or new by it; any
        // other lookup is taken as recent.
        let lookup_seqno = match by {
            Lookup::Seqno(s) if workchain == -1 => Some(s),
            _ => None,
        };
        Some(
            self.runtime
                .block_on(self.ask("a block lookup", lookup_seqno, |conn| async move {
                    use ton_liteapi::tl::request::{LookupBlock, Request};
                    let request = LookupBlock {
                        mode: (),
                        id: ton_liteapi::tl::common::BlockId {
                            workchain,
                            shard,
                            seqno: match by {
                                Lookup::Seqno(s) => s,
                                _ => 0,
                            },
                        },
                        seqno: matches!(by, Lookup::Seqno(_)).then_some(()),
                        lt: match by {
                            Lookup::Lt(lt) => Some(lt),
                            _ => None,
                        },
                        utime: match by {
                            Lookup::Utime(t) => Some(t),
                            _ => None,
                        },
                        with_state_update: None,
                        with_value_flow: None,
                        with_extra: None,
                        with_shard_hashes: None,
                        with_prev_blk_signatures: None,
                    };
                    let answer = conn.query(Request::LookupBlock(request)).await;
                    let header = match answer {
                        Ok(Response::BlockHeader(h)) => h,
                        Ok(_) => anyhow::bail!("an answer of another kind"),
                        // The server does not know such a block: that is the answer.
                        Err(ton_liteapi::types::LiteError::ServerError(e)) => {
                            return Ok(Err(Refused::new(
                                404,
                                format!("LITE_SERVER_UNKNOWN: {}", e.message),
                            )))
                        }
                        Err(e) => anyhow::bail!("{e:?}"),
                    };
                    let id = super::follow::model_id(&header.id);
                    let info = super::proofs::check_header(&header.header_proof, &id)?;
                    let fits = id.id.workchain == workchain
                        && match by {
                            Lookup::Seqno(s) => id.id.seqno == s && id.id.shard == shard,
                            Lookup::Lt(lt) => info.start_lt <= lt && lt <= info.end_lt,
                            Lookup::Utime(t) => info.gen_utime <= t,
                        };
                    if !fits {
                        anyhow::bail!("the block found is not the one looked for");
                    }
                    Ok(Ok(id))
                }))
                .and_then(|r| r),
        )
    }

    /// A masterchain block's signatures from a lite server's forward
    /// link to it from `key_block`, checked against the validators that
    /// key block puts in force before they are passed on.
    fn proven_block_signatures(
        &self,
        block: &tonindex_model::BlockIdExt,
        key_block: &tonindex_model::BlockIdExt,
    ) -> Option<Result<crate::chain::link::Signatures, Refused>> {
        let (block, key_block) = (*block, *key_block);
        Some(self.runtime.block_on(self.ask("block signatures", Some(block.id.seqno), |conn| async move {
            use ton_liteapi::tl::common::BlockLink;
            let proof = conn.block_proof(&key_block, &block).await?;
            let Some(BlockLink::BlockLinkForward { signatures, .. }) = proof.steps.iter().find(
                |s| matches!(s, BlockLink::BlockLinkForward { to, .. } if super::follow::model_id(to) == block),
            ) else {
                anyhow::bail!("no forward link to the block");
            };
            // The key block's validators, from the key block itself.
            let data = conn.block(&key_block).await?;
            let validators = super::trust::Validators::from_key_block(
                &tycho_types::boc::Boc::decode(&data)?,
            )?;
            // The header fields the signatures are checked with.
            let data = conn.block(&block).await?;
            let decoded = crate::decode::decode_block(&data)?;
            if decoded.record.id != block {
                anyhow::bail!("the block sent is not the one asked for");
            }
            let sigs: Vec<super::trust::BlockSignature> = signatures
                .signatures
                .iter()
                .map(|s| super::trust::BlockSignature {
                    node_id_short: s.node_id_short.0,
                    signature: s.signature.clone(),
                })
                .collect();
            validators.check(
                &block.root_hash,
                &block.file_hash,
                decoded.record.gen_catchain_seqno,
                decoded.record.validator_list_hash_short,
                signatures.validator_set_hash,
                &sigs,
            )?;
            sigs.into_iter()
                .map(|s| {
                    let sig: [u8; 64] = s
                        .signature
                        .as_slice()
                        .try_into()
                        .map_err(|_| anyhow::anyhow!("a signature is not 64 bytes"))?;
                    Ok((HashBytes(s.node_id_short), sig))
                })
                .collect()
        })))
    }

    /// The highest masterchain tip among the lite servers that answer.
    fn consensus_block(&self) -> Option<Result<u32, Refused>> {
        Some(
            self.tips
                .consensus()
                .ok_or_else(|| Refused::new(500, "no workers alive")),
        )
    }

    /// `liteServer.getOutMsgQueueSizes` of every shard from an alive lite
    /// server, passed on as it says.
    fn out_msg_queue_sizes(&self) -> Option<Result<crate::chain::link::QueueSizes, Refused>> {
        Some(self.runtime.block_on(
            self.ask("out message queue sizes", None, |conn| async move {
                use ton_liteapi::tl::request::{GetOutMsgQueueSizes, Request};
                let answer = conn
                    .query(Request::GetOutMsgQueueSizes(GetOutMsgQueueSizes {
                        mode: (),
                        shard_id: None,
                    }))
                    .await;
                let sizes = expect(answer, |r| match r {
                    Response::OutMsgQueueSizes(s) => Some(s),
                    _ => None,
                })?;
                Ok(crate::chain::link::QueueSizes {
                    shards: sizes
                        .shards
                        .iter()
                        .map(|s| (super::follow::model_id(&s.id), u64::from(s.size)))
                        .collect(),
                    ext_msg_queue_size_limit: sizes.ext_msg_queue_size_limit,
                })
            }),
        ))
    }

    /// The account's state at `mc` from the lite servers, proofs checked
    /// (on the kept read connection; a blocking pool thread waits for it).
    fn account_state(
        &self,
        account: &tonindex_model::Address,
        mc: &tonindex_model::BlockIdExt,
    ) -> Option<Result<ProvenAccount, Refused>> {
        Some(self.runtime.block_on(async {
            tokio::time::timeout(TIMEOUT, self.fetch_account(account, mc))
                .await
                .unwrap_or_else(|_| {
                    Err(Refused::new(
                        504,
                        "LITE_SERVER_NETWORK: the lite servers did not answer in time",
                    ))
                })
        }))
    }
}
