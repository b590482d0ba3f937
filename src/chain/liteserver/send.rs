//! The API's road to the lite servers on a node that follows a chain
//! (`tonindex run`): sending (v2 `sendBoc`, v3 `POST /message`, as
//! toncenter's v2 hands messages to liteservers through tonlib) and
//! reading the states of accounts whose state the index does not hold,
//! checked by their proofs (`proofs.rs`).

use tycho_types::cell::{Cell, HashBytes};

use super::proofs::{check_account_state, ProvenAccount};
use super::LiteServerAddr;
use crate::chain::link::{ChainLink, Refused};

/// A [`ChainLink`] that forwards external messages to a lite server and
/// reads account states from it.
pub struct LiteSender {
    server: LiteServerAddr,
    runtime: tokio::runtime::Handle,
    /// One connection kept for reads (dropped after an error).
    reads: tokio::sync::Mutex<Option<ton_liteapi::client::LiteClient>>,
}

impl LiteSender {
    /// Sends through `server`, on `runtime` (the API's).
    pub fn new(server: LiteServerAddr, runtime: tokio::runtime::Handle) -> Self {
        Self {
            server,
            runtime,
            reads: tokio::sync::Mutex::new(None),
        }
    }

    /// How long a read may take before the API answers without it.
    const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    async fn fetch_account(
        &self,
        account: &tonindex_model::Address,
        mc: &tonindex_model::BlockIdExt,
    ) -> Result<ProvenAccount, Refused> {
        let network = |e: String| Refused::new(503, format!("LITE_SERVER_NETWORK: {e}"));
        let mut slot = self.reads.lock().await;
        if slot.is_none() {
            let client =
                ton_liteapi::client::LiteClient::connect(self.server.addr, self.server.key)
                    .await
                    .map_err(|e| network(format!("cannot reach {}: {e:?}", self.server.addr)))?;
            *slot = Some(client);
        }
        let client = slot.as_mut().expect("connected above");
        let id = ton_liteapi::tl::common::AccountId {
            workchain: account.workchain,
            id: ton_liteapi::tl::common::Int256(account.id),
        };
        let answer = client
            .get_account_state(super::follow::lite_id(mc), id)
            .await;
        let answer = match answer {
            Ok(a) => a,
            Err(ton_liteapi::types::LiteError::ServerError(e)) => {
                return Err(Refused::new(
                    500,
                    format!("LITE_SERVER_UNKNOWN: {}", e.message),
                ))
            }
            Err(e) => {
                *slot = None;
                return Err(network(format!("{e:?}")));
            }
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
            // A server whose proofs do not check out is not asked again on
            // this connection.
            *slot = None;
            Refused::new(
                502,
                format!("LITE_SERVER_UNKNOWN: the lite server's account state does not check out: {e:#}"),
            )
        })
    }
}

impl ChainLink for LiteSender {
    /// Forwards the message with `liteServer.sendMessage` on a connection
    /// of its own; a refusal comes back as the lite server worded it.
    fn send(&self, msg: Cell) -> Result<(), Refused> {
        let boc = tycho_types::boc::Boc::encode(msg.as_ref());
        let server = self.server.clone();
        self.runtime.block_on(async move {
            let mut client = ton_liteapi::client::LiteClient::connect(server.addr, server.key)
                .await
                .map_err(|e| {
                    Refused::new(
                        503,
                        format!("LITE_SERVER_NETWORK: cannot reach {}: {e:?}", server.addr),
                    )
                })?;
            match client.send_message(boc).await {
                Ok(_) => Ok(()),
                Err(ton_liteapi::types::LiteError::ServerError(e)) => Err(Refused::new(
                    500,
                    format!("LITE_SERVER_UNKNOWN: {}", e.message),
                )),
                Err(e) => Err(Refused::new(500, format!("LITE_SERVER_NETWORK: {e:?}"))),
            }
        })
    }

    /// The account's state at `mc` from the lite server, proofs checked
    /// (on the kept read connection; a blocking pool thread waits for it).
    fn account_state(
        &self,
        account: &tonindex_model::Address,
        mc: &tonindex_model::BlockIdExt,
    ) -> Option<Result<ProvenAccount, Refused>> {
        Some(self.runtime.block_on(async {
            tokio::time::timeout(Self::READ_TIMEOUT, self.fetch_account(account, mc))
                .await
                .unwrap_or_else(|_| {
                    Err(Refused::new(
                        504,
                        "LITE_SERVER_NETWORK: the lite server did not answer in time",
                    ))
                })
        }))
    }
}
