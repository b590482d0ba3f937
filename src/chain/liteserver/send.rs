//! Sending through a lite server: what v2 `sendBoc` and v3 `POST /message`
//! do on a node that follows a chain (`tonindex run`), as toncenter's v2
//! hands messages to liteservers through tonlib.

use tycho_types::cell::Cell;

use super::LiteServerAddr;
use crate::chain::link::{ChainLink, Refused};

/// A [`ChainLink`] that forwards external messages to a lite server.
pub struct LiteSender {
    server: LiteServerAddr,
    runtime: tokio::runtime::Handle,
}

impl LiteSender {
    /// Sends through `server`, on `runtime` (the API's).
    pub fn new(server: LiteServerAddr, runtime: tokio::runtime::Handle) -> Self {
        Self { server, runtime }
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
}
