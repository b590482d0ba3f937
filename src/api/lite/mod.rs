//! The lite API: TON's liteserver protocol over ADNL-TCP, served from the
//! same index as v2 and v3, so that TON tools that speak it (pytoniq,
//! ton-lite-client, a second tonindex) work against `tonindex dev`.
//!
//! The ADNL-TCP layer (handshake, AES-CTR framing) and the lite API's TL
//! types come from the `adnl` and `ton_liteapi` crates; this module answers
//! the queries: reads go through the query layer with the request's
//! deadline ([`Api::read`]), blocks come from the BoC files the devnet
//! keeps, proofs are Merkle proofs of those blocks and of the states in the
//! cell store, and messages go to the chain the process runs.
//!
//! Answered: `getMasterchainInfo(Ext)`, `getTime`, `getVersion`, `getBlock`,
//! `getBlockHeader`, `lookupBlock` (by seqno, lt or time), `getAllShardsInfo`, `getState`
//! of a zero state, `getAccountState` (with its proofs), `getBlockProof`
//! forward through the key blocks between two masterchain blocks
//! and `getShardBlockProof` (`block_proof.rs`),
//! `runSmcMethod` (on the in-process TVM, `smc.rs`), `getTransactions`,
//! `getOneTransaction` and `listBlockTransactions` (`transactions.rs`), `getConfigAll` and
//! `getConfigParams` (`config_params.rs`), `getLibraries` (`libraries.rs`),
//! `getOutMsgQueueSizes`, `sendMessage`, each with
//! `waitMasterchainSeqno`, and `liteServer.nonfinal.getPendingShardBlocks`
//! (the shard blocks `dev --confirm-gap` made and has not committed yet;
//! `getBlock` serves them), a query `ton_liteapi` does not type: queries
//! travel as bytes (`chain::liteserver::frames`). Any other query gets a
//! `liteServer.error` saying tonindex does not answer it.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ton_liteapi::tl::common::{AccountId, BlockIdExt, Int256, ZeroStateIdExt};
use ton_liteapi::tl::request::{LiteQuery, Request, WrappedRequest};
use ton_liteapi::tl::response::{
    AccountState, AllShardsInfo, BlockData, BlockHeader, BlockState, CurrentTime,
    Error as LiteErrorAnswer, MasterchainInfo, MasterchainInfoExt, OutMsgQueueSize,
    OutMsgQueueSizes, Response, SendMsgStatus, Version,
};
use tonindex_model::{BlockId, BlockRecord};
use tycho_types::boc::Boc;
use tycho_types::cell::HashBytes;

mod block_proof;
mod config_params;
mod libraries;
mod smc;
mod transactions;

use super::{Api, Ctx, ReadFailure};
use crate::chain::devnet::proof;
use crate::chain::liteserver::frames::{split_wait, Frame, FramePeer, LiteEnvelope};
use crate::chain::liteserver::nonfinal;
use crate::query;

/// A query's error answer, boxed (it is large) while it travels up.
type Refusal = Box<Response>;

/// TON's error codes in `liteServer.error` (common/errorcode.h).
mod code {
    /// A generic failure.
    pub const ERROR: i32 = 602;
    /// A malformed or unsupported query.
    pub const PROTOVIOLATION: i32 = 621;
    /// The data is not (yet) there: an unknown block, a seqno not reached.
    pub const NOTREADY: i32 = 651;
    /// The time budget ran out.
    pub const TIMEOUT: i32 = 652;
}

/// Lite clients served at once.
pub const MAX_CONNECTIONS: usize = 512;
/// How long a new connection has to complete the ADNL handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// The lite server's version and capabilities as `getVersion` reports them
/// (a node of 2024 and later: 0x101, capabilities 7).
const VERSION: u32 = 0x101;
const CAPABILITIES: u64 = 7;

/// What the lite server needs beside the API: its key, the masterchain
/// zero state clients check `init` against, and where the chain keeps its
/// block files.
pub struct LiteServer {
    api: Arc<Api>,
    /// The ed25519 secret of the server's ADNL key.
    secret: [u8; 32],
    zerostate: ZeroStateIdExt,
    /// The directory of the chain's block BoCs (`devnet-blocks/`).
    blocks_dir: PathBuf,
}

/// Where and with which key to serve the lite API, and what it serves.
pub struct LiteOptions {
    pub listen: SocketAddr,
    /// The ed25519 secret of the server's ADNL key.
    pub secret: [u8; 32],
    /// The masterchain zero state's root and file hashes.
    pub zerostate: (HashBytes, HashBytes),
    /// The directory of the chain's block BoCs.
    pub blocks_dir: PathBuf,
    /// The masterchain key block the written config names as its
    /// `init_block` (where clients start trusting); the zero state if none.
    pub init_block: Option<InitBlock>,
    /// Where to write the global config that lists this server, if anywhere.
    pub config_file: Option<PathBuf>,
}

/// An account's `shard_proof` and `proof` BoCs, and its `ShardAccount`
/// if the state has one.
type AccountProofs = (Vec<u8>, Vec<u8>, Option<tycho_types::models::ShardAccount>);

/// The blocks an account is read and proven at (see
/// [`LiteServer::account_blocks`]).
struct AccountBlocks {
    shardblk: BlockIdExt,
    mc_bytes: Vec<u8>,
    shard_bytes: Vec<u8>,
    /// The account is a masterchain one: `shardblk` is the masterchain block.
    masterchain: bool,
}

impl AccountBlocks {
    /// The account's proofs as `getAccountState` and `runSmcMethod` give
    /// them — `shard_proof` (empty for a masterchain account) and `proof` —
    /// and its `ShardAccount` in the shard block's state, if any.
    fn prove(
        &self,
        rows: &dyn crate::state::cells::CellRows,
        account: &HashBytes,
    ) -> Result<AccountProofs, Refusal> {
        let fail =
            |e: anyhow::Error| refuse(code::ERROR, format!("cannot prove the account: {e:#}"));
        let shard_proof = if self.masterchain {
            Vec::new()
        } else {
            proof::shards_of(rows, &self.mc_bytes).map_err(fail)?.0
        };
        let (proof, account) = proof::account_of(rows, &self.shard_bytes, account).map_err(fail)?;
        Ok((shard_proof, proof, account))
    }
}

/// Starts the lite server beside the HTTP API (the address is checked
/// first, so that a taken port fails the start) and writes the global
/// config clients read.
pub async fn spawn(api: Arc<Api>, options: LiteOptions) -> anyhow::Result<()> {
    drop(
        tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", options.listen))?,
    );
    if let Some(path) = &options.config_file {
        let config = global_config(
            options.listen,
            &public_key(&options.secret),
            options.zerostate,
            options.init_block,
        );
        std::fs::write(path, serde_json::to_vec_pretty(&config)?)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    let server = LiteServer::new(api, options.secret, options.zerostate, options.blocks_dir);
    let listen = options.listen;
    tracing::info!(
        "serving the lite API on {listen} (key {})",
        base64_key(&public_key(&options.secret))
    );
    tokio::spawn(async move {
        if let Err(e) = server.serve(listen).await {
            tracing::error!("{e}");
        }
    });
    Ok(())
}

fn base64_key(key: &[u8; 32]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(key)
}

/// A masterchain key block a global config names as its `init_block`.
#[derive(Debug, Clone, Copy)]
pub struct InitBlock {
    pub seqno: u32,
    pub root_hash: HashBytes,
    pub file_hash: HashBytes,
}

/// A TON global config listing one lite server (`ip` as a signed 32-bit
/// integer, `id` its ed25519 key), the chain's zero state as `zero_state`
/// and `init` (or the zero state) as `init_block`: what `tonindex run
/// --global-config`, pytoniq's `LiteClient.from_config` and
/// ton-lite-client read.
pub fn global_config(
    listen: SocketAddr,
    key: &[u8; 32],
    zerostate: (HashBytes, HashBytes),
    init: Option<InitBlock>,
) -> serde_json::Value {
    use base64::Engine as _;
    let b64 = |h: &HashBytes| base64::engine::general_purpose::STANDARD.encode(h.0);
    let ip = match listen.ip() {
        std::net::IpAddr::V4(v4) => u32::from(v4) as i32,
        // A v6 listener is reached over loopback v4 by the config's readers.
        std::net::IpAddr::V6(_) => u32::from(std::net::Ipv4Addr::LOCALHOST) as i32,
    };
    let block = |seqno: u32, root: &HashBytes, file: &HashBytes| {
        serde_json::json!({
            "workchain": -1,
            "shard": i64::MIN,
            "seqno": seqno,
            "root_hash": b64(root),
            "file_hash": b64(file),
        })
    };
    let zero = block(0, &zerostate.0, &zerostate.1);
    let init = match init {
        Some(i) => block(i.seqno, &i.root_hash, &i.file_hash),
        None => zero.clone(),
    };
    serde_json::json!({
        "@type": "config.global",
        "dht": {
            "@type": "dht.config.global",
            "k": 6,
            "a": 3,
            "static_nodes": { "@type": "dht.nodes", "nodes": [] },
        },
        "liteservers": [{
            "ip": ip,
            "port": listen.port(),
            "id": { "@type": "pub.ed25519", "key": base64_key(key) },
        }],
        "validator": {
            "@type": "validator.config.global",
            "zero_state": zero,
            "init_block": init,
            "hardforks": [],
        },
    })
}

/// The public key of the ed25519 secret `secret`: the lite server's id as a
/// global config lists it.
pub fn public_key(secret: &[u8; 32]) -> [u8; 32] {
    adnl::crypto::PublicKey::from(&adnl::crypto::SecretKey::from_bytes(*secret)).to_bytes()
}

impl LiteServer {
    pub fn new(
        api: Arc<Api>,
        secret: [u8; 32],
        zerostate: (HashBytes, HashBytes),
        blocks_dir: PathBuf,
    ) -> Arc<Self> {
        Arc::new(Self {
            api,
            secret,
            zerostate: ZeroStateIdExt {
                workchain: -1,
                root_hash: Int256(zerostate.0 .0),
                file_hash: Int256(zerostate.1 .0),
            },
            blocks_dir,
        })
    }

    /// Accepts lite clients on `addr` until the process ends: at most
    /// [`MAX_CONNECTIONS`] at once (more wait in the kernel's backlog), each
    /// given [`HANDSHAKE_TIMEOUT`] to complete the ADNL handshake — a client
    /// that connects and says nothing, or says garbage, is dropped without
    /// holding a slot. (`ton_liteapi::server::serve` has neither bound.)
    pub async fn serve(self: Arc<Self>, addr: SocketAddr) -> anyhow::Result<()> {
        let key = adnl::crypto::KeyPair::from(&adnl::crypto::SecretKey::from_bytes(self.secret));
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| anyhow::anyhow!("lite server on {addr}: {e}"))?;
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        loop {
            let slot = Arc::clone(&slots)
                .acquire_owned()
                .await
                .map_err(|e| anyhow::anyhow!("lite server on {addr}: {e}"))?;
            let (socket, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors, say: wait rather than spin.
                    tracing::warn!("lite server on {addr}: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            };
            let server = Arc::clone(&self);
            tokio::spawn(async move {
                let _slot = slot;
                let handshake = adnl::AdnlPeer::handle_handshake(socket, move |_| Some(key));
                let adnl = match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
                    Ok(Ok(adnl)) => adnl,
                    Ok(Err(e)) => {
                        tracing::debug!("lite client {peer}: handshake failed: {e:?}");
                        return;
                    }
                    Err(_) => {
                        tracing::debug!("lite client {peer}: no handshake in time");
                        return;
                    }
                };
                let service = tower04::service_fn(move |frame: Frame| {
                    let server = Arc::clone(&server);
                    async move { Ok::<_, Infallible>(server.answer_frame(frame).await) }
                });
                let peer_io = FramePeer::new(adnl);
                if let Err(e) = tokio_tower::multiplex::Server::new(peer_io, service).await {
                    tracing::debug!("lite client {peer}: {e:?}");
                }
            });
        }
    }

    /// One ADNL message: a query gets its answer, a ping its pong.
    async fn answer_frame(&self, frame: Frame) -> Frame {
        match frame {
            Frame::Query { query_id, query } => Frame::Answer {
                query_id,
                answer: self.answer_bytes(&query).await,
            },
            Frame::Ping { random_id } => Frame::Pong { random_id },
            // A client never sends answers or pongs to a server.
            Frame::Answer { query_id, .. } => Frame::Answer {
                query_id,
                answer: tl_proto::serialize(error(
                    code::PROTOVIOLATION,
                    "a lite server takes queries, not answers",
                )),
            },
            Frame::Pong { random_id } => Frame::Pong { random_id },
        }
    }

    /// A query's bytes → its answer's: the lite API as `ton_liteapi`
    /// types it, else the calls it does not know that we answer
    /// (`liteServer.nonfinal.getPendingShardBlocks`), else an error naming
    /// the constructor.
    async fn answer_bytes(&self, query: &[u8]) -> Vec<u8> {
        if let Ok(q) = tl_proto::deserialize::<LiteQuery>(query) {
            return tl_proto::serialize(self.answer(q.wrapped_request).await);
        }
        let Ok(envelope) = tl_proto::deserialize::<LiteEnvelope>(query) else {
            return tl_proto::serialize(error(code::PROTOVIOLATION, "not a liteServer.query"));
        };
        let (wait, call) = split_wait(&envelope.data);
        if let Some(w) = wait {
            let budget = Duration::from_millis(u64::from(w.timeout_ms).min(30_000));
            if let Err(e) = self.wait_for(w.seqno, budget).await {
                return tl_proto::serialize(*e);
            }
        }
        if nonfinal::is_get_pending_shard_blocks(call) {
            return match tl_proto::deserialize::<nonfinal::GetPendingShardBlocks>(call) {
                Ok(q) => self.pending_shard_blocks(q.shard),
                Err(e) => tl_proto::serialize(error(
                    code::PROTOVIOLATION,
                    format!("a nonfinal.getPendingShardBlocks that does not parse: {e:?}"),
                )),
            };
        }
        tl_proto::serialize(error(
            code::PROTOVIOLATION,
            format!(
                "tonindex's lite server does not answer the query with constructor {:#010x}",
                nonfinal::constructor(call).unwrap_or(0)
            ),
        ))
    }

    /// `liteServer.nonfinal.getPendingShardBlocks`: the newest shard block
    /// of each shard (of the one asked, or overlapping it) that the chain
    /// made and no masterchain block commits yet; every block the devnet
    /// makes is signed at once, so none is a mere candidate.
    fn pending_shard_blocks(&self, asked: Option<(i32, u64)>) -> Vec<u8> {
        let Some(blocks) = self
            .api
            .chain
            .as_ref()
            .and_then(|c| c.pending_shard_blocks())
        else {
            // The C++ node's words when nonfinal queries are off.
            return tl_proto::serialize(error(code::ERROR, "query is not allowed"));
        };
        let signed_blocks = blocks
            .iter()
            .filter(|b| {
                asked.is_none_or(|(wc, shard)| {
                    wc == b.id.workchain
                        && (shard_contains(shard, b.id.shard) || shard_contains(b.id.shard, shard))
                })
            })
            .map(lite_block_id)
            .collect();
        tl_proto::serialize(nonfinal::PendingShardBlocks {
            signed_blocks,
            candidates: Vec::new(),
        })
    }

    /// A lite API query, after its `waitMasterchainSeqno` prefix if any.
    pub async fn answer(&self, req: WrappedRequest) -> Response {
        if let Some(wait) = req.wait_masterchain_seqno {
            let budget = Duration::from_millis(u64::from(wait.timeout_ms).min(30_000));
            if let Err(e) = self.wait_for(wait.seqno, budget).await {
                return *e;
            }
        }
        let now = crate::api::unix_now().min(u64::from(u32::MAX)) as u32;
        match req.request {
            Request::GetTime => Response::CurrentTime(CurrentTime { now }),
            Request::GetVersion => Response::Version(Version {
                mode: 0,
                version: VERSION,
                capabilities: CAPABILITIES,
                now,
            }),
            Request::GetMasterchainInfo => match self.last().await {
                Ok(last) => Response::MasterchainInfo(MasterchainInfo {
                    last: block_id(&last),
                    state_root_hash: Int256(last.state_root_hash),
                    init: self.zerostate.clone(),
                }),
                Err(e) => *e,
            },
            Request::GetMasterchainInfoExt(_) => match self.last().await {
                Ok(last) => Response::MasterchainInfoExt(MasterchainInfoExt {
                    mode: (),
                    version: VERSION,
                    capabilities: CAPABILITIES,
                    last: block_id(&last),
                    last_utime: last.gen_utime,
                    now,
                    state_root_hash: Int256(last.state_root_hash),
                    init: self.zerostate.clone(),
                }),
                Err(e) => *e,
            },
            Request::GetBlock(r) => self.block_data(r.id).await,
            Request::GetBlockHeader(r) => self.block_header(r.id).await,
            Request::LookupBlock(r) if r.seqno.is_some() => {
                match self
                    .block_by_seqno(r.id.workchain, r.id.shard, r.id.seqno)
                    .await
                {
                    Ok(id) => self.block_header(id).await,
                    Err(e) => *e,
                }
            }
            Request::LookupBlock(r) => {
                let at = match (r.lt, r.utime) {
                    (Some(lt), None) => query::blocks::BlockAt::Lt(lt),
                    (None, Some(t)) => query::blocks::BlockAt::Utime(t),
                    _ => {
                        return error(
                            code::PROTOVIOLATION,
                            "lookupBlock takes exactly one of seqno, lt and utime",
                        )
                    }
                };
                match self.block_at(r.id.workchain, r.id.shard, at).await {
                    Ok(id) => self.block_header(id).await,
                    Err(e) => *e,
                }
            }
            Request::GetAllShardsInfo(r) => self.all_shards_info(r.id).await,
            Request::GetState(r) => self.zero_state(r.id).await,
            Request::GetAccountState(r) => self.account_state(r.id, r.account).await,
            Request::GetBlockProof(r) => self.block_proof(r.known_block, r.target_block).await,
            Request::GetShardBlockProof(r) => self.shard_block_proof(r.id).await,
            Request::SendMessage(r) => self.send_message(r.body).await,
            Request::RunSmcMethod(r) => self.run_smc_method(r).await,
            Request::GetTransactions(r) => self.transactions(r).await,
            Request::GetLibraries(r) => self.libraries(r.library_list).await,
            Request::ListBlockTransactions(r) => self.block_transactions(r).await,
            Request::GetOneTransaction(r) => self.one_transaction(r).await,
            Request::GetOutMsgQueueSizes(r) => self.out_msg_queue_sizes(r.shard_id).await,
            Request::GetConfigAll(r) => {
                self.config(r.id, None, r.extract_from_key_block.is_some())
                    .await
            }
            Request::GetConfigParams(r) => {
                self.config(r.id, Some(r.param_list), r.extract_from_key_block.is_some())
                    .await
            }
            other => error(
                code::PROTOVIOLATION,
                format!(
                    "tonindex's lite server does not answer {} yet",
                    request_name(&other)
                ),
            ),
        }
    }

    /// Waits (polling the index) until masterchain block `seqno` is indexed.
    async fn wait_for(&self, seqno: u32, budget: Duration) -> Result<(), Refusal> {
        let until = Instant::now() + budget;
        loop {
            if self.last().await?.id.id.seqno >= seqno {
                return Ok(());
            }
            if Instant::now() >= until {
                return Err(refuse(
                    code::TIMEOUT,
                    format!("masterchain block {seqno} is not there yet"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Runs `f` on the API's read path (deadline, admission).
    async fn read<T: Send + 'static>(
        &self,
        f: impl Fn(&Ctx<'_>) -> Result<T, Refusal> + Send + 'static,
    ) -> Result<T, Refusal> {
        match self.api.read(f).await {
            Ok(r) => r,
            Err(ReadFailure::TimedOut) => Err(refuse(code::TIMEOUT, "the time budget ran out")),
            Err(ReadFailure::Busy) => Err(refuse(code::NOTREADY, "the server is busy")),
            Err(ReadFailure::Crashed) => Err(refuse(code::ERROR, "internal error")),
        }
    }

    /// The newest indexed masterchain block.
    async fn last(&self) -> Result<BlockRecord, Refusal> {
        self.read(|ctx| {
            query::blocks::mc_block_range(&ctx.reader)
                .map_err(storage_error)?
                .map(|(_, last)| last)
                .ok_or_else(|| refuse(code::NOTREADY, "no masterchain block is indexed yet"))
        })
        .await
    }

    /// The indexed block `id` names (its hashes included).
    async fn known_block(&self, id: &BlockIdExt) -> Result<BlockRecord, Refusal> {
        let key = BlockId {
            workchain: id.workchain,
            shard: id.shard,
            seqno: id.seqno,
        };
        let (root, file) = (id.root_hash.0, id.file_hash.0);
        self.read(move |ctx| {
            let block = query::blocks::block(&ctx.reader, &key).map_err(storage_error)?;
            match block {
                Some(b) if b.id.root_hash == root && b.id.file_hash == file => Ok(b),
                Some(_) => Err(refuse(
                    code::NOTREADY,
                    "a block with this id is indexed, with other hashes",
                )),
                None => Err(refuse(code::NOTREADY, "block is not in the index")),
            }
        })
        .await
    }

    /// The full id of the indexed block `(workchain, shard, seqno)`.
    async fn block_by_seqno(
        &self,
        workchain: i32,
        shard: u64,
        seqno: u32,
    ) -> Result<BlockIdExt, Refusal> {
        let key = BlockId {
            workchain,
            shard,
            seqno,
        };
        self.read(move |ctx| {
            query::blocks::block(&ctx.reader, &key)
                .map_err(storage_error)?
                .map(|b| block_id(&b))
                .ok_or_else(|| refuse(code::NOTREADY, "block is not in the index"))
        })
        .await
    }

    /// The full id of the block of a shard that holds lt `at` or was the
    /// newest at a time.
    async fn block_at(
        &self,
        workchain: i32,
        shard: u64,
        at: query::blocks::BlockAt,
    ) -> Result<BlockIdExt, Refusal> {
        self.read(move |ctx| {
            query::blocks::lookup(&ctx.reader, workchain, shard, at)
                .map_err(storage_error)?
                .map(|b| block_id(&b))
                .ok_or_else(|| refuse(code::NOTREADY, "no indexed block of the shard is there"))
        })
        .await
    }

    /// The block's BoC as the chain stored it (its file hash is the id's).
    async fn block_file(&self, id: &BlockIdExt) -> Result<Vec<u8>, Refusal> {
        if let Err(e) = self.known_block(id).await {
            // A shard block made and not yet committed is served too, as
            // a node with nonfinal queries serves blocks not yet applied.
            let pending = self
                .api
                .chain
                .as_ref()
                .and_then(|c| c.pending_shard_blocks())
                .is_some_and(|p| p.iter().any(|b| lite_block_id(b) == *id));
            if !pending {
                return Err(e);
            }
        }
        let path = self
            .blocks_dir
            .join(crate::chain::devnet::node::block_file_name(
                id.workchain,
                id.shard,
                id.seqno,
            ));
        let (path, id) = (path, id.clone());
        let read = tokio::task::spawn_blocking(move || std::fs::read(path)).await;
        match read {
            Ok(Ok(bytes)) if crate::decode::file_hash(&bytes) == id.file_hash.0 => Ok(bytes),
            Ok(Ok(_)) => Err(refuse(
                code::ERROR,
                "the kept block file does not match the block's file hash",
            )),
            _ => Err(refuse(
                code::NOTREADY,
                "this node keeps no file of the block",
            )),
        }
    }

    async fn block_data(&self, id: BlockIdExt) -> Response {
        match self.block_file(&id).await {
            Ok(data) => Response::BlockData(BlockData { id, data }),
            Err(e) => *e,
        }
    }

    /// `getBlockHeader`: a Merkle proof of the block keeping its header
    /// (and its state update; the other parts a mode asks for are not
    /// kept, and the mode answered says so).
    async fn block_header(&self, id: BlockIdExt) -> Response {
        let bytes = match self.block_file(&id).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let proof = Boc::decode(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|root| proof::header_and_state(&root).map_err(|e| e.to_string()));
        match proof {
            Ok((header_proof, _)) => Response::BlockHeader(BlockHeader {
                id,
                mode: (),
                with_state_update: Some(()),
                with_value_flow: None,
                with_extra: None,
                with_shard_hashes: None,
                with_prev_blk_signatures: None,
                header_proof,
            }),
            Err(e) => error(code::ERROR, format!("cannot prove the block header: {e}")),
        }
    }

    /// `getAllShardsInfo`: the masterchain state's shard hashes, with a
    /// two-root proof — the block's header down to its state update, and
    /// the state down to the shard hashes.
    async fn all_shards_info(&self, id: BlockIdExt) -> Response {
        if id.workchain != -1 {
            return error(
                code::PROTOVIOLATION,
                "shards are listed by masterchain blocks",
            );
        }
        let bytes = match self.block_file(&id).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let answer = self
            .read(move |ctx| {
                proof::shards_of(&ctx.reader, &bytes)
                    .map_err(|e| refuse(code::ERROR, format!("cannot prove the shards: {e:#}")))
            })
            .await;
        match answer {
            Ok((proof, data)) => Response::AllShardsInfo(AllShardsInfo { id, proof, data }),
            Err(e) => *e,
        }
    }

    /// `getState`: a zero state, as a liteserver gives only those (a later
    /// state is too big to send whole). Read from the cell store and
    /// written as the chain wrote it: its file hash must be the id's.
    async fn zero_state(&self, id: BlockIdExt) -> Response {
        if id.seqno != 0 {
            return error(
                code::PROTOVIOLATION,
                "getState gives zero states only (seqno 0), as a liteserver does",
            );
        }
        let root = HashBytes(id.root_hash.0);
        let file = id.file_hash.0;
        let data = self
            .read(move |ctx| {
                let state = crate::state::cells::Loader::new(&ctx.reader)
                    .whole(&root)
                    .map_err(|_| {
                        refuse(code::NOTREADY, "this node does not hold that zero state")
                    })?;
                let boc = Boc::encode(state.as_ref());
                if crate::decode::file_hash(&boc) != file {
                    return Err(refuse(
                        code::ERROR,
                        "the held zero state does not serialize to the id's file hash",
                    ));
                }
                Ok(boc)
            })
            .await;
        match data {
            Ok(data) => Response::BlockState(BlockState {
                root_hash: id.root_hash.clone(),
                file_hash: id.file_hash.clone(),
                id,
                data,
            }),
            Err(e) => *e,
        }
    }

    /// The blocks an account is read at as of masterchain block `id`: the
    /// shard block holding it (`id` itself for a masterchain account) and
    /// the BoCs of both.
    async fn account_blocks(
        &self,
        id: &BlockIdExt,
        account: &AccountId,
    ) -> Result<AccountBlocks, Refusal> {
        if id.workchain != -1 {
            return Err(refuse(
                code::PROTOVIOLATION,
                "accounts are read at masterchain blocks",
            ));
        }
        let mc_bytes = self.block_file(id).await?;
        if account.workchain == -1 {
            return Ok(AccountBlocks {
                shardblk: id.clone(),
                shard_bytes: mc_bytes.clone(),
                mc_bytes,
                masterchain: true,
            });
        }
        let (mc_seqno, wc) = (id.seqno, account.workchain);
        let prefix = u64::from_be_bytes(account.id.0[..8].try_into().unwrap_or_default());
        let b = self
            .read(move |ctx| {
                let shards =
                    query::blocks::shard_state(&ctx.reader, mc_seqno).map_err(storage_error)?;
                shards
                    .into_iter()
                    .map(|d| d.block)
                    .find(|b| b.id.workchain == wc && shard_contains(b.id.shard, prefix))
                    .ok_or_else(|| refuse(code::NOTREADY, "no shard of that workchain is known"))
            })
            .await?;
        let shardblk = BlockIdExt {
            workchain: b.id.workchain,
            shard: b.id.shard,
            seqno: b.id.seqno,
            root_hash: Int256(b.root_hash),
            file_hash: Int256(b.file_hash),
        };
        let shard_bytes = self.block_file(&shardblk).await?;
        Ok(AccountBlocks {
            shardblk,
            mc_bytes,
            shard_bytes,
            masterchain: false,
        })
    }

    /// `getAccountState`: an account as of masterchain block `id`, with
    /// the proofs a lite client checks — `shard_proof` (the masterchain
    /// block down to its shard hashes, for a basechain account) and
    /// `proof` (the shard block's header and state update, and its state
    /// down to the account's entry); `state` is the `Account` cell, empty
    /// when the state has no such account.
    async fn account_state(&self, id: BlockIdExt, account: AccountId) -> Response {
        let blocks = match self.account_blocks(&id, &account).await {
            Ok(b) => b,
            Err(e) => return *e,
        };
        let shardblk = blocks.shardblk.clone();
        let account_id = HashBytes(account.id.0);
        let blocks = Arc::new(blocks);
        let answer = self
            .read(move |ctx| {
                let (shard_proof, proof, account) = blocks.prove(&ctx.reader, &account_id)?;
                let state = account
                    .map(|a| crate::boc::encode(a.account.inner().as_ref()))
                    .unwrap_or_default();
                Ok((shard_proof, proof, state))
            })
            .await;
        match answer {
            Ok((shard_proof, proof, state)) => Response::AccountState(AccountState {
                id,
                shardblk,
                shard_proof,
                proof,
                state,
            }),
            Err(e) => *e,
        }
    }

    /// `sendMessage`: an external message for the chain this process runs.
    /// Each shard's newest block and its outbound queue, as the chain this
    /// process runs counts them; with a shard asked for, those at or under it.
    async fn out_msg_queue_sizes(&self, only: Option<(u32, u64)>) -> Response {
        let Some(chain) = self.api.chain.clone() else {
            return error(code::NOTREADY, "this node runs no chain to count queues of");
        };
        let sizes = match tokio::task::spawn_blocking(move || chain.out_msg_queue_sizes()).await {
            Ok(Some(Ok(sizes))) => sizes,
            Ok(Some(Err(refused))) => return error(code::ERROR, refused.message),
            Ok(None) => return error(code::NOTREADY, "this chain does not count its queues"),
            Err(_) => return error(code::ERROR, "internal error"),
        };
        let shards = sizes
            .shards
            .iter()
            // With a shard given, the shards at or under it.
            .filter(|(id, _)| {
                only.is_none_or(|(wc, shard)| {
                    id.id.workchain == wc as i32
                        && shard_contains(shard, id.id.shard)
                        && id.id.shard.trailing_zeros() <= shard.trailing_zeros()
                })
            })
            .map(|(id, size)| OutMsgQueueSize {
                id: BlockIdExt {
                    workchain: id.id.workchain,
                    shard: id.id.shard,
                    seqno: id.id.seqno,
                    root_hash: Int256(id.root_hash),
                    file_hash: Int256(id.file_hash),
                },
                size: u32::try_from(*size).unwrap_or(u32::MAX),
            })
            .collect();
        Response::OutMsgQueueSizes(OutMsgQueueSizes {
            shards,
            ext_msg_queue_size_limit: sizes.ext_msg_queue_size_limit,
        })
    }

    async fn send_message(&self, body: Vec<u8>) -> Response {
        let Some(chain) = self.api.chain.clone() else {
            return error(code::NOTREADY, "this node has no network to send to");
        };
        let msg = match crate::api::external_message::check_external_bytes(&body) {
            Ok(msg) => msg,
            Err(e) => return error(code::PROTOVIOLATION, e),
        };
        match tokio::task::spawn_blocking(move || chain.send(msg.cell)).await {
            Ok(Ok(())) => Response::SendMsgStatus(SendMsgStatus { status: 1 }),
            Ok(Err(refused)) => error(code::ERROR, refused.message),
            Err(_) => error(code::ERROR, "internal error"),
        }
    }
}

/// Whether shard `shard` (TON's tagged prefix form) holds accounts whose id
/// starts with the 64 bits `prefix`.
fn shard_contains(shard: u64, prefix: u64) -> bool {
    let tag = shard & shard.wrapping_neg(); // the lowest set bit
    let mask = !(tag.wrapping_sub(1) | tag); // the prefix bits above it
    (prefix & mask) == (shard & mask)
}

fn lite_block_id(id: &tonindex_model::BlockIdExt) -> BlockIdExt {
    BlockIdExt {
        workchain: id.id.workchain,
        shard: id.id.shard,
        seqno: id.id.seqno,
        root_hash: Int256(id.root_hash),
        file_hash: Int256(id.file_hash),
    }
}

fn block_id(b: &BlockRecord) -> BlockIdExt {
    lite_block_id(&b.id)
}

fn error(code: i32, message: impl Into<String>) -> Response {
    Response::Error(LiteErrorAnswer {
        code,
        message: ton_liteapi::tl::common::String::new(message.into()),
    })
}

fn refuse(code: i32, message: impl Into<String>) -> Refusal {
    Box::new(error(code, message))
}

fn storage_error(e: tonindex_storage::Error) -> Refusal {
    match e {
        tonindex_storage::Error::DeadlineExceeded => {
            refuse(code::TIMEOUT, "the time budget ran out")
        }
        e => refuse(code::ERROR, format!("storage: {e}")),
    }
}

/// The TL name of a query, for errors.
fn request_name(r: &Request) -> String {
    let debug = format!("{r:?}");
    let name = debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("this query");
    let mut out = String::from("liteServer.");
    let mut chars = name.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_lowercase());
        out.extend(chars);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shard_contains;

    #[test]
    fn shards_hold_their_prefixes() {
        let full = 0x8000_0000_0000_0000;
        assert!(shard_contains(full, 0));
        assert!(shard_contains(full, u64::MAX));
        let left = 0x4000_0000_0000_0000; // prefix 0
        let right = 0xc000_0000_0000_0000; // prefix 1
        assert!(shard_contains(left, 0x1234));
        assert!(!shard_contains(left, 0x8000_0000_0000_0001));
        assert!(shard_contains(right, 0x8000_0000_0000_0001));
        assert!(!shard_contains(right, 0x7fff_ffff_ffff_ffff));
    }
}
