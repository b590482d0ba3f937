//! The API's road to the lite servers on a node that follows a chain
//! (`tonindex run`): sending (v2 `sendBoc`, v3 `POST /message`) to several
//! lite servers at once, as toncenter's v2 hands messages to liteservers
//! through tonlib, and reading the states of accounts whose state the
//! index does not hold — from one server, the next after a failure —
//! checked by their proofs (`proofs.rs`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};
use ton_liteapi::tl::request::Request;
use ton_liteapi::types::LiteError;
use tycho_types::cell::{Cell, HashBytes};

use super::client::{expect, Multiplexed};
use super::proofs::{check_account_state, ProvenAccount};
use super::tips::Tips;
use crate::chain::link::{ChainLink, Refused};
use ton_liteapi::tl::response::Response;

/// How many lite servers a message goes to at once.
const SEND_TO: usize = 3;
/// How long a send or a read may take before the API answers without it.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Queries the API has in flight on one lite server at most, by default
/// (toncenter's v2 setting of the same name is 50).
pub const CONCURRENCY: usize = 50;
/// How long a query waits for a free place on a server before the next
/// server is asked.
const PLACE_WAIT: Duration = Duration::from_secs(1);

/// A [`ChainLink`] over the lite servers of a global config.
pub struct LiteSender {
    conns: Arc<Conns>,
    runtime: tokio::runtime::Handle,
    /// What the follower in the same process commits, when there is one.
    feed: Option<crate::ingest::CommitFeed>,
    /// The traces of the shard blocks the servers list as signed and not
    /// yet committed (`nonfinal.rs`), when following.
    confirmed: Option<tokio::sync::broadcast::Sender<crate::chain::link::ConfirmedRound>>,
}

/// The API's connections to the lite servers: one multiplexed connection
/// per server, made when first needed and made again after a failure, and
/// a bound on the queries in flight on each.
pub(super) struct Conns {
    /// The servers and what each last showed: they are tried in the
    /// order it gives (alive first; archival first for old blocks).
    tips: Arc<Tips>,
    conns: Vec<Mutex<Option<Arc<Multiplexed>>>>,
    places: Vec<Arc<Semaphore>>,
    concurrency: usize,
}

/// Why one server did not answer: a network failure, a full server or a
/// failed check (another may do better), or the answer itself.
enum Failed {
    Elsewhere(String),
    Answer(Refused),
}

impl LiteSender {
    /// Uses the servers `tips` watches on `runtime` (the API's), with at
    /// most `concurrency` queries in flight on each.
    pub fn new(tips: Arc<Tips>, concurrency: usize, runtime: tokio::runtime::Handle) -> Self {
        let n = tips.servers().len();
        let concurrency = concurrency.max(1);
        Self {
            conns: Arc::new(Conns {
                tips,
                conns: (0..n).map(|_| Mutex::new(None)).collect(),
                places: (0..n)
                    .map(|_| Arc::new(Semaphore::new(concurrency)))
                    .collect(),
                concurrency,
            }),
            runtime,
            feed: None,
            confirmed: None,
        }
    }

    /// Announces `feed` (what the follower's index commits) to the API:
    /// sent messages are then emulated and shown as pending until their
    /// traces are indexed, and the shard blocks the servers show signed
    /// before their commit are watched for (the `confirmed` level, where
    /// a server offers it).
    pub fn with_feed(self, feed: crate::ingest::CommitFeed) -> Self {
        let confirmed = tokio::sync::broadcast::channel(64).0;
        self.runtime.spawn(super::nonfinal::watch(
            Arc::clone(&self.conns),
            feed.clone(),
            confirmed.clone(),
        ));
        Self {
            feed: Some(feed),
            confirmed: Some(confirmed),
            ..self
        }
    }
}

impl Conns {
    /// The servers and what each last showed.
    pub(super) fn tips(&self) -> &Tips {
        &self.tips
    }

    /// Asks server `i` `f` on its connection, holding a place on it; any
    /// failure drops the connection (the next query makes it again).
    pub(super) async fn with<T, F, Fut>(&self, i: usize, f: F) -> anyhow::Result<T>
    where
        F: FnOnce(Arc<Multiplexed>) -> Fut,
        Fut: std::future::Future<Output = anyhow::Result<T>>,
    {
        self.on(i, |conn| async move {
            f(conn)
                .await
                .map_err(|e| Failed::Elsewhere(format!("{e:#}")))
        })
        .await
        .map_err(|failed| match failed {
            Failed::Elsewhere(e) => anyhow::anyhow!(e),
            Failed::Answer(refused) => anyhow::anyhow!(refused.message),
        })
    }

    /// A place on server `i` and its connection (made if need be).
    async fn take(&self, i: usize) -> Result<(OwnedSemaphorePermit, Arc<Multiplexed>), String> {
        let server = &self.tips.servers()[i];
        let place = tokio::time::timeout(PLACE_WAIT, Arc::clone(&self.places[i]).acquire_owned())
            .await
            .map_err(|_| {
                format!(
                    "{} is busy ({} queries in flight)",
                    server.addr, self.concurrency
                )
            })?
            .map_err(|_| "closed".to_string())?;
        let mut slot = self.conns[i].lock().await;
        if let Some(conn) = slot.as_ref() {
            return Ok((place, Arc::clone(conn)));
        }
        let conn = tokio::time::timeout(TIMEOUT, Multiplexed::connect(server))
            .await
            .map_err(|_| format!("connecting to {} timed out", server.addr))?
            .map_err(|e| format!("cannot reach {}: {e:?}", server.addr))?;
        let conn = Arc::new(conn);
        *slot = Some(Arc::clone(&conn));
        Ok((place, conn))
    }

    /// Drops server `i`'s connection after a failure on it (unless it was
    /// made again meanwhile).
    pub(super) async fn forget(&self, i: usize, conn: &Arc<Multiplexed>) {
        let mut slot = self.conns[i].lock().await;
        if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
            *slot = None;
        }
    }

    /// Asks server `i` `f` on its connection, holding a place on it.
    async fn on<T, F, Fut>(&self, i: usize, f: F) -> Result<T, Failed>
    where
        F: FnOnce(Arc<Multiplexed>) -> Fut,
        Fut: std::future::Future<Output = Result<T, Failed>>,
    {
        let (_place, conn) = self.take(i).await.map_err(Failed::Elsewhere)?;
        let server = self.tips.servers()[i].addr;
        match tokio::time::timeout(TIMEOUT, f(Arc::clone(&conn))).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(Failed::Elsewhere(e))) => {
                self.forget(i, &conn).await;
                Err(Failed::Elsewhere(e))
            }
            Ok(Err(answer)) => Err(answer),
            Err(_) => {
                self.forget(i, &conn).await;
                Err(Failed::Elsewhere(format!(
                    "{server} did not answer in time"
                )))
            }
        }
    }

    /// Sends `boc` through server `i`.
    async fn send_one(self: Arc<Self>, i: usize, boc: Vec<u8>) -> Result<(), Refused> {
        let sent = self
            .on(i, |conn| async move {
                use ton_liteapi::tl::request::SendMessage;
                match conn
                    .query(Request::SendMessage(SendMessage { body: boc }))
                    .await
                {
                    Ok(Response::SendMsgStatus(_)) => Ok(()),
                    Ok(_) => Err(Failed::Elsewhere("an answer of another kind".into())),
                    Err(LiteError::ServerError(e)) => Err(Failed::Answer(Refused::new(
                        500,
                        format!("LITE_SERVER_UNKNOWN: {}", e.message),
                    ))),
                    Err(e) => Err(Failed::Elsewhere(format!("{e:?}"))),
                }
            })
            .await;
        sent.map_err(|f| match f {
            Failed::Answer(refused) => refused,
            Failed::Elsewhere(e) => Refused::new(503, format!("LITE_SERVER_NETWORK: {e}")),
        })
    }
}

impl LiteSender {
    /// The account's state at `mc`, proofs checked, from the best placed
    /// server; on a failure the next one is asked (once round).
    async fn fetch_account(
        &self,
        account: &tonindex_model::Address,
        mc: &tonindex_model::BlockIdExt,
    ) -> Result<ProvenAccount, Refused> {
        let mut last_error = None;
        for i in self.conns.tips.order(Some(mc.id.seqno)) {
            let (account, mc) = (*account, *mc);
            let read = self
                .conns
                .on(
                    i,
                    |conn| async move { read_account(&conn, &account, &mc).await },
                )
                .await;
            match read {
                Ok(proven) => return Ok(proven),
                // The account's own refusal is the same on every server.
                Err(Failed::Answer(refused)) => return Err(refused),
                Err(Failed::Elsewhere(e)) => {
                    tracing::warn!(
                        "lite server {} failed an account read: {e}; asking the next one",
                        self.conns.tips.servers()[i].addr,
                    );
                    last_error = Some(e);
                }
            }
        }
        Err(Refused::new(
            503,
            format!(
                "LITE_SERVER_NETWORK: {}",
                last_error.unwrap_or_else(|| "no lite server".into())
            ),
        ))
    }

    /// Asks the servers in turn, best placed for masterchain block
    /// `seqno` first (`None`: the newest), until one answers `f` (a
    /// network failure, a full server or a failed check moves on; a
    /// server's refusal is the answer).
    async fn ask<T, F, Fut>(&self, what: &str, seqno: Option<u32>, f: F) -> Result<T, Refused>
    where
        F: Fn(Arc<Multiplexed>) -> Fut,
        Fut: std::future::Future<Output = anyhow::Result<T>>,
    {
        let mut last = None;
        for i in self.conns.tips.order(seqno) {
            let asked = self
                .conns
                .on(i, |conn| async {
                    f(conn)
                        .await
                        .map_err(|e| Failed::Elsewhere(format!("{e:#}")))
                })
                .await;
            match asked {
                Ok(v) => return Ok(v),
                Err(Failed::Answer(refused)) => return Err(refused),
                Err(Failed::Elsewhere(e)) => {
                    tracing::warn!(
                        "lite server {} failed {what}: {e}",
                        self.conns.tips.servers()[i].addr
                    );
                    last = Some(e);
                }
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

/// One account read on `conn`: a network failure or a proof that does not
/// check out is for another server to do better; the server's own refusal
/// (not there yet on this server, say) too.
async fn read_account(
    conn: &Multiplexed,
    account: &tonindex_model::Address,
    mc: &tonindex_model::BlockIdExt,
) -> Result<ProvenAccount, Failed> {
    use ton_liteapi::tl::request::GetAccountState;
    let request = Request::GetAccountState(GetAccountState {
        id: super::follow::lite_id(mc),
        account: ton_liteapi::tl::common::AccountId {
            workchain: account.workchain,
            id: ton_liteapi::tl::common::Int256(account.id),
        },
    });
    let answer = match conn.query(request).await {
        Ok(Response::AccountState(a)) => a,
        Ok(_) => return Err(Failed::Elsewhere("an answer of another kind".into())),
        Err(LiteError::ServerError(e)) => {
            return Err(Failed::Elsewhere(format!(
                "LITE_SERVER_UNKNOWN: {}",
                e.message
            )))
        }
        Err(e) => return Err(Failed::Elsewhere(format!("{e:?}"))),
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
        Failed::Elsewhere(format!(
            "the lite server's account state does not check out: {e:#}"
        ))
    })
}

impl ChainLink for LiteSender {
    fn emulates_on_known_state(&self) -> bool {
        self.feed.is_some()
    }
    fn confirmed_feed(
        &self,
    ) -> Option<tokio::sync::broadcast::Receiver<crate::chain::link::ConfirmedRound>> {
        self.confirmed.as_ref().map(|c| c.subscribe())
    }
    fn commit_feed(&self) -> Option<crate::ingest::CommitFeed> {
        self.feed.clone()
    }
    /// Forwards the message with `liteServer.sendMessage` to the first
    /// `SEND_TO` (3) servers (alive ones first) at once; accepted when one
    /// accepts it, else the first server's refusal as it worded it.
    fn send(&self, msg: Cell) -> Result<(), Refused> {
        let boc = tycho_types::boc::Boc::encode(msg.as_ref());
        let servers: Vec<usize> = self
            .conns
            .tips
            .order(None)
            .into_iter()
            .take(SEND_TO)
            .collect();
        let conns = Arc::clone(&self.conns);
        self.runtime.block_on(async move {
            let sends = servers
                .into_iter()
                .map(|i| tokio::spawn(Arc::clone(&conns).send_one(i, boc.clone())));
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
                    Err(e) => tracing::error!(error = %e, "a send to a lite server panicked"),
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
            self.conns
                .tips
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

    /// `liteServer.getLibraries` from the best placed server, 16 hashes a
    /// query; a cell whose hash is not the one asked for fails the server
    /// (the next one is asked).
    fn libraries(&self, hashes: &[HashBytes]) -> Option<Result<Vec<Cell>, Refused>> {
        let mut found = Vec::new();
        for chunk in hashes.chunks(16) {
            let chunk = chunk.to_vec();
            let got = self.runtime.block_on(async {
                tokio::time::timeout(
                    TIMEOUT,
                    self.ask("libraries", None, |conn| {
                        let chunk = chunk.clone();
                        async move {
                            use ton_liteapi::tl::common::Int256;
                            use ton_liteapi::tl::request::GetLibraries;
                            let answer = conn
                                .query(Request::GetLibraries(GetLibraries {
                                    library_list: chunk.iter().map(|h| Int256(h.0)).collect(),
                                }))
                                .await;
                            let entries = expect(answer, |r| match r {
                                Response::LibraryResult(l) => Some(l.result),
                                _ => None,
                            })?;
                            super::client::checked_libraries(entries, &chunk)
                        }
                    }),
                )
                .await
                .unwrap_or_else(|_| {
                    Err(Refused::new(
                        504,
                        "LITE_SERVER_NETWORK: the lite servers did not answer in time",
                    ))
                })
            });
            match got {
                Ok(cells) => found.extend(cells),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(found))
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
